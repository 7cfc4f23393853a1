// The GPU inventory: node validation, placements applied and undone, capacity reports.
#include "budcore/gpu/inventory.hpp"

#include <algorithm>

namespace budcore::gpu {
namespace {

std::string gpu_field(std::size_t g) { return "gpus[" + std::to_string(g) + "]"; }

void count_demand(Node& n, int milli, int delta) {
  for (auto& [m, c] : n.demand_counts)
    if (m == milli) {
      c += delta;
      return;
    }
  if (delta > 0) n.demand_counts.emplace_back(milli, delta);
}


// The MIG device holding `instance` on GPU `gpu` of node `node`, or an error naming what is not there.
core::Result<Device*> mig_device(std::vector<Node>& nodes, std::size_t node, int gpu, std::size_t instance) {
  if (node >= nodes.size()) return core::Error::invalid("node", std::to_string(node), "no such node in the pool");
  Node& n = nodes[node];
  if (gpu < 0 || static_cast<std::size_t>(gpu) >= n.gpus.size() || n.gpus[static_cast<std::size_t>(gpu)].sharing != Sharing::Mig)
    return core::Error::invalid("gpu", std::to_string(gpu), "not a MIG GPU of " + n.name);
  Device& d = n.gpus[static_cast<std::size_t>(gpu)];
  if (instance >= d.mig.size()) return core::Error::invalid("instance", std::to_string(instance), "no such MIG instance");
  return &d;
}

}  // namespace

std::string_view to_string(Sharing sharing) noexcept {
  switch (sharing) {
    case Sharing::Whole: return "whole";
    case Sharing::Mig: return "mig";
    case Sharing::TimeSlice: return "time_slice";
    case Sharing::Fractional: return "fractional";
  }
  return "unknown";
}

int Device::milli_free() const noexcept {
  switch (sharing) {
    case Sharing::Fractional: return kMilliPerGpu - milli_used - milli_reserved;
    case Sharing::Whole: return milli_used + milli_reserved == 0 ? kMilliPerGpu : 0;
    case Sharing::TimeSlice:
      return replicas <= 0 ? 0 : (replicas - replicas_used - replicas_reserved) * kMilliPerGpu / replicas;
    case Sharing::Mig: {
      int free_instances = static_cast<int>(std::count(mig_state.begin(), mig_state.end(), std::uint8_t{0}));
      return mig.empty() ? 0 : free_instances * kMilliPerGpu / static_cast<int>(mig.size());
    }
  }
  return 0;
}

const std::vector<std::string>& known_gpu_models() {
  static const std::vector<std::string> models = {"A10", "G1", "G2", "G3", "P100", "T4", "V100M16", "V100M32",
                                                  "A100-40GB", "A100-80GB", "H100-80GB"};
  return models;
}

bool is_known_gpu_model(std::string_view model) {
  const auto& m = known_gpu_models();
  return std::find(m.begin(), m.end(), model) != m.end();
}

core::Status validate_task(const Task& t) {
  if (t.cpu_milli < 0) return core::Error::invalid("cpu_milli", std::to_string(t.cpu_milli), "must not be negative");
  if (t.memory_mib < 0) return core::Error::invalid("memory_mib", std::to_string(t.memory_mib), "must not be negative");
  if (t.num_gpu < 0 || t.num_gpu > kMaxGpusPerNode)
    return core::Error::invalid("num_gpu", std::to_string(t.num_gpu), "must be 0-" + std::to_string(kMaxGpusPerNode));
  if (t.gpu_milli < 0 || t.gpu_milli > kMilliPerGpu)
    return core::Error::invalid("gpu_milli", std::to_string(t.gpu_milli), "must be 0-1000 (milli-GPU of one GPU)");
  if (t.num_gpu == 0 && t.gpu_milli != 0)
    return core::Error::invalid("gpu_milli", std::to_string(t.gpu_milli), "must be 0 when num_gpu is 0");
  if (t.num_gpu > 0 && t.gpu_milli == 0)
    return core::Error::invalid("gpu_milli", "0", "must be 1-1000 when num_gpu is " + std::to_string(t.num_gpu));
  if (t.num_gpu > 1 && t.gpu_milli != kMilliPerGpu)
    return core::Error::invalid("gpu_milli", std::to_string(t.gpu_milli), "a task on " + std::to_string(t.num_gpu) +
                                                                             " GPUs takes them whole (1000)");
  for (std::size_t i = 0; i < t.gpu_spec.size(); ++i)
    if (!is_known_gpu_model(t.gpu_spec[i]))
      return core::Error::invalid("gpu_spec[" + std::to_string(i) + "]", t.gpu_spec[i], "is not a known GPU model");
  return {};
}

core::Status Pool::add_node(Node node) {
  if (node.name.empty()) return core::Error::invalid("name", "", "a node needs a name");
  for (const auto& n : nodes_)
    if (n.name == node.name) return core::Error::invalid("name", node.name, "another node has this name");
  if (!node.gpus.empty() && !is_known_gpu_model(node.model))
    return core::Error::invalid("model", node.model, "is not a known GPU model");
  if (node.cpu_milli < 0) return core::Error::invalid("cpu_milli", std::to_string(node.cpu_milli), "must not be negative");
  if (node.memory_mib < 0) return core::Error::invalid("memory_mib", std::to_string(node.memory_mib), "must not be negative");
  if (node.gpus.size() > static_cast<std::size_t>(kMaxGpusPerNode))
    return core::Error::invalid("gpus", std::to_string(node.gpus.size()), "at most 64 GPUs per node");
  for (std::size_t g = 0; g < node.gpus.size(); ++g) {
    Device& d = node.gpus[g];
    if (d.sharing == Sharing::Mig) {
      auto st = validate_mig_layout(node.model, d.mig);
      if (!st) return std::move(st).error().at(gpu_field(g));
      d.mig_state.assign(d.mig.size(), 0);
    }
    if (d.sharing == Sharing::TimeSlice && d.replicas < 1)
      return core::Error::invalid(gpu_field(g) + ".replicas", std::to_string(d.replicas), "a time-sliced GPU needs 1 or more replicas");
  }
  int id = model_id(node.model);
  if (id < 0) {
    if (models_.size() >= static_cast<std::size_t>(kMaxModels))
      return core::Error::invalid("model", node.model, "a pool holds at most 64 GPU models");
    models_.push_back(node.model);
    id = static_cast<int>(models_.size()) - 1;
  }
  total_gpus_ += static_cast<std::int64_t>(node.gpus.size());
  nodes_.push_back(std::move(node));
  node_model_.push_back(id);
  versions_.push_back(0);
  return {};
}

int Pool::model_id(std::string_view model) const noexcept {
  for (std::size_t i = 0; i < models_.size(); ++i)
    if (models_[i] == model) return static_cast<int>(i);
  return -1;
}

std::uint64_t Pool::model_mask(const Task& task) const noexcept {
  if (task.gpu_spec.empty()) return ~std::uint64_t{0};
  std::uint64_t mask = 0;
  for (const auto& m : task.gpu_spec)
    if (int id = model_id(m); id >= 0) mask |= std::uint64_t{1} << id;
  return mask;
}

bool Pool::gpu_fits(const Device& d, const Task& t) noexcept {
  if (t.shares_gpu()) {
    if (d.sharing == Sharing::Fractional) return d.milli_free() >= t.gpu_milli;
    if (d.sharing == Sharing::TimeSlice) return d.replicas_used + d.replicas_reserved < d.replicas;
    return false;  // a whole GPU is not shared; MIG instances are asked for by profile
  }
  if (d.sharing == Sharing::TimeSlice) return t.num_gpu == 1 && d.replicas_used + d.replicas_reserved < d.replicas;
  return (d.sharing == Sharing::Fractional || d.sharing == Sharing::Whole) && d.milli_used + d.milli_reserved == 0;
}

bool Pool::fits(const Task& t, std::uint64_t mask, std::size_t i) const noexcept {
  const Node& n = nodes_[i];
  if (n.cpu_milli - n.cpu_used < t.cpu_milli || n.memory_mib - n.memory_used < t.memory_mib) return false;
  if (t.num_gpu == 0) return true;
  if (((mask >> node_model_[i]) & 1U) == 0) return false;
  int usable = 0;
  for (const auto& d : n.gpus)
    if (gpu_fits(d, t) && ++usable >= t.num_gpu) return true;
  return false;
}

core::Status Pool::allocate(const Task& t, const Placement& p, Hold hold) {
  if (p.node >= nodes_.size()) return core::Error::invalid("node", std::to_string(p.node), "no such node in the pool");
  Node& n = nodes_[p.node];
  if (static_cast<int>(p.gpus.size()) != t.num_gpu)
    return core::Error::invalid("gpus", std::to_string(p.gpus.size()), "the task asks for " + std::to_string(t.num_gpu) + " GPUs");
  if (n.cpu_milli - n.cpu_used < t.cpu_milli || n.memory_mib - n.memory_used < t.memory_mib)
    return core::Error::invalid("node", n.name, "not enough CPU or memory left for " + t.name);
  if (t.num_gpu > 0 && ((model_mask(t) >> node_model_[p.node]) & 1U) == 0)
    return core::Error::invalid("node", n.name, "its GPU model " + n.model + " is not in the task's gpu_spec");
  for (std::size_t k = 0; k < p.gpus.size(); ++k) {
    int g = p.gpus[k];
    if (g < 0 || static_cast<std::size_t>(g) >= n.gpus.size())
      return core::Error::invalid("gpus[" + std::to_string(k) + "]", std::to_string(g), "no such GPU on " + n.name);
    if (std::count(p.gpus.begin(), p.gpus.end(), g) > 1)
      return core::Error::invalid("gpus[" + std::to_string(k) + "]", std::to_string(g), "the same GPU twice");
    if (!gpu_fits(n.gpus[static_cast<std::size_t>(g)], t))
      return core::Error::invalid("gpus[" + std::to_string(k) + "]", std::to_string(g), "cannot take " + t.name + " on " + n.name);
  }
  n.cpu_used += t.cpu_milli;
  n.memory_used += t.memory_mib;
  for (int g : p.gpus) {
    Device& d = n.gpus[static_cast<std::size_t>(g)];
    if (d.sharing == Sharing::TimeSlice) {
      (hold == Hold::Allocated ? d.replicas_used : d.replicas_reserved) += 1;
    } else {
      int take = d.sharing == Sharing::Whole ? kMilliPerGpu : t.gpu_milli;
      (hold == Hold::Allocated ? d.milli_used : d.milli_reserved) += take;
    }
  }
  if (t.num_gpu > 0) count_demand(n, t.gpu_milli, 1);
  ++versions_[p.node];
  return {};
}

core::Status Pool::release(const Task& t, const Placement& p, Hold hold) {
  if (p.node >= nodes_.size()) return core::Error::invalid("node", std::to_string(p.node), "no such node in the pool");
  Node& n = nodes_[p.node];
  if (n.cpu_used < t.cpu_milli || n.memory_used < t.memory_mib)
    return core::Error::invalid("node", n.name, "releases more CPU or memory than is in use");
  for (std::size_t k = 0; k < p.gpus.size(); ++k) {
    int g = p.gpus[k];
    if (g < 0 || static_cast<std::size_t>(g) >= n.gpus.size())
      return core::Error::invalid("gpus[" + std::to_string(k) + "]", std::to_string(g), "no such GPU on " + n.name);
    const Device& d = n.gpus[static_cast<std::size_t>(g)];
    int held = d.sharing == Sharing::TimeSlice ? (hold == Hold::Allocated ? d.replicas_used : d.replicas_reserved)
                                               : (hold == Hold::Allocated ? d.milli_used : d.milli_reserved);
    int take = d.sharing == Sharing::TimeSlice ? 1 : d.sharing == Sharing::Whole ? kMilliPerGpu : t.gpu_milli;
    if (held < take) return core::Error::invalid("gpus[" + std::to_string(k) + "]", std::to_string(g), "releases more than it holds");
  }
  n.cpu_used -= t.cpu_milli;
  n.memory_used -= t.memory_mib;
  for (int g : p.gpus) {
    Device& d = n.gpus[static_cast<std::size_t>(g)];
    if (d.sharing == Sharing::TimeSlice)
      (hold == Hold::Allocated ? d.replicas_used : d.replicas_reserved) -= 1;
    else
      (hold == Hold::Allocated ? d.milli_used : d.milli_reserved) -= d.sharing == Sharing::Whole ? kMilliPerGpu : t.gpu_milli;
  }
  if (t.num_gpu > 0) count_demand(n, t.gpu_milli, -1);
  ++versions_[p.node];
  return {};
}

core::Status Pool::allocate_mig(std::size_t node, int gpu, std::size_t instance, Hold hold) {
  BUDCORE_TRY_ASSIGN(Device * device, mig_device(nodes_, node, gpu, instance));
  Device& d = *device;
  if (d.mig_state[instance] != 0)
    return core::Error::invalid("instance", to_string(d.mig[instance]), "the MIG instance is already in use");
  d.mig_state[instance] = hold == Hold::Allocated ? 1 : 2;
  ++versions_[node];
  return {};
}

core::Status Pool::release_mig(std::size_t node, int gpu, std::size_t instance) {
  BUDCORE_TRY_ASSIGN(Device * device, mig_device(nodes_, node, gpu, instance));
  device->mig_state[instance] = 0;
  ++versions_[node];
  return {};
}

core::Status Pool::repartition(std::size_t node, int gpu, std::vector<MigInstance> layout) {
  if (node >= nodes_.size()) return core::Error::invalid("node", std::to_string(node), "no such node in the pool");
  Node& n = nodes_[node];
  if (gpu < 0 || static_cast<std::size_t>(gpu) >= n.gpus.size() || n.gpus[static_cast<std::size_t>(gpu)].sharing != Sharing::Mig)
    return core::Error::invalid("gpu", std::to_string(gpu), "not a MIG GPU of " + n.name);
  BUDCORE_TRY(validate_mig_layout(n.model, layout));
  Device& d = n.gpus[static_cast<std::size_t>(gpu)];
  std::vector<std::uint8_t> state(layout.size(), 0);
  for (std::size_t i = 0; i < d.mig.size(); ++i) {
    if (d.mig_state[i] == 0) continue;
    auto it = std::find(layout.begin(), layout.end(), d.mig[i]);
    if (it == layout.end())
      return core::Error::invalid("layout", to_string(d.mig[i]), "the instance is in use and not in the new layout");
    state[static_cast<std::size_t>(it - layout.begin())] = d.mig_state[i];
  }
  d.mig = std::move(layout);
  d.mig_state = std::move(state);
  ++versions_[node];
  return {};
}

Capacity Pool::device_capacity(const Device& d) noexcept {
  Capacity c;
  c.total = kMilliPerGpu;
  switch (d.sharing) {
    case Sharing::Whole:
    case Sharing::Fractional:
      c.allocated = d.milli_used;
      c.reserved = d.milli_reserved;
      break;
    case Sharing::TimeSlice:
      c.allocated = std::int64_t{d.replicas_used} * kMilliPerGpu / d.replicas;
      c.reserved = std::int64_t{d.replicas_reserved} * kMilliPerGpu / d.replicas;
      break;
    case Sharing::Mig:
      // Each instance's share of the GPU's 7 compute slices; slices no instance holds are free. A
      // profile name has the same compute slices in every table, so the first table that has it says.
      for (std::size_t i = 0; i < d.mig.size(); ++i) {
        int slices = 0;
        for (const auto& model : mig_models())
          if (const MigProfile* p = find_mig_profile(model, d.mig[i].profile)) {
            slices = p->compute_slices;
            break;
          }
        std::int64_t share = std::int64_t{slices} * kMilliPerGpu / kMigComputeSlices;
        if (d.mig_state[i] == 1) c.allocated += share;
        if (d.mig_state[i] == 2) c.reserved += share;
      }
      break;
  }
  c.free = c.total - c.allocated - c.reserved;
  return c;
}

Capacity Pool::node_capacity(std::size_t node) const {
  Capacity c;
  for (const auto& d : nodes_.at(node).gpus) c += device_capacity(d);
  return c;
}

Capacity Pool::total_capacity() const {
  Capacity c;
  for (std::size_t i = 0; i < nodes_.size(); ++i) c += node_capacity(i);
  return c;
}

}  // namespace budcore::gpu
