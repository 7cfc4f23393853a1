// budcore._core.PlatformHandle over budcore::platform::Platform (python/budcore/platform.py
// wraps it in budcore.Platform with typed results). Every call names its caller (tenant UUID,
// principal, request id), releases the GIL while the platform works, and raises the
// budcore.Error subclass of a failure.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/platform/platform_json.hpp"
#include "budcore/platform/scenario.hpp"
#include "budcore/platform/serverless_endpoint.hpp"
#include "budcore/serverless/durable_queue.hpp"
#include "budcore/usecase/usecase_template.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"
#include "stored_job.hpp"

namespace budcore::bindings {
namespace {

// A job of a batch, with or without its idempotency key.
using BatchJobs = py::typing::List<Hinted<"Job | dict[str, builtins.object] | tuple[Job | dict[str, builtins.object], str | None]">>;
using TemplateRef = Hinted<"str | dict[str, builtins.object]">;  // an id, id@version or a template dict

class PyPlatform {
 public:
  explicit PyPlatform(std::unique_ptr<platform::Platform> p) : p_(std::move(p)) {}
  std::shared_ptr<platform::Platform> get() const {
    if (!p_) throw PyError(core::Error::make(core::ErrorCode::Invalid, "the platform is closed", "platform"));
    return p_;
  }
  void close() { p_.reset(); }
  bool closed() const { return !p_; }

 private:
  std::shared_ptr<platform::Platform> p_;
};

platform::CallContext caller(const IdArg& tenant, const std::string& principal, const std::string& request_id) {
  return platform::CallContext::for_tenant(id_of(tenant, "tenant"), principal, request_id);
}

template <class F>
auto call(PyPlatform& h, F&& f) {
  std::shared_ptr<platform::Platform> p = h.get();
  auto r = [&] {
    py::gil_scoped_release release;
    return f(*p);
  }();
  return unwrap(std::move(r));
}

// A budcore.Job or a dict; errors of an item of a batch are named "jobs[i].<field>".
job::Job job_of(const py::handle& obj, const std::string& path = {}) {
  if (py::isinstance<job::Job>(obj)) return obj.cast<job::Job>();
  core::Value v = to_value(obj, path.empty() ? "job" : path);
  auto j = job::Job::from_value(v);
  if (!j && !path.empty()) throw PyError(core::Error(j.error()).at(path));
  return unwrap(std::move(j));
}

PyPlatform open(const JsonDocArg& config) {
  core::Result<platform::PlatformConfig> c = core::Error{};
  if (py::isinstance<py::dict>(config)) {
    c = platform::PlatformConfig::from_value(to_value(config, "config"));
  } else {
    std::string text = config.cast<std::string>();
    py::gil_scoped_release release;
    c = platform::PlatformConfig::parse(text);
  }
  platform::PlatformConfig cfg = unwrap(std::move(c));
  core::Result<std::unique_ptr<platform::Platform>> p = [&] {
    py::gil_scoped_release release;
    return platform::Platform::open(std::move(cfg));
  }();
  return PyPlatform(unwrap(std::move(p)));
}

PyPlatform open_embedded(const std::string& dir) {
  core::Result<std::unique_ptr<platform::Platform>> p = [&] {
    py::gil_scoped_release release;
    return platform::Platform::open_embedded(dir);
  }();
  return PyPlatform(unwrap(std::move(p)));
}


// A serverless endpoint whose workers are jobs on a platform (budcore.serverless.PlatformEndpoint
// wraps it). It keeps the platform alive; one Python thread drives it at a time.
class PyEndpoint {
 public:
  PyEndpoint(std::shared_ptr<platform::Platform> p, std::unique_ptr<platform::ServerlessEndpoint> e)
      : p_(std::move(p)), e_(std::move(e)) {}
  template <class F>
  auto with(F&& f) {
    auto r = [&] {
      py::gil_scoped_release release;
      return f(*e_);
    }();
    return unwrap(std::move(r));
  }

