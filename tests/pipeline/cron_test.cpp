// CronSchedule and TimeZone: parsing, next-fire times across month ends, leap years and DST
// transitions (robfig/cron v3 behaviour, which Kubernetes CronJob uses).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "budcore/pipeline/cron.hpp"

namespace {

using budcore::core::ErrorCode;
using budcore::core::Timestamp;
using budcore::pipeline::CivilTime;
using budcore::pipeline::CronSchedule;
using budcore::pipeline::TimeZone;

Timestamp ts(const std::string& text) { return Timestamp::parse(text).value(); }

CronSchedule cron(const std::string& expr, const std::string& zone = "") {
  auto s = CronSchedule::parse(expr, zone);
  if (!s) ADD_FAILURE() << expr << ": " << s.error().describe();
  return std::move(s).value();
}

// Next fire after `from`, as "YYYY-MM-DDTHH:MM:SSZ".
std::string next(const std::string& expr, const std::string& from, const std::string& zone = "") {
  auto n = cron(expr, zone).next(ts(from));
  return n ? n->to_string() : "none";
}

TEST(CronTest, SimpleFieldsListsRangesAndSteps) {
  EXPECT_EQ(next("*/15 * * * *", "2012-07-09T14:45:00Z"), "2012-07-09T15:00:00Z");
  EXPECT_EQ(next("*/15 * * * *", "2012-07-09T14:59:59Z"), "2012-07-09T15:00:00Z");
  EXPECT_EQ(next("20-35/15 * * * *", "2012-07-09T15:45:00Z"), "2012-07-09T16:20:00Z");
  EXPECT_EQ(next("5/20 * * * *", "2012-07-09T15:46:00Z"), "2012-07-09T16:05:00Z");  // a/n = a-59/n
  EXPECT_EQ(next("0,30 9,17 * * *", "2012-07-09T09:30:00Z"), "2012-07-09T17:00:00Z");
  EXPECT_EQ(next("0 0 * * 1-5", "2012-07-13T12:00:00Z"), "2012-07-16T00:00:00Z");  // Fri -> Mon
  EXPECT_EQ(next("* * * * *", "2012-07-09T15:00:00.5Z"), "2012-07-09T15:01:00Z");
  EXPECT_EQ(next("* * * * *", "2012-07-09T15:00:00Z"), "2012-07-09T15:01:00Z");  // strictly after
}

TEST(CronTest, NamesAreCaseInsensitive) {
  EXPECT_EQ(next("0 12 * JAN,jul MON", "2012-07-09T13:00:00Z"), "2012-07-16T12:00:00Z");
  EXPECT_EQ(next("0 0 1 FEB-apr *", "2012-07-09T00:00:00Z"), "2013-02-01T00:00:00Z");
  EXPECT_EQ(next("0 0 * * sat,SUN", "2012-07-09T00:00:00Z"), "2012-07-14T00:00:00Z");
  EXPECT_EQ(next("0 0 * * 7", "2012-07-09T00:00:00Z"), "2012-07-15T00:00:00Z");  // 7 = Sunday
  EXPECT_EQ(next("0 0 * * 5-7", "2012-07-14T00:00:00Z"), "2012-07-15T00:00:00Z");
}

TEST(CronTest, Descriptors) {
  EXPECT_EQ(next("@hourly", "2012-07-09T15:04:00Z"), "2012-07-09T16:00:00Z");
  EXPECT_EQ(next("@daily", "2012-07-09T15:04:00Z"), "2012-07-10T00:00:00Z");
  EXPECT_EQ(next("@midnight", "2012-07-09T15:04:00Z"), "2012-07-10T00:00:00Z");
  EXPECT_EQ(next("@weekly", "2012-07-09T15:04:00Z"), "2012-07-15T00:00:00Z");  // Sunday
  EXPECT_EQ(next("@monthly", "2012-07-09T15:04:00Z"), "2012-08-01T00:00:00Z");
  EXPECT_EQ(next("@yearly", "2012-07-09T15:04:00Z"), "2013-01-01T00:00:00Z");
  EXPECT_EQ(next("@annually", "2012-07-09T15:04:00Z"), "2013-01-01T00:00:00Z");
  EXPECT_EQ(next("@DAILY", "2012-07-09T15:04:00Z"), "2012-07-10T00:00:00Z");
}

TEST(CronTest, DayOfMonthAndDayOfWeekUseOrSemantics) {
  // Both restricted: either may match. 2012-07-15 is a Sunday, 2012-06-15 a Friday.
  auto both = cron("0 0 1,15 * SUN");
  EXPECT_TRUE(both.matches(ts("2012-07-15T00:00:00Z")));
  EXPECT_TRUE(both.matches(ts("2012-06-15T00:00:00Z")));
  EXPECT_TRUE(both.matches(ts("2012-08-01T00:00:00Z")));
  EXPECT_TRUE(both.matches(ts("2012-07-08T00:00:00Z")));  // a Sunday, not the 1st/15th
  EXPECT_FALSE(both.matches(ts("2012-07-09T00:00:00Z")));
  // One is '*': both must match.
  EXPECT_FALSE(cron("0 0 * * MON").matches(ts("2012-07-15T00:00:00Z")));
  EXPECT_FALSE(cron("0 0 1,15 * *").matches(ts("2012-07-09T00:00:00Z")));
  EXPECT_TRUE(cron("0 0 1,15 * *").matches(ts("2012-07-15T00:00:00Z")));
  EXPECT_TRUE(cron("0 0 ? * SUN").matches(ts("2012-07-15T00:00:00Z")));
  // robfig v3: "*/n" with n > 1 is a restriction, so OR applies (July 9 is a Monday, day 9).
  EXPECT_TRUE(cron("0 0 */10 * SUN").matches(ts("2012-07-15T00:00:00Z")));   // Sunday
  EXPECT_TRUE(cron("0 0 */10 * SUN").matches(ts("2012-07-11T00:00:00Z")));   // day 11
  EXPECT_FALSE(cron("0 0 */10 * SUN").matches(ts("2012-07-09T00:00:00Z")));
  EXPECT_EQ(next("0 0 13 * FRI", "2012-07-01T00:00:00Z"), "2012-07-06T00:00:00Z");
}

TEST(CronTest, MonthEndsAndLeapYears) {
  EXPECT_EQ(next("0 0 31 * *", "2012-04-01T00:00:00Z"), "2012-05-31T00:00:00Z");  // skips April
  EXPECT_EQ(next("0 0 31 * *", "2012-12-31T00:00:00Z"), "2013-01-31T00:00:00Z");
  EXPECT_EQ(next("59 23 30 * *", "2013-01-31T00:00:00Z"), "2013-03-30T23:59:00Z");  // skips February
  EXPECT_EQ(next("0 0 29 2 *", "2012-07-09T23:35:00Z"), "2016-02-29T00:00:00Z");
  EXPECT_EQ(next("0 0 29 2 *", "2096-03-01T00:00:00Z"), "2104-02-29T00:00:00Z");  // 2100 is not leap
  EXPECT_EQ(next("0 0 29 2 *", "1999-03-01T00:00:00Z"), "2000-02-29T00:00:00Z");  // 2000 is
  EXPECT_EQ(next("* * * * *", "2012-12-31T23:59:45Z"), "2013-01-01T00:00:00Z");
  EXPECT_EQ(next("0 12 28-31 2 *", "2013-02-27T13:00:00Z"), "2013-02-28T12:00:00Z");
  EXPECT_EQ(next("0 12 28-31 2 *", "2013-02-28T13:00:00Z"), "2014-02-28T12:00:00Z");
  EXPECT_EQ(next("0 12 28-31 2 *", "2012-02-28T13:00:00Z"), "2012-02-29T12:00:00Z");
}

TEST(CronTest, UnsatisfiableDayIsRejectedAtParse) {
  for (const char* expr : {"0 0 30 2 *", "0 0 31 4 *", "0 0 31 APR,JUN,SEP,NOV *"}) {
    auto s = CronSchedule::parse(expr);
    ASSERT_FALSE(s) << expr;
    EXPECT_EQ(s.error().field, "day_of_month") << expr;
  }
  // With a weekday restriction the OR makes it satisfiable.
  EXPECT_EQ(next("0 0 30 2 MON", "2012-07-09T00:00:00Z"), "2013-02-04T00:00:00Z");
}

TEST(CronTest, InvalidExpressionsNameFieldAndValue) {
  struct Case {
    const char* expr;
    const char* field;
    const char* value;
  };
  const std::vector<Case> cases = {
      {"60 * * * *", "minute", "60"},
      {"* 24 * * *", "hour", "24"},
      {"* * 0 * *", "day_of_month", "0"},
      {"* * 32 * *", "day_of_month", "32"},
      {"* * * 13 *", "month", "13"},
      {"* * * FOO *", "month", "FOO"},
      {"* * * * 8", "day_of_week", "8"},
      {"* * * * MONDAY", "day_of_week", "MONDAY"},
      {"5-1 * * * *", "minute", "5-1"},
      {"0 0 * * SAT-SUN", "day_of_week", "SAT-SUN"},  // SUN is 0: write SAT,SUN or 6-7
      {"*/0 * * * *", "minute", "*/0"},
      {"*/x * * * *", "minute", "*/x"},
      {"1,,2 * * * *", "minute", "1,,2"},
      {"a * * * *", "minute", "a"},
      {"-1 * * * *", "minute", "-1"},
      {"* * * *", "schedule", "* * * *"},
      {"* * * * * *", "schedule", "* * * * * *"},
      {"", "schedule", ""},
      {"@every 5m", "schedule", "@every"},
      {"@fortnightly", "schedule", "@fortnightly"},
      {"TZ=Mars/Olympus 0 0 * * *", "time_zone", "Mars/Olympus"},
      {"TZ=../etc/passwd 0 0 * * *", "time_zone", "../etc/passwd"},
      // A directory of zones, not a zone (reading it crashed the process; found by time_fuzz).
      {"TZ=America 0 0 * * *", "time_zone", "America"},
  };
  for (const auto& c : cases) {
    auto s = CronSchedule::parse(c.expr);
    ASSERT_FALSE(s) << c.expr;
    EXPECT_EQ(s.error().code, ErrorCode::Invalid) << c.expr;
    EXPECT_EQ(s.error().field, c.field) << c.expr << ": " << s.error().describe();
    EXPECT_EQ(s.error().value, c.value) << c.expr << ": " << s.error().describe();
    EXPECT_FALSE(s.error().message.empty());
  }
  auto twice = CronSchedule::parse("TZ=Europe/Berlin 0 0 * * *", "America/New_York");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().field, "time_zone");
  EXPECT_TRUE(CronSchedule::parse("TZ=Europe/Berlin 0 0 * * *", "Europe/Berlin"));
  auto bad_zone = CronSchedule::parse("0 0 * * *", "Nowhere/City");
  ASSERT_FALSE(bad_zone);
  EXPECT_EQ(bad_zone.error().field, "time_zone");
}

