// Budgets stop admission on a platform, and every run is metered into the platform's store.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "budcore/cost/metering.hpp"
#include "budcore/platform/cost_controls.hpp"
#include "backends/loopback_http_server.hpp"
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
  // actual_cost on the job covers both runs.
  ASSERT_TRUE(done->job.actual_cost);
  EXPECT_EQ(*done->job.actual_cost, actual->total);
}

core::Money usd(std::string_view amount) { return core::Money::parse(amount, "USD").value(); }

job::Job read_job(platform::Platform& p, const core::Id& id) {
  auto r = p.get_job(ctx_a(), id);
  EXPECT_TRUE(r) << r.error().describe();
  return r ? r->job : job::Job{};
}

TEST(PlatformCostTest, AnEndedJobCarriesItsActualCostInItsOwnCurrency) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  auto book = prices();
  book.conversions["EUR"] = core::Quantity::parse("0.92").value();
  auto costs = platform::CostControls::attach(*p, book, {});

  auto done = p->submit(ctx_a(), gpu_job("done", 1, 3600));
  job::Job in_euros = gpu_job("in-euros", 1, 1800);
  in_euros.currency = "EUR";
  auto euros = p->submit(ctx_a(), in_euros);
  ASSERT_TRUE(done && euros);
  EXPECT_FALSE(done->record.job.actual_cost);  // nothing before it ends
  ASSERT_TRUE(p->run_until_idle());
  job::Job j = read_job(*p, done->record.job.id);
  ASSERT_TRUE(j.actual_cost) << j.status_message.value_or("");
  EXPECT_EQ(*j.actual_cost, cost::job_actual_cost(p->store(), tenant_a(), j.id)->total);
  EXPECT_EQ(*j.actual_cost, usd("4.06"));
  // $2.03 at 0.92 EUR per USD.
  j = read_job(*p, euros->record.job.id);
  ASSERT_TRUE(j.actual_cost);
  EXPECT_EQ(j.actual_cost->to_string(), "1.8676 EUR");

  // Cancelled while running: the cost of the half hour it ran, once the cluster reports it.
  auto cancelled = p->submit(ctx_a(), gpu_job("cancelled", 1, 3600));
  ASSERT_TRUE(cancelled);
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(1800)));
  ASSERT_TRUE(p->cancel_job(ctx_a(), cancelled->record.job.id, "enough"));
  ASSERT_TRUE(p->pump());
  j = read_job(*p, cancelled->record.job.id);
  EXPECT_EQ(j.status, job::JobStatus::Cancelled);
  ASSERT_TRUE(j.actual_cost);
  EXPECT_EQ(*j.actual_cost, usd("2.03"));

  // Cancelled before it ran (the cluster is full of other tenants' work? here: a job nobody
  // admits — more GPUs than the cluster has): it cost nothing.
  auto never = p->submit(ctx_a(), gpu_job("never", 64, 3600));
  ASSERT_TRUE(never) << never.error().describe();
  auto c = p->cancel_job(ctx_a(), never->record.job.id);
  ASSERT_TRUE(c) << c.error().describe();
  ASSERT_TRUE(c->job.actual_cost);
  EXPECT_TRUE(c->job.actual_cost->is_zero());
  EXPECT_EQ(costs->metering_errors(), 0);
  EXPECT_TRUE(p->check_invariants());
}

TEST(PlatformCostTest, AJobThePriceBookCannotPriceKeepsNoActualCost) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  // The book has no price for an H100. The budget gate refuses such a job at submission, so
  // this one was submitted before cost controls were attached (or under another price book).
  auto r = p->submit(ctx_a(), gpu_job("h100", 1, 600, "nvidia-h100-sxm"));
  ASSERT_TRUE(r) << r.error().describe();
  auto costs = platform::CostControls::attach(*p, prices(), {});
  auto refused = p->submit(ctx_a(), gpu_job("h100-again", 1, 600, "nvidia-h100-sxm"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "gpu_type");
  // Its run is a metering error naming the GPU type, and actual_cost stays absent rather than
  // showing the part that could be priced.
  ASSERT_TRUE(p->run_until_idle());
  job::Job j = read_job(*p, r->record.job.id);
  EXPECT_EQ(j.status, job::JobStatus::Completed);
  EXPECT_FALSE(j.actual_cost);
  EXPECT_EQ(costs->metering_errors(), 1);
  ASSERT_TRUE(costs->last_metering_error());
  EXPECT_NE(costs->last_metering_error()->describe().find("nvidia-h100-sxm"), std::string::npos)
      << costs->last_metering_error()->describe();
}

