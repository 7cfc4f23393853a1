#include "budcore/core/time.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace budcore::core {
namespace {

constexpr std::int64_t kNs = 1;
constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kM = 60 * kS;
constexpr std::int64_t kH = 60 * kM;

std::int64_t parse_ns(std::string_view text) {
  auto r = Duration::parse(text);
  EXPECT_TRUE(r.has_value()) << text << ": " << (r ? "" : r.error().describe());
  return r ? r->count_ns() : 0;
}

// ---- Duration: Go syntax (cases follow Go's time.ParseDuration tests) ----------------------

TEST(DurationTest, ParsesGoSyntax) {
  struct Case {
    const char* text;
    std::int64_t ns;
  };
  const Case cases[] = {
      {"0", 0},
      {"-0", 0},
      {"+0", 0},
      {"5s", 5 * kS},
      {"30s", 30 * kS},
      {"1478s", 1478 * kS},
      {"-5s", -5 * kS},
      {"+5s", 5 * kS},
      {"-0s", 0},
      {"+0s", 0},
      {"90s", 90 * kS},
      {"1h30m", kH + 30 * kM},
      {"1.5h", kH + 30 * kM},
      {"-2m3.5s", -(2 * kM + 3 * kS + 500 * kMs)},
      {"300ms", 300 * kMs},
      {"2us", 2 * kUs},
      {"2\xC2\xB5s", 2 * kUs},  // U+00B5 micro sign
      {"2\xCE\xBCs", 2 * kUs},  // U+03BC Greek mu
      {"10ns", 10 * kNs},
      {"5.0s", 5 * kS},
      {"5.6s", 5 * kS + 600 * kMs},
      {"5.s", 5 * kS},
      {".5s", 500 * kMs},
      {"1.0s", kS},
      {"1.00s", kS},
      {"1.004s", kS + 4 * kMs},
      {"1.0040s", kS + 4 * kMs},
      {"100.00100s", 100 * kS + 1 * kMs},
      {"13ms", 13 * kMs},
      {"14s", 14 * kS},
      {"15m", 15 * kM},
      {"16h", 16 * kH},
      {"3h30m", 3 * kH + 30 * kM},
      {"10.5s4m", 4 * kM + 10 * kS + 500 * kMs},
      {"-2m3.4s", -(2 * kM + 3 * kS + 400 * kMs)},
      {"1h2m3s4ms5us6ns", kH + 2 * kM + 3 * kS + 4 * kMs + 5 * kUs + 6 * kNs},
      {"39h9m14.425s", 39 * kH + 9 * kM + 14 * kS + 425 * kMs},
      {"52763797000ns", 52763797000 * kNs},
      {"0.3333333333333333333h", 20 * kM},
      {"9007199254740993ns", (std::int64_t{1} << 53) + 1},
      {"9223372036854775807ns", INT64_MAX},
      {"9223372036854775.807us", INT64_MAX},
      {"9223372036s854ms775us807ns", INT64_MAX},
      {"-9223372036854775808ns", INT64_MIN},
      {"-9223372036854775.808us", INT64_MIN},
      {"-9223372036s854ms775us808ns", INT64_MIN},
      {"-2562047h47m16.854775808s", INT64_MIN},
      {"0.100000000000000000000h", 6 * kM},
      {"0.830103483285477580700h", 49 * kM + 48 * kS + 372539827 * kNs},
  };
  for (const Case& c : cases) EXPECT_EQ(parse_ns(c.text), c.ns) << c.text;
}

TEST(DurationTest, RejectsMalformedGoSyntax) {
  struct Case {
    const char* text;
    const char* why;  // a fragment the message must contain
  };
  const Case cases[] = {
      {"", "empty"},
      {"1", "missing unit"},
      {"00", "missing unit"},
      {"-", "sign must be followed"},
      {"+", "sign must be followed"},
      {"s", "expected a number"},
      {".", "'.' must be next to a digit"},
      {"-.", "'.' must be next to a digit"},
      {".s", "'.' must be next to a digit"},
      {"+.s", "'.' must be next to a digit"},
      {"1d", "unknown unit \"d\""},
      {"1d", "P1D"},
      {"3000000h", "out of range"},
      {"1h 30m", "unknown unit \"h \""},
      {" 1h", "expected a number"},
      {"1hh", "unknown unit \"hh\""},
      {"1.5.5s", "missing unit"},
      {"5m-3s", "unknown unit \"m-\""},
  };
  for (const Case& c : cases) {
    auto r = Duration::parse(c.text);
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << c.text << " -> " << r.error().message;
    EXPECT_EQ(r.error().value, c.text);
    EXPECT_TRUE(r.error().field.empty());
  }
}

TEST(DurationTest, OverflowIsAnOverflowError) {
  for (const char* text : {"9223372036854775808ns", "9223372036854775.808us", "9223372036s854ms775us808ns",
                           "-9223372036854775809ns", "3000000h", "9223372036854775807ns1ns",
                           "-9223372036854775808ns9223372036854775808ns", "99999999999999999999ns",
                           "2562047.9h", "PT2562048H", "P106752D", "P15251W", "-PT2562047H47M16.854775809S",
                           "PT99999999999999999999S"}) {
    auto r = Duration::parse(text);
    ASSERT_FALSE(r.has_value()) << text;
    EXPECT_EQ(r.error().code, ErrorCode::Overflow) << text;
    EXPECT_EQ(r.error().value, text);
  }
}

TEST(DurationTest, ErrorDescribeNamesValueAndReason) {
  auto r = Duration::parse("10x");
  ASSERT_FALSE(r);
  Error e = r.error();
  e.at("spec.timeout");
  EXPECT_EQ(e.code, ErrorCode::Invalid);
  EXPECT_EQ(e.describe(),
            "spec.timeout: invalid duration: unknown unit \"x\" (units: ns, us, µs, ms, s, m, h) (value: '10x')");
}

// ---- Duration: ISO-8601 -------------------------------------------------------------------

TEST(DurationTest, ParsesIso8601) {
  struct Case {
    const char* text;
    std::int64_t ns;
  };
  constexpr std::int64_t kD = 24 * kH;
  const Case cases[] = {
      {"PT1H30M", kH + 30 * kM},
      {"P2D", 2 * kD},
      {"P1DT2H", kD + 2 * kH},
      {"PT0.5S", 500 * kMs},
      {"PT0,5S", 500 * kMs},
      {"-PT1S", -kS},
      {"+PT1S", kS},
      {"P1W", 7 * kD},
      {"P1W2D", 9 * kD},
      {"PT1M", kM},
      {"PT0S", 0},
      {"P0D", 0},
      {"pt1h", kH},
      {"PT1.5H", kH + 30 * kM},
      {"P1.5D", 36 * kH},
      {"P0.5W", 84 * kH},
      {"PT1H0.25M", kH + 15 * kS},
      {"PT0.000000001S", 1},
      {"PT0.0000000019S", 1},  // below a nanosecond truncates
      {"P1DT1H1M1.000000001S", kD + kH + kM + kS + 1},
      {"PT2562047H47M16.854775807S", INT64_MAX},
      {"-PT2562047H47M16.854775808S", INT64_MIN},
      {"PT100000S", 100000 * kS},
      {"PT0.333333333333333333333333333H", 1'199'999'999'999},
  };
  for (const Case& c : cases) EXPECT_EQ(parse_ns(c.text), c.ns) << c.text;
}

TEST(DurationTest, RejectsMalformedIso8601) {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"P", "at least one component"},
      {"-P", "at least one component"},
      {"PT", "'T' must be followed"},
      {"P1DT", "'T' must be followed"},
      {"PTT1H", "'T' must be followed"},
      {"PT1HT1M", "'T' may appear only once"},
      {"P1Y", "years are ambiguous"},
      {"P1M", "months are ambiguous"},
      {"P1Y2M3D", "years are ambiguous"},
      {"P1H", "belongs after 'T'"},
      {"P1S", "belongs after 'T'"},
      {"PT1D", "belongs before 'T'"},
      {"PT1W", "belongs before 'T'"},
      {"PT1M1H", "in the order"},
      {"P1D1D", "in the order"},
      {"P1D1W", "in the order"},
      {"PT1S1S", "in the order"},
      {"PT1.5H30M", "only the last component may have a fraction"},
      {"PT.5S", "expected a number"},
      {"PT1.S", "must be followed by digits"},
      {"PT1", "missing designator"},
      {"PTH", "expected a number"},
      {"PT1X", "unknown designator 'X'"},
      {"P1X", "unknown designator 'X'"},
      {"PT-1S", "expected a number"},
      {"PT1H ", "expected a number"},
  };
  for (const Case& c : cases) {
    auto r = Duration::parse(c.text);
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_EQ(r.error().code, ErrorCode::Invalid) << c.text;
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << c.text << " -> " << r.error().message;
    EXPECT_EQ(r.error().value, c.text);
  }
}

