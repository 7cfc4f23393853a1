// Python's str() and repr() of template values, so output matches Jinja2 to the character:
// True/False/None, shortest round-trip float repr, quote choice of str repr, containers.
#pragma once

#include <string>
#include <string_view>

#include "templates/rvalue.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

// repr(float): "1.0", "0.30000000000000004", "1e+16", "1e-05", "inf", "nan".
void append_float_repr(std::string& out, double d);
// repr(str): quotes chosen like Python, escapes for control characters.
void append_str_repr(std::string& out, std::string_view s);
// str(v). Undefined prints as empty (callers raise first under strict undefined).
void append_str(std::string& out, const RValue& v);
void append_repr(std::string& out, const RValue& v);
// json.dumps(v, sort_keys=True, indent=indent) with Jinja2's htmlsafe escaping of <>&'.
// Returns false when a value has no JSON form (undefined, loop, method).
bool append_tojson(std::string& out, const RValue& v, int indent, int level = 0);

inline std::string py_str(const RValue& v) {
  if (v.kind() == RValue::T::Str) return std::string(v.s());
  std::string out;
  append_str(out, v);
  return out;
}

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
