#include "templates/lexer.hpp"
#include "templates/text.hpp"

#include <charconv>
#include <cstdlib>

#include "core/ascii.hpp"

namespace budcore::templates::detail {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_ident_start(unsigned char c) { return c == '_' || static_cast<unsigned>((c | 32) - 'a') < 26u || c >= 0x80; }
bool is_ident(unsigned char c) { return is_ident_start(c) || static_cast<unsigned>(c - '0') < 10u; }
using core::detail::is_digit;

std::string normalize_newlines(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      out += '\n';
      if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  c = static_cast<char>(c | 32);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Python's unicode-escape decoding of a string literal body (unknown escapes stay as is).
std::string unescape(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '\n': break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x': case 'u': case 'U': {
        std::size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        std::uint32_t cp = 0;
        bool ok = i + n < body.size();
        for (std::size_t k = 1; ok && k <= n; ++k) {
          int h = hex_value(body[i + k]);
          if (h < 0) ok = false; else cp = cp * 16 + static_cast<std::uint32_t>(h);
        }
        if (!ok || cp > 0x10FFFF) { out += '\\'; out += e; break; }
        append_utf8(out, cp);
        i += n;
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          std::uint32_t cp = static_cast<std::uint32_t>(e - '0');
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
            cp = cp * 8 + static_cast<std::uint32_t>(body[++i] - '0');
          append_utf8(out, cp);
        } else {
          out += '\\';
          out += e;
        }
    }
  }
  return out;
}

class Lexer {
 public:
  Lexer(std::string_view src, std::vector<Token>& out, TemplateError& err)
      : src_(src), out_(out), err_(err) {}

  bool run_template();
  bool run_expression();

 private:
  bool fail(std::size_t pos, std::string msg) {
    err_.kind = ErrorKind::TemplateSyntax;
    err_.message = std::move(msg);
    position(pos, err_.line, err_.column);
    return false;
  }
  void position(std::size_t pos, int& line, int& col) {
    // Incremental: positions are requested in increasing order almost always.
    if (pos < pos_cache_) { pos_cache_ = 0; line_cache_ = 1; col_cache_ = 1; }
    for (; pos_cache_ < pos && pos_cache_ < src_.size(); ++pos_cache_) {
      if (src_[pos_cache_] == '\n') { ++line_cache_; col_cache_ = 1; } else { ++col_cache_; }
    }
    line = line_cache_;
    col = col_cache_;
  }
  Token& push(Tok type, std::size_t begin, std::size_t end) {
    Token t;
    t.type = type;
    t.begin = begin;
    t.end = end;
    position(begin, t.line, t.column);
    out_.push_back(std::move(t));
    return out_.back();
  }
  void push_data(std::size_t begin, std::string_view data) {
    if (data.empty()) return;
    push(Tok::Data, begin, begin + data.size()).text = normalize_newlines(data);
  }
  // Lexes tokens inside a tag up to its end delimiter; returns the position after it.
  bool lex_inside(std::size_t& i, char closer, bool& strip_after);
  bool lex_token(std::size_t& i, int& depth);

  std::string_view src_;
  std::vector<Token>& out_;
  TemplateError& err_;
  std::size_t pos_cache_ = 0;
  int line_cache_ = 1;
  int col_cache_ = 1;
};

