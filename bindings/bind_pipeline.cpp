// budcore.Pipeline over budcore::pipeline: a pipeline document ({"pipeline": {...}, "steps":
// [...]}, JSON or YAML) with whole-document validation and contract-3 planning. Loading,
// validation and planning release the GIL. Pipeline.run() rehearses a run with Python
// callables for FUNCTION steps: the GIL is released while the engine runs and re-acquired
// around each callable.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/pipeline/planner.hpp"
#include "budcore/pipeline/rehearsal.hpp"
#include "budcore/pipeline/validation.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

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

// JSON or YAML text, parsed without the GIL.
PyPipeline from_text(const std::string& text) {
  core::Result<Value> v = [&] {
    py::gil_scoped_release release;
    return core::parse_document(text);
  }();
  return from_result(std::move(v));
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
std::string path_of(const PathArg& obj) { return py::module_::import("os").attr("fspath")(obj).cast<std::string>(); }

// ---- Pipeline.run ----------------------------------------------------------------------

// "ValueError: text" (just the type when the text is empty). A __str__ that raises itself
// must not escape into the engine, so it falls back to the type name.
std::string describe(const py::error_already_set& e) {
  std::string type = "Exception";
  try {
    type = py::handle(e.type()).attr("__name__").cast<std::string>();
    std::string text = py::str(e.value()).cast<std::string>();
    return text.empty() ? type : type + ": " + text;
  } catch (py::error_already_set&) {
    return type;
  }
}

// What a run shares with its callables: the first BaseException that is not an Exception
// (KeyboardInterrupt, SystemExit) is re-raised once the engine returns; after it, no
// further callable is called.
struct RunInterrupt {
  std::optional<py::error_already_set> error;
};

// A Python callable as a StepFunction. The callable and the interrupt are only touched with
// the GIL held; the shared_ptrs let the engine copy the wrapper without touching refcounts.
class PyStepFunction {
 public:
  PyStepFunction(std::string name, py::object fn, std::shared_ptr<RunInterrupt> interrupt)
      : name_(std::move(name)), fn_(std::make_shared<py::object>(std::move(fn))), interrupt_(std::move(interrupt)) {
    inspect_keywords();
  }

  core::Result<Value> operator()(const Value& args, const pipeline::FunctionCall& call) const {
    py::gil_scoped_acquire gil;
    if (interrupt_->error) return core::Error::make(core::ErrorCode::Internal, "run interrupted");
    try {
      py::dict kwargs;
      if (pass_step_id_) kwargs["step_id"] = py::str(std::string(call.step_id));
      if (pass_attempt_) kwargs["attempt"] = call.attempt;
      py::object out = (*fn_)(to_python(args.is_null() ? Value(core::Map{}) : args), **kwargs);
      return to_value(out, "result");
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_Exception)) {
        interrupt_->error = std::move(e);
        return core::Error::make(core::ErrorCode::Internal, "run interrupted");
      }
      return core::Error::make(core::ErrorCode::Invalid, describe(e));
    } catch (const PyError& e) {
      return core::Error::make(e.error().code, "function '" + name_ + "' returned a value budcore cannot hold: " +
                                                   e.error().describe());
    }
  }

 private:
  // step_id and attempt are passed as keywords only to callables that accept them.
  void inspect_keywords() {
    try {
      py::module_ inspect = py::module_::import("inspect");
      py::object params = inspect.attr("signature")(*fn_).attr("parameters");
      py::object kind_var_kw = inspect.attr("Parameter").attr("VAR_KEYWORD");
      py::object kind_pos = inspect.attr("Parameter").attr("POSITIONAL_ONLY");
      for (auto item : params.attr("values")()) {
        py::object kind = item.attr("kind");
        std::string pname = item.attr("name").cast<std::string>();
        if (kind.equal(kind_var_kw)) pass_step_id_ = pass_attempt_ = true;
        if (kind.equal(kind_pos)) continue;
        if (pname == "step_id") pass_step_id_ = true;
        if (pname == "attempt") pass_attempt_ = true;
      }
    } catch (py::error_already_set&) {
      // No signature (some builtins): call it with the args alone.
    }
  }

  std::string name_;
  std::shared_ptr<py::object> fn_;
  std::shared_ptr<RunInterrupt> interrupt_;
  bool pass_step_id_ = false;
  bool pass_attempt_ = false;
};

