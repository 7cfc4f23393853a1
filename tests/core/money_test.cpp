// Money: exact decimal amounts, half-even rounding, currencies, overflow.
#include "budcore/core/money.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "budcore/core/time.hpp"

namespace budcore::core {

// Readable gtest output (internal linkage: no clash with another test's printer).
[[maybe_unused]] static void PrintTo(const Money& m, std::ostream* os) { *os << m.to_string(); }

namespace {

Money usd(std::string_view amount) { return Money::parse(amount, "USD").value(); }
std::string units(const Money& m) { return to_decimal_string(m.units()); }

TEST(MoneyTest, ParsesExactDecimals) {
  EXPECT_EQ(units(usd("12.34")), "12340000000000");
  EXPECT_EQ(units(usd("-0.00097")), "-970000000");
  EXPECT_EQ(units(usd("0.000000000001")), "1");
  EXPECT_EQ(units(usd("+7")), "7000000000000");
  EXPECT_EQ(units(usd("0")), "0");
  EXPECT_EQ(units(usd("-0.0")), "0");
  EXPECT_EQ(units(usd("007.50")), "7500000000000");
  EXPECT_EQ(usd("12.34").currency(), "USD");
  EXPECT_EQ(Money::parse("1", "EUR")->currency(), "EUR");
}

TEST(MoneyTest, ParseRoundsHalfEvenBeyondTwelveDecimals) {
  // 13th decimal: 5 exactly -> to the even neighbour; more than 5 -> up; less -> down.
  EXPECT_EQ(units(usd("0.0000000000005")), "0");        // 0.5 pico -> 0
  EXPECT_EQ(units(usd("0.0000000000015")), "2");        // 1.5 -> 2
  EXPECT_EQ(units(usd("0.0000000000025")), "2");        // 2.5 -> 2
  EXPECT_EQ(units(usd("-0.0000000000025")), "-2");      // -2.5 -> -2
  EXPECT_EQ(units(usd("0.00000000000250001")), "3");    // just above half
  EXPECT_EQ(units(usd("0.0000000000024999")), "2");     // just below half
  EXPECT_EQ(units(usd("0.0000000000035")), "4");        // 3.5 -> 4
  EXPECT_EQ(units(usd("0.9999999999995")), "1000000000000");  // carries into the unit
  EXPECT_EQ(units(usd("0.9999999999985")), "999999999998");
}

TEST(MoneyTest, ParseErrorsNameTheValue) {
  for (const char* amount : {"", "1e-3", "1E3", "abc", "1.2.3", "1,000", " 1", "1 ", "12.", ".5", "-", "+",
                             "--1", "0x10", "1_000", "١"}) {
    auto m = Money::parse(amount, "USD");
    ASSERT_FALSE(m.has_value()) << "'" << amount << "' parsed";
    EXPECT_EQ(m.error().code, ErrorCode::Invalid) << amount;
    EXPECT_EQ(m.error().field, "amount");
    EXPECT_EQ(m.error().value, amount);
  }
  EXPECT_NE(Money::parse("1e-3", "USD").error().message.find("no exponent"), std::string::npos);
}

TEST(MoneyTest, CurrencyMustBeAnIsoCode) {
  for (const char* currency : {"", "usd", "US", "USDX", "U$D", "Usd", "12A"}) {
    auto m = Money::parse("1", currency);
    ASSERT_FALSE(m.has_value()) << currency;
    EXPECT_EQ(m.error().code, ErrorCode::Invalid);
    EXPECT_EQ(m.error().field, "currency");
    EXPECT_EQ(m.error().value, currency);
    EXPECT_FALSE(Money::zero(currency).has_value());
  }
  EXPECT_TRUE(Money::zero("JPY")->is_zero());
  EXPECT_EQ(Money::zero("JPY")->currency(), "JPY");
}

TEST(MoneyTest, OverflowOnParse) {
  // About 1.7e26 currency units fit.
  EXPECT_TRUE(Money::parse("170141183460469231731687303.715884105727", "USD").has_value());
  for (const char* amount : {"170141183460469231731687303.715884105728", "1000000000000000000000000000",
                             "-999999999999999999999999999999999999999999"}) {
    auto m = Money::parse(amount, "USD");
    ASSERT_FALSE(m.has_value()) << amount;
    EXPECT_EQ(m.error().code, ErrorCode::Overflow);
    EXPECT_EQ(m.error().value, amount);
  }
}

TEST(MoneyTest, ParsesAmountAndCurrencyTogether) {
  EXPECT_EQ(Money::parse("12.34 USD").value(), usd("12.34"));
  EXPECT_EQ(Money::parse("USD 12.34").value(), usd("12.34"));
  EXPECT_EQ(Money::parse("-0.5 EUR")->to_string(), "-0.50 EUR");
  for (const char* text : {"12.34", "USD", "12.34  USD", "12.34 usd", "USD12.34", "", " 12.34 USD", "1 2 USD"}) {
    auto m = Money::parse(text);
    ASSERT_FALSE(m.has_value()) << text;
    EXPECT_EQ(m.error().code, ErrorCode::Invalid) << text;
    EXPECT_FALSE(m.error().value.empty() && std::string_view(text) != "") << text;
  }
}

TEST(MoneyTest, FormatsWithoutTrailingZeros) {
  EXPECT_EQ(usd("12.5").amount_string(), "12.5");
  EXPECT_EQ(usd("12.5").amount_string(2), "12.50");
  EXPECT_EQ(usd("12").amount_string(), "12");
  EXPECT_EQ(usd("12").amount_string(2), "12.00");
  EXPECT_EQ(usd("0.00097").amount_string(2), "0.00097");
  EXPECT_EQ(usd("-0.000000000001").amount_string(), "-0.000000000001");
  EXPECT_EQ(usd("3.14159").amount_string(12), "3.141590000000");
  EXPECT_EQ(usd("3.14159").amount_string(99), "3.141590000000");  // clamped to 12
  EXPECT_EQ(usd("3.14159").amount_string(-1), "3.14159");
  EXPECT_EQ(usd("0").amount_string(), "0");
  EXPECT_EQ(usd("12.5").to_string(), "12.50 USD");
  EXPECT_EQ(Money().to_string(), "0.00");
  EXPECT_EQ(Money::from_units(kInt128Min, "USD").amount_string(), "-170141183460469231731687303.715884105728");
  EXPECT_EQ(Money::from_units(kInt128Max, "USD").amount_string(), "170141183460469231731687303.715884105727");
}

TEST(MoneyTest, FormatParseRoundTrip) {
  for (const char* amount : {"0", "1", "-1", "0.1", "12.345678", "-99999.999999999999", "0.00097",
                             "123456789012345678901234.5"}) {
    const Money m = usd(amount);
    EXPECT_EQ(Money::parse(m.to_string()).value(), m) << amount;
    EXPECT_EQ(usd(m.amount_string()), m) << amount;
    EXPECT_EQ(m.amount_string(), amount);
  }
}

TEST(MoneyTest, AddAndSubRequireTheSameCurrency) {
  EXPECT_EQ(usd("1.10").checked_add(usd("2.20")).value(), usd("3.3"));
  EXPECT_EQ(usd("1.10").checked_sub(usd("2.20")).value(), usd("-1.1"));
  const Money eur = Money::parse("1", "EUR").value();
  auto mixed = usd("1").checked_add(eur);
  ASSERT_FALSE(mixed.has_value());
  EXPECT_EQ(mixed.error().code, ErrorCode::Invalid);
  EXPECT_EQ(mixed.error().field, "currency");
  EXPECT_EQ(mixed.error().value, "USD + EUR");
  EXPECT_EQ(usd("1").checked_sub(eur).error().value, "USD - EUR");
  // The default Money (zero, no currency) is the identity, so sums can start from Money{}.
  EXPECT_EQ(Money().checked_add(usd("2")).value(), usd("2"));
  EXPECT_EQ(usd("2").checked_add(Money()).value(), usd("2"));
  EXPECT_EQ(Money().checked_sub(usd("2")).value(), usd("-2"));
  // ...but a non-zero amount without a currency does not mix.
  EXPECT_FALSE(Money::from_units(1, "").checked_add(usd("2")).has_value());
}

TEST(MoneyTest, AddOverflowIsAnError) {
  const Money top = Money::from_units(kInt128Max, "USD");
  auto r = top.checked_add(usd("0.000000000001"));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::Overflow);
  EXPECT_EQ(Money::from_units(kInt128Min, "USD").checked_sub(usd("0.000000000001")).error().code,
            ErrorCode::Overflow);
}

TEST(MoneyTest, MulByInteger) {
  EXPECT_EQ(usd("0.00097").checked_mul(3600).value(), usd("3.492"));
  EXPECT_EQ(usd("-2.5").checked_mul(-4).value(), usd("10"));
  EXPECT_TRUE(usd("2.5").checked_mul(0)->is_zero());
  EXPECT_EQ(usd("1").checked_mul(INT64_MIN)->amount_string(), "-9223372036854775808");
  auto r = Money::from_units(kInt128Max / 2 + 1, "USD").checked_mul(2);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::Overflow);
}

