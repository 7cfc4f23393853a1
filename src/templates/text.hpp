// Python string operations the filters and methods share (str.title, strip, replace...).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

struct Evaluator;
struct Expr;

inline bool is_py_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\x1c' ||
         c == '\x1d' || c == '\x1e' || c == '\x1f';
}
// Appends code point cp as UTF-8 (the lexer's \u escapes and the case mappings share it).
void append_utf8(std::string& out, std::uint32_t cp);
std::size_t utf8_length(std::string_view s) noexcept;
std::vector<std::string_view> split_whitespace(std::string_view s);
std::string ascii_upper(std::string_view s);
std::string ascii_lower(std::string_view s);
// Jinja2's title filter (words begin after '-', whitespace and opening brackets).
std::string jinja_title(std::string_view s);
// Python's ascii() from repr() text: every non-ASCII code point escaped (\xe9, \u2603,
// \U0001f600); used by %a and {!a}.
std::string py_ascii_escape(std::string_view repr);
// Python's str.title (words begin after any non-letter).
std::string py_title(std::string_view s);
std::string py_capitalize(std::string_view s);
std::string py_replace(Evaluator& ev, std::string_view s, std::string_view from, std::string_view to,
                       std::int64_t count, const Expr* at);
std::string_view py_strip(std::string_view s, bool whitespace, std::string_view chars, bool left, bool right);
// zfill, ljust, rjust, center with Python's rules (width in code points).
std::string py_pad(std::string_view s, std::int64_t width, std::string_view how, std::string_view fill);

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
