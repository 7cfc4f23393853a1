// Kubernetes resource.Quantity semantics over a 128-bit count of nano-units.
//
// Facts taken from k8s.io/apimachinery/pkg/api/resource (quantity.go, suffix.go, amount.go):
// the grammar and suffix tables, rounding of sub-nano digits away from zero, the BinarySI cap
// at 2^63-1, the BinarySI -> DecimalSI fall-backs, and the canonical form (no fraction,
// exponent a multiple of 3, largest suffix).
#include "budcore/core/quantity.hpp"

#include <array>
#include <string>

#include "core/ascii.hpp"

namespace budcore::core {
namespace {

constexpr int128 kNano = Quantity::kNanoPerUnit;
// Kubernetes caps BinarySI values at max int64 on parse (maxAllowed in math.go).
constexpr int128 kBinaryCapNano = static_cast<int128>(INT64_MAX) * kNano;
// Exponents beyond this only ever mean "overflow" or "rounds to 1n"; clamping keeps the
// arithmetic on them in range whatever the input says.
constexpr std::int64_t kExponentClamp = std::int64_t{1} << 40;

constexpr std::array<int128, 39> make_pow10() {
  std::array<int128, 39> p{};
  p[0] = 1;
  for (std::size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}
constexpr std::array<int128, 39> kPow10 = make_pow10();

using detail::is_digit;

Error invalid(std::string_view text, std::string why) {
  return Error::invalid({}, std::string(text), std::move(why));
}

Error overflow(std::string_view text) {
  Error e{ErrorCode::Overflow, "quantity is out of range (the limit is about 1.7e29)", {}, std::string(text)};
  return e;
}

struct Suffix {
  QuantityFormat format = QuantityFormat::DecimalSI;
  int binary_power = 0;           // BinarySI: value x 1024^binary_power
  std::int64_t decimal_exp = 0;   // DecimalSI / DecimalExponent: value x 10^decimal_exp
};

// The suffix tables of suffix.go; "e<int>"/"E<int>" is a decimal exponent unless the whole
// suffix is a table entry ("E" alone is exa).
bool interpret_suffix(std::string_view s, Suffix* out) {
  struct Entry {
    std::string_view text;
    QuantityFormat format;
    int power;
  };
  static constexpr Entry kTable[] = {
      {"", QuantityFormat::DecimalSI, 0},   {"n", QuantityFormat::DecimalSI, -9},
      {"u", QuantityFormat::DecimalSI, -6}, {"m", QuantityFormat::DecimalSI, -3},
      {"k", QuantityFormat::DecimalSI, 3},  {"M", QuantityFormat::DecimalSI, 6},
      {"G", QuantityFormat::DecimalSI, 9},  {"T", QuantityFormat::DecimalSI, 12},
      {"P", QuantityFormat::DecimalSI, 15}, {"E", QuantityFormat::DecimalSI, 18},
      {"Ki", QuantityFormat::BinarySI, 1},  {"Mi", QuantityFormat::BinarySI, 2},
      {"Gi", QuantityFormat::BinarySI, 3},  {"Ti", QuantityFormat::BinarySI, 4},
      {"Pi", QuantityFormat::BinarySI, 5},  {"Ei", QuantityFormat::BinarySI, 6},
  };
  for (const Entry& e : kTable) {
    if (e.text != s) continue;
    out->format = e.format;
    if (e.format == QuantityFormat::BinarySI) {
      out->binary_power = e.power;
    } else {
      out->decimal_exp = e.power;
    }
    return true;
  }
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return false;
  // strconv.ParseInt(s[1:], 10, 64): optional sign, at least one digit, fits int64.
  std::size_t i = 1;
  bool negative = false;
  if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
  if (i == s.size()) return false;
  std::int64_t exp = 0;
  for (; i < s.size(); ++i) {
    if (!is_digit(s[i])) return false;
    const int d = s[i] - '0';
    if (exp > (INT64_MAX - d) / 10) return false;  // ParseInt reports a range error
    exp = exp * 10 + d;
  }
  out->format = QuantityFormat::DecimalExponent;
  out->decimal_exp = negative ? -exp : exp;
  return true;
}

// Magnitude in nano-units of <digits> x 10^shift, rounded up when digits drop off the end.
// `digits` has no leading zeros. false when the result exceeds kInt128Max.
bool scale_digits(std::string_view digits, std::int64_t shift, int128* out) {
  const auto n = static_cast<std::int64_t>(digits.size());
  const std::int64_t kept = n + shift;  // digits at or above the nano position
  if (kept > 39) return false;
  int128 v = 0;
  const std::int64_t take = kept < n ? (kept > 0 ? kept : 0) : n;
  for (std::int64_t i = 0; i < take; ++i) {
    if (!try_mul(v, 10, &v) || !try_add(v, digits[static_cast<std::size_t>(i)] - '0', &v)) return false;
  }
  if (shift >= 0) return try_mul(v, kPow10[static_cast<std::size_t>(shift)], out);
  bool dropped_nonzero = false;
  for (std::int64_t i = take; i < n && !dropped_nonzero; ++i) {
    dropped_nonzero = digits[static_cast<std::size_t>(i)] != '0';
  }
  if (dropped_nonzero && !try_add(v, 1, &v)) return false;
  *out = v;
  return true;
}

// digits x 1024^power in decimal, schoolbook on a digit string (exact for any length).
std::string multiply_by_1024(std::string_view digits, int power) {
  std::string out(digits);
  for (int p = 0; p < power; ++p) {
    unsigned carry = 0;
    for (auto it = out.rbegin(); it != out.rend(); ++it) {
      const unsigned v = static_cast<unsigned>(*it - '0') * 1024u + carry;
      *it = static_cast<char>('0' + v % 10);
      carry = v / 10;
    }
    while (carry != 0) {
      out.insert(out.begin(), static_cast<char>('0' + carry % 10));
      carry /= 10;
    }
  }
  return out;
}

std::string_view strip_leading_zeros(std::string_view s) {
  while (!s.empty() && s.front() == '0') s.remove_prefix(1);
  return s;
}

std::int64_t clamp_exponent(std::int64_t e) {
  return e > kExponentClamp ? kExponentClamp : (e < -kExponentClamp ? -kExponentClamp : e);
}

void append_uint(std::string& out, uint128 v) { out += to_decimal_string(v); }

}  // namespace

Result<Quantity> Quantity::parse(std::string_view text) {
  if (text.empty()) return invalid(text, "quantity must not be empty");

  std::size_t pos = 0;
  bool negative = false;
  if (text[pos] == '+' || text[pos] == '-') negative = text[pos++] == '-';
  const std::size_t int_begin = pos;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  const std::string_view int_digits = text.substr(int_begin, pos - int_begin);
  std::string_view frac_digits;
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t frac_begin = ++pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    frac_digits = text.substr(frac_begin, pos - frac_begin);
  }
  if (int_digits.empty() && frac_digits.empty()) {
    return invalid(text, "quantity must start with a number (e.g. \"500m\", \"2Gi\", \"1e3\")");
  }
  const std::string_view suffix_text = text.substr(pos);
  Suffix suffix;
  if (!interpret_suffix(suffix_text, &suffix)) {
    return invalid(text, "quantity has an invalid suffix \"" + std::string(suffix_text) +
                             "\" (expected one of n u m k M G T P E Ki Mi Gi Ti Pi Ei, or e<exponent>)");
  }

