// The template parser: Jinja2's grammar as a recursive descent over the lexer's tokens. The
// statements are in parser.cpp, the expression grammar in parser_expressions.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/core/limits.hpp"
#include "budcore/templates/template.hpp"
#include "templates/ast.hpp"
#include "templates/lexer.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

// Unwinds the recursive descent to parse_template once `error` is filled in.
struct SyntaxFailure {};

class Parser {
 public:
  Parser(std::vector<Token>& toks, const Limits& limits, TemplateError& err, bool literal_mode = false)
      : t_(toks), limits_(limits), err_(err), literal_(literal_mode) {}

  Body parse_document() {
    Body body = subparse({});
    return body;
  }

  ExprPtr parse_literal_expression() {
    auto e = parse_tuple(true, false, false);
    if (cur().type != Tok::Eof) fail_here("unexpected token");
    check_height(*e, t_[0]);
    return e;
  }

 private:
  // ---- token helpers
  const Token& cur() const { return t_[p_]; }
  const Token& peek(std::size_t k = 1) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool is_op(std::string_view op) const { return cur().type == Tok::Op && cur().text == op; }
  bool is_name(std::string_view n) const { return cur().type == Tok::Name && cur().text == n; }
  bool skip_op(std::string_view op) {
    if (!is_op(op)) return false;
    ++p_;
    return true;
  }
  bool skip_name(std::string_view n) {
    if (!is_name(n)) return false;
    ++p_;
    return true;
  }
  [[noreturn]] void fail_at(const Token& t, std::string msg, ErrorKind kind = ErrorKind::TemplateSyntax) {
    err_.kind = kind;
    err_.message = std::move(msg);
    err_.line = t.line;
    err_.column = t.column;
    throw SyntaxFailure{};
  }
  [[noreturn]] void fail_here(std::string msg) { fail_at(cur(), std::move(msg)); }
  static std::string describe(const Token& t) {
    switch (t.type) {
      case Tok::Eof: return "end of template";
      case Tok::VarEnd: return "end of print statement";
      case Tok::BlockEnd: return "end of statement block";
      case Tok::String: return "string";
      case Tok::Int: return "integer";
      case Tok::Float: return "float";
      default: return "'" + t.text + "'";
    }
  }
  void expect_op(std::string_view op) {
    if (!skip_op(op)) fail_here("expected token '" + std::string(op) + "', got " + describe(cur()));
  }
  void expect(Tok type, std::string_view what) {
    if (cur().type != type) fail_here("expected token '" + std::string(what) + "', got " + describe(cur()));
    ++p_;
  }
  std::string expect_name() {
    if (cur().type != Tok::Name) fail_here("expected token 'name', got " + describe(cur()));
    return t_[p_++].text;
  }
  ExprPtr node(ExprKind kind, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    return e;
  }
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > p.limits_.max_parse_depth || core::stack_exhausted(p.stack_floor_)) {
        p.fail_here("template nesting too deep");
      }
    }
    ~DepthGuard() { --p.depth_; }
  };
  // Chains built by loops (`1+1+1...`, `x|upper|upper...`, `a.b.c...`) nest without recursion,
  // so the depth guard does not see them; every walker of the tree (evaluator, resolver,
  // analysis) recurses over it, so its height is bounded here, once per expression.
  void check_height(const Expr& e, const Token& at) {
    if (tree_height(e, limits_.max_parse_depth) > limits_.max_parse_depth) {
      fail_at(at, "expression nested too deep (more than " + std::to_string(limits_.max_parse_depth) + " levels)");
    }
  }

  // ---- statements
  // The body up to `{% end_tag %}`, that tag included.
  Body block_body(std::string_view end_tag);
  Body subparse(std::initializer_list<std::string_view> end_tags);

  Stmt parse_statement();

  // `(a, b=default, ...)` of a macro or a call block's caller.
  void parse_signature(Stmt& s);

  // The body up to `end_tag`, with loop controls reset (a macro's body is a function of its
  // own), and whether it reads varargs, kwargs or caller (Jinja2 collects extra arguments only
  // then).
  void parse_callable_body(Stmt& s, std::string_view end_tag);

  void parse_targets(std::vector<std::string>& out, std::string_view stop);

  // Parses an expression in dashed mode; when a dashed key was read, parses it again the
  // plain Jinja2 way and keeps both (ExprKind::Choice).
  template <class F>
  ExprPtr parse_top(F&& parse) {
    std::size_t start = p_;
    ExprPtr e = parse_both(parse, start);
    check_height(*e, t_[start]);
    return e;
  }
  template <class F>
  ExprPtr parse_both(F&& parse, std::size_t start) {
    int dashes_before = dashed_count_;
    ExprPtr dashed = parse();
    if (dashed_count_ == dashes_before) return dashed;
    std::size_t end = p_;
    p_ = start;
    dashed_mode_ = false;
    ExprPtr plain;
    TemplateError saved = err_;
    try {
      plain = parse();
    } catch (const SyntaxFailure&) {
      err_ = saved;
    }
    dashed_mode_ = true;
    bool same_end = p_ == end;
    p_ = end;
    if (!plain || !same_end) return dashed;
    auto c = node(ExprKind::Choice, t_[start]);
    c->kids.push_back(std::move(dashed));
    c->kids.push_back(std::move(plain));
    return c;
  }

  // ---- expressions (Jinja2's parser.py, rule by rule)
  bool is_tuple_end(bool explicit_parens, bool stop_at_if) const;
  ExprPtr parse_tuple(bool with_condexpr, bool explicit_parens, bool stop_at_if);
  ExprPtr parse_expression(bool with_condexpr = true);
  ExprPtr parse_condexpr();
  ExprPtr binary(ExprKind kind, const Token& at, ExprPtr l, ExprPtr r);
  ExprPtr parse_or();
  ExprPtr parse_and();
  ExprPtr parse_not();
  ExprPtr parse_compare();
  ExprPtr parse_math1();
  ExprPtr parse_concat();
  ExprPtr parse_math2();
  ExprPtr parse_pow();
  ExprPtr parse_unary(bool with_filter);
  ExprPtr constant(const Token& at, core::Value v);
  ExprPtr parse_primary();
  ExprPtr parse_list();
  ExprPtr parse_dict();
  ExprPtr parse_postfix(ExprPtr n);
  ExprPtr parse_filter_expr(ExprPtr n);
  ExprPtr parse_subscript(ExprPtr base);
  ExprPtr parse_subscribed();
  void parse_call_args(Expr& e);
  ExprPtr parse_call(ExprPtr callee);
  std::string dotted_name();
  // `| name(args)`; a filter block's first filter has no bar (`{% filter upper %}`).
  ExprPtr parse_filter(ExprPtr subject, bool after_bar = true);
  ExprPtr parse_test(ExprPtr subject);

  std::vector<Token>& t_;
  std::size_t p_ = 0;
  const Limits& limits_;
  TemplateError& err_;
  bool literal_ = false;
  bool dashed_mode_ = true;
  int dashed_count_ = 0;
  int depth_ = 0;
  int loop_depth_ = 0;  // for-loop bodies open around the current statement (break/continue need one)
  std::uintptr_t stack_floor_ = core::stack_floor();
};

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
