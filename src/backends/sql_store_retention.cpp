// SqlStore: retention. compact() cuts each tenant's event log and audit chain and the usage
// records of ended jobs, recording every cut as a checkpoint before it deletes (the database
// refuses to delete an audit entry or usage record behind no checkpoint).
#include "backends/sql_store_impl.hpp"

namespace budcore::backends::sql {
namespace {

using backend::CompactionReport;
using backend::RetentionCheckpoint;
using backend::RetentionPolicy;

// Jobs still open and pipeline runs the platform still drives: their events stay.
const std::string kLiveObjects = "object_id NOT IN (SELECT id FROM jobs WHERE tenant_id = ? AND status IN " +
                                 std::string(kOpenStatuses) +
                                 ") AND object_id NOT IN (SELECT record_key FROM platform_records WHERE kind IN ('job', 'run'))";

Result<std::int64_t> scalar(SqlConnection& db, std::string_view sql, std::span<const SqlParam> params) {
  std::int64_t value = 0;
  BUDCORE_TRY(db.query(sql, params, [&](const SqlRow& row) -> Status {
    if (!row.is_null(0)) value = row.int64(0);
    return {};
  }));
  return value;
}

Result<std::vector<std::string>> tenants_of(SqlConnection& db, std::string_view sql) {
  std::vector<std::string> out;
  BUDCORE_TRY(db.query(sql, {}, [&](const SqlRow& row) -> Status {
    out.emplace_back(row.text(0));
    return {};
  }));
  return out;
}

Result<std::int64_t> checkpoint_seq(SqlConnection& db, std::string_view tid, std::string_view log) {
  SqlParam p[] = {tid, log};
  return scalar(db, "SELECT seq FROM retention_checkpoints WHERE tenant_id = ? AND log = ?", p);
}

Status put_checkpoint(SqlConnection& db, const RetentionCheckpoint& c) {
  const std::string tid = c.tenant.to_string();
  SqlParam p[] = {std::string_view(tid), std::string_view(c.log), c.seq, std::string_view(c.hash), c.at.unix_nanos()};
  BUDCORE_TRY(db.execute("INSERT INTO retention_checkpoints (tenant_id, log, seq, hash, at_ns) VALUES (?, ?, ?, ?, ?) "
                         "ON CONFLICT (tenant_id, log) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
                         "at_ns = excluded.at_ns",
                         p));
  return {};
}

// Where a tenant's log may be cut: the newer of the age and count cuts, never its newest entry.
struct Cut {
  std::int64_t head = 0;
  std::int64_t seq = 0;  // 0: nothing to cut
};

Result<Cut> find_cut(SqlConnection& db, std::string_view table, std::string_view tid, std::int64_t head,
                     std::optional<core::Duration> max_age, std::optional<std::int64_t> max_count, core::Timestamp now) {
  Cut cut{head, 0};
  if (max_count) cut.seq = std::max<std::int64_t>(cut.seq, head - *max_count);
  if (max_age) {
    SqlParam p[] = {tid, (now - *max_age).unix_nanos()};
    BUDCORE_TRY_ASSIGN(std::int64_t aged, scalar(db, "SELECT MAX(tenant_seq) FROM " + std::string(table) +
                                                         " WHERE tenant_id = ? AND at_ns < ?",
                                                     p));
    cut.seq = std::max(cut.seq, aged);
  }
  cut.seq = std::min(cut.seq, head - 1);
  return cut;
}

Result<core::Id> tenant_id(std::string_view tid) { return load_id(tid, "tenant_id"); }

Status compact_events(SqlConnection& db, const RetentionPolicy& policy, core::Timestamp now, CompactionReport& out) {
  BUDCORE_TRY_ASSIGN(auto tenants, tenants_of(db, "SELECT tenant_id FROM tenant_counters WHERE name = 'events' ORDER BY tenant_id"));
  for (const std::string& tid : tenants) {
    SqlParam ph[] = {std::string_view(tid)};
    BUDCORE_TRY_ASSIGN(std::int64_t head, scalar(db, "SELECT value FROM tenant_counters WHERE tenant_id = ? AND name = 'events'", ph));
    BUDCORE_TRY_ASSIGN(Cut cut, find_cut(db, "platform_events", tid, head, policy.event_max_age, policy.event_max_count, now));
    BUDCORE_TRY_ASSIGN(std::int64_t done, checkpoint_seq(db, tid, "events"));
    if (cut.seq <= done) continue;
    RetentionCheckpoint c{{}, "events", cut.seq, {}, now};
    BUDCORE_TRY_ASSIGN(c.tenant, tenant_id(tid));
    BUDCORE_TRY(put_checkpoint(db, c));
    SqlParam p[] = {std::string_view(tid), done, cut.seq, std::string_view(tid)};
    BUDCORE_TRY_ASSIGN(std::int64_t n, db.execute("DELETE FROM platform_events WHERE tenant_id = ? AND tenant_seq > ? AND "
                                                  "tenant_seq <= ? AND " + kLiveObjects,
                                                  p));
    out.events_removed += n;
    out.checkpoints.push_back(std::move(c));
  }
  return {};
}

Status compact_audit(SqlConnection& db, const RetentionPolicy& policy, core::Timestamp now, CompactionReport& out) {
  BUDCORE_TRY_ASSIGN(auto tenants, tenants_of(db, "SELECT tenant_id FROM audit_heads ORDER BY tenant_id"));
  for (const std::string& tid : tenants) {
    SqlParam ph[] = {std::string_view(tid)};
    BUDCORE_TRY_ASSIGN(std::int64_t head, scalar(db, "SELECT last_seq FROM audit_heads WHERE tenant_id = ?", ph));
    BUDCORE_TRY_ASSIGN(Cut cut, find_cut(db, "audit_log", tid, head, policy.audit_max_age, policy.audit_max_count, now));
    BUDCORE_TRY_ASSIGN(std::int64_t done, checkpoint_seq(db, tid, "audit"));
    if (cut.seq <= done) continue;
    RetentionCheckpoint c{{}, "audit", cut.seq, {}, now};
    BUDCORE_TRY_ASSIGN(c.tenant, tenant_id(tid));
    SqlParam pk[] = {std::string_view(tid), cut.seq};
    BUDCORE_TRY(db.query("SELECT hash FROM audit_log WHERE tenant_id = ? AND tenant_seq = ?", pk,
                         [&](const SqlRow& row) -> Status {
                           c.hash = row.text(0);
                           return {};
                         }));
    if (c.hash.empty()) {
      return core::Error::make(ErrorCode::Io,
                               "audit_log[tenant " + tid + " seq " + std::to_string(cut.seq) +
                                   "] is missing: the chain cannot be cut there (run `budcore audit verify`)",
                               "audit_log");
    }
    BUDCORE_TRY(put_checkpoint(db, c));
    BUDCORE_TRY_ASSIGN(std::int64_t n, db.execute("DELETE FROM audit_log WHERE tenant_id = ? AND tenant_seq <= ?", pk));
    out.audit_removed += n;
    out.checkpoints.push_back(std::move(c));
  }
  return {};
}

Status compact_usage(SqlConnection& db, const RetentionPolicy& policy, core::Timestamp now, CompactionReport& out) {
  if (!policy.usage_max_age) return {};
  const std::int64_t cut_ns = (now - *policy.usage_max_age).unix_nanos();
  SqlParam pc[] = {cut_ns};
  std::vector<std::string> tenants;
  BUDCORE_TRY(db.query("SELECT DISTINCT tenant_id FROM usage_records WHERE end_ns < ? ORDER BY tenant_id", pc,
                       [&](const SqlRow& row) -> Status {
                         tenants.emplace_back(row.text(0));
                         return {};
                       }));
  for (const std::string& tid : tenants) {
    BUDCORE_TRY_ASSIGN(std::int64_t done, checkpoint_seq(db, tid, "usage"));
    RetentionCheckpoint c{{}, "usage", std::max(done, cut_ns), {}, now};
    BUDCORE_TRY_ASSIGN(c.tenant, tenant_id(tid));
    BUDCORE_TRY(put_checkpoint(db, c));
    // An open job's records stay: its actual cost is summed from them when it ends.
    SqlParam p[] = {std::string_view(tid), cut_ns, std::string_view(tid)};
    BUDCORE_TRY_ASSIGN(std::int64_t n, db.execute("DELETE FROM usage_records WHERE tenant_id = ? AND end_ns < ? AND "
                                                  "job_id NOT IN (SELECT id FROM jobs WHERE tenant_id = ? AND status IN " +
                                                      std::string(kOpenStatuses) + ")",
                                                  p));
    out.usage_removed += n;
    out.checkpoints.push_back(std::move(c));
  }
  return {};
}

Status check_policy(const RetentionPolicy& p) {
  auto positive = [](std::string_view field, const std::optional<core::Duration>& d) -> Status {
    if (d && d->count_ns() <= 0) return core::Error::invalid(std::string(field), d->to_string(), "must be positive");
    return {};
  };
  BUDCORE_TRY(positive("event_max_age", p.event_max_age));
  BUDCORE_TRY(positive("audit_max_age", p.audit_max_age));
  BUDCORE_TRY(positive("usage_max_age", p.usage_max_age));
  if (p.event_max_count && *p.event_max_count < 1)
    return core::Error::invalid("event_max_count", std::to_string(*p.event_max_count), "must be at least 1");
  if (p.audit_max_count && *p.audit_max_count < 1)
    return core::Error::invalid("audit_max_count", std::to_string(*p.audit_max_count), "must be at least 1");
  return {};
}

// The compaction's own entry, in the system tenant's chain, written after its cuts. It lists
// every tenant's audit checkpoint as it now stands: verify_audit_chain holds the table to it, so
// a checkpoint moved by hand (to hide entries deleted behind it) is found.
Status audit_compaction(SqlConnection& db, const CompactionReport& r, core::Timestamp now) {
  core::Map checkpoints;
  BUDCORE_TRY(db.query("SELECT tenant_id, seq, hash FROM retention_checkpoints WHERE log = 'audit' ORDER BY tenant_id", {},
                       [&](const SqlRow& row) -> Status {
                         checkpoints.set(std::string(row.text(0)),
                                         core::Value::map({{"seq", row.int64(1)}, {"hash", std::string(row.text(2))}}));
                         return {};
                       }));
  backend::AuditEntry e;
  e.actor = "budcore";
  e.action = "store.compacted";
  e.object_type = "store";
  e.at = now;
  e.detail = core::Value::map({{"events_removed", r.events_removed},
                               {"audit_removed", r.audit_removed},
                               {"usage_removed", r.usage_removed},
                               {"checkpoints", static_cast<std::int64_t>(r.checkpoints.size())},
                               {"audit_checkpoints", core::Value(std::move(checkpoints))}});
  const core::Id system;
  BUDCORE_TRY_ASSIGN(ChainHead head, lock_chain_head(db, system));
  if (auto appended = insert_chained_audit(db, system, std::move(e), head); !appended) return std::move(appended).error();
  return write_chain_head(db, system, head, false);
}

}  // namespace

Result<CompactionReport> SqlStore::compact(const RetentionPolicy& policy, core::Timestamp now) {
  BUDCORE_TRY(check_policy(policy));
  if (in_tx_) return Error::make(ErrorCode::Invalid, "compact() runs as a unit of work of its own, not in transact()", "compact");
  return write([&]() -> Result<CompactionReport> {
    CompactionReport r;
    BUDCORE_TRY(compact_events(db(), policy, now, r));
    BUDCORE_TRY(compact_audit(db(), policy, now, r));
    BUDCORE_TRY(compact_usage(db(), policy, now, r));
    if (!r.checkpoints.empty()) BUDCORE_TRY(audit_compaction(db(), r, now));
    return r;
  });
}

Result<std::vector<RetentionCheckpoint>> SqlStore::retention_checkpoints() {
  return read([&]() -> Result<std::vector<RetentionCheckpoint>> {
    std::vector<RetentionCheckpoint> out;
    BUDCORE_TRY(db().query("SELECT tenant_id, log, seq, hash, at_ns FROM retention_checkpoints ORDER BY tenant_id, log", {},
                           [&](const SqlRow& row) -> Status {
                             RetentionCheckpoint c;
                             BUDCORE_TRY_ASSIGN(c.tenant, load_id(row.text(0), "retention_checkpoints.tenant_id"));
                             c.log = row.text(1);
                             c.seq = row.int64(2);
                             c.hash = row.text(3);
                             c.at = ts(row.int64(4));
                             out.push_back(std::move(c));
                             return {};
                           }));
    return out;
  });
}

}  // namespace budcore::backends::sql
