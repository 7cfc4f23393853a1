#include "templates/text.hpp"

#include <cctype>
#include <cstdio>

#include "templates/evaluator.hpp"

namespace budcore::templates::detail {

std::size_t utf8_length(std::string_view s) noexcept {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string_view> split_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_py_space(s[i])) ++i;
    std::size_t start = i;
    while (i < s.size() && !is_py_space(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

namespace {

// Simple case mapping for the scripts templates meet in practice: ASCII, Latin-1, Latin
// Extended-A, Greek and Cyrillic (Python maps all of Unicode; ß upper-cases to "SS").
std::uint32_t cp_upper(std::uint32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c < 0x80) return c;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 0x20;
  if (c == 0xFF) return 0x178;
  if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17F) {
    bool odd_lower = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    if (odd_lower ? (c % 2 == 0) : (c % 2 == 1)) return c - 1;
    return c;
  }
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 0x20;
  if (c == 0x3C2) return 0x3A3;
  if (c >= 0x430 && c <= 0x44F) return c - 0x20;
  if (c >= 0x450 && c <= 0x45F) return c - 0x50;
  return c;
}

std::uint32_t cp_lower(std::uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0x80) return c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
  if (c == 0x178) return 0xFF;
  if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17F) {
    bool odd_lower = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    if (odd_lower ? (c % 2 == 1) : (c % 2 == 0)) return c + 1;
    return c;
  }
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 0x20;
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;
  return c;
}

// Decodes one code point at s[i] (invalid bytes pass through as themselves).
std::uint32_t decode(std::string_view s, std::size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (len == 1 || i + len > s.size()) { ++i; return c; }
  std::uint32_t cp = c & (0x3Fu >> (len - 1));
  for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
  i += len;
  return cp;
}


void append_upper(std::string& o, std::uint32_t cp) {
  if (cp == 0xDF) { o += "SS"; return; }
  append_utf8(o, cp_upper(cp));
}
void append_lower(std::string& o, std::uint32_t cp) { append_utf8(o, cp_lower(cp)); }
bool is_cased(std::uint32_t cp) { return cp_upper(cp) != cp || cp_lower(cp) != cp || cp == 0xDF; }

template <class F>
std::string map_chars(std::string_view s, F&& f) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    std::uint32_t cp = decode(s, i);
    f(o, cp, s.substr(start, i - start));
  }
  return o;
}

}  // namespace

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string py_ascii_escape(std::string_view repr) {
  return map_chars(repr, [](std::string& o, std::uint32_t cp, std::string_view bytes) {
    if (cp < 0x80) {
      o += bytes;
      return;
    }
    char buf[12];
    const auto n = static_cast<unsigned>(cp);
    if (cp <= 0xFF) std::snprintf(buf, sizeof buf, "\\x%02x", n);
    else if (cp <= 0xFFFF) std::snprintf(buf, sizeof buf, "\\u%04x", n);
    else std::snprintf(buf, sizeof buf, "\\U%08x", n);
    o += buf;
  });
}

std::string ascii_upper(std::string_view s) {
  bool ascii = true;
  std::string o(s);
  for (auto& c : o) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    else if (static_cast<unsigned char>(c) >= 0x80) ascii = false;
  }
  if (ascii) return o;
  return map_chars(s, [](std::string& out, std::uint32_t cp, std::string_view) { append_upper(out, cp); });
}

std::string ascii_lower(std::string_view s) {
  bool ascii = true;
  std::string o(s);
  for (auto& c : o) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    else if (static_cast<unsigned char>(c) >= 0x80) ascii = false;
  }
  if (ascii) return o;
  return map_chars(s, [](std::string& out, std::uint32_t cp, std::string_view) { append_lower(out, cp); });
}

std::string jinja_title(std::string_view s) {
  // "".join(item[0].upper() + item[1:].lower() for item in re.split(r"([-\s({\[<]+)", s) if item)
  auto is_sep = [](std::uint32_t c) {
    return c == '-' || (c < 0x80 && is_py_space(static_cast<char>(c))) || c == '(' || c == '{' || c == '[' || c == '<';
  };
  bool first = true, prev_sep = false;
  return map_chars(s, [&](std::string& o, std::uint32_t cp, std::string_view) {
    bool sep = is_sep(cp);
    bool start = first || sep != prev_sep;
    if (start) append_upper(o, cp); else append_lower(o, cp);
    first = false;
    prev_sep = sep;
  });
}

std::string py_title(std::string_view s) {
  bool prev_cased = false;
  return map_chars(s, [&](std::string& o, std::uint32_t cp, std::string_view) {
    if (prev_cased) append_lower(o, cp); else append_upper(o, cp);
    prev_cased = is_cased(cp);
  });
}

std::string py_capitalize(std::string_view s) {
  bool first = true;
  return map_chars(s, [&](std::string& o, std::uint32_t cp, std::string_view) {
    if (first) append_upper(o, cp); else append_lower(o, cp);
    first = false;
  });
}

std::string py_replace(Evaluator& ev, std::string_view s, std::string_view from, std::string_view to,
                       std::int64_t count, const Expr* at) {
  std::string o;
  if (from.empty()) {
    // Python inserts `to` before every code point and at the end.
    std::int64_t done = 0;
    for (std::size_t i = 0; i < s.size();) {
      if (count < 0 || done < count) { o += to; ++done; }
      std::size_t len = 1;
      while (i + len < s.size() && (static_cast<unsigned char>(s[i + len]) & 0xC0) == 0x80) ++len;
      o += s.substr(i, len);
      i += len;
      ev.check_size(o.size(), at);
    }
    if (count < 0 || done < count) o += to;
    return o;
  }
  std::size_t pos = 0;
  std::int64_t done = 0;
  while (count < 0 || done < count) {
    auto f = s.find(from, pos);
    if (f == std::string_view::npos) break;
    o += s.substr(pos, f - pos);
    o += to;
    pos = f + from.size();
    ++done;
    ev.check_size(o.size(), at);
  }
  o += s.substr(pos);
  return o;
}

std::string_view py_strip(std::string_view s, bool whitespace, std::string_view chars, bool left, bool right) {
  auto strip_it = [&](char c) { return whitespace ? is_py_space(c) : chars.find(c) != std::string_view::npos; };
  if (left)
    while (!s.empty() && strip_it(s.front())) s.remove_prefix(1);
  if (right)
    while (!s.empty() && strip_it(s.back())) s.remove_suffix(1);
  return s;
}

std::string py_pad(std::string_view s, std::int64_t width, std::string_view how, std::string_view fill) {
  std::int64_t len = static_cast<std::int64_t>(utf8_length(s));
  if (width <= len) return std::string(s);
  std::int64_t marg = width - len;
  auto rep = [&](std::int64_t n) {
    std::string o;
    for (std::int64_t i = 0; i < n; ++i) o += fill;
    return o;
  };
  if (how == "ljust") return std::string(s) + rep(marg);
  if (how == "rjust") return rep(marg) + std::string(s);
  if (how == "zfill") {
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) return std::string(1, s[0]) + std::string(static_cast<std::size_t>(marg), '0') + std::string(s.substr(1));
    return std::string(static_cast<std::size_t>(marg), '0') + std::string(s);
  }
  // center: Python puts the extra space on the left when the margin and width are odd.
  std::int64_t left = marg / 2 + (marg & width & 1);
  return rep(left) + std::string(s) + rep(marg - left);
}

}  // namespace budcore::templates::detail
