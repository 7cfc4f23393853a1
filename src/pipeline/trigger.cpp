// Triggers: the Kubernetes CronJob controller decision as a pure function, and the event and
// pipeline-completion trigger set with templated parameters.
#include "budcore/pipeline/trigger.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "budcore/templates/template.hpp"

namespace budcore::pipeline {

using core::Duration;
using core::Error;
using core::ErrorCode;
using core::Timestamp;
using core::Value;

// ---- concurrency policy ----

std::string_view to_string(ConcurrencyPolicy p) noexcept {
  switch (p) {
    case ConcurrencyPolicy::Allow: return "Allow";
    case ConcurrencyPolicy::Forbid: return "Forbid";
    case ConcurrencyPolicy::Replace: return "Replace";
  }
  return "Allow";
}

core::Result<ConcurrencyPolicy> parse_concurrency_policy(std::string_view text) {
  std::string l(text);
  for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "allow") return ConcurrencyPolicy::Allow;
  if (l == "forbid") return ConcurrencyPolicy::Forbid;
  if (l == "replace") return ConcurrencyPolicy::Replace;
  return Error::invalid("concurrency_policy", std::string(text), "expected Allow, Forbid or Replace");
}

// ---- cron decision ----

namespace {

constexpr std::int64_t kMissedLimit = 100;  // Kubernetes' "too many missed start times"

// The latest schedule time in (from, now], searching growing windows back from now so that a
// schedule with thousands of missed times costs only the fires of one small window.
std::optional<Timestamp> most_recent_in(const CronSchedule& s, Timestamp from, Timestamp now) {
  static constexpr std::array<Duration, 5> kWindows = {Duration::hours(1), Duration::hours(24),
                                                       Duration::hours(24 * 32), Duration::hours(24 * 400),
                                                       Duration::hours(24 * 366 * 10)};
  for (Duration w : kWindows) {
    Timestamp start = std::max(from, now - w);
    std::optional<Timestamp> last;
    for (auto t = s.next(start); t && *t <= now; t = s.next(*t)) last = t;
    if (last || start == from) return last;
  }
  return std::nullopt;
}

std::string fmt(Timestamp t) { return t.to_string(); }

}  // namespace

CronDecision decide_cron_run(const CronSchedule& schedule, const CronPolicy& policy, const CronState& state,
                             Timestamp now) {
  CronDecision d;
  d.next_schedule_time = schedule.next(now);
  if (policy.suspend) {
    d.reason = "suspended";
    return d;
  }
  Timestamp earliest = state.last_schedule_time.value_or(state.created);
  if (policy.starting_deadline) {
    Timestamp window_start = now - *policy.starting_deadline;
    if (window_start > earliest) earliest = window_start;
  }
  if (earliest > now) {
    d.reason = "no schedule time is due";
    return d;
  }
  // Count unmet schedule times in (earliest, now]; only the most recent starts.
  std::optional<Timestamp> latest;
  std::optional<Timestamp> t = schedule.next(earliest);
  while (t && *t <= now) {
    if (d.missed == kMissedLimit) {
      d.too_many_missed = true;
      latest = most_recent_in(schedule, *latest, now);
      break;
    }
    latest = t;
    ++d.missed;
    t = schedule.next(*t);
  }
  if (!latest) {
    d.reason = "no schedule time is due since " + fmt(earliest);
    return d;
  }
  d.scheduled_time = latest;
  if (policy.starting_deadline && *latest + *policy.starting_deadline < now) {
    d.action = CronAction::Skip;
    d.reason = "missed the starting deadline for " + fmt(*latest);
    return d;
  }
  bool already = state.last_schedule_time == latest ||
                 std::any_of(state.active.begin(), state.active.end(),
                             [&](const ActiveRun& r) { return r.scheduled_time == *latest; });
  if (already) {
    d.action = CronAction::None;
    d.missed = 0;
    d.reason = "the run for " + fmt(*latest) + " was already started";
    return d;
  }
  if (policy.concurrency == ConcurrencyPolicy::Forbid && !state.active.empty()) {
    d.action = CronAction::Skip;
    d.reason = "run " + state.active.front().run_id + " is still active and the concurrency policy is Forbid";
    return d;
  }
  if (policy.concurrency == ConcurrencyPolicy::Replace)
    for (const auto& r : state.active) d.replace.push_back(r.run_id);
  d.action = CronAction::Start;
  d.new_last_schedule_time = latest;
  d.reason = "start the run scheduled for " + fmt(*latest);
  if (d.missed > 1)
    d.reason += " (" + std::string(d.too_many_missed ? "more than 100" : std::to_string(d.missed - 1)) +
                " earlier schedule times were missed and are not run)";
  if (!d.replace.empty()) d.reason += "; replacing " + std::to_string(d.replace.size()) + " active run(s)";
  return d;
}

