// budcore::core::Timestamp and Duration — UTC instants with nanosecond precision and signed
// spans. Parsing accepts RFC 3339 timestamps and both Go-style ("90s", "1h30m", "1.5h",
// "250ms") and ISO-8601 ("PT1H30M", "P1DT2H") durations.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "budcore/core/result.hpp"

namespace budcore::core {

namespace detail {
// Saturating int64 arithmetic: the inline operators below never wrap (and so never hit signed
// overflow UB); a result that does not fit sticks at the int64 limit of the right sign.
constexpr std::int64_t kInt64Max = INT64_MAX;
constexpr std::int64_t kInt64Min = INT64_MIN;
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kInt64Max : kInt64Min;
  return r;
}
constexpr std::int64_t saturating_sub(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? kInt64Max : kInt64Min;
  return r;
}
constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? kInt64Min : kInt64Max;
  return r;
}
}  // namespace detail

// A signed span of time in nanoseconds (range about +-292 years). Arithmetic saturates at
// Duration::min()/max() instead of wrapping; parse() reports overflow as an error.
class BUDCORE_API Duration {
 public:
  constexpr Duration() noexcept = default;
  static constexpr Duration nanoseconds(std::int64_t n) noexcept { return Duration(n); }
  static constexpr Duration microseconds(std::int64_t us) noexcept { return Duration(detail::saturating_mul(us, 1'000)); }
  static constexpr Duration milliseconds(std::int64_t ms) noexcept { return Duration(detail::saturating_mul(ms, 1'000'000)); }
  static constexpr Duration seconds(std::int64_t s) noexcept { return Duration(detail::saturating_mul(s, 1'000'000'000)); }
  static constexpr Duration minutes(std::int64_t m) noexcept { return seconds(detail::saturating_mul(m, 60)); }
  static constexpr Duration hours(std::int64_t h) noexcept { return seconds(detail::saturating_mul(h, 3600)); }
  static constexpr Duration max() noexcept { return Duration(detail::kInt64Max); }
  static constexpr Duration min() noexcept { return Duration(detail::kInt64Min); }

  // Go's time.ParseDuration, exactly: "90s", "1h30m", "-1.5h", "300ms", "2us"/"2µs"/"2μs",
  // "10ns", "0", "+5m"; a number needs a unit (except "0"); "" is an error.
  // Or ISO-8601 (upper or lower case, "." or "," before a fraction): "PT1H30M", "P2D",
  // "P1DT2H", "PT0.5S", "-PT1S", "P1W" (days are 24h, weeks 7 days; years and months are
  // rejected as ambiguous; only the last component may have a fraction).
  // Out-of-range values are ErrorCode::Overflow, malformed text ErrorCode::Invalid; the error's
  // value is the text and its field is empty (callers add the path with Error::at).
  static Result<Duration> parse(std::string_view text);
  // A number of seconds (fractions kept to the nanosecond) as a Duration; the one checked
  // conversion every double -> duration goes through. NaN, infinities and magnitudes beyond
  // the range (about 292 years, 9223372036 s) are ErrorCode::Invalid naming the value (field
  // empty: callers add it with Error::at). Never wraps, never saturates silently.
  static Result<Duration> from_seconds(double seconds);

  constexpr std::int64_t count_ns() const noexcept { return ns_; }
  constexpr std::int64_t whole_seconds() const noexcept { return ns_ / 1'000'000'000; }
  // Go-style canonical form: "1h30m0s", "1.5s", "250ms", "0s".
  std::string to_string() const;
  // ISO-8601 form: "PT1H30M", "PT0S", "-PT1.5S".
  std::string to_iso8601() const;

  // Saturating (see detail::saturating_add).
  friend constexpr Duration operator+(Duration a, Duration b) noexcept { return Duration(detail::saturating_add(a.ns_, b.ns_)); }
  friend constexpr Duration operator-(Duration a, Duration b) noexcept { return Duration(detail::saturating_sub(a.ns_, b.ns_)); }
  friend constexpr Duration operator-(Duration a) noexcept { return Duration(detail::saturating_sub(0, a.ns_)); }
  friend constexpr Duration operator*(Duration a, std::int64_t k) noexcept { return Duration(detail::saturating_mul(a.ns_, k)); }
  friend constexpr bool operator==(Duration a, Duration b) noexcept = default;
  friend constexpr auto operator<=>(Duration a, Duration b) noexcept = default;

 private:
  constexpr explicit Duration(std::int64_t ns) noexcept : ns_(ns) {}
  std::int64_t ns_ = 0;
};

class BUDCORE_API Timestamp {
 public:
  constexpr Timestamp() noexcept = default;  // the Unix epoch
  static constexpr Timestamp from_unix_nanos(std::int64_t ns) noexcept { return Timestamp(ns); }
  static constexpr Timestamp from_unix_seconds(std::int64_t s) noexcept { return Timestamp(detail::saturating_mul(s, 1'000'000'000)); }

  // RFC 3339: "2026-11-22T10:00:00Z", "2026-11-22T10:00:00.5+01:00", lower-case t/z, and a
  // space instead of T. The offset is applied; the result is UTC. Invalid dates (Feb 30),
  // hours > 23, leap seconds (:60), more than 9 fraction digits and missing offsets are
  // ErrorCode::Invalid; instants outside the int64 nanosecond range (years 1677..2262) are
  // ErrorCode::Overflow.
  static Result<Timestamp> parse(std::string_view text);

  constexpr std::int64_t unix_nanos() const noexcept { return ns_; }
  constexpr std::int64_t unix_seconds() const noexcept { return ns_ / 1'000'000'000 - (ns_ % 1'000'000'000 < 0); }
  // "2026-11-22T10:00:00Z", with fractional seconds only when non-zero ("...:00.25Z").
  std::string to_string() const;
  // Seconds since local midnight UTC (0..86399), for daily time windows.
  int seconds_of_day() const noexcept;

  // Saturating (see detail::saturating_add).
  friend constexpr Timestamp operator+(Timestamp t, Duration d) noexcept { return Timestamp(detail::saturating_add(t.ns_, d.count_ns())); }
  friend constexpr Timestamp operator-(Timestamp t, Duration d) noexcept { return Timestamp(detail::saturating_sub(t.ns_, d.count_ns())); }
  friend constexpr Duration operator-(Timestamp a, Timestamp b) noexcept { return Duration::nanoseconds(detail::saturating_sub(a.ns_, b.ns_)); }
  friend constexpr bool operator==(Timestamp a, Timestamp b) noexcept = default;
  friend constexpr auto operator<=>(Timestamp a, Timestamp b) noexcept = default;

 private:
  constexpr explicit Timestamp(std::int64_t ns) noexcept : ns_(ns) {}
  std::int64_t ns_ = 0;
};

// A daily wall-clock time "HH:MM" or "HH:MM:SS" (UTC), used by job time windows.
struct BUDCORE_API TimeOfDay {
  int seconds = 0;  // 0..86399
  // Two digits per field; hours 00..23 ("24:00" is rejected: use "00:00"), minutes and
  // seconds 00..59.
  static Result<TimeOfDay> parse(std::string_view text);
  std::string to_string() const;  // "22:00" (seconds shown only when non-zero)
  friend constexpr bool operator==(TimeOfDay, TimeOfDay) noexcept = default;
};

// A daily window [start, end) in UTC. A window whose end is before its start crosses midnight
// ("22:00"-"06:00" holds 23:00 and 05:00, not 12:00). A window whose start equals its end
// ("00:00"-"00:00", "08:00"-"08:00") is open the whole day.
struct BUDCORE_API TimeWindow {
  TimeOfDay start;
  TimeOfDay end;
  bool contains(Timestamp t) const noexcept;
  // The first instant >= t inside the window (t itself when already inside).
  Timestamp next_open(Timestamp t) const noexcept;
};

}  // namespace budcore::core