 private:
  std::shared_ptr<platform::Platform> p_;
  std::unique_ptr<platform::ServerlessEndpoint> e_;
};

core::Value assignments_value(const std::vector<serverless::Assignment>& as) {
  core::List list;
  for (const auto& a : as)
    list.push_back(core::Value::map({{"request", static_cast<long long>(a.request)},
                                     {"worker", static_cast<long long>(a.worker)},
                                     {"placement", a.placement == serverless::Placement::Warm ? "warm" : "preempted"},
                                     {"preempted", static_cast<long long>(a.preempted)}}));
  return core::Value(std::move(list));
}

PyEndpoint open_endpoint(PyPlatform& h, platform::CallContext ctx, const JsonDocArg& endpoint_doc,
                         const std::string& worker_priority, const std::string& image) {
  core::Value doc = py::isinstance<py::str>(endpoint_doc) ? unwrap(core::parse_document(endpoint_doc.cast<std::string>()))
                                                          : to_value(endpoint_doc, "endpoint");
  platform::EndpointOptions o;
  auto prio = job::parse_job_priority(worker_priority);
  if (!prio) throw PyError(core::Error(prio.error()).at("worker_priority"));
  o.worker_priority = *prio;
  o.image = image;
  std::shared_ptr<platform::Platform> p = h.get();
  auto config = unwrap(serverless::EndpointConfig::from_value(doc));
  return PyEndpoint(p, unwrap(platform::ServerlessEndpoint::open(*p, std::move(ctx), std::move(config), std::move(o))));
}

void bind_endpoint(py::module_& m) {
  py::class_<PyEndpoint>(m, "ServerlessEndpointHandle", "The C++ ServerlessEndpoint; use budcore.serverless.PlatformEndpoint.")
      .def(
          "scale",
          [](PyEndpoint& e, std::optional<int> desired) {
            return hinted<JsonDict>(to_python(e.with([&](platform::ServerlessEndpoint& ep) -> core::Result<core::Value> {
              BUDCORE_TRY(ep.sync());
              if (desired) BUDCORE_TRY(ep.scale_to(*desired));
              return ep.status().to_value();
            })));
          },
          py::arg("desired"), "Reads the workers' jobs, then scales to `desired` (None: only reads); returns the status.")
      .def(
          "enqueue",
          [](PyEndpoint& e, const JsonDictListArg& submissions) {
            core::Value doc = to_value(submissions, "submissions");
            return hinted<JsonDict>(to_python(e.with([&](platform::ServerlessEndpoint& ep) -> core::Result<core::Value> {
              BUDCORE_TRY_ASSIGN(auto subs, serverless::submissions_from_value(doc, "submissions"));
              core::List results;
              for (const auto& s : subs) results.push_back(serverless::to_value(ep.enqueue(s)));
              BUDCORE_TRY_ASSIGN(auto placed, ep.dispatch());
              return core::Value::map({{"results", core::Value(std::move(results))}, {"assignments", assignments_value(placed)}});
            })));
          },
          py::arg("submissions"), "Admits submissions and places what can run now: {'results', 'assignments'}.")
      .def(
          "finish",
          [](PyEndpoint& e, std::uint64_t request, const std::string& reason) {
            return hinted<JsonDict>(to_python(e.with([&](platform::ServerlessEndpoint& ep) -> core::Result<core::Value> {
              BUDCORE_TRY(reason.empty() ? ep.complete(request) : ep.fail(request, reason));
              BUDCORE_TRY_ASSIGN(auto placed, ep.dispatch());
              return core::Value::map({{"assignments", assignments_value(placed)}});
            })));
          },
          py::arg("request"), py::arg("reason") = "", "Ends a request (a failed attempt with a reason); places what can run now.")
      .def(
          "meter",
          [](PyEndpoint& e) {
            return hinted<JsonDictList>(to_python(e.with([&](platform::ServerlessEndpoint& ep) -> core::Result<core::Value> {
              BUDCORE_TRY_ASSIGN(auto rows, ep.meter());
              core::List list;
              for (const auto& u : rows) list.push_back(u.to_value());
              return core::Value(std::move(list));
            })));
          },
          "Writes the workers' GPU time since their last rows as usage rows; returns them.");
}

}  // namespace

void bind_platform(py::module_& m) {
  bind_endpoint(m);
  using Ctx = const std::string&;
  py::class_<PyPlatform>(m, "PlatformHandle", "The C++ Platform; use budcore.Platform.")
      .def_property_readonly("closed", &PyPlatform::closed, "True after close().")
      .def("close", &PyPlatform::close, "Closes the platform and its store; later calls raise.")
      .def("now", [](PyPlatform& h) { return h.get()->now().to_string(); }, "The platform clock's time, RFC 3339.")
      .def(
          "submit",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const JobArg& job,
             const std::optional<std::string>& key) {
            auto ctx = caller(tenant, principal, request);
            const std::string k = idempotency_key_of(key);
            if (py::isinstance<job::Job>(job)) {
              job::Job j = job.cast<job::Job>();
              auto r = call(h, [&](platform::Platform& p) { return p.submit(ctx, std::move(j), k); });
              return StoredJob{std::move(r.record), r.created};
            }
            // A document is decoded by the platform (a malformed one takes its submit tokens too).
            core::Value doc = to_value(job, "job");
            auto r = call(h, [&](platform::Platform& p) { return p.submit_document(ctx, doc, k); });
            return StoredJob{std::move(r.record), r.created};
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("job"), py::arg("idempotency_key"), "Submits a job for the caller (tenant, principal, request id); returns the StoredJob.")
      .def(
          "submit_batch",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const BatchJobs& jobs) {
            auto ctx = caller(tenant, principal, request);
            // Documents, decoded by the platform (a malformed one takes its submit tokens too).
            std::vector<std::pair<core::Value, std::string>> docs;
            for (std::size_t i = 0; i < jobs.size(); ++i) {
              py::handle item = jobs[i];
              const std::string path = "jobs[" + std::to_string(i) + "]";
              py::handle job = item;
              std::string key;
              if (py::isinstance<py::tuple>(item)) {
                auto t = item.cast<py::tuple>();
                job = t[0];
                if (!t[1].is_none()) {
                  if (!py::isinstance<py::str>(t[1]))
                    throw py::type_error(path + ": the idempotency key must be a str or None, not " +
                                         py::type::handle_of(t[1]).attr("__name__").cast<std::string>());
                  std::string text;
                  try {
                    text = t[1].cast<std::string>();
                  } catch (const py::cast_error&) {  // a lone surrogate has no UTF-8 form
                    throw py::type_error(path + ": the idempotency key is not valid Unicode text");
                  }
                  key = idempotency_key_of(text, path + ".idempotency_key");
                }
              }
              core::Value doc = py::isinstance<job::Job>(job) ? job.cast<job::Job>().to_value() : to_value(job, path);
              docs.emplace_back(std::move(doc), std::move(key));
            }
            auto results = call(h, [&](platform::Platform& p) { return p.submit_batch_documents(ctx, docs); });
            std::vector<StoredJob> out;
            for (auto& r : results) out.push_back(StoredJob{std::move(r.record), r.created});
            return out;
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("jobs"), "Submits jobs as one batch, all or none; returns their StoredJobs.")
      .def(
          "get",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const IdArg& id) {
            auto ctx = caller(tenant, principal, request);
            core::Id i = id_of(id, "id");
            return StoredJob{call(h, [&](platform::Platform& p) { return p.get_job(ctx, i); }), false};
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("id"), "The caller's job by id; NotFoundError for another tenant's.")
      .def(
          "jobs",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const py::dict& query) {
            auto ctx = caller(tenant, principal, request);
            auto q = unwrap(backend::parse_job_query(to_value(query, "query")));
            auto page = call(h, [&](platform::Platform& p) { return p.list_jobs(ctx, q.filter, q.page); });
            return hinted<JsonDict>(to_python(backend::to_value(page)));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("query"), "A page of the caller's jobs: {'items', 'next_cursor'}.")
      .def(
          "schedule",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request) {
            auto ctx = caller(tenant, principal, request);
            return hinted<ScheduleSnapshotResult>(schedule_snapshot(call(h, [&](platform::Platform& p) { return p.schedule(ctx); })));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"),
          "The timeline of the caller's waiting and running jobs (a ScheduleSnapshot; job names are job ids).")
      .def(
          "act",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const std::string& verb,
             const IdArg& id, const std::string& arg) {
            auto ctx = caller(tenant, principal, request);
            core::Id i = id_of(id, "id");
            auto rec = call(h, [&](platform::Platform& p) -> core::Result<backend::JobRecord> {
              if (verb == "cancel") return p.cancel_job(ctx, i, arg);
              if (verb == "retry") return p.retry_job(ctx, i);
              if (verb == "preempt") return p.preempt_job(ctx, i, arg);
              if (verb == "priority") {
                auto pr = job::parse_job_priority(arg);
                if (!pr) return core::Error(pr.error()).at("priority");
                return p.set_priority(ctx, i, *pr);
              }
              return core::Error::invalid("verb", verb, "unknown operation");
            });
            return StoredJob{std::move(rec), false};
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("verb"), py::arg("id"), py::arg("arg"), "Applies `verb` ('cancel', 'retry', 'priority', 'preempt') to a job with `arg` (reason or priority).")
      .def(
          "events",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, std::int64_t since, std::size_t limit) {
            auto ctx = caller(tenant, principal, request);
            auto page = call(h, [&](platform::Platform& p) { return p.watch(ctx, since, limit); });
            return hinted<JsonDict>(to_python(platform::to_value(page)));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("since"), py::arg("limit"), "The caller's events after `since`, at most `limit`: {'events', 'last_seq'}.")
      .def(
          "run_pipeline",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const JsonDictArg& doc,
             const OptionalJsonDictArg& params) {
            auto ctx = caller(tenant, principal, request);
            core::Value d = to_value(doc, "document");
            core::Value pa = params.is_none() ? core::Value() : to_value(params, "params");
            auto run = call(h, [&](platform::Platform& p) { return p.run_pipeline(ctx, d, pa); });
            return hinted<JsonDict>(to_python(run.to_value()));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("document"), py::arg("params"), "Starts a pipeline run for the caller; returns the run record.")
      .def(
          "pipeline_run",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const IdArg& id, bool cancel,
             const std::string& reason) {
            auto ctx = caller(tenant, principal, request);
            core::Id i = id_of(id, "id");
            auto run = call(h, [&](platform::Platform& p) {
              return cancel ? p.cancel_pipeline_run(ctx, i, reason.empty() ? "cancelled" : reason) : p.get_pipeline_run(ctx, i);
            });
            return hinted<JsonDict>(to_python(run.to_value()));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("id"), py::arg("cancel"), py::arg("reason"), "A pipeline run of the caller's (cancelled first when `cancel`).")
      .def(
          "gpu_defrag",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const IdArg& id) {
            auto ctx = caller(tenant, principal, request);
            core::Id i = id_of(id, "id");
            auto doc = call(h, [&](platform::Platform& p) { return p.gpu_defrag(ctx, i); });
            return hinted<JsonDict>(to_python(doc));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("id"), "The cheapest defragmentation plan for a job of the caller's that waits for placement (advice): {'plan', 'applied'}.")
      .def(
          "gpu_defrag_apply",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const IdArg& id, const OptionalJsonDictArg& plan) {
            auto ctx = caller(tenant, principal, request);
            core::Id i = id_of(id, "id");
            core::Value given = plan.is_none() ? core::Value() : to_value(plan, "plan");
            auto doc = call(h, [&](platform::Platform& p) { return p.gpu_defrag_apply(ctx, i, given); });
            return hinted<JsonDict>(to_python(doc));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("id"), py::arg("plan"), "Applies the defragmentation plan for a job of the caller's that waits for placement (the plan given, refused when stale, or None: the plan made now): {'plan', 'applied': True}.")
      .def(
          "serverless_endpoint",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const JsonDocArg& endpoint,
             Ctx worker_priority, Ctx image) {
            return open_endpoint(h, caller(tenant, principal, request), endpoint, worker_priority, image);
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("endpoint"),
          py::arg("worker_priority") = "high", py::arg("image") = "",
          "Opens a serverless endpoint whose warm workers are the tenant's SERVICE jobs.")
      .def("pump", [](PyPlatform& h) { call(h, [](platform::Platform& p) { return p.pump(); }); }, "Acts on everything due now (cluster events, retries, pipeline steps).")
      .def(
          "run",
          [](PyPlatform& h, std::optional<double> seconds) {
            if (seconds && (*seconds < 0 || *seconds > 366.0 * 86400))
              throw PyError(core::Error::invalid("seconds", std::to_string(*seconds), "must be between 0 and a year"));
            call(h, [&](platform::Platform& p) -> core::Status {
              if (!seconds) {
                auto r = p.run_until_idle();
                if (!r) return r.error();
                return {};
              }
              return p.run_until(p.now() + core::Duration::nanoseconds(static_cast<std::int64_t>(*seconds * 1e9)));
            });
            return h.get()->now().to_string();
          },
          py::arg("seconds"), "Moves a virtual clock `seconds` forward (None: until idle); returns the new time.")
      .def("ha_status", [](PyPlatform& h) {
        auto p = h.get();
        auto s = [&] {
          py::gil_scoped_release release;
          return p->ha_status();
        }();
        if (!s) throw PyError(s.error());
        return hinted<JsonDict>(to_python(platform::to_value(*s)));
      }, "This replica's view of the election: {'role', 'replica', 'epoch', 'lease', 'replicas'}.")
      .def("metrics", [](PyPlatform& h) {
        auto p = h.get();
        py::gil_scoped_release release;
        return p->metrics();
      }, "Prometheus text exposition of the platform's metrics (an operator call).")
      .def("cluster", [](PyPlatform& h) {
        auto p = h.get();
        platform::ClusterSnapshot s;
        std::vector<platform::GpuFlavorReport> gpu;
        {
          py::gil_scoped_release release;
          s = p->cluster();
          gpu = p->gpu_report();
        }
        return hinted<JsonDict>(to_python(platform::to_value(s, gpu)));
      }, "What the cluster holds and the quota it uses (an operator call).")
      .def(
          "cluster_view",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request) {
            auto ctx = caller(tenant, principal, request);
            std::vector<platform::GpuFlavorReport> gpu;
            auto view = call(h, [&](platform::Platform& p) -> core::Result<platform::ClusterSnapshot> {
              auto v = p.cluster(ctx);
              if (v) gpu = p.gpu_report();
              return v;
            });
            return hinted<JsonDict>(to_python(platform::to_value(view, gpu)));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"),
          "The cluster as the caller sees it: its tenant's runs by id, other tenants' runs hidden.")
      .def("check", [](PyPlatform& h) { call(h, [](platform::Platform& p) { return p.check_invariants(); }); }, "Checks the platform's invariants against its store and cluster; raises on a violation.")
      // ---- security (budcore.Platform.bind_role / unbind_role / role_bindings / audit / verify_audit)
      .def(
          "bind_role",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const JsonDictArg& binding,
             bool grant) -> std::optional<JsonDict> {
            auto ctx = caller(tenant, principal, request);
            auto b = unwrap(platform::parse_role_binding(to_value(binding, "binding")));
            if (!grant) {
              call(h, [&](platform::Platform& p) { return p.unbind_role(ctx, b); });
              return std::nullopt;
            }
            auto rec = call(h, [&](platform::Platform& p) { return p.bind_role(ctx, b); });
            return hinted<JsonDict>(to_python(backend::to_value(rec)));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("binding"), py::arg("grant"), "Grants (or with grant=False revokes) a role binding; returns the binding.")
      .def(
          "role_bindings",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, std::optional<std::string> of) {
            auto ctx = caller(tenant, principal, request);
            auto list = call(h, [&](platform::Platform& p) { return p.list_role_bindings(ctx, of); });
            return hinted<JsonDict>(to_python(platform::to_value(list)));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("of"), "The tenant's role bindings (of one principal when `of`).")
      .def(
          "audit",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const OptionalJsonDictArg& query) {
            auto ctx = caller(tenant, principal, request);
            auto q = unwrap(platform::parse_audit_query(query.is_none() ? core::Value() : to_value(query, "query")));
            auto page = call(h, [&](platform::Platform& p) { return p.list_audit(ctx, q.query, q.page); });
            return hinted<JsonDict>(to_python(backend::to_value(page)));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("query"), "A page of the tenant's audit log: {'items', 'next_cursor'}.")
      .def(
          "verify_audit",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const std::vector<std::string>& anchors) {
            auto ctx = caller(tenant, principal, request);
            auto report = call(h, [&](platform::Platform& p) { return p.verify_audit(ctx, anchors); });
            return hinted<JsonDict>(to_python(backend::to_value(report)));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("anchors") = std::vector<std::string>{},
          "Checks every tenant's audit chain, and that each anchor (an entry hash kept outside the store) is still chained: {'ok', 'entries', 'head_hash', 'heads', 'problems', ...}.")
      .def(
          "compact",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request) {
            auto ctx = caller(tenant, principal, request);
            auto report = call(h, [&](platform::Platform& p) { return p.compact(ctx); });
            return hinted<JsonDict>(to_python(backend::to_value(report)));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"),
          "Compacts the store now by the config's retention: {'events_removed', 'audit_removed', 'usage_removed', 'checkpoints'}.")
      // ---- use-case deployments (budcore.usecases.deploy / deployment / deployments / teardown)
      .def(
          "deploy_usecase",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const TemplateRef& tmpl,
             const OptionalJsonDictArg& params) {
            auto ctx = caller(tenant, principal, request);
            core::Value pa = params.is_none() ? core::Value(core::Map{}) : to_value(params, "parameters");
            if (py::isinstance<py::str>(tmpl)) {
              std::string ref = tmpl.cast<std::string>();
              auto d = call(h, [&](platform::Platform& p) { return p.deploy_usecase(ctx, ref, pa); });
              return hinted<JsonDict>(to_python(d.to_value()));
            }
            auto t = unwrap(usecase::UseCaseTemplate::from_value(to_value(tmpl, "template")));
            auto d = call(h, [&](platform::Platform& p) { return p.deploy_usecase(ctx, t, pa); });
            return hinted<JsonDict>(to_python(d.to_value()));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("template"), py::arg("params"), "Deploys a use-case template (id, id@version or a template dict) with parameters.")
      .def(
          "usecase_deployment",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request, const IdArg& id, bool teardown) {
            auto ctx = caller(tenant, principal, request);
            core::Id i = id_of(id, "id");
            auto d = call(h, [&](platform::Platform& p) {
              return teardown ? p.teardown_deployment(ctx, i) : p.get_deployment(ctx, i);
            });
            return hinted<JsonDict>(to_python(d.to_value()));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), py::arg("id"), py::arg("teardown"), "A deployment record of the caller's (torn down first when `teardown`).")
      .def(
          "usecase_deployments",
          [](PyPlatform& h, const IdArg& tenant, Ctx principal, Ctx request) {
            auto ctx = caller(tenant, principal, request);
            auto list = call(h, [&](platform::Platform& p) { return p.list_deployments(ctx); });
            core::List items;
            for (const auto& d : list) items.push_back(d.to_value());
            return hinted<JsonDictList>(to_python(core::Value(std::move(items))));
          },
          py::arg("tenant"), py::arg("principal"), py::arg("request_id"), "The caller tenant's deployment records, oldest first.");

