// budcore::platform::ServerlessEndpoint — a serverless endpoint whose warm workers are
// platform jobs (docs/serverless.md "On a platform").
//
// Each worker is a SERVICE job of the endpoint's owner, marked with the endpoint's name
// (spec.serverless_endpoint), so that it goes to the serverless ClusterQueue (the config's
// queues.serverless) and is admitted there by the platform's Kueue rules like any other job:
// growing the pool waits for quota, or preempts lower-priority work where the ClusterQueue's
// preemption policy allows; shrinking it cancels worker jobs. A worker is ready once its job
// runs and the endpoint's cold start has passed since it started.
//
// Requests go through an in-memory serverless::RequestQueue and are placed in the assignment
// order: a ready worker with a free slot; else a cold start (a new worker job) when the workers
// already coming cannot take the queue; else, at max_warm_workers, the running request of the
// lowest class below the request's own is preempted; else the request waits, and its SLA's
// max_wait times it out.
//
// Metering: every worker's GPU time, from its job's start, is split into busy (a request in
// flight) and idle (cold start included), and meter() writes it as usage rows of the owner
// tenant through the platform's CostControls: one row per worker and call, its job id, the
// label serverless_endpoint, gpu_utilization = the busy share. Cost reports, budgets, alerts and
// chargeback read these rows like any other; the platform does not meter a worker's run again.
// meter() has the platform check its budgets after writing them, so alerts and stop_running
// budgets see serverless spend as it is metered.
//
// Not thread-safe: one caller drives an endpoint (it calls into the Platform, which is).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/platform/context.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/serverless/autoscaler.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/request_queue.hpp"
#include "budcore/serverless/trace.hpp"
#include "budcore/serverless/worker_pool.hpp"

namespace budcore::platform {

// What the platform knows of one worker job.
enum class WorkerState : std::uint8_t {
  Queued,    // waiting for quota (QUEUED, PREEMPTED, or SCHEDULED without a start)
  Starting,  // running, its cold start not over
  Ready,     // serving
};
BUDCORE_API std::string_view to_string(WorkerState s) noexcept;  // "queued", "starting", "ready"

struct EndpointWorker {
  serverless::WorkerId id = 0;  // 1, 2, ... per endpoint
  core::Id job;
  std::string name;             // the job's name: <endpoint>-w<id>
  WorkerState state = WorkerState::Queued;
  job::JobStatus status = job::JobStatus::Queued;
  core::Timestamp submitted_at;
  std::optional<core::Timestamp> started_at;  // the job's actual_start
  std::vector<std::pair<serverless::RequestId, serverless::Priority>> running;
  core::Timestamp idle_since;
  // GPU time not yet metered, in nanoseconds, accounted up to accounted_at (from the start).
  std::int64_t busy_ns = 0;
  std::int64_t idle_ns = 0;
  core::Timestamp accounted_at;
  core::Timestamp metered_at;
  bool warmup_failed = false;  // its warm-up passed warm_pool.warmup_timeout (sync() cancels it)
};

struct EndpointStatus {
  std::string endpoint;
  int queued = 0;
  int starting = 0;
  int ready = 0;
  int busy = 0;
  std::int64_t pending = 0;
  std::int64_t in_flight = 0;
  std::int64_t cold_starts = 0;    // worker jobs submitted
  std::int64_t stopped = 0;        // worker jobs cancelled by shrinking
  std::int64_t lost = 0;           // worker jobs that ended on their own (failed, stopped by a budget)
  std::int64_t failed_starts = 0;  // worker jobs cancelled because their warm-up passed warmup_timeout
  std::int64_t preemptions = 0;    // requests sent back to the queue for higher-priority ones
  std::int64_t metered_rows = 0;
  std::string last_refusal;        // why the last worker submission was refused ("" = none)
  std::vector<EndpointWorker> workers;
  // {"endpoint", "queued", "starting", "ready", "busy", "pending", "in_flight", "cold_starts",
  //  "stopped", "lost", "failed_starts", "preemptions", "metered_rows", "last_refusal", "workers": [{"id", "job", "name", "state",
  //  "status", "in_flight"}]}
  core::Value to_value() const;
};

struct EndpointOptions {
  // The worker jobs' priority: Kueue preempts lower-priority work for them where the serverless
  // ClusterQueue's preemption policy allows.
  job::JobPriority worker_priority = job::JobPriority::High;
  std::string image;  // spec.image of the worker jobs ("" = none)
};

class BUDCORE_API ServerlessEndpoint {
 public:
  // Adopts the owner's live worker jobs of an endpoint of this name that an earlier process left
  // running (their time from now on is metered here). Invalid (naming the field) when the
  // endpoint's name is too long to prefix the worker jobs' names.
  static core::Result<std::unique_ptr<ServerlessEndpoint>> open(Platform& platform, CallContext owner,
                                                                serverless::EndpointConfig config,
                                                                EndpointOptions options = {});
  ~ServerlessEndpoint();
  ServerlessEndpoint(const ServerlessEndpoint&) = delete;
  ServerlessEndpoint& operator=(const ServerlessEndpoint&) = delete;

