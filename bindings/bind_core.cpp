// budcore.Quantity, budcore.Money, the JSON helpers and the version.
#include <Python.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "budcore/budcore.h"
#include "budcore/core/json.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

namespace budcore::bindings {
namespace {

using core::int128;
using core::Money;
using core::Quantity;

// Python has no 128-bit integer conversion in its stable API; go through the decimal text.
py::int_ int128_to_py(int128 v) {
  return py::reinterpret_steal<py::int_>(PyLong_FromString(core::to_decimal_string(v).c_str(), nullptr, 10));
}

const char* format_name(core::QuantityFormat f) {
  switch (f) {
    case core::QuantityFormat::DecimalSI: return "DecimalSI";
    case core::QuantityFormat::BinarySI: return "BinarySI";
    case core::QuantityFormat::DecimalExponent: return "DecimalExponent";
  }
  return "DecimalSI";
}

bool is_int(py::handle h) { return PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr()); }

using QuantityArg = Hinted<"str | int | Quantity">;
using AmountArg = Hinted<"str | int | decimal.Decimal">;

Quantity make_quantity(const QuantityArg& v) {
  if (py::isinstance<py::str>(v)) return unwrap(Quantity::parse(v.cast<std::string>()));
  if (is_int(v)) return Quantity::from_int(v.cast<std::int64_t>());
  if (py::isinstance<Quantity>(v)) return v.cast<Quantity>();
  throw py::type_error("Quantity() takes a str such as '500m' or an int, not " +
                       py::type::handle_of(v).attr("__name__").cast<std::string>());
}

// Exact decimal text of an amount given as str, int or decimal.Decimal; floats are refused
// because they are not exact.
std::string amount_text(const py::object& amount) {
  if (py::isinstance<py::str>(amount)) return amount.cast<std::string>();
  if (is_int(amount)) return py::str(amount).cast<std::string>();
  py::object decimal = py::module_::import("decimal").attr("Decimal");
  if (py::isinstance(amount, decimal)) return py::str(py::module_::import("builtins").attr("format")(amount, "f"));
  if (PyFloat_Check(amount.ptr())) throw py::type_error("Money amounts must be exact: pass a str or Decimal, not a float");
  throw py::type_error("Money amount must be a str, int or Decimal, not " +
                       py::type::handle_of(amount).attr("__name__").cast<std::string>());
}

Money make_money(const AmountArg& amount, const std::optional<std::string>& currency) {
  if (!currency) {
    if (!py::isinstance<py::str>(amount)) throw py::type_error("Money('12.34 USD') or Money(amount, currency)");
    return unwrap(Money::parse(amount.cast<std::string>()));
  }
  return unwrap(Money::parse(amount_text(amount), *currency));
}

void require_same_currency(const Money& a, const Money& b) {
  if (a.currency() != b.currency())
    throw PyError(core::Error::invalid("currency", b.currency(),
                                       "cannot compare " + a.currency() + " with " + b.currency()));
}

void bind_quantity(py::module_& m) {
  py::class_<Quantity>(m, "Quantity",
                       "A Kubernetes resource quantity ('500m', '2Gi', '1e3'), exact to 1n.")
      .def(py::init(&make_quantity), py::arg("value") = py::str("0"), "A quantity from text ('500m', '2Gi'), an int (units) or another Quantity.")
      .def_static("parse", [](const std::string& s) { return unwrap(Quantity::parse(s)); }, py::arg("text"), "Parses a Kubernetes quantity ('500m', '2Gi', '1e3'); ValidationError names the text.")
      .def_static("from_int", [](std::int64_t u) { return Quantity::from_int(u); }, py::arg("units"), "A quantity of `units` whole units.")
      .def_static("from_milli", &Quantity::from_milli, py::arg("milli"), "A quantity of `milli` thousandths of a unit.")
      .def_property_readonly("value", [](const Quantity& q) { return unwrap(q.value()); },
                             "Whole units, rounded up (Kubernetes Value()).")
      .def_property_readonly("milli_value", [](const Quantity& q) { return unwrap(q.milli_value()); },
                             "Milli-units, rounded up (Kubernetes MilliValue()).")
      .def_property_readonly("nano", [](const Quantity& q) { return int128_to_py(q.nano()); },
                             "The exact amount in nano-units.")
      .def_property_readonly(
          "format",
          [](const Quantity& q) {
            std::string name(format_name(q.format()));
            return hinted<QuantityFormatEnum>(py::module_::import("budcore.enums").attr("QuantityFormat")(name));
          },
          "How the text was written, a budcore.QuantityFormat: 'DecimalSI', 'BinarySI' or 'DecimalExponent'.")
      .def_property_readonly("is_zero", &Quantity::is_zero, "True for a zero quantity.")
      .def_property_readonly("sign", &Quantity::sign, "-1, 0 or 1.")
      .def("__str__", &Quantity::to_string)
      .def("__repr__", [](const Quantity& q) { return "Quantity('" + q.to_string() + "')"; })
      .def("__bool__", [](const Quantity& q) { return !q.is_zero(); })
      .def("__hash__", [](const Quantity& q) { return py::hash(int128_to_py(q.nano())); })
      .def("__eq__", [](const Quantity& a, const Quantity& b) { return a == b; }, py::is_operator())
      .def("__ne__", [](const Quantity& a, const Quantity& b) { return a != b; }, py::is_operator())
      .def("__lt__", [](const Quantity& a, const Quantity& b) { return a < b; }, py::is_operator())
      .def("__le__", [](const Quantity& a, const Quantity& b) { return a <= b; }, py::is_operator())
      .def("__gt__", [](const Quantity& a, const Quantity& b) { return a > b; }, py::is_operator())
      .def("__ge__", [](const Quantity& a, const Quantity& b) { return a >= b; }, py::is_operator())
      .def("__add__", [](const Quantity& a, const Quantity& b) { return unwrap(a.checked_add(b)); },
           py::is_operator())
      .def("__sub__", [](const Quantity& a, const Quantity& b) { return unwrap(a.checked_sub(b)); },
           py::is_operator())
      .def("__mul__", [](const Quantity& a, std::int64_t k) { return unwrap(a.checked_mul(k)); },
           py::is_operator())
      .def("__rmul__", [](const Quantity& a, std::int64_t k) { return unwrap(a.checked_mul(k)); },
           py::is_operator())
      .def("__neg__", &Quantity::negated)
      .def(py::pickle([](const Quantity& q) { return py::make_tuple(q.to_string()); },
                      [](const py::tuple& t) { return unwrap(Quantity::parse(t[0].cast<std::string>())); }));
}

void bind_money(py::module_& m) {
  py::class_<Money>(m, "Money",
                    "An exact amount of an ISO 4217 currency (fixed point, 12 decimals). Never a float.")
      .def(py::init(&make_money), py::arg("amount"), py::arg("currency") = py::none(), "Money from an amount (str, int or Decimal) and an ISO 4217 currency ('USD' when omitted).")
      .def_static("parse", [](const std::string& s) { return unwrap(Money::parse(s)); }, py::arg("text"), "Parses '12.50 USD'; ValidationError names the text.")
      .def_static("zero", [](const std::string& c) { return unwrap(Money::zero(c)); }, py::arg("currency"), "Zero in `currency`.")
      .def_property_readonly("currency", &Money::currency, "The ISO 4217 currency code.")
      .def_property_readonly("amount", [](const Money& x) { return x.amount_string(); },
                             "The exact decimal amount as a str ('12.5').")
      .def_property_readonly("units", [](const Money& x) { return int128_to_py(x.units()); },
                             "The amount in 10^-12 of the currency unit.")
      .def_property_readonly("is_zero", &Money::is_zero, "True for a zero amount.")
      .def("amount_string", &Money::amount_string, py::arg("min_decimals") = 0, "The amount as decimal text with at least `min_decimals` decimals ('12.5', '12.50').")
      .def("to_decimal", [](const Money& x) { return hinted<Decimal>(py::module_::import("decimal").attr("Decimal")(x.amount_string())); }, "The amount as a decimal.Decimal, exactly.")
      .def("round", &Money::round_to, py::arg("decimals"), "Rounds half-to-even to `decimals` places (0..12).")
      .def("__str__", &Money::to_string)
      .def("__repr__", [](const Money& x) { return "Money('" + x.to_string() + "')"; })
      .def("__bool__", [](const Money& x) { return !x.is_zero(); })
      .def("__hash__", [](const Money& x) { return py::hash(py::make_tuple(int128_to_py(x.units()), x.currency())); })
      .def("__eq__", [](const Money& a, const Money& b) { return a == b; }, py::is_operator())
      .def("__ne__", [](const Money& a, const Money& b) { return a != b; }, py::is_operator())
      .def("__lt__", [](const Money& a, const Money& b) { require_same_currency(a, b); return a < b; }, py::is_operator())
      .def("__le__", [](const Money& a, const Money& b) { require_same_currency(a, b); return a <= b; }, py::is_operator())
      .def("__gt__", [](const Money& a, const Money& b) { require_same_currency(a, b); return a > b; }, py::is_operator())
      .def("__ge__", [](const Money& a, const Money& b) { require_same_currency(a, b); return a >= b; }, py::is_operator())
      .def("__add__", [](const Money& a, const Money& b) { return unwrap(a.checked_add(b)); }, py::is_operator())
      .def("__sub__", [](const Money& a, const Money& b) { return unwrap(a.checked_sub(b)); }, py::is_operator())
      .def("__mul__", [](const Money& a, std::int64_t k) { return unwrap(a.checked_mul(k)); }, py::is_operator())
      .def("__mul__", [](const Money& a, const Quantity& q) { return unwrap(a.checked_mul(q)); }, py::is_operator())
      .def("__rmul__", [](const Money& a, std::int64_t k) { return unwrap(a.checked_mul(k)); }, py::is_operator())
      .def("__rmul__", [](const Money& a, const Quantity& q) { return unwrap(a.checked_mul(q)); }, py::is_operator())
      .def("__neg__", [](const Money& a) { return unwrap(unwrap(Money::zero(a.currency())).checked_sub(a)); })
      .def(py::pickle([](const Money& x) { return py::make_tuple(x.amount_string(), x.currency()); },
                      [](const py::tuple& t) {
                        return unwrap(Money::parse(t[0].cast<std::string>(), t[1].cast<std::string>()));
                      }));
}

void bind_json(py::module_& m) {
  m.def(
      "to_json",
      [](const AnyObjectArg& obj, std::optional<int> indent, bool ensure_ascii) {
        core::Value v = to_value(obj);
        core::JsonOptions opts;
        opts.indent = indent.value_or(-1);
        opts.ensure_ascii = ensure_ascii;
        py::gil_scoped_release release;
        return core::to_json(v, opts);
      },
      py::arg("obj"), py::arg("indent") = py::none(), py::arg("ensure_ascii") = false,
      "Serialises None/bool/int/float/str/list/tuple/dict to JSON, keeping key order.");
  m.def(
      "parse_json",
      [](const std::string& text) {
        core::Result<core::Value> parsed = [&] {
          py::gil_scoped_release release;
          return core::parse_json(text);
        }();
        return hinted<JsonValueResult>(to_python(unwrap(std::move(parsed))));
      },
      py::arg("text"), "Parses JSON; integers stay int, key order is kept.");
}

}  // namespace

void bind_core(py::module_& m) {
  m.attr("__version__") = budcore_version_string();
  int major = 0, minor = 0, patch = 0;
  budcore_version(&major, &minor, &patch);
  m.attr("version_info") = py::make_tuple(major, minor, patch);
  bind_quantity(m);
  bind_money(m);
  bind_json(m);
}

}  // namespace budcore::bindings
