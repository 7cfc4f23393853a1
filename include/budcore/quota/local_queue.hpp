// budcore::quota::LocalQueue — a namespaced queue (a tenant's entry point) feeding a ClusterQueue.
#pragma once

#include <string>

namespace budcore::quota {

struct LocalQueue {
  std::string namespace_;
  std::string name;
  std::string cluster_queue;
  std::string key() const { return namespace_ + "/" + name; }
};

}  // namespace budcore::quota
