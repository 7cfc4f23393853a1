// The scored placement policies: each scores one candidate placement per node that fits, and
// the highest score wins (the first node on a tie, so a run is deterministic).
#include <algorithm>
#include <random>

#include "budcore/gpu/policy.hpp"
#include "gpu/policy_impl.hpp"

namespace budcore::gpu {
namespace detail {

Placement candidate(const Node& n, std::size_t node, const Task& t, GpuChoice choice) {
  Placement p{node, {}};
  if (t.num_gpu == 0) return p;
  if (t.shares_gpu()) {
    int best = -1;
    for (std::size_t g = 0; g < n.gpus.size(); ++g) {
      if (!Pool::gpu_fits(n.gpus[g], t)) continue;
      int f = n.gpus[g].milli_free();
      int b = best < 0 ? 0 : n.gpus[static_cast<std::size_t>(best)].milli_free();
      if (best < 0 || (choice == GpuChoice::Tightest && f < b) || (choice == GpuChoice::Loosest && f > b))
        best = static_cast<int>(g);
      if (choice == GpuChoice::First) break;
    }
    p.gpus.push_back(best);
    return p;
  }
  for (std::size_t g = 0; g < n.gpus.size() && static_cast<int>(p.gpus.size()) < t.num_gpu; ++g)
    if (Pool::gpu_fits(n.gpus[g], t)) p.gpus.push_back(static_cast<int>(g));
  return p;
}

std::optional<Placement> ScoredPolicy::place(const Pool& pool, const Task& task) {
  const std::uint64_t mask = pool.model_mask(task);
  std::optional<Placement> best;
  double best_score = 0;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    if (!pool.fits(task, mask, i)) continue;
    Placement p = candidate(pool.node(i), i, task, choice_);
    double s = score(pool, p, task);
    if (!best || s > best_score) {
      best = std::move(p);
      best_score = s;
    }
  }
  return best;
}

}  // namespace detail

