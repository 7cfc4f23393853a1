#include "budcore/cost/budget.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backends/loopback_http_server.hpp"
#include "budcore/backend/http_client.hpp"
#include "budcore/backend/notifier.hpp"
#include "budcore/cost/estimator.hpp"
#include "budcore/cost/forecast.hpp"
#include "cost/cost_fixture.hpp"

namespace budcore::cost {
namespace {

using core::Id;
using core::Money;
using core::Timestamp;

using testing::at;

const Id kTenant = *Id::parse("0190e6f4-5c3a-7abc-8def-00000000000a");
const Id kProjectA = *Id::parse("0190e6f4-5c3a-7abc-8def-0000000000a1");
const Id kProjectB = *Id::parse("0190e6f4-5c3a-7abc-8def-0000000000b1");

PriceBook book() {
  auto b = PriceBook::from_text(R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "4.00"}
cpu_core_hour: {on_demand: "0.04"}
memory_gib_hour: {on_demand: "0.005"}
conversions: {EUR: "0.5"}
)");
  EXPECT_TRUE(b) << b.error().describe();
  return *b;
}

constexpr const char* kBudgets = R"(budgets:
  - name: project-a
    tenant_id: 0190e6f4-5c3a-7abc-8def-00000000000a
    project_id: 0190e6f4-5c3a-7abc-8def-0000000000a1
    amount: "100.00"
    hard_limit: true
    notify: {channel: slack, recipients: ["#finops"]}
  - name: tenant-quarter
    tenant_id: 0190e6f4-5c3a-7abc-8def-00000000000a
    period: quarterly
    amount: "1000"
    currency: EUR
    thresholds: [10, 50]
    stop_running: true
)";

BudgetSet budgets() {
  auto s = BudgetSet::from_text(kBudgets);
  EXPECT_TRUE(s) << s.error().describe();
  return *s;
}

UsageInterval a100(const Id& project, const char* start, const char* end) {
  UsageInterval u;
  u.tenant_id = kTenant;
  u.project_id = project;
  u.job_id = Id::generate();
  u.gpu_type = "nvidia-a100-80gb";
  u.gpu_count = 1;
  u.start = at(start);
  u.end = at(end);
  return u;
}

TEST(BudgetTest, ReadsBudgetsAndNamesBadFields) {
  BudgetSet s = budgets();
  ASSERT_EQ(s.budgets.size(), 2u);
  EXPECT_EQ(s.budgets[0].amount.to_string(), "100.00 USD");
  EXPECT_EQ(s.budgets[0].thresholds_percent, (std::vector<std::int64_t>{50, 80, 100}));
  EXPECT_EQ(s.budgets[1].amount.currency(), "EUR");
  EXPECT_EQ(s.budgets[1].period, BudgetPeriod::Quarterly);
  auto again = BudgetSet::from_value(s.to_value());
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->to_value(), s.to_value());

  auto bad = [](const std::string& body) {
    auto r = BudgetSet::from_text("budgets:\n  - name: b\n    tenant_id: 0190e6f4-5c3a-7abc-8def-00000000000a\n" + body);
    EXPECT_FALSE(r) << body;
    return r ? core::Error{} : r.error();
  };
  EXPECT_EQ(bad("    amount: \"1\"\n    period: weekly\n").field, "budgets[0].period");
  EXPECT_EQ(bad("    amount: \"0\"\n").field, "budgets[0].amount");
  EXPECT_EQ(bad("    amount: \"1.0000000000001\"\n").field, "budgets[0].amount");
  EXPECT_EQ(bad("    amount: \"1\"\n    thresholds: [80, 50]\n").field, "budgets[0].thresholds[1]");
  EXPECT_EQ(bad("    amount: \"1\"\n    hardlimit: true\n").field, "budgets[0].hardlimit");
  EXPECT_EQ(bad("    amount: \"1\"\n    notify: {chanel: x}\n").field, "budgets[0].notify.chanel");
  EXPECT_EQ(bad("").field, "budgets[0].amount");
  EXPECT_EQ(BudgetSet::from_text("budgets: []\nbudget: 1\n").error().field, "budget");
}

