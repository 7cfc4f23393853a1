// budcore::serverless::DurableQueue — an endpoint's request queue kept in a durable store, so
// that requests survive the process that accepted them and the workers that serve them.
//
// The queue puts RequestQueue's semantics (typed refusals, priority scoring, deduplication by
// payload hash within a window, bounded retries, dead letters) in front of a QueueBackend: the
// small interface this layer owns and a store implements (backend/queue_backend.hpp gives one
// over backend::Store, on SQLite and PostgreSQL).
//
// Delivery guarantee (docs/serverless.md "Durable queue"): every accepted request reaches
// exactly one terminal state (COMPLETED, FAILED or TIMEOUT) and never leaves it; processing is
// at least once (a worker that dies holding a claim loses it when its lease expires, and the
// request goes back to PENDING counting an attempt); a completion is recorded at most once, and
// only for the claim the request is under (a worker whose lease expired cannot complete a
// request another worker claimed since).
//
// Ordering: a claim takes the pending requests of the highest stored score first (then the
// oldest). The stored score is the RequestQueue score with the wait bonus folded in:
// priority_weight*1000 + tenant_fairness*100 - 10*(enqueue time in seconds since the Unix
// epoch), so that ordering by it is ordering by the live score at any moment
// (live = stored + 10 * now_seconds; see live_score()).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/clock.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/request_queue.hpp"

namespace budcore::serverless {

// A request as the durable queue keeps it.
struct DurableRequest {
  std::int64_t id = 0;  // assigned by the store, increasing
  std::string endpoint;
  std::string tenant;
  std::string payload_hash;
  std::int64_t payload_size_bytes = 0;
  Priority priority = Priority::Standard;
  double score = 0;  // the stored score (ordering key, higher first)
  core::Duration estimated_compute;
  core::Duration max_wait;     // zero: waits without limit
  core::Duration max_process;  // zero: a claim lasts its lease only
  int max_retries = 0;         // failed attempts allowed before FAILED
  QueueStatus status = QueueStatus::Pending;
  int attempts = 0;            // failed attempts so far (lease expiries count)
  std::int64_t claim = 0;      // the token of the current (or last) claim: claims so far
  std::string worker;          // the claim's worker
  core::Timestamp enqueued_at;
  core::Timestamp claimed_at;
  core::Timestamp lease_until;   // a claim not finished by then returns to PENDING
  core::Timestamp completed_at;  // when it reached its terminal state
  core::Timestamp timeout_at;    // PENDING past this: TIMEOUT (unset when max_wait is zero)
  std::string last_error;
};

// One request to store.
struct DurableEnqueue {
  std::string endpoint;
  std::string tenant;
  std::string payload_hash;  // empty: never deduplicated
  std::int64_t payload_size_bytes = 0;
  Priority priority = Priority::Standard;
  double score = 0;
  core::Duration estimated_compute;
  core::Duration max_wait;
  core::Duration max_process;
  int max_retries = 0;
  core::Duration dedup_window;  // a request of the same endpoint and hash enqueued within it is returned instead
};

struct DurableEnqueued {
  std::int64_t id = 0;
  bool deduplicated = false;  // id names the earlier request
};

// What a worker reports for a request it claimed.
enum class DurableOutcome : std::uint8_t {
  Start,     // ASSIGNED -> PROCESSING; the lease is renewed for `lease`
  Renew,     // the lease is renewed for `lease` (a heartbeat)
  Complete,  // -> COMPLETED
  Fail,      // a failed attempt: PENDING again while attempts <= max_retries, else FAILED
};
BUDCORE_API std::string_view to_string(DurableOutcome o) noexcept;  // "start", ...

struct DurableFinish {
  std::int64_t id = 0;
  std::int64_t claim = 0;  // the token the claim returned
  DurableOutcome outcome = DurableOutcome::Complete;
  std::string reason;      // Fail: why (kept as last_error)
  core::Duration lease;    // Start, Renew
};

struct DurableFinished {
  std::int64_t id = 0;
  bool ok = false;  // false: the request is no longer under that claim (its lease expired, or it ended)
  QueueStatus status = QueueStatus::Pending;  // the request's status after the call
};

struct DurableCounts {
  std::int64_t pending = 0;
  std::int64_t in_flight = 0;  // ASSIGNED + PROCESSING
  std::int64_t completed = 0;
  std::int64_t failed = 0;
  std::int64_t timed_out = 0;
  std::map<std::string, std::int64_t, std::less<>> tenant_active;  // pending + in flight per tenant
};

// What the durable queue needs of a store. Each call is one transaction: a batch commits whole
// or not at all.
class BUDCORE_API QueueBackend {
 public:
  virtual ~QueueBackend();
  virtual core::Result<std::vector<DurableEnqueued>> enqueue(std::span<const DurableEnqueue> requests) = 0;
  // Expires first (expire()), then moves up to `max` PENDING requests of the endpoint, highest
  // score first, to ASSIGNED under a new claim for `worker`, leased until now + lease.
  virtual core::Result<std::vector<DurableRequest>> claim(std::string_view endpoint, std::string_view worker,
                                                          std::int64_t max, core::Duration lease) = 0;
  virtual core::Result<std::vector<DurableFinished>> finish(std::span<const DurableFinish> reports) = 0;
  // Claims past their lease -> a failed attempt; PENDING requests past their wait -> TIMEOUT.
  // Returns how many requests changed.
  virtual core::Result<std::int64_t> expire(std::string_view endpoint) = 0;
  virtual core::Result<DurableCounts> counts(std::string_view endpoint) = 0;
  // Runs fn as one transaction in which no other enqueue_locked of the endpoint runs, on any
  // connection or process: the counts fn reads and the requests it enqueues through `tx` are
  // decided together, so enqueuers running at once cannot pass the queue's limits together.
  // The default runs fn on this backend as it is (for backends that hold one process's queue).
  virtual core::Status enqueue_locked(std::string_view endpoint, const std::function<core::Status(QueueBackend& tx)>& fn);
  // Requests of the endpoint with id > after_id, by id, at most limit (clamped to [1, 10000]);
  // empty statuses: any.
  virtual core::Result<std::vector<DurableRequest>> list(std::string_view endpoint,
                                                         std::span<const QueueStatus> statuses,
                                                         std::int64_t after_id, std::int64_t limit) = 0;
};

// Checks a request before it is stored: Invalid naming the field ("requests[3].tenant"), the
// value and why. What every QueueBackend applies to a whole batch before writing any of it.
BUDCORE_API core::Status validate(const DurableEnqueue& r, std::string_view field);

// JSON documents (snake_case; times RFC 3339, durations in seconds) for the CLI, C ABI and Python.
BUDCORE_API core::Value to_value(const DurableRequest& r);
BUDCORE_API core::Value to_value(const DurableCounts& c);
// {"id", "deduplicated"} for an accepted request; {"id", "refusal", "error": {"code", "message",
// "path", "value"}} for a refused one.
BUDCORE_API core::Value to_value(const EnqueueResult& r);
BUDCORE_API core::Result<QueueStatus> parse_queue_status(std::string_view text);  // "pending", ...
// Readers of the documents the C ABI and Python take. Submissions: a list of {"tenant",
// "payload_hash", "payload_size_bytes", "estimated_compute_seconds", "priority"} (only
// "tenant" required). Reports: a list of {"id", "claim", "outcome": "start" | "renew" |
// "complete" | "fail", "reason", "lease_seconds"}. Errors are Invalid and name the element and
// key under `field` ("submissions[2].priority"); unknown keys are errors.
BUDCORE_API core::Result<std::vector<Submission>> submissions_from_value(const core::Value& v, std::string_view field);
BUDCORE_API core::Result<std::vector<DurableFinish>> reports_from_value(const core::Value& v, std::string_view field);

class BUDCORE_API DurableQueue {
 public:
  DurableQueue(EndpointConfig config, QueueBackend& backend, std::shared_ptr<const core::Clock> clock);

