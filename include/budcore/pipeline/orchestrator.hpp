// budcore::pipeline::Orchestrator — connects triggers to runs. It holds registered pipeline
// documents, derives each one's trigger from `pipeline.trigger_type` (cron schedule, named
// event, another pipeline finishing), starts an Engine per run and drives all of them on one
// Clock. Deterministic: the same documents, inputs and clock give the same runs, run ids,
// firings and transitions. Not thread-safe: one thread drives it. See docs/triggers.md
// ("Running triggers: the Orchestrator").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/clock.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/pipeline/engine.hpp"
#include "budcore/pipeline/trigger.hpp"

namespace budcore::pipeline {

// What a trigger did (or refused to do) at one moment.
enum class FiringAction : std::uint8_t {
  Start,    // a run was started
  Skip,     // a cron time was due but not started (Forbid with an active run, too late, ...)
  Replace,  // an active run was cancelled by a Replace schedule
  Error,    // a trigger could not fire (template error, chain too deep, engine refused the run)
};
BUDCORE_API std::string_view to_string(FiringAction a) noexcept;

struct BUDCORE_API FiringRecord {
  core::Timestamp time;    // clock time of the decision
  std::string pipeline;    // the pipeline the trigger belongs to (the one to start)
  TriggerType trigger = TriggerType::Manual;
  FiringAction action = FiringAction::Start;
  std::string run_id;      // Start: the new run; Replace: the cancelled run; else empty
  std::string cause;       // "cron 0 * * * * at 2026-01-01T01:00:00Z", "event model.uploaded", ...
  std::optional<core::Timestamp> scheduled_time;  // cron triggers
  std::optional<std::string> triggered_by_run_id;  // completion triggers
  std::string message;     // why (Skip, Error)
  std::string field;       // Error: the offending document field, if any

  core::Value to_value() const;
};

struct BUDCORE_API RunRecord {
  std::string run_id;
  std::string pipeline;
  TriggerType trigger = TriggerType::Manual;
  std::string cause;
  PipelineStatus status = PipelineStatus::Pending;
  std::optional<core::Timestamp> scheduled_time;
  std::optional<std::string> triggered_by_run_id;
  int chain_depth = 0;
  core::Value params;  // the parameters the run was started with (map)
  core::Timestamp created_at;
  std::optional<core::Timestamp> finished_at;

  core::Value to_value() const;
};

// An engine transition tagged with the run it belongs to.
struct RunTransition {
  std::string pipeline;
  std::string run_id;
  const Transition* transition = nullptr;
  const RunState* state = nullptr;
};

struct OrchestratorOptions {
  // Completion chains deeper than this are refused (recorded as an Error firing).
  int max_chain_depth = 16;
  // Called for every firing record and every engine transition, in order.
  std::function<void(const FiringRecord&)> on_firing;
  std::function<void(const RunTransition&)> on_transition;
  // Safety net for pump(): rounds of "start runs, pump engines, feed completions" per call.
  int max_rounds_per_pump = 1000;
  // Retention for long-lived schedulers: 0 keeps every run; N keeps the N most recently started
  // finished runs (and every active one). Older finished runs are dropped at the end of pump(),
  // after their completion triggers fired; run ids keep counting.
  std::size_t keep_finished_runs = 0;
};

class BUDCORE_API Orchestrator {
 public:
  // shared_deps.clock is required; its executors are shared by every run. shared_deps.sink,
  // when set, sees every transition of every run (after on_transition).
  Orchestrator(EngineDeps shared_deps, OrchestratorOptions options = {});
  ~Orchestrator();
  Orchestrator(Orchestrator&&) noexcept;
  Orchestrator& operator=(Orchestrator&&) noexcept;

  // Registers a pipeline document under `pipeline.id` and derives its trigger. A bad document
  // or trigger config is an Invalid error naming the field ("pipeline.event_config.event");
  // nothing is registered then. A second document with the same id is AlreadyExists.
  core::Status add_pipeline(const core::Value& document);
  bool has_pipeline(std::string_view pipeline_id) const;

  // Starts a MANUAL run of any registered pipeline; params (a map or null) are merged over
  // pipeline.parameters. Returns the run id.
  core::Result<std::string> start_run(std::string_view pipeline_id, core::Value params = {});
  // Delivers the event to every running engine (Engine::signal, for WAIT-for-event steps),
  // then starts every EVENT pipeline whose trigger matches. An event time left at the epoch
  // is taken from the clock. Returns the ids of the runs started.
  core::Result<std::vector<std::string>> post_event(Event event);
  // Cancels a run (its engine runs its finally hooks at the next pump()).
  core::Status cancel_run(std::string_view run_id, std::string_view reason = "cancelled");

  // Fires due cron schedules, pumps every running engine and starts the runs that finished
  // runs trigger, until nothing more is due at clock.now().
  core::Status pump();
  // The earliest cron time or engine wakeup; none when only outside input can change anything.
  std::optional<core::Timestamp> next_wakeup() const;
  // Drives a virtual clock (which must be shared_deps.clock) from now to `until`: pump, move
  // to the next wakeup, repeat; ends with the clock at `until`, pumped.
  core::Status run_virtual(core::VirtualClock& clock, core::Timestamp until);

  // The cron fire times of a SCHEDULED pipeline in (from, until], at most `limit` of them
  // (a catch-up/backfill dry run). Other pipelines are Invalid; unknown ones NotFound.
  core::Result<std::vector<core::Timestamp>> preview(std::string_view pipeline_id, core::Timestamp from,
                                                     core::Timestamp until, std::size_t limit = 10'000) const;

  // Everything a restarted process needs to carry on, as a JSON-safe map:
  //   {"version": 1,
  //    "pipelines": {id: {"created", "last_schedule_time", "missed_until", "runs_started"}},
  //    "runs": [RunRecord::to_value() plus "state" (the engine's RunState::to_value()),
  //             "completion_fired", "cancel_requested"]}
  // Save it where the embedding service keeps its state after pump() (or from on_firing /
  // on_transition, to lose nothing between pumps). Like the orchestrator, it keeps every run.
  core::Value checkpoint() const;
  // Loads a checkpoint into an orchestrator that holds the same pipeline documents
  // (add_pipeline first) and no runs yet. Cron bookkeeping comes back, so times missed while
  // the process was down are judged against the last schedule time as a CronJob's
  // status.lastScheduleTime is (starting deadline, concurrency policy); run ids continue where
  // they stopped; each run's engine resumes from its saved state (Engine::restore), or from
  // `newer_states[run_id]` when the caller kept a later one (a JournalSink per run).
  // Errors name the field ("checkpoint.runs[2].status"): Invalid, NotFound for a pipeline
  // that is not registered, Conflict when runs exist. Nothing is applied on error.
  core::Status restore(const core::Value& checkpoint,
                       const std::map<std::string, core::Value, std::less<>>& newer_states = {});

  // Runs in start order.
  const std::vector<RunRecord>& runs() const noexcept;
  const RunRecord* find_run(std::string_view run_id) const noexcept;
  // The run's engine (null for unknown ids); valid until the orchestrator is destroyed or the
  // run is dropped (keep_finished_runs). Pointers from runs()/find_run() last until the next
  // call that starts or drops runs.
  const Engine* engine(std::string_view run_id) const noexcept;
  const std::vector<FiringRecord>& firings() const noexcept;
  std::size_t active_runs() const noexcept;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace budcore::pipeline
