#include "budcore/cost/rollup.hpp"

#include <gtest/gtest.h>

#include <random>

#include "budcore/core/yaml.hpp"
#include "budcore/cost/chargeback.hpp"
#include "cost/cost_fixture.hpp"

namespace budcore::cost {
namespace {

using core::Id;
using core::Money;
using core::Quantity;
using core::Timestamp;

using testing::at;

const Id kTenantA = *Id::parse("0190e6f4-5c3a-7abc-8def-00000000000a");
const Id kTenantB = *Id::parse("0190e6f4-5c3a-7abc-8def-00000000000b");

PriceBook book() {
  auto b = PriceBook::from_text(R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "3.60"}
  nvidia-t4: {on_demand: "0.36"}
)");
  EXPECT_TRUE(b);
  return *b;
}

Usage usage(const Id& tenant, const char* gpu, std::int64_t count, const char* start, const char* end,
            std::map<std::string, std::string> labels = {}) {
  UsageInterval u;
  u.tenant_id = tenant;
  u.job_id = Id::generate();
  u.gpu_type = gpu;
  u.gpu_count = count;
  u.start = at(start);
  u.end = at(end);
  u.labels = std::move(labels);
  u.requests = 10;
  auto r = meter(book(), u);
  EXPECT_TRUE(r) << r.error().describe();
  return *r;
}

// A serverless worker's usage row, `busy` of it busy (gpu_utilization), for endpoint `ep`.
Usage worker_row(const Id& job, const char* ep, const char* start, const char* end, const char* busy) {
  UsageInterval u;
  u.tenant_id = kTenantA;
  u.job_id = job;
  u.gpu_type = "nvidia-a100-80gb";
  u.gpu_count = 1;
  u.start = at(start);
  u.end = at(end);
  u.labels = {{std::string(kServerlessEndpointLabel), ep}};
  u.gpu_utilization = *Quantity::parse(busy);
  auto r = meter(book(), u);
  EXPECT_TRUE(r) << r.error().describe();
  return *r;
}

// $3.60 per GPU-hour: a GPU-second is $0.001. Two workers of chat and one of embed; a row
// crossing the hour is split by time; a row without the label is left out.
TEST(RollupTest, ServerlessSpendPerEndpointPerHour) {
  const Id w1 = Id::generate(), w2 = Id::generate(), w3 = Id::generate();
  std::vector<Usage> rows{
      worker_row(w1, "chat", "2026-05-02T10:30:00Z", "2026-05-02T11:30:00Z", "0.5"),  // 1800 s in each hour
      worker_row(w2, "chat", "2026-05-02T10:00:00Z", "2026-05-02T10:10:00Z", "1"),    // 600 s busy
      worker_row(w3, "embed", "2026-05-02T10:00:00Z", "2026-05-02T10:00:10Z", "0"),   // 10 s idle
      usage(kTenantA, "nvidia-a100-80gb", 1, "2026-05-02T10:00:00Z", "2026-05-02T11:00:00Z"),
  };
  auto r = serverless_rollup(rows, {});
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->granularity, Granularity::Hour);
  EXPECT_EQ(r->currency, "USD");
  ASSERT_EQ(r->rows.size(), 3u);
  const ServerlessRollupRow& chat10 = r->rows[0];
  EXPECT_EQ(chat10.bucket, at("2026-05-02T10:00:00Z"));
  EXPECT_EQ(chat10.endpoint, "chat");
  EXPECT_EQ(chat10.workers, 2);
  EXPECT_EQ(chat10.records, 2);
  EXPECT_EQ(chat10.gpu_seconds.to_string(), "2400");
  EXPECT_EQ(chat10.busy_gpu_seconds.to_string(), "1500");
  EXPECT_EQ(chat10.idle_gpu_seconds.to_string(), "900");
  EXPECT_EQ(chat10.cost.to_string(), "2.40 USD");
  EXPECT_EQ(chat10.busy_cost.to_string(), "1.50 USD");
  EXPECT_EQ(chat10.idle_cost.to_string(), "0.90 USD");
  EXPECT_EQ(r->rows[1].endpoint, "embed");
  EXPECT_EQ(r->rows[1].idle_gpu_seconds.to_string(), "10");
  EXPECT_EQ(r->rows[1].busy_cost.to_string(), "0.00 USD");
  EXPECT_EQ(r->rows[2].bucket, at("2026-05-02T11:00:00Z"));
  EXPECT_EQ(r->rows[2].workers, 1);
  EXPECT_EQ(r->rows[2].gpu_seconds.to_string(), "1800");

