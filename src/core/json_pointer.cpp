#include "core/json_pointer.hpp"

#include <algorithm>

namespace budcore::core {

std::string field_path_of_pointer(std::string_view pointer, std::string base) {
  if (pointer.empty() || pointer.front() != '/') return std::string(pointer);
  std::string out = std::move(base);
  std::size_t from = 1;
  while (from <= pointer.size()) {
    std::size_t to = pointer.find('/', from);
    if (to == std::string_view::npos) to = pointer.size();
    std::string token(pointer.substr(from, to - from));
    for (auto p = token.find("~1"); p != std::string::npos; p = token.find("~1", p + 1)) token.replace(p, 2, "/");
    for (auto p = token.find("~0"); p != std::string::npos; p = token.find("~0", p + 1)) token.replace(p, 2, "~");
    const bool index = !token.empty() && std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
    out = index ? out + "[" + token + "]" : out.empty() ? token : out + "." + token;
    from = to + 1;
  }
  return out;
}

}  // namespace budcore::core
