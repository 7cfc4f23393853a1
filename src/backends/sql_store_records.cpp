// SqlStore: usage records, the audit log (hash-chained), role bindings and the platform's
// bookkeeping (job writes, events, platform records).
#include "backends/sql_store_impl.hpp"

#include <algorithm>

namespace budcore::backends::sql {

Result<UsageRecord> SqlStore::append_usage(const core::Id& tenant, UsageRecord r) {
  BUDCORE_TRY(check_tenant(tenant));
  if (r.job_id.is_nil()) return Error::invalid("job_id", "", "a usage record names its job");
  if (r.end < r.start) return Error::invalid("end", r.end.to_string(), "is before start " + r.start.to_string());
  return write([&]() -> Result<UsageRecord> {
    BUDCORE_TRY(lock_usage_of(tenant));
    std::string tid = tenant.to_string(), jid = r.job_id.to_string(), doc = core::to_json(r.data);
    SqlParam p[] = {tid, jid, r.start.unix_nanos(), r.end.unix_nanos(), doc};
    BUDCORE_TRY(db().query("INSERT INTO usage_records (tenant_id, job_id, start_ns, end_ns, doc) "
                           "VALUES (?, ?, ?, ?, ?) RETURNING seq",
                           p, [&](const SqlRow& row) -> Status {
                             r.seq = row.int64(0);
                             return {};
                           }));
    return std::move(r);
  });
}

// On PostgreSQL concurrent transactions take seqs in one order and may commit in another; a
// reader reading past the last seq it saw (UsageQuery::after_seq) would then miss a record
// committed late under a lower seq. A transaction-scoped advisory lock per tenant, taken before
// the insert and held to the commit, makes a tenant's records visible in seq order. SQLite has
// one writer at a time already. Only the platform's commit batch appends usage of several
// tenants in one transaction; every other writer appends one tenant's, so the locks form no cycle.
Status SqlStore::lock_usage_of(const core::Id& tenant) {
  if (dialect() != Dialect::Postgres) return {};
  if (in_tx_ && !usage_locked_.insert(tenant).second) return {};  // held until this transaction ends
  std::uint32_t key = 0;
  for (std::uint8_t byte : tenant.bytes()) key = key * 31 + byte;  // any spread will do: a clash only waits
  SqlParam p[] = {static_cast<std::int64_t>(kUsageLockClass), static_cast<std::int64_t>(static_cast<std::int32_t>(key))};
  return db().query("SELECT pg_advisory_xact_lock(CAST(? AS INTEGER), CAST(? AS INTEGER))", p,
                    [](const SqlRow&) -> Status { return {}; });
}

Result<Page<UsageRecord>> SqlStore::list_usage(const core::Id& tenant, const UsageQuery& uq, const PageRequest& page) {
  Query q;
  // Reading past a seq, records come in seq order, found by (tenant_id, seq): only the new ones
  // are read. Written as an expression, start_ns keeps SQLite from walking the time range instead.
  const bool by_seq = uq.after_seq.has_value();
  const std::string start = by_seq ? "+start_ns" : "start_ns";
  q.sql("SELECT seq, job_id, start_ns, end_ns, doc FROM usage_records").where("tenant_id = ?").bind(tenant.to_string());
  if (uq.job_id) q.where("job_id = ?").bind(uq.job_id->to_string());
  if (uq.from) q.where(start + " >= ?").bind(uq.from->unix_nanos());
  if (uq.to) q.where(start + " < ?").bind(uq.to->unix_nanos());
  if (uq.after_seq) q.where("seq > ?").bind(*uq.after_seq);
  if (!page.after.empty()) {
    BUDCORE_TRY_ASSIGN(auto cur, parse_pair_cursor(page, CursorKey::Seq));
    BUDCORE_TRY_ASSIGN(std::int64_t seq, parse_int(cur.second, page));
    if (by_seq) q.where("seq > ?").bind(seq);
    else q.where("(start_ns, seq) > (?, ?)").bind(cur.first).bind(seq);
  }
  const std::size_t limit = page_limit(page);
  q.sql(by_seq ? " ORDER BY seq LIMIT ?" : " ORDER BY start_ns, seq LIMIT ?").bind(static_cast<std::int64_t>(limit + 1));
  return read([&]() -> Result<Page<UsageRecord>> {
    Page<UsageRecord> out;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      if (out.items.size() == limit) {
        const auto& l = out.items.back();
        out.next_cursor = std::to_string(l.start.unix_nanos()) + "_" + std::to_string(l.seq);
        return {};
      }
      UsageRecord r;
      r.seq = row.int64(0);
      BUDCORE_TRY_ASSIGN(r.job_id, load_id(row.text(1), "usage_records.job_id"));
      r.start = ts(row.int64(2));
      r.end = ts(row.int64(3));
      BUDCORE_TRY_ASSIGN(r.data, load_json(row.text(4), "usage_records[" + std::to_string(r.seq) + "].doc"));
      out.items.push_back(std::move(r));
      return {};
    }));
    return out;
  });
}

