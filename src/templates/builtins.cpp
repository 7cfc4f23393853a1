// Jinja2's builtin filters and tests over RValues (jinja2/filters.py and tests.py semantics).
#include "templates/builtins.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "budcore/core/limits.hpp"
#include "templates/evaluator.hpp"
#include "templates/pyformat.hpp"
#include "templates/text.hpp"

namespace budcore::templates::detail {

using T = RValue::T;

namespace {

// ---- argument helpers
const RValue* arg(const CallArgs& a, std::size_t i, std::string_view name) { return a.get(i, name); }

std::int64_t int_arg(Evaluator& ev, const CallArgs& a, std::size_t i, std::string_view name, std::int64_t dflt,
                     const Expr& at) {
  const RValue* v = arg(a, i, name);
  if (!v) return dflt;
  ev.require_defined(*v, &at);
  if (v->kind() == T::Float) {
    auto i = core::checked_cast<std::int64_t>(v->f());
    if (!i) raise(ErrorKind::TemplateRuntime, "integer overflow (budcore integers are 64-bit)", &at);
    return *i;
  }
  if (v->kind() != T::Int && v->kind() != T::Bool)
    raise(ErrorKind::Type, "'" + std::string(type_name(*v)) + "' object cannot be interpreted as an integer", &at);
  return v->i();
}

bool bool_arg(Evaluator& ev, const CallArgs& a, std::size_t i, std::string_view name, bool dflt, const Expr& at) {
  const RValue* v = arg(a, i, name);
  return v ? ev.truthy(*v, &at) : dflt;
}

std::string str_of(Evaluator& ev, const RValue& v, const Expr& at) {
  ev.require_defined(v, &at);
  return py_str(v);
}

std::shared_ptr<Seq> new_seq(SeqFlavor f = SeqFlavor::List) {
  auto s = std::make_shared<Seq>();
  s->flavor = f;
  return s;
}

RValue list_of(Items items, SeqFlavor flavor = SeqFlavor::List) {
  auto s = new_seq(flavor);
  s->items = std::move(items);
  return RValue(std::move(s));
}
RValue gen_of(Items items) { return list_of(std::move(items), SeqFlavor::Generator); }

// Jinja2's make_attrgetter plus ignore_case postprocessing for sort/unique/min/max.
RValue sort_key(Evaluator& ev, const RValue& item, const RValue* attribute, bool case_sensitive, const Expr& at) {
  RValue v = item;
  if (attribute && !attribute->is_none()) {
    if (attribute->kind() == T::Int) v = ev.getitem(item, *attribute, &at);
    else v = ev.get_path(item, attribute->s(), &at);
    ev.require_defined(v, &at);
  }
  if (!case_sensitive && v.kind() == T::Str) return RValue(ascii_lower(v.s()));
  return v;
}

// ---- filters
RValue f_default(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  bool boolean = bool_arg(ev, a, 1, "boolean", false, at);
  if (v.is_undefined() || (boolean && !ev.truthy(v, &at))) {
    const RValue* d = arg(a, 0, "default_value");
    return d ? *d : RValue(std::string());
  }
  return v;
}
RValue f_lower(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) { return RValue(ascii_lower(str_of(ev, v, at))); }
RValue f_upper(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) { return RValue(ascii_upper(str_of(ev, v, at))); }
RValue f_title(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) { return RValue(jinja_title(str_of(ev, v, at))); }
RValue f_capitalize(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) {
  return RValue(py_capitalize(str_of(ev, v, at)));
}
RValue f_trim(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  std::string s = str_of(ev, v, at);
  const RValue* c = arg(a, 0, "chars");
  bool ws = !c || c->is_none();
  return RValue(std::string(py_strip(s, ws, ws ? std::string_view() : c->s(), true, true)));
}
RValue f_replace(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  std::string s = str_of(ev, v, at);
  const RValue* o = arg(a, 0, "old");
  const RValue* n = arg(a, 1, "new");
  if (!o || !n) raise(ErrorKind::Type, "replace() missing required argument", &at);
  std::string os = str_of(ev, *o, at), ns = str_of(ev, *n, at);
  const RValue* c = arg(a, 2, "count");
  return RValue(py_replace(ev, s, os, ns, c && !c->is_none() ? c->i() : -1, &at));
}
std::int64_t py_len(Evaluator& ev, const RValue& v, const Expr& at) {
  switch (v.kind()) {
    case T::Undef: ev.require_defined(v, &at); return 0;
    case T::Str: return static_cast<std::int64_t>(utf8_length(v.s()));
    case T::Seq:
      if (seq_flavor(v) == SeqFlavor::Generator) break;
      return static_cast<std::int64_t>(seq_size(v));
    case T::Dict: return static_cast<std::int64_t>(dict_size(v));
    case T::Loop: return static_cast<std::int64_t>(v.loop()->items.size());
    default: break;
  }
  raise(ErrorKind::Type, "object of type '" + std::string(type_name(v)) + "' has no len()", &at);
}
RValue f_length(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) { return RValue(py_len(ev, v, at)); }
RValue f_first(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) {
  if (v.kind() == T::Seq) return seq_size(v) ? seq_at(v, 0) : RValue::undefined("No first item, sequence was empty.");
  auto items = ev.iterate(v, &at);
  return items.empty() ? RValue::undefined("No first item, sequence was empty.") : items.front();
}
RValue f_last(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) {
  if (v.kind() == T::Seq && seq_flavor(v) == SeqFlavor::Generator)
    raise(ErrorKind::Type, "'generator' object is not reversible", &at);
  if (v.kind() == T::Seq) return seq_size(v) ? seq_at(v, seq_size(v) - 1) : RValue::undefined("No last item, sequence was empty.");
  auto items = ev.iterate(v, &at);
  return items.empty() ? RValue::undefined("No last item, sequence was empty.") : items.back();
}
RValue f_join(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  const RValue* d = arg(a, 0, "d");
  std::string sep = d ? str_of(ev, *d, at) : std::string();
  const RValue* attribute = arg(a, 1, "attribute");
  std::string out;
  auto items = ev.iterate(v, &at);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    RValue item = attribute && !attribute->is_none() ? sort_key(ev, items[i], attribute, true, at) : items[i];
    ev.require_defined(item, &at);
    append_str(out, item);
    ev.check_size(out.size(), &at);
  }
  return RValue(std::move(out));
}
Items sorted(Evaluator& ev, Items items, bool reverse, bool case_sensitive,
                           const RValue* attribute, const Expr& at) {
  std::vector<std::pair<RValue, RValue>> keyed;
  keyed.reserve(items.size());
  for (auto& it : items) keyed.emplace_back(sort_key(ev, it, attribute, case_sensitive, at), std::move(it));
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? ev.less(y.first, x.first, &at) : ev.less(x.first, y.first, &at);
  });
  Items out;
  out.reserve(keyed.size());
  for (auto& k : keyed) out.push_back(std::move(k.second));
  return out;
}
RValue f_sort(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  return list_of(sorted(ev, ev.iterate(v, &at), bool_arg(ev, a, 0, "reverse", false, at),
                        bool_arg(ev, a, 1, "case_sensitive", false, at), arg(a, 2, "attribute"), at));
}
RValue f_reverse(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) {
  auto items = ev.iterate(v, &at);
  std::reverse(items.begin(), items.end());
  if (v.kind() == T::Str) {
    std::string s;
    for (auto& c : items) s += c.s();
    return RValue(std::move(s));
  }
  return gen_of(std::move(items));
}
RValue f_list(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) { return list_of(ev.iterate(v, &at)); }
RValue f_unique(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  bool cs = bool_arg(ev, a, 0, "case_sensitive", false, at);
  const RValue* attribute = arg(a, 1, "attribute");
  Items seen, out;
  for (auto& it : ev.iterate(v, &at)) {
    RValue k = sort_key(ev, it, attribute, cs, at);
    bool dup = false;
    for (auto& s : seen)
      if (ev.equal(s, k, &at)) { dup = true; break; }
    if (!dup) {
      seen.push_back(k);
      out.push_back(it);
    }
  }
  return gen_of(std::move(out));
}
bool parse_py_int(std::string_view s, int base, std::int64_t& out) {
  s = py_strip(s, true, {}, true, true);
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) { neg = s[0] == '-'; s.remove_prefix(1); }
  if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] | 32) == 'x') s.remove_prefix(2);
  else if (base == 8 && s.size() > 2 && s[0] == '0' && (s[1] | 32) == 'o') s.remove_prefix(2);
  else if (base == 2 && s.size() > 2 && s[0] == '0' && (s[1] | 32) == 'b') s.remove_prefix(2);
  if (s.empty() || s.front() == '_' || s.back() == '_') return false;
  std::string digits;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      if (s[i + 1] == '_') return false;
      continue;
    }
    digits += s[i];
  }
  unsigned long long v = 0;
  for (char c : digits) {
    int d = c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'z' ? (c | 32) - 'a' + 10 : 99;
    if (d >= base) return false;
    if (v > (~0ULL - static_cast<unsigned>(d)) / static_cast<unsigned>(base)) return false;
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
  }
  if (v > static_cast<unsigned long long>(INT64_MAX) + (neg ? 1 : 0)) return false;
  out = neg ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
  return true;
}
bool parse_py_float(std::string_view s, double& out) {
  s = py_strip(s, true, {}, true, true);
  if (s.empty()) return false;
  std::string t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      if (i == 0 || i + 1 >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i - 1])) ||
          !std::isdigit(static_cast<unsigned char>(s[i + 1])))
        return false;
      continue;
    }
    t += s[i];
  }
  std::string low = ascii_lower(t);
  std::string_view body = low;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.remove_prefix(1);
  if (body == "inf" || body == "infinity" || body == "nan") {
    out = body == "nan" ? NAN : (low[0] == '-' ? -INFINITY : INFINITY);
    if (body == "nan" && low[0] == '-') out = -out;
    return true;
  }
  // Only decimal digits, one dot, an exponent.
  for (char c : body)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == '+' || c == '-')) return false;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}
