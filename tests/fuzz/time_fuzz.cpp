// libFuzzer target: Duration, Timestamp, TimeOfDay, Id and cron parsers must never crash, and
// whatever they accept must survive a format/parse round trip unchanged (a cron schedule must
// give increasing fire times).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "budcore/core/id.hpp"
#include "budcore/core/time.hpp"
#include "budcore/pipeline/cron.hpp"

namespace {

using namespace budcore::core;

void check(bool ok) {
  if (!ok) std::abort();
}

void fuzz_duration(std::string_view text) {
  auto d = Duration::parse(text);
  if (!d) {
    check(!d.error().message.empty() && d.error().value == text);
    return;
  }
  auto go = Duration::parse(d->to_string());
  check(go.has_value() && *go == *d);
  auto iso = Duration::parse(d->to_iso8601());
  check(iso.has_value() && *iso == *d);
}

void fuzz_timestamp(std::string_view text) {
  auto t = Timestamp::parse(text);
  if (!t) {
    check(!t.error().message.empty() && t.error().value == text);
    return;
  }
  const std::string formatted = t->to_string();
  auto back = Timestamp::parse(formatted);
  check(back.has_value() && *back == *t && back->to_string() == formatted);
  check(t->seconds_of_day() >= 0 && t->seconds_of_day() < 86400);
}

void fuzz_time_of_day(std::string_view text) {
  auto tod = TimeOfDay::parse(text);
  if (!tod) return;
  check(tod->seconds >= 0 && tod->seconds < 86400);
  auto back = TimeOfDay::parse(tod->to_string());
  check(back.has_value() && *back == *tod);
}

void fuzz_id(std::string_view text) {
  auto id = Id::parse(text);
  if (!id) {
    check(!id.error().message.empty() && id.error().value == text);
    return;
  }
  const std::string formatted = id->to_string();
  check(formatted.size() == 36);
  auto back = Id::parse(formatted);
  check(back.has_value() && *back == *id);
  // Same hex digits as the input, lower-cased, without the dashes.
  std::string hex_in, hex_out;
  for (char c : text) {
    if (c != '-') hex_in += static_cast<char>((c >= 'A' && c <= 'F') ? c - 'A' + 'a' : c);
  }
  for (char c : formatted) {
    if (c != '-') hex_out += c;
  }
  check(hex_in == hex_out);
  (void)id->timestamp();
}

void fuzz_cron(std::string_view text) {
  auto s = budcore::pipeline::CronSchedule::parse(text);
  if (!s) {
    check(!s.error().message.empty());
    return;
  }
  Timestamp t = Timestamp::from_unix_seconds(1'767'225'600);  // 2026-01-01
  for (int i = 0; i < 4; ++i) {
    auto next = s->next(t);
    if (!next) return;
    check(*next > t && s->matches(*next));
    t = *next;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz_duration(text);
  fuzz_timestamp(text);
  fuzz_time_of_day(text);
  fuzz_id(text);
  fuzz_cron(text);
  return 0;
}