Result<AuditEntry> SqlStore::append_audit(const core::Id& tenant, AuditEntry e) {
  BUDCORE_TRY(check_key("actor", e.actor));
  BUDCORE_TRY(check_key("action", e.action));
  if (e.at == core::Timestamp()) e.at = s_->clock->now();
  if (in_tx_) {
    // Within transact(): the tenant's head is read (and locked) once and written once, when fn returns.
    auto it = chain_heads_.find(tenant);
    if (it == chain_heads_.end()) {
      BUDCORE_TRY_ASSIGN(ChainHead head, lock_chain_head(db(), tenant));
      it = chain_heads_.emplace(tenant, std::move(head)).first;
    }
    return insert_chained_audit(db(), tenant, std::move(e), it->second);
  }
  return write([&]() -> Result<AuditEntry> {
    BUDCORE_TRY_ASSIGN(ChainHead head, lock_chain_head(db(), tenant));
    BUDCORE_TRY_ASSIGN(AuditEntry out, insert_chained_audit(db(), tenant, std::move(e), head));
    BUDCORE_TRY(write_chain_head(db(), tenant, head));
    return out;
  });
}

Result<Page<AuditEntry>> SqlStore::list_audit(const core::Id& tenant, const AuditQuery& aq, const PageRequest& page) {
  Query q;
  q.sql("SELECT " + std::string(kTenantAuditColumns) + " FROM audit_log")
      .where("tenant_id = ?")
      .bind(tenant.to_string());
  if (aq.actor) q.where("actor = ?").bind(*aq.actor);
  if (aq.object_type) q.where("object_type = ?").bind(*aq.object_type);
  if (aq.object_id) q.where("object_id = ?").bind(*aq.object_id);
  if (aq.from) q.where("at_ns >= ?").bind(aq.from->unix_nanos());
  if (aq.to) q.where("at_ns < ?").bind(aq.to->unix_nanos());
  if (!page.after.empty()) {
    BUDCORE_TRY_ASSIGN(std::int64_t seq, parse_int(page.after, page));
    q.where("tenant_seq > ?").bind(seq);
  }
  const std::size_t limit = page_limit(page);
  q.sql(" ORDER BY tenant_seq LIMIT ?").bind(static_cast<std::int64_t>(limit + 1));
  return read([&]() -> Result<Page<AuditEntry>> {
    Page<AuditEntry> out;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      if (out.items.size() == limit) {
        out.next_cursor = std::to_string(out.items.back().seq);
        return {};
      }
      AuditEntry e = audit_row(row);
      BUDCORE_TRY_ASSIGN(e.detail, load_json(row.text(7), "audit_log[" + std::to_string(e.seq) + "].detail"));
      out.items.push_back(std::move(e));
      return {};
    }));
    return out;
  });
}

Result<backend::AuditChainReport> SqlStore::verify_audit_chain(const std::vector<std::string>& anchors,
                                                               std::optional<core::Id> tenant) {
  return read([&] { return backends::verify_audit_chain(db(), anchors, tenant); });
}

Result<std::vector<backend::AuditHead>> SqlStore::audit_heads() {
  return read([&] { return backends::read_audit_heads(db()); });
}

Result<backend::RoleBindingRecord> SqlStore::put_role_binding(const core::Id& tenant, backend::RoleBindingRecord b) {
  BUDCORE_TRY(check_key("principal", b.principal));
  BUDCORE_TRY(check_key("role", b.role));
  BUDCORE_TRY(check_key("created_by", b.created_by));
  if (b.created_at == core::Timestamp()) b.created_at = s_->clock->now();
  return write([&] { return backends::put_role_binding(db(), tenant, std::move(b)); });
}

