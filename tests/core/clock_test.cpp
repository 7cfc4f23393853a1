#include "budcore/core/clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace budcore::core {
namespace {

TEST(ClockTest, SystemClockFollowsTheWallClock) {
  const auto before = std::chrono::system_clock::now();
  const Timestamp now = SystemClock{}.now();
  const auto after = std::chrono::system_clock::now();
  const auto to_ns = [](std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  EXPECT_GE(now.unix_nanos(), to_ns(before));
  EXPECT_LE(now.unix_nanos(), to_ns(after));
  EXPECT_GT(now, Timestamp::parse("2024-01-01T00:00:00Z").value());
}

TEST(ClockTest, SystemClockIsShared) {
  const std::shared_ptr<Clock> a = system_clock();
  const std::shared_ptr<Clock> b = system_clock();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(dynamic_cast<SystemClock*>(a.get()), nullptr);
}

TEST(VirtualClockTest, StartsAtTheGivenTimeOrNewYear2026) {
  EXPECT_EQ(VirtualClock{}.now().to_string(), "2026-01-01T00:00:00Z");
  const Timestamp start = Timestamp::parse("2026-11-22T10:00:00Z").value();
  EXPECT_EQ(VirtualClock{start}.now(), start);
}

TEST(VirtualClockTest, AdvanceMovesForwardOnly) {
  VirtualClock clock;
  const Timestamp start = clock.now();
  clock.advance(Duration::minutes(90));
  EXPECT_EQ(clock.now() - start, Duration::minutes(90));
  clock.advance(Duration::seconds(-10));  // ignored: a clock never goes backwards
  EXPECT_EQ(clock.now() - start, Duration::minutes(90));
  clock.advance(Duration{});
  EXPECT_EQ(clock.now() - start, Duration::minutes(90));
}

TEST(VirtualClockTest, AdvanceSaturatesAtTheEndOfTime) {
  VirtualClock clock{Timestamp::from_unix_nanos(INT64_MAX - 10)};
  clock.advance(Duration::seconds(1));
  EXPECT_EQ(clock.now(), Timestamp::from_unix_nanos(INT64_MAX));
  clock.advance(Duration::max());
  EXPECT_EQ(clock.now(), Timestamp::from_unix_nanos(INT64_MAX));
}

TEST(VirtualClockTest, SetNeverGoesBackwards) {
  VirtualClock clock;
  const Timestamp start = clock.now();
  EXPECT_TRUE(clock.set(start + Duration::hours(1)));
  EXPECT_EQ(clock.now(), start + Duration::hours(1));
  EXPECT_FALSE(clock.set(start));
  EXPECT_EQ(clock.now(), start + Duration::hours(1));
  EXPECT_TRUE(clock.set(start + Duration::hours(1)));  // same time: nothing to do, not an error
  EXPECT_EQ(clock.now(), start + Duration::hours(1));
}

TEST(VirtualClockTest, ConcurrentAdvanceAndSetLoseNothing) {
  VirtualClock clock{Timestamp{}};
  constexpr int kThreads = 4;
  constexpr int kSteps = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      Timestamp last = clock.now();
      for (int i = 0; i < kSteps; ++i) {
        clock.advance(Duration::nanoseconds(1));
        clock.set(Timestamp{});  // always in the past: must never move the clock back
        const Timestamp now = clock.now();
        EXPECT_GE(now, last);
        last = now;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(clock.now().unix_nanos(), kThreads * kSteps);
}

TEST(VirtualClockTest, UsableThroughTheClockInterface) {
  auto clock = std::make_shared<VirtualClock>();
  const std::shared_ptr<Clock> as_clock = clock;
  const Timestamp before = as_clock->now();
  clock->advance(Duration::hours(24));
  EXPECT_EQ(as_clock->now() - before, Duration::hours(24));
  EXPECT_EQ(as_clock->now().to_string(), "2026-01-02T00:00:00Z");
}

}  // namespace
}  // namespace budcore::core