bool Lexer::lex_token(std::size_t& i, int& depth) {
  const std::size_t n = src_.size();
  char c = src_[i];
  std::size_t start = i;
  if (is_ident_start(static_cast<unsigned char>(c))) {
    while (i < n && is_ident(static_cast<unsigned char>(src_[i]))) ++i;
    push(Tok::Name, start, i).text = std::string(src_.substr(start, i - start));
    return true;
  }
  if (c == '\'' || c == '"') {
    ++i;
    while (i < n && src_[i] != c) {
      if (src_[i] == '\\') ++i;
      ++i;
    }
    if (i >= n) return fail(start, "unexpected end of string");
    ++i;
    push(Tok::String, start, i).text = unescape(normalize_newlines(src_.substr(start + 1, i - start - 2)));
    return true;
  }
  if (is_digit(c)) {
    // Radix integers 0x.. 0o.. 0b..
    if (c == '0' && i + 1 < n && std::string_view("xob").find(static_cast<char>(src_[i + 1] | 32)) != std::string_view::npos) {
      int base = (src_[i + 1] | 32) == 'x' ? 16 : (src_[i + 1] | 32) == 'o' ? 8 : 2;
      std::size_t j = i + 2;
      std::string digits;
      while (j < n && (hex_value(src_[j]) >= 0 || src_[j] == '_')) {
        if (src_[j] != '_') {
          if (hex_value(src_[j]) >= base) break;
          digits += src_[j];
        }
        ++j;
      }
      if (!digits.empty()) {
        std::int64_t v = 0;
        auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
        if (r.ec != std::errc()) return fail(start, "integer literal too large");
        i = j;
        auto& t = push(Tok::Int, start, i);
        t.ival = v;
        t.text = std::string(src_.substr(start, i - start));
        return true;
      }
    }
    auto digits = [&](std::size_t& j) {
      // (\d+_)*\d+
      std::size_t s = j;
      while (j < n && is_digit(src_[j])) {
        ++j;
        if (j + 1 < n && src_[j] == '_' && is_digit(src_[j + 1])) ++j;
      }
      return j > s;
    };
    std::size_t j = i;
    digits(j);
    bool is_float = false;
    if (j + 1 < n && src_[j] == '.' && is_digit(src_[j + 1])) {
      std::size_t k = j + 1;
      digits(k);
      j = k;
      is_float = true;
    }
    if (j < n && (src_[j] | 32) == 'e') {
      std::size_t k = j + 1;
      if (k < n && (src_[k] == '+' || src_[k] == '-')) ++k;
      if (k < n && is_digit(src_[k])) {
        digits(k);
        j = k;
        is_float = true;
      }
    }
    std::string spelled;
    for (std::size_t k = i; k < j; ++k)
      if (src_[k] != '_') spelled += src_[k];
    i = j;
    auto& t = push(is_float ? Tok::Float : Tok::Int, start, i);
    t.text = spelled;
    if (is_float) {
      t.fval = std::strtod(spelled.c_str(), nullptr);
    } else {
      auto r = std::from_chars(spelled.data(), spelled.data() + spelled.size(), t.ival);
      if (r.ec != std::errc()) return fail(start, "integer literal too large");
    }
    return true;
  }
  static constexpr std::string_view kTwo[] = {"//", "**", "==", "!=", ">=", "<="};
  for (auto op : kTwo) {
    if (src_.substr(i, 2) == op) {
      i += 2;
      push(Tok::Op, start, i).text = std::string(op);
      return true;
    }
  }
  if (std::string_view("+-/*%~[](){},.:|=<>;").find(c) != std::string_view::npos) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    ++i;
    push(Tok::Op, start, i).text = std::string(1, c);
    return true;
  }
  return fail(start, std::string("unexpected char '") + c + "' at " + std::to_string(start));
}

bool Lexer::lex_inside(std::size_t& i, char closer, bool& strip_after) {
  const std::size_t n = src_.size();
  int depth = 0;
  while (true) {
    while (i < n && is_space(src_[i])) ++i;
    if (i >= n) return fail(i, closer == '}' ? "unexpected end of template, expected 'end of print statement'."
                                             : "unexpected end of template, expected 'end of statement block'.");
    if (depth <= 0) {
      if (src_[i] == '-' && i + 2 < n && src_[i + 1] == closer && src_[i + 2] == '}') {
        strip_after = true;
        i += 3;
        return true;
      }
      if (src_[i] == closer && i + 1 < n && src_[i + 1] == '}') {
        i += 2;
        return true;
      }
    }
    if (!lex_token(i, depth)) return false;
  }
}

bool Lexer::run_expression() {
  std::size_t i = 0;
  int depth = 0;
  while (true) {
    while (i < src_.size() && is_space(src_[i])) {
      if (src_[i] == '\n' && depth <= 0) break;
      ++i;
    }
    if (i >= src_.size()) break;
    if (src_[i] == '\n' || src_[i] == '#') {
      if (src_[i] == '#') while (i < src_.size() && src_[i] != '\n') ++i;
      else ++i;
      continue;
    }
    if (!lex_token(i, depth)) return false;
  }
  push(Tok::Eof, src_.size(), src_.size());
  return true;
}