RValue f_int(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  ev.require_defined(v, &at);
  std::int64_t dflt = int_arg(ev, a, 0, "default", 0, at);
  std::int64_t base = int_arg(ev, a, 1, "base", 10, at);
  switch (v.kind()) {
    case T::Int: case T::Bool: return RValue(v.i());
    case T::Float:
      if (std::isfinite(v.f()) && std::fabs(v.f()) < 9.2e18) return RValue(static_cast<std::int64_t>(v.f()));
      return RValue(dflt);
    case T::Str: {
      std::int64_t out;
      if (base >= 2 && base <= 36 && parse_py_int(v.s(), static_cast<int>(base), out)) return RValue(out);
      double d;
      if (parse_py_float(v.s(), d) && std::isfinite(d) && std::fabs(d) < 9.2e18) return RValue(static_cast<std::int64_t>(d));
      return RValue(dflt);
    }
    default: return RValue(dflt);
  }
}
RValue f_float(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  ev.require_defined(v, &at);
  const RValue* d = arg(a, 0, "default");
  RValue dflt = d ? *d : RValue(0.0);
  switch (v.kind()) {
    case T::Int: case T::Bool: case T::Float: return RValue(v.f());
    case T::Str: {
      double out;
      return parse_py_float(v.s(), out) ? RValue(out) : dflt;
    }
    default: return dflt;
  }
}
RValue f_string(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) { return RValue(str_of(ev, v, at)); }
double py_round(double x, std::int64_t nd) {
  if (!std::isfinite(x)) return x;
  if (nd > 300) return x;
  if (nd < -308) return 0.0 * x;
  if (nd >= 0) {
    // printf rounds the exact binary value half-to-even, which is what Python's round does.
    char buf[1024];  // "%.300f" of 1e308 needs 610
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(nd), x);
    return std::strtod(buf, nullptr);
  }
  double p = std::pow(10.0, static_cast<double>(-nd));
  double y = x / p;
  double r = std::round(y);
  if (std::fabs(y - std::trunc(y)) == 0.5) r = 2.0 * std::round(y / 2.0);
  return r * p;
}
RValue f_round(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  ev.require_defined(v, &at);
  std::int64_t precision = int_arg(ev, a, 0, "precision", 0, at);
  const RValue* m = arg(a, 1, "method");
  std::string method = m ? std::string(m->s()) : "common";
  if (method != "common" && method != "ceil" && method != "floor")
    raise(ErrorKind::TemplateRuntime, "method must be common, ceil or floor", &at);
  if (!v.is_number()) raise(ErrorKind::Type, "type " + std::string(type_name(v)) + " doesn't define __round__ method", &at);
  if (method == "common") {
    if (v.kind() != T::Float) {
      if (precision >= 0) return RValue(v.i());
      auto r = core::checked_cast<std::int64_t>(py_round(static_cast<double>(v.i()), precision));
      if (!r) raise(ErrorKind::TemplateRuntime, "integer overflow (budcore integers are 64-bit)", &at);
      return RValue(*r);
    }
    return RValue(py_round(v.f(), precision));
  }
  double p = std::pow(10.0, static_cast<double>(precision));
  double x = v.f() * p;
  return RValue((method == "ceil" ? std::ceil(x) : std::floor(x)) / p);
}
RValue f_abs(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) {
  ev.require_defined(v, &at);
  if (v.kind() == T::Float) return RValue(std::fabs(v.f()));
  if (v.kind() == T::Int || v.kind() == T::Bool) {
    if (v.i() == INT64_MIN) raise(ErrorKind::TemplateRuntime, "integer overflow", &at);
    return RValue(v.i() < 0 ? -v.i() : v.i());
  }
  raise(ErrorKind::Type, "bad operand type for abs(): '" + std::string(type_name(v)) + "'", &at);
}
RValue f_tojson(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  ev.require_defined(v, &at);
  const RValue* ind = arg(a, 0, "indent");
  int indent = ind && !ind->is_none() ? static_cast<int>(std::clamp<std::int64_t>(ind->i(), 0, 64)) : -1;
  std::string out;
  if (!append_tojson(out, v, indent))
    raise(ErrorKind::Type, "Object of type " + std::string(type_name(v)) + " is not JSON serializable", &at);
  ev.check_size(out.size(), &at);
  return RValue(std::move(out));
}
RValue f_dictsort(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  bool cs = bool_arg(ev, a, 0, "case_sensitive", false, at);
  const RValue* by = arg(a, 1, "by");
  bool by_value = by && by->s() == "value";
  if (by && by->s() != "key" && by->s() != "value")
    raise(ErrorKind::TemplateRuntime, "You can only sort by either \"key\" or \"value\"", &at);
  bool reverse = bool_arg(ev, a, 2, "reverse", false, at);
  ev.require_defined(v, &at);
  if (v.kind() != T::Dict) raise(ErrorKind::TemplateRuntime, "'" + std::string(type_name(v)) + "' object has no attribute 'items'", &at);
  Items pairs;
  for (std::size_t i = 0; i < dict_size(v); ++i) {
    auto p = new_seq(SeqFlavor::Tuple);
    p->items = {dict_key(v, i), dict_value(v, i)};
    pairs.emplace_back(std::move(p));
  }
  RValue idx(static_cast<std::int64_t>(by_value ? 1 : 0));
  return list_of(sorted(ev, std::move(pairs), reverse, cs, &idx, at));
}
// map/select/reject helpers: apply a named filter or test with extra arguments.
CallArgs tail_args(const CallArgs& a, std::size_t from) {
  CallArgs t;
  for (std::size_t i = from; i < a.pos.size(); ++i) t.pos.push_back(a.pos[i]);
  t.kw_names = a.kw_names;
  t.kw = a.kw;
  return t;
}
RValue f_map(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  auto items = ev.iterate(v, &at);
  Items out;
  out.reserve(items.size());
  if (a.pos.empty()) {
    const RValue* attribute = arg(a, SIZE_MAX, "attribute");
    if (!attribute) raise(ErrorKind::TemplateRuntime, "map requires a filter argument", &at);
    const RValue* dflt = arg(a, SIZE_MAX, "default");
    for (auto& it : items) {
      RValue x = attribute->kind() == T::Int ? ev.getitem(it, *attribute, &at) : ev.get_path(it, attribute->s(), &at);
      if (x.is_undefined() && dflt) x = *dflt;
      out.push_back(std::move(x));
    }
    return gen_of(std::move(out));
  }
  std::string name = str_of(ev, a.pos[0], at);
  FilterFn f = find_filter(name);
  if (!f) raise(ErrorKind::TemplateRuntime, "No filter named '" + name + "' found.", &at);
  CallArgs rest = tail_args(a, 1);
  for (auto& it : items) out.push_back(f(ev, at, it, rest));
  return gen_of(std::move(out));
}
RValue select_impl(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a, bool by_attr, bool keep) {
  auto items = ev.iterate(v, &at);
  std::size_t first = 0;
  std::string attribute;
  if (by_attr) {
    if (a.pos.empty()) raise(ErrorKind::TemplateRuntime, "Missing parameter for attribute name", &at);
    attribute = str_of(ev, a.pos[0], at);
    first = 1;
  }
  TestFn test = nullptr;
  CallArgs rest;
  if (a.pos.size() > first) {
    std::string name = str_of(ev, a.pos[first], at);
    test = find_test(name);
    if (!test) raise(ErrorKind::TemplateRuntime, "No test named '" + name + "' found.", &at);
    rest = tail_args(a, first + 1);
  }
  Items out;
  for (auto& it : items) {
    RValue x = by_attr ? ev.get_path(it, attribute, &at) : it;
    bool r = test ? test(ev, at, x, rest) : ev.truthy(x, &at);
    if (r == keep) out.push_back(it);
  }
  return gen_of(std::move(out));
}
RValue f_select(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) { return select_impl(ev, at, v, a, false, true); }
RValue f_reject(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) { return select_impl(ev, at, v, a, false, false); }
RValue f_selectattr(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) { return select_impl(ev, at, v, a, true, true); }
RValue f_rejectattr(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) { return select_impl(ev, at, v, a, true, false); }
RValue f_sum(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  const RValue* attribute = arg(a, 0, "attribute");
  const RValue* start = arg(a, 1, "start");
  RValue total = start ? *start : RValue(std::int64_t{0});
  for (auto& it : ev.iterate(v, &at)) {
    RValue x = attribute && !attribute->is_none() ? sort_key(ev, it, attribute, true, at) : it;
    total = py_binary(ev, ExprKind::Add, total, x, &at);
  }
  return total;
}
RValue minmax(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a, bool want_max) {
  bool cs = bool_arg(ev, a, 0, "case_sensitive", false, at);
  const RValue* attribute = arg(a, 1, "attribute");
  auto items = ev.iterate(v, &at);
  if (items.empty()) return RValue::undefined("No aggregated item, sequence was empty.");
  std::size_t best = 0;
  RValue best_key = sort_key(ev, items[0], attribute, cs, at);
  for (std::size_t i = 1; i < items.size(); ++i) {
    RValue k = sort_key(ev, items[i], attribute, cs, at);
    if (want_max ? ev.less(best_key, k, &at) : ev.less(k, best_key, &at)) {
      best = i;
      best_key = std::move(k);
    }
  }
  return items[best];
}
RValue f_min(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) { return minmax(ev, at, v, a, false); }
RValue f_max(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) { return minmax(ev, at, v, a, true); }
RValue f_batch(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  std::int64_t n = int_arg(ev, a, 0, "linecount", -1, at);
  if (n <= 0) raise(ErrorKind::TemplateRuntime, "batch size must be positive", &at);
  const RValue* fill = arg(a, 1, "fill_with");
  auto items = ev.iterate(v, &at);
  Items out;
  std::shared_ptr<Seq> cur;
  for (auto& it : items) {
    if (!cur) cur = new_seq();
    cur->items.push_back(it);
    if (static_cast<std::int64_t>(cur->items.size()) == n) {
      out.emplace_back(std::move(cur));
      cur.reset();
    }
  }
  if (cur) {
    if (fill && !fill->is_none())
      while (static_cast<std::int64_t>(cur->items.size()) < n) cur->items.push_back(*fill);
    out.emplace_back(std::move(cur));
  }
  return gen_of(std::move(out));
}
RValue f_truncate(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  std::string s = str_of(ev, v, at);
  std::int64_t length = int_arg(ev, a, 0, "length", 255, at);
  bool killwords = bool_arg(ev, a, 1, "killwords", false, at);
  const RValue* e = arg(a, 2, "end");
  std::string end = e ? str_of(ev, *e, at) : "...";
  std::int64_t leeway = int_arg(ev, a, 3, "leeway", 5, at);
  std::int64_t end_len = static_cast<std::int64_t>(utf8_length(end));
  if (length < end_len) raise(ErrorKind::TemplateRuntime, "expected length >= " + std::to_string(end_len) + ", got " + std::to_string(length), &at);
  if (leeway < 0) raise(ErrorKind::TemplateRuntime, "expected leeway >= 0, got " + std::to_string(leeway), &at);
  auto chars = ev.iterate(RValue(s), &at);
  if (static_cast<std::int64_t>(chars.size()) - leeway <= length) return RValue(std::move(s));  // no overflow at INT64_MAX
  std::string head;
  for (std::int64_t i = 0; i < length - end_len; ++i) head += chars[static_cast<std::size_t>(i)].s();
  if (killwords) return RValue(head + end);
  auto sp = head.rfind(' ');
  if (sp != std::string::npos) head.resize(sp);
  return RValue(head + end);
}
RValue f_format(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  std::string fmt = str_of(ev, v, at);
  if (!a.pos.empty() && !a.kw.empty())
    raise(ErrorKind::TemplateRuntime, "can't handle positional and keyword arguments at the same time", &at);
  if (!a.kw.empty()) {
    auto d = std::make_shared<Dict>();
    for (std::size_t i = 0; i < a.kw.size(); ++i) d->items.emplace_back(RValue(std::string(a.kw_names[i])), a.kw[i]);
    return RValue(py_percent_format(ev, fmt, RValue(std::move(d)), &at));
  }
  auto t = new_seq(SeqFlavor::Tuple);
  t->items = a.pos;
  return RValue(py_percent_format(ev, fmt, RValue(std::move(t)), &at));
}
RValue f_center(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  std::int64_t width = int_arg(ev, a, 0, "width", 80, at);
  ev.check_size(static_cast<std::size_t>(std::max<std::int64_t>(width, 0)), &at);
  return RValue(py_pad(str_of(ev, v, at), width, "center", " "));
}
RValue f_indent(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  std::string s = str_of(ev, v, at);
  const RValue* w = arg(a, 0, "width");
  std::string ind;
  if (w && w->kind() == T::Str) {
    ind = std::string(w->s());
  } else {
    std::int64_t n = int_arg(ev, a, 0, "width", 4, at);
    ev.check_size(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)), &at);
    ind.assign(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)), ' ');
  }
  bool first = bool_arg(ev, a, 1, "first", false, at);
  bool blank = bool_arg(ev, a, 2, "blank", false, at);
  s += '\n';
  // str.splitlines on \n, \r\n, \r (the common line breaks).
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || s[i] == '\r') {
      lines.push_back(s.substr(start, i - start));
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < s.size()) lines.push_back(s.substr(start));
  std::string rv;
  if (blank) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i) rv += "\n" + ind;
      rv += lines[i];
      ev.check_size(rv.size(), &at);
    }
  } else {
    rv = lines.empty() ? std::string() : lines[0];
    for (std::size_t i = 1; i < lines.size(); ++i) {
      rv += '\n';
      if (!lines[i].empty()) rv += ind;
      rv += lines[i];
      ev.check_size(rv.size(), &at);
    }
  }
  if (first) rv = ind + rv;
  return RValue(std::move(rv));
}
RValue f_wordcount(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) {
  std::string s = str_of(ev, v, at);
  // Jinja2 counts \w+ runs.
  std::int64_t n = 0;
  bool in_word = false;
  for (unsigned char c : s) {
    bool w = std::isalnum(c) || c == '_' || c >= 0x80;
    if (w && !in_word) ++n;
    in_word = w;
  }
  return RValue(n);
}
RValue f_escape(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) {
  std::string s = str_of(ev, v, at), o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&#34;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return RValue(std::move(o));
}
RValue f_safe(Evaluator& ev, const Expr& at, RValue v, const CallArgs&) {
  ev.require_defined(v, &at);
  return v;
}
RValue f_items(Evaluator&, const Expr& at, RValue v, const CallArgs&) {
  if (v.is_undefined()) return list_of({});
  if (v.kind() != T::Dict) raise(ErrorKind::TemplateRuntime, "Can only get item pairs from a mapping.", &at);
  Items out;
  for (std::size_t i = 0; i < dict_size(v); ++i) {
    auto p = new_seq(SeqFlavor::Tuple);
    p->items = {dict_key(v, i), dict_value(v, i)};
    out.emplace_back(std::move(p));
  }
  return list_of(std::move(out));
}
RValue f_attr(Evaluator& ev, const Expr& at, RValue v, const CallArgs& a) {
  const RValue* n = arg(a, 0, "name");
  if (!n) raise(ErrorKind::Type, "attr() missing required argument 'name'", &at);
  ev.require_defined(v, &at);
  return ev.getattr(v, str_of(ev, *n, at), &at);
}

