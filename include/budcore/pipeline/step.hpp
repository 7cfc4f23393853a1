// budcore::pipeline step model (docs/pipelines.md): step types, statuses and the typed
// configuration of every step type.
//
// Wire format: enums are written lower-case ("api_call"); input may use any letter case
// ("API_CALL", as examples/specs/rag-pipeline.json writes). A Step keeps its config as the raw
// core::Value because config values may be templates ("{{ params.n }}") that only resolve at
// run time; parse_step_config() gives the typed view of a (resolved) config.
// FUNCTION, TRANSFORM, PARALLEL and LOOP configs are budcore's own (docs/pipelines.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/job/priority.hpp"

namespace budcore::pipeline {

enum class StepType : std::uint8_t {
  Job,           // creates a job::Job (the only type that uses cluster resources)
  ApiCall,       // HTTP request from the engine
  Function,      // a registered callable run in the engine
  Notification,  // alert/message
  Transform,     // outputs computed by templates
  Condition,     // if/else: then_steps / else_steps
  Parallel,      // concurrency group over listed steps
  Wait,          // delay or wait for a named event
  Loop,          // body step instantiated per item of a collection
};
inline constexpr StepType kAllStepTypes[] = {StepType::Job,      StepType::ApiCall,   StepType::Function,
                                             StepType::Notification, StepType::Transform, StepType::Condition,
                                             StepType::Parallel, StepType::Wait,      StepType::Loop};

enum class TriggerType : std::uint8_t { Manual, Scheduled, Event, Pipeline };

enum class StepStatus : std::uint8_t {
  Pending,
  Waiting,    // waiting for dependencies
  Running,
  Completed,
  Failed,
  Skipped,    // condition false or branch not taken
};

// A pipeline run's status (budcore's values).
enum class PipelineStatus : std::uint8_t { Pending, Running, Paused, Completed, Failed, Cancelled };

BUDCORE_API std::string_view to_string(StepType t) noexcept;
BUDCORE_API std::string_view to_string(TriggerType t) noexcept;
BUDCORE_API std::string_view to_string(StepStatus s) noexcept;
BUDCORE_API std::string_view to_string(PipelineStatus s) noexcept;
BUDCORE_API core::Result<StepType> parse_step_type(std::string_view text);
BUDCORE_API core::Result<TriggerType> parse_trigger_type(std::string_view text);
BUDCORE_API core::Result<StepStatus> parse_step_status(std::string_view text);
BUDCORE_API core::Result<PipelineStatus> parse_pipeline_status(std::string_view text);

// JOB: the job to create. Durations are seconds.
struct JobStepConfig {
  job::JobType job_type = job::JobType::Batch;                          // required
  job::DeploymentType deployment_type = job::DeploymentType::Docker;    // required
  std::optional<std::string> component_ref;
  core::Value spec;  // null or a map
  std::optional<std::string> cluster_id;
  std::optional<std::string> gpu_type;
  std::int64_t gpu_count = 0;
  double cpu_cores = 1.0;
  double memory_gb = 4.0;
  std::optional<std::int64_t> estimated_duration_seconds;  // the planner's duration
  std::optional<std::int64_t> max_duration_seconds;
  std::optional<std::string> time_window_start;  // "22:00"
  std::optional<std::string> time_window_end;
  job::JobPriority priority = job::JobPriority::Normal;
  bool preemptible = false;
  bool optimize_with_budsim = false;
};

struct ApiCallStepConfig {
  std::string url;  // required
  std::string method = "POST";
  core::Value headers = core::Value(core::Map{});
  core::Value body;  // null or any value
  std::int64_t timeout_seconds = 30;
  std::int64_t retry_count = 3;
};

// FUNCTION: calls a callable registered with the engine under `function`; `args` is passed
// as a map and the callable's returned map becomes the step's outputs.
struct FunctionStepConfig {
  std::string function;  // required: registered name
  core::Value args = core::Value(core::Map{});
  std::optional<std::int64_t> timeout_seconds;
};

struct NotificationStepConfig {
  std::string channel;  // required: "slack", "email", "webhook", "pagerduty"
  std::vector<std::string> recipients;  // required
  std::string message;  // required; a template
  std::string severity = "info";
};

// TRANSFORM: each entry of `outputs` is a template (or a value holding templates) rendered
// natively; the results are the step's outputs.
struct TransformStepConfig {
  core::Value outputs = core::Value(core::Map{});  // required: a map name -> template/value
};

struct ConditionStepConfig {
  std::string expression;               // required; a template
  std::vector<std::string> then_steps;  // required (may be empty)
  std::vector<std::string> else_steps;
};

// PARALLEL: a concurrency group. The listed steps keep their own depends_on (a PARALLEL step
// adds no edge, as contract 3 defines dependencies); the engine runs at most max_concurrency
// of them at once and judges the group by min_success_ratio / fail_fast.
struct ParallelStepConfig {
  std::vector<std::string> steps;  // required
  std::optional<std::int64_t> max_concurrency;  // >= 1; absent = unlimited
  bool fail_fast = true;
  double min_success_ratio = 1.0;  // in [0, 1]
};

struct WaitStepConfig {
  std::optional<std::int64_t> duration_seconds;  // one of duration_seconds / wait_for_event
  std::optional<std::string> wait_for_event;
  std::int64_t timeout_seconds = 3600;
};

// LOOP: `items` is a list or a template yielding one; `body` is an inline step (step_type +
// config, no id) instantiated once per item with `item` and `loop` in scope. The LOOP step's
// outputs are {"results": [body outputs, in item order]}.
struct LoopStepConfig {
  core::Value items;  // required
  core::Value body;   // required: {"step_type": ..., "config": {...}}
  std::optional<std::int64_t> max_concurrency;
  bool fail_fast = true;
};

using StepConfig = std::variant<JobStepConfig, ApiCallStepConfig, FunctionStepConfig, NotificationStepConfig,
                                TransformStepConfig, ConditionStepConfig, ParallelStepConfig, WaitStepConfig,
                                LoopStepConfig>;

// Typed view of a config whose templates are resolved. Errors name the config field.
BUDCORE_API core::Result<StepConfig> parse_step_config(StepType type, const core::Value& config);
// The same checks on a config as written: every literal value must have its field's type, while
// a template string ("{{ ... }}", "{% ... %}") may stand for any field (checked once resolved).
BUDCORE_API core::Status check_step_config_literals(StepType type, const core::Value& config);

// The config keys a step type requires. WAIT requires one of duration_seconds / wait_for_event
// (reported as duration_seconds).
BUDCORE_API std::vector<std::string_view> required_config_fields(StepType type);

struct BUDCORE_API Step {
  std::string id;  // unique within the pipeline; may contain '-'
  std::string name;
  std::int64_t order = 0;
  StepType step_type = StepType::Job;
  std::vector<std::string> depends_on;
  std::optional<std::string> condition;  // template; false -> Skipped
  core::Value config = core::Value(core::Map{});  // raw, templates unresolved

  // JOB: config.estimated_duration_seconds; WAIT: config.duration_seconds; else 0.
  double planned_duration_seconds() const noexcept;
  core::Value to_value() const;
};

}  // namespace budcore::pipeline
