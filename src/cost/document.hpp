// Private helpers the cost layer's document readers share: bounded input, exact decimals from
// JSON/YAML scalars, and the "missing field" message the contract-5 error codes key on.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/metering.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::cost::detail {

// The message of every "required field is missing" error (the job codec's wording).
inline constexpr std::string_view kMissingField = "required field is missing";

// `e` with its field under `parent` ("spot" under "gpu_hour.t4" -> "gpu_hour.t4.spot").
inline core::Error under(std::string_view parent, core::Error e) {
  e.at(parent);
  return e;
}

// How reports and records write numbers: an amount with at least 2 decimals and every digit
// it has ("0.0415", "12.50"); a quantity as its exact decimal ("2700.5").
core::Value amount_value(const core::Money& m);
core::Value quantity_value(const core::Quantity& q);

// core::parse_document with the size cap (Invalid naming `field` when larger).
core::Result<core::Value> parse_bounded_document(std::string_view text, std::string_view field,
                                                 std::size_t max_bytes = kMaxDocumentBytes);

// The exact decimal text of a scalar: a string as is, an integer, or a float through its
// shortest decimal form (2.49 -> "2.49"); a float needing an exponent is an error naming path.
core::Result<std::string> decimal_text_of(const core::Value& v, const std::string& path);

// A positive exact decimal factor (multiplier, conversion rate): at most 9 fractional digits,
// at most max_units; errors name path.
core::Result<core::Quantity> read_factor(const core::Value& v, const std::string& path, std::int64_t max_units);

}  // namespace budcore::cost::detail

#pragma GCC visibility pop