  // Reads every worker's job: its state now; a worker whose job ended on its own is dropped
  // (its requests go back to the queue); a worker still starting warm_pool.warmup_timeout after
  // its job started has failed its warm-up: its job is cancelled and it counts in failed_starts.
  // Call after driving the platform.
  core::Status sync();
  // Grows (submitting worker jobs) or shrinks to `desired`, clamped to [min_warm_workers,
  // max_warm_workers]: queued workers are cancelled first (newest first), then starting ones,
  // then idle ready ones (longest idle first); busy workers stay. Returns the workers afterwards.
  // A refused submission (a hard budget, the tenant's limits) is the error; the workers
  // submitted before it stay.
  core::Result<int> scale_to(int desired);
  // Asks `policy` for the desired size from the endpoint's observation, then scale_to().
  core::Result<int> autoscale(serverless::AutoscalePolicy& policy);

  serverless::EnqueueResult enqueue(const serverless::Submission& s);
  // Reads the workers' jobs (sync), expires what waited too long, then assigns in the
  // assignment order (above). Cold starts
  // are worker jobs submitted here; a refused one is the error.
  core::Result<std::vector<serverless::Assignment>> dispatch();
  // A request ended: completed (or failed, a failed attempt with `reason`).
  core::Status complete(serverless::RequestId id);
  core::Status fail(serverless::RequestId id, std::string reason);

  // Reads the workers' jobs (sync), then writes every worker's GPU time since its last row as
  // usage rows (above) and returns them; then has the platform check its budgets against them
  // (Platform::check_budgets: alerts, stop_running budgets stop the jobs they cover) and reads
  // the workers' jobs again.
  // Unsupported without cost controls on the platform (no price book to price them with).
  core::Result<std::vector<cost::Usage>> meter();

  EndpointStatus status() const;
  const serverless::EndpointConfig& config() const noexcept;
  const serverless::RequestQueue& queue() const noexcept;

  struct Impl;

 private:
  explicit ServerlessEndpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// What a trace served by an endpoint on a platform came to (serve_trace).
struct PlatformReplayReport {
  std::string policy;
  std::int64_t requests = 0;
  std::int64_t admitted = 0;
  std::int64_t refused = 0;
  std::int64_t completed = 0;
  std::int64_t timeouts = 0;
  std::int64_t worker_refusals = 0;  // ticks at which a worker job was refused (budget, limits)
  int peak_workers = 0;
  cost::CostSummary usage;           // the endpoint's usage rows
  EndpointStatus status;             // at the end
  // {"endpoint", "policy", "requests", "admitted", "refused", "completed", "timeouts",
  //  "worker_refusals", "peak_workers", "usage": {cost summary}, "status": {...}}
  core::Value to_value() const;
};

// Serves `trace` with the endpoint on its platform, on the platform's virtual clock (Unsupported
// on a system clock): the first request arrives now; every second the platform is driven, the
// workers read, what ended completed (a request holds its slot for the endpoint's service time,
// rounded up to the second), what arrived enqueued, the pool scaled by `policy`, requests
// dispatched and the workers' time metered. After the last request has ended it runs on for
// `tail`, then scales to zero. Needs cost controls (the rows are the usage).
BUDCORE_API core::Result<PlatformReplayReport> serve_trace(Platform& platform, ServerlessEndpoint& endpoint,
                                                           const std::vector<serverless::TraceRequest>& trace,
                                                           serverless::AutoscalePolicy& policy,
                                                           core::Duration tail = core::Duration());

}  // namespace budcore::platform