TEST(TimeZoneTest, OffsetsAndTransitions) {
  auto ny = TimeZone::load("America/New_York").value();
  EXPECT_EQ(ny.name(), "America/New_York");
  EXPECT_EQ(ny.offset_at(ts("2024-01-15T12:00:00Z")), -5 * 3600);
  EXPECT_EQ(ny.offset_at(ts("2024-07-15T12:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny.next_transition(ts("2024-01-01T00:00:00Z"))->to_string(), "2024-03-10T07:00:00Z");
  EXPECT_EQ(ny.next_transition(ts("2024-03-10T07:00:00Z"))->to_string(), "2024-11-03T06:00:00Z");
  // Past the TZif table (2037), the footer rule continues the pattern.
  EXPECT_EQ(ny.next_transition(ts("2100-01-01T00:00:00Z"))->to_string(), "2100-03-14T07:00:00Z");
  EXPECT_EQ(ny.offset_at(ts("2100-07-01T00:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny.offset_at(ts("2100-12-01T00:00:00Z")), -5 * 3600);
  EXPECT_EQ(ny.to_civil(ts("2024-07-15T12:30:15Z")), (CivilTime{2024, 7, 15, 8, 30, 15}));

  auto berlin = TimeZone::load("Europe/Berlin").value();
  EXPECT_EQ(berlin.next_transition(ts("2026-01-01T00:00:00Z"))->to_string(), "2026-03-29T01:00:00Z");
  EXPECT_EQ(berlin.next_transition(ts("2026-03-29T01:00:00Z"))->to_string(), "2026-10-25T01:00:00Z");
  EXPECT_EQ(berlin.offset_at(ts("2045-07-01T00:00:00Z")), 2 * 3600);

  auto syd = TimeZone::load("Australia/Sydney").value();  // southern hemisphere
  EXPECT_EQ(syd.offset_at(ts("2090-01-15T00:00:00Z")), 11 * 3600);
  EXPECT_EQ(syd.offset_at(ts("2090-07-15T00:00:00Z")), 10 * 3600);

  auto kolkata = TimeZone::load("Asia/Kolkata").value();
  EXPECT_EQ(kolkata.offset_at(ts("2024-07-15T00:00:00Z")), 5 * 3600 + 1800);
  EXPECT_FALSE(kolkata.next_transition(ts("2024-07-15T00:00:00Z")).has_value());

  EXPECT_EQ(TimeZone::utc().offset_at(ts("2024-07-15T00:00:00Z")), 0);
  EXPECT_EQ(TimeZone::load("UTC")->name(), "UTC");
  auto missing = TimeZone::load("Europe/Atlantis");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().field, "time_zone");
  EXPECT_EQ(missing.error().value, "Europe/Atlantis");
}

TEST(CronTest, ZonedScheduleFiresOnLocalWallClock) {
  EXPECT_EQ(next("30 9 * * *", "2024-07-15T00:00:00Z", "America/New_York"), "2024-07-15T13:30:00Z");
  EXPECT_EQ(next("30 9 * * *", "2024-01-15T00:00:00Z", "America/New_York"), "2024-01-15T14:30:00Z");
  EXPECT_EQ(next("TZ=Asia/Kolkata 0 0 * * *", "2024-07-15T00:00:00Z"), "2024-07-15T18:30:00Z");
  EXPECT_EQ(next("CRON_TZ=Europe/Berlin 0 0 1 1 *", "2024-07-15T00:00:00Z"), "2024-12-31T23:00:00Z");
}

// robfig/cron v3's DST cases (spec_test.go), America/New_York, 2012.
TEST(CronTest, NewYorkSpringForwardSkipsTheGap) {
  const std::string z = "America/New_York";
  auto at = [&](const char* expr, const char* from) { return cron(expr, z).next(ts(from)); };
  // 2:30 on March 11 does not exist: next year's March 11.
  EXPECT_EQ(at("30 2 11 3 *", "2012-03-11T00:00:00-05:00"), ts("2013-03-11T02:30:00-04:00"));
  // Hourly jobs: 1:00 EST, then 3:00 EDT.
  EXPECT_EQ(at("0 * * * *", "2012-03-11T00:00:00-05:00"), ts("2012-03-11T01:00:00-05:00"));
  EXPECT_EQ(at("0 * * * *", "2012-03-11T01:00:00-05:00"), ts("2012-03-11T03:00:00-04:00"));
  EXPECT_EQ(at("0 * * * *", "2012-03-11T03:00:00-04:00"), ts("2012-03-11T04:00:00-04:00"));
  // 1am nightly job unaffected; 2am nightly job skipped on the transition day.
  EXPECT_EQ(at("0 1 * * *", "2012-03-11T00:00:00-05:00"), ts("2012-03-11T01:00:00-05:00"));
  EXPECT_EQ(at("0 1 * * *", "2012-03-11T01:00:00-05:00"), ts("2012-03-12T01:00:00-04:00"));
  EXPECT_EQ(at("0 2 * * *", "2012-03-11T00:00:00-05:00"), ts("2012-03-12T02:00:00-04:00"));
  EXPECT_EQ(at("*/20 * * * *", "2012-03-11T01:50:00-05:00"), ts("2012-03-11T03:00:00-04:00"));
}

TEST(CronTest, NewYorkFallBackRunsOverlapTwice) {
  const std::string z = "America/New_York";
  auto at = [&](const char* expr, const char* from) { return cron(expr, z).next(ts(from)); };
  EXPECT_EQ(at("30 2 4 11 *", "2012-11-04T00:00:00-04:00"), ts("2012-11-04T02:30:00-05:00"));
  EXPECT_EQ(at("30 1 4 11 *", "2012-11-04T01:45:00-04:00"), ts("2012-11-04T01:30:00-05:00"));
  EXPECT_EQ(at("0 * * * *", "2012-11-04T00:00:00-04:00"), ts("2012-11-04T01:00:00-04:00"));
  EXPECT_EQ(at("0 * * * *", "2012-11-04T01:00:00-04:00"), ts("2012-11-04T01:00:00-05:00"));
  EXPECT_EQ(at("0 * * * *", "2012-11-04T01:00:00-05:00"), ts("2012-11-04T02:00:00-05:00"));
  // 1am nightly job runs twice.
  EXPECT_EQ(at("0 1 * * *", "2012-11-04T00:00:00-04:00"), ts("2012-11-04T01:00:00-04:00"));
  EXPECT_EQ(at("0 1 * * *", "2012-11-04T01:00:00-04:00"), ts("2012-11-04T01:00:00-05:00"));
  EXPECT_EQ(at("0 1 * * *", "2012-11-04T01:00:00-05:00"), ts("2012-11-05T01:00:00-05:00"));
  // Minutes inside the overlap interleave by absolute time: 1:30 EDT comes before 1:00 EST.
  EXPECT_EQ(at("0,30 1 * * *", "2012-11-04T01:00:00-04:00"), ts("2012-11-04T01:30:00-04:00"));
  EXPECT_EQ(at("0,30 1 * * *", "2012-11-04T01:30:00-04:00"), ts("2012-11-04T01:00:00-05:00"));
}

TEST(CronTest, BerlinTransitions2026) {
  const std::string z = "Europe/Berlin";
  auto at = [&](const char* expr, const char* from) { return cron(expr, z).next(ts(from)); };
  // March 29: 02:00 CET -> 03:00 CEST. 02:30 is skipped that day.
  EXPECT_EQ(at("30 2 * * *", "2026-03-28T12:00:00+01:00"), ts("2026-03-30T02:30:00+02:00"));
  EXPECT_EQ(at("0 * * * *", "2026-03-29T01:00:00+01:00"), ts("2026-03-29T03:00:00+02:00"));
  EXPECT_EQ(at("0 3 * * *", "2026-03-28T12:00:00+01:00"), ts("2026-03-29T03:00:00+02:00"));
  // October 25: 03:00 CEST -> 02:00 CET. 02:30 happens twice.
  EXPECT_EQ(at("30 2 * * *", "2026-10-24T12:00:00+02:00"), ts("2026-10-25T02:30:00+02:00"));
  EXPECT_EQ(at("30 2 * * *", "2026-10-25T02:30:00+02:00"), ts("2026-10-25T02:30:00+01:00"));
  EXPECT_EQ(at("30 2 * * *", "2026-10-25T02:30:00+01:00"), ts("2026-10-26T02:30:00+01:00"));
  // A daily midnight schedule keeps local midnight across both changes.
  auto daily = cron("@daily", z);
  Timestamp t = ts("2026-03-27T00:00:00+01:00");
  std::vector<std::string> fires;
  for (int i = 0; i < 4; ++i) fires.push_back((t = *daily.next(t)).to_string());
  EXPECT_EQ(fires, (std::vector<std::string>{"2026-03-27T23:00:00Z", "2026-03-28T23:00:00Z",
                                             "2026-03-29T22:00:00Z", "2026-03-30T22:00:00Z"}));
}

TEST(CronTest, NextIsStrictlyIncreasingAndMatches) {
  for (const char* zone : {"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"}) {
    auto s = cron("*/7 0-3 * * *", zone);
    Timestamp t = ts("2026-03-01T00:00:00Z");
    for (int i = 0; i < 3000; ++i) {
      auto n = s.next(t);
      ASSERT_TRUE(n);
      ASSERT_GT(*n, t) << zone;
      ASSERT_TRUE(s.matches(*n)) << zone << " " << n->to_string();
      t = *n;
    }
  }
}

}  // namespace