// ---- Duration: formatting -----------------------------------------------------------------

TEST(DurationTest, FormatsLikeGo) {
  struct Case {
    std::int64_t ns;
    const char* text;
  };
  const Case cases[] = {
      {0, "0s"},
      {1, "1ns"},
      {1100, "1.1\xC2\xB5s"},
      {2200 * kUs, "2.2ms"},
      {3300 * kMs, "3.3s"},
      {4 * kM + 5 * kS, "4m5s"},
      {4 * kM + 5001 * kMs, "4m5.001s"},
      {5 * kH + 6 * kM + 7001 * kMs, "5h6m7.001s"},
      {8 * kM + 1, "8m0.000000001s"},
      {90 * kM, "1h30m0s"},
      {1500 * kMs, "1.5s"},
      {250 * kMs, "250ms"},
      {-250 * kMs, "-250ms"},
      {-1, "-1ns"},
      {999, "999ns"},
      {kUs, "1\xC2\xB5s"},
      {kMs, "1ms"},
      {kS, "1s"},
      {kM, "1m0s"},
      {kH, "1h0m0s"},
      {48 * kH, "48h0m0s"},
      {INT64_MAX, "2562047h47m16.854775807s"},
      {INT64_MIN, "-2562047h47m16.854775808s"},
  };
  for (const Case& c : cases) EXPECT_EQ(Duration::nanoseconds(c.ns).to_string(), c.text) << c.ns;
}

