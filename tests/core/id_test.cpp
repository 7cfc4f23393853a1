#include "budcore/core/id.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include "budcore/core/clock.hpp"

namespace budcore::core {
namespace {

TEST(IdTest, NilId) {
  const Id nil;
  EXPECT_TRUE(nil.is_nil());
  EXPECT_EQ(nil.to_string(), "00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(nil.version(), 0);
  EXPECT_EQ(nil.timestamp(), Timestamp{});
  auto parsed = Id::parse("00000000-0000-0000-0000-000000000000");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, nil);
}

TEST(IdTest, ParsesAnyCaseAndBothForms) {
  const std::array<std::uint8_t, 16> bytes{0x01, 0x90, 0xe6, 0xf4, 0x5c, 0x3a, 0x7a, 0xbc,
                                           0x8d, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab};
  for (const char* text : {"0190e6f4-5c3a-7abc-8def-0123456789ab", "0190E6F4-5C3A-7ABC-8DEF-0123456789AB",
                           "0190e6F4-5c3A-7aBc-8DeF-0123456789aB", "0190e6f45c3a7abc8def0123456789ab",
                           "0190E6F45C3A7ABC8DEF0123456789AB"}) {
    auto id = Id::parse(text);
    ASSERT_TRUE(id.has_value()) << text << ": " << id.error().describe();
    EXPECT_EQ(id->bytes(), bytes) << text;
    EXPECT_EQ(id->to_string(), "0190e6f4-5c3a-7abc-8def-0123456789ab");
    EXPECT_EQ(id->version(), 7);
    EXPECT_FALSE(id->is_nil());
  }
  EXPECT_EQ(Id::from_bytes(bytes).to_string(), "0190e6f4-5c3a-7abc-8def-0123456789ab");
}

TEST(IdTest, OtherVersionsParseToo) {
  auto v4 = Id::parse("f47ac10b-58cc-4372-a567-0e02b2c3d479");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->version(), 4);
  EXPECT_EQ(v4->timestamp(), Timestamp{});  // only v7 carries a Unix time
  auto max = Id::parse("ffffffff-ffff-ffff-ffff-ffffffffffff");
  ASSERT_TRUE(max);
  EXPECT_EQ(max->version(), 15);
}

TEST(IdTest, RejectsMalformedText) {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"", "expected 36 characters (8-4-4-4-12 hex digits with dashes) or 32 hex digits, got 0"},
      {"0190e6f4-5c3a-7abc-8def-0123456789a", "got 35"},
      {"0190e6f4-5c3a-7abc-8def-0123456789abc", "got 37"},
      {"{0190e6f4-5c3a-7abc-8def-0123456789ab}", "got 38"},
      {"0190e6f4x5c3a-7abc-8def-0123456789ab", "expected '-' at position 8"},
      {"0190e6f4-5c3a-7abc-8def+0123456789ab", "expected '-' at position 23"},
      {"0190e6f45-c3a-7abc-8def-0123456789ab", "expected '-' at position 8"},
      {"0190e6g4-5c3a-7abc-8def-0123456789ab", "character 'g' at position 6 is not a hex digit"},
      {"0190e6f4-5c3a-7abc-8def-0123456789a-", "character '-' at position 35"},
      {"0190e6f45c3a7abc8def0123456789az", "character 'z' at position 31"},
      {"0190e6f4-5c3a7abc-8def0123456789ab", "got 34"},
  };
  for (const Case& c : cases) {
    auto r = Id::parse(c.text);
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_EQ(r.error().code, ErrorCode::Invalid);
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << c.text << " -> " << r.error().message;
    EXPECT_EQ(r.error().value, c.text);
  }
}

void expect_v7_layout(const Id& id) {
  EXPECT_EQ(id.version(), 7) << id.to_string();
  EXPECT_EQ(id.bytes()[6] >> 4, 7);
  EXPECT_EQ(id.bytes()[8] & 0xC0, 0x80) << id.to_string();  // RFC 9562 variant 10xx
  const char* variant_chars = "89ab";
  EXPECT_NE(std::string(variant_chars).find(id.to_string()[19]), std::string::npos);
  EXPECT_EQ(id.to_string()[14], '7');
}

