#include "budcore/platform/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace budcore::platform {

std::int64_t& SubmitRateLimiter::bucket(const core::Id& tenant, std::int64_t now_ns) {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = std::hash<core::Id>{}(tenant) & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.used && s.tenant == tenant) return s.tat;
    if (!s.used) {
      if (2 * (size_ + 1) > slots_.size()) {
        grow();
        return bucket(tenant, now_ns);
      }
      s.used = true;
      s.tenant = tenant;
      s.tat = now_ns;
      ++size_;
      return s.tat;
    }
  }
}

void SubmitRateLimiter::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.used) continue;
    std::size_t i = std::hash<core::Id>{}(s.tenant) & mask;
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

SubmitRateLimiter::Decision SubmitRateLimiter::acquire(const core::Id& tenant, const Limit& limit, std::int64_t n,
                                                       std::int64_t now_ns) {
  return decide(bucket(tenant, now_ns), limit, n, now_ns);
}

SubmitRateLimiter::Decision SubmitRateLimiter::decide(std::int64_t& tat, const Limit& limit, std::int64_t n,
                                                      std::int64_t now_ns) {
  // One token every `interval` ns; the bucket holds `burst` of them (tolerance = burst intervals).
  // Clamped to the config's bounds, so that no product below can overflow.
  const double rate = std::clamp(limit.per_second, 1e-3, 1e9);
  const std::int64_t interval = std::max<std::int64_t>(1, std::llround(1e9 / rate));
  const std::int64_t burst = std::min<std::int64_t>(
      kMaxBurst, limit.burst > 0 ? limit.burst : std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(rate))));
  if (n > burst) return Decision{false, -1};
  const std::int64_t tolerance = burst * interval;
  const std::int64_t next = std::max(tat, now_ns) + n * interval;
  if (next - now_ns > tolerance) return Decision{false, next - now_ns - tolerance};
  tat = next;
  return Decision{true, 0};
}

}  // namespace budcore::platform
