// budcore::pipeline run state — everything the engine knows about one pipeline run
// (statuses, attempts, outputs, timers, received events, memoized results), serializable to
// JSON so a new engine can resume from the last saved state after a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/pipeline/step.hpp"

namespace budcore::pipeline {

// A step's state in a run. Terminal: Succeeded, Failed, Errored, Skipped, Omitted, Cancelled.
// Failed = the step's own failure (job failed, HTTP error status, callable error, timeout);
// Errored = the engine could not run it (template error, unknown function, transport error);
// Skipped = a false `condition` or an untaken CONDITION branch (and what that cascades to);
// Omitted = not run because its dependencies' results ruled it out (Argo's Omitted).
enum class StepState : std::uint8_t {
  Pending,
  AwaitingApproval,
  Running,
  Retrying,  // an attempt failed; the next one starts at timer_at
  Succeeded,
  Failed,
  Errored,
  Skipped,
  Omitted,
  Cancelled,
};
BUDCORE_API std::string_view to_string(StepState s) noexcept;
BUDCORE_API core::Result<StepState> parse_step_state(std::string_view text);
BUDCORE_API bool is_terminal(StepState s) noexcept;
// The model's coarser StepStatus (step.hpp).
BUDCORE_API StepStatus to_step_status(StepState s) noexcept;

// Which phase of a run is executing.
enum class RunPhase : std::uint8_t { NotStarted, Main, OnFailure, Compensating, Finally, Done };
BUDCORE_API std::string_view to_string(RunPhase p) noexcept;

enum class TimerKind : std::uint8_t { None, Retry, WaitDuration, Timeout };

struct StepRun {
  std::string id;
  StepState state = StepState::Pending;
  int attempts = 0;            // attempts started, over the whole run
  int attempt_base = 0;        // attempts before the last retry-from-failed (retry budgets count from here)
  core::Value outputs;         // a map once Succeeded
  std::string message;         // why it failed, was skipped, ...
  std::optional<core::Timestamp> started_at;   // first attempt
  std::optional<core::Timestamp> finished_at;
  std::optional<core::Timestamp> attempt_started_at;
  TimerKind timer = TimerKind::None;           // the pending timer, if any
  std::optional<core::Timestamp> timer_at;
  std::optional<core::Timestamp> timeout_at;   // step timeout of the running attempt
  std::string input_hash;      // hash of the resolved inputs of the last started attempt
  std::int64_t completion_seq = 0;  // order of success (compensation runs in reverse)
  std::string approved_by;
  core::Value items;           // LOOP: the resolved items (a list) once started

  // One element of RunState::to_value()'s "steps" (and of a journal record).
  core::Value to_value() const;
  static core::Result<StepRun> from_value(const core::Value& v);
};

struct RunState {
  int version = 1;
  std::string run_id;
  PipelineStatus status = PipelineStatus::Pending;
  RunPhase phase = RunPhase::NotStarted;
  bool paused = false;
  bool cancel_requested = false;
  bool failing = false;           // an unhandled failure happened (fail-fast or at the end)
  std::string failure_reason;
  std::optional<core::Timestamp> started_at;
  std::optional<core::Timestamp> finished_at;
  std::int64_t seq = 0;           // transitions so far
  std::int64_t completions = 0;   // successes so far (completion_seq source)
  core::Value params = core::Value(core::Map{});
  core::Value events = core::Value(core::Map{});  // named events received: name -> payload
  std::vector<StepRun> steps;     // main steps in document order, then hooks, then LOOP iterations
  struct Memo {
    std::string hash;
    core::Value outputs;

    core::Value to_value() const;  // {"hash", "outputs"}
    static Memo from_value(const core::Value& v);
  };
  std::map<std::string, Memo> memo;  // step id -> last successful result (set when it succeeds)

  const StepRun* find(std::string_view id) const noexcept;
  core::Value to_value() const;
  // The run-level fields alone: to_value() without "steps" and "memo", in the same order (a
  // journal record carries these plus only the step records that changed).
  core::Value fields_to_value() const;
  // Reads the run-level fields of a to_value() / fields_to_value() map into *this; steps and
  // memo are left as they are.
  core::Status read_fields(const core::Value& v);
  std::string to_json() const;
  static core::Result<RunState> from_value(const core::Value& v);
  static core::Result<RunState> from_json(std::string_view text);
};

// One state change, handed to the StateSink before the engine acts on it.
struct Transition {
  std::int64_t seq = 0;
  core::Timestamp at;
  std::string step;        // empty for a pipeline-level transition
  std::string from;        // a StepState / PipelineStatus name
  std::string to;
  int attempt = 0;
  std::string message;

  core::Value to_value() const;  // {"seq", "time", "step", "from", "to", "attempt", "message"}
};

// Persists transitions. save() runs before the engine acts on `transition`; `state` already
// includes it. An error halts the engine (nothing further is acted on): the caller treats it
// like a crash and resumes a new engine from the last state it saved.
class BUDCORE_API StateSink {
 public:
  virtual ~StateSink() = default;
  virtual core::Status save(const Transition& transition, const RunState& state) = 0;
  // What the engine calls: save() plus the indexes into state.steps of the step records that
  // changed since this engine's previous successful call (every record on the first call
  // after create or restore; possibly more than changed, never fewer). Records appended since
  // (LOOP iterations) are listed too. A sink that persists only what changed (JournalSink)
  // overrides this; the default ignores the list. A sink that forwards to another sink should
  // forward this call, or the inner sink loses the list.
  virtual core::Status save_changes(const Transition& transition, const RunState& state,
                                    std::span<const std::size_t> changed_steps) {
    (void)changed_steps;
    return save(transition, state);
  }
};

}  // namespace budcore::pipeline
