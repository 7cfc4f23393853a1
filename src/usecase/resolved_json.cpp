// What a resolution produces, as documents: contract 4's output and the contract-3 pipeline
// whose JOB steps deploy the components.
#include <string>

#include "usecase/doc_reader.hpp"
#include "usecase/resolver_impl.hpp"

namespace budcore::usecase {
namespace {

using core::Value;

// 1500 -> 1.5, 2000 -> 2 (an integer when whole).
Value decimal(std::int64_t amount, std::int64_t per_unit) {
  if (amount % per_unit == 0) return Value(static_cast<long long>(amount / per_unit));
  return Value(static_cast<double>(amount) / static_cast<double>(per_unit));
}

Value cpu_cores(const ResolvedComponent& c) { return decimal(c.cpu_millicores, 1000); }
Value memory_gb(const ResolvedComponent& c) { return decimal(c.memory_mib, 1024); }

}  // namespace

Value ResolvedComponent::to_value() const {
  core::Map m;
  m.set("id", Value(id));
  m.set("component_ref", Value(component_ref));
  m.set("deployment_type", Value(std::string(job::to_string(deployment_type))));
  m.set("depends_on", detail::string_list_value(depends_on));
  m.set("values", values);
  m.set("env", env);
  m.set("resources", resources);
  m.set("model_id", detail::optional_text(model_id));
  m.set("gpu_type", detail::optional_text(gpu_type));
  m.set("gpu_count", Value(static_cast<long long>(gpu_count)));
  // budcore's additions.
  m.set("component_version", Value(component_version));
  m.set("optimize_with_budsim", Value(optimize_with_budsim));
  m.set("cpu_cores", cpu_cores(*this));
  m.set("memory_gb", memory_gb(*this));
  m.set("outputs", detail::string_list_value(outputs));
  m.set("deployment", deployment);
  return Value(std::move(m));
}

const ResolvedComponent* ResolvedStack::component(std::string_view cid) const noexcept {
  for (const auto& c : components) {
    if (c.id == cid) return &c;
  }
  return nullptr;
}

Value ResolvedStack::to_value() const {
  core::Map m;
  m.set("valid", Value(true));
  m.set("template", Value::map({{"id", Value(template_id)}, {"version", Value(template_version)}}));
  m.set("parameters", parameters);
  core::List comps;
  comps.reserve(components.size());
  for (const auto& c : components) comps.push_back(c.to_value());
  m.set("components", Value(std::move(comps)));
  m.set("disabled", detail::string_list_value(disabled));
  m.set("pipeline", pipeline);
  if (!routing.is_null()) m.set("routing", routing);
  if (!observability.is_null()) m.set("observability", observability);
  return Value(std::move(m));
}

Value ResolveResult::to_value() const {
  if (stack && errors.empty()) return stack->to_value();
  core::List errs;
  errs.reserve(errors.size());
  for (const auto& e : errors) {
    errs.push_back(Value::map({{"code", Value(e.code)}, {"message", Value(e.message)}, {"path", Value(e.path)}}));
  }
  return Value::map({{"valid", Value(false)}, {"errors", Value(std::move(errs))}});
}

namespace detail {

Value deployment_value(const ComponentDefinition& def) {
  core::Map m;
  auto put = [&](const char* key, const std::optional<std::string>& v) {
    if (v) m.set(key, Value(*v));
  };
  put("helm_repo", def.helm_repo);
  put("helm_chart", def.helm_chart);
  put("helm_version", def.helm_version);
  put("image", def.image);
  put("image_tag", def.image_tag);
  if (def.default_command) m.set("command", detail::string_list_value(*def.default_command));
  if (def.default_args) m.set("args", detail::string_list_value(*def.default_args));
  put("model_engine", def.model_engine);
  put("health_check_path", def.health_check_path);
  m.set("readiness_timeout_seconds", Value(static_cast<long long>(def.readiness_timeout_seconds)));
  return Value(std::move(m));
}

Value pipeline_document(const ResolvedStack& stack) {
  core::List steps;
  steps.reserve(stack.components.size());
  for (const auto& c : stack.components) {
    // What BudCluster's deploy_helm / deploy_docker / deploy_model need (docs/usecases.md).
    core::Map spec = c.deployment.as_map();
    spec.set("component_ref", Value(c.component_ref));
    spec.set("component_version", Value(c.component_version));
    spec.set("values", c.values);
    spec.set("env", c.env);
    spec.set("resources", c.resources);
    if (c.model_id) spec.set("model_id", Value(*c.model_id));
    spec.set("outputs", detail::string_list_value(c.outputs));

    core::Map config;
    config.set("job_type", Value("service"));
    config.set("deployment_type", Value(std::string(job::to_string(c.deployment_type))));
    config.set("component_ref", Value(c.component_ref));
    config.set("spec", Value(std::move(spec)));
    // A job names a GPU type only when it asks for GPUs (the job layer's rule).
    if (c.gpu_count > 0 && c.gpu_type) config.set("gpu_type", Value(*c.gpu_type));
    config.set("gpu_count", Value(static_cast<long long>(c.gpu_count)));
    config.set("cpu_cores", cpu_cores(c));
    config.set("memory_gb", memory_gb(c));
    if (c.optimize_with_budsim) config.set("optimize_with_budsim", Value(true));

    core::Map step;
    step.set("id", Value(c.id));
    step.set("name", Value(c.id));
    step.set("step_type", Value("job"));
    step.set("depends_on", detail::string_list_value(c.depends_on));
    step.set("config", Value(std::move(config)));
    steps.push_back(Value(std::move(step)));
  }
  core::Map pipeline;
  pipeline.set("name", Value(stack.name));
  pipeline.set("trigger_type", Value("manual"));
  pipeline.set("parameters", stack.parameters);
  pipeline.set("usecase", Value::map({{"template_id", Value(stack.template_id)},
                                      {"template_version", Value(stack.template_version)},
                                      {"name", Value(stack.name)}}));
  return Value::map({{"pipeline", Value(std::move(pipeline))}, {"steps", Value(std::move(steps))}});
}

}  // namespace detail
}  // namespace budcore::usecase
