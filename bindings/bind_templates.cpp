// budcore.Template and budcore.render over budcore::templates::Template: Jinja2 semantics with
// strict undefined; native=True returns typed values like Jinja2's NativeEnvironment.
//
// Failures raise budcore.TemplateError (a budcore.Error) or the subclass for the Jinja2
// exception it corresponds to, with .kind ("UndefinedError", ...), .line and .column:
//   TemplateError
//   +- TemplateSyntaxError            +- TemplateAssertionError (unknown filter or test)
//   +- TemplateRuntimeError           +- UndefinedError, TemplateSecurityError (also SecurityError)
//   +- TemplateTypeError (TypeError), TemplateValueError (ValueError),
//      TemplateZeroDivisionError (ZeroDivisionError)
// Compiling and rendering release the GIL; render_many renders a whole batch without it.
#include <Python.h>
#include <pybind11/stl.h>

#include <array>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "budcore/templates/template.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

namespace budcore::bindings {
namespace {

using templates::ErrorKind;
using templates::Template;
using templates::TemplateError;

struct TemplateFailure : std::exception {
  explicit TemplateFailure(TemplateError e) : error(std::move(e)) {}
  const char* what() const noexcept override { return "template error"; }
  TemplateError error;
};

constexpr std::size_t kKinds = static_cast<std::size_t>(ErrorKind::Value) + 1;
// Borrowed for the life of the process (the module holds a reference to each class).
PyObject* g_template_error = nullptr;
std::array<PyObject*, kKinds> g_by_kind{};

PyObject* new_class(py::module_& m, const char* name, const char* doc, const py::tuple& bases) {
  std::string qualified = std::string("budcore.") + name;
  py::dict attrs;
  attrs["__module__"] = "budcore";
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), attrs.ptr());
  if (cls == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(cls));
  return cls;
}

void raise_template_error(const TemplateError& e) {
  auto i = static_cast<std::size_t>(e.kind);
  PyObject* cls = i < kKinds && g_by_kind[i] != nullptr ? g_by_kind[i] : g_template_error;
  core::Error err = e.to_error();
  py::object exc = py::reinterpret_borrow<py::object>(cls)(err.describe());
  exc.attr("code") = py::str(std::string(core::to_string(err.code)));
  exc.attr("message") = py::str(err.message);
  exc.attr("field") = err.field.empty() ? py::object(py::none()) : py::object(py::str(err.field));
  exc.attr("value") = py::none();
  exc.attr("kind") = py::str(std::string(templates::to_string(e.kind)));
  exc.attr("line") = e.line;
  exc.attr("column") = e.column;
  PyErr_SetObject(cls, exc.ptr());
}

void bind_template_errors(py::module_& m) {
  py::object base = m.attr("Error");
  auto cls = [](PyObject* p) { return py::reinterpret_borrow<py::object>(p); };
  g_template_error = new_class(m, "TemplateError",
                               "A template failed to compile or render. Attributes beyond budcore.Error: kind "
                               "(the Jinja2 exception name, e.g. 'UndefinedError'), line and column (1-based, "
                               "0 when unknown).",
                               py::make_tuple(base));
  py::object te = cls(g_template_error);
  te.attr("kind") = "TemplateError";
  te.attr("line") = 0;
  te.attr("column") = 0;
  auto kind = [&](ErrorKind k, const char* name, const char* doc, const py::tuple& bases) {
    PyObject* c = new_class(m, name, doc, bases);
    g_by_kind[static_cast<std::size_t>(k)] = c;
    return cls(c);
  };
  py::object syntax = kind(ErrorKind::TemplateSyntax, "TemplateSyntaxError", "The template does not parse.",
                           py::make_tuple(te));
  kind(ErrorKind::TemplateAssertion, "TemplateAssertionError", "Unknown filter or test.", py::make_tuple(syntax));
  py::object runtime = kind(ErrorKind::TemplateRuntime, "TemplateRuntimeError", "A failure while rendering.",
                            py::make_tuple(te));
  kind(ErrorKind::Undefined, "UndefinedError", "The template read an undefined variable or attribute.",
       py::make_tuple(runtime));
  kind(ErrorKind::Security, "TemplateSecurityError", "A sandbox limit was hit while rendering.",
       py::make_tuple(runtime, m.attr("SecurityError")));
  kind(ErrorKind::Type, "TemplateTypeError", "An operation on values of the wrong type.",
       py::make_tuple(te, cls(PyExc_TypeError)));
  kind(ErrorKind::Value, "TemplateValueError", "An argument with the right type but a bad value.",
       py::make_tuple(te, cls(PyExc_ValueError)));
  kind(ErrorKind::ZeroDivision, "TemplateZeroDivisionError", "Division or modulo by zero.",
       py::make_tuple(te, cls(PyExc_ZeroDivisionError)));

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const TemplateFailure& f) {
      raise_template_error(f.error);
    }
  });
}

core::Value context_of(const py::object& context, const py::kwargs& kwargs) {
  core::Value ctx = context.is_none() ? core::Value(core::Map{}) : to_value(context, "context");
  if (!ctx.is_map()) throw PyError(core::Error::invalid("context", "", "must be a dict"));
  for (auto item : kwargs) ctx.mutable_map().set(py::cast<std::string>(item.first), to_value(item.second, "context"));
  return ctx;
}

