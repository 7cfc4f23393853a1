// SqlStore (sql_store_impl.hpp): the durable serverless request queue (schema version 10;
// docs/serverless.md "Durable queue"). Every status change is one UPDATE guarded by the status
// (and, for a worker's report, the claim token) it expects, so that of two processes racing for
// one request exactly one changes it, and a terminal status is never left.
#include <cmath>
#include <limits>

#include "backends/sql_store_impl.hpp"

namespace budcore::backends::sql {

namespace {

using serverless::DurableCounts;
using serverless::DurableEnqueue;
using serverless::DurableEnqueued;
using serverless::DurableFinish;
using serverless::DurableFinished;
using serverless::DurableOutcome;
using serverless::DurableRequest;
using serverless::QueueStatus;

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMaxList = 10'000;

constexpr std::string_view kColumns =
    "id, endpoint, req_tenant, payload_hash, payload_bytes, priority, score, compute_ns, max_wait_ns, max_process_ns, "
    "max_retries, status, attempts, claim, worker, enqueued_ns, claimed_ns, lease_ns, completed_ns, timeout_ns, "
    "last_error";

// The statuses a claim holds.
constexpr std::string_view kClaimed = "status IN ('assigned', 'processing')";

Result<QueueStatus> parse_status(std::string_view text, std::int64_t id) {
  for (auto s : {QueueStatus::Pending, QueueStatus::Assigned, QueueStatus::Processing, QueueStatus::Completed,
                 QueueStatus::Failed, QueueStatus::Timeout}) {
    if (serverless::to_string(s) == text) return s;
  }
  return Error::make(ErrorCode::Io, "stored value '" + std::string(text) + "' is not a request status",
                     "serverless_requests[" + std::to_string(id) + "].status");
}

Result<DurableRequest> request_from_row(const SqlRow& row) {
  DurableRequest r;
  r.id = row.int64(0);
  auto at = [&] { return "serverless_requests[" + std::to_string(r.id) + "]"; };
  r.endpoint = row.text(1);
  r.tenant = row.text(2);
  r.payload_hash = row.text(3);
  r.payload_size_bytes = row.int64(4);
  auto p = serverless::parse_priority(row.text(5));
  if (!p) return Error::make(ErrorCode::Io, "stored priority '" + std::string(row.text(5)) + "' is not valid", at() + ".priority");
  r.priority = *p;
  r.score = static_cast<double>(row.int64(6)) / 1000.0;
  r.estimated_compute = core::Duration::nanoseconds(row.int64(7));
  r.max_wait = core::Duration::nanoseconds(row.int64(8));
  r.max_process = core::Duration::nanoseconds(row.int64(9));
  r.max_retries = static_cast<int>(row.int64(10));
  BUDCORE_TRY_ASSIGN(r.status, parse_status(row.text(11), r.id));
  r.attempts = static_cast<int>(row.int64(12));
  r.claim = row.int64(13);
  r.worker = row.text(14);
  r.enqueued_at = ts(row.int64(15));
  r.claimed_at = ts(row.int64(16));
  r.lease_until = ts(row.int64(17));
  r.completed_at = ts(row.int64(18));
  const std::int64_t timeout = row.int64(19);
  if (timeout != kNever) r.timeout_at = ts(timeout);
  r.last_error = row.text(20);
  return r;
}

Status check_endpoint(std::string_view endpoint) { return check_key("endpoint", endpoint); }

// Claims past their lease become a failed attempt (PENDING again, its wait counted afresh, or
// FAILED past max_retries); PENDING requests past their wait deadline become TIMEOUT. On
// PostgreSQL the rows are picked with FOR UPDATE SKIP LOCKED: a row another transaction holds
// is left for the next expiry, so concurrent claimers never wait on each other (nor deadlock).
Result<std::int64_t> expire_in_tx(SqlConnection& db, const std::string& tenant, std::string_view endpoint,
                                  std::int64_t now) {
  const bool pg = db.dialect() == Dialect::Postgres;
  auto rows = [&](std::string_view cond) {
    std::string where = "tenant_id = ? AND endpoint = ? AND " + std::string(cond);
    if (!pg) return " WHERE " + where;
    return " WHERE id IN (SELECT id FROM serverless_requests WHERE " + where + " FOR UPDATE SKIP LOCKED)";
  };
  SqlParam lease[] = {now, now, tenant, endpoint, now};
  BUDCORE_TRY_ASSIGN(
      std::int64_t leased,
      db.execute("UPDATE serverless_requests SET attempts = attempts + 1, "
                 "status = CASE WHEN attempts + 1 > max_retries THEN 'failed' ELSE 'pending' END, "
                 "completed_ns = CASE WHEN attempts + 1 > max_retries THEN CAST(? AS BIGINT) ELSE 0 END, "
                 "timeout_ns = CASE WHEN max_wait_ns > 0 THEN ? + max_wait_ns ELSE timeout_ns END, "
                 "last_error = 'the lease of worker ' || worker || ' ended before it reported'" +
                     rows("status IN ('assigned', 'processing') AND lease_ns <= ?"),
                 lease));
  SqlParam wait[] = {now, tenant, endpoint, now};
  BUDCORE_TRY_ASSIGN(std::int64_t waited,
                     db.execute("UPDATE serverless_requests SET status = 'timeout', completed_ns = ?, "
                                "last_error = 'waited past max_wait without a claim'" +
                                    rows("status = 'pending' AND timeout_ns <= ?"),
                                wait));
  return leased + waited;
}

}  // namespace

Result<std::vector<DurableEnqueued>> SqlStore::enqueue_serverless_requests(const core::Id& tenant,
                                                                          std::span<const DurableEnqueue> requests) {
  BUDCORE_TRY(check_tenant(tenant));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    BUDCORE_TRY(serverless::validate(requests[i], "requests[" + std::to_string(i) + "]"));
  }
  const std::string t = tenant.to_string();
  return write([&]() -> Result<std::vector<DurableEnqueued>> {
    const std::int64_t now = s_->clock->now().unix_nanos();
    std::vector<DurableEnqueued> out;
    out.reserve(requests.size());
    for (const DurableEnqueue& r : requests) {
      DurableEnqueued e;
      if (!r.payload_hash.empty() && r.dedup_window > core::Duration()) {
        const std::int64_t since = now - std::min(r.dedup_window.count_ns(), now);
        SqlParam p[] = {t, r.endpoint, r.payload_hash, since};
        BUDCORE_TRY(db().query("SELECT id FROM serverless_requests WHERE tenant_id = ? AND endpoint = ? AND "
                               "payload_hash = ? AND enqueued_ns > ? ORDER BY id LIMIT 1",
                               p, [&](const SqlRow& row) -> Status {
                                 e.id = row.int64(0);
                                 e.deduplicated = true;
                                 return {};
                               }));
      }
      if (!e.deduplicated) {
        const std::string priority(serverless::to_string(r.priority));
        const std::int64_t score = std::llround(r.score * 1000.0);
        const std::int64_t timeout = r.max_wait > core::Duration() ? now + r.max_wait.count_ns() : kNever;
        SqlParam p[] = {t,
                        r.endpoint,
                        r.tenant,
                        r.payload_hash,
                        r.payload_size_bytes,
                        priority,
                        score,
                        r.estimated_compute.count_ns(),
                        r.max_wait.count_ns(),
                        r.max_process.count_ns(),
                        static_cast<std::int64_t>(r.max_retries),
                        now,
                        timeout};
        BUDCORE_TRY(db().query(
            "INSERT INTO serverless_requests (tenant_id, endpoint, req_tenant, payload_hash, payload_bytes, priority, "
            "score, compute_ns, max_wait_ns, max_process_ns, max_retries, status, attempts, claim, worker, enqueued_ns, "
            "claimed_ns, lease_ns, completed_ns, timeout_ns, last_error) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, 0, '', ?, 0, 0, 0, ?, '') RETURNING id",
            p, [&](const SqlRow& row) -> Status {
              e.id = row.int64(0);
              return {};
            }));
        if (e.id == 0) return Error::make(ErrorCode::Io, "the store returned no id for an enqueued request");
      }
      out.push_back(e);
    }
    return out;
  });
}

