#include "backends/sql_lease.hpp"

#include <optional>
#include <string>

#include "budcore/core/json.hpp"

namespace budcore::backends {
namespace {

using core::Error;
using core::ErrorCode;

core::Timestamp ts(std::int64_t ns) { return core::Timestamp::from_unix_nanos(ns); }

core::Result<std::int64_t> db_now(SqlConnection& db) {
  std::int64_t now = 0;
  BUDCORE_TRY(db.query("SELECT " + db_now_ns(db.dialect()), {}, [&](const SqlRow& row) -> core::Status {
    now = row.int64(0);
    return {};
  }));
  return now;
}

}  // namespace

std::string db_now_ns(Dialect d) {
  // Milliseconds are enough for leases of seconds; both read the server's wall clock.
  return d == Dialect::Sqlite ? "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) * 1000000"
                              : "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT) * 1000";
}

core::Result<backend::LeaseState> read_lease(SqlConnection& db, std::string_view name) {
  backend::LeaseState s;
  s.name = std::string(name);
  SqlParam p[] = {name};
  BUDCORE_TRY(db.query("SELECT holder, epoch, expires_ns, " + db_now_ns(db.dialect()) +
                           " FROM leader_lease WHERE name = ?",
                       p, [&](const SqlRow& row) -> core::Status {
                         s.holder = std::string(row.text(0));
                         s.epoch = row.int64(1);
                         s.expires = ts(row.int64(2));
                         s.now = ts(row.int64(3));
                         return {};
                       }));
  if (s.holder.empty()) {
    BUDCORE_TRY_ASSIGN(std::int64_t now, db_now(db));
    s.now = ts(now);
  }
  return s;
}

core::Result<backend::LeaseState> acquire_lease(SqlConnection& db, std::string_view name, std::string_view replica,
                                                core::Duration ttl) {
  // A lease another holder still has is only read: the attempt would change nothing, and on
  // PostgreSQL it would lock the lease row, waiting for the leader's fenced transactions (which
  // read it FOR SHARE) and holding up the next ones behind it.
  BUDCORE_TRY_ASSIGN(backend::LeaseState current, read_lease(db, name));
  if (!current.holder.empty() && current.holder != replica && current.expires > current.now) return current;
  BUDCORE_TRY_ASSIGN(std::int64_t now, db_now(db));
  const std::int64_t expires = now + ttl.count_ns();
  // A new holder raises the epoch; the holder renewing keeps it. The condition is evaluated on
  // the row as it stands when the update runs (PostgreSQL re-checks it after waiting for a
  // concurrent taker's commit), so two replicas never both take it.
  SqlParam p[] = {name, replica, expires, now, now};
  BUDCORE_TRY(db.execute(
      "INSERT INTO leader_lease (name, holder, epoch, expires_ns, renewed_ns) VALUES (?, ?, 1, ?, ?) "
      "ON CONFLICT (name) DO UPDATE SET "
      "epoch = CASE WHEN leader_lease.holder = excluded.holder THEN leader_lease.epoch ELSE leader_lease.epoch + 1 END, "
      "holder = excluded.holder, expires_ns = excluded.expires_ns, renewed_ns = excluded.renewed_ns "
      "WHERE leader_lease.holder = excluded.holder OR leader_lease.expires_ns <= ?",
      p));
  return read_lease(db, name);
}

core::Status release_lease(SqlConnection& db, std::string_view name, std::string_view replica, std::int64_t epoch) {
  SqlParam p[] = {name, replica, epoch};
  // Expired, not deleted: the next holder continues the epoch count.
  BUDCORE_TRY(db.execute("UPDATE leader_lease SET expires_ns = 0 WHERE name = ? AND holder = ? AND epoch = ?", p));
  return {};
}

core::Status check_fence(SqlConnection& db, std::string_view name, std::string_view replica, std::int64_t epoch) {
  SqlParam p[] = {name};
  std::optional<std::pair<std::string, std::int64_t>> row;
  const std::string lock = db.dialect() == Dialect::Postgres ? " FOR SHARE" : "";
  BUDCORE_TRY(db.query("SELECT holder, epoch FROM leader_lease WHERE name = ?" + lock, p,
                       [&](const SqlRow& r) -> core::Status {
                         row.emplace(std::string(r.text(0)), r.int64(1));
                         return {};
                       }));
  if (row && row->first == replica && row->second == epoch) return {};
  const std::int64_t current = row ? row->second : 0;
  Error e = Error::make(ErrorCode::NotLeader,
                        "replica " + std::string(replica) + " no longer leads at epoch " + std::to_string(epoch) +
                            ": the lease is at epoch " + std::to_string(current) +
                            (row ? ", held by " + row->first : std::string()),
                        "epoch");
  e.value = std::to_string(current);
  return e;
}

core::Status report_replica(SqlConnection& db, std::string_view name, const backend::ReplicaRecord& r) {
  BUDCORE_TRY_ASSIGN(std::int64_t now, db_now(db));
  // A process whose id another process took over while it was silent (paused past a lease)
  // finds the row no longer its own: it is refused, and stops, rather than share the id. A
  // process stopping never writes over a row that is not its own.
  const std::int64_t silent_since = r.takeover_after.count_ns() > 0 ? now - r.takeover_after.count_ns() : now;
  SqlParam p[] = {name, r.replica, r.instance, r.role, r.epoch, now, now, r.renew_us, silent_since};
  BUDCORE_TRY_ASSIGN(std::int64_t rows,
                     db.execute("INSERT INTO replicas (name, replica, instance, role, epoch, started_ns, seen_ns, renew_us) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name, replica) DO UPDATE SET "
                                "role = excluded.role, epoch = excluded.epoch, seen_ns = excluded.seen_ns, "
                                "renew_us = excluded.renew_us, "
                                "started_ns = CASE WHEN replicas.instance = excluded.instance THEN replicas.started_ns "
                                "ELSE excluded.started_ns END, instance = excluded.instance "
                                "WHERE replicas.instance = excluded.instance OR (excluded.role <> 'stopped' "
                                "AND (replicas.role = 'stopped' OR replicas.seen_ns <= ?))",
                                p));
  if (rows == 0)
    return Error::make(ErrorCode::AlreadyExists,
                       "replica " + r.replica + " is run by another process now (two processes were started with " +
                           "this id, or this one was silent for a lease and the other took the id over): this process stops",
                       "ha.replica");
  return {};
}

core::Result<std::vector<backend::ReplicaRecord>> list_replicas(SqlConnection& db, std::string_view name) {
  std::vector<backend::ReplicaRecord> out;
  SqlParam p[] = {name};
  BUDCORE_TRY(db.query("SELECT replica, role, epoch, started_ns, seen_ns, renew_us, instance FROM replicas WHERE name = ? "
                       "ORDER BY replica",
                       p, [&](const SqlRow& row) -> core::Status {
                         backend::ReplicaRecord r;
                         r.replica = std::string(row.text(0));
                         r.role = std::string(row.text(1));
                         r.epoch = row.int64(2);
                         r.started = ts(row.int64(3));
                         r.seen = ts(row.int64(4));
                         r.renew_us = row.int64(5);
                         r.instance = std::string(row.text(6));
                         out.push_back(std::move(r));
                         return {};
                       }));
  return out;
}

core::Result<std::int64_t> append_request(SqlConnection& db, const backend::PlatformRequest& r, bool notify,
                                          SeqPool* seqs) {
  const std::string tid = r.tenant.to_string(), oid = r.object_id.to_string(), doc = core::to_json(r.doc);
  const bool later = seqs != nullptr && db.dialect() == Dialect::Postgres;
  if (later) {
    BUDCORE_TRY_ASSIGN(std::int64_t seq, seqs->next(db));
    SqlParam p[] = {seq, std::string_view(tid), std::string_view(r.kind), std::string_view(oid), std::string_view(doc),
                    std::string_view(r.replica), r.created.unix_nanos()};
    BUDCORE_TRY(db.execute_later("INSERT INTO platform_requests (seq, tenant_id, kind, object_id, doc, replica, created_ns) "
                                 "OVERRIDING SYSTEM VALUE VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 p, {}));
    // Wakes a PostgreSQL leader listening for requests (delivered when the transaction commits;
    // one per transaction is enough, however many requests it stores).
    if (notify) BUDCORE_TRY(db.execute_later("SELECT pg_notify('budcore_requests', '')", {}, {}));
    return seq;
  }
  SqlParam p[] = {std::string_view(tid), std::string_view(r.kind), std::string_view(oid), std::string_view(doc),
                  std::string_view(r.replica), r.created.unix_nanos()};
  std::int64_t seq = 0;
  BUDCORE_TRY(db.query("INSERT INTO platform_requests (tenant_id, kind, object_id, doc, replica, created_ns) "
                       "VALUES (?, ?, ?, ?, ?, ?) RETURNING seq",
                       p, [&](const SqlRow& row) -> core::Status {
                         seq = row.int64(0);
                         return {};
                       }));
  if (notify && db.dialect() == Dialect::Postgres) BUDCORE_TRY(db.exec_script("NOTIFY budcore_requests"));
  return seq;
}

core::Result<std::vector<backend::PlatformRequest>> list_requests(SqlConnection& db, std::int64_t after_seq,
                                                                  std::size_t limit) {
  std::vector<backend::PlatformRequest> out;
  SqlParam p[] = {after_seq, static_cast<std::int64_t>(limit)};
  BUDCORE_TRY(db.query("SELECT seq, tenant_id, kind, object_id, doc, replica, created_ns FROM platform_requests "
                       "WHERE seq > ? ORDER BY seq LIMIT ?",
                       p, [&](const SqlRow& row) -> core::Status {
                         backend::PlatformRequest r;
                         r.seq = row.int64(0);
                         BUDCORE_TRY_ASSIGN(r.tenant, core::Id::parse(row.text(1)));
                         r.kind = std::string(row.text(2));
                         BUDCORE_TRY_ASSIGN(r.object_id, core::Id::parse(row.text(3)));
                         BUDCORE_TRY_ASSIGN(r.doc, core::parse_json(row.text(4)));
                         r.replica = std::string(row.text(5));
                         r.created = ts(row.int64(6));
                         out.push_back(std::move(r));
                         return {};
                       }));
  return out;
}

core::Status delete_request(SqlConnection& db, std::int64_t seq) {
  SqlParam p[] = {seq};
  BUDCORE_TRY(db.execute_later("DELETE FROM platform_requests WHERE seq = ?", p, {}));
  return {};
}

}  // namespace budcore::backends