// $2 per A100-hour, nothing for cpu and memory.
cost::PriceBook two_dollars_an_hour() {
  auto b = cost::PriceBook::from_text(R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "2.00"}
cpu_core_hour: {on_demand: "0"}
memory_gib_hour: {on_demand: "0"}
)");
  EXPECT_TRUE(b) << b.error().describe();
  return *b;
}

TEST(PlatformCostTest, ARunningJobIsFailedWhenItsCostPassesItsBudgetLimit) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  auto costs = platform::CostControls::attach(*p, two_dollars_an_hour(), {});
  job::Job capped = gpu_job("capped", 1, 3600);
  capped.budget_limit = usd("1.00");
  job::Job roomy = gpu_job("roomy", 1, 3600);
  roomy.budget_limit = usd("2.00");  // exactly its cost: not past it
  auto a = p->submit(ctx_a(), capped);
  auto b = p->submit(ctx_a(), roomy);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(p->run_until_idle());

  // $1.00 is reached after 1800 s and passed in the 1801st: stopped there, not completed.
  job::Job j = read_job(*p, a->record.job.id);
  EXPECT_EQ(j.status, job::JobStatus::Failed);
  ASSERT_TRUE(j.actual_start && j.actual_end);
  EXPECT_EQ((*j.actual_end - *j.actual_start).count_ns(), 1801LL * 1'000'000'000);
  ASSERT_TRUE(j.status_message);
  EXPECT_NE(j.status_message->find("BudgetExceeded"), std::string::npos) << *j.status_message;
  EXPECT_NE(j.status_message->find("budget_limit"), std::string::npos) << *j.status_message;
  EXPECT_NE(j.status_message->find("1.00 USD"), std::string::npos) << *j.status_message;
  EXPECT_EQ(j.retry_count, 0);
  ASSERT_TRUE(j.actual_cost);
  EXPECT_EQ(*j.actual_cost, cost::job_actual_cost(p->store(), tenant_a(), j.id)->total);
  EXPECT_EQ(j.actual_cost->amount_string(), "1.000555555556");  // 1801 s at $2/h

  j = read_job(*p, b->record.job.id);
  EXPECT_EQ(j.status, job::JobStatus::Completed);
  ASSERT_TRUE(j.actual_cost);
  EXPECT_EQ(*j.actual_cost, usd("2.00"));
  EXPECT_EQ(costs->metering_errors(), 0);
  EXPECT_TRUE(p->check_invariants());
  EXPECT_NE(p->metrics().find("failure_reason=\"BudgetExceeded\""), std::string::npos);
}