TEST(DurationTest, FormatsIso8601) {
  EXPECT_EQ(Duration::minutes(90).to_iso8601(), "PT1H30M");
  EXPECT_EQ(Duration{}.to_iso8601(), "PT0S");
  EXPECT_EQ((-Duration::milliseconds(1500)).to_iso8601(), "-PT1.5S");
  EXPECT_EQ(Duration::hours(48).to_iso8601(), "PT48H");
  EXPECT_EQ((Duration::hours(1) + Duration::seconds(5)).to_iso8601(), "PT1H5S");
  EXPECT_EQ(Duration::nanoseconds(1).to_iso8601(), "PT0.000000001S");
  EXPECT_EQ(Duration::max().to_iso8601(), "PT2562047H47M16.854775807S");
  EXPECT_EQ(Duration::min().to_iso8601(), "-PT2562047H47M16.854775808S");
}

TEST(DurationTest, RoundTripsBothForms) {
  const std::int64_t samples[] = {0, 1, -1, 999, 1000, 1001, kMs, -kMs + 1, 1500 * kMs, kH + 30 * kM, 36 * kH + 7,
                                  123456789012345, -987654321098765, INT64_MAX, INT64_MIN, INT64_MIN + 1};
  for (std::int64_t ns : samples) {
    const Duration d = Duration::nanoseconds(ns);
    EXPECT_EQ(parse_ns(d.to_string()), ns) << d.to_string();
    EXPECT_EQ(parse_ns(d.to_iso8601()), ns) << d.to_iso8601();
  }
}

TEST(DurationTest, ArithmeticSaturatesInsteadOfWrapping) {
  EXPECT_EQ(Duration::max() + Duration::nanoseconds(1), Duration::max());
  EXPECT_EQ(Duration::min() - Duration::nanoseconds(1), Duration::min());
  EXPECT_EQ(Duration::min() + Duration::min(), Duration::min());
  EXPECT_EQ(-Duration::min(), Duration::max());
  EXPECT_EQ(Duration::seconds(INT64_MAX / 2), Duration::max());
  EXPECT_EQ(Duration::hours(-3'000'000), Duration::min());
  EXPECT_EQ(Duration::minutes(INT64_MIN), Duration::min());
  EXPECT_EQ(Duration::milliseconds(INT64_MAX), Duration::max());
  EXPECT_EQ(Duration::microseconds(-INT64_MAX), Duration::min());
  EXPECT_EQ(Duration::seconds(2) * INT64_MAX, Duration::max());
  EXPECT_EQ(Duration::seconds(-2) * INT64_MAX, Duration::min());
  EXPECT_EQ(Duration::seconds(2) * -3, Duration::seconds(-6));
  EXPECT_EQ(Duration::hours(1) - Duration::minutes(30), Duration::minutes(30));
  EXPECT_EQ(Duration::seconds(-90).whole_seconds(), -90);
  EXPECT_EQ(Duration::milliseconds(-1500).whole_seconds(), -1);
  static_assert(Duration::minutes(2) == Duration::seconds(120));
  static_assert(Duration::hours(1) > Duration::minutes(59));
  static_assert((Duration::max() + Duration::seconds(1)) == Duration::max());
}

