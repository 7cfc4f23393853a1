// budcore::quota::WorkloadPriorityClass — Kueue's cluster-scoped priority used only for queue
// order and preemption.
#pragma once

#include <cstdint>
#include <string>

namespace budcore::quota {

struct WorkloadPriorityClass {
  std::string name;
  std::int32_t value = 0;
  std::string description;
};

}  // namespace budcore::quota
