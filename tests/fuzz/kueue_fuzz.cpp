// libFuzzer: Kueue objects (YAML or JSON). import_kueue_yaml must never crash; an error names
// the field; an imported configuration must export and import again to the same configuration,
// for both API versions.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "budcore/quota/kueue_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore::quota;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto imported = import_kueue_yaml(text);
  if (!imported) {
    if (imported.error().message.empty()) std::abort();
    return 0;
  }
  std::string json = config_to_json(imported->config);
  for (auto version : {KueueApiVersion::V1beta1, KueueApiVersion::V1beta2}) {
    auto back = import_kueue_yaml(export_kueue_yaml(imported->config, version));
    if (!back || config_to_json(back->config) != json) std::abort();
  }
  return 0;
}
