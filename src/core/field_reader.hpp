// Private helpers for reading documents (jobs, configs, price books, templates): typed field
// readers over a Map that name the path of a bad field.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::core::detail {

// The value as a person wrote it: a string as is, anything else as compact JSON.
std::string value_text(const core::Value& v);

// A whole amount as an Int, a fractional one as an exact decimal string ("0.5").
core::Value quantity_value(const core::Quantity& q);
// Exact decimal text of a quantity's amount, no suffix: "1.5", "-0.001", "8".
std::string decimal_string(const core::Quantity& q);

// A DNS-1123 label: 1-63 characters of [a-z0-9-], starting and ending alphanumeric (it names
// Kubernetes objects).
bool is_dns1123_label(std::string_view s);

// The key of the document a path starts with: "status_history[2].at" -> "status_history".
std::string_view top_level_key(std::string_view path);

// Reads fields of one JSON object. Every reader treats an absent key and null alike (nullopt)
// and reports a wrong type or a bad value as Invalid with the key as field.
class Reader {
 public:
  explicit Reader(const core::Map& m) : m_(m) {}

  // The first key not in `known`, with a "did you mean" hint.
  core::Status reject_unknown(std::span<const std::string_view> known) const;
  // Every key not in `known`, in document order (core::unknown_key gives each its error).
  std::vector<std::string_view> unknown_keys(std::span<const std::string_view> known) const;

  core::Result<std::optional<std::int64_t>> integer(std::string_view key) const;
  core::Result<std::optional<bool>> boolean(std::string_view key) const;
  core::Result<std::optional<std::string>> string(std::string_view key) const;
  core::Result<std::optional<core::Id>> id(std::string_view key) const;
  core::Result<std::optional<core::Timestamp>> timestamp(std::string_view key) const;
  core::Result<std::optional<core::TimeOfDay>> time_of_day(std::string_view key) const;
  // A JSON number or a quantity string; plain_number_only rejects unit suffixes ("8Gi").
  core::Result<std::optional<core::Quantity>> quantity(std::string_view key, bool plain_number_only) const;
  core::Result<std::optional<std::string>> currency(std::string_view key) const;
  core::Result<std::optional<core::Money>> money(std::string_view key, std::string_view currency) const;
  core::Result<std::optional<core::Value>> map(std::string_view key) const;
  core::Result<std::optional<core::List>> list(std::string_view key) const;

  template <class E, class Parse>
  core::Result<std::optional<E>> enumeration(std::string_view key, Parse parse) const {
    auto s = string(key);
    if (!s) return std::move(s).error();
    if (!*s) return std::optional<E>();
    auto e = parse(**s);
    if (!e) return std::move(e.error().at(key));
    return std::optional<E>(*e);
  }
  template <class E, class Parse>
  core::Result<E> required_enum(std::string_view key, Parse parse) const {
    auto e = enumeration<E>(key, parse);
    if (!e) return std::move(e).error();
    if (!*e) return core::Error::invalid(std::string(key), {}, "required field is missing");
    return **e;
  }

 private:
  const core::Value* get(std::string_view key) const;  // nullptr when absent or null
  const core::Map& m_;
};

}  // namespace budcore::core::detail

#pragma GCC visibility pop
