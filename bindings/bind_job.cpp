// budcore.Job over budcore::job::Job. Construction goes through Job::from_value, so a Job
// object in Python is always a valid job; the wire form (to_dict / to_json) uses the Job
// schema's snake_case field names.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/problems.hpp"
#include "budcore/job/job.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

namespace budcore::bindings {
namespace {

using job::Job;
using job::JobCheck;

// A nil id is one not assigned yet.
std::optional<std::string> id_or_none(const core::Id& id) {
  if (id.is_nil()) return std::nullopt;
  return id.to_string();
}

// The job, or ValidationError (or the class of its code) for the first problem, with .errors:
// every problem, those of the document's shape and the rules' alike.
Job checked(JobCheck check) {
  if (!check.ok()) throw PyError(core::first_with_others(std::move(check.errors)));
  return std::move(*check.job);
}

JobCheck check_dict(const py::handle& obj, const char* caller) {
  if (!py::isinstance<py::dict>(obj))
    throw py::type_error(std::string(caller) + " takes a dict, not " +
                         py::type::handle_of(obj).attr("__name__").cast<std::string>());
  core::Value v = to_value(obj);
  py::gil_scoped_release release;
  return Job::check_value(v);
}

JobCheck check_text(const std::string& text) {
  py::gil_scoped_release release;
  return Job::check_json(text);
}

Job from_python(const py::handle& obj) { return checked(check_dict(obj, "Job.from_dict()")); }

Job from_json(const std::string& text) { return checked(check_text(text)); }

std::string to_json(const Job& j, std::optional<int> indent) {
  py::gil_scoped_release release;
  if (!indent) return j.to_json();
  core::JsonOptions opts;
  opts.indent = *indent;
  return core::to_json(j.to_value(), opts);
}

// The budcore.enums member named `value` (a str enum, equal to `value`).
using JobTypeEnum = Hinted<"budcore.enums.JobType">;
using JobSourceEnum = Hinted<"budcore.enums.JobSource">;
using PriorityEnum = Hinted<"budcore.enums.Priority">;
using JobStatusEnum = Hinted<"budcore.enums.JobStatus">;
using DeploymentTypeEnum = Hinted<"budcore.enums.DeploymentType">;

template <class Hint>
Hint member(const char* enum_name, std::string_view value) {
  return hinted<Hint>(py::module_::import("budcore.enums").attr(enum_name)(py::str(value.data(), value.size())));
}

// Any wire field without a typed property below (timestamps, ids, status_history, ...).
JsonValueResult wire_field(const Job& j, const std::string& name) {
  core::Value v = j.to_value();
  const core::Value* f = v.find(name);
  if (f == nullptr) throw py::attribute_error("'Job' object has no attribute '" + name + "'");
  return hinted<JsonValueResult>(to_python(*f));
}

py::list wire_names(const Job& j) {
  py::list out;
  const core::Value doc = j.to_value();  // kept alive: the loop walks its map
  for (const auto& [k, v] : doc.as_map()) out.append(py::str(k));
  return out;
}

}  // namespace

void bind_job(py::module_& m) {
  py::class_<Job>(m, "Job",
                  "A job (the atomic scheduling unit). Build one from a dict or JSON; invalid input "
                  "raises ValidationError whose .field names the offending key.")
      .def(py::init([](const py::kwargs& fields) { return from_python(fields); }),
           "Job(name=..., job_type=..., ...): the same keys as from_dict.")
      .def_static("from_dict", [](const JsonDictArg& data) { return from_python(data); }, py::arg("data"), "A job from a dict of the Job schema. ValidationError names the first problem; its .errors lists every one ({'code', 'message', 'path', 'value'}).")
      .def_static("from_json", &from_json, py::arg("text"), "A job from JSON text of the Job schema. ValidationError names the first problem; its .errors lists every one.")
      .def_static(
          "check", [](const py::dict& data) { return error_dicts(check_dict(data, "Job.check()").errors); },
          py::arg("document"),
          "Every problem of a job document (a dict), without raising: [] when Job.from_dict would accept it, "
          "else the list from_dict's ValidationError.errors holds ({'code', 'message', 'path', 'value'}, the first "
          "first).")
      .def_static(
          "check", [](const std::string& text) { return error_dicts(check_text(text).errors); },
          py::arg("document"), "The same for JSON text (what Job.from_json reads).")
      .def("to_dict", [](const Job& j) { return hinted<JsonDict>(to_python(j.to_value())); },
           "Every wire field, absent optionals as None, in schema order.")
      .def("to_json", &to_json, py::arg("indent") = py::none(), "The job as JSON text (compact, or indented by `indent` spaces).")
      .def(
          "validate",
          [](const Job& j) {
            core::Status st = [&] {
              py::gil_scoped_release release;
              return j.validate();
            }();
            unwrap(std::move(st));
          },
          "Raises ValidationError for the first rule the job breaks.")
      .def(
          "validate_all",
          [](const Job& j) {
            py::typing::List<ErrorObject> out;
            for (const auto& e : j.validate_all()) out.append(make_exception(e));
            return out;
          },
          "Every rule violation, as ValidationError instances (not raised).")
      // The main fields, typed.
      .def_property_readonly("id", [](const Job& j) { return id_or_none(j.id); }, "The job's UUID, as a string.")
      .def_readonly("name", &Job::name, "The job's name.")
      .def_property_readonly("tenant_id", [](const Job& j) { return id_or_none(j.tenant_id); }, "The owning tenant's UUID, as a string.")
      .def_property_readonly("project_id", [](const Job& j) { return id_or_none(j.project_id); }, "The project's UUID, as a string, or None.")
      .def_property_readonly("cluster_id", [](const Job& j) { return id_or_none(j.cluster_id); }, "The cluster's UUID, as a string, or None.")
      .def_property_readonly("job_type", [](const Job& j) { return member<JobTypeEnum>("JobType", job::to_string(j.job_type)); },
                             "A budcore.JobType: 'service', 'batch' or 'training'.")
      .def_property_readonly("deployment_type",
                             [](const Job& j) { return member<DeploymentTypeEnum>("DeploymentType", job::to_string(j.deployment_type)); },
                             "How the job is deployed, a budcore.DeploymentType: 'helm', 'docker' or 'model'.")
      .def_property_readonly("source", [](const Job& j) { return member<JobSourceEnum>("JobSource", job::to_string(j.source)); },
                             "What created the job, a budcore.JobSource: 'direct', 'pipeline' or 'usecase'.")
      .def_property_readonly("spec", [](const Job& j) { return hinted<JsonDict>(to_python(j.spec)); }, "The job's free-form spec (image, args, env, ...), as plain Python values.")
      .def_property_readonly("gpu_type", [](const Job& j) { return j.gpu_type; }, "The GPU type asked for ('nvidia-a100-80gb'), or None.")
      .def_readonly("gpu_count", &Job::gpu_count, "GPUs per job.")
      .def_readonly("cpu_cores", &Job::cpu_cores, "CPU cores asked for, as a Quantity.")
      .def_readonly("memory_gb", &Job::memory_gb, "Memory asked for in GiB, as a Quantity.")
      .def_property_readonly("storage_gb", [](const Job& j) { return j.storage_gb; }, "Storage asked for in GiB, or None.")
      .def_property_readonly("estimated_duration_seconds",
                             [](const Job& j) { return j.estimated_duration_seconds; }, "The submitter's estimate of the run time, or None.")
      .def_property_readonly("max_duration_seconds", [](const Job& j) { return j.max_duration_seconds; }, "The run time after which the job is stopped, or None.")
      .def_property_readonly("priority", [](const Job& j) { return member<PriorityEnum>("Priority", job::to_string(j.priority)); },
                             "A budcore.Priority: 'critical', 'high', 'normal', 'low' or 'spot'.")
      .def_readonly("preemptible", &Job::preemptible, "Whether the job may be preempted (see effectively_preemptible for its priority's default).")
      .def_readonly("preempts_others", &Job::preempts_others, "Whether the job may preempt lower-priority jobs.")
      .def_property_readonly("status", [](const Job& j) { return member<JobStatusEnum>("JobStatus", job::to_string(j.status)); },
                             "The job's status, a budcore.JobStatus ('pending', 'queued', 'scheduled', 'running', 'completed', 'failed', 'cancelled', ...).")
      .def_property_readonly("status_message", [](const Job& j) { return j.status_message; }, "Why the job is in its status, or None.")
      .def_readonly("retry_count", &Job::retry_count, "Runs started again after a failure.")
      .def_readonly("max_retries", &Job::max_retries, "How many times a failed run is started again.")
      .def_readonly("currency", &Job::currency, "The currency of the cost fields.")
      .def_property_readonly("estimated_cost", [](const Job& j) { return j.estimated_cost; }, "The estimated cost as a Money, or None.")
      .def_property_readonly("actual_cost", [](const Job& j) { return j.actual_cost; }, "The metered cost so far as a Money, or None.")
      .def_property_readonly("budget_limit", [](const Job& j) { return j.budget_limit; }, "The most this job may cost, as a Money, or None.")
      .def_property_readonly("outputs", [](const Job& j) { return hinted<JsonDict>(to_python(j.outputs)); }, "What the job produced (plain Python values).")
      .def_property_readonly("effectively_preemptible", &Job::effectively_preemptible, "Whether the job can be preempted once its priority's default applies.")
      .def_property_readonly("gpu_resource_name", &Job::gpu_resource_name, "The Kubernetes resource its GPUs are asked as ('nvidia.com/gpu').")
      // Python calls __getattr__ only when normal lookup fails: the remaining wire fields.
      .def("__getattr__", &wire_field)
      .def("__dir__",
           [](const py::object& self) {
             py::list names = py::module_::import("builtins").attr("object").attr("__dir__")(self);
             for (auto n : wire_names(self.cast<const Job&>())) names.append(n);
             return names;
           })
      .def("__eq__", [](const Job& a, const Job& b) { return a == b; }, py::is_operator())
      .def("__ne__", [](const Job& a, const Job& b) { return !(a == b); }, py::is_operator())
      .def("__repr__",
           [](const Job& j) {
             return "Job(name='" + j.name + "', job_type='" + std::string(job::to_string(j.job_type)) +
                    "', gpu_count=" + std::to_string(j.gpu_count) + ", status='" +
                    std::string(job::to_string(j.status)) + "')";
           })
      .def(py::pickle([](const Job& j) { return py::make_tuple(j.to_json()); },
                      [](const py::tuple& t) { return from_json(t[0].cast<std::string>()); }));
  // Mutable objects that define __eq__ are unhashable; Job is immutable but compares by value,
  // and hashing its full document is not worth it.
  m.attr("Job").attr("__hash__") = py::none();
}

}  // namespace budcore::bindings