// ---- Timestamp ----------------------------------------------------------------------------

TEST(TimestampTest, ParsesRfc3339) {
  struct Case {
    const char* text;
    std::int64_t unix_seconds;
    std::int64_t nanos;
  };
  const Case cases[] = {
      {"1970-01-01T00:00:00Z", 0, 0},
      {"2026-11-22T10:00:00Z", 1795341600, 0},
      {"2026-11-22t10:00:00z", 1795341600, 0},
      {"2026-11-22 10:00:00Z", 1795341600, 0},
      {"2026-11-22T10:00:00.5+01:00", 1795338000, 500'000'000},
      {"2026-11-22T10:00:00-05:30", 1795361400, 0},
      {"2026-11-22T10:00:00+00:00", 1795341600, 0},
      {"2026-11-22T10:00:00-00:00", 1795341600, 0},
      {"2026-11-22T10:00:00.123456789Z", 1795341600, 123'456'789},
      {"2026-11-22T10:00:00.000000001Z", 1795341600, 1},
      {"2024-02-29T12:00:00Z", 1709208000, 0},  // leap year
      {"2000-02-29T00:00:00Z", 951782400, 0},   // divisible by 400
      {"1969-12-31T23:59:59.999999999Z", -1, 999'999'999},
      {"1900-01-01T00:00:00Z", -2208988800, 0},
      {"2026-01-01T00:30:00+01:00", 1767225600 - 1800, 0},  // offset crosses the year
      {"2262-04-11T23:47:16.854775807Z", 9223372036, 854'775'807},
      {"1677-09-21T00:12:43.145224192Z", -9223372037, 145'224'192},
  };
  for (const Case& c : cases) {
    auto r = Timestamp::parse(c.text);
    ASSERT_TRUE(r.has_value()) << c.text << ": " << r.error().describe();
    EXPECT_EQ(r->unix_seconds(), c.unix_seconds) << c.text;
    EXPECT_EQ((r->unix_nanos() % kS + kS) % kS, c.nanos) << c.text;  // sub-second part, floored
  }
}

TEST(TimestampTest, RejectsInvalidText) {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"", "expected a date"},
      {"2026-11-22", "expected 'T'"},
      {"2026-11-22X10:00:00Z", "expected 'T'"},
      {"26-11-22T10:00:00Z", "expected a date"},
      {"2026/11/22T10:00:00Z", "expected a date"},
      {"2026-1-22T10:00:00Z", "expected a date"},
      {"2026-11-22T10:00Z", "expected a time"},
      {"2026-11-22T1:00:00Z", "expected a time"},
      {"2026-11-22T10:00:00", "missing time zone offset"},
      {"2026-11-22T10:00:00.Z", "'.' must be followed"},
      {"2026-11-22T10:00:00.1234567890Z", "more than 9 digits"},
      {"2026-11-22T10:00:00+0100", "expected an offset"},
      {"2026-11-22T10:00:00+1:00", "expected an offset"},
      {"2026-11-22T10:00:00UTC", "expected 'Z' or an offset"},
      {"2026-11-22T10:00:00Zjunk", "unexpected text \"junk\""},
      {"2026-11-22T10:00:00Z ", "unexpected text"},
      {"2026-13-01T00:00:00Z", "month 13 is out of range"},
      {"2026-00-01T00:00:00Z", "month 00 is out of range"},
      {"2026-02-30T00:00:00Z", "day 30 does not exist in 2026-02 (it has 28 days)"},
      {"2026-02-29T00:00:00Z", "day 29 does not exist in 2026-02"},
      {"1900-02-29T00:00:00Z", "day 29 does not exist in 1900-02"},  // century, not a leap year
      {"2024-04-31T00:00:00Z", "day 31 does not exist in 2024-04 (it has 30 days)"},
      {"2024-04-00T00:00:00Z", "day 00 does not exist"},
      {"2026-11-22T24:00:00Z", "hour 24 is out of range"},
      {"2026-11-22T10:60:00Z", "minute 60 is out of range"},
      {"2026-11-22T23:59:60Z", "leap second"},
      {"2026-11-22T23:59:61Z", "second 61 is out of range"},
      {"2026-11-22T10:00:00+24:00", "offset hour 24"},
      {"2026-11-22T10:00:00+01:60", "offset minute 60"},
  };
  for (const Case& c : cases) {
    auto r = Timestamp::parse(c.text);
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_EQ(r.error().code, ErrorCode::Invalid) << c.text;
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << c.text << " -> " << r.error().message;
    EXPECT_EQ(r.error().value, c.text);
  }
}