Status SqlStore::delete_role_binding(const core::Id& tenant, std::string_view principal, std::string_view role,
                           const std::optional<core::Id>& project_id) {
  return write([&] { return backends::delete_role_binding(db(), tenant, principal, role, project_id); });
}

Result<std::vector<backend::RoleBindingRecord>> SqlStore::list_role_bindings(
    const core::Id& tenant, std::optional<std::string_view> principal) {
  return read([&] { return backends::list_role_bindings(db(), tenant, principal); });
}

Result<JobRecord> SqlStore::write_job(const core::Id& tenant, job::Job job, std::int64_t expected_version) {
  BUDCORE_TRY(claim_for_tenant(job.tenant_id, tenant));
  if (job.id.is_nil()) return Error::invalid("id", "", "a write needs the job's id");
  BUDCORE_TRY(job.validate());
  return write([&]() -> Result<JobRecord> { return save_job(tenant, std::move(job), expected_version, {}); });
}

Result<std::int64_t> SqlStore::append_event(const core::Id& tenant, const backend::EventRecord& e) {
  BUDCORE_TRY(check_key("type", e.type));
  auto insert = [&](std::int64_t tenant_seq) -> Result<std::int64_t> {
    std::string tid = tenant.to_string(), oid = e.object_id.to_string(), doc = core::to_json(e.data);
    SqlParam p[] = {tid, e.at.unix_nanos(), std::string_view(e.type), oid, doc, tenant_seq};
    std::int64_t seq = 0;
    BUDCORE_TRY(db().query("INSERT INTO platform_events (tenant_id, at_ns, type, object_id, doc, tenant_seq) "
                           "VALUES (?, ?, ?, ?, ?, ?) RETURNING seq",
                           p, [&](const SqlRow& row) -> Status {
                             seq = row.int64(0);
                             return {};
                           }));
    return seq;
  };
  if (in_tx_ && dialect() == Dialect::Postgres) {
    // The seq is taken ahead; the tenant's number at commit, with every event of the transaction
    // (write_tenant_events): the tenant's counter row is locked for the commit only, not from
    // the first event on, so one tenant's writers on several replicas do not queue behind it.
    // Taking a seq reads no row, so the deferred writes need not go first (db() would send them).
    BUDCORE_TRY_ASSIGN(std::int64_t seq, event_seqs_.next(*s_->conn));
    pending_events_[tenant].push_back(
        PendingEvent{seq, e.at.unix_nanos(), e.type, e.object_id.to_string(), core::to_json(e.data)});
    return seq;
  }
  if (in_tx_) {
    // The tenant's counter is read (and locked) at its first event in the transaction, written at its end.
    auto it = event_counters_.find(tenant);
    if (it == event_counters_.end()) {
      BUDCORE_TRY_ASSIGN(std::int64_t n, lock_tenant_value(db(), TenantTable::Counters, tenant, "events"));
      it = event_counters_.emplace(tenant, n).first;
    }
    return insert(++it->second);
  }
  return write([&]() -> Result<std::int64_t> {
    BUDCORE_TRY_ASSIGN(std::int64_t n, lock_tenant_value(db(), TenantTable::Counters, tenant, "events"));
    BUDCORE_TRY_ASSIGN(std::int64_t seq, insert(n + 1));
    BUDCORE_TRY(write_tenant_value(db(), TenantTable::Counters, tenant, "events", n + 1));
    return seq;
  });
}

