#include "templates/evaluator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "templates/builtins.hpp"
#include "templates/pyformat.hpp"
#include "templates/text.hpp"

namespace budcore::templates::detail {

using T = RValue::T;

void raise(ErrorKind kind, std::string message, const Expr* at) {
  RenderFailure f;
  f.error.kind = kind;
  f.error.message = std::move(message);
  if (at) {
    f.error.line = at->line;
    f.error.column = at->column;
  }
  throw f;
}

Evaluator::~Evaluator() {
  for (auto& weak : namespaces) {
    if (auto ns = weak.lock()) {
      DictItems attrs;
      attrs.swap(ns->items);  // a cycle through ns ends here; attrs is freed below, iteratively
    }
  }
}

std::string_view type_name(const RValue& v) noexcept {
  switch (v.kind()) {
    case T::Undef: return "StrictUndefined";
    case T::None: return "NoneType";
    case T::Bool: return "bool";
    case T::Int: return "int";
    case T::Float: return "float";
    case T::Str: return "str";
    case T::Seq:
      switch (seq_flavor(v)) {
        case SeqFlavor::Tuple: return "tuple";
        case SeqFlavor::DictKeys: return "dict_keys";
        case SeqFlavor::DictValues: return "dict_values";
        case SeqFlavor::DictItems: return "dict_items";
        case SeqFlavor::Generator: return "generator";
        default: return "list";
      }
    case T::Dict: return v.dict() && v.dict()->is_namespace ? "Namespace" : "dict";
    case T::Loop: return "LoopContext";
    case T::Method: return v.method()->macro ? "Macro" : "builtin_function_or_method";
    case T::Ref: break;
  }
  return "object";
}

void Evaluator::require_defined(const RValue& v, const Expr* at) {
  if (v.is_undefined()) raise(ErrorKind::Undefined, v.undef().hint, at);
}

bool Evaluator::truthy(const RValue& v, const Expr* at) {
  switch (v.kind()) {
    case T::Undef: require_defined(v, at); return false;
    case T::None: return false;
    case T::Bool: return v.b();
    case T::Int: return v.i() != 0;
    case T::Float: return v.f() != 0.0;
    case T::Str: return !v.s().empty();
    case T::Seq: return seq_flavor(v) == SeqFlavor::Generator || seq_size(v) != 0;
    case T::Dict: return dict_size(v) != 0;
    default: return true;
  }
}

namespace {
bool is_num(T k) { return k == T::Int || k == T::Float || k == T::Bool; }
bool is_listlike(SeqFlavor f) { return f == SeqFlavor::List || f == SeqFlavor::Tuple; }
}  // namespace

bool Evaluator::equal(const RValue& a, const RValue& b, const Expr* at) {
  tick(at);
  T ka = a.kind(), kb = b.kind();
  if (ka == T::Undef) require_defined(a, at);
  if (kb == T::Undef) require_defined(b, at);
  if (is_num(ka) && is_num(kb)) {
    if (ka != T::Float && kb != T::Float) return a.i() == b.i();
    return a.f() == b.f();
  }
  if (ka != kb) return false;
  if (ka == T::Seq || ka == T::Dict) return equal_nested(a, b, at);
  switch (ka) {
    case T::None: return true;
    case T::Str: return a.s() == b.s();
    default: return false;
  }
}

bool Evaluator::equal_nested(const RValue& a, const RValue& b, const Expr* at) {
  core::DepthGuard guard(value_depth, core::kMaxValueDepth);
  if (!guard.ok()) raise(ErrorKind::Security, "values compared are nested too deeply (or contain themselves)", at);
  switch (a.kind()) {
    case T::Seq: {
      SeqFlavor fa = seq_flavor(a), fb = seq_flavor(b);
      if (fa == SeqFlavor::Generator || fb == SeqFlavor::Generator) return a.seq() == b.seq();
      if (fa != fb && !(fa == SeqFlavor::List && fb == SeqFlavor::List)) return false;
      std::size_t n = seq_size(a);
      if (n != seq_size(b)) return false;
      for (std::size_t i = 0; i < n; ++i)
        if (!equal(seq_at(a, i), seq_at(b, i), at)) return false;
      return true;
    }
    case T::Dict: {
      std::size_t n = dict_size(a);
      if (n != dict_size(b)) return false;
      for (std::size_t i = 0; i < n; ++i) {
        RValue other;
        if (!dict_find(b, dict_key(a, i), other) || !equal(dict_value(a, i), other, at)) return false;
      }
      return true;
    }
    default: return false;
  }
}

bool Evaluator::less(const RValue& a, const RValue& b, const Expr* at) {
  tick(at);
  T ka = a.kind(), kb = b.kind();
  if (ka == T::Undef) require_defined(a, at);
  if (kb == T::Undef) require_defined(b, at);
  if (is_num(ka) && is_num(kb)) {
    if (ka != T::Float && kb != T::Float) return a.i() < b.i();
    return a.f() < b.f();
  }
  if (ka == T::Str && kb == T::Str) return a.s() < b.s();
  if (ka == T::Seq && kb == T::Seq && seq_flavor(a) == seq_flavor(b) && is_listlike(seq_flavor(a))) {
    core::DepthGuard guard(value_depth, core::kMaxValueDepth);
    if (!guard.ok()) raise(ErrorKind::Security, "values compared are nested too deeply", at);
    std::size_t n = seq_size(a), m = seq_size(b);
    for (std::size_t i = 0; i < n && i < m; ++i) {
      RValue x = seq_at(a, i), y = seq_at(b, i);
      if (!equal(x, y, at)) return less(x, y, at);
    }
    return n < m;
  }
  raise(ErrorKind::Type, "'<' not supported between instances of '" + std::string(type_name(a)) + "' and '" +
                             std::string(type_name(b)) + "'", at);
}

bool Evaluator::contains(const RValue& container, const RValue& item, const Expr* at) {
  switch (container.kind()) {
    case T::Undef: require_defined(container, at); return false;
    case T::Str:
      if (item.kind() != T::Str) {
        require_defined(item, at);
        raise(ErrorKind::Type, "'in <string>' requires string as left operand, not " + std::string(type_name(item)), at);
      }
      return container.s().find(item.s()) != std::string_view::npos;
    case T::Seq: {
      std::size_t n = seq_size(container);
      for (std::size_t i = 0; i < n; ++i)
        if (equal(seq_at(container, i), item, at)) return true;
      return false;
    }
    case T::Dict: {
      require_defined(item, at);
      RValue found;
      return dict_find(container, item, found);
    }
    default:
      raise(ErrorKind::Type, "argument of type '" + std::string(type_name(container)) + "' is not iterable", at);
  }
}

Items Evaluator::iterate(const RValue& v, const Expr* at) {
  Items out;
  switch (v.kind()) {
    case T::Undef: require_defined(v, at); break;
    case T::Seq: {
      std::size_t n = seq_size(v);
      out.reserve(n);
      for (std::size_t i = 0; i < n; ++i) out.push_back(seq_at(v, i));
      break;
    }
    case T::Dict: {
      std::size_t n = dict_size(v);
      out.reserve(n);
      for (std::size_t i = 0; i < n; ++i) out.push_back(dict_key(v, i));
      break;
    }
    case T::Str: {
      std::string_view s = v.s();
      for (std::size_t i = 0; i < s.size();) {
        std::size_t len = 1;
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0xF0) len = 4; else if (c >= 0xE0) len = 3; else if (c >= 0xC0) len = 2;
        len = std::min(len, s.size() - i);
        out.emplace_back(std::string(s.substr(i, len)));
        i += len;
      }
      break;
    }
    default:
      raise(ErrorKind::Type, "'" + std::string(type_name(v)) + "' object is not iterable", at);
  }
  return out;
}

