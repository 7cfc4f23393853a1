// Private helper: ASCII character classes that do not depend on the C locale (std::isdigit
// does, and takes an int that must not be a negative char).
#pragma once

namespace budcore::core::detail {

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

}  // namespace budcore::core::detail
