// libFuzzer: quota scenarios (docs/cli.md contract 2), the document `quota simulate`, the C ABI
// and Python read. parse_scenario must never crash; an error names a field or says why; a
// scenario that parses and validates must simulate (a few cycles: cycles come from the input).
// The tests/quota/data files wrap their scenario as {"scenario": ..., "expected": ...}; the
// wrapper is unwrapped so they seed the fuzzer as they are.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore;
  std::string text(reinterpret_cast<const char*>(data), size);
  if (auto doc = core::parse_json(text); doc && doc->find("scenario") != nullptr) text = core::to_json(*doc->find("scenario"));
  auto scenario = quota::parse_scenario(text);
  if (!scenario) {
    if (scenario.error().message.empty()) std::abort();
    return 0;
  }
  if (!quota::validate(scenario->config)) return 0;
  if (!scenario->cycles || *scenario->cycles > 8) scenario->cycles = 8;
  auto result = quota::simulate(*scenario);
  if (result) (void)quota::to_json(*result, -1);
  return 0;
}