// Matches `{%[-+]? raw [-]?%}` at i; returns the end position and whether it strips after.
bool match_tag_word(std::string_view src, std::size_t i, std::string_view word, std::size_t& end,
                    bool& strip_before, bool& strip_after) {
  if (src.substr(i, 2) != "{%") return false;
  std::size_t j = i + 2;
  strip_before = false;
  if (j < src.size() && (src[j] == '-' || src[j] == '+')) { strip_before = src[j] == '-'; ++j; }
  while (j < src.size() && is_space(src[j])) ++j;
  if (src.substr(j, word.size()) != word) return false;
  j += word.size();
  if (j < src.size() && is_ident(static_cast<unsigned char>(src[j]))) return false;
  while (j < src.size() && is_space(src[j])) ++j;
  strip_after = false;
  if (j < src.size() && src[j] == '-') { strip_after = true; ++j; }
  if (src.substr(j, 2) != "%}") return false;
  end = j + 2;
  return true;
}

std::string_view rstrip_ws(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool Lexer::run_template() {
  const std::size_t n = src_.size();
  std::size_t i = 0;
  bool strip_next = false;
  while (i < n) {
    std::size_t open = src_.find('{', i);
    while (open != std::string_view::npos && open + 1 < n && src_[open + 1] != '{' &&
           src_[open + 1] != '%' && src_[open + 1] != '#')
      open = src_.find('{', open + 1);
    if (open == std::string_view::npos || open + 1 >= n) open = n;
    std::size_t data_begin = i;
    if (strip_next) {
      while (data_begin < open && is_space(src_[data_begin])) ++data_begin;
      strip_next = false;
    }
    std::string_view data = src_.substr(data_begin, open - data_begin);
    if (open >= n) {
      // keep_trailing_newline=False: drop one trailing newline.
      if (!data.empty() && data.back() == '\n') {
        data.remove_suffix(1);
        if (!data.empty() && data.back() == '\r') data.remove_suffix(1);
      } else if (!data.empty() && data.back() == '\r') {
        data.remove_suffix(1);
      }
      push_data(data_begin, data);
      break;
    }
    bool strip_before = open + 2 < n && src_[open + 2] == '-';
    if (strip_before) data = rstrip_ws(data);
    char kind = src_[open + 1];
    std::size_t end = 0;
    bool raw_sb = false, raw_sa = false;
    if (kind == '%' && match_tag_word(src_, open, "raw", end, raw_sb, raw_sa)) {
      if (raw_sb) data = rstrip_ws(data);
      push_data(data_begin, data);
      // Find the matching endraw.
      std::size_t k = end;
      std::size_t close_end = 0;
      bool e_sb = false, e_sa = false;
      while (true) {
        k = src_.find("{%", k);
        if (k == std::string_view::npos) return fail(open, "Missing end of raw directive");
        if (match_tag_word(src_, k, "endraw", close_end, e_sb, e_sa)) break;
        k += 2;
      }
      std::string_view body = src_.substr(end, k - end);
      if (raw_sa) while (!body.empty() && is_space(body.front())) body.remove_prefix(1);
      if (e_sb) body = rstrip_ws(body);
      push_data(end, body);
      i = close_end;
      strip_next = e_sa;
      continue;
    }
    push_data(data_begin, data);
    std::size_t j = open + 2;
    if (j < n && (src_[j] == '-' || src_[j] == '+')) ++j;
    if (kind == '#') {
      std::size_t close = src_.find("#}", j);
      if (close == std::string_view::npos) return fail(open, "Missing end of comment tag");
      strip_next = close > j && src_[close - 1] == '-';
      i = close + 2;
      continue;
    }
    push(kind == '{' ? Tok::VarBegin : Tok::BlockBegin, open, j);
    bool strip_after = false;
    if (!lex_inside(j, kind == '{' ? '}' : '%', strip_after)) return false;
    push(kind == '{' ? Tok::VarEnd : Tok::BlockEnd, j - 2, j);
    strip_next = strip_after;
    i = j;
  }
  push(Tok::Eof, n, n);
  return true;
}

}  // namespace

bool lex(std::string_view text, std::vector<Token>& out, TemplateError& error, bool expression_only) {
  Lexer lx(text, out, error);
  return expression_only ? lx.run_expression() : lx.run_template();
}

}  // namespace budcore::templates::detail
