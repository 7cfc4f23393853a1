// Python's arithmetic and printf-style formatting for template values.
#include <cmath>
#include <cstdio>
#include <optional>

#include "budcore/core/limits.hpp"
#include "templates/evaluator.hpp"
#include "templates/pyformat.hpp"
#include "templates/text.hpp"

namespace budcore::templates::detail {

using T = RValue::T;

namespace {

bool is_int_like(T k) { return k == T::Int || k == T::Bool; }
bool is_num(T k) { return k == T::Int || k == T::Float || k == T::Bool; }

[[noreturn]] void unsupported(const char* op, const RValue& a, const RValue& b, const Expr* at) {
  raise(ErrorKind::Type, std::string("unsupported operand type(s) for ") + op + ": '" + std::string(type_name(a)) +
                             "' and '" + std::string(type_name(b)) + "'", at);
}

void check_overflow(bool overflow, const Expr* at) {
  if (overflow) raise(ErrorKind::TemplateRuntime, "integer overflow (budcore integers are 64-bit)", at);
}

RValue repeat(Evaluator& ev, const RValue& seq, std::int64_t n, const Expr* at) {
  if (n < 0) n = 0;
  if (seq.kind() == T::Str) {
    std::string_view s = seq.s();
    if (!s.empty() && static_cast<std::uint64_t>(n) > ev.limits.max_output_bytes / s.size())
      ev.check_size(ev.limits.max_output_bytes + 1, at);  // the product would not even fit
    ev.check_size(s.size() * static_cast<std::size_t>(n), at);
    std::string out;
    out.reserve(s.size() * static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) out += s;
    return RValue(std::move(out));
  }
  std::size_t len = seq_size(seq);
  if (len && static_cast<std::uint64_t>(n) > ev.limits.max_output_bytes / len)
    raise(ErrorKind::Security, "sequence repetition too large", at);
  auto out = std::make_shared<Seq>();
  out->flavor = seq_flavor(seq) == SeqFlavor::Tuple ? SeqFlavor::Tuple : SeqFlavor::List;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < len; ++k) out->items.push_back(seq_at(seq, k));
  return RValue(std::move(out));
}

double py_fmod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0.0 && ((b < 0) != (m < 0))) m += b;
  if (m == 0.0) m = std::copysign(0.0, b);
  return m;
}

}  // namespace

