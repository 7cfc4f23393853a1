// libFuzzer: `budcore schedule estimate` scenarios (contract 6). Parsing must never crash and an
// error must say why; a scenario that parses must simulate (or fail with a reason) within the
// cycle budget, and its output must be JSON that parses back. The admission engine's nomination
// memo must change nothing: the same scenario without it gives the same output or error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/schedule/estimate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace budcore;
  if (size > 64 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto in = schedule::parse_estimate(text);
  if (!in) {
    if (in.error().message.empty()) std::abort();
    return 0;
  }
  // Keep each run short: at most a ten-day horizon.
  if (in->horizon > core::Duration::hours(240)) in->horizon = core::Duration::hours(240);
  auto plain = *in;
  plain.engine_options.memoize_nominations = false;
  auto tl = schedule::Timeline::create(std::move(*in));
  auto reference = schedule::Timeline::create(std::move(plain));
  if (tl.has_value() != reference.has_value()) std::abort();
  if (!tl) {
    if (tl.error().message.empty() || tl.error().describe() != reference.error().describe()) std::abort();
    return 0;
  }
  if (schedule::to_json(tl->result(), {-1, true}) != schedule::to_json(reference->result(), {-1, true})) std::abort();
  auto out = core::parse_json(schedule::to_json(tl->result(), {-1, true}));
  if (!out || !out->is_map()) std::abort();
  for (const auto& j : tl->result().jobs)
    if (j.end < j.start) std::abort();
  return 0;
}
