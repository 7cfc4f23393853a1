// Backoff sequences, deterministic jitter, the circuit breaker's states and the retry decision.
#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <vector>

#include "budcore/core/clock.hpp"
#include "budcore/job/job.hpp"
#include "budcore/job/retry_policy.hpp"

namespace budcore::job {
namespace {

using core::Duration;

TEST(BackoffPolicyTest, ExponentialSequenceSaturatesAtCap) {
  BackoffPolicy p{Duration::seconds(10), 2.0, Duration::minutes(5), 0.0};
  ASSERT_TRUE(p.validate().has_value());
  std::vector<std::int64_t> seconds;
  for (int n = 0; n < 8; ++n) seconds.push_back(p.delay(n).whole_seconds());
  EXPECT_EQ(seconds, (std::vector<std::int64_t>{10, 20, 40, 80, 160, 300, 300, 300}));
  EXPECT_EQ(p.delay(-3), Duration::seconds(10));
  EXPECT_EQ(p.delay(1'000'000), Duration::minutes(5));  // no overflow
  EXPECT_EQ(p.delay(std::numeric_limits<int>::max()), Duration::minutes(5));
  const auto forever = Duration::nanoseconds(std::numeric_limits<std::int64_t>::max());
  BackoffPolicy huge{Duration::seconds(1), 10.0, forever, 0.0};
  EXPECT_EQ(huge.delay(30), forever);
  EXPECT_EQ(huge.delay(3), Duration::seconds(1000));
}

TEST(BackoffPolicyTest, FractionalFactor) {
  BackoffPolicy p{Duration::seconds(4), 1.5, Duration::hours(1), 0.0};
  EXPECT_EQ(p.delay(0), Duration::seconds(4));
  EXPECT_EQ(p.delay(1), Duration::seconds(6));
  EXPECT_EQ(p.delay(2), Duration::seconds(9));
  EXPECT_EQ(p.delay(3), Duration::milliseconds(13500));
  BackoffPolicy constant{Duration::seconds(7), 1.0, Duration::seconds(7), 0.0};
  EXPECT_EQ(constant.delay(50), Duration::seconds(7));
}

TEST(BackoffPolicyTest, JitterIsDeterministicBoundedAndSeedDependent) {
  BackoffPolicy p{Duration::seconds(10), 2.0, Duration::minutes(5), 0.5};
  std::set<std::int64_t> distinct;
  for (int n = 0; n < 10; ++n) {
    BackoffPolicy plain = p;
    plain.jitter = 0.0;
    const Duration full = plain.delay(n);
    for (std::uint64_t seed : {1ULL, 2ULL, 42ULL, 0xdeadbeefULL}) {
      const Duration d = p.delay(n, seed);
      EXPECT_EQ(d, p.delay(n, seed));  // same inputs, same delay
      EXPECT_LE(d, full);
      EXPECT_GE(d.count_ns(), full.count_ns() / 2);  // jitter 0.5 takes at most half
      distinct.insert(d.count_ns());
    }
  }
  EXPECT_GT(distinct.size(), 30u);  // seeds and attempts spread the delays

  BackoffPolicy full_jitter = p;
  full_jitter.jitter = 1.0;
  for (int n = 0; n < 20; ++n) {
    EXPECT_GE(full_jitter.delay(n, 7), Duration());
    EXPECT_LT(full_jitter.delay(n, 7), Duration::minutes(5) + Duration::nanoseconds(1));
  }
}

TEST(BackoffPolicyTest, JitterSeedFromJobId) {
  auto a = *core::Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ab");
  auto b = *core::Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ac");
  EXPECT_EQ(jitter_seed(a), jitter_seed(a));
  EXPECT_NE(jitter_seed(a), jitter_seed(b));
}

TEST(BackoffPolicyTest, ValidationNamesTheField) {
  struct Case {
    BackoffPolicy p;
    const char* field;
  };
  const Case cases[] = {
      {{Duration(), 2.0, Duration::minutes(1), 0.0}, "base"},
      {{Duration::seconds(-1), 2.0, Duration::minutes(1), 0.0}, "base"},
      {{Duration::seconds(1), 0.5, Duration::minutes(1), 0.0}, "factor"},
      {{Duration::seconds(1), std::numeric_limits<double>::infinity(), Duration::minutes(1), 0.0}, "factor"},
      {{Duration::seconds(1), std::numeric_limits<double>::quiet_NaN(), Duration::minutes(1), 0.0}, "factor"},
      {{Duration::seconds(10), 2.0, Duration::seconds(5), 0.0}, "cap"},
      {{Duration::seconds(1), 2.0, Duration::minutes(1), 1.5}, "jitter"},
      {{Duration::seconds(1), 2.0, Duration::minutes(1), -0.1}, "jitter"},
  };
  for (const auto& c : cases) {
    auto st = c.p.validate();
    ASSERT_FALSE(st.has_value()) << c.field;
    EXPECT_EQ(st.error().field, c.field);
    EXPECT_EQ(st.error().code, core::ErrorCode::Invalid);
    EXPECT_FALSE(st.error().value.empty());
  }
  RetryPolicy rp;
  rp.breaker.failure_threshold = 0;
  auto st = rp.validate();
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().field, "breaker.failure_threshold");
  rp = RetryPolicy{};
  rp.backoff.jitter = 2;
  st = rp.validate();
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().field, "backoff.jitter");
  EXPECT_TRUE(RetryPolicy{}.validate().has_value());
}

class CircuitBreakerTest : public ::testing::Test {
 protected:
  CircuitBreakerConfig config{3, Duration::seconds(60), Duration::minutes(10)};
  core::VirtualClock clock;

  // An attempt that fails `after` its start.
  void fail(CircuitBreaker& b, Duration after) {
    const auto start = clock.now();
    clock.advance(after);
    b.record_failure(start, clock.now());
  }
};