RValue Evaluator::getattr(const RValue& obj, std::string_view name, const Expr* at) {
  switch (obj.kind()) {
    case T::Undef: require_defined(obj, at); break;
    case T::Loop: {
      const LoopState& l = *obj.loop();
      std::int64_t n = static_cast<std::int64_t>(l.items.size());
      std::int64_t i = static_cast<std::int64_t>(l.index0);
      if (name == "index") return RValue(i + 1);
      if (name == "index0") return RValue(i);
      if (name == "revindex") return RValue(n - i);
      if (name == "revindex0") return RValue(n - i - 1);
      if (name == "first") return RValue(i == 0);
      if (name == "last") return RValue(i == n - 1);
      if (name == "length") return RValue(n);
      if (name == "depth") return RValue(std::int64_t{l.depth});
      if (name == "depth0") return RValue(std::int64_t{l.depth - 1});
      if (name == "previtem")
        return i > 0 ? l.items[static_cast<std::size_t>(i - 1)] : RValue::undefined("there is no previous item");
      if (name == "nextitem")
        return i + 1 < n ? l.items[static_cast<std::size_t>(i + 1)] : RValue::undefined("there is no next item");
      if (name == "cycle") return RValue(std::make_shared<Method>(Method{obj, "cycle"}));
      break;
    }
    case T::Dict: {
      if (has_method(obj, name)) return RValue(std::make_shared<Method>(Method{obj, std::string(name)}));
      RValue out;
      if (dict_find(obj, name, out)) return out;
      break;
    }
    default:
      if (has_method(obj, name)) return RValue(std::make_shared<Method>(Method{obj, std::string(name)}));
      break;
  }
  return RValue::undefined("'" + std::string(type_name(obj)) + " object' has no attribute '" + std::string(name) + "'");
}