// Tenant a's $4 budget stops running jobs once passed (no hard limit: admission goes on).
TEST(PlatformCostTest, ABudgetWithStopRunningStopsTheRunningJobsItCoversOncePassed) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  auto set = cost::BudgetSet::from_text(R"(budgets:
  - {name: team-a-stop, tenant_id: 00000000-0000-4000-8000-00000000000a, amount: "4.00", stop_running: true}
)");
  ASSERT_TRUE(set) << set.error().describe();
  auto costs = platform::CostControls::attach(*p, two_dollars_an_hour(), *set);
  auto hour = p->submit(ctx_a(), gpu_job("hour", 1, 3600));             // $2.00 at +1h
  auto ninety = p->submit(ctx_a(), gpu_job("ninety-minutes", 1, 5400));  // $3.00 at +1h30
  auto long_a = p->submit(ctx_a(), gpu_job("long-a", 1, 36000));
  auto long_b = p->submit(ctx_b(), gpu_job("long-b", 1, 36000));  // another tenant: not covered
  ASSERT_TRUE(hour && ninety && long_a && long_b);
  ASSERT_TRUE(p->run_until_idle());

  // $2.00 metered at +1h is within $4; $5.00 at +1h30 passes it: long-a is stopped then.
  EXPECT_EQ(read_job(*p, hour->record.job.id).status, job::JobStatus::Completed);
  EXPECT_EQ(read_job(*p, ninety->record.job.id).status, job::JobStatus::Completed);
  job::Job j = read_job(*p, long_a->record.job.id);
  EXPECT_EQ(j.status, job::JobStatus::Failed);
  ASSERT_TRUE(j.actual_start && j.actual_end);
  EXPECT_EQ((*j.actual_end - *j.actual_start).count_ns(), 5400LL * 1'000'000'000);
  ASSERT_TRUE(j.status_message);
  EXPECT_NE(j.status_message->find("BudgetExceeded: budget 'team-a-stop'"), std::string::npos) << *j.status_message;
  EXPECT_NE(j.status_message->find("5.00 USD spent"), std::string::npos) << *j.status_message;
  EXPECT_NE(j.status_message->find("stops running jobs"), std::string::npos) << *j.status_message;
  EXPECT_EQ(j.retry_count, 0);
  ASSERT_TRUE(j.actual_cost);
  EXPECT_EQ(*j.actual_cost, usd("3.00"));  // the 1h30 it ran
  auto ctx_b_get = p->get_job(ctx_b(), long_b->record.job.id);
  ASSERT_TRUE(ctx_b_get);
  EXPECT_EQ(ctx_b_get->job.status, job::JobStatus::Completed);

  // Without a hard limit a new job is admitted, and stopped as soon as it runs.
  auto late = p->submit(ctx_a(), gpu_job("late", 1, 600));
  ASSERT_TRUE(late) << late.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  j = read_job(*p, late->record.job.id);
  EXPECT_EQ(j.status, job::JobStatus::Failed);
  EXPECT_NE(j.status_message.value_or("").find("team-a-stop"), std::string::npos);
  EXPECT_EQ(costs->metering_errors(), 0);
  EXPECT_TRUE(p->check_invariants());
}

TEST(PlatformCostTest, ABudgetLimitCountsTheEarlierRunsOfARetriedJob) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  auto costs = platform::CostControls::attach(*p, two_dollars_an_hour(), {});
  // The first run fails after 20 min ($0.67 of $1.00); the retry may run 10 min more.
  job::Job j = gpu_job("flaky-capped", 1, 3600);
  j.max_retries = 3;
  j.budget_limit = usd("1.00");
  set_sim(j, core::Value::map({{"fail_attempts", 1}, {"fail_after_seconds", 1200}}));
  auto r = p->submit(ctx_a(), j);
  ASSERT_TRUE(r);
  ASSERT_TRUE(p->run_until_idle());
  job::Job done = read_job(*p, r->record.job.id);
  EXPECT_EQ(done.status, job::JobStatus::Failed);
  EXPECT_EQ(done.retry_count, 1);
  ASSERT_TRUE(done.status_message);
  EXPECT_NE(done.status_message->find("BudgetExceeded"), std::string::npos) << *done.status_message;
  ASSERT_TRUE(done.actual_start && done.actual_end);
  EXPECT_EQ((*done.actual_end - *done.actual_start).count_ns(), 601LL * 1'000'000'000);
  auto actual = cost::job_actual_cost(p->store(), tenant_a(), done.id);
  ASSERT_TRUE(actual);
  EXPECT_EQ(actual->records, 2);
  ASSERT_TRUE(done.actual_cost);
  EXPECT_EQ(*done.actual_cost, actual->total);
  EXPECT_EQ(done.actual_cost->amount_string(), "1.000555555556");  // 1200 s + 601 s at $2/h
  EXPECT_EQ(costs->metering_errors(), 0);
}

