// FGD (Weng et al., USENIX ATC 2023): place the task where the node's expected fragmentation
// for the workload's task mix grows least, trying each GPU that could take a share. Per node,
// what a decision reads (free capacity, whether a task fits, the fragmentation now, a hash of
// the state) is kept until the node changes (Pool::version); nodes in the same state as an
// earlier one are skipped; so a decision evaluates the measure once per distinct node state and
// candidate GPU.
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

struct NodeCache {
  std::uint64_t version = std::numeric_limits<std::uint64_t>::max();
  double fragmentation = 0;
  std::uint64_t hash = 0;
  int model = 0;
  std::int64_t cpu_left = 0, memory_left = 0;
  int max_share = 0;   // the most free milli-GPU on one fractional GPU
  int whole_free = 0;  // fractional or whole GPUs nobody uses
  int slices_free = 0; // time-sliced GPUs with a free replica
  std::vector<int> free;
};

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
      const NodeCache& c = refresh(pool, i);
      if (!fits(c, task, mask) || same_as_earlier(pool, i)) continue;
      const Node& n = pool.node(i);
      free_ = c.free;
      NodeState after{c.model, c.cpu_left - task.cpu_milli, c.memory_left - task.memory_mib, free_.data(),
                      static_cast<int>(free_.size())};
      if (task.shares_gpu()) {
        for (std::size_t g = 0; g < n.gpus.size(); ++g) {
          if (!Pool::gpu_fits(n.gpus[g], task) || seen_before(g)) continue;
          free_[g] -= taken(n.gpus[g], task);
          double delta = model_->evaluate(after) - c.fragmentation;
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
      double delta = model_->evaluate(after) - c.fragmentation;
      if (delta < best_delta) {
        best_delta = delta;
        best = std::move(p);
      }
    }
    return best;
  }

 private:
  // Pool::fits from the cached summary (the same answer, without a pass over the GPUs).
  static bool fits(const NodeCache& c, const Task& t, std::uint64_t mask) {
    if (c.cpu_left < t.cpu_milli || c.memory_left < t.memory_mib) return false;
    if (t.num_gpu == 0) return true;
    if (((mask >> c.model) & 1U) == 0) return false;
    if (t.shares_gpu()) return c.max_share >= t.gpu_milli || c.slices_free > 0;
    return c.whole_free + (t.num_gpu == 1 ? c.slices_free : 0) >= t.num_gpu;
  }

  const NodeCache& refresh(const Pool& pool, std::size_t i) {
    NodeCache& c = cache_[i];
    if (c.version == pool.version(i)) return c;
    const Node& n = pool.node(i);
    free_milli(n, c.free);
    c.model = pool.node_model_id(i);
    c.cpu_left = n.cpu_milli - n.cpu_used;
    c.memory_left = n.memory_mib - n.memory_used;
    c.max_share = 0, c.whole_free = 0, c.slices_free = 0;
    std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(c.model);
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0xBF58476D1CE4E5B9ULL; h ^= h >> 31; };
    mix(static_cast<std::uint64_t>(c.cpu_left));
    mix(static_cast<std::uint64_t>(c.memory_left));
    for (std::size_t g = 0; g < n.gpus.size(); ++g) {
      const Device& d = n.gpus[g];
      if (d.sharing == Sharing::Fractional) c.max_share = std::max(c.max_share, c.free[g]);
      if ((d.sharing == Sharing::Fractional || d.sharing == Sharing::Whole) && d.milli_used + d.milli_reserved == 0) ++c.whole_free;
      if (d.sharing == Sharing::TimeSlice && d.replicas_used + d.replicas_reserved < d.replicas) ++c.slices_free;
      mix(static_cast<std::uint64_t>(c.free[g]) | (static_cast<std::uint64_t>(d.sharing) << 32) |
          (static_cast<std::uint64_t>(d.replicas) << 40));
    }
    c.hash = h;
    c.fragmentation = model_->evaluate({c.model, c.cpu_left, c.memory_left, c.free.data(), static_cast<int>(c.free.size())});
    c.version = pool.version(i);
    return c;
  }

  // GPUs with the same free capacity leave the node in the same state: the first one stands
  // for all of them.
  bool seen_before(std::size_t g) const {
    for (std::size_t k = 0; k < g; ++k)
      if (free_[k] == free_[g]) return true;
    return false;
  }

  // An earlier node in the same state offers the same choices with the same growth, and a tie
  // goes to it, so a later one need not be evaluated. The states seen in this decision are in
  // a table cleared by a generation count.
  bool same_as_earlier(const Pool& pool, std::size_t i) {
    const std::uint64_t h = cache_[i].hash;
    const std::size_t mask = table_.size() - 1;
    for (std::size_t k = h & mask;; k = (k + 1) & mask) {
      Slot& s = table_[k];
      if (s.generation != generation_) {
        s = {generation_, h, i};
        return false;
      }
      if (s.hash == h && same_state(pool, s.node, i)) return true;
    }
  }

  bool same_state(const Pool& pool, std::size_t a, std::size_t b) const {
    const NodeCache& x = cache_[a];
    const NodeCache& y = cache_[b];
    if (x.model != y.model || x.cpu_left != y.cpu_left || x.memory_left != y.memory_left || x.free != y.free) return false;
    const auto& dx = pool.node(a).gpus;
    const auto& dy = pool.node(b).gpus;
    for (std::size_t g = 0; g < dx.size(); ++g)
      if (dx[g].sharing != dy[g].sharing || dx[g].replicas != dy[g].replicas) return false;
    return true;
  }

  void prepare(const Pool& pool) {
    if (model_ && pool_ == &pool && cache_.size() == pool.size()) return;
    model_ = std::make_unique<FragModel>(pool, workload_);
    pool_ = &pool;
    cache_.assign(pool.size(), NodeCache{});
    std::size_t size = 16;
    while (size < 2 * pool.size()) size *= 2;
    table_.assign(size, Slot{});
  }

  struct Slot {
    std::uint64_t generation = 0;
    std::uint64_t hash = 0;
    std::size_t node = 0;
  };

  Workload workload_;
  std::unique_ptr<FragModel> model_;
  const Pool* pool_ = nullptr;
  std::vector<NodeCache> cache_;
  std::vector<int> free_;
  std::vector<Slot> table_;
  std::uint64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Policy> make_fgd(const Workload& workload) { return std::make_unique<Fgd>(workload); }

}  // namespace budcore::gpu::detail
