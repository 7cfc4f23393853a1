// budcore::kubernetes::KueueCluster — the ClusterBackend (backend/cluster_backend.hpp) over a
// real Kubernetes cluster whose Kueue admits the jobs. A Platform opened with it
// (Platform::open(config, cluster)) carries jobs through Kueue instead of the simulated cluster:
//
// - submit creates the tenant's LocalQueue when it is the first job of that queue, renders the
//   run (render_job) and creates its objects (submit_job: idempotent, a
//   resubmission adopts what exists). The run's objects are named per run, so a retry never
//   collides with an old run still being deleted.
// - poll observes every run it tracks (observe: the Workload's and the Job's conditions) and
//   turns what changed since the last look into ClusterEvents, in the contract's order:
//   Queued -> Admitted -> Started -> Succeeded | Failed, or Preempted -> Queued when Kueue
//   evicts and requeues a run. A run whose objects vanish without cancel() is Failed "Lost".
// - cancel deletes the run's objects (cancel_job); set_priority moves the run to the
//   budcore-<priority> WorkloadPriorityClass of that value (Kueue reads it from the job's
//   kueue.x-k8s.io/priority-class label and updates the Workload).
// - adopt (a reopened platform) lists budcore's objects by label, keeps the runs the Store
//   names, resubmits a live run whose objects are gone, and reports objects no record claims
//   in list() with adopted = false. The next poll reports what changed while the platform was
//   down.
//
// - evict (an administrator's preemption) deactivates the run's Workload (spec.active=false,
//   Kueue's own way to evict one workload); once Kueue has released its quota, poll reports
//   Preempted ("Evicted") and reactivates it, and Kueue requeues it: Queued.
// - usage: when a run seen running ends, is preempted, evicted, cancelled or lost, a Usage
//   event covers its segment (a Job's status.startTime/completionTime when it has them, else
//   when poll saw it start and end), so cost metering works as on the simulated cluster.
//
// Not done here (docs/kubernetes.md, "What the backend does not do yet"): polling costs one or
// two GETs per live run per poll (a watch through Reflector would make it one stream).
//
// Thread-safety: like every ClusterBackend, called by one thread at a time (the platform's lock).
#pragma once

#include <memory>

#include "budcore/backend/cluster_backend.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/kubernetes/client.hpp"
#include "budcore/kubernetes/render.hpp"

namespace budcore::kubernetes {

struct KueueClusterOptions {
  // How runs become objects: the ClusterQueue per job type, tenant namespaces and flavors. The
  // platform's config.cluster.layout must be the same layout (it builds the Kueue workload the
  // platform's own checks use).
  RenderOptions render;
  // Create a tenant's namespace and the LocalQueue a job of it needs on its first submit (a
  // new tenant needs no setup step). Off: the LocalQueues must exist (apply_quota with
  // quota::add_tenant_local_queues), and a job whose LocalQueue is missing waits in Kueue.
  bool create_tenant_queues = true;
};

class BUDCORE_API KueueCluster final : public backend::ClusterBackend {
 public:
  // `clock` stamps events (the cluster's own times are seconds-granular); it must outlive the
  // backend.
  static core::Result<std::unique_ptr<KueueCluster>> create(std::unique_ptr<Client> client, KueueClusterOptions options,
                                                            const core::Clock& clock);
  ~KueueCluster() override;

  std::string_view backend_name() const noexcept override { return "kubernetes"; }
  core::Status submit(const backend::WorkloadRequest& request) override;
  core::Status cancel(const core::Id& job_id, std::string_view reason) override;
  core::Status evict(const core::Id& job_id, std::string_view reason) override;
  core::Status set_priority(const core::Id& job_id, std::int32_t priority) override;
  core::Result<std::size_t> poll(std::vector<backend::ClusterEvent>& out, std::size_t max_events) override;
  core::Result<std::vector<backend::WorkloadInfo>> list() override;
  core::Status adopt(std::span<const backend::AdoptedRun> runs) override;
  core::Status adoption_complete() override;
  std::optional<core::Timestamp> next_change() const override { return std::nullopt; }

  Client& client() noexcept;

  struct Impl;

 private:
  explicit KueueCluster(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace budcore::kubernetes
