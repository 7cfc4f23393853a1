// core::Value <-> Python objects.
//
// Python -> Value: None, bool, int (int64 range), float, str, list and tuple (as lists), dict
// with str keys (order kept). Anything else, a non-str key, an out-of-range int or nesting past
// kMaxDepth (a self-containing list) raises budcore.ValidationError whose .field is the path
// of the offending item ("spec.args[2]"). Value -> Python: the same types, maps as dicts in
// insertion order.
//
// The type_caster lets bound functions take and return core::Value directly; functions that
// want to name a parameter in the error path call to_value(obj, "param") themselves.
#pragma once

#include <pybind11/pybind11.h>

#include <string_view>

#include "budcore/core/id.hpp"
#include "budcore/core/value.hpp"

namespace budcore::bindings {

namespace py = pybind11;

inline constexpr int kMaxDepth = 256;

// Throws PyError (ErrorCode::Invalid) naming the path of what cannot be converted.
core::Value to_value(py::handle obj, std::string_view path = {});
py::object to_python(const core::Value& value);
// to_python(value) as a budcore.results record ("Plan", "RunResult", "JobPage"): the class's
// from_dict, a frozen dataclass with typed fields, to_dict(), rows(), to_pandas() and an HTML view.
py::object typed_result(const char* cls, const core::Value& value);
// A UUID argument (a str or uuid.UUID): core::Id::parse_field, raising ValidationError naming `what`.
core::Id id_of(const py::handle& obj, const char* what);

}  // namespace budcore::bindings

namespace pybind11::detail {

template <>
struct type_caster<budcore::core::Value> {
  PYBIND11_TYPE_CASTER(budcore::core::Value, const_name("object"));

  bool load(handle src, bool /*convert*/) {
    value = budcore::bindings::to_value(src);
    return true;
  }
  static handle cast(const budcore::core::Value& v, return_value_policy, handle) {
    return budcore::bindings::to_python(v).release();
  }
};

}  // namespace pybind11::detail
