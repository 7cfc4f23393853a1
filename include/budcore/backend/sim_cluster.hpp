// budcore::backend::SimCluster — the simulated cluster (backends/sim), the embedded default
// ClusterBackend. A GPU/node inventory (GPU types, MIG profiles, time-slice replicas),
// admission by budcore's own Kueue engine (quota::AdmissionEngine, one LocalQueue per tenant
// and job-type ClusterQueue), runs that last their `estimated_duration_seconds` on the clock
// (or a what-if duration / failure), preemption that requeues the victim,
// `max_duration_seconds` timeouts, daily time windows (admitted only while open) and
// deadline-miss events. Deterministic: the same calls at the same clock times give
// the same events. docs/platform.md "The simulated cluster" describes the model.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "budcore/backend/cluster_backend.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/gpu/defrag.hpp"
#include "budcore/gpu/inventory.hpp"
#include "budcore/quota/admission.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/job_workload.hpp"

namespace budcore::backend {

enum class GpuSharing : std::uint8_t {
  Full,       // one device per GPU
  Mig,        // each GPU split into mig_instances_per_gpu instances of mig_profile
  TimeSlice,  // each GPU shared by time_slice_replicas pods (HAMI / device-plugin time slicing)
  Fractional, // pods ask for milli-GPU ("500m" nvidia.com/gpu) and share a GPU (needs a placement policy)
};
BUDCORE_API std::string_view to_string(GpuSharing s) noexcept;

// A pool of identical nodes whose GPUs belong to one ResourceFlavor.
struct NodePool {
  std::string name;    // "a100-pool"; nodes are "<name>-0", "<name>-1", ...
  std::string flavor;  // the ResourceFlavor its nodes carry (a flavor of the quota config)
  std::int64_t nodes = 1;
  std::string gpu_type;  // "nvidia-a100-80gb"; empty for a CPU-only pool
  // The gpu layer's model of its GPUs ("A100-80GB", "T4"; gpu::known_gpu_models()), read by a
  // placement policy. Empty: gpu_type without its "nvidia-" prefix, compared ignoring case.
  std::string gpu_model;
  std::int64_t gpus_per_node = 0;
  GpuSharing sharing = GpuSharing::Full;
  std::string mig_profile;                 // Mig: "1g.10gb" -> resource nvidia.com/mig-1g.10gb
  std::int64_t mig_instances_per_gpu = 0;  // Mig
  std::int64_t time_slice_replicas = 1;    // TimeSlice: pods per GPU
  std::optional<core::Quantity> cpu_per_node;     // absent: cpu does not limit placement
  std::optional<core::Quantity> memory_per_node;  // bytes ("1Ti"); absent: not a limit

  // The extended resource its GPUs are offered as ("nvidia.com/gpu", "nvidia.com/mig-1g.10gb").
  std::string gpu_resource() const;
  // Devices (or MIG instances, or time-slice replicas) per node.
  std::int64_t slots_per_node() const;
  // gpu_model, or the known model gpu_type names; empty when neither names one.
  std::string resolved_gpu_model() const;
};

// How long a run lasts and whether it fails, when the job does not say (spec.sim).
struct SimOutcomeModel {
  core::Duration default_duration = core::Duration::hours(1);  // no estimated_duration_seconds
  // Actual = estimate x a factor drawn per (job, run) from [1 - duration_spread, 1 + duration_spread]
  // (0: the estimate exactly).
  double duration_spread = 0.0;
  double failure_rate = 0.0;  // probability that a run fails (at a uniformly drawn point)
  std::uint64_t seed = 1;     // every draw is a hash of (seed, job id, run): replays identically
};

struct SimClusterOptions {
  quota::QuotaConfig quota;
  quota::EngineOptions engine;
  quota::JobQueueLayout layout;
  std::vector<NodePool> inventory;  // empty: quota alone decides (admitted runs start at once)
  // Which gpu:: placement policy places admitted runs on the nodes of their flavor
  // (gpu::policy_names(): first_fit, best_fit, worst_fit, binpack, gpu_packing, gpu_clustering,
  // random, fgd). Empty: the first node with enough free devices, device slots taken in order
  // (no gpu::Pool behind it). With a policy every GPU pool needs a known model (gpu_model).
  std::string placement_policy;
  SimOutcomeModel outcomes;
  // Per ClusterQueue, at most this many queued workloads are in the admission engine at once
  // (the queue heads in Kueue's order); the rest wait in the simulator's own compact queue and
  // move up as heads leave. It bounds the work per event (BestEffortFIFO walks the heads that
  // do not fit) and the engine's memory; a queue with more waiting than this behaves as Kueue
  // would with a window of that many heads (docs/platform.md). >= 1.
  std::size_t admission_window = 64;
  // Time between a run being placed on a node and its pod running (image pull, start-up).
  core::Duration start_latency = core::Duration();

