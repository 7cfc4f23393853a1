// Resolver construction: everything that does not depend on parameter values. Looks up each
// instance's component, merges its defaults with the template's overrides, compiles every
// template string once and checks what each reads (parameters that exist, instances that
// exist, outputs their components declare).
#include <algorithm>
#include <string>

#include "usecase/doc_reader.hpp"
#include "usecase/resolver_impl.hpp"

namespace budcore::usecase {
namespace {

using core::Value;
namespace code = issue_code;

// The context an enabled instance gets: outputs under "outputs" and (as a shorthand) at the
// top, each rendering to the marker of the component output it stands for.
Value instance_context(const std::string& id, const Resolver::Impl::Instance& in) {
  core::Map outputs;
  for (const auto& name : in.outputs) {
    outputs.set(name, Value(detail::output_marker(id, in.output_source.at(name))));
  }
  core::Map ctx;
  ctx.set("enabled", Value(true));
  for (const auto& [name, marker] : outputs) ctx.set(name, marker);
  ctx.set("outputs", Value(std::move(outputs)));
  return Value(std::move(ctx));
}

}  // namespace

Resolver::Impl::Impl(const UseCaseTemplate& t, const ComponentRegistry& registry) : tmpl(t) {
  for (std::size_t i = 0; i < tmpl.parameters.size(); ++i) parameter_index.emplace(tmpl.parameters[i].name, i);
  instances.resize(tmpl.components.size());
  for (std::size_t i = 0; i < tmpl.components.size(); ++i) {
    const TemplateComponent& tc = tmpl.components[i];
    instance_index.emplace(tc.id, i);
    Instance& in = instances[i];
    in.tc = &tc;
    if (const ComponentDefinition* def = registry.find(tc.component_ref)) in.def = *def;
  }

  std::vector<Issue>& issues = static_issues;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    Instance& in = instances[i];
    const TemplateComponent& tc = *in.tc;
    const std::string at = detail::indexed("components", i);
    if (!in.def) {
      detail::add_issue(issues, code::kUnknownComponent, "no component '" + tc.component_ref + "' in the registry",
                        at + ".component_ref");
    } else if (!in.def->is_active) {
      detail::add_issue(issues, code::kUnknownComponent,
                        "component '" + tc.component_ref + "' is deleted (is_active is false)", at + ".component_ref");
    }
    for (std::size_t j = 0; j < tc.depends_on.size(); ++j) {
      const std::string& dep = tc.depends_on[j];
      if (instance_index.count(dep) == 0) {
        detail::add_issue(issues, code::kUnknownReference, "no instance '" + dep + "' in this template",
                          at + ".depends_on[" + std::to_string(j) + "]");
      }
    }
    if (in.def) {
      for (const auto& o : in.def->outputs) {
        in.outputs.push_back(o);
        in.output_source.emplace(o, o);
      }
      for (const auto& [from, to] : tc.output_mappings.as_map()) {
        std::string path = at + ".output_mappings." + from;
        if (!in.def->has_output(from)) {
          detail::add_issue(issues, code::kUnknownReference,
                            "component '" + in.def->id + "' has no output '" + from + "'", path);
        } else if (in.output_source.count(to.as_string()) != 0) {
          detail::add_issue(issues, code::kInvalidTemplate,
                            "'" + to.as_string() + "' is already an output of this instance", path);
        } else {
          in.outputs.push_back(to.as_string());
          in.output_source.emplace(to.as_string(), from);
        }
      }
      in.deployment = detail::deployment_value(*in.def);
      in.values = detail::deep_merge(in.def->default_values, tc.config);
      in.env = detail::deep_merge(in.def->default_env, tc.env);
      in.resources = detail::deep_merge(in.def->default_resources, tc.resources);
    } else {
      in.values = detail::deep_merge(Value(), tc.config);
      in.env = detail::deep_merge(Value(), tc.env);
      in.resources = detail::deep_merge(Value(), tc.resources);
    }
    in.context = instance_context(tc.id, in);
  }

  // Compile every template string; check what each reads.
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const Instance& in = instances[i];
    const TemplateComponent& tc = *in.tc;
    const std::string at = detail::indexed("components", i);
    if (tc.condition) prepare(*tc.condition, at + ".condition", true, issues);
    prepare_all(in.values, at + ".config", false, issues);
    prepare_all(in.env, at + ".env", false, issues);
    prepare_all(in.resources, at + ".resources", false, issues);
    if (tc.model_id) prepare(*tc.model_id, at + ".model_id", false, issues);
    if (tc.gpu_type) prepare(*tc.gpu_type, at + ".gpu_type", false, issues);
    prepare_all(tc.gpu_count, at + ".gpu_count", false, issues);
    prepare_all(tc.optimize_with_budsim, at + ".optimize_with_budsim", false, issues);
  }
  prepare_all(tmpl.routing, "routing", false, issues);
  prepare_all(tmpl.observability, "observability", false, issues);
}

