// The fragmentation measure evaluated on a node's raw state (model, CPU and memory left, each
// GPU's free milli-GPU), with the workload's task types grouped per GPU model by GPU demand, so
// one evaluation costs a pass over the GPUs per demand plus one comparison per task type. Shared
// by the metrics and by FGD, which evaluates it for every node and candidate GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "budcore/gpu/fragmentation.hpp"

namespace budcore::gpu::detail {

struct NodeState {
  int model = 0;
  std::int64_t cpu_left = 0;
  std::int64_t memory_left = 0;
  const int* free = nullptr;  // milli-GPU free per GPU
  int gpus = 0;
};

class FragModel {
 public:
  FragModel(const Pool& pool, const Workload& workload);
  // Expected fragmentation (milli-GPU) of a node in this state.
  double evaluate(const NodeState& s) const;

 private:
  struct Demand {
    int num_gpu = 0;    // 0: CPU only
    int milli = 0;      // per GPU
    std::vector<std::int64_t> cpu, memory;  // the task types with this demand
    std::vector<double> weight;
  };
  std::vector<std::vector<Demand>> by_model_;  // per model id: the demands of compatible types
};

// The free milli-GPU of each GPU of a node.
void free_milli(const Node& node, std::vector<int>& out);

}  // namespace budcore::gpu::detail
