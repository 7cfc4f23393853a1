// budcore::core::Clock — every engine takes time from a Clock, so tests and simulations can
// run a day in milliseconds on a VirtualClock and always the same way.
#pragma once

#include <atomic>
#include <memory>

#include "budcore/core/time.hpp"

namespace budcore::core {

class BUDCORE_API Clock {
 public:
  virtual ~Clock() = default;
  virtual Timestamp now() const = 0;
};

// Wall-clock UTC time.
class BUDCORE_API SystemClock final : public Clock {
 public:
  Timestamp now() const override;
};

// Time that only moves when told to, and never backwards. Thread-safe: now(), advance() and
// set() may race.
class BUDCORE_API VirtualClock final : public Clock {
 public:
  explicit VirtualClock(Timestamp start = Timestamp::from_unix_seconds(1'767'225'600))  // 2026-01-01T00:00:00Z
      : ns_(start.unix_nanos()) {}
  Timestamp now() const override { return Timestamp::from_unix_nanos(ns_.load(std::memory_order_acquire)); }
  // Moves forward by d. A negative d is ignored (the clock never goes backwards); the time
  // saturates at the largest Timestamp instead of wrapping.
  void advance(Duration d) noexcept;
  // Moves to t; a clock never goes backwards, so an earlier t is ignored (returns false).
  // Setting the current time again returns true.
  bool set(Timestamp t) noexcept;

 private:
  std::atomic<std::int64_t> ns_;
};

// The process-wide SystemClock (one shared instance).
BUDCORE_API std::shared_ptr<Clock> system_clock();

}  // namespace budcore::core
