// libFuzzer: stored use-case deployment records (the documents Platform::deploy_usecase keeps in
// the platform records). Reading never crashes and an error says what is wrong; what reads
// writes out and reads back equal, and its derived status never crashes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/usecase/deployment.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore;
  if (size > (1u << 20)) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = core::parse_json(text);
  if (!doc) return 0;
  auto record = usecase::DeploymentRecord::from_value(*doc);
  if (!record) {
    if (record.error().message.empty()) std::abort();
    return 0;
  }
  auto again = usecase::DeploymentRecord::from_value(record->to_value());
  if (!again || !(*again == *record)) std::abort();
  (void)record->derive_status();
  (void)record->begin_teardown();
  return 0;
}
