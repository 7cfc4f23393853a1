// Private helpers for reading component and template documents, on top of the job codec's
// Reader (typed, path-naming field readers with "did you mean" for unknown keys).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "core/field_reader.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::usecase::detail {

using core::detail::Reader;
using core::detail::value_text;

// [A-Za-z_][A-Za-z0-9_]*, at most 128 bytes.
bool is_identifier(std::string_view s) noexcept;
// 1-64 characters of [A-Za-z0-9._+-] ("1.0.0", "2024-06-01").
bool is_version_text(std::string_view s) noexcept;
// Holds "{{", "{%" or "{#".
bool has_template_markers(std::string_view s) noexcept;

// The optional "schema_version" key: "1.0", "1" or 1; anything else is Unsupported.
core::Status check_schema_version(const core::Map& document);

// A present, non-empty string.
core::Result<std::string> required_string(const Reader& r, std::string_view key);
// An id that must be a DNS-1123 label.
core::Result<std::string> required_label(const Reader& r, std::string_view key);
core::Result<std::string> required_version(const Reader& r, std::string_view key);

// string_list's check that an item is not empty.
std::optional<std::string> non_empty(std::string_view s);

// A list of strings (absent: empty). `item_ok` may reject an item with a reason; duplicates
// are rejected when `distinct`. Errors name "key[i]".
core::Result<std::vector<std::string>> string_list(
    const Reader& r, std::string_view key, bool distinct,
    const std::function<std::optional<std::string>(std::string_view)>& item_ok = {});

// A map (absent or null: an empty map).
core::Result<core::Value> map_or_empty(const Reader& r, std::string_view key);
// A map whose values are scalars (env): strings, numbers and booleans become strings, null
// stays (it deletes the key when merged); lists and maps are rejected. Errors name "key.NAME".
core::Result<core::Value> env_map(const Reader& r, std::string_view key);

// "key[i]".
std::string indexed(std::string_view key, std::size_t i);

// Values for to_value(): null for an absent optional, a list of strings.
core::Value optional_text(const std::optional<std::string>& s);
core::Value optional_int(const std::optional<std::int64_t>& i);
core::Value string_list_value(const std::vector<std::string>& v);

// The scalar as env text: strings as is, true/false, numbers as JSON writes them.
std::string scalar_text(const core::Value& v);

}  // namespace budcore::usecase::detail

#pragma GCC visibility pop
