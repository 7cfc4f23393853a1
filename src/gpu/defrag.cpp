// Defragmentation plans: for a request no node takes, the cheapest of moving lower- or
// equal-priority workloads off one node, waiting for workloads with estimated ends, or
// re-partitioning one MIG GPU; applying a plan to a pool.
#include "budcore/gpu/defrag.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "budcore/gpu/mig.hpp"
#include "budcore/gpu/mig_place.hpp"
#include "budcore/gpu/policy.hpp"

namespace budcore::gpu {
namespace {

constexpr std::size_t kMaxSubsetHolders = 12;  // moves are searched over the cheapest 12 movable workloads of a node

int compute_slices(std::string_view profile) {
  for (const auto& model : mig_models())
    if (const MigProfile* p = find_mig_profile(model, profile)) return p->compute_slices;
  return 0;
}

Task cpu_only(Task t) {
  t.num_gpu = 0;
  t.gpu_milli = 0;
  return t;
}

// GPUs a holder holds, in GPUs (a share: gpu_milli / 1000; a MIG instance: compute slices / 7).
double gpus_held(const Pool& pool, const Holder& h) {
  double g = h.task.num_gpu * (static_cast<double>(h.task.gpu_milli) / kMilliPerGpu);
  for (const auto& [gpu, inst] : h.mig)
    g += compute_slices(pool.node(h.placement.node).gpus[static_cast<std::size_t>(gpu)].mig[inst].profile) /
         static_cast<double>(kMigComputeSlices);
  return g;
}

double request_gpus(const Request& r) {
  if (!r.mig_profile.empty()) return compute_slices(r.mig_profile) / static_cast<double>(kMigComputeSlices);
  return r.task.num_gpu * (static_cast<double>(r.task.gpu_milli) / kMilliPerGpu);
}

double move_cost(const Pool& pool, const Holder& h, const PlanOptions& o) {
  return gpus_held(pool, h) * (h.elapsed_seconds + o.move_overhead_seconds);
}

core::Status release_holder(Pool& pool, const Holder& h) {
  if (h.mig.empty()) return pool.release(h.task, h.placement);
  BUDCORE_TRY(pool.release(cpu_only(h.task), Placement{h.placement.node, {}}));
  for (const auto& [g, i] : h.mig) BUDCORE_TRY(pool.release_mig(h.placement.node, g, i));
  return {};
}

// The first GPUs of node n that take the task (a share: the fullest GPU that takes it).
std::optional<Placement> gpus_on(const Pool& pool, const Task& t, std::size_t n) {
  if (!pool.fits(t, pool.model_mask(t), n)) return std::nullopt;
  Placement p{n, {}};
  const auto& gpus = pool.node(n).gpus;
  if (t.shares_gpu()) {
    int best = -1;
    for (std::size_t g = 0; g < gpus.size(); ++g)
      if (Pool::gpu_fits(gpus[g], t) && (best < 0 || gpus[g].milli_free() < gpus[static_cast<std::size_t>(best)].milli_free()))
        best = static_cast<int>(g);
    p.gpus.push_back(best);
    return p;
  }
  for (std::size_t g = 0; g < gpus.size() && static_cast<int>(p.gpus.size()) < t.num_gpu; ++g)
    if (Pool::gpu_fits(gpus[g], t)) p.gpus.push_back(static_cast<int>(g));
  return p;
}

// A free instance of `profile` on a node whose CPU and memory take `t`, skipping `taken`.
std::optional<std::pair<std::size_t, std::pair<int, std::size_t>>> free_instance(
    const Pool& pool, const Task& t, std::string_view profile, const std::set<std::tuple<std::size_t, int, std::size_t>>& taken) {
  for (std::size_t n = 0; n < pool.size(); ++n) {
    if (!pool.fits(cpu_only(t), ~std::uint64_t{0}, n)) continue;
    const auto& gpus = pool.node(n).gpus;
    for (std::size_t g = 0; g < gpus.size(); ++g)
      for (std::size_t i = 0; i < gpus[g].mig.size(); ++i)
        if (gpus[g].mig_state[i] == 0 && gpus[g].mig[i].profile == profile && !taken.count({n, static_cast<int>(g), i}))
          return std::make_pair(n, std::make_pair(static_cast<int>(g), i));
  }
  return std::nullopt;
}

int rank(PlanKind k) {
  switch (k) {
    case PlanKind::FitsNow: return 0;
    case PlanKind::Wait: return 1;
    case PlanKind::Repartition: return 2;
    case PlanKind::Move: return 3;
  }
  return 4;
}

bool better(const Plan& a, const std::optional<Plan>& b) {
  if (!b) return true;
  if (a.cost_gpu_seconds != b->cost_gpu_seconds) return a.cost_gpu_seconds < b->cost_gpu_seconds;
  if (rank(a.kind) != rank(b->kind)) return rank(a.kind) < rank(b->kind);
  return a.target.node < b->target.node;
}

std::string gpus_text(double g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", std::round(g * 1000) / 1000);
  return buf;
}

std::string describe(const Plan& p, const Pool& pool, const Request& r) {
  const std::string what = r.mig_profile.empty() ? (r.task.shares_gpu() ? std::to_string(r.task.gpu_milli) + " milli-GPU"
                                                                         : std::to_string(r.task.num_gpu) + " GPUs")
                                                 : "a " + r.mig_profile + " instance";
  const std::string& node = pool.node(p.target.node).name;
  std::string s;
  switch (p.kind) {
    case PlanKind::FitsNow: s = what + " fit on " + node + " now"; break;
    case PlanKind::Wait: {
      s = "wait " + gpus_text(p.wait_seconds) + " s for";
      for (std::size_t i = 0; i < p.wait_for.size(); ++i) s += (i ? ", " : " ") + p.wait_for[i];
      s += " to end; then " + what + " fit on " + node;
      break;
    }
    case PlanKind::Move: {
      s = "move";
      for (std::size_t i = 0; i < p.moves.size(); ++i)
        s += (i ? ", " : " ") + p.moves[i].workload + " to " + pool.node(p.moves[i].to.node).name;
      s += "; then " + what + " fit on " + node;
      break;
    }
    case PlanKind::Repartition: {
      s = "re-partition " + node + " gpu " + std::to_string(p.gpu) + " into";
      for (std::size_t i = 0; i < p.layout.size(); ++i) s += (i ? " + " : " ") + to_string(p.layout[i]);
      for (std::size_t i = 0; i < p.moves.size(); ++i)
        s += (i ? ", " : " after moving ") + p.moves[i].workload + " to " + pool.node(p.moves[i].to.node).name;
      break;
    }
  }
  return s + " (cost " + gpus_text(p.cost_gpu_seconds) + " GPU-seconds)";
}

core::Status check(const Pool& pool, const std::vector<Holder>& holders, const Request& r) {
  if (auto st = validate_task(r.task); !st) return std::move(st).error().at("request.task");
  if (!r.mig_profile.empty() && compute_slices(r.mig_profile) == 0)
    return core::Error::invalid("request.mig_profile", r.mig_profile, "is not a MIG profile of any model");
  for (std::size_t i = 0; i < holders.size(); ++i) {
    const Holder& h = holders[i];
    const std::string f = "holders[" + std::to_string(i) + "]";
    if (auto st = validate_task(h.task); !st) return std::move(st).error().at(f + ".task");
    if (h.placement.node >= pool.size())
      return core::Error::invalid(f + ".placement.node", std::to_string(h.placement.node), "no such node in the pool");
    const auto& gpus = pool.node(h.placement.node).gpus;
    for (int g : h.placement.gpus)
      if (g < 0 || static_cast<std::size_t>(g) >= gpus.size())
        return core::Error::invalid(f + ".placement.gpus", std::to_string(g), "no such GPU on " + pool.node(h.placement.node).name);
    for (const auto& [g, inst] : h.mig)
      if (g < 0 || static_cast<std::size_t>(g) >= gpus.size() || inst >= gpus[static_cast<std::size_t>(g)].mig.size())
        return core::Error::invalid(f + ".mig", std::to_string(g) + "/" + std::to_string(inst), "no such MIG instance");
    if (!(h.elapsed_seconds >= 0)) return core::Error::invalid(f + ".elapsed_seconds", std::to_string(h.elapsed_seconds), "must not be negative");
    if (h.ends_in_seconds && !(*h.ends_in_seconds >= 0))
      return core::Error::invalid(f + ".ends_in_seconds", std::to_string(*h.ends_in_seconds), "must not be negative");
  }
  return {};
}

// A plan may move a workload of the request's priority or lower that is not pinned.
bool may_move(const Holder& h, const Request& r) { return h.movable && h.priority <= r.priority; }

// Gang or share: move a cheapest set of movable workloads off one node, re-placed by best fit.
void plan_moves(const Pool& pool, const std::vector<Holder>& holders, const Request& r, const PlanOptions& o, std::size_t n,
                std::optional<Plan>& best) {
  std::vector<std::size_t> movable;
  for (std::size_t i = 0; i < holders.size(); ++i)
    if (holders[i].placement.node == n && holders[i].mig.empty() && may_move(holders[i], r)) movable.push_back(i);
  std::stable_sort(movable.begin(), movable.end(),
                   [&](std::size_t a, std::size_t b) { return move_cost(pool, holders[a], o) < move_cost(pool, holders[b], o); });
  if (movable.size() > kMaxSubsetHolders) movable.resize(kMaxSubsetHolders);
  const std::size_t k = movable.size();
  for (std::uint32_t mask = 1; mask < (std::uint32_t{1} << k); ++mask) {
    double cost = 0;
    for (std::size_t b = 0; b < k; ++b)
      if (mask >> b & 1U) cost += move_cost(pool, holders[movable[b]], o);
    if (best && cost > best->cost_gpu_seconds) continue;
    Pool copy = pool;
    bool ok = true;
    for (std::size_t b = 0; b < k && ok; ++b)
      if (mask >> b & 1U) ok = static_cast<bool>(release_holder(copy, holders[movable[b]]));
    if (!ok) continue;
    auto target = gpus_on(copy, r.task, n);
    if (!target || !copy.allocate(r.task, *target)) continue;
    auto policy = make_policy("best_fit");
    Plan p;
    p.kind = PlanKind::Move;
    p.target = *target;
    for (std::size_t b = 0; b < k && ok; ++b) {
      if (!(mask >> b & 1U)) continue;
      const Holder& h = holders[movable[b]];
      auto to = (*policy)->place(copy, h.task);
      ok = to && copy.allocate(h.task, *to);
      if (ok) p.moves.push_back({h.name, n, *to, {}, move_cost(pool, h, o)});
    }
    if (!ok) continue;
    p.cost_gpu_seconds = cost;
    if (better(p, best)) best = std::move(p);
  }
}

// Wait for the workloads on node n with estimated ends, the earliest first, until the request fits.
void plan_wait(const Pool& pool, const std::vector<Holder>& holders, const Request& r, std::size_t n, std::optional<Plan>& best) {
  std::vector<std::size_t> known;
  for (std::size_t i = 0; i < holders.size(); ++i)
    if (holders[i].placement.node == n && holders[i].ends_in_seconds) known.push_back(i);
  std::stable_sort(known.begin(), known.end(),
                   [&](std::size_t a, std::size_t b) { return *holders[a].ends_in_seconds < *holders[b].ends_in_seconds; });
  Pool copy = pool;
  Plan p;
  p.kind = PlanKind::Wait;
  for (std::size_t i : known) {
    if (!release_holder(copy, holders[i])) return;
    p.wait_for.push_back(holders[i].name);
    p.wait_seconds = *holders[i].ends_in_seconds;
    if (r.mig_profile.empty()) {
      auto target = gpus_on(copy, r.task, n);
      if (!target) continue;
      p.target = *target;
    } else {
      if (!copy.fits(cpu_only(r.task), ~std::uint64_t{0}, n)) continue;
      bool found = false;
      const auto& gpus = copy.node(n).gpus;
      for (std::size_t g = 0; g < gpus.size() && !found; ++g)
        for (std::size_t k = 0; k < gpus[g].mig.size() && !found; ++k)
          if (gpus[g].mig_state[k] == 0 && gpus[g].mig[k].profile == r.mig_profile) {
            p.target = Placement{n, {}};
            p.target_gpu = static_cast<int>(g);
            p.target_instance = k;
            found = true;
          }
      if (!found) continue;
    }
    p.cost_gpu_seconds = request_gpus(r) * p.wait_seconds;
    if (better(p, best)) best = std::move(p);
    return;
  }
}

// A MIG request: re-partition one MIG GPU of node n, keeping the instances in use except those
// of a set of movable workloads, which move to free instances of their profiles elsewhere.
void plan_repartition(const Pool& pool, const std::vector<Holder>& holders, const Request& r, const PlanOptions& o,
                      std::size_t n, std::optional<Plan>& best) {
  const Node& node = pool.node(n);
  const MigProfile* prof = find_mig_profile(node.model, r.mig_profile);
  if (prof == nullptr || !pool.fits(cpu_only(r.task), ~std::uint64_t{0}, n)) return;
  for (std::size_t g = 0; g < node.gpus.size(); ++g) {
    const Device& d = node.gpus[g];
    if (d.sharing != Sharing::Mig) continue;
    // Who holds each instance; an instance in use that no holder names cannot move.
    std::vector<int> holder_of(d.mig.size(), -1);
    for (std::size_t i = 0; i < holders.size(); ++i)
      if (holders[i].placement.node == n)
        for (const auto& [hg, inst] : holders[i].mig)
          if (hg == static_cast<int>(g)) holder_of[inst] = static_cast<int>(i);
    std::vector<std::size_t> movable;
    for (std::size_t k = 0; k < d.mig.size(); ++k) {
      const int h = holder_of[k];
      if (d.mig_state[k] != 0 && h >= 0 && may_move(holders[static_cast<std::size_t>(h)], r) &&
          std::find(movable.begin(), movable.end(), static_cast<std::size_t>(h)) == movable.end())
        movable.push_back(static_cast<std::size_t>(h));
    }
    for (std::uint32_t mask = 0; mask < (std::uint32_t{1} << movable.size()); ++mask) {
      std::set<std::size_t> moved;
      double cost = 0;
      for (std::size_t b = 0; b < movable.size(); ++b)
        if (mask >> b & 1U) {
          moved.insert(movable[b]);
          cost += move_cost(pool, holders[movable[b]], o);
        }
      if (best && cost > best->cost_gpu_seconds) continue;
      std::vector<MigInstance> layout;
      for (std::size_t k = 0; k < d.mig.size(); ++k)
        if (d.mig_state[k] != 0 && !(holder_of[k] >= 0 && moved.count(static_cast<std::size_t>(holder_of[k])))) layout.push_back(d.mig[k]);
      bool placed = false;
      for (int s : prof->starts) {
        layout.push_back({r.mig_profile, s});
        if (validate_mig_layout(node.model, layout)) {
          placed = true;
          break;
        }
        layout.pop_back();
      }
      if (!placed) continue;
      // Where the moved workloads go: free instances of their profiles off this GPU.
      Pool copy = pool;
      bool ok = true;
      for (std::size_t h : moved) ok = ok && static_cast<bool>(release_holder(copy, holders[h]));
      for (std::size_t k = 0; k < d.mig.size() && ok; ++k)
        if (copy.node(n).gpus[g].mig_state[k] == 0) ok = static_cast<bool>(copy.allocate_mig(n, static_cast<int>(g), k));  // not to this GPU
      Plan p;
      p.kind = PlanKind::Repartition;
      for (std::size_t h : moved) {
        if (!ok) break;
        const Holder& hd = holders[h];
        Move m{hd.name, n, {}, {}, move_cost(pool, hd, o)};
        std::set<std::tuple<std::size_t, int, std::size_t>> none;
        std::optional<std::size_t> to_node;
        for (const auto& [hg, inst] : hd.mig) {
          const std::string& profile = pool.node(n).gpus[static_cast<std::size_t>(hg)].mig[inst].profile;
          auto f = free_instance(copy, hd.task, profile, none);
          if (!f || (to_node && *to_node != f->first)) {
            ok = false;
            break;
          }
          to_node = f->first;
          ok = static_cast<bool>(copy.allocate_mig(f->first, f->second.first, f->second.second));
          m.to_mig.push_back(f->second);
        }
        if (!ok || !to_node) break;
        m.to = Placement{*to_node, {}};
        ok = static_cast<bool>(copy.allocate(cpu_only(hd.task), m.to));
        p.moves.push_back(std::move(m));
      }
      if (!ok) continue;
      p.target = Placement{n, {}};
      p.gpu = static_cast<int>(g);
      p.target_gpu = static_cast<int>(g);
      p.target_instance = layout.size() - 1;
      p.layout = std::move(layout);
      p.cost_gpu_seconds = cost;
      if (better(p, best)) best = std::move(p);
    }
  }
}

}  // namespace

std::string_view to_string(PlanKind kind) noexcept {
  switch (kind) {
    case PlanKind::FitsNow: return "fits_now";
    case PlanKind::Move: return "move";
    case PlanKind::Wait: return "wait";
    case PlanKind::Repartition: return "repartition";
  }
  return "unknown";
}

core::Result<std::optional<Plan>> plan_defrag(const Pool& pool, const std::vector<Holder>& holders, const Request& r,
                                              const PlanOptions& o) {
  BUDCORE_TRY(check(pool, holders, r));
  if (!(o.move_overhead_seconds >= 0))
    return core::Error::invalid("move_overhead_seconds", std::to_string(o.move_overhead_seconds), "must not be negative");
  std::optional<Plan> best;
  // It may fit already.
  for (std::size_t n = 0; n < pool.size() && !best; ++n) {
    if (r.mig_profile.empty()) {
      if (auto t = gpus_on(pool, r.task, n)) {
        Plan p;
        p.target = *t;
        best = std::move(p);
      }
    }
  }
  // A MIG request: a free instance, or a new one where a GPU's layout admits it without giving
  // up an instance in use (a re-partition that disrupts nothing).
  if (!best && !r.mig_profile.empty()) {
    if (auto m = place_mig(pool, r.task, r.mig_profile)) {
      Plan p;
      p.target = Placement{m->node, {}};
      p.target_gpu = m->gpu;
      if (m->instance) {
        p.target_instance = *m->instance;
      } else {
        p.kind = PlanKind::Repartition;
        p.gpu = m->gpu;
        p.layout = m->layout;
        p.target_instance = m->layout.size() - 1;
      }
      best = std::move(p);
    }
  }
  if (!best) {
    for (std::size_t n = 0; n < pool.size(); ++n) {
      plan_wait(pool, holders, r, n, best);
      if (r.mig_profile.empty()) plan_moves(pool, holders, r, o, n, best);
      else plan_repartition(pool, holders, r, o, n, best);
    }
  }
  if (best) best->summary = describe(*best, pool, r);
  return best;
}

void remap_mig(std::vector<std::pair<int, std::size_t>>& held, int gpu, const std::vector<MigInstance>& before,
               const std::vector<MigInstance>& after) {
  for (auto& [g, i] : held) {
    if (g != gpu || i >= before.size()) continue;
    auto it = std::find(after.begin(), after.end(), before[i]);
    if (it != after.end()) i = static_cast<std::size_t>(it - after.begin());
  }
}

core::Status apply_plan(Pool& pool, std::vector<Holder>& holders, const Request& r, const Plan& plan) {
  Pool next = pool;
  std::vector<Holder> hs = holders;
  auto find = [&](const std::string& name) -> core::Result<std::size_t> {
    for (std::size_t i = 0; i < hs.size(); ++i)
      if (hs[i].name == name) return i;
    return core::Error::invalid("plan", name, "no workload of that name holds part of the pool");
  };
  for (const auto& name : plan.wait_for) {
    BUDCORE_TRY_ASSIGN(std::size_t i, find(name));
    BUDCORE_TRY(release_holder(next, hs[i]));
    hs.erase(hs.begin() + static_cast<std::ptrdiff_t>(i));
  }
  std::vector<std::size_t> moved;
  for (const auto& m : plan.moves) {
    BUDCORE_TRY_ASSIGN(std::size_t i, find(m.workload));
    if (hs[i].priority > r.priority)
      return core::Error::invalid("plan", m.workload, "has a higher priority than the request: it is never moved");
    if (!hs[i].movable) return core::Error::invalid("plan", m.workload, "is not movable: it may only be waited for");
    BUDCORE_TRY(release_holder(next, hs[i]));
    moved.push_back(i);
  }
  if (plan.kind == PlanKind::Repartition) {
    const std::vector<MigInstance> before = next.node(plan.target.node).gpus[static_cast<std::size_t>(plan.gpu)].mig;
    BUDCORE_TRY(next.repartition(plan.target.node, plan.gpu, plan.layout));
    // The instances kept keep their workloads, at their index in the new layout.
    for (auto& h : hs)
      if (h.placement.node == plan.target.node) remap_mig(h.mig, plan.gpu, before, plan.layout);
  }
  if (r.mig_profile.empty()) {
    BUDCORE_TRY(next.allocate(r.task, plan.target));
  } else {
    BUDCORE_TRY(next.allocate(cpu_only(r.task), Placement{plan.target.node, {}}));
    BUDCORE_TRY(next.allocate_mig(plan.target.node, plan.target_gpu, plan.target_instance));
  }
  for (std::size_t k = 0; k < moved.size(); ++k) {
    Holder& h = hs[moved[k]];
    const Move& m = plan.moves[k];
    if (h.mig.empty()) {
      BUDCORE_TRY(next.allocate(h.task, m.to));
    } else {
      BUDCORE_TRY(next.allocate(cpu_only(h.task), Placement{m.to.node, {}}));
      for (const auto& [g, i] : m.to_mig) BUDCORE_TRY(next.allocate_mig(m.to.node, g, i));
      h.mig = m.to_mig;
    }
    h.placement = m.to;
    h.elapsed_seconds = 0;
  }
  pool = std::move(next);
  holders = std::move(hs);
  return {};
}

core::Value to_value(const Plan& p, const Pool& pool) {
  auto name = [&](std::size_t n) { return n < pool.size() ? pool.node(n).name : std::to_string(n); };
  auto ints = [](const std::vector<int>& v) {
    core::List l;
    for (int x : v) l.push_back(x);
    return core::Value(std::move(l));
  };
  core::List moves;
  for (const auto& m : p.moves) {
    core::List mig;
    for (const auto& [g, i] : m.to_mig) mig.push_back(core::Value::map({{"gpu", g}, {"instance", static_cast<long long>(i)}}));
    moves.push_back(core::Value::map({{"workload", m.workload},
                                      {"from", name(m.from_node)},
                                      {"to", name(m.to.node)},
                                      {"gpus", ints(m.to.gpus)},
                                      {"mig", core::Value(std::move(mig))},
                                      {"cost_gpu_seconds", m.cost_gpu_seconds}}));
  }
  core::List waits(p.wait_for.begin(), p.wait_for.end());
  core::Map out{{"kind", std::string(to_string(p.kind))}, {"node", name(p.target.node)}, {"gpus", ints(p.target.gpus)}};
  if (p.target_gpu >= 0) {
    out.set("gpu", p.target_gpu);
    out.set("instance", static_cast<long long>(p.target_instance));
  }
  out.set("moves", core::Value(std::move(moves)));
  out.set("wait_for", core::Value(std::move(waits)));
  out.set("wait_seconds", p.wait_seconds);
  if (p.kind == PlanKind::Repartition) {
    core::List layout;
    for (const auto& i : p.layout) layout.push_back(to_string(i));
    out.set("repartition", core::Value::map({{"gpu", p.gpu}, {"layout", core::Value(std::move(layout))}}));
  }
  out.set("cost_gpu_seconds", p.cost_gpu_seconds);
  out.set("summary", p.summary);
  return core::Value(std::move(out));
}

}  // namespace budcore::gpu
