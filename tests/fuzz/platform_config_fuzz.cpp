// libFuzzer: platform config documents (YAML or JSON). PlatformConfig::parse must never crash
// or hang; an error names what is wrong; a config that parses validates.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/platform/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = budcore::platform::PlatformConfig::parse(text);
  if (!config) {
    if (config.error().message.empty()) std::abort();
    return 0;
  }
  if (!config->validate()) std::abort();
  return 0;
}
