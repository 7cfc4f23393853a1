// After parsing: filters and tests are looked up by name once, at compile time.
#include "templates/builtins.hpp"
#include "templates/parser.hpp"

namespace budcore::templates::detail {
namespace {

// Resolves filters and tests. An unknown one is a TemplateAssertionError, except inside an
// `if` block or an inline if-expression, where Jinja2 defers the error to the call.
class Resolver {
 public:
  explicit Resolver(TemplateError& err) : err_(err) {}

  bool body(Body& b, bool soft) {
    for (auto& s : b)
      if (!stmt(s, soft)) return false;
    return true;
  }

 private:
  bool stmt(Stmt& s, bool soft) {
    switch (s.kind) {
      case StmtKind::Text: return true;
      case StmtKind::Output:
      case StmtKind::Set: return expr(s.expr.get(), soft);
      case StmtKind::SetBlock: return body(s.body, soft);
      case StmtKind::If:
        for (auto& [cond, b] : s.branches)
          if (!expr(cond.get(), true) || !body(b, true)) return false;
        return body(s.else_body, true);
      case StmtKind::For:
        return expr(s.expr.get(), soft) && expr(s.loop_filter.get(), false) && body(s.body, false) &&
               body(s.else_body, false);
      case StmtKind::With:
      case StmtKind::Macro:
      case StmtKind::CallBlock:
      case StmtKind::FilterBlock:
        for (auto& v : s.values)
          if (!expr(v.get(), soft)) return false;
        return expr(s.expr.get(), soft) && body(s.body, soft);
      case StmtKind::Break:
      case StmtKind::Continue: return true;
    }
    return true;
  }
  bool expr(Expr* e, bool soft) {
    if (!e) return true;
    if (e->kind == ExprKind::Cond) soft = true;
    if (e->kind == ExprKind::Filter) {
      e->filter = find_filter(e->name);
      if (!e->filter && !soft) return fail(*e, "No filter named '" + e->name + "'.");
    } else if (e->kind == ExprKind::Test) {
      e->test = find_test(e->name);
      if (!e->test && !soft) return fail(*e, "No test named '" + e->name + "'.");
    }
    // For a Choice both readings are checked: the plain one may carry the error Jinja2 reports.
    for (auto& k : e->kids)
      if (!expr(k.get(), soft)) return false;
    for (auto& k : e->kw_values)
      if (!expr(k.get(), soft)) return false;
    return true;
  }
  bool fail(const Expr& e, std::string msg) {
    err_.kind = ErrorKind::TemplateAssertion;
    err_.message = std::move(msg);
    err_.line = e.line;
    err_.column = e.column;
    return false;
  }
  TemplateError& err_;
};

}  // namespace

bool resolve_names(Body& body, TemplateError& error) {
  Resolver resolver(error);
  return resolver.body(body, false);
}

}  // namespace budcore::templates::detail