TEST(TimestampTest, OutOfRangeIsOverflow) {
  for (const char* text : {"2262-04-11T23:47:16.854775808Z", "1677-09-21T00:12:43.145224191Z", "9999-12-31T23:59:59Z",
                           "0000-01-01T00:00:00Z", "2262-04-11T23:47:16.854775807-00:01"}) {
    auto r = Timestamp::parse(text);
    ASSERT_FALSE(r.has_value()) << text;
    EXPECT_EQ(r.error().code, ErrorCode::Overflow) << text;
    EXPECT_EQ(r.error().value, text);
  }
}

TEST(TimestampTest, FormatsUtcWithTrimmedFraction) {
  EXPECT_EQ(Timestamp{}.to_string(), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Timestamp::from_unix_seconds(1795341600).to_string(), "2026-11-22T10:00:00Z");
  EXPECT_EQ((Timestamp::from_unix_seconds(1795341600) + Duration::milliseconds(250)).to_string(),
            "2026-11-22T10:00:00.25Z");
  EXPECT_EQ(Timestamp::from_unix_nanos(1).to_string(), "1970-01-01T00:00:00.000000001Z");
  EXPECT_EQ(Timestamp::from_unix_nanos(-1).to_string(), "1969-12-31T23:59:59.999999999Z");
  EXPECT_EQ(Timestamp::from_unix_seconds(951782400).to_string(), "2000-02-29T00:00:00Z");
  EXPECT_EQ(Timestamp::from_unix_nanos(INT64_MAX).to_string(), "2262-04-11T23:47:16.854775807Z");
  EXPECT_EQ(Timestamp::from_unix_nanos(INT64_MIN).to_string(), "1677-09-21T00:12:43.145224192Z");
  auto with_offset = Timestamp::parse("2026-11-22T10:00:00.5+01:00");
  ASSERT_TRUE(with_offset);
  EXPECT_EQ(with_offset->to_string(), "2026-11-22T09:00:00.5Z");
}

TEST(TimestampTest, RoundTripsAcrossYears) {
  // Every day of 1999..2001 and 2099..2101 at a few times, plus the range ends.
  for (std::int64_t day : {10592, 47117}) {
    for (std::int64_t d = day; d < day + 3 * 366; ++d) {
      for (std::int64_t ns : {std::int64_t{0}, 12 * kH + 34 * kM + 56 * kS + 789, 24 * kH - 1}) {
        const Timestamp t = Timestamp::from_unix_nanos(d * 24 * kH + ns);
        auto back = Timestamp::parse(t.to_string());
        ASSERT_TRUE(back.has_value()) << t.to_string();
        ASSERT_EQ(*back, t) << t.to_string();
      }
    }
  }
}

