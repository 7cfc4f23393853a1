#include "replay_options.hpp"

#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/keys.hpp"
#include "budcore/core/value.hpp"

namespace budcore::capi {

core::Result<core::Value> options_object(std::string_view text, std::span<const std::string_view> keys) {
  auto doc = core::parse_json(text);
  if (!doc) return std::move(doc.error().at("options"));
  if (!doc->is_map()) return core::Error::invalid("options", std::string(text.substr(0, 40)), "expected a JSON object");
  if (auto st = core::check_keys(doc->as_map(), keys, "options"); !st) return st.error();
  return doc;
}

core::Status check_policy_list(const core::Value& v, std::string_view field) {
  if (v.is_string()) return {};
  if (!v.is_list() || v.as_list().empty())
    return core::Error::invalid(std::string(field), core::to_json(v),
                                "expected a policy name, names separated by commas, or a list of names");
  for (std::size_t i = 0; i < v.as_list().size(); ++i) {
    const core::Value& item = v.as_list()[i];
    if (!item.is_string() || item.as_string() == "all" || item.as_string().find(',') != std::string::npos)
      return core::Error::invalid(std::string(field) + "[" + std::to_string(i) + "]", core::to_json(item),
                                  "expected one policy name");
  }
  return {};
}

}  // namespace budcore::capi
