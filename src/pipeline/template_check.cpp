// Template syntax and step references through templates::Template. Guards (`| default`,
// `is defined`) are found by a small lexical scan of the expression text, because
// Template::references() reports paths but not how they are used.
#include "pipeline/template_check.hpp"

#include <cctype>

#include "budcore/templates/template.hpp"

namespace budcore::pipeline::detail {
namespace {

bool ident_char(char c) noexcept { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::size_t skip_space(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

// Reads the word at i; returns its end (i when there is none).
std::size_t word_end(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && ident_char(s[i])) ++i;
  return i;
}

bool word_at(std::string_view s, std::size_t i, std::string_view w) noexcept {
  return s.substr(i, w.size()) == w && (i + w.size() >= s.size() || !ident_char(s[i + w.size()]));
}

// After a path ending at i: `| default`, `| d`, `is [not] defined|undefined|none`.
bool guarded_after(std::string_view s, std::size_t i) noexcept {
  i = skip_space(s, i);
  if (i < s.size() && s[i] == '|') {
    i = skip_space(s, i + 1);
    return word_at(s, i, "default") || word_at(s, i, "d");
  }
  if (word_at(s, i, "is")) {
    i = skip_space(s, i + 2);
    if (word_at(s, i, "not")) i = skip_space(s, i + 3);
    return word_at(s, i, "defined") || word_at(s, i, "undefined") || word_at(s, i, "none");
  }
  return false;
}

// Scans `steps.X...` / `steps['X']...` occurrences; appends X of the guarded ones.
void scan_guards(std::string_view s, std::vector<std::string>& soft) {
  std::size_t pos = 0;
  while ((pos = s.find("steps", pos)) != std::string_view::npos) {
    std::size_t start = pos;
    pos += 5;
    if (start > 0 && (ident_char(s[start - 1]) || s[start - 1] == '.')) continue;
    std::string head;
    std::size_t i = pos;
    bool first = true;
    // Walk the whole path: .name(-name)*, ['key'], ["key"], [123].
    while (i < s.size()) {
      if (s[i] == '.') {
        std::size_t e = i + 1;
        while (e < s.size() && (ident_char(s[e]) || s[e] == '-')) ++e;
        if (e == i + 1) break;
        if (first) head = std::string(s.substr(i + 1, e - i - 1));
        first = false;
        i = e;
      } else if (s[i] == '[') {
        std::size_t j = skip_space(s, i + 1);
        if (j < s.size() && (s[j] == '\'' || s[j] == '"')) {
          std::size_t close = s.find(s[j], j + 1);
          if (close == std::string_view::npos) break;
          if (first) head = std::string(s.substr(j + 1, close - j - 1));
          std::size_t k = skip_space(s, close + 1);
          if (k >= s.size() || s[k] != ']') break;
          i = k + 1;
        } else {
          std::size_t e = word_end(s, j);
          std::size_t k = skip_space(s, e);
          if (e == j || k >= s.size() || s[k] != ']') break;
          i = k + 1;
        }
        first = false;
      } else {
        break;
      }
    }
    if (!head.empty() && guarded_after(s, i)) soft.push_back(std::move(head));
    pos = i;
  }
}

}  // namespace

TemplateCheck check_template(std::string_view text) {
  TemplateCheck out;
  templates::Template t;
  templates::TemplateError err;
  if (!templates::Template::compile(text, t, err)) {
    out.ok = false;
    out.error = std::string(templates::to_string(err.kind)) + ": " + err.message;
    if (err.line > 0) out.error += " (line " + std::to_string(err.line) + ", column " + std::to_string(err.column) + ")";
    return out;
  }
  for (auto& p : t.references()) {
    if (p.size() > 6 && p.compare(0, 6, "steps.") == 0) out.step_paths.push_back(p.substr(6));
  }
  if (!out.step_paths.empty()) scan_guards(text, out.soft_heads);
  return out;
}

bool path_names_step(std::string_view path, std::string_view id) noexcept {
  return path.substr(0, id.size()) == id && (path.size() == id.size() || path[id.size()] == '.');
}

}  // namespace budcore::pipeline::detail