TEST(IdTest, GeneratesVersion7WithTheClockTime) {
  VirtualClock clock{Timestamp::parse("2026-11-22T10:00:00.123456Z").value()};
  const Id id = Id::generate(clock);
  expect_v7_layout(id);
  EXPECT_FALSE(id.is_nil());
  // Millisecond precision, the sub-millisecond part dropped (or a later ms if an earlier test
  // in this process already used a later time).
  EXPECT_GE(id.timestamp(), Timestamp::parse("2026-11-22T10:00:00.123Z").value());
  auto round_trip = Id::parse(id.to_string());
  ASSERT_TRUE(round_trip);
  EXPECT_EQ(*round_trip, id);
}

TEST(IdTest, SystemClockIdsCarryNow) {
  const Timestamp before = SystemClock{}.now();
  const Id id = Id::generate();
  const Timestamp after = SystemClock{}.now();
  expect_v7_layout(id);
  // An earlier test may have used a later virtual time; only then may the id be ahead of now.
  if (id.timestamp() <= after) {
    EXPECT_GE(id.timestamp(), before - Duration::milliseconds(1));
  }
}

TEST(IdTest, StrictlyIncreasingWithinOneMillisecond) {
  // A frozen clock: every id shares (at least) the same millisecond, so only the counter orders them.
  VirtualClock clock{Timestamp::parse("2027-01-01T00:00:00Z").value()};
  Id previous = Id::generate(clock);
  std::set<std::string> seen{previous.to_string()};
  for (int i = 0; i < 20000; ++i) {
    const Id next = Id::generate(clock);
    ASSERT_LT(previous, next) << previous.to_string() << " !< " << next.to_string();
    ASSERT_LT(previous.to_string(), next.to_string());  // the text sorts the same way
    expect_v7_layout(next);
    seen.insert(next.to_string());
    previous = next;
  }
  EXPECT_EQ(seen.size(), 20001u);
}

TEST(IdTest, ClockGoingBackwardsStillIncreases) {
  VirtualClock late{Timestamp::parse("2028-06-01T00:00:00Z").value()};
  VirtualClock early{Timestamp::parse("2027-06-01T00:00:00Z").value()};
  const Id a = Id::generate(late);
  const Id b = Id::generate(early);
  EXPECT_LT(a, b);
  EXPECT_EQ(b.timestamp(), a.timestamp());  // keeps the last millisecond
  late.advance(Duration::milliseconds(5));
  const Id c = Id::generate(late);
  EXPECT_LT(b, c);
  EXPECT_EQ(c.timestamp() - a.timestamp(), Duration::milliseconds(5));
}

TEST(IdTest, TimestampIsExtractedFromTheFirst48Bits) {
  // 0x0190e6f45c3a ms = 1721861692474 ms since the epoch.
  const Id id = Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ab").value();
  EXPECT_EQ(id.timestamp(), Timestamp::from_unix_nanos(std::int64_t{0x0190e6f45c3a} * 1'000'000));
  EXPECT_EQ(id.timestamp().to_string(), "2024-07-24T22:54:52.474Z");
  // The largest 48-bit millisecond count does not fit int64 nanoseconds: saturates.
  const Id far = Id::parse("ffffffff-ffff-7fff-bfff-ffffffffffff").value();
  EXPECT_EQ(far.timestamp(), Timestamp::from_unix_nanos(INT64_MAX));
}

TEST(IdTest, UniqueAndOrderedPerThreadAcrossThreads) {
  VirtualClock clock{Timestamp::parse("2029-01-01T00:00:00Z").value()};
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::vector<Id>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      made[static_cast<std::size_t>(t)].reserve(kPerThread);
      for (int i = 0; i < kPerThread; ++i) {
        if (i % 1000 == 0) clock.advance(Duration::milliseconds(1));
        made[static_cast<std::size_t>(t)].push_back(Id::generate(clock));
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<Id> all;
  for (const auto& ids : made) {
    ASSERT_EQ(ids.size(), static_cast<std::size_t>(kPerThread));
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate id across threads";
  for (const Id& id : all) expect_v7_layout(id);
}

TEST(IdTest, RandomBitsDiffer) {
  // Two ids in the same millisecond differ beyond the counter's low bit: the trailing 32 bits
  // are random, so across many ids they take many values.
  VirtualClock clock{Timestamp::parse("2030-01-01T00:00:00Z").value()};
  std::set<std::string> tails;
  for (int i = 0; i < 100; ++i) tails.insert(Id::generate(clock).to_string().substr(28));
  EXPECT_GT(tails.size(), 90u);
}

}  // namespace
}  // namespace budcore::core
