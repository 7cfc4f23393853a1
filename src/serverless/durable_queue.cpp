#include "budcore/serverless/durable_queue.hpp"

#include <algorithm>
#include <cmath>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/utf8.hpp"
#include "serverless/seconds.hpp"

namespace budcore::serverless {

using core::Error;
using core::ErrorCode;
using core::Status;
using core::Result;

QueueBackend::~QueueBackend() = default;

core::Status QueueBackend::enqueue_locked(std::string_view, const std::function<core::Status(QueueBackend& tx)>& fn) {
  return fn(*this);
}

std::string_view to_string(DurableOutcome o) noexcept {
  switch (o) {
    case DurableOutcome::Start: return "start";
    case DurableOutcome::Renew: return "renew";
    case DurableOutcome::Complete: return "complete";
    case DurableOutcome::Fail: return "fail";
  }
  return "unknown";
}

namespace {

constexpr std::size_t kMaxText = 256;

Status check_text(std::string_view field, std::string_view value, bool allow_empty) {
  if (value.empty()) {
    if (allow_empty) return {};
    return Error::invalid(std::string(field), "", "must not be empty");
  }
  if (value.size() > kMaxText) {
    return Error::invalid(std::string(field), std::string(value.substr(0, 32)) + "...",
                          "is longer than " + std::to_string(kMaxText) + " bytes");
  }
  if (auto bad = core::find_invalid_utf8(value)) {
    return Error::invalid(std::string(field), {}, "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  }
  if (value.find('\0') != std::string_view::npos) return Error::invalid(std::string(field), {}, "contains a NUL byte");
  return {};
}

Status check_duration(std::string field, core::Duration d) {
  if (d < core::Duration()) {
    return Error::invalid(std::move(field), d.to_string(), "must not be negative");
  }
  return {};
}


Error refused(ErrorCode code, std::string field, std::string value, std::string why) {
  Error e = Error::invalid(std::move(field), std::move(value), std::move(why));
  e.code = code;
  return e;
}

}  // namespace

core::Status validate(const DurableEnqueue& r, std::string_view field) {
  const std::string f(field);
  BUDCORE_TRY(check_text(f + ".endpoint", r.endpoint, false));
  BUDCORE_TRY(check_text(f + ".tenant", r.tenant, false));
  BUDCORE_TRY(check_text(f + ".payload_hash", r.payload_hash, true));
  if (r.payload_size_bytes < 0) {
    return Error::invalid(f + ".payload_size_bytes", std::to_string(r.payload_size_bytes), "must not be negative");
  }
  if (!std::isfinite(r.score) || std::fabs(r.score) > 9e12) {
    return Error::invalid(f + ".score", core::format_json_float(r.score), "must be a finite number within +-9e12");
  }
  BUDCORE_TRY(check_duration(f + ".estimated_compute", r.estimated_compute));
  BUDCORE_TRY(check_duration(f + ".max_wait", r.max_wait));
  BUDCORE_TRY(check_duration(f + ".max_process", r.max_process));
  BUDCORE_TRY(check_duration(f + ".dedup_window", r.dedup_window));
  if (r.max_retries < 0 || r.max_retries > 1000) {
    return Error::invalid(f + ".max_retries", std::to_string(r.max_retries), "must be in [0, 1000]");
  }
  if (static_cast<unsigned>(r.priority) > static_cast<unsigned>(Priority::Batch)) {
    return Error::invalid(f + ".priority", std::to_string(static_cast<unsigned>(r.priority)), "is not a priority");
  }
  return {};
}

core::Result<QueueStatus> parse_queue_status(std::string_view text) {
  for (auto st : {QueueStatus::Pending, QueueStatus::Assigned, QueueStatus::Processing, QueueStatus::Completed,
                  QueueStatus::Failed, QueueStatus::Timeout}) {
    if (to_string(st) == text) return st;
  }
  return Error::invalid("status", std::string(text),
                        "expected pending, assigned, processing, completed, failed or timeout");
}

namespace {

Status only_keys(const core::Value& item, const std::string& at, std::initializer_list<std::string_view> keys) {
  if (!item.is_map()) return Error::invalid(at, core::truncate_text(core::to_json(item), 64), "must be an object");
  for (const auto& [k, _] : item.as_map()) {
    if (std::find(keys.begin(), keys.end(), std::string_view(k)) == keys.end()) {
      return Error::invalid(at + "." + k, {}, "is not a known key");
    }
  }
  return {};
}

Result<std::string> text_of(const core::Value& item, std::string_view key, const std::string& at, bool required) {
  const core::Value* v = item.find(key);
  if (v == nullptr || v->is_null()) {
    if (required) return Error::invalid(at + "." + std::string(key), "", "is required");
    return std::string();
  }
  if (!v->is_string()) {
    return Error::invalid(at + "." + std::string(key), core::truncate_text(core::to_json(*v), 64), "must be a string");
  }
  return v->as_string();
}

Result<std::int64_t> int_of(const core::Value& item, std::string_view key, const std::string& at, bool required) {
  const core::Value* v = item.find(key);
  if (v == nullptr || v->is_null()) {
    if (required) return Error::invalid(at + "." + std::string(key), "", "is required");
    return std::int64_t{0};
  }
  if (!v->is_int()) {
    return Error::invalid(at + "." + std::string(key), core::truncate_text(core::to_json(*v), 64), "must be an integer");
  }
  return v->as_int();
}

Result<core::Duration> seconds_of(const core::Value& item, std::string_view key, const std::string& at) {
  const core::Value* v = item.find(key);
  if (v == nullptr || v->is_null()) return core::Duration();
  const std::string f = at + "." + std::string(key);
  if (!v->is_number()) return Error::invalid(f, core::truncate_text(core::to_json(*v), 64), "must be a number of seconds");
  auto d = core::Duration::from_seconds(v->as_float());
  if (!d) return Error::invalid(f, core::to_json(*v), d.error().message);
  if (*d < core::Duration()) return Error::invalid(f, core::to_json(*v), "must not be negative");
  return *d;
}

}  // namespace

core::Result<std::vector<Submission>> submissions_from_value(const core::Value& v, std::string_view field) {
  if (!v.is_list()) return Error::invalid(std::string(field), core::truncate_text(core::to_json(v), 64), "must be a list");
  std::vector<Submission> out;
  for (std::size_t i = 0; i < v.as_list().size(); ++i) {
    const core::Value& item = v.as_list()[i];
    const std::string at = std::string(field) + "[" + std::to_string(i) + "]";
    BUDCORE_TRY(only_keys(item, at, {"tenant", "payload_hash", "payload_size_bytes", "estimated_compute_seconds", "priority"}));
    Submission s;
    BUDCORE_TRY_ASSIGN(s.tenant, text_of(item, "tenant", at, true));
    BUDCORE_TRY_ASSIGN(s.payload_hash, text_of(item, "payload_hash", at, false));
    BUDCORE_TRY_ASSIGN(s.payload_size_bytes, int_of(item, "payload_size_bytes", at, false));
    if (s.payload_size_bytes < 0) {
      return Error::invalid(at + ".payload_size_bytes", std::to_string(s.payload_size_bytes), "must not be negative");
    }
    BUDCORE_TRY_ASSIGN(s.estimated_compute, seconds_of(item, "estimated_compute_seconds", at));
    BUDCORE_TRY_ASSIGN(std::string priority, text_of(item, "priority", at, false));
    if (!priority.empty()) {
      auto p = parse_priority(priority);
      if (!p) return Error::invalid(at + ".priority", priority, "expected premium, standard, spot or batch");
      s.priority = *p;
    }
    out.push_back(std::move(s));
  }
  return out;
}

core::Result<std::vector<DurableFinish>> reports_from_value(const core::Value& v, std::string_view field) {
  if (!v.is_list()) return Error::invalid(std::string(field), core::truncate_text(core::to_json(v), 64), "must be a list");
  std::vector<DurableFinish> out;
  for (std::size_t i = 0; i < v.as_list().size(); ++i) {
    const core::Value& item = v.as_list()[i];
    const std::string at = std::string(field) + "[" + std::to_string(i) + "]";
    BUDCORE_TRY(only_keys(item, at, {"id", "claim", "outcome", "reason", "lease_seconds"}));
    DurableFinish f;
    BUDCORE_TRY_ASSIGN(f.id, int_of(item, "id", at, true));
    BUDCORE_TRY_ASSIGN(f.claim, int_of(item, "claim", at, true));
    BUDCORE_TRY_ASSIGN(std::string outcome, text_of(item, "outcome", at, true));
    bool known = false;
    for (auto o : {DurableOutcome::Start, DurableOutcome::Renew, DurableOutcome::Complete, DurableOutcome::Fail}) {
      if (to_string(o) == outcome) {
        f.outcome = o;
        known = true;
      }
    }
    if (!known) return Error::invalid(at + ".outcome", outcome, "expected start, renew, complete or fail");
    BUDCORE_TRY_ASSIGN(f.reason, text_of(item, "reason", at, false));
    BUDCORE_TRY_ASSIGN(f.lease, seconds_of(item, "lease_seconds", at));
    out.push_back(std::move(f));
  }
  return out;
}

core::Value to_value(const EnqueueResult& r) {
  core::Map m;
  m.set("id", static_cast<std::int64_t>(r.id));
  if (r.ok()) {
    m.set("deduplicated", r.deduplicated);
    return core::Value(std::move(m));
  }
  m.set("refusal", std::string(to_string(*r.refusal)));
  m.set("error", core::Value::map({{"code", std::string(core::to_string(r.error.code))},
                                   {"message", r.error.message},
                                   {"path", r.error.field},
                                   {"value", r.error.value}}));
  return core::Value(std::move(m));
}

core::Value to_value(const DurableRequest& r) {
  auto time = [](core::Timestamp t) -> core::Value {
    return t.unix_nanos() == 0 ? core::Value() : core::Value(t.to_string());
  };
  core::Map m;
  m.set("id", r.id);
  m.set("endpoint", r.endpoint);
  m.set("tenant", r.tenant);
  m.set("payload_hash", r.payload_hash);
  m.set("payload_size_bytes", r.payload_size_bytes);
  m.set("priority", std::string(to_string(r.priority)));
  m.set("score", r.score);
  m.set("estimated_compute_seconds", seconds(r.estimated_compute));
  m.set("max_wait_seconds", seconds(r.max_wait));
  m.set("max_process_seconds", seconds(r.max_process));
  m.set("max_retries", r.max_retries);
  m.set("status", std::string(to_string(r.status)));
  m.set("attempts", r.attempts);
  m.set("claim", r.claim);
  m.set("worker", r.worker);
  m.set("enqueued_at", time(r.enqueued_at));
  m.set("claimed_at", time(r.claimed_at));
  m.set("lease_until", time(r.lease_until));
  m.set("completed_at", time(r.completed_at));
  m.set("timeout_at", time(r.timeout_at));
  m.set("last_error", r.last_error);
  return core::Value(std::move(m));
}

core::Value to_value(const DurableCounts& c) {
  core::Map tenants;
  for (const auto& [name, n] : c.tenant_active) tenants.set(name, n);
  core::Map m;
  m.set("pending", c.pending);
  m.set("in_flight", c.in_flight);
  m.set("completed", c.completed);
  m.set("failed", c.failed);
  m.set("timeout", c.timed_out);
  m.set("tenant_active", core::Value(std::move(tenants)));
  return core::Value(std::move(m));
}

DurableQueue::DurableQueue(EndpointConfig config, QueueBackend& backend, std::shared_ptr<const core::Clock> clock)
    : config_(std::move(config)), backend_(backend), clock_(std::move(clock)) {}

core::Result<std::vector<EnqueueResult>> DurableQueue::enqueue(std::span<const Submission> submissions) {
  // Bad input fails the batch before anything is read or written.
  for (std::size_t i = 0; i < submissions.size(); ++i) {
    const Submission& s = submissions[i];
    const std::string f = "submissions[" + std::to_string(i) + "]";
    BUDCORE_TRY(check_text(f + ".tenant", s.tenant, false));
    BUDCORE_TRY(check_text(f + ".payload_hash", s.payload_hash, true));
    if (s.payload_size_bytes < 0) {
      return Error::invalid(f + ".payload_size_bytes", std::to_string(s.payload_size_bytes), "must not be negative");
    }
    BUDCORE_TRY(check_duration(f + ".estimated_compute", s.estimated_compute));
    if (static_cast<unsigned>(s.priority) > static_cast<unsigned>(Priority::Batch)) {
      return Error::invalid(f + ".priority", std::to_string(static_cast<unsigned>(s.priority)), "is not a priority");
    }
  }
  std::vector<EnqueueResult> out;
  BUDCORE_TRY(backend_.enqueue_locked(config_.name, [&](QueueBackend& tx) -> core::Status {
    BUDCORE_TRY_ASSIGN(out, admit_and_store(tx, submissions));
    return {};
  }));
  return out;
}

// Decides each submission against the counts read now and stores the admitted ones; runs in the
// backend's locked enqueue, so the counts stay true until the commit.
core::Result<std::vector<EnqueueResult>> DurableQueue::admit_and_store(QueueBackend& tx,
                                                                      std::span<const Submission> submissions) {
  BUDCORE_TRY_ASSIGN(DurableCounts counts, tx.counts(config_.name));
  const core::Timestamp now = clock_->now();
  const auto& q = config_.queue;
  std::vector<EnqueueResult> out(submissions.size());
  std::vector<DurableEnqueue> rows;
  std::vector<std::size_t> row_of;  // rows[k] is submissions[row_of[k]]
  std::int64_t pending = counts.pending;
  for (std::size_t i = 0; i < submissions.size(); ++i) {
    const Submission& s = submissions[i];
    EnqueueResult& r = out[i];
    if (s.payload_size_bytes > q.max_payload_bytes) {
      r.refusal = Refusal::PayloadTooLarge;
      r.error = refused(ErrorCode::Invalid, "payload_size_bytes", std::to_string(s.payload_size_bytes),
                        "payload is larger than queue.max_payload_bytes (" + std::to_string(q.max_payload_bytes) + ")");
      continue;
    }
    if (pending >= q.max_queue_size) {
      r.refusal = Refusal::QueueFull;
      r.error = refused(ErrorCode::QuotaExceeded, "queue.max_queue_size", std::to_string(pending),
                        "the queue is full (" + std::to_string(q.max_queue_size) + " pending)");
      continue;
    }
    std::int64_t& active = counts.tenant_active[s.tenant];
    const std::int64_t limit = config_.tenants.concurrency_of(s.tenant);
    if (active >= limit) {
      r.refusal = Refusal::TenantConcurrency;
      r.error = refused(ErrorCode::QuotaExceeded, "tenants.concurrency." + s.tenant, std::to_string(active),
                        "tenant has " + std::to_string(active) + " requests pending or in flight, its limit is " +
                            std::to_string(limit));
      continue;
    }
    // tenant_fairness: the share of the tenant's limit its other active requests leave free.
    const double fairness = limit > 0 ? std::clamp(1.0 - static_cast<double>(active) / static_cast<double>(limit), 0.0, 1.0) : 0.0;
    DurableEnqueue d;
    d.endpoint = config_.name;
    d.tenant = s.tenant;
    d.payload_hash = s.payload_hash;
    d.payload_size_bytes = s.payload_size_bytes;
    d.priority = s.priority;
    d.score = config_.weight(s.priority) * 1000.0 + fairness * 100.0 - 10.0 * static_cast<double>(now.unix_seconds());
    d.estimated_compute = s.estimated_compute;
    d.max_wait = config_.sla.max_wait;
    d.max_process = config_.sla.max_process;
    d.max_retries = q.max_retries;
    d.dedup_window = q.dedup_window;
    rows.push_back(std::move(d));
    row_of.push_back(i);
    ++pending;
    ++active;
  }
  if (rows.empty()) return out;
  BUDCORE_TRY_ASSIGN(auto stored, tx.enqueue(rows));
  if (stored.size() != rows.size()) {
    return Error::make(ErrorCode::Internal, "the queue store returned " + std::to_string(stored.size()) +
                                                " results for " + std::to_string(rows.size()) + " requests");
  }
  for (std::size_t k = 0; k < rows.size(); ++k) {
    out[row_of[k]].id = static_cast<RequestId>(stored[k].id);
    out[row_of[k]].deduplicated = stored[k].deduplicated;
  }
  return out;
}

core::Result<EnqueueResult> DurableQueue::enqueue(const Submission& s) {
  BUDCORE_TRY_ASSIGN(auto v, enqueue(std::span<const Submission>(&s, 1)));
  return std::move(v.front());
}

core::Result<std::vector<DurableRequest>> DurableQueue::claim(std::string_view worker, std::int64_t max,
                                                              core::Duration lease) {
  BUDCORE_TRY(check_text("worker", worker, false));
  if (max < 0) return Error::invalid("max", std::to_string(max), "must not be negative");
  if (lease <= core::Duration()) return Error::invalid("lease", lease.to_string(), "must be positive");
  return backend_.claim(config_.name, worker, max, lease);
}

core::Result<std::vector<DurableFinished>> DurableQueue::finish(std::span<const DurableFinish> reports) {
  return backend_.finish(reports);
}

core::Result<DurableFinished> DurableQueue::complete(std::int64_t id, std::int64_t claim) {
  DurableFinish f{id, claim, DurableOutcome::Complete, {}, {}};
  BUDCORE_TRY_ASSIGN(auto v, backend_.finish(std::span<const DurableFinish>(&f, 1)));
  return v.front();
}

core::Result<DurableFinished> DurableQueue::fail(std::int64_t id, std::int64_t claim, std::string reason) {
  DurableFinish f{id, claim, DurableOutcome::Fail, std::move(reason), {}};
  BUDCORE_TRY_ASSIGN(auto v, backend_.finish(std::span<const DurableFinish>(&f, 1)));
  return v.front();
}

core::Result<std::int64_t> DurableQueue::expire() { return backend_.expire(config_.name); }
core::Result<DurableCounts> DurableQueue::counts() { return backend_.counts(config_.name); }

core::Result<std::vector<DurableRequest>> DurableQueue::list(std::span<const QueueStatus> statuses,
                                                             std::int64_t after_id, std::int64_t limit) {
  return backend_.list(config_.name, statuses, after_id, limit);
}

core::Result<std::vector<DurableRequest>> DurableQueue::dead_letters(std::int64_t after_id, std::int64_t limit) {
  static constexpr QueueStatus kDead[] = {QueueStatus::Failed, QueueStatus::Timeout};
  return backend_.list(config_.name, kDead, after_id, limit);
}

double DurableQueue::live_score(const DurableRequest& r) const {
  return r.score + 10.0 * static_cast<double>(clock_->now().unix_seconds());
}

}  // namespace budcore::serverless