TEST(MoneyTest, MulByQuantity) {
  // A per-GPU-second price times 1.5 GPUs.
  const Money price = usd("0.00097");
  EXPECT_EQ(price.checked_mul(Quantity::parse("1500m").value()).value(), usd("0.001455"));
  EXPECT_EQ(price.checked_mul(Quantity::parse("8").value()).value(), usd("0.00776"));
  EXPECT_EQ(usd("2").checked_mul(Quantity::parse("1Gi").value()).value(), usd("2147483648"));
  EXPECT_EQ(usd("1").checked_mul(Quantity::parse("-250m").value()).value(), usd("-0.25"));
  EXPECT_TRUE(price.checked_mul(Quantity()).value().is_zero());
  // price x 1n drops digits: 0.00097 USD x 1e-9 = 0.97 pico -> 1 pico (half-even: 0.97 rounds up).
  EXPECT_EQ(units(price.checked_mul(Quantity::from_nano(1)).value()), "1");
  // Half-even at the last pico: 1 pico x 0.5 = 0.5 -> 0, x 1.5 -> 2, x 2.5 -> 2, x -2.5 -> -2.
  const Money pico = Money::from_units(1, "USD");
  EXPECT_EQ(units(pico.checked_mul(Quantity::parse("0.5").value()).value()), "0");
  EXPECT_EQ(units(pico.checked_mul(Quantity::parse("1.5").value()).value()), "2");
  EXPECT_EQ(units(pico.checked_mul(Quantity::parse("2.5").value()).value()), "2");
  EXPECT_EQ(units(pico.checked_mul(Quantity::parse("-2.5").value()).value()), "-2");
  EXPECT_EQ(units(pico.checked_mul(Quantity::parse("3.5").value()).value()), "4");
  EXPECT_EQ(units(pico.checked_mul(Quantity::parse("2.500000001").value()).value()), "3");
  EXPECT_EQ(price.checked_mul(Quantity::parse("1").value())->currency(), "USD");
}