Result<std::vector<DurableRequest>> SqlStore::claim_serverless_requests(const core::Id& tenant,
                                                                       std::string_view endpoint,
                                                                       std::string_view worker, std::int64_t max,
                                                                       core::Duration lease) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_endpoint(endpoint));
  BUDCORE_TRY(check_key("worker", worker));
  if (max < 0 || max > kMaxList) {
    return Error::invalid("max", std::to_string(max), "must be in [0, " + std::to_string(kMaxList) + "]");
  }
  if (lease <= core::Duration()) return Error::invalid("lease", lease.to_string(), "must be positive");
  const std::string t = tenant.to_string();
  return write([&]() -> Result<std::vector<DurableRequest>> {
    const std::int64_t now = s_->clock->now().unix_nanos();
    BUDCORE_TRY(expire_in_tx(db(), t, endpoint, now));
    std::vector<DurableRequest> out;
    if (max == 0) return out;
    const std::int64_t until = now + std::min(lease.count_ns(), kNever - now);
    const bool pg = dialect() == Dialect::Postgres;
    const std::string sql =
        "UPDATE serverless_requests SET status = 'assigned', claim = claim + 1, worker = ?, claimed_ns = ?, "
        "lease_ns = CASE WHEN max_process_ns > 0 AND max_process_ns < ? THEN ? + max_process_ns ELSE ? END "
        "WHERE status = 'pending' AND id IN (SELECT id FROM serverless_requests WHERE tenant_id = ? AND "
        "endpoint = ? AND status = 'pending' ORDER BY score DESC, id LIMIT ?" +
        std::string(pg ? " FOR UPDATE SKIP LOCKED" : "") + ") RETURNING " + std::string(kColumns);
    SqlParam p[] = {worker, now, until - now, now, until, t, endpoint, max};
    BUDCORE_TRY(db().query(sql, p, [&](const SqlRow& row) -> Status {
      BUDCORE_TRY_ASSIGN(auto r, request_from_row(row));
      out.push_back(std::move(r));
      return {};
    }));
    // RETURNING gives the rows in the table's order: put them in claim order (by index, so
    // that the records themselves move once).
    std::vector<std::size_t> order(out.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return out[a].score != out[b].score ? out[a].score > out[b].score : out[a].id < out[b].id;
    });
    std::vector<DurableRequest> sorted;
    sorted.reserve(out.size());
    for (std::size_t i : order) sorted.push_back(std::move(out[i]));
    return sorted;
  });
}