  // One endpoint, from a time on; its document and CSV.
  auto q = read_serverless_rollup_query(*core::parse_document(R"({"endpoint": "chat", "from": "2026-05-02T11:00:00Z"})"));
  ASSERT_TRUE(q) << q.error().describe();
  auto chat = serverless_rollup(rows, *q);
  ASSERT_TRUE(chat);
  ASSERT_EQ(chat->rows.size(), 1u);
  EXPECT_EQ(chat->rows[0].cost.to_string(), "1.80 USD");
  const core::Value v = to_value(*chat);
  EXPECT_EQ(v.find("endpoint")->as_string(), "chat");
  EXPECT_EQ(v.find("rows")->as_list()[0].find("busy_gpu_seconds")->as_string(), "900");
  EXPECT_NE(to_csv(*chat).find("2026-05-02T11:00:00Z,chat,1,1,1800,900,900,1.80,0.90,0.90"), std::string::npos)
      << to_csv(*chat);

  // Bad queries name the key, the value and why.
  auto bad = [](const char* doc) { return read_serverless_rollup_query(*core::parse_document(doc)).error(); };
  core::Error e = bad(R"({"endpoint": ""})");
  EXPECT_EQ(e.field, "endpoint");
  EXPECT_NE(e.message.find("endpoint's name"), std::string::npos) << e.describe();
  e = bad(R"({"granularity": "week"})");
  EXPECT_EQ(e.field, "granularity");
  EXPECT_EQ(e.value, "week");
  e = bad(R"({"from": "2026-05-02T11:00:00Z", "to": "2026-05-02T10:00:00Z"})");
  EXPECT_EQ(e.field, "to");
  e = bad(R"({"endpoints": "chat"})");
  EXPECT_EQ(e.field, "endpoints");
}

TEST(RollupTest, BucketsAreUtcCalendarUnits) {
  const Timestamp t = at("2026-02-17T13:45:30.5Z");
  EXPECT_EQ(bucket_start(Granularity::Minute, t), at("2026-02-17T13:45:00Z"));
  EXPECT_EQ(bucket_start(Granularity::Hour, t), at("2026-02-17T13:00:00Z"));
  EXPECT_EQ(bucket_start(Granularity::Day, t), at("2026-02-17T00:00:00Z"));
  EXPECT_EQ(bucket_start(Granularity::Month, t), at("2026-02-01T00:00:00Z"));
  EXPECT_EQ(bucket_end(Granularity::Month, at("2026-02-01T00:00:00Z")), at("2026-03-01T00:00:00Z"));
  EXPECT_EQ(bucket_end(Granularity::Month, at("2026-12-01T00:00:00Z")), at("2027-01-01T00:00:00Z"));
  EXPECT_EQ(bucket_start(Granularity::Hour, at("1969-12-31T23:30:00Z")), at("1969-12-31T23:00:00Z"));
}

