// budcore::quota::Cohort — a node of Kueue's cohort tree. Cohorts pool the unused quota of their
// members, may own quota themselves and may have a parent cohort. A cohort named by a
// ClusterQueue but not declared exists implicitly (no quota, no parent).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "budcore/quota/cluster_queue.hpp"

namespace budcore::quota {

// Deepest cohort tree accepted (a root cohort is level 1). Organisation trees are a few levels
// deep; the engine walks the chain for every admission, so it is bounded (docs/limits.md).
inline constexpr int kMaxCohortDepth = 100;

struct Cohort {
  std::string name;
  std::optional<std::string> parent;
  double fair_weight = 1.0;
  std::vector<ResourceGroup> resource_groups;  // quota owned by the cohort (limits apply to its parent)
};

}  // namespace budcore::quota
