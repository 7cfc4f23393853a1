// Template expressions: Jinja2's parser.py, rule by rule.
#include "templates/builtins.hpp"
#include "templates/parser_impl.hpp"

namespace budcore::templates::detail {

bool Parser::is_tuple_end(bool explicit_parens, bool stop_at_if) const {
  auto ty = cur().type;
  if (ty == Tok::VarEnd || ty == Tok::BlockEnd || ty == Tok::Eof) return true;
  if (explicit_parens && is_op(")")) return true;
  if (stop_at_if && (is_name("if") || is_name("recursive"))) return true;
  return false;
}

ExprPtr Parser::parse_tuple(bool with_condexpr, bool explicit_parens, bool stop_at_if) {
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

ExprPtr Parser::parse_expression(bool with_condexpr) {
  DepthGuard guard(*this);
  return with_condexpr ? parse_condexpr() : parse_or();
}

ExprPtr Parser::parse_condexpr() {
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

ExprPtr Parser::binary(ExprKind kind, const Token& at, ExprPtr l, ExprPtr r) {
  auto e = node(kind, at);
  e->kids.push_back(std::move(l));
  e->kids.push_back(std::move(r));
  return e;
}

ExprPtr Parser::parse_or() {
  ExprPtr left = parse_and();
  while (is_name("or")) {
    const Token& at = t_[p_++];
    left = binary(ExprKind::Or, at, std::move(left), parse_and());
  }
  return left;
}

ExprPtr Parser::parse_and() {
  ExprPtr left = parse_not();
  while (is_name("and")) {
    const Token& at = t_[p_++];
    left = binary(ExprKind::And, at, std::move(left), parse_not());
  }
  return left;
}

ExprPtr Parser::parse_not() {
  if (is_name("not")) {
    DepthGuard guard(*this);
    auto e = node(ExprKind::Not, t_[p_++]);
    e->kids.push_back(parse_not());
    return e;
  }
  return parse_compare();
}

ExprPtr Parser::parse_compare() {
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

ExprPtr Parser::parse_math1() {
  ExprPtr left = parse_concat();
  while (is_op("+") || is_op("-")) {
    const Token& at = t_[p_++];
    left = binary(at.text == "+" ? ExprKind::Add : ExprKind::Sub, at, std::move(left), parse_concat());
  }
  return left;
}

ExprPtr Parser::parse_concat() {
  const Token& at = cur();
  ExprPtr first = parse_math2();
  if (!is_op("~")) return first;
  auto c = node(ExprKind::Concat, at);
  c->kids.push_back(std::move(first));
  while (skip_op("~")) c->kids.push_back(parse_math2());
  return c;
}

ExprPtr Parser::parse_math2() {
  ExprPtr left = parse_pow();
  while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
    const Token& at = t_[p_++];
    ExprKind k = at.text == "*" ? ExprKind::Mul : at.text == "/" ? ExprKind::Div
               : at.text == "//" ? ExprKind::FloorDiv : ExprKind::Mod;
    left = binary(k, at, std::move(left), parse_pow());
  }
  return left;
}

ExprPtr Parser::parse_pow() {
  ExprPtr left = parse_unary(true);
  while (is_op("**")) {
    const Token& at = t_[p_++];
    left = binary(ExprKind::Pow, at, std::move(left), parse_unary(true));
  }
  return left;
}

ExprPtr Parser::parse_unary(bool with_filter) {
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

ExprPtr Parser::constant(const Token& at, core::Value v) {
  auto e = node(ExprKind::Const, at);
  e->constant = std::move(v);
  return e;
}

ExprPtr Parser::parse_primary() {
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

ExprPtr Parser::parse_list() {
  auto e = node(ExprKind::List, t_[p_++]);
  while (!is_op("]")) {
    if (!e->kids.empty()) expect_op(",");
    if (is_op("]")) break;
    e->kids.push_back(parse_expression());
  }
  expect_op("]");
  return e;
}

ExprPtr Parser::parse_dict() {
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

ExprPtr Parser::parse_postfix(ExprPtr n) {
  while (true) {
    if (is_op(".") || is_op("[")) n = parse_subscript(std::move(n));
    else if (is_op("(")) n = parse_call(std::move(n));
    else return n;
  }
}

ExprPtr Parser::parse_filter_expr(ExprPtr n) {
  while (true) {
    if (is_op("|")) n = parse_filter(std::move(n));
    else if (is_name("is")) n = parse_test(std::move(n));
    else if (is_op("(")) n = parse_call(std::move(n));
    else return n;
  }
}

ExprPtr Parser::parse_subscript(ExprPtr base) {
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

ExprPtr Parser::parse_subscribed() {
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

void Parser::parse_call_args(Expr& e) {
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

ExprPtr Parser::parse_call(ExprPtr callee) {
  DepthGuard guard(*this);
  auto e = node(ExprKind::Call, cur());
  e->kids.push_back(std::move(callee));
  parse_call_args(*e);
  return e;
}

std::string Parser::dotted_name() {
  std::string n = expect_name();
  while (is_op(".") && peek().type == Tok::Name) {
    n += '.';
    n += peek().text;
    p_ += 2;
  }
  return n;
}

ExprPtr Parser::parse_filter(ExprPtr subject, bool after_bar) {
  DepthGuard guard(*this);
  if (after_bar) ++p_;  // '|'
  const Token& at = cur();
  auto e = node(ExprKind::Filter, at);
  e->name = dotted_name();
  e->kids.push_back(std::move(subject));
  if (is_op("(")) parse_call_args(*e);
  return e;
}

ExprPtr Parser::parse_test(ExprPtr subject) {
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

}  // namespace budcore::templates::detail
