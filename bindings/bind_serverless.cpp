// The serverless layer for Python (budcore.serverless wraps it): the trace replay of
// `budcore serverless simulate`, through the library's endpoint reader, trace reader and policy
// list, so Python sees the same results and error paths as the CLI and the C ABI. The replay
// releases the GIL.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/replay.hpp"
#include "budcore/serverless/trace.hpp"
#include "casters.hpp"
#include "errors.hpp"

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

py::object simulate(const py::object& endpoint_doc, const std::string& trace_csv, const std::string& policies,
                    const std::string& trace_source) {
  Value doc = endpoint_of(endpoint_doc);
  core::Result<Value> out = [&]() -> core::Result<Value> {
    py::gil_scoped_release release;
    auto endpoint = serverless::EndpointConfig::from_value(doc);
    if (!endpoint) return std::move(endpoint).error();
    auto trace = serverless::parse_azure_trace(trace_csv, trace_source);
    if (!trace) return std::move(trace).error();
    auto made = serverless::make_policies(policies, *endpoint, "policy");
    if (!made) return std::move(made).error();
    std::vector<serverless::ReplayReport> reports;
    for (auto& p : *made) {
      auto r = serverless::replay(*endpoint, *trace, *p);
      if (!r) return std::move(r).error();
      reports.push_back(std::move(*r));
    }
    return serverless::reports_document(reports);
  }();
  return to_python(unwrap(std::move(out)));
}

}  // namespace

void bind_serverless(py::module_& m) {
  std::vector<std::string> names(std::begin(serverless::kPolicyNames), std::end(serverless::kPolicyNames));
  m.attr("SERVERLESS_POLICY_NAMES") = py::tuple(py::cast(names));
  m.def("serverless_simulate", &simulate, py::arg("endpoint"), py::arg("trace_csv"),
        py::arg("policies") = "queue_depth", py::arg("trace_source") = "trace",
        "Replay a request trace (Azure LLM inference CSV text) through an endpoint (dict or JSON/YAML text) under "
        "autoscaling policies ('all', a name, or names separated by commas): {reports}, as "
        "`budcore serverless simulate --format json`.");
}

}  // namespace budcore::bindings