Template compile(const std::string& text) {
  Template t;
  TemplateError err;
  bool ok;
  {
    py::gil_scoped_release release;
    ok = Template::compile(text, t, err);
  }
  if (!ok) throw TemplateFailure(std::move(err));
  return t;
}

// Renders one context without the GIL held (the caller released it). False on failure.
bool render_one(const Template& t, const core::Value& ctx, bool native, core::Value& out, TemplateError& err) {
  if (native) return t.render_native(ctx, out, err);
  std::string text;
  if (!t.render(ctx, text, err)) return false;
  out = core::Value(std::move(text));
  return true;
}

py::object render(const Template& t, const py::object& context, bool native, const py::kwargs& kwargs) {
  core::Value ctx = context_of(context, kwargs);
  core::Value out;
  TemplateError err;
  bool ok;
  {
    py::gil_scoped_release release;
    ok = render_one(t, ctx, native, out, err);
  }
  if (!ok) throw TemplateFailure(std::move(err));
  return to_python(out);
}

py::list render_many(const Template& t, const py::typing::Iterable<JsonDict>& contexts, bool native) {
  std::vector<core::Value> ctxs;
  for (auto c : contexts) {
    std::string path = "contexts[" + std::to_string(ctxs.size()) + "]";
    core::Value v = to_value(c, path);
    if (!v.is_map()) throw PyError(core::Error::invalid(path, "", "must be a dict"));
    ctxs.push_back(std::move(v));
  }
  std::vector<core::Value> outs(ctxs.size());
  TemplateError err;
  bool ok = true;
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < ctxs.size() && ok; ++i) ok = render_one(t, ctxs[i], native, outs[i], err);
  }
  if (!ok) throw TemplateFailure(std::move(err));
  py::list result;
  for (const auto& o : outs) result.append(to_python(o));
  return result;
}

}  // namespace

namespace {

// The positional-only parameters of the render calls, checked as Python would.
std::string text_arg(const py::args& args, const char* fn) {
  if (args.empty() || !py::isinstance<py::str>(args[0]))
    throw py::type_error(std::string(fn) + "() takes the template text (a str) as its first positional argument");
  if (args.size() > 2) throw py::type_error(std::string(fn) + "() takes at most 2 positional arguments (text, context)");
  return args[0].cast<std::string>();
}

py::object context_arg(const py::args& args, std::size_t at, const char* fn) {
  if (args.size() > at + 1)
    throw py::type_error(std::string(fn) + "() takes at most " + std::to_string(at + 1) + " positional argument(s)");
  return args.size() > at ? py::reinterpret_borrow<py::object>(args[at]) : py::object(py::none());
}

}  // namespace

void bind_templates(py::module_& m) {
  bind_template_errors(m);

  py::class_<Template>(m, "Template",
                       "A compiled Jinja2-compatible template (strict undefined, sandboxed). Compile "
                       "once, render many times; rendering releases the GIL.")
      .def(py::init(&compile), py::arg("source"), "Compiles a Jinja2-compatible template; TemplateSyntaxError names the line and column.")
      .def(
          "render",
          [](const Template& t, const py::args& args, const py::kwargs& kwargs) {
            return hinted<py::str>(render(t, context_arg(args, 0, "Template.render"), false, kwargs));
          },
          "render(context=None, /, **kwargs) -> str\n\nRender to text exactly as Jinja2 would. Context "
          "variables come as a dict, as keyword arguments, or both (keywords win); `context` is "
          "positional-only, so any name can be a variable.")
      .def(
          "render_native",
          [](const Template& t, const py::args& args, const py::kwargs& kwargs) {
            return render(t, context_arg(args, 0, "Template.render_native"), true, kwargs);
          },
          "render_native(context=None, /, **kwargs)\n\nEvaluate like NativeEnvironment: typed result.")
      .def("render_many", &render_many, py::arg("contexts"), py::arg("native") = false,
           "Render once per context (a batch, without the GIL); raises on the first failure.")
      .def("references", &Template::references,
           "Context paths the template reads, e.g. ['steps.step-1.outputs.config'].")
      .def_property_readonly("is_single_expression", &Template::is_single_expression, "True when the template is one '{{ expression }}' (render_native returns its value).");

  // text and context are positional-only and there is no mode flag among the keywords, so every
  // keyword is a context variable: render("{{ native }}", native="yes") gives "yes". (*args,
  // because pybind11 refuses a keyword named like a positional-only parameter.)
  m.def(
      "render",
      [](const py::args& args, const py::kwargs& kwargs) {
        return hinted<py::str>(render(compile(text_arg(args, "render")), context_arg(args, 1, "render"), false, kwargs));
      },
      "render(text, context=None, /, **kwargs) -> str\n\nCompile and render a template to text in one "
      "call (see Template.render).");
  m.def(
      "render_native",
      [](const py::args& args, const py::kwargs& kwargs) {
        return render(compile(text_arg(args, "render_native")), context_arg(args, 1, "render_native"), true, kwargs);
      },
      "render_native(text, context=None, /, **kwargs)\n\nCompile and evaluate a template like "
      "NativeEnvironment in one call (see Template.render_native).");
}

}  // namespace budcore::bindings
