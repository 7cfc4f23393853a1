// The pipeline engine's step actions: an attempt started, what each step type does (JOB,
// API_CALL, NOTIFICATION, WAIT, APPROVAL, FUNCTION, ...), completion, retries, timeouts,
// failure handling, stops, groups and loops.
#include <algorithm>
#include <cstdlib>

#include "pipeline/engine_rules.hpp"

namespace budcore::pipeline {

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
      auto out = (*fn)(fc.args, FunctionCall{r.id, r.attempts, r.timeout_at, options.run_id, options.tenant, options.principal});
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
      const std::size_t adding = count - std::min(count, members.size());
      // The limit is per run, all LOOPs together: nested or sibling LOOPs multiply.
      if (options.max_loop_items > 0 && iterations + adding > options.max_loop_items)
        return error_for_good(n, "items: " + std::to_string(count) + " items would make " + std::to_string(iterations + adding) +
                                     " LOOP iterations in this run, over the limit of " +
                                     std::to_string(options.max_loop_items));
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

}  // namespace budcore::pipeline
