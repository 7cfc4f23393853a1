// libFuzzer: parse_yaml / parse_yaml_all must never crash or hang (aliases and nesting are
// capped); whatever parses must read back equal from to_yaml, and to_json must not choke.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore::core;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto all = parse_yaml_all(text);
  auto one = parse_yaml(text);
  if (!one) {
    if (one.error().code != ErrorCode::Invalid || one.error().message.empty()) std::abort();
    return 0;
  }
  if (!all) std::abort();  // a stream that parses as one document parses as a stream too
  std::string yaml = to_yaml(*one);
  auto again = parse_yaml(yaml);
  if (!again || !(*again == *one)) std::abort();
  (void)to_json(*one);
  return 0;
}
