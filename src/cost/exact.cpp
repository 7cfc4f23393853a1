#include "cost/exact.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <array>

namespace budcore::cost::detail {
namespace {

using core::Error;
using core::int128;
using core::Money;
using core::Quantity;
using core::uint128;
using Wide = boost::multiprecision::checked_int256_t;

constexpr std::array<std::int64_t, 19> kPow10 = [] {
  std::array<std::int64_t, 19> p{};
  p[0] = 1;
  for (std::size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}();

Wide wide(int128 v) {
  const bool negative = v < 0;
  const uint128 mag = negative ? static_cast<uint128>(0) - static_cast<uint128>(v) : static_cast<uint128>(v);
  Wide w = static_cast<std::uint64_t>(mag >> 64);
  w <<= 64;
  w += static_cast<std::uint64_t>(mag);
  return negative ? Wide(-w) : w;
}

// numerator / denominator (denominator > 0) rounded half-to-even.
Wide divide_half_even(const Wide& numerator, const Wide& denominator) {
  const bool negative = numerator < 0;
  const Wide mag = negative ? Wide(-numerator) : numerator;
  Wide q = mag / denominator;
  const Wide r = mag % denominator;
  const Wide twice = r * 2;
  if (twice > denominator || (twice == denominator && (q & 1) != 0)) q += 1;
  return negative ? Wide(-q) : q;
}

// A Wide that must fit int128.
bool narrow(const Wide& w, int128* out) {
  static const Wide kMax = wide(core::kInt128Max);
  static const Wide kMin = wide(core::kInt128Min);
  if (w > kMax || w < kMin) return false;
  const bool negative = w < 0;
  Wide mag = negative ? Wide(-w) : w;
  const auto lo = static_cast<std::uint64_t>(mag & Wide(0xFFFFFFFFFFFFFFFFULL));
  const auto hi = static_cast<std::uint64_t>(mag >> 64);
  const uint128 u = (static_cast<uint128>(hi) << 64) | lo;
  *out = negative ? -static_cast<int128>(u) : static_cast<int128>(u);
  return true;
}

Error overflow(const std::string& what) {
  return Error{core::ErrorCode::Overflow, "amount out of range", what, {}};
}

Wide pow10(int n) {
  Wide w = 1;
  for (int i = 0; i < n; ++i) w *= 10;
  return w;
}

}  // namespace

core::Result<Money> prorate(const Money& price, const Quantity& quantity, std::int64_t divisor, int decimals,
                            const std::optional<Quantity>& factor, const std::string& what) {
  if (divisor <= 0) return Error::make(core::ErrorCode::Internal, "prorate divisor must be positive", what);
  if (decimals < 0) decimals = 0;
  if (decimals > Money::kScaleDigits) decimals = Money::kScaleDigits;
  try {
    // price (10^-12) x quantity (10^-9) [x factor (10^-9)]: the exact product at 10^-scale.
    Wide n = wide(price.units()) * wide(quantity.nano());
    int scale = Money::kScaleDigits + 9;
    if (factor) {
      n *= wide(factor->nano());
      scale += 9;
    }
    // Round once to `decimals` places, then express in pico-units.
    const Wide rounded = divide_half_even(n, Wide(divisor) * pow10(scale - decimals));
    int128 units = 0;
    if (!narrow(rounded * Wide(kPow10[static_cast<std::size_t>(Money::kScaleDigits - decimals)]), &units)) {
      return overflow(what);
    }
    return Money::from_units(units, price.currency());
  } catch (const std::overflow_error&) {
    return overflow(what);
  }
}

core::Result<Money> scale_money(const Money& amount, const Quantity& numerator, const Quantity& denominator) {
  if (denominator.nano() <= 0) return Error::make(core::ErrorCode::Internal, "scale denominator must be positive");
  try {
    const Wide r = divide_half_even(wide(amount.units()) * wide(numerator.nano()), wide(denominator.nano()));
    int128 units = 0;
    if (!narrow(r, &units)) return overflow("amount");
    return Money::from_units(units, amount.currency());
  } catch (const std::overflow_error&) {
    return overflow("amount");
  }
}

core::Result<Quantity> multiply(const Quantity& a, const Quantity& b) {
  try {
    const Wide r = divide_half_even(wide(a.nano()) * wide(b.nano()), Wide(Quantity::kNanoPerUnit));
    int128 nano = 0;
    if (!narrow(r, &nano)) return overflow("quantity");
    return Quantity::from_nano(nano);
  } catch (const std::overflow_error&) {
    return overflow("quantity");
  }
}

int128 share(int128 value, std::int64_t t0, std::int64_t t1, std::int64_t whole) {
  if (t0 == 0 && t1 == whole) return value;
  const Wide v = wide(value);
  const Wide hi = divide_half_even(v * Wide(t1), Wide(whole));
  const Wide lo = t0 == 0 ? Wide(0) : divide_half_even(v * Wide(t0), Wide(whole));
  int128 out = 0;
  narrow(hi - lo, &out);  // |part| <= |value|
  return out;
}

std::vector<int128> allocate(int128 amount, const std::vector<int128>& weights) {
  std::vector<int128> out(weights.size(), 0);
  if (weights.empty()) return out;
  Wide total = 0;
  for (auto w : weights) total += wide(w);
  const bool even = total == 0;
  if (even) total = static_cast<std::uint64_t>(weights.size());
  const bool negative = amount < 0;
  const Wide mag = negative ? Wide(-wide(amount)) : wide(amount);
  std::vector<std::pair<Wide, std::size_t>> remainders;
  remainders.reserve(weights.size());
  Wide given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const Wide numerator = mag * (even ? Wide(1) : wide(weights[i]));
    const Wide q = numerator / total;
    narrow(q, &out[i]);  // q <= mag
    given += q;
    remainders.emplace_back(numerator % total, i);
  }
  std::stable_sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; given < mag && k < remainders.size(); ++k, given += 1) ++out[remainders[k].second];
  if (negative) {
    for (auto& o : out) o = -o;
  }
  return out;
}