Status SqlStore::write_tenant_events(const core::Id& tenant, const std::vector<PendingEvent>& events) {
  // One statement: add the events' count to the tenant's counter (locking its row until the
  // commit right behind it) and insert them numbered after the counter's old value.
  std::vector<std::string> seqs, ats, types, objects, docs;
  for (const PendingEvent& e : events) {
    seqs.push_back(std::to_string(e.seq));
    ats.push_back(std::to_string(e.at_ns));
    types.push_back(e.type);
    objects.push_back(e.object_id);
    docs.push_back(e.doc);
  }
  const std::string tid = tenant.to_string();
  const auto n = static_cast<std::int64_t>(events.size());
  const std::string s = pg_text_array(seqs), a = pg_text_array(ats), t = pg_text_array(types),
                    o = pg_text_array(objects), d = pg_text_array(docs);
  SqlParam p[] = {std::string_view(tid), n, std::string_view(tid), n, s, a, t, o, d};
  return db().execute_later(
      "WITH c AS (INSERT INTO tenant_counters (tenant_id, name, value) VALUES (?, 'events', ?) "
      "ON CONFLICT (tenant_id, name) DO UPDATE SET value = tenant_counters.value + EXCLUDED.value RETURNING value) "
      "INSERT INTO platform_events (seq, tenant_id, at_ns, type, object_id, doc, tenant_seq) OVERRIDING SYSTEM VALUE "
      "SELECT e.seq, ?, e.at_ns, e.type, e.object_id, e.doc, c.value - CAST(? AS BIGINT) + e.ord FROM c, "
      "unnest(CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[])) "
      "WITH ORDINALITY AS e(seq, at_ns, type, object_id, doc, ord)",
      p, {});
}

