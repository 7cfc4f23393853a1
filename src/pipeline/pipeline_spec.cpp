// PipelineSpec: validate the whole document, then build the typed model.
#include "budcore/pipeline/pipeline_spec.hpp"

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/pipeline/validation.hpp"

namespace budcore::pipeline {
namespace {

using core::Value;

std::optional<std::string> opt_string(const Value& m, std::string_view key) {
  const Value* v = m.find(key);
  if (v && v->is_string()) return v->as_string();
  return std::nullopt;
}

std::optional<std::int64_t> opt_int(const Value& m, std::string_view key) {
  const Value* v = m.find(key);
  if (v && v->is_int()) return v->as_int();
  return std::nullopt;
}

core::Result<PipelineInfo> read_info(const Value& p) {
  PipelineInfo info;
  if (!p.is_map()) return info;
  info.id = opt_string(p, "id").value_or("");
  info.name = opt_string(p, "name").value_or("");
  if (auto t = opt_string(p, "trigger_type")) info.trigger_type = *parse_trigger_type(*t);
  info.cron_expression = opt_string(p, "cron_expression");
  if (const Value* e = p.find("event_config")) info.event_config = *e;
  info.triggered_by_pipeline_id = opt_string(p, "triggered_by_pipeline_id");
  if (const Value* t = p.find("timeout_seconds"); t && !t->is_null()) {
    if (!t->is_int() || t->as_int() <= 0)
      return core::Error::invalid("pipeline.timeout_seconds", core::to_json(*t), "must be a positive integer");
    info.timeout_seconds = t->as_int();
  }
  info.deadline = opt_string(p, "deadline");
  info.template_id = opt_string(p, "template_id");
  if (const Value* params = p.find("parameters"); params && !params->is_null()) {
    if (!params->is_map())
      return core::Error::invalid("pipeline.parameters", core::to_json(*params), "must be a map");
    info.parameters = *params;
  }
  return info;
}

}  // namespace

core::Result<PipelineSpec> PipelineSpec::from_value(const core::Value& document) {
  ValidationReport report = validate_document(document);
  if (!report.valid()) {
    const Issue& first = report.errors.front();
    std::string more = report.errors.size() > 1
                           ? " (and " + std::to_string(report.errors.size() - 1) + " more problems)"
                           : std::string();
    return core::Error::invalid(first.path, "", first.code + ": " + first.message + more);
  }
  PipelineSpec spec;
  const Value* p = document.find("pipeline");
  BUDCORE_TRY_ASSIGN(spec.pipeline, read_info(p ? *p : Value()));
  const auto& list = document.find("steps")->as_list();
  spec.steps.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Value& s = list[i];
    Step step;
    step.id = s.find("id")->as_string();
    step.name = opt_string(s, "name").value_or("");
    step.order = opt_int(s, "order").value_or(static_cast<std::int64_t>(i + 1));
    step.step_type = *parse_step_type(s.find("step_type")->as_string());
    if (const Value* d = s.find("depends_on"); d && d->is_list()) {
      for (const auto& item : d->as_list()) step.depends_on.push_back(item.as_string());
    }
    step.condition = opt_string(s, "condition");
    if (const Value* c = s.find("config"); c && c->is_map()) step.config = *c;
    spec.steps.push_back(std::move(step));
  }
  return spec;
}

core::Result<PipelineSpec> PipelineSpec::from_text(std::string_view text) {
  BUDCORE_TRY_ASSIGN(core::Value doc, core::parse_document(text));
  return from_value(doc);
}

core::Value PipelineSpec::to_value() const {
  core::Map p;
  p.set("id", pipeline.id);
  p.set("name", pipeline.name);
  p.set("trigger_type", std::string(to_string(pipeline.trigger_type)));
  p.set("cron_expression", pipeline.cron_expression ? Value(*pipeline.cron_expression) : Value());
  p.set("event_config", pipeline.event_config);
  p.set("triggered_by_pipeline_id",
        pipeline.triggered_by_pipeline_id ? Value(*pipeline.triggered_by_pipeline_id) : Value());
  p.set("timeout_seconds", pipeline.timeout_seconds ? Value(*pipeline.timeout_seconds) : Value());
  p.set("deadline", pipeline.deadline ? Value(*pipeline.deadline) : Value());
  p.set("template_id", pipeline.template_id ? Value(*pipeline.template_id) : Value());
  p.set("parameters", pipeline.parameters);
  core::List steps_out;
  for (const auto& s : steps) steps_out.push_back(s.to_value());
  core::Map doc;
  doc.set("pipeline", Value(std::move(p)));
  doc.set("steps", Value(std::move(steps_out)));
  return Value(std::move(doc));
}

std::string PipelineSpec::to_json() const { return core::to_json(to_value()); }

}  // namespace budcore::pipeline
