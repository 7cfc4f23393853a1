#include "budcore/cost/metering.hpp"

#include <gtest/gtest.h>

#include "cost/cost_fixture.hpp"

namespace budcore::cost {
namespace {

using core::Id;
using core::Quantity;
using core::Timestamp;
using testing::json;

using testing::at;

PriceBook metering_book() {
  auto b = PriceBook::from_text(R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "3.50", spot: "1.50", reserved: "2.00"}
  mig-3g.40gb: {on_demand: "1.75"}
cpu_core_hour: {on_demand: "0.04", spot: "0.02", reserved: "0.03"}
memory_gib_hour: {on_demand: "0.005", spot: "0.0025", reserved: "0.004"}
storage_gib_month: "0.10"
sharing_multipliers: {time_slice: "0.35"}
)");
  EXPECT_TRUE(b) << b.error().describe();
  return *b;
}

UsageInterval a100_interval() {
  UsageInterval u;
  u.tenant_id = *Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ab");
  u.project_id = *Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ac");
  u.job_id = *Id::parse("0190e6f4-5c3a-7abc-8def-0123456789ad");
  u.gpu_type = "nvidia-a100-80gb";
  u.gpu_count = 2;
  u.start = at("2026-03-01T10:00:00Z");
  u.end = at("2026-03-01T10:01:00Z");
  return u;
}

TEST(MeteringTest, PricesAnIntervalPerSecondAtTwelveDecimals) {
  UsageInterval u = a100_interval();
  u.cpu_cores = Quantity::from_int(4);
  u.memory_gib = Quantity::from_int(32);
  u.storage_gib = 100;
  u.end = at("2026-03-01T10:00:07Z");  // 7 s
  auto r = meter(metering_book(), u);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->seconds.to_string(), "7");
  EXPECT_EQ(r->gpu_seconds.to_string(), "14");
  EXPECT_EQ(r->gpu_cost.amount_string(), "0.013611111111");   // 14 x 3.50 / 3600 = 0.0136111...
  EXPECT_EQ(r->cpu_cost.amount_string(), "0.000311111111");   // 28 x 0.04 / 3600
  EXPECT_EQ(r->memory_cost.amount_string(), "0.000311111111");  // 224 x 0.005 / 3600
  EXPECT_EQ(r->storage_cost.amount_string(), "0.000027006173");  // 700 x 0.10 / 2592000
  EXPECT_EQ(r->computed_cost.amount_string(), "0.014260339506");
  EXPECT_EQ(r->gpu_memory_gb_seconds.to_string(), "1120");  // 80 GiB (from the name) x 14
  EXPECT_EQ(r->currency, "USD");
}

TEST(MeteringTest, SharingMigTiersAndIdleCost) {
  const PriceBook book = metering_book();
  UsageInterval u = a100_interval();  // 2 GPUs x 60 s = 120 GPU-seconds
  u.sharing_mode = SharingMode::TimeSlice;
  EXPECT_EQ(meter(book, u)->gpu_cost.amount_string(), "0.040833333333");  // 120 x 3.50 x 0.35 / 3600

  u = a100_interval();
  u.tier = Tier::Spot;
  u.gpu_utilization = *Quantity::parse("0.25");
  auto r = meter(book, u);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->gpu_cost.amount_string(), "0.05");
  EXPECT_EQ(r->idle_gpu_seconds.to_string(), "90");
  EXPECT_EQ(r->idle_cost.amount_string(), "0.0375");

  u = a100_interval();
  u.sharing_mode = SharingMode::Mig;
  u.mig_profile = "3g.40gb";
  u.gpu_count = 1;
  r = meter(book, u);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->gpu_cost.amount_string(), "0.029166666667");  // 60 x 1.75 / 3600
  EXPECT_EQ(r->gpu_memory_gb_seconds.to_string(), "2400");

  u.mig_profile = "7g.80gb";
  r = meter(book, u);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(r.error().field, "mig_profile");
}