RValue py_binary(Evaluator& ev, ExprKind op, const RValue& a, const RValue& b, const Expr* at) {
  ev.require_defined(a, at);
  ev.require_defined(b, at);
  T ka = a.kind(), kb = b.kind();
  bool ints = is_int_like(ka) && is_int_like(kb);
  bool nums = is_num(ka) && is_num(kb);
  switch (op) {
    case ExprKind::Add: {
      if (ints) {
        std::int64_t r;
        check_overflow(__builtin_add_overflow(a.i(), b.i(), &r), at);
        return RValue(r);
      }
      if (nums) return RValue(a.f() + b.f());
      if (ka == T::Str && kb == T::Str) {
        ev.check_size(a.s().size() + b.s().size(), at);
        std::string s;
        s.reserve(a.s().size() + b.s().size());
        s += a.s();
        s += b.s();
        return RValue(std::move(s));
      }
      if (ka == T::Seq && kb == T::Seq) {
        bool ta = seq_flavor(a) == SeqFlavor::Tuple, tb = seq_flavor(b) == SeqFlavor::Tuple;
        if (ta == tb && (ta || seq_flavor(a) == SeqFlavor::List) && (tb || seq_flavor(b) == SeqFlavor::List)) {
          auto out = std::make_shared<Seq>();
          out->flavor = ta ? SeqFlavor::Tuple : SeqFlavor::List;
          for (std::size_t i = 0; i < seq_size(a); ++i) out->items.push_back(seq_at(a, i));
          for (std::size_t i = 0; i < seq_size(b); ++i) out->items.push_back(seq_at(b, i));
          return RValue(std::move(out));
        }
        if (seq_flavor(a) == SeqFlavor::List)
          raise(ErrorKind::Type, "can only concatenate list (not \"" + std::string(type_name(b)) + "\") to list", at);
      }
      if (ka == T::Str)
        raise(ErrorKind::Type, "can only concatenate str (not \"" + std::string(type_name(b)) + "\") to str", at);
      unsupported("+", a, b, at);
    }
    case ExprKind::Sub:
      if (ints) {
        std::int64_t r;
        check_overflow(__builtin_sub_overflow(a.i(), b.i(), &r), at);
        return RValue(r);
      }
      if (nums) return RValue(a.f() - b.f());
      unsupported("-", a, b, at);
    case ExprKind::Mul:
      if (ints) {
        std::int64_t r;
        check_overflow(__builtin_mul_overflow(a.i(), b.i(), &r), at);
        return RValue(r);
      }
      if (nums) return RValue(a.f() * b.f());
      if ((ka == T::Str || ka == T::Seq) && is_int_like(kb)) return repeat(ev, a, b.i(), at);
      if ((kb == T::Str || kb == T::Seq) && is_int_like(ka)) return repeat(ev, b, a.i(), at);
      if ((ka == T::Str || ka == T::Seq) || (kb == T::Str || kb == T::Seq))
        raise(ErrorKind::Type, "can't multiply sequence by non-int of type '" +
                                   std::string(type_name(ka == T::Str || ka == T::Seq ? b : a)) + "'", at);
      unsupported("*", a, b, at);
    case ExprKind::Div:
      if (!nums) unsupported("/", a, b, at);
      if (b.f() == 0.0) raise(ErrorKind::ZeroDivision, ints ? "division by zero" : "float division by zero", at);
      return RValue(a.f() / b.f());
    case ExprKind::FloorDiv:
      if (!nums) unsupported("//", a, b, at);
      if (ints) {
        if (b.i() == 0) raise(ErrorKind::ZeroDivision, "integer division or modulo by zero", at);
        std::int64_t x = a.i(), y = b.i();
        if (x == INT64_MIN && y == -1) raise(ErrorKind::TemplateRuntime, "integer overflow", at);
        std::int64_t q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        return RValue(q);
      }
      if (b.f() == 0.0) raise(ErrorKind::ZeroDivision, "float floor division by zero", at);
      return RValue(std::floor((a.f() - py_fmod(a.f(), b.f())) / b.f() + 0.0));
    case ExprKind::Mod:
      if (ka == T::Str) return RValue(py_percent_format(ev, a.s(), b, at));
      if (!nums) unsupported("%", a, b, at);
      if (ints) {
        if (b.i() == 0) raise(ErrorKind::ZeroDivision, "integer division or modulo by zero", at);
        std::int64_t x = a.i(), y = b.i();
        if (y == -1) return RValue(std::int64_t{0});
        std::int64_t m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) m += y;
        return RValue(m);
      }
      if (b.f() == 0.0) raise(ErrorKind::ZeroDivision, "float modulo", at);
      return RValue(py_fmod(a.f(), b.f()));
    case ExprKind::Pow: {
      if (!nums) unsupported("** or pow()", a, b, at);
      if (ints && b.i() >= 0) {
        std::int64_t base = a.i(), e = b.i(), r = 1;
        while (e > 0) {
          if (e & 1) check_overflow(__builtin_mul_overflow(r, base, &r), at);
          e >>= 1;
          if (e) check_overflow(__builtin_mul_overflow(base, base, &base), at);
          ev.tick(at);
        }
        return RValue(r);
      }
      if (a.f() == 0.0 && b.f() < 0)
        raise(ErrorKind::ZeroDivision, "0.0 cannot be raised to a negative power", at);
      return RValue(std::pow(a.f(), b.f()));
    }
    default: break;
  }
  raise(ErrorKind::TemplateRuntime, "unknown operator", at);
}

