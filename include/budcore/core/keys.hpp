// Unknown keys in documents: every reader rejects a key it does not know, naming its path and
// the closest known key ("did you mean 'requests'?"), so a typo never silently drops a setting.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"

namespace budcore::core {

// The closest of `candidates` to `key` within a small edit distance, or empty.
BUDCORE_API std::string_view suggest(std::string_view key, std::span<const std::string_view> candidates);

// Invalid with field join_path(parent, key) and message "unknown field; did you mean 'x'?".
BUDCORE_API Error unknown_key(std::string_view parent, std::string_view key, std::span<const std::string_view> known);

// The first key of `map` not in `known` as unknown_key(parent, ...); ok when every key is known.
BUDCORE_API Status check_keys(const Map& map, std::span<const std::string_view> known, std::string_view parent = {});

}  // namespace budcore::core