TEST(RollupTest, GroupsByHourTenantAndGpuType) {
  std::vector<Usage> records{
      usage(kTenantA, "nvidia-a100-80gb", 1, "2026-03-01T10:00:00Z", "2026-03-01T10:10:00Z"),
      usage(kTenantA, "nvidia-a100-80gb", 2, "2026-03-01T10:20:00Z", "2026-03-01T10:30:00Z"),
      usage(kTenantA, "nvidia-t4", 1, "2026-03-01T10:00:00Z", "2026-03-01T10:30:00Z"),
      usage(kTenantB, "nvidia-a100-80gb", 1, "2026-03-01T11:00:00Z", "2026-03-01T11:30:00Z"),
  };
  RollupQuery q;
  q.by = {GroupBy{Dimension::Tenant, {}}, GroupBy{Dimension::GpuType, {}}};
  auto r = rollup(records, q);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_EQ(r->rows[0].keys, (std::vector<std::string>{kTenantA.to_string(), "nvidia-a100-80gb"}));
  EXPECT_EQ(r->rows[0].records, 2);
  EXPECT_EQ(r->rows[0].gpu_seconds.to_string(), "1800");
  EXPECT_EQ(r->rows[0].cost.amount_string(2), "1.80");
  EXPECT_EQ(r->rows[0].requests, 20);
  EXPECT_EQ(r->rows[1].keys[1], "nvidia-t4");
  EXPECT_EQ(r->rows[2].bucket, at("2026-03-01T11:00:00Z"));
  EXPECT_EQ(r->currency, "USD");
  const std::string csv = to_csv(*r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "bucket,tenant,gpu_type,records,seconds,gpu_seconds,idle_gpu_seconds,cpu_core_seconds,"
            "memory_gib_seconds,cost,idle_cost,tokens_in,tokens_out,requests");
  EXPECT_NE(csv.find("2026-03-01T10:00:00Z," + kTenantA.to_string() + ",nvidia-a100-80gb,2,1200,1800,0,0,0,1.80,"),
            std::string::npos)
      << csv;
  core::Value v = to_value(*r);
  EXPECT_EQ(v.find("rows")->as_list()[0].find("gpu_type")->as_string(), "nvidia-a100-80gb");
}

TEST(RollupTest, SplitsRecordsAcrossBucketsExactly) {
  // 7 s at 3.60/h = 0.007 exactly; 1/3 of a 0.01 cost splits 0.003333... so parts must re-add.
  std::vector<Usage> records{usage(kTenantA, "nvidia-t4", 1, "2026-03-01T10:59:58Z", "2026-03-01T11:00:05Z")};
  RollupQuery q;
  q.granularity = Granularity::Minute;
  auto r = rollup(records, q);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].gpu_seconds.to_string(), "2");
  EXPECT_EQ(r->rows[1].gpu_seconds.to_string(), "5");
  Money sum = *r->rows[0].cost.checked_add(r->rows[1].cost);
  EXPECT_EQ(sum, records[0].computed_cost);
  EXPECT_EQ(r->rows[0].requests, 10);  // events count where the record starts
  EXPECT_EQ(r->rows[1].requests, 0);

  // Random awkward spans: every split adds up to the record exactly.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    const std::int64_t start = 1'772'000'000'000'000'000LL + static_cast<std::int64_t>(rng() % 1'000'000'000'000'000ULL);
    const std::int64_t len = 1 + static_cast<std::int64_t>(rng() % 20'000'000'000'000ULL);
    UsageInterval u;
    u.tenant_id = kTenantA;
    u.job_id = Id::generate();
    u.gpu_type = "nvidia-a100-80gb";
    u.gpu_count = 1 + static_cast<std::int64_t>(rng() % 7);
    u.start = Timestamp::from_unix_nanos(start);
    u.end = Timestamp::from_unix_nanos(start + len);
    auto m = meter(book(), u);
    ASSERT_TRUE(m);
    auto hours = rollup(std::span<const Usage>(&*m, 1), RollupQuery{Granularity::Hour, {}, {}, {}});
    ASSERT_TRUE(hours);
    Money total = Money::from_units(0, "USD");
    Quantity gpu;
    for (const auto& row : hours->rows) {
      total = *total.checked_add(row.cost);
      gpu = *gpu.checked_add(row.gpu_seconds);
    }
    EXPECT_EQ(total, m->computed_cost);
    EXPECT_EQ(gpu, m->gpu_seconds);
  }
}

