// budcore::quota::Workload — what asks for quota: pod sets with per-pod requests, a queue, a
// priority and a creation order. `admission` is set for a workload that already holds quota.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "budcore/core/resource_list.hpp"
#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/quota/resource_flavor.hpp"

namespace budcore::quota {

struct PodSet {
  std::string name = "main";
  std::int32_t count = 1;
  std::optional<std::int32_t> min_count;  // set: partial admission down to this count
  core::ResourceList requests;            // per pod
  // Matched against a flavor's node_labels (only keys the flavor defines) and taints: a flavor
  // is skipped when a NoSchedule/NoExecute taint is not tolerated (empty value = Exists, empty
  // effect = any effect).
  std::map<std::string, std::string> node_selector;
  std::vector<Taint> tolerations;
};

struct Admission {
  std::string cluster_queue;
  std::map<std::string, std::map<std::string, std::string>> flavors;  // pod set -> resource -> flavor
  std::map<std::string, std::int32_t> count;                          // pod set -> admitted count
};

struct Workload {
  std::string name;
  std::string namespace_ = "default";
  std::string queue;  // LocalQueue name in namespace_
  std::int32_t priority = 0;
  std::int64_t creation_seq = 0;  // queue order timestamp: earlier first
  std::vector<PodSet> pod_sets;
  std::optional<Admission> admitted;
  // Order of quota reservation for already-admitted workloads (later = more recent). Defaults to
  // creation_seq; preemption picks the most recently reserved candidate first.
  std::optional<std::int64_t> reservation_seq;

  std::string key() const { return namespace_ + "/" + name; }
};

// What the admission engine refuses in a workload's own pod sets, checked before it is added:
// none at all, a repeated name, a negative count, a min_count outside 1..count, a negative or
// out-of-range request. Invalid naming the field ("pod_sets[1].requests.cpu").
BUDCORE_API core::Status check_pod_sets(const Workload& w);

}  // namespace budcore::quota
