// budcore Job -> Kueue Workload in the tenant's LocalQueue (job-type ClusterQueues).
#include "budcore/quota/job_workload.hpp"

#include <algorithm>

#include "budcore/core/json.hpp"

namespace budcore::quota {

std::string serverless_endpoint_of(const job::Job& job) {
  if (job.job_type != job::JobType::Service || !job.spec.is_map()) return {};
  const core::Value* v = job.spec.find(kServerlessEndpointKey);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

std::string cluster_queue_for(const job::Job& job, const JobQueueLayout& layout) {
  if (job.source == job::JobSource::Usecase) return layout.usecase_cluster_queue;
  if (!serverless_endpoint_of(job).empty()) return layout.serverless_cluster_queue;
  auto it = layout.cluster_queue_by_type.find(job.job_type);
  return it != layout.cluster_queue_by_type.end() ? it->second : std::string(job::to_string(job.job_type));
}

LocalQueue local_queue_for(const job::Job& job, const JobQueueLayout& layout) {
  std::string cq = cluster_queue_for(job, layout);
  return LocalQueue{layout.tenant_namespace_prefix + job.tenant_id.to_string(), cq, cq};
}

core::Result<std::int32_t> pods_of(const job::Job& job) {
  const core::Value* r = job.spec.is_map() ? job.spec.find("replicas") : nullptr;
  if (r == nullptr || r->is_null()) return 1;
  const std::string text = r->is_string() ? r->as_string() : core::to_json(*r);
  if (!r->is_int()) return core::Error::invalid("spec.replicas", text, "must be a whole number");
  if (job.job_type != job::JobType::Service) return core::Error::invalid("spec.replicas", text, "only service jobs have replicas");
  if (r->as_int() < 1 || r->as_int() > kMaxReplicas)
    return core::Error::invalid("spec.replicas", text, "must be between 1 and " + std::to_string(kMaxReplicas));
  return static_cast<std::int32_t>(r->as_int());
}

core::Result<Workload> workload_for(const job::Job& job, std::int64_t creation_seq, const JobQueueLayout& layout) {
  core::ResourceList requests;
  BUDCORE_TRY_ASSIGN(requests, job.resources(layout.gpu_resource_names));
  LocalQueue lq = local_queue_for(job, layout);
  Workload w;
  w.name = job.name.empty() ? job.id.to_string() : job.name;
  w.namespace_ = lq.namespace_;
  w.queue = lq.name;
  w.priority = job::kueue_priority_value(job.priority);
  w.creation_seq = creation_seq;
  PodSet ps;
  BUDCORE_TRY_ASSIGN(ps.count, pods_of(job));
  ps.requests = std::move(requests);
  // A GPU model requested as the generic GPU resource is told apart by its flavor's node labels.
  if (job.gpu_count > 0 && job.gpu_type && !layout.gpu_type_label.empty() &&
      !layout.gpu_resource_names.count(*job.gpu_type) && job.gpu_resource_name() == core::kResourceNvidiaGpu)
    ps.node_selector[layout.gpu_type_label] = *job.gpu_type;
  w.pod_sets.push_back(std::move(ps));
  return w;
}

void add_tenant_local_queues(QuotaConfig& config, const std::string& tenant_id, const JobQueueLayout& layout) {
  std::vector<std::string> queues;
  for (const auto& [type, cq] : layout.cluster_queue_by_type) queues.push_back(cq);
  queues.push_back(layout.usecase_cluster_queue);
  queues.push_back(layout.serverless_cluster_queue);
  const std::string ns = layout.tenant_namespace_prefix + tenant_id;
  for (const auto& cq : queues) {
    bool exists_cq = std::any_of(config.cluster_queues.begin(), config.cluster_queues.end(), [&](const auto& q) { return q.name == cq; });
    bool exists_lq = std::any_of(config.local_queues.begin(), config.local_queues.end(),
                                 [&](const auto& l) { return l.namespace_ == ns && l.name == cq; });
    if (exists_cq && !exists_lq) config.local_queues.push_back(LocalQueue{ns, cq, cq});
  }
}

}  // namespace budcore::quota