TEST(RollupTest, RangeClipsAndLabelsGroup) {
  std::vector<Usage> records{
      usage(kTenantA, "nvidia-t4", 1, "2026-03-01T00:00:00Z", "2026-03-03T00:00:00Z", {{"team", "search"}}),
      usage(kTenantA, "nvidia-t4", 1, "2026-03-01T00:00:00Z", "2026-03-01T01:00:00Z", {{"team", "ads"}}),
      usage(kTenantA, "nvidia-t4", 1, "2026-03-01T00:00:00Z", "2026-03-01T01:00:00Z")};
  RollupQuery q;
  q.granularity = Granularity::Day;
  q.by = {*parse_group_by("label:team")};
  q.from = at("2026-03-02T00:00:00Z");
  auto r = rollup(records, q);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0].keys[0], "search");
  EXPECT_EQ(r->rows[0].gpu_seconds.to_string(), "86400");
  q.from.reset();
  q.granularity = Granularity::Total;
  r = rollup(records, q);
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_EQ(r->rows[0].keys[0], "");  // no label
}

TEST(RollupTest, ParsesDimensionsAndBoundsTheWork) {
  auto by = parse_group_by_list("tenant,gpu_type,label:team");
  ASSERT_TRUE(by);
  EXPECT_EQ((*by)[2].name(), "label:team");
  auto bad = parse_group_by_list("tenant,gpu");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "by[1]");
  EXPECT_FALSE(parse_group_by("label"));
  EXPECT_FALSE(parse_granularity("week"));

  std::vector<Usage> year{usage(kTenantA, "nvidia-t4", 1, "2026-01-01T00:00:00Z", "2026-12-31T00:00:00Z")};
  std::vector<Usage> many(200, year[0]);
  auto r = rollup(many, RollupQuery{Granularity::Minute, {}, {}, {}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "granularity");

  std::vector<Usage> mixed{year[0], year[0]};
  mixed[1].currency = "EUR";
  EXPECT_EQ(rollup(mixed, {}).error().field, "currency");
}

TEST(RollupTest, BillingPeriodOfATenant) {
  std::vector<Usage> records{
      usage(kTenantA, "nvidia-a100-80gb", 1, "2026-02-28T23:00:00Z", "2026-03-01T01:00:00Z"),
      usage(kTenantA, "nvidia-t4", 2, "2026-03-10T00:00:00Z", "2026-03-10T01:00:00Z"),
      usage(kTenantB, "nvidia-t4", 2, "2026-03-10T00:00:00Z", "2026-03-10T01:00:00Z")};
  auto p = billing_period(records, kTenantA, at("2026-03-15T00:00:00Z"), at("2026-04-02T00:00:00Z"));
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_EQ(p->period_start, at("2026-03-01T00:00:00Z"));
  EXPECT_EQ(p->period_end, at("2026-04-01T00:00:00Z"));
  EXPECT_EQ(p->total_gpu_seconds.to_string(), "10800");  // 1 h of the A100 + 2 h of T4s
  EXPECT_EQ(p->total_cost.amount_string(2), "4.32");     // 3.60 + 2 x 0.36
  EXPECT_EQ(p->total_requests, 10);                     // the A100 record started in February
  ASSERT_EQ(p->usage_by_gpu_type.size(), 2u);
  EXPECT_EQ(p->usage_by_gpu_type[0].gpu_type, "nvidia-a100-80gb");
  EXPECT_EQ(p->status, BillingStatus::Closed);
  EXPECT_EQ(to_value(*p).find("usage_by_gpu_type")->find("nvidia-t4")->find("cost")->as_string(), "0.72");
}