// ---- event and completion triggers ----

namespace {

struct CompiledParam {
  std::string name;
  Value literal;  // used when !is_template
  bool is_template = false;
  templates::Template tmpl;
};

struct Compiled {
  std::string field;  // "event_triggers[0]"
  std::string name;
  std::string pipeline;
  std::optional<templates::Template> condition;
  std::vector<CompiledParam> params;
};

bool truthy(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null: return false;
    case Value::Kind::Bool: return v.as_bool();
    case Value::Kind::Int: return v.as_int() != 0;
    case Value::Kind::Float: return v.as_float() != 0.0;
    case Value::Kind::String:
    case Value::Kind::List:
    case Value::Kind::Map: return v.size() != 0;
  }
  return false;
}

core::Result<templates::Template> compile_at(const std::string& text, const std::string& field) {
  auto t = templates::Template::compile(text);
  if (!t) {
    Error e = t.error();
    e.field = field;
    e.value = text;
    return e;
  }
  return t;
}

core::Result<Compiled> compile_common(const std::string& field, const std::string& name, const std::string& pipeline,
                                      const std::string& condition, const core::Map& parameters) {
  Compiled c;
  c.field = field;
  c.name = name;
  c.pipeline = pipeline;
  if (name.empty()) return Error::invalid(field + ".name", name, "trigger name is empty");
  if (pipeline.empty()) return Error::invalid(field + ".pipeline", pipeline, "pipeline to start is empty");
  if (!condition.empty()) {
    BUDCORE_TRY_ASSIGN(c.condition, compile_at(condition, field + ".condition"));
  }
  for (const auto& [key, value] : parameters) {
    CompiledParam p;
    p.name = key;
    if (value.is_string()) {
      p.is_template = true;
      BUDCORE_TRY_ASSIGN(p.tmpl, compile_at(value.as_string(), field + ".parameters." + key));
    } else {
      p.literal = value;
    }
    c.params.push_back(std::move(p));
  }
  return c;
}

bool is_terminal(PipelineStatus s) {
  return s == PipelineStatus::Completed || s == PipelineStatus::Failed || s == PipelineStatus::Cancelled;
}

bool event_matches(const std::string& pattern, const std::string& name) {
  if (!pattern.empty() && pattern.back() == '*')
    return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == name;
}

// Renders condition and parameters; nullopt when the condition is false.
core::Result<std::optional<core::Map>> render(const Compiled& c, const Value& context) {
  if (c.condition) {
    auto v = c.condition->render_native(context);
    if (!v) {
      Error e = v.error();
      e.field = c.field + ".condition";
      return e;
    }
    if (!truthy(*v)) return std::optional<core::Map>();
  }
  core::Map out;
  for (const auto& p : c.params) {
    if (!p.is_template) {
      out.set(p.name, p.literal);
      continue;
    }
    auto v = p.tmpl.render_native(context);
    if (!v) {
      Error e = v.error();
      e.field = c.field + ".parameters." + p.name;
      return e;
    }
    out.set(p.name, std::move(*v));
  }
  return std::optional<core::Map>(std::move(out));
}

}  // namespace

struct BUDCORE_HIDDEN TriggerSet::Impl {
  TriggerSetOptions options;
  std::vector<Compiled> events;
  std::vector<std::string> event_patterns;
  std::vector<Compiled> completions;
  std::vector<CompletionTriggerSpec> completion_specs;
};

