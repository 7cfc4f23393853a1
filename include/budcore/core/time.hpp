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

class BUDCORE_API Duration {
 public:
  constexpr Duration() noexcept = default;
  static constexpr Duration nanoseconds(std::int64_t n) noexcept { return Duration(n); }
  static constexpr Duration seconds(std::int64_t s) noexcept { return Duration(s * 1'000'000'000); }
  static constexpr Duration minutes(std::int64_t m) noexcept { return seconds(m * 60); }
  static constexpr Duration hours(std::int64_t h) noexcept { return seconds(h * 3600); }
  static constexpr Duration milliseconds(std::int64_t ms) noexcept { return Duration(ms * 1'000'000); }

  // "90s", "1h30m", "-1.5h", "300ms", "2us"/"2µs", "10ns", "0"; or ISO-8601 "PT1H30M", "P2D",
  // "PT0.5S" (days are 24h; years and months are rejected as ambiguous). Overflow is an error.
  static Result<Duration> parse(std::string_view text);

  constexpr std::int64_t count_ns() const noexcept { return ns_; }
  constexpr std::int64_t whole_seconds() const noexcept { return ns_ / 1'000'000'000; }
  // Go-style canonical form: "1h30m0s", "1.5s", "250ms", "0s".
  std::string to_string() const;
  // ISO-8601 form: "PT1H30M", "PT0S", "-PT1.5S".
  std::string to_iso8601() const;

  friend constexpr Duration operator+(Duration a, Duration b) noexcept { return Duration(a.ns_ + b.ns_); }
  friend constexpr Duration operator-(Duration a, Duration b) noexcept { return Duration(a.ns_ - b.ns_); }
  friend constexpr Duration operator*(Duration a, std::int64_t k) noexcept { return Duration(a.ns_ * k); }
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
  static constexpr Timestamp from_unix_seconds(std::int64_t s) noexcept { return Timestamp(s * 1'000'000'000); }

  // RFC 3339: "2026-11-22T10:00:00Z", "2026-11-22T10:00:00.5+01:00", lower-case t/z, and a
  // space instead of T. The offset is applied; the result is UTC. Invalid dates (Feb 30),
  // hours > 23 and missing offsets are errors.
  static Result<Timestamp> parse(std::string_view text);

  constexpr std::int64_t unix_nanos() const noexcept { return ns_; }
  constexpr std::int64_t unix_seconds() const noexcept { return ns_ / 1'000'000'000 - (ns_ % 1'000'000'000 < 0); }
  // "2026-11-22T10:00:00Z", with fractional seconds only when non-zero ("...:00.25Z").
  std::string to_string() const;
  // Seconds since local midnight UTC (0..86399), for daily time windows.
  int seconds_of_day() const noexcept;

  friend constexpr Timestamp operator+(Timestamp t, Duration d) noexcept { return Timestamp(t.ns_ + d.count_ns()); }
  friend constexpr Timestamp operator-(Timestamp t, Duration d) noexcept { return Timestamp(t.ns_ - d.count_ns()); }
  friend constexpr Duration operator-(Timestamp a, Timestamp b) noexcept { return Duration::nanoseconds(a.ns_ - b.ns_); }
  friend constexpr bool operator==(Timestamp a, Timestamp b) noexcept = default;
  friend constexpr auto operator<=>(Timestamp a, Timestamp b) noexcept = default;

 private:
  constexpr explicit Timestamp(std::int64_t ns) noexcept : ns_(ns) {}
  std::int64_t ns_ = 0;
};

// A daily wall-clock time "HH:MM" or "HH:MM:SS" (UTC), used by job time windows.
struct BUDCORE_API TimeOfDay {
  int seconds = 0;  // 0..86399
  static Result<TimeOfDay> parse(std::string_view text);
  std::string to_string() const;  // "22:00" (seconds shown only when non-zero)
  friend constexpr bool operator==(TimeOfDay, TimeOfDay) noexcept = default;
};

// A daily window [start, end). A window whose end is not after its start crosses midnight
// ("22:00"-"06:00" holds 23:00 and 05:00, not 12:00).
struct BUDCORE_API TimeWindow {
  TimeOfDay start;
  TimeOfDay end;
  bool contains(Timestamp t) const noexcept;
  // The first instant >= t inside the window (t itself when already inside).
  Timestamp next_open(Timestamp t) const noexcept;
};

}  // namespace budcore::core
