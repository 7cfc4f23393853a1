// budcore::gpu MIG-aware placement: where one instance of a MIG profile goes. A free instance
// of the profile if one fits; otherwise a MIG GPU whose layout admits a new instance of it at
// a start the profile may take (NVIDIA's rules, validate_mig_layout), keeping every instance in
// use and every free instance it does not overlap.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/gpu/inventory.hpp"
#include "budcore/gpu/mig.hpp"

namespace budcore::gpu {

struct MigPlacement {
  std::size_t node = 0;
  int gpu = 0;
  // A free instance of the profile, or (absent) a new instance: `layout` is then the GPU's new
  // layout, the kept instances in their order and the new one last.
  std::optional<std::size_t> instance;
  std::vector<MigInstance> layout;
  int dropped = 0;  // free instances the new layout gives up (they overlap the new one)
};

// The task's CPU and memory must fit the node (its GPUs are ignored). Prefers a free instance
// (the first node, GPU and instance); then a new instance on the GPU that gives up the fewest
// free instances, then the first node and GPU, then the lowest start. nullopt: no MIG GPU of a
// model with the profile can take it.
BUDCORE_API std::optional<MigPlacement> place_mig(const Pool& pool, const Task& task, std::string_view profile);
// The same on one node only (nullopt also for a node the pool does not have).
BUDCORE_API std::optional<MigPlacement> place_mig(const Pool& pool, std::size_t node, const Task& task, std::string_view profile);

// Applies a placement: allocates the free instance, or re-partitions the GPU into `layout` and
// allocates the new instance (and the task's CPU and memory). Returns the instance's index.
BUDCORE_API core::Result<std::size_t> allocate_mig_placement(Pool& pool, const Task& task, const MigPlacement& placement,
                                                             Hold hold = Hold::Allocated);

}  // namespace budcore::gpu