RValue Evaluator::getitem(const RValue& obj, const RValue& key, const Expr* at) {
  T k = obj.kind();
  if (k == T::Undef) require_defined(obj, at);
  if (k == T::Seq && seq_flavor(obj) != SeqFlavor::List && seq_flavor(obj) != SeqFlavor::Tuple)
    raise(ErrorKind::Type, "'" + std::string(type_name(obj)) + "' object is not subscriptable", at);
  if (k == T::Dict) {
    RValue out;
    if (dict_find(obj, key, out)) return out;
  } else if ((k == T::Seq || k == T::Str) && (key.kind() == T::Int || key.kind() == T::Bool)) {
    std::int64_t i = key.i();
    if (k == T::Str) {
      // One code point, found by walking the text (no list of all of them).
      std::string_view s = obj.s();
      std::int64_t n = i < 0 ? static_cast<std::int64_t>(utf8_length(s)) : 0;
      if (i < 0) i += n;
      if (i >= 0) {
        std::size_t pos = 0;
        for (std::int64_t c = 0; pos < s.size(); ++c) {
          std::size_t len = 1;
          while (pos + len < s.size() && (static_cast<unsigned char>(s[pos + len]) & 0xC0) == 0x80) ++len;
          if (c == i) return RValue(std::string(s.substr(pos, len)));
          pos += len;
        }
      }
    } else {
      std::int64_t n = static_cast<std::int64_t>(seq_size(obj));
      if (i < 0) i += n;
      if (i >= 0 && i < n) return seq_at(obj, static_cast<std::size_t>(i));
    }
  }
  if (key.kind() == T::Str) {
    RValue a = getattr(obj, key.s(), at);
    if (!a.is_undefined()) return a;
    return RValue::undefined("'" + std::string(type_name(obj)) + " object' has no attribute '" + std::string(key.s()) + "'");
  }
  return RValue::undefined("'" + std::string(type_name(obj)) + " object' has no element " + [&] {
    std::string s;
    append_repr(s, key);
    return s;
  }());
}

RValue Evaluator::get_path(const RValue& obj, std::string_view path, const Expr* at) {
  RValue cur = obj;
  while (true) {
    auto dot = path.find('.');
    std::string_view part = path.substr(0, dot);
    bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    std::int64_t index = 0;
    if (digits && std::from_chars(part.data(), part.data() + part.size(), index).ec == std::errc())
      cur = getitem(cur, RValue(index), at);
    else
      cur = getitem(cur, RValue(std::string(part)), at);
    if (dot == std::string_view::npos) return cur;
    path.remove_prefix(dot + 1);
  }
}

void Evaluator::check_size(std::size_t bytes, const Expr* at) const {
  if (bytes > limits.max_output_bytes)
    raise(ErrorKind::Security, "output exceeds the limit of " + std::to_string(limits.max_output_bytes) + " bytes", at);
}