Result<std::vector<backend::EventRecord>> SqlStore::list_events(const core::Id& tenant, std::int64_t after_seq,
                                                      std::size_t limit) {
  limit = std::clamp<std::size_t>(limit, 1, 10'000);
  std::string tid = tenant.to_string();
  SqlParam p[] = {tid, after_seq, static_cast<std::int64_t>(limit)};
  return read([&]() -> Result<std::vector<backend::EventRecord>> {
    std::vector<backend::EventRecord> out;
    SqlParam pc[] = {std::string_view(tid)};
    std::int64_t cut = 0;
    BUDCORE_TRY(db().query("SELECT seq FROM retention_checkpoints WHERE tenant_id = ? AND log = 'events'", pc,
                           [&](const SqlRow& row) -> Status {
                             cut = row.int64(0);
                             return {};
                           }));
    if (after_seq < cut) {
      Error gone = Error::make(ErrorCode::Gone,
                               "events up to seq " + std::to_string(cut) +
                                   " were removed by retention; list the current state, then watch after seq " +
                                   std::to_string(cut) + " or later",
                               "since");
      gone.value = std::to_string(cut);
      return gone;
    }
    BUDCORE_TRY(db().query("SELECT tenant_seq, at_ns, type, object_id, doc FROM platform_events "
                           "WHERE tenant_id = ? AND tenant_seq > ? ORDER BY tenant_seq LIMIT ?",
                           p, [&](const SqlRow& row) -> Status {
                             backend::EventRecord e;
                             e.seq = row.int64(0);
                             e.at = ts(row.int64(1));
                             e.type = row.text(2);
                             BUDCORE_TRY_ASSIGN(e.object_id, load_id(row.text(3), "platform_events.object_id"));
                             BUDCORE_TRY_ASSIGN(e.data, load_json(row.text(4), "platform_events[" + std::to_string(e.seq) + "].doc"));
                             out.push_back(std::move(e));
                             return {};
                           }));
    return out;
  });
}

Result<backend::LeaseState> SqlStore::acquire_lease(std::string_view name, std::string_view replica, core::Duration ttl) {
  BUDCORE_TRY(check_key("name", name));
  BUDCORE_TRY(check_key("replica", replica));
  if (ttl.count_ns() <= 0) return Error::invalid("ttl", ttl.to_string(), "a lease lasts a positive time");
  return write([&] { return backends::acquire_lease(db(), name, replica, ttl); });
}

Status SqlStore::set_idle_transaction_limit(std::optional<core::Duration> limit) {
  if (limit && limit->count_ns() <= 0) return Error::invalid("limit", limit->to_string(), "a limit is a positive time");
  // Whole milliseconds, at least one: the server's unit, and 0 would mean no limit.
  const std::int64_t ms = limit ? std::max<std::int64_t>(1, limit->count_ns() / 1000000) : 0;
  std::lock_guard lock(s_->mu);
  return db().set_idle_transaction_limit_ms(ms);
}

Result<backend::LeaseState> SqlStore::read_lease(std::string_view name) {
  return read([&] { return backends::read_lease(db(), name); });
}

Status SqlStore::release_lease(std::string_view name, std::string_view replica, std::int64_t epoch) {
  return write([&] { return backends::release_lease(db(), name, replica, epoch); });
}

Status SqlStore::check_fence(std::string_view name, std::string_view replica, std::int64_t epoch) {
  return write([&] { return backends::check_fence(db(), name, replica, epoch); });
}

Status SqlStore::report_replica(std::string_view name, const backend::ReplicaRecord& r) {
  BUDCORE_TRY(check_key("replica", r.replica));
  return write([&] { return backends::report_replica(db(), name, r); });
}

Result<std::vector<backend::ReplicaRecord>> SqlStore::list_replicas(std::string_view name) {
  return read([&] { return backends::list_replicas(db(), name); });
}

Result<std::int64_t> SqlStore::append_request(const backend::PlatformRequest& r) {
  BUDCORE_TRY(check_key("kind", r.kind));
  BUDCORE_TRY(check_key("replica", r.replica));
  return write([&]() -> Result<std::int64_t> {
    // Within a PostgreSQL transaction the insert reads and changes no job and no record: the
    // deferred writes need not go first, and stay one statement for the whole transaction.
    SqlConnection& conn = defers() ? *s_->conn : db_keeping_records();
    auto seq = backends::append_request(conn, r, !requests_notified_, in_tx_ ? &request_seqs_ : nullptr);
    if (seq && in_tx_) requests_notified_ = true;
    return seq;
  });
}

Result<std::vector<backend::PlatformRequest>> SqlStore::list_requests(std::int64_t after_seq, std::size_t limit) {
  limit = std::clamp<std::size_t>(limit, 1, 10'000);
  return read([&] { return backends::list_requests(db(), after_seq, limit); });
}

Status SqlStore::delete_request(std::int64_t seq) {
  return write([&] { return backends::delete_request(db_keeping_records(), seq); });
}

void SqlStore::set_fence(std::optional<Fence> fence) {
  std::lock_guard lock(s_->mu);
  s_->fence = std::move(fence);
}

Result<std::int64_t> SqlStore::count_open_jobs(const core::Id& tenant) {
  BUDCORE_TRY(check_tenant(tenant));
  const std::string tid = tenant.to_string();
  SqlParam p[] = {std::string_view(tid)};
  return read([&]() -> Result<std::int64_t> {
    std::int64_t n = 0;
    BUDCORE_TRY(db().query("SELECT COUNT(*) FROM jobs WHERE tenant_id = ? AND status IN " + std::string(kOpenStatuses),
                           p, [&](const SqlRow& row) -> Status {
                             n = row.int64(0);
                             return {};
                           }));
    return n;
  });
}

Result<std::int64_t> SqlStore::change_marker() {
  return read([&]() -> Result<std::int64_t> {
    std::int64_t v = 0;
    const std::string_view sql = dialect() == Dialect::Sqlite
                                     ? "PRAGMA data_version"
                                     // The whole snapshot, not only its horizon: a transaction that
                                     // commits after a later one (a follower's long batch) leaves the
                                     // horizon as it was, but leaves the in-progress list.
                                     : "SELECT CAST(CAST(('x' || substr(md5(CAST(pg_current_snapshot() AS TEXT)), 1, 16)) "
                                       "AS BIT(64)) AS BIGINT)";
    BUDCORE_TRY(db().query(sql, {}, [&](const SqlRow& row) -> Status {
      v = row.int64(0);
      return {};
    }));
    return v;
  });
}

Result<std::int64_t> SqlStore::get_limit(const core::Id& tenant, std::string_view name) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_key("name", name));
  return read([&] { return read_tenant_value(db(), TenantTable::Limits, tenant, name); });
}

Result<std::int64_t> SqlStore::lock_limit(const core::Id& tenant, std::string_view name) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_key("name", name));
  return write([&] { return lock_tenant_value(db(), TenantTable::Limits, tenant, name); });
}

Status SqlStore::put_limit(const core::Id& tenant, std::string_view name, std::int64_t value) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_key("name", name));
  return write([&]() -> Status {
    BUDCORE_TRY(lock_tenant_value(db(), TenantTable::Limits, tenant, name));
    return write_tenant_value(db(), TenantTable::Limits, tenant, name, value);
  });
}

