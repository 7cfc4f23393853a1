// budcore::core UTF-8 validation: every text budcore keeps must be valid UTF-8, so bad bytes
// are refused where text enters (the C ABI, YAML parsing; the JSON parser checks strings itself).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "budcore/export.h"

namespace budcore::core {

// The offset of the first byte that does not start a well-formed UTF-8 sequence (truncated,
// overlong forms, surrogates and values past U+10FFFF included), or nullopt when all of
// `text` is UTF-8.
BUDCORE_API std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept;

}  // namespace budcore::core