  // Admits, scores and stores a batch in one transaction. A submission that is bad input
  // (an empty tenant, a negative size or compute time) fails the whole batch (Invalid, naming
  // "submissions[i].<field>"), nothing stored. A refusal (payload over the limit, queue full,
  // tenant over its concurrency) is per request: that result carries the Refusal and its error,
  // the others are stored. Limits are checked against the counts in the enqueue's own
  // transaction, under the backend's lock of the endpoint (enqueue_locked): enqueuers running at
  // once, on any connection or process of the store, never pass them together.
  core::Result<std::vector<EnqueueResult>> enqueue(std::span<const Submission> submissions);
  core::Result<EnqueueResult> enqueue(const Submission& s);

  core::Result<std::vector<DurableRequest>> claim(std::string_view worker, std::int64_t max, core::Duration lease);
  core::Result<std::vector<DurableFinished>> finish(std::span<const DurableFinish> reports);
  core::Result<DurableFinished> complete(std::int64_t id, std::int64_t claim);
  core::Result<DurableFinished> fail(std::int64_t id, std::int64_t claim, std::string reason);
  core::Result<std::int64_t> expire();
  core::Result<DurableCounts> counts();
  core::Result<std::vector<DurableRequest>> list(std::span<const QueueStatus> statuses, std::int64_t after_id = 0,
                                                 std::int64_t limit = 1000);
  // FAILED and TIMEOUT requests.
  core::Result<std::vector<DurableRequest>> dead_letters(std::int64_t after_id = 0, std::int64_t limit = 1000);

  // The score a request has now (what RequestQueue::score would report).
  double live_score(const DurableRequest& r) const;
  const EndpointConfig& config() const noexcept { return config_; }

 private:
  core::Result<std::vector<EnqueueResult>> admit_and_store(QueueBackend& tx, std::span<const Submission> submissions);
  EndpointConfig config_;
  QueueBackend& backend_;
  std::shared_ptr<const core::Clock> clock_;
};

}  // namespace budcore::serverless
