// libFuzzer target: any input either fails to parse with an Invalid/Overflow error, or parses
// to a quantity whose canonical form parses back to the same value and prints identically.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "budcore/core/quantity.hpp"

using budcore::core::ErrorCode;
using budcore::core::Quantity;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = Quantity::parse(text);
  if (!q) {
    const ErrorCode code = q.error().code;
    if (code != ErrorCode::Invalid && code != ErrorCode::Overflow) std::abort();
    if (q.error().value != text) std::abort();
    return 0;
  }
  const std::string canonical = q->to_string();
  auto back = Quantity::parse(canonical);
  if (!back || *back != *q) std::abort();
  // The text depends on the format, which a re-parse may change ("312.5Ki" prints "320000",
  // which reads back as DecimalSI "320k", as in Kubernetes); in the original format it is stable.
  if (Quantity::from_nano(back->nano(), q->format()).to_string() != canonical) std::abort();
  // Canonical text never has a fraction.
  if (canonical.find('.') != std::string::npos) std::abort();
  // Exercise the rest of the API on the parsed value; none of it may crash or wrap.
  (void)q->value();
  (void)q->milli_value();
  (void)q->checked_add(*q);
  (void)q->checked_sub(q->negated());
  (void)q->checked_mul(-1024);
  return 0;
}