TEST(MeteringTest, RejectsWhatCannotBePriced) {
  const PriceBook book = metering_book();
  UsageInterval u = a100_interval();
  u.end = u.start;
  EXPECT_EQ(meter(book, u).error().field, "end");
  u = a100_interval();
  u.gpu_type.reset();
  EXPECT_EQ(meter(book, u).error().field, "gpu_type");
  u = a100_interval();
  u.gpu_type = "nvidia-b200";
  EXPECT_EQ(meter(book, u).error().code, core::ErrorCode::NotFound);
  u = a100_interval();
  u.job_id = Id();
  EXPECT_EQ(meter(book, u).error().field, "job_id");
  u = a100_interval();
  u.end = at("2027-03-03T00:00:00Z");
  EXPECT_EQ(meter(book, u).error().field, "end");
  auto spot_less = PriceBook::from_text("currency: USD\ngpu_hour:\n  nvidia-a100-80gb: {on_demand: \"3\"}\n");
  u = a100_interval();
  u.cpu_cores = Quantity::from_int(1);
  auto r = meter(*spot_less, u);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "cpu_cores");
}

TEST(MeteringTest, UsageDocumentsRoundTripAndRejectTypos) {
  UsageInterval u = a100_interval();
  u.labels = {{"team", "search"}};
  u.gpu_utilization = *Quantity::parse("0.5");
  u.tokens_in = 1000;
  auto r = meter(metering_book(), u);
  ASSERT_TRUE(r);
  core::Value doc = r->to_value();
  auto back = Usage::from_value(doc);
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->to_value(), doc);
  EXPECT_EQ(back->computed_cost, r->computed_cost);
  EXPECT_EQ(back->interval.labels.at("team"), "search");

  auto interval = read_interval(to_value(u));
  ASSERT_TRUE(interval) << interval.error().describe();
  EXPECT_EQ(to_value(*interval), to_value(u));

  auto bad = read_interval(json(R"({"job_id": "0190e6f4-5c3a-7abc-8def-0123456789ad", "gpu_cuont": 1,
      "start": "2026-03-01T00:00:00Z", "end": "2026-03-01T00:01:00Z"})"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "gpu_cuont");
  EXPECT_NE(bad.error().message.find("did you mean 'gpu_count'"), std::string::npos);
  bad = read_interval(json(R"({"job_id": "0190e6f4-5c3a-7abc-8def-0123456789ad", "gpu_utilization": 1.5,
      "start": "2026-03-01T00:00:00Z", "end": "2026-03-01T00:01:00Z"})"));
  EXPECT_EQ(bad.error().field, "gpu_utilization");
  bad = read_interval(json(R"({"job_id": "0190e6f4-5c3a-7abc-8def-0123456789ad", "labels": {"team": 1},
      "start": "2026-03-01T00:00:00Z", "end": "2026-03-01T00:01:00Z"})"));
  EXPECT_EQ(bad.error().field, "labels.team");
  bad = read_interval(json(R"({"job_id": "0190e6f4-5c3a-7abc-8def-0123456789ad", "start": "2026-03-01T00:00:00Z"})"));
  EXPECT_EQ(bad.error().field, "end");
}

TEST(MeteringTest, IntervalOfAJob) {
  auto j = job::Job::from_json(R"({"id": "0190e6f4-5c3a-7abc-8def-0123456789ad", "name": "llm",
      "tenant_id": "0190e6f4-5c3a-7abc-8def-0123456789ab", "job_type": "service", "deployment_type": "model",
      "gpu_type": "nvidia.com/mig-3g.40gb", "gpu_count": 1, "priority": "spot", "cpu_cores": 2, "memory_gb": 8,
      "pipeline_id": "0190e6f4-5c3a-7abc-8def-0123456789ae", "source": "pipeline",
      "source_id": "0190e6f4-5c3a-7abc-8def-0123456789af"})");
  ASSERT_TRUE(j) << j.error().describe();
  UsageInterval u = interval_of(*j, at("2026-03-01T00:00:00Z"), at("2026-03-01T00:01:00Z"));
  EXPECT_EQ(u.sharing_mode, SharingMode::Mig);
  EXPECT_EQ(u.mig_profile, "3g.40gb");
  EXPECT_EQ(u.tier, Tier::Spot);
  EXPECT_EQ(u.pipeline_id->to_string(), "0190e6f4-5c3a-7abc-8def-0123456789af");  // the run
  EXPECT_EQ(u.cpu_cores, Quantity::from_int(2));
  EXPECT_EQ(u.job_type, job::JobType::Service);
}

