// UseCaseTemplate <-> Value (docs/usecases.md "Writing a template"): schema checks only. What
// has a contract-4 code (template syntax, references, depends_on, cycles, component_ref) is the
// Resolver's.
#include "budcore/usecase/usecase_template.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "core/enum_lookup.hpp"
#include "usecase/doc_reader.hpp"

namespace budcore::usecase {
namespace {

using core::Error;
using core::Value;
using detail::Reader;

constexpr core::detail::EnumNames<ParameterType, 6> kParameterTypes{{{ParameterType::String, "string"},
                                                                     {ParameterType::Integer, "integer"},
                                                                     {ParameterType::Boolean, "boolean"},
                                                                     {ParameterType::Enum, "enum"},
                                                                     {ParameterType::ModelRef, "model_ref"},
                                                                     {ParameterType::ClusterRef, "cluster_ref"}}};

constexpr core::detail::EnumNames<Complexity, 3> kComplexities{
    {{Complexity::Simple, "simple"}, {Complexity::Intermediate, "intermediate"}, {Complexity::Advanced, "advanced"}}};

constexpr std::array<std::string_view, 15> kTemplateKeys{"schema_version",
                                                         "id",
                                                         "name",
                                                         "description",
                                                         "category",
                                                         "version",
                                                         "parameters",
                                                         "components",
                                                         "routing",
                                                         "observability",
                                                         "estimated_monthly_cost_usd",
                                                         "complexity",
                                                         "tags",
                                                         "documentation_url",
                                                         "is_active"};
constexpr std::array<std::string_view, 9> kParameterKeys{"name",    "type",    "label", "description", "required",
                                                         "default", "options", "min",   "max"};
constexpr std::array<std::string_view, 12> kComponentKeys{
    "id",        "component_ref",        "condition",  "config",         "env", "resources", "model_id", "gpu_type",
    "gpu_count", "optimize_with_budsim", "depends_on", "output_mappings"};

constexpr std::int64_t kMaxGpuCount = 1024;

bool is_template_text(const Value& v) { return v.is_string() && detail::has_template_markers(v.as_string()); }

core::Result<TemplateParameter> read_parameter(const Value& v) {
  if (!v.is_map()) return Error::invalid({}, detail::value_text(v), "a parameter must be a map");
  Reader r(v.as_map());
  BUDCORE_TRY(r.reject_unknown(kParameterKeys));
  TemplateParameter p;
  BUDCORE_TRY_ASSIGN(p.name, detail::required_string(r, "name"));
  if (!detail::is_identifier(p.name)) {
    return Error::invalid("name", p.name,
                          "must be an identifier ([A-Za-z_][A-Za-z0-9_]*): templates read it as parameters.NAME");
  }
  BUDCORE_TRY_ASSIGN(p.type, r.required_enum<ParameterType>("type", parse_parameter_type));
  BUDCORE_TRY_ASSIGN(p.label, detail::required_string(r, "label"));
  BUDCORE_TRY_ASSIGN(p.description, r.string("description"));
  BUDCORE_TRY_ASSIGN(auto required, r.boolean("required"));
  p.required = required.value_or(true);
  BUDCORE_TRY_ASSIGN(auto options, r.list("options"));
  if (options) {
    if (options->empty()) return Error::invalid("options", "[]", "must list at least one value");
    for (std::size_t i = 0; i < options->size(); ++i) {
      const Value& o = (*options)[i];
      if (o.is_list() || o.is_map() || o.is_null()) {
        return Error::invalid(detail::indexed("options", i), detail::value_text(o),
                              "an option must be a string, number or boolean");
      }
    }
    p.options = std::move(*options);
  }
  if (p.type == ParameterType::Enum && !p.options) {
    return Error::invalid("options", {}, "an enum parameter must list its options");
  }
  BUDCORE_TRY_ASSIGN(p.min, r.integer("min"));
  BUDCORE_TRY_ASSIGN(p.max, r.integer("max"));
  if ((p.min || p.max) && p.type != ParameterType::Integer) {
    return Error::invalid(p.min ? "min" : "max", {}, "min and max apply to integer parameters only");
  }
  if (p.min && p.max && *p.min > *p.max) {
    return Error::invalid("max", std::to_string(*p.max), "must not be less than min (" + std::to_string(*p.min) + ")");
  }
  if (p.options) {
    // Options themselves must be values of the parameter's type.
    TemplateParameter bare = p;
    bare.options.reset();
    for (std::size_t i = 0; i < p.options->size(); ++i) {
      if (auto st = bare.check((*p.options)[i]); !st) {
        return Error::invalid(detail::indexed("options", i), detail::value_text((*p.options)[i]), st.error().message);
      }
    }
  }
  if (const Value* d = v.find("default"); d != nullptr && !d->is_null()) {
    if (auto st = p.check(*d); !st) return Error::invalid("default", detail::value_text(*d), st.error().message);
    p.default_value = *d;
  }
  return p;
}

// A bool, or a template string yielding one.
core::Result<Value> bool_or_template(const Value* v, std::string_view key) {
  if (v == nullptr || v->is_null()) return Value(false);
  if (v->is_bool() || is_template_text(*v)) return *v;
  return Error::invalid(std::string(key), detail::value_text(*v), "must be true, false or a template yielding one");
}

core::Result<Value> output_mappings(const Reader& r) {
  BUDCORE_TRY_ASSIGN(Value m, detail::map_or_empty(r, "output_mappings"));
  std::set<std::string> names;
  for (const auto& [from, to] : m.as_map()) {
    std::string path = "output_mappings." + from;
    if (!to.is_string() || !detail::is_identifier(to.as_string())) {
      return Error::invalid(path, detail::value_text(to),
                            "maps an output of the component to another name: an identifier ([A-Za-z_][A-Za-z0-9_]*)");
    }
    if (to.as_string() == "outputs" || to.as_string() == "enabled") {
      return Error::invalid(path, to.as_string(), "is reserved (components.<id>.outputs / .enabled)");
    }
    if (!names.insert(to.as_string()).second)
      return Error::invalid(path, to.as_string(), "names a second output the same");
  }
  return m;
}

core::Result<TemplateComponent> read_component(const Value& v) {
  if (!v.is_map()) return Error::invalid({}, detail::value_text(v), "a component instance must be a map");
  Reader r(v.as_map());
  BUDCORE_TRY(r.reject_unknown(kComponentKeys));
  TemplateComponent c;
  BUDCORE_TRY_ASSIGN(c.id, detail::required_label(r, "id"));
  BUDCORE_TRY_ASSIGN(c.component_ref, detail::required_string(r, "component_ref"));
  if (const Value* cond = v.find("condition"); cond != nullptr && cond->is_bool()) {
    c.condition = cond->as_bool() ? "true" : "false";
  } else {
    BUDCORE_TRY_ASSIGN(c.condition, r.string("condition"));
  }
  BUDCORE_TRY_ASSIGN(c.config, detail::map_or_empty(r, "config"));
  BUDCORE_TRY_ASSIGN(c.env, detail::env_map(r, "env"));
  BUDCORE_TRY_ASSIGN(c.resources, detail::map_or_empty(r, "resources"));
  BUDCORE_TRY_ASSIGN(c.model_id, r.string("model_id"));
  BUDCORE_TRY_ASSIGN(c.gpu_type, r.string("gpu_type"));
  if (const Value* g = v.find("gpu_count"); g != nullptr && !g->is_null()) {
    if (g->is_int()) {
      if (g->as_int() < 0 || g->as_int() > kMaxGpuCount) {
        return Error::invalid("gpu_count", detail::value_text(*g),
                              "must be between 0 and " + std::to_string(kMaxGpuCount));
      }
    } else if (!is_template_text(*g)) {
      return Error::invalid("gpu_count", detail::value_text(*g), "must be an integer or a template yielding one");
    }
    c.gpu_count = *g;
  }
  BUDCORE_TRY_ASSIGN(c.optimize_with_budsim, bool_or_template(v.find("optimize_with_budsim"), "optimize_with_budsim"));
  BUDCORE_TRY_ASSIGN(c.depends_on, detail::string_list(r, "depends_on", true));
  BUDCORE_TRY_ASSIGN(c.output_mappings, output_mappings(r));
  return c;
}

Value parameter_value(const TemplateParameter& p) {
  core::Map m;
  m.set("name", Value(p.name));
  m.set("type", Value(std::string(to_string(p.type))));
  m.set("label", Value(p.label));
  m.set("description", detail::optional_text(p.description));
  m.set("required", Value(p.required));
  m.set("default", p.default_value);
  m.set("options", p.options ? Value(*p.options) : Value());
  m.set("min", detail::optional_int(p.min));
  m.set("max", detail::optional_int(p.max));
  return Value(std::move(m));
}

Value component_value(const TemplateComponent& c) {
  core::Map m;
  m.set("id", Value(c.id));
  m.set("component_ref", Value(c.component_ref));
  m.set("condition", detail::optional_text(c.condition));
  m.set("config", c.config);
  m.set("env", c.env);
  m.set("resources", c.resources);
  m.set("model_id", detail::optional_text(c.model_id));
  m.set("gpu_type", detail::optional_text(c.gpu_type));
  m.set("gpu_count", c.gpu_count);
  m.set("optimize_with_budsim", c.optimize_with_budsim);
  m.set("depends_on", detail::string_list_value(c.depends_on));
  m.set("output_mappings", c.output_mappings);
  return Value(std::move(m));
}

// Reads a list of items with `read`, prefixing each error with "key[i]".
template <class T, class Read>
core::Result<std::vector<T>> read_list(const Reader& r, std::string_view key, std::size_t max, Read read) {
  BUDCORE_TRY_ASSIGN(auto list, r.list(key));
  std::vector<T> out;
  if (!list) return out;
  if (list->size() > max) {
    return Error::invalid(std::string(key), std::to_string(list->size()) + " items",
                          "at most " + std::to_string(max) + " are allowed");
  }
  out.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto item = read((*list)[i]);
    if (!item) return std::move(item.error().at(detail::indexed(key, i)));
    out.push_back(std::move(*item));
  }
  return out;
}

core::Status read_template(const core::Map& m, UseCaseTemplate& t) {
  Reader r(m);
  BUDCORE_TRY(r.reject_unknown(kTemplateKeys));
  BUDCORE_TRY(detail::check_schema_version(m));
  BUDCORE_TRY_ASSIGN(t.id, detail::required_label(r, "id"));
  BUDCORE_TRY_ASSIGN(t.name, detail::required_string(r, "name"));
  BUDCORE_TRY_ASSIGN(auto description, r.string("description"));
  if (!description) return Error::invalid("description", {}, "required field is missing");
  t.description = std::move(*description);
  BUDCORE_TRY_ASSIGN(t.category, detail::required_string(r, "category"));
  BUDCORE_TRY_ASSIGN(t.version, detail::required_version(r, "version"));
  BUDCORE_TRY_ASSIGN(t.parameters,
                     read_list<TemplateParameter>(r, "parameters", UseCaseTemplate::kMaxParameters, read_parameter));
  std::map<std::string_view, std::size_t> names;
  for (std::size_t i = 0; i < t.parameters.size(); ++i) {
    auto [it, fresh] = names.emplace(t.parameters[i].name, i);
    if (!fresh) {
      return Error::invalid(detail::indexed("parameters", i) + ".name", t.parameters[i].name,
                            "is already the name of parameters[" + std::to_string(it->second) + "]");
    }
  }
  if (!m.contains("components")) return Error::invalid("components", {}, "required field is missing");
  BUDCORE_TRY_ASSIGN(t.components,
                     read_list<TemplateComponent>(r, "components", UseCaseTemplate::kMaxComponents, read_component));
  if (t.components.empty()) return Error::invalid("components", "[]", "a template deploys at least one component");
  std::map<std::string_view, std::size_t> ids;
  for (std::size_t i = 0; i < t.components.size(); ++i) {
    auto [it, fresh] = ids.emplace(t.components[i].id, i);
    if (!fresh) {
      return Error::invalid(detail::indexed("components", i) + ".id", t.components[i].id,
                            "is already the id of components[" + std::to_string(it->second) + "]");
    }
  }
  BUDCORE_TRY_ASSIGN(auto routing, r.map("routing"));
  if (routing) t.routing = std::move(*routing);
  BUDCORE_TRY_ASSIGN(auto observability, r.map("observability"));
  if (observability) t.observability = std::move(*observability);
  BUDCORE_TRY_ASSIGN(t.estimated_monthly_cost_usd, r.string("estimated_monthly_cost_usd"));
  BUDCORE_TRY_ASSIGN(t.complexity, r.required_enum<Complexity>("complexity", parse_complexity));
  BUDCORE_TRY_ASSIGN(t.tags, detail::string_list(r, "tags", true, detail::non_empty));
  BUDCORE_TRY_ASSIGN(t.documentation_url, r.string("documentation_url"));
  BUDCORE_TRY_ASSIGN(auto active, r.boolean("is_active"));
  t.is_active = active.value_or(true);
  return {};
}

}  // namespace

