// budcore::core::Money — an exact amount in an ISO 4217 currency. Never a double.
//
// Fixed point with 10^-12 of the currency unit ("pico-units") in a signed 128-bit integer, so
// a per-second GPU price such as 0.00097 USD is exact and a year of per-second metering
// cannot overflow. Operations that must drop digits round half-to-even (banker's rounding)
// at the 12th decimal, or at the precision asked for by round_to.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "budcore/core/int128.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"

namespace budcore::core {

class Duration;

class BUDCORE_API Money {
 public:
  static constexpr int kScaleDigits = 12;
  static constexpr int128 kScale = 1'000'000'000'000;

  Money() noexcept = default;  // 0 with no currency ("")

  // Exact decimal string ("12.34", "-0.00097", "+5"; "1e-3", "12.", ".5", "1,000" are rejected)
  // with a three-letter upper-case ISO 4217 code. More than 12 fractional digits round
  // half-even. Errors: Invalid with field "amount" or "currency" and the value; Overflow.
  static Result<Money> parse(std::string_view amount, std::string_view currency);
  // "12.34 USD" / "USD 12.34" (exactly one space).
  static Result<Money> parse(std::string_view amount_and_currency);
  static Money from_units(int128 pico_units, std::string currency) noexcept;
  static Result<Money> zero(std::string_view currency);

  // Decimal amount without trailing zeros past `min_decimals` ("12.5" with 2 -> "12.50").
  std::string amount_string(int min_decimals = 0) const;
  std::string to_string() const;  // "12.50 USD": amount with at least 2 decimals + currency
  const std::string& currency() const noexcept { return currency_; }
  int128 units() const noexcept { return units_; }
  bool is_zero() const noexcept { return units_ == 0; }

  // Same currency required (Invalid, field "currency", value "USD + EUR"); Overflow on range.
  // The default Money{} (zero, no currency) combines with any currency, so sums can start
  // from it.
  Result<Money> checked_add(const Money& other) const;
  Result<Money> checked_sub(const Money& other) const;
  Result<Money> checked_mul(std::int64_t factor) const;
  // price x quantity (e.g. per-GPU-second price x "1500m" GPUs), rounded half-even.
  Result<Money> checked_mul(const Quantity& quantity) const;
  // per-second price x duration (nanosecond exact), rounded half-even.
  Result<Money> checked_mul(const Duration& duration) const;
  // Rounds half-even to `decimals` fractional digits (clamped to 0..12). At the very end of the
  // range, where rounding up would not fit, it rounds toward zero instead.
  Money round_to(int decimals) const;

  friend bool operator==(const Money& a, const Money& b) noexcept = default;
  // Ordering across currencies compares the currency code first; compare same-currency amounts.
  friend std::strong_ordering operator<=>(const Money& a, const Money& b) noexcept;

 private:
  int128 units_ = 0;
  std::string currency_;
};

}  // namespace budcore::core
