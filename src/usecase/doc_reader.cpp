#include "usecase/doc_reader.hpp"

#include <algorithm>
#include <set>

#include "budcore/core/json.hpp"

namespace budcore::usecase::detail {

using core::Error;
using core::Value;

bool is_identifier(std::string_view s) noexcept {
  if (s.empty() || s.size() > 128) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s.front())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

bool is_version_text(std::string_view s) noexcept {
  if (s.empty() || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '+' || c == '-';
  });
}

bool has_template_markers(std::string_view s) noexcept {
  for (std::size_t i = s.find('{'); i != std::string_view::npos && i + 1 < s.size(); i = s.find('{', i + 1)) {
    char n = s[i + 1];
    if (n == '{' || n == '%' || n == '#') return true;
  }
  return false;
}

core::Status check_schema_version(const core::Map& document) {
  const Value* v = document.find("schema_version");
  if (v == nullptr || v->is_null()) return {};
  bool ok = (v->is_string() && (v->as_string() == "1.0" || v->as_string() == "1")) || (v->is_int() && v->as_int() == 1);
  if (ok) return {};
  return Error{core::ErrorCode::Unsupported, "unsupported schema version; this library reads version \"1.0\"",
               "schema_version", value_text(*v)};
}

core::Result<std::string> required_string(const Reader& r, std::string_view key) {
  BUDCORE_TRY_ASSIGN(auto s, r.string(key));
  if (!s) return Error::invalid(std::string(key), {}, "required field is missing");
  if (s->empty()) return Error::invalid(std::string(key), {}, "must not be empty");
  return std::move(*s);
}

core::Result<std::string> required_label(const Reader& r, std::string_view key) {
  BUDCORE_TRY_ASSIGN(auto s, required_string(r, key));
  if (!core::detail::is_dns1123_label(s)) {
    return Error::invalid(std::string(key), s,
                          "must be a DNS-1123 label: 1-63 characters of a-z, 0-9 and '-', starting and ending with a "
                          "letter or digit");
  }
  return s;
}

core::Result<std::string> required_version(const Reader& r, std::string_view key) {
  BUDCORE_TRY_ASSIGN(auto s, r.string(key));
  if (!s) return Error::invalid(std::string(key), {}, "required field is missing (quote it in YAML: \"1.0.0\")");
  if (!is_version_text(*s)) {
    return Error::invalid(std::string(key), *s, "must be 1-64 characters of letters, digits, '.', '_', '+' and '-'");
  }
  return std::move(*s);
}

std::optional<std::string> non_empty(std::string_view s) {
  return s.empty() ? std::optional<std::string>("must not be empty") : std::nullopt;
}

core::Result<std::vector<std::string>> string_list(
    const Reader& r, std::string_view key, bool distinct,
    const std::function<std::optional<std::string>(std::string_view)>& item_ok) {
  BUDCORE_TRY_ASSIGN(auto list, r.list(key));
  std::vector<std::string> out;
  if (!list) return out;
  std::set<std::string_view> seen;
  out.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Value& item = (*list)[i];
    std::string path = std::string(key) + "[" + std::to_string(i) + "]";
    if (!item.is_string()) return Error::invalid(path, value_text(item), "must be a string");
    if (item_ok) {
      if (auto why = item_ok(item.as_string())) return Error::invalid(path, item.as_string(), std::move(*why));
    }
    out.push_back(item.as_string());
  }
  if (distinct) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (!seen.insert(out[i]).second) {
        return Error::invalid(std::string(key) + "[" + std::to_string(i) + "]", out[i], "is listed twice");
      }
    }
  }
  return out;
}

core::Result<Value> map_or_empty(const Reader& r, std::string_view key) {
  BUDCORE_TRY_ASSIGN(auto m, r.map(key));
  return m ? std::move(*m) : Value(core::Map{});
}

std::string indexed(std::string_view key, std::size_t i) { return std::string(key) + "[" + std::to_string(i) + "]"; }

Value optional_text(const std::optional<std::string>& s) { return s ? Value(*s) : Value(); }
Value optional_int(const std::optional<std::int64_t>& i) { return i ? Value(static_cast<long long>(*i)) : Value(); }
Value string_list_value(const std::vector<std::string>& v) { return Value(core::List(v.begin(), v.end())); }

std::string scalar_text(const Value& v) {
  if (v.is_string()) return v.as_string();
  if (v.is_bool()) return v.as_bool() ? "true" : "false";
  return core::to_json(v);
}

core::Result<Value> env_map(const Reader& r, std::string_view key) {
  BUDCORE_TRY_ASSIGN(Value m, map_or_empty(r, key));
  core::Map out;
  for (const auto& [name, v] : m.as_map()) {
    std::string path = std::string(key) + "." + name;
    if (name.empty()) return Error::invalid(std::string(key), {}, "an environment variable name must not be empty");
    if (v.is_list() || v.is_map()) {
      return Error::invalid(path, value_text(v), "must be a string (or a number or boolean, written as text)");
    }
    out.set(name, v.is_null() || v.is_string() ? v : Value(scalar_text(v)));
  }
  return Value(std::move(out));
}

}  // namespace budcore::usecase::detail
