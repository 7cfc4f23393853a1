// Private: exact decimal arithmetic for prices. A price (pico-units) times a quantity (nano-
// units) times an optional factor (nano-units) over a whole divisor (3600 s, 2,592,000 s) is
// formed exactly in 256 bits and rounded once, half-to-even, to the decimals asked for, so no
// amount ever passes through a double or an intermediate rounding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::cost::detail {

// price x quantity [x factor] / divisor, rounded half-even to `decimals` (0..12) places.
// Overflow (field `what`) when the result does not fit Money.
core::Result<core::Money> prorate(const core::Money& price, const core::Quantity& quantity, std::int64_t divisor,
                                  int decimals, const std::optional<core::Quantity>& factor = std::nullopt,
                                  const std::string& what = "amount");

// amount x numerator / denominator (both positive quantities), rounded half-even to 12 places.
core::Result<core::Money> scale_money(const core::Money& amount, const core::Quantity& numerator,
                                      const core::Quantity& denominator);

// a x b exactly (nano x nano rounded half-even back to nano; used for seconds x counts whose
// product is exact anyway). Overflow when it does not fit.
core::Result<core::Quantity> multiply(const core::Quantity& a, const core::Quantity& b);

// q / divisor (divisor > 0), rounded half-even to the nano-unit.
core::Quantity divide(const core::Quantity& q, std::int64_t divisor);

// part / whole x 100 rounded half-even to 2 decimals ("52.21"); "0.00" when whole is zero.
std::string percent_text(const core::Money& part, const core::Money& whole);

// A non-negative exact decimal price (at most 12 fractional digits, at most max_units whole
// units), or an Invalid error naming `field` ("gpu_hour.nvidia-t4.spot") with the reason.
core::Result<core::Money> parse_price(const std::string& text, const std::string& currency, const std::string& field,
                                      std::int64_t max_units);

}  // namespace budcore::cost::detail

namespace budcore::cost::detail {

// The part of `value` that falls in [t0, t1) of a whole span [0, whole):
// round(value x t1 / whole) - round(value x t0 / whole), half-to-even. The parts of any
// partition of the span add up to `value` exactly.
core::int128 share(core::int128 value, std::int64_t t0, std::int64_t t1, std::int64_t whole);

// Splits `amount` over non-negative weights exactly (largest remainder: floor shares, then one
// unit each to the largest remainders, earlier entries first on ties); evenly when every
// weight is 0. The parts add up to `amount`.
std::vector<core::int128> allocate(core::int128 amount, const std::vector<core::int128>& weights);

}  // namespace budcore::cost::detail

#pragma GCC visibility pop
