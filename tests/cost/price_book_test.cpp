#include "budcore/cost/price_book.hpp"

#include <gtest/gtest.h>

#include "cost/cost_fixture.hpp"

namespace budcore::cost {
namespace {

using testing::contract_book;

core::Error parse_error(const std::string& text) {
  auto b = PriceBook::from_text(text);
  EXPECT_FALSE(b) << "parsed: " << text;
  return b ? core::Error{} : b.error();
}

TEST(PriceBookTest, ReadsTheContractBook) {
  PriceBook b = contract_book();
  EXPECT_EQ(b.currency, "USD");
  ASSERT_EQ(b.gpu_hour.size(), 2u);
  auto a100 = b.gpu_price("nvidia-a100-80gb", Tier::OnDemand);
  ASSERT_TRUE(a100);
  EXPECT_EQ(a100->text, "2.49");
  EXPECT_EQ(a100->amount.to_string(), "2.49 USD");
  EXPECT_EQ(b.gpu_price("nvidia-t4", Tier::Spot)->text, "0.16");
  EXPECT_EQ(b.cpu_core_hour->spot->text, "0.02");
  EXPECT_EQ(b.memory_gib_hour->on_demand->text, "0.005");
  EXPECT_EQ(b.storage_gib_month->text, "0.10");
  EXPECT_EQ(b.minimum_billable_seconds, 60);
  EXPECT_EQ(b.sharing_multiplier(SharingMode::TimeSlice), core::Quantity::from_int(1));
}

TEST(PriceBookTest, RoundTripsThroughItsDocument) {
  PriceBook b = contract_book();
  auto again = PriceBook::from_value(b.to_value());
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(*again, b);
}

TEST(PriceBookTest, KeepsPricesAsWrittenAndReadsNumbersExactly) {
  auto b = PriceBook::from_text("currency: EUR\ngpu_hour:\n  h100: {on_demand: 2.490, spot: \"1.1900\", memory_gib: 80}\n");
  ASSERT_TRUE(b) << b.error().describe();
  // A YAML number is read through its shortest decimal form; a string is kept as written.
  EXPECT_EQ(b->gpu_hour.at("h100").hour.on_demand->text, "2.49");
  EXPECT_EQ(b->gpu_hour.at("h100").hour.spot->text, "1.1900");
  EXPECT_EQ(b->gpu_hour.at("h100").memory_gib, 80);
}

TEST(PriceBookTest, UnknownKeysNameThePathWithAHint) {
  auto e = parse_error("currency: USD\ngpu_hours: {}\n");
  EXPECT_EQ(e.field, "gpu_hours");
  EXPECT_NE(e.message.find("did you mean 'gpu_hour'"), std::string::npos) << e.message;

  e = parse_error("currency: USD\ngpu_hour:\n  nvidia-t4: {on_demand: \"0.40\", spott: \"0.1\"}\n");
  EXPECT_EQ(e.field, "gpu_hour.nvidia-t4.spott");
  EXPECT_NE(e.message.find("did you mean 'spot'"), std::string::npos) << e.message;

  e = parse_error("currency: USD\ncpu_core_hour: {ondemand: \"0.04\"}\n");
  EXPECT_EQ(e.field, "cpu_core_hour.ondemand");
}

TEST(PriceBookTest, RejectsPricesMoneyCannotHoldExactly) {
  auto e = parse_error("currency: USD\ngpu_hour:\n  t4: {on_demand: \"0.1234567890123\"}\n");
  EXPECT_EQ(e.field, "gpu_hour.t4.on_demand");
  EXPECT_EQ(e.value, "0.1234567890123");
  EXPECT_NE(e.message.find("12 decimal places"), std::string::npos) << e.message;
  // Twelve places are fine.
  EXPECT_TRUE(PriceBook::from_text("currency: USD\ngpu_hour:\n  t4: {on_demand: \"0.123456789012\"}\n"));

  e = parse_error("currency: USD\ngpu_hour:\n  t4: {on_demand: \"-1\"}\n");
  EXPECT_EQ(e.field, "gpu_hour.t4.on_demand");
  EXPECT_NE(e.message.find("negative"), std::string::npos);
  e = parse_error("currency: USD\nstorage_gib_month: \"1e-3\"\n");
  EXPECT_EQ(e.field, "storage_gib_month");
  e = parse_error("currency: USD\nstorage_gib_month: \"1,5\"\n");
  EXPECT_EQ(e.field, "storage_gib_month");
  e = parse_error("currency: USD\ngpu_hour:\n  t4: {on_demand: \"10000000000\"}\n");
  EXPECT_NE(e.message.find("largest price"), std::string::npos);
}

TEST(PriceBookTest, ValidatesEverySection) {
  EXPECT_EQ(parse_error("gpu_hour: {}\n").field, "currency");
  EXPECT_EQ(parse_error("currency: usd\n").field, "currency");
  EXPECT_EQ(parse_error("currency: USD\nminimum_billable_seconds: -1\n").field, "minimum_billable_seconds");
  EXPECT_EQ(parse_error("currency: USD\ngpu_hour:\n  t4: {}\n").field, "gpu_hour.t4");
  EXPECT_EQ(parse_error("currency: USD\ngpu_hour:\n  t4: {on_demand: \"1\", memory_gib: 0}\n").field,
            "gpu_hour.t4.memory_gib");
  EXPECT_EQ(parse_error("currency: USD\ngpu_hour: [1]\n").field, "gpu_hour");
  EXPECT_EQ(parse_error("currency: USD\nsharing_multipliers: {shared: \"0.5\"}\n").field, "sharing_multipliers.shared");
  EXPECT_EQ(parse_error("currency: USD\nsharing_multipliers: {time_slice: \"0\"}\n").field,
            "sharing_multipliers.time_slice");
  EXPECT_EQ(parse_error("currency: USD\nconversions: {eur: \"0.9\"}\n").field, "conversions.eur");
  EXPECT_EQ(parse_error("currency: USD\nconversions: {USD: \"1\"}\n").field, "conversions.USD");
  EXPECT_EQ(parse_error("currency: USD\nconversions: {EUR: \"0.1234567891\"}\n").field, "conversions.EUR");
  EXPECT_EQ(parse_error("schema_version: 2\ncurrency: USD\n").code, core::ErrorCode::Unsupported);
  EXPECT_EQ(parse_error("- 1\n").field, "");
}

TEST(PriceBookTest, LooksUpPricesAndSaysWhatIsMissing) {
  PriceBook b = contract_book();
  auto p = b.gpu_price("nvidia-h100", Tier::OnDemand);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(p.error().field, "gpu_type");
  EXPECT_EQ(p.error().value, "nvidia-h100");
  p = b.gpu_price("nvidia-t4", Tier::Reserved, "steps[1].config.gpu_type");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().field, "steps[1].config.gpu_type");
  EXPECT_NE(p.error().message.find("reserved"), std::string::npos);
}

TEST(PriceBookTest, SharingModesAndTiersParseInAnyCase) {
  EXPECT_EQ(*parse_sharing_mode("TIME_SLICE"), SharingMode::TimeSlice);
  EXPECT_EQ(*parse_sharing_mode("timeslice"), SharingMode::TimeSlice);
  EXPECT_EQ(*parse_sharing_mode("MIG"), SharingMode::Mig);
  EXPECT_EQ(*parse_tier("ON_DEMAND"), Tier::OnDemand);
  EXPECT_FALSE(parse_tier("preemptible"));
  auto b = PriceBook::from_text("currency: USD\nsharing_multipliers: {TIME_SLICE: \"0.35\"}\n");
  ASSERT_TRUE(b) << b.error().describe();
  EXPECT_EQ(b->sharing_multiplier(SharingMode::TimeSlice).to_string(), "350m");
}

TEST(PriceBookTest, ConvertsThroughTheTableExactly) {
  auto b = PriceBook::from_text("currency: USD\nconversions: {EUR: \"0.92\", JPY: \"150.5\"}\n");
  ASSERT_TRUE(b) << b.error().describe();
  auto usd = core::Money::parse("10.00", "USD");
  EXPECT_EQ(b->convert(*usd, "EUR")->to_string(), "9.20 EUR");
  // EUR -> USD divides by the rate: 9.20 / 0.92 = 10 exactly.
  EXPECT_EQ(b->convert(*core::Money::parse("9.20", "EUR"), "USD")->to_string(), "10.00 USD");
  // EUR -> JPY goes through the book's currency in one exact step: 1 EUR = 150.5/0.92 JPY.
  EXPECT_EQ(b->convert(*core::Money::parse("0.92", "EUR"), "JPY")->amount_string(), "150.5");
  // 1/3 needs rounding: half-even at 12 places.
  auto c = PriceBook::from_text("currency: USD\nconversions: {XTS: \"3\"}\n");
  EXPECT_EQ(c->convert(*core::Money::parse("1", "XTS"), "USD")->amount_string(), "0.333333333333");
  auto none = b->convert(*core::Money::parse("1", "GBP"), "USD");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().field, "currency");
  EXPECT_EQ(none.error().value, "GBP -> USD");
}

}  // namespace
}  // namespace budcore::cost