Status SqlStore::put_platform_record(std::string_view kind, std::string_view key, const core::Value& doc) {
  BUDCORE_TRY(check_key("kind", kind));
  BUDCORE_TRY(check_key("key", key));
  std::string text = core::to_json(doc);
  std::int64_t now = s_->clock->now().unix_nanos();
  if (defers()) {
    deferred_.records[{std::string(kind), std::string(key)}] = std::pair{std::move(text), now};
    return {};
  }
  SqlParam p[] = {kind, key, text, now};
  return write([&]() -> Status {
    BUDCORE_TRY(db().execute_later("INSERT INTO platform_records (kind, record_key, doc, updated_ns) VALUES (?, ?, ?, ?) "
                                   "ON CONFLICT (kind, record_key) DO UPDATE SET doc = excluded.doc, "
                                   "updated_ns = excluded.updated_ns",
                                   p, {}));
    return {};
  });
}

Status SqlStore::delete_platform_record(std::string_view kind, std::string_view key) {
  if (defers()) {
    deferred_.records[{std::string(kind), std::string(key)}] = std::nullopt;
    return {};
  }
  SqlParam p[] = {kind, key};
  return write([&]() -> Status {
    BUDCORE_TRY(db().execute_later("DELETE FROM platform_records WHERE kind = ? AND record_key = ?", p, {}));
    return {};
  });
}

Result<std::optional<backend::PlatformRecord>> SqlStore::get_platform_record(std::string_view kind,
                                                                   std::string_view key) {
  SqlParam p[] = {kind, key};
  return read([&]() -> Result<std::optional<backend::PlatformRecord>> {
    std::optional<backend::PlatformRecord> out;
    BUDCORE_TRY(db().query("SELECT kind, record_key, doc, updated_ns FROM platform_records "
                           "WHERE kind = ? AND record_key = ?",
                           p, [&](const SqlRow& row) -> Status {
                             BUDCORE_TRY_ASSIGN(out, platform_record_from_row(row));
                             return {};
                           }));
    return out;
  });
}

Result<std::vector<std::optional<backend::PlatformRecord>>> SqlStore::get_platform_records(
    std::string_view kind, std::span<const std::string> keys) {
  if (dialect() != Dialect::Postgres) return Store::get_platform_records(kind, keys);
  std::vector<std::optional<backend::PlatformRecord>> out(keys.size());
  std::map<std::string, std::vector<std::size_t>, std::less<>> at;
  for (std::size_t i = 0; i < keys.size(); ++i) at[keys[i]].push_back(i);
  auto from = at.begin();
  return read([&]() -> Result<std::vector<std::optional<backend::PlatformRecord>>> {
    while (from != at.end()) {
      std::vector<std::string> batch;
      for (; from != at.end() && batch.size() < kReadBatch; ++from) batch.push_back(from->first);
      const std::string k = pg_text_array(batch);
      SqlParam p[] = {k, kind};
      // The keys in the column's collation ("C"), or the key index is not used and every record
      // of the kind is compared against the whole array.
      BUDCORE_TRY(db().query("SELECT r.kind, r.record_key, r.doc, r.updated_ns FROM unnest(CAST(? AS TEXT[])) AS k(key) "
                             "JOIN platform_records r ON r.kind = ? AND r.record_key = k.key COLLATE \"C\"",
                             p, [&](const SqlRow& row) -> Status {
                               auto slots = at.find(row.text(1));
                               if (slots == at.end()) return {};
                               BUDCORE_TRY_ASSIGN(auto r, platform_record_from_row(row));
                               for (std::size_t slot : slots->second) out[slot] = r;
                               return {};
                             }));
    }
    return std::move(out);
  });
}

Result<Page<backend::PlatformRecord>> SqlStore::list_platform_records(std::string_view kind, const PageRequest& page) {
  Query q;
  q.sql("SELECT kind, record_key, doc, updated_ns FROM platform_records").where("kind = ?").bind(std::string(kind));
  if (!page.after.empty()) q.where("record_key > ?").bind(page.after);
  const std::size_t limit = page_limit(page);
  q.sql(" ORDER BY record_key LIMIT ?").bind(static_cast<std::int64_t>(limit + 1));
  return read([&]() -> Result<Page<backend::PlatformRecord>> {
    Page<backend::PlatformRecord> out;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      if (out.items.size() == limit) {
        out.next_cursor = out.items.back().key;
        return {};
      }
      BUDCORE_TRY_ASSIGN(auto r, platform_record_from_row(row));
      out.items.push_back(std::move(r));
      return {};
    }));
    return out;
  });
}

}  // namespace budcore::backends::sql
