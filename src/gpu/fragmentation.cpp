// Fragmentation: the workload's task types, the measure per node and for the cluster.
#include <algorithm>
#include <map>
#include <tuple>

#include "gpu/frag_model.hpp"

namespace budcore::gpu {
namespace detail {

void free_milli(const Node& node, std::vector<int>& out) {
  out.resize(node.gpus.size());
  for (std::size_t g = 0; g < node.gpus.size(); ++g) out[g] = node.gpus[g].milli_free();
}

FragModel::FragModel(const Pool& pool, const Workload& workload) {
  int models = 0;
  for (std::size_t i = 0; i < pool.size(); ++i) models = std::max(models, pool.node_model_id(i) + 1);
  by_model_.resize(static_cast<std::size_t>(models));
  for (const auto& type : workload.types()) {
    const Task& t = type.task;
    std::uint64_t mask = pool.model_mask(t);
    for (int m = 0; m < models; ++m) {
      // A type whose models exclude this one can never use the node, and a CPU-only type uses
      // no GPU at all: both lose all free capacity, which evaluate() counts as the default.
      if (t.num_gpu == 0 || ((mask >> m) & 1U) == 0) continue;
      auto& demands = by_model_[static_cast<std::size_t>(m)];
      auto it = std::find_if(demands.begin(), demands.end(),
                             [&](const Demand& d) { return d.num_gpu == t.num_gpu && d.milli == t.gpu_milli; });
      if (it == demands.end()) {
        demands.push_back({t.num_gpu, t.gpu_milli, {}, {}, {}});
        it = demands.end() - 1;
      }
      it->cpu.push_back(t.cpu_milli);
      it->memory.push_back(t.memory_mib);
      it->weight.push_back(type.weight);
    }
  }
}

double FragModel::evaluate(const NodeState& s) const {
  // F = R - sum over the GPU types that fit of weight x U, where R is the free capacity and U
  // the part of it the type can use: the GPUs with at least its share (whole GPUs for a task of
  // whole GPUs). A type that does not fit, or asks for no GPU, leaves all of R.
  std::int64_t total = 0;
  int whole = 0;
  for (int g = 0; g < s.gpus; ++g) {
    total += s.free[g];
    whole += s.free[g] >= kMilliPerGpu ? 1 : 0;
  }
  if (total == 0) return 0;
  double usable = 0;
  if (static_cast<std::size_t>(s.model) < by_model_.size()) {
    for (const Demand& d : by_model_[static_cast<std::size_t>(s.model)]) {
      std::int64_t u = 0;
      if (d.num_gpu == 1 && d.milli < kMilliPerGpu) {
        for (int g = 0; g < s.gpus; ++g) u += s.free[g] >= d.milli ? s.free[g] : 0;
      } else if (whole >= d.num_gpu) {
        u = std::int64_t{whole} * kMilliPerGpu;
      }
      if (u == 0) continue;
      double w = 0;
      for (std::size_t k = 0; k < d.weight.size(); ++k)
        if (d.cpu[k] <= s.cpu_left && d.memory[k] <= s.memory_left) w += d.weight[k];
      usable += w * static_cast<double>(u);
    }
  }
  return static_cast<double>(total) - usable;
}

}  // namespace detail

Workload Workload::from_tasks(const std::vector<Task>& tasks) {
  using Key = std::tuple<std::int64_t, std::int64_t, int, int, std::vector<std::string>>;
  std::map<Key, std::size_t> index;
  Workload w;
  std::vector<std::size_t> counts;
  for (const auto& t : tasks) {
    std::vector<std::string> spec = t.gpu_spec;
    std::sort(spec.begin(), spec.end());
    spec.erase(std::unique(spec.begin(), spec.end()), spec.end());
    auto [it, added] = index.emplace(Key{t.cpu_milli, t.memory_mib, t.num_gpu, t.gpu_milli, spec}, w.types_.size());
    if (added) {
      w.types_.push_back({t, 0});
      counts.push_back(0);
    }
    ++counts[it->second];
  }
  for (std::size_t i = 0; i < counts.size(); ++i)
    w.types_[i].weight = static_cast<double>(counts[i]) / static_cast<double>(tasks.size());
  return w;
}

double node_fragmentation(const Pool& pool, std::size_t node, const Task& task) {
  Workload one = Workload::from_tasks({task});
  return node_fragmentation(pool, node, one);
}

double node_fragmentation(const Pool& pool, std::size_t node, const Workload& workload) {
  detail::FragModel model(pool, workload);
  const Node& n = pool.node(node);
  std::vector<int> free;
  detail::free_milli(n, free);
  return model.evaluate({pool.node_model_id(node), n.cpu_milli - n.cpu_used, n.memory_mib - n.memory_used, free.data(),
                         static_cast<int>(free.size())});
}

FragmentationReport measure(const Pool& pool, const Workload& workload) {
  detail::FragModel model(pool, workload);
  FragmentationReport r;
  std::vector<int> free;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    const Node& n = pool.node(i);
    detail::free_milli(n, free);
    r.fragmentation_milli += model.evaluate({pool.node_model_id(i), n.cpu_milli - n.cpu_used, n.memory_mib - n.memory_used,
                                             free.data(), static_cast<int>(free.size())});
    Capacity c = pool.node_capacity(i);
    r.total_milli += c.total;
    r.free_milli += c.free;
    int whole = 0;
    for (const auto& d : n.gpus)
      whole += (d.sharing == Sharing::Whole || d.sharing == Sharing::Fractional) && d.milli_used + d.milli_reserved == 0 ? 1 : 0;
    r.largest_gang_node = std::max(r.largest_gang_node, whole);
    r.largest_gang_cluster += whole;
  }
  r.fragmentation_share = r.free_milli > 0 ? r.fragmentation_milli / static_cast<double>(r.free_milli) : 0;
  r.unallocated_share = r.total_milli > 0 ? static_cast<double>(r.free_milli) / static_cast<double>(r.total_milli) : 0;
  return r;
}

