// budcore::pipeline::Engine — runs one pipeline document, event-driven and deterministic on a
// core::Clock: the same document, executors and clock always give the same transitions.
// Semantics (docs/pipelines.md "Execution engine"): result-aware dependencies (`depends`
// expressions and trigger rules), skip propagation, templated inputs, every step type,
// retries with backoff, step/pipeline timeouts and deadline, fail-fast or continue, hooks,
// compensation, approval gates, pause/resume, cancel, retry-from-failed with memoization, and
// a StateSink that sees every transition before it is acted on.
// Not thread-safe: one engine is driven by one thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "budcore/core/http.hpp"
#include "budcore/core/notifier.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/pipeline/executors.hpp"
#include "budcore/pipeline/run_state.hpp"

namespace budcore::pipeline {

// The executors an engine uses; each must outlive it. A null executor makes steps of its
// type end Errored ("no job runner").
struct EngineDeps {
  const core::Clock* clock = nullptr;  // required
  JobRunner* jobs = nullptr;
  core::HttpClient* http = nullptr;
  core::Notifier* notifier = nullptr;
  const FunctionRegistry* functions = nullptr;
  StateSink* sink = nullptr;  // optional
};

// Rehearsal faults for in-process steps (JOB steps get theirs from SimJobRunner).
struct StepFault {
  int fail_attempts = 0;  // the first N attempts fail
  bool hang = false;      // the step never finishes (only its timeout ends it)
};

struct EngineOptions {
  std::string run_id = "run";
  std::string tenant;     // handed to FUNCTION steps' callables (FunctionCall::tenant)
  std::string principal;  // ... and FunctionCall::principal
  core::Value params;  // a map merged over pipeline.parameters (null: none)
  std::map<std::string, StepFault, std::less<>> faults;
  // A LOOP whose items would take the run's LOOP iterations (all LOOPs together, nested ones
  // multiply) past this fails (0: no limit). Every iteration is a step of the run's state,
  // which a platform stores at each transition.
  std::size_t max_loop_items = 0;
};

struct RetryFromFailedOptions {
  bool rerun_succeeded = false;  // also rerun succeeded steps (memoized when inputs are unchanged)
  core::Value params;            // a map merged over the run's params (null: unchanged)
};

class BUDCORE_API Engine {
 public:
  // Validates the document (validation.hpp plus the engine's own keys) and prepares a run.
  static core::Result<Engine> create(const core::Value& document, EngineDeps deps, EngineOptions options = {});
  // Resumes from a saved RunState (RunState::to_value / the last state a StateSink got).
  static core::Result<Engine> restore(const core::Value& document, EngineDeps deps, const core::Value& saved_state,
                                      EngineOptions options = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;

  // Pending -> Running. Idempotent once started.
  core::Status start();
  // Acts on everything due at clock.now(): timers, job polls, ready steps, phase changes.
  core::Status pump();
  // The earliest timer, deadline or job change the engine waits for (none: it waits only
  // for outside input, or it is done).
  std::optional<core::Timestamp> next_wakeup() const;
  // Drives a virtual clock: pump, advance to next_wakeup, repeat, until the run is done or
  // waits only for outside input (approval, event, resume). Returns the status reached.
  core::Result<PipelineStatus> run_virtual(core::VirtualClock& clock, std::size_t max_wakeups = 10'000'000);

  // Outside input. Each records a transition; approve/reject act at once, an event is seen
  // by WAIT steps at the next pump().
  core::Status signal(std::string_view event, core::Value payload = {});
  core::Status approve(std::string_view step_id, std::string_view approver);
  core::Status reject(std::string_view step_id, std::string_view approver, std::string_view reason = {});
  core::Status pause();
  core::Status resume();
  core::Status cancel(std::string_view reason = "cancelled");
  // After a Failed or Cancelled run: rerun what did not succeed, keeping succeeded steps'
  // outputs (or, with rerun_succeeded, memoizing them by input hash).
  core::Status retry_from_failed(RetryFromFailedOptions options = {});

  const RunState& state() const noexcept;
  PipelineStatus status() const noexcept;
  bool done() const noexcept;
  bool halted() const noexcept;  // the sink failed; nothing more is acted on

  struct Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Step ids -> output keys that templates anywhere in the document read as
// steps.<id>.outputs.<key> (a rehearsal runner uses them to fake plausible outputs).
BUDCORE_API std::map<std::string, std::vector<std::string>, std::less<>> referenced_output_keys(
    const core::Value& document);

}  // namespace budcore::pipeline
