// The simulated cluster's node inventory: validation, GPU slots per node (whole GPUs, MIG
// instances, time-slice replicas) and first-fit placement of admitted runs.
#include <algorithm>
#include <set>

#include "backends/sim/sim_impl.hpp"

namespace budcore::backend {

using core::Error;
using Impl = SimCluster::Impl;

namespace {
constexpr std::int64_t kMaxNodesPerPool = 100'000;
constexpr std::int64_t kMaxGpusPerNode = 1'024;
constexpr std::int64_t kMaxMigInstances = 7;  // A100/H100 MIG: at most 7 instances per GPU
constexpr std::int64_t kMaxTimeSliceReplicas = 64;

bool is_gpu_resource(std::string_view name) {
  return name != core::kResourceCpu && name != core::kResourceMemory && name != core::kResourceEphemeralStorage;
}
}  // namespace

std::string NodePool::gpu_resource() const {
  if (sharing == GpuSharing::Mig) return "nvidia.com/mig-" + mig_profile;
  return std::string(core::kResourceNvidiaGpu);
}

std::int64_t NodePool::slots_per_node() const {
  switch (sharing) {
    case GpuSharing::Full: return gpus_per_node;
    case GpuSharing::Mig: return gpus_per_node * mig_instances_per_gpu;
    case GpuSharing::TimeSlice: return gpus_per_node * time_slice_replicas;
  }
  return gpus_per_node;
}

core::Status SimClusterOptions::validate() const {
  BUDCORE_TRY(quota::validate(quota));
  if (admission_window < 1) return Error::invalid("admission_window", "0", "must be at least 1");
  if (start_latency.count_ns() < 0) return Error::invalid("start_latency", start_latency.to_string(), "must not be negative");
  if (!(outcomes.duration_spread >= 0 && outcomes.duration_spread <= 1))
    return Error::invalid("outcomes.duration_spread", std::to_string(outcomes.duration_spread), "must be between 0 and 1");
  if (!(outcomes.failure_rate >= 0 && outcomes.failure_rate <= 1))
    return Error::invalid("outcomes.failure_rate", std::to_string(outcomes.failure_rate), "must be between 0 and 1");
  if (outcomes.default_duration.count_ns() <= 0)
    return Error::invalid("outcomes.default_duration", outcomes.default_duration.to_string(), "must be positive");
  std::set<std::string> flavors;
  for (const auto& f : quota.resource_flavors) flavors.insert(f.name);
  std::set<std::string> names;
  for (std::size_t i = 0; i < inventory.size(); ++i) {
    const NodePool& p = inventory[i];
    const std::string path = "inventory[" + std::to_string(i) + "]";
    if (p.name.empty()) return Error::invalid(path + ".name", "", "a node pool needs a name");
    if (!names.insert(p.name).second) return Error::invalid(path + ".name", p.name, "duplicate node pool name");
    if (!flavors.count(p.flavor))
      return Error::invalid(path + ".flavor", p.flavor, "is not a resource flavor of the quota configuration");
    if (p.nodes < 0 || p.nodes > kMaxNodesPerPool)
      return Error::invalid(path + ".nodes", std::to_string(p.nodes), "must be between 0 and 100000");
    if (p.gpus_per_node < 0 || p.gpus_per_node > kMaxGpusPerNode)
      return Error::invalid(path + ".gpus_per_node", std::to_string(p.gpus_per_node), "must be between 0 and 1024");
    if (p.gpus_per_node > 0 && p.gpu_type.empty())
      return Error::invalid(path + ".gpu_type", "", "a pool with GPUs names their type");
    if (p.sharing == GpuSharing::Mig) {
      if (p.mig_profile.empty()) return Error::invalid(path + ".mig_profile", "", "a MIG pool names its profile (\"1g.10gb\")");
      if (p.mig_instances_per_gpu < 1 || p.mig_instances_per_gpu > kMaxMigInstances)
        return Error::invalid(path + ".mig_instances_per_gpu", std::to_string(p.mig_instances_per_gpu),
                              "must be between 1 and 7");
    }
    if (p.sharing == GpuSharing::TimeSlice && (p.time_slice_replicas < 1 || p.time_slice_replicas > kMaxTimeSliceReplicas))
      return Error::invalid(path + ".time_slice_replicas", std::to_string(p.time_slice_replicas), "must be between 1 and 64");
    if (p.cpu_per_node && p.cpu_per_node->sign() < 0)
      return Error::invalid(path + ".cpu_per_node", p.cpu_per_node->to_string(), "must not be negative");
    if (p.memory_per_node && p.memory_per_node->sign() < 0)
      return Error::invalid(path + ".memory_per_node", p.memory_per_node->to_string(), "must not be negative");
  }
  return {};
}

core::Status Impl::build_inventory() {
  for (std::size_t p = 0; p < options.inventory.size(); ++p) {
    const NodePool& pool = options.inventory[p];
    std::int64_t cpu = -1, mem = -1;
    if (pool.cpu_per_node) {
      BUDCORE_TRY_ASSIGN(cpu, pool.cpu_per_node->milli_value());
    }
    if (pool.memory_per_node) {
      BUDCORE_TRY_ASSIGN(mem, pool.memory_per_node->milli_value());
      mem /= 1000;
    }
    if (!pool.gpu_type.empty()) flavor_gpu_resource[pool.flavor] = pool.gpu_resource();
    for (std::int64_t n = 0; n < pool.nodes; ++n) {
      sim::Node node;
      node.name = pool.name + "-" + std::to_string(n);
      node.pool = static_cast<int>(p);
      node.free_cpu_milli = cpu;
      node.free_memory = mem;
      node.used.assign(static_cast<std::size_t>(pool.slots_per_node()), 0);
      node.free_slots = pool.slots_per_node();
      nodes_by_flavor[pool.flavor].push_back(static_cast<int>(nodes.size()));
      nodes.push_back(std::move(node));
    }
  }
  return {};
}

// First fit over the nodes of the pools of the run's flavor (its GPU flavor, else its first
// flavor), the node it ran on before first (adoption). A run whose flavors have no pool is not
// constrained by the inventory.
bool Impl::place(std::uint32_t slot) {
  sim::Run& r = runs[slot];
  if (!r.placement) return true;
  const quota::PodSet& ps = shapes[r.shape];
  const auto& adm = r.placement->admission;
  auto fl = adm.flavors.find(ps.name);
  std::int32_t count = ps.count;
  if (auto c = adm.count.find(ps.name); c != adm.count.end()) count = c->second;
  std::string flavor, gpu_res;
  if (fl != adm.flavors.end()) {
    for (const auto& [res, f] : fl->second)
      if (is_gpu_resource(res) && ps.requests.get(res).sign() > 0) {
        flavor = f;
        gpu_res = res;
      }
    if (flavor.empty() && !fl->second.empty()) flavor = fl->second.begin()->second;
  }
  auto pools = nodes_by_flavor.find(flavor);
  if (pools == nodes_by_flavor.end()) {
    r.node = -1;
    return true;
  }
  auto milli = [&](std::string_view res) {
    auto v = ps.requests.get(res).milli_value();
    return (v ? *v : 0) * count;
  };
  std::int64_t need_slots = 0;
  if (!gpu_res.empty()) {
    auto it = flavor_gpu_resource.find(flavor);
    if (it != flavor_gpu_resource.end() && it->second == gpu_res) need_slots = milli(gpu_res) / 1000;
  }
  const std::int64_t need_cpu = milli(core::kResourceCpu);
  const std::int64_t need_mem = milli(core::kResourceMemory) / 1000;
  auto fits = [&](const sim::Node& n) {
    return n.free_slots >= need_slots && (n.free_cpu_milli < 0 || n.free_cpu_milli >= need_cpu) &&
           (n.free_memory < 0 || n.free_memory >= need_mem);
  };
  std::vector<int> order = pools->second;
  if (!r.placement->nodes.empty()) {
    auto it = std::find_if(order.begin(), order.end(), [&](int n) { return nodes[static_cast<std::size_t>(n)].name == r.placement->nodes[0]; });
    if (it != order.end()) std::rotate(order.begin(), it, it + 1);
  }
  for (int ni : order) {
    sim::Node& n = nodes[static_cast<std::size_t>(ni)];
    if (!fits(n)) continue;
    const NodePool& pool = options.inventory[static_cast<std::size_t>(n.pool)];
    r.node = ni;
    r.slots.clear();
    r.placement->nodes.assign(1, n.name);
    r.placement->devices.clear();
    for (std::size_t s = 0; s < n.used.size() && static_cast<std::int64_t>(r.slots.size()) < need_slots; ++s) {
      if (n.used[s]) continue;
      n.used[s] = 1;
      r.slots.push_back(static_cast<std::int32_t>(s));
      std::string lane = n.name + "/gpu";
      switch (pool.sharing) {
        case GpuSharing::Full: lane += std::to_string(s); break;
        case GpuSharing::Mig:
          lane += std::to_string(static_cast<std::int64_t>(s) / pool.mig_instances_per_gpu) + "/mig" +
                  std::to_string(static_cast<std::int64_t>(s) % pool.mig_instances_per_gpu);
          break;
        case GpuSharing::TimeSlice:
          lane += std::to_string(static_cast<std::int64_t>(s) / pool.time_slice_replicas) + "/slice" +
                  std::to_string(static_cast<std::int64_t>(s) % pool.time_slice_replicas);
          break;
      }
      r.placement->devices.push_back(std::move(lane));
    }
    n.free_slots -= need_slots;
    if (n.free_cpu_milli >= 0) n.free_cpu_milli -= need_cpu;
    if (n.free_memory >= 0) n.free_memory -= need_mem;
    r.node_cpu = need_cpu;
    r.node_memory = need_mem;
    return true;
  }
  return false;
}

void Impl::release_node(std::uint32_t slot) {
  sim::Run& r = runs[slot];
  if (r.node < 0) return;
  sim::Node& n = nodes[static_cast<std::size_t>(r.node)];
  for (auto s : r.slots) n.used[static_cast<std::size_t>(s)] = 0;
  n.free_slots += static_cast<std::int64_t>(r.slots.size());
  if (n.free_cpu_milli >= 0) n.free_cpu_milli += r.node_cpu;
  if (n.free_memory >= 0) n.free_memory += r.node_memory;
  r.node = -1;
  r.slots.clear();
  r.node_cpu = r.node_memory = 0;
}

// Admitted runs waiting for a node, in admission order; each that fits now starts.
void Impl::place_waiting(std::int64_t now) {
  if (unplaced.empty()) return;
  std::deque<std::uint32_t> still;
  while (!unplaced.empty()) {
    std::uint32_t slot = unplaced.front();
    unplaced.pop_front();
    if (runs[slot].phase != sim::Phase::Admitted) continue;
    if (place(slot)) {
      start(slot, now);
    } else {
      still.push_back(slot);
    }
  }
  unplaced = std::move(still);
}

}  // namespace budcore::backend
