// Deriving a pipeline's trigger from its document. Keys (docs/triggers.md, "Running triggers"):
//   SCHEDULED: cron_expression, time_zone, starting_deadline_seconds, concurrency_policy, suspend
//   EVENT:     event_config {event, condition, parameters}
//   PIPELINE:  triggered_by_pipeline_id, trigger_statuses, trigger_condition, trigger_parameters
#include <string>
#include <utility>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/pipeline_spec.hpp"
#include "pipeline/orchestrator_impl.hpp"

namespace budcore::pipeline::detail {
namespace {

using core::Error;
using core::Value;

// The value as the user wrote it, for error messages.
std::string shown(const Value& v) { return v.is_string() ? v.as_string() : core::to_json(v); }

core::Result<std::optional<std::string>> optional_string(const Value& p, std::string_view key) {
  const Value* v = p.find(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) return Error::invalid("pipeline." + std::string(key), shown(*v), "must be a string");
  return std::optional<std::string>(v->as_string());
}

core::Result<core::Map> optional_map(const Value* v, const std::string& field) {
  if (v == nullptr || v->is_null()) return core::Map{};
  if (!v->is_map()) return Error::invalid(field, shown(*v), "must be a map of parameter name to value or template");
  return v->as_map();
}

core::Status derive_cron(const Value& p, OrchestratedPipeline& out) {
  const Value* expr = p.find("cron_expression");
  if (expr == nullptr || expr->is_null() || (expr->is_string() && expr->as_string().empty()))
    return Error::invalid("pipeline.cron_expression", "", "a SCHEDULED pipeline needs a cron expression");
  if (!expr->is_string()) return Error::invalid("pipeline.cron_expression", shown(*expr), "must be a string");
  BUDCORE_TRY_ASSIGN(auto zone, optional_string(p, "time_zone"));
  auto schedule = CronSchedule::parse(expr->as_string(), zone.value_or(""));
  if (!schedule) {
    Error e = schedule.error();
    bool zone_key = e.field == "time_zone" && zone.has_value();
    if (!zone_key && !e.field.empty()) e.message = e.field + ": " + e.message;
    e.field = zone_key ? "pipeline.time_zone" : "pipeline.cron_expression";
    return e;
  }
  out.schedule = std::move(*schedule);

  if (const Value* d = p.find("starting_deadline_seconds"); d != nullptr && !d->is_null()) {
    if (!d->is_int() || d->as_int() <= 0)
      return Error::invalid("pipeline.starting_deadline_seconds", shown(*d), "must be a positive whole number of seconds");
    out.policy.starting_deadline = core::Duration::seconds(d->as_int());
  }
  BUDCORE_TRY_ASSIGN(auto policy, optional_string(p, "concurrency_policy"));
  if (policy) {
    auto parsed = parse_concurrency_policy(*policy);
    if (!parsed) return Error::invalid("pipeline.concurrency_policy", *policy, parsed.error().message);
    out.policy.concurrency = *parsed;
  }
  if (const Value* s = p.find("suspend"); s != nullptr && !s->is_null()) {
    if (!s->is_bool()) return Error::invalid("pipeline.suspend", shown(*s), "must be true or false");
    out.policy.suspend = s->as_bool();
  }
  return {};
}

// Keeps a compiled one-trigger set, or returns its error with the field the document spells.
core::Status install(core::Result<TriggerSet> set, OrchestratedPipeline& out) {
  if (!set) {
    Error e = set.error();
    e.field = document_field(e.field);
    return e;
  }
  out.triggers = std::move(*set);
  return {};
}

core::Status derive_event(const Value& p, OrchestratedPipeline& out, const TriggerSetOptions& options) {
  const Value* config = p.find("event_config");
  if (config == nullptr || config->is_null())
    return Error::invalid("pipeline.event_config", "", "an EVENT pipeline needs event_config {event, condition, parameters}");
  if (!config->is_map()) return Error::invalid("pipeline.event_config", shown(*config), "must be a map");
  EventTriggerSpec spec;
  spec.name = out.id;
  spec.pipeline = out.id;
  const Value* event = config->find("event");
  if (event == nullptr || !event->is_string() || event->as_string().empty())
    return Error::invalid("pipeline.event_config.event", event ? shown(*event) : "",
                          "must name the event to match (a trailing '*' matches a prefix)");
  spec.event = event->as_string();
  if (const Value* c = config->find("condition"); c != nullptr && !c->is_null()) {
    if (!c->is_string()) return Error::invalid("pipeline.event_config.condition", shown(*c), "must be a template string");
    spec.condition = c->as_string();
  }
  BUDCORE_TRY_ASSIGN(spec.parameters, optional_map(config->find("parameters"), "pipeline.event_config.parameters"));
  return install(TriggerSet::compile({std::move(spec)}, {}, options), out);
}

core::Status derive_completion(const Value& p, OrchestratedPipeline& out, const TriggerSetOptions& options) {
  BUDCORE_TRY_ASSIGN(auto source, optional_string(p, "triggered_by_pipeline_id"));
  if (!source || source->empty())
    return Error::invalid("pipeline.triggered_by_pipeline_id", "", "a PIPELINE-triggered pipeline needs the id of the pipeline whose completion starts it");
  CompletionTriggerSpec spec;
  spec.name = out.id;
  spec.pipeline = out.id;
  spec.source_pipeline = *source;
  if (const Value* s = p.find("trigger_statuses"); s != nullptr && !s->is_null()) {
    if (!s->is_list()) return Error::invalid("pipeline.trigger_statuses", shown(*s), "must be a list of statuses");
    spec.statuses.clear();
    for (std::size_t i = 0; i < s->as_list().size(); ++i) {
      const Value& item = s->as_list()[i];
      std::string field = "pipeline.trigger_statuses[" + std::to_string(i) + "]";
      auto status = item.is_string() ? parse_pipeline_status(item.as_string()) : core::Result<PipelineStatus>(Error{});
      bool terminal = status && (*status == PipelineStatus::Completed || *status == PipelineStatus::Failed ||
                                 *status == PipelineStatus::Cancelled);
      if (!terminal) return Error::invalid(field, shown(item), "expected completed, failed or cancelled");
      spec.statuses.push_back(*status);
    }
  }
  BUDCORE_TRY_ASSIGN(auto condition, optional_string(p, "trigger_condition"));
  spec.condition = condition.value_or("");
  BUDCORE_TRY_ASSIGN(spec.parameters, optional_map(p.find("trigger_parameters"), "pipeline.trigger_parameters"));
  return install(TriggerSet::compile({}, {std::move(spec)}, options), out);
}

std::string replace_prefix(std::string_view field, std::string_view from, std::string_view to) {
  return std::string(to) + std::string(field.substr(from.size()));
}

}  // namespace

std::string document_field(std::string_view field) {
  constexpr std::string_view kEvent = "event_triggers[0]";
  constexpr std::string_view kCompletion = "completion_triggers[0]";
  if (field.starts_with(kEvent)) return replace_prefix(field, kEvent, "pipeline.event_config");
  if (field.starts_with(kCompletion)) {
    std::string_view rest = field.substr(kCompletion.size());
    for (std::string_view key : {".parameters", ".condition", ".statuses"}) {
      if (rest.starts_with(key))
        return "pipeline.trigger_" + std::string(key.substr(1)) + std::string(rest.substr(key.size()));
    }
    return "pipeline.triggered_by_pipeline_id";
  }
  return std::string(field);
}

core::Result<OrchestratedPipeline> derive_pipeline(const core::Value& document, core::Timestamp created,
                                                   int max_chain_depth) {
  BUDCORE_TRY_ASSIGN(PipelineSpec spec, PipelineSpec::from_value(document));
  const Value* p = document.find("pipeline");
  if (spec.pipeline.id.empty() || p == nullptr)
    return Error::invalid("pipeline.id", "", "a pipeline needs an id to be registered");
  OrchestratedPipeline out;
  out.id = spec.pipeline.id;
  out.document = document;
  out.trigger = spec.pipeline.trigger_type;
  out.cron.created = created;
  TriggerSetOptions options;
  options.max_chain_depth = max_chain_depth;
  switch (out.trigger) {
    case TriggerType::Manual: break;
    case TriggerType::Scheduled: BUDCORE_TRY(derive_cron(*p, out)); break;
    case TriggerType::Event: BUDCORE_TRY(derive_event(*p, out, options)); break;
    case TriggerType::Pipeline: BUDCORE_TRY(derive_completion(*p, out, options)); break;
  }
  if (out.schedule && !out.policy.suspend) out.next_cron = out.schedule->next(created);
  return out;
}

}  // namespace budcore::pipeline::detail
