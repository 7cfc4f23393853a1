#include "budcore/serverless/request_queue.hpp"

#include <algorithm>
#include <cmath>

#include "budcore/core/json.hpp"
#include "core/enum_lookup.hpp"
#include "serverless/seconds.hpp"

namespace budcore::serverless {

using core::Error;
using core::ErrorCode;

namespace {

constexpr core::detail::EnumNames<QueueStatus, 6> kStatusNames{{{QueueStatus::Pending, "pending"},
                                                                {QueueStatus::Assigned, "assigned"},
                                                                {QueueStatus::Processing, "processing"},
                                                                {QueueStatus::Completed, "completed"},
                                                                {QueueStatus::Failed, "failed"},
                                                                {QueueStatus::Timeout, "timeout"}}};
constexpr core::detail::EnumNames<Refusal, 5> kRefusalNames{{{Refusal::PayloadTooLarge, "payload_too_large"},
                                                             {Refusal::RateLimited, "rate_limited"},
                                                             {Refusal::QueueFull, "queue_full"},
                                                             {Refusal::TenantConcurrency, "tenant_concurrency"},
                                                             {Refusal::EstimatedWaitOverSla, "estimated_wait_over_sla"}}};

std::size_t cls(Priority p) { return static_cast<std::size_t>(p); }

Error refused(ErrorCode code, std::string field, std::string value, std::string why) {
  Error e = Error::invalid(std::move(field), std::move(value), std::move(why));
  e.code = code;
  return e;
}

Error not_in(RequestId id, QueueStatus status, std::string_view wanted) {
  return Error::make(ErrorCode::Conflict,
                     "request " + std::to_string(id) + " is " + std::string(to_string(status)) + ", not " + std::string(wanted),
                     "id");
}

}  // namespace

std::string_view to_string(QueueStatus s) noexcept { return core::detail::enum_name(s, kStatusNames); }
std::string_view to_string(Refusal r) noexcept { return core::detail::enum_name(r, kRefusalNames); }

RequestQueue::RequestQueue(EndpointConfig config, std::shared_ptr<const core::Clock> clock)
    : config_(std::move(config)), clock_(std::move(clock)) {}

QueuedRequest* RequestQueue::find(RequestId id) noexcept {
  return id == 0 || id > requests_.size() ? nullptr : &requests_[id - 1];
}
const QueuedRequest* RequestQueue::get(RequestId id) const noexcept {
  return id == 0 || id > requests_.size() ? nullptr : &requests_[id - 1];
}

RequestQueue::Tenant& RequestQueue::tenant_of(std::string_view name) {
  auto [it, added] = tenant_index_.try_emplace(std::string(name), tenants_.size());
  if (added) {
    Tenant t;
    t.name = std::string(name);
    t.limit = config_.tenants.concurrency_of(name);
    t.tokens = config_.tenants.burst;
    t.refilled = clock_->now();
    tenants_.push_back(std::move(t));
  }
  return tenants_[it->second];
}

std::int64_t RequestQueue::tenant_active(std::string_view tenant) const {
  auto it = tenant_index_.find(std::string(tenant));
  return it == tenant_index_.end() ? 0 : tenants_[it->second].active;
}

core::Duration RequestQueue::estimated_wait(Priority p) const {
  // Work queued at this class or above shares the slots; a pool with none waits a start first.
  std::int64_t ahead = 0;
  for (std::size_t c = 0; c <= cls(p); ++c) ahead += pending_compute_ns_[c];
  const std::int64_t slots = std::max<std::int64_t>(capacity_.slots, 1);
  return capacity_.startup_delay + core::Duration::nanoseconds(ahead / slots);
}

std::optional<Refusal> RequestQueue::admit(Tenant& t, const Submission& s, Error& why) {
  const auto& q = config_.queue;
  if (s.payload_size_bytes > q.max_payload_bytes) {
    why = refused(ErrorCode::Invalid, "payload_size_bytes", std::to_string(s.payload_size_bytes),
                  "payload is larger than queue.max_payload_bytes (" + std::to_string(q.max_payload_bytes) + ")");
    return Refusal::PayloadTooLarge;
  }
  const core::Timestamp now = clock_->now();
  if (config_.tenants.rate_per_second > 0) {
    const double refill = seconds(now - t.refilled) * config_.tenants.rate_per_second;
    t.tokens = std::min(config_.tenants.burst, t.tokens + refill);
    t.refilled = now;
    if (t.tokens < 1.0) {
      why = refused(ErrorCode::RateLimited, "tenants.rate_per_second", t.name,
                    "tenant is over its rate of " + core::format_json_float(config_.tenants.rate_per_second) + " requests/s");
      why.retry_after_ms = static_cast<std::int64_t>(std::ceil((1.0 - t.tokens) / config_.tenants.rate_per_second * 1000));
      return Refusal::RateLimited;
    }
  }
  if (pending_ >= q.max_queue_size) {
    why = refused(ErrorCode::QuotaExceeded, "queue.max_queue_size", std::to_string(pending_),
                  "the queue is full (" + std::to_string(q.max_queue_size) + " pending)");
    return Refusal::QueueFull;
  }
  if (t.active >= t.limit) {
    why = refused(ErrorCode::QuotaExceeded, "tenants.concurrency." + t.name, std::to_string(t.active),
                  "tenant has " + std::to_string(t.active) + " requests pending or in flight, its limit is " + std::to_string(t.limit));
    return Refusal::TenantConcurrency;
  }
  const core::Duration wait = estimated_wait(s.priority);
  if (wait > config_.sla.max_wait) {
    why = refused(ErrorCode::QuotaExceeded, "sla.max_wait_seconds", core::format_json_float(seconds(wait)),
                  "estimated wait of " + core::format_json_float(seconds(wait)) + " s is over the SLA of " +
                      core::format_json_float(seconds(config_.sla.max_wait)) + " s");
    return Refusal::EstimatedWaitOverSla;
  }
  if (config_.tenants.rate_per_second > 0) t.tokens -= 1.0;
  return std::nullopt;
}

EnqueueResult RequestQueue::enqueue(const Submission& s) {
  EnqueueResult out;
  const core::Timestamp now = clock_->now();
  const bool dedup = config_.queue.dedup_window > core::Duration() && !s.payload_hash.empty();
  if (dedup) {
    while (!seen_order_.empty() && now - seen_order_.front().first >= config_.queue.dedup_window) {
      auto it = seen_.find(seen_order_.front().second);
      if (it != seen_.end() && requests_[it->second - 1].enqueued_at == seen_order_.front().first) seen_.erase(it);
      seen_order_.pop_front();
    }
    if (auto it = seen_.find(s.payload_hash); it != seen_.end()) {
      out.id = it->second;
      out.deduplicated = true;
      return out;
    }
  }
  Tenant& t = tenant_of(s.tenant);
  if (auto r = admit(t, s, out.error)) {
    out.refusal = r;
    return out;
  }
  QueuedRequest req;
  req.id = requests_.size() + 1;
  req.tenant = s.tenant;
  req.payload_hash = s.payload_hash;
  req.payload_size_bytes = s.payload_size_bytes;
  req.estimated_compute = s.estimated_compute;
  req.priority = s.priority;
  req.enqueued_at = now;
  req.max_wait = config_.sla.max_wait;
  req.max_process = config_.sla.max_process;
  requests_.push_back(std::move(req));
  request_tenant_.push_back(tenant_index_.find(s.tenant)->second);
  ++t.active;
  push_pending(requests_.back(), now);
  if (dedup) {
    seen_.emplace(s.payload_hash, requests_.back().id);
    seen_order_.emplace_back(now, s.payload_hash);
  }
  out.id = requests_.back().id;
  return out;
}

void RequestQueue::push_pending(QueuedRequest& r, core::Timestamp now) {
  r.status = QueueStatus::Pending;
  r.assigned_worker = 0;
  r.queued_at = now;
  r.timeout_at = now + r.max_wait;
  tenants_[request_tenant_[r.id - 1]].fifo[cls(r.priority)].push_back(r.id);
  pending_compute_ns_[cls(r.priority)] += r.estimated_compute.count_ns();
  ++pending_;
}

double RequestQueue::score_of(const QueuedRequest& r, const Tenant& t, core::Timestamp now) const {
  const double fairness = 1.0 - std::min(1.0, static_cast<double>(t.active - 1) / static_cast<double>(t.limit));
  return config_.weight(r.priority) * 1000.0 + fairness * 100.0 + seconds(now - r.queued_at) * 10.0;
}

double RequestQueue::score(RequestId id) const {
  const QueuedRequest* r = get(id);
  return r == nullptr ? 0.0 : score_of(*r, tenants_[request_tenant_[id - 1]], clock_->now());
}

std::optional<RequestId> RequestQueue::peek() const {
  if (pending_ == 0) return std::nullopt;
  const core::Timestamp now = clock_->now();
  std::optional<RequestId> best;
  double best_score = 0;
  for (const Tenant& t : tenants_) {
    for (const auto& fifo : t.fifo) {
      if (fifo.empty()) continue;
      const QueuedRequest& r = requests_[fifo.front() - 1];
      const double sc = score_of(r, t, now);
      if (!best || sc > best_score || (sc == best_score && r.id < *best)) {
        best = r.id;
        best_score = sc;
      }
    }
  }
  return best;
}

core::Status RequestQueue::assign(RequestId id, WorkerId worker) {
  QueuedRequest* r = find(id);
  if (r == nullptr) return Error::make(ErrorCode::NotFound, "no request " + std::to_string(id), "id");
  if (r->status != QueueStatus::Pending) return not_in(id, r->status, "pending");
  auto& fifo = tenants_[request_tenant_[id - 1]].fifo[cls(r->priority)];
  if (fifo.front() == id) {
    fifo.pop_front();
  } else {
    fifo.erase(std::find(fifo.begin(), fifo.end(), id));
  }
  pending_compute_ns_[cls(r->priority)] -= r->estimated_compute.count_ns();
  --pending_;
  ++in_flight_;
  r->status = QueueStatus::Assigned;
  r->assigned_worker = worker;
  return {};
}

core::Status RequestQueue::start(RequestId id) {
  QueuedRequest* r = find(id);
  if (r == nullptr) return Error::make(ErrorCode::NotFound, "no request " + std::to_string(id), "id");
  if (r->status != QueueStatus::Assigned) return not_in(id, r->status, "assigned");
  r->status = QueueStatus::Processing;
  r->started_at = clock_->now();
  processing_deadlines_.emplace(r->started_at + r->max_process, id);
  return {};
}

void RequestQueue::leave_flight(QueuedRequest& r) {
  if (r.status == QueueStatus::Processing) processing_deadlines_.erase({r.started_at + r.max_process, r.id});
  --in_flight_;
}

void RequestQueue::finish(QueuedRequest& r, QueueStatus status, std::string reason) {
  r.status = status;
  r.completed_at = clock_->now();
  --tenants_[request_tenant_[r.id - 1]].active;
  if (status != QueueStatus::Completed) {
    r.last_error = reason;
    dead_.push_back({r.id, status, std::move(reason)});
  }
}

core::Status RequestQueue::complete(RequestId id) {
  QueuedRequest* r = find(id);
  if (r == nullptr) return Error::make(ErrorCode::NotFound, "no request " + std::to_string(id), "id");
  if (r->status != QueueStatus::Assigned && r->status != QueueStatus::Processing) return not_in(id, r->status, "in flight");
  leave_flight(*r);
  finish(*r, QueueStatus::Completed, {});
  return {};
}

core::Result<QueueStatus> RequestQueue::fail(RequestId id, std::string reason) {
  QueuedRequest* r = find(id);
  if (r == nullptr) return Error::make(ErrorCode::NotFound, "no request " + std::to_string(id), "id");
  if (r->status != QueueStatus::Assigned && r->status != QueueStatus::Processing) return not_in(id, r->status, "in flight");
  leave_flight(*r);
  ++r->attempts;
  if (r->attempts > config_.queue.max_retries) {
    finish(*r, QueueStatus::Failed,
           reason + " (attempt " + std::to_string(r->attempts) + " of " + std::to_string(config_.queue.max_retries + 1) + ")");
    return QueueStatus::Failed;
  }
  r->last_error = std::move(reason);
  push_pending(*r, clock_->now());
  return QueueStatus::Pending;
}

core::Status RequestQueue::requeue(RequestId id) {
  QueuedRequest* r = find(id);
  if (r == nullptr) return Error::make(ErrorCode::NotFound, "no request " + std::to_string(id), "id");
  if (r->status != QueueStatus::Assigned && r->status != QueueStatus::Processing) return not_in(id, r->status, "in flight");
  leave_flight(*r);
  push_pending(*r, clock_->now());
  return {};
}

std::vector<RequestId> RequestQueue::expire() {
  std::vector<RequestId> changed;
  const core::Timestamp now = clock_->now();
  // Every request of one FIFO waits the same max_wait, so deadlines rise along it: only heads can be due.
  for (Tenant& t : tenants_) {
    for (auto& fifo : t.fifo) {
      while (!fifo.empty() && requests_[fifo.front() - 1].timeout_at <= now) {
        QueuedRequest& r = requests_[fifo.front() - 1];
        fifo.pop_front();
        pending_compute_ns_[cls(r.priority)] -= r.estimated_compute.count_ns();
        --pending_;
        finish(r, QueueStatus::Timeout, "waited longer than sla.max_wait_seconds");
        changed.push_back(r.id);
      }
    }
  }
  while (!processing_deadlines_.empty() && processing_deadlines_.begin()->first <= now) {
    const RequestId id = processing_deadlines_.begin()->second;
    (void)fail(id, "processing took longer than sla.max_process_seconds");
    changed.push_back(id);
  }
  return changed;
}

}  // namespace budcore::serverless