Result<std::vector<DurableFinished>> SqlStore::finish_serverless_requests(const core::Id& tenant,
                                                                         std::span<const DurableFinish> reports) {
  BUDCORE_TRY(check_tenant(tenant));
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const DurableFinish& f = reports[i];
    const std::string at = "reports[" + std::to_string(i) + "]";
    if (f.id <= 0) return Error::invalid(at + ".id", std::to_string(f.id), "is not a request id");
    if (f.claim <= 0) return Error::invalid(at + ".claim", std::to_string(f.claim), "is not a claim token");
    if ((f.outcome == DurableOutcome::Start || f.outcome == DurableOutcome::Renew) && f.lease <= core::Duration()) {
      return Error::invalid(at + ".lease", f.lease.to_string(), "must be positive to start or renew a claim");
    }
    if (f.reason.size() > 4096) {
      return Error::invalid(at + ".reason", f.reason.substr(0, 32) + "...", "is longer than 4096 bytes");
    }
    if (auto bad = core::find_invalid_utf8(f.reason)) {
      return Error::invalid(at + ".reason", {}, "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    }
  }
  const std::string t = tenant.to_string();
  // The statements, built once per call: each report applies only under its claim token.
  const std::string guard =
      " WHERE tenant_id = ? AND id = ? AND claim = ? AND " + std::string(kClaimed) + " RETURNING status";
  const std::string lease_sql =
      "lease_ns = CASE WHEN max_process_ns > 0 AND claimed_ns + max_process_ns < ? THEN claimed_ns + max_process_ns "
      "ELSE ? END" + guard;
  const std::string start_sql = "UPDATE serverless_requests SET status = 'processing', " + lease_sql;
  const std::string renew_sql = "UPDATE serverless_requests SET " + lease_sql;
  const std::string complete_sql = "UPDATE serverless_requests SET status = 'completed', completed_ns = ?" + guard;
  const std::string fail_sql =
      "UPDATE serverless_requests SET attempts = attempts + 1, "
      "status = CASE WHEN attempts + 1 > max_retries THEN 'failed' ELSE 'pending' END, "
      "completed_ns = CASE WHEN attempts + 1 > max_retries THEN CAST(? AS BIGINT) ELSE 0 END, "
      "timeout_ns = CASE WHEN max_wait_ns > 0 THEN ? + max_wait_ns ELSE timeout_ns END, last_error = ?" + guard;
  return write([&]() -> Result<std::vector<DurableFinished>> {
    const std::int64_t now = s_->clock->now().unix_nanos();
    std::vector<DurableFinished> out;
    out.reserve(reports.size());
    for (const DurableFinish& f : reports) {
      DurableFinished d;
      d.id = f.id;
      std::string status_text;
      auto take = [&](const SqlRow& row) -> Status {
        status_text = row.text(0);
        return {};
      };
      switch (f.outcome) {
        case DurableOutcome::Start:
        case DurableOutcome::Renew: {
          const std::int64_t until = now + std::min(f.lease.count_ns(), kNever - now);
          SqlParam p[] = {until, until, t, f.id, f.claim};
          BUDCORE_TRY(db().query(f.outcome == DurableOutcome::Start ? start_sql : renew_sql, p, take));
          break;
        }
        case DurableOutcome::Complete: {
          SqlParam p[] = {now, t, f.id, f.claim};
          BUDCORE_TRY(db().query(complete_sql, p, take));
          break;
        }
        case DurableOutcome::Fail: {
          SqlParam p[] = {now, now, f.reason, t, f.id, f.claim};
          BUDCORE_TRY(db().query(fail_sql, p, take));
          break;
        }
      }
      d.ok = !status_text.empty();
      if (!d.ok) {
        SqlParam p[] = {t, f.id};
        BUDCORE_TRY(db().query("SELECT status FROM serverless_requests WHERE tenant_id = ? AND id = ?", p, take));
        if (status_text.empty()) {
          return Error::make(ErrorCode::NotFound, "no serverless request " + std::to_string(f.id), "id");
        }
      }
      BUDCORE_TRY_ASSIGN(d.status, parse_status(status_text, f.id));
      out.push_back(d);
    }
    return out;
  });
}

Result<std::int64_t> SqlStore::expire_serverless_requests(const core::Id& tenant, std::string_view endpoint) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_endpoint(endpoint));
  const std::string t = tenant.to_string();
  return write([&] { return expire_in_tx(db(), t, endpoint, s_->clock->now().unix_nanos()); });
}

