#include "casters.hpp"

#include <Python.h>

#include <cstdint>
#include <string>

#include "budcore/core/error.hpp"
#include "errors.hpp"

namespace budcore::bindings {
namespace {

using core::Value;

[[noreturn]] void fail(std::string_view path, py::handle obj, std::string why) {
  std::string shown;
  try {
    shown = py::repr(obj).cast<std::string>();
  } catch (const py::error_already_set&) {
    shown = "<unprintable>";
  }
  if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
  throw PyError(core::Error::invalid(std::string(path), std::move(shown), std::move(why)));
}

std::string type_name(py::handle obj) { return py::type::handle_of(obj).attr("__name__").cast<std::string>(); }

Value from_int(py::handle obj, std::string_view path) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (overflow != 0) fail(path, obj, "integer does not fit in 64 bits");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return Value(v);
}

Value convert(py::handle obj, std::string_view path, int depth) {
  if (depth > kMaxDepth) fail(path, obj, "nesting is deeper than " + std::to_string(kMaxDepth) + " levels");
  PyObject* p = obj.ptr();
  if (p == Py_None) return Value();
  if (PyBool_Check(p)) return Value(p == Py_True);
  if (PyLong_Check(p)) return from_int(obj, path);
  if (PyFloat_Check(p)) return Value(PyFloat_AsDouble(p));
  if (PyUnicode_Check(p)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(p, &n);
    if (s == nullptr) {  // lone surrogates have no UTF-8 form
      PyErr_Clear();
      fail(path, obj, "string is not valid Unicode text");
    }
    return Value(std::string(s, static_cast<std::size_t>(n)));
  }
  if (PyList_Check(p) || PyTuple_Check(p)) {
    auto seq = py::reinterpret_borrow<py::sequence>(obj);
    core::List list;
    list.reserve(seq.size());
    std::size_t i = 0;
    for (py::handle item : seq) {
      list.push_back(convert(item, core::join_path(path, "[" + std::to_string(i) + "]"), depth + 1));
      ++i;
    }
    return Value(std::move(list));
  }
  if (PyDict_Check(p)) {
    core::Map map;
    for (auto [key, item] : py::reinterpret_borrow<py::dict>(obj)) {
      if (!PyUnicode_Check(key.ptr())) fail(path, key, "dict keys must be str, not " + type_name(key));
      Py_ssize_t n = 0;
      const char* k = PyUnicode_AsUTF8AndSize(key.ptr(), &n);
      if (k == nullptr) {
        PyErr_Clear();
        fail(path, key, "dict key is not valid Unicode text");
      }
      std::string name(k, static_cast<std::size_t>(n));
      Value v = convert(item, core::join_path(path, name), depth + 1);
      map.set(std::move(name), std::move(v));
    }
    return Value(std::move(map));
  }
  // int-like objects that are not int (numpy integers) convert through __index__.
  if (PyIndex_Check(p)) {
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(p));
    if (!i) throw py::error_already_set();
    return from_int(i, path);
  }
  fail(path, obj, "cannot convert a " + type_name(obj) +
                      " (expected None, bool, int, float, str, list, tuple or dict)");
}

}  // namespace

core::Value to_value(py::handle obj, std::string_view path) { return convert(obj, path, 0); }

py::object to_python(const core::Value& value) {
  switch (value.kind()) {
    case Value::Kind::Null: return py::none();
    case Value::Kind::Bool: return py::bool_(value.as_bool());
    case Value::Kind::Int: return py::int_(value.as_int());
    case Value::Kind::Float: return py::float_(value.as_float());
    case Value::Kind::String: return py::str(value.as_string());
    case Value::Kind::List: {
      const auto& items = value.as_list();
      py::list out(items.size());
      for (std::size_t i = 0; i < items.size(); ++i) out[i] = to_python(items[i]);
      return out;
    }
    case Value::Kind::Map: {
      py::dict out;
      for (const auto& [k, v] : value.as_map()) out[py::str(k)] = to_python(v);
      return out;
    }
  }
  return py::none();
}

core::Id id_of(const py::handle& obj, const char* what) {
  std::string text = py::str(obj).cast<std::string>();
  auto id = core::Id::parse_field(text, what);
  if (!id) throw PyError(std::move(id).error());
  return *id;
}

py::object typed_result(const char* cls, const core::Value& value) {
  return py::module_::import("budcore.results").attr(cls).attr("from_dict")(to_python(value));
}

}  // namespace budcore::bindings
