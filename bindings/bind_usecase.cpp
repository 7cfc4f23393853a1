// The use-case layer for Python (budcore.usecases wraps it in typed results): a registry of
// components and templates, and render / plan_deployment over it. Documents are dicts (or
// YAML/JSON text); results are the CLI's JSON shapes as dicts. Render releases the GIL; an
// invalid template or parameters raise ValidationError whose .errors lists every problem.
#include <Python.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "budcore/core/json.hpp"
#include "budcore/usecase/deployment.hpp"
#include "budcore/usecase/registry.hpp"
#include "budcore/usecase/resolver.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

namespace budcore::bindings {
namespace {

using core::Value;
using usecase::UsecaseRegistry;

// A dict/list, or YAML/JSON text, as a Value. `what` names the argument in errors.
Value document_of(const py::handle& obj, const char* what) {
  if (py::isinstance<py::str>(obj)) return unwrap(usecase::parse_usecase_document(obj.cast<std::string>()));
  return to_value(obj, what);
}

// One component or a list of them, or their YAML/JSON text.
using ComponentsArg = Hinted<"dict[str, builtins.object] | list[dict[str, builtins.object]] | str">;

std::string path_of(const OptionalPathArg& obj) { return py::module_::import("os").attr("fspath")(obj).cast<std::string>(); }

// Raises ValidationError for the first problem, with .errors = every problem as dicts.
[[noreturn]] void raise_issues(const std::vector<usecase::Issue>& issues) {
  const auto& first = issues.front();
  py::list errors;
  for (const auto& i : issues) {
    py::dict d;
    d["code"] = i.code;
    d["message"] = i.message;
    d["path"] = i.path;
    errors.append(d);
  }
  raise_with_errors(core::Error::invalid(first.path, {}, first.code + ": " + first.message), std::move(errors));
}

const usecase::UseCaseTemplate& template_of(const UsecaseRegistry& r, const std::string& id) {
  const auto* t = r.find_template(id);
  if (t == nullptr) {
    throw PyError(core::Error{core::ErrorCode::NotFound, "no template '" + id + "' in the registry", "template", id});
  }
  return *t;
}

usecase::ResolvedStack resolve_or_raise(const UsecaseRegistry& r, const std::string& id,
                                        const OptionalJsonDictArg& parameters, const OptionalJsonDictArg& overrides, const std::optional<std::string>& name) {
  const auto& t = template_of(r, id);
  Value params = parameters.is_none() ? Value() : to_value(parameters, "parameters");
  usecase::ResolveOptions options;
  if (!overrides.is_none()) options.overrides = to_value(overrides, "overrides");
  if (name) options.name = *name;
  usecase::ResolveResult result;
  {
    py::gil_scoped_release release;
    result = usecase::resolve(t, r.components, params, options);
  }
  if (!result.valid()) raise_issues(result.errors);
  return std::move(*result.stack);
}

core::Id id_arg(const OptionalIdArg& obj, const char* what) {
  if (obj.is_none()) return core::Id();
  return id_of(obj, what);
}

Value plan_value(const usecase::DeploymentPlan& plan, const usecase::DeploymentRecord& record) {
  core::List jobs;
  for (const auto& j : plan.jobs) {
    jobs.push_back(Value::map({{"instance_id", Value(j.instance_id)},
                               {"depends_on", Value(core::List(j.depends_on.begin(), j.depends_on.end()))},
                               {"job", j.job.to_value()}}));
  }
  core::List levels;
  for (const auto& l : plan.levels) levels.emplace_back(core::List(l.begin(), l.end()));
  return Value::map({{"deployment_id", Value(plan.deployment_id.to_string())},
                     {"jobs", Value(std::move(jobs))},
                     {"levels", Value(std::move(levels))},
                     {"teardown_order", Value(core::List(plan.teardown_order.begin(), plan.teardown_order.end()))},
                     {"pipeline", plan.pipeline},
                     {"record", record.to_value()}});
}

JsonDictList template_summaries(const UsecaseRegistry& r) {
  JsonDictList out;
  for (const auto& f : r.templates) out.append(hinted<JsonDict>(to_python(usecase::template_summary(f))));
  return out;
}

}  // namespace

void bind_usecase(py::module_& m) {
  py::class_<UsecaseRegistry>(m, "UsecaseRegistry",
                              "Components and use-case templates in memory: the shipped ones and/or your own.")
      .def(py::init([](bool builtin) { return builtin ? UsecaseRegistry::builtin() : UsecaseRegistry{}; }),
           py::arg("builtin") = true, "A registry of use-case templates and components (the shipped ones when `builtin`).")
      .def(
          "add_components",
          [](UsecaseRegistry& r, const ComponentsArg& doc) {
            unwrap(r.components.add_document(document_of(doc, "components")));
          },
          py::arg("components"), "One component or a list (dicts, or YAML/JSON text); all or nothing.")
      .def(
          "add_template",
          [](UsecaseRegistry& r, const JsonDocArg& doc) {
            auto t = unwrap(usecase::UseCaseTemplate::from_value(document_of(doc, "template")));
            std::string id = t.id;
            r.put_template(usecase::TemplateFile{std::move(t), {}});
            return id;
          },
          py::arg("template"), "A template (dict, or YAML/JSON text); replaces one of the same id. Returns its id.")
      .def(
          "load",
          [](UsecaseRegistry& r, const OptionalPathArg& components, const OptionalPathArg& templates) {
            std::string c = components.is_none() ? std::string() : path_of(components);
            std::string t = templates.is_none() ? std::string() : path_of(templates);
            core::Status st = [&] {
              py::gil_scoped_release release;
              return r.load(c, t);
            }();
            unwrap(std::move(st));
          },
          py::arg("components") = py::none(), py::arg("templates") = py::none(),
          "Component and template files (a file or a directory each); all or nothing.")
      .def("template_ids",
           [](const UsecaseRegistry& r) {
             std::vector<std::string> out;
             for (const auto& t : r.templates) out.push_back(t.tmpl.id);
             return out;
           }, "The ids of the templates.")
      .def("template_summaries", &template_summaries,
           "A summary of every template (id, name, version, category, complexity, description, tags, parameters).")
      // The former name (it shadows the builtin in the class), kept: UsecaseRegistry is public.
      .def("list", &template_summaries, "Alias of template_summaries() under its former name, kept so that existing code runs.")
      .def(
          "show",
          [](const UsecaseRegistry& r, const std::string& id) { return hinted<JsonDict>(to_python(template_of(r, id).to_value())); },
          py::arg("template_id"), "One template as a dict.")
      .def("components",
           [](const UsecaseRegistry& r) {
             JsonDictList out;
             for (const auto* c : r.components.all()) out.append(hinted<JsonDict>(to_python(c->to_value())));
             return out;
           }, "Every component as a dict (the component schema: id, name, category, version, deployment_type, ...).")
      .def(
          "render",
          [](const UsecaseRegistry& r, const std::string& id, const OptionalJsonDictArg& parameters,
             const OptionalJsonDictArg& overrides, const std::optional<std::string>& name) {
            return hinted<JsonDict>(to_python(resolve_or_raise(r, id, parameters, overrides, name).to_value()));
          },
          py::arg("template_id"), py::arg("parameters") = py::none(), py::arg("overrides") = py::none(),
          py::arg("name") = py::none(),
          "Resolves a template (docs/cli.md contract 4): the contract-4 dict. ValidationError.errors lists every "
          "problem.")
      .def(
          "plan_deployment",
          [](const UsecaseRegistry& r, const std::string& id, const OptionalJsonDictArg& parameters,
             const OptionalJsonDictArg& overrides, const std::optional<std::string>& name, const OptionalIdArg& tenant_id,
             const OptionalIdArg& project_id, const OptionalIdArg& cluster_id, const OptionalIdArg& deployment_id) {
            auto stack = resolve_or_raise(r, id, parameters, overrides, name);
            usecase::DeploymentRequest req{id_arg(deployment_id, "deployment_id"), id_arg(tenant_id, "tenant_id"),
                                           id_arg(project_id, "project_id"), id_arg(cluster_id, "cluster_id")};
            auto plan = unwrap(usecase::plan_deployment(stack, req));
            return hinted<JsonDict>(to_python(plan_value(plan, usecase::DeploymentRecord::from_plan(plan, stack, req))));
          },
          py::arg("template_id"), py::arg("parameters") = py::none(), py::arg("overrides") = py::none(),
          py::arg("name") = py::none(), py::arg("tenant_id") = py::none(), py::arg("project_id") = py::none(),
          py::arg("cluster_id") = py::none(), py::arg("deployment_id") = py::none(),
          "The jobs that deploy the resolved stack, in dependency order, with the teardown order and the "
          "deployment record: {'deployment_id', 'jobs', 'levels', 'teardown_order', 'pipeline', 'record'}.");
}

}  // namespace budcore::bindings
