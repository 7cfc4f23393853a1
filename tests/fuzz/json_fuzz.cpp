// libFuzzer: parse_json must never crash or hang; whatever parses must survive a round trip
// through to_json (compact, indented, ascii-only) unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/core/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore::core;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = parse_json(text);
  if (!parsed) {
    if (parsed.error().code != ErrorCode::Invalid || parsed.error().message.empty()) std::abort();
    return 0;
  }
  JsonOptions pretty;
  pretty.indent = 2;
  JsonOptions ascii;
  ascii.ensure_ascii = true;
  for (const JsonOptions& options : {JsonOptions{}, pretty, ascii}) {
    std::string out = to_json(*parsed, options);
    auto again = parse_json(out);
    if (!again || !(*again == *parsed)) std::abort();
    if (to_json(*again, options) != out) std::abort();
  }
  return 0;
}
