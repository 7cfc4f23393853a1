// libFuzzer target: the Azure trace reader, the endpoint reader and the durable queue's
// submission and report readers either refuse an input with an Invalid error naming where, or
// read it; a trace that reads is in time order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/core/yaml.hpp"
#include "budcore/core/json.hpp"
#include "budcore/serverless/durable_queue.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/trace.hpp"

namespace serverless = budcore::serverless;
using budcore::core::ErrorCode;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto trace = serverless::parse_azure_trace(text, "trace");
  if (!trace) {
    if (trace.error().code != ErrorCode::Invalid || trace.error().field.empty()) std::abort();
  } else {
    for (std::size_t i = 1; i < trace->size(); ++i)
      if ((*trace)[i].at < (*trace)[i - 1].at) std::abort();
  }
  if (auto json = budcore::core::parse_json(text)) {
    auto subs = serverless::submissions_from_value(*json, "submissions");
    if (!subs && (subs.error().code != ErrorCode::Invalid || subs.error().field.empty())) std::abort();
    auto reports = serverless::reports_from_value(*json, "reports");
    if (!reports && (reports.error().code != ErrorCode::Invalid || reports.error().field.empty())) std::abort();
  }
  auto doc = budcore::core::parse_document(text);
  if (!doc) return 0;
  auto endpoint = serverless::EndpointConfig::from_value(*doc);
  if (!endpoint && endpoint.error().code != ErrorCode::Invalid) std::abort();
  return 0;
}