std::string_view to_string(ParameterType t) noexcept { return core::detail::enum_name(t, kParameterTypes); }
core::Result<ParameterType> parse_parameter_type(std::string_view text) {
  return core::detail::parse_enum(text, kParameterTypes, "parameter type");
}
std::string_view to_string(Complexity c) noexcept { return core::detail::enum_name(c, kComplexities); }
core::Result<Complexity> parse_complexity(std::string_view text) {
  return core::detail::parse_enum(text, kComplexities, "complexity");
}

core::Status TemplateParameter::check(const Value& v) const {
  auto fail = [&](std::string why) { return Error::invalid({}, detail::value_text(v), std::move(why)); };
  switch (type) {
    case ParameterType::String:
    case ParameterType::ModelRef:
    case ParameterType::ClusterRef:
      if (!v.is_string()) return fail("must be a string, not " + std::string(core::to_string(v.kind())));
      if (type != ParameterType::String && v.as_string().empty()) {
        return fail("must name a " + std::string(type == ParameterType::ModelRef ? "model" : "cluster"));
      }
      break;
    case ParameterType::Integer:
      if (!v.is_int()) return fail("must be an integer, not " + std::string(core::to_string(v.kind())));
      if (min && v.as_int() < *min) return fail("must be at least " + std::to_string(*min));
      if (max && v.as_int() > *max) return fail("must be at most " + std::to_string(*max));
      break;
    case ParameterType::Boolean:
      if (!v.is_bool()) return fail("must be true or false, not " + std::string(core::to_string(v.kind())));
      break;
    case ParameterType::Enum:
      if (v.is_list() || v.is_map() || v.is_null()) return fail("must be one of the options");
      break;
  }
  if (v.is_string() && detail::has_template_markers(v.as_string())) {
    return fail("must not contain template markers ({{, {% or {#): a value is data, not a template");
  }
  if (options && std::find(options->begin(), options->end(), v) == options->end()) {
    std::string why = "is not one of the options:";
    for (std::size_t i = 0; i < options->size(); ++i) why += (i ? ", " : " ") + detail::value_text((*options)[i]);
    return fail(std::move(why));
  }
  return {};
}