TEST(PlatformCostTest, ABudgetLimitIsWatchedAgainAfterTheJobsPlatformReopens) {
  PlatformTarget t;
  core::Id id;
  {
    auto p = t.open();
    ASSERT_TRUE(p);
    platform::CostControls::attach(*p, two_dollars_an_hour(), {});
    job::Job j = gpu_job("capped", 1, 3600);
    j.budget_limit = usd("1.00");
    auto r = p->submit(ctx_a(), j);
    ASSERT_TRUE(r);
    id = r->record.job.id;
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(600)));
    EXPECT_EQ(read_job(*p, id).status, job::JobStatus::Running);
  }
  auto p = t.open();
  ASSERT_TRUE(p);
  platform::CostControls::attach(*p, two_dollars_an_hour(), {});
  ASSERT_TRUE(p->run_until_idle());
  job::Job j = read_job(*p, id);
  EXPECT_EQ(j.status, job::JobStatus::Failed);
  ASSERT_TRUE(j.actual_start && j.actual_end);
  EXPECT_EQ((*j.actual_end - *j.actual_start).count_ns(), 1801LL * 1'000'000'000);
}

// Runs SQL on the platform's SQLite file directly, as another writer would.
void raw_exec(const PlatformTarget& t, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((t.dir->path / "budcore.db").c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  const std::string msg = err != nullptr ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

// A run's usage row and its job's actual_cost commit with the transition that ends the run, or
// none of them does: with the usage table refusing rows, the batch that completes the jobs
// fails whole, and a reopened platform completes and prices them from the store.
TEST(PlatformCostTest, UsageAndActualCostCommitWithTheTransitionThatEndsTheRun) {
  PlatformTarget t;
  std::vector<core::Id> ids;
  {
    auto p = t.open();
    ASSERT_TRUE(p);
    auto costs = platform::CostControls::attach(*p, prices(), {});
    for (const char* name : {"one", "two", "three"}) {
      auto r = p->submit(ctx_a(), gpu_job(name, 1, 3600));
      ASSERT_TRUE(r) << r.error().describe();
      ids.push_back(r->record.job.id);
    }
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(1800)));
    raw_exec(t, "CREATE TRIGGER refuse_usage BEFORE INSERT ON usage_records "
                "BEGIN SELECT RAISE(ABORT, 'usage refused'); END");
    auto ended = p->run_until_idle();
    ASSERT_FALSE(ended);
    EXPECT_NE(ended.error().describe().find("usage refused"), std::string::npos) << ended.error().describe();
    EXPECT_EQ(costs->metering_errors(), 0);

    // Read from another handle: the halted platform answers nothing.
    auto store = backend::open_store(t.config.store_uri);
    ASSERT_TRUE(store) << store.error().describe();
    for (const core::Id& id : ids) {
      auto rec = (*store)->get_job(tenant_a(), id);
      ASSERT_TRUE(rec) << rec.error().describe();
      EXPECT_EQ(rec->job.status, job::JobStatus::Running);
      EXPECT_FALSE(rec->job.actual_cost);
      EXPECT_EQ(cost::job_actual_cost(**store, tenant_a(), id)->records, 0);
    }
  }
  raw_exec(t, "DROP TRIGGER refuse_usage");
  auto p = t.open();
  ASSERT_TRUE(p);
  auto costs = platform::CostControls::attach(*p, prices(), {});
  ASSERT_TRUE(p->run_until_idle());
  for (const core::Id& id : ids) {
    job::Job j = read_job(*p, id);
    EXPECT_EQ(j.status, job::JobStatus::Completed);
    auto actual = cost::job_actual_cost(p->store(), tenant_a(), id);
    ASSERT_TRUE(actual) << actual.error().describe();
    EXPECT_EQ(actual->records, 1);
    ASSERT_TRUE(j.actual_cost);
    EXPECT_EQ(*j.actual_cost, usd("4.06"));
  }
  EXPECT_EQ(costs->metering_errors(), 0);
  EXPECT_TRUE(p->check_invariants());
}

}  // namespace
}  // namespace budcore::testing

