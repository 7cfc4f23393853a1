// Jinja2's grammar over the lexer's tokens, producing the AST of ast.hpp.
#pragma once

#include <string_view>

#include "budcore/templates/template.hpp"
#include "templates/ast.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

bool parse_template(std::string_view text, const Limits& limits, Body& out, TemplateError& error);

// ast.literal_eval for native mode: true when text is a Python literal (numbers, strings,
// True/False/None, lists, tuples, dicts, unary +/-), with its value in out.
bool parse_python_literal(std::string_view text, core::Value& out);

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
