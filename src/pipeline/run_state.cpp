// RunState <-> JSON: the engine's whole state, so a new engine resumes where a crash left off.
#include "budcore/pipeline/run_state.hpp"

#include <cstdio>

#include "budcore/core/json.hpp"

namespace budcore::pipeline {
namespace {

using core::Map;
using core::Value;

constexpr std::pair<StepState, std::string_view> kStepStates[] = {
    {StepState::Pending, "pending"},     {StepState::AwaitingApproval, "awaiting_approval"},
    {StepState::Running, "running"},     {StepState::Retrying, "retrying"},
    {StepState::Succeeded, "succeeded"}, {StepState::Failed, "failed"},
    {StepState::Errored, "errored"},     {StepState::Skipped, "skipped"},
    {StepState::Omitted, "omitted"},     {StepState::Cancelled, "cancelled"}};
constexpr std::pair<RunPhase, std::string_view> kPhases[] = {
    {RunPhase::NotStarted, "not_started"}, {RunPhase::Main, "main"},         {RunPhase::OnFailure, "on_failure"},
    {RunPhase::Compensating, "compensating"}, {RunPhase::Finally, "finally"}, {RunPhase::Done, "done"}};
constexpr std::pair<TimerKind, std::string_view> kTimers[] = {
    {TimerKind::None, "none"}, {TimerKind::Retry, "retry"}, {TimerKind::WaitDuration, "wait"},
    {TimerKind::Timeout, "timeout"}};

template <class E, std::size_t N>
std::string_view name_of(const std::pair<E, std::string_view> (&table)[N], E e) {
  for (const auto& [k, n] : table)
    if (k == e) return n;
  return "unknown";
}
template <class E, std::size_t N>
core::Result<E> parse_of(const std::pair<E, std::string_view> (&table)[N], std::string_view text, const char* field) {
  for (const auto& [k, n] : table)
    if (n == text) return k;
  return core::Error::invalid(field, std::string(text), "unknown value");
}

Value time_value(const std::optional<core::Timestamp>& t) { return t ? Value(t->to_string()) : Value(); }

core::Status read_time(const Value& m, std::string_view key, std::optional<core::Timestamp>& out) {
  const Value* v = m.find(key);
  if (!v || v->is_null()) return {};
  if (!v->is_string()) return core::Error::invalid(std::string(key), "", "must be an RFC 3339 string");
  auto t = core::Timestamp::parse(v->as_string());
  if (!t) return std::move(t).error().at(key);
  out = *t;
  return {};
}

const Value& get(const Value& m, std::string_view key) {
  static const Value kNull;
  const Value* v = m.find(key);
  return v ? *v : kNull;
}
std::string get_string(const Value& m, std::string_view key) {
  const Value& v = get(m, key);
  return v.is_string() ? v.as_string() : std::string();
}
std::int64_t get_int(const Value& m, std::string_view key) {
  const Value& v = get(m, key);
  return v.is_int() ? v.as_int() : 0;
}
bool get_bool(const Value& m, std::string_view key) {
  const Value& v = get(m, key);
  return v.is_bool() && v.as_bool();
}

}  // namespace

Value StepRun::to_value() const {
  const StepRun& s = *this;
  Map m;
  m.set("id", s.id);
  m.set("state", std::string(to_string(s.state)));
  m.set("attempts", s.attempts);
  m.set("attempt_base", s.attempt_base);
  m.set("outputs", s.outputs);
  m.set("message", s.message);
  m.set("started_at", time_value(s.started_at));
  m.set("finished_at", time_value(s.finished_at));
  m.set("attempt_started_at", time_value(s.attempt_started_at));
  m.set("timer", std::string(name_of(kTimers, s.timer)));
  m.set("timer_at", time_value(s.timer_at));
  m.set("timeout_at", time_value(s.timeout_at));
  m.set("input_hash", s.input_hash);
  m.set("completion_seq", s.completion_seq);
  m.set("approved_by", s.approved_by);
  m.set("items", s.items);
  return Value(std::move(m));
}

core::Result<StepRun> StepRun::from_value(const Value& v) {
  if (!v.is_map()) return core::Error::invalid("", "", "a step state must be a map");
  StepRun s;
  s.id = get_string(v, "id");
  BUDCORE_TRY_ASSIGN(s.state, parse_step_state(get_string(v, "state")));
  s.attempts = static_cast<int>(get_int(v, "attempts"));
  s.attempt_base = static_cast<int>(get_int(v, "attempt_base"));
  s.outputs = get(v, "outputs");
  s.message = get_string(v, "message");
  BUDCORE_TRY(read_time(v, "started_at", s.started_at));
  BUDCORE_TRY(read_time(v, "finished_at", s.finished_at));
  BUDCORE_TRY(read_time(v, "attempt_started_at", s.attempt_started_at));
  BUDCORE_TRY_ASSIGN(s.timer, parse_of(kTimers, get_string(v, "timer"), "timer"));
  BUDCORE_TRY(read_time(v, "timer_at", s.timer_at));
  BUDCORE_TRY(read_time(v, "timeout_at", s.timeout_at));
  s.input_hash = get_string(v, "input_hash");
  s.completion_seq = get_int(v, "completion_seq");
  s.approved_by = get_string(v, "approved_by");
  s.items = get(v, "items");
  return s;
}

Value RunState::Memo::to_value() const { return Value::map({{"hash", hash}, {"outputs", outputs}}); }
RunState::Memo RunState::Memo::from_value(const Value& v) { return Memo{get_string(v, "hash"), get(v, "outputs")}; }

std::string_view to_string(StepState s) noexcept { return name_of(kStepStates, s); }
core::Result<StepState> parse_step_state(std::string_view text) { return parse_of(kStepStates, text, "state"); }
std::string_view to_string(RunPhase p) noexcept { return name_of(kPhases, p); }

bool is_terminal(StepState s) noexcept {
  switch (s) {
    case StepState::Succeeded:
    case StepState::Failed:
    case StepState::Errored:
    case StepState::Skipped:
    case StepState::Omitted:
    case StepState::Cancelled: return true;
    default: return false;
  }
}

StepStatus to_step_status(StepState s) noexcept {
  switch (s) {
    case StepState::Pending: return StepStatus::Pending;
    case StepState::AwaitingApproval: return StepStatus::Waiting;
    case StepState::Running:
    case StepState::Retrying: return StepStatus::Running;
    case StepState::Succeeded: return StepStatus::Completed;
    case StepState::Skipped:
    case StepState::Omitted: return StepStatus::Skipped;
    default: return StepStatus::Failed;
  }
}

const StepRun* RunState::find(std::string_view id) const noexcept {
  for (const auto& s : steps)
    if (s.id == id) return &s;
  return nullptr;
}

Value RunState::fields_to_value() const {
  Map m;
  m.set("version", version);
  m.set("run_id", run_id);
  m.set("status", std::string(to_string(status)));
  m.set("phase", std::string(to_string(phase)));
  m.set("paused", paused);
  m.set("cancel_requested", cancel_requested);
  m.set("failing", failing);
  m.set("failure_reason", failure_reason);
  m.set("started_at", time_value(started_at));
  m.set("finished_at", time_value(finished_at));
  m.set("seq", seq);
  m.set("completions", completions);
  m.set("params", params);
  m.set("events", events);
  return Value(std::move(m));
}

Value RunState::to_value() const {
  Value v = fields_to_value();
  Map& m = v.mutable_map();
  core::List list;
  list.reserve(steps.size());
  for (const auto& s : steps) list.push_back(s.to_value());
  m.set("steps", Value(std::move(list)));
  Map memo_map;
  for (const auto& [id, memo_entry] : memo) memo_map.set(id, memo_entry.to_value());
  m.set("memo", Value(std::move(memo_map)));
  return v;
}

std::string RunState::to_json() const { return core::to_json(to_value()); }

core::Status RunState::read_fields(const Value& v) {
  if (!v.is_map()) return core::Error::invalid("", "", "a run state must be a map");
  version = static_cast<int>(get_int(v, "version"));
  if (version != 1) return core::Error::invalid("version", std::to_string(version), "unsupported run state version");
  run_id = get_string(v, "run_id");
  auto parsed_status = parse_pipeline_status(get_string(v, "status"));
  if (!parsed_status) return std::move(parsed_status).error().at("status");
  status = *parsed_status;
  BUDCORE_TRY_ASSIGN(phase, parse_of(kPhases, get_string(v, "phase"), "phase"));
  paused = get_bool(v, "paused");
  cancel_requested = get_bool(v, "cancel_requested");
  failing = get_bool(v, "failing");
  failure_reason = get_string(v, "failure_reason");
  started_at.reset();
  finished_at.reset();
  BUDCORE_TRY(read_time(v, "started_at", started_at));
  BUDCORE_TRY(read_time(v, "finished_at", finished_at));
  seq = get_int(v, "seq");
  completions = get_int(v, "completions");
  params = get(v, "params").is_map() ? get(v, "params") : Value(Map{});
  events = get(v, "events").is_map() ? get(v, "events") : Value(Map{});
  return {};
}

core::Result<RunState> RunState::from_value(const Value& v) {
  RunState r;
  BUDCORE_TRY(r.read_fields(v));
  const Value& steps = get(v, "steps");
  if (!steps.is_list()) return core::Error::invalid("steps", "", "must be a list");
  r.steps.reserve(steps.as_list().size());
  for (std::size_t i = 0; i < steps.as_list().size(); ++i) {
    auto s = StepRun::from_value(steps.as_list()[i]);
    if (!s) return std::move(s).error().at("steps[" + std::to_string(i) + "]");
    r.steps.push_back(std::move(*s));
  }
  const Value& memo = get(v, "memo");
  if (memo.is_map()) {
    for (const auto& [id, e] : memo.as_map()) r.memo[id] = Memo::from_value(e);
  }
  return r;
}

core::Result<RunState> RunState::from_json(std::string_view text) {
  BUDCORE_TRY_ASSIGN(Value v, core::parse_json(text));
  return from_value(v);
}

Value Transition::to_value() const {
  return Value::map({{"seq", seq},
                     {"time", at.to_string()},
                     {"step", step},
                     {"from", from},
                     {"to", to},
                     {"attempt", attempt},
                     {"message", message}});
}

}  // namespace budcore::pipeline
