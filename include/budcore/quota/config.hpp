// budcore::quota::QuotaConfig — one Kueue configuration (flavors, cohorts, cluster queues, local
// queues, priority classes) and its validation.
#pragma once

#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/quota/cluster_queue.hpp"
#include "budcore/quota/cohort.hpp"
#include "budcore/quota/local_queue.hpp"
#include "budcore/quota/resource_flavor.hpp"
#include "budcore/quota/workload_priority_class.hpp"

namespace budcore::quota {

struct QuotaConfig {
  std::vector<ResourceFlavor> resource_flavors;
  std::vector<Cohort> cohorts;
  std::vector<ClusterQueue> cluster_queues;
  std::vector<LocalQueue> local_queues;
  std::vector<WorkloadPriorityClass> priority_classes;
};

// Checks what Kueue's webhooks and CEL rules check, plus references between objects. Errors are
// ErrorCode::Invalid with a field path such as "cluster_queues[0].resource_groups[1].flavors[0].name":
// duplicate names, unknown flavor / cohort / cluster queue, a resource covered by two groups, a
// flavor that does not list exactly the covered resources, negative quota or limits, limits on
// a queue without a cohort, reclaimWithinCohort Never with borrowWithinCohort set, cohort cycles.
BUDCORE_API core::Status validate(const QuotaConfig& config);

}  // namespace budcore::quota