TEST(TimestampTest, UnixSecondsAndSecondsOfDayFloorTowardsPast) {
  const Timestamp before_epoch = Timestamp::from_unix_nanos(-1);
  EXPECT_EQ(before_epoch.unix_seconds(), -1);
  EXPECT_EQ(before_epoch.seconds_of_day(), 86399);
  EXPECT_EQ(Timestamp{}.seconds_of_day(), 0);
  auto t = Timestamp::parse("2026-11-22T10:20:30.9Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->seconds_of_day(), 10 * 3600 + 20 * 60 + 30);
  EXPECT_EQ(Timestamp::from_unix_nanos(INT64_MIN).seconds_of_day(), 12 * 60 + 43);
  EXPECT_EQ(Timestamp::from_unix_nanos(INT64_MAX).seconds_of_day(), 23 * 3600 + 47 * 60 + 16);
}

TEST(TimestampTest, ArithmeticAndOrdering) {
  const Timestamp a = Timestamp::from_unix_seconds(100);
  const Timestamp b = a + Duration::minutes(2);
  EXPECT_EQ(b.unix_seconds(), 220);
  EXPECT_EQ(b - a, Duration::minutes(2));
  EXPECT_EQ(a - b, Duration::minutes(-2));
  EXPECT_EQ(b - Duration::minutes(2), a);
  EXPECT_LT(a, b);
  EXPECT_EQ(Timestamp::from_unix_nanos(INT64_MAX) + Duration::seconds(1), Timestamp::from_unix_nanos(INT64_MAX));
  EXPECT_EQ(Timestamp::from_unix_nanos(INT64_MIN) - Duration::seconds(1), Timestamp::from_unix_nanos(INT64_MIN));
  EXPECT_EQ(Timestamp::from_unix_nanos(INT64_MAX) - Timestamp::from_unix_nanos(INT64_MIN), Duration::max());
  EXPECT_EQ(Timestamp::from_unix_seconds(INT64_MAX), Timestamp::from_unix_nanos(INT64_MAX));
}

// ---- TimeOfDay / TimeWindow ---------------------------------------------------------------

TEST(TimeOfDayTest, ParsesAndFormats) {
  auto a = TimeOfDay::parse("22:00");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->seconds, 22 * 3600);
  EXPECT_EQ(a->to_string(), "22:00");
  auto b = TimeOfDay::parse("06:30:15");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->seconds, 6 * 3600 + 30 * 60 + 15);
  EXPECT_EQ(b->to_string(), "06:30:15");
  auto c = TimeOfDay::parse("00:00:00");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->seconds, 0);
  EXPECT_EQ(c->to_string(), "00:00");
  auto d = TimeOfDay::parse("23:59:59");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->seconds, 86399);
}

TEST(TimeOfDayTest, RejectsInvalid) {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"24:00", "hour 24 is out of range 00..23 (write midnight as 00:00)"},
      {"25:00", "hour 25 is out of range"},
      {"12:60", "minute 60 is out of range"},
      {"12:00:60", "second 60 is out of range"},
      {"", "expected HH:MM"},
      {"9:00", "expected HH:MM"},
      {"12", "expected HH:MM"},
      {"12:0", "expected HH:MM"},
      {"12:00:", "expected HH:MM"},
      {"12:00:0", "expected HH:MM"},
      {"12:00:00Z", "expected HH:MM"},
      {"12-00", "expected HH:MM"},
      {"ab:cd", "expected HH:MM"},
  };
  for (const Case& c : cases) {
    auto r = TimeOfDay::parse(c.text);
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_EQ(r.error().code, ErrorCode::Invalid);
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << c.text << " -> " << r.error().message;
    EXPECT_EQ(r.error().value, c.text);
  }
}

Timestamp at(const char* text) {
  auto r = Timestamp::parse(text);
  EXPECT_TRUE(r.has_value()) << text;
  return r.value_or(Timestamp{});
}

TimeWindow window(const char* start, const char* end) {
  return TimeWindow{TimeOfDay::parse(start).value(), TimeOfDay::parse(end).value()};
}

TEST(TimeWindowTest, DaytimeWindowIsHalfOpen) {
  const TimeWindow w = window("09:00", "17:00");
  EXPECT_FALSE(w.contains(at("2026-11-22T08:59:59.999Z")));
  EXPECT_TRUE(w.contains(at("2026-11-22T09:00:00Z")));
  EXPECT_TRUE(w.contains(at("2026-11-22T12:00:00Z")));
  EXPECT_TRUE(w.contains(at("2026-11-22T16:59:59.999999999Z")));
  EXPECT_FALSE(w.contains(at("2026-11-22T17:00:00Z")));
  EXPECT_FALSE(w.contains(at("2026-11-22T23:00:00Z")));
}

