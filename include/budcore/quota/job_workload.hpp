// budcore::quota job mapping — a budcore Job becomes a Kueue Workload in the right LocalQueue:
// one ClusterQueue per job type (service, batch, training, use-case deployment, serverless
// worker) and one LocalQueue per tenant and ClusterQueue, in the tenant's namespace.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/workload.hpp"

namespace budcore::quota {

struct JobQueueLayout {
  // Service jobs are model endpoints; use-case jobs (source Usecase) go to their own queue
  // whatever their type.
  std::map<job::JobType, std::string> cluster_queue_by_type = {
      {job::JobType::Service, "model-endpoints"}, {job::JobType::Batch, "batch-jobs"}, {job::JobType::Training, "training-jobs"}};
  std::string usecase_cluster_queue = "usecase-deployments";
  // A serverless endpoint's warm workers: service jobs whose spec names the endpoint
  // (kServerlessEndpointKey), so that they take the serverless quota, not the services'.
  std::string serverless_cluster_queue = "serverless-endpoints";
  std::string tenant_namespace_prefix = "tenant-";  // + tenant id
  // gpu_type -> resource name, as Job::resources(table) takes it.
  std::map<std::string, std::string, std::less<>> gpu_resource_names;
  // A job whose gpu_type is a GPU model ("nvidia-a100-80gb", requested as nvidia.com/gpu) gets
  // the node selector {gpu_type_label: gpu_type}, so that only the flavors whose node labels
  // name that model can admit it (a flavor without the label key is not restricted by it).
  // Empty: no selector.
  std::string gpu_type_label = "budcore.io/gpu-type";
};

// The spec key that marks a service job as a serverless endpoint's worker (its value: the
// endpoint's name).
inline constexpr std::string_view kServerlessEndpointKey = "serverless_endpoint";
// The endpoint a service job is a worker of, or "" when it is none.
BUDCORE_API std::string serverless_endpoint_of(const job::Job& job);

// The ClusterQueue a job is admitted by.
BUDCORE_API std::string cluster_queue_for(const job::Job& job, const JobQueueLayout& layout = {});
// The tenant's LocalQueue for the job: {namespace_ = prefix + tenant id, name = cluster queue,
// cluster_queue}.
BUDCORE_API LocalQueue local_queue_for(const job::Job& job, const JobQueueLayout& layout = {});
// How many pods the job runs at once: a service's spec.replicas (1..10000, default 1), else 1.
// Invalid naming spec.replicas otherwise (a non-service job has no replicas).
BUDCORE_API core::Result<std::int32_t> pods_of(const job::Job& job);
inline constexpr std::int64_t kMaxReplicas = 10'000;
// The Workload: named after the job, in the tenant LocalQueue, priority kueue_priority_value(),
// one pod set "main" of pods_of(job) pods with Job::resources() each (and the gpu_type node
// selector, see JobQueueLayout::gpu_type_label). Invalid when the job's resources are.
BUDCORE_API core::Result<Workload> workload_for(const job::Job& job, std::int64_t creation_seq = 0,
                                                const JobQueueLayout& layout = {});
// Adds the tenant's LocalQueue for every job-type ClusterQueue of `config` (idempotent).
BUDCORE_API void add_tenant_local_queues(QuotaConfig& config, const std::string& tenant_id,
                                         const JobQueueLayout& layout = {});

}  // namespace budcore::quota
