// The compiled form of a template: an expression tree and a statement list. Filters and tests
// are resolved to function pointers at compile time, constants are stored as core::Values the
// evaluator borrows, so rendering does no name lookups for them and no copies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/value.hpp"
#include "budcore/templates/template.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::templates::detail {

class RValue;
struct Expr;
struct Evaluator;
using ExprPtr = std::unique_ptr<Expr>;

struct CallArgs;
using FilterFn = RValue (*)(Evaluator&, const Expr& node, RValue value, const CallArgs& args);
using TestFn = bool (*)(Evaluator&, const Expr& node, const RValue& value, const CallArgs& args);

enum class ExprKind : std::uint8_t {
  Const, Name, List, Tuple, Dict, Attr, Item, Slice, Call, Filter, Test,
  Neg, Pos, Not, Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Concat, And, Or, Compare, Cond,
  Dashed,  // `base.a-b`: the key "a-b" when base holds it; otherwise the enclosing Choice
           // falls back to the plain Jinja2 reading
  Choice,  // kids[0] read with dashed keys, kids[1] the plain reading
};

enum class CmpOp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };

struct Expr {
  Expr() = default;
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
  // Iterative: a tree as deep as the parser refuses is still freed without deep recursion.
  ~Expr();

  ExprKind kind = ExprKind::Const;
  int line = 0;
  int column = 0;
  core::Value constant;               // Const
  std::string name;                   // Name, Attr, Dashed key, Filter/Test name, kwarg names
  std::vector<ExprPtr> kids;          // operands; Call/Filter/Test: kids[0] is the subject
  std::vector<std::string> kw_names;  // Call/Filter/Test keyword argument names
  std::vector<ExprPtr> kw_values;
  std::vector<CmpOp> cmp;             // Compare: operators between kids
  FilterFn filter = nullptr;          // Filter, resolved at compile
  TestFn test = nullptr;              // Test, resolved at compile
  bool negated = false;               // Test under `is not`
  bool slice_has[3] = {false, false, false};  // Slice: which of start/stop/step were given
};

enum class StmtKind : std::uint8_t {
  Text, Output, If, For, Set, SetBlock,
  With,         // {% with a=1, b=2 %}: targets = values, in a scope of their own
  FilterBlock,  // {% filter f(x)|g %}: expr is the chain applied to the local kFilteredBody
  Break, Continue,  // loop controls (Jinja2's loopcontrols extension)
  Macro,        // {% macro name(params) %}: targets[0] is the name
  CallBlock,    // {% call(params) m(args) %}: expr is the Call; body is what caller() renders
};

// The name under which a filter block's rendered body reaches its filter chain: not a name a
// template can write.
inline constexpr std::string_view kFilteredBody = "\x01filtered";

struct Stmt;
using Body = std::vector<Stmt>;

struct Stmt {
  StmtKind kind = StmtKind::Text;
  int line = 0;
  int column = 0;
  core::Value text;                   // Text (a String, borrowed when rendered natively)
  ExprPtr expr;                       // Output value, For iterable, Set value
  std::vector<std::string> targets;   // For/Set names; >1 means tuple unpacking
  std::vector<std::string> attr_target;  // Set `ns.attr`: {ns, attr}
  std::vector<std::pair<ExprPtr, Body>> branches;  // If: (condition, body)...
  ExprPtr loop_filter;                // For ... if cond
  Body body;                          // For/SetBlock/With/FilterBlock/Macro/CallBlock body
  Body else_body;                     // If else / For else
  std::vector<std::string> params;    // Macro / CallBlock (the caller's) parameter names
  std::vector<ExprPtr> values;        // With: the values; Macro/CallBlock: defaults (null: none)
  bool uses_varargs = false;          // Macro/CallBlock: the body reads varargs / kwargs / caller,
  bool uses_kwargs = false;           // so extra arguments are collected there instead of
  bool uses_caller = false;           // being a TypeError
};

// Height of the expression tree (a lone node is 1), counted without recursion; stops counting
// once `limit` is passed.
int tree_height(const Expr& root, int limit);

}  // namespace budcore::templates::detail

#pragma GCC visibility pop
