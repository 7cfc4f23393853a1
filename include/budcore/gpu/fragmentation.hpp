// budcore::gpu fragmentation, as Weng et al. define it (USENIX ATC 2023, "Beware of
// Fragmentation"): for a task, a node's fragmentation is the free GPU capacity that task cannot
// use: all of it when the task does not fit the node (CPU, memory, GPU model, GPUs) or asks for
// no GPU, otherwise the free capacity of the GPUs each too small for the task's share (a partly
// used GPU for a task of whole GPUs). For a workload, the expectation over its task types.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/gpu/inventory.hpp"

namespace budcore::gpu {

struct TaskType {
  Task task;           // the request (its name is the first task seen with it)
  double weight = 0;   // the share of the workload's tasks, summing to 1
};

// The task types of a workload: tasks with the same request (CPU, memory, GPUs, share, models)
// are one type, weighted by how often they occur.
class BUDCORE_API Workload {
 public:
  Workload() = default;
  static Workload from_tasks(const std::vector<Task>& tasks);
  const std::vector<TaskType>& types() const noexcept { return types_; }
  bool empty() const noexcept { return types_.empty(); }

 private:
  std::vector<TaskType> types_;
};

// One node's fragmentation for one task, and its expectation over a workload, in milli-GPU.
BUDCORE_API double node_fragmentation(const Pool& pool, std::size_t node, const Task& task);
BUDCORE_API double node_fragmentation(const Pool& pool, std::size_t node, const Workload& workload);

struct FragmentationReport {
  double fragmentation_milli = 0;   // the sum of every node's expected fragmentation
  double fragmentation_share = 0;   // of the free GPU capacity (0 when none is free)
  std::int64_t total_milli = 0;
  std::int64_t free_milli = 0;
  double unallocated_share = 0;     // free / total GPU capacity
  int largest_gang_node = 0;        // the most free whole GPUs on one node
  std::int64_t largest_gang_cluster = 0;  // free whole GPUs on all nodes together
};
BUDCORE_API FragmentationReport measure(const Pool& pool, const Workload& workload);

// One node in a report: its expected fragmentation (milli-GPU), capacity and free whole GPUs.
struct NodeReport {
  std::string name;
  std::string model;
  double fragmentation_milli = 0;
  Capacity capacity;
  int free_whole_gpus = 0;  // GPUs shared whole or fractionally that nothing holds
};

// The measure above for the pool, each node's part of it, and per GPU model the largest gang
// that still fits: the most free whole GPUs on one node of that model (CPU and memory aside).
struct PoolReport {
  FragmentationReport cluster;
  std::vector<NodeReport> nodes;
  std::map<std::string, int> largest_gang_by_model;
};
BUDCORE_API PoolReport report(const Pool& pool, const Workload& workload);
// {"fragmentation_milli", "fragmentation_share", "total_milli", "free_milli", "unallocated_share",
//  "largest_gang_node", "largest_gang_cluster", "largest_gang_by_model": {model: n},
//  "nodes": [{"name", "model", "fragmentation_milli", "total_milli", "allocated_milli",
//             "reserved_milli", "free_milli", "free_whole_gpus"}]}
BUDCORE_API core::Value to_value(const PoolReport& report);

}  // namespace budcore::gpu
