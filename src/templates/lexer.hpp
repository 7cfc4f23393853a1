// Splits template text into tokens the way Jinja2's lexer does with default settings:
// {{ }}, {% %}, {# #}, '-' whitespace control, {% raw %}, newline normalisation and removal
// of a single trailing newline (keep_trailing_newline=False).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/templates/template.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

enum class Tok : std::uint8_t {
  Data, VarBegin, VarEnd, BlockBegin, BlockEnd, Name, String, Int, Float, Op, Eof,
};

struct Token {
  Tok type = Tok::Eof;
  std::string text;       // Data text, Name, decoded String, Op spelling, number spelling
  std::int64_t ival = 0;  // Int
  double fval = 0;        // Float
  int line = 1;
  int column = 1;
  std::size_t begin = 0;  // byte offsets in the source, for adjacency checks
  std::size_t end = 0;
};

// Fails with a TemplateSyntaxError. `expression_only` lexes a bare expression (no tags),
// as ast.literal_eval's input in native mode.
bool lex(std::string_view text, std::vector<Token>& out, TemplateError& error,
         bool expression_only = false);

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