TEST(RollupColumnsTest, MatchesTheRecordRollup) {
  std::mt19937_64 rng(11);
  const std::size_t n = 20'000;
  std::vector<std::int64_t> start(n), gpu(n), cost(n);
  std::vector<std::int32_t> tenant(n), type(n);
  for (std::size_t i = 0; i < n; ++i) {
    start[i] = 1'772'323'200 + static_cast<std::int64_t>(rng() % (3 * 86'400));
    tenant[i] = static_cast<std::int32_t>(rng() % 7);
    type[i] = static_cast<std::int32_t>(rng() % 3);
    gpu[i] = static_cast<std::int64_t>(rng() % 60'000'000'000ULL);
    cost[i] = static_cast<std::int64_t>(rng() % 100'000'000'000ULL);
  }
  UsageColumns c{start, tenant, type, gpu, cost};
  for (Granularity g : {Granularity::Hour, Granularity::Day, Granularity::Month, Granularity::Minute}) {
    auto one = rollup_columns(c, g, 1);
    auto four = rollup_columns(c, g, 4);
    ASSERT_TRUE(one && four);
    ASSERT_EQ(one->size(), four->size());
    std::int64_t records = 0;
    core::int128 total = 0, expected = 0;
    for (std::size_t k = 0; k < one->size(); ++k) {
      const auto& a = (*one)[k];
      const auto& b = (*four)[k];
      EXPECT_EQ(a.bucket_start, b.bucket_start);
      EXPECT_TRUE(a.cost_pico == b.cost_pico && a.gpu_nanos == b.gpu_nanos && a.records == b.records);
      if (k > 0) {
        const auto& p = (*one)[k - 1];
        EXPECT_TRUE(std::tie(p.bucket_start, p.tenant, p.gpu_type) < std::tie(a.bucket_start, a.tenant, a.gpu_type));
      }
      records += a.records;
      total += a.cost_pico;
    }
    for (auto v : cost) expected += v;
    EXPECT_EQ(records, static_cast<std::int64_t>(n));
    EXPECT_TRUE(total == expected);
  }
  // One bucket checked by hand.
  auto hours = rollup_columns(c, Granularity::Hour, 2);
  const auto& row = hours->front();
  core::int128 want = 0;
  std::int64_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (start[i] / 3600 * 3600 == row.bucket_start && tenant[i] == row.tenant && type[i] == row.gpu_type) {
      want += cost[i];
      ++count;
    }
  }
  EXPECT_EQ(count, row.records);
  EXPECT_TRUE(want == row.cost_pico);
  EXPECT_EQ(hours->front().bucket_start % 3600, 0);
}

TEST(RollupColumnsTest, SparseKeysUseTheHashPathAndBadInputIsRejected) {
  std::vector<std::int64_t> start{0, 3600LL * 1'000'000, 0};
  std::vector<std::int32_t> tenant{5, 1'000'000, 5};
  std::vector<std::int32_t> type{0, 2, 0};
  std::vector<std::int64_t> gpu{1, 2, 3};
  std::vector<std::int64_t> cost{10, 20, 30};
  auto r = rollup_columns(UsageColumns{start, tenant, type, gpu, cost}, Granularity::Minute, 0);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].records, 2);
  EXPECT_TRUE((*r)[0].cost_pico == 40);
  EXPECT_EQ((*r)[1].bucket_start, 3600LL * 1'000'000);
  EXPECT_EQ((*r)[1].tenant, 1'000'000);

  std::vector<std::int32_t> negative{5, -1, 5};
  EXPECT_FALSE(rollup_columns(UsageColumns{start, negative, type, gpu, cost}, Granularity::Hour));
  std::vector<std::int64_t> short_cost{1};
  auto e = rollup_columns(UsageColumns{start, tenant, type, gpu, short_cost}, Granularity::Hour);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().field, "cost_pico");
  std::vector<std::int64_t> far{0, 99'999'999'999LL, 0};
  EXPECT_EQ(rollup_columns(UsageColumns{far, tenant, type, gpu, cost}, Granularity::Hour).error().field, "start_seconds");
  EXPECT_TRUE(rollup_columns(UsageColumns{}, Granularity::Hour)->empty());
}

