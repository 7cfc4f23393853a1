// The serverless layer for Python (budcore.serverless wraps it): the trace replay of
// `budcore serverless simulate`, through the library's endpoint reader, trace reader and policy
// list, so Python sees the same results and error paths as the CLI and the C ABI; and the
// durable request queue over a budcore.Store (docs/serverless.md "Durable queue"). The replay
// and the store calls release the GIL.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "budcore/backend/queue_backend.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/serverless/durable_queue.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/replay.hpp"
#include "budcore/serverless/trace.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"
#include "store_handle.hpp"

namespace budcore::bindings {
namespace {

using core::Value;

// A dict, or JSON/YAML text.
Value endpoint_of(const py::handle& obj) {
  if (py::isinstance<py::str>(obj)) return unwrap(core::parse_document(obj.cast<std::string>()));
  if (!py::isinstance<py::dict>(obj))
    throw py::type_error("endpoint must be a dict or JSON/YAML text, not " +
                         py::type::handle_of(obj).attr("__name__").cast<std::string>());
  return to_value(obj, "endpoint");
}

JsonDict simulate(const JsonDocArg& endpoint_doc, const std::string& trace_csv, const std::string& policies,
                    const std::string& trace_source, bool until_scaled_down) {
  Value doc = endpoint_of(endpoint_doc);
  core::Result<Value> out = [&]() -> core::Result<Value> {
    py::gil_scoped_release release;
    auto endpoint = serverless::EndpointConfig::from_value(doc);
    if (!endpoint) return std::move(endpoint).error();
    auto trace = serverless::parse_azure_trace(trace_csv, trace_source);
    if (!trace) return std::move(trace).error();
    auto made = serverless::make_policies(policies, *endpoint, "policy");
    if (!made) return std::move(made).error();
    serverless::ReplayOptions options;
    options.until_scaled_down = until_scaled_down;
    auto reports = serverless::replay_all(*endpoint, *trace, *made, options);
    if (!reports) return std::move(reports).error();
    return serverless::reports_document(*reports);
  }();
  return hinted<JsonDict>(to_python(unwrap(std::move(out))));
}

// ---- the durable queue: each call opens a DurableQueue over the store for its tenant ----

template <class F>
auto without_gil(F&& f) {
  auto r = [&] {
    py::gil_scoped_release release;
    return f();
  }();
  return unwrap(std::move(r));
}

JsonDictList queue_enqueue(PyStore& s, const IdArg& tenant, const JsonDocArg& endpoint_doc,
                           const JsonDictListArg& submissions) {
  core::Id t = id_of(tenant, "tenant");
  Value doc = endpoint_of(endpoint_doc);
  Value subs_doc = to_value(submissions, "submissions");
  std::shared_ptr<backend::Store> st = s.store();
  Value out = without_gil([&]() -> core::Result<Value> {
    BUDCORE_TRY_ASSIGN(auto endpoint, serverless::EndpointConfig::from_value(doc));
    BUDCORE_TRY_ASSIGN(auto subs, serverless::submissions_from_value(subs_doc, "submissions"));
    backend::StoreQueueBackend backend(st, t);
    serverless::DurableQueue q(std::move(endpoint), backend, core::system_clock());
    BUDCORE_TRY_ASSIGN(auto results, q.enqueue(subs));
    core::List list;
    for (const auto& r : results) list.push_back(serverless::to_value(r));
    return Value(std::move(list));
  });
  return hinted<JsonDictList>(to_python(out));
}

Value requests_value(const std::vector<serverless::DurableRequest>& rows) {
  core::List list;
  for (const auto& r : rows) list.push_back(serverless::to_value(r));
  return Value(std::move(list));
}

JsonDictList queue_claim(PyStore& s, const IdArg& tenant, const std::string& endpoint, const std::string& worker,
                       std::int64_t max, double lease_seconds) {
  core::Id t = id_of(tenant, "tenant");
  auto lease = core::Duration::from_seconds(lease_seconds);
  if (!lease || *lease <= core::Duration())
    throw PyError(core::Error::invalid("lease_seconds", core::format_json_float(lease_seconds), "must be a positive number of seconds"));
  std::shared_ptr<backend::Store> st = s.store();
  auto rows = without_gil([&] { return st->claim_serverless_requests(t, endpoint, worker, max, *lease); });
  return hinted<JsonDictList>(to_python(requests_value(rows)));
}

JsonDictList queue_finish(PyStore& s, const IdArg& tenant, const JsonDictListArg& reports) {
  core::Id t = id_of(tenant, "tenant");
  Value doc = to_value(reports, "reports");
  std::shared_ptr<backend::Store> st = s.store();
  Value out = without_gil([&]() -> core::Result<Value> {
    BUDCORE_TRY_ASSIGN(auto rs, serverless::reports_from_value(doc, "reports"));
    BUDCORE_TRY_ASSIGN(auto done, st->finish_serverless_requests(t, rs));
    core::List list;
    for (const auto& f : done)
      list.push_back(Value::map({{"id", f.id}, {"ok", f.ok}, {"status", std::string(serverless::to_string(f.status))}}));
    return Value(std::move(list));
  });
  return hinted<JsonDictList>(to_python(out));
}

JsonDict queue_status(PyStore& s, const IdArg& tenant, const std::string& endpoint) {
  core::Id t = id_of(tenant, "tenant");
  std::shared_ptr<backend::Store> st = s.store();
  auto c = without_gil([&] { return st->count_serverless_requests(t, endpoint); });
  return hinted<JsonDict>(to_python(serverless::to_value(c)));
}

JsonDictList queue_list(PyStore& s, const IdArg& tenant, const std::string& endpoint,
                      const std::vector<std::string>& statuses, std::int64_t after, std::int64_t limit) {
  core::Id t = id_of(tenant, "tenant");
  std::vector<serverless::QueueStatus> sts;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    auto st = serverless::parse_queue_status(statuses[i]);
    if (!st) {
      core::Error e = st.error();
      e.field = "statuses[" + std::to_string(i) + "]";
      throw PyError(e);
    }
    sts.push_back(*st);
  }
  if (limit < 1 || limit > 10'000) throw PyError(core::Error::invalid("limit", std::to_string(limit), "must be in [1, 10000]"));
  std::shared_ptr<backend::Store> st = s.store();
  auto rows = without_gil([&] { return st->list_serverless_requests(t, endpoint, sts, after, limit); });
  return hinted<JsonDictList>(to_python(requests_value(rows)));
}

}  // namespace

void bind_serverless(py::module_& m) {
  m.def(
      "serverless_endpoint_name",
      [](const JsonDocArg& endpoint_doc) {
        Value doc = endpoint_of(endpoint_doc);
        return unwrap(serverless::EndpointConfig::from_value(doc)).name;
      },
      py::arg("endpoint"), "The name of an endpoint (dict or JSON/YAML text), after checking the whole document.");
  m.def("serverless_queue_enqueue", &queue_enqueue, py::arg("store"), py::arg("tenant"), py::arg("endpoint"),
        py::arg("submissions"),
        "Admit, score and store a list of submissions ({tenant, payload_hash, payload_size_bytes, "
        "estimated_compute_seconds, priority}) for an endpoint (dict or JSON/YAML text) in one transaction: a list of "
        "{id, deduplicated} or {id: 0, refusal, error}.");
  m.def("serverless_queue_claim", &queue_claim, py::arg("store"), py::arg("tenant"), py::arg("endpoint"),
        py::arg("worker"), py::arg("max"), py::arg("lease_seconds"),
        "Claim up to max pending requests of the endpoint (by name) for worker, by score, each leased: a list of requests.");
  m.def("serverless_queue_finish", &queue_finish, py::arg("store"), py::arg("tenant"), py::arg("reports"),
        "Apply reports ({id, claim, outcome: start|renew|complete|fail, reason, lease_seconds}) in one transaction: "
        "a list of {id, ok, status}.");
  m.def("serverless_queue_status", &queue_status, py::arg("store"), py::arg("tenant"), py::arg("endpoint"),
        "The endpoint's counts: {pending, in_flight, completed, failed, timeout, tenant_active}.");
  m.def("serverless_queue_list", &queue_list, py::arg("store"), py::arg("tenant"), py::arg("endpoint"),
        py::arg("statuses") = std::vector<std::string>{}, py::arg("after") = 0, py::arg("limit") = 1000,
        "The endpoint's requests by id (of the given statuses; any when empty).");
  std::vector<std::string> names(std::begin(serverless::kPolicyNames), std::end(serverless::kPolicyNames));
  m.attr("SERVERLESS_POLICY_NAMES") = py::tuple(py::cast(names));
  m.def("serverless_simulate", &simulate, py::arg("endpoint"), py::arg("trace_csv"),
        py::arg("policies") = "queue_depth", py::arg("trace_source") = "trace", py::arg("until_scaled_down") = false,
        "Replay a request trace (Azure LLM inference CSV text) through an endpoint (dict or JSON/YAML text) under "
        "autoscaling policies ('all', a name, or names separated by commas): {reports}, as "
        "`budcore serverless simulate --format json`; until_scaled_down runs on after the last request until the "
        "pool is down to its minimum.");
}

}  // namespace budcore::bindings
