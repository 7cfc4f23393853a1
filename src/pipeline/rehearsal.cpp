// The rehearsal loop: drive the engine on a virtual clock until it is done, answering
// approval gates as the options say, and record every transition.
#include "budcore/pipeline/rehearsal.hpp"

#include <algorithm>
#include <climits>
#include <optional>
#include <utility>

#include "budcore/core/clock.hpp"
#include "budcore/pipeline/engine.hpp"
#include "budcore/pipeline/simulation.hpp"

namespace budcore::pipeline {
namespace {

using core::Value;

double seconds_between(core::Timestamp from, core::Timestamp to) {
  return static_cast<double>((to - from).count_ns()) / 1e9;
}

std::string join(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string out(path);
  out += '.';
  out += key;
  return out;
}

std::string type_name(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return "a boolean";
    case Value::Kind::Int: return "an integer";
    case Value::Kind::Float: return "a number";
    case Value::Kind::String: return "a string";
    case Value::Kind::List: return "a list";
    case Value::Kind::Map: return "a map";
  }
  return "a value";
}

std::string shown(const Value& v) { return v.is_string() ? v.as_string() : type_name(v); }

// A list of step ids (["a", "b"]); null is empty.
core::Result<std::vector<std::string>> step_list(const Value& v, const std::string& path) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_list()) return core::Error::invalid(path, shown(v), "must be a list of step ids, not " + type_name(v));
  for (std::size_t i = 0; i < v.as_list().size(); ++i) {
    const Value& item = v.as_list()[i];
    std::string at = path + "[" + std::to_string(i) + "]";
    if (!item.is_string() || item.as_string().empty()) {
      return core::Error::invalid(at, shown(item), "must be a step id (a non-empty string)");
    }
    out.push_back(item.as_string());
  }
  return out;
}

core::Status parse_fail(const Value& v, const std::string& path, RehearsalOptions& out) {
  if (v.is_list() || v.is_null()) {
    BUDCORE_TRY_ASSIGN(auto steps, step_list(v, path));
    for (const auto& s : steps) out.faults[s].fail_attempts = INT_MAX;
    return {};
  }
  if (!v.is_map()) return core::Error::invalid(path, shown(v), "must map step ids to attempt counts, or list step ids");
  for (const auto& [step, n] : v.as_map()) {
    std::string at = path + "." + step;
    if (n.is_bool() && n.as_bool()) {
      out.faults[step].fail_attempts = INT_MAX;
    } else if (n.is_int() && n.as_int() >= 0) {
      out.faults[step].fail_attempts = static_cast<int>(std::min<std::int64_t>(n.as_int(), INT_MAX));
    } else {
      return core::Error::invalid(at, shown(n), "must be a whole number of failing attempts (>= 0) or true (every attempt)");
    }
  }
  return {};
}

core::Status parse_slow(const Value& v, const std::string& path, RehearsalOptions& out) {
  if (v.is_null()) return {};
  if (!v.is_map()) return core::Error::invalid(path, shown(v), "must map step ids to slow-down factors");
  for (const auto& [step, x] : v.as_map()) {
    if (!x.is_number() || !(x.as_float() > 0)) {
      return core::Error::invalid(path + "." + step, shown(x), "must be a factor greater than 0, e.g. 2.0");
    }
    out.faults[step].slow_factor = x.as_float();
  }
  return {};
}

// Forwards to the observer and keeps every transition.
class RecordingSink final : public StateSink {
 public:
  RecordingSink(std::vector<Transition>& out, StateSink* observer) : out_(out), observer_(observer) {}
  core::Status save(const Transition& t, const RunState& state) override { return forward(t, state, nullptr); }
  // Passes the change list on, so a journaling observer stays incremental.
  core::Status save_changes(const Transition& t, const RunState& state, std::span<const std::size_t> changed) override {
    return forward(t, state, &changed);
  }
  const std::optional<core::Error>& error() const noexcept { return error_; }

 private:
  core::Status forward(const Transition& t, const RunState& state, const std::span<const std::size_t>* changed) {
    out_.push_back(t);
    if (!observer_) return {};
    auto st = changed ? observer_->save_changes(t, state, *changed) : observer_->save(t, state);
    if (!st && !error_) error_ = st.error();
    return st;
  }
  std::vector<Transition>& out_;
  StateSink* observer_;
  std::optional<core::Error> error_;
};

// Approves or rejects the first gate waiting for an answer; false when none waits.
core::Result<bool> answer_gate(Engine& engine, const RehearsalOptions& options) {
  for (const auto& s : engine.state().steps) {
    if (s.state != StepState::AwaitingApproval) continue;
    bool rejected = std::find(options.reject.begin(), options.reject.end(), s.id) != options.reject.end();
    auto st = rejected ? engine.reject(s.id, options.approver, options.reject_reason) : engine.approve(s.id, options.approver);
    if (!st) return st.error();
    return true;
  }
  return false;
}

}  // namespace