TEST(MeteringTest, JobBudgetLimitFailsAJobThatCostsMore) {
  auto j = job::Job::from_json(R"({"name": "x", "job_type": "batch", "deployment_type": "docker",
      "currency": "EUR", "budget_limit": "10.00"})");
  ASSERT_TRUE(j);
  auto book = PriceBook::from_text("currency: USD\nconversions: {EUR: \"0.9\"}\n");
  EXPECT_TRUE(check_job_budget_limit(*j, *core::Money::parse("11.00", "USD"), *book));  // 9.90 EUR
  auto st = check_job_budget_limit(*j, *core::Money::parse("11.20", "USD"), *book);     // 10.08 EUR
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, core::ErrorCode::BudgetExceeded);
  EXPECT_EQ(st.error().field, "budget_limit");
  EXPECT_NE(st.error().message.find("10.08 EUR"), std::string::npos) << st.error().message;
  auto no_rate = check_job_budget_limit(*j, *core::Money::parse("1", "GBP"), *book);
  EXPECT_EQ(no_rate.error().field, "currency");
}

// ---- with a real store --------------------------------------------------------------------

using MeteringStoreTest = testing::CostStoreTest;

TEST_P(MeteringStoreTest, RecordsUsageAndAddsUpActualCosts) {
  const PriceBook book = metering_book();
  const Id pipeline_run = Id::generate();
  UsageInterval base = a100_interval();
  const Id other_job = Id::generate();
  for (int minute = 0; minute < 5; ++minute) {
    UsageInterval u = base;
    u.pipeline_id = pipeline_run;
    u.start = Timestamp::from_unix_nanos(base.start.unix_nanos() + minute * 60'000'000'000LL);
    u.end = Timestamp::from_unix_nanos(u.start.unix_nanos() + 60'000'000'000LL);
    auto r = record_usage(*store_, book, u);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_GT(r->seq, 0);
    u.job_id = other_job;
    u.gpu_count = 1;
    ASSERT_TRUE(record_usage(*store_, book, u));
  }
  auto job_cost = job_actual_cost(*store_, base.tenant_id, base.job_id);
  ASSERT_TRUE(job_cost) << job_cost.error().describe();
  EXPECT_EQ(job_cost->records, 5);
  EXPECT_EQ(job_cost->gpu_seconds.to_string(), "600");
  EXPECT_EQ(job_cost->total.amount_string(), "0.583333333335");  // five records rounded at 12 places each
  EXPECT_EQ(job_cost->first_start, base.start);

  auto run_cost = pipeline_actual_cost(*store_, base.tenant_id, pipeline_run);
  ASSERT_TRUE(run_cost) << run_cost.error().describe();
  EXPECT_EQ(run_cost->records, 10);
  EXPECT_EQ(run_cost->gpu_seconds.to_string(), "900");

  // Another tenant sees none of it.
  auto other = job_actual_cost(*store_, Id::generate(), base.job_id);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->records, 0);

  auto loaded = load_usage(*store_, base.tenant_id, {}, 4);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().field, "usage");
}

TEST_P(MeteringStoreTest, NothingIsStoredWhenPricingFails) {
  UsageInterval u = a100_interval();
  u.gpu_type = "unknown-gpu";
  ASSERT_FALSE(record_usage(*store_, metering_book(), u));
  auto all = load_usage(*store_, u.tenant_id);
  ASSERT_TRUE(all);
  EXPECT_TRUE(all->empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, MeteringStoreTest, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::cost
