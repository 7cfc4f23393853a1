// Cron schedules and IANA time zones. GCC 12's libstdc++ has no std::chrono::tzdb, so a small
// TZif (RFC 8536) reader loads /usr/share/zoneinfo, with the POSIX TZ footer rule for times past
// the last listed transition.
#include "budcore/pipeline/cron.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace budcore::pipeline {

using core::Error;
using core::ErrorCode;
using core::Timestamp;

namespace {

// ---- civil calendar (proleptic Gregorian; days since 1970-01-01) ----

std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(std::int64_t z, int& y, int& m, int& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  y = static_cast<int>(yoe + era * 400 + (m <= 2));
}

int weekday_from_days(std::int64_t z) { return static_cast<int>(z >= -4 ? (z + 4) % 7 : (z + 5) % 7 + 6); }

bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : kDays[static_cast<std::size_t>(m - 1)];
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

CivilTime civil_from_seconds(std::int64_t s) {
  CivilTime c;
  std::int64_t days = floor_div(s, 86400);
  std::int64_t rem = s - days * 86400;
  civil_from_days(days, c.year, c.month, c.day);
  c.hour = static_cast<int>(rem / 3600);
  c.minute = static_cast<int>(rem % 3600 / 60);
  c.second = static_cast<int>(rem % 60);
  return c;
}

std::int64_t seconds_from_civil(const CivilTime& c) {
  return days_from_civil(c.year, c.month, c.day) * 86400 + c.hour * 3600 + c.minute * 60 + c.second;
}

// ---- POSIX TZ rule (the TZif footer), e.g. "EST5EDT,M3.2.0,M11.1.0" ----

struct RuleDate {
  char kind = 'M';  // 'M' month.week.day, 'J' Julian 1..365 without Feb 29, 'N' zero-based day of year
  int month = 0, week = 0, weekday = 0, day = 0;
  int time = 7200;  // seconds after local midnight (may be negative or > 24h per RFC 8536)
};

struct PosixRule {
  int std_offset = 0;  // seconds east of UTC
  bool has_dst = false;
  int dst_offset = 0;
  RuleDate start, end;
};

class PosixParser {
 public:
  explicit PosixParser(std::string_view s) : s_(s) {}
  bool parse(PosixRule& r) {
    if (!name() || !offset(r.std_offset)) return false;
    r.std_offset = -r.std_offset;  // POSIX offsets are west of UTC
    if (at_end()) return true;
    r.has_dst = true;
    if (!name()) return false;
    r.dst_offset = r.std_offset + 3600;
    if (!at_end() && peek() != ',') {
      int o = 0;
      if (!offset(o)) return false;
      r.dst_offset = -o;
    }
    if (at_end()) {  // no rule: the US default of the time the format was written
      r.start = {'M', 3, 2, 0, 0, 7200};
      r.end = {'M', 11, 1, 0, 0, 7200};
      return true;
    }
    return eat(',') && date(r.start) && eat(',') && date(r.end) && at_end();
  }

