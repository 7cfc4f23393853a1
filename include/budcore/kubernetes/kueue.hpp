// budcore::kubernetes Kueue objects — a quota configuration applied to a cluster's Kueue and
// read back: ResourceFlavors, Cohorts, ClusterQueues (cohorts, borrowing/lending limits,
// preemption, fair-sharing weights), LocalQueues (with their namespaces) and
// WorkloadPriorityClasses, in the storage version of Kueue 0.19 (kueue.x-k8s.io/v1beta2).
#pragma once

#include <string>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/kubernetes/client.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/kueue_yaml.hpp"

namespace budcore::kubernetes {

// The objects of `config` (quota::export_kueue, v1beta2), labelled managed-by=budcore; with
// `budcore_priorities` also the five budcore-<priority> WorkloadPriorityClasses jobs refer to.
BUDCORE_API std::vector<core::Value> kueue_objects(const quota::QuotaConfig& config, bool budcore_priorities = true);

struct ApplyOptions {
  bool budcore_priorities = true;
  bool force = true;   // take over fields another field manager owns (a hand edit) instead of failing
  bool prune = false;  // delete budcore-labelled Kueue objects the configuration no longer has
};

struct ApplyReport {
  std::vector<std::string> applied;  // "ClusterQueue cq-a", "LocalQueue tenant-x/lq", ...
  std::vector<std::string> created_namespaces;
  std::vector<std::string> pruned;
};

// Validates `config` (quota::validate) and server-side applies every object in dependency
// order (flavors, cohorts, cluster queues, namespaces of the local queues, local queues,
// priority classes). The first refusal stops it; the error names the object and field.
BUDCORE_API core::Result<ApplyReport> apply_quota(Client& client, const quota::QuotaConfig& config,
                                                  const ApplyOptions& options = {});

// The cluster's Kueue configuration (every Kueue quota object, not only budcore's).
BUDCORE_API core::Result<quota::KueueImport> read_quota(Client& client);

// Creates the namespace unless it exists. Returns whether it created it.
BUDCORE_API core::Result<bool> ensure_namespace(Client& client, const std::string& name);

}  // namespace budcore::kubernetes
