// budcore.Pipeline over budcore::pipeline: a pipeline document ({"pipeline": {...}, "steps":
// [...]}, JSON or YAML) with whole-document validation and contract-3 planning. Loading,
// validation and planning release the GIL.
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/pipeline/planner.hpp"
#include "budcore/pipeline/validation.hpp"
#include "casters.hpp"
#include "errors.hpp"

namespace budcore::bindings {
namespace {

using core::Value;
using pipeline::Issue;

struct PyPipeline {
  Value document;
};

PyPipeline from_result(core::Result<Value> r) {
  Value v = unwrap(std::move(r));
  if (!v.is_map()) throw PyError(core::Error::invalid("", "", "a pipeline document must be a map"));
  return PyPipeline{std::move(v)};
}

std::string field(const Value& doc, std::string_view section, std::string_view key) {
  const Value* s = doc.find(section);
  const Value* f = s ? s->find(key) : nullptr;
  return f && f->is_string() ? f->as_string() : std::string();
}

std::vector<std::string> step_ids(const Value& doc) {
  std::vector<std::string> out;
  const Value* steps = doc.find("steps");
  if (!steps || !steps->is_list()) return out;
  for (const Value& s : steps->as_list()) {
    const Value* id = s.find("id");
    out.push_back(id && id->is_string() ? id->as_string() : std::string());
  }
  return out;
}

pipeline::ValidationReport validate(const PyPipeline& p) {
  py::gil_scoped_release release;
  return pipeline::validate_document(p.document);
}

Value issue_value(const Issue& i) {
  return Value(core::Map{{"code", Value(i.code)}, {"message", Value(i.message)}, {"path", Value(i.path)}});
}

// The contract-3 output document, exactly as `budcore pipeline plan` prints it.
core::Result<Value> plan_value(const pipeline::PlanResult& r) { return core::parse_json(pipeline::to_json(r)); }

std::string issue_repr(const Issue& i) {
  return "PipelineIssue(code=" + py::repr(py::str(i.code)).cast<std::string>() +
         ", path=" + py::repr(py::str(i.path)).cast<std::string>() +
         ", message=" + py::repr(py::str(i.message)).cast<std::string>() + ")";
}

// str or os.PathLike.
std::string path_of(const py::object& obj) { return py::module_::import("os").attr("fspath")(obj).cast<std::string>(); }

}  // namespace

void bind_pipeline(py::module_& m) {
  m.def(
      "load_document",
      [](const py::object& path_obj) {
            std::string path = path_of(path_obj);
        core::Result<Value> v = [&] {
          py::gil_scoped_release release;
          return core::load_document_file(path);
        }();
        return to_python(unwrap(std::move(v)));
      },
      py::arg("path"), "A JSON or YAML file (JSON when it starts with '{' or '[') as Python objects.");

  py::class_<Issue>(m, "PipelineIssue", "One validation problem: a contract-3 code, a message and a path.")
      .def(py::init([](std::string code, std::string message, std::string path) {
             return Issue{std::move(code), std::move(message), std::move(path)};
           }),
           py::arg("code"), py::arg("message"), py::arg("path") = "")
      .def_readonly("code", &Issue::code)
      .def_readonly("message", &Issue::message)
      .def_readonly("path", &Issue::path)
      .def("to_dict", [](const Issue& i) { return to_python(issue_value(i)); })
      .def("__eq__", [](const Issue& a, const Issue& b) { return a == b; }, py::is_operator())
      .def("__hash__", [](const Issue& i) { return py::hash(py::make_tuple(i.code, i.message, i.path)); })
      .def("__repr__", &issue_repr);

  py::class_<PyPipeline>(m, "Pipeline",
                         "A pipeline document ({'pipeline': {...}, 'steps': [...]}). validate() lists every "
                         "problem; plan() gives the contract-3 plan. Immutable.")
      .def_static(
          "load",
          [](const py::object& path_obj) {
            std::string path = path_of(path_obj);
            core::Result<Value> v = [&] {
              py::gil_scoped_release release;
              return core::load_document_file(path);
            }();
            return from_result(std::move(v));
          },
          py::arg("path"), "A JSON or YAML file.")
      .def_static(
          "from_dict",
          [](const py::object& d) {
            if (!py::isinstance<py::dict>(d))
              throw py::type_error("Pipeline.from_dict() takes a dict, not " +
                                   py::type::handle_of(d).attr("__name__").cast<std::string>());
            return PyPipeline{to_value(d)};
          },
          py::arg("data"))
      .def_static(
          "from_text",
          [](const std::string& text) {
            core::Result<Value> v = [&] {
              py::gil_scoped_release release;
              return core::parse_document(text);
            }();
            return from_result(std::move(v));
          },
          py::arg("text"), "JSON or YAML text.")
      .def_property_readonly("id", [](const PyPipeline& p) { return field(p.document, "pipeline", "id"); })
      .def_property_readonly("name", [](const PyPipeline& p) { return field(p.document, "pipeline", "name"); })
      .def_property_readonly("step_ids", [](const PyPipeline& p) { return step_ids(p.document); })
      .def("__len__", [](const PyPipeline& p) { return step_ids(p.document).size(); })
      .def("to_dict", [](const PyPipeline& p) { return to_python(p.document); })
      .def("validate", [](const PyPipeline& p) { return validate(p).errors; },
           "Every problem (empty when valid), ordered by step then field; cycles last.")
      .def("warnings", [](const PyPipeline& p) { return validate(p).warnings; },
           "Soft references (e.g. a step read through `| default`), which are allowed.")
      .def_property_readonly("is_valid", [](const PyPipeline& p) { return validate(p).valid(); })
      .def(
          "plan",
          [](const PyPipeline& p) {
            core::Result<Value> out = [&] {
              py::gil_scoped_release release;
              return plan_value(pipeline::plan_document(p.document));
            }();
            return to_python(unwrap(std::move(out)));
          },
          "The contract-3 plan dict: {'valid': True, 'order', 'levels', 'critical_path', "
          "'critical_path_seconds', 'job_steps'} or {'valid': False, 'errors': [...]}.")
      .def("__repr__", [](const PyPipeline& p) {
        return "Pipeline(id=" + py::repr(py::str(field(p.document, "pipeline", "id"))).cast<std::string>() +
               ", steps=" + std::to_string(step_ids(p.document).size()) + ")";
      });
}

}  // namespace budcore::bindings