namespace budcore::testing {
namespace {

// The config's `cost` section attaches CostControls on open (every surface that opens a
// platform from a config document gets them).
TEST(PlatformCostConfigTest, ACostSectionAttachesCostControlsOnOpen) {
  TempDir dir;
  const std::string prices_path = (dir.path / "prices.yaml").string();
  {
    std::ofstream f(prices_path);
    f << "currency: USD\ngpu_hour:\n  nvidia-a100-80gb: {on_demand: \"2.00\"}\ncpu_core_hour: {on_demand: \"0\"}\n"
         "memory_gib_hour: {on_demand: \"0\"}\n";
  }
  for (const std::string& prices : {std::string("\"" + prices_path + "\""),
                                    std::string(R"({"currency": "USD", "gpu_hour": {"nvidia-a100-80gb": {"on_demand": "2.00"}},
                                                    "cpu_core_hour": {"on_demand": "0"}, "memory_gib_hour": {"on_demand": "0"}})")}) {
    SCOPED_TRACE(prices);
    TempDir store;
    auto config = platform::PlatformConfig::parse(R"({"store": "sqlite://)" + (store.path / "b.db").string() +
                                                  R"(", "cost": {"prices": )" + prices + R"(, "budgets": [
        {"name": "tiny", "tenant_id": "00000000-0000-4000-8000-00000000000a", "amount": "2.50", "hard_limit": true}]}})");
    ASSERT_TRUE(config) << config.error().describe();
    ASSERT_TRUE(config->prices);
    ASSERT_EQ(config->budgets.budgets.size(), 1u);
    EXPECT_EQ(config->budgets.budgets[0].amount.to_string(), "2.50 USD");
    auto p = platform::Platform::open(*config);
    ASSERT_TRUE(p) << p.error().describe();
    ASSERT_TRUE((*p)->cost_controls());
    job::Job capped = gpu_job("capped", 1, 3600);
    capped.budget_limit = core::Money::parse("1.00", "USD").value();
    auto r = (*p)->submit(ctx_a(), capped);
    ASSERT_TRUE(r) << r.error().describe();
    ASSERT_TRUE((*p)->run_until_idle());
    auto j = (*p)->get_job(ctx_a(), r->record.job.id);
    ASSERT_TRUE(j);
    EXPECT_EQ(j->job.status, job::JobStatus::Failed);
    ASSERT_TRUE(j->job.actual_cost);
    EXPECT_EQ(j->job.actual_cost->amount_string(), "1.000555555556");
    // $1.00 spent + $2.00 estimated for an hour passes the $2.50 budget; half an hour fits.
    EXPECT_TRUE((*p)->submit(ctx_a(), gpu_job("half-hour", 1, 1800)));
    auto denied = (*p)->submit(ctx_a(), gpu_job("hour", 1, 3600));
    ASSERT_FALSE(denied);
    EXPECT_EQ(denied.error().code, core::ErrorCode::BudgetExceeded);
    EXPECT_EQ((*p)->cost_controls()->metered(), 1);
  }
}

// cost.alerts.webhook: threshold alerts reach a real HTTP receiver on loopback as metered
// spend crosses them, each once; a refused delivery is retried with the next batch.
TEST(PlatformCostConfigTest, BudgetThresholdAlertsArePostedToTheWebhookAsSpendCrossesThem) {
  LoopbackHttpServer receiver;
  receiver.enqueue({.status = 500, .reason = "Internal Server Error", .body = "down"});
  TempDir store;
  auto config = platform::PlatformConfig::parse(budget_alert_config((store.path / "b.db").string(), receiver.url("/alerts")));
  ASSERT_TRUE(config) << config.error().describe();
  ASSERT_TRUE(config->budget_alerts);
  auto p = platform::Platform::open(*config);
  ASSERT_TRUE(p) << p.error().describe();
  auto costs = (*p)->cost_controls();
  ASSERT_TRUE(costs);
  // $2.00 metered at +1h crosses 50% (its delivery refused), $5.00 at +1h30 crosses 100%.
  ASSERT_TRUE((*p)->submit(ctx_a(), gpu_job("hour", 1, 3600)));
  ASSERT_TRUE((*p)->submit(ctx_a(), gpu_job("ninety-minutes", 1, 5400)));
  ASSERT_TRUE((*p)->run_until_idle());
  auto sent = receiver.requests();
  ASSERT_EQ(sent.size(), 3u);
  for (const auto& r : sent) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.target, "/alerts");
  }
  EXPECT_NE(sent[0].body.find("reached 50%"), std::string::npos) << sent[0].body;
  EXPECT_NE(sent[1].body.find("reached 50%"), std::string::npos) << sent[1].body;  // the retry
  EXPECT_NE(sent[2].body.find("reached 100%"), std::string::npos) << sent[2].body;
  EXPECT_NE(sent[2].body.find("5.00 USD of 4.00 USD"), std::string::npos) << sent[2].body;
  EXPECT_EQ(costs->alerts_raised(), 2);
  EXPECT_EQ(costs->alert_errors(), 1);
  ASSERT_TRUE(costs->last_alert_error());
  EXPECT_NE(costs->last_alert_error()->describe().find("500"), std::string::npos)
      << costs->last_alert_error()->describe();
  // Recorded once each in the tenant's audit log, which is what keeps them from repeating.
  backend::AuditQuery q;
  q.object_type = "budget_alert";
  auto audit = (*p)->store().list_audit(tenant_a(), q, {});
  ASSERT_TRUE(audit) << audit.error().describe();
  EXPECT_EQ(audit->items.size(), 2u);
  ASSERT_TRUE((*p)->submit(ctx_a(), gpu_job("more", 1, 600)));
  ASSERT_TRUE((*p)->run_until_idle());
  EXPECT_EQ(receiver.requests().size(), 3u);  // no threshold left to cross
}

