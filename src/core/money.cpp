// Money: exact decimal amounts in pico-units (10^-12) of an ISO 4217 currency.
//
// Where digits must drop, rounding is half-to-even (banker's rounding): on parse beyond 12
// decimals, in price x quantity and price x duration (the exact product has 21 decimals), and
// in round_to. Nothing here touches a floating-point type.
#include "budcore/core/money.hpp"

#include <array>
#include <cstdint>
#include <string>

#include "budcore/core/time.hpp"
#include "core/ascii.hpp"

namespace budcore::core {
namespace {

constexpr std::array<int128, 13> make_pow10() {
  std::array<int128, 13> p{};
  p[0] = 1;
  for (std::size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}
constexpr std::array<int128, 13> kPow10 = make_pow10();

using detail::is_digit;

bool is_currency_code(std::string_view c) {
  if (c.size() != 3) return false;
  for (char ch : c) {
    if (ch < 'A' || ch > 'Z') return false;
  }
  return true;
}

Status check_currency(std::string_view currency) {
  if (is_currency_code(currency)) return {};
  return Error::invalid("currency", std::string(currency),
                        "currency must be a three-letter upper-case ISO 4217 code such as \"USD\"");
}

Error bad_amount(std::string_view amount, std::string why) {
  return Error::invalid("amount", std::string(amount), std::move(why));
}

// q rounded half-to-even given the remainder r of the division by d (0 <= r < d).
uint128 round_half_even(uint128 q, uint128 r, uint128 d) {
  const uint128 twice = r * 2;  // r < d <= 10^21, no overflow
  if (twice > d || (twice == d && (q & 1) != 0)) return q + 1;
  return q;
}

// |a| x |b| / divisor rounded half-even, with a 256-bit intermediate so the product may exceed
// 128 bits as long as the quotient fits. false when the result exceeds kInt128Max.
bool mul_div_half_even(int128 a, int128 b, std::uint64_t divisor, int128* out) {
  const bool negative = (a < 0) != (b < 0);
  const uint128 ua = a < 0 ? static_cast<uint128>(0) - static_cast<uint128>(a) : static_cast<uint128>(a);
  const uint128 ub = b < 0 ? static_cast<uint128>(0) - static_cast<uint128>(b) : static_cast<uint128>(b);

  // Schoolbook 2x2 limbs of 64 bits -> 4 limbs, little-endian.
  const std::uint64_t a_limb[2] = {static_cast<std::uint64_t>(ua), static_cast<std::uint64_t>(ua >> 64)};
  const std::uint64_t b_limb[2] = {static_cast<std::uint64_t>(ub), static_cast<std::uint64_t>(ub >> 64)};
  std::uint64_t prod[4] = {0, 0, 0, 0};
  for (int i = 0; i < 2; ++i) {
    uint128 carry = 0;
    for (int j = 0; j < 2; ++j) {
      const uint128 t = static_cast<uint128>(a_limb[i]) * b_limb[j] + prod[i + j] + carry;
      prod[i + j] = static_cast<std::uint64_t>(t);
      carry = t >> 64;
    }
    prod[i + 2] = static_cast<std::uint64_t>(carry);
  }
  // Long division by a 64-bit divisor, most significant limb first.
  std::uint64_t quot[4] = {0, 0, 0, 0};
  uint128 rem = 0;
  for (int i = 3; i >= 0; --i) {
    const uint128 cur = (rem << 64) | prod[i];
    quot[i] = static_cast<std::uint64_t>(cur / divisor);
    rem = cur % divisor;
  }
  if (quot[3] != 0 || quot[2] != 0) return false;
  uint128 q = (static_cast<uint128>(quot[1]) << 64) | quot[0];
  q = round_half_even(q, rem, divisor);
  if (q > static_cast<uint128>(kInt128Max)) return false;
  *out = negative ? -static_cast<int128>(q) : static_cast<int128>(q);
  return true;
}

Error overflow(std::string what) {
  return Error{ErrorCode::Overflow, "money amount out of range (the limit is about 1.7e26 currency units)", {},
               std::move(what)};
}

}  // namespace

Result<Money> Money::parse(std::string_view amount, std::string_view currency) {
  BUDCORE_TRY(check_currency(currency));
  if (amount.empty()) return bad_amount(amount, "amount must not be empty");

  std::size_t pos = 0;
  bool negative = false;
  if (amount[0] == '+' || amount[0] == '-') negative = amount[pos++] == '-';
  const std::size_t int_begin = pos;
  while (pos < amount.size() && is_digit(amount[pos])) ++pos;
  if (pos == int_begin) {
    return bad_amount(amount, "amount must be a decimal number such as \"12.34\" (digits before any '.')");
  }
  const std::string_view int_digits = amount.substr(int_begin, pos - int_begin);
  std::string_view frac_digits;
  if (pos < amount.size() && amount[pos] == '.') {
    const std::size_t frac_begin = ++pos;
    while (pos < amount.size() && is_digit(amount[pos])) ++pos;
    frac_digits = amount.substr(frac_begin, pos - frac_begin);
    if (frac_digits.empty()) return bad_amount(amount, "amount must have digits after the '.'");
  }
  if (pos != amount.size()) {
    return bad_amount(amount, "amount must be a plain decimal number such as \"12.34\" "
                              "(no exponent, grouping or spaces)");
  }

  int128 units = 0;
  for (char c : int_digits) {
    if (!try_mul(units, 10, &units) || !try_add(units, c - '0', &units)) return overflow(std::string(amount));
  }
  if (!try_mul(units, kScale, &units)) return overflow(std::string(amount));
  // The first 12 fractional digits are exact; the rest decide a half-even rounding.
  const std::size_t exact = frac_digits.size() < kScaleDigits ? frac_digits.size() : kScaleDigits;
  int128 frac = 0;
  for (std::size_t i = 0; i < exact; ++i) frac = frac * 10 + (frac_digits[i] - '0');
  frac *= kPow10[kScaleDigits - exact];
  if (frac_digits.size() > kScaleDigits) {
    const std::string_view rest = frac_digits.substr(kScaleDigits);
    const char first = rest[0];
    const bool beyond_half = rest.find_first_not_of('0', 1) != std::string_view::npos;
    const bool round_up = first > '5' || (first == '5' && (beyond_half || (frac & 1) != 0));
    if (round_up) frac += 1;  // may carry into the integer part; the sum below handles it
  }
  if (!try_add(units, frac, &units)) return overflow(std::string(amount));
  Money m;
  m.units_ = negative ? -units : units;
  m.currency_ = std::string(currency);
  return m;
}

Result<Money> Money::parse(std::string_view text) {
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos || text.find(' ', space + 1) != std::string_view::npos) {
    return Error::invalid("amount", std::string(text),
                          "money must be \"<amount> <currency>\" or \"<currency> <amount>\", e.g. \"12.34 USD\"");
  }
  const std::string_view left = text.substr(0, space);
  const std::string_view right = text.substr(space + 1);
  // A code is letters only and an amount starts with a sign or a digit, so one side decides.
  if (!left.empty() && left[0] >= 'A' && left[0] <= 'Z') return parse(right, left);
  return parse(left, right);
}

Money Money::from_units(int128 pico_units, std::string currency) noexcept {
  Money m;
  m.units_ = pico_units;
  m.currency_ = std::move(currency);
  return m;
}

Result<Money> Money::zero(std::string_view currency) {
  BUDCORE_TRY(check_currency(currency));
  return from_units(0, std::string(currency));
}

std::string Money::amount_string(int min_decimals) const {
  if (min_decimals < 0) min_decimals = 0;
  if (min_decimals > kScaleDigits) min_decimals = kScaleDigits;
  const uint128 mag = units_ < 0 ? static_cast<uint128>(0) - static_cast<uint128>(units_)
                                 : static_cast<uint128>(units_);
  const auto scale = static_cast<uint128>(kScale);
  std::string out = units_ < 0 ? "-" : "";
  out += to_decimal_string(mag / scale);
  std::string frac = to_decimal_string(mag % scale);
  frac.insert(0, static_cast<std::size_t>(kScaleDigits) - frac.size(), '0');
  std::size_t keep = frac.size();
  while (keep > static_cast<std::size_t>(min_decimals) && frac[keep - 1] == '0') --keep;
  if (keep > 0) {
    out += '.';
    out.append(frac, 0, keep);
  }
  return out;
}

std::string Money::to_string() const {
  std::string out = amount_string(2);
  if (!currency_.empty()) {
    out += ' ';
    out += currency_;
  }
  return out;
}

namespace {
// A zero Money without a currency (the default) adopts the other side's currency, so sums can
// start from Money{}; any other difference is an error naming both codes.
Status same_currency(const Money& a, const Money& b, const char* op) {
  if (a.currency() == b.currency()) return {};
  if ((a.currency().empty() && a.is_zero()) || (b.currency().empty() && b.is_zero())) return {};
  return Error::invalid("currency", a.currency() + " " + op + " " + b.currency(),
                        "cannot combine amounts in different currencies");
}
const std::string& result_currency(const Money& a, const Money& b) {
  return a.currency().empty() ? b.currency() : a.currency();
}
}  // namespace

Result<Money> Money::checked_add(const Money& other) const {
  BUDCORE_TRY(same_currency(*this, other, "+"));
  int128 r = 0;
  if (!try_add(units_, other.units_, &r)) return overflow(to_string() + " + " + other.to_string());
  return from_units(r, result_currency(*this, other));
}

Result<Money> Money::checked_sub(const Money& other) const {
  BUDCORE_TRY(same_currency(*this, other, "-"));
  int128 r = 0;
  if (!try_sub(units_, other.units_, &r)) return overflow(to_string() + " - " + other.to_string());
  return from_units(r, result_currency(*this, other));
}

Result<Money> Money::checked_mul(std::int64_t factor) const {
  int128 r = 0;
  if (!try_mul(units_, factor, &r)) return overflow(to_string() + " * " + std::to_string(factor));
  return from_units(r, currency_);
}

Result<Money> Money::checked_mul(const Quantity& quantity) const {
  int128 r = 0;
  if (!mul_div_half_even(units_, quantity.nano(), 1'000'000'000, &r)) {
    return overflow(to_string() + " * " + quantity.to_string());
  }
  return from_units(r, currency_);
}

Result<Money> Money::checked_mul(const Duration& duration) const {
  int128 r = 0;
  if (!mul_div_half_even(units_, duration.count_ns(), 1'000'000'000, &r)) {
    return overflow(to_string() + " * " + std::to_string(duration.count_ns()) + "ns");
  }
  return from_units(r, currency_);
}

Money Money::round_to(int decimals) const {
  if (decimals >= kScaleDigits) return *this;
  if (decimals < 0) decimals = 0;
  const auto step = static_cast<uint128>(kPow10[static_cast<std::size_t>(kScaleDigits - decimals)]);
  const uint128 mag = units_ < 0 ? static_cast<uint128>(0) - static_cast<uint128>(units_)
                                 : static_cast<uint128>(units_);
  uint128 q = round_half_even(mag / step, mag % step, step);
  // Rounding up can only leave the range within one step of the extreme; stay representable.
  if (q > static_cast<uint128>(kInt128Max) / step) q = static_cast<uint128>(kInt128Max) / step;
  const auto rounded = static_cast<int128>(q * step);
  return from_units(units_ < 0 ? -rounded : rounded, currency_);
}

std::strong_ordering operator<=>(const Money& a, const Money& b) noexcept {
  if (auto c = a.currency() <=> b.currency(); c != 0) return c;
  if (a.units() == b.units()) return std::strong_ordering::equal;
  return a.units() < b.units() ? std::strong_ordering::less : std::strong_ordering::greater;
}

}  // namespace budcore::core
