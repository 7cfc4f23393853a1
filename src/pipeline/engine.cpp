// The pipeline engine's run loop: readiness, step execution, retries, timeouts, failure
// handling, hooks and compensation. Every state change goes through record() (the sink)
// before the engine acts on it.
#include <algorithm>
#include <cstdlib>

#include "budcore/core/json.hpp"
#include "pipeline/engine_impl.hpp"

namespace budcore::pipeline {

using core::Value;
using detail::NodeDef;
using detail::NodeKind;
using detail::TriggerRule;

namespace {

// An HTTP refusal: 429 and 5xx are transient (`errored`, retried by API_CALL's default
// policy), any other status is the request's own failure.
StepState refusal_state(int http_status) {
  return http_status == 429 || http_status >= 500 ? StepState::Errored : StepState::Failed;
}

bool failed_like(StepState s) { return s == StepState::Failed || s == StepState::Errored || s == StepState::Cancelled; }
bool main_like(const NodeDef& d) { return d.kind == NodeKind::Main || d.kind == NodeKind::Iteration; }

// The config a step resolves for itself: a LOOP's body is resolved per iteration instead.
Value own_config(const NodeDef& d) {
  if (d.type != StepType::Loop || !d.config.is_map()) return d.config;
  Value c = d.config;
  c.mutable_map().erase("body");
  return c;
}

std::string header_value(const Value& v) { return v.is_string() ? v.as_string() : core::to_json(v); }

}  // namespace

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

// ---- execution ---------------------------------------------------------------------------

std::string Engine::Impl::job_key(int n) const {
  const StepRun& r = state.steps[static_cast<std::size_t>(n)];
  return state.run_id + "/" + r.id + "/" + std::to_string(r.attempts);
}

bool Engine::Impl::start_attempt(int n) {
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  StepRun& r = run(n);
  StepState from = r.state;
  ++r.attempts;
  if (!r.started_at) r.started_at = now();
  r.attempt_started_at = now();
  r.timer = TimerKind::None;
  r.timer_at.reset();
  r.timeout_at.reset();
  active.insert(n);
  set_scope(n);
  auto resolved = resolve(n, own_config(d));
  clear_scope(n);
  if (!resolved) {
    if (!set_state(n, StepState::Running, "")) return true;
    return error_for_good(n, "inputs: " + resolved.error().message);
  }
  r.input_hash = detail::hash_inputs(d.type, *resolved);
  if (auto memo = state.memo.find(r.id); memo != state.memo.end() && memo->second.hash == r.input_hash) {
    r.outputs = memo->second.outputs;
    r.completion_seq = ++state.completions;
    active.erase(n);
    if (!finish(n, StepState::Succeeded, "memoized")) return true;
    return true;
  }
  std::optional<core::Duration> timeout = d.extras.timeout;
  if (d.type == StepType::Job && !timeout) {
    if (const Value* m = resolved->find("max_duration_seconds"); m && m->is_int() && m->as_int() > 0) timeout = core::Duration::seconds(m->as_int());
  }
  if (d.type == StepType::Function && !timeout) {
    if (const Value* t = resolved->find("timeout_seconds"); t && t->is_int() && t->as_int() > 0) timeout = core::Duration::seconds(t->as_int());
  }
  if (d.type == StepType::Wait) {
    const Value* event = resolved->find("wait_for_event");
    if (event && event->is_string()) {
      const Value* t = resolved->find("timeout_seconds");
      timeout = core::Duration::seconds(t && t->is_int() ? t->as_int() : 3600);
    } else if (const Value* ds = resolved->find("duration_seconds"); ds && ds->is_number()) {
      // 1e18 seconds overflowed the conversion to milliseconds and finished at once.
      auto wait = core::Duration::from_seconds(ds->as_float());
      if (!wait || wait->count_ns() < 0) {
        if (!set_state(n, StepState::Running, "")) return true;
        return error_for_good(n, "inputs: config.duration_seconds " + core::format_json_float(ds->as_float()) +
                                     " is not a duration budcore can wait (0 to 9223372036 seconds)");
      }
      r.timer = TimerKind::WaitDuration;
      r.timer_at = now() + *wait;
    }
  }
  if (d.type == StepType::Loop) {
    const Value* items = resolved->find("items");
    r.items = items && items->is_list() ? *items : Value();
  }
  if (timeout) r.timeout_at = *r.attempt_started_at + *timeout;  // exact on a real clock too ("timed out after 1s")
  std::string msg = from == StepState::Retrying ? "retry" : "";
  r.state = StepState::Running;
  r.message.clear();
  // A new LOOP attempt reruns the iterations that did not succeed. They are reset before the
  // first save, so a crash between the transitions below never leaves the retry half-applied.
  std::vector<std::pair<int, std::string>> reset;
  if (d.type == StepType::Loop && r.items.is_list()) {
    const auto& members = nodes[static_cast<std::size_t>(n)].members;
    for (std::size_t i = 0; i < members.size() && i < r.items.as_list().size(); ++i) {
      if (!is_terminal(peek(members[i]).state) || peek(members[i]).state == StepState::Succeeded) continue;
      StepRun& ir = run(members[i]);
      reset.emplace_back(members[i], std::string(to_string(ir.state)));
      ir.state = StepState::Pending;
      ir.attempt_base = ir.attempts;
      ir.finished_at.reset();
      ++open_main;
    }
  }
  if (!record(r.id, std::string(to_string(from)), "running", r.attempts, msg)) return true;
  for (const auto& [m, was] : reset) {
    if (!record(peek(m).id, was, "pending", peek(m).attempts, "loop retry")) return true;
  }
  return act(n, *resolved);
}

// Performs the step's action; called after the Running transition is saved (and again for a
// Running step after a restore: JOB submits are idempotent, in-process steps run again).
bool Engine::Impl::act(int n, const Value& resolved) {
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  const StepRun& r = peek(n);
  if (d.kind != NodeKind::Iteration && d.type != StepType::Job) {
    if (auto f = options.faults.find(d.id); f != options.faults.end()) {
      if (f->second.hang) return true;
      if (r.attempts <= f->second.fail_attempts) return fail_attempt(n, StepState::Failed, "injected failure");
    }
  }
  switch (d.type) {
    case StepType::Transform: {
      const Value* out = resolved.find("outputs");
      return complete(n, out && out->is_map() ? *out : Value(core::Map{}));
    }
    case StepType::Condition: {
      const Value* e = resolved.find("expression");
      bool result = e && detail::truthy(*e);
      Value out = Value::map({{"result", result}, {"branch", result ? "then" : "else"}});
      return complete(n, std::move(out), result ? "then" : "else");
    }
    case StepType::Function: {
      auto cfg = parse_step_config(d.type, resolved);
      if (!cfg) return error_for_good(n, cfg.error().describe());
      const auto& fc = std::get<FunctionStepConfig>(*cfg);
      const StepFunction* fn = deps.functions ? deps.functions->find(fc.function) : nullptr;
      if (!fn) return error_for_good(n, "no function registered as '" + fc.function + "'");
      auto out = (*fn)(fc.args, FunctionCall{r.id, r.attempts, r.timeout_at});
      if (attempt_timed_out(r)) return fail_attempt(n, StepState::Failed, timed_out_message(r));
      if (!out) return fail_attempt(n, StepState::Failed, out.error().message);
      return complete(n, out->is_map() ? *out : Value::map({{"result", *out}}));
    }
    case StepType::ApiCall: {
      auto cfg = parse_step_config(d.type, resolved);
      if (!cfg) return error_for_good(n, cfg.error().describe());
      if (!deps.http) return error_for_good(n, "no HTTP client");
      const auto& ac = std::get<ApiCallStepConfig>(*cfg);
      core::HttpRequest req;
      req.method = ac.method;
      req.url = ac.url;
      req.timeout = core::Duration::seconds(ac.timeout_seconds);
      bool has_type = false;
      if (ac.headers.is_map()) {
        for (const auto& [k, v] : ac.headers.as_map()) {
          req.headers.emplace_back(k, header_value(v));
          std::string lower = k;
          std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
          has_type |= lower == "content-type";
        }
      }
      // One key per logical request, not per attempt: a retry after a timeout or 5xx may repeat
      // a request the server did carry out, and only an unchanged key lets it see that.
      // retry_from_failed starts a new generation (attempt_base), hence a new key.
      const StepRun& cur = state.steps[static_cast<std::size_t>(n)];
      req.headers.emplace_back("Idempotency-Key",
                               state.run_id + "/" + cur.id + "/" + std::to_string(cur.attempt_base + 1));
      if (ac.body.is_string()) {
        req.body = ac.body.as_string();
      } else if (!ac.body.is_null()) {
        req.body = core::to_json(ac.body);
        if (!has_type) req.headers.emplace_back("Content-Type", "application/json");
      }
      if (auto left = time_left_in_attempt(r)) req.timeout = std::min(req.timeout, *left);
      auto resp = deps.http->send(req);
      if (attempt_timed_out(r)) return fail_attempt(n, StepState::Failed, timed_out_message(r));
      if (!resp) return fail_attempt(n, StepState::Errored, resp.error().message);
      if (resp->status < 200 || resp->status > 299) {
        return fail_attempt(n, refusal_state(resp->status), "HTTP " + std::to_string(resp->status));
      }
      auto parsed = core::parse_json(resp->body);
      Value out = parsed && parsed->is_map() ? *parsed : Value::map({{"body", parsed ? *parsed : Value(resp->body)}});
      out.mutable_map().set("status_code", resp->status);
      return complete(n, std::move(out));
    }
    case StepType::Notification: {
      auto cfg = parse_step_config(d.type, resolved);
      if (!cfg) return error_for_good(n, cfg.error().describe());
      if (!deps.notifier) return error_for_good(n, "no notifier");
      const auto& nc = std::get<NotificationStepConfig>(*cfg);
      core::Notification note;
      note.channel = nc.channel;
      note.recipients = nc.recipients;
      note.message = nc.message;
      note.severity = nc.severity;
      note.context = Value::map({{"run_id", state.run_id}, {"step_id", r.id}, {"pipeline", spec.pipeline.name}});
      note.timeout = time_left_in_attempt(r);
      auto st = deps.notifier->notify(note);
      if (attempt_timed_out(r)) return fail_attempt(n, StepState::Failed, timed_out_message(r));
      if (!st) {
        // Classified as API_CALL's answers are (backend/notifier.hpp): a refused delivery by
        // its HTTP status, transport trouble is transient, a bad notification repeats itself.
        const core::Error& e = st.error();
        if (e.code == core::ErrorCode::Invalid) return error_for_good(n, e.message);
        if (e.field == "status") return fail_attempt(n, refusal_state(std::atoi(e.value.c_str())), e.message);
        return fail_attempt(n, StepState::Errored, e.message);
      }
      return complete(n, Value::map({{"delivered", true}, {"channel", nc.channel}}));
    }
    case StepType::Job: {
      auto cfg = parse_step_config(d.type, resolved);
      if (!cfg) return error_for_good(n, cfg.error().describe());
      if (!deps.jobs) return error_for_good(n, "no job runner");
      JobRequest req;
      req.key = job_key(n);
      req.step_id = r.id;
      req.attempt = r.attempts;
      req.config = resolved;
      const auto& jc = std::get<JobStepConfig>(*cfg);
      if (jc.estimated_duration_seconds) req.estimated_duration = core::Duration::seconds(*jc.estimated_duration_seconds);
      auto st = deps.jobs->submit(req);
      if (!st) return fail_attempt(n, StepState::Errored, "submit: " + st.error().message);
      return true;  // poll_jobs() takes it from here
    }
    case StepType::Wait: {
      const Value* event = resolved.find("wait_for_event");
      if (event && event->is_string()) {
        if (const Value* payload = state.events.find(event->as_string())) {
          return complete(n, Value::map({{"event", event->as_string()}, {"payload", *payload}}));
        }
      }
      return true;  // a timer or an event ends it
    }
    case StepType::Loop: {
      if (!r.items.is_list()) return error_for_good(n, "items: must resolve to a list");
      std::size_t count = r.items.as_list().size();
      auto& members = nodes[static_cast<std::size_t>(n)].members;
      while (members.size() < count) {
        int it = add_iteration(n, static_cast<int>(members.size()));
        StepRun ir;
        ir.id = nodes[static_cast<std::size_t>(it)].id;
        state.steps.push_back(std::move(ir));  // invalidates r
        mark_changed(state.steps.size() - 1);
        ++open_main;
      }
      for (std::size_t i = 0; i < count; ++i) dirty.insert(members[i]);
      for (std::size_t i = count; i < members.size(); ++i) finish(members[i], StepState::Omitted, "not in the loop's items");
      return check_loop(n) || true;
    }
    case StepType::Parallel: return check_group(n) || true;
  }
  return true;
}

bool Engine::Impl::complete(int n, Value outputs, std::string message) {
  StepRun& r = run(n);
  r.outputs = std::move(outputs);
  r.completion_seq = ++state.completions;
  state.memo[r.id] = RunState::Memo{r.input_hash, r.outputs};
  return finish(n, StepState::Succeeded, std::move(message));
}

std::optional<core::Duration> Engine::Impl::time_left_in_attempt(const StepRun& r) const {
  if (!r.timeout_at) return std::nullopt;
  // Clients count whole milliseconds: round up, plus 1 ms, so a call never ends before the deadline.
  std::int64_t ms = std::max<std::int64_t>((*r.timeout_at - now()).count_ns() / 1'000'000 + 2, 1);
  return core::Duration::milliseconds(ms);
}

std::string Engine::Impl::timed_out_message(const StepRun& r) {
  return "timed out after " + (*r.timeout_at - *r.attempt_started_at).to_string();
}

bool Engine::Impl::error_for_good(int n, std::string message) {
  return finish(n, StepState::Errored, std::move(message));
}

bool Engine::Impl::fail_attempt(int n, StepState kind, std::string message) {
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  StepRun& r = run(n);
  const auto& rs = d.extras.retry;
  bool wants = kind == StepState::Failed ? rs.on_failed : rs.on_errored;
  int retries_used = r.attempts - r.attempt_base - 1;
  bool stopping_run = state.cancel_requested || (state.failing && fail_fast && main_like(d));
  if (wants && retries_used < rs.limit && !stopping_run) {
    core::Duration delay = rs.backoff.delay(retries_used, std::hash<std::string>{}(r.id));
    r.timer = TimerKind::Retry;
    r.timer_at = now() + delay;
    r.timeout_at.reset();
    return set_state(n, StepState::Retrying, message + "; retry " + std::to_string(retries_used + 1) + " of " +
                                                 std::to_string(rs.limit) + " in " + delay.to_string());
  }
  return finish(n, kind, std::move(message));
}

bool Engine::Impl::finish(int n, StepState to, std::string message) {
  if (is_terminal(peek(n).state)) return false;
  if (!set_state(n, to, std::move(message))) return true;
  active.erase(n);
  blocked.erase(n);
  if (main_like(nodes[static_cast<std::size_t>(n)])) --open_main;
  after_terminal(n);
  return true;
}

bool Engine::Impl::handled(int n) const {
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  if (d.extras.continue_on_failure || d.kind != NodeKind::Main || d.group >= 0) return true;
  for (int s : d.succs) {
    const auto& e = nodes[static_cast<std::size_t>(s)].extras;
    if (e.depends && e.depends->handles_failure_of(d.id)) return true;
    if (!e.depends && (e.rule == TriggerRule::AllDone || e.rule == TriggerRule::OneFailed || e.rule == TriggerRule::OneSuccess)) return true;
  }
  return false;
}

void Engine::Impl::after_terminal(int n) {
  publish(n);
  if (halted) return;
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  for (int s : d.succs) dirty.insert(s);
  for (int s : d.soft_readers) dirty.insert(s);
  for (int b : blocked) dirty.insert(b);
  blocked.clear();
  if (stopping) return;
  StepState s = peek(n).state;
  if (d.kind == NodeKind::Iteration) {
    iteration_ended(n);
    return;
  }
  if (d.group >= 0) check_group(d.group);
  if (d.kind == NodeKind::Main && failed_like(s) && !state.failing && !handled(n)) {
    state.failing = true;
    state.failure_reason = "step '" + d.id + "' " + std::string(to_string(s)) + ": " + peek(n).message;
    if (fail_fast) stop_main(state.failure_reason, false);
  }
}

bool Engine::Impl::stop_node(int n, const std::string& why) {
  const StepRun& r = peek(n);
  if (is_terminal(r.state)) return false;
  if (r.state == StepState::Pending) return finish(n, StepState::Omitted, why);
  bool was_running = r.state == StepState::Running;
  if (!finish(n, StepState::Cancelled, why)) return false;
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  if (was_running && d.type == StepType::Job && deps.jobs) (void)deps.jobs->cancel(job_key(n));
  for (int m : d.members) {
    if (d.type == StepType::Loop) stop_node(m, why);
  }
  return true;
}

bool Engine::Impl::stop_main(const std::string& why, bool cancelled) {
  bool any = false;
  bool was = stopping;
  stopping = true;
  for (std::size_t i = 0; i < nodes.size() && !halted; ++i) {
    if (main_like(nodes[i])) any |= stop_node(static_cast<int>(i), cancelled ? why : "pipeline failing: " + why);
  }
  stopping = was;
  return any;
}

bool Engine::Impl::check_group(int g) {
  if (peek(g).state != StepState::Running) return false;
  const NodeDef& d = nodes[static_cast<std::size_t>(g)];
  const Value* ff = d.config.find("fail_fast");
  bool fast = !ff || !ff->is_bool() || ff->as_bool();
  const Value* ratio_v = d.config.find("min_success_ratio");
  double ratio = ratio_v && ratio_v->is_number() ? ratio_v->as_float() : 1.0;
  int succ = 0, failed = 0, skipped = 0, open = 0;
  core::Map results;
  for (int m : d.members) {
    const StepRun& mr = peek(m);
    if (!is_terminal(mr.state)) ++open;
    else if (mr.state == StepState::Succeeded) ++succ, results.set(mr.id, mr.outputs);
    else if (mr.state == StepState::Skipped) ++skipped;
    else ++failed;
  }
  if (fast && failed > 0) {
    bool was = stopping;
    stopping = true;
    for (int m : d.members) stop_node(m, "PARALLEL '" + d.id + "' failed fast");
    stopping = was;
    return finish(g, StepState::Failed, std::to_string(failed) + " member(s) failed");
  }
  if (open > 0) return false;
  int counted = static_cast<int>(d.members.size()) - skipped;
  Value out = Value::map({{"succeeded", succ}, {"failed", failed}, {"skipped", skipped}, {"results", Value(std::move(results))}});
  if (counted == 0 || static_cast<double>(succ) >= ratio * counted - 1e-9) {
    return complete(g, std::move(out), std::to_string(succ) + " of " + std::to_string(counted) + " succeeded");
  }
  run(g).outputs = out;
  return finish(g, StepState::Failed, "only " + std::to_string(succ) + " of " + std::to_string(counted) + " members succeeded");
}

void Engine::Impl::iteration_ended(int n) {
  const NodeDef& d = nodes[static_cast<std::size_t>(n)];
  const int l = d.parent;
  const NodeDef& ld = nodes[static_cast<std::size_t>(l)];
  StepState s = peek(n).state;
  if (s != StepState::Succeeded && s != StepState::Skipped) {
    const Value* ff = ld.config.find("fail_fast");
    if (!ff || !ff->is_bool() || ff->as_bool()) {  // fail fast: this failure decides now
      check_loop(l);
      return;
    }
  }
  // Otherwise only the end of the last open iteration decides.
  std::size_t& next = loop_scan[l];
  while (next < ld.members.size() && is_terminal(peek(ld.members[next]).state)) ++next;
  if (next >= ld.members.size()) check_loop(l);
}

bool Engine::Impl::check_loop(int l) {
  const StepRun& lr = peek(l);
  if (lr.state != StepState::Running || !lr.items.is_list()) return false;
  const NodeDef& d = nodes[static_cast<std::size_t>(l)];
  std::size_t count = lr.items.as_list().size();
  const Value* ff = d.config.find("fail_fast");
  bool fast = !ff || !ff->is_bool() || ff->as_bool();
  const Value* ratio_v = d.config.find("min_success_ratio");
  double ratio = ratio_v && ratio_v->is_number() ? ratio_v->as_float() : 1.0;
  int succ = 0, failed = 0, open = 0;
  core::List results;
  for (std::size_t i = 0; i < count; ++i) {
    const StepRun& ir = peek(d.members[i]);
    if (!is_terminal(ir.state)) ++open;
    else if (ir.state == StepState::Succeeded) ++succ;
    else if (ir.state != StepState::Skipped) ++failed;
    results.push_back(ir.state == StepState::Succeeded ? ir.outputs : Value());
  }
  if (fast && failed > 0) {
    bool was = stopping;
    stopping = true;
    for (std::size_t i = 0; i < count; ++i) stop_node(d.members[i], "LOOP '" + d.id + "' failed fast");
    stopping = was;
    return fail_attempt(l, StepState::Failed, std::to_string(failed) + " iteration(s) failed");
  }
  if (open > 0) return false;
  Value out = Value::map({{"results", Value(std::move(results))}, {"succeeded", succ}, {"failed", failed}});
  if (count == 0 || static_cast<double>(succ) >= ratio * static_cast<double>(count) - 1e-9) {
    return complete(l, std::move(out), std::to_string(succ) + " of " + std::to_string(count) + " iterations succeeded");
  }
  run(l).outputs = out;
  return fail_attempt(l, StepState::Failed, "only " + std::to_string(succ) + " of " + std::to_string(count) + " iterations succeeded");
}

// ---- the loop ----------------------------------------------------------------------------

std::optional<core::Timestamp> Engine::Impl::pipeline_deadline() const {
  std::optional<core::Timestamp> t = deadline;
  if (timeout && state.started_at) {
    core::Timestamp end = *state.started_at + *timeout;
    if (!t || end < *t) t = end;
  }
  return t;
}

bool Engine::Impl::fire_timers() {
  bool any = false;
  core::Timestamp t = now();
  std::vector<int> due(active.begin(), active.end());
  for (int n : due) {
    if (halted) return any;
    const StepRun& r = peek(n);
    const NodeDef& d = nodes[static_cast<std::size_t>(n)];
    if (r.state == StepState::Retrying && r.timer_at && *r.timer_at <= t) {
      if (state.paused) continue;
      if (main_like(d) && (state.cancel_requested || (state.failing && fail_fast))) continue;
      any |= start_attempt(n);
    } else if (r.state == StepState::Running && r.timer == TimerKind::WaitDuration && r.timer_at && *r.timer_at <= t) {
      any |= complete(n, Value::map({{"waited_seconds", (*r.timer_at - *r.attempt_started_at).whole_seconds()}}));
    } else if (r.timeout_at && *r.timeout_at <= t) {
      if (r.state == StepState::AwaitingApproval) {
        any |= finish(n, StepState::Failed, "approval timed out");
      } else if (r.state == StepState::Running) {
        if (d.type == StepType::Job && deps.jobs) {
          std::string key = job_key(n);
          any |= fail_attempt(n, StepState::Failed, timed_out_message(r));
          (void)deps.jobs->cancel(key);
        } else {
          any |= fail_attempt(n, StepState::Failed, d.type == StepType::Wait ? "timed out waiting for event" : "timed out");
        }
      }
    } else if (r.state == StepState::Running && d.type == StepType::Wait && r.timer == TimerKind::None) {
      const Value* ev = d.config.find("wait_for_event");
      if (ev && ev->is_string()) {
        if (const Value* payload = state.events.find(ev->as_string())) {
          any |= complete(n, Value::map({{"event", ev->as_string()}, {"payload", *payload}}));
        }
      }
    }
  }
  return any;
}

bool Engine::Impl::poll_jobs() {
  if (!deps.jobs) return false;
  bool any = false;
  std::vector<int> running(active.begin(), active.end());
  for (int n : running) {
    if (halted) return any;
    if (nodes[static_cast<std::size_t>(n)].type != StepType::Job || peek(n).state != StepState::Running) continue;
    auto p = deps.jobs->poll(job_key(n));
    if (!p) {
      any |= fail_attempt(n, StepState::Errored, "poll: " + p.error().message);
      continue;
    }
    switch (p->outcome) {
      case JobOutcome::Running: break;
      case JobOutcome::Succeeded: any |= complete(n, p->outputs.is_map() ? p->outputs : Value(core::Map{})); break;
      case JobOutcome::Failed: any |= fail_attempt(n, StepState::Failed, p->message.empty() ? "job failed" : p->message); break;
      case JobOutcome::Cancelled: any |= fail_attempt(n, StepState::Failed, "job cancelled outside the pipeline"); break;
    }
  }
  return any;
}

bool Engine::Impl::schedule() {
  bool any = false;
  while (!dirty.empty() && !halted) {
    int n = *dirty.begin();
    dirty.erase(dirty.begin());
    any |= check(n);
  }
  return any;
}

bool Engine::Impl::resume_running() {
  bool any = false;
  std::vector<int> todo(resume.begin(), resume.end());
  resume.clear();
  for (int n : todo) {
    if (halted) break;
    const NodeDef& d = nodes[static_cast<std::size_t>(n)];
    if (peek(n).state != StepState::Running) continue;
    if (d.type == StepType::Parallel) {  // its members carry on; all may have ended before the crash
      any |= check_group(n);
      continue;
    }
    if (d.type == StepType::Wait) continue;  // timers carry on
    set_scope(n);
    auto resolved = resolve(n, own_config(d));
    clear_scope(n);
    any = true;
    if (!resolved) {
      error_for_good(n, "inputs: " + resolved.error().message);
      continue;
    }
    act(n, *resolved);
  }
  return any;
}

// A crash right after a step's terminal transition was saved skips after_terminal(): its group
// judgement (resume_running redoes that) and the run's failure marking, redone here.
bool Engine::Impl::settle_after_restore() {
  if (state.phase != RunPhase::Main || state.failing || state.cancel_requested) return false;
  for (std::size_t i = 0; i < spec.steps.size() && !halted; ++i) {
    int n = static_cast<int>(i);
    const NodeDef& d = nodes[i];
    StepState s = peek(n).state;
    if (d.kind != NodeKind::Main || !failed_like(s) || handled(n)) continue;
    state.failing = true;
    state.failure_reason = "step '" + d.id + "' " + std::string(to_string(s)) + ": " + peek(n).message;
    if (fail_fast) stop_main(state.failure_reason, false);
    return true;
  }
  return false;
}

bool Engine::Impl::advance_phase() {
  if (halted) return false;
  auto run_hooks = [&](const std::vector<int>& hooks) -> int {  // 2: started one, 1: busy, 0: all done
    for (int h : hooks) {
      if (state.paused) return 1;
      const StepRun& r = peek(h);
      if (is_terminal(r.state)) continue;
      if (r.state != StepState::Pending) return 1;
      const NodeDef& d = nodes[static_cast<std::size_t>(h)];
      if (d.condition) {
        auto c = resolve(h, Value(*d.condition));
        if (!c || !detail::truthy(*c)) {
          finish(h, StepState::Skipped, c ? "condition is false" : "condition: " + c.error().message);
          return 2;
        }
      }
      start_attempt(h);
      return 2;
    }
    return 0;
  };
  auto set_phase = [&](RunPhase p) {
    RunPhase from = state.phase;
    state.phase = p;
    ctx.mutable_map()["pipeline"].mutable_map().set("failure_reason", state.failure_reason);
    ctx.mutable_map()["pipeline"].mutable_map().set("status", state.cancel_requested ? "cancelled" : state.failing ? "failed" : "succeeded");
    return pipeline_transition(std::string(to_string(from)), std::string(to_string(p)), state.failure_reason);
  };
  switch (state.phase) {
    case RunPhase::Main: {
      if (state.started_at && !state.failing && !state.cancel_requested) {
        auto dl = pipeline_deadline();
        if (dl && now() >= *dl) {
          state.failing = true;
          state.failure_reason = deadline && *dl == *deadline ? "pipeline deadline passed" : "pipeline timed out";
          stop_main(state.failure_reason, false);
          return true;
        }
      }
      if (open_main > 0) return false;
      set_phase(state.cancel_requested ? RunPhase::Finally : state.failing ? RunPhase::OnFailure : RunPhase::Finally);
      return true;
    }
    case RunPhase::OnFailure: {
      int r = run_hooks(on_failure_hooks);
      if (r) return r == 2;
      set_phase(RunPhase::Compensating);
      return true;
    }
    case RunPhase::Compensating: {
      std::vector<std::pair<std::int64_t, int>> done;
      for (std::size_t i = 0; i < spec.steps.size(); ++i) {
        if (nodes[i].compensation >= 0 && peek(static_cast<int>(i)).state == StepState::Succeeded) {
          done.emplace_back(peek(static_cast<int>(i)).completion_seq, nodes[i].compensation);
        }
      }
      std::sort(done.rbegin(), done.rend());  // reverse order of completion
      std::vector<int> order;
      for (auto& [seq, c] : done) order.push_back(c);
      int r = run_hooks(order);
      if (r) return r == 2;
      set_phase(RunPhase::Finally);
      return true;
    }
    case RunPhase::Finally: {
      int r = run_hooks(finally_hooks);
      if (r) return r == 2;
      PipelineStatus from = state.status;
      state.status = state.cancel_requested ? PipelineStatus::Cancelled : state.failing ? PipelineStatus::Failed : PipelineStatus::Completed;
      state.finished_at = now();
      state.phase = RunPhase::Done;
      pipeline_transition(std::string(to_string(from)), std::string(to_string(state.status)), state.failure_reason);
      return true;
    }
    default: return false;
  }
}

core::Status Engine::Impl::pump() {
  if (halted) return halt_error;
  if (state.phase == RunPhase::NotStarted) return core::Error::make(core::ErrorCode::Conflict, "the run has not started", "status");
  bool progress = true;
  while (progress && !halted && state.phase != RunPhase::Done) {
    progress = false;
    if (settle_restored) {
      settle_restored = false;
      progress |= settle_after_restore();
    }
    if (!resume.empty()) progress |= resume_running();
    progress |= fire_timers();
    progress |= poll_jobs();
    progress |= schedule();
    progress |= advance_phase();
  }
  if (halted) return halt_error;
  return {};
}

// ---- public API --------------------------------------------------------------------------

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

core::Result<Engine> Engine::create(const Value& document, EngineDeps deps, EngineOptions options) {
  BUDCORE_TRY_ASSIGN(auto impl, Impl::build(document, deps, std::move(options)));
  impl->mark_all_changed();  // a sink's first save sees every record
  return Engine(std::move(impl));
}

core::Result<Engine> Engine::restore(const Value& document, EngineDeps deps, const Value& saved_state, EngineOptions options) {
  BUDCORE_TRY_ASSIGN(auto impl, Impl::build(document, deps, std::move(options)));
  BUDCORE_TRY_ASSIGN(RunState st, RunState::from_value(saved_state));
  BUDCORE_TRY(impl->load(std::move(st)));
  impl->mark_all_changed();  // the restored records are new to this engine's sink
  impl->settle_restored = true;
  if (impl->state.phase != RunPhase::Main && impl->state.phase != RunPhase::NotStarted) {  // as advance_phase sets it
    const RunState& s = impl->state;
    impl->ctx.mutable_map()["pipeline"].mutable_map().set(
        "status", s.phase == RunPhase::Done ? std::string(to_string(s.status))
                  : s.cancel_requested      ? "cancelled"
                  : s.failing               ? "failed"
                                            : "succeeded");
  }
  return Engine(std::move(impl));
}

core::Status Engine::start() {
  Impl& m = *impl_;
  if (m.halted) return m.halt_error;
  if (m.state.phase != RunPhase::NotStarted) return {};
  m.state.started_at = m.now();
  m.state.status = PipelineStatus::Running;
  m.state.phase = RunPhase::Main;
  m.pipeline_transition("pending", "running", "");
  return m.halted ? core::Status(m.halt_error) : core::Status();
}

core::Status Engine::pump() { return impl_->pump(); }

std::optional<core::Timestamp> Engine::next_wakeup() const {
  const Impl& m = *impl_;
  if (m.halted || m.state.phase == RunPhase::Done || m.state.phase == RunPhase::NotStarted) return std::nullopt;
  std::optional<core::Timestamp> best;
  auto consider = [&](const std::optional<core::Timestamp>& t) {
    if (t && (!best || *t < *best)) best = t;
  };
  bool jobs = false;
  for (int n : m.active) {
    const StepRun& r = m.state.steps[static_cast<std::size_t>(n)];
    if (!(r.state == StepState::Retrying && m.state.paused)) consider(r.timer_at);
    consider(r.timeout_at);
    jobs |= r.state == StepState::Running && m.nodes[static_cast<std::size_t>(n)].type == StepType::Job;
  }
  if (m.state.phase == RunPhase::Main && !m.state.failing && !m.state.cancel_requested) consider(m.pipeline_deadline());
  if (jobs && m.deps.jobs) consider(m.deps.jobs->next_change());
  return best;
}

core::Result<PipelineStatus> Engine::run_virtual(core::VirtualClock& clock, std::size_t max_wakeups) {
  BUDCORE_TRY(start());
  for (std::size_t i = 0; i < max_wakeups; ++i) {
    BUDCORE_TRY(pump());
    if (done()) break;
    auto w = next_wakeup();
    if (!w) break;  // waiting for outside input
    if (*w > clock.now()) {
      clock.set(*w);
    } else {
      std::int64_t before = impl_->state.seq;
      BUDCORE_TRY(pump());
      if (impl_->state.seq == before) break;  // nothing due changes anything: avoid spinning
    }
  }
  return impl_->state.status;
}

core::Status Engine::signal(std::string_view event, Value payload) {
  Impl& m = *impl_;
  if (m.halted) return m.halt_error;
  if (event.empty()) return core::Error::invalid("event", "", "must not be empty");
  m.state.events.mutable_map().set(std::string(event), std::move(payload));
  m.pipeline_transition("", "event", std::string(event));
  return m.halted ? core::Status(m.halt_error) : core::Status();
}

namespace {
core::Result<int> awaiting(Engine::Impl& m, std::string_view step_id) {
  auto it = m.index.find(std::string(step_id));
  if (it == m.index.end()) return core::Error::make(core::ErrorCode::NotFound, "no step '" + std::string(step_id) + "'", "step");
  if (m.peek(it->second).state != StepState::AwaitingApproval) {
    return core::Error::make(core::ErrorCode::Conflict, "step '" + std::string(step_id) + "' is not awaiting approval", "step");
  }
  return it->second;
}
}  // namespace

core::Status Engine::approve(std::string_view step_id, std::string_view approver) {
  Impl& m = *impl_;
  if (m.halted) return m.halt_error;
  BUDCORE_TRY_ASSIGN(int n, awaiting(m, step_id));
  m.run(n).approved_by = std::string(approver);
  m.run(n).timeout_at.reset();
  m.start_attempt(n);
  return m.halted ? core::Status(m.halt_error) : core::Status();
}

core::Status Engine::reject(std::string_view step_id, std::string_view approver, std::string_view reason) {
  Impl& m = *impl_;
  if (m.halted) return m.halt_error;
  BUDCORE_TRY_ASSIGN(int n, awaiting(m, step_id));
  m.finish(n, StepState::Failed, "rejected by " + std::string(approver) + (reason.empty() ? "" : ": " + std::string(reason)));
  return m.halted ? core::Status(m.halt_error) : core::Status();
}

core::Status Engine::pause() {
  Impl& m = *impl_;
  if (m.halted) return m.halt_error;
  if (m.state.phase == RunPhase::Done || m.state.paused) return {};
  m.state.paused = true;
  PipelineStatus from = m.state.status;
  m.state.status = PipelineStatus::Paused;
  m.pipeline_transition(std::string(to_string(from)), "paused", "");
  return m.halted ? core::Status(m.halt_error) : core::Status();
}

core::Status Engine::resume() {
  Impl& m = *impl_;
  if (m.halted) return m.halt_error;
  if (!m.state.paused) return {};
  m.state.paused = false;
  m.state.status = PipelineStatus::Running;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (m.state.steps[i].state == StepState::Pending && main_like(m.nodes[i])) m.dirty.insert(static_cast<int>(i));
  }
  m.pipeline_transition("paused", "running", "");
  return m.halted ? core::Status(m.halt_error) : core::Status();
}

