// budcore.open_store(uri) over budcore::backend::Store: tenant-scoped job submit / get / list /
// transition on SQLite (or PostgreSQL). Every call names its tenant (a UUID string or a
// uuid.UUID); another tenant's job is NotFoundError. Store calls release the GIL; a Store may
// be shared by threads.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/backend/store_json.hpp"
#include "budcore/job/job.hpp"
#include "budcore/job/job_status.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"
#include "store_handle.hpp"
#include "stored_job.hpp"

namespace budcore::bindings {
namespace {

using backend::JobRecord;
using core::Id;

job::Job job_of(const py::handle& obj) {
  if (py::isinstance<job::Job>(obj)) return obj.cast<job::Job>();
  if (!py::isinstance<py::dict>(obj))
    throw py::type_error("job must be a budcore.Job or a dict, not " +
                         py::type::handle_of(obj).attr("__name__").cast<std::string>());
  core::Value v = to_value(obj, "job");
  core::Result<job::Job> j = [&] {
    py::gil_scoped_release release;
    return job::Job::from_value(v);
  }();
  return unwrap(std::move(j));
}

// Runs a store call without the GIL and unwraps it. The store stays alive for the call.
template <class F>
auto call(PyStore& s, F&& f) {
  std::shared_ptr<backend::Store> st = s.store();
  auto r = [&] {
    py::gil_scoped_release release;
    return f(*st);
  }();
  return unwrap(std::move(r));
}

StoredJob submit(PyStore& s, const IdArg& tenant, const JobArg& job, const std::optional<std::string>& key) {
  Id t = id_of(tenant, "tenant");
  job::Job j = job_of(job);
  std::string k = idempotency_key_of(key);
  const std::string digest = k.empty() ? std::string() : backend::job_request_digest(j, t);
  backend::CreateJobResult r = call(s, [&](backend::Store& st) { return st.create_job(t, std::move(j), k, digest); });
  return StoredJob{std::move(r.record), r.created};
}

StoredJob get(PyStore& s, const IdArg& tenant, const IdArg& id) {
  Id t = id_of(tenant, "tenant");
  Id i = id_of(id, "id");
  return StoredJob{call(s, [&](backend::Store& st) { return st.get_job(t, i); }), false};
}

// kwargs in the store's query document (store_json.hpp): status, project_id, cluster_id,
// pipeline_id, job_type, source, created_from, created_to, limit, after, view.
JobPageResult list(PyStore& s, const IdArg& tenant, const py::kwargs& query) {
  Id t = id_of(tenant, "tenant");
  core::Map q;
  for (auto item : query) {
    if (item.second.is_none()) continue;
    std::string key = py::cast<std::string>(item.first);
    q.set(key, to_value(item.second, key));
  }
  backend::JobQuery jq = unwrap(backend::parse_job_query(core::Value(std::move(q))));
  core::Value page = call(s, [&](backend::Store& st) { return backend::run_job_query(st, t, jq); });
  return hinted<JobPageResult>(typed_result("JobPage", page));
}

StoredJob transition(PyStore& s, const IdArg& tenant, const IdArg& id, std::int64_t expected_version,
                     const std::string& to, const std::string& message) {
  Id t = id_of(tenant, "tenant");
  Id i = id_of(id, "id");
  core::Result<job::JobStatus> status = job::parse_job_status(to);
  if (!status) throw PyError(core::Error::invalid("to", to, status.error().message));
  return StoredJob{call(s, [&](backend::Store& st) { return st.transition_job(t, i, expected_version, *status, message); }),
                   false};
}

// ":memory:" and plain paths (str or os.PathLike) mean SQLite.
std::string uri_of(const PathArg& obj) {
  std::string uri = py::module_::import("os").attr("fspath")(obj).cast<std::string>();
  if (uri == ":memory:") return "sqlite::memory:";
  if (uri.rfind("sqlite:", 0) == 0 || uri.rfind("postgres", 0) == 0 || uri.find("://") != std::string::npos) return uri;
  return "sqlite:" + uri;
}

PyStore open(const PathArg& uri_obj, bool migrate, bool durable) {
  std::string uri = uri_of(uri_obj);
  backend::StoreOptions opts;
  opts.migrate = migrate;
  opts.durable = durable;
  core::Result<std::unique_ptr<backend::Store>> s = [&] {
    py::gil_scoped_release release;
    return backend::open_store(uri, opts);
  }();
  return PyStore(unwrap(std::move(s)), uri);
}

// {'ok', 'schema_version', 'library_schema_version', 'rows_checked', 'problems'}: values of several types.
JsonDict check(const PathArg& uri_obj) {
  std::string uri = uri_of(uri_obj);
  core::Result<backend::StoreCheckReport> r = [&] {
    py::gil_scoped_release release;
    return backend::check_store(uri);
  }();
  backend::StoreCheckReport rep = unwrap(std::move(r));
  JsonDict out;
  out["ok"] = rep.ok;
  out["schema_version"] = rep.schema_version;
  out["library_schema_version"] = rep.library_schema_version;
  out["rows_checked"] = rep.rows_checked;
  out["problems"] = rep.problems;
  return out;
}

}  // namespace

void bind_store(py::module_& m) {
  py::class_<StoredJob>(m, "StoredJob", "A job as the store holds it.")
      .def_property_readonly("job", [](const StoredJob& s) { return s.record.job; }, "The job as stored.")
      .def_property_readonly("id", [](const StoredJob& s) { return s.record.job.id.to_string(); }, "The job's UUID, as a string.")
      .def_property_readonly("version", [](const StoredJob& s) { return s.record.version; }, "The record's version: it moves on every change (optimistic concurrency).")
      .def_property_readonly("idempotency_key",
                             [](const StoredJob& s) -> std::optional<std::string> {
                               if (s.record.idempotency_key.empty()) return std::nullopt;
                               return s.record.idempotency_key;
                             }, "The key the job was submitted with, or None.")
      .def_readonly("created", &StoredJob::created, "True when submit_job created it (False: the idempotency key named an existing job).")
      .def("to_dict", [](const StoredJob& s) { return hinted<JsonDict>(to_python(backend::to_value(s.record))); }, "{'version', 'idempotency_key', 'job'}.")
      .def("__repr__", [](const StoredJob& s) {
        return "StoredJob(id='" + s.record.job.id.to_string() + "', name=" +
               py::repr(py::str(s.record.job.name)).cast<std::string>() +
               ", status='" + std::string(job::to_string(s.record.job.status)) + "', version=" +
               std::to_string(s.record.version) + ")";
      });

  py::class_<PyStore>(m, "Store",
                      "A durable, tenant-scoped store (budcore.open_store). Use as a context manager "
                      "or call close().")
      .def_property_readonly("backend", [](PyStore& s) { return std::string(s.store()->backend_name()); }, "'sqlite' or 'postgresql'.")
      .def_property_readonly("uri", &PyStore::uri, "The URI the store was opened with.")
      .def_property_readonly("closed", &PyStore::closed, "True after close().")
      .def("schema_version", [](PyStore& s) { return call(s, [](backend::Store& st) { return st.schema_version(); }); }, "The schema version of the open database.")
      .def("submit_job", &submit, py::arg("tenant"), py::arg("job"), py::arg("idempotency_key") = py::none(),
           "Validate and store a job (budcore.Job or dict) for the tenant; a repeated idempotency key "
           "returns the first job with created=False.")
      .def("get_job", &get, py::arg("tenant"), py::arg("id"), "A tenant's job by id; NotFoundError for another tenant's or an unknown id.")
      .def("list_jobs", &list, py::arg("tenant"),
           "Newest first, as a budcore.results.JobPage (a dict {'items': [...], 'next_cursor': str}; "
           ".to_pandas() gives a row per job). Keyword filters: status (str or list), "
           "project_id, cluster_id, pipeline_id, job_type, source, created_from, created_to, limit, "
           "after (a next_cursor), view ('summary' or 'full').")
      .def("transition_job", &transition, py::arg("tenant"), py::arg("id"), py::arg("expected_version"),
           py::arg("to"), py::arg("message") = "",
           "Compare-and-set status change along the job state machine (ConflictError otherwise).")
      .def("close", &PyStore::close, "Closes the store; later calls raise.")
      .def("__enter__", [](PyStore& s) -> PyStore& { return s; }, py::return_value_policy::reference)
      .def("__exit__", [](PyStore& s, const py::args&) { s.close(); })
      .def("__repr__", [](const PyStore& s) { return "Store(" + py::repr(py::str(s.uri())).cast<std::string>() + ")"; });

  m.def("open_store", &open, py::arg("uri"), py::kw_only(), py::arg("migrate") = true, py::arg("durable") = true,
        "Open (and migrate) a store: 'sqlite:///abs/path.db', 'sqlite:path.db', 'sqlite::memory:', "
        "'postgresql://...'. A bare ':memory:' or file path means SQLite.");
  m.def("check_store", &check, py::arg("uri"), "Integrity check: {'ok', 'schema_version', ..., 'problems'}.");
  m.def("latest_schema_version", &backend::latest_schema_version, "The schema version this library writes and migrates to.");
}

}  // namespace budcore::bindings