const RValue* Evaluator::find_local(std::string_view name) const {
  std::size_t region = frames.size();
  std::size_t end = locals.size();
  while (true) {
    const std::size_t start = region == 0 ? 0 : frames[region - 1].start;
    for (std::size_t i = end; i > start; --i)
      if (locals[i - 1].first == name) return &locals[i - 1].second;
    if (region == 0) return nullptr;
    region = frames[region - 1].parent;
    end = frames[region].start;  // region's locals end where the region above it starts
  }
}

RValue Evaluator::lookup(const Expr& e) {
  if (const RValue* local = find_local(e.name)) return *local;
  if (const core::Value* v = context.find(e.name)) return RValue::ref(v);
  if (e.name == "range" || e.name == "dict" || e.name == "namespace" || e.name == "lipsum" ||
      e.name == "cycler" || e.name == "joiner")
    return RValue(std::make_shared<Method>(Method{RValue(), e.name}));
  return RValue::undefined("'" + e.name + "' is undefined");
}

void Evaluator::collect_args(const Expr& e, std::size_t first, CallArgs& args) {
  args.pos.reserve(e.kids.size() - first);
  for (std::size_t i = first; i < e.kids.size(); ++i) args.pos.push_back(eval(*e.kids[i]));
  for (std::size_t i = 0; i < e.kw_names.size(); ++i) {
    args.kw_names.push_back(e.kw_names[i]);
    args.kw.push_back(eval(*e.kw_values[i]));
  }
}

RValue Evaluator::call(const RValue& callee, const CallArgs& args, const Expr* at) {
  if (callee.is_undefined()) require_defined(callee, at);
  const Method* m = callee.method();
  if (!m) {
    std::string msg = "'";
    msg += type_name(callee);
    msg += "' object is not callable";
    raise(ErrorKind::Type, std::move(msg), at);
  }
  if (m->macro) return call_macro(*m, args, at);
  if (++depth > limits.max_nesting_depth) raise(ErrorKind::Security, "call nesting too deep", at);
  RValue r = call_method(*this, m->self, m->name, args, at);
  --depth;
  return r;
}

RValue Evaluator::call_expr(const Expr& e) {
  RValue callee = eval(*e.kids[0]);
  CallArgs args;
  collect_args(e, 1, args);
  return call(callee, args, &e);
}

RValue Evaluator::filter_expr(const Expr& e) {
  if (!e.filter) raise(ErrorKind::TemplateRuntime, "No filter named '" + e.name + "' found.", &e);
  RValue subject;
  // default/d must see an undefined subject without raising.
  subject = eval(*e.kids[0]);
  CallArgs args;
  collect_args(e, 1, args);
  return e.filter(*this, e, std::move(subject), args);
}

RValue Evaluator::slice(const Expr& e) {
  RValue obj = eval(*e.kids[0]);
  require_defined(obj, &e);
  std::int64_t bounds[3] = {0, 0, 1};
  bool has[3];
  for (int i = 0; i < 3; ++i) {
    has[i] = e.slice_has[i];
    if (!has[i]) continue;
    RValue b = eval(*e.kids[static_cast<std::size_t>(i) + 1]);
    if (b.is_none()) { has[i] = false; continue; }
    if (b.kind() != T::Int && b.kind() != T::Bool)
      raise(ErrorKind::Type, "slice indices must be integers or None or have an __index__ method", &e);
    bounds[i] = b.i();
  }
  std::int64_t step = has[2] ? bounds[2] : 1;
  if (step == 0) raise(ErrorKind::Value, "slice step cannot be zero", &e);
  bool is_str = obj.kind() == T::Str;
  Items items;
  if (is_str) items = iterate(obj, &e);
  else if (obj.kind() != T::Seq || (seq_flavor(obj) != SeqFlavor::List && seq_flavor(obj) != SeqFlavor::Tuple)) raise(ErrorKind::Type, "'" + std::string(type_name(obj)) + "' object is not subscriptable", &e);
  std::int64_t n = is_str ? static_cast<std::int64_t>(items.size()) : static_cast<std::int64_t>(seq_size(obj));
  auto adjust = [&](std::int64_t v, bool given, std::int64_t dflt) {
    if (!given) return dflt;
    if (v < 0) v += n;
    if (step > 0) return std::clamp<std::int64_t>(v, 0, n);
    return std::clamp<std::int64_t>(v, -1, n - 1);
  };
  std::int64_t start = adjust(bounds[0], has[0], step > 0 ? 0 : n - 1);
  std::int64_t stop = adjust(bounds[1], has[1], step > 0 ? n : -1);
  auto seq = std::make_shared<Seq>();
  std::string s;
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    tick(&e);
    if (is_str) s += items[static_cast<std::size_t>(i)].s();
    else seq->items.push_back(seq_at(obj, static_cast<std::size_t>(i)));
  }
  if (is_str) return RValue(std::move(s));
  seq->flavor = seq_flavor(obj) == SeqFlavor::Tuple ? SeqFlavor::Tuple : SeqFlavor::List;
  return RValue(std::move(seq));
}