core::Status Engine::cancel(std::string_view reason) {
  Impl& m = *impl_;
  if (m.halted) return m.halt_error;
  if (m.state.phase == RunPhase::Done || m.state.cancel_requested) return {};
  m.state.cancel_requested = true;
  m.state.failure_reason = std::string(reason);
  if (m.state.paused) {
    m.state.paused = false;
    m.state.status = PipelineStatus::Running;
  }
  if (!m.pipeline_transition("", "cancel_requested", std::string(reason))) return m.halt_error;
  if (m.state.phase == RunPhase::Main || m.state.phase == RunPhase::NotStarted) {
    if (m.state.phase == RunPhase::NotStarted) {
      m.state.started_at = m.now();
      m.state.phase = RunPhase::Main;
    }
    m.stop_main(std::string(reason), true);
  } else {
    // Hooks in progress: stop them and skip the rest.
    for (std::size_t i = m.spec.steps.size(); i < m.nodes.size(); ++i) {
      if (!main_like(m.nodes[i])) m.stop_node(static_cast<int>(i), std::string(reason));
    }
    m.state.phase = RunPhase::Finally;
  }
  return m.halted ? core::Status(m.halt_error) : core::Status();
}

core::Status Engine::retry_from_failed(RetryFromFailedOptions options) {
  Impl& m = *impl_;
  if (m.halted) return m.halt_error;
  if (m.state.phase != RunPhase::Done || m.state.status == PipelineStatus::Completed) {
    return core::Error::make(core::ErrorCode::Conflict, "only a failed or cancelled run can be retried", "status");
  }
  if (options.params.is_map()) {
    for (const auto& [k, v] : options.params.as_map()) m.state.params.mutable_map().set(k, v);
    m.ctx.mutable_map().set("params", m.state.params);
  }
  m.state.phase = RunPhase::Main;
  m.state.status = PipelineStatus::Running;
  m.state.failing = false;
  m.state.cancel_requested = false;
  m.state.failure_reason.clear();
  m.state.started_at = m.now();
  m.state.finished_at.reset();
  m.ctx.mutable_map()["pipeline"].mutable_map().set("status", "running");
  // Every reset is applied before the first save, so a crash between the transitions below
  // never leaves the retry half-applied.
  std::vector<std::pair<int, std::string>> reset;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const StepState was = m.peek(static_cast<int>(i)).state;
    bool keep = was == StepState::Succeeded && !options.rerun_succeeded && main_like(m.nodes[i]);
    if (keep || was == StepState::Pending) continue;
    StepRun& r = m.run(static_cast<int>(i));
    std::string from(to_string(r.state));
    r.state = StepState::Pending;
    r.attempt_base = r.attempts;
    r.outputs = Value();
    r.message.clear();
    r.finished_at.reset();
    r.timer = TimerKind::None;
    r.timer_at.reset();
    r.timeout_at.reset();
    if (main_like(m.nodes[i])) {
      ++m.open_main;
      m.dirty.insert(static_cast<int>(i));
    }
    m.ctx.mutable_map()["steps"].mutable_map().erase(r.id);
    reset.emplace_back(static_cast<int>(i), std::move(from));
  }
  if (!m.pipeline_transition("failed", "running", "retry from failed")) return m.halt_error;
  for (const auto& [n, from] : reset) {
    if (!m.record(m.peek(n).id, from, "pending", m.peek(n).attempts, "retry from failed")) return m.halt_error;
  }
  return {};
}

const RunState& Engine::state() const noexcept { return impl_->state; }
PipelineStatus Engine::status() const noexcept { return impl_->state.status; }
bool Engine::done() const noexcept { return impl_->state.phase == RunPhase::Done; }
bool Engine::halted() const noexcept { return impl_->halted; }

}  // namespace budcore::pipeline