TEST(ChargebackTest, AllocatesSharedCostsByUsageShareExactly) {
  std::vector<Usage> records{
      usage(kTenantA, "nvidia-a100-80gb", 1, "2026-03-01T00:00:00Z", "2026-03-01T02:00:00Z", {{"team", "x"}}),  // 7.20
      usage(kTenantB, "nvidia-t4", 1, "2026-03-01T00:00:00Z", "2026-03-01T10:00:00Z", {{"team", "y"}}),         // 3.60
      usage(kTenantB, "nvidia-t4", 1, "2026-03-01T00:00:00Z", "2026-03-01T00:01:00Z", {{"team", "x"}}),         // 0.006
  };
  ReportQuery q;
  q.by = {GroupBy{Dimension::Tenant, {}}};
  q.shared = {SharedCost{"control-plane", *Money::parse("1.00", "USD")}};
  auto r = chargeback(records, q);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].keys[0], kTenantA.to_string());
  EXPECT_EQ(r->rows[0].direct.amount_string(2), "7.20");
  // 7.20 / 10.806 of 1.00 = 0.666296501943... and 3.606 / 10.806 = 0.333703498056...
  EXPECT_EQ(r->rows[0].shared.amount_string(), "0.666296501943");
  EXPECT_EQ(r->rows[1].shared.amount_string(), "0.333703498057");
  EXPECT_EQ(*r->rows[0].shared.checked_add(r->rows[1].shared), *Money::parse("1", "USD"));
  EXPECT_EQ(r->total.amount_string(2), "11.806");
  EXPECT_EQ(r->rows[0].share_percent, "66.63");
  const std::string csv = to_csv(*r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "tenant,records,gpu_seconds,idle_gpu_seconds,direct,idle,shared,total,share_percent,currency");

  q.by = {*parse_group_by("label:team"), GroupBy{Dimension::GpuType, {}}};
  q.shared.clear();
  r = chargeback(records, q);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rows.size(), 3u);

  q.shared = {SharedCost{"eu-support", *Money::parse("5", "EUR")}};
  EXPECT_EQ(chargeback(records, q).error().field, "shared[0].currency");
  auto conv = PriceBook::from_text("currency: USD\nconversions: {EUR: \"0.5\"}\n");
  r = chargeback(records, q, &*conv);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->total_shared.amount_string(2), "10.00");
}

TEST(ChargebackTest, ReadsAReportQuery) {
  auto q = read_report_query(testing::json(R"({"by": ["project", "label:team"], "granularity": "day",
      "from": "2026-03-01T00:00:00Z", "shared": [{"name": "monitoring", "amount": "12.5"}]})"));
  ASSERT_TRUE(q) << q.error().describe();
  EXPECT_EQ(q->by.size(), 2u);
  EXPECT_EQ(q->granularity, Granularity::Day);
  EXPECT_EQ(q->shared[0].amount.to_string(), "12.50 USD");
  EXPECT_EQ(read_report_query(testing::json(R"({"by": ["tenant", "colour"]})")).error().field, "by[1]");
  EXPECT_EQ(read_report_query(testing::json(R"({"group_by": "tenant"})")).error().field, "group_by");
  EXPECT_EQ(read_report_query(testing::json(R"({"shared": [{"name": "x", "amount": "-1"}]})")).error().field,
            "shared[0].amount");
  EXPECT_EQ(read_report_query(testing::json(R"({"from": "2026-03-02T00:00:00Z", "to": "2026-03-01T00:00:00Z"})"))
                .error()
                .field,
            "to");
}

}  // namespace
}  // namespace budcore::cost
