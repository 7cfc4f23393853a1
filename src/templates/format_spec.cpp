// Python's format-spec mini-language ("{:>8.2f}", "{:,}", "{:#x}") as str.format applies it
// to str, int, bool and float: [[fill]align][sign][z][#][0][width][grouping][.precision][type].
// Written here rather than through a library: {fmt}/std::format differ from Python in the
// details templates show (repr-style floats, '%' and the None type's switch to exponents).
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "templates/evaluator.hpp"
#include "templates/format_spec.hpp"
#include "templates/pyformat.hpp"
#include "templates/text.hpp"

namespace budcore::templates::detail {
namespace {

constexpr std::size_t kMaxWidth = 100000;
constexpr int kMaxPrecision = 1000;

struct Spec {
  std::string fill = " ";
  bool fill_given = false;
  char align = 0;  // '<', '>', '=', '^'; 0: the type's default
  char sign = 0;   // '+', '-', ' '; 0: '-'
  bool z = false;
  bool alt = false;
  bool zero = false;
  std::size_t width = 0;
  char grouping = 0;  // ',' or '_'
  int precision = -1;
  char type = 0;
};

bool is_align(char c) { return c == '<' || c == '>' || c == '=' || c == '^'; }

Spec parse_spec(std::string_view s, const Expr* at) {
  Spec sp;
  std::size_t i = 0;
  std::size_t first = 1;  // bytes of the first code point: a fill may be any character
  while (first < s.size() && (static_cast<unsigned char>(s[first]) & 0xC0) == 0x80) ++first;
  if (s.size() > first && is_align(s[first])) {
    sp.fill = std::string(s.substr(0, first));
    sp.fill_given = true;
    sp.align = s[first];
    i = first + 1;
  } else if (!s.empty() && is_align(s[0])) {
    sp.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = s[i++];
  if (i < s.size() && s[i] == 'z') sp.z = (++i, true);
  if (i < s.size() && s[i] == '#') sp.alt = (++i, true);
  if (i < s.size() && s[i] == '0') sp.zero = (++i, true);
  auto number = [&](std::size_t cap) {
    std::size_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      v = v * 10 + static_cast<std::size_t>(s[i++] - '0');
      if (v > cap) raise(ErrorKind::Security, "format width too large", at);
    }
    return v;
  };
  sp.width = number(kMaxWidth);
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) sp.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') raise(ErrorKind::Value, "Format specifier missing precision", at);
    sp.precision = static_cast<int>(number(kMaxPrecision));
  }
  if (i < s.size()) sp.type = s[i++];
  if (i < s.size()) raise(ErrorKind::Value, "Invalid format specifier '" + std::string(s) + "'", at);
  return sp;
}

// `digits` with a separator every `every` digits from the right.
std::string grouped(const std::string& digits, char sep, int every) {
  if (sep == 0) return digits;
  std::string out;
  std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % static_cast<std::size_t>(every) == 0) out += sep;
    out += digits[i];
  }
  return out;
}

// sign + prefix + body, padded to the width: '=' puts the fill between prefix and body.
std::string padded(const Spec& sp, char default_align, const std::string& lead, const std::string& body) {
  const std::size_t len = utf8_length(lead) + utf8_length(body);
  if (sp.width <= len) return lead + body;
  std::string fill;
  const std::size_t n = sp.width - len;
  auto fills = [&](std::size_t k) {
    std::string f;
    for (std::size_t j = 0; j < k; ++j) f += sp.fill;
    return f;
  };
  switch (sp.align != 0 ? sp.align : default_align) {
    case '<': return lead + body + fills(n);
    case '^': return fills(n / 2) + lead + body + fills(n - n / 2);
    case '=': return lead + fills(n) + body;
    default: return fills(n) + lead + body;
  }
}

// The '0' flag: fill with zeros unless a fill was given; a number's default alignment is then
// '=' (zeros between the sign and the digits).
Spec zero_padded(const Spec& sp, bool number) {
  Spec out = sp;
  if (!sp.zero) return out;
  if (!sp.fill_given) out.fill = "0";
  if (number && sp.align == 0) out.align = '=';
  return out;
}

std::string sign_of(const Spec& sp, bool negative) {
  if (negative) return "-";
  if (sp.sign == '+') return "+";
  if (sp.sign == ' ') return " ";
  return "";
}

