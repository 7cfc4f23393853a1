// Duration (Go and ISO-8601 forms), Timestamp (RFC 3339), TimeOfDay and TimeWindow.
#include "budcore/core/time.hpp"

#include <array>
#include <cmath>
#include <chrono>
#include <cstdio>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "core/ascii.hpp"
#include "core/civil.hpp"

namespace budcore::core {
namespace {

constexpr std::uint64_t kTwo63 = std::uint64_t{1} << 63;  // |Duration::min()|
constexpr std::int64_t kNanosPerSecond = 1'000'000'000;
constexpr std::int64_t kSecondsPerDay = 86'400;

// Exact ISO-8601 arithmetic needs more than 64 bits (a fraction of a week in ns).
__extension__ typedef unsigned __int128 Uint128;

using detail::is_digit;
char to_upper(char c) noexcept { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

std::string quoted(std::string_view s) {
  std::string out = "\"";
  out += s;
  out += '"';
  return out;
}

Error invalid_duration(std::string_view text, std::string why) {
  return Error::invalid({}, std::string(text), "invalid duration: " + std::move(why));
}

Error duration_overflow(std::string_view text) {
  return Error{ErrorCode::Overflow,
               "duration out of range: it must fit in +-2562047h47m16.854775807s (int64 nanoseconds)", {},
               std::string(text)};
}

// Applies the sign to a magnitude known to be <= 2^63.
Duration signed_duration(std::uint64_t magnitude, bool negative) noexcept {
  if (negative) {
    return magnitude == kTwo63 ? Duration::min()
                               : Duration::nanoseconds(-static_cast<std::int64_t>(magnitude));
  }
  return Duration::nanoseconds(static_cast<std::int64_t>(magnitude));
}

// ---- Go's time.ParseDuration -------------------------------------------------------------

struct GoUnit {
  std::string_view name;
  std::uint64_t ns;
};
constexpr std::array<GoUnit, 8> kGoUnits{{
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1'000},  // U+03BC Greek small letter mu
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
}};

Result<Duration> parse_go(std::string_view text, std::string_view s, bool negative) {
  if (s == "0") return Duration{};
  if (s.empty()) return invalid_duration(text, text.empty() ? "empty text" : "a sign must be followed by a number");
  std::uint64_t total = 0;
  while (!s.empty()) {
    if (s[0] != '.' && !is_digit(s[0])) {
      return invalid_duration(text, "expected a number at " + quoted(s) + " (e.g. 90s, 1h30m, 1.5h)");
    }
    // Integer part: overflow is an error, as in Go's leadingInt.
    std::uint64_t whole = 0;
    std::size_t i = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (whole > kTwo63 / 10) return duration_overflow(text);
      whole = whole * 10 + static_cast<std::uint64_t>(s[i] - '0');
      if (whole > kTwo63) return duration_overflow(text);
    }
    const bool has_whole = i > 0;
    s.remove_prefix(i);
    // Fraction: digits past 63 bits of precision are consumed and ignored (Go's leadingFraction).
    std::uint64_t frac = 0;
    double scale = 1.0;
    bool has_frac = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool saturated = false;
      std::size_t j = 0;
      for (; j < s.size() && is_digit(s[j]); ++j) {
        if (saturated) continue;
        if (frac > (kTwo63 - 1) / 10) {
          saturated = true;
          continue;
        }
        const std::uint64_t next = frac * 10 + static_cast<std::uint64_t>(s[j] - '0');
        if (next > kTwo63) {
          saturated = true;
          continue;
        }
        frac = next;
        scale *= 10;
      }
      has_frac = j > 0;
      s.remove_prefix(j);
    }
    if (!has_whole && !has_frac) return invalid_duration(text, "'.' must be next to a digit");
    std::size_t unit_len = 0;
    while (unit_len < s.size() && s[unit_len] != '.' && !is_digit(s[unit_len])) ++unit_len;
    if (unit_len == 0) {
      return invalid_duration(text, "missing unit after the number (units: ns, us, µs, ms, s, m, h; only \"0\" may omit it)");
    }
    const std::string_view unit_name = s.substr(0, unit_len);
    s.remove_prefix(unit_len);
    std::uint64_t unit = 0;
    for (const GoUnit& u : kGoUnits) {
      if (u.name == unit_name) unit = u.ns;
    }
    if (unit == 0) {
      std::string why = "unknown unit " + quoted(unit_name) + " (units: ns, us, µs, ms, s, m, h)";
      if (unit_name == "d" || unit_name == "D") why += "; write days as 24h or in ISO-8601 as P1D";
      return invalid_duration(text, std::move(why));
    }
    if (whole > kTwo63 / unit) return duration_overflow(text);
    std::uint64_t value = whole * unit;
    if (frac > 0) {
      // Go computes the fractional part in float64; doing the same keeps results identical.
      // frac < scale, so the product is below `unit` and the conversion is in range.
      value += static_cast<std::uint64_t>(static_cast<double>(frac) * (static_cast<double>(unit) / scale));
      if (value > kTwo63) return duration_overflow(text);
    }
    if (value > kTwo63 - total) return duration_overflow(text);
    total += value;
  }
  if (!negative && total > kTwo63 - 1) return duration_overflow(text);
  return signed_duration(total, negative);
}

// ---- ISO-8601 durations ------------------------------------------------------------------

struct IsoComponent {
  int rank;  // order in which components must appear
  std::uint64_t ns;
};

constexpr std::uint64_t kNsPerDay = 86'400'000'000'000;

Result<Duration> parse_iso(std::string_view text, std::string_view s, bool negative) {
  s.remove_prefix(1);  // 'P'
  if (s.empty()) return invalid_duration(text, "'P' must be followed by at least one component (e.g. PT1H, P1D)");
  bool in_time = false;
  bool saw_component = false;
  bool saw_fraction = false;
  int last_rank = -1;
  Uint128 total = 0;
  while (!s.empty()) {
    if (to_upper(s[0]) == 'T') {
      if (in_time) return invalid_duration(text, "'T' may appear only once");
      in_time = true;
      s.remove_prefix(1);
      if (s.empty() || to_upper(s[0]) == 'T') {
        return invalid_duration(text, "'T' must be followed by hours, minutes or seconds (e.g. PT30M)");
      }
      continue;
    }
    if (saw_fraction) return invalid_duration(text, "only the last component may have a fraction");
    std::uint64_t whole = 0;
    std::size_t i = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (whole > kTwo63 / 10) return duration_overflow(text);
      whole = whole * 10 + static_cast<std::uint64_t>(s[i] - '0');
    }
    if (i == 0) return invalid_duration(text, "expected a number at " + quoted(s));
    s.remove_prefix(i);
    // Up to 18 fraction digits are exact; later ones are below a nanosecond and truncated.
    std::uint64_t frac = 0;
    std::uint64_t frac_scale = 1;
    if (!s.empty() && (s[0] == '.' || s[0] == ',')) {
      s.remove_prefix(1);
      std::size_t j = 0;
      for (; j < s.size() && is_digit(s[j]); ++j) {
        if (j < 18) {
          frac = frac * 10 + static_cast<std::uint64_t>(s[j] - '0');
          frac_scale *= 10;
        }
      }
      if (j == 0) return invalid_duration(text, "a decimal separator must be followed by digits");
      s.remove_prefix(j);
      saw_fraction = true;
    }
    if (s.empty()) return invalid_duration(text, "missing designator after the last number (D, H, M, S, ...)");
    const char designator = to_upper(s[0]);
    s.remove_prefix(1);
    IsoComponent component{};
    if (!in_time) {
      switch (designator) {
        case 'Y': return invalid_duration(text, "years are ambiguous (365 or 366 days); use days, e.g. P365D");
        case 'M': return invalid_duration(text, "months are ambiguous (28 to 31 days); use days, e.g. P30D (minutes are PT1M)");
        case 'W': component = {0, 7 * kNsPerDay}; break;
        case 'D': component = {1, kNsPerDay}; break;
        case 'H':
        case 'S':
          return invalid_duration(text, std::string("'") + designator + "' belongs after 'T' (e.g. PT1H, PT30S)");
        default:
          return invalid_duration(text, std::string("unknown designator '") + designator + "' (use W, D, then T and H, M, S)");
      }
    } else {
      switch (designator) {
        case 'H': component = {2, 3'600'000'000'000}; break;
        case 'M': component = {3, 60'000'000'000}; break;
        case 'S': component = {4, 1'000'000'000}; break;
        case 'W':
        case 'D':
          return invalid_duration(text, std::string("'") + designator + "' belongs before 'T' (e.g. P1DT2H)");
        default:
          return invalid_duration(text, std::string("unknown designator '") + designator + "' after 'T' (use H, M, S)");
      }
    }
    if (component.rank <= last_rank) {
      return invalid_duration(text, "components must appear once each, in the order W, D, T, H, M, S");
    }
    last_rank = component.rank;
    saw_component = true;
    total += static_cast<Uint128>(whole) * component.ns + static_cast<Uint128>(frac) * component.ns / frac_scale;
    if (total > kTwo63) return duration_overflow(text);
  }
  if (!saw_component) return invalid_duration(text, "no components");
  if (!negative && total > kTwo63 - 1) return duration_overflow(text);
  return signed_duration(static_cast<std::uint64_t>(total), negative);
}

// ---- formatting helpers ------------------------------------------------------------------

// Writes the `digits` low decimal digits of v as a fraction ".25" (trailing zeros dropped, nothing
// at all when they are zero) in front of `w` in buf; returns v without those digits.
std::uint64_t write_fraction(char* buf, int& w, std::uint64_t v, int digits) {
  bool print = false;
  for (int i = 0; i < digits; ++i) {
    const auto digit = static_cast<char>(v % 10);
    print = print || digit != 0;
    if (print) buf[--w] = static_cast<char>('0' + digit);
    v /= 10;
  }
  if (print) buf[--w] = '.';
  return v;
}

void write_int(char* buf, int& w, std::uint64_t v) {
  if (v == 0) {
    buf[--w] = '0';
    return;
  }
  while (v > 0) {
    buf[--w] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
}

std::uint64_t magnitude(std::int64_t ns) noexcept {
  return ns < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
}

// ".25" for 250000000 ns, "" for 0.
std::string nanos_fraction(std::uint64_t nanos) {
  char buf[16];
  int w = 16;
  write_fraction(buf, w, nanos, 9);
  return std::string(buf + w, buf + 16);
}

using detail::floor_div;
std::int64_t floor_mod(std::int64_t a, std::int64_t b) noexcept {
  const std::int64_t r = a % b;
  return r < 0 ? r + b : r;
}

// ---- RFC 3339 parsing ----------------------------------------------------------------------

class Rfc3339Reader {
 public:
  explicit Rfc3339Reader(std::string_view text) : text_(text) {}
  bool number(std::size_t width, int& out) {
    if (pos_ + width > text_.size()) return false;
    int v = 0;
    for (std::size_t i = 0; i < width; ++i) {
      const char c = text_[pos_ + i];
      if (!is_digit(c)) return false;
      v = v * 10 + (c - '0');
    }
    out = v;
    pos_ += width;
    return true;
  }
  bool literal(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool at_end() const noexcept { return pos_ >= text_.size(); }
  char peek() const noexcept { return at_end() ? '\0' : text_[pos_]; }
  void skip() noexcept { ++pos_; }
  std::string_view rest() const noexcept { return text_.substr(pos_); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

Error invalid_timestamp(std::string_view text, std::string why) {
  return Error::invalid({}, std::string(text), "invalid RFC 3339 timestamp: " + std::move(why));
}

std::string two_digits(int v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

}  // namespace

// ---- Duration ------------------------------------------------------------------------------

Result<Duration> Duration::from_seconds(double seconds) {
  auto ns = checked_cast<std::int64_t>(seconds * 1e9);
  if (!std::isfinite(seconds) || !ns) {
    return Error::invalid({}, format_json_float(seconds),
                          "is not a duration budcore can represent (at most 9223372036 seconds, about 292 years)");
  }
  return Duration(*ns);
}

Result<Duration> Duration::parse(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (!s.empty() && to_upper(s[0]) == 'P') return parse_iso(text, s, negative);
  return parse_go(text, s, negative);
}

std::string Duration::to_string() const {
  // Mirrors Go's Duration.String: below one second the largest unit that keeps the integer part
  // non-zero (ns, µs, ms) with a fraction; otherwise h, m and s with a fractional second.
  char buf[32];
  int w = 32;
  std::uint64_t u = magnitude(ns_);
  if (u < 1'000'000'000) {
    buf[--w] = 's';
    int digits = 0;
    if (u == 0) {
      return "0s";
    } else if (u < 1'000) {
      buf[--w] = 'n';
    } else if (u < 1'000'000) {
      digits = 3;
      buf[--w] = '\xB5';  // "µ" in UTF-8 is C2 B5
      buf[--w] = '\xC2';
    } else {
      digits = 6;
      buf[--w] = 'm';
    }
    u = write_fraction(buf, w, u, digits);
    write_int(buf, w, u);
  } else {
    buf[--w] = 's';
    u = write_fraction(buf, w, u, 9);
    write_int(buf, w, u % 60);
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      write_int(buf, w, u % 60);
      u /= 60;
      if (u > 0) {
        buf[--w] = 'h';
        write_int(buf, w, u);
      }
    }
  }
  if (ns_ < 0) buf[--w] = '-';
  return std::string(buf + w, buf + 32);
}

std::string Duration::to_iso8601() const {
  const std::uint64_t u = magnitude(ns_);
  std::string out = ns_ < 0 ? "-PT" : "PT";
  if (u == 0) return out + "0S";
  const std::uint64_t hours = u / 3'600'000'000'000;
  const std::uint64_t minutes = u / 60'000'000'000 % 60;
  const std::uint64_t seconds = u / 1'000'000'000 % 60;
  const std::uint64_t nanos = u % 1'000'000'000;
  if (hours > 0) out += std::to_string(hours) + "H";
  if (minutes > 0) out += std::to_string(minutes) + "M";
  if (seconds > 0 || nanos > 0) out += std::to_string(seconds) + nanos_fraction(nanos) + "S";
  return out;
}

// ---- Timestamp -----------------------------------------------------------------------------

Result<Timestamp> Timestamp::parse(std::string_view text) {
  using namespace std::chrono;
  Rfc3339Reader in(text);
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!in.number(4, year) || !in.literal('-') || !in.number(2, month) || !in.literal('-') || !in.number(2, day)) {
    return invalid_timestamp(text, "expected a date YYYY-MM-DD at the start (e.g. 2026-11-22T10:00:00Z)");
  }
  const char sep = in.peek();
  if (sep != 'T' && sep != 't' && sep != ' ') {
    return invalid_timestamp(text, "expected 'T' (or a space) between date and time");
  }
  in.skip();
  if (!in.number(2, hour) || !in.literal(':') || !in.number(2, minute) || !in.literal(':') || !in.number(2, second)) {
    return invalid_timestamp(text, "expected a time HH:MM:SS after the date");
  }
  std::int64_t frac_ns = 0;
  if (in.literal('.')) {
    int digits = 0;
    while (is_digit(in.peek())) {
      if (++digits > 9) return invalid_timestamp(text, "fractional seconds have more than 9 digits (nanoseconds)");
      frac_ns = frac_ns * 10 + (in.peek() - '0');
      in.skip();
    }
    if (digits == 0) return invalid_timestamp(text, "'.' must be followed by fractional-second digits");
    for (int i = digits; i < 9; ++i) frac_ns *= 10;
  }
  int offset_seconds = 0;
  if (in.at_end()) {
    return invalid_timestamp(text, "missing time zone offset: add 'Z' for UTC or an offset like '+01:00'");
  }
  const char zone = in.peek();
  if (zone == 'Z' || zone == 'z') {
    in.skip();
  } else if (zone == '+' || zone == '-') {
    in.skip();
    int off_h = 0, off_m = 0;
    if (!in.number(2, off_h) || !in.literal(':') || !in.number(2, off_m)) {
      return invalid_timestamp(text, "expected an offset +HH:MM or -HH:MM");
    }
    if (off_h > 23) return invalid_timestamp(text, "offset hour " + two_digits(off_h) + " is out of range 00..23");
    if (off_m > 59) return invalid_timestamp(text, "offset minute " + two_digits(off_m) + " is out of range 00..59");
    offset_seconds = (off_h * 3600 + off_m * 60) * (zone == '-' ? -1 : 1);
  } else {
    return invalid_timestamp(text, "expected 'Z' or an offset like '+01:00' after the time");
  }
  if (!in.at_end()) return invalid_timestamp(text, "unexpected text " + quoted(in.rest()) + " after the offset");

  if (month < 1 || month > 12) return invalid_timestamp(text, "month " + two_digits(month) + " is out of range 01..12");
  const year_month_day date{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                            std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok()) {
    const year_month_day_last last{std::chrono::year{year}, month_day_last{std::chrono::month{static_cast<unsigned>(month)}}};
    return invalid_timestamp(text, "day " + two_digits(day) + " does not exist in " + std::to_string(year) + "-" +
                                       two_digits(month) + " (it has " +
                                       std::to_string(static_cast<unsigned>(last.day())) + " days)");
  }
  if (hour > 23) return invalid_timestamp(text, "hour " + two_digits(hour) + " is out of range 00..23");
  if (minute > 59) return invalid_timestamp(text, "minute " + two_digits(minute) + " is out of range 00..59");
  if (second > 59) {
    return invalid_timestamp(text, "second " + two_digits(second) +
                                       (second == 60 ? " (a leap second) is not supported" : " is out of range 00..59"));
  }
  // Years 0000..9999 keep these seconds far inside int64; only the nanosecond scale can overflow.
  const std::int64_t days = sys_days{date}.time_since_epoch().count();
  const std::int64_t secs = days * kSecondsPerDay + hour * 3600 + minute * 60 + second - offset_seconds;
  // Near the negative end of the range secs * 1e9 alone underflows though the sum fits, so
  // borrow one second into the (then negative) fraction.
  std::int64_t whole = secs;
  if (whole < 0 && frac_ns > 0) {
    whole += 1;
    frac_ns -= kNanosPerSecond;
  }
  std::int64_t ns = 0;
  if (__builtin_mul_overflow(whole, kNanosPerSecond, &ns) || __builtin_add_overflow(ns, frac_ns, &ns)) {
    return Error{ErrorCode::Overflow,
                 "timestamp is outside the representable range 1677-09-21T00:12:43.145224192Z .. "
                 "2262-04-11T23:47:16.854775807Z (int64 nanoseconds)",
                 {}, std::string(text)};
  }
  return Timestamp::from_unix_nanos(ns);
}

std::string Timestamp::to_string() const {
  using namespace std::chrono;
  const std::int64_t secs = floor_div(ns_, kNanosPerSecond);
  const std::int64_t nanos = floor_mod(ns_, kNanosPerSecond);
  const std::int64_t days = floor_div(secs, kSecondsPerDay);
  const std::int64_t sod = floor_mod(secs, kSecondsPerDay);
  const year_month_day date{sys_days{std::chrono::days{days}}};
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), static_cast<int>(sod / 3600),
                static_cast<int>(sod / 60 % 60), static_cast<int>(sod % 60));
  return std::string(buf) + nanos_fraction(static_cast<std::uint64_t>(nanos)) + "Z";
}

int Timestamp::seconds_of_day() const noexcept {
  return static_cast<int>(floor_mod(floor_div(ns_, kNanosPerSecond), kSecondsPerDay));
}

// ---- TimeOfDay / TimeWindow ----------------------------------------------------------------

Result<TimeOfDay> TimeOfDay::parse(std::string_view text) {
  Rfc3339Reader in(text);
  int hour = 0, minute = 0, second = 0;
  const auto bad = [&](std::string why) {
    return Error::invalid({}, std::string(text), "invalid time of day: " + std::move(why));
  };
  if (!in.number(2, hour) || !in.literal(':') || !in.number(2, minute)) {
    return bad("expected HH:MM or HH:MM:SS (e.g. 22:00)");
  }
  if (!in.at_end() && (!in.literal(':') || !in.number(2, second) || !in.at_end())) {
    return bad("expected HH:MM or HH:MM:SS (e.g. 22:00)");
  }
  if (hour > 23) {
    return bad("hour " + two_digits(hour) + " is out of range 00..23" + (hour == 24 ? " (write midnight as 00:00)" : ""));
  }
  if (minute > 59) return bad("minute " + two_digits(minute) + " is out of range 00..59");
  if (second > 59) return bad("second " + two_digits(second) + " is out of range 00..59");
  return TimeOfDay{hour * 3600 + minute * 60 + second};
}

std::string TimeOfDay::to_string() const {
  std::string out = two_digits(seconds / 3600) + ":" + two_digits(seconds / 60 % 60);
  if (seconds % 60 != 0) out += ":" + two_digits(seconds % 60);
  return out;
}

bool TimeWindow::contains(Timestamp t) const noexcept {
  const int s = t.seconds_of_day();
  if (start.seconds == end.seconds) return true;  // whole day
  if (start.seconds < end.seconds) return s >= start.seconds && s < end.seconds;
  return s >= start.seconds || s < end.seconds;  // crosses midnight
}

Timestamp TimeWindow::next_open(Timestamp t) const noexcept {
  if (contains(t)) return t;
  // Outside the window, the next opening is the window's start today or, if that has passed,
  // tomorrow.
  const Duration since_midnight = Duration::seconds(t.seconds_of_day()) +
                                  Duration::nanoseconds(floor_mod(t.unix_nanos(), kNanosPerSecond));
  Timestamp candidate = t - since_midnight + Duration::seconds(start.seconds);
  if (candidate < t) candidate = candidate + Duration::hours(24);
  return candidate;
}

}  // namespace budcore::core