PoolReport report(const Pool& pool, const Workload& workload) {
  PoolReport r;
  r.cluster = measure(pool, workload);
  for (std::size_t i = 0; i < pool.size(); ++i) {
    const Node& n = pool.node(i);
    NodeReport nr;
    nr.name = n.name;
    nr.model = n.model;
    nr.fragmentation_milli = node_fragmentation(pool, i, workload);
    nr.capacity = pool.node_capacity(i);
    for (const auto& d : n.gpus)
      nr.free_whole_gpus += (d.sharing == Sharing::Whole || d.sharing == Sharing::Fractional) && d.milli_used + d.milli_reserved == 0;
    if (!n.gpus.empty()) {
      int& gang = r.largest_gang_by_model[n.model];
      gang = std::max(gang, nr.free_whole_gpus);
    }
    r.nodes.push_back(std::move(nr));
  }
  return r;
}

core::Value to_value(const PoolReport& r) {
  core::Map gangs;
  for (const auto& [model, n] : r.largest_gang_by_model) gangs.set(model, n);
  core::List nodes;
  for (const auto& n : r.nodes)
    nodes.push_back(core::Value::map({{"name", n.name},
                                      {"model", n.model},
                                      {"fragmentation_milli", n.fragmentation_milli},
                                      {"total_milli", n.capacity.total},
                                      {"allocated_milli", n.capacity.allocated},
                                      {"reserved_milli", n.capacity.reserved},
                                      {"free_milli", n.capacity.free},
                                      {"free_whole_gpus", n.free_whole_gpus}}));
  const FragmentationReport& c = r.cluster;
  return core::Value::map({{"fragmentation_milli", c.fragmentation_milli},
                           {"fragmentation_share", c.fragmentation_share},
                           {"total_milli", c.total_milli},
                           {"free_milli", c.free_milli},
                           {"unallocated_share", c.unallocated_share},
                           {"largest_gang_node", c.largest_gang_node},
                           {"largest_gang_cluster", c.largest_gang_cluster},
                           {"largest_gang_by_model", core::Value(std::move(gangs))},
                           {"nodes", core::Value(std::move(nodes))}});
}

}  // namespace budcore::gpu
