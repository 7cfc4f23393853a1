// Jinja2's grammar over the lexer's tokens, producing the AST of ast.hpp.
#pragma once

#include <string_view>
#include <vector>

#include "budcore/templates/template.hpp"
#include "templates/ast.hpp"
#include "templates/lexer.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

bool parse_template(std::string_view text, const Limits& limits, Body& out, TemplateError& error);

// Looks up every filter and test by name (resolve.cpp); an unknown one is a
// TemplateAssertionError unless Jinja2 defers it (inside an `if`).
bool resolve_names(Body& body, TemplateError& error);

// The literal subset of the expression grammar over lexed tokens; nullptr when they are not
// one expression (literal.cpp screens the tokens first). The parser may move token text out.
ExprPtr parse_literal_tokens(std::vector<Token>& tokens);

// ast.literal_eval for native mode: true when text is a Python literal (numbers, strings,
// True/False/None, lists, tuples, dicts, unary +/-), with its value in out.
bool parse_python_literal(std::string_view text, core::Value& out);

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
