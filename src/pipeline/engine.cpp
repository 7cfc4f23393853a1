// The pipeline engine's run loop (timers, job polling, scheduling, restore, phases) and its
// public API. Bookkeeping is in engine_state.cpp, step actions in engine_steps.cpp.
#include <algorithm>
#include <cstdlib>

#include "pipeline/engine_rules.hpp"

namespace budcore::pipeline {

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
