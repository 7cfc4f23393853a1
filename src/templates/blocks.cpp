// The block statements that run a body in a scope of their own: with, filter, macro calls and
// call blocks, with Jinja2's argument rules for macros.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "templates/evaluator.hpp"

namespace budcore::templates::detail {

bool Evaluator::exec_with(const Stmt& s, std::string& out) {
  // Every value is computed in the enclosing scope before any target is bound:
  // `{% with a=1, b=a %}` reads the outer `a`, as Jinja2 does.
  Items values;
  values.reserve(s.values.size());
  for (const auto& v : s.values) values.push_back(eval(*v));
  push_frame(frames.size());
  for (std::size_t i = 0; i < s.targets.size(); ++i) set_local(s.targets[i], std::move(values[i]));
  const bool ok = exec(s.body, out);
  pop_frame();
  return ok;
}

bool Evaluator::exec_filter_block(const Stmt& s, std::string& out) {
  std::string body;
  if (!capture(s.body, body)) return false;
  push_frame(frames.size());
  set_local(kFilteredBody, RValue(std::move(body)));
  RValue filtered = eval(*s.expr);
  pop_frame();
  return emit(filtered, out, s.expr.get());
}

bool Evaluator::exec_call_block(const Stmt& s, std::string& out) {
  // `caller` is a macro whose body is the block's, defined here: it sees this scope.
  const Expr& call_expr = *s.expr;
  RValue callee = eval(*call_expr.kids[0]);
  CallArgs args;
  collect_args(call_expr, 1, args);
  args.kw_names.emplace_back("caller");
  args.kw.push_back(RValue(std::make_shared<Method>(Method{RValue(), "caller", &s, frames.size()})));
  return emit(call(callee, args, &call_expr), out, &call_expr);
}

RValue Evaluator::call_macro(const Method& m, const CallArgs& args, const Expr* at) {
  const Stmt& def = *m.macro;
  auto what = [&] { return "macro '" + m.name + "'"; };  // built only for an error
  if (args.pos.size() > def.params.size() && !def.uses_varargs) {
    raise(ErrorKind::Type, what() + " takes not more than " + std::to_string(def.params.size()) + " argument(s)", at);
  }
  // Keyword arguments: a parameter, `caller`, or extra ones for `kwargs`.
  std::vector<const RValue*> bound(def.params.size(), nullptr);
  for (std::size_t i = 0; i < std::min(args.pos.size(), def.params.size()); ++i) bound[i] = &args.pos[i];
  const RValue* caller = nullptr;
  auto kwargs = def.uses_kwargs ? std::make_shared<Dict>() : nullptr;
  for (std::size_t k = 0; k < args.kw_names.size(); ++k) {
    const std::string_view name = args.kw_names[k];
    auto p = std::find(def.params.begin(), def.params.end(), name);
    if (p != def.params.end()) {
      auto i = static_cast<std::size_t>(p - def.params.begin());
      if (bound[i] != nullptr) raise(ErrorKind::Type, what() + " got multiple values for argument '" + std::string(name) + "'", at);
      bound[i] = &args.kw[k];
    } else if (name == "caller" && def.uses_caller) {
      caller = &args.kw[k];
    } else if (def.uses_kwargs) {
      kwargs->items.emplace_back(RValue(std::string(name)), args.kw[k]);
    } else {
      raise(ErrorKind::Type, what() + " takes no keyword argument '" + std::string(name) + "'", at);
    }
  }
  if (++depth > limits.max_nesting_depth) raise(ErrorKind::Security, "call nesting too deep", at);
  // The body sees its parameters, then the scope the macro was defined in (not the caller's).
  push_frame(std::min(m.region, frames.size()));
  for (std::size_t i = 0; i < def.params.size(); ++i) {
    if (bound[i] != nullptr) {
      set_local(def.params[i], *bound[i]);
    } else if (def.values[i]) {
      set_local(def.params[i], eval(*def.values[i]));  // defaults may read earlier parameters
    } else {
      set_local(def.params[i], RValue::undefined("parameter '" + def.params[i] + "' was not provided"));
    }
  }
  if (def.uses_varargs) {
    auto rest = std::make_shared<Seq>();
    rest->flavor = SeqFlavor::Tuple;
    for (std::size_t i = def.params.size(); i < args.pos.size(); ++i) rest->items.push_back(args.pos[i]);
    set_local("varargs", RValue(std::move(rest)));
  }
  if (def.uses_kwargs) set_local("kwargs", RValue(std::move(kwargs)));
  if (def.uses_caller) set_local("caller", caller ? *caller : RValue::undefined("No caller defined"));
  std::string rendered;
  if (!capture(def.body, rendered)) throw RenderFailure{failure};
  pop_frame();
  --depth;
  return RValue(std::move(rendered));
}

}  // namespace budcore::templates::detail
