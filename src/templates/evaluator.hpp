// Tree-walking evaluator over the compiled AST, with Python's semantics for every operator
// and the sandbox limits. Failures unwind as RenderFailure, caught at the Template API
// boundary and returned as a TemplateError (they never leave src/templates).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/core/limits.hpp"
#include "budcore/templates/template.hpp"
#include "templates/ast.hpp"
#include "templates/rvalue.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

struct RenderFailure {
  TemplateError error;
};

[[noreturn]] void raise(ErrorKind kind, std::string message, const Expr* at = nullptr);

struct CallArgs {
  Items pos;
  std::vector<std::string_view> kw_names;
  Items kw;
  // Positional i, else keyword `name`; nullptr when neither was given.
  const RValue* get(std::size_t i, std::string_view name) const {
    if (i < pos.size()) return &pos[i];
    for (std::size_t k = 0; k < kw_names.size(); ++k)
      if (kw_names[k] == name) return &kw[k];
    return nullptr;
  }
};

// Python type name as error messages print it: 'int', 'str', 'NoneType', 'dict'...
std::string_view type_name(const RValue& v) noexcept;

struct Evaluator {
  Evaluator(const core::Value& ctx, const Limits& lim) : context(ctx), limits(lim), budget(lim.max_alloc_bytes, lim.max_output_bytes) {}
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;
  // Breaks reference cycles through namespaces (`{% set ns.a = ns %}`) so they are freed.
  ~Evaluator();

  const core::Value& context;
  const Limits& limits;
  AllocBudget budget;  // this render's allocation budget, installed for the thread
  std::uint64_t steps = 0;
  std::uint64_t loop_iterations = 0;
  int depth = 0;
  int value_depth = 0;  // nesting of the values equal()/less() are comparing
  // Recursion stops with SecurityError before the thread's stack runs out.
  std::uintptr_t stack_floor = core::stack_floor();
  // Every namespace() made by this render: the only mutable values, so the only way to a cycle.
  std::vector<std::weak_ptr<Dict>> namespaces;
  // Set by a Dashed node whose key is absent; the enclosing Choice then evaluates the plain
  // Jinja2 reading.
  bool dash_missed = false;
  // Native rendering bookkeeping: number of output pieces and the first one.
  bool native = false;
  int pieces = 0;
  RValue first_piece;

  // Local variables (loop targets, set, with, macro parameters), innermost last. Each frame
  // (a loop, a with block, a macro call) starts a region of them; region 0 is the template's
  // top level and region r > 0 starts at frames[r - 1].start. A name is looked up in its own
  // region, then in the region's parent: the one below for loops and with blocks, the region a
  // macro was defined in for a macro call (Jinja2's lexical scoping).
  struct Frame {
    std::size_t start;
    std::size_t parent;  // region where lookup continues
  };
  std::vector<std::pair<std::string_view, RValue>> locals;
  std::vector<Frame> frames;
  void push_frame(std::size_t parent) { frames.push_back({locals.size(), parent}); }
  void pop_frame() {
    locals.resize(frames.back().start);
    frames.pop_back();
  }
  // Set by {% break %} / {% continue %}; statements unwind to their loop, which clears it.
  enum class LoopControl : std::uint8_t { None, Break, Continue };
  LoopControl loop_control = LoopControl::None;

  // False when a statement failed without unwinding (an undefined value printed, the common
  // failure); the error is then in `failure`. Deeper failures unwind as RenderFailure.
  [[nodiscard]] bool exec(const Body& body, std::string& out);
  TemplateError failure;
  RValue eval(const Expr& e);

  // Python semantics shared with the builtins.
  bool truthy(const RValue& v, const Expr* at);
  void require_defined(const RValue& v, const Expr* at);
  bool equal(const RValue& a, const RValue& b, const Expr* at);
  // a < b; TypeError for unorderable types.
  bool less(const RValue& a, const RValue& b, const Expr* at);
  bool contains(const RValue& container, const RValue& item, const Expr* at);
  Items iterate(const RValue& v, const Expr* at);
  RValue getattr(const RValue& obj, std::string_view name, const Expr* at);
  RValue getitem(const RValue& obj, const RValue& key, const Expr* at);
  // Jinja2's attribute getter for filter arguments: "a.b.0".
  RValue get_path(const RValue& obj, std::string_view path, const Expr* at);
  RValue call(const RValue& callee, const CallArgs& args, const Expr* at);
  void check_size(std::size_t bytes, const Expr* at) const;
  void tick(const Expr* at) {
    if (++steps > limits.max_steps) raise(ErrorKind::Security, "evaluation step limit exceeded", at);
  }

 private:
  bool equal_nested(const RValue& a, const RValue& b, const Expr* at);
  RValue lookup(const Expr& e);
  // The local `name` as seen from the current scope (lexically), nullptr when none.
  const RValue* find_local(std::string_view name) const;
  RValue binary(const Expr& e);
  RValue compare(const Expr& e);
  RValue slice(const Expr& e);
  RValue call_expr(const Expr& e);
  RValue filter_expr(const Expr& e);
  void collect_args(const Expr& e, std::size_t first, CallArgs& args);
  void set_local(std::string_view name, RValue v);
  void assign_targets(const std::vector<std::string>& targets, RValue v, const Expr* at);
  bool exec_for(const Stmt& s, std::string& out);
  bool exec_with(const Stmt& s, std::string& out);
  bool exec_filter_block(const Stmt& s, std::string& out);
  bool exec_call_block(const Stmt& s, std::string& out);
  RValue call_macro(const Method& m, const CallArgs& args, const Expr* at);
  // Renders `body` to a string (never natively), as a set block, filter block or macro does.
  bool capture(const Body& body, std::string& out);
  bool emit(const RValue& v, std::string& out, const Expr* at);
};

// Arithmetic with Python's rules (int vs float, floor division and modulo signs, **).
RValue py_binary(Evaluator& ev, ExprKind op, const RValue& a, const RValue& b, const Expr* at);
// printf-style `fmt % args` as Python does it for str.
std::string py_percent_format(Evaluator& ev, std::string_view fmt, const RValue& args, const Expr* at);
// Methods of str, dict and list reachable from templates (`x.split(',')`).
bool has_method(const RValue& self, std::string_view name);
RValue call_method(Evaluator& ev, const RValue& self, std::string_view name, const CallArgs& args, const Expr* at);

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
