// budcore::platform what-if simulation — `budcore platform simulate SCENARIO`: a cluster
// inventory, a quota configuration, jobs and pipelines submitted at given virtual times, injected
// failures and operator actions, run to completion on a virtual clock through a real Platform
// (in-memory store, simulated cluster). docs/platform.md "Scenarios" describes the format:
//
//   start: "2026-01-01T00:00:00Z"        # virtual start (default the platform's)
//   until_seconds: 86400                 # horizon (default: until nothing is left, at most a year)
//   cluster: {...}  quota: {...}  queues: {...}  retry: {...}    # as in a platform config
//   cost: {prices: ..., budgets: [...]}  # as in a platform config (paths relative to the scenario)
//   jobs:
//     - at: 0                            # seconds after start
//       tenant: team-a                   # a name (default "default") or a UUID
//       key: nightly-1                   # idempotency key (optional)
//       count: 10                        # submit this many copies ("<name>-<i>"), every_seconds apart
//       every_seconds: 60
//       sim: {duration_seconds: 900, fail_attempts: 1, fail_after_seconds: 30, fail_message: "OOM"}
//       job: {...}                       # a job document (job/job.hpp), or file: path/to/job.yaml
//   pipelines:
//     - at: 0
//       tenant: team-a
//       params: {...}
//       document: {...}                  # a pipeline document, or file: path/to/pipeline.json
//   actions:
//     - {at: 3600, cancel: <job name>}
//     - {at: 7200, preempt: <job name>}
//     - {at: 100, priority: high, job: <job name>}
//
// Unknown keys are Invalid with a hint; errors name the path ("jobs[3].job.gpu_count").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/platform/config.hpp"

namespace budcore::platform {

struct BUDCORE_API ScenarioJob {
  double at_seconds = 0;
  std::string tenant = "default";
  std::string key;
  std::int64_t count = 1;
  double every_seconds = 0;
  job::Job job;
};

struct BUDCORE_API ScenarioPipeline {
  double at_seconds = 0;
  std::string tenant = "default";
  core::Value params;
  core::Value document;
};

struct BUDCORE_API ScenarioAction {
  enum class Kind : std::uint8_t { Cancel, Preempt, Priority } kind = Kind::Cancel;
  double at_seconds = 0;
  std::string job;  // the job's name (the first job of that name, or "<name>-<i>" for copies)
  job::JobPriority priority = job::JobPriority::Normal;
};

struct BUDCORE_API Scenario {
  static constexpr std::size_t kMaxDocumentBytes = 16u << 20;
  static constexpr std::int64_t kMaxJobs = 1'000'000;  // after expanding `count`

  PlatformConfig config;  // store: in memory; clock: virtual
  std::optional<double> until_seconds;
  std::vector<ScenarioJob> jobs;
  std::vector<ScenarioPipeline> pipelines;
  std::vector<ScenarioAction> actions;

  // `base_dir` resolves `file:` references (empty: files are refused).
  static core::Result<Scenario> from_value(const core::Value& doc, const std::string& base_dir = {});
  static core::Result<Scenario> parse(std::string_view text, const std::string& base_dir = {});
};

// One job of the outcome: its times are seconds after the scenario's start (null: never).
struct BUDCORE_API ScenarioJobOutcome {
  std::string name;
  std::string tenant;
  std::string job_type;
  std::string priority;
  std::string status;
  std::string cluster_queue;  // where it last ran ("" when never admitted)
  std::string flavor;         // the GPU flavor (or first flavor) it last ran on
  std::optional<double> submitted_at, queued_at, admitted_at, started_at, ended_at;
  double wait_seconds = 0;    // time spent QUEUED before each admission, summed
  std::int64_t preemptions = 0;
  std::int64_t retries = 0;
  std::string message;
  std::string actual_cost;  // "1.000555555556 USD" with a `cost` section, once the job ended ("" otherwise)
};

struct BUDCORE_API ScenarioOutcome {
  core::Timestamp start;
  core::Timestamp end;
  std::vector<ScenarioJobOutcome> jobs;  // in submission order
  core::Value pipelines;                 // [{"name", "tenant", "status", "steps": {id: state}}]
  std::vector<std::string> log;          // what happened, in order: admissions, waits, preemptions
  std::int64_t events = 0;               // transitions recorded
  std::string metrics;                   // the platform's metrics at the end (Prometheus text)

  core::Value to_value() const;  // {"start", "end", "elapsed_seconds", "jobs": [...], "pipelines", "log"}
  std::string table() const;     // the job table a person reads
};

// Runs the scenario to its horizon. `progress`, when given, is called now and then with the
// share of submitted jobs that have ended (0..1).
BUDCORE_API core::Result<ScenarioOutcome> simulate(const Scenario& scenario,
                                                   const std::function<void(double)>& progress = {});

}  // namespace budcore::platform