TEST(MoneyTest, MulByQuantityUsesAWideIntermediate) {
  // 1e6 USD x 1e12 units: the pico x nano product (1e39) exceeds 128 bits, the result does not.
  const Money price = usd("1000000");
  EXPECT_EQ(price.checked_mul(Quantity::parse("1T").value())->amount_string(), "1000000000000000000");
  // A result beyond the range is an error.
  auto r = price.checked_mul(Quantity::parse("100000000000E").value());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::Overflow);
  const Money top = Money::from_units(kInt128Max, "USD");
  EXPECT_EQ(top.checked_mul(Quantity::parse("1").value()).value(), top);
  EXPECT_EQ(top.checked_mul(Quantity::parse("-1").value())->units(), -kInt128Max);
  EXPECT_FALSE(top.checked_mul(Quantity::parse("1.000000001").value()).has_value());
}

TEST(MoneyTest, MulByDuration) {
  const Money per_second = usd("0.00097");
  EXPECT_EQ(per_second.checked_mul(Duration::seconds(3600)).value(), usd("3.492"));
  EXPECT_EQ(per_second.checked_mul(Duration::hours(24)).value(), usd("83.808"));
  EXPECT_EQ(per_second.checked_mul(Duration::milliseconds(1500)).value(), usd("0.001455"));
  EXPECT_EQ(per_second.checked_mul(Duration::nanoseconds(1)).value(), Money::from_units(1, "USD"));
  EXPECT_EQ(per_second.checked_mul(Duration::seconds(-10)).value(), usd("-0.0097"));
  EXPECT_TRUE(per_second.checked_mul(Duration()).value().is_zero());
  // A year of per-second metering at a large price stays exact.
  EXPECT_EQ(usd("123.456789").checked_mul(Duration::seconds(365LL * 24 * 3600)).value(),
            usd("3893333297.904"));
  // Half-even on the nanosecond remainder: 1 pico per second x 0.5 s -> 0, x 1.5 s -> 2.
  const Money pico = Money::from_units(1, "USD");
  EXPECT_EQ(units(pico.checked_mul(Duration::milliseconds(500)).value()), "0");
  EXPECT_EQ(units(pico.checked_mul(Duration::milliseconds(1500)).value()), "2");
  EXPECT_EQ(units(pico.checked_mul(Duration::milliseconds(2500)).value()), "2");
  EXPECT_EQ(units(pico.checked_mul(Duration::milliseconds(-2500)).value()), "-2");
  const Money top = Money::from_units(kInt128Max, "USD");
  EXPECT_EQ(top.checked_mul(Duration::seconds(2)).error().code, ErrorCode::Overflow);
}