// ---- tests
const RValue& test_arg(const CallArgs& a, const Expr& at) {
  if (a.pos.empty()) raise(ErrorKind::Type, "test is missing its argument", &at);
  return a.pos[0];
}
bool t_defined(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return !v.is_undefined(); }
bool t_undefined(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.is_undefined(); }
bool t_none(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::None; }
bool t_number(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.is_number(); }
bool t_string(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::Str; }
bool t_mapping(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::Dict; }
bool t_sequence(Evaluator&, const Expr&, const RValue& v, const CallArgs&) {
  auto k = v.kind();
  return k == T::Str || k == T::Dict || (k == T::Seq && seq_flavor(v) != SeqFlavor::DictKeys &&
                                         seq_flavor(v) != SeqFlavor::DictValues && seq_flavor(v) != SeqFlavor::DictItems);
}
bool t_iterable(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs&) {
  ev.require_defined(v, &at);
  auto k = v.kind();
  return k == T::Str || k == T::Dict || k == T::Seq;
}
bool t_boolean(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::Bool; }
bool t_integer(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::Int; }
bool t_float(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::Float; }
bool t_true(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::Bool && v.b(); }
bool t_false(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::Bool && !v.b(); }
bool t_callable(Evaluator&, const Expr&, const RValue& v, const CallArgs&) { return v.kind() == T::Method; }
bool t_odd(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs&) {
  RValue m = py_binary(ev, ExprKind::Mod, v, RValue(std::int64_t{2}), &at);
  return ev.equal(m, RValue(std::int64_t{1}), &at);
}
bool t_even(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs&) {
  RValue m = py_binary(ev, ExprKind::Mod, v, RValue(std::int64_t{2}), &at);
  return ev.equal(m, RValue(std::int64_t{0}), &at);
}
bool t_divisibleby(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a) {
  RValue m = py_binary(ev, ExprKind::Mod, v, test_arg(a, at), &at);
  return ev.equal(m, RValue(std::int64_t{0}), &at);
}
bool t_in(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a) { return ev.contains(test_arg(a, at), v, &at); }
bool t_eq(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a) { return ev.equal(v, test_arg(a, at), &at); }
bool t_ne(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a) { return !ev.equal(v, test_arg(a, at), &at); }
bool t_lt(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a) { return ev.less(v, test_arg(a, at), &at); }
bool t_gt(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a) { return ev.less(test_arg(a, at), v, &at); }
bool t_le(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a) {
  return ev.less(v, test_arg(a, at), &at) || ev.equal(v, test_arg(a, at), &at);
}
bool t_ge(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs& a) {
  return ev.less(test_arg(a, at), v, &at) || ev.equal(v, test_arg(a, at), &at);
}
bool t_lower(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs&) {
  std::string s = str_of(ev, v, at);
  return s == ascii_lower(s) && s != ascii_upper(s);
}
bool t_upper(Evaluator& ev, const Expr& at, const RValue& v, const CallArgs&) {
  std::string s = str_of(ev, v, at);
  return s == ascii_upper(s) && s != ascii_lower(s);
}
bool t_sameas(Evaluator&, const Expr& at, const RValue& v, const CallArgs& a) {
  const RValue& o = test_arg(a, at);
  auto k = v.kind();
  if (k != o.kind()) return false;
  if (k == T::None) return true;
  if (k == T::Bool) return v.b() == o.b();
  // CPython caches the small integers, so `1 is sameas 1` holds there.
  if (k == T::Int) return v.i() == o.i() && v.i() >= -5 && v.i() <= 256;
  if (v.core_ref() && o.core_ref()) return v.core_ref() == o.core_ref();
  return false;
}
bool t_escaped(Evaluator&, const Expr&, const RValue&, const CallArgs&) { return false; }

