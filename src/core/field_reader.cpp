#include "core/field_reader.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/core/keys.hpp"

namespace budcore::core::detail {
namespace {

using core::Error;

std::string uint128_text(core::uint128 v) {
  if (v == 0) return "0";
  std::string out;
  while (v > 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

Error wrong_type(std::string_view key, const core::Value& v, std::string_view expected) {
  return Error::invalid(std::string(key), value_text(v),
                        "must be " + std::string(expected) + ", not " + std::string(core::to_string(v.kind())));
}

// A JSON float as the decimal literal it most likely was written as; nullopt when the
// shortest form needs an exponent or more than 15 significant digits (not exact then).
std::optional<std::string> exact_decimal_of(double d) {
  std::string s = core::format_json_float(d);
  if (s.find_first_of("eEn") != std::string::npos) return std::nullopt;  // exponent, nan, inf
  std::size_t digits = 0;
  bool leading = true;
  for (char c : s) {
    if (c < '0' || c > '9') continue;
    if (leading && c == '0') continue;
    leading = false;
    ++digits;
  }
  if (digits > 15) return std::nullopt;
  return s;
}

}  // namespace

std::string_view top_level_key(std::string_view path) { return path.substr(0, path.find_first_of(".[")); }

std::string value_text(const core::Value& v) { return v.is_string() ? v.as_string() : core::to_json(v); }

std::string decimal_string(const core::Quantity& q) {
  core::int128 nano = q.nano();
  bool negative = nano < 0;
  core::uint128 mag = negative ? static_cast<core::uint128>(-(nano + 1)) + 1 : static_cast<core::uint128>(nano);
  constexpr core::uint128 kNano = 1'000'000'000;
  std::string out = negative ? "-" : "";
  out += uint128_text(mag / kNano);
  auto frac = static_cast<std::uint64_t>(mag % kNano);
  if (frac != 0) {
    std::string f = std::to_string(frac);
    f.insert(0, 9 - f.size(), '0');
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += '.';
    out += f;
  }
  return out;
}

core::Value quantity_value(const core::Quantity& q) {
  constexpr core::int128 kNano = 1'000'000'000;
  if (q.nano() % kNano == 0) {
    core::int128 units = q.nano() / kNano;
    if (units >= INT64_MIN && units <= INT64_MAX) return core::Value(static_cast<long long>(units));
  }
  return core::Value(decimal_string(q));
}

const core::Value* Reader::get(std::string_view key) const {
  const core::Value* v = m_.find(key);
  return (v == nullptr || v->is_null()) ? nullptr : v;
}

core::Status Reader::reject_unknown(std::span<const std::string_view> known) const {
  return core::check_keys(m_, known);
}

std::vector<std::string_view> Reader::unknown_keys(std::span<const std::string_view> known) const {
  std::vector<std::string_view> out;
  for (const auto& [key, value] : m_) {
    if (std::find(known.begin(), known.end(), key) == known.end()) out.emplace_back(key);
  }
  return out;
}

core::Result<std::optional<std::int64_t>> Reader::integer(std::string_view key) const {
  const core::Value* v = get(key);
  if (v == nullptr) return std::optional<std::int64_t>();
  if (!v->is_int()) return wrong_type(key, *v, "an integer");
  return std::optional<std::int64_t>(v->as_int());
}

core::Result<std::optional<bool>> Reader::boolean(std::string_view key) const {
  const core::Value* v = get(key);
  if (v == nullptr) return std::optional<bool>();
  if (!v->is_bool()) return wrong_type(key, *v, "true or false");
  return std::optional<bool>(v->as_bool());
}

core::Result<std::optional<std::string>> Reader::string(std::string_view key) const {
  const core::Value* v = get(key);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return wrong_type(key, *v, "a string");
  return std::optional<std::string>(v->as_string());
}

core::Result<std::optional<core::Id>> Reader::id(std::string_view key) const {
  auto s = string(key);
  if (!s) return std::move(s).error();
  if (!*s) return std::optional<core::Id>();
  auto id = core::Id::parse(**s);
  if (!id) {
    return Error::invalid(std::string(key), **s,
                          "must be a UUID such as 0190e6f4-5c3a-7abc-8def-0123456789ab");
  }
  return std::optional<core::Id>(*id);
}

core::Result<std::optional<core::Timestamp>> Reader::timestamp(std::string_view key) const {
  auto s = string(key);
  if (!s) return std::move(s).error();
  if (!*s) return std::optional<core::Timestamp>();
  auto t = core::Timestamp::parse(**s);
  if (!t) {
    return Error::invalid(std::string(key), **s,
                          "must be an RFC 3339 timestamp such as 2026-01-30T22:00:00Z (" + t.error().message + ")");
  }
  return std::optional<core::Timestamp>(*t);
}

core::Result<std::optional<core::TimeOfDay>> Reader::time_of_day(std::string_view key) const {
  if (const core::Value* v = get(key); v != nullptr && !v->is_string()) {
    // YAML 1.1 reads an unquoted 22:00 as the base-60 integer 1320.
    return Error::invalid(std::string(key), value_text(*v),
                          "must be a string \"HH:MM\" (in YAML, quote it: \"22:00\")");
  }
  auto s = string(key);
  if (!s) return std::move(s).error();
  if (!*s) return std::optional<core::TimeOfDay>();
  auto t = core::TimeOfDay::parse(**s);
  if (!t) return Error::invalid(std::string(key), **s, "must be a UTC time of day \"HH:MM\" such as \"22:00\"");
  return std::optional<core::TimeOfDay>(*t);
}

core::Result<std::optional<core::Quantity>> Reader::quantity(std::string_view key, bool plain_number_only) const {
  const core::Value* v = get(key);
  if (v == nullptr) return std::optional<core::Quantity>();
  std::string text;
  if (v->is_int()) {
    return std::optional<core::Quantity>(core::Quantity::from_int(v->as_int()));
  } else if (v->is_float()) {
    text = core::format_json_float(v->as_float());
  } else if (v->is_string()) {
    text = v->as_string();
    if (plain_number_only &&
        std::any_of(text.begin(), text.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; })) {
      return Error::invalid(std::string(key), text,
                            "counts gigabytes (GiB): write a plain number such as 8 or \"1.5\", without a unit");
    }
  } else {
    return wrong_type(key, *v, "a number or a quantity string");
  }
  auto q = core::Quantity::parse(text);
  if (!q) {
    return Error::invalid(std::string(key), text,
                          plain_number_only ? "must be a number such as 8 or \"1.5\""
                                            : "must be a number or a quantity such as 2, \"1.5\" or \"500m\"");
  }
  return std::optional<core::Quantity>(*q);
}

core::Result<std::optional<std::string>> Reader::currency(std::string_view key) const {
  auto s = string(key);
  if (!s) return std::move(s).error();
  if (!*s) return std::optional<std::string>();
  const std::string& c = **s;
  bool ok = c.size() == 3 && std::all_of(c.begin(), c.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
  if (!ok) return Error::invalid(std::string(key), c, "must be a three-letter upper-case ISO 4217 code such as USD");
  return s;
}

core::Result<std::optional<core::Money>> Reader::money(std::string_view key, std::string_view currency) const {
  const core::Value* v = get(key);
  if (v == nullptr) return std::optional<core::Money>();
  std::string text;
  if (v->is_int()) {
    text = std::to_string(v->as_int());
  } else if (v->is_float()) {
    auto exact = exact_decimal_of(v->as_float());
    if (!exact) {
      return Error::invalid(std::string(key), value_text(*v),
                            "this number has no exact decimal form; write the amount as a decimal string such as \"12.50\"");
    }
    text = *exact;
  } else if (v->is_string()) {
    text = v->as_string();
  } else {
    return wrong_type(key, *v, "a decimal amount string");
  }
  auto m = core::Money::parse(text, currency);
  if (!m) {
    return Error::invalid(std::string(key), text,
                          "must be a decimal amount such as \"12.50\" (in the job's currency " + std::string(currency) +
                              ")");
  }
  return std::optional<core::Money>(*m);
}

core::Result<std::optional<core::Value>> Reader::map(std::string_view key) const {
  const core::Value* v = get(key);
  if (v == nullptr) return std::optional<core::Value>();
  if (!v->is_map()) return wrong_type(key, *v, "an object");
  return std::optional<core::Value>(*v);
}

core::Result<std::optional<core::List>> Reader::list(std::string_view key) const {
  const core::Value* v = get(key);
  if (v == nullptr) return std::optional<core::List>();
  if (!v->is_list()) return wrong_type(key, *v, "a list");
  return std::optional<core::List>(v->as_list());
}

bool is_dns1123_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (char c : s) {
    if (!alnum(c) && c != '-') return false;
  }
  return alnum(s.front()) && alnum(s.back());
}

}  // namespace budcore::core::detail
