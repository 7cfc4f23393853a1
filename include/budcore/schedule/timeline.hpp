// budcore::schedule::Timeline — when will each job start and end under the real quota rules.
// A deterministic discrete-event simulation: at `now` and at every later event (a submission,
// a job's end, a window opening) the quota admission engine runs scheduling cycles exactly as
// `budcore quota simulate` does until nothing changes, over the jobs that are submitted, whose
// dependencies have ended and whose window is open. Each cohort tree gets an engine of its own
// (trees never share quota), so an event costs only its own tree's cycles.
//
// Live use (docs/schedule.md "Live updates"): create() from the current state, then feed
// what really happened (started, finished early or late, failed, preempted, submitted,
// cancelled) and read the revised estimates; only the cohort trees the event can reach are simulated again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/export.h"
#include "budcore/quota/admission.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/workload.hpp"

namespace budcore::schedule {

// A daily admission window [start, end) read in an IANA zone ("UTC", "Europe/Berlin"). An end
// before the start crosses midnight; start == end is open all day (core::TimeWindow's rules).
struct Window {
  core::TimeOfDay start;
  core::TimeOfDay end;
  std::string zone = "UTC";
};

// The first instant >= `t` at which `w` is open, read in its zone (`t` itself when open now).
// Invalid (field "zone") when the zone is unknown.
BUDCORE_API core::Result<core::Timestamp> next_window_open(const Window& w, core::Timestamp t);

// One job of the timeline: a quota workload plus what the simulation needs to know about time.
struct JobInput {
  quota::Workload workload;  // `admitted` set: the job runs now (started at `started_at`)
  core::Duration duration;   // estimated run time; >= 0
  std::optional<core::Timestamp> submit_at;  // unset or <= now: already queued
  std::vector<std::string> depends_on;       // names of jobs that must end first
  core::Timestamp started_at;                // admitted jobs only
  std::optional<Window> window;              // may only be admitted inside it
  std::optional<core::Timestamp> deadline;
  std::string pipeline;  // grouping for pictures (one colour per pipeline); "" = standalone
  std::string label;     // what people call the job in pictures (its name); "" = the workload name
};

struct TimelineInput {
  quota::QuotaConfig config;
  quota::EngineOptions engine_options;
  std::vector<JobInput> jobs;
  core::Timestamp now;
  core::Duration horizon = core::Duration::seconds(365LL * 24 * 3600);
};

// Why a job starts later than it was submitted (the last thing it waited for). Placement: the
// quota admitted it but no node can take it yet (the platform's view of its simulated cluster).
enum class WaitReason { None, Quota, Dependency, Window, Placement };
BUDCORE_API std::string_view to_string(WaitReason r) noexcept;

struct JobEstimate {
  std::string name;  // output name: the workload name, or namespace/name when names repeat
  std::string key;   // namespace/name
  std::string cluster_queue;
  std::map<std::string, std::map<std::string, std::string>> flavors;  // pod set -> resource -> flavor
  core::Timestamp start;  // last start (after a preemption, the restart)
  core::Timestamp end;
  std::optional<bool> deadline_met;
  std::vector<core::Timestamp> preempted_at;
  bool running = false;   // already running at `now` (start is actual, not estimated)
  bool finished = false;  // ended before `now` (start and end are actual)
  WaitReason wait = WaitReason::None;
  std::string wait_detail;  // the engine's reason, or the dependency / window that held it
  std::string pipeline;
  std::string label;  // the input's label, else `name`: what pictures and tables show
  std::int32_t priority = 0;
  std::map<std::string, std::int64_t> gpus;  // accelerator resource -> devices held
};

// One change of a ClusterQueue's usage: from `at` on it uses `used` (milli-units).
struct UsageStep {
  core::Timestamp at;
  std::string cluster_queue, flavor, resource;
  std::int64_t used = 0;
};

// The head of a StrictFIFO ClusterQueue that a job waits behind and can never pass (the head
// itself never runs).
struct QueueBlocker {
  std::string head;           // the head job's name
  std::string cluster_queue;  // the queue they wait in
};

struct TimelineResult {
  std::vector<JobEstimate> jobs;          // sorted by start, then name
  std::map<std::string, std::string> never;  // name -> why it can never run (within the horizon)
  std::map<std::string, QueueBlocker> blocked_behind;  // name (one of `never`) -> what it waits behind
  core::Duration makespan;                // last end - now (0 without jobs)
  std::vector<std::string> warnings;      // e.g. a deadline already in the past
  std::vector<UsageStep> usage;           // per-queue utilization over time, in time order
  core::Timestamp now;
};

// Thread-safety: none; use one Timeline per thread or lock around it.
class BUDCORE_API Timeline {
 public:
  // Validates (errors name the path: "workloads[3].depends_on[0]", "config..." paths as in
  // quota::validate) and simulates. Dependency cycles and unknown dependencies are errors;
  // jobs that can never run are listed under `never` with the reason.
  static core::Result<Timeline> create(TimelineInput input);
  Timeline(Timeline&&) noexcept;
  Timeline& operator=(Timeline&&) noexcept;
  ~Timeline();

  const TimelineResult& result() const;
  const JobEstimate* find(std::string_view name) const;  // nullptr: unknown or never

  // ---- live events. `at` must not be before the timeline's `now`; each one moves
  // `now` to `at`, applies the fact and re-simulates the cohort trees it can affect.
  // NotFound for an unknown job, Conflict for a fact that contradicts the state (finishing a
  // job that is not running), Invalid for a time before now.
  core::Status started(std::string_view name, core::Timestamp at, const quota::Admission& admission);
  core::Status finished(std::string_view name, core::Timestamp at);  // early or late
  // The job ended without success: its dependents can never run.
  core::Status failed(std::string_view name, core::Timestamp at);
  core::Status preempted(std::string_view name, core::Timestamp at);  // back to its queue
  core::Status submitted(JobInput job, core::Timestamp at);
  core::Status cancelled(std::string_view name, core::Timestamp at);
  // Time passes with nothing reported: running jobs past their estimate are assumed to end at
  // `at` at the earliest.
  core::Status advance(core::Timestamp at);

  // How many cohort trees the last create/event simulated (for tests and benchmarks).
  int trees_simulated() const;
  // The scenario's quota configuration (a submitted job's priority class is looked up here).
  const quota::QuotaConfig& config() const;

  struct Impl;

 private:
  explicit Timeline(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace budcore::schedule
