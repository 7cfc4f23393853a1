// Template statements ({% if %}, {% for %}, {% macro %}, ...) and the parser's entry points.
#include "templates/parser.hpp"

#include "templates/builtins.hpp"
#include "templates/parser_impl.hpp"

namespace budcore::templates::detail {

Body Parser::block_body(std::string_view end_tag) {
  Body b = subparse({end_tag});
  ++p_;
  expect(Tok::BlockEnd, "end of statement block");
  return b;
}

Body Parser::subparse(std::initializer_list<std::string_view> end_tags) {
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

Stmt Parser::parse_statement() {
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
    ++loop_depth_;
    s.body = subparse({"endfor", "else"});
    --loop_depth_;
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
    s.body = block_body("endset");
    return s;
  }
  if (t.text == "with") {
    ++p_;
    s.kind = StmtKind::With;
    while (cur().type != Tok::BlockEnd) {
      if (!s.targets.empty()) expect_op(",");
      std::vector<std::string> name;
      parse_targets(name, "=");
      if (name.size() != 1) fail_here("expected token '=', got ','");
      s.targets.push_back(std::move(name[0]));
      expect_op("=");
      s.values.push_back(parse_top([&] { return parse_expression(); }));
    }
    expect(Tok::BlockEnd, "end of statement block");
    s.body = block_body("endwith");
    return s;
  }
  if (t.text == "filter") {
    ++p_;
    s.kind = StmtKind::FilterBlock;
    std::size_t start = p_;
    auto body_ref = node(ExprKind::Name, t);
    body_ref->name = std::string(kFilteredBody);
    ExprPtr chain = parse_filter(std::move(body_ref), false);
    while (is_op("|")) chain = parse_filter(std::move(chain));
    check_height(*chain, t_[start]);
    s.expr = std::move(chain);
    expect(Tok::BlockEnd, "end of statement block");
    s.body = block_body("endfilter");
    return s;
  }
  if (t.text == "break" || t.text == "continue") {
    // Jinja2 compiles these into Python, whose compiler refuses them outside a loop.
    if (loop_depth_ == 0) fail_at(t, "'" + t.text + "' outside loop");
    ++p_;
    s.kind = t.text == "break" ? StmtKind::Break : StmtKind::Continue;
    expect(Tok::BlockEnd, "end of statement block");
    return s;
  }
  if (t.text == "macro") {
    ++p_;
    s.kind = StmtKind::Macro;
    s.targets.push_back(expect_name());
    parse_signature(s);
    expect(Tok::BlockEnd, "end of statement block");
    parse_callable_body(s, "endmacro");
    return s;
  }
  if (t.text == "call") {
    ++p_;
    s.kind = StmtKind::CallBlock;
    s.targets.push_back("caller");
    if (is_op("(")) parse_signature(s);
    const Token& call_at = cur();
    s.expr = parse_top([&] { return parse_expression(); });
    if (s.expr->kind != ExprKind::Call) fail_at(call_at, "expected call");
    expect(Tok::BlockEnd, "end of statement block");
    parse_callable_body(s, "endcall");
    return s;
  }
  fail_at(t, "Encountered unknown tag '" + t.text + "'.");
}

void Parser::parse_signature(Stmt& s) {
  expect_op("(");
  while (!is_op(")")) {
    if (!s.params.empty()) expect_op(",");
    if (is_op(")")) break;  // a trailing comma
    const Token& at = cur();
    std::string name = expect_name();
    if (std::find(s.params.begin(), s.params.end(), name) != s.params.end()) {
      fail_at(at, "duplicate argument '" + name + "' in function definition");
    }
    s.params.push_back(std::move(name));
    if (skip_op("=")) {
      s.values.push_back(parse_top([&] { return parse_expression(); }));
    } else {
      if (!s.values.empty() && s.values.back()) fail_at(at, "non-default argument follows default argument");
      s.values.emplace_back();
    }
  }
  expect_op(")");
}

void Parser::parse_callable_body(Stmt& s, std::string_view end_tag) {
  const std::size_t first = p_;
  const int loops = loop_depth_;
  loop_depth_ = 0;
  s.body = subparse({end_tag});
  loop_depth_ = loops;
  for (std::size_t i = first; i < p_; ++i) {
    if (t_[i].type != Tok::Name) continue;
    s.uses_varargs = s.uses_varargs || t_[i].text == "varargs";
    s.uses_kwargs = s.uses_kwargs || t_[i].text == "kwargs";
    s.uses_caller = s.uses_caller || t_[i].text == "caller";
  }
  ++p_;
  expect(Tok::BlockEnd, "end of statement block");
}

void Parser::parse_targets(std::vector<std::string>& out, std::string_view stop) {
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
