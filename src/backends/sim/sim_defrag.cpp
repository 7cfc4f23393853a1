// A defragmentation plan applied to the simulated cluster: the runs it moves start over where
// it puts them (their quota kept: only their pods move), and the run that waited for placement
// starts where it says.
#include <algorithm>

#include "backends/sim/sim_impl.hpp"

namespace budcore::backend {

using core::Error;
using core::ErrorCode;
using Impl = SimCluster::Impl;

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// What the plan may not do before anything changes: wait (nothing to apply), move a run of
// higher priority than the waiting one, name a run that is not there.
core::Status check_plan(const gpu::DefragProblem& p, const gpu::Plan& plan) {
  if (plan.kind == gpu::PlanKind::Wait)
    return Error::invalid("plan.kind", "wait", "a wait has nothing to apply: the job starts when " + joined(plan.wait_for) +
                                                        (plan.wait_for.size() == 1 ? " ends" : " end"));
  if (!p.request.mig_profile.empty() && p.request.task.num_gpu > 1)
    return Error::invalid("job", p.request.task.name, "asks for several MIG instances; a plan places one");
  for (std::size_t i = 0; i < plan.moves.size(); ++i) {
    const std::string field = "plan.moves[" + std::to_string(i) + "].workload";
    const auto& name = plan.moves[i].workload;
    auto h = std::find_if(p.holders.begin(), p.holders.end(), [&](const gpu::Holder& x) { return x.name == name; });
    if (h == p.holders.end())
      return Error::make(ErrorCode::Conflict, "no run of " + name + " is placed on the flavor's nodes any more", field);
    if (h->priority > p.request.priority)
      return Error::invalid(field, name,
                            "has priority " + std::to_string(h->priority) + ", above the waiting job's " +
                                std::to_string(p.request.priority) + ": a plan never moves it");
  }
  return {};
}

}  // namespace

void Impl::relocate(std::uint32_t slot, std::int64_t now, const std::string& why) {
  sim::Run& r = runs[slot];
  usage(slot, now);  // the segment on the old node (nothing while the pod was still starting)
  ClusterEvent& e = emit(ClusterEventKind::Preempted, slot, now);
  e.reason = "Defragmented";
  e.message = why;
  emit(ClusterEventKind::Queued, slot, now).reason = "Requeued";
  set_phase(slot, sim::Phase::Admitted);  // its old start and end timers are stale now
  r.admitted_ns = now;
  emit(ClusterEventKind::Admitted, slot, now).placement = *r.placement;
  start(slot, now);
}

core::Status SimCluster::apply_defrag(const core::Id& job_id, const gpu::Plan& plan) {
  Impl& m = *impl_;
  BUDCORE_TRY_ASSIGN(gpu::DefragProblem p, defrag_problem(job_id));
  BUDCORE_TRY(check_plan(p, plan));
  std::vector<gpu::Holder> holders = p.holders;
  if (auto st = gpu::apply_plan(p.pool, holders, p.request, plan); !st)
    return Error::make(ErrorCode::Conflict, "the plan no longer fits the cluster: " + st.error().describe(), "plan");
  const std::uint32_t waiting = m.by_job.at(job_id);
  sim::GpuHold& wh = *m.runs[waiting].gpu;
  m.gpu_flavors[static_cast<std::size_t>(wh.flavor)].pool = std::move(p.pool);
  // Every run where the plan left it (a re-partition re-indexes the instances it keeps).
  std::vector<std::uint32_t> moved;
  for (const auto& h : holders) {
    const std::uint32_t slot = m.by_job.at(core::Id::parse(h.name).value());
    sim::GpuHold& g = *m.runs[slot].gpu;
    const bool moves = std::any_of(plan.moves.begin(), plan.moves.end(), [&](const gpu::Move& mv) { return mv.workload == h.name; });
    g.placement = h.placement;
    g.mig = h.mig;
    m.set_gpu_lanes(slot);
    if (moves) moved.push_back(slot);
  }
  const std::int64_t now = m.clock->now().unix_nanos();
  // Another tenant's run learns where it went, not whose job it made room for (nor the plan,
  // which names the applying tenant's jobs).
  for (std::uint32_t slot : moved) {
    const bool same_tenant = m.runs[slot].tenant == m.runs[waiting].tenant;
    m.relocate(slot, now,
               "moved to " + m.runs[slot].placement->nodes[0] +
                   (same_tenant ? " to make room for job " + job_id.to_string() + " (defragmentation plan: " + plan.summary + ")"
                                : std::string(" to make room for a waiting job (defragmentation plan)")));
  }
  // The waiting run, where the plan puts it.
  wh.placement = plan.target;
  if (!wh.mig_profile.empty()) wh.mig = {{plan.target_gpu, plan.target_instance}};
  wh.placed = true;
  wh.waiting.clear();
  m.set_gpu_lanes(waiting);
  m.unplaced.erase(std::remove(m.unplaced.begin(), m.unplaced.end(), waiting), m.unplaced.end());
  m.start(waiting, now);
  return {};
}

}  // namespace budcore::backend