Quantity divide(const Quantity& q, std::int64_t divisor) {
  const Wide r = divide_half_even(wide(q.nano()), Wide(divisor));
  int128 nano = 0;
  narrow(r, &nano);  // |q / divisor| <= |q| always fits
  return Quantity::from_nano(nano);
}

std::string percent_text(const Money& part, const Money& whole) {
  if (whole.units() == 0) return "0.00";
  try {
    const Wide hundredths = divide_half_even(wide(part.units()) * 10'000, wide(whole.units()));
    int128 h = 0;
    // Hundredths as a Money of 2 decimals gives the text with its sign and padding.
    if (!narrow(hundredths, &h) || !core::try_mul(h, Money::kScale / 100, &h)) return "overflow";
    return Money::from_units(h, "").amount_string(2);
  } catch (const std::overflow_error&) {
    return "0.00";
  }
}

core::Result<Money> parse_price(const std::string& text, const std::string& currency, const std::string& field,
                                std::int64_t max_units) {
  const std::size_t dot = text.find('.');
  if (dot != std::string::npos && text.size() - dot - 1 > static_cast<std::size_t>(Money::kScaleDigits)) {
    return Error::invalid(field, text,
                          "has more than 12 decimal places, more precision than an amount holds; "
                          "write at most 12");
  }
  auto m = Money::parse(text, currency);
  if (!m) {
    return Error::invalid(field, text, "must be a decimal amount such as \"2.49\" (no exponent or unit)");
  }
  if (m->units() < 0) return Error::invalid(field, text, "must not be negative");
  if (m->units() > static_cast<int128>(max_units) * Money::kScale) {
    return Error::invalid(field, text, "is larger than " + std::to_string(max_units) + ", the largest price accepted");
  }
  return *m;
}

}  // namespace budcore::cost::detail