TEST(MoneyTest, RoundToIsHalfEven) {
  EXPECT_EQ(usd("0.5").round_to(0), usd("0"));
  EXPECT_EQ(usd("1.5").round_to(0), usd("2"));
  EXPECT_EQ(usd("2.5").round_to(0), usd("2"));
  EXPECT_EQ(usd("-2.5").round_to(0), usd("-2"));
  EXPECT_EQ(usd("-0.5").round_to(0), usd("0"));
  EXPECT_EQ(usd("-1.5").round_to(0), usd("-2"));
  EXPECT_EQ(usd("2.5000001").round_to(0), usd("3"));
  EXPECT_EQ(usd("12.345").round_to(2), usd("12.34"));
  EXPECT_EQ(usd("12.355").round_to(2), usd("12.36"));
  EXPECT_EQ(usd("12.3449").round_to(2), usd("12.34"));
  EXPECT_EQ(usd("0.001455").round_to(4), usd("0.0015"));
  EXPECT_EQ(usd("0.001445").round_to(4), usd("0.0014"));
  EXPECT_EQ(usd("0.123456789012").round_to(12), usd("0.123456789012"));
  EXPECT_EQ(usd("0.123456789012").round_to(20), usd("0.123456789012"));
  EXPECT_EQ(usd("7.7").round_to(-3), usd("8"));  // clamped to 0 decimals
  EXPECT_EQ(usd("7.7").round_to(0).currency(), "USD");
  // Rounding up at the extreme stays representable (rounds toward zero instead).
  const Money top = Money::from_units(kInt128Max, "USD");
  EXPECT_LE(top.round_to(0).units(), kInt128Max);
  EXPECT_EQ(top.round_to(0).units() % Money::kScale, 0);
  EXPECT_GE(Money::from_units(kInt128Min, "USD").round_to(0).units(), kInt128Min);
}

TEST(MoneyTest, OrdersByCurrencyThenAmount) {
  EXPECT_LT(usd("1"), usd("2"));
  EXPECT_GT(usd("-1"), usd("-2"));
  EXPECT_EQ(usd("1.50"), usd("1.5"));
  const Money eur = Money::parse("100", "EUR").value();
  EXPECT_LT(eur, usd("1"));  // "EUR" < "USD"
  EXPECT_NE(eur, Money::parse("100", "GBP").value());
  EXPECT_NE(usd("0"), Money());  // the currency is part of the value
}

TEST(MoneyTest, PerSecondGpuPriceForAnHourIsExact) {
  // The example: 0.00097 USD per GPU-second x 3600 s = 3.492 USD, with no float drift.
  const Money hour = usd("0.00097").checked_mul(Duration::seconds(3600)).value();
  EXPECT_EQ(hour.to_string(), "3.492 USD");
  EXPECT_EQ(hour.amount_string(), "3.492");
  Money total;
  for (int i = 0; i < 3600; ++i) total = total.checked_add(usd("0.00097")).value();
  EXPECT_EQ(total, hour);
}

}  // namespace
}  // namespace budcore::core
