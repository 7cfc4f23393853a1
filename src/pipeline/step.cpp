// Step enums and the typed step configs.
#include "budcore/pipeline/step.hpp"

#include <array>
#include <cmath>
#include <utility>

#include "budcore/core/json.hpp"
#include "core/enum_lookup.hpp"

namespace budcore::pipeline {
namespace {

using core::detail::enum_name;
using core::detail::parse_enum;

constexpr std::array<std::pair<StepType, std::string_view>, 9> kStepTypes{{
    {StepType::Job, "job"},
    {StepType::ApiCall, "api_call"},
    {StepType::Function, "function"},
    {StepType::Notification, "notification"},
    {StepType::Transform, "transform"},
    {StepType::Condition, "condition"},
    {StepType::Parallel, "parallel"},
    {StepType::Wait, "wait"},
    {StepType::Loop, "loop"}}};
constexpr std::array<std::pair<TriggerType, std::string_view>, 4> kTriggers{{
    {TriggerType::Manual, "manual"},
    {TriggerType::Scheduled, "scheduled"},
    {TriggerType::Event, "event"},
    {TriggerType::Pipeline, "pipeline"}}};
constexpr std::array<std::pair<StepStatus, std::string_view>, 6> kStepStatuses{{
    {StepStatus::Pending, "pending"},
    {StepStatus::Waiting, "waiting"},
    {StepStatus::Running, "running"},
    {StepStatus::Completed, "completed"},
    {StepStatus::Failed, "failed"},
    {StepStatus::Skipped, "skipped"}}};
constexpr std::array<std::pair<PipelineStatus, std::string_view>, 6> kPipelineStatuses{{
    {PipelineStatus::Pending, "pending"},
    {PipelineStatus::Running, "running"},
    {PipelineStatus::Paused, "paused"},
    {PipelineStatus::Completed, "completed"},
    {PipelineStatus::Failed, "failed"},
    {PipelineStatus::Cancelled, "cancelled"}}};

using core::Error;
using core::Value;

// Field readers over a config map; each error names "config.<key>".
class Reader {
 public:
  // templates_ok: an unresolved config, where a template string stands for a value of any
  // type (checked once resolved), so only literal values are type-checked.
  explicit Reader(const Value& cfg, bool templates_ok = false) : cfg_(cfg), templates_ok_(templates_ok) {}

  bool templates_ok() const noexcept { return templates_ok_; }
  // The value as written, templates included.
  const Value* raw(std::string_view key) const {
    const Value* v = cfg_.find(key);
    return v && !v->is_null() ? v : nullptr;
  }
  // The value to type-check: null when absent, or a template in an unresolved config.
  const Value* get(std::string_view key) const {
    const Value* v = raw(key);
    if (v && templates_ok_ && v->is_string() && is_template(v->as_string())) return nullptr;
    return v;
  }
  core::Status require(std::string_view key) const {
    if (!raw(key)) return Error::invalid(path(key), "", "required field is missing");
    return {};
  }
  core::Status string(std::string_view key, std::string& out) const {
    if (const Value* v = get(key)) {
      if (!v->is_string()) return bad(key, *v, "must be a string");
      out = v->as_string();
    }
    return {};
  }
  core::Status opt_string(std::string_view key, std::optional<std::string>& out) const {
    if (!get(key)) return {};
    std::string s;
    BUDCORE_TRY(string(key, s));
    out = std::move(s);
    return {};
  }
  core::Status integer(std::string_view key, std::int64_t& out, std::int64_t min = 0) const {
    if (const Value* v = get(key)) {
      if (v->is_int()) {
        out = v->as_int();
      } else if (v->is_float() && std::floor(v->as_float()) == v->as_float() && std::abs(v->as_float()) < 9e15) {
        out = static_cast<std::int64_t>(v->as_float());
      } else {
        return bad(key, *v, "must be an integer");
      }
      if (out < min) return bad(key, *v, "must be >= " + std::to_string(min));
    }
    return {};
  }
  core::Status opt_integer(std::string_view key, std::optional<std::int64_t>& out, std::int64_t min = 0) const {
    if (!get(key)) return {};
    std::int64_t x = 0;
    BUDCORE_TRY(integer(key, x, min));
    out = x;
    return {};
  }
  core::Status number(std::string_view key, double& out) const {
    if (const Value* v = get(key)) {
      if (!v->is_number() || v->as_float() < 0) return bad(key, *v, "must be a non-negative number");
      out = v->as_float();
    }
    return {};
  }
  core::Status boolean(std::string_view key, bool& out) const {
    if (const Value* v = get(key)) {
      if (!v->is_bool()) return bad(key, *v, "must be true or false");
      out = v->as_bool();
    }
    return {};
  }
  core::Status strings(std::string_view key, std::vector<std::string>& out) const {
    if (const Value* v = get(key)) {
      if (!v->is_list()) return bad(key, *v, "must be a list of strings");
      for (const auto& item : v->as_list()) {
        if (!item.is_string()) return bad(key, *v, "must be a list of strings");
        out.push_back(item.as_string());
      }
    }
    return {};
  }
  core::Status map(std::string_view key, Value& out) const {
    if (const Value* v = get(key)) {
      if (!v->is_map()) return bad(key, *v, "must be a map");
      out = *v;
    }
    return {};
  }
  template <class E>
  core::Status enumeration(std::string_view key, E& out, core::Result<E> (*parse)(std::string_view)) const {
    if (const Value* v = get(key)) {
      if (!v->is_string()) return bad(key, *v, "must be a string");
      auto e = parse(v->as_string());
      if (!e) return Error::invalid(path(key), v->as_string(), e.error().message);
      out = *e;
    }
    return {};
  }

