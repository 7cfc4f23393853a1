// MIG-aware placement: a free instance of the profile, or a new one where the GPU's layout
// admits it.
#include "budcore/gpu/mig_place.hpp"

#include <tuple>

namespace budcore::gpu {
namespace {

Task cpu_only(Task t) {
  t.num_gpu = 0;
  t.gpu_milli = 0;
  return t;
}

bool overlaps(const MigProfile& a, int a_start, const MigProfile& b, int b_start) {
  return a_start < b_start + b.memory_slices && b_start < a_start + a.memory_slices;
}

std::optional<MigPlacement> place_mig_in(const Pool& pool, std::size_t lo, std::size_t hi, const Task& task,
                                         std::string_view profile);

}  // namespace

std::optional<MigPlacement> place_mig(const Pool& pool, const Task& task, std::string_view profile) {
  return place_mig_in(pool, 0, pool.size(), task, profile);
}

std::optional<MigPlacement> place_mig(const Pool& pool, std::size_t node, const Task& task, std::string_view profile) {
  if (node >= pool.size()) return std::nullopt;
  return place_mig_in(pool, node, node + 1, task, profile);
}

namespace {
// place_mig over the nodes [lo, hi).
std::optional<MigPlacement> place_mig_in(const Pool& pool, std::size_t lo, std::size_t hi, const Task& task,
                                         std::string_view profile) {
  const Task cpu = cpu_only(task);
  // A free instance of the profile.
  for (std::size_t n = lo; n < hi; ++n) {
    if (!pool.fits(cpu, ~std::uint64_t{0}, n)) continue;
    const auto& gpus = pool.node(n).gpus;
    for (std::size_t g = 0; g < gpus.size(); ++g)
      for (std::size_t i = 0; i < gpus[g].mig.size(); ++i)
        if (gpus[g].sharing == Sharing::Mig && gpus[g].mig_state[i] == 0 && gpus[g].mig[i].profile == profile) {
          MigPlacement p;
          p.node = n;
          p.gpu = static_cast<int>(g);
          p.instance = i;
          return p;
        }
  }
  // A new instance: keep what is in use and the free instances it does not overlap.
  std::optional<MigPlacement> best;
  for (std::size_t n = lo; n < hi; ++n) {
    const Node& node = pool.node(n);
    const MigProfile* want = find_mig_profile(node.model, profile);
    if (want == nullptr || !pool.fits(cpu, ~std::uint64_t{0}, n)) continue;
    for (std::size_t g = 0; g < node.gpus.size(); ++g) {
      const Device& d = node.gpus[g];
      if (d.sharing != Sharing::Mig) continue;
      for (int start : want->starts) {
        std::vector<MigInstance> layout;
        int dropped = 0;
        bool blocked = false;
        for (std::size_t i = 0; i < d.mig.size() && !blocked; ++i) {
          const MigProfile* have = find_mig_profile(node.model, d.mig[i].profile);
          if (have == nullptr) {
            blocked = true;
          } else if (!overlaps(*have, d.mig[i].start, *want, start)) {
            layout.push_back(d.mig[i]);
          } else if (d.mig_state[i] != 0) {
            blocked = true;  // an instance in use is never given up
          } else {
            ++dropped;
          }
        }
        if (blocked) continue;
        layout.push_back({std::string(profile), start});
        if (!validate_mig_layout(node.model, layout)) continue;
        if (best && std::tie(best->dropped, best->node, best->gpu) <= std::tie(dropped, n, g)) continue;
        MigPlacement p;
        p.node = n;
        p.gpu = static_cast<int>(g);
        p.layout = std::move(layout);
        p.dropped = dropped;
        best = std::move(p);
      }
    }
  }
  return best;
}
}  // namespace

core::Result<std::size_t> allocate_mig_placement(Pool& pool, const Task& task, const MigPlacement& p, Hold hold) {
  Pool next = pool;
  std::size_t instance = 0;
  if (p.instance) {
    instance = *p.instance;
  } else {
    if (p.layout.empty()) return core::Error::invalid("layout", "", "a new instance needs the GPU's new layout");
    BUDCORE_TRY(next.repartition(p.node, p.gpu, p.layout));
    instance = p.layout.size() - 1;
  }
  BUDCORE_TRY(next.allocate(cpu_only(task), Placement{p.node, {}}, hold));
  BUDCORE_TRY(next.allocate_mig(p.node, p.gpu, instance, hold));
  pool = std::move(next);
  return instance;
}

}  // namespace budcore::gpu