  m.def("platform_open", &open, py::arg("config"), "Open a platform from a config (dict, YAML or JSON text).");
  m.def("platform_open_embedded", &open_embedded, py::arg("dir"), "Open the embedded platform in a directory.");
  m.def(
      "platform_simulate",
      [](const JsonDocArg& scenario, const std::string& base_dir) {
        core::Result<platform::Scenario> s = core::Error{};
        if (py::isinstance<py::dict>(scenario)) {
          s = platform::Scenario::from_value(to_value(scenario, "scenario"), base_dir);
        } else {
          std::string text = scenario.cast<std::string>();
          s = platform::Scenario::parse(text, base_dir);
        }
        platform::Scenario sc = unwrap(std::move(s));
        core::Result<platform::ScenarioOutcome> out = [&] {
          py::gil_scoped_release release;
          return platform::simulate(sc);
        }();
        platform::ScenarioOutcome o = unwrap(std::move(out));
        JsonDict d = hinted<JsonDict>(to_python(o.to_value()));
        d["table"] = o.table();
        d["metrics"] = o.metrics;
        return d;
      },
      py::arg("scenario"), py::arg("base_dir") = "",
      "Run a what-if scenario (dict or YAML/JSON text); returns the outcome as a dict.");
}

}  // namespace budcore::bindings