namespace {

using detail::GpuChoice;
using detail::ScoredPolicy;

// GPU capacity and CPU left after the placement, each as a share of the node's.
double left_after(const Pool& pool, const Placement& p, const Task& t) {
  const Node& n = pool.node(p.node);
  double gpu_total = 0, gpu_free = 0;
  for (const auto& d : n.gpus) {
    gpu_total += kMilliPerGpu;
    gpu_free += d.milli_free();
  }
  gpu_free -= static_cast<double>(t.num_gpu) * t.gpu_milli;
  double cpu = n.cpu_milli > 0 ? static_cast<double>(n.cpu_milli - n.cpu_used - t.cpu_milli) / static_cast<double>(n.cpu_milli) : 0;
  return (gpu_total > 0 ? gpu_free / gpu_total : 0) + cpu;
}

class FirstFit final : public ScoredPolicy {
 public:
  FirstFit() : ScoredPolicy(GpuChoice::First) {}
  std::string_view name() const noexcept override { return "first_fit"; }
  double score(const Pool&, const Placement&, const Task&) const override { return 0; }
};

// Best fit leaves the least behind on the node; worst fit the most.
class BestFit final : public ScoredPolicy {
 public:
  BestFit() : ScoredPolicy(GpuChoice::Tightest) {}
  std::string_view name() const noexcept override { return "best_fit"; }
  double score(const Pool& pool, const Placement& p, const Task& t) const override { return -left_after(pool, p, t); }
};

class WorstFit final : public ScoredPolicy {
 public:
  WorstFit() : ScoredPolicy(GpuChoice::Loosest) {}
  std::string_view name() const noexcept override { return "worst_fit"; }
  double score(const Pool& pool, const Placement& p, const Task& t) const override { return left_after(pool, p, t); }
};

// Volcano's binpack plugin: for each resource the task asks for (cpu, memory, GPU, weight 1
// each), (used + request) / allocatable; the weighted mean, times the node score range (10).
class Binpack final : public ScoredPolicy {
 public:
  Binpack() : ScoredPolicy(GpuChoice::Tightest) {}
  std::string_view name() const noexcept override { return "binpack"; }
  double score(const Pool& pool, const Placement& p, const Task& t) const override {
    const Node& n = pool.node(p.node);
    double sum = 0, weights = 0;
    auto add = [&](double request, double used, double capacity) {
      if (request <= 0 || capacity <= 0) return;
      sum += (request + used) / capacity;
      weights += 1;
    };
    add(static_cast<double>(t.cpu_milli), static_cast<double>(n.cpu_used), static_cast<double>(n.cpu_milli));
    add(static_cast<double>(t.memory_mib), static_cast<double>(n.memory_used), static_cast<double>(n.memory_mib));
    double gpu_used = 0;
    for (const auto& d : n.gpus) gpu_used += kMilliPerGpu - d.milli_free();
    add(static_cast<double>(t.num_gpu) * t.gpu_milli, gpu_used, static_cast<double>(n.gpus.size()) * kMilliPerGpu);
    return weights > 0 ? sum / weights * 10 : 0;
  }
};

// GPU packing: a share on a GPU already in use first (the fullest), then free GPUs on a node
// already in use (the fewest), then a free node (the smallest).
class GpuPacking final : public ScoredPolicy {
 public:
  GpuPacking() : ScoredPolicy(GpuChoice::Tightest) {}
  std::string_view name() const noexcept override { return "gpu_packing"; }
  double score(const Pool& pool, const Placement& p, const Task&) const override {
    const Node& n = pool.node(p.node);
    int free_gpus = 0;
    for (const auto& d : n.gpus) free_gpus += d.milli_free() == kMilliPerGpu ? 1 : 0;
    int fresh = 0;
    double free_on_used = 0;
    for (int g : p.gpus) {
      int f = n.gpus[static_cast<std::size_t>(g)].milli_free();
      fresh += f == kMilliPerGpu ? 1 : 0;
      free_on_used += f;
    }
    if (!p.gpus.empty() && fresh == 0) return 3000 - free_on_used / 1000.0;
    if (free_gpus < static_cast<int>(n.gpus.size())) return 2000 - fresh;
    return 1000 - free_gpus;
  }
};

// GPU clustering: tasks with the same GPU demand together: a node holding only that demand,
// then one holding it among others, then an idle node, then the rest; the fuller node first.
class GpuClustering final : public ScoredPolicy {
 public:
  GpuClustering() : ScoredPolicy(GpuChoice::Tightest) {}
  std::string_view name() const noexcept override { return "gpu_clustering"; }
  double score(const Pool& pool, const Placement& p, const Task& t) const override {
    if (t.num_gpu == 0) return 0;
    const Node& n = pool.node(p.node);
    int kinds = 0;
    bool same = false;
    for (const auto& [milli, count] : n.demand_counts) {
      if (count <= 0) continue;
      ++kinds;
      same = same || milli == t.gpu_milli;
    }
    double tier = same ? (kinds == 1 ? 4 : 3) : (kinds == 0 ? 2 : 1);
    double free = 0;
    for (const auto& d : n.gpus) free += d.milli_free();
    return tier * 1e6 - free;
  }
};

// Random: a node drawn uniformly among those that fit, from a seeded generator.
class RandomFit final : public Policy {
 public:
  explicit RandomFit(std::uint64_t seed) : rng_(seed) {}
  std::string_view name() const noexcept override { return "random"; }
  std::optional<Placement> place(const Pool& pool, const Task& task) override {
    const std::uint64_t mask = pool.model_mask(task);
    fitting_.clear();
    for (std::size_t i = 0; i < pool.size(); ++i)
      if (pool.fits(task, mask, i)) fitting_.push_back(i);
    if (fitting_.empty()) return std::nullopt;
    std::size_t i = fitting_[rng_() % fitting_.size()];  // mt19937_64 output is the same everywhere
    return detail::candidate(pool.node(i), i, task, GpuChoice::Tightest);
  }

 private:
  std::mt19937_64 rng_;
  std::vector<std::size_t> fitting_;
};

}  // namespace

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names = {"first_fit",   "best_fit",       "worst_fit", "binpack",
                                                 "gpu_packing", "gpu_clustering", "random",    "fgd"};
  return names;
}

core::Result<std::unique_ptr<Policy>> make_policy(std::string_view name, const PolicyOptions& options) {
  if (name == "first_fit") return std::unique_ptr<Policy>(new FirstFit());
  if (name == "best_fit") return std::unique_ptr<Policy>(new BestFit());
  if (name == "worst_fit") return std::unique_ptr<Policy>(new WorstFit());
  if (name == "binpack") return std::unique_ptr<Policy>(new Binpack());
  if (name == "gpu_packing") return std::unique_ptr<Policy>(new GpuPacking());
  if (name == "gpu_clustering") return std::unique_ptr<Policy>(new GpuClustering());
  if (name == "random") return std::unique_ptr<Policy>(new RandomFit(options.seed));
  if (name == "fgd") {
    if (options.workload.empty())
      return core::Error::invalid("workload", "", "fgd measures fragmentation against a workload's task mix: give one");
    return detail::make_fgd(options.workload);
  }
  std::string known;
  for (const auto& n : policy_names()) known += (known.empty() ? "" : ", ") + n;
  return core::Error::invalid("policy", std::string(name), "is not a placement policy (" + known + ")");
}

}  // namespace budcore::gpu
