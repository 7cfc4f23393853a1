// budcore::pipeline triggers: what starts a pipeline run besides a person.
//  - cron: decide_cron_run() is Kubernetes CronJob's controller decision as a pure function
//    (most recent unmet schedule time, starting deadline, concurrency policy Allow/Forbid/Replace);
//  - named events: an event whose name matches starts a pipeline, its payload turned into the
//    run's parameters through templates;
//  - pipeline completion: pipeline X finishing with a status in a set starts pipeline Y.
// See docs/triggers.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/pipeline/cron.hpp"
#include "budcore/pipeline/step.hpp"

namespace budcore::pipeline {

// ---- cron ----

enum class ConcurrencyPolicy : std::uint8_t {
  Allow,    // runs may overlap
  Forbid,   // skip a new run while one is active (retried until the starting deadline passes)
  Replace,  // cancel the active runs, then start the new one
};
BUDCORE_API std::string_view to_string(ConcurrencyPolicy p) noexcept;
// "Allow"/"allow", "Forbid", "Replace"; anything else is Invalid (field "concurrency_policy").
BUDCORE_API core::Result<ConcurrencyPolicy> parse_concurrency_policy(std::string_view text);

struct CronPolicy {
  std::optional<core::Duration> starting_deadline;  // Kubernetes startingDeadlineSeconds
  ConcurrencyPolicy concurrency = ConcurrencyPolicy::Allow;
  bool suspend = false;
};

struct ActiveRun {
  std::string run_id;
  core::Timestamp scheduled_time;
};

struct CronState {
  core::Timestamp created;                        // when the trigger was created
  std::optional<core::Timestamp> last_schedule_time;  // schedule time of the last run started
  std::vector<ActiveRun> active;                  // runs of this trigger still running
};

enum class CronAction : std::uint8_t {
  None,     // nothing due
  Start,    // start a run for scheduled_time (after cancelling `replace`)
  Skip,     // a schedule time is due but may not start now (see reason)
};

struct CronDecision {
  CronAction action = CronAction::None;
  std::optional<core::Timestamp> scheduled_time;  // the most recent unmet schedule time
  std::vector<std::string> replace;               // Replace: run ids to cancel before starting
  // Unmet schedule times between the last schedule (or the deadline window) and now; only the
  // most recent one starts, as in Kubernetes. Counting stops past 100 (too_many_missed).
  std::int64_t missed = 0;
  bool too_many_missed = false;
  // When Start: store this as CronState::last_schedule_time.
  std::optional<core::Timestamp> new_last_schedule_time;
  std::optional<core::Timestamp> next_schedule_time;  // first schedule time after now: call again then
  std::string reason;  // a sentence a person can read: why this action
};

// Pure and deterministic; now comes from the caller's Clock.
BUDCORE_API CronDecision decide_cron_run(const CronSchedule& schedule, const CronPolicy& policy,
                                         const CronState& state, core::Timestamp now);

// ---- events and pipeline completion ----

struct Event {
  std::string name;     // "model.uploaded"
  core::Value payload;  // any JSON-like value
  core::Timestamp time;
  std::string source;   // optional: who raised it
};

struct PipelineFinished {
  std::string pipeline;  // pipeline id
  std::string run_id;
  PipelineStatus status = PipelineStatus::Completed;
  core::Value outputs;     // the run's outputs (map or null)
  core::Value parameters;  // the run's parameters (map or null)
  core::Timestamp finished_at;
  int chain_depth = 0;  // how many completion triggers led to this run (0: started otherwise)
};

// Parameters are templates rendered natively (a lone `{{ expr }}` keeps its type); a non-string
// value is passed through unchanged. Context for event triggers:
//   event.name, event.payload, event.time, event.source
// and for completion triggers:
//   pipeline.id, pipeline.run_id, pipeline.status, pipeline.outputs, pipeline.parameters,
//   pipeline.finished_at
// `condition` (optional) is a template evaluated natively; a falsy result means "do not fire".
struct EventTriggerSpec {
  std::string name;      // trigger id, unique in a TriggerSet
  std::string event;     // event name to match; a trailing '*' matches a prefix ("model.*")
  std::string pipeline;  // pipeline to start
  std::string condition;
  core::Map parameters;
};

struct CompletionTriggerSpec {
  std::string name;
  std::string source_pipeline;                                     // X
  std::vector<PipelineStatus> statuses = {PipelineStatus::Completed};  // empty: any terminal status
  std::string pipeline;                                            // Y
  std::string condition;
  core::Map parameters;
};

struct TriggerFiring {
  std::string trigger;   // the spec's name
  TriggerType type = TriggerType::Event;
  std::string pipeline;  // the pipeline to start
  core::Map parameters;  // rendered
  std::string cause;     // "event model.uploaded" / "pipeline train run r-17 completed"
  std::optional<std::string> triggered_by_run_id;  // completion triggers
  int chain_depth = 0;
};

struct TriggerOutcome {
  std::vector<TriggerFiring> firings;  // in spec order
  std::vector<core::Error> errors;     // a trigger whose template failed (field names it); others still fire
};

struct TriggerSetOptions {
  // Completion chains deeper than this are refused (an error in the outcome), so
  // "A finished -> start A" cannot loop forever.
  int max_chain_depth = 16;
};

class BUDCORE_API TriggerSet {
 public:
  // Validates every spec and compiles its templates; the first problem is returned, its field
  // naming the spec ("event_triggers[1].parameters.model", "completion_triggers[0].statuses").
  static core::Result<TriggerSet> compile(std::vector<EventTriggerSpec> events,
                                          std::vector<CompletionTriggerSpec> completions,
                                          TriggerSetOptions options = {});

  TriggerOutcome on_event(const Event& event) const;
  TriggerOutcome on_pipeline_finished(const PipelineFinished& finished) const;

  struct Impl;

 private:
  explicit TriggerSet(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace budcore::pipeline
