// ClusterBackend's out-of-line members (the interface lives in budcore/backend/cluster_backend.hpp).
#include "budcore/backend/cluster_backend.hpp"

namespace budcore::backend {

ClusterBackend::~ClusterBackend() = default;

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