RValue Evaluator::compare(const Expr& e) {
  RValue left = eval(*e.kids[0]);
  for (std::size_t i = 0; i < e.cmp.size(); ++i) {
    RValue right = eval(*e.kids[i + 1]);
    bool r = false;
    switch (e.cmp[i]) {
      case CmpOp::Eq: r = equal(left, right, &e); break;
      case CmpOp::Ne: r = !equal(left, right, &e); break;
      case CmpOp::Lt: r = less(left, right, &e); break;
      case CmpOp::Gt: r = less(right, left, &e); break;
      case CmpOp::Le: r = less(left, right, &e) || equal(left, right, &e); break;
      case CmpOp::Ge: r = less(right, left, &e) || equal(left, right, &e); break;
      case CmpOp::In: r = contains(right, left, &e); break;
      case CmpOp::NotIn: r = !contains(right, left, &e); break;
    }
    if (!r) return RValue(false);
    left = std::move(right);
  }
  return RValue(true);
}

RValue Evaluator::eval(const Expr& e) {
  tick(&e);
  if (core::stack_exhausted(stack_floor)) raise(ErrorKind::Security, "template nesting exceeds the thread's stack", &e);
  switch (e.kind) {
    case ExprKind::Const: return RValue::ref(&e.constant);
    case ExprKind::Name: return lookup(e);
    case ExprKind::List:
    case ExprKind::Tuple: {
      auto seq = std::make_shared<Seq>();
      seq->flavor = e.kind == ExprKind::Tuple ? SeqFlavor::Tuple : SeqFlavor::List;
      seq->items.reserve(e.kids.size());
      for (auto& k : e.kids) seq->items.push_back(eval(*k));
      return RValue(std::move(seq));
    }
    case ExprKind::Dict: {
      auto d = std::make_shared<Dict>();
      for (std::size_t i = 0; i + 1 < e.kids.size(); i += 2) {
        RValue k = eval(*e.kids[i]);
        RValue v = eval(*e.kids[i + 1]);
        require_defined(k, &e);
        if ((k.kind() == T::Seq && seq_flavor(k) == SeqFlavor::List) || k.kind() == T::Dict)
          raise(ErrorKind::Type, "unhashable type: '" + std::string(type_name(k)) + "'", &e);
        bool replaced = false;
        for (auto& [ek, ev] : d->items) {
          if (equal(ek, k, &e)) { ev = std::move(v); replaced = true; break; }
        }
        if (!replaced) d->items.emplace_back(std::move(k), std::move(v));
      }
      return RValue(std::move(d));
    }
    case ExprKind::Attr: {
      RValue obj = eval(*e.kids[0]);
      return getattr(obj, e.name, &e);
    }
    case ExprKind::Dashed: {
      RValue obj = eval(*e.kids[0]);
      RValue out;
      if (obj.kind() == T::Dict && dict_find(obj, std::string_view(e.name), out)) return out;
      dash_missed = true;
      return RValue::undefined("'" + e.name + "' is undefined");
    }
    case ExprKind::Choice: {
      // The dashed reading unless one of its dashed keys was absent; then the plain one.
      RValue v;
      try {
        v = eval(*e.kids[0]);
      } catch (const RenderFailure&) {
        if (!dash_missed) throw;
      }
      if (!dash_missed) return v;
      dash_missed = false;
      return eval(*e.kids[1]);
    }
    case ExprKind::Item: {
      RValue obj = eval(*e.kids[0]);
      RValue key = eval(*e.kids[1]);
      require_defined(obj, &e);
      require_defined(key, &e);
      return getitem(obj, key, &e);
    }
    case ExprKind::Slice: return slice(e);
    case ExprKind::Call: return call_expr(e);
    case ExprKind::Filter: return filter_expr(e);
    case ExprKind::Test: {
      if (!e.test) raise(ErrorKind::TemplateRuntime, "No test named '" + e.name + "' found.", &e);
      RValue subject = eval(*e.kids[0]);
      CallArgs args;
      collect_args(e, 1, args);
      bool r = e.test(*this, e, subject, args);
      return RValue(e.negated ? !r : r);
    }
    case ExprKind::Neg:
    case ExprKind::Pos: {
      RValue v = eval(*e.kids[0]);
      require_defined(v, &e);
      T k = v.kind();
      if (k == T::Float) return RValue(e.kind == ExprKind::Neg ? -v.f() : v.f());
      if (k == T::Int || k == T::Bool) {
        if (e.kind == ExprKind::Pos) return RValue(v.i());
        if (v.i() == INT64_MIN) raise(ErrorKind::TemplateRuntime, "integer overflow", &e);
        return RValue(-v.i());
      }
      raise(ErrorKind::Type, std::string("bad operand type for unary ") + (e.kind == ExprKind::Neg ? "-" : "+") + ": '" +
                                 std::string(type_name(v)) + "'", &e);
    }
    case ExprKind::Not: return RValue(!truthy(eval(*e.kids[0]), &e));
    case ExprKind::And: {
      RValue l = eval(*e.kids[0]);
      if (!truthy(l, &e)) return l;
      return eval(*e.kids[1]);
    }
    case ExprKind::Or: {
      RValue l = eval(*e.kids[0]);
      if (truthy(l, &e)) return l;
      return eval(*e.kids[1]);
    }
    case ExprKind::Concat: {
      std::string s;
      for (auto& k : e.kids) {
        RValue v = eval(*k);
        require_defined(v, &e);
        append_str(s, v);
        check_size(s.size(), &e);
      }
      return RValue(std::move(s));
    }
    case ExprKind::Compare: return compare(e);
    case ExprKind::Cond: {
      if (truthy(eval(*e.kids[0]), &e)) return eval(*e.kids[1]);
      if (e.kids[2]) return eval(*e.kids[2]);
      // Jinja2 uses the lenient Undefined here even under StrictUndefined.
      return RValue(std::string());
    }
    default: {
      RValue a = eval(*e.kids[0]);
      RValue b = eval(*e.kids[1]);
      return py_binary(*this, e.kind, a, b, &e);
    }
  }
}

