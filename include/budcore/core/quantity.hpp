// budcore::core::Quantity — a Kubernetes resource quantity ("500m", "2Gi", "1e3"), exact.
//
// Stored as a signed count of nano-units (10^-9) in 128 bits: every quantity Kubernetes can
// express down to its nano precision, up to about 1.7e29 units. Like resource.Quantity, a
// value finer than 1n is rounded up to the next nano-unit on parse, the suffix family of the
// input (DecimalSI, BinarySI, DecimalExponent) is kept and used by the canonical format, and
// arithmetic beyond the range reports ErrorCode::Overflow instead of wrapping.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "budcore/core/int128.hpp"
#include "budcore/core/result.hpp"

namespace budcore::core {

enum class QuantityFormat : std::uint8_t {
  DecimalSI,        // "", m, k, M, G, ... (and plain numbers)
  BinarySI,         // Ki, Mi, Gi, Ti, Pi, Ei
  DecimalExponent,  // 1e3, 1E6
};

class BUDCORE_API Quantity {
 public:
  static constexpr int128 kNanoPerUnit = 1'000'000'000;

  constexpr Quantity() noexcept = default;

  // The full grammar: <sign><digits>[.<digits>]<suffix>, suffix one of the binary SI
  // (Ki..Ei), decimal SI (n u m "" k M G T P E) or a decimal exponent (e|E<signed int>).
  // As in Kubernetes, "1." and ".5" are numbers, values finer than 1n round up (away from
  // zero) to the next nano-unit, and a BinarySI value beyond 2^63-1 is capped at 2^63-1.
  // Unlike Kubernetes' parser (but like the OpenAPI pattern of Quantity), at least one digit
  // is required: "Ki", "." and "-" are errors rather than zero.
  // Errors (ErrorCode::Invalid, field empty, value = input): "", "1.5.5", "12XB", " 1".
  // ErrorCode::Overflow when the value exceeds the range (about +-1.7e29).
  static Result<Quantity> parse(std::string_view text);
  static Quantity from_int(std::int64_t units, QuantityFormat format = QuantityFormat::DecimalSI) noexcept;
  static Quantity from_milli(std::int64_t milli) noexcept;
  // The most negative int128 is clamped to -kInt128Max so that negation is always exact.
  static Quantity from_nano(int128 nano, QuantityFormat format = QuantityFormat::DecimalSI) noexcept;

  // Canonical Kubernetes form: no fractional digits, the largest suffix of the kept family that
  // loses nothing ("1.5" -> "1500m", "1.5Gi" -> "1536Mi", "1000" -> "1k", "0" -> "0");
  // BinarySI below 1024 or with a fraction prints as DecimalSI, as Kubernetes does.
  // DecimalExponent prints an exponent that is a multiple of 3 ("1e3", "10e3", "80e-3").
  // Beyond the largest suffix (E, Ei) the mantissa grows ("1000E") where Kubernetes would
  // print a wrong bare number. A BinarySI value above 2^63-1 (only reachable by arithmetic)
  // prints as DecimalSI, because its binary form would parse back capped at 2^63-1.
  // Invariant: parse(q.to_string()) == q for every q.
  std::string to_string() const;

  int128 nano() const noexcept { return nano_; }
  QuantityFormat format() const noexcept { return format_; }
  bool is_zero() const noexcept { return nano_ == 0; }
  int sign() const noexcept { return nano_ < 0 ? -1 : (nano_ > 0 ? 1 : 0); }
  // Whole units and milli-units rounded up away from zero ("1.1" -> 2, "-1.1" -> -2), as
  // resource.Quantity's Value() and MilliValue(); Overflow when the result does not fit int64.
  Result<std::int64_t> value() const;
  Result<std::int64_t> milli_value() const;

  // Exact; the result keeps this quantity's format unless this is zero, then it takes the
  // other's (resource.Quantity's Add/Sub). Overflow instead of wrapping.
  Result<Quantity> checked_add(const Quantity& other) const;
  Result<Quantity> checked_sub(const Quantity& other) const;
  Result<Quantity> checked_mul(std::int64_t factor) const;  // keeps the format
  Quantity negated() const noexcept;

  friend bool operator==(const Quantity& a, const Quantity& b) noexcept { return a.nano_ == b.nano_; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) noexcept {
    return a.nano_ < b.nano_ ? std::strong_ordering::less
                             : (a.nano_ > b.nano_ ? std::strong_ordering::greater : std::strong_ordering::equal);
  }

 private:
  int128 nano_ = 0;
  QuantityFormat format_ = QuantityFormat::DecimalSI;
};

}  // namespace budcore::core
