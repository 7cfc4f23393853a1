// budcore::gpu inventory: nodes with GPUs of a model, each GPU whole, split into MIG instances,
// time-sliced into replicas, or shared by fractional requests in milli-GPU (1000 = one GPU, as
// in the Alibaba trace); tasks that ask for GPUs; a Pool that holds the nodes, applies
// placements and reports total, allocated, reserved and free capacity per device and per node.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/gpu/mig.hpp"

namespace budcore::gpu {

inline constexpr int kMilliPerGpu = 1000;
inline constexpr int kMaxGpusPerNode = 64;
inline constexpr int kMaxModels = 64;  // a task's allowed models are a 64-bit mask

enum class Sharing : std::uint8_t {
  Whole,       // one task owns the GPU
  Mig,         // split into MIG instances (the layout is validated against NVIDIA's tables)
  TimeSlice,   // `replicas` tasks take turns on the GPU
  Fractional,  // tasks ask for milli-GPU and share it
};
BUDCORE_API std::string_view to_string(Sharing sharing) noexcept;

struct Device {
  Sharing sharing = Sharing::Fractional;
  int milli_used = 0;       // Whole, Fractional: milli-GPU allocated
  int milli_reserved = 0;   // Whole, Fractional: milli-GPU held for a task not started yet
  int replicas = 1;         // TimeSlice: how many tasks share the GPU
  int replicas_used = 0;
  int replicas_reserved = 0;
  std::vector<MigInstance> mig;  // Mig: the layout
  std::vector<std::uint8_t> mig_state;  // Mig: per instance 0 free, 1 allocated, 2 reserved

  // What the next task could still use, in milli-GPU: the unshared part of a fractional GPU, all
  // of a free whole GPU, the free replicas' or free MIG instances' share.
  BUDCORE_API int milli_free() const noexcept;
};

// Capacity in milli-GPU (a MIG instance counts compute slices / 7, a replica 1 / replicas).
struct Capacity {
  std::int64_t total = 0;
  std::int64_t allocated = 0;
  std::int64_t reserved = 0;
  std::int64_t free = 0;
  Capacity& operator+=(const Capacity& o) {
    total += o.total, allocated += o.allocated, reserved += o.reserved, free += o.free;
    return *this;
  }
  friend bool operator==(const Capacity&, const Capacity&) = default;
};

struct Node {
  std::string name;
  std::string model;  // the GPU model of every GPU on the node
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int64_t cpu_used = 0;
  std::int64_t memory_used = 0;
  std::vector<Device> gpus;
  // Tasks placed here per GPU demand (milli-GPU per GPU), for policies that group like tasks.
  std::vector<std::pair<int, int>> demand_counts;
};

// A task's request. num_gpu whole GPUs, or one GPU's share: gpu_milli < 1000 needs num_gpu 1.
struct Task {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  int num_gpu = 0;
  int gpu_milli = 0;                   // per GPU; 1000 for whole GPUs, 0 without GPUs
  std::vector<std::string> gpu_spec;   // the GPU models it may run on; empty: any
  bool shares_gpu() const noexcept { return num_gpu == 1 && gpu_milli < kMilliPerGpu; }
};

// Where a task goes: a node and the indexes of the GPUs it takes.
struct Placement {
  std::size_t node = 0;
  std::vector<int> gpus;
  friend bool operator==(const Placement&, const Placement&) = default;
};

enum class Hold : std::uint8_t { Allocated, Reserved };

// The GPU models the library knows: the Alibaba trace's (A10, G1, G2, G3, P100, T4, V100M16,
// V100M32) and the MIG models.
BUDCORE_API const std::vector<std::string>& known_gpu_models();
BUDCORE_API bool is_known_gpu_model(std::string_view model);

// Checks a task's request on its own: non-negative, gpu_milli 0-1000, shares only on one GPU,
// known models in gpu_spec. Errors name the field.
BUDCORE_API core::Status validate_task(const Task& task);

class BUDCORE_API Pool {
 public:
  // Checks the node (known model, non-negative sizes, a valid MIG layout per MIG GPU, at most
  // kMaxGpusPerNode GPUs, a unique name) and adds it. Errors name the field.
  core::Status add_node(Node node);

  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  std::size_t size() const noexcept { return nodes_.size(); }
  const Node& node(std::size_t i) const { return nodes_.at(i); }

  // The model's id in this pool (order of first appearance), or -1.
  int model_id(std::string_view model) const noexcept;
  int node_model_id(std::size_t i) const { return node_model_.at(i); }
  // The models a task may use as a bit mask over model ids; all bits when gpu_spec is empty.
  std::uint64_t model_mask(const Task& task) const noexcept;

  // Whether the task fits the node at all (CPU, memory, model, enough usable GPUs).
  bool fits(const Task& task, std::uint64_t mask, std::size_t node) const noexcept;
  // Whether one GPU can take the task's share (a sharing task) or the whole GPU (otherwise).
  static bool gpu_fits(const Device& device, const Task& task) noexcept;

  // Applies or undoes a placement; refused (nothing changed) when it does not fit.
  core::Status allocate(const Task& task, const Placement& placement, Hold hold = Hold::Allocated);
  core::Status release(const Task& task, const Placement& placement, Hold hold = Hold::Allocated);

  // MIG instances: allocate or free instance `instance` of a MIG GPU.
  core::Status allocate_mig(std::size_t node, int gpu, std::size_t instance, Hold hold = Hold::Allocated);
  core::Status release_mig(std::size_t node, int gpu, std::size_t instance);
  // Re-partitions MIG GPU `gpu` of `node` into `layout` (validated for the node's model). Each
  // instance in use must be in the new layout, the same profile at the same start, and keeps
  // its state. Refused, changing nothing, otherwise.
  core::Status repartition(std::size_t node, int gpu, std::vector<MigInstance> layout);

  static Capacity device_capacity(const Device& device) noexcept;
  Capacity node_capacity(std::size_t node) const;
  Capacity total_capacity() const;
  std::int64_t total_gpus() const noexcept { return total_gpus_; }
  // Counts the changes to a node, so a policy may keep what it computed until the node changes.
  std::uint64_t version(std::size_t node) const { return versions_.at(node); }

 private:
  std::vector<Node> nodes_;
  std::vector<int> node_model_;
  std::vector<std::uint64_t> versions_;
  std::vector<std::string> models_;
  std::int64_t total_gpus_ = 0;
};

}  // namespace budcore::gpu
