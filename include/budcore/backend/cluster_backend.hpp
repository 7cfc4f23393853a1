// budcore::backend::ClusterBackend — where jobs run: the simulated cluster (backends/sim, the
// embedded default) or Kubernetes + Kueue (backends/kubernetes, backends/kueue). The platform
// owns the job records (the Store is the truth); a backend admits and runs what the platform
// hands it and reports back what happened, asynchronously, as ClusterEvents.
//
// The contract, call by call (every backend keeps it; tests/platform checks the simulated one):
// - submit(w) hands one run of a job to the cluster and returns once the cluster holds it —
//   before admission. It is idempotent by (job_id, run): submitting the same run again is OK and
//   changes nothing (after a crash the platform cannot know whether its last submit arrived). A
//   submit of a newer run of the same job replaces an older run that is still there.
// - Everything that happens afterwards arrives as events from poll(), in the backend's own
//   order (ClusterEvent::seq increases). Events name the run they are about; the platform
//   ignores events of a run it no longer tracks. Per run the order is: Queued, then Admitted,
//   Started, and one end (Succeeded, Failed, Cancelled) — or Preempted (the run lost its quota)
//   followed by Queued again when the cluster requeues it (Kueue does so by default). Usage
//   and DeadlineMissed may come at any point while the run lives.
// - cancel(job_id) removes the job's current run wherever it is (queued, admitted, running);
//   a Cancelled event follows for a run that was still there. Cancelling an unknown or finished
//   job is not an error.
// - evict(job_id) stops an admitted or running run to give its quota back (an administrator's
//   preemption): Preempted then Queued follow, as for a preemption by the cluster.
// - set_priority(job_id, p) changes the run's priority for queue order and preemption.
// - list() says what the cluster holds now (queued, admitted, running runs).
// - adopt(known) is how a reopened platform takes the cluster over: it is called with every
//   run the Store says is live (in batches), then adoption_complete(). A backend whose state
//   outlives the process (Kubernetes) matches its objects to the records, emits events for
//   what changed while the platform was down, and resubmits records that have no object; the
//   simulated cluster, whose state died with the process, rebuilds itself from the records.
//   Objects of the backend that no record claims are left alone and reported in list().
// - next_change() is a hint for virtual-time drivers: the earliest time at which poll() may
//   return something without any call in between (a run ends, a window opens, a timeout).
//   Backends driven by real time return nullopt.
// Thread-safety: the platform calls a backend from one thread at a time (it holds its own lock);
// a backend that receives events on its own threads (a watch) must make poll() safe against them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/quota/workload.hpp"