 private:
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool name() {
    if (eat('<')) {
      while (!at_end() && peek() != '>') ++i_;
      return eat('>');
    }
    std::size_t start = i_;
    while (std::isalpha(static_cast<unsigned char>(peek()))) ++i_;
    return i_ - start >= 3;
  }
  bool number(int& out) {
    std::size_t start = i_;
    out = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) out = out * 10 + (s_[i_++] - '0');
    return i_ > start && out < 1000;
  }
  // [+-]hh[:mm[:ss]] -> seconds
  bool offset(int& out) {
    int sign = 1;
    if (eat('-')) sign = -1;
    else eat('+');
    int h = 0, m = 0, sec = 0;
    if (!number(h)) return false;
    if (eat(':') && !number(m)) return false;
    if (eat(':') && !number(sec)) return false;
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }
  bool date(RuleDate& d) {
    if (eat('M')) {
      d.kind = 'M';
      if (!number(d.month) || !eat('.') || !number(d.week) || !eat('.') || !number(d.weekday)) return false;
      if (d.month < 1 || d.month > 12 || d.week < 1 || d.week > 5 || d.weekday > 6) return false;
    } else if (eat('J')) {
      d.kind = 'J';
      if (!number(d.day) || d.day < 1 || d.day > 365) return false;
    } else {
      d.kind = 'N';
      if (!number(d.day) || d.day > 365) return false;
    }
    d.time = 7200;
    if (eat('/')) return offset(d.time);
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// Local days since epoch of a rule date in year y.
std::int64_t rule_day(const RuleDate& d, int y) {
  if (d.kind == 'J') {
    std::int64_t day = days_from_civil(y, 1, 1) + d.day - 1;
    if (is_leap(y) && d.day >= 60) ++day;  // Jn never counts Feb 29
    return day;
  }
  if (d.kind == 'N') return days_from_civil(y, 1, 1) + d.day;
  std::int64_t first = days_from_civil(y, d.month, 1);
  int delta = (d.weekday - weekday_from_days(first) + 7) % 7;
  std::int64_t day = first + delta + 7 * (d.week - 1);
  while (day >= first + days_in_month(y, d.month)) day -= 7;  // week 5 = "last"
  return day;
}

// UTC seconds of the DST start and end transitions in year y.
std::pair<std::int64_t, std::int64_t> rule_transitions(const PosixRule& r, int y) {
  std::int64_t start = rule_day(r.start, y) * 86400 + r.start.time - r.std_offset;
  std::int64_t end = rule_day(r.end, y) * 86400 + r.end.time - r.dst_offset;
  return {start, end};
}

int year_of(std::int64_t utc_seconds) { return civil_from_seconds(utc_seconds).year; }

}  // namespace

// ---- TimeZone ----

struct BUDCORE_HIDDEN TimeZone::Impl {
  std::string name;
  std::vector<std::int64_t> transitions;  // UTC seconds, ascending
  std::vector<int> offsets_after;         // offset in effect from transitions[i]
  int initial_offset = 0;                 // before the first transition
  std::optional<PosixRule> rule;          // after the last transition

  int offset_at(std::int64_t t) const {
    if (!transitions.empty() && t < transitions.front()) return initial_offset;
    if (rule && (transitions.empty() || t >= transitions.back())) return rule_offset(t);
    if (transitions.empty()) return initial_offset;
    auto it = std::upper_bound(transitions.begin(), transitions.end(), t);
    return offsets_after[static_cast<std::size_t>(it - transitions.begin() - 1)];
  }

  int rule_offset(std::int64_t t) const {
    if (!rule->has_dst) return rule->std_offset;
    auto [start, end] = rule_transitions(*rule, year_of(t + rule->std_offset));
    bool dst = start < end ? (t >= start && t < end) : (t < end || t >= start);  // southern hemisphere
    return dst ? rule->dst_offset : rule->std_offset;
  }

