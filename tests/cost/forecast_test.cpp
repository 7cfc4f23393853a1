#include "budcore/cost/forecast.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "cost/cost_fixture.hpp"

namespace budcore::cost {
namespace {

using core::Money;
using core::Timestamp;

using testing::at;

std::vector<DailyCost> days_from(const char* first, const std::vector<const char*>& amounts) {
  std::vector<DailyCost> out;
  Timestamp d = at(first);
  for (const char* a : amounts) {
    out.push_back(DailyCost{d, *Money::parse(a, "USD")});
    d = Timestamp::from_unix_nanos(d.unix_nanos() + 86'400'000'000'000LL);
  }
  return out;
}

TEST(ForecastTest, ExtendsALinearTrendToMonthEnd) {
  // 10, 12, 14, ... over the first 10 days of April (30 days): cost = 10 + 2 x day.
  std::vector<const char*> amounts{"10", "12", "14", "16", "18", "20", "22", "24", "26", "28", "5"};
  auto days = days_from("2026-04-01T00:00:00Z", amounts);
  auto f = forecast_month_end(days, at("2026-04-11T06:00:00Z"));
  ASSERT_TRUE(f) << f.error().describe();
  EXPECT_EQ(f->days_observed, 10);
  EXPECT_EQ(f->slope_per_day.amount_string(2), "2.00");
  EXPECT_EQ(f->intercept.amount_string(2), "10.00");
  EXPECT_EQ(f->month_to_date.amount_string(2), "195.00");  // 190 + today's 5 so far
  // Observed 190 + sum over days 10..29 of (10 + 2d) = 190 + 20 x 10 + 2 x (10 + ... + 29) = 190 + 200 + 780.
  EXPECT_EQ(f->forecast_total.amount_string(2), "1170.00");
  EXPECT_EQ(f->period_end, at("2026-05-01T00:00:00Z"));
  EXPECT_EQ(to_value(*f).find("method")->as_string(), "least_squares");
}

TEST(ForecastTest, FlatAndEmptyCasesAndNegativeTrendsStopAtZero) {
  auto one = days_from("2026-02-01T00:00:00Z", {"3.5"});
  auto f = forecast_month_end(one, at("2026-02-02T12:00:00Z"));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->forecast_total.amount_string(2), "98.00");  // 28 days x 3.50
  f = forecast_month_end({}, at("2026-02-02T12:00:00Z"));
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->forecast_total.is_zero());
  auto falling = days_from("2026-04-01T00:00:00Z", {"100", "90", "80", "70"});
  f = forecast_month_end(falling, at("2026-04-05T00:00:00Z"));
  ASSERT_TRUE(f);
  // 60, 50, ..., 10, 0: 340 + 210; the days after the line crosses zero add nothing.
  EXPECT_EQ(f->forecast_total.amount_string(2), "550.00");
  std::vector<DailyCost> mixed = falling;
  mixed[1].cost = *Money::parse("1", "EUR");
  EXPECT_EQ(forecast_month_end(mixed, at("2026-04-05T00:00:00Z")).error().field, "currency");
}

TEST(ForecastTest, FlagsSpikesAgainstTheBaseline) {
  auto days = days_from("2026-04-01T00:00:00Z", {"10", "11", "9", "10", "11", "9", "10", "45", "10", "10"});
  auto anomalies = detect_anomalies(days);
  ASSERT_EQ(anomalies.size(), 1u);
  EXPECT_EQ(anomalies[0].day, at("2026-04-08T00:00:00Z"));
  EXPECT_NEAR(anomalies[0].baseline_mean, 10.0, 1e-9);
  EXPECT_GT(anomalies[0].z_score, 30);
  auto flat = days_from("2026-04-01T00:00:00Z", {"5", "5", "5", "5", "5", "5.01"});
  anomalies = detect_anomalies(flat);
  ASSERT_EQ(anomalies.size(), 1u);
  EXPECT_TRUE(std::isinf(anomalies[0].z_score));
  EXPECT_TRUE(detect_anomalies(days_from("2026-04-01T00:00:00Z", {"1", "100"})).empty());  // too little baseline
}

TEST(ForecastTest, DailyTotalsFromUsage) {
  auto book = PriceBook::from_text("currency: USD\ngpu_hour:\n  t4: {on_demand: \"2.40\"}\n");
  UsageInterval u;
  u.job_id = core::Id::generate();
  u.gpu_type = "t4";
  u.gpu_count = 1;
  u.start = at("2026-04-01T23:00:00Z");
  u.end = at("2026-04-02T02:00:00Z");
  std::vector<Usage> usage{*meter(*book, u)};
  auto days = daily_totals(usage, at("2026-04-01T00:00:00Z"), at("2026-04-04T00:00:00Z"));
  ASSERT_TRUE(days) << days.error().describe();
  ASSERT_EQ(days->size(), 3u);
  EXPECT_EQ((*days)[0].cost.amount_string(2), "2.40");
  EXPECT_EQ((*days)[1].cost.amount_string(2), "4.80");
  EXPECT_TRUE((*days)[2].cost.is_zero());
  EXPECT_EQ(daily_totals(usage, at("2026-04-04T00:00:00Z"), at("2026-04-01T00:00:00Z")).error().field, "to");
}

TEST(ForecastTest, RunawayByDuration) {
  RunawayCheck c;
  c.name = "slow";
  c.actual_cost = *Money::parse("1", "USD");
  c.estimated_duration_seconds = 600;
  c.elapsed_seconds = 1201;
  auto alerts = detect_runaway(std::span<const RunawayCheck>(&c, 1));
  ASSERT_TRUE(alerts);
  ASSERT_EQ(alerts->size(), 1u);
  EXPECT_NE((*alerts)[0].reason.find("1201 s"), std::string::npos);
  c.elapsed_seconds = 1200;
  EXPECT_TRUE(detect_runaway(std::span<const RunawayCheck>(&c, 1))->empty());
}

}  // namespace
}  // namespace budcore::cost