TEST(PlatformCostConfigTest, ABadCostSectionIsAnErrorNamingItsPath) {
  auto error_of = [](std::string_view cost) {
    auto c = platform::PlatformConfig::parse(R"({"store": "sqlite:///tmp/x.db", "cost": )" + std::string(cost) + "}");
    EXPECT_FALSE(c) << cost;
    return c ? core::Error{} : c.error();
  };
  const std::string book = R"({"currency": "USD", "gpu_hour": {"nvidia-a100-80gb": {"on_demand": "2.00"}}})";
  core::Error e = error_of(R"({"price": {}})");
  EXPECT_EQ(e.field, "cost.price");
  EXPECT_NE(e.message.find("did you mean 'prices'"), std::string::npos) << e.describe();
  e = error_of(R"({"budgets": []})");
  EXPECT_EQ(e.field, "cost.prices");
  e = error_of(R"({"prices": {"currency": "USD", "gpu_hour": {"a100": {"on_demand": "-1"}}}})");
  EXPECT_EQ(e.field, "cost.prices.gpu_hour.a100.on_demand") << e.describe();
  e = error_of(R"({"prices": )" + book + R"(, "budgets": [{"name": "x", "tenant_id": "nope", "amount": "1"}]})");
  EXPECT_EQ(e.field, "cost.budgets[0].tenant_id") << e.describe();
  e = error_of(R"({"prices": )" + book + R"(, "budgets": 3})");
  EXPECT_EQ(e.field, "cost.budgets") << e.describe();
  e = error_of(R"({"prices": "-"})");
  EXPECT_EQ(e.field, "cost.prices") << e.describe();
  e = error_of(R"({"prices": )" + book + R"(, "alerts": {"webhook": "ftp://x"}})");
  EXPECT_EQ(e.field, "cost.alerts.webhook") << e.describe();
  EXPECT_EQ(e.value, "ftp://x") << e.describe();
  e = error_of(R"({"prices": )" + book + R"(, "alerts": {"webhok": "http://x"}})");
  EXPECT_EQ(e.field, "cost.alerts.webhok") << e.describe();
  e = error_of(R"({"alerts": {"webhook": "http://x"}})");
  EXPECT_EQ(e.field, "cost.prices") << e.describe();
  e = error_of(R"({"prices": "/nonexistent/prices.yaml"})");
  EXPECT_EQ(e.field.rfind("cost.prices", 0), 0u) << e.describe();
  EXPECT_NE(e.describe().find("/nonexistent/prices.yaml"), std::string::npos) << e.describe();
}

}  // namespace
}  // namespace budcore::testing
