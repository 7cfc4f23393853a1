// budcore::serverless::RequestQueue — an endpoint's in-memory request queue:
// admission, priority scoring, deduplication, timeouts, bounded retries and dead letters, on
// an injectable clock.
//
// Ordering: score = priority_weight*1000 + tenant_fairness*100 + wait_time_bonus*10, where
// tenant_fairness in [0, 1] is the share of the tenant's concurrency limit its other pending and
// in-flight requests leave free, and
// wait_time_bonus is the seconds waited since the request (re-)entered the queue, so that 100 s
// of waiting is worth one step of priority weight and nothing waits forever. Within one tenant
// and class the older request always scores higher, so only the head of each (tenant, class)
// FIFO competes: picking costs O(tenants x classes), not O(requests).
//
// Admission refuses, in this order: a payload over queue.max_payload_bytes, a tenant over its
// rate (token bucket), a full queue, a tenant over its concurrency (pending + in flight), and an
// estimated wait over sla.max_wait. Each refusal carries its Refusal and an Error naming the
// limit's field, the value and why. A payload hash seen within queue.dedup_window returns the
// earlier request instead of a new one.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "budcore/core/clock.hpp"
#include "budcore/core/error.hpp"
#include "budcore/serverless/endpoint.hpp"

namespace budcore::serverless {

using RequestId = std::uint64_t;  // 1, 2, 3... per queue
using WorkerId = std::uint64_t;   // 1, 2, 3... per pool

enum class QueueStatus : std::uint8_t { Pending, Assigned, Processing, Completed, Failed, Timeout };
BUDCORE_API std::string_view to_string(QueueStatus s) noexcept;  // "pending", ...

// Why admission refused a request.
enum class Refusal : std::uint8_t { PayloadTooLarge, RateLimited, QueueFull, TenantConcurrency, EstimatedWaitOverSla };
BUDCORE_API std::string_view to_string(Refusal r) noexcept;  // "payload_too_large", ...

// One queued request; the endpoint is the queue's.
struct QueuedRequest {
  RequestId id = 0;
  std::string tenant;
  std::string payload_hash;
  std::int64_t payload_size_bytes = 0;
  core::Duration estimated_compute;
  Priority priority = Priority::Standard;
  core::Timestamp enqueued_at;   // first admission
  core::Timestamp queued_at;     // last (re-)entry into the queue: the wait bonus counts from here
  core::Timestamp started_at;    // set by start()
  core::Timestamp completed_at;  // completion, final failure or timeout
  core::Timestamp timeout_at;    // queued_at + max_wait
  QueueStatus status = QueueStatus::Pending;
  WorkerId assigned_worker = 0;
  int attempts = 0;              // failed attempts so far
  core::Duration max_wait;
  core::Duration max_process;
  std::string last_error;
};

// What a caller submits.
struct Submission {
  std::string tenant;
  std::string payload_hash;
  std::int64_t payload_size_bytes = 0;
  core::Duration estimated_compute;
  Priority priority = Priority::Standard;
};

struct EnqueueResult {
  RequestId id = 0;  // 0 when refused
  bool deduplicated = false;
  std::optional<Refusal> refusal;
  core::Error error;  // set when refused
  bool ok() const noexcept { return !refusal.has_value(); }
};

// A request that ended without completing: timed out waiting, or failed past its retries.
struct DeadLetter {
  RequestId id = 0;
  QueueStatus status = QueueStatus::Failed;  // Failed or Timeout
  std::string reason;
};

// Serving capacity the admission check estimates waits against.
struct Capacity {
  std::int64_t slots = 0;         // worker slots serving or about to serve
  core::Duration startup_delay;   // time until the first slot exists (a cold start when none does)
};

class BUDCORE_API RequestQueue {
 public:
  RequestQueue(EndpointConfig config, std::shared_ptr<const core::Clock> clock);

  EnqueueResult enqueue(const Submission& s);

  // The pending request with the highest score now, if any.
  std::optional<RequestId> peek() const;
  // The score of a pending request now (priority_weight*1000 + tenant_fairness*100 + wait_time_bonus*10).
  double score(RequestId id) const;
  // PENDING -> ASSIGNED to a worker; Conflict when the request is not pending.
  core::Status assign(RequestId id, WorkerId worker);
  core::Status start(RequestId id);     // ASSIGNED -> PROCESSING
  core::Status complete(RequestId id);  // ASSIGNED|PROCESSING -> COMPLETED
  // A failed attempt: back to PENDING while attempts <= max_retries, else FAILED and dead-lettered.
  // Returns the new status.
  core::Result<QueueStatus> fail(RequestId id, std::string reason);
  // Gives an assigned or processing request back to the queue without counting an attempt
  // (its worker was taken by higher-priority work).
  core::Status requeue(RequestId id);
  // Pending requests past their wait deadline -> TIMEOUT; processing requests past
  // max_process -> a failed attempt. Returns the requests whose status changed.
  std::vector<RequestId> expire();

  void set_capacity(Capacity c) noexcept { capacity_ = c; }
  core::Duration estimated_wait(Priority p) const;

  const QueuedRequest* get(RequestId id) const noexcept;
  std::int64_t depth() const noexcept { return pending_; }
  std::int64_t in_flight() const noexcept { return in_flight_; }
  std::int64_t tenant_active(std::string_view tenant) const;
  const std::vector<DeadLetter>& dead_letters() const noexcept { return dead_; }
  const std::vector<QueuedRequest>& requests() const noexcept { return requests_; }
  const EndpointConfig& config() const noexcept { return config_; }

 private:
  struct Tenant {
    std::string name;
    std::int64_t limit = 0;
    std::int64_t active = 0;  // pending + in flight
    double tokens = 0;
    core::Timestamp refilled;
    std::deque<RequestId> fifo[4];  // pending ids by class, oldest first
  };
  QueuedRequest* find(RequestId id) noexcept;
  Tenant& tenant_of(std::string_view name);
  std::optional<Refusal> admit(Tenant& t, const Submission& s, core::Error& why);
  void push_pending(QueuedRequest& r, core::Timestamp now);
  void finish(QueuedRequest& r, QueueStatus status, std::string reason);
  void leave_flight(QueuedRequest& r);
  double score_of(const QueuedRequest& r, const Tenant& t, core::Timestamp now) const;

  EndpointConfig config_;
  std::shared_ptr<const core::Clock> clock_;
  std::vector<QueuedRequest> requests_;  // index id-1
  std::vector<Tenant> tenants_;
  std::unordered_map<std::string, std::size_t> tenant_index_;
  std::vector<std::size_t> request_tenant_;  // index id-1 -> tenant
  std::unordered_map<std::string, RequestId> seen_;  // payload hash -> request, within the window
  std::deque<std::pair<core::Timestamp, std::string>> seen_order_;  // to forget hashes past the window
  std::set<std::pair<core::Timestamp, RequestId>> processing_deadlines_;
  std::vector<DeadLetter> dead_;
  std::int64_t pending_compute_ns_[4] = {0, 0, 0, 0};
  std::int64_t pending_ = 0;
  std::int64_t in_flight_ = 0;
  Capacity capacity_;
};

}  // namespace budcore::serverless
