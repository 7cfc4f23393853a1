// Python's format-spec mini-language for str.format ("{:>8.2f}").
#pragma once

#include <string>
#include <string_view>

#include "templates/rvalue.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

struct Evaluator;
struct Expr;

// Appends format(v, spec) as Python computes it for str, int, bool and float (any value with
// an empty spec: str(v)). Errors: ValueError for a bad spec or a code the type lacks,
// TypeError for a spec on another type, SecurityError for a width over 100000.
void append_formatted(Evaluator& ev, std::string& out, const RValue& v, std::string_view spec, const Expr* at);

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
