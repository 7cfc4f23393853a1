// Cron schedules (robfig/cron v3 semantics) evaluated in a core::TimeZone.
#include "budcore/pipeline/cron.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <vector>

#include "core/civil.hpp"

namespace budcore::pipeline {

using core::Error;
using core::ErrorCode;
using core::Timestamp;
using namespace core::detail;

// ---- cron expression parsing ----

namespace {

struct FieldSpec {
  const char* name;
  int min;
  int max;
  const char* const* names;  // names[i] is the value min + i (nullptr: numbers only)
};

constexpr const char* kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec", nullptr};
constexpr const char* kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", nullptr};

constexpr FieldSpec kFields[] = {
    {"minute", 0, 59, nullptr},       {"hour", 0, 23, nullptr},         {"day_of_month", 1, 31, nullptr},
    {"month", 1, 12, kMonthNames},    {"day_of_week", 0, 7, kDayNames},  // 7 is Sunday too (Vixie cron)
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

core::Result<int> parse_value(const FieldSpec& f, std::string_view text, std::string_view whole) {
  auto err = [&](const std::string& why) { return Error::invalid(f.name, std::string(whole), why); };
  if (text.empty()) return err("empty value");
  if (f.names != nullptr) {
    std::string l = lower(text);
    for (int i = 0; f.names[i] != nullptr; ++i)
      if (l == f.names[i]) return f.min + i;
  }
  int v = 0;
  for (char ch : text) {
    if (!std::isdigit(static_cast<unsigned char>(ch)))
      return err("'" + std::string(text) + "' is not a number" + (f.names ? " or a name" : ""));
    v = v * 10 + (ch - '0');
    if (v > 1000) break;
  }
  if (v < f.min || v > f.max)
    return err("value " + std::string(text) + " out of range " + std::to_string(f.min) + "-" + std::to_string(f.max));
  return v;
}

struct ParsedField {
  std::uint64_t bits = 0;
  bool star = false;
};

core::Result<ParsedField> parse_field(const FieldSpec& f, std::string_view text) {
  ParsedField out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) return Error::invalid(f.name, std::string(text), "empty list item");
    std::string_view range = item;
    int step = 1;
    bool has_step = false;
    if (auto slash = item.find('/'); slash != std::string_view::npos) {
      range = item.substr(0, slash);
      std::string_view st = item.substr(slash + 1);
      if (st.empty() || st.find('/') != std::string_view::npos ||
          !std::all_of(st.begin(), st.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
        return Error::invalid(f.name, std::string(text), "step '" + std::string(st) + "' is not a positive number");
      step = st.size() > 4 ? 10000 : std::stoi(std::string(st));
      if (step == 0) return Error::invalid(f.name, std::string(text), "step must be at least 1");
      has_step = true;
    }
    int lo = 0, hi = 0;
    bool star = false;
    if (range == "*" || range == "?") {
      lo = f.min;
      hi = std::string_view(f.name) == "day_of_week" ? 6 : f.max;
      star = true;
    } else if (auto dash = range.find('-'); dash != std::string_view::npos) {
      BUDCORE_TRY_ASSIGN(lo, parse_value(f, range.substr(0, dash), text));
      BUDCORE_TRY_ASSIGN(hi, parse_value(f, range.substr(dash + 1), text));
      if (lo > hi)
        return Error::invalid(f.name, std::string(text),
                              "range " + std::string(range) + " runs backwards (" + std::to_string(lo) + " > " +
                                  std::to_string(hi) + ")");
    } else {
      BUDCORE_TRY_ASSIGN(lo, parse_value(f, range, text));
      hi = has_step ? (std::string_view(f.name) == "day_of_week" ? 6 : f.max) : lo;  // "a/n" = "a-max/n"
    }
    for (int v = lo; v <= hi; v += step) out.bits |= std::uint64_t{1} << (v == 7 && f.max == 7 ? 0 : v);
    // robfig/cron v3 (Kubernetes): `*` and `?` count as unrestricted, `*/n` with n > 1 does not.
    if (star && step == 1) out.star = true;
  }
  return out;
}

}  // namespace

core::Result<CronSchedule> CronSchedule::parse(std::string_view expression, std::string_view time_zone) {
  std::string original(expression);
  std::istringstream words{std::string(expression)};
  std::vector<std::string> parts;
  for (std::string w; words >> w;) parts.push_back(w);
  if (parts.empty()) return Error::invalid("schedule", original, "empty cron expression");

  std::string zone_name(time_zone);
  for (std::string_view prefix : {"TZ=", "CRON_TZ="}) {
    if (parts.front().rfind(prefix, 0) == 0) {
      std::string inline_zone = parts.front().substr(prefix.size());
      if (!zone_name.empty() && zone_name != inline_zone)
        return Error::invalid("time_zone", inline_zone,
                              "the schedule names a time zone and so does the time_zone field ('" + zone_name + "')");
      zone_name = inline_zone;
      parts.erase(parts.begin());
      break;
    }
  }
  if (parts.empty()) return Error::invalid("schedule", original, "no cron fields after the time zone");
  TimeZone zone = TimeZone::utc();
  if (!zone_name.empty()) {
    BUDCORE_TRY_ASSIGN(zone, TimeZone::load(zone_name));
  }

  if (parts[0].front() == '@') {
    std::string d = lower(parts[0]);
    std::vector<std::string> fields;
    if (d == "@yearly" || d == "@annually") fields = {"0", "0", "1", "1", "*"};
    else if (d == "@monthly") fields = {"0", "0", "1", "*", "*"};
    else if (d == "@weekly") fields = {"0", "0", "*", "*", "0"};
    else if (d == "@daily" || d == "@midnight") fields = {"0", "0", "*", "*", "*"};
    else if (d == "@hourly") fields = {"0", "*", "*", "*", "*"};
    else
      return Error::invalid("schedule", parts[0],
                            "unknown descriptor; expected @hourly, @daily, @midnight, @weekly, @monthly, @yearly or @annually");
    if (parts.size() != 1) return Error::invalid("schedule", original, "a descriptor takes no further fields");
    parts = std::move(fields);
  }
  if (parts.size() != 5)
    return Error::invalid("schedule", original,
                          "expected 5 fields (minute hour day-of-month month day-of-week), got " +
                              std::to_string(parts.size()));

  CronSchedule s(original, std::move(zone));
  std::array<ParsedField, 5> f;
  for (std::size_t i = 0; i < 5; ++i) {
    BUDCORE_TRY_ASSIGN(f[i], parse_field(kFields[i], parts[i]));
  }
  s.minutes_ = f[0].bits;
  s.hours_ = static_cast<std::uint32_t>(f[1].bits);
  s.days_ = static_cast<std::uint32_t>(f[2].bits);
  s.months_ = static_cast<std::uint16_t>(f[3].bits);
  s.weekdays_ = static_cast<std::uint8_t>(f[4].bits);
  s.day_star_ = f[2].star;
  s.weekday_star_ = f[4].star;

  // A day-of-month no selected month has (and no weekday alternative) can never fire.
  if (s.weekday_star_ || s.day_star_) {
    int longest = 0;
    for (int m = 1; m <= 12; ++m)
      if (s.months_ & (1u << m)) longest = std::max(longest, m == 2 ? 29 : days_in_month(2001, m));
    bool any = false;
    for (int d = 1; d <= longest; ++d) any = any || (s.days_ & (1u << d));
    if (!any)
      return Error::invalid("day_of_month", parts[2], "no selected month (" + parts[3] + ") has such a day");
  }
  return s;
}

bool CronSchedule::matches_civil(const CivilTime& c) const {
  if (!(minutes_ >> c.minute & 1) || !(hours_ >> c.hour & 1) || !(months_ >> c.month & 1)) return false;
  bool dom = days_ >> c.day & 1;
  bool dow = weekdays_ >> weekday_from_days(days_from_civil(c.year, c.month, c.day)) & 1;
  // Vixie cron / robfig: with either field unrestricted both must match; otherwise either may.
  return (day_star_ || weekday_star_) ? (dom && dow) : (dom || dow);
}

std::optional<std::int64_t> CronSchedule::next_local(std::int64_t local) const {
  // Smallest whole minute >= local whose wall-clock fields match.
  CivilTime c = civil_from_seconds(floor_div(local + 59, 60) * 60);
  const int last_year = c.year + 9;  // Feb 29 can be 8 years away (2096 -> 2104)
  auto next_day = [&] {
    c.hour = c.minute = 0;
    if (++c.day > days_in_month(c.year, c.month)) {
      c.day = 1;
      if (++c.month > 12) c.month = 1, ++c.year;
    }
  };
  while (c.year <= last_year) {
    if (!(months_ >> c.month & 1)) {
      c.day = 1, c.hour = c.minute = 0;
      if (++c.month > 12) c.month = 1, ++c.year;
      continue;
    }
    bool dom = days_ >> c.day & 1;
    bool dow = weekdays_ >> weekday_from_days(days_from_civil(c.year, c.month, c.day)) & 1;
    if (!((day_star_ || weekday_star_) ? (dom && dow) : (dom || dow))) {
      next_day();
      continue;
    }
    if (!(hours_ >> c.hour & 1)) {
      c.minute = 0;
      if (++c.hour > 23) next_day();
      continue;
    }
    if (!(minutes_ >> c.minute & 1)) {
      if (++c.minute > 59) {
        c.minute = 0;
        if (++c.hour > 23) next_day();
      }
      continue;
    }
    return seconds_from_civil(c);
  }
  return std::nullopt;
}

std::optional<Timestamp> CronSchedule::next(Timestamp after) const {
  // Walk spans of constant UTC offset: inside one, wall time is a shifted copy of UTC, so the
  // next wall-clock match maps back exactly; a match past the span's end belongs to the next
  // span, where the clock reads differently. This fires on every instant whose wall-clock
  // reading matches: gap times never do, overlap times do twice (robfig/cron v3 behaviour).
  std::int64_t s = after.unix_seconds() + 1;
  for (int guard = 0; guard < 1000; ++guard) {
    Timestamp ts = Timestamp::from_unix_seconds(s);
    std::int64_t offset = zone_.offset_at(ts);
    auto end = zone_.next_transition(ts);
    auto local = next_local(s + offset);
    if (!local) return std::nullopt;
    std::int64_t candidate = *local - offset;
    if (!end || candidate < end->unix_seconds()) return Timestamp::from_unix_seconds(candidate);
    s = end->unix_seconds();
  }
  return std::nullopt;
}

bool CronSchedule::matches(Timestamp t) const {
  if (t.unix_nanos() % 1'000'000'000 != 0) return false;
  CivilTime c = zone_.to_civil(t);
  return c.second == 0 && matches_civil(c);
}

}  // namespace budcore::pipeline
