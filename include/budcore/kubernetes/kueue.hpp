// budcore::kubernetes Kueue objects — a quota configuration applied to a cluster's Kueue and
// read back: ResourceFlavors, Cohorts, ClusterQueues (cohorts, borrowing/lending limits,
// preemption, fair-sharing weights), LocalQueues (with their namespaces) and
// WorkloadPriorityClasses, in the storage version of Kueue 0.19 (kueue.x-k8s.io/v1beta2).
#pragma once

#include <chrono>
#include <map>
#include <set>
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
  // ClusterQueue name -> AdmissionChecks its workloads must pass (admissionChecksStrategy), e.g.
  // the MultiKueue check of multikueue_objects() on a manager cluster.
  std::map<std::string, std::vector<std::string>> admission_checks;
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

// Waits until Kueue reports every ClusterQueue and LocalQueue of `config` Active (its scheduler
// cache has them, cohort and flavors resolved), polling every 50 ms. Submitting before that can
// leave a workload judged against a partial cohort. On timeout the error names the first queue
// that is not active with Kueue's reason and message (FlavorNotFound, ClusterQueueDoesNotExist).
BUDCORE_API core::Result<void> wait_quota_active(Client& client, const quota::QuotaConfig& config,
                                                 std::chrono::milliseconds timeout = std::chrono::seconds(30));

// MultiKueue on a manager cluster: each worker's kubeconfig goes into a Secret in Kueue's
// namespace, a MultiKueueCluster points at it, one MultiKueueConfig lists the workers, and an
// AdmissionCheck (controller kueue.x-k8s.io/multikueue) that ClusterQueues list makes Kueue
// dispatch their admitted workloads to a worker with capacity. The kubeconfigs must be
// self-contained (inline certificate data and token, no file paths).
struct MultiKueueWorker {
  std::string name;        // MultiKueueCluster name
  std::string kubeconfig;  // the worker's kubeconfig YAML
};
struct MultiKueueSetup {
  std::string name = "budcore-multikueue";  // of the AdmissionCheck and the MultiKueueConfig
  std::vector<MultiKueueWorker> workers;
  std::string kueue_namespace = "kueue-system";
};
// The objects, in apply order: Secrets, MultiKueueClusters, MultiKueueConfig, AdmissionCheck.
BUDCORE_API core::Result<std::vector<core::Value>> multikueue_objects(const MultiKueueSetup& setup);
// Server-side applies multikueue_objects(); returns the AdmissionCheck's name for
// ApplyOptions::admission_checks.
BUDCORE_API core::Result<std::string> apply_multikueue(Client& client, const MultiKueueSetup& setup);

// The ClusterQueues whose admission checks include one of MultiKueue's (controller
// kueue.x-k8s.io/multikueue): on a manager, where RenderOptions::multikueue_cluster_queues
// must name them.
BUDCORE_API core::Result<std::set<std::string, std::less<>>> multikueue_cluster_queues(Client& client);

// The cluster's Kueue configuration (every Kueue quota object, not only budcore's). A
// LocalQueue naming a ClusterQueue that does not exist is left out with a warning (Kueue keeps
// it inactive), so that one such queue does not make the whole cluster's quota unreadable.
BUDCORE_API core::Result<quota::KueueImport> read_quota(Client& client);

// Creates the namespace unless it exists. Returns whether it created it.
BUDCORE_API core::Result<bool> ensure_namespace(Client& client, const std::string& name);

}  // namespace budcore::kubernetes