  // Significant digits of int.frac, and the power of ten that turns them into nano-units.
  std::string joined;
  joined.reserve(int_digits.size() + frac_digits.size());
  joined.append(int_digits).append(frac_digits);
  std::string_view digits = strip_leading_zeros(joined);
  const auto frac_len = static_cast<std::int64_t>(frac_digits.size());
  std::int64_t shift = 9 - frac_len;
  std::string binary_digits;
  if (suffix.format == QuantityFormat::BinarySI) {
    binary_digits = multiply_by_1024(digits, suffix.binary_power);
    digits = strip_leading_zeros(binary_digits);
  } else {
    shift += clamp_exponent(suffix.decimal_exp);
  }

  Quantity q;
  q.format_ = suffix.format;
  if (digits.empty()) return q;  // zero keeps the format of its suffix ("0Ki" is BinarySI)

  int128 magnitude = 0;
  const bool in_range = scale_digits(digits, shift, &magnitude);
  if (suffix.format == QuantityFormat::BinarySI) {
    if (!in_range || magnitude > kBinaryCapNano) magnitude = kBinaryCapNano;
    // Kubernetes turns a non-zero BinarySI value below one unit into DecimalSI.
    if (magnitude < kNano) q.format_ = QuantityFormat::DecimalSI;
  } else if (!in_range) {
    return overflow(text);
  }
  q.nano_ = negative ? -magnitude : magnitude;
  return q;
}

Quantity Quantity::from_int(std::int64_t units, QuantityFormat format) noexcept {
  return from_nano(static_cast<int128>(units) * kNano, format);
}

Quantity Quantity::from_milli(std::int64_t milli) noexcept {
  return from_nano(static_cast<int128>(milli) * 1'000'000, QuantityFormat::DecimalSI);
}

Quantity Quantity::from_nano(int128 nano, QuantityFormat format) noexcept {
  Quantity q;
  q.nano_ = nano == kInt128Min ? -kInt128Max : nano;
  q.format_ = format;
  return q;
}

std::string Quantity::to_string() const {
  if (nano_ == 0) return "0";
  std::string out;
  if (nano_ < 0) out += '-';
  uint128 mag = nano_ < 0 ? static_cast<uint128>(-nano_) : static_cast<uint128>(nano_);
  const auto nano_per_unit = static_cast<uint128>(kNano);

  // BinarySI prints binary only for whole values in [1024, 2^63-1]: below 1024 or with a
  // fraction Kubernetes prints DecimalSI, and above the parse cap a binary form would not
  // read back as the same value.
  if (format_ == QuantityFormat::BinarySI && mag >= 1024 * nano_per_unit && mag % nano_per_unit == 0 &&
      mag <= static_cast<uint128>(kBinaryCapNano)) {
    static constexpr std::string_view kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    uint128 units = mag / nano_per_unit;
    std::size_t power = 0;
    while (power + 1 < std::size(kBinary) && units % 1024 == 0) {
      units /= 1024;
      ++power;
    }
    append_uint(out, units);
    out += kBinary[power];
    return out;
  }

  // Decimal: move factors of ten into the exponent, then lower it to a multiple of 3.
  int exponent = -9;
  while (mag % 10 == 0) {
    mag /= 10;
    ++exponent;
  }
  const int down = ((exponent % 3) + 3) % 3;
  for (int i = 0; i < down; ++i) mag *= 10;
  exponent -= down;

  if (format_ == QuantityFormat::DecimalExponent) {
    append_uint(out, mag);
    if (exponent != 0) {
      out += 'e';
      out += std::to_string(exponent);
    }
    return out;
  }
  // DecimalSI (and BinarySI that is fractional or below 1024).
  while (exponent > 18) {  // no suffix above E: keep the mantissa larger instead
    mag *= 1000;
    exponent -= 3;
  }
  static constexpr std::string_view kDecimal[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  append_uint(out, mag);
  out += kDecimal[static_cast<std::size_t>((exponent + 9) / 3)];
  return out;
}

namespace {
// Rounds nano / divisor away from zero and narrows to int64.
Result<std::int64_t> scaled_away_from_zero(int128 nano, int128 divisor, const Quantity& q) {
  int128 v = nano / divisor;
  if (nano % divisor != 0) v += nano < 0 ? -1 : 1;
  if (v > INT64_MAX || v < INT64_MIN) {
    return Error{ErrorCode::Overflow, "quantity does not fit a 64-bit integer", {}, q.to_string()};
  }
  return static_cast<std::int64_t>(v);
}
}  // namespace

Result<std::int64_t> Quantity::value() const { return scaled_away_from_zero(nano_, kNano, *this); }

Result<std::int64_t> Quantity::milli_value() const {
  return scaled_away_from_zero(nano_, 1'000'000, *this);
}

namespace {
// kInt128Min is excluded from results so that negation stays exact.
bool fits(int128 nano) { return nano != kInt128Min; }

Error arithmetic_overflow(const Quantity& a, const char* op, const std::string& b) {
  return Error{ErrorCode::Overflow, "quantity arithmetic overflows the exact range", {},
               a.to_string() + " " + op + " " + b};
}
}  // namespace

Result<Quantity> Quantity::checked_add(const Quantity& other) const {
  int128 r = 0;
  if (!try_add(nano_, other.nano_, &r) || !fits(r)) return arithmetic_overflow(*this, "+", other.to_string());
  return from_nano(r, is_zero() ? other.format_ : format_);
}

Result<Quantity> Quantity::checked_sub(const Quantity& other) const {
  int128 r = 0;
  if (!try_sub(nano_, other.nano_, &r) || !fits(r)) return arithmetic_overflow(*this, "-", other.to_string());
  return from_nano(r, is_zero() ? other.format_ : format_);
}

Result<Quantity> Quantity::checked_mul(std::int64_t factor) const {
  int128 r = 0;
  if (!try_mul(nano_, factor, &r) || !fits(r)) return arithmetic_overflow(*this, "*", std::to_string(factor));
  return from_nano(r, format_);
}

Quantity Quantity::negated() const noexcept { return from_nano(-nano_, format_); }

}  // namespace budcore::core