TEST(TimeWindowTest, WindowCrossingMidnight) {
  const TimeWindow w = window("22:00", "06:00");
  EXPECT_TRUE(w.contains(at("2026-11-22T23:00:00Z")));
  EXPECT_TRUE(w.contains(at("2026-11-22T22:00:00Z")));
  EXPECT_TRUE(w.contains(at("2026-11-23T00:00:00Z")));
  EXPECT_TRUE(w.contains(at("2026-11-23T05:00:00Z")));
  EXPECT_FALSE(w.contains(at("2026-11-23T06:00:00Z")));
  EXPECT_FALSE(w.contains(at("2026-11-22T12:00:00Z")));
  EXPECT_FALSE(w.contains(at("2026-11-22T21:59:59Z")));
}

TEST(TimeWindowTest, EqualStartAndEndIsTheWholeDay) {
  for (const char* edge : {"00:00", "08:00", "23:59:59"}) {
    const TimeWindow w = window(edge, edge);
    for (const char* t : {"2026-11-22T00:00:00Z", "2026-11-22T08:00:00Z", "2026-11-22T07:59:59Z",
                          "2026-11-22T23:59:59.9Z"}) {
      EXPECT_TRUE(w.contains(at(t))) << edge << " " << t;
      EXPECT_EQ(w.next_open(at(t)), at(t));
    }
  }
}

TEST(TimeWindowTest, NextOpen) {
  const TimeWindow day = window("09:00", "17:00");
  EXPECT_EQ(day.next_open(at("2026-11-22T07:30:00.5Z")), at("2026-11-22T09:00:00Z"));
  EXPECT_EQ(day.next_open(at("2026-11-22T10:00:00Z")), at("2026-11-22T10:00:00Z"));
  EXPECT_EQ(day.next_open(at("2026-11-22T17:00:00Z")), at("2026-11-23T09:00:00Z"));
  EXPECT_EQ(day.next_open(at("2026-12-31T23:00:00Z")), at("2027-01-01T09:00:00Z"));

  const TimeWindow night = window("22:00", "06:00");
  EXPECT_EQ(night.next_open(at("2026-11-22T12:00:00Z")), at("2026-11-22T22:00:00Z"));
  EXPECT_EQ(night.next_open(at("2026-11-22T06:00:00Z")), at("2026-11-22T22:00:00Z"));
  EXPECT_EQ(night.next_open(at("2026-11-22T23:30:00Z")), at("2026-11-22T23:30:00Z"));
  EXPECT_EQ(night.next_open(at("2026-11-23T01:00:00Z")), at("2026-11-23T01:00:00Z"));

  const TimeWindow late = window("23:59:59", "00:00");
  EXPECT_EQ(late.next_open(at("2026-11-22T00:00:00Z")), at("2026-11-22T23:59:59Z"));
  EXPECT_TRUE(late.contains(at("2026-11-22T23:59:59.5Z")));

  // Before the epoch the day still starts at midnight UTC.
  EXPECT_EQ(day.next_open(at("1969-12-31T18:00:00Z")), at("1970-01-01T09:00:00Z"));
  EXPECT_EQ(day.next_open(at("1969-12-31T08:00:00Z")), at("1969-12-31T09:00:00Z"));
}

TEST(TimeWindowTest, NextOpenIsAlwaysInsideAndNotEarlier) {
  const TimeWindow windows[] = {window("09:00", "17:00"), window("22:00", "06:00"), window("00:00", "00:01"),
                                window("12:00", "12:00"), window("23:00", "00:00")};
  const Timestamp base = at("2026-03-01T00:00:00Z");
  for (const TimeWindow& w : windows) {
    for (int minute = -90; minute < 2 * 24 * 60; minute += 7) {
      const Timestamp t = base + Duration::minutes(minute) + Duration::milliseconds(123);
      const Timestamp open = w.next_open(t);
      EXPECT_GE(open, t);
      EXPECT_TRUE(w.contains(open)) << t.to_string() << " -> " << open.to_string();
      EXPECT_LE(open - t, Duration::hours(24));
      // Nothing between t and open is inside the window (sampled each minute).
      for (Timestamp probe = t; probe < open; probe = probe + Duration::minutes(1)) {
        EXPECT_FALSE(w.contains(probe)) << probe.to_string();
      }
    }
  }
}

}  // namespace
}  // namespace budcore::core
