// C ABI over budcore::serverless: the trace replay of `budcore serverless simulate`.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/replay.hpp"
#include "budcore/serverless/trace.hpp"
#include "capi_internal.hpp"
#include "replay_options.hpp"

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace serverless = budcore::serverless;

// The policy list as make_policies reads it: "all", "a,b", or ["a", "b"] joined by commas.
core::Result<std::string> policies_of(std::string_view text) {
  if (text.empty()) return std::string("queue_depth");
  static constexpr std::array<std::string_view, 1> kKeys = {"policies"};
  auto doc = capi::options_object(text, kKeys);
  if (!doc) return std::move(doc).error();
  const core::Value* v = doc->find("policies");
  if (v == nullptr) return std::string("queue_depth");
  if (auto st = capi::check_policy_list(*v, "options.policies"); !st) return st.error();
  if (v->is_string()) return v->as_string();
  std::string joined;
  for (std::size_t i = 0; i < v->as_list().size(); ++i) joined += (i == 0 ? "" : ",") + v->as_list()[i].as_string();
  return joined;
}

}  // namespace

extern "C" int budcore_serverless_simulate(budcore_buf* out, const char* endpoint_doc, size_t endpoint_len,
                                           const char* trace_csv, size_t trace_len, const char* options_json,
                                           size_t options_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view endpoint_text, trace_text, options_text;
    if (!capi::input_text(endpoint_doc, endpoint_len, "endpoint_doc", endpoint_text)) return budcore_error_last()->code;
    if (!capi::input_text(trace_csv, trace_len, "trace_csv", trace_text)) return budcore_error_last()->code;
    if (!capi::input_text(options_json, options_len, "options_json", options_text)) return budcore_error_last()->code;
    auto doc = core::parse_document(endpoint_text);
    if (!doc) return capi::set_error(doc.error());
    auto endpoint = serverless::EndpointConfig::from_value(*doc);
    if (!endpoint) return capi::set_error(endpoint.error());
    auto trace = serverless::parse_azure_trace(trace_text, "trace_csv");
    if (!trace) return capi::set_error(trace.error());
    auto names = policies_of(options_text);
    if (!names) return capi::set_error(names.error());
    auto policies = serverless::make_policies(*names, *endpoint, "options.policies");
    if (!policies) return capi::set_error(policies.error());
    std::vector<serverless::ReplayReport> reports;
    for (auto& p : *policies) {
      auto r = serverless::replay(*endpoint, *trace, *p);
      if (!r) return capi::set_error(r.error());
      reports.push_back(std::move(*r));
    }
    return capi::fill_buf(out, core::to_json(serverless::reports_document(reports)));
  });
}