core::Result<TriggerSet> TriggerSet::compile(std::vector<EventTriggerSpec> events,
                                             std::vector<CompletionTriggerSpec> completions,
                                             TriggerSetOptions options) {
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  std::set<std::string> names;
  auto unique = [&](const std::string& field, const std::string& name) -> core::Status {
    if (!name.empty() && !names.insert(name).second)
      return Error::invalid(field + ".name", name, "duplicate trigger name");
    return {};
  };
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& s = events[i];
    std::string field = "event_triggers[" + std::to_string(i) + "]";
    BUDCORE_TRY_ASSIGN(auto c, compile_common(field, s.name, s.pipeline, s.condition, s.parameters));
    BUDCORE_TRY(unique(field, s.name));
    if (s.event.empty() || s.event == "*")
      return Error::invalid(field + ".event", s.event, "event name is empty (a lone '*' would match every event)");
    impl->events.push_back(std::move(c));
    impl->event_patterns.push_back(s.event);
  }
  for (std::size_t i = 0; i < completions.size(); ++i) {
    const auto& s = completions[i];
    std::string field = "completion_triggers[" + std::to_string(i) + "]";
    BUDCORE_TRY_ASSIGN(auto c, compile_common(field, s.name, s.pipeline, s.condition, s.parameters));
    BUDCORE_TRY(unique(field, s.name));
    if (s.source_pipeline.empty())
      return Error::invalid(field + ".source_pipeline", s.source_pipeline, "source pipeline is empty");
    for (std::size_t j = 0; j < s.statuses.size(); ++j)
      if (!is_terminal(s.statuses[j]))
        return Error::invalid(field + ".statuses[" + std::to_string(j) + "]", std::string(to_string(s.statuses[j])),
                              "not a terminal status; expected completed, failed or cancelled");
    impl->completions.push_back(std::move(c));
    impl->completion_specs.push_back(s);
  }
  if (options.max_chain_depth < 0)
    return Error::invalid("max_chain_depth", std::to_string(options.max_chain_depth), "must not be negative");
  return TriggerSet(std::move(impl));
}

TriggerOutcome TriggerSet::on_event(const Event& event) const {
  TriggerOutcome out;
  Value ctx = Value::map({{"event", Value::map({{"name", event.name},
                                               {"payload", event.payload},
                                               {"time", event.time.to_string()},
                                               {"source", event.source}})}});
  for (std::size_t i = 0; i < impl_->events.size(); ++i) {
    if (!event_matches(impl_->event_patterns[i], event.name)) continue;
    const Compiled& c = impl_->events[i];
    auto r = render(c, ctx);
    if (!r) {
      out.errors.push_back(std::move(r).error());
      continue;
    }
    if (!*r) continue;
    TriggerFiring f;
    f.trigger = c.name;
    f.type = TriggerType::Event;
    f.pipeline = c.pipeline;
    f.parameters = std::move(**r);
    f.cause = "event " + event.name;
    out.firings.push_back(std::move(f));
  }
  return out;
}

TriggerOutcome TriggerSet::on_pipeline_finished(const PipelineFinished& done) const {
  TriggerOutcome out;
  Value ctx = Value::map({{"pipeline", Value::map({{"id", done.pipeline},
                                                  {"run_id", done.run_id},
                                                  {"status", std::string(to_string(done.status))},
                                                  {"outputs", done.outputs},
                                                  {"parameters", done.parameters},
                                                  {"finished_at", done.finished_at.to_string()}})}});
  for (std::size_t i = 0; i < impl_->completions.size(); ++i) {
    const auto& spec = impl_->completion_specs[i];
    if (spec.source_pipeline != done.pipeline) continue;
    bool status_ok = spec.statuses.empty()
                         ? is_terminal(done.status)
                         : std::find(spec.statuses.begin(), spec.statuses.end(), done.status) != spec.statuses.end();
    if (!status_ok) continue;
    const Compiled& c = impl_->completions[i];
    if (done.chain_depth + 1 > impl_->options.max_chain_depth) {
      out.errors.push_back(Error::make(ErrorCode::Conflict,
                                       "trigger chain depth " + std::to_string(done.chain_depth + 1) +
                                           " exceeds the limit of " + std::to_string(impl_->options.max_chain_depth) +
                                           "; not starting " + c.pipeline,
                                       c.field));
      continue;
    }
    auto r = render(c, ctx);
    if (!r) {
      out.errors.push_back(std::move(r).error());
      continue;
    }
    if (!*r) continue;
    TriggerFiring f;
    f.trigger = c.name;
    f.type = TriggerType::Pipeline;
    f.pipeline = c.pipeline;
    f.parameters = std::move(**r);
    f.cause = "pipeline " + done.pipeline + " run " + done.run_id + " " + std::string(to_string(done.status));
    f.triggered_by_run_id = done.run_id;
    f.chain_depth = done.chain_depth + 1;
    out.firings.push_back(std::move(f));
  }
  return out;
}

}  // namespace budcore::pipeline
