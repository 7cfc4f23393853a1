// The pipeline engine's bookkeeping: every state change goes through record() (the sink) before
// the engine acts on it; template scopes of steps; readiness of a step (dependencies, trigger
// rules, conditions, concurrency).
#include <algorithm>
#include <cstdlib>

#include "pipeline/engine_rules.hpp"

namespace budcore::pipeline {

// ---- transitions -------------------------------------------------------------------------

bool Engine::Impl::record(std::string step, std::string from, std::string to, int attempt, std::string message) {
  if (halted) return false;
  Transition t;
  t.seq = ++state.seq;
  t.at = now();
  t.step = std::move(step);
  t.from = std::move(from);
  t.to = std::move(to);
  t.attempt = attempt;
  t.message = std::move(message);
  if (deps.sink) {
    std::sort(changed.begin(), changed.end());
    auto st = deps.sink->save_changes(t, state, changed);
    if (!st) {
      halted = true;
      halt_error = st.error();
      return false;
    }
  }
  for (std::size_t i : changed) changed_flag[i] = false;
  changed.clear();
  return true;
}

bool Engine::Impl::set_state(int n, StepState to, std::string message) {
  StepRun& r = run(n);
  StepState from = r.state;
  r.state = to;
  r.message = message;
  if (!is_terminal(to) && nodes[static_cast<std::size_t>(n)].kind == NodeKind::Iteration) {
    loop_scan.erase(nodes[static_cast<std::size_t>(n)].parent);
  }
  if (is_terminal(to)) {
    r.finished_at = now();
    r.timer = TimerKind::None;
    r.timer_at.reset();
    r.timeout_at.reset();
  }
  return record(r.id, std::string(to_string(from)), std::string(to_string(to)), r.attempts, std::move(message));
}

bool Engine::Impl::pipeline_transition(std::string from, std::string to, std::string message) {
  return record("", std::move(from), std::move(to), 0, std::move(message));
}

// ---- templates ---------------------------------------------------------------------------

void Engine::Impl::set_scope(int n) {
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  if (d.kind != NodeKind::Iteration) return;
  const Value& items = peek(d.parent).items;
  std::int64_t len = items.is_list() ? static_cast<std::int64_t>(items.as_list().size()) : 0;
  Value item = d.index < len ? items.as_list()[static_cast<std::size_t>(d.index)] : Value();
  auto& m = ctx.mutable_map();
  m.set("item", item);
  m.set("loop", Value::map({{"index0", d.index},
                            {"index", d.index + 1},
                            {"first", d.index == 0},
                            {"last", d.index + 1 == len},
                            {"length", len}}));
}

void Engine::Impl::clear_scope(int n) {
  if (nodes[static_cast<std::size_t>(n)].kind != NodeKind::Iteration) return;
  ctx.mutable_map().erase("item");
  ctx.mutable_map().erase("loop");
}

core::Result<Value> Engine::Impl::resolve(int n, const Value& v) {
  if (v.is_string()) {
    const std::string& s = v.as_string();
    if (s.find("{{") == std::string::npos && s.find("{%") == std::string::npos) return v;
    auto it = compiled.find(s);
    if (it == compiled.end()) {
      BUDCORE_TRY_ASSIGN(templates::Template t, templates::Template::compile(s));
      it = compiled.emplace(s, std::move(t)).first;
    }
    return it->second.render_native(ctx);
  }
  if (v.is_list()) {
    core::List out;
    for (const Value& x : v.as_list()) {
      BUDCORE_TRY_ASSIGN(Value r, resolve(n, x));
      out.push_back(std::move(r));
    }
    return Value(std::move(out));
  }
  if (v.is_map()) {
    core::Map out;
    for (const auto& [k, x] : v.as_map()) {
      BUDCORE_TRY_ASSIGN(Value r, resolve(n, x));
      out.set(k, std::move(r));
    }
    return Value(std::move(out));
  }
  return v;
}

// A terminal step becomes visible to templates as steps.<id>.{status, outputs}.
void Engine::Impl::publish(int n) {
  const StepRun& r = peek(n);
  Value outputs = r.outputs.is_map() ? r.outputs : Value(core::Map{});
  ctx.mutable_map()["steps"].mutable_map().set(
      r.id, Value::map({{"status", std::string(to_string(r.state))}, {"outputs", std::move(outputs)}}));
}

// ---- readiness ---------------------------------------------------------------------------

bool Engine::Impl::concurrency_full(int n) const {
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  auto running = [&](const std::vector<int>& members) {
    std::int64_t c = 0;
    for (int m : members) {
      StepState s = state.steps[static_cast<std::size_t>(m)].state;
      if (s == StepState::Running || s == StepState::Retrying || s == StepState::AwaitingApproval) ++c;
    }
    return c;
  };
  auto limit_of = [&](int owner) -> std::optional<std::int64_t> {
    const Value* m = nodes[static_cast<std::size_t>(owner)].config.find("max_concurrency");
    if (m && m->is_int() && m->as_int() >= 1) return m->as_int();
    return std::nullopt;
  };
  int owner = d.kind == NodeKind::Iteration ? d.parent : d.group;
  if (owner >= 0) {
    auto limit = limit_of(owner);
    if (limit && running(nodes[static_cast<std::size_t>(owner)].members) >= *limit) return true;
  }
  if (max_concurrency && d.kind == NodeKind::Main) {
    std::int64_t c = 0;
    for (int a : active) {
      if (nodes[static_cast<std::size_t>(a)].kind == NodeKind::Main && nodes[static_cast<std::size_t>(a)].type != StepType::Parallel &&
          nodes[static_cast<std::size_t>(a)].type != StepType::Loop)
        ++c;
    }
    if (c >= *max_concurrency) return true;
  }
  return false;
}

// Decides a Pending main-phase step: wait, skip, omit, or start it.
bool Engine::Impl::check(int n) {
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  const StepRun& r = peek(n);
  if (r.state != StepState::Pending || state.phase != RunPhase::Main) return false;
  if (state.cancel_requested || (state.failing && fail_fast)) return false;
  if (d.kind == NodeKind::Iteration) {
    if (peek(d.parent).state != StepState::Running) return false;
  } else {
    for (int c : d.branch_sources) {
      const StepRun& cr = peek(c);
      if (cr.state != StepState::Succeeded) continue;
      const Value* taken = cr.outputs.find("branch");
      const Value* list = nodes[static_cast<std::size_t>(c)].config.find(taken && taken->is_string() && taken->as_string() == "then" ? "then_steps" : "else_steps");
      bool selected = false;
      if (list && list->is_list()) {
        for (const Value& x : list->as_list()) selected |= x.is_string() && x.as_string() == d.id;
      }
      if (!selected) return finish(n, StepState::Skipped, "branch of '" + nodes[static_cast<std::size_t>(c)].id + "' not taken");
    }
    int total = static_cast<int>(d.preds.size()), terminal = 0, succ = 0, failed = 0, skipped = 0, omitted = 0;
    for (int p : d.preds) {
      StepState s = peek(p).state;
      if (!is_terminal(s)) continue;
      ++terminal;
      if (s == StepState::Succeeded) ++succ;
      else if (failed_like(s)) ++failed;
      else if (s == StepState::Skipped) ++skipped;
      else ++omitted;
    }
    enum class Decision { Wait, Run, Skip, Omit } decision = Decision::Run;
    if (d.extras.depends) {
      if (terminal < total) return false;
      bool ok = d.extras.depends->evaluate([&](std::string_view name) {
        detail::UpstreamResult u;
        auto it = index.find(std::string(name));
        if (it == index.end()) return u;
        u.state = peek(it->second).state;
        for (int m : nodes[static_cast<std::size_t>(it->second)].members) {
          ++u.children;
          StepState ms = peek(m).state;
          if (ms == StepState::Succeeded) ++u.children_succeeded;
          else if (ms == StepState::Failed || ms == StepState::Errored) ++u.children_failed;
        }
        return u;
      });
      decision = ok ? Decision::Run : Decision::Omit;
    } else {
      switch (d.extras.rule) {
        case TriggerRule::AllSuccess:
          decision = failed + omitted > 0 ? Decision::Omit
                     : terminal < total   ? Decision::Wait
                     : skipped > 0        ? Decision::Skip
                                          : Decision::Run;
          break;
        case TriggerRule::AllDone: decision = terminal < total ? Decision::Wait : Decision::Run; break;
        case TriggerRule::OneSuccess:
          decision = succ > 0 || total == 0 ? Decision::Run
                     : terminal < total     ? Decision::Wait
                     : skipped == total     ? Decision::Skip
                                            : Decision::Omit;
          break;
        case TriggerRule::OneFailed:
          decision = failed > 0 ? Decision::Run : terminal < total ? Decision::Wait : Decision::Skip;
          break;
        case TriggerRule::NoneFailed:
          decision = failed + omitted > 0 ? Decision::Omit : terminal < total ? Decision::Wait : Decision::Run;
          break;
      }
    }
    if (decision == Decision::Wait) return false;
    if (decision == Decision::Skip) return finish(n, StepState::Skipped, "an upstream step was skipped");
    if (decision == Decision::Omit) return finish(n, StepState::Omitted, "dependencies not satisfied");
    for (int w : d.soft_waits) {
      if (!is_terminal(run(w).state)) return false;  // a soft reference waits for its step
    }
  }
  if (state.paused) return false;
  if (concurrency_full(n)) {
    blocked.insert(n);
    return false;
  }
  if (d.condition) {
    set_scope(n);
    auto c = resolve(n, Value(*d.condition));
    clear_scope(n);
    if (!c) {
      ++run(n).attempts;
      return finish(n, StepState::Errored, "condition: " + c.error().message);
    }
    if (!detail::truthy(*c)) return finish(n, StepState::Skipped, "condition is false");
  }
  if (d.extras.approval) {
    if (d.extras.approval_timeout) run(n).timeout_at = now() + *d.extras.approval_timeout;
    active.insert(n);
    return set_state(n, StepState::AwaitingApproval, "waiting for approval");
  }
  return start_attempt(n);
}

}  // namespace budcore::pipeline