const detail::Compiled* Resolver::Impl::prepare(const std::string& text, const std::string& path, bool in_condition,
                                                std::vector<Issue>& issues) {
  if (!detail::has_template_markers(text)) return nullptr;
  auto it = compiled.find(text);
  if (it == compiled.end()) {
    templates::Template t;
    templates::TemplateError err;
    if (!templates::Template::compile(text, t, err)) {
      std::string msg = std::string(templates::to_string(err.kind)) + ": " + err.message;
      if (err.line > 0) msg += " (line " + std::to_string(err.line) + ", column " + std::to_string(err.column) + ")";
      detail::add_issue(issues, code::kTemplateSyntax, std::move(msg), path);
      return nullptr;
    }
    auto refs = t.references();
    it = compiled.emplace(text, detail::Compiled{std::move(t), std::move(refs)}).first;
  }
  check_references(it->second.refs, path, in_condition, issues);
  compiled_at.emplace(&text, &it->second);
  return &it->second;
}

void Resolver::Impl::prepare_all(const Value& v, const std::string& path, bool in_condition,
                                 std::vector<Issue>& issues) {
  if (v.is_string()) {
    prepare(v.as_string(), path, in_condition, issues);
  } else if (v.is_list()) {
    const auto& l = v.as_list();
    for (std::size_t i = 0; i < l.size(); ++i) prepare_all(l[i], detail::indexed(path, i), in_condition, issues);
  } else if (v.is_map()) {
    for (const auto& [key, item] : v.as_map()) prepare_all(item, core::join_path(path, key), in_condition, issues);
  }
}

const Resolver::Impl::Instance* Resolver::Impl::referenced_instance(std::string_view path,
                                                                    std::string_view* rest) const {
  std::string_view after;
  if (detail::path_head(path, &after) != "components" || after.empty()) return nullptr;
  std::string_view tail;
  std::string_view id = detail::path_head(after, &tail);
  auto it = instance_index.find(id);
  if (it == instance_index.end()) return nullptr;
  if (rest != nullptr) *rest = tail;
  return &instances[it->second];
}

void Resolver::Impl::check_references(const std::vector<std::string>& refs, const std::string& path, bool in_condition,
                                      std::vector<Issue>& issues) const {
  for (const auto& ref : refs) {
    std::string_view rest;
    std::string_view root = detail::path_head(ref, &rest);
    if (root == "parameters" || root == "params") {
      std::string_view name = detail::path_head(rest, nullptr);
      if (!name.empty() && parameter_index.count(name) == 0) {
        detail::add_issue(issues, code::kUnknownReference, "the template has no parameter '" + std::string(name) + "'",
                          path);
      }
    } else if (root == "usecase") {
      std::string_view key = detail::path_head(rest, nullptr);
      if (!key.empty() && key != "name" && key != "template_id" && key != "template_version") {
        detail::add_issue(issues, code::kUnknownReference,
                          "usecase has name, template_id and template_version, not '" + std::string(key) + "'", path);
      }
    } else if (root == "components") {
      if (in_condition) {
        detail::add_issue(
            issues, code::kUnknownReference,
            "a condition is decided before anything is deployed, so it cannot read components ('" + ref + "')", path);
        continue;
      }
      if (rest.empty()) continue;  // components[expr]: checked when rendered
      std::string_view tail;
      const Instance* in = referenced_instance(ref, &tail);
      if (in == nullptr) {
        detail::add_issue(issues, code::kUnknownReference,
                          "no instance '" + std::string(detail::path_head(rest, nullptr)) + "' in this template", path);
        continue;
      }
      if (!in->def || tail.empty()) continue;
      std::string_view field_rest;
      std::string_view field = detail::path_head(tail, &field_rest);
      std::string_view output = field == "outputs" ? detail::path_head(field_rest, nullptr) : field;
      if (field == "enabled" || output.empty()) continue;
      if (in->output_source.count(output) == 0) {
        detail::add_issue(issues, code::kUnknownReference,
                          "instance '" + in->tc->id + "' (component '" + in->def->id + "') has no output '" +
                              std::string(output) + "'",
                          path);
      }
    } else {
      detail::add_issue(
          issues, code::kUnknownReference,
          "templates read parameters (or params), components and usecase; '" + std::string(root) + "' is undefined",
          path);
    }
  }
}

}  // namespace budcore::usecase