namespace budcore::backend {

// One run of a job, as the platform hands it to a cluster.
struct WorkloadRequest {
  core::Id tenant;
  std::int64_t run = 1;         // 1 for the first run; +1 for every retry the platform starts
  std::int64_t queue_seq = 0;   // queue order among equal priorities (Kueue's creation time)
  job::Job job;                 // the job document (backends render or simulate it)
  quota::Workload workload;     // the Kueue Workload (quota::workload_for): queue, priority, pod sets
};

// Where a run was admitted: quota::Admission plus the node(s) it was placed on, when known.
struct Placement {
  quota::Admission admission;
  std::vector<std::string> nodes;  // "a100-pool-0" (sim), the pod's node (Kubernetes)
  std::vector<std::string> devices;  // device lanes ("a100-pool-0/gpu3"), when the backend knows them
};

// One metered interval of a run (docs/cost.md "Metering"): the backend reports what the run held.
struct UsageInterval {
  core::Timestamp start;
  core::Timestamp end;
  std::string cluster_queue;
  std::string flavor;           // the GPU flavor (or the first flavor) the run was admitted on
  std::string gpu_type;         // the job's gpu_type ("" for none)
  std::string sharing_mode;     // "full", "mig", "time_slice"
  std::int64_t gpu_count = 0;   // devices (or MIG slices, time-slice replicas) held
  std::int64_t cpu_millis = 0;  // requested cpu, milli-cores
  std::int64_t memory_bytes = 0;
  std::vector<std::string> nodes;
};

// What a run of `pod_set` held from `start` to `end`: its requests times the count its
// admission gave it (cpu, memory, and the one other non-zero resource as GPUs), the flavor of
// that resource, its ClusterQueue and nodes from `placement` (may be null), the gpu type from
// `gpu_type_label` in its node selector; sharing mode "full". A backend that knows more (the
// simulated node pools) overwrites fields.
BUDCORE_API UsageInterval usage_of_run(const quota::PodSet& pod_set, const Placement* placement,
                                       std::string_view gpu_type_label, core::Timestamp start, core::Timestamp end);

enum class ClusterEventKind : std::uint8_t {
  Queued,          // the cluster holds the run, waiting for quota (also after a requeue)
  Admitted,        // quota reserved: `placement.admission` says where
  Started,         // the run's pod(s) run: `placement` says where
  Succeeded,       // the run ended well: `outputs`
  Failed,          // the run ended badly: `reason` ("Error", "Timeout", "Rejected", "Lost"), `message`
  Cancelled,       // the run was removed after cancel()
  Preempted,       // the run lost its quota (`reason`: "Preempted", "Evicted", "WindowClosed"); a Queued follows when requeued
  DeadlineMissed,  // the job's deadline passed before the run ended (information; the run goes on)
  Usage,           // a metered interval of the run: `usage`
};
BUDCORE_API std::string_view to_string(ClusterEventKind k) noexcept;

struct ClusterEvent {
  std::uint64_t seq = 0;  // the backend's order, increasing
  ClusterEventKind kind = ClusterEventKind::Queued;
  core::Id tenant;
  core::Id job_id;
  std::int64_t run = 0;
  core::Timestamp at;
  std::string reason;   // a short machine-readable cause (Kueue's condition reasons where they exist)
  std::string message;  // what a person needs to know
  std::optional<Placement> placement;  // Admitted, Started
  core::Value outputs;                  // Succeeded: a map (url, endpoint, ...)
  std::optional<UsageInterval> usage;   // Usage
};

// What the cluster holds for one job (list()).
struct WorkloadInfo {
  core::Id tenant;
  core::Id job_id;
  std::int64_t run = 0;
  enum class Phase : std::uint8_t { Queued, Admitted, Running } phase = Phase::Queued;
  std::optional<Placement> placement;
  std::optional<core::Timestamp> started_at;
  std::string message;  // why it waits, when queued
  bool adopted = true;  // false: no platform record claimed it (adopt())
};

// A run the Store says is live, handed to adopt() when the platform reopens.
struct AdoptedRun {
  WorkloadRequest request;
  enum class Phase : std::uint8_t { Queued, Admitted, Running } phase = Phase::Queued;
  std::optional<Placement> placement;          // Admitted, Running: where it was admitted
  std::optional<core::Timestamp> admitted_at;
  std::optional<core::Timestamp> started_at;   // Running
};

class BUDCORE_API ClusterBackend {
 public:
  virtual ~ClusterBackend();
  ClusterBackend() = default;
  ClusterBackend(const ClusterBackend&) = delete;
  ClusterBackend& operator=(const ClusterBackend&) = delete;

  virtual std::string_view backend_name() const noexcept = 0;  // "sim", "kubernetes"

  // Errors: Invalid when the run cannot be represented on this cluster (a request for a
  // resource no queue covers, no LocalQueue for the tenant), naming the field; Io when the
  // cluster cannot be reached (the platform retries later). Nothing is kept on error.
  virtual core::Status submit(const WorkloadRequest& request) = 0;
  virtual core::Status cancel(const core::Id& job_id, std::string_view reason) = 0;
  // NotFound when the job has no admitted or running run; Conflict when it is only queued.
  virtual core::Status evict(const core::Id& job_id, std::string_view reason) = 0;
  // NotFound when the cluster does not hold the job.
  virtual core::Status set_priority(const core::Id& job_id, std::int32_t priority) = 0;

  // Appends the events that happened since the last poll (at most max_events; call again while
  // it returns max_events) and returns how many were appended.
  virtual core::Result<std::size_t> poll(std::vector<ClusterEvent>& out, std::size_t max_events) = 0;
  virtual core::Result<std::vector<WorkloadInfo>> list() = 0;

  virtual core::Status adopt(std::span<const AdoptedRun> runs) = 0;
  virtual core::Status adoption_complete() = 0;

  virtual std::optional<core::Timestamp> next_change() const = 0;
};

}  // namespace budcore::backend
