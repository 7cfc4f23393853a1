#include "templates/parser.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "budcore/core/limits.hpp"
#include "templates/builtins.hpp"
#include "templates/lexer.hpp"

namespace budcore::templates::detail {

Expr::~Expr() {
  if (kids.empty() && kw_values.empty()) return;
  // Children whose subtrees still hold children go to a work list and are emptied there, so
  // no destructor below this one recurses.
  std::vector<ExprPtr> work;
  auto adopt = [&](Expr& e) {
    for (auto* list : {&e.kids, &e.kw_values}) {
      for (auto& k : *list)
        if (k && (!k->kids.empty() || !k->kw_values.empty())) work.push_back(std::move(k));
      list->clear();
    }
  };
  try {
    adopt(*this);
    while (!work.empty()) {
      ExprPtr e = std::move(work.back());
      work.pop_back();
      adopt(*e);
    }
  } catch (...) {
    // Out of memory for the work list: what is left is freed recursively, as before.
  }
}

namespace {

// Height of the expression tree (a lone node is 1), counted without recursion; stops counting
// once `limit` is passed.
int tree_height(const Expr& root, int limit) {
  std::vector<std::pair<const Expr*, int>> stack{{&root, 1}};
  int best = 0;
  while (!stack.empty()) {
    auto [e, h] = stack.back();
    stack.pop_back();
    best = std::max(best, h);
    if (best > limit) return best;
    for (const auto* list : {&e->kids, &e->kw_values})
      for (const auto& k : *list)
        if (k) stack.emplace_back(k.get(), h + 1);
  }
  return best;
}

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
  Body subparse(std::initializer_list<std::string_view> end_tags) {
    Body body;
    DepthGuard guard(*this);
    while (true) {
      const Token& t = cur();
      if (t.type == Tok::Eof) {
        if (end_tags.size() == 0) return body;
        std::string want;
        for (auto n : end_tags) want += (want.empty() ? "'" : " or '") + std::string(n) + "'";
        fail_here("Unexpected end of template. Jinja was looking for the following tags: " + want + ".");
      }
      if (t.type == Tok::Data) {
        Stmt s;
        s.kind = StmtKind::Text;
        s.line = t.line;
        s.text = core::Value(t.text);
        body.push_back(std::move(s));
        ++p_;
        continue;
      }
      if (t.type == Tok::VarBegin) {
        ++p_;
        Stmt s;
        s.kind = StmtKind::Output;
        s.line = t.line;
        s.column = t.column;
        s.expr = parse_top([&] { return parse_tuple(true, false, false); });
        expect(Tok::VarEnd, "end of print statement");
        body.push_back(std::move(s));
        continue;
      }
      if (t.type == Tok::BlockBegin) {
        const Token& name_tok = peek();
        if (name_tok.type != Tok::Name) fail_at(name_tok, "tag name expected");
        for (auto n : end_tags) {
          if (name_tok.text == n) {
            ++p_;  // leave the name for the caller
            return body;
          }
        }
        ++p_;
        body.push_back(parse_statement());
        continue;
      }
      fail_here("unexpected " + describe(t));
    }
  }

