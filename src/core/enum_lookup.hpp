// Private helper: enum <-> name tables, names written lower-case and read in any letter case.
// Shared by the job and pipeline enums so every layer reports unknown names the same way.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "budcore/core/error.hpp"
#include "budcore/core/result.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::core::detail {

template <class E, std::size_t N>
using EnumNames = std::array<std::pair<E, std::string_view>, N>;

// ASCII-only: `lower` is a table name, already lower-case.
constexpr bool equals_ignoring_case(std::string_view text, std::string_view lower) noexcept {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

// "unknown <what>; expected one of a, b, c (any letter case)"; the field is left for the caller to set.
template <class E, std::size_t N>
Error unknown_enum_name(std::string_view text, const EnumNames<E, N>& names, std::string_view what) {
  std::string why = "unknown ";
  why += what;
  why += "; expected one of";
  for (std::size_t i = 0; i < N; ++i) {
    why += i == 0 ? " " : ", ";
    why += names[i].second;
  }
  why += " (any letter case)";
  return Error::invalid({}, std::string(text), std::move(why));
}

template <class E, std::size_t N>
Result<E> parse_enum(std::string_view text, const EnumNames<E, N>& names, std::string_view what) {
  for (const auto& [e, name] : names) {
    if (equals_ignoring_case(text, name)) return e;
  }
  return unknown_enum_name(text, names, what);
}

template <class E, std::size_t N>
constexpr std::string_view enum_name(E e, const EnumNames<E, N>& names) noexcept {
  for (const auto& [v, name] : names) {
    if (v == e) return name;
  }
  return "unknown";
}

}  // namespace budcore::core::detail

#pragma GCC visibility pop
