// budcore::serverless::WorkerPool and Dispatcher — an endpoint's workers and the
// assignment order: a warm worker with a free slot first; else a cold start
// (the endpoint's cold-start model) when the workers already starting cannot take the queue;
// else, at max_warm_workers, preempt the lowest-priority request running below the head's
// class; else the request waits in the queue, where sla.max_wait times it out.
//
// Metering is per worker and exact to the nanosecond on the pool's clock: busy while at least
// one request is in flight, idle while ready with none, starting while it cold-starts (the GPU
// is held, so starting time is billed). Billing rounds each worker's lifetime up to whole
// seconds (per-second billing).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/core/clock.hpp"
#include "budcore/core/money.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/request_queue.hpp"

namespace budcore::serverless {

struct Worker {
  WorkerId id = 0;
  core::Timestamp created_at;
  core::Timestamp ready_at;     // when its cold start ends
  core::Timestamp stopped_at;   // set when removed
  bool ready = false;
  bool stopped = false;
  std::vector<std::pair<RequestId, Priority>> running;
  core::Timestamp idle_since;   // last time `running` became empty (or ready_at)
  // Metering, in nanoseconds, accounted up to `accounted_at`.
  std::int64_t starting_ns = 0;
  std::int64_t idle_ns = 0;
  std::int64_t busy_ns = 0;
  core::Timestamp accounted_at;
};

struct Metering {
  double busy_gpu_seconds = 0;
  double idle_gpu_seconds = 0;      // ready and empty
  double starting_gpu_seconds = 0;  // cold starts
  std::int64_t billed_gpu_seconds = 0;  // each worker's lifetime rounded up to whole seconds, x GPUs
  core::Money cost;                     // billed_gpu_seconds x price_per_gpu_hour / 3600
  std::int64_t cold_starts = 0;
  std::int64_t failed_starts = 0;       // cold starts past warm_pool.warmup_timeout
  std::int64_t peak_workers = 0;
};

class BUDCORE_API WorkerPool {
 public:
  WorkerPool(EndpointConfig config, std::shared_ptr<const core::Clock> clock);

  // Starts one worker cold; nullopt at max_warm_workers.
  std::optional<WorkerId> cold_start();
  // Workers whose cold start has ended become ready (those past warmup_timeout are removed as
  // failed starts). Returns the workers that became ready.
  std::vector<WorkerId> advance();
  // When the next starting worker becomes ready or fails.
  std::optional<core::Timestamp> next_change() const;

  // A ready worker with a free slot, the fullest first (packing leaves others idle to remove).
  std::optional<WorkerId> warm_slot() const;
  // The running request of the lowest class below `p` (the latest started among equals).
  std::optional<std::pair<WorkerId, RequestId>> preemption_victim(Priority p) const;
  void occupy(WorkerId w, RequestId r, Priority p);
  void release(WorkerId w, RequestId r);

  // Grows with cold starts or shrinks by removing idle ready workers (longest idle first) to
  // `desired`, within [min_warm_workers, max_warm_workers]; busy and starting workers stay.
  // Returns the number of workers afterwards.
  int scale_to(int desired);

  int size() const noexcept { return live_; }  // starting + ready
  int ready() const noexcept;
  int starting() const noexcept { return live_ - ready(); }
  int busy() const noexcept;
  std::int64_t slots() const noexcept;           // concurrency x live workers
  std::int64_t starting_slots() const noexcept;  // concurrency x starting workers
  core::Duration next_ready_in() const;          // until the first starting worker is ready
  Metering meter();                              // accounted up to now
  const std::vector<Worker>& workers() const noexcept { return workers_; }
  const EndpointConfig& config() const noexcept { return config_; }

 private:
  Worker* find(WorkerId id) noexcept;
  void account(Worker& w, core::Timestamp now);
  void stop(Worker& w, core::Timestamp now);

  EndpointConfig config_;
  std::shared_ptr<const core::Clock> clock_;
  std::vector<Worker> workers_;  // index id-1; stopped workers stay for metering
  int live_ = 0;
  std::int64_t cold_starts_ = 0;
  std::int64_t failed_starts_ = 0;
  std::int64_t peak_ = 0;
};

// How a request got its worker.
enum class Placement : std::uint8_t { Warm, Preempted };

struct Assignment {
  RequestId request = 0;
  WorkerId worker = 0;
  Placement placement = Placement::Warm;
  RequestId preempted = 0;  // the request sent back to the queue (Placement::Preempted)
};

// Moves requests from the queue to workers in the assignment order, and keeps the queue's
// capacity view (for the estimated-wait admission check) current.
class BUDCORE_API Dispatcher {
 public:
  Dispatcher(RequestQueue& queue, WorkerPool& pool) : queue_(queue), pool_(pool) {}
  // Assigns (and starts) every request that can run now, highest score first; starts cold
  // workers for the requests the starting ones cannot take. Stops at the first request that
  // must wait.
  std::vector<Assignment> dispatch();
  void refresh_capacity();

 private:
  RequestQueue& queue_;
  WorkerPool& pool_;
};

}  // namespace budcore::serverless
