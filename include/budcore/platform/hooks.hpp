// Extension points of the Platform (docs/platform.md "Hooks"): what budgets, tenant policy,
// RBAC, rate limits and metering plug in without changing the Platform's API.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/backend/cluster_backend.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/platform/context.hpp"

namespace budcore::platform {

// Why a gate is asked.
enum class GateStage : std::uint8_t {
  Submit,    // a new job (submit, submit_batch, a pipeline's JOB step, a use-case deploy's jobs)
  Retry,     // a failed job about to start another run (automatic or retry_job)
  Priority,  // a job as it would be after set_priority (only its priority differs)
};

// Consulted before a job is handed to the cluster, in the order added. A denial is the error
// the gate returns (BudgetExceeded, QuotaExceeded, Security, ... naming the reason); the
// Platform prefixes the gate's name. On Submit nothing is created; on an automatic Retry the
// job stays FAILED with the denial as its message. Called with the Platform's lock held, from
// the calling thread: a gate must not call back into the Platform.
class BUDCORE_API AdmissionGate {
 public:
  virtual ~AdmissionGate();
  virtual std::string_view name() const noexcept = 0;
  virtual core::Status admit(const CallContext& caller, const job::Job& job, GateStage stage) = 0;
};

// What a call asks to do: verb ("create", "get", "list", "cancel", "retry", "update",
// "preempt", "watch", "run", "deploy", "teardown", "bind", "unbind", "verify"), resource
// ("jobs", "pipeline_runs", "usecase_deployments", "events", "role_bindings", "audit",
// "costs"), the object's id when there is one, and for jobs the project the job belongs to
// (create: the submitted job's; get/cancel/...: the stored job's; list: the filter's, if any).
struct AccessRequest {
  std::string_view verb;
  std::string_view resource;
  const core::Id* object = nullptr;
  const core::Id* project = nullptr;
};

// Asked before a Platform call reads or writes anything of the caller's (for a job named by
// id: after the platform looked up its project, before anything is returned or changed). An
// error refuses the call (Security, naming what is missing); the platform audits the denial.
// Without one every call within the caller's tenant is allowed; `security.rbac: true` in the
// config installs RbacAuthorizer (rbac.hpp).
class BUDCORE_API Authorizer {
 public:
  virtual ~Authorizer();
  virtual core::Status authorize(const CallContext& caller, const AccessRequest& request) = 0;
};

// Sees every metered interval the cluster reports (one per run segment: start to completion,
// failure, preemption or cancel), after the batch that recorded the run's transitions has
// committed, in the cluster's order. (Usage records are written by the JobCostMeter, inside
// that batch's transaction: an observer sees what has already been metered.)
// Called with the Platform's lock held: an observer must not call back into the Platform.
class BUDCORE_API UsageObserver {
 public:
  virtual ~UsageObserver();
  virtual void on_usage(const core::Id& tenant, const core::Id& job_id, std::int64_t run,
                        const backend::UsageInterval& usage) = 0;
};

// Prices jobs for their own documents (platform::CostControls implements it; docs/cost.md "On a
// platform"). Called with the Platform's lock held; it must not call back into the Platform.
// record_usage and actual_cost are called inside the Platform's write transactions and must
// read and write through `tx` only (the Platform's own Store handle is busy with it); the other
// calls are made outside them and may read the Store.
class BUDCORE_API JobCostMeter {
 public:
  virtual ~JobCostMeter();
  // A run segment the cluster reported (start to completion, failure, preemption or cancel),
  // in the transaction of the batch that holds it: the one that records the transition ending
  // the run when the cluster reports both together (the simulated cluster reports a segment
  // right before the end), so they commit together or not at all. `job` is the job as that
  // batch leaves it. An error fails the batch (a store failure); a segment that cannot be
  // priced is the meter's to count. The default meters nothing.
  virtual core::Status record_usage(backend::Store& tx, const core::Id& tenant, const job::Job& job,
                                    const backend::UsageInterval& usage);
  // An ended job (COMPLETED, CANCELLED, or FAILED with no retry pending): what all its runs
  // metered so far cost, in the job's currency, read in `tx` (so the segments of the same batch
  // count). The Platform writes it to the job's actual_cost in that transaction: the one that
  // ends the job, and the one of a batch holding a segment reported after the end (a cancelled
  // run's). nullopt: the job cannot be priced; actual_cost stays as it is.
  virtual std::optional<core::Money> actual_cost(backend::Store& tx, const core::Id& tenant, const job::Job& job) = 0;
  // A run of a job with a budget_limit is running since `started`: the first time at which the
  // job's cost (its earlier runs plus this run) would pass the limit; nullopt when it never
  // will or cannot be priced. The Platform checks the job then (check_budget).
  virtual std::optional<core::Timestamp> budget_deadline(const core::Id& tenant, const job::Job& job,
                                                         core::Timestamp started) = 0;
  // BudgetExceeded (naming budget_limit) when the job's cost with this run priced from
  // `started` to `now` passes its budget_limit: the Platform stops the run and fails the job
  // for good with that message. OK otherwise (and when the job cannot be priced).
  virtual core::Status check_budget(const core::Id& tenant, const job::Job& job, core::Timestamp started,
                                    core::Timestamp now) = 0;
  // Budgets that stop running jobs (a budget's stop_running): after a batch of usage was
  // metered, or a run started, the Platform asks whether any such budget has passed at `now`
  // (refresh_stops), and only then, for each running job, which passed budget covers it
  // (stop_reason: a message naming the budget). The Platform stops those runs and fails their
  // jobs for good with "BudgetExceeded: <reason>". Spend counts metered segments, so a budget is
  // seen passing when a segment ends, not in the middle of one. (CostControls also raises
  // budget threshold alerts in refresh_stops.)
  virtual bool refresh_stops(core::Timestamp now);
  virtual std::optional<std::string> stop_reason(const core::Id& tenant, const job::Job& job);
};

// One sample of a metric kept outside the platform (a serverless endpoint's), reported to
// Platform::metrics() by a source (Platform::add_metrics_source): a metric the platform
// describes (docs/platform.md "Metrics"), its labels, and its value: a counter's total so far,
// a gauge's value now.
struct MetricSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
};
// Called by metrics() under the platform's lock, from the thread calling metrics(): it must not
// call the platform, and must be safe to call while its owner works on another thread. nullopt:
// the source is gone (its owner closed) and is dropped.
using MetricsSource = std::function<std::optional<std::vector<MetricSample>>()>;

}  // namespace budcore::platform
