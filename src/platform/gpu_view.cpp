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