// The options document of rehearsal_options_from_value, from Python keywords.
Value run_options(const py::object& params, const py::object& fail, const py::object& slow, const py::object& timeout,
                  const py::object& reject, const std::string& run_id) {
  core::Map m;
  m.set("run_id", run_id);
  auto put = [&](const char* key, const py::object& obj) {
    if (obj.is_none()) return;
    // A set or other iterable of step ids reads as a list (sorted: sets have no order).
    if (py::isinstance<py::set>(obj) || py::isinstance<py::frozenset>(obj)) {
      m.set(key, to_value(py::module_::import("builtins").attr("sorted")(obj), key));
    } else {
      m.set(key, to_value(obj, key));
    }
  };
  put("params", params);
  put("fail", fail);
  put("slow", slow);
  put("timeout", timeout);
  put("reject", reject);
  return Value(std::move(m));
}

// run()'s arguments: fail maps step ids to failing attempts (True: every one) or lists them; slow
// maps them to slow-down factors; timeout and reject list them.
using StepFunctions = Hinted<"dict[str, collections.abc.Callable[..., builtins.object]] | None">;
using StepIds = Hinted<"list[str] | tuple[str, ...] | set[str] | frozenset[str] | None">;
using StepFailures = Hinted<"list[str] | tuple[str, ...] | set[str] | frozenset[str] | dict[str, int | bool] | None">;
using StepFactors = Hinted<"dict[str, float] | None">;

RunResult run(const PyPipeline& p, const OptionalJsonDictArg& params, const StepFunctions& functions,
              const StepFailures& fail, const StepFactors& slow, const StepIds& timeout, const StepIds& reject,
              const std::string& run_id) {
  auto options = unwrap(pipeline::rehearsal_options_from_value(run_options(params, fail, slow, timeout, reject, run_id), ""));
  auto interrupt = std::make_shared<RunInterrupt>();
  pipeline::FunctionRegistry registry;
  if (!functions.is_none()) {
    if (!py::isinstance<py::dict>(functions)) {
      throw py::type_error("functions must be a dict mapping names to callables, not " +
                           py::type::handle_of(functions).attr("__name__").cast<std::string>());
    }
    for (auto [key, fn] : functions.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key)) throw py::type_error("functions: names must be str");
      std::string name = key.cast<std::string>();
      if (!PyCallable_Check(fn.ptr())) throw py::type_error("functions['" + name + "'] is not callable");
      unwrap(registry.add(name, PyStepFunction(name, py::reinterpret_borrow<py::object>(fn), interrupt)));
    }
  }
  core::Result<pipeline::RehearsalResult> result = [&] {
    py::gil_scoped_release release;
    return pipeline::rehearse(p.document, options, &registry);
  }();
  if (interrupt->error) throw std::move(*interrupt->error);
  return hinted<RunResult>(typed_result("RunResult", unwrap(std::move(result)).to_value()));
}

}  // namespace