std::string py_percent_format(Evaluator& ev, std::string_view fmt, const RValue& args, const Expr* at) {
  Items values;
  bool mapping = args.kind() == T::Dict;
  if (args.kind() == T::Seq && seq_flavor(args) == SeqFlavor::Tuple) {
    for (std::size_t i = 0; i < seq_size(args); ++i) values.push_back(seq_at(args, i));
  } else {
    values.push_back(args);
  }
  std::size_t next = 0;
  std::string out;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c != '%') { out += c; continue; }
    if (++i >= fmt.size()) raise(ErrorKind::Value, "incomplete format", at);
    RValue v;
    bool have_value = false;
    if (fmt[i] == '(') {
      auto close = fmt.find(')', i);
      if (close == std::string_view::npos) raise(ErrorKind::Value, "incomplete format key", at);
      if (!mapping) raise(ErrorKind::Type, "format requires a mapping", at);
      if (!dict_find(args, fmt.substr(i + 1, close - i - 1), v))
        raise(ErrorKind::TemplateRuntime, "KeyError: '" + std::string(fmt.substr(i + 1, close - i - 1)) + "'", at);
      have_value = true;
      i = close + 1;
    }
    std::string spec = "%";
    while (i < fmt.size() && std::string_view("-+ #0").find(fmt[i]) != std::string_view::npos) spec += fmt[i++];
    int width = 0, prec = -1;
    // Digits past the caps are refused as they are read, so the numbers never overflow.
    auto number = [&](int& v, int cap) {
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
        v = v * 10 + (fmt[i++] - '0');
        if (v > cap) raise(ErrorKind::Security, "format width too large", at);
      }
    };
    number(width, 100000);
    if (i < fmt.size() && fmt[i] == '.') {
      prec = 0;
      ++i;
      number(prec, 1000);
    }
    if (i >= fmt.size()) raise(ErrorKind::Value, "incomplete format", at);
    char conv = fmt[i];
    if (conv == '%') { out += '%'; continue; }
    if (!have_value) {
      if (mapping && values.size() == 1) v = args;
      else if (next < values.size()) v = values[next++];
      else raise(ErrorKind::Type, "not enough arguments for format string", at);
    }
    ev.require_defined(v, at);
    std::string flags = spec;
    auto pad = [&](std::string body) {
      bool left = flags.find('-') != std::string::npos;
      if (static_cast<int>(body.size()) < width) {
        std::string fill(static_cast<std::size_t>(width) - body.size(), ' ');
        body = left ? body + fill : fill + body;
      }
      out += body;
    };
    char buf[512];
    switch (conv) {
      case 's': case 'r': case 'a': {
        std::string s;
        if (conv == 's') append_str(s, v); else append_repr(s, v);
        if (conv == 'a') s = py_ascii_escape(s);
        if (prec >= 0 && static_cast<int>(s.size()) > prec) s.resize(static_cast<std::size_t>(prec));
        pad(s);
        break;
      }
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
        if (!v.is_number()) raise(ErrorKind::Type, std::string("%") + conv + " format: a real number is required, not " + std::string(type_name(v)), at);
        std::optional<long long> whole = v.kind() == T::Float ? core::checked_cast<long long>(v.f()) : v.i();
        if (!whole) raise(ErrorKind::TemplateRuntime, "integer overflow (budcore integers are 64-bit)", at);
        long long n = *whole;
        std::string f = flags + std::to_string(width);
        if (prec >= 0) {
          f += '.';
          f += std::to_string(prec);
        }
        f += "ll";
        f += conv == 'i' || conv == 'u' ? 'd' : conv;
        if ((conv == 'x' || conv == 'X' || conv == 'o') && n < 0) {
          f = flags + std::to_string(width) + "ll" + conv;
          std::snprintf(buf, sizeof buf, f.c_str(), 0ULL - static_cast<unsigned long long>(n));  // no overflow at LLONG_MIN
          std::string s = buf;
          auto p = s.find_first_not_of(' ');
          s.insert(p == std::string::npos ? 0 : p, "-");
          out += s;
        } else {
          std::snprintf(buf, sizeof buf, f.c_str(), n);
          out += buf;
        }
        break;
      }
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': {
        if (!v.is_number()) raise(ErrorKind::Type, "must be real number, not " + std::string(type_name(v)), at);
        std::string f = flags + std::to_string(width) + "." + std::to_string(prec < 0 ? 6 : prec) + conv;
        std::snprintf(buf, sizeof buf, f.c_str(), v.f());
        out += buf;
        break;
      }
      case 'c': {
        if (v.kind() == T::Str) pad(std::string(v.s()));
        else pad(std::string(1, static_cast<char>(v.i())));
        break;
      }
      default:
        raise(ErrorKind::Value, std::string("unsupported format character '") + conv + "'", at);
    }
    ev.check_size(out.size(), at);
  }
  if (!mapping && next < values.size())
    raise(ErrorKind::Type, "not all arguments converted during string formatting", at);
  return out;
}

}  // namespace budcore::templates::detail
