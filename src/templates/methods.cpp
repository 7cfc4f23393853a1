// Methods of str, dict and list that templates may call, and the global functions
// (range, dict, namespace). Nothing else is reachable: no attribute walks into internals.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "budcore/core/int128.hpp"
#include "templates/evaluator.hpp"
#include "templates/format_spec.hpp"
#include "templates/pyformat.hpp"
#include "templates/text.hpp"

namespace budcore::templates::detail {

using T = RValue::T;

namespace {

constexpr std::string_view kStrMethods[] = {
    "split", "rsplit", "upper", "lower", "startswith", "endswith", "replace", "strip", "lstrip", "rstrip",
    "title", "capitalize", "join", "count", "find", "rfind", "index", "isdigit", "isalpha", "isalnum",
    "isspace", "isupper", "islower", "zfill", "ljust", "rjust", "center", "splitlines", "format",
    "removeprefix", "removesuffix", "swapcase", "partition"};
constexpr std::string_view kDictMethods[] = {"get", "keys", "values", "items"};
constexpr std::string_view kListMethods[] = {"index", "count"};

template <std::size_t N>
bool in(const std::string_view (&names)[N], std::string_view n) {
  return std::find(std::begin(names), std::end(names), n) != std::end(names);
}

std::string_view str_arg(Evaluator& ev, const CallArgs& a, std::size_t i, std::string_view name, const Expr* at) {
  const RValue* v = a.get(i, name);
  if (!v) raise(ErrorKind::Type, "missing required argument '" + std::string(name) + "'", at);
  ev.require_defined(*v, at);
  if (v->kind() != T::Str) raise(ErrorKind::Type, "must be str, not " + std::string(type_name(*v)), at);
  return v->s();
}

std::shared_ptr<Seq> new_seq(SeqFlavor f = SeqFlavor::List) {
  auto s = std::make_shared<Seq>();
  s->flavor = f;
  return s;
}

RValue range_fn(Evaluator& ev, const CallArgs& a, const Expr* at) {
  std::int64_t r[3] = {0, 0, 1};
  std::size_t n = a.pos.size();
  if (n == 0 || n > 3) raise(ErrorKind::Type, "range expected at most 3 arguments, got " + std::to_string(n), at);
  for (std::size_t i = 0; i < n; ++i) {
    ev.require_defined(a.pos[i], at);
    if (a.pos[i].kind() != T::Int && a.pos[i].kind() != T::Bool)
      raise(ErrorKind::Type, "'" + std::string(type_name(a.pos[i])) + "' object cannot be interpreted as an integer", at);
  }
  if (n == 1) r[1] = a.pos[0].i();
  else {
    r[0] = a.pos[0].i();
    r[1] = a.pos[1].i();
    if (n == 3) r[2] = a.pos[2].i();
  }
  if (r[2] == 0) raise(ErrorKind::Value, "range() arg 3 must not be zero", at);
  // Exact length in 128 bits, and items computed from it: stepping an int64 past its end
  // near INT64_MAX would overflow and never stop.
  core::int128 span = r[2] > 0 ? static_cast<core::int128>(r[1]) - r[0] : static_cast<core::int128>(r[0]) - r[1];
  core::int128 step = r[2] > 0 ? r[2] : -static_cast<core::int128>(r[2]);
  core::int128 len = span <= 0 ? 0 : (span + step - 1) / step;
  if (len > ev.limits.max_range_length)
    raise(ErrorKind::Security, "Range too big. The sandbox blocks ranges larger than MAX_RANGE (" +
                                   std::to_string(ev.limits.max_range_length) + ").", at);
  auto s = new_seq();
  s->items.reserve(static_cast<std::size_t>(len));
  for (core::int128 k = 0; k < len; ++k) s->items.emplace_back(static_cast<std::int64_t>(r[0] + k * r[2]));
  return RValue(std::move(s));
}

RValue kwargs_dict(const CallArgs& a, bool ns) {
  auto d = std::make_shared<Dict>();
  d->is_namespace = ns;
  for (std::size_t i = 0; i < a.kw.size(); ++i) d->items.emplace_back(RValue(std::string(a.kw_names[i])), a.kw[i]);
  return RValue(std::move(d));
}

RValue split(Evaluator& ev, std::string_view s, const CallArgs& a, bool from_right, const Expr* at) {
  const RValue* sepv = a.get(0, "sep");
  const RValue* maxv = a.get(1, "maxsplit");
  std::int64_t maxsplit = maxv ? maxv->i() : -1;
  auto out = new_seq();
  if (!sepv || sepv->is_none()) {
    std::vector<std::string_view> words = split_whitespace(s);
    if (maxsplit >= 0 && static_cast<std::int64_t>(words.size()) > maxsplit + 1) {
      // Rejoin the tail (left split) or head (right split) as Python does.
      if (!from_right) {
        std::size_t k = static_cast<std::size_t>(maxsplit);
        for (std::size_t i = 0; i < k; ++i) out->items.emplace_back(std::string(words[i]));
        std::string_view rest = s.substr(static_cast<std::size_t>(words[k].data() - s.data()));
        while (!rest.empty() && is_py_space(rest.back())) rest.remove_suffix(1);
        out->items.emplace_back(std::string(rest));
      } else {
        std::size_t k = words.size() - static_cast<std::size_t>(maxsplit);
        std::string_view head = s.substr(0, static_cast<std::size_t>(words[k - 1].data() - s.data()) + words[k - 1].size());
        while (!head.empty() && is_py_space(head.front())) head.remove_prefix(1);
        out->items.emplace_back(std::string(head));
        for (std::size_t i = k; i < words.size(); ++i) out->items.emplace_back(std::string(words[i]));
      }
      return RValue(std::move(out));
    }
    for (auto w : words) out->items.emplace_back(std::string(w));
    return RValue(std::move(out));
  }
  std::string_view sep = str_arg(ev, a, 0, "sep", at);
  if (sep.empty()) raise(ErrorKind::Value, "empty separator", at);
  std::vector<std::string> parts;
  if (!from_right) {
    std::size_t pos = 0;
    std::int64_t done = 0;
    while (maxsplit < 0 || done < maxsplit) {
      auto f = s.find(sep, pos);
      if (f == std::string_view::npos) break;
      parts.emplace_back(s.substr(pos, f - pos));
      pos = f + sep.size();
      ++done;
      ev.tick(at);
    }
    parts.emplace_back(s.substr(pos));
  } else {
    std::size_t end = s.size();
    std::int64_t done = 0;
    while (maxsplit < 0 || done < maxsplit) {
      if (end < sep.size()) break;
      auto f = s.rfind(sep, end - sep.size());
      if (f == std::string_view::npos) break;
      parts.emplace_back(s.substr(f + sep.size(), end - f - sep.size()));
      end = f;
      ++done;
      ev.tick(at);
    }
    parts.emplace_back(s.substr(0, end));
    std::reverse(parts.begin(), parts.end());
  }
  for (auto& p : parts) out->items.emplace_back(std::move(p));
  return RValue(std::move(out));
}

RValue str_format(Evaluator& ev, std::string_view f, const CallArgs& a, const Expr* at) {
  std::string out;
  std::size_t auto_index = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    char c = f[i];
    if (c == '{' && i + 1 < f.size() && f[i + 1] == '{') { out += '{'; ++i; continue; }
    if (c == '}' && i + 1 < f.size() && f[i + 1] == '}') { out += '}'; ++i; continue; }
    if (c != '{') { out += c; continue; }
    auto close = f.find('}', i);
    if (close == std::string_view::npos) raise(ErrorKind::Value, "Single '{' encountered in format string", at);
    std::string_view field = f.substr(i + 1, close - i - 1);
    // {name!conversion:spec}
    std::string_view spec, conversion;
    if (auto colon = field.find(':'); colon != std::string_view::npos) {
      spec = field.substr(colon + 1);
      field = field.substr(0, colon);
    }
    if (auto bang = field.find('!'); bang != std::string_view::npos) {
      conversion = field.substr(bang + 1);
      field = field.substr(0, bang);
      if (conversion != "r" && conversion != "s" && conversion != "a")
        raise(ErrorKind::Value, "Unknown conversion specifier " + std::string(conversion), at);
    }
    if (spec.find('{') != std::string_view::npos)
      raise(ErrorKind::TemplateRuntime, "nested replacement fields in a format spec are not supported", at);
    RValue v;
    if (field.empty()) {
      if (auto_index >= a.pos.size()) raise(ErrorKind::TemplateRuntime, "IndexError: Replacement index out of range", at);
      v = a.pos[auto_index++];
    } else if (std::all_of(field.begin(), field.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      std::size_t k = 0;
      auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), k);
      if (ec != std::errc() || k >= a.pos.size())  // a number too long for size_t is out of range too
        raise(ErrorKind::TemplateRuntime, "IndexError: Replacement index out of range", at);
      v = a.pos[k];
    } else {
      const RValue* kv = a.get(SIZE_MAX, field);
      if (!kv) raise(ErrorKind::TemplateRuntime, "KeyError: '" + std::string(field) + "'", at);
      v = *kv;
    }
    ev.require_defined(v, at);
    if (conversion == "r" || conversion == "a") {
      std::string text;
      append_repr(text, v);
      v = RValue(conversion == "a" ? py_ascii_escape(text) : std::move(text));
    } else if (conversion == "s") {
      v = RValue(py_str(v));
    }
    append_formatted(ev, out, v, spec, at);
    ev.check_size(out.size(), at);
    i = close;
  }
  return RValue(std::move(out));
}

