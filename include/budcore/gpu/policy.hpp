// budcore::gpu placement policies behind one interface: given the pool and a task, where the
// task goes (a node and its GPUs), or nothing when no node can take it. A new policy is one
// class. The names: first_fit, best_fit, worst_fit, binpack (Volcano's score), gpu_packing,
// gpu_clustering, random (seeded) and fgd (fragmentation gradient descent).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/gpu/fragmentation.hpp"
#include "budcore/gpu/inventory.hpp"

namespace budcore::gpu {

class BUDCORE_API Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const noexcept = 0;
  // Does not change the pool; the caller applies the placement (Pool::allocate). A policy may
  // keep what it computed about the pool between calls (FGD does, per node, until the node's
  // Pool::version changes): use one policy object per pool.
  virtual std::optional<Placement> place(const Pool& pool, const Task& task) = 0;
};

struct PolicyOptions {
  std::uint64_t seed = 1;  // random
  Workload workload;       // fgd: the task mix fragmentation is measured against
};

BUDCORE_API const std::vector<std::string>& policy_names();
// Invalid "policy" error (with the known names) for an unknown name; fgd needs a workload.
BUDCORE_API core::Result<std::unique_ptr<Policy>> make_policy(std::string_view name, const PolicyOptions& options = {});

}  // namespace budcore::gpu