  Stmt parse_statement() {
    const Token& t = cur();
    Stmt s;
    s.line = t.line;
    s.column = t.column;
    if (t.text == "if") {
      ++p_;
      s.kind = StmtKind::If;
      while (true) {
        ExprPtr cond = parse_top([&] { return parse_tuple(false, false, false); });
        expect(Tok::BlockEnd, "end of statement block");
        Body b = subparse({"elif", "else", "endif"});
        s.branches.emplace_back(std::move(cond), std::move(b));
        std::string tag = t_[p_++].text;
        if (tag == "elif") continue;
        if (tag == "else") {
          expect(Tok::BlockEnd, "end of statement block");
          s.else_body = subparse({"endif"});
          ++p_;
        }
        break;
      }
      expect(Tok::BlockEnd, "end of statement block");
      return s;
    }
    if (t.text == "for") {
      ++p_;
      s.kind = StmtKind::For;
      parse_targets(s.targets, "in");
      if (!skip_name("in")) fail_here("expected token 'in', got " + describe(cur()));
      s.expr = parse_top([&] { return parse_tuple(false, false, true); });
      if (skip_name("if")) s.loop_filter = parse_top([&] { return parse_expression(true); });
      if (skip_name("recursive")) fail_here("recursive loops are not supported");
      expect(Tok::BlockEnd, "end of statement block");
      s.body = subparse({"endfor", "else"});
      if (t_[p_++].text == "else") {
        expect(Tok::BlockEnd, "end of statement block");
        s.else_body = subparse({"endfor"});
        ++p_;
      }
      expect(Tok::BlockEnd, "end of statement block");
      return s;
    }
    if (t.text == "set") {
      ++p_;
      if (cur().type == Tok::Name && peek().type == Tok::Op && peek().text == "." && peek(2).type == Tok::Name) {
        s.attr_target = {t_[p_].text, t_[p_ + 2].text};
        p_ += 3;
      } else {
        parse_targets(s.targets, "=");
      }
      if (skip_op("=")) {
        s.kind = StmtKind::Set;
        s.expr = parse_top([&] { return parse_tuple(true, false, false); });
        expect(Tok::BlockEnd, "end of statement block");
        return s;
      }
      if (!s.attr_target.empty() || s.targets.size() != 1) fail_here("expected token '=', got " + describe(cur()));
      s.kind = StmtKind::SetBlock;
      expect(Tok::BlockEnd, "end of statement block");
      s.body = subparse({"endset"});
      ++p_;
      expect(Tok::BlockEnd, "end of statement block");
      return s;
    }
    fail_at(t, "Encountered unknown tag '" + t.text + "'.");
  }

  void parse_targets(std::vector<std::string>& out, std::string_view stop) {
    bool parens = skip_op("(");
    while (true) {
      std::string n = expect_name();
      if (n == "true" || n == "false" || n == "none" || n == "True" || n == "False" || n == "None" ||
          n == "loop")
        if (n != "loop") fail_at(t_[p_ - 1], "can't assign to literal");
      out.push_back(std::move(n));
      if (!skip_op(",")) break;
      if (is_name(stop) || is_op(stop) || is_op(")")) break;
    }
    if (parens) expect_op(")");
    else if (out.size() == 1 && t_[p_ - 1].type == Tok::Op) {
      // `for a, in x` keeps tuple unpacking of one element
    }
  }

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
  bool is_tuple_end(bool explicit_parens, bool stop_at_if) const {
    auto ty = cur().type;
    if (ty == Tok::VarEnd || ty == Tok::BlockEnd || ty == Tok::Eof) return true;
    if (explicit_parens && is_op(")")) return true;
    if (stop_at_if && (is_name("if") || is_name("recursive"))) return true;
    return false;
  }

  ExprPtr parse_tuple(bool with_condexpr, bool explicit_parens, bool stop_at_if) {
    const Token& at = cur();
    std::vector<ExprPtr> args;
    bool is_tuple = false;
    while (true) {
      if (!args.empty()) expect_op(",");
      if (is_tuple_end(explicit_parens, stop_at_if)) break;
      args.push_back(parse_expression(with_condexpr));
      if (is_op(",")) is_tuple = true;
      else break;
    }
    if (!is_tuple) {
      if (!args.empty()) return std::move(args[0]);
      if (!explicit_parens) fail_here("Expected an expression, got " + describe(cur()));
    }
    auto t = node(ExprKind::Tuple, at);
    t->kids = std::move(args);
    return t;
  }

  ExprPtr parse_expression(bool with_condexpr = true) {
    DepthGuard guard(*this);
    return with_condexpr ? parse_condexpr() : parse_or();
  }

  ExprPtr parse_condexpr() {
    ExprPtr expr1 = parse_or();
    while (is_name("if")) {
      const Token& at = cur();
      ++p_;
      ExprPtr test = parse_or();
      ExprPtr expr3;
      if (skip_name("else")) expr3 = parse_condexpr();
      auto c = node(ExprKind::Cond, at);
      c->kids.push_back(std::move(test));
      c->kids.push_back(std::move(expr1));
      c->kids.push_back(std::move(expr3));  // may be null
      expr1 = std::move(c);
    }
    return expr1;
  }

  ExprPtr binary(ExprKind kind, const Token& at, ExprPtr l, ExprPtr r) {
    auto e = node(kind, at);
    e->kids.push_back(std::move(l));
    e->kids.push_back(std::move(r));
    return e;
  }

