// The simulated cluster's GPU pools as the platform shows them: Platform::gpu_report(), its JSON
// form, and the budcore_gpu_* gauges of metrics() (docs/gpu.md "In the platform").
#include "budcore/platform/platform_json.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using Impl = Platform::Impl;

std::vector<GpuFlavorReport> Impl::gpu_reports() const {
  std::vector<GpuFlavorReport> out;
  if (sim == nullptr) return out;
  for (const auto& view : sim->gpu_pools()) {
    std::vector<gpu::Task> mix = *view.requests;
    if (mix.empty()) {
      gpu::Task one;
      one.name = "one-gpu";
      one.num_gpu = 1;
      one.gpu_milli = gpu::kMilliPerGpu;
      mix.push_back(one);
    }
    out.push_back({view.flavor, gpu::report(*view.pool, gpu::Workload::from_tasks(mix))});
  }
  return out;
}

void Impl::gpu_gauges(Metrics& m) const {
  if (sim == nullptr) return;
  const auto reports = gpu_reports();
  if (reports.empty()) return;
  for (const auto& [flavor, r] : reports) {
    for (const auto& n : r.nodes)
      m.gauge("budcore_gpu_node_fragmentation_milli", {{"flavor", flavor}, {"node", n.name}, {"model", n.model}}, n.fragmentation_milli);
    m.gauge("budcore_gpu_fragmentation_milli", {{"flavor", flavor}}, r.cluster.fragmentation_milli);
    m.gauge("budcore_gpu_fragmentation_share", {{"flavor", flavor}}, r.cluster.fragmentation_share);
    m.gauge("budcore_gpu_unallocated_share", {{"flavor", flavor}}, r.cluster.unallocated_share);
    gpu::Capacity c;
    for (const auto& n : r.nodes) c += n.capacity;
    m.gauge("budcore_gpu_capacity_milli", {{"flavor", flavor}, {"state", "total"}}, static_cast<double>(c.total));
    m.gauge("budcore_gpu_capacity_milli", {{"flavor", flavor}, {"state", "allocated"}}, static_cast<double>(c.allocated));
    m.gauge("budcore_gpu_capacity_milli", {{"flavor", flavor}, {"state", "reserved"}}, static_cast<double>(c.reserved));
    m.gauge("budcore_gpu_capacity_milli", {{"flavor", flavor}, {"state", "free"}}, static_cast<double>(c.free));
    for (const auto& [model, gang] : r.largest_gang_by_model)
      m.gauge("budcore_gpu_largest_gang", {{"flavor", flavor}, {"model", model}}, gang);
  }
  m.gauge("budcore_gpu_waiting_for_placement", {}, static_cast<double>(sim->waiting_for_placement().size()));
}

std::vector<GpuFlavorReport> Platform::gpu_report() {
  std::lock_guard lock(impl_->mu);
  return impl_->gpu_reports();
}

core::Result<core::Value> Platform::gpu_defrag(const CallContext& caller, const core::Id& job_id) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY(m.guard(caller, "list", "jobs"));
  auto lj = m.live.find(job_id);
  if (lj == m.live.end() || lj->second.tenant != caller.tenant)
    return core::Error::make(core::ErrorCode::NotFound, "no live job " + job_id.to_string() + " of the tenant", "job");
  if (m.sim == nullptr) return core::Error::make(core::ErrorCode::Unsupported, "defragmentation plans need the simulated cluster");
  BUDCORE_TRY_ASSIGN(gpu::DefragProblem problem, m.sim->defrag_problem(job_id));
  // Estimated ends from the timeline, for jobs whose duration is known.
  BUDCORE_TRY_ASSIGN(const schedule::TimelineResult* tl, m.current_timeline());
  const core::Timestamp now = m.clock->now();
  for (auto& h : problem.holders) {
    auto id = core::Id::parse(h.name);
    if (!id) continue;
    auto in = m.timeline_inputs.find(*id);
    auto at = m.timeline_index.find(h.name);
    if (in != m.timeline_inputs.end() && !in->second.assumed_duration && at != m.timeline_index.end()) {
      const schedule::JobEstimate& e = tl->jobs[at->second];
      h.ends_in_seconds = std::max(0.0, static_cast<double>((e.end - now).count_ns()) / 1e9);
    }
    auto other = m.live.find(*id);
    if (other == m.live.end() || other->second.tenant != caller.tenant) h.name = "[hidden]";
  }
  // Hidden names stay distinct, so a plan can name each.
  int hidden = 0;
  for (auto& h : problem.holders)
    if (h.name == "[hidden]") h.name = "[hidden " + std::to_string(++hidden) + "]";
  problem.apply = false;
  return gpu::defrag_document(problem);
}

core::Value to_value(const std::vector<GpuFlavorReport>& reports) {
  core::Map out;
  for (const auto& r : reports) out.set(r.flavor, gpu::to_value(r.report));
  return core::Value(std::move(out));
}

core::Value to_value(const ClusterSnapshot& snapshot, const std::vector<GpuFlavorReport>& gpu) {
  core::Value v = to_value(snapshot);
  if (gpu.empty()) return v;
  core::Map out = v.as_map();
  out.set("gpu", to_value(gpu));
  return core::Value(std::move(out));
}

}  // namespace budcore::platform