TEST(BudgetTest, PeriodsAreCalendarMonthsAndQuarters) {
  auto [ms, me] = period_bounds(BudgetPeriod::Monthly, at("2026-05-31T23:59:59Z"));
  EXPECT_EQ(ms, at("2026-05-01T00:00:00Z"));
  EXPECT_EQ(me, at("2026-06-01T00:00:00Z"));
  auto [qs, qe] = period_bounds(BudgetPeriod::Quarterly, at("2026-05-17T12:00:00Z"));
  EXPECT_EQ(qs, at("2026-04-01T00:00:00Z"));
  EXPECT_EQ(qe, at("2026-07-01T00:00:00Z"));
  auto [q4s, q4e] = period_bounds(BudgetPeriod::Quarterly, at("2026-12-31T00:00:00Z"));
  EXPECT_EQ(q4s, at("2026-10-01T00:00:00Z"));
  EXPECT_EQ(q4e, at("2027-01-01T00:00:00Z"));
}

TEST(BudgetTest, HardLimitDeniesAdmissionWithAClearReason) {
  const PriceBook b = book();
  std::vector<Usage> usage;
  // Project A: 20 h of an A100 in May = 80.00 USD; project B: 10 h = 40.00 (not in A's budget).
  usage.push_back(*meter(b, a100(kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T20:00:00Z")));
  usage.push_back(*meter(b, a100(kProjectB, "2026-05-03T00:00:00Z", "2026-05-03T10:00:00Z")));
  // Before the month: not counted.
  usage.push_back(*meter(b, a100(kProjectA, "2026-04-20T00:00:00Z", "2026-04-21T00:00:00Z")));
  auto spend = usage_spend(usage, b);
  const Timestamp now = at("2026-05-10T00:00:00Z");

  auto job = job::Job::from_json(R"({"name": "train", "job_type": "training", "deployment_type": "docker",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0,
      "estimated_duration_seconds": 18000})");  // 5 h = 20.00 USD
  ASSERT_TRUE(job);
  auto estimate = estimate_job(b, *job);
  ASSERT_TRUE(estimate);
  auto d = check_admission(budgets(), *spend, AdmissionRequest{kTenant, kProjectA, estimate->total, "train"}, now, b);
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_TRUE(d->allowed);  // 80 + 20 = 100, not past the limit
  EXPECT_EQ(d->checked, std::vector<std::string>{"project-a"});

  auto bigger = *Money::parse("20.01", "USD");
  d = check_admission(budgets(), *spend, AdmissionRequest{kTenant, kProjectA, bigger, "train"}, now, b);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->allowed);
  EXPECT_EQ(d->budget, "project-a");
  EXPECT_EQ(d->spent.amount_string(2), "80.00");
  EXPECT_NE(d->reason.find("job train is estimated at 20.01 USD"), std::string::npos) << d->reason;
  EXPECT_NE(d->reason.find("100.01 USD"), std::string::npos) << d->reason;
  core::Error e = d->error();
  EXPECT_EQ(e.code, core::ErrorCode::BudgetExceeded);
  EXPECT_EQ(e.field, "budgets.project-a");

  // Project B has no hard-limited budget; the tenant's quarterly one only alerts.
  d = check_admission(budgets(), *spend, AdmissionRequest{kTenant, kProjectB, bigger, "x"}, now, b);
  EXPECT_TRUE(d->allowed);
  EXPECT_TRUE(d->checked.empty());
  // An estimate in a currency the book cannot convert is an error naming it.
  auto gbp = check_admission(budgets(), *spend, AdmissionRequest{kTenant, kProjectA, *Money::parse("1", "GBP"), "x"},
                             now, b);
  ASSERT_FALSE(gbp);
  EXPECT_EQ(gbp.error().field, "estimate.currency");
}

TEST(BudgetTest, StatusConvertsCurrenciesAndCountsThresholds) {
  const PriceBook b = book();
  std::vector<Usage> usage{*meter(b, a100(kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T20:00:00Z")),
                           *meter(b, a100(kProjectB, "2026-04-30T23:00:00Z", "2026-05-01T01:00:00Z"))};
  auto spend = usage_spend(usage, b);
  auto s = budget_status(budgets(), *spend, at("2026-05-10T00:00:00Z"));
  ASSERT_TRUE(s) << s.error().describe();
  ASSERT_EQ(s->size(), 2u);
  // Project A: 80.00 USD of 100 (the cross-month record is project B's).
  EXPECT_EQ((*s)[0].spent.amount_string(2), "80.00");
  EXPECT_EQ((*s)[0].thresholds_crossed, (std::vector<std::int64_t>{50, 80}));
  EXPECT_EQ((*s)[0].percent_used, "80.00");
  EXPECT_FALSE((*s)[0].exceeded);
  // Tenant quarter (Apr-Jun) in EUR: (80 + 8) USD x 0.5 = 44.00 EUR of 1000.
  EXPECT_EQ((*s)[1].spent.to_string(), "44.00 EUR");
  EXPECT_EQ((*s)[1].thresholds_crossed, std::vector<std::int64_t>{});
  EXPECT_EQ((*s)[1].remaining.to_string(), "956.00 EUR");
}

// Only budgets with stop_running are looked at, and only the passed ones are returned, with
// their status.
TEST(BudgetTest, PassedStopRunningBudgetsAreTheOnlyOnesReturned) {
  const PriceBook b = book();
  std::vector<Usage> usage{*meter(b, a100(kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T20:00:00Z")),
                           *meter(b, a100(kProjectB, "2026-04-30T23:00:00Z", "2026-05-01T01:00:00Z"))};
  auto spend = usage_spend(usage, b);
  auto set = BudgetSet::from_text(R"(budgets:
  - {name: project-a, tenant_id: 0190e6f4-5c3a-7abc-8def-00000000000a, project_id: 0190e6f4-5c3a-7abc-8def-0000000000a1,
     amount: "50.00", hard_limit: true}
  - {name: project-b, tenant_id: 0190e6f4-5c3a-7abc-8def-00000000000a, project_id: 0190e6f4-5c3a-7abc-8def-0000000000b1,
     amount: "100.00", stop_running: true}
  - {name: tenant-quarter, tenant_id: 0190e6f4-5c3a-7abc-8def-00000000000a, period: quarterly, amount: "40",
     currency: EUR, stop_running: true}
)");
  ASSERT_TRUE(set) << set.error().describe();
  auto passed = passed_stop_running(*set, *spend, at("2026-05-10T00:00:00Z"));
  ASSERT_TRUE(passed) << passed.error().describe();
  // project-a is past 50 USD but does not stop running jobs; project-b is within its 100 USD.
  ASSERT_EQ(passed->size(), 1u);
  EXPECT_EQ((*passed)[0].budget, &set->budgets[2]);
  EXPECT_EQ((*passed)[0].status.spent.to_string(), "44.00 EUR");  // (80 + 8) USD x 0.5
  EXPECT_TRUE((*passed)[0].status.exceeded);
  EXPECT_EQ((*passed)[0].status.period_start, at("2026-04-01T00:00:00Z"));
}

using BudgetStoreTest = testing::CostStoreTest;

TEST_P(BudgetStoreTest, AlertsEachThresholdOnceThroughTheNotifierAndStopsAdmission) {
  const PriceBook b = book();
  testing::LoopbackHttpServer server;
  auto http = backend::make_curl_http_client();
  auto notifier = backend::make_webhook_notifier(*http, {.url = server.url("/hook")});
  BudgetMonitor monitor(*store_, *notifier, b);
  const BudgetSet set = budgets();

  // 13 h in project A = 52.00 USD: 50% of project-a.
  ASSERT_TRUE(record_usage(*store_, b, a100(kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T13:00:00Z")));
  auto alerts = monitor.evaluate(set, at("2026-05-03T00:00:00Z"));
  ASSERT_TRUE(alerts) << alerts.error().describe();
  ASSERT_EQ(alerts->size(), 1u);
  EXPECT_EQ((*alerts)[0].budget, "project-a");
  EXPECT_EQ((*alerts)[0].threshold_percent, 50);
  EXPECT_EQ((*alerts)[0].severity, "info");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  auto body = nlohmann::json::parse(requests[0].body);
  EXPECT_NE(body["text"].get<std::string>().find("Budget 'project-a' has reached 50%"), std::string::npos);
  EXPECT_EQ(body["channel"], "#finops");

  // Evaluated again (another process, a restart): nothing new.
  BudgetMonitor again(*store_, *notifier, b);
  alerts = again.evaluate(set, at("2026-05-03T01:00:00Z"));
  ASSERT_TRUE(alerts);
  EXPECT_TRUE(alerts->empty());
  EXPECT_EQ(server.requests().size(), 1u);

  // 13 more hours: 104.00 USD passes 80% and 100%; the admission gate now denies any job.
  ASSERT_TRUE(record_usage(*store_, b, a100(kProjectA, "2026-05-04T00:00:00Z", "2026-05-04T13:00:00Z")));
  alerts = monitor.evaluate(set, at("2026-05-05T00:00:00Z"));
  ASSERT_TRUE(alerts);
  ASSERT_EQ(alerts->size(), 2u);
  EXPECT_EQ((*alerts)[1].threshold_percent, 100);
  EXPECT_EQ((*alerts)[1].severity, "error");
  EXPECT_EQ(server.requests().size(), 3u);

  auto spend = store_spend(*store_, b);
  auto d = check_admission(set, *spend, AdmissionRequest{kTenant, kProjectA, *Money::parse("0.01", "USD"), "tiny"},
                           at("2026-05-05T00:00:00Z"), b);
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_FALSE(d->allowed);
  EXPECT_EQ(d->spent.amount_string(2), "104.00");

  // A new month starts from zero.
  d = check_admission(set, *spend, AdmissionRequest{kTenant, kProjectA, *Money::parse("99", "USD"), "june"},
                      at("2026-06-01T00:00:00Z"), b);
  EXPECT_TRUE(d->allowed);

  // stop_running: the tenant-quarter budget (1000 EUR = 2000 USD) is not exceeded yet.
  auto stop = monitor.stop_running_scopes(set, at("2026-05-05T00:00:00Z"));
  ASSERT_TRUE(stop);
  EXPECT_TRUE(stop->empty());
}

TEST_P(BudgetStoreTest, AFailedDeliveryIsRetriedNextTime) {
  const PriceBook b = book();
  testing::LoopbackHttpServer server;
  server.enqueue(testing::ScriptedResponse{.status = 500, .reason = "Internal Server Error"});
  auto http = backend::make_curl_http_client();
  auto notifier = backend::make_webhook_notifier(*http, {.url = server.url("/hook")});
  BudgetMonitor monitor(*store_, *notifier, b);
  ASSERT_TRUE(record_usage(*store_, b, a100(kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T13:00:00Z")));
  auto alerts = monitor.evaluate(budgets(), at("2026-05-03T00:00:00Z"));
  ASSERT_FALSE(alerts);
  EXPECT_EQ(alerts.error().code, core::ErrorCode::Io);
  alerts = monitor.evaluate(budgets(), at("2026-05-03T00:00:00Z"));
  ASSERT_TRUE(alerts) << alerts.error().describe();
  EXPECT_EQ(alerts->size(), 1u);
}

TEST_P(BudgetStoreTest, RunawayJobsAlertThroughTheNotifier) {
  const PriceBook b = book();
  auto j = job::Job::from_json(R"({"id": "0190e6f4-5c3a-7abc-8def-0000000000f1", "name": "loop",
      "tenant_id": "0190e6f4-5c3a-7abc-8def-00000000000a", "job_type": "batch", "deployment_type": "docker",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 3600,
      "estimated_cost": "4.00", "actual_start": "2026-05-02T00:00:00Z"})");
  ASSERT_TRUE(j) << j.error().describe();
  UsageInterval u = a100(kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T01:45:00Z");  // 7.00 USD so far
  u.job_id = j->id;
  ASSERT_TRUE(record_usage(*store_, b, u));
  auto actual = job_actual_cost(*store_, kTenant, j->id);
  ASSERT_TRUE(actual);
  std::vector<RunawayCheck> checks{runaway_check_of(*j, *actual, at("2026-05-02T01:45:00Z"))};
  EXPECT_EQ(checks[0].elapsed_seconds, 6300);
  auto alerts = detect_runaway(checks);
  ASSERT_TRUE(alerts);
  ASSERT_EQ(alerts->size(), 1u);
  EXPECT_NE((*alerts)[0].reason.find("more than 1.5 x its estimate"), std::string::npos) << (*alerts)[0].reason;
  testing::LoopbackHttpServer server;
  auto http = backend::make_curl_http_client();
  auto notifier = backend::make_webhook_notifier(*http, {.url = server.url("/hook")});
  ASSERT_TRUE(notify_runaway(*notifier, *alerts, "pagerduty", {"oncall"}));
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(server.requests()[0].body)["severity"], "error");
}

INSTANTIATE_TEST_SUITE_P(Backends, BudgetStoreTest, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::cost

namespace budcore::cost {
namespace {

TEST_P(BudgetStoreTest, AdmitJobEstimatesAndChecksInOneCall) {
  const PriceBook b = book();
  ASSERT_TRUE(record_usage(*store_, b, a100(kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T23:00:00Z")));  // 92.00
  auto j = job::Job::from_json(R"({"name": "finetune", "tenant_id": "0190e6f4-5c3a-7abc-8def-00000000000a",
      "project_id": "0190e6f4-5c3a-7abc-8def-0000000000a1", "job_type": "training", "deployment_type": "docker",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0,
      "max_duration_seconds": 7200})");  // no estimate: priced for its 2 h limit = 8.00
  ASSERT_TRUE(j) << j.error().describe();
  auto d = admit_job(budgets(), *store_, b, *j, at("2026-05-10T00:00:00Z"));
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_TRUE(d->allowed);
  j->max_duration_seconds = 7201;
  d = admit_job(budgets(), *store_, b, *j, at("2026-05-10T00:00:00Z"));
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->allowed);
  EXPECT_EQ(d->error().code, core::ErrorCode::BudgetExceeded);
  EXPECT_NE(d->reason.find("job finetune"), std::string::npos);
}

// A ledger that counts the usage rows read through it.
class CountingLedger final : public UsageLedger {
 public:
  explicit CountingLedger(UsageLedger& inner) : inner_(inner) {}
  core::Result<UsageRecord> append_usage(const Id& tenant, UsageRecord r) override {
    return inner_.append_usage(tenant, std::move(r));
  }
  core::Result<core::Page<UsageRecord>> list_usage(const Id& tenant, const UsageQuery& q,
                                                   const core::PageRequest& page) override {
    auto p = inner_.list_usage(tenant, q, page);
    if (p) rows_read += p->items.size();
    return p;
  }
  core::Result<core::AuditEntry> append_audit(const Id& tenant, core::AuditEntry e) override {
    return inner_.append_audit(tenant, std::move(e));
  }
  core::Result<core::Page<core::AuditEntry>> list_audit(const Id& tenant, const core::AuditQuery& q,
                                                        const core::PageRequest& page) override {
    return inner_.list_audit(tenant, q, page);
  }
  std::size_t rows_read = 0;

 private:
  UsageLedger& inner_;
};

// A monthly and a quarterly budget of one tenant asked in turn keep their sums apart: once both
// have read the history, asking again reads no row.
TEST_P(BudgetStoreTest, IncrementalSpendKeepsEachPeriodOfAScope) {
  const PriceBook b = book();
  ASSERT_TRUE(record_usage(*store_, b, a100(kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T03:00:00Z")));
  ASSERT_TRUE(record_usage(*store_, b, a100(kProjectA, "2026-04-02T00:00:00Z", "2026-04-02T01:00:00Z")));
  auto set = BudgetSet::from_text(R"(budgets:
  - {name: month, tenant_id: 0190e6f4-5c3a-7abc-8def-00000000000a, amount: "100"}
  - {name: quarter, tenant_id: 0190e6f4-5c3a-7abc-8def-00000000000a, period: quarterly, amount: "300"}
)");
  ASSERT_TRUE(set) << set.error().describe();
  CountingLedger counting(*store_);
  auto incremental = incremental_store_spend(counting, b);
  const Timestamp now = at("2026-05-20T00:00:00Z");
  auto ask_both = [&] {
    for (const Budget& bud : set->budgets) {
      auto [from, to] = period_bounds(bud.period, now);
      ASSERT_TRUE(incremental->spent(bud, from, to));
    }
  };
  ask_both();
  ASSERT_GT(counting.rows_read, 0u);
  counting.rows_read = 0;
  ask_both();
  ask_both();
  EXPECT_EQ(counting.rows_read, 0u);
  auto [qfrom, qto] = period_bounds(BudgetPeriod::Quarterly, now);
  EXPECT_EQ(*incremental->spent(set->budgets[1], qfrom, qto), *Money::parse("16.00 USD"));  // 12 + 4
}

// The incremental spend answers what a full read of the ledger answers, after every append:
// project and tenant budgets, a record crossing the period's start (counted in part), another
// tenant's records, amounts converted to a budget's currency, and a past period whose records
// end after it (answered by a full read).
TEST_P(BudgetStoreTest, IncrementalSpendAnswersAsAFullReadAfterEveryAppend) {
  const PriceBook b = book();
  const BudgetSet set = budgets();
  auto incremental = incremental_store_spend(*store_, b);
  auto full = store_spend(*store_, b);
  const Timestamp now = at("2026-05-20T00:00:00Z");
  auto expect_same = [&](const std::string& after) {
    for (const Budget& bud : set.budgets) {
      auto [from, to] = period_bounds(bud.period, now);
      for (auto [f, t] : {std::pair{from, to}, std::pair{from, now}, std::pair{at("2026-05-01T00:00:00Z"), at("2026-05-10T00:00:00Z")}}) {
        auto got = incremental->spent(bud, f, t);
        auto want = full->spent(bud, f, t);
        ASSERT_TRUE(got && want) << after;
        EXPECT_EQ(*got, *want) << bud.name << " [" << f.to_string() << ", " << t.to_string() << ") after " << after;
      }
    }
  };
  expect_same("nothing");
  struct Row {
    const Id& project;
    const char* start;
    const char* end;
  };
  const Row rows[] = {{kProjectA, "2026-05-02T00:00:00Z", "2026-05-02T03:00:00Z"},
                      {kProjectB, "2026-04-30T22:00:00Z", "2026-05-01T02:00:00Z"},  // crosses the month's start
                      {kProjectA, "2026-03-31T23:00:00Z", "2026-04-01T01:00:00Z"},  // crosses the quarter's start
                      {kProjectA, "2026-05-09T23:00:00Z", "2026-05-10T01:00:00Z"},  // crosses the past window's end
                      {kProjectB, "2026-05-19T00:00:00Z", "2026-05-19T10:00:00Z"}};
  for (const Row& r : rows) {
    ASSERT_TRUE(record_usage(*store_, b, a100(r.project, r.start, r.end)));
    UsageInterval stranger = a100(kProjectA, r.start, r.end);
    stranger.tenant_id = *Id::parse("0190e6f4-5c3a-7abc-8def-00000000000b");
    ASSERT_TRUE(record_usage(*store_, b, stranger));
    expect_same(std::string(r.start));
  }
  // A second source opened on the same ledger later reads the whole history once.
  auto late = incremental_store_spend(*store_, b);
  auto [from, to] = period_bounds(set.budgets[1].period, now);
  EXPECT_EQ(*late->spent(set.budgets[1], from, to), *full->spent(set.budgets[1], from, to));
}

}  // namespace
}  // namespace budcore::cost
