// libFuzzer: component documents (YAML/JSON; one component or a list). Loading never crashes
// and an error says what is wrong; what loads writes out and reads back equal, and a registry
// is changed all or nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/usecase/registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = usecase::parse_usecase_document(text);
  if (!doc) return 0;
  usecase::ComponentRegistry registry;
  auto st = registry.add_document(*doc);
  if (!st) {
    if (st.error().message.empty() || registry.size() != 0) std::abort();
    return 0;
  }
  for (const auto* c : registry.all()) {
    auto again = usecase::ComponentDefinition::from_value(c->to_value());
    if (!again || !(*again == *c)) std::abort();
  }
  return 0;
}