  // Checks the quota configuration (quota::validate) and the inventory: unique pool names,
  // flavors that the quota config defines, counts >= 0, a MIG pool with a profile and instances;
  // with a placement policy, a known policy, a known GPU model per GPU pool and a MIG layout
  // the model admits; a fractional pool needs a policy.
  core::Status validate() const;
};

// Job spec keys the simulated cluster reads (every other backend ignores `spec.sim`):
//   spec.sim.duration_seconds   actual duration of every run (overrides the model)
//   spec.sim.fail_attempts      the first N runs fail (after fail_after_seconds, default at once)
//   spec.sim.fail_after_seconds how long a failing run runs before it fails
//   spec.sim.fail_message       the failure's message
//   spec.sim.outputs            a map merged into the outputs of a successful run
// Outputs of a successful run: {"job_id", "url": "http://<name>.<namespace>.svc.sim.local",
// "node"} plus spec.sim.outputs.

class BUDCORE_API SimCluster final : public ClusterBackend {
 public:
  // Checks a job spec's `sim` map (the keys above, their types and ranges); Invalid naming
  // "spec.sim.<key>". The platform asks before it stores a job bound for this cluster.
  static core::Status check_spec(const core::Value& job_spec);
  // The clock must outlive the cluster. Errors: the options' validate().
  static core::Result<std::unique_ptr<SimCluster>> create(const core::Clock& clock, SimClusterOptions options);
  ~SimCluster() override;

  std::string_view backend_name() const noexcept override { return "sim"; }
  core::Status submit(const WorkloadRequest& request) override;
  core::Status cancel(const core::Id& job_id, std::string_view reason) override;
  core::Status evict(const core::Id& job_id, std::string_view reason) override;
  core::Status set_priority(const core::Id& job_id, std::int32_t priority) override;
  core::Result<std::size_t> poll(std::vector<ClusterEvent>& out, std::size_t max_events) override;
  core::Result<std::vector<WorkloadInfo>> list() override;
  core::Status adopt(std::span<const AdoptedRun> runs) override;
  core::Status adoption_complete() override;
  std::optional<core::Timestamp> next_change() const override;

  // Views for tests, metrics and the schedule view.
  quota::UsageView cluster_queue_usage() const;
  // Quota that admitted runs hold, summed from the runs themselves (per cluster queue, flavor,
  // resource; milli-units): must equal what the engine charges (a crash-safety invariant).
  std::map<std::string, std::map<std::string, std::map<std::string, std::int64_t>>> held_quota() const;
  std::size_t queued() const noexcept;   // runs waiting for admission (including closed windows)
  std::size_t admitted() const noexcept; // runs holding quota (placed or not)
  std::size_t running() const noexcept;
  const SimClusterOptions& options() const noexcept;

  // With a placement policy: the gpu layer's pool of each flavor that has GPU nodes (its nodes
  // are named as the cluster's, "<pool>-<n>"), as placements left it, and the distinct requests
  // placed on it so far (the task mix FGD measures against). Empty without a policy. The
  // pointers live as long as the cluster and see its later placements.
  struct GpuPoolView {
    std::string flavor;
    const gpu::Pool* pool = nullptr;
    const std::vector<gpu::Task>* requests = nullptr;
  };
  std::vector<GpuPoolView> gpu_pools() const;
  // Runs admitted by quota that no node can take yet, in admission order: the job and why
  // ("admitted by quota; waiting for placement: ...").
  std::vector<std::pair<core::Id, std::string>> waiting_for_placement() const;
  // The defragmentation problem of a run that waits for placement (docs/gpu.md): its flavor's
  // pool as it is, every run placed on it (named by job id, with its priority and how long it
  // has run; no estimated ends, which the caller may add) and the run's request at its
  // priority. NotFound for a job the cluster does not hold; Invalid ("job") for one that does
  // not wait for placement under a placement policy.
  core::Result<gpu::DefragProblem> defrag_problem(const core::Id& job_id) const;
  // Applies a plan made from defrag_problem(job_id) (its workloads named by job id): each run
  // it moves stops and starts over where the plan puts it, keeping its quota (events
  // Preempted with reason "Defragmented", Queued "Requeued", Admitted, Started: Kueue's
  // Workload stays admitted, only its pods move), a MIG GPU it names is re-partitioned, and
  // the waiting run is placed where the plan says and starts. Refused, changing nothing:
  // Invalid ("plan.kind") for a wait, which has nothing to apply; Invalid
  // ("plan.moves[i].workload") for a move of a run of higher priority than the waiting one;
  // Conflict ("plan") when the plan no longer fits the pool; the errors of defrag_problem.
  core::Status apply_defrag(const core::Id& job_id, const gpu::Plan& plan);

  struct Impl;

 private:
  explicit SimCluster(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace budcore::backend
