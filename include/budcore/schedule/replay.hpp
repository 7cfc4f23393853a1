// Kueue's scheduler-performance test (test/performance/scheduler) replayed in virtual time: the
// generator's cohorts, ClusterQueues and workload streams become a timeline, and the result is
// scored with the checker's own metrics (per ClusterQueue class: cpu used x 100 / (nominal x
// elapsed); per workload class: average time from creation to admission).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/quota/cluster_queue.hpp"

namespace budcore::schedule {

// Kueue's generator.yaml, without its TAS and DRA parts.
struct ReplayWorkloadClass {
  std::string class_name;
  std::int64_t runtime_ms = 0;
  std::int32_t priority = 0;
  core::Quantity request;  // cpu per workload (one pod)
};
struct ReplayWorkloadSet {
  std::int64_t count = 0;
  std::int64_t creation_interval_ms = 0;  // a workload every interval, per template
  std::vector<ReplayWorkloadClass> workloads;
};
struct ReplayQueueSet {
  std::string class_name;
  std::int64_t count = 0;
  core::Quantity nominal_quota;
  std::optional<core::Quantity> borrowing_limit;
  quota::PreemptionPolicy reclaim_within_cohort = quota::PreemptionPolicy::Never;
  quota::PreemptionPolicy within_cluster_queue = quota::PreemptionPolicy::Never;
  std::vector<ReplayWorkloadSet> workload_sets;
};
struct ReplayCohortSet {
  std::string class_name;
  std::int64_t count = 0;
  std::vector<ReplayQueueSet> queue_sets;
};
struct ReplayConfig {
  std::string name = "custom";
  std::vector<ReplayCohortSet> cohorts;
  // The checker's thresholds (rangespec.yaml); empty maps check nothing.
  std::map<std::string, double> min_usage_percent;               // per ClusterQueue class
  std::map<std::string, std::int64_t> max_avg_time_to_admission_ms;  // per workload class
  // Kueue's published calibration means for the same configuration, for comparison.
  std::optional<std::int64_t> kueue_wall_ms;
  std::map<std::string, double> kueue_usage_percent;
  std::map<std::string, std::int64_t> kueue_avg_time_to_admission_ms;
};

// Kueue's `configs/baseline`: 5 cohorts x 6 ClusterQueues (nominal 20 cpu, borrowingLimit 100,
// reclaimWithinCohort Any, withinClusterQueue LowerPriority), per queue 350 small, 100 medium and
// 50 large workloads: 15,000 in all. Thresholds and means from its rangespec.yaml.
BUDCORE_API ReplayConfig kueue_baseline();
// Kueue's generator.yaml keys (className, count, queuesSets, nominalQuota, borrowingLimit,
// reclaimWithinCohort, withinClusterQueue, workloadsSets, creationIntervalMs, workloads,
// runtimeMs, priority, request). Unknown keys are rejected with a "did you mean" hint; sizes are
// bounded (at most 1,000,000 workloads).
BUDCORE_API core::Result<ReplayConfig> parse_replay_config(const core::Value& document);

struct ReplayClassUsage {
  double usage_percent = 0;
  std::int64_t cpu_used_milli_ms = 0;
  std::int64_t nominal_milli = 0;
};
struct ReplayClassWait {
  std::int64_t count = 0;
  std::int64_t avg_time_to_admission_ms = 0;  // integer average, as the checker computes it
  std::int64_t avg_time_to_finish_ms = 0;
  std::int64_t evictions = 0;
};
struct ReplayReport {
  std::string name;
  std::int64_t workloads = 0;
  std::int64_t cluster_queues = 0;
  std::int64_t elapsed_ms = 0;   // virtual: first creation .. last workload end
  double wall_ms = 0;            // this replay's own wall time
  std::map<std::string, ReplayClassUsage> cluster_queue_classes;
  std::map<std::string, ReplayClassWait> workload_classes;
  std::vector<std::string> failures;  // thresholds not met
  ReplayConfig config;  // what was replayed (thresholds and Kueue's means for the report)
};

BUDCORE_API core::Result<ReplayReport> replay(const ReplayConfig& config);
BUDCORE_API core::Value to_value(const ReplayReport& report);

}  // namespace budcore::schedule
