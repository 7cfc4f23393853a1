// Retry policy for failed jobs: exponential backoff with deterministic jitter, and a circuit
// breaker that stops a job that keeps failing right after it starts (the "infinite retry
// loop" of production-scenarios 13.2). Everything takes time as a Timestamp from a
// core::Clock, and jitter comes from a seed, so a simulation replays identically.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "budcore/core/clock.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/export.h"
#include "budcore/job/fwd.hpp"

namespace budcore::job {

// delay(n) = min(cap, base * factor^n) * (1 - jitter * u(seed, n)), u uniform in [0, 1).
// n is the 0-based retry number (the delay before retry n+1). jitter = 0 gives the plain
// exponential sequence; jitter = 1 is "full jitter" (anywhere in [0, capped delay)). Jitter
// only shortens a delay, so cap is a true upper bound.
struct BUDCORE_API BackoffPolicy {
  core::Duration base = core::Duration::seconds(10);
  double factor = 2.0;
  core::Duration cap = core::Duration::minutes(10);
  double jitter = 0.0;

  // base > 0, factor >= 1 and finite, cap >= base, 0 <= jitter <= 1.
  core::Status validate() const;
  // Negative attempts count as 0. Never overflows: the exponential saturates at cap.
  core::Duration delay(int attempt, std::uint64_t seed = 0) const noexcept;
};

// A stable per-job jitter seed (a hash of the id's bytes).
BUDCORE_API std::uint64_t jitter_seed(const core::Id& id) noexcept;

enum class BreakerState : std::uint8_t {
  Closed,    // attempts allowed
  Open,      // attempts refused until the cool-down ends
  HalfOpen,  // cool-down over: one probe attempt allowed
};
BUDCORE_API std::string_view to_string(BreakerState s) noexcept;

struct BUDCORE_API CircuitBreakerConfig {
  int failure_threshold = 3;  // consecutive immediate failures that open the breaker
  // A failure within this long of the attempt's start is "immediate" (crash loop, bad image).
  core::Duration immediate_failure_window = core::Duration::seconds(60);
  core::Duration cool_down = core::Duration::minutes(10);

  // failure_threshold >= 1, window > 0, cool_down > 0.
  core::Status validate() const;
};

// Closed --N consecutive immediate failures--> Open --cool_down--> HalfOpen
// HalfOpen --probe succeeds or fails late--> Closed;  HalfOpen --probe fails immediately--> Open
// A success, or a failure after the window (the job did start), resets the count.
// Not thread-safe: one breaker belongs to one job (or one job template) and its owner.
class BUDCORE_API CircuitBreaker {
 public:
  explicit CircuitBreaker(CircuitBreakerConfig config = {}) : config_(config) {}

  const CircuitBreakerConfig& config() const noexcept { return config_; }
  BreakerState state(core::Timestamp now) const noexcept;
  BreakerState state(const core::Clock& clock) const { return state(clock.now()); }

  // May an attempt start now? Closed: yes. Open: no. HalfOpen: yes for the first caller (the
  // probe) and no for others until the probe's outcome is recorded.
  bool try_acquire(core::Timestamp now) noexcept;
  bool try_acquire(const core::Clock& clock) { return try_acquire(clock.now()); }

  void record_success() noexcept;
  // An attempt that started at `started_at` failed at `failed_at`.
  void record_failure(core::Timestamp started_at, core::Timestamp failed_at) noexcept;

  int consecutive_immediate_failures() const noexcept { return consecutive_; }
  // While open: when the breaker half-opens.
  std::optional<core::Timestamp> reopens_at() const noexcept;

 private:
  CircuitBreakerConfig config_;
  int consecutive_ = 0;
  bool open_ = false;
  bool probe_in_flight_ = false;
  core::Timestamp opened_at_;
};

// What to do after a job failed.
struct RetryDecision {
  bool retry = false;
  core::Timestamp at;  // when to retry (meaningful when retry)
  std::string reason;  // why not, or "retry 2 of 3 in 40s"
};

// Combines the job's retry budget (retry_count / max_retries), the backoff and the breaker.
struct BUDCORE_API RetryPolicy {
  BackoffPolicy backoff;
  CircuitBreakerConfig breaker;

  core::Status validate() const;
  // For a FAILED job whose failure is already recorded in `breaker`: no retry when the budget
  // is spent (retry_count >= max_retries); otherwise retry at failed_at + delay(retry_count,
  // jitter_seed(job.id)), or when the breaker half-opens if it is open and that is later.
  RetryDecision decide(const Job& job, const CircuitBreaker& breaker, core::Timestamp failed_at) const;
};

}  // namespace budcore::job
