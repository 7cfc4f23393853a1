// ast.literal_eval for native mode: Jinja2's NativeEnvironment reads rendered text back as a
// Python literal when it is one. The tokens are screened here and parsed by the Jinja parser's
// expression grammar (parse_literal_tokens).
#include <string>
#include <vector>

#include "templates/lexer.hpp"
#include "templates/parser.hpp"

namespace budcore::templates::detail {
namespace {

bool to_literal(const Expr& e, core::Value& out) {
  switch (e.kind) {
    case ExprKind::Const: out = e.constant; return true;
    case ExprKind::Neg:
    case ExprKind::Pos: {
      const Expr& k = *e.kids[0];
      if (k.kind != ExprKind::Const || !(k.constant.is_int() || k.constant.is_float())) return false;
      if (e.kind == ExprKind::Pos) { out = k.constant; return true; }
      if (k.constant.is_int()) out = core::Value(static_cast<long long>(-k.constant.as_int()));
      else out = core::Value(-k.constant.as_float());
      return true;
    }
    case ExprKind::List:
    case ExprKind::Tuple: {
      core::List l;
      l.reserve(e.kids.size());
      for (auto& k : e.kids) {
        core::Value v;
        if (!to_literal(*k, v)) return false;
        l.push_back(std::move(v));
      }
      out = core::Value(std::move(l));
      return true;
    }
    case ExprKind::Dict: {
      core::Map m;
      for (std::size_t i = 0; i + 1 < e.kids.size(); i += 2) {
        core::Value k, v;
        if (!to_literal(*e.kids[i], k) || !to_literal(*e.kids[i + 1], v) || !k.is_string()) return false;
        m.set(k.as_string(), std::move(v));
      }
      out = core::Value(std::move(m));
      return true;
    }
    default: return false;
  }
}

}  // namespace

bool parse_python_literal(std::string_view text, core::Value& out) {
  if (text.empty() || text.front() == ' ' || text.front() == '\t') return false;
  std::vector<Token> toks;
  TemplateError err;
  if (!lex(text, toks, err, true)) return false;
  for (const auto& t : toks) {
    // Cheap screening first, so ordinary text never reaches the parser.
    if (t.type == Tok::Name && t.text != "True" && t.text != "False" && t.text != "None") return false;
    if (t.type == Tok::Op && std::string_view("[](){},:-+").find(t.text) == std::string_view::npos) return false;
    // Python rejects leading zeros in decimal integers ("01").
    if (t.type == Tok::Int && t.text.size() > 1 && t.text[0] == '0' && (t.text[1] | 32) != 'x' &&
        (t.text[1] | 32) != 'o' && (t.text[1] | 32) != 'b' && t.text.find_first_not_of('0') != std::string::npos)
      return false;
  }
  ExprPtr e = parse_literal_tokens(toks);
  return e != nullptr && to_literal(*e, out);
}

}  // namespace budcore::templates::detail
