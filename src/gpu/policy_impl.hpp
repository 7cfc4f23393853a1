// Shared parts of the placement policies: the candidate placement on one node and the scored
// policy base (one score per node that fits, the highest wins).
#pragma once

#include <memory>

#include "budcore/gpu/policy.hpp"

namespace budcore::gpu::detail {

// Which GPU a share goes to: the first that fits, the one with least free, or most free.
// Tasks of whole GPUs take the first free ones.
enum class GpuChoice { First, Tightest, Loosest };

Placement candidate(const Node& node, std::size_t index, const Task& task, GpuChoice choice);

class ScoredPolicy : public Policy {
 public:
  explicit ScoredPolicy(GpuChoice choice) : choice_(choice) {}
  std::optional<Placement> place(const Pool& pool, const Task& task) override;
  virtual double score(const Pool& pool, const Placement& candidate, const Task& task) const = 0;

 private:
  GpuChoice choice_;
};

std::unique_ptr<Policy> make_fgd(const Workload& workload);

}  // namespace budcore::gpu::detail
