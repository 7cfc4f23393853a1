#include "budcore/platform/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace budcore::platform {

SubmitRateLimiter::Decision SubmitRateLimiter::acquire(const core::Id& tenant, const Limit& limit, std::int64_t n,
                                                       std::int64_t now_ns) {
  // One token every `interval` ns; the bucket holds `burst` of them (tolerance = burst intervals).
  // Clamped to the config's bounds, so that no product below can overflow.
  const double rate = std::clamp(limit.per_second, 1e-3, 1e9);
  const std::int64_t interval = std::max<std::int64_t>(1, std::llround(1e9 / rate));
  const std::int64_t burst = std::min<std::int64_t>(
      kMaxBurst, limit.burst > 0 ? limit.burst : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(rate))));
  if (n > burst) return Decision{false, -1};
  const std::int64_t tolerance = burst * interval;
  std::int64_t& tat = buckets_.try_emplace(tenant, now_ns).first->second;
  const std::int64_t next = std::max(tat, now_ns) + n * interval;
  if (next - now_ns > tolerance) return Decision{false, next - now_ns - tolerance};
  tat = next;
  return Decision{true, 0};
}

}  // namespace budcore::platform
