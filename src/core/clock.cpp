// SystemClock, VirtualClock and the shared system clock.
#include "budcore/core/clock.hpp"

#include <chrono>

namespace budcore::core {

Timestamp SystemClock::now() const {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return Timestamp::from_unix_nanos(std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count());
}

void VirtualClock::advance(Duration d) noexcept {
  if (d.count_ns() <= 0) return;
  std::int64_t current = ns_.load(std::memory_order_acquire);
  while (!ns_.compare_exchange_weak(current, (Timestamp::from_unix_nanos(current) + d).unix_nanos(),
                                    std::memory_order_acq_rel, std::memory_order_acquire)) {
  }
}

bool VirtualClock::set(Timestamp t) noexcept {
  const std::int64_t target = t.unix_nanos();
  std::int64_t current = ns_.load(std::memory_order_acquire);
  while (current < target) {
    if (ns_.compare_exchange_weak(current, target, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
  }
  return current == target;
}

std::shared_ptr<Clock> system_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

}  // namespace budcore::core