RValue str_method(Evaluator& ev, const RValue& self, std::string_view name, const CallArgs& a, const Expr* at) {
  std::string_view s = self.s();
  if (name == "split") return split(ev, s, a, false, at);
  if (name == "rsplit") return split(ev, s, a, true, at);
  if (name == "upper") return RValue(ascii_upper(s));
  if (name == "lower") return RValue(ascii_lower(s));
  if (name == "title") return RValue(py_title(s));
  if (name == "capitalize") return RValue(py_capitalize(s));
  if (name == "swapcase") {
    std::string o(s);
    for (auto& ch : o) ch = std::isupper(static_cast<unsigned char>(ch)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(ch))) : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return RValue(std::move(o));
  }
  if (name == "startswith" || name == "endswith") {
    const RValue* p = a.get(0, "prefix");
    if (!p) raise(ErrorKind::Type, std::string(name) + "() takes at least 1 argument (0 given)", at);
    Items cands;
    if (p->kind() == T::Seq && seq_flavor(*p) == SeqFlavor::Tuple) cands = ev.iterate(*p, at);
    else cands.push_back(*p);
    for (auto& c : cands) {
      if (c.kind() != T::Str) raise(ErrorKind::Type, std::string(name) + " first arg must be str or a tuple of str, not " + std::string(type_name(c)), at);
      std::string_view x = c.s();
      bool hit = name == "startswith" ? s.substr(0, x.size()) == x
                                      : (s.size() >= x.size() && s.substr(s.size() - x.size()) == x);
      if (hit) return RValue(true);
    }
    return RValue(false);
  }
  if (name == "replace") {
    std::string_view from = str_arg(ev, a, 0, "old", at), to = str_arg(ev, a, 1, "new", at);
    const RValue* c = a.get(2, "count");
    return RValue(py_replace(ev, s, from, to, c ? c->i() : -1, at));
  }
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    const RValue* c = a.get(0, "chars");
    std::string_view chars = c && !c->is_none() ? c->s() : std::string_view();
    bool none = !c || c->is_none();
    return RValue(std::string(py_strip(s, none, chars, name != "rstrip", name != "lstrip")));
  }
  if (name == "join") {
    const RValue* it = a.get(0, "iterable");
    if (!it) raise(ErrorKind::Type, "join() takes exactly one argument (0 given)", at);
    std::string out;
    auto items = ev.iterate(*it, at);
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].kind() != T::Str)
        raise(ErrorKind::Type, "sequence item " + std::to_string(i) + ": expected str instance, " + std::string(type_name(items[i])) + " found", at);
      if (i) out += s;
      out += items[i].s();
      ev.check_size(out.size(), at);
    }
    return RValue(std::move(out));
  }
  if (name == "count" || name == "find" || name == "rfind" || name == "index") {
    std::string_view sub = str_arg(ev, a, 0, "sub", at);
    if (name == "count") {
      if (sub.empty()) return RValue(static_cast<std::int64_t>(utf8_length(s) + 1));
      std::int64_t n = 0;
      for (std::size_t p = s.find(sub); p != std::string_view::npos; p = s.find(sub, p + sub.size())) ++n;
      return RValue(n);
    }
    std::size_t p = name == "rfind" ? s.rfind(sub) : s.find(sub);
    if (p == std::string_view::npos) {
      if (name == "index") raise(ErrorKind::Value, "substring not found", at);
      return RValue(std::int64_t{-1});
    }
    return RValue(static_cast<std::int64_t>(utf8_length(s.substr(0, p))));
  }
  auto all_chars = [&](auto pred) {
    if (s.empty()) return RValue(false);
    for (unsigned char ch : s)
      if (!pred(ch)) return RValue(false);
    return RValue(true);
  };
  if (name == "isdigit") return all_chars([](unsigned char ch) { return std::isdigit(ch) != 0; });
  if (name == "isalpha") return all_chars([](unsigned char ch) { return std::isalpha(ch) != 0; });
  if (name == "isalnum") return all_chars([](unsigned char ch) { return std::isalnum(ch) != 0; });
  if (name == "isspace") return all_chars([](unsigned char ch) { return is_py_space(static_cast<char>(ch)); });
  if (name == "isupper" || name == "islower") {
    bool cased = false;
    for (unsigned char ch : s) {
      if (std::isupper(ch)) { if (name == "islower") return RValue(false); cased = true; }
      if (std::islower(ch)) { if (name == "isupper") return RValue(false); cased = true; }
    }
    return RValue(cased);
  }
  if (name == "zfill" || name == "ljust" || name == "rjust" || name == "center") {
    const RValue* w = a.get(0, "width");
    if (!w || (w->kind() != T::Int && w->kind() != T::Bool)) raise(ErrorKind::Type, "integer argument expected", at);
    std::int64_t width = w->i();
    ev.check_size(static_cast<std::size_t>(std::max<std::int64_t>(width, 0)), at);
    const RValue* f = a.get(1, "fillchar");
    std::string fill = f ? std::string(f->s()) : " ";
    if (name != "zfill" && utf8_length(fill) != 1)
      raise(ErrorKind::Type, "The fill character must be exactly one character long", at);
    return RValue(py_pad(s, width, name, fill));
  }
  if (name == "splitlines") {
    auto out = new_seq();
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n' || s[i] == '\r') {
        out->items.emplace_back(std::string(s.substr(start, i - start)));
        if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
        start = i + 1;
      }
    }
    if (start < s.size()) out->items.emplace_back(std::string(s.substr(start)));
    return RValue(std::move(out));
  }
  if (name == "removeprefix") {
    std::string_view p = str_arg(ev, a, 0, "prefix", at);
    return RValue(std::string(s.substr(0, p.size()) == p ? s.substr(p.size()) : s));
  }
  if (name == "removesuffix") {
    std::string_view p = str_arg(ev, a, 0, "suffix", at);
    bool hit = !p.empty() && s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
    return RValue(std::string(hit ? s.substr(0, s.size() - p.size()) : s));
  }
  if (name == "partition") {
    std::string_view sep = str_arg(ev, a, 0, "sep", at);
    auto out = new_seq(SeqFlavor::Tuple);
    auto p = s.find(sep);
    if (p == std::string_view::npos) {
      out->items = {RValue(std::string(s)), RValue(std::string()), RValue(std::string())};
    } else {
      out->items = {RValue(std::string(s.substr(0, p))), RValue(std::string(sep)), RValue(std::string(s.substr(p + sep.size())))};
    }
    return RValue(std::move(out));
  }
  if (name == "format") return str_format(ev, s, a, at);
  raise(ErrorKind::TemplateRuntime, "unsupported method str." + std::string(name), at);
}

