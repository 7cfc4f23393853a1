// Backoff, circuit breaker and the retry decision. Deterministic: no global RNG, no wall clock.
#include "budcore/job/retry_policy.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "budcore/job/job.hpp"

namespace budcore::job {
namespace {

// SplitMix64 finalizer: a well-mixed 64-bit hash, enough for jitter.
constexpr std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) from the top 53 bits.
double unit_interval(std::uint64_t seed, int attempt) noexcept {
  std::uint64_t h = mix(seed ^ mix(static_cast<std::uint64_t>(attempt)));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

core::Error invalid(const char* field, std::string value, const char* why) {
  return core::Error::invalid(field, std::move(value), why);
}

std::string seconds_text(core::Duration d) { return d.to_string(); }

}  // namespace

core::Status BackoffPolicy::validate() const {
  if (base <= core::Duration()) return invalid("base", base.to_string(), "must be positive");
  if (!std::isfinite(factor) || factor < 1.0) {
    return invalid("factor", std::to_string(factor), "must be a finite number >= 1");
  }
  if (cap < base) return invalid("cap", cap.to_string(), "must not be shorter than base");
  if (!(jitter >= 0.0 && jitter <= 1.0)) return invalid("jitter", std::to_string(jitter), "must be in [0, 1]");
  return {};
}

core::Duration BackoffPolicy::delay(int attempt, std::uint64_t seed) const noexcept {
  attempt = std::max(attempt, 0);
  // In double: a huge attempt makes pow() return inf, which the cap then clamps.
  const double cap_ns = static_cast<double>(cap.count_ns());
  double ns = std::min(static_cast<double>(base.count_ns()) * std::pow(factor, attempt), cap_ns);
  if (std::isnan(ns)) return cap;  // an unvalidated NaN factor
  double j = std::clamp(jitter, 0.0, 1.0);
  if (j > 0.0) ns *= 1.0 - j * unit_interval(seed, attempt);
  // A cap near INT64_MAX rounds up to 2^63 in double, which does not convert back.
  if (ns >= cap_ns) return cap;
  return core::Duration::nanoseconds(static_cast<std::int64_t>(ns));
}

std::uint64_t jitter_seed(const core::Id& id) noexcept {
  std::uint64_t h = 0;
  for (std::uint8_t b : id.bytes()) h = mix(h ^ b);
  return h;
}

core::Status CircuitBreakerConfig::validate() const {
  if (failure_threshold < 1) {
    return invalid("failure_threshold", std::to_string(failure_threshold), "must be at least 1");
  }
  if (immediate_failure_window <= core::Duration()) {
    return invalid("immediate_failure_window", immediate_failure_window.to_string(), "must be positive");
  }
  if (cool_down <= core::Duration()) return invalid("cool_down", cool_down.to_string(), "must be positive");
  return {};
}

BreakerState CircuitBreaker::state(core::Timestamp now) const noexcept {
  if (!open_) return BreakerState::Closed;
  return now - opened_at_ >= config_.cool_down ? BreakerState::HalfOpen : BreakerState::Open;
}

bool CircuitBreaker::try_acquire(core::Timestamp now) noexcept {
  switch (state(now)) {
    case BreakerState::Closed: return true;
    case BreakerState::Open: return false;
    case BreakerState::HalfOpen:
      if (probe_in_flight_) return false;
      probe_in_flight_ = true;
      return true;
  }
  return false;
}

void CircuitBreaker::record_success() noexcept {
  open_ = false;
  probe_in_flight_ = false;
  consecutive_ = 0;
}

void CircuitBreaker::record_failure(core::Timestamp started_at, core::Timestamp failed_at) noexcept {
  const bool immediate = failed_at - started_at <= config_.immediate_failure_window;
  probe_in_flight_ = false;
  if (!immediate) {
    // The attempt got going: whatever broke it is not a crash loop.
    open_ = false;
    consecutive_ = 0;
    return;
  }
  ++consecutive_;
  // A failed half-open probe reopens at once; a closed breaker opens at the threshold.
  if (open_ || consecutive_ >= config_.failure_threshold) {
    open_ = true;
    opened_at_ = failed_at;
  }
}

std::optional<core::Timestamp> CircuitBreaker::reopens_at() const noexcept {
  if (!open_) return std::nullopt;
  return opened_at_ + config_.cool_down;
}

core::Status RetryPolicy::validate() const {
  if (auto st = backoff.validate(); !st) {
    core::Error e = st.error();
    return e.at("backoff");
  }
  if (auto st = breaker.validate(); !st) {
    core::Error e = st.error();
    return e.at("breaker");
  }
  return {};
}

RetryDecision RetryPolicy::decide(const Job& job, const CircuitBreaker& cb, core::Timestamp failed_at) const {
  RetryDecision d;
  if (job.retry_count >= job.max_retries) {
    d.reason = "retry budget exhausted: retry_count " + std::to_string(job.retry_count) + " of max_retries " +
               std::to_string(job.max_retries);
    return d;
  }
  const core::Duration wait = backoff.delay(static_cast<int>(std::min<std::int64_t>(job.retry_count, 1 << 20)),
                                            jitter_seed(job.id));
  d.retry = true;
  d.at = failed_at + wait;
  d.reason = "retry " + std::to_string(job.retry_count + 1) + " of " + std::to_string(job.max_retries) + " in " +
             seconds_text(wait);
  if (auto reopen = cb.reopens_at(); reopen && *reopen > d.at) {
    d.at = *reopen;
    d.reason += "; circuit breaker open after " + std::to_string(cb.consecutive_immediate_failures()) +
                " immediate failures, waiting for its cool-down until " + reopen->to_string();
  }
  return d;
}

}  // namespace budcore::job