core::Result<UseCaseTemplate> UseCaseTemplate::from_value(const Value& value) {
  if (!value.is_map()) {
    return Error::invalid({}, detail::value_text(value),
                          "a use-case template must be a map of the template schema's keys");
  }
  const core::Map& m = value.as_map();
  // The versioned envelope: {"schema_version": "1.0", "template": {...}}.
  if (const Value* inner = m.find("template"); inner != nullptr && inner->is_map() && !m.contains("id")) {
    Reader outer(m);
    constexpr std::array<std::string_view, 2> kEnvelope{"schema_version", "template"};
    BUDCORE_TRY(outer.reject_unknown(kEnvelope));
    BUDCORE_TRY(detail::check_schema_version(m));
    UseCaseTemplate t;
    if (auto st = read_template(inner->as_map(), t); !st) return std::move(Error(st.error()).at("template"));
    return t;
  }
  UseCaseTemplate t;
  BUDCORE_TRY(read_template(m, t));
  return t;
}

Value UseCaseTemplate::to_value() const {
  core::Map m;
  m.set("schema_version", Value("1.0"));
  m.set("id", Value(id));
  m.set("name", Value(name));
  m.set("description", Value(description));
  m.set("category", Value(category));
  m.set("version", Value(version));
  core::List params;
  for (const auto& p : parameters) params.push_back(parameter_value(p));
  m.set("parameters", Value(std::move(params)));
  core::List comps;
  for (const auto& c : components) comps.push_back(component_value(c));
  m.set("components", Value(std::move(comps)));
  m.set("routing", routing);
  m.set("observability", observability);
  m.set("estimated_monthly_cost_usd", detail::optional_text(estimated_monthly_cost_usd));
  m.set("complexity", Value(std::string(to_string(complexity))));
  m.set("tags", detail::string_list_value(tags));
  m.set("documentation_url", detail::optional_text(documentation_url));
  m.set("is_active", Value(is_active));
  return Value(std::move(m));
}

const TemplateParameter* UseCaseTemplate::parameter(std::string_view n) const noexcept {
  for (const auto& p : parameters) {
    if (p.name == n) return &p;
  }
  return nullptr;
}

std::ptrdiff_t UseCaseTemplate::component_index(std::string_view cid) const noexcept {
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (components[i].id == cid) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

}  // namespace budcore::usecase