RValue dict_method(Evaluator& ev, const RValue& self, std::string_view name, const CallArgs& a, const Expr* at) {
  std::size_t n = dict_size(self);
  if (name == "get") {
    const RValue* k = a.get(0, "key");
    if (!k) raise(ErrorKind::Type, "get expected at least 1 argument, got 0", at);
    ev.require_defined(*k, at);
    RValue out;
    if (dict_find(self, *k, out)) return out;
    const RValue* d = a.get(1, "default");
    return d ? *d : RValue();
  }
  SeqFlavor f = name == "keys" ? SeqFlavor::DictKeys : name == "values" ? SeqFlavor::DictValues : SeqFlavor::DictItems;
  auto out = new_seq(f);
  out->items.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (f == SeqFlavor::DictKeys) {
      out->items.push_back(dict_key(self, i));
    } else if (f == SeqFlavor::DictValues) {
      out->items.push_back(dict_value(self, i));
    } else {
      auto pair = new_seq(SeqFlavor::Tuple);
      pair->items = {dict_key(self, i), dict_value(self, i)};
      out->items.emplace_back(std::move(pair));
    }
  }
  return RValue(std::move(out));
}

}  // namespace

bool has_method(const RValue& self, std::string_view name) {
  switch (self.kind()) {
    case T::Str: return in(kStrMethods, name);
    case T::Dict: return !(self.dict() && self.dict()->is_namespace) && in(kDictMethods, name);
    case T::Seq: return in(kListMethods, name);
    default: return false;
  }
}