struct FilterEntry { std::string_view name; FilterFn fn; };
struct TestEntry { std::string_view name; TestFn fn; };

constexpr FilterEntry kFilters[] = {
    {"abs", f_abs}, {"attr", f_attr}, {"batch", f_batch}, {"capitalize", f_capitalize}, {"center", f_center},
    {"count", f_length}, {"d", f_default}, {"default", f_default}, {"dictsort", f_dictsort}, {"e", f_escape},
    {"escape", f_escape}, {"first", f_first}, {"float", f_float}, {"format", f_format}, {"indent", f_indent},
    {"int", f_int}, {"items", f_items}, {"join", f_join}, {"last", f_last}, {"length", f_length}, {"list", f_list},
    {"lower", f_lower}, {"map", f_map}, {"max", f_max}, {"min", f_min}, {"reject", f_reject},
    {"rejectattr", f_rejectattr}, {"replace", f_replace}, {"reverse", f_reverse}, {"round", f_round},
    {"safe", f_safe}, {"select", f_select}, {"selectattr", f_selectattr}, {"sort", f_sort}, {"string", f_string},
    {"sum", f_sum}, {"title", f_title}, {"tojson", f_tojson}, {"trim", f_trim}, {"truncate", f_truncate},
    {"unique", f_unique}, {"upper", f_upper}, {"wordcount", f_wordcount},
};

