#include "budcore/templates/template.hpp"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "templates/ast.hpp"
#include "templates/evaluator.hpp"
#include "templates/parser.hpp"
#include "templates/pyformat.hpp"

namespace budcore::templates {

struct BUDCORE_HIDDEN Template::Impl {
  detail::Body body;
  Limits limits;
};

std::string_view to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::TemplateSyntax: return "TemplateSyntaxError";
    case ErrorKind::TemplateAssertion: return "TemplateAssertionError";
    case ErrorKind::Undefined: return "UndefinedError";
    case ErrorKind::ZeroDivision: return "ZeroDivisionError";
    case ErrorKind::Type: return "TypeError";
    case ErrorKind::TemplateRuntime: return "TemplateRuntimeError";
    case ErrorKind::Security: return "SecurityError";
    case ErrorKind::Value: return "ValueError";
  }
  return "TemplateError";
}

core::Error TemplateError::to_error() const {
  std::string msg = std::string(to_string(kind)) + ": " + message;
  if (line > 0) msg += " (line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
  return core::Error::make(kind == ErrorKind::Security ? core::ErrorCode::Security : core::ErrorCode::Invalid,
                           std::move(msg), "template");
}

namespace {

// Runs fn, turning the evaluator's unwinding failures into a TemplateError. Running out of
// memory, or any other exception, fails this template only (one case of a batch, never the
// batch): MemoryError-like failures are reported as SecurityError, the sandbox's limit kind.
template <class Fn>
bool guarded(TemplateError& error, Fn&& fn) {
  try {
    fn();
    return true;
  } catch (const detail::RenderFailure& f) {
    error = f.error;
  } catch (const std::bad_alloc&) {
    error = TemplateError{ErrorKind::Security, "out of memory", 0, 0};
  } catch (const std::exception& e) {
    error = TemplateError{ErrorKind::TemplateRuntime, std::string("internal error: ") + e.what(), 0, 0};
  }
  return false;
}

}  // namespace

bool Template::compile(std::string_view text, Template& out, TemplateError& error, const Limits& limits) {
  auto impl = std::make_shared<Impl>();
  impl->limits = limits;
  bool parsed = false;
  if (!guarded(error, [&] { parsed = detail::parse_template(text, limits, impl->body, error); })) return false;
  if (!parsed) return false;
  out = Template(std::move(impl));
  return true;
}

core::Result<Template> Template::compile(std::string_view text, const Limits& limits) {
  Template t;
  TemplateError err;
  if (!compile(text, t, err, limits)) return err.to_error();
  return t;
}

namespace {

using detail::RValue;

// The native result as a core::Value: at most core::kMaxValueDepth deep (a namespace that
// contains itself is refused here too), so whatever the caller does with it (to_json, compare,
// store) stays within the limits every parsed document has.
core::Value to_core(detail::Evaluator& ev, const RValue& v, int depth = 0) {
  using T = RValue::T;
  if (const core::Value* r = v.core_ref()) return *r;
  if ((v.kind() == T::Seq || v.kind() == T::Dict) &&
      (depth >= core::kMaxValueDepth || core::stack_exhausted(ev.stack_floor))) {
    detail::raise(ErrorKind::Security, "the result is nested deeper than " + std::to_string(core::kMaxValueDepth) +
                                           " levels (or contains itself)");
  }
  switch (v.kind()) {
    case T::Undef: ev.require_defined(v, nullptr); return {};
    case T::None: return {};
    case T::Bool: return core::Value(v.b());
    case T::Int: return core::Value(static_cast<long long>(v.i()));
    case T::Float: return core::Value(v.f());
    case T::Str: return core::Value(std::string(v.s()));
    case T::Seq: {
      core::List l;
      std::size_t n = detail::seq_size(v);
      l.reserve(n);
      for (std::size_t i = 0; i < n; ++i) l.push_back(to_core(ev, detail::seq_at(v, i), depth + 1));
      return core::Value(std::move(l));
    }
    case T::Dict: {
      core::Map m;
      for (std::size_t i = 0; i < detail::dict_size(v); ++i)
        m.set(detail::py_str(detail::dict_key(v, i)), to_core(ev, detail::dict_value(v, i), depth + 1));
      return core::Value(std::move(m));
    }
    default: return core::Value(detail::py_str(v));
  }
}

}  // namespace

bool Template::render(const core::Value& context, std::string& out, TemplateError& error,
                      const RenderOptions& options) const {
  out.clear();
  if (!impl_) return true;
  detail::Evaluator ev(context, options.limits);
  bool ok = true;
  if (!guarded(error, [&] { ok = ev.exec(impl_->body, out); })) return false;
  if (!ok) error = ev.failure;
  return ok;
}

core::Result<std::string> Template::render(const core::Value& context, const RenderOptions& options) const {
  std::string out;
  TemplateError err;
  if (!render(context, out, err, options)) return err.to_error();
  return out;
}

bool Template::render_native(const core::Value& context, core::Value& out, TemplateError& error,
                             const RenderOptions& options) const {
  out = core::Value();
  if (!impl_) return true;
  detail::Evaluator ev(context, options.limits);
  ev.native = true;
  std::string text;
  bool ok = true;
  bool completed = guarded(error, [&] {
    ok = ev.exec(impl_->body, text);
    if (!ok || ev.pieces == 0) return;
    if (ev.pieces == 1 && !ev.first_piece.is_str()) {
      out = to_core(ev, ev.first_piece);
      return;
    }
    // NativeEnvironment reads the concatenated text back as a Python literal when it is one.
    if (!detail::parse_python_literal(text, out)) out = core::Value(std::move(text));
  });
  if (!completed) return false;
  if (!ok) error = ev.failure;
  return ok;
}

