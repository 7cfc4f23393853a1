#include "templates/pyformat.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "budcore/core/limits.hpp"
#include "templates/evaluator.hpp"

namespace budcore::templates::detail {

namespace {

// Printing nested values: one nesting budget per thread (the printers take no Evaluator), the
// namespaces being printed (a namespace can contain itself; Python prints the repeat as
// `{...}`), and the output limit checked as the text grows, so a value shared many times over
// (`[x, x]` nested 30 deep) stops at the limit instead of filling memory first.
struct PrintState {
  int depth = 0;
  std::vector<const Dict*> open;
};
thread_local PrintState t_print;

class Nested {
 public:
  explicit Nested(std::string_view what) : guard_(t_print.depth, core::kMaxValueDepth) {
    if (!guard_.ok()) raise(ErrorKind::Security, std::string(what) + ": value nested too deeply");
  }

 private:
  core::DepthGuard guard_;
};

void check_text(const std::string& out) {
  const AllocBudget* b = AllocBudget::current();
  if (b && out.size() > b->text_limit())
    raise(ErrorKind::Security, "output exceeds the limit of " + std::to_string(b->text_limit()) + " bytes");
}

bool printing(const Dict* d) { return std::find(t_print.open.begin(), t_print.open.end(), d) != t_print.open.end(); }

struct Opened {
  explicit Opened(const Dict* d) { t_print.open.push_back(d); }
  ~Opened() { t_print.open.pop_back(); }
};

}  // namespace

void append_float_repr(std::string& out, double d) {
  if (std::isnan(d)) { out += "nan"; return; }
  if (std::isinf(d)) { out += d < 0 ? "-inf" : "inf"; return; }
  // Shortest round-trip digits in scientific form, then laid out the way Python's repr
  // (format code 'r') does: positional for exponents -5 < exp < 16, otherwise scientific.
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));
  bool neg = sci.front() == '-';
  if (neg) sci.remove_prefix(1);
  auto epos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, epos))
    if (c != '.') digits += c;
  int exp = 0;
  std::from_chars(sci.data() + epos + 1 + (sci[epos + 1] == '+'), sci.data() + sci.size(), exp);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (neg) out += '-';
  int nd = static_cast<int>(digits.size());
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-exp - 1), '0');
      out += digits;
    } else if (exp + 1 >= nd) {
      out += digits;
      out.append(static_cast<std::size_t>(exp + 1 - nd), '0');
      out += ".0";
    } else {
      out.append(digits, 0, static_cast<std::size_t>(exp + 1));
      out += '.';
      out.append(digits, static_cast<std::size_t>(exp + 1));
    }
    return;
  }
  out += digits[0];
  if (nd > 1) {
    out += '.';
    out.append(digits, 1);
  }
  out += 'e';
  out += exp < 0 ? '-' : '+';
  int a = exp < 0 ? -exp : exp;
  if (a < 10) out += '0';
  out += std::to_string(a);
}

void append_str_repr(std::string& out, std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char q = has_single && !has_double ? '"' : '\'';
  out += q;
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c == static_cast<unsigned char>(q)) {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
          char b[8];
          std::snprintf(b, sizeof b, "\\x%02x", c);
          out += b;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += q;
}

namespace {

void append_seq(std::string& out, const RValue& v) {
  SeqFlavor fl = seq_flavor(v);
  std::size_t n = seq_size(v);
  const char* open = "[";
  const char* close = "]";
  switch (fl) {
    case SeqFlavor::Tuple: open = "("; close = n == 1 ? ",)" : ")"; break;
    case SeqFlavor::DictKeys: open = "dict_keys(["; close = "])"; break;
    case SeqFlavor::DictValues: open = "dict_values(["; close = "])"; break;
    case SeqFlavor::DictItems: open = "dict_items(["; close = "])"; break;
    case SeqFlavor::Generator: out += "<generator object>"; return;
    default: break;
  }
  Nested nested("repr");
  out += open;
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    append_repr(out, seq_at(v, i));
    check_text(out);
  }
  out += close;
}

void append_dict(std::string& out, const RValue& v) {
  const Dict* self = v.dict();
  if (self && printing(self)) {
    out += "{...}";
    return;
  }
  Nested nested("repr");
  std::optional<Opened> opened;
  if (self) opened.emplace(self);
  out += '{';
  std::size_t n = dict_size(v);
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    if (auto r = v.core_ref()) append_str_repr(out, r->as_map().entries()[i].first);
    else append_repr(out, dict_key(v, i));
    out += ": ";
    append_repr(out, dict_value(v, i));
    check_text(out);
  }
  out += '}';
}

}  // namespace

void append_str(std::string& out, const RValue& v) {
  switch (v.kind()) {
    case RValue::T::Str: out += v.s(); return;
    default: append_repr(out, v); return;
  }
}

