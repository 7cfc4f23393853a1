// budcore::serverless request traces in the Azure LLM inference trace format: a CSV with the
// header `TIMESTAMP,ContextTokens,GeneratedTokens` and one request per line,
// `2023-11-16 18:17:03.9799600,4808,10` (UTC, up to 9 fractional digits; tokens are
// non-negative integers). Lines must be in time order. Errors name the line and the column:
// field "<source>:<line>.<column>", the value as written and why; nothing is returned then.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/export.h"

namespace budcore::serverless {

struct TraceRequest {
  core::Timestamp at;
  std::int64_t context_tokens = 0;
  std::int64_t generated_tokens = 0;
};

BUDCORE_API core::Result<std::vector<TraceRequest>> parse_azure_trace(std::string_view text,
                                                                      std::string_view source = "trace");
// Reads the file (the source in errors is its path); "-" reads standard input.
BUDCORE_API core::Result<std::vector<TraceRequest>> load_azure_trace(const std::string& path);

}  // namespace budcore::serverless