Result<DurableCounts> SqlStore::count_serverless_requests(const core::Id& tenant, std::string_view endpoint) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_endpoint(endpoint));
  const std::string t = tenant.to_string();
  return read([&]() -> Result<DurableCounts> {
    DurableCounts c;
    SqlParam p[] = {t, endpoint};
    BUDCORE_TRY(db().query("SELECT req_tenant, status, COUNT(*) FROM serverless_requests WHERE tenant_id = ? AND "
                           "endpoint = ? AND status IN ('pending', 'assigned', 'processing') GROUP BY req_tenant, status",
                           p, [&](const SqlRow& row) -> Status {
                             const std::int64_t n = row.int64(2);
                             (row.text(1) == "pending" ? c.pending : c.in_flight) += n;
                             c.tenant_active[std::string(row.text(0))] += n;
                             return {};
                           }));
    BUDCORE_TRY(db().query("SELECT status, COUNT(*) FROM serverless_requests WHERE tenant_id = ? AND endpoint = ? AND "
                           "status IN ('completed', 'failed', 'timeout') GROUP BY status",
                           p, [&](const SqlRow& row) -> Status {
                             const std::string_view s = row.text(0);
                             (s == "completed" ? c.completed : s == "failed" ? c.failed : c.timed_out) = row.int64(1);
                             return {};
                           }));
    return c;
  });
}

Result<std::vector<DurableRequest>> SqlStore::list_serverless_requests(const core::Id& tenant,
                                                                      std::string_view endpoint,
                                                                      std::span<const QueueStatus> statuses,
                                                                      std::int64_t after_id, std::int64_t limit) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_endpoint(endpoint));
  Query q;
  q.sql("SELECT " + std::string(kColumns) + " FROM serverless_requests")
      .where("tenant_id = ?")
      .bind(tenant.to_string())
      .where("endpoint = ?")
      .bind(std::string(endpoint))
      .where("id > ?")
      .bind(after_id);
  if (!statuses.empty()) {
    std::string in = "status IN (";
    for (std::size_t i = 0; i < statuses.size(); ++i) in += i == 0 ? "?" : ", ?";
    q.where(in + ")");
    for (auto s : statuses) q.bind(std::string(serverless::to_string(s)));
  }
  q.sql(" ORDER BY id LIMIT ?").bind(std::clamp<std::int64_t>(limit, 1, kMaxList));
  return read([&]() -> Result<std::vector<DurableRequest>> {
    std::vector<DurableRequest> out;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      BUDCORE_TRY_ASSIGN(auto r, request_from_row(row));
      out.push_back(std::move(r));
      return {};
    }));
    return out;
  });
}

}  // namespace budcore::backends::sql