void append_repr(std::string& out, const RValue& v) {
  switch (v.kind()) {
    case RValue::T::Undef: out += "Undefined"; return;
    case RValue::T::None: out += "None"; return;
    case RValue::T::Bool: out += v.b() ? "True" : "False"; return;
    case RValue::T::Int: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, v.i());
      out.append(buf, r.ptr);
      return;
    }
    case RValue::T::Float: append_float_repr(out, v.f()); return;
    case RValue::T::Str: append_str_repr(out, v.s()); return;
    case RValue::T::Seq: append_seq(out, v); return;
    case RValue::T::Dict: append_dict(out, v); return;
    case RValue::T::Loop: {
      auto l = v.loop();
      out += "<LoopContext " + std::to_string(l->index0 + 1) + "/" + std::to_string(l->items.size()) + ">";
      return;
    }
    case RValue::T::Method:
      out += v.method()->macro ? "<Macro '" + v.method()->name + "'>" : "<built-in method " + v.method()->name + ">";
      return;
    case RValue::T::Ref: return;
  }
}

namespace {

void json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    char b[16];
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '<': out += "\\u003c"; continue;
      case '>': out += "\\u003e"; continue;
      case '&': out += "\\u0026"; continue;
      case '\'': out += "\\u0027"; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7f) {
      if (c == 0x7f) { out += static_cast<char>(c); continue; }
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
      continue;
    }
    if (c < 0x80) { out += static_cast<char>(c); continue; }
    // ensure_ascii: decode UTF-8 and write \uXXXX (surrogate pairs above the BMP).
    std::uint32_t cp = 0;
    int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    cp = len == 4 ? (c & 0x07u) : len == 3 ? (c & 0x0Fu) : len == 2 ? (c & 0x1Fu) : c;
    for (int k = 1; k < len && i + 1 < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[++i]) & 0x3Fu);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      std::snprintf(b, sizeof b, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
    } else {
      std::snprintf(b, sizeof b, "\\u%04x", cp);
    }
    out += b;
  }
  out += '"';
}

void newline(std::string& out, int indent, int level) {
  out += '\n';
  out.append(static_cast<std::size_t>(indent * level), ' ');
}

}  // namespace

bool append_tojson(std::string& out, const RValue& v, int indent, int level) {
  switch (v.kind()) {
    case RValue::T::None: out += "null"; return true;
    case RValue::T::Bool: out += v.b() ? "true" : "false"; return true;
    case RValue::T::Int: append_repr(out, v); return true;
    case RValue::T::Float: {
      double d = v.f();
      if (std::isnan(d)) out += "NaN";
      else if (std::isinf(d)) out += d < 0 ? "-Infinity" : "Infinity";
      else append_float_repr(out, d);
      return true;
    }
    case RValue::T::Str: json_string(out, v.s()); return true;
    case RValue::T::Seq: {
      if (seq_flavor(v) == SeqFlavor::Generator) return false;
      std::size_t n = seq_size(v);
      if (n == 0) { out += "[]"; return true; }
      Nested nested("tojson");
      out += '[';
      for (std::size_t i = 0; i < n; ++i) {
        if (i) out += indent >= 0 ? "," : ", ";
        if (indent >= 0) newline(out, indent, level + 1);
        if (!append_tojson(out, seq_at(v, i), indent, level + 1)) return false;
        check_text(out);
      }
      if (indent >= 0) newline(out, indent, level);
      out += ']';
      return true;
    }
    case RValue::T::Dict: {
      std::size_t n = dict_size(v);
      if (n == 0) { out += "{}"; return true; }
      const Dict* self = v.dict();
      if (self && printing(self)) raise(ErrorKind::Value, "Circular reference detected");  // as json.dumps
      Nested nested("tojson");
      std::optional<Opened> opened;
      if (self) opened.emplace(self);
      std::vector<std::pair<std::string, RValue>> entries;
      entries.reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
        RValue k = dict_key(v, i);
        std::string ks;
        if (k.kind() == RValue::T::Str) ks = std::string(k.s());
        else if (k.kind() == RValue::T::None) ks = "null";
        else if (k.kind() == RValue::T::Bool) ks = k.b() ? "true" : "false";
        else if (k.kind() == RValue::T::Int || k.kind() == RValue::T::Float) ks = py_str(k);
        else return false;
        entries.emplace_back(std::move(ks), dict_value(v, i));
      }
      std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      out += '{';
      bool first = true;
      for (auto& [k, val] : entries) {
        if (!first) out += indent >= 0 ? "," : ", ";
        first = false;
        if (indent >= 0) newline(out, indent, level + 1);
        json_string(out, k);
        out += ": ";
        if (!append_tojson(out, val, indent, level + 1)) return false;
        check_text(out);
      }
      if (indent >= 0) newline(out, indent, level);
      out += '}';
      return true;
    }
    default: return false;
  }
}

}  // namespace budcore::templates::detail