TEST_F(CircuitBreakerTest, OpensAfterConsecutiveImmediateFailures) {
  CircuitBreaker b(config);
  EXPECT_EQ(b.state(clock), BreakerState::Closed);
  fail(b, Duration::seconds(5));
  fail(b, Duration::seconds(60));  // at the window's edge still counts as immediate
  EXPECT_EQ(b.state(clock), BreakerState::Closed);
  EXPECT_EQ(b.consecutive_immediate_failures(), 2);
  EXPECT_TRUE(b.try_acquire(clock));
  fail(b, Duration::seconds(1));
  EXPECT_EQ(b.state(clock), BreakerState::Open);
  EXPECT_FALSE(b.try_acquire(clock));
  EXPECT_EQ(b.reopens_at(), clock.now() + Duration::minutes(10));
}

TEST_F(CircuitBreakerTest, LateFailureOrSuccessResetsTheCount) {
  CircuitBreaker b(config);
  fail(b, Duration::seconds(1));
  fail(b, Duration::seconds(1));
  fail(b, Duration::minutes(30));  // ran for a while: not a crash loop
  EXPECT_EQ(b.consecutive_immediate_failures(), 0);
  fail(b, Duration::seconds(1));
  fail(b, Duration::seconds(1));
  b.record_success();
  EXPECT_EQ(b.consecutive_immediate_failures(), 0);
  fail(b, Duration::seconds(1));
  EXPECT_EQ(b.state(clock), BreakerState::Closed);
  EXPECT_FALSE(b.reopens_at().has_value());
}

TEST_F(CircuitBreakerTest, HalfOpensAfterCoolDownAndAdmitsOneProbe) {
  CircuitBreaker b(config);
  for (int i = 0; i < 3; ++i) fail(b, Duration::seconds(2));
  ASSERT_EQ(b.state(clock), BreakerState::Open);
  clock.advance(Duration::minutes(10) - Duration::seconds(1));
  EXPECT_EQ(b.state(clock), BreakerState::Open);
  clock.advance(Duration::seconds(1));
  EXPECT_EQ(b.state(clock), BreakerState::HalfOpen);
  EXPECT_TRUE(b.try_acquire(clock));   // the probe
  EXPECT_FALSE(b.try_acquire(clock));  // only one
  // The probe fails immediately: open again, for a fresh cool-down.
  fail(b, Duration::seconds(3));
  EXPECT_EQ(b.state(clock), BreakerState::Open);
  EXPECT_EQ(b.reopens_at(), clock.now() + Duration::minutes(10));
  clock.advance(Duration::minutes(10));
  ASSERT_TRUE(b.try_acquire(clock));
  b.record_success();
  EXPECT_EQ(b.state(clock), BreakerState::Closed);
  EXPECT_TRUE(b.try_acquire(clock));
  EXPECT_TRUE(b.try_acquire(clock));
}

TEST_F(CircuitBreakerTest, ProbeThatRunsLongClosesTheBreaker) {
  CircuitBreaker b(config);
  for (int i = 0; i < 3; ++i) fail(b, Duration::seconds(2));
  clock.advance(Duration::minutes(10));
  ASSERT_TRUE(b.try_acquire(clock));
  fail(b, Duration::hours(1));
  EXPECT_EQ(b.state(clock), BreakerState::Closed);
  EXPECT_EQ(to_string(BreakerState::HalfOpen), "half_open");
}

TEST(RetryPolicyTest, DecideUsesBudgetBackoffAndBreaker) {
  RetryPolicy policy;
  policy.backoff = {Duration::seconds(10), 2.0, Duration::minutes(5), 0.0};
  policy.breaker = {2, Duration::seconds(60), Duration::minutes(15)};
  Job job;
  job.name = "j";
  job.max_retries = 3;
  job.retry_count = 2;
  const auto failed_at = core::Timestamp::from_unix_seconds(1'800'000'000);

  CircuitBreaker breaker(policy.breaker);
  RetryDecision d = policy.decide(job, breaker, failed_at);
  EXPECT_TRUE(d.retry);
  EXPECT_EQ(d.at, failed_at + Duration::seconds(40));  // delay(retry_count = 2)
  EXPECT_NE(d.reason.find("retry 3 of 3"), std::string::npos) << d.reason;

  // Two immediate failures open the breaker: the retry waits for the cool-down.
  breaker.record_failure(failed_at - Duration::seconds(5), failed_at - Duration::seconds(4));
  breaker.record_failure(failed_at - Duration::seconds(1), failed_at);
  d = policy.decide(job, breaker, failed_at);
  EXPECT_TRUE(d.retry);
  EXPECT_EQ(d.at, failed_at + Duration::minutes(15));
  EXPECT_NE(d.reason.find("circuit breaker open"), std::string::npos) << d.reason;

  job.retry_count = 3;
  d = policy.decide(job, breaker, failed_at);
  EXPECT_FALSE(d.retry);
  EXPECT_NE(d.reason.find("retry budget exhausted"), std::string::npos) << d.reason;
}

TEST(RetryPolicyTest, DecideJitterFollowsTheJobId) {
  RetryPolicy policy;
  policy.backoff.jitter = 1.0;
  Job a;
  a.id = *core::Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ab");
  Job b = a;
  b.id = *core::Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ac");
  CircuitBreaker breaker;
  const auto t = core::Timestamp::from_unix_seconds(1'800'000'000);
  EXPECT_EQ(policy.decide(a, breaker, t).at, policy.decide(a, breaker, t).at);
  EXPECT_NE(policy.decide(a, breaker, t).at, policy.decide(b, breaker, t).at);
}

}  // namespace
}  // namespace budcore::job
