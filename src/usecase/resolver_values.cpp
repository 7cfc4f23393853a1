// Value helpers of the Resolver: Helm's deep merge and the output markers rendered strings
// carry into the pipeline document.
#include <string>

#include "usecase/resolver_impl.hpp"

namespace budcore::usecase::detail {

void add_issue(std::vector<Issue>& issues, std::string_view code, std::string message, std::string path) {
  issues.push_back(Issue{std::string(code), std::move(message), std::move(path)});
}

std::string_view path_head(std::string_view path, std::string_view* rest) {
  auto dot = path.find('.');
  if (rest != nullptr) *rest = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  return path.substr(0, dot);
}

core::Value deep_merge(const core::Value& base, const core::Value& overlay) {
  if (!overlay.is_map()) return overlay;
  core::Value out = base.is_map() ? base : core::Value(core::Map{});
  core::Map& m = out.mutable_map();
  for (const auto& [key, v] : overlay.as_map()) {
    if (v.is_null()) {
      m.erase(key);
    } else if (v.is_map()) {
      // Merged into the base's map, or into an empty one (which drops the overlay's nulls).
      const core::Value* b = m.find(key);
      core::Value merged = deep_merge(b != nullptr ? *b : core::Value(), v);
      m.set(key, std::move(merged));
    } else {
      m.set(key, v);
    }
  }
  return out;
}

std::string output_marker(std::string_view id, std::string_view output) {
  std::string s = "{{ steps.";
  s += id;
  s += ".outputs.";
  s += output;
  s += " }}";
  return s;
}

namespace {

bool label_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }
bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

bool scan_markers(std::string_view text, std::vector<std::string>& ids, std::string& bad) {
  constexpr std::string_view kHead = "{{ steps.", kMid = ".outputs.", kTail = " }}";
  for (std::size_t i = text.find('{'); i != std::string_view::npos && i + 1 < text.size(); i = text.find('{', i + 1)) {
    char n = text[i + 1];
    if (n != '{' && n != '%' && n != '#') continue;
    std::string_view rest = text.substr(i);
    bool ok = rest.substr(0, kHead.size()) == kHead;
    std::size_t j = kHead.size();
    std::size_t id_start = j;
    while (ok && j < rest.size() && label_char(rest[j])) ++j;
    std::size_t id_end = j;
    ok = ok && id_end > id_start && rest.substr(j, kMid.size()) == kMid;
    j += kMid.size();
    std::size_t name_start = j;
    while (ok && j < rest.size() && ident_char(rest[j])) ++j;
    ok = ok && j > name_start && rest.substr(j, kTail.size()) == kTail;
    if (!ok) {
      std::size_t end = rest.find_first_of("}\n", 2);
      bad =
          std::string(rest.substr(0, end == std::string_view::npos ? std::min<std::size_t>(rest.size(), 40) : end + 1));
      if (bad.size() > 60) bad = bad.substr(0, 60) + "...";
      return false;
    }
    ids.emplace_back(rest.substr(id_start, id_end - id_start));
    i += j + kTail.size() - 1;
  }
  return true;
}

}  // namespace budcore::usecase::detail