  ExprPtr parse_or() {
    ExprPtr left = parse_and();
    while (is_name("or")) {
      const Token& at = t_[p_++];
      left = binary(ExprKind::Or, at, std::move(left), parse_and());
    }
    return left;
  }
  ExprPtr parse_and() {
    ExprPtr left = parse_not();
    while (is_name("and")) {
      const Token& at = t_[p_++];
      left = binary(ExprKind::And, at, std::move(left), parse_not());
    }
    return left;
  }
  ExprPtr parse_not() {
    if (is_name("not")) {
      DepthGuard guard(*this);
      auto e = node(ExprKind::Not, t_[p_++]);
      e->kids.push_back(parse_not());
      return e;
    }
    return parse_compare();
  }
  ExprPtr parse_compare() {
    const Token& at = cur();
    ExprPtr expr = parse_math1();
    ExprPtr cmp;
    while (true) {
      CmpOp op;
      if (is_op("==")) op = CmpOp::Eq;
      else if (is_op("!=")) op = CmpOp::Ne;
      else if (is_op("<")) op = CmpOp::Lt;
      else if (is_op("<=")) op = CmpOp::Le;
      else if (is_op(">")) op = CmpOp::Gt;
      else if (is_op(">=")) op = CmpOp::Ge;
      else if (is_name("in")) op = CmpOp::In;
      else if (is_name("not") && peek().type == Tok::Name && peek().text == "in") { op = CmpOp::NotIn; ++p_; }
      else break;
      ++p_;
      if (!cmp) {
        cmp = node(ExprKind::Compare, at);
        cmp->kids.push_back(std::move(expr));
      }
      cmp->cmp.push_back(op);
      cmp->kids.push_back(parse_math1());
    }
    return cmp ? std::move(cmp) : std::move(expr);
  }
  ExprPtr parse_math1() {
    ExprPtr left = parse_concat();
    while (is_op("+") || is_op("-")) {
      const Token& at = t_[p_++];
      left = binary(at.text == "+" ? ExprKind::Add : ExprKind::Sub, at, std::move(left), parse_concat());
    }
    return left;
  }
  ExprPtr parse_concat() {
    const Token& at = cur();
    ExprPtr first = parse_math2();
    if (!is_op("~")) return first;
    auto c = node(ExprKind::Concat, at);
    c->kids.push_back(std::move(first));
    while (skip_op("~")) c->kids.push_back(parse_math2());
    return c;
  }
  ExprPtr parse_math2() {
    ExprPtr left = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const Token& at = t_[p_++];
      ExprKind k = at.text == "*" ? ExprKind::Mul : at.text == "/" ? ExprKind::Div
                 : at.text == "//" ? ExprKind::FloorDiv : ExprKind::Mod;
      left = binary(k, at, std::move(left), parse_pow());
    }
    return left;
  }
  ExprPtr parse_pow() {
    ExprPtr left = parse_unary(true);
    while (is_op("**")) {
      const Token& at = t_[p_++];
      left = binary(ExprKind::Pow, at, std::move(left), parse_unary(true));
    }
    return left;
  }
  ExprPtr parse_unary(bool with_filter) {
    DepthGuard guard(*this);
    const Token& at = cur();
    ExprPtr n;
    if (is_op("-") || is_op("+")) {
      ++p_;
      n = node(at.text == "-" ? ExprKind::Neg : ExprKind::Pos, at);
      n->kids.push_back(parse_unary(false));
    } else {
      n = parse_primary();
    }
    n = parse_postfix(std::move(n));
    if (with_filter) n = parse_filter_expr(std::move(n));
    return n;
  }
  ExprPtr constant(const Token& at, core::Value v) {
    auto e = node(ExprKind::Const, at);
    e->constant = std::move(v);
    return e;
  }
  ExprPtr parse_primary() {
    const Token& t = cur();
    switch (t.type) {
      case Tok::Name: {
        ++p_;
        if (literal_) {
          if (t.text == "True") return constant(t, true);
          if (t.text == "False") return constant(t, false);
          if (t.text == "None") return constant(t, nullptr);
          fail_at(t, "not a literal");
        }
        if (t.text == "true" || t.text == "True") return constant(t, true);
        if (t.text == "false" || t.text == "False") return constant(t, false);
        if (t.text == "none" || t.text == "None") return constant(t, nullptr);
        auto e = node(ExprKind::Name, t);
        e->name = t.text;
        return e;
      }
      case Tok::String: {
        std::string s = t.text;
        ++p_;
        while (cur().type == Tok::String) s += t_[p_++].text;
        return constant(t, core::Value(std::move(s)));
      }
      case Tok::Int: ++p_; return constant(t, core::Value(static_cast<long long>(t.ival)));
      case Tok::Float: ++p_; return constant(t, core::Value(t.fval));
      case Tok::Op:
        if (t.text == "(") {
          ++p_;
          auto e = parse_tuple(true, true, false);
          expect_op(")");
          return e;
        }
        if (t.text == "[") return parse_list();
        if (t.text == "{") return parse_dict();
        break;
      default: break;
    }
    if (t.type == Tok::VarEnd || t.type == Tok::BlockEnd || t.type == Tok::Eof)
      fail_at(t, "Expected an expression, got " + describe(t));
    fail_at(t, "unexpected " + describe(t));
  }
  ExprPtr parse_list() {
    auto e = node(ExprKind::List, t_[p_++]);
    while (!is_op("]")) {
      if (!e->kids.empty()) expect_op(",");
      if (is_op("]")) break;
      e->kids.push_back(parse_expression());
    }
    expect_op("]");
    return e;
  }
  ExprPtr parse_dict() {
    auto e = node(ExprKind::Dict, t_[p_++]);
    while (!is_op("}")) {
      if (!e->kids.empty()) expect_op(",");
      if (is_op("}")) break;
      e->kids.push_back(parse_expression());
      expect_op(":");
      e->kids.push_back(parse_expression());
    }
    expect_op("}");
    return e;
  }
  ExprPtr parse_postfix(ExprPtr n) {
    while (true) {
      if (is_op(".") || is_op("[")) n = parse_subscript(std::move(n));
      else if (is_op("(")) n = parse_call(std::move(n));
      else return n;
    }
  }
  ExprPtr parse_filter_expr(ExprPtr n) {
    while (true) {
      if (is_op("|")) n = parse_filter(std::move(n));
      else if (is_name("is")) n = parse_test(std::move(n));
      else if (is_op("(")) n = parse_call(std::move(n));
      else return n;
    }
  }
  ExprPtr parse_subscript(ExprPtr base) {
    DepthGuard guard(*this);
    const Token& at = t_[p_++];
    if (at.text == ".") {
      const Token& attr = cur();
      if (attr.type == Tok::Name) {
        ++p_;
        // Extension: `a.step-1` names the key "step-1" when written without spaces.
        if (dashed_mode_ && !literal_) {
          std::string key = attr.text;
          std::size_t last_end = attr.end;
          while (cur().type == Tok::Op && cur().text == "-" && cur().begin == last_end &&
                 (peek().type == Tok::Name || peek().type == Tok::Int) && peek().begin == cur().end) {
            key += '-';
            key += peek().text;
            last_end = peek().end;
            p_ += 2;
          }
          if (key.size() != attr.text.size()) {
            ++dashed_count_;
            auto d = node(ExprKind::Dashed, attr);
            d->name = std::move(key);
            d->kids.push_back(std::move(base));
            return d;
          }
        }
        auto e = node(ExprKind::Attr, attr);
        e->name = attr.text;
        e->kids.push_back(std::move(base));
        return e;
      }
      if (attr.type == Tok::Int) {
        ++p_;
        auto e = node(ExprKind::Item, attr);
        e->kids.push_back(std::move(base));
        e->kids.push_back(constant(attr, core::Value(static_cast<long long>(attr.ival))));
        return e;
      }
      fail_at(attr, "expected name or number");
    }
    // '[' subscript: one or more slices/expressions
    std::vector<ExprPtr> args;
    while (!is_op("]")) {
      if (!args.empty()) {
        expect_op(",");
        if (is_op("]")) break;
      }
      args.push_back(parse_subscribed());
    }
    expect_op("]");
    if (args.empty()) fail_at(at, "expected an expression in subscript");
    ExprPtr index;
    if (args.size() == 1) {
      index = std::move(args[0]);
    } else {
      index = node(ExprKind::Tuple, at);
      index->kids = std::move(args);
    }
    if (index->kind == ExprKind::Slice) {
      index->kids.insert(index->kids.begin(), std::move(base));
      return index;
    }
    auto e = node(ExprKind::Item, at);
    e->kids.push_back(std::move(base));
    e->kids.push_back(std::move(index));
    return e;
  }
  ExprPtr parse_subscribed() {
    const Token& at = cur();
    ExprPtr parts[3];
    bool has[3] = {false, false, false};
    if (is_op(":")) {
      ++p_;
    } else {
      ExprPtr e = parse_expression();
      if (!is_op(":")) return e;
      ++p_;
      parts[0] = std::move(e);
      has[0] = true;
    }
    if (!is_op("]") && !is_op(",") && !is_op(":")) { parts[1] = parse_expression(); has[1] = true; }
    if (skip_op(":")) {
      if (!is_op("]") && !is_op(",")) { parts[2] = parse_expression(); has[2] = true; }
    }
    auto s = node(ExprKind::Slice, at);
    for (int i = 0; i < 3; ++i) {
      s->slice_has[i] = has[i];
      s->kids.push_back(has[i] ? std::move(parts[i]) : constant(at, nullptr));
    }
    return s;
  }
  void parse_call_args(Expr& e) {
    expect_op("(");
    bool first = true;
    while (!is_op(")")) {
      if (!first) {
        expect_op(",");
        if (is_op(")")) break;
      }
      first = false;
      if (is_op("*") || is_op("**")) fail_here("argument unpacking is not supported");
      if (cur().type == Tok::Name && peek().type == Tok::Op && peek().text == "=") {
        e.kw_names.push_back(cur().text);
        p_ += 2;
        e.kw_values.push_back(parse_expression());
      } else {
        if (!e.kw_names.empty()) fail_here("positional argument follows keyword argument");
        e.kids.push_back(parse_expression());
      }
    }
    expect_op(")");
  }
  ExprPtr parse_call(ExprPtr callee) {
    DepthGuard guard(*this);
    auto e = node(ExprKind::Call, cur());
    e->kids.push_back(std::move(callee));
    parse_call_args(*e);
    return e;
  }
  std::string dotted_name() {
    std::string n = expect_name();
    while (is_op(".") && peek().type == Tok::Name) {
      n += '.';
      n += peek().text;
      p_ += 2;
    }
    return n;
  }
  ExprPtr parse_filter(ExprPtr subject) {
    DepthGuard guard(*this);
    ++p_;  // '|'
    const Token& at = cur();
    auto e = node(ExprKind::Filter, at);
    e->name = dotted_name();
    e->kids.push_back(std::move(subject));
    if (is_op("(")) parse_call_args(*e);
    return e;
  }
  ExprPtr parse_test(ExprPtr subject) {
    DepthGuard guard(*this);
    ++p_;  // 'is'
    bool negated = skip_name("not");
    const Token& at = cur();
    auto e = node(ExprKind::Test, at);
    e->name = dotted_name();
    e->negated = negated;
    e->kids.push_back(std::move(subject));
    if (is_op("(")) {
      parse_call_args(*e);
    } else {
      const Token& t = cur();
      bool starts_arg = t.type == Tok::Name || t.type == Tok::String || t.type == Tok::Int ||
                        t.type == Tok::Float || (t.type == Tok::Op && (t.text == "(" || t.text == "[" || t.text == "{"));
      if (starts_arg && !(t.type == Tok::Name && (t.text == "else" || t.text == "or" || t.text == "and"))) {
        if (t.type == Tok::Name && t.text == "is") fail_here("You cannot chain multiple tests with is");
        e->kids.push_back(parse_postfix(parse_primary()));
      }
    }
    return e;
  }

  std::vector<Token>& t_;
  std::size_t p_ = 0;
  const Limits& limits_;
  TemplateError& err_;
  bool literal_ = false;
  bool dashed_mode_ = true;
  int dashed_count_ = 0;
  int depth_ = 0;
  std::uintptr_t stack_floor_ = core::stack_floor();
};

}  // namespace

bool parse_template(std::string_view text, const Limits& limits, Body& out, TemplateError& error) {
  if (text.size() > limits.max_template_bytes) {
    error = TemplateError{ErrorKind::Security, "template exceeds " + std::to_string(limits.max_template_bytes) + " bytes", 1, 1};
    return false;
  }
  std::vector<Token> toks;
  if (!lex(text, toks, error)) return false;
  Parser parser(toks, limits, error);
  try {
    out = parser.parse_document();
  } catch (const SyntaxFailure&) {
    return false;
  }
  return resolve_names(out, error);
}

ExprPtr parse_literal_tokens(std::vector<Token>& tokens) {
  TemplateError err;
  Limits limits;
  Parser parser(tokens, limits, err, true);
  try {
    return parser.parse_literal_expression();
  } catch (const SyntaxFailure&) {
    return nullptr;
  }
}

}  // namespace budcore::templates::detail
