// Budgets stop admission on a platform, and every run is metered into the platform's store.
#include <gtest/gtest.h>

#include "budcore/cost/metering.hpp"
#include "budcore/platform/cost_controls.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

cost::PriceBook prices() {
  auto b = cost::PriceBook::from_text(R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "4.00"}
cpu_core_hour: {on_demand: "0.04"}
memory_gib_hour: {on_demand: "0.005"}
)");
  EXPECT_TRUE(b) << b.error().describe();
  return *b;
}

// Tenant a may spend $10 (hard limit); tenant b has no budget.
cost::BudgetSet budgets() {
  auto s = cost::BudgetSet::from_text(R"(budgets:
  - name: team-a-monthly
    tenant_id: 00000000-0000-4000-8000-00000000000a
    amount: "10.00"
    hard_limit: true
)");
  EXPECT_TRUE(s) << s.error().describe();
  return *s;
}

TEST(PlatformCostTest, ABudgetStopsAdmissionOnceMeteredSpendAndTheEstimateWouldPassIt) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  auto costs = platform::CostControls::attach(*p, prices(), budgets());

  // One A100 for an hour is $4.00, plus the platform's default 1 cpu ($0.04) and 4 GiB ($0.02):
  // $4.06. Two fit in $10, run and are metered.
  std::vector<core::Id> ran;
  for (const char* name : {"first", "second"}) {
    auto r = p->submit(ctx_a(), gpu_job(name, 1, 3600));
    ASSERT_TRUE(r) << r.error().describe();
    ran.push_back(r->record.job.id);
    ASSERT_TRUE(p->run_until_idle());
  }
  EXPECT_EQ(costs->metered(), 2);
  EXPECT_EQ(costs->metering_errors(), 0) << costs->last_metering_error()->describe();
  auto actual = cost::job_actual_cost(p->store(), tenant_a(), ran[0]);
  ASSERT_TRUE(actual) << actual.error().describe();
  EXPECT_EQ(actual->total.to_string(), "4.06 USD");
  EXPECT_EQ(actual->gpu_seconds.to_string(), "3600");

  // $8.12 spent + $4.06 estimated passes $10: denied, naming the budget, and nothing is stored.
  auto denied = p->submit(ctx_a(), gpu_job("third", 1, 3600));
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, core::ErrorCode::BudgetExceeded);
  EXPECT_NE(denied.error().describe().find("team-a-monthly"), std::string::npos) << denied.error().describe();
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 2u);

  // A smaller job still fits ($8.12 + $1.02 <= $10); another tenant has no budget to stop it.
  EXPECT_TRUE(p->submit(ctx_a(), gpu_job("quarter-hour", 1, 900)));
  EXPECT_TRUE(p->submit(ctx_b(), gpu_job("other-team", 1, 3600)));
  ASSERT_TRUE(p->run_until_idle());
  EXPECT_EQ(costs->metered(), 4);
  EXPECT_TRUE(p->check_invariants());
}

TEST(PlatformCostTest, ARetryIsAskedAgainAndAPreemptedRunIsMeteredForWhatItRan) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  auto costs = platform::CostControls::attach(*p, prices(), budgets());
  job::Job j = gpu_job("flaky", 1, 3600);
  j.max_retries = 3;
  set_sim(j, core::Value::map({{"fail_attempts", 1}, {"fail_after_seconds", 1800}}));
  auto r = p->submit(ctx_a(), j);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  auto done = p->get_job(ctx_a(), r->record.job.id);
  ASSERT_TRUE(done);
  // The failed half hour ($2.03) and the successful hour ($4.06) are both metered.
  auto actual = cost::job_actual_cost(p->store(), tenant_a(), r->record.job.id);
  ASSERT_TRUE(actual) << actual.error().describe();
  EXPECT_EQ(actual->records, 2);
  EXPECT_EQ(actual->total.to_string(), "6.09 USD");
  EXPECT_EQ(done->job.status, job::JobStatus::Completed);
}

}  // namespace
}  // namespace budcore::testing