core::Result<RehearsalOptions> rehearsal_options_from_value(const Value& options, std::string_view path) {
  RehearsalOptions out;
  if (options.is_null()) return out;
  if (!options.is_map()) return core::Error::invalid(std::string(path), shown(options), "options must be a JSON object");
  for (const auto& [key, v] : options.as_map()) {
    std::string at = join(path, key);
    if (key == "run_id") {
      if (!v.is_string() || v.as_string().empty()) return core::Error::invalid(at, shown(v), "must be a non-empty string");
      out.run_id = v.as_string();
    } else if (key == "params") {
      if (!v.is_null() && !v.is_map()) return core::Error::invalid(at, shown(v), "must be a map of parameter values");
      out.params = v;
    } else if (key == "fail") {
      BUDCORE_TRY(parse_fail(v, at, out));
    } else if (key == "slow") {
      BUDCORE_TRY(parse_slow(v, at, out));
    } else if (key == "timeout") {
      BUDCORE_TRY_ASSIGN(auto steps, step_list(v, at));
      for (const auto& s : steps) out.faults[s].hang = true;
    } else if (key == "reject") {
      BUDCORE_TRY_ASSIGN(out.reject, step_list(v, at));
    } else {
      return core::Error::invalid(at, key, "unknown option (expected run_id, params, fail, slow, timeout or reject)");
    }
  }
  return out;
}

Value RehearsalResult::transition_value(const Transition& t, core::Timestamp start) {
  Value v = t.to_value();
  v.mutable_map().set("elapsed_seconds", seconds_between(start, t.at));
  return v;
}

Value RehearsalResult::summary() const {
  core::Map steps;
  for (const auto& s : state.steps) steps.set(s.id, std::string(to_string(s.state)));
  return Value::map({{"status", std::string(to_string(status))},
                     {"done", done},
                     {"elapsed_seconds", static_cast<double>(elapsed.count_ns()) / 1e9},
                     {"failure_reason", failure_reason},
                     {"steps", Value(std::move(steps))}});
}

Value RehearsalResult::to_value() const {
  Value v = summary();
  core::Map outputs, messages;
  for (const auto& s : state.steps) {
    if (!s.outputs.is_null()) outputs.set(s.id, s.outputs);
    if (!s.message.empty()) messages.set(s.id, s.message);
  }
  core::List list;
  list.reserve(transitions.size());
  for (const auto& t : transitions) list.push_back(transition_value(t, start));
  auto& m = v.mutable_map();
  m.set("outputs", Value(std::move(outputs)));
  m.set("messages", Value(std::move(messages)));
  m.set("transitions", Value(std::move(list)));
  return v;
}

core::Result<RehearsalResult> rehearse(const Value& document, const RehearsalOptions& options,
                                       const FunctionRegistry* functions, StateSink* observer) {
  core::VirtualClock clock;
  RehearsalResult result;
  result.start = clock.now();

  auto keys = referenced_output_keys(document);
  SimJobOptions sim;
  sim.output_keys = keys;
  sim.faults = options.faults;
  EngineOptions engine_options;
  engine_options.run_id = options.run_id;
  engine_options.params = options.params;
  for (const auto& [step, fault] : options.faults) {
    if (fault.fail_attempts > 0 || fault.hang) engine_options.faults[step] = StepFault{fault.fail_attempts, fault.hang};
  }

  SimJobRunner jobs(clock, sim);
  SimHttpClient http(keys);
  SimNotifier notifier;
  FunctionRegistry none;
  RecordingSink sink(result.transitions, observer);
  EngineDeps deps{&clock, &jobs, &http, &notifier, functions ? functions : &none, &sink};
  BUDCORE_TRY_ASSIGN(auto engine, Engine::create(document, deps, engine_options));

  // Each round runs until the engine idles; an idle engine waits for a gate's answer or for
  // input a rehearsal never sends (an event, a resume), which ends the rehearsal.
  for (int round = 0; round < 100000; ++round) {
    auto status = engine.run_virtual(clock);
    if (sink.error()) return *sink.error();
    if (!status) return status.error();
    if (engine.done()) break;
    BUDCORE_TRY_ASSIGN(bool answered, answer_gate(engine, options));
    if (sink.error()) return *sink.error();
    if (!answered) break;
  }

  result.status = engine.status();
  result.done = engine.done();
  const auto& started = engine.state().started_at;
  result.elapsed = started ? clock.now() - *started : core::Duration();
  result.failure_reason = engine.state().failure_reason;
  result.state = engine.state();
  return result;
}

}  // namespace budcore::pipeline
