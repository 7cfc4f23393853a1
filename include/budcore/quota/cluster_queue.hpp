// budcore::quota::ClusterQueue — Kueue's ClusterQueue: quota per (flavor, resource) in resource
// groups, a cohort to borrow from and lend to, queueing, preemption and fungibility policies.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "budcore/core/quantity.hpp"

namespace budcore::quota {

enum class QueueingStrategy { BestEffortFIFO, StrictFIFO };
// withinClusterQueue: Never | LowerPriority | LowerOrNewerEqualPriority;
// reclaimWithinCohort: Never | LowerPriority | Any.
enum class PreemptionPolicy { Never, LowerPriority, LowerOrNewerEqualPriority, Any };
enum class BorrowWithinCohortPolicy { Never, LowerPriority };
// The deprecated v1beta1 spellings Borrow/Preempt parse as MayStopSearch.
enum class FungibilityPolicy { MayStopSearch, TryNextFlavor };
enum class FungibilityPreference { BorrowingOverPreemption, PreemptionOverBorrowing };
enum class StopPolicy { None, Hold, HoldAndDrain };

// Quota of one resource in one flavor. Limits are absent when unset (unlimited).
struct ResourceQuota {
  std::string name;
  core::Quantity nominal;
  std::optional<core::Quantity> borrowing_limit;
  std::optional<core::Quantity> lending_limit;
};

struct FlavorQuotas {
  std::string name;  // a ResourceFlavor name
  std::vector<ResourceQuota> resources;
};

// Every flavor of a group lists exactly the group's covered resources; a resource belongs to
// one group. Flavors are tried in the order given.
struct ResourceGroup {
  std::vector<std::string> covered_resources;
  std::vector<FlavorQuotas> flavors;
};

struct BorrowWithinCohort {
  BorrowWithinCohortPolicy policy = BorrowWithinCohortPolicy::Never;
  std::optional<int> max_priority_threshold;
};

struct ClusterQueuePreemption {
  PreemptionPolicy within_cluster_queue = PreemptionPolicy::Never;
  PreemptionPolicy reclaim_within_cohort = PreemptionPolicy::Never;
  BorrowWithinCohort borrow_within_cohort;
};

struct FlavorFungibility {
  FungibilityPolicy when_can_borrow = FungibilityPolicy::MayStopSearch;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::TryNextFlavor;
  std::optional<FungibilityPreference> preference;
};

struct ClusterQueue {
  std::string name;
  std::optional<std::string> cohort;
  QueueingStrategy queueing_strategy = QueueingStrategy::BestEffortFIFO;
  ClusterQueuePreemption preemption;
  FlavorFungibility flavor_fungibility;
  double fair_weight = 1.0;
  StopPolicy stop_policy = StopPolicy::None;
  std::vector<ResourceGroup> resource_groups;
};

}  // namespace budcore::quota