[[noreturn]] void unknown_code(char type, std::string_view of, const Expr* at) {
  raise(ErrorKind::Value, "Unknown format code '" + std::string(1, type) + "' for object of type '" + std::string(of) + "'",
        at);
}

std::string format_str(const Spec& sp, std::string_view s, const Expr* at) {
  if (sp.type != 0 && sp.type != 's') unknown_code(sp.type, "str", at);
  if (sp.sign != 0) raise(ErrorKind::Value, "Sign not allowed in string format specifier", at);
  if (sp.alt) raise(ErrorKind::Value, "Alternate form (#) not allowed in string format specifier", at);
  if (sp.grouping != 0) raise(ErrorKind::Value, std::string("Cannot specify '") + sp.grouping + "' with 's'.", at);
  if (sp.align == '=') raise(ErrorKind::Value, "'=' alignment not allowed in string format specifier", at);
  std::string body(s);
  if (sp.precision >= 0) {
    // Truncate to `precision` code points.
    std::size_t kept = 0, i = 0;
    for (; i < body.size(); ++i) {
      if ((static_cast<unsigned char>(body[i]) & 0xC0) != 0x80 && kept++ == static_cast<std::size_t>(sp.precision)) break;
    }
    body.resize(i);
  }
  return padded(zero_padded(sp, false), '<', "", body);
}

std::string format_float(const Spec& sp, double d, const Expr* at);

std::string format_int(const Spec& sp, std::int64_t n, const Expr* at) {
  switch (sp.type) {
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
      return format_float(sp, static_cast<double>(n), at);
    case 0: case 'd': case 'n': case 'b': case 'o': case 'x': case 'X': case 'c': break;
    default: unknown_code(sp.type, "int", at);
  }
  if (sp.precision >= 0) raise(ErrorKind::Value, "Precision not allowed in integer format specifier", at);
  if (sp.z) raise(ErrorKind::Value, "Negative zero coercion (z) not allowed in integer format specifier", at);
  if (sp.grouping != 0 && (sp.type == 'n' || sp.type == 'c' || (sp.grouping == ',' && sp.type != 0 && sp.type != 'd'))) {
    raise(ErrorKind::Value, std::string("Cannot specify '") + sp.grouping + "' with '" + sp.type + "'.", at);
  }
  const Spec s2 = zero_padded(sp, true);
  if (sp.type == 'c') {
    if (sp.sign != 0) raise(ErrorKind::Value, "Sign not allowed with integer format specifier 'c'", at);
    if (sp.alt) raise(ErrorKind::Value, "Alternate form (#) not allowed with integer format specifier 'c'", at);
    if (n < 0 || n > 0x10FFFF) raise(ErrorKind::Value, "%c arg not in range(0x110000)", at);
    std::string ch;
    append_utf8(ch, static_cast<std::uint32_t>(n));
    return padded(s2, '>', "", ch);
  }
  const unsigned base = sp.type == 'b' ? 2 : sp.type == 'o' ? 8 : (sp.type == 'x' || sp.type == 'X') ? 16 : 10;
  const char* digit_chars = sp.type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  unsigned long long mag = n < 0 ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
  std::string digits;
  do {
    digits.insert(digits.begin(), digit_chars[mag % base]);
    mag /= base;
  } while (mag != 0);
  std::string lead = sign_of(sp, n < 0);
  if (sp.alt && base != 10) lead += base == 2 ? "0b" : base == 8 ? "0o" : sp.type == 'X' ? "0X" : "0x";
  const int every = base == 10 ? 3 : 4;
  if (sp.grouping != 0 && sp.zero && sp.align == 0 && !sp.fill_given) {
    // Zero padding is grouped too ("{:08,}" of 1234 is "0,001,234"), as Python does: the
    // fewest digits whose grouped form (d digits, (d - 1) / every separators) fills the width.
    const std::size_t lead_len = utf8_length(lead);
    std::size_t d = digits.size();
    while (lead_len + d + (d - 1) / static_cast<std::size_t>(every) < sp.width) ++d;
    digits.insert(0, d - digits.size(), '0');
  }
  return padded(s2, '>', lead, grouped(digits, sp.grouping, every));
}

