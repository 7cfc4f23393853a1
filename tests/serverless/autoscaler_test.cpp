#include "budcore/serverless/autoscaler.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace budcore::serverless {
namespace {

using core::Duration;
using core::Timestamp;

EndpointConfig endpoint(const std::string& extra = {}) {
  auto c = EndpointConfig::from_text(
      "name: e\nmodel: m\nconcurrency_per_worker: 4\nprice_per_gpu_hour: \"3.60\"\n"
      "cold_start: {container_seconds: 4, model_gib: 16, load_gib_per_second: 1, warmup_seconds: 2}\n" + extra);
  EXPECT_TRUE(c) << c.error().describe();
  return *c;
}

const Timestamp kT0 = Timestamp::from_unix_seconds(1'700'000'000);

Observation at(int second, std::int64_t load, int ready) {
  Observation o;
  o.now = kT0 + Duration::seconds(second);
  o.in_flight = load;
  o.ready = ready;
  o.workers = ready;
  return o;
}

TEST(QueueDepthPolicyTest, CoversTheLoadPlusSpareAndHoldsWorkersForTheIdleTimeout) {
  QueueDepthPolicy p(endpoint("warm_pool: {target_warm_workers: 1, idle_timeout_seconds: 60}\n"));
  EXPECT_EQ(p.desired(at(0, 10, 0)), 4);   // ceil(10 / 4) + 1 spare
  EXPECT_EQ(p.desired(at(30, 0, 4)), 4);   // the 3 needed at t=0 are held for 60 s
  EXPECT_EQ(p.desired(at(59, 0, 4)), 4);
  EXPECT_EQ(p.desired(at(60, 0, 4)), 0);   // 60 s without traffic: down to min_warm_workers
}

TEST(QueueDepthPolicyTest, NeverGoesBelowMinWarmWorkers) {
  QueueDepthPolicy p(endpoint("warm_pool: {min_warm_workers: 2, idle_timeout_seconds: 10}\n"));
  EXPECT_EQ(p.desired(at(0, 0, 2)), 2);
  EXPECT_EQ(p.desired(at(100, 0, 2)), 2);
}

// Target 4 x 0.7 = 2.8 concurrent requests per worker.
TEST(KpaPolicyTest, AStepInLoadPanicsWithinThePanicWindow) {
  KpaPolicy p(endpoint());
  for (int t = 0; t < 60; ++t) EXPECT_EQ(p.desired(at(t, 2, 1)), 1) << t;  // ceil(2 / 2.8)
  EXPECT_FALSE(p.in_panic());
  // Panic window (6 s) average at t=60: (5 x 2 + 20) / 6 = 5 -> 5 / 2.8 = 1.79 x ready, under 200%.
  EXPECT_EQ(p.desired(at(60, 20, 1)), 1);
  EXPECT_FALSE(p.in_panic());
  // t=61: (4 x 2 + 2 x 20) / 6 = 8 -> 2.86 x ready: panic, ceil(8 / 2.8) = 3 workers.
  EXPECT_EQ(p.desired(at(61, 20, 1)), 3);
  EXPECT_TRUE(p.in_panic());
  // t=62: (3 x 2 + 3 x 20) / 6 = 11 -> ceil(3.93) = 4.
  EXPECT_EQ(p.desired(at(62, 20, 1)), 4);
}

TEST(KpaPolicyTest, DoesNotScaleDownWhilePanickingAndLeavesPanicAfterAStableWindow) {
  KpaPolicy p(endpoint());
  EXPECT_EQ(p.desired(at(0, 30, 1)), 11);  // 30 / 2.8 = 10.7 x ready: panic at once
  EXPECT_TRUE(p.in_panic());
  int last = 11;
  for (int t = 1; t < 60; ++t) {
    const int d = p.desired(at(t, 0, 11));
    EXPECT_GE(d, last) << t;
    last = d;
  }
  EXPECT_TRUE(p.in_panic());
  p.desired(at(60, 0, 11));  // 60 s since the panic condition last held
  EXPECT_FALSE(p.in_panic());
}

TEST(KpaPolicyTest, ScalesToZeroOnlyAfterTheGracePeriod) {
  KpaPolicy p(endpoint());
  for (int t = 0; t < 10; ++t) EXPECT_EQ(p.desired(at(t, 1, 1)), 1);
  // The stable window (60 s) still holds the sample of t=9 until t=69; then 30 s of grace.
  for (int t = 10; t < 99; ++t) EXPECT_EQ(p.desired(at(t, 0, 1)), 1) << t;
  EXPECT_EQ(p.desired(at(99, 0, 1)), 0);
}

TEST(RayServePolicyTest, UpscalesAfterTheUpscaleDelayAndDownscalesAfterTheDownscaleDelay) {
  RayServePolicy p(endpoint());
  // 10 ongoing requests over a target of 2: 5 replicas, applied once wanted for 30 s.
  for (int t = 0; t < 30; ++t) EXPECT_EQ(p.desired(at(t, 10, 1)), 1) << t;
  EXPECT_EQ(p.desired(at(30, 10, 1)), 5);
  // Idle from t=31: the 30 s look-back average first asks for fewer at t=36 (8 ongoing -> 4),
  // and the decision waits 600 s from there.
  for (int t = 31; t < 636; ++t) EXPECT_EQ(p.desired(at(t, 0, 5)), 5) << t;
  EXPECT_EQ(p.desired(at(636, 0, 5)), 0);
}

TEST(RayServePolicyTest, ScalesFromZeroAtOnce) {
  RayServePolicy p(endpoint());
  EXPECT_EQ(p.desired(at(0, 0, 0)), 0);
  EXPECT_EQ(p.desired(at(1, 1, 0)), 1);
}

TEST(PredictivePolicyTest, ForecastsARisingLoadOneColdStartAhead) {
  PredictivePolicy p(endpoint("warm_pool: {target_warm_workers: 1}\n"));
  // Arrived work of 2, 4 and 6 compute-seconds per second over three 10 s buckets.
  for (int t = 0; t < 30; ++t) {
    Observation o = at(t, 0, 1);
    o.arrivals = 1;
    o.arrived_work = Duration::seconds(2 * (t / 10 + 1));
    p.desired(o);
  }
  const int d = p.desired(at(30, 0, 1));
  // Holt: level 2, trend 0; level 3, trend 0.3; level 4.65, trend 0.705. One cold start
  // (22 s = 2.2 buckets) ahead: 4.65 + 2.2 x 0.705 = 6.201 busy slots.
  EXPECT_NEAR(p.forecast(), 6.201, 1e-9);
  EXPECT_EQ(d, 3);  // ceil(6.201 x 1.2 / 4) + 1 spare
}

TEST(PredictivePolicyTest, PrewarmsForWhatHappenedAtTheSameTimeYesterday) {
  PredictivePolicy p(endpoint());  // 24 h of history in 10 s buckets
  // One observation per 10 s bucket; bucket 50 (t = 500 s) brings 100 s of work: 10 per second.
  const auto observe = [&](int bucket) {
    Observation o = at(bucket * 10, 0, 1);
    if (bucket == 50) {
      o.arrivals = 1;
      o.arrived_work = Duration::seconds(100);
    }
    p.desired(o);
  };
  for (int b = 0; b <= 8686; ++b) observe(b);
  // Closing bucket 8685 looks at yesterday's bucket 8685 - 8640 + 1 + 3 (one 22 s cold start
  // ahead) = 49: quiet.
  EXPECT_LT(p.forecast(), 0.01);
  observe(8687);  // closes bucket 8686: yesterday's bucket 50 is one cold start ahead
  EXPECT_DOUBLE_EQ(p.forecast(), 10.0);
}

TEST(BudgetCapPolicyTest, KeepsIdleWorkersWithinTheHourlyCap) {
  // $7.20 per hour over $3.60 per idle worker-hour: two idle workers at most.
  const EndpointConfig c = endpoint("warm_pool: {max_idle_cost_per_hour: \"7.20\", target_warm_workers: 5, max_warm_workers: 20}\n");
  BudgetCapPolicy p(c, std::make_unique<QueueDepthPolicy>(c));
  EXPECT_EQ(p.max_idle_workers(), 2);
  Observation o = at(0, 12, 3);
  o.busy = 3;
  o.starting = 1;
  EXPECT_EQ(p.desired(o), 6);  // the inner 3 + 5 spare is capped at 3 busy + 1 starting + 2 idle
}

TEST(MakePolicyTest, KnowsEveryPolicyByName) {
  const EndpointConfig c = endpoint("warm_pool: {max_idle_cost_per_hour: \"7.20\"}\n");
  for (std::string_view name : kPolicyNames) {
    auto p = make_policy(name, c);
    ASSERT_TRUE(p) << p.error().describe();
    EXPECT_EQ((*p)->name(), name);
  }
  auto bad = make_policy("hpa", c, "--policy");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "--policy");
  EXPECT_EQ(bad.error().value, "hpa");
  auto uncapped = make_policy("budget", endpoint());
  ASSERT_FALSE(uncapped);
  EXPECT_EQ(uncapped.error().field, "warm_pool.max_idle_cost_per_hour");
}

}  // namespace
}  // namespace budcore::serverless