core::Result<core::Value> Template::render_native(const core::Value& context, const RenderOptions& options) const {
  core::Value out;
  TemplateError err;
  if (!render_native(context, out, err, options)) return err.to_error();
  return out;
}

bool Template::is_single_expression() const noexcept {
  return impl_ && impl_->body.size() == 1 && impl_->body[0].kind == detail::StmtKind::Output;
}

namespace {

using detail::Expr;
using detail::ExprKind;

class References {
 public:
  std::vector<std::string> paths;

  void body(const detail::Body& b) {
    for (const auto& s : b) stmt(s);
  }

 private:
  void stmt(const detail::Stmt& s) {
    switch (s.kind) {
      case detail::StmtKind::Text: break;
      case detail::StmtKind::Output: expr(s.expr.get()); break;
      case detail::StmtKind::Set:
        expr(s.expr.get());
        for (auto& t : s.targets) bound_.push_back(t);
        break;
      case detail::StmtKind::SetBlock:
        body(s.body);
        bound_.push_back(s.targets[0]);
        break;
      case detail::StmtKind::If:
        for (const auto& [c, b] : s.branches) {
          expr(c.get());
          body(b);
        }
        body(s.else_body);
        break;
      case detail::StmtKind::For: {
        expr(s.expr.get());
        std::size_t mark = bound_.size();
        for (auto& t : s.targets) bound_.push_back(t);
        bound_.push_back("loop");
        expr(s.loop_filter.get());
        body(s.body);
        bound_.resize(mark);
        body(s.else_body);
        break;
      }
      case detail::StmtKind::With: {
        for (const auto& v : s.values) expr(v.get());
        std::size_t mark = bound_.size();
        for (auto& t : s.targets) bound_.push_back(t);
        body(s.body);
        bound_.resize(mark);
        break;
      }
      case detail::StmtKind::FilterBlock: {
        body(s.body);
        std::size_t mark = bound_.size();
        bound_.emplace_back(detail::kFilteredBody);
        expr(s.expr.get());
        bound_.resize(mark);
        break;
      }
      case detail::StmtKind::Macro:
      case detail::StmtKind::CallBlock: {
        expr(s.expr.get());  // a call block's call, read where it stands
        std::size_t mark = bound_.size();
        for (auto& p : s.params) bound_.push_back(p);
        for (const char* implicit : {"varargs", "kwargs", "caller"}) bound_.emplace_back(implicit);
        for (const auto& v : s.values) expr(v.get());
        body(s.body);
        bound_.resize(mark);
        if (s.kind == detail::StmtKind::Macro) bound_.push_back(s.targets[0]);
        break;
      }
      case detail::StmtKind::Break:
      case detail::StmtKind::Continue: break;
    }
  }
  static bool is_method_name(const std::string& n) {
    static const std::set<std::string, std::less<>> kMethods = {
        "split", "rsplit", "upper", "lower", "startswith", "endswith", "replace", "strip", "lstrip", "rstrip",
        "title", "capitalize", "join", "count", "find", "rfind", "index", "format", "get", "keys", "values",
        "items", "zfill", "ljust", "rjust", "center", "splitlines"};
    return kMethods.count(n) != 0;
  }
  bool is_bound(const std::string& n) const { return std::find(bound_.begin(), bound_.end(), n) != bound_.end(); }
  // A chain of names, attributes and constant subscripts: "a.b.0".
  bool path_of(const Expr& e, std::string& out) const {
    switch (e.kind) {
      case ExprKind::Name:
        if (is_bound(e.name)) return false;
        out = e.name;
        return true;
      case ExprKind::Attr:
      case ExprKind::Dashed:
        if (!path_of(*e.kids[0], out)) return false;
        out += '.';
        out += e.name;
        return true;
      case ExprKind::Item: {
        const Expr& k = *e.kids[1];
        if (k.kind != ExprKind::Const || !(k.constant.is_string() || k.constant.is_int())) return false;
        if (!path_of(*e.kids[0], out)) return false;
        out += '.';
        out += k.constant.is_string() ? k.constant.as_string() : std::to_string(k.constant.as_int());
        return true;
      }
      default: return false;
    }
  }
  void add(std::string p) {
    if (seen_.insert(p).second) paths.push_back(std::move(p));  // a set: a 4 MB template has ~10^5 paths
  }
  void expr(const Expr* e) {
    if (!e) return;
    if (e->kind == ExprKind::Choice) {
      expr(e->kids[0].get());
      return;
    }
    // `a.b.split(',')`: the path read is a.b, the method is not part of it.
    if (e->kind == ExprKind::Call && e->kids[0]->kind == ExprKind::Attr && is_method_name(e->kids[0]->name)) {
      expr(e->kids[0]->kids[0].get());
      for (std::size_t i = 1; i < e->kids.size(); ++i) expr(e->kids[i].get());
      for (auto& k : e->kw_values) expr(k.get());
      return;
    }
    std::string p;
    if (path_of(*e, p)) {
      static const std::set<std::string, std::less<>> kGlobals = {"range", "dict", "namespace", "lipsum", "cycler", "joiner"};
      if (!(e->kind == ExprKind::Name && kGlobals.count(e->name))) add(std::move(p));
      return;
    }
    for (auto& k : e->kids) expr(k.get());
    for (auto& k : e->kw_values) expr(k.get());
  }
  std::vector<std::string> bound_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

std::vector<std::string> Template::references() const {
  if (!impl_) return {};
  References r;
  r.body(impl_->body);
  return std::move(r.paths);
}

}  // namespace budcore::templates
