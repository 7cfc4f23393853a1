// ComponentDefinition <-> Value (docs/usecases.md "Writing a component") and ComponentVersion's JSON.
#include "budcore/usecase/component.hpp"

#include <algorithm>
#include <array>

#include "core/enum_lookup.hpp"
#include "usecase/doc_reader.hpp"

namespace budcore::usecase {
namespace {

using core::Error;
using core::Value;
using detail::Reader;

constexpr core::detail::EnumNames<ComponentCategory, 6> kCategories{
    {{ComponentCategory::ModelEndpoint, "model_endpoint"},
     {ComponentCategory::Database, "database"},
     {ComponentCategory::Service, "service"},
     {ComponentCategory::Application, "application"},
     {ComponentCategory::Storage, "storage"},
     {ComponentCategory::Cache, "cache"}}};

constexpr std::array<std::string_view, 27> kKeys{"schema_version",
                                                 "id",
                                                 "name",
                                                 "description",
                                                 "category",
                                                 "version",
                                                 "deployment_type",
                                                 "helm_repo",
                                                 "helm_chart",
                                                 "helm_version",
                                                 "default_values",
                                                 "image",
                                                 "image_tag",
                                                 "default_command",
                                                 "default_args",
                                                 "model_engine",
                                                 "default_gpu_type",
                                                 "default_gpu_count",
                                                 "default_env",
                                                 "default_resources",
                                                 "required_inputs",
                                                 "outputs",
                                                 "health_check_path",
                                                 "readiness_timeout_seconds",
                                                 "tags",
                                                 "documentation_url",
                                                 "is_active"};

// Output names are identifiers, other than those the Resolver's context uses for itself
// (components.<id>.outputs / .enabled).
std::optional<std::string> output_name_problem(std::string_view s) {
  if (!detail::is_identifier(s)) return "an output name must be an identifier ([A-Za-z_][A-Za-z0-9_]*)";
  if (s == "outputs" || s == "enabled") return "is reserved (components.<id>.outputs / .enabled)";
  return std::nullopt;
}

Value list_or_null(const std::optional<std::vector<std::string>>& v) {
  return v ? detail::string_list_value(*v) : Value();
}

// The fields of one deployment type must not appear on a component of another.
core::Status check_deployment_fields(const ComponentDefinition& c) {
  using job::DeploymentType;
  struct Field {
    std::string_view key;
    bool present;
    DeploymentType owner;
  };
  const Field fields[] = {
      {"helm_repo", c.helm_repo.has_value(), DeploymentType::Helm},
      {"helm_chart", c.helm_chart.has_value(), DeploymentType::Helm},
      {"helm_version", c.helm_version.has_value(), DeploymentType::Helm},
      {"image", c.image.has_value(), DeploymentType::Docker},
      {"image_tag", c.image_tag.has_value(), DeploymentType::Docker},
      {"default_command", c.default_command.has_value(), DeploymentType::Docker},
      {"default_args", c.default_args.has_value(), DeploymentType::Docker},
      {"model_engine", c.model_engine.has_value(), DeploymentType::Model},
  };
  for (const auto& f : fields) {
    if (f.present && f.owner != c.deployment_type) {
      return Error::invalid(std::string(f.key), {},
                            "applies to " + std::string(job::to_string(f.owner)) +
                                " components, and this one's "
                                "deployment_type is " +
                                std::string(job::to_string(c.deployment_type)));
    }
  }
  auto need = [&](bool present, std::string_view key) -> core::Status {
    if (present) return {};
    return Error::invalid(std::string(key), {},
                          "required for a " + std::string(job::to_string(c.deployment_type)) + " component");
  };
  switch (c.deployment_type) {
    case DeploymentType::Helm:
      return need(c.helm_chart.has_value(), "helm_chart");
    case DeploymentType::Docker:
      return need(c.image.has_value(), "image");
    case DeploymentType::Model:
      return need(c.model_engine.has_value(), "model_engine");
  }
  return {};
}

core::Status read_component(const core::Map& m, ComponentDefinition& c) {
  Reader r(m);
  BUDCORE_TRY(r.reject_unknown(kKeys));
  BUDCORE_TRY(detail::check_schema_version(m));
  BUDCORE_TRY_ASSIGN(c.id, detail::required_label(r, "id"));
  BUDCORE_TRY_ASSIGN(c.name, detail::required_string(r, "name"));
  BUDCORE_TRY_ASSIGN(auto description, r.string("description"));
  if (!description) return Error::invalid("description", {}, "required field is missing");
  c.description = std::move(*description);
  BUDCORE_TRY_ASSIGN(c.category, r.required_enum<ComponentCategory>("category", parse_component_category));
  BUDCORE_TRY_ASSIGN(c.version, detail::required_version(r, "version"));
  BUDCORE_TRY_ASSIGN(c.deployment_type,
                     r.required_enum<job::DeploymentType>("deployment_type", job::parse_deployment_type));

  BUDCORE_TRY_ASSIGN(c.helm_repo, r.string("helm_repo"));
  BUDCORE_TRY_ASSIGN(c.helm_chart, r.string("helm_chart"));
  BUDCORE_TRY_ASSIGN(c.helm_version, r.string("helm_version"));
  BUDCORE_TRY_ASSIGN(c.default_values, detail::map_or_empty(r, "default_values"));

  BUDCORE_TRY_ASSIGN(c.image, r.string("image"));
  BUDCORE_TRY_ASSIGN(c.image_tag, r.string("image_tag"));
  for (auto [key, out] :
       {std::pair{"default_command", &c.default_command}, std::pair{"default_args", &c.default_args}}) {
    BUDCORE_TRY_ASSIGN(auto present, r.list(key));
    if (!present) continue;
    BUDCORE_TRY_ASSIGN(auto items, detail::string_list(r, key, false));
    *out = std::move(items);
  }

  BUDCORE_TRY_ASSIGN(c.model_engine, r.string("model_engine"));
  BUDCORE_TRY_ASSIGN(c.default_gpu_type, r.string("default_gpu_type"));
  BUDCORE_TRY_ASSIGN(c.default_gpu_count, r.integer("default_gpu_count"));
  if (c.default_gpu_count && (*c.default_gpu_count < 0 || *c.default_gpu_count > ComponentDefinition::kMaxGpuCount)) {
    return Error::invalid("default_gpu_count", std::to_string(*c.default_gpu_count),
                          "must be between 0 and " + std::to_string(ComponentDefinition::kMaxGpuCount));
  }

  BUDCORE_TRY_ASSIGN(c.default_env, detail::env_map(r, "default_env"));
  BUDCORE_TRY_ASSIGN(c.default_resources, detail::map_or_empty(r, "default_resources"));
  BUDCORE_TRY_ASSIGN(c.required_inputs, detail::string_list(r, "required_inputs", true, detail::non_empty));
  BUDCORE_TRY_ASSIGN(c.outputs, detail::string_list(r, "outputs", true, output_name_problem));
  BUDCORE_TRY_ASSIGN(c.health_check_path, r.string("health_check_path"));
  BUDCORE_TRY_ASSIGN(auto readiness, r.integer("readiness_timeout_seconds"));
  if (readiness) {
    if (*readiness < 1 || *readiness > ComponentDefinition::kMaxReadinessTimeoutSeconds) {
      return Error::invalid(
          "readiness_timeout_seconds", std::to_string(*readiness),
          "must be between 1 and " + std::to_string(ComponentDefinition::kMaxReadinessTimeoutSeconds));
    }
    c.readiness_timeout_seconds = *readiness;
  }
  BUDCORE_TRY_ASSIGN(c.tags, detail::string_list(r, "tags", true, detail::non_empty));
  BUDCORE_TRY_ASSIGN(c.documentation_url, r.string("documentation_url"));
  BUDCORE_TRY_ASSIGN(auto active, r.boolean("is_active"));
  c.is_active = active.value_or(true);
  return check_deployment_fields(c);
}

}  // namespace

std::string_view to_string(ComponentCategory c) noexcept { return core::detail::enum_name(c, kCategories); }

core::Result<ComponentCategory> parse_component_category(std::string_view text) {
  return core::detail::parse_enum(text, kCategories, "component category");
}

core::Result<ComponentDefinition> ComponentDefinition::from_value(const Value& value) {
  if (!value.is_map()) {
    return Error::invalid({}, detail::value_text(value), "a component must be a map of the component schema's keys");
  }
  ComponentDefinition c;
  BUDCORE_TRY(read_component(value.as_map(), c));
  return c;
}

Value ComponentDefinition::to_value() const {
  core::Map m;
  m.set("schema_version", Value("1.0"));
  m.set("id", Value(id));
  m.set("name", Value(name));
  m.set("description", Value(description));
  m.set("category", Value(std::string(to_string(category))));
  m.set("version", Value(version));
  m.set("deployment_type", Value(std::string(job::to_string(deployment_type))));
  m.set("helm_repo", detail::optional_text(helm_repo));
  m.set("helm_chart", detail::optional_text(helm_chart));
  m.set("helm_version", detail::optional_text(helm_version));
  m.set("default_values", default_values);
  m.set("image", detail::optional_text(image));
  m.set("image_tag", detail::optional_text(image_tag));
  m.set("default_command", list_or_null(default_command));
  m.set("default_args", list_or_null(default_args));
  m.set("model_engine", detail::optional_text(model_engine));
  m.set("default_gpu_type", detail::optional_text(default_gpu_type));
  m.set("default_gpu_count", detail::optional_int(default_gpu_count));
  m.set("default_env", default_env);
  m.set("default_resources", default_resources);
  m.set("required_inputs", detail::string_list_value(required_inputs));
  m.set("outputs", detail::string_list_value(outputs));
  m.set("health_check_path", detail::optional_text(health_check_path));
  m.set("readiness_timeout_seconds", Value(static_cast<long long>(readiness_timeout_seconds)));
  m.set("tags", detail::string_list_value(tags));
  m.set("documentation_url", detail::optional_text(documentation_url));
  m.set("is_active", Value(is_active));
  return Value(std::move(m));
}

bool ComponentDefinition::has_output(std::string_view n) const noexcept {
  return std::find(outputs.begin(), outputs.end(), n) != outputs.end();
}

bool operator==(const ComponentDefinition& a, const ComponentDefinition& b) { return a.to_value() == b.to_value(); }

Value ComponentVersion::to_value() const {
  core::Map m;
  m.set("id", id.is_nil() ? Value() : Value(id.to_string()));
  m.set("component_id", Value(component_id));
  m.set("version", Value(version));
  m.set("definition", definition);
  m.set("created_at", Value(created_at.to_string()));
  m.set("is_default", Value(is_default));
  return Value(std::move(m));
}

}  // namespace budcore::usecase
