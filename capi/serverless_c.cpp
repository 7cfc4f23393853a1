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

// The options object: "policies" ("all", "a,b", or ["a", "b"] joined by commas; default
// queue_depth) and "until_scaled_down" (a boolean).
struct SimulateOptions {
  std::string policies = "queue_depth";
  serverless::ReplayOptions replay;
};

core::Result<SimulateOptions> simulate_options(std::string_view text) {
  SimulateOptions out;
  if (text.empty()) return out;
  static constexpr std::array<std::string_view, 2> kKeys = {"policies", "until_scaled_down"};
  auto doc = capi::options_object(text, kKeys);
  if (!doc) return std::move(doc).error();
  if (const core::Value* v = doc->find("policies")) {
    if (auto st = capi::check_policy_list(*v, "options.policies"); !st) return st.error();
    if (v->is_string()) {
      out.policies = v->as_string();
    } else {
      out.policies.clear();
      for (std::size_t i = 0; i < v->as_list().size(); ++i) out.policies += (i == 0 ? "" : ",") + v->as_list()[i].as_string();
    }
  }
  if (const core::Value* v = doc->find("until_scaled_down")) {
    if (!v->is_bool()) return core::Error::invalid("options.until_scaled_down", core::to_json(*v), "must be true or false");
    out.replay.until_scaled_down = v->as_bool();
  }
  return out;
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
    auto options = simulate_options(options_text);
    if (!options) return capi::set_error(options.error());
    auto policies = serverless::make_policies(options->policies, *endpoint, "options.policies");
    if (!policies) return capi::set_error(policies.error());
    auto reports = serverless::replay_all(*endpoint, *trace, *policies, options->replay);
    if (!reports) return capi::set_error(reports.error());
    return capi::fill_buf(out, core::to_json(serverless::reports_document(*reports)));
  });
}