void bind_pipeline(py::module_& m) {
  m.def(
      "load_document",
      [](const PathArg& path_obj) {
            std::string path = path_of(path_obj);
        core::Result<Value> v = [&] {
          py::gil_scoped_release release;
          return core::load_document_file(path);
        }();
        return hinted<JsonValueResult>(to_python(unwrap(std::move(v))));
      },
      py::arg("path"), "A JSON or YAML file (JSON when it starts with '{' or '[') as Python objects.");

  py::class_<Issue>(m, "PipelineIssue", "One validation problem: a contract-3 code, a message and a path.")
      .def(py::init([](std::string code, std::string message, std::string path) {
             return Issue{std::move(code), std::move(message), std::move(path)};
           }),
           py::arg("code"), py::arg("message"), py::arg("path") = "", "A pipeline problem: a code ('cycle', 'unknown_dependency', ...), a message and the path it is at.")
      .def_readonly("code", &Issue::code, "What kind of problem ('cycle', 'unknown_dependency', 'duplicate_id', ...).")
      .def_readonly("message", &Issue::message, "The problem in words.")
      .def_readonly("path", &Issue::path, "Where in the document ('steps[2].depends_on[0]').")
      .def("to_dict", [](const Issue& i) { return hinted<py::typing::Dict<py::str, py::str>>(to_python(issue_value(i))); }, "{'code', 'message', 'path'}.")
      .def("__eq__", [](const Issue& a, const Issue& b) { return a == b; }, py::is_operator())
      .def("__hash__", [](const Issue& i) { return py::hash(py::make_tuple(i.code, i.message, i.path)); })
      .def("__repr__", &issue_repr);

  py::class_<PyPipeline>(m, "Pipeline",
                         "A pipeline document ({'pipeline': {...}, 'steps': [...]}). validate() lists every "
                         "problem; plan() gives the contract-3 plan. Immutable.")
      .def(py::init([](const OptionalJsonDocArg& document, const py::kwargs& fields) {
             if (!document.is_none()) {
               if (!fields.empty()) throw py::type_error("Pipeline() takes a document or keyword fields, not both");
               if (py::isinstance<py::dict>(document)) return PyPipeline{to_value(document)};
               if (py::isinstance<py::str>(document)) return from_text(document.cast<std::string>());
               throw py::type_error("Pipeline() takes a dict or JSON/YAML text, not " +
                                    py::type::handle_of(document).attr("__name__").cast<std::string>());
             }
             // Keyword form: steps=[...], everything else is the "pipeline" section (id, name, ...).
             py::dict header, doc;
             py::object steps = py::list();
             for (const auto& [k, v] : fields) {
               if (k.cast<std::string>() == "steps") steps = py::reinterpret_borrow<py::object>(v);
               else header[k] = v;
             }
             doc["pipeline"] = header;
             doc["steps"] = steps;
             return PyPipeline{to_value(doc)};
           }),
           py::arg("document") = py::none(), py::pos_only(),
           "Pipeline(document) from a dict or JSON/YAML text, or Pipeline(id=..., name=..., steps=[...]) "
           "from fields; like from_dict, it is checked by validate(), not here.")
      .def_static(
          "load",
          [](const PathArg& path_obj) {
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
          [](const JsonDictArg& d) {
            if (!py::isinstance<py::dict>(d))
              throw py::type_error("Pipeline.from_dict() takes a dict, not " +
                                   py::type::handle_of(d).attr("__name__").cast<std::string>());
            return PyPipeline{to_value(d)};
          },
          py::arg("data"), "A pipeline from a dict of the Pipeline/Step schema (docs/pipelines.md); ValidationError names the bad field.")
      .def_static("from_text", &from_text, py::arg("text"), "JSON or YAML text.")
      .def_property_readonly("id", [](const PyPipeline& p) { return field(p.document, "pipeline", "id"); }, "The pipeline's id.")
      .def_property_readonly("name", [](const PyPipeline& p) { return field(p.document, "pipeline", "name"); }, "The pipeline's name.")
      .def_property_readonly("step_ids", [](const PyPipeline& p) { return step_ids(p.document); }, "The step ids, in document order.")
      .def("__len__", [](const PyPipeline& p) { return step_ids(p.document).size(); })
      .def("to_dict", [](const PyPipeline& p) { return hinted<JsonDict>(to_python(p.document)); }, "The pipeline as a dict (the document from_dict reads).")
      .def("validate", [](const PyPipeline& p) { return validate(p).errors; },
           "Every problem (empty when valid), ordered by step then field; cycles last.")
      .def("warnings", [](const PyPipeline& p) { return validate(p).warnings; },
           "Soft references (e.g. a step read through `| default`), which are allowed.")
      .def_property_readonly("is_valid", [](const PyPipeline& p) { return validate(p).valid(); }, "True when the pipeline has no issues (see validate()).")
      .def(
          "plan",
          [](const PyPipeline& p) {
            core::Result<Value> out = [&] {
              py::gil_scoped_release release;
              return plan_value(pipeline::plan_document(p.document));
            }();
            return hinted<PlanResult>(typed_result("Plan", unwrap(std::move(out))));
          },
          "The contract-3 plan as a budcore.results.Plan (a dict): {'valid': True, 'order', 'levels', "
          "'critical_path', 'critical_path_seconds', 'job_steps'} or {'valid': False, 'errors': [...]}; "
          ".to_pandas() gives a row per step.")
      .def("run", &run, py::arg("params") = py::none(), py::arg("functions") = py::none(),
           py::arg("fail") = py::none(), py::arg("slow") = py::none(), py::arg("timeout") = py::none(),
           py::arg("reject") = py::none(), py::arg("run_id") = "run",
           "Rehearses a run on a virtual clock (as `budcore pipeline run`): JOB, API_CALL and "
           "NOTIFICATION steps are simulated, FUNCTION steps call functions[name](args) (with "
           "step_id= and attempt= when the callable accepts them). Returns {'status', 'done', "
           "'elapsed_seconds', 'failure_reason', 'steps', 'outputs', 'messages', 'transitions'}.")
      .def("__repr__", [](const PyPipeline& p) {
        return "Pipeline(id=" + py::repr(py::str(field(p.document, "pipeline", "id"))).cast<std::string>() +
               ", steps=" + std::to_string(step_ids(p.document).size()) + ")";
      });
}

}  // namespace budcore::bindings