constexpr TestEntry kTests[] = {
    {"!=", t_ne}, {"<", t_lt}, {"<=", t_le}, {"==", t_eq}, {">", t_gt}, {">=", t_ge}, {"boolean", t_boolean},
    {"callable", t_callable}, {"defined", t_defined}, {"divisibleby", t_divisibleby}, {"eq", t_eq},
    {"equalto", t_eq}, {"escaped", t_escaped}, {"even", t_even}, {"false", t_false}, {"float", t_float},
    {"ge", t_ge}, {"greaterthan", t_gt}, {"gt", t_gt}, {"in", t_in}, {"integer", t_integer},
    {"iterable", t_iterable}, {"le", t_le}, {"lessthan", t_lt}, {"lower", t_lower}, {"lt", t_lt},
    {"mapping", t_mapping}, {"ne", t_ne}, {"none", t_none}, {"number", t_number}, {"odd", t_odd},
    {"sameas", t_sameas}, {"sequence", t_sequence}, {"string", t_string}, {"true", t_true},
    {"undefined", t_undefined}, {"upper", t_upper},
};

}  // namespace

FilterFn find_filter(std::string_view name) noexcept {
  for (const auto& e : kFilters)
    if (e.name == name) return e.fn;
  return nullptr;
}

TestFn find_test(std::string_view name) noexcept {
  for (const auto& e : kTests)
    if (e.name == name) return e.fn;
  return nullptr;
}

}  // namespace budcore::templates::detail
