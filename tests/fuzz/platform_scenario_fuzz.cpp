// libFuzzer: what-if scenarios. Scenario::parse must never crash or hang and errors name what
// is wrong; a small scenario that parses (a few jobs, a horizon of at most a day) also runs to
// the end without breaking the platform's invariants.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/platform/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore::platform;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = Scenario::parse(text);
  if (!s) {
    if (s.error().message.empty()) std::abort();
    return 0;
  }
  std::int64_t jobs = 0;
  for (const auto& j : s->jobs) jobs += j.count;
  if (jobs > 8 || !s->pipelines.empty() || !s->until_seconds || *s->until_seconds > 86400) return 0;
  auto out = simulate(*s);
  if (out && out->jobs.size() != static_cast<std::size_t>(jobs)) std::abort();
  if (!out && out.error().code == budcore::core::ErrorCode::Internal) std::abort();
  return 0;
}
