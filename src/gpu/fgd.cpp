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
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (!pool.fits(task, mask, i)) continue;
      const Node& n = pool.node(i);
      free_milli(n, free_);
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

  void prepare(const Pool& pool) {
    if (model_ && pool_ == &pool && nodes_ == pool.size()) return;
    model_ = std::make_unique<FragModel>(pool, workload_);
    pool_ = &pool;
    nodes_ = pool.size();
    cached_.assign(nodes_, 0);
    cached_version_.assign(nodes_, std::numeric_limits<std::uint64_t>::max());
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
};

}  // namespace

std::unique_ptr<Policy> make_fgd(const Workload& workload) { return std::make_unique<Fgd>(workload); }

}  // namespace budcore::gpu::detail