  std::optional<std::int64_t> next_transition(std::int64_t t) const {
    auto it = std::upper_bound(transitions.begin(), transitions.end(), t);
    if (it != transitions.end()) return *it;
    if (!rule || !rule->has_dst) return std::nullopt;
    int y = year_of(t);
    std::optional<std::int64_t> best;
    for (int yy = y - 1; yy <= y + 1; ++yy) {
      auto [start, end] = rule_transitions(*rule, yy);
      for (std::int64_t c : {start, end})
        if (c > t && (!best || c < *best)) best = c;
    }
    return best;
  }
};

namespace {

std::uint64_t read_be(const std::string& data, std::size_t pos, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(data[pos + static_cast<std::size_t>(i)]);
  return v;
}

core::Result<std::shared_ptr<TimeZone::Impl>> parse_tzif(const std::string& name, const std::string& data) {
  auto bad = [&](const std::string& why) { return Error::invalid("time_zone", name, "malformed TZif file: " + why); };
  if (data.size() < 44 || data.compare(0, 4, "TZif") != 0) return bad("missing TZif header");
  char version = data[4];
  auto counts = [&](std::size_t at, std::array<std::uint64_t, 6>& c) {
    for (std::size_t i = 0; i < 6; ++i) c[i] = read_be(data, at + 20 + 4 * i, 4);
  };
  std::array<std::uint64_t, 6> c{};  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  counts(0, c);
  std::size_t pos = 44;
  int time_size = 4;
  if (version >= '2') {  // skip the 32-bit block; use the 64-bit one
    pos += c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (data.size() < pos + 44 || data.compare(pos, 4, "TZif") != 0) return bad("missing v2 header");
    counts(pos, c);
    pos += 44;
    time_size = 8;
  }
  const std::uint64_t timecnt = c[3], typecnt = c[4];
  std::size_t need = pos + timecnt * static_cast<std::size_t>(time_size) + timecnt + typecnt * 6 + c[5] +
                     c[2] * static_cast<std::size_t>(time_size + 4) + c[1] + c[0];
  if (typecnt == 0 || data.size() < need) return bad("truncated data block");
  auto impl = std::make_shared<TimeZone::Impl>();
  impl->name = name;
  std::vector<int> type_offsets;
  std::size_t types_at = pos + timecnt * static_cast<std::size_t>(time_size) + timecnt;
  for (std::size_t i = 0; i < typecnt; ++i)
    type_offsets.push_back(static_cast<std::int32_t>(read_be(data, types_at + i * 6, 4)));
  for (std::size_t i = 0; i < timecnt; ++i) {
    std::uint64_t raw = read_be(data, pos + i * static_cast<std::size_t>(time_size), time_size);
    std::int64_t t = time_size == 8 ? static_cast<std::int64_t>(raw) : static_cast<std::int32_t>(raw);
    std::size_t type = static_cast<unsigned char>(data[pos + timecnt * static_cast<std::size_t>(time_size) + i]);
    if (type >= typecnt) return bad("transition type out of range");
    impl->transitions.push_back(t);
    impl->offsets_after.push_back(type_offsets[type]);
  }
  impl->initial_offset = type_offsets[0];
  if (version >= '2' && data.size() > need + 1 && data[need] == '\n') {
    std::size_t end = data.find('\n', need + 1);
    std::string footer = data.substr(need + 1, end == std::string::npos ? std::string::npos : end - need - 1);
    if (!footer.empty()) {
      PosixRule rule;
      if (!PosixParser(footer).parse(rule)) return bad("unsupported TZ footer '" + footer + "'");
      impl->rule = rule;
    }
  }
  return impl;
}

bool valid_zone_name(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.find("..") != std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char ch) {
    auto u = static_cast<unsigned char>(ch);
    return std::isalnum(u) || ch == '/' || ch == '_' || ch == '-' || ch == '+';
  });
}

}  // namespace

core::Result<TimeZone> TimeZone::load(std::string_view name) {
  if (name == "UTC" || name == "Etc/UTC" || name == "Z") return utc();
  if (!valid_zone_name(name)) return Error::invalid("time_zone", std::string(name), "not an IANA time zone name");
  // Zones are immutable: load each file once per process (TZDIR is read at first use).
  static std::mutex cache_mu;
  static std::map<std::string, std::shared_ptr<const Impl>, std::less<>> cache;
  {
    std::lock_guard lock(cache_mu);
    if (auto it = cache.find(name); it != cache.end()) return TimeZone(it->second);
  }
  const char* dir = std::getenv("TZDIR");
  std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo") + "/" + std::string(name);
  // A zone is a regular file: "America" names a directory of zones, and reading a directory
  // through a filebuf throws.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error::invalid("time_zone", std::string(name), "unknown time zone (no file " + path + ")");
  }
  std::string data;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error::invalid("time_zone", std::string(name), "unknown time zone (no " + path + ")");
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return Error::make(ErrorCode::Io, "cannot read " + path, "time_zone");
  } catch (const std::ios_base::failure&) {
    return Error::make(ErrorCode::Io, "cannot read " + path, "time_zone");
  }
  BUDCORE_TRY_ASSIGN(auto impl, parse_tzif(std::string(name), data));
  std::lock_guard lock(cache_mu);
  auto [it, inserted] = cache.emplace(std::string(name), std::move(impl));
  return TimeZone(it->second);
}

TimeZone TimeZone::utc() {
  static const auto impl = [] {
    auto i = std::make_shared<Impl>();
    i->name = "UTC";
    return i;
  }();
  return TimeZone(impl);
}

const std::string& TimeZone::name() const noexcept { return impl_->name; }

int TimeZone::offset_at(Timestamp t) const { return impl_->offset_at(t.unix_seconds()); }

std::optional<Timestamp> TimeZone::next_transition(Timestamp t) const {
  auto n = impl_->next_transition(t.unix_seconds());
  if (!n) return std::nullopt;
  return Timestamp::from_unix_seconds(*n);
}

CivilTime TimeZone::to_civil(Timestamp t) const {
  std::int64_t s = t.unix_seconds();
  return civil_from_seconds(s + impl_->offset_at(s));
}

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
