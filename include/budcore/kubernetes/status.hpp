// budcore::kubernetes status mapping — what Kueue's Workload and the Job (or Deployment) say,
// as a budcore JobStatus with a message a person can act on.
//
//   Job Complete=True / Workload Finished(Succeeded)        -> Completed
//   Job Failed=True / Workload Finished(other) / deactivated -> Failed (reason: message)
//   Workload Evicted=True reason Preempted, no quota         -> Preempted (Kueue's message and the
//                                                               Preempted condition's reason)
//   Workload QuotaReserved+Admitted, Job still suspended     -> Scheduled
//   ... unsuspended with pods active/ready, or started       -> Running (Deployment: available replicas)
//   Workload pending (QuotaReserved=False)                   -> Queued, with Kueue's Pending message
//   objects exist but no Workload yet                        -> Queued
#pragma once

#include <map>
#include <optional>
#include <string>

#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job_status.hpp"

namespace budcore::kubernetes {

struct Condition {
  std::string type, status, reason, message, last_transition_time;
};

// The condition of `type` in object.status.conditions, if present.
BUDCORE_API std::optional<Condition> find_condition(const core::Value& object, std::string_view type);

struct ObservedJob {
  job::JobStatus status = job::JobStatus::Pending;
  std::string message;
  std::string reason;                         // the condition reason that decided the status
  std::string cluster_queue;                  // admitted by
  std::map<std::string, std::string> flavors; // resource -> flavor (first pod set)
  std::string preemption_reason;              // InClusterQueue, InCohortReclamation, ... (Preempted)
  bool requeued = false;                      // Kueue put an evicted workload back in the queue
  // A batch Job's status.startTime, and when it ended (completionTime, or the Failed
  // condition's transition): the run's metered interval.
  std::optional<core::Timestamp> started_at;
  std::optional<core::Timestamp> finished_at;
};

// `job_object`: the batch/v1 Job or apps/v1 Deployment (nullptr when absent); `workload`: the
// Kueue Workload (nullptr when none exists yet).
BUDCORE_API ObservedJob observe_job(const core::Value* job_object, const core::Value* workload);

}  // namespace budcore::kubernetes
