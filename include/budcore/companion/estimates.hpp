// budcore::companion estimates — when each pending Workload of the cluster should be admitted
// and end: schedule::Timeline run over the live Kueue state (queues, cohorts, flavors, the
// admitted Workloads and their expected durations, the pending ones in queue order), written
// back on every pending Workload as annotations (docs/kueue-companion.md "Estimates").
//
// Annotations rather than a condition: Kueue owns status.conditions of a Workload and rewrites
// them; it never touches annotations it does not know.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/companion/companion.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/quota/config.hpp"

namespace budcore::companion {

// RFC 3339 UTC, whole seconds: when the Workload is expected to be admitted and to end.
inline constexpr std::string_view kEstimatedStartAnnotation = "budcore.io/estimated-start";
inline constexpr std::string_view kEstimatedEndAnnotation = "budcore.io/estimated-end";
// Why there is no estimate: it can never be admitted (asks more than its queue can ever give,
// its LocalQueue is missing, ...) or cannot be estimated (no expected duration, deactivated).
inline constexpr std::string_view kEstimateReasonAnnotation = "budcore.io/estimate-reason";

// The estimate of one pending Workload (no quota reserved, not finished).
struct WorkloadEstimate {
  std::string namespace_, name, uid;
  std::optional<core::Timestamp> start;  // absent with a reason
  std::optional<core::Timestamp> end;    // absent when its duration is unknown
  std::string reason;                    // set when start is absent, or to say why end is
  friend bool operator==(const WorkloadEstimate&, const WorkloadEstimate&) = default;
};

struct EstimatesResult {
  std::vector<WorkloadEstimate> estimates;  // one per pending Workload in a queue, in queue order
  // The earliest estimated start or end after `now`: past it without news, the estimates are
  // stale (something expected did not happen) and worth computing again.
  std::optional<core::Timestamp> valid_until;
  std::vector<std::string> warnings;  // Workloads left out of the simulation, and why
};

// The pure estimate: `quota` is the cluster's Kueue configuration (kubernetes::read_quota,
// quota::import_kueue), `workloads` every kueue.x-k8s.io Workload object. A Workload holding
// quota (QuotaReserved=True, not finished) runs from its reservation for its expected duration
// (expected_duration(), the queue's default found through its LocalQueue when it has no
// admission yet); pending ones queue in their LocalQueue's ClusterQueue by priority
// (spec.priority) and creation time. Invalid (field "workloads[i]...") for a Workload that
// cannot be read; a bad quota configuration is the Timeline's Invalid. `owner_annotations`
// (Workload uid -> the owning Job's annotations) fill in what a Workload lacks, as in
// read_workload(): Kueue does not copy a Job's budcore.io/expected-duration to its Workload.
using OwnerAnnotations = std::map<std::string, std::map<std::string, std::string>>;
BUDCORE_API core::Result<EstimatesResult> estimate_workloads(const CompanionConfig& config, const quota::QuotaConfig& quota,
                                                             const std::vector<core::Value>& workloads, core::Timestamp now,
                                                             const OwnerAnnotations& owner_annotations = {});

// The merge patch of metadata.annotations that makes `workload` show `estimate` (a null value
// removes an annotation), or nullopt when it shows it already. A time it shows is kept while the
// estimate is within estimate_tolerance() of it: the larger of 1 s and a twentieth of the time
// from `now` to the estimated start. A run past its expected end moves everything queued
// behind it with the clock, and rewriting every pending Workload at each refresh would cost a
// write per Workload per refresh; with the tolerance a Workload is rewritten the more often the
// nearer its start, and its annotation is right to the second when it is due.
BUDCORE_API core::Duration estimate_tolerance(const WorkloadEstimate& estimate, core::Timestamp now);
BUDCORE_API std::optional<core::Value> estimate_patch(const core::Value& workload, const WorkloadEstimate& estimate,
                                                      core::Timestamp now);

}  // namespace budcore::companion