RValue call_method(Evaluator& ev, const RValue& self, std::string_view name, const CallArgs& a, const Expr* at) {
  switch (self.kind()) {
    case T::None:  // globals
      if (name == "range") return range_fn(ev, a, at);
      if (name == "dict") return kwargs_dict(a, false);
      if (name == "namespace") {
        RValue d = kwargs_dict(a, true);
        if (auto p = d.dict_ptr()) ev.namespaces.push_back(*p);
        if (!a.pos.empty()) {
          RValue init = a.pos[0];
          for (std::size_t i = 0; i < dict_size(init); ++i)
            d.mutable_dict()->items.insert(d.mutable_dict()->items.begin() + static_cast<std::ptrdiff_t>(i), {dict_key(init, i), dict_value(init, i)});
        }
        return d;
      }
      raise(ErrorKind::TemplateRuntime, "the global '" + std::string(name) + "' is not supported", at);
    case T::Loop: {
      if (a.pos.empty()) raise(ErrorKind::TemplateRuntime, "no items for cycling given", at);
      return a.pos[self.loop()->index0 % a.pos.size()];
    }
    case T::Str: return str_method(ev, self, name, a, at);
    case T::Dict: return dict_method(ev, self, name, a, at);
    case T::Seq: {
      const RValue* x = a.get(0, "value");
      if (!x) raise(ErrorKind::Type, std::string(name) + "() takes exactly one argument (0 given)", at);
      std::int64_t count = 0;
      for (std::size_t i = 0; i < seq_size(self); ++i) {
        if (ev.equal(seq_at(self, i), *x, at)) {
          if (name == "index") return RValue(static_cast<std::int64_t>(i));
          ++count;
        }
      }
      if (name == "index") raise(ErrorKind::Value, "value is not in list", at);
      return RValue(count);
    }
    default: break;
  }
  raise(ErrorKind::Type, "'" + std::string(type_name(self)) + "' object is not callable", at);
}

}  // namespace budcore::templates::detail
