// budcore.Error and its subclasses, one per core::ErrorCode, plus the translator that raises
// them. Subclasses also derive from the matching builtin (ValidationError is a ValueError,
// NotFoundError a KeyError, ...) so generic Python code catches them as it expects.
#include <Python.h>
#include <pybind11/stl.h>

#include <array>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "casters.hpp"
#include "errors.hpp"

namespace budcore::bindings {
namespace {

using core::ErrorCode;

constexpr std::size_t kCodes = static_cast<std::size_t>(ErrorCode::Gone) + 1;

// Borrowed for the life of the process: the module keeps a reference to each class, and
// Python never unloads extension modules.
PyObject* g_base = nullptr;
std::array<PyObject*, kCodes> g_by_code{};

PyObject* make_class(py::module_& m, const char* name, const char* doc, py::tuple bases) {
  std::string qualified = std::string("budcore.") + name;
  py::dict attrs;
  attrs["__module__"] = "budcore";
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), attrs.ptr());
  if (cls == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(cls));  // steals nothing: add_object increfs
  return cls;
}

PyObject* class_for(ErrorCode code) {
  auto i = static_cast<std::size_t>(code);
  if (i < kCodes && g_by_code[i] != nullptr) return g_by_code[i];
  return g_base;
}

py::object str_or_none(const std::string& s) { return s.empty() ? py::object(py::none()) : py::object(py::str(s)); }

void raise(const core::Error& e) {
  py::object exc = make_exception(e);
  PyErr_SetObject(class_for(e.code), exc.ptr());
}

// One problem a line, the first first: str() of an exception shows every problem of the input.
std::string describe_all(const core::Error& e) {
  std::string out = e.describe();
  if (e.others.empty()) return out;
  out = std::to_string(1 + e.others.size()) + " problems:\n  " + out;
  for (const auto& o : e.others) out += "\n  " + o.describe();
  return out;
}

}  // namespace

std::vector<py::dict> error_dicts(const std::vector<core::Error>& problems) {
  std::vector<py::dict> out;
  out.reserve(problems.size());
  for (const auto& e : problems) {
    py::dict d = to_python(core::to_value(e));
    d.attr("setdefault")("value", py::none());  // Python readers get the key, None when unknown
    out.push_back(std::move(d));
  }
  return out;
}

py::object make_exception(const core::Error& full) {
  // A 48 MB offending value is quoted by its first bytes and its length.
  const core::Error e = core::clamp_for_display(full);
  py::object exc = py::reinterpret_borrow<py::object>(class_for(e.code))(describe_all(e));
  exc.attr("code") = py::str(std::string(core::to_string(e.code)));
  exc.attr("message") = py::str(e.message);
  exc.attr("field") = str_or_none(e.field);
  exc.attr("value") = str_or_none(e.value);
  if (e.code == core::ErrorCode::RateLimited) exc.attr("retry_after") = static_cast<double>(e.retry_after_ms) / 1000.0;
  exc.attr("errors") = py::cast(error_dicts(e.all_problems()));
  return exc;
}

void raise_with_errors(const core::Error& first, py::list errors) {
  py::object exc = make_exception(first);
  exc.attr("errors") = std::move(errors);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

void bind_errors(py::module_& m) {
  py::object exception = py::reinterpret_borrow<py::object>(PyExc_Exception);
  g_base = make_class(m, "Error",
                      "Base of every budcore error. Attributes: code (str, e.g. 'invalid'), "
                      "message (str), field (path of the offending input or None), value "
                      "(the offending value as given, or None), errors (every problem of the input as dicts "
                      "{'code', 'message', 'path', 'value'}, this one first; str() lists them one a line).",
                      py::make_tuple(exception));
  py::object base = py::reinterpret_borrow<py::object>(g_base);
  // Class-level defaults so an Error raised from Python code still has the attributes.
  base.attr("code") = "internal";
  base.attr("message") = "";
  base.attr("field") = py::none();
  base.attr("value") = py::none();
  base.attr("errors") = py::list();

  auto sub = [&](ErrorCode code, const char* name, const char* doc, py::tuple bases) {
    PyObject* cls = make_class(m, name, doc, std::move(bases));
    g_by_code[static_cast<std::size_t>(code)] = cls;
    // ValidationError("bad") raised from Python code says "invalid", not the base's "internal".
    py::handle(cls).attr("code") = std::string(core::to_string(code));
  };
  auto builtin = [](PyObject* p) { return py::reinterpret_borrow<py::object>(p); };
  sub(ErrorCode::Invalid, "ValidationError", "Input fails validation; .field names it.",
      py::make_tuple(base, builtin(PyExc_ValueError)));
  sub(ErrorCode::NotFound, "NotFoundError", "A named object does not exist.",
      py::make_tuple(base, builtin(PyExc_KeyError)));
  // KeyError's str() quotes its argument; a budcore error reads as a sentence.
  py::handle(g_by_code[static_cast<std::size_t>(ErrorCode::NotFound)])
      .attr("__str__") = builtin(PyExc_BaseException).attr("__str__");
  sub(ErrorCode::Conflict, "ConflictError", "Lost a compare-and-set or an illegal state transition.",
      py::make_tuple(base));
  py::object conflict = builtin(g_by_code[static_cast<std::size_t>(ErrorCode::Conflict)]);
  sub(ErrorCode::AlreadyExists, "AlreadyExistsError", "Create of an object that already exists.",
      py::make_tuple(conflict));
  sub(ErrorCode::QuotaExceeded, "QuotaExceededError", "Admission denied by quota.", py::make_tuple(base));
  sub(ErrorCode::BudgetExceeded, "BudgetExceededError", "Denied by a budget.", py::make_tuple(base));
  sub(ErrorCode::Overflow, "ArithmeticOverflowError",
      "An exact result (Quantity, Money) does not fit its representation.",
      py::make_tuple(base, builtin(PyExc_OverflowError)));
  sub(ErrorCode::Unsupported, "UnsupportedError", "Valid input that budcore does not handle.",
      py::make_tuple(base, builtin(PyExc_NotImplementedError)));
  sub(ErrorCode::Security, "SecurityError",
      "Refused by a security rule: a role the caller lacks, a tenant policy, a sandbox limit.",
      py::make_tuple(base));
  sub(ErrorCode::RateLimited, "RateLimitedError",
      "Too many requests now; .retry_after is the number of seconds after which a retry may succeed.",
      py::make_tuple(base));
  py::handle(g_by_code[static_cast<std::size_t>(ErrorCode::RateLimited)]).attr("retry_after") = 0.0;
  sub(ErrorCode::NotLeader, "NotLeaderError",
      "A write only the leader may make, by a replica that no longer leads; .value is the current epoch.",
      py::make_tuple(base));
  sub(ErrorCode::Gone, "GoneError",
      "What was asked for was removed by retention (a watch cursor before the event log's start); "
      ".value is the oldest seq to resume after. Relist and watch from now.",
      py::make_tuple(base));
  sub(ErrorCode::Io, "IoError", "File, database or network failure.",
      py::make_tuple(base, builtin(PyExc_OSError)));
  sub(ErrorCode::Internal, "InternalError", "A bug in budcore: an invariant did not hold.",
      py::make_tuple(base, builtin(PyExc_RuntimeError)));

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const PyError& e) {
      raise(e.error());
    } catch (const core::BadResultAccess& e) {
      // Reading the value of a failed Result is a bug, but its error still says what happened.
      raise(e.error());
    }
  });
}

}  // namespace budcore::bindings
