// ClusterBackend's out-of-line members (the interface lives in budcore/backend/cluster_backend.hpp).
#include "budcore/backend/cluster_backend.hpp"

#include "budcore/core/resource_list.hpp"

namespace budcore::backend {

ClusterBackend::~ClusterBackend() = default;

UsageInterval usage_of_run(const quota::PodSet& ps, const Placement* placement, std::string_view gpu_type_label,
                           core::Timestamp start, core::Timestamp end) {
  UsageInterval u;
  u.start = start;
  u.end = end;
  u.sharing_mode = "full";
  std::int64_t count = 1;
  const std::map<std::string, std::string>* flavors = nullptr;
  if (placement != nullptr) {
    u.cluster_queue = placement->admission.cluster_queue;
    u.nodes = placement->nodes;
    if (auto c = placement->admission.count.find(ps.name); c != placement->admission.count.end()) count = c->second;
    if (auto f = placement->admission.flavors.find(ps.name); f != placement->admission.flavors.end()) flavors = &f->second;
  }
  for (const auto& [name, q] : ps.requests.items()) {
    auto milli = q.milli_value();
    const std::int64_t v = milli ? *milli : 0;
    if (name == core::kResourceCpu) {
      u.cpu_millis = v * count;
    } else if (name == core::kResourceMemory) {
      u.memory_bytes = (v / 1000) * count;
    } else if (name != core::kResourceEphemeralStorage && v > 0) {
      u.gpu_count = (v / 1000) * count;
      if (flavors != nullptr)
        if (auto fl = flavors->find(name); fl != flavors->end()) u.flavor = fl->second;
    }
  }
  if (auto it = ps.node_selector.find(std::string(gpu_type_label)); it != ps.node_selector.end()) u.gpu_type = it->second;
  if (u.flavor.empty() && flavors != nullptr && !flavors->empty()) u.flavor = flavors->begin()->second;
  return u;
}

std::string_view to_string(ClusterEventKind k) noexcept {
  switch (k) {
    case ClusterEventKind::Queued: return "queued";
    case ClusterEventKind::Admitted: return "admitted";
    case ClusterEventKind::Started: return "started";
    case ClusterEventKind::Succeeded: return "succeeded";
    case ClusterEventKind::Failed: return "failed";
    case ClusterEventKind::Cancelled: return "cancelled";
    case ClusterEventKind::Preempted: return "preempted";
    case ClusterEventKind::DeadlineMissed: return "deadline_missed";
    case ClusterEventKind::Usage: return "usage";
  }
  return "unknown";
}

}  // namespace budcore::backend
