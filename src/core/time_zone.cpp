// IANA time zones. GCC 12's libstdc++ has no std::chrono::tzdb, so a small TZif (RFC 8536)
// reader loads /usr/share/zoneinfo, with the POSIX TZ footer rule for times past the last
// listed transition.
#include "budcore/core/time_zone.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "core/civil.hpp"

namespace budcore::core {

using namespace detail;

namespace {

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

}  // namespace budcore::core
