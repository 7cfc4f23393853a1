// Registries of filters and tests, looked up once at compile time.
#pragma once

#include <string_view>

#include "templates/ast.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

FilterFn find_filter(std::string_view name) noexcept;
TestFn find_test(std::string_view name) noexcept;

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