void Evaluator::set_local(std::string_view name, RValue v) {
  std::size_t base = frames.empty() ? 0 : frames.back().start;
  for (std::size_t i = locals.size(); i > base; --i) {
    if (locals[i - 1].first == name) {
      locals[i - 1].second = std::move(v);
      return;
    }
  }
  locals.emplace_back(name, std::move(v));
}

void Evaluator::assign_targets(const std::vector<std::string>& targets, RValue v, const Expr* at) {
  if (targets.size() == 1) {
    set_local(targets[0], std::move(v));
    return;
  }
  require_defined(v, at);
  Items parts = iterate(v, at);
  if (parts.size() != targets.size()) {
    raise(ErrorKind::Value, parts.size() > targets.size()
                                ? "too many values to unpack (expected " + std::to_string(targets.size()) + ")"
                                : "not enough values to unpack (expected " + std::to_string(targets.size()) + ", got " +
                                      std::to_string(parts.size()) + ")", at);
  }
  for (std::size_t i = 0; i < targets.size(); ++i) set_local(targets[i], std::move(parts[i]));
}

bool Evaluator::emit(const RValue& v, std::string& out, const Expr* at) {
  if (v.is_undefined()) {
    failure = TemplateError{ErrorKind::Undefined, v.undef().hint, at ? at->line : 0, at ? at->column : 0};
    return false;
  }
  if (native && ++pieces == 1) first_piece = v;
  if (v.kind() == T::Str) out += v.s();
  else append_str(out, v);
  check_size(out.size(), at);
  return true;
}

