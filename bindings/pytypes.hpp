// The Python types the stubs (python/budcore/_core.pyi) show for arguments and results that the
// bindings take or build as plain Python objects, which pybind11 would show as typing.Any.
// They only name the type: an argument is accepted as any object and the bound function checks
// it as before; a result is the object built, unchanged.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/typing.h>

namespace budcore::bindings {

namespace py = pybind11;

inline bool is_any_object(PyObject* /*obj*/) { return true; }

// A Python object the stubs call `Name`, a type expression ("str | uuid.UUID").
template <py::typing::StringLiteral Name>
class Hinted : public py::object {
  PYBIND11_OBJECT_DEFAULT(Hinted, py::object, is_any_object)
  using object::object;
};

// The object `obj` under the stub name of T (a Hinted or a py::typing container), unconverted.
template <class T>
T hinted(py::object obj) {
  return py::reinterpret_steal<T>(obj.release());
}

// Arguments.
using IdArg = Hinted<"str | uuid.UUID">;  // id_of() reads it
using OptionalIdArg = Hinted<"str | uuid.UUID | None">;
using PathArg = Hinted<"str | os.PathLike[str]">;  // os.fspath() reads it
using OptionalPathArg = Hinted<"str | os.PathLike[str] | None">;
using JobArg = Hinted<"Job | dict[str, builtins.object]">;  // a budcore.Job or its dict
using AnyObjectArg = Hinted<"builtins.object">;  // any object the bound function converts or rejects itself

// (pybind11-stubgen turns a bare `object` into typing.Any: argument hints say builtins.object.)
// JSON values and objects: values of several types (a record's fields, or a document's free-form
// content), budcore.types.JsonValue in the stubs.
using JsonValueResult = Hinted<"budcore.types.JsonValue">;
using JsonDict = py::typing::Dict<py::str, JsonValueResult>;
using JsonDictList = py::typing::List<JsonDict>;
using JsonDictListArg = Hinted<"list[dict[str, builtins.object]]">;
// A JSON object argument the bound function checks itself (its TypeError names the function).
using JsonDictArg = Hinted<"dict[str, builtins.object]">;
using OptionalJsonDictArg = Hinted<"dict[str, builtins.object] | None">;
// A JSON object or its text.
using JsonDocArg = Hinted<"dict[str, builtins.object] | str">;
using OptionalJsonDocArg = Hinted<"dict[str, builtins.object] | str | None">;

// Results: typed_result() classes and other library types built in Python.
using PlanResult = Hinted<"budcore.results.Plan">;
using RunResult = Hinted<"budcore.results.RunResult">;
using JobPageResult = Hinted<"budcore.results.JobPage">;
using Decimal = Hinted<"decimal.Decimal">;
using ErrorObject = Hinted<"Error">;  // an instance of budcore.Error or the subclass of its code
using ScheduleSnapshotResult = Hinted<"ScheduleSnapshot">;
using QuantityFormatEnum = Hinted<"budcore.enums.QuantityFormat">;

}  // namespace budcore::bindings

namespace pybind11::detail {

template <typing::StringLiteral Name>
struct handle_type_name<budcore::bindings::Hinted<Name>> {
  static constexpr auto name = const_name(Name.name);
};

}  // namespace pybind11::detail
