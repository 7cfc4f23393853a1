// budcore::templates::Template — a Jinja2-compatible template, compiled once, rendered many
// times over a core::Value context. Rendering is const and thread-safe.
//
// Semantics follow Jinja2's Environment(undefined=StrictUndefined) with its defaults
// (trim_blocks=False, lstrip_blocks=False, keep_trailing_newline=False); native rendering
// follows jinja2.nativetypes.NativeEnvironment. One extension: in a dotted path a key may
// contain '-' (`steps.step-1.outputs`) when the object holds that key (docs/templates.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/templates/fwd.hpp"

namespace budcore::templates {

// The Jinja2 exception class a failure corresponds to.
enum class ErrorKind : int {
  TemplateSyntax = 1,     // TemplateSyntaxError
  TemplateAssertion,      // TemplateAssertionError (unknown filter or test)
  Undefined,              // UndefinedError
  ZeroDivision,           // ZeroDivisionError
  Type,                   // TypeError
  TemplateRuntime,        // TemplateRuntimeError
  Security,               // SecurityError (a sandbox limit)
  Value,                  // ValueError (e.g. int('x', base) with a bad base)
};

// "UndefinedError", "TemplateSyntaxError", ... as Jinja2 names them.
BUDCORE_API std::string_view to_string(ErrorKind kind) noexcept;

// A compile or render failure. line/column are 1-based positions in the template text
// (0 when unknown).
struct BUDCORE_API TemplateError {
  ErrorKind kind = ErrorKind::TemplateRuntime;
  std::string message;
  int line = 0;
  int column = 0;

  // Maps to core::Error: syntax/assertion -> Invalid, sandbox -> Security, else Invalid;
  // field "template", message "<Kind>: <message> (line L, column C)".
  core::Error to_error() const;
};

// Sandbox limits; exceeding one raises SecurityError (docs/limits.md). Besides these, values
// nest at most core::kMaxValueDepth (512) levels when printed, compared or returned natively,
// and no recursion goes deeper than the thread's stack allows (a 1 MiB thread is enough).
struct Limits {
  std::size_t max_output_bytes = 16u << 20;        // rendered text and any built string
  std::uint64_t max_loop_iterations = 1'000'000;   // total for-loop iterations per render
  int max_nesting_depth = 64;                      // block and call nesting at render time
  std::int64_t max_range_length = 100'000;         // range() length (Jinja's sandbox MAX_RANGE)
  std::uint64_t max_steps = 50'000'000;            // evaluation steps per render
  std::size_t max_template_bytes = 4u << 20;       // compile input size
  int max_parse_depth = 200;                       // statement nesting and expression tree height at compile
  std::size_t max_alloc_bytes = 64u << 20;         // values built per render (lists, dicts, strings), charged before allocating
};

struct RenderOptions {
  Limits limits{};
};

class BUDCORE_API Template {
 public:
  // An empty template renders "" (and None natively); use compile() to make a real one.
  Template() = default;

  // Compiles a template. A failure carries kind TemplateSyntax or TemplateAssertion (Security
  // when the text exceeds limits.max_template_bytes).
  static core::Result<Template> compile(std::string_view text, const Limits& limits = {});
  // Same, reporting the failure as a TemplateError.
  static bool compile(std::string_view text, Template& out, TemplateError& error,
                      const Limits& limits = {});

  // Renders to text exactly as Jinja2 would.
  core::Result<std::string> render(const core::Value& context, const RenderOptions& options = {}) const;
  bool render(const core::Value& context, std::string& out, TemplateError& error,
              const RenderOptions& options = {}) const;

  // Evaluates like NativeEnvironment: a lone `{{ expr }}` keeps its type; anything else is
  // concatenated and read back as a Python literal when it is one.
  core::Result<core::Value> render_native(const core::Value& context,
                                          const RenderOptions& options = {}) const;
  bool render_native(const core::Value& context, core::Value& out, TemplateError& error,
                     const RenderOptions& options = {}) const;

  // Context paths the template reads, in first-use order, without duplicates:
  // "params.llm_model", "steps.step-1.outputs.config". Loop and set variables are excluded;
  // a path stops at the first non-constant subscript.
  std::vector<std::string> references() const;

  // True when the template is a single `{{ expr }}` (native mode then keeps the type).
  bool is_single_expression() const noexcept;

  struct Impl;  // the compiled AST (src/templates); shared, immutable, so copies are cheap

 private:
  explicit Template(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace budcore::templates
