// FGD (Weng et al., USENIX ATC 2023): place the task where the node's expected fragmentation
// for the workload's task mix grows least, trying each GPU that could take a share. A node's
// current fragmentation is kept until the node changes (Pool::version), so one decision costs
// one evaluation per node and distinct candidate GPU.
#include <limits>

#include "gpu/frag_model.hpp"
#include "gpu/policy_impl.hpp"

namespace budcore::gpu::detail {
namespace {

// The milli-GPU a device's free capacity drops by when it takes the task.
int taken(const Device& d, const Task& t) {
  if (d.sharing == Sharing::TimeSlice) return d.replicas > 0 ? kMilliPerGpu / d.replicas : 0;
  if (d.sharing == Sharing::Whole) return kMilliPerGpu;
  return t.gpu_milli;
}

class Fgd final : public Policy {
 public:
  explicit Fgd(Workload workload) : workload_(std::move(workload)) {}
  std::string_view name() const noexcept override { return "fgd"; }

  std::optional<Placement> place(const Pool& pool, const Task& task) override {
    prepare(pool);
    const std::uint64_t mask = pool.model_mask(task);
    std::optional<Placement> best;
    double best_delta = std::numeric_limits<double>::infinity();
    ++generation_;
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (!pool.fits(task, mask, i)) continue;
      const Node& n = pool.node(i);
      free_milli(n, free_);
      if (same_as_earlier(pool, task, i)) continue;
      double before = current(pool, i);
      NodeState after{pool.node_model_id(i), n.cpu_milli - n.cpu_used - task.cpu_milli,
                      n.memory_mib - n.memory_used - task.memory_mib, free_.data(), static_cast<int>(free_.size())};
      if (task.shares_gpu()) {
        for (std::size_t g = 0; g < n.gpus.size(); ++g) {
          if (!Pool::gpu_fits(n.gpus[g], task) || seen_before(g)) continue;
          free_[g] -= taken(n.gpus[g], task);
          double delta = model_->evaluate(after) - before;
          free_[g] += taken(n.gpus[g], task);
          if (delta < best_delta) {
            best_delta = delta;
            best = Placement{i, {static_cast<int>(g)}};
          }
        }
        continue;
      }
      Placement p = candidate(n, i, task, GpuChoice::First);
      for (int g : p.gpus) free_[static_cast<std::size_t>(g)] -= taken(n.gpus[static_cast<std::size_t>(g)], task);
      double delta = model_->evaluate(after) - before;
      if (delta < best_delta) {
        best_delta = delta;
        best = std::move(p);
      }
    }
    return best;
  }

 private:
  // GPUs with the same free capacity leave the node in the same state: the first one stands
  // for all of them.
  bool seen_before(std::size_t g) const {
    for (std::size_t k = 0; k < g; ++k)
      if (free_[k] == free_[g]) return true;
    return false;
  }

  // Many nodes are in the same state (untouched, or filled alike): an earlier node in the same
  // state offers the same choices with the same growth, and a tie goes to it, so a later one
  // need not be evaluated. States are hashed into a table cleared by a generation count.
  bool same_as_earlier(const Pool& pool, const Task& task, std::size_t i) {
    const Node& n = pool.node(i);
    std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(pool.node_model_id(i));
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0xBF58476D1CE4E5B9ULL; h ^= h >> 31; };
    mix(static_cast<std::uint64_t>(n.cpu_milli - n.cpu_used));
    mix(static_cast<std::uint64_t>(n.memory_mib - n.memory_used));
    for (int f : free_) mix(static_cast<std::uint64_t>(f));
    const std::size_t mask = table_.size() - 1;
    for (std::size_t k = h & mask;; k = (k + 1) & mask) {
      Slot& s = table_[k];
      if (s.generation != generation_) {
        s = {generation_, h, i};
        return false;
      }
      if (s.hash == h && same_state(pool, task, s.node, i)) return true;
    }
  }

  static bool same_state(const Pool& pool, const Task& task, std::size_t a, std::size_t b) {
    const Node& x = pool.node(a);
    const Node& y = pool.node(b);
    if (pool.node_model_id(a) != pool.node_model_id(b) || x.cpu_milli - x.cpu_used != y.cpu_milli - y.cpu_used ||
        x.memory_mib - x.memory_used != y.memory_mib - y.memory_used || x.gpus.size() != y.gpus.size())
      return false;
    for (std::size_t g = 0; g < x.gpus.size(); ++g) {
      const Device& d = x.gpus[g];
      const Device& e = y.gpus[g];
      if (d.sharing != e.sharing || d.milli_free() != e.milli_free() || Pool::gpu_fits(d, task) != Pool::gpu_fits(e, task) ||
          taken(d, task) != taken(e, task))
        return false;
    }
    return true;
  }

  void prepare(const Pool& pool) {
    if (model_ && pool_ == &pool && nodes_ == pool.size()) return;
    model_ = std::make_unique<FragModel>(pool, workload_);
    pool_ = &pool;
    nodes_ = pool.size();
    cached_.assign(nodes_, 0);
    cached_version_.assign(nodes_, std::numeric_limits<std::uint64_t>::max());
    std::size_t size = 16;
    while (size < 2 * nodes_) size *= 2;
    table_.assign(size, Slot{});
  }

  double current(const Pool& pool, std::size_t i) {
    if (cached_version_[i] != pool.version(i)) {
      const Node& n = pool.node(i);
      cached_[i] = model_->evaluate({pool.node_model_id(i), n.cpu_milli - n.cpu_used, n.memory_mib - n.memory_used, free_.data(),
                                     static_cast<int>(free_.size())});
      cached_version_[i] = pool.version(i);
    }
    return cached_[i];
  }

  Workload workload_;
  std::unique_ptr<FragModel> model_;
  const Pool* pool_ = nullptr;
  std::size_t nodes_ = 0;
  std::vector<double> cached_;
  std::vector<std::uint64_t> cached_version_;
  std::vector<int> free_;
  struct Slot {
    std::uint64_t generation = 0;
    std::uint64_t hash = 0;
    std::size_t node = 0;
  };
  std::vector<Slot> table_;
  std::uint64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Policy> make_fgd(const Workload& workload) { return std::make_unique<Fgd>(workload); }

}  // namespace budcore::gpu::detail