bool Evaluator::exec_for(const Stmt& s, std::string& out) {
  const Expr* at = s.expr.get();
  RValue iterable = eval(*s.expr);
  Items items = iterate(iterable, at);
  if (++depth > limits.max_nesting_depth) raise(ErrorKind::Security, "loop nesting too deep", at);
  push_frame(frames.size());
  if (s.loop_filter) {
    Items kept;
    for (auto& it : items) {
      assign_targets(s.targets, it, at);
      if (truthy(eval(*s.loop_filter), s.loop_filter.get())) kept.push_back(std::move(it));
    }
    items = std::move(kept);
  }
  // Jinja2 runs `else` unless some iteration reached the end of the body (so also when every
  // iteration ended in break or continue).
  bool completed = false;
  if (!items.empty()) {
    auto state = std::make_shared<LoopState>();
    state->items = std::move(items);
    set_local("loop", RValue(state));
    for (std::size_t i = 0; i < state->items.size(); ++i) {
      if (++loop_iterations > limits.max_loop_iterations)
        raise(ErrorKind::Security, "loop iteration limit exceeded", at);
      state->index0 = i;
      assign_targets(s.targets, state->items[i], at);
      if (!exec(s.body, out)) return false;
      const LoopControl control = std::exchange(loop_control, LoopControl::None);
      if (control == LoopControl::Break) break;
      if (control == LoopControl::None) completed = true;
    }
  }
  pop_frame();
  --depth;
  return completed || exec(s.else_body, out);
}

bool Evaluator::exec(const Body& body, std::string& out) {
  if (core::stack_exhausted(stack_floor)) raise(ErrorKind::Security, "template nesting exceeds the thread's stack");
  for (const Stmt& s : body) {
    switch (s.kind) {
      case StmtKind::Text:
        if (native && ++pieces == 1) first_piece = RValue::ref(&s.text);
        out += s.text.as_string();
        check_size(out.size(), nullptr);
        break;
      case StmtKind::Output:
        if (!emit(eval(*s.expr), out, s.expr.get())) return false;
        break;
      case StmtKind::If: {
        bool done = false;
        for (const auto& [cond, b] : s.branches) {
          if (truthy(eval(*cond), cond.get())) {
            if (!exec(b, out)) return false;
            done = true;
            break;
          }
        }
        if (!done && !exec(s.else_body, out)) return false;
        break;
      }
      case StmtKind::For:
        if (!exec_for(s, out)) return false;
        break;
      case StmtKind::Set: {
        RValue v = eval(*s.expr);
        if (!s.attr_target.empty()) {
          RValue ns;
          if (const RValue* local = find_local(s.attr_target[0])) ns = *local;
          Dict* d = ns.mutable_dict();
          if (!d || !d->is_namespace) raise(ErrorKind::TemplateRuntime, "cannot assign attribute on non-namespace object", s.expr.get());
          bool replaced = false;
          for (auto& [k, val] : d->items)
            if (k.s() == s.attr_target[1]) { val = std::move(v); replaced = true; break; }
          if (!replaced) d->items.emplace_back(RValue(s.attr_target[1]), std::move(v));
        } else {
          assign_targets(s.targets, std::move(v), s.expr.get());
        }
        break;
      }
      case StmtKind::SetBlock: {
        std::string captured;
        if (!capture(s.body, captured)) return false;
        set_local(s.targets[0], RValue(std::move(captured)));
        break;
      }
      case StmtKind::With:
        if (!exec_with(s, out)) return false;
        break;
      case StmtKind::FilterBlock:
        if (!exec_filter_block(s, out)) return false;
        break;
      case StmtKind::Break: loop_control = LoopControl::Break; return true;
      case StmtKind::Continue: loop_control = LoopControl::Continue; return true;
      case StmtKind::Macro:
        set_local(s.targets[0], RValue(std::make_shared<Method>(Method{RValue(), s.targets[0], &s, frames.size()})));
        break;
      case StmtKind::CallBlock:
        if (!exec_call_block(s, out)) return false;
        break;
    }
    // A break or continue ends every statement up to its loop.
    if (loop_control != LoopControl::None) return true;
  }
  return true;
}

bool Evaluator::capture(const Body& body, std::string& out) {
  const bool was_native = native;
  native = false;
  const bool ok = exec(body, out);
  native = was_native;
  return ok;
}

}  // namespace budcore::templates::detail
