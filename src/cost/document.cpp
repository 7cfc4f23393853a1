#include "cost/document.hpp"

#include <iterator>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost::detail {

using core::Error;

namespace {
Error too_large(std::string_view field, std::size_t max_bytes) {
  return Error::invalid(std::string(field), {}, "input is larger than " + std::to_string(max_bytes >> 20) + " MiB");
}
}  // namespace

core::Value amount_value(const core::Money& m) { return core::Value(m.amount_string(2)); }
core::Value quantity_value(const core::Quantity& q) { return core::Value(core::detail::decimal_string(q)); }

core::Result<core::Value> parse_bounded_document(std::string_view text, std::string_view field, std::size_t max_bytes) {
  if (text.size() > max_bytes) return too_large(field, max_bytes);
  return core::parse_document(text);
}

core::Result<std::string> decimal_text_of(const core::Value& v, const std::string& path) {
  if (v.is_string()) return v.as_string();
  if (v.is_int()) return std::to_string(v.as_int());
  if (v.is_float()) {
    std::string s = core::format_json_float(v.as_float());
    if (s.find_first_of("eEn") == std::string::npos) return s;
    return Error::invalid(path, s, "has no exact short decimal form; write it as a decimal string such as \"2.49\"");
  }
  return Error::invalid(path, core::detail::value_text(v),
                        "must be a decimal number or string, not " + std::string(core::to_string(v.kind())));
}

core::Result<core::Quantity> read_factor(const core::Value& v, const std::string& path, std::int64_t max_units) {
  BUDCORE_TRY_ASSIGN(std::string text, decimal_text_of(v, path));
  const auto bad = [&](std::string why) { return Error::invalid(path, text, std::move(why)); };
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) {
    return bad("must be a positive decimal number such as \"0.5\" (no sign, exponent or unit)");
  }
  const std::size_t dot = text.find('.');
  if (dot != std::string::npos && text.size() - dot - 1 > 9) return bad("has more than 9 decimal places");
  auto q = core::Quantity::parse(text);
  if (!q) return bad("must be a positive decimal number such as \"0.5\"");
  if (q->sign() <= 0) return bad("must be greater than 0");
  if (q->nano() > static_cast<core::int128>(max_units) * core::Quantity::kNanoPerUnit) {
    return bad("must be at most " + std::to_string(max_units));
  }
  return *q;
}

}  // namespace budcore::cost::detail