std::string printf_double(const char* conv, bool alt, int precision, double v) {
  char fmt[16];
  std::snprintf(fmt, sizeof fmt, "%%%s.*%s", alt ? "#" : "", conv);
  int n = std::snprintf(nullptr, 0, fmt, precision, v);
  std::string out(static_cast<std::size_t>(n), '\0');
  std::snprintf(out.data(), out.size() + 1, fmt, precision, v);
  return out;
}

// Removes trailing zeros after a decimal point (and the point itself when nothing is left).
void strip_zeros(std::string& mantissa) {
  if (mantissa.find('.') == std::string::npos) return;
  while (!mantissa.empty() && mantissa.back() == '0') mantissa.pop_back();
  if (!mantissa.empty() && mantissa.back() == '.') mantissa.pop_back();
}

// The None type with a precision: like 'g', but fixed notation only while the exponent is
// below precision - 1, and then with at least one digit after the point (Python's 'r' mode).
std::string general_repr(double mag, int p, bool alt) {
  std::string e = printf_double("e", false, p - 1, mag);
  const int exp = std::stoi(e.substr(e.find('e') + 1));
  if (exp >= -4 && exp < p - 1) {
    std::string f = printf_double("f", alt, p - 1 - exp, mag);
    if (!alt) strip_zeros(f);
    if (f.find('.') == std::string::npos) f += ".0";
    return f;
  }
  std::string m = e.substr(0, e.find('e'));
  if (!alt) strip_zeros(m);
  return m + e.substr(e.find('e'));
}

std::string format_float(const Spec& sp, double d, const Expr* at) {
  switch (sp.type) {
    case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'n': case '%': break;
    default: unknown_code(sp.type, "float", at);
  }
  if (sp.type == 'n' && sp.grouping != 0) raise(ErrorKind::Value, std::string("Cannot specify '") + sp.grouping + "' with 'n'.", at);
  const bool upper = sp.type == 'E' || sp.type == 'F' || sp.type == 'G';
  const double mag = std::fabs(d);
  std::string body;
  if (std::isnan(d) || std::isinf(d)) {
    body = std::isnan(d) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
    if (sp.type == '%') body += '%';
  } else {
    const int p = sp.precision;
    switch (sp.type) {
      case 'f': case 'F': body = printf_double("f", sp.alt, p < 0 ? 6 : p, mag); break;
      case '%': body = printf_double("f", sp.alt, p < 0 ? 6 : p, mag * 100) + "%"; break;
      case 'e': case 'E': body = printf_double(sp.type == 'e' ? "e" : "E", sp.alt, p < 0 ? 6 : p, mag); break;
      case 'g': case 'G': case 'n':
        body = printf_double(sp.type == 'G' ? "G" : "g", sp.alt, p < 0 ? 6 : (p == 0 ? 1 : p), mag);
        break;
      default:
        if (p < 0) {
          append_float_repr(body, mag);
        } else {
          body = general_repr(mag, p == 0 ? 1 : p, sp.alt);
        }
    }
  }
  bool negative = std::signbit(d) && !std::isnan(d);
  if (negative && sp.z && body.find_first_of("123456789") == std::string::npos) negative = false;
  if (sp.grouping != 0) {
    // Group the integer digits only.
    std::size_t end = body.find_first_not_of("0123456789");
    if (end == std::string::npos) end = body.size();
    body = grouped(body.substr(0, end), sp.grouping, 3) + body.substr(end);
  }
  return padded(zero_padded(sp, true), '>', sign_of(sp, negative), body);
}

}  // namespace

void append_formatted(Evaluator& ev, std::string& out, const RValue& v, std::string_view spec, const Expr* at) {
  ev.require_defined(v, at);
  if (spec.empty()) {
    append_str(out, v);
    return;
  }
  const Spec sp = parse_spec(spec, at);
  switch (v.kind()) {
    case RValue::T::Str: out += format_str(sp, v.s(), at); return;
    case RValue::T::Bool:
    case RValue::T::Int: out += format_int(sp, v.i(), at); return;
    case RValue::T::Float: out += format_float(sp, v.f(), at); return;
    default:
      raise(ErrorKind::Type, "unsupported format string passed to " + std::string(type_name(v)) + ".__format__", at);
  }
}

}  // namespace budcore::templates::detail