 private:
  static std::string path(std::string_view key) { return "config." + std::string(key); }
  static bool is_template(const std::string& s) {
    return s.find("{{") != std::string::npos || s.find("{%") != std::string::npos;
  }
  static Error bad(std::string_view key, const Value& v, std::string why) {
    return Error::invalid(path(key), core::to_json(v), std::move(why));
  }
  const Value& cfg_;
  bool templates_ok_ = false;
};

core::Result<StepConfig> parse_config(StepType type, const core::Value& config, bool templates_ok);

core::Result<StepConfig> parse_job(const Reader& r) {
  JobStepConfig c;
  BUDCORE_TRY(r.require("job_type"));
  BUDCORE_TRY(r.require("deployment_type"));
  BUDCORE_TRY(r.enumeration("job_type", c.job_type, &job::parse_job_type));
  BUDCORE_TRY(r.enumeration("deployment_type", c.deployment_type, &job::parse_deployment_type));
  BUDCORE_TRY(r.opt_string("component_ref", c.component_ref));
  if (const Value* s = r.get("spec")) c.spec = *s;
  BUDCORE_TRY(r.opt_string("cluster_id", c.cluster_id));
  BUDCORE_TRY(r.opt_string("gpu_type", c.gpu_type));
  BUDCORE_TRY(r.integer("gpu_count", c.gpu_count));
  BUDCORE_TRY(r.number("cpu_cores", c.cpu_cores));
  BUDCORE_TRY(r.number("memory_gb", c.memory_gb));
  BUDCORE_TRY(r.opt_integer("estimated_duration_seconds", c.estimated_duration_seconds));
  BUDCORE_TRY(r.opt_integer("max_duration_seconds", c.max_duration_seconds));
  BUDCORE_TRY(r.opt_string("time_window_start", c.time_window_start));
  BUDCORE_TRY(r.opt_string("time_window_end", c.time_window_end));
  BUDCORE_TRY(r.enumeration("priority", c.priority, &job::parse_job_priority));
  BUDCORE_TRY(r.boolean("preemptible", c.preemptible));
  BUDCORE_TRY(r.boolean("optimize_with_budsim", c.optimize_with_budsim));
  return StepConfig{std::move(c)};
}

core::Result<StepConfig> parse_api_call(const Reader& r) {
  ApiCallStepConfig c;
  BUDCORE_TRY(r.require("url"));
  BUDCORE_TRY(r.string("url", c.url));
  BUDCORE_TRY(r.string("method", c.method));
  BUDCORE_TRY(r.map("headers", c.headers));
  if (const Value* b = r.get("body")) c.body = *b;
  BUDCORE_TRY(r.integer("timeout_seconds", c.timeout_seconds, 1));
  BUDCORE_TRY(r.integer("retry_count", c.retry_count));
  return StepConfig{std::move(c)};
}

core::Result<StepConfig> parse_function(const Reader& r) {
  FunctionStepConfig c;
  BUDCORE_TRY(r.require("function"));
  BUDCORE_TRY(r.string("function", c.function));
  BUDCORE_TRY(r.map("args", c.args));
  BUDCORE_TRY(r.opt_integer("timeout_seconds", c.timeout_seconds, 1));
  return StepConfig{std::move(c)};
}

core::Result<StepConfig> parse_notification(const Reader& r) {
  NotificationStepConfig c;
  for (auto k : {"channel", "recipients", "message"}) BUDCORE_TRY(r.require(k));
  BUDCORE_TRY(r.string("channel", c.channel));
  BUDCORE_TRY(r.strings("recipients", c.recipients));
  BUDCORE_TRY(r.string("message", c.message));
  BUDCORE_TRY(r.string("severity", c.severity));
  return StepConfig{std::move(c)};
}

core::Result<StepConfig> parse_transform(const Reader& r) {
  TransformStepConfig c;
  BUDCORE_TRY(r.require("outputs"));
  BUDCORE_TRY(r.map("outputs", c.outputs));
  return StepConfig{std::move(c)};
}

core::Result<StepConfig> parse_condition(const Reader& r) {
  ConditionStepConfig c;
  BUDCORE_TRY(r.require("expression"));
  BUDCORE_TRY(r.require("then_steps"));
  BUDCORE_TRY(r.string("expression", c.expression));
  BUDCORE_TRY(r.strings("then_steps", c.then_steps));
  BUDCORE_TRY(r.strings("else_steps", c.else_steps));
  return StepConfig{std::move(c)};
}

core::Result<StepConfig> parse_parallel(const Reader& r) {
  ParallelStepConfig c;
  BUDCORE_TRY(r.require("steps"));
  BUDCORE_TRY(r.strings("steps", c.steps));
  BUDCORE_TRY(r.opt_integer("max_concurrency", c.max_concurrency, 1));
  BUDCORE_TRY(r.boolean("fail_fast", c.fail_fast));
  BUDCORE_TRY(r.number("min_success_ratio", c.min_success_ratio));
  if (c.min_success_ratio > 1) {
    return Error::invalid("config.min_success_ratio", std::to_string(c.min_success_ratio), "must be between 0 and 1");
  }
  return StepConfig{std::move(c)};
}

core::Result<StepConfig> parse_wait(const Reader& r) {
  WaitStepConfig c;
  BUDCORE_TRY(r.opt_integer("duration_seconds", c.duration_seconds));
  BUDCORE_TRY(r.opt_string("wait_for_event", c.wait_for_event));
  if (!c.duration_seconds && !c.wait_for_event)
    return Error::invalid("config.duration_seconds", "", "a WAIT step needs duration_seconds or wait_for_event");
  BUDCORE_TRY(r.integer("timeout_seconds", c.timeout_seconds, 1));
  return StepConfig{std::move(c)};
}

core::Result<StepConfig> parse_loop(const Reader& r) {
  LoopStepConfig c;
  BUDCORE_TRY(r.require("items"));
  BUDCORE_TRY(r.require("body"));
  c.items = *r.raw("items");
  if (!c.items.is_list() && !c.items.is_string())
    return Error::invalid("config.items", core::to_json(c.items), "must be a list or a template yielding one");
  BUDCORE_TRY(r.map("body", c.body));
  const Value* bt = c.body.find("step_type");
  if (!bt || !bt->is_string()) return Error::invalid("config.body.step_type", "", "a LOOP body needs a step_type");
  auto t = parse_step_type(bt->as_string());
  if (!t) return Error::invalid("config.body.step_type", bt->as_string(), t.error().message);
  const Value* bc = c.body.find("config");
  auto inner = parse_config(*t, bc ? *bc : Value(core::Map{}), r.templates_ok());
  if (!inner) return std::move(inner.error().at("config.body"));
  BUDCORE_TRY(r.opt_integer("max_concurrency", c.max_concurrency, 1));
  BUDCORE_TRY(r.boolean("fail_fast", c.fail_fast));
  return StepConfig{std::move(c)};
}

}  // namespace

std::string_view to_string(StepType t) noexcept { return enum_name(t, kStepTypes); }
std::string_view to_string(TriggerType t) noexcept { return enum_name(t, kTriggers); }
std::string_view to_string(StepStatus s) noexcept { return enum_name(s, kStepStatuses); }
std::string_view to_string(PipelineStatus s) noexcept { return enum_name(s, kPipelineStatuses); }
core::Result<StepType> parse_step_type(std::string_view text) { return parse_enum(text, kStepTypes, "step type"); }
core::Result<TriggerType> parse_trigger_type(std::string_view text) {
  return parse_enum(text, kTriggers, "trigger type");
}
core::Result<StepStatus> parse_step_status(std::string_view text) {
  return parse_enum(text, kStepStatuses, "step status");
}
core::Result<PipelineStatus> parse_pipeline_status(std::string_view text) {
  return parse_enum(text, kPipelineStatuses, "pipeline status");
}

std::vector<std::string_view> required_config_fields(StepType type) {
  switch (type) {
    case StepType::Job: return {"job_type", "deployment_type"};
    case StepType::ApiCall: return {"url"};
    case StepType::Function: return {"function"};
    case StepType::Notification: return {"channel", "recipients", "message"};
    case StepType::Transform: return {"outputs"};
    case StepType::Condition: return {"expression", "then_steps"};
    case StepType::Parallel: return {"steps"};
    case StepType::Wait: return {"duration_seconds"};
    case StepType::Loop: return {"items", "body"};
  }
  return {};
}

core::Result<StepConfig> parse_step_config(StepType type, const core::Value& config) {
  return parse_config(type, config, false);
}

core::Status check_step_config_literals(StepType type, const core::Value& config) {
  auto parsed = parse_config(type, config, true);
  if (!parsed) return std::move(parsed).error();
  return {};
}

namespace {

core::Result<StepConfig> parse_config(StepType type, const core::Value& config, bool templates_ok) {
  if (!config.is_map() && !config.is_null()) return Error::invalid("config", core::to_json(config), "must be a map");
  const Value empty{core::Map{}};
  Reader r(config.is_map() ? config : empty, templates_ok);
  switch (type) {
    case StepType::Job: return parse_job(r);
    case StepType::ApiCall: return parse_api_call(r);
    case StepType::Function: return parse_function(r);
    case StepType::Notification: return parse_notification(r);
    case StepType::Transform: return parse_transform(r);
    case StepType::Condition: return parse_condition(r);
    case StepType::Parallel: return parse_parallel(r);
    case StepType::Wait: return parse_wait(r);
    case StepType::Loop: return parse_loop(r);
  }
  return Error::make(core::ErrorCode::Internal, "unhandled step type");
}

}  // namespace

double Step::planned_duration_seconds() const noexcept {
  const char* key = step_type == StepType::Job    ? "estimated_duration_seconds"
                    : step_type == StepType::Wait ? "duration_seconds"
                                                  : nullptr;
  if (!key) return 0;
  const Value* v = config.find(key);
  return v && v->is_number() && v->as_float() >= 0 ? v->as_float() : 0;
}

core::Value Step::to_value() const {
  core::Map m;
  m.set("id", id);
  m.set("name", name);
  m.set("order", order);
  m.set("step_type", std::string(to_string(step_type)));
  core::List deps;
  for (const auto& d : depends_on) deps.emplace_back(d);
  m.set("depends_on", std::move(deps));
  m.set("condition", condition ? Value(*condition) : Value());
  m.set("config", config);
  return Value(std::move(m));
}

}  // namespace budcore::pipeline
