// The store schema (one text for both dialects, with a few dialect tokens), its forward
// migrations and the document check behind `budcore store check`.
#include "backends/store_common.hpp"

#include <map>

#include <algorithm>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/job/job.hpp"
#include "backends/sql_security.hpp"
#include "core/digest.hpp"
#include "budcore/core/clock.hpp"

namespace budcore::backends {
namespace {

// Tokens: {ID} an id or key column that is compared and ordered byte-wise (PostgreSQL's
// default collation may order '-' linguistically, which would break keyset paging);
// {SERIAL} an increasing 64-bit primary key.
constexpr std::string_view kSchemaV1 = R"sql(
CREATE TABLE jobs (
  tenant_id {ID} NOT NULL,
  id {ID} NOT NULL,
  project_id {ID} NOT NULL,
  cluster_id {ID} NOT NULL,
  pipeline_id {ID},
  status TEXT NOT NULL,
  job_type TEXT NOT NULL,
  source TEXT NOT NULL,
  created_ns BIGINT NOT NULL,
  updated_ns BIGINT NOT NULL,
  version BIGINT NOT NULL,
  idempotency_key {ID},
  doc TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX jobs_idempotency ON jobs (tenant_id, idempotency_key);
CREATE INDEX jobs_tenant_created ON jobs (tenant_id, created_ns, id);
CREATE INDEX jobs_tenant_status ON jobs (tenant_id, status, created_ns, id);
CREATE INDEX jobs_cluster_status ON jobs (cluster_id, status, tenant_id, created_ns);
CREATE INDEX jobs_tenant_project ON jobs (tenant_id, project_id, created_ns, id);
CREATE INDEX jobs_tenant_pipeline ON jobs (tenant_id, pipeline_id);

CREATE TABLE pipelines (
  tenant_id {ID} NOT NULL,
  id {ID} NOT NULL,
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  state TEXT NOT NULL,
  version BIGINT NOT NULL,
  created_ns BIGINT NOT NULL,
  updated_ns BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX pipelines_tenant_created ON pipelines (tenant_id, created_ns, id);

CREATE TABLE pipeline_steps (
  tenant_id {ID} NOT NULL,
  pipeline_id {ID} NOT NULL,
  step_id {ID} NOT NULL,
  status TEXT NOT NULL,
  state TEXT NOT NULL,
  version BIGINT NOT NULL,
  updated_ns BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, pipeline_id, step_id)
);

CREATE TABLE usecase_templates (
  seq {SERIAL},
  tenant_id {ID} NOT NULL,
  name {ID} NOT NULL,
  version {ID} NOT NULL,
  scope TEXT NOT NULL,
  doc TEXT NOT NULL,
  created_ns BIGINT NOT NULL,
  UNIQUE (tenant_id, name, version)
);
CREATE INDEX usecase_templates_name ON usecase_templates (tenant_id, name, seq);

CREATE TABLE components (
  seq {SERIAL},
  tenant_id {ID} NOT NULL,
  name {ID} NOT NULL,
  version {ID} NOT NULL,
  scope TEXT NOT NULL,
  doc TEXT NOT NULL,
  created_ns BIGINT NOT NULL,
  UNIQUE (tenant_id, name, version)
);
CREATE INDEX components_name ON components (tenant_id, name, seq);

CREATE TABLE quota_configs (
  tenant_id {ID} NOT NULL,
  name {ID} NOT NULL,
  doc TEXT NOT NULL,
  version BIGINT NOT NULL,
  updated_ns BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, name)
);

CREATE TABLE usage_records (
  seq {SERIAL},
  tenant_id {ID} NOT NULL,
  job_id {ID} NOT NULL,
  start_ns BIGINT NOT NULL,
  end_ns BIGINT NOT NULL,
  doc TEXT NOT NULL
);
CREATE INDEX usage_tenant_start ON usage_records (tenant_id, start_ns, seq);
CREATE INDEX usage_tenant_job ON usage_records (tenant_id, job_id, start_ns, seq);

CREATE TABLE audit_log (
  seq {SERIAL},
  tenant_id {ID} NOT NULL,
  at_ns BIGINT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  object_type TEXT NOT NULL,
  object_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX audit_tenant_seq ON audit_log (tenant_id, seq);
CREATE INDEX audit_tenant_object ON audit_log (tenant_id, object_type, object_id, seq);
)sql";

// v2: the audit log and usage records refuse UPDATE and DELETE at the database level too.
constexpr std::string_view kSchemaV2Sqlite = R"sql(
CREATE TRIGGER audit_log_append_only_u BEFORE UPDATE ON audit_log
  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_append_only_d BEFORE DELETE ON audit_log
  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER usage_records_append_only_u BEFORE UPDATE ON usage_records
  BEGIN SELECT RAISE(ABORT, 'usage_records is append-only'); END;
CREATE TRIGGER usage_records_append_only_d BEFORE DELETE ON usage_records
  BEGIN SELECT RAISE(ABORT, 'usage_records is append-only'); END;
CREATE INDEX audit_tenant_actor ON audit_log (tenant_id, actor, seq);
)sql";

constexpr std::string_view kSchemaV2Postgres = R"sql(
CREATE FUNCTION budcore_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION budcore_append_only();
CREATE TRIGGER usage_records_append_only BEFORE UPDATE OR DELETE ON usage_records
  FOR EACH ROW EXECUTE FUNCTION budcore_append_only();
CREATE INDEX audit_tenant_actor ON audit_log (tenant_id, actor, seq);
)sql";

// v3: the columns a job list shows (JobSummary), so lists need not load documents. NULL name:
// a row written before v3, whose summary is read from its document instead.
constexpr std::string_view kSchemaV3 = R"sql(
ALTER TABLE jobs ADD COLUMN name TEXT;
ALTER TABLE jobs ADD COLUMN priority TEXT;
ALTER TABLE jobs ADD COLUMN gpu_type TEXT;
ALTER TABLE jobs ADD COLUMN gpu_count BIGINT;
)sql";

// v4: the platform's event log (Platform::watch) and its bookkeeping of the live jobs and
// pipeline runs it drives (rebuilt from these on open; docs/platform.md "Crash safety").
constexpr std::string_view kSchemaV4 = R"sql(
CREATE TABLE platform_events (
  seq {SEQ},
  tenant_id {ID} NOT NULL,
  at_ns BIGINT NOT NULL,
  type TEXT NOT NULL,
  object_id {ID} NOT NULL,
  doc TEXT NOT NULL
);
CREATE INDEX platform_events_tenant_seq ON platform_events (tenant_id, seq);

CREATE TABLE platform_records (
  kind {ID} NOT NULL,
  record_key {ID} NOT NULL,
  doc TEXT NOT NULL,
  updated_ns BIGINT NOT NULL,
  PRIMARY KEY (kind, record_key)
);
)sql";

// v5: the catalog's search and lifecycle columns (id, category, tags, soft delete, default
// version, source), on {T} = components and usecase_templates. Rows written before have no id
// and empty category/tags until rewritten.
constexpr std::string_view kSchemaV5PerCatalogTable = R"sql(
ALTER TABLE {T} ADD COLUMN id TEXT;
ALTER TABLE {T} ADD COLUMN category TEXT NOT NULL DEFAULT '';
ALTER TABLE {T} ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE {T} ADD COLUMN is_active BIGINT NOT NULL DEFAULT 1;
ALTER TABLE {T} ADD COLUMN is_default BIGINT NOT NULL DEFAULT 0;
ALTER TABLE {T} ADD COLUMN source TEXT NOT NULL DEFAULT '';
)sql";

// v6: the audit log's hash chain (docs/security.md "Audit") with its head, and role bindings
// (project_id '' = every project of the tenant).
constexpr std::string_view kSchemaV6 = R"sql(
ALTER TABLE audit_log ADD COLUMN prev_hash TEXT;
ALTER TABLE audit_log ADD COLUMN hash TEXT;
CREATE TABLE audit_chain (
  id BIGINT PRIMARY KEY,
  last_seq BIGINT NOT NULL,
  last_hash TEXT NOT NULL
);
INSERT INTO audit_chain (id, last_seq, last_hash)
  VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');
CREATE TABLE role_bindings (
  tenant_id {ID} NOT NULL,
  principal {ID} NOT NULL,
  role {ID} NOT NULL,
  project_id {ID} NOT NULL,
  created_ns BIGINT NOT NULL,
  created_by TEXT NOT NULL,
  PRIMARY KEY (tenant_id, principal, role, project_id)
);
)sql";

// v7: what a tenant sees is numbered for it alone. Events and audit entries get a per-tenant
// sequence (tenant_seq, from the tenant's counter row, locked by the appending transaction, so
// a tenant's numbers have no gaps and follow commit order); the audit log is a hash chain per
// tenant with its head in audit_heads; tenant_limits keeps limit state (the submit rate's
// theoretical arrival time) that must hold across every process on the store; pipeline steps'
// idempotency keys move into the platform's namespace ("budcore:pipeline/..."). The global
// chain head (audit_chain) is gone: the migration re-chains the existing entries per tenant
// (migrate_to_v7).
constexpr std::string_view kSchemaV7 = R"sql(
ALTER TABLE platform_events ADD COLUMN tenant_seq BIGINT;
ALTER TABLE audit_log ADD COLUMN tenant_seq BIGINT;
CREATE TABLE tenant_counters (
  tenant_id {ID} NOT NULL,
  name {ID} NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, name)
);
CREATE TABLE audit_heads (
  tenant_id {ID} NOT NULL PRIMARY KEY,
  last_seq BIGINT NOT NULL,
  last_hash TEXT NOT NULL
);
CREATE TABLE tenant_limits (
  tenant_id {ID} NOT NULL,
  name {ID} NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, name)
);
UPDATE jobs SET idempotency_key = 'budcore:pipeline/' || idempotency_key
  WHERE source = 'pipeline' AND pipeline_id IS NOT NULL AND idempotency_key LIKE pipeline_id || '/%';
)sql";

// After the backfill of migrate_to_v7.
constexpr std::string_view kSchemaV7Indexes = R"sql(
CREATE UNIQUE INDEX platform_events_tenant_tseq ON platform_events (tenant_id, tenant_seq);
CREATE UNIQUE INDEX audit_tenant_tseq ON audit_log (tenant_id, tenant_seq);
DROP TABLE audit_chain;
)sql";

// v8: high availability (docs/ha.md). leader_lease holds each election's lease (holder, epoch,
// expiry on the database's clock); replicas is what each replica last reported; requests holds
// the mutations followers took, for the leader to carry out in order.
constexpr std::string_view kSchemaV8 = R"sql(
CREATE TABLE leader_lease (
  name {ID} NOT NULL PRIMARY KEY,
  holder {ID} NOT NULL,
  epoch BIGINT NOT NULL,
  expires_ns BIGINT NOT NULL,
  renewed_ns BIGINT NOT NULL
);
CREATE TABLE replicas (
  name {ID} NOT NULL,
  replica {ID} NOT NULL,
  instance {ID} NOT NULL,
  role TEXT NOT NULL,
  epoch BIGINT NOT NULL,
  started_ns BIGINT NOT NULL,
  seen_ns BIGINT NOT NULL,
  renew_us BIGINT NOT NULL,
  PRIMARY KEY (name, replica)
);
CREATE TABLE platform_requests (
  seq {SERIAL},
  tenant_id {ID} NOT NULL,
  kind {ID} NOT NULL,
  object_id {ID} NOT NULL,
  doc TEXT NOT NULL,
  replica {ID} NOT NULL,
  created_ns BIGINT NOT NULL
);
)sql";

// v9: retention (docs/store.md "Retention"). A checkpoint per tenant and log records where
// compaction cut it (events and audit: the last tenant seq removed, with the audit entry's hash
// so the chain verifies from there; usage: records that ended before `seq` ns). The audit log and
// usage records stay append-only for every row behind no checkpoint.
constexpr std::string_view kSchemaV9Table = R"sql(
CREATE TABLE retention_checkpoints (
  tenant_id {ID} NOT NULL,
  log {ID} NOT NULL,
  seq BIGINT NOT NULL,
  hash TEXT NOT NULL,
  at_ns BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, log)
);
)sql";

constexpr std::string_view kSchemaV9Sqlite = R"sql(
DROP TRIGGER IF EXISTS audit_log_append_only_d;
CREATE TRIGGER audit_log_append_only_d BEFORE DELETE ON audit_log
  WHEN NOT EXISTS (SELECT 1 FROM retention_checkpoints c WHERE c.tenant_id = old.tenant_id
                   AND c.log = 'audit' AND old.tenant_seq <= c.seq)
  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: only entries behind a retention checkpoint may be deleted'); END;
DROP TRIGGER IF EXISTS usage_records_append_only_d;
CREATE TRIGGER usage_records_append_only_d BEFORE DELETE ON usage_records
  WHEN NOT EXISTS (SELECT 1 FROM retention_checkpoints c WHERE c.tenant_id = old.tenant_id
                   AND c.log = 'usage' AND old.end_ns < c.seq)
  BEGIN SELECT RAISE(ABORT, 'usage_records is append-only: only records behind a retention checkpoint may be deleted'); END;
)sql";

constexpr std::string_view kSchemaV9Postgres = R"sql(
CREATE FUNCTION budcore_delete_behind_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- Nested: PL/pgSQL would read both tables' columns in one condition.
    IF TG_TABLE_NAME = 'audit_log' THEN
      IF EXISTS (SELECT 1 FROM retention_checkpoints c
                 WHERE c.tenant_id = OLD.tenant_id AND c.log = 'audit' AND OLD.tenant_seq <= c.seq) THEN
        RETURN OLD;
      END IF;
    ELSIF EXISTS (SELECT 1 FROM retention_checkpoints c
                  WHERE c.tenant_id = OLD.tenant_id AND c.log = 'usage' AND OLD.end_ns < c.seq) THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION '% is append-only: only rows behind a retention checkpoint may be deleted', TG_TABLE_NAME;
  END $$;
DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION budcore_append_only();
CREATE TRIGGER audit_log_delete_behind_checkpoint BEFORE DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION budcore_delete_behind_checkpoint();
DROP TRIGGER IF EXISTS usage_records_append_only ON usage_records;
CREATE TRIGGER usage_records_append_only BEFORE UPDATE ON usage_records
  FOR EACH ROW EXECUTE FUNCTION budcore_append_only();
CREATE TRIGGER usage_records_delete_behind_checkpoint BEFORE DELETE ON usage_records
  FOR EACH ROW EXECUTE FUNCTION budcore_delete_behind_checkpoint();
)sql";

// v10: the durable serverless request queue (docs/serverless.md "Durable queue"). One row per
// accepted request of an endpoint of the tenant; `claim` counts the claims so far and is the
// token a worker's report must name; score is stored in thousandths.
constexpr std::string_view kSchemaV10 = R"sql(
CREATE TABLE serverless_requests (
  id {SEQ},
  tenant_id {ID} NOT NULL,
  endpoint {ID} NOT NULL,
  req_tenant {ID} NOT NULL,
  payload_hash {ID} NOT NULL,
  payload_bytes BIGINT NOT NULL,
  priority TEXT NOT NULL,
  score BIGINT NOT NULL,
  compute_ns BIGINT NOT NULL,
  max_wait_ns BIGINT NOT NULL,
  max_process_ns BIGINT NOT NULL,
  max_retries BIGINT NOT NULL,
  status TEXT NOT NULL,
  attempts BIGINT NOT NULL,
  claim BIGINT NOT NULL,
  worker {ID} NOT NULL,
  enqueued_ns BIGINT NOT NULL,
  claimed_ns BIGINT NOT NULL,
  lease_ns BIGINT NOT NULL,
  completed_ns BIGINT NOT NULL,
  timeout_ns BIGINT NOT NULL,
  last_error TEXT NOT NULL
);
CREATE INDEX serverless_requests_next ON serverless_requests (tenant_id, endpoint, status, score DESC, id);
CREATE INDEX serverless_requests_lease ON serverless_requests (tenant_id, endpoint, status, lease_ns);
CREATE INDEX serverless_requests_dedup ON serverless_requests (tenant_id, endpoint, payload_hash, enqueued_ns);
)sql";

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

std::string apply_dialect(Dialect d, std::string_view sql) {
  std::string out(sql);
  if (d == Dialect::Sqlite) {
    out = replace_all(std::move(out), "{ID}", "TEXT");
    out = replace_all(std::move(out), "{SERIAL}", "INTEGER PRIMARY KEY AUTOINCREMENT");
    // An increasing rowid without AUTOINCREMENT's sqlite_sequence write per insert: compaction
    // keeps every tenant's newest event, so the newest row stays and max(rowid) + 1 never reuses a seq.
    out = replace_all(std::move(out), "{SEQ}", "INTEGER PRIMARY KEY");
  } else {
    out = replace_all(std::move(out), "{ID}", "TEXT COLLATE \"C\"");
    out = replace_all(std::move(out), "{SERIAL}", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY");
    out = replace_all(std::move(out), "{SEQ}", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY");
  }
  return out;
}

constexpr std::string_view kMetaTable =
    "CREATE TABLE IF NOT EXISTS budcore_meta (id BIGINT PRIMARY KEY, schema_version BIGINT NOT NULL)";

core::Status collect_rows(SqlConnection& conn, std::string_view sql, std::vector<std::string>& problems,
                          std::int64_t& count,
                          const std::function<core::Status(const SqlRow&)>& check_row) {
  return conn.query(sql, {}, [&](const SqlRow& row) -> core::Status {
    ++count;
    if (auto st = check_row(row); !st) problems.push_back(st.error().describe());
    return {};
  });
}

core::Status check_json(const SqlRow& row, int col, std::string_view what) {
  auto v = core::parse_json(row.text(col));
  if (!v) {
    return core::Error::make(core::ErrorCode::Io,
                             std::string(what) + " holds invalid JSON: " + v.error().message);
  }
  return {};
}

}  // namespace

namespace {

constexpr std::string_view kAppendOnlySqlite = R"sql(
CREATE TRIGGER audit_log_append_only_u BEFORE UPDATE ON audit_log
  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_append_only_d BEFORE DELETE ON audit_log
  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
)sql";
constexpr std::string_view kAppendOnlyPostgres = R"sql(
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION budcore_append_only();
)sql";

// Numbers every tenant's events 1, 2, ... in seq order and starts its counter there.
core::Status number_events_per_tenant(SqlConnection& conn) {
  BUDCORE_TRY(conn.exec_script(
      "UPDATE platform_events SET tenant_seq = r.n FROM (SELECT seq AS s, ROW_NUMBER() OVER "
      "(PARTITION BY tenant_id ORDER BY seq) AS n FROM platform_events) AS r WHERE platform_events.seq = r.s;"
      "INSERT INTO tenant_counters (tenant_id, name, value) "
      "SELECT tenant_id, 'events', MAX(tenant_seq) FROM platform_events GROUP BY tenant_id;"));
  return {};
}

struct LegacyAuditRow {
  std::int64_t seq = 0;
  core::Id tenant;
  backend::AuditEntry entry;
  std::string detail;
};

// The audit log was one chain over every tenant; from v7 each tenant has its own. The entries
// are checked against the old chain first (what was wrong stays on record: the migration's own
// system-tenant entry lists it), then re-chained per tenant, in seq order.
core::Status rechain_audit_per_tenant(SqlConnection& conn) {
  const bool sqlite = conn.dialect() == Dialect::Sqlite;
  BUDCORE_TRY(conn.exec_script(sqlite ? "DROP TRIGGER IF EXISTS audit_log_append_only_u;"
                                        "DROP TRIGGER IF EXISTS audit_log_append_only_d;"
                                      : "DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log;"));
  std::vector<LegacyAuditRow> rows;
  BUDCORE_TRY(conn.query("SELECT " + std::string(kAuditColumns) + ", tenant_id FROM audit_log ORDER BY seq", {},
                         [&](const SqlRow& row) -> core::Status {
                           LegacyAuditRow r;
                           r.seq = row.int64(0);
                           r.entry = audit_row(row);
                           r.detail = std::string(row.text(7));
                           auto tenant = core::Id::parse(row.text(10));
                           if (!tenant)
                             return core::Error::make(core::ErrorCode::Io,
                                                      "audit_log[seq " + std::to_string(r.seq) + "] has tenant '" +
                                                          core::truncate_text(row.text(10)) + "', not a UUID",
                                                      "audit_log.tenant_id");
                           r.tenant = *tenant;
                           rows.push_back(std::move(r));
                           return {};
                         }));
  core::List problems;
  std::string last(core::kZeroDigest);
  for (const LegacyAuditRow& r : rows) {
    if (r.entry.hash.empty()) continue;  // written before the chain existed
    if (r.entry.prev_hash != last) problems.emplace_back("seq " + std::to_string(r.seq) + ": link broken");
    if (audit_entry_hash(r.tenant, r.entry, r.detail) != r.entry.hash)
      problems.emplace_back("seq " + std::to_string(r.seq) + ": edited");
    last = r.entry.hash;
  }
  std::map<core::Id, ChainHead> heads;
  for (LegacyAuditRow& r : rows) {
    auto [it, fresh] = heads.try_emplace(r.tenant, ChainHead{0, std::string(core::kZeroDigest)});
    ChainHead& head = it->second;
    r.entry.prev_hash = head.hash;
    r.entry.hash = audit_entry_hash(r.tenant, r.entry, r.detail);
    head = ChainHead{head.seq + 1, r.entry.hash};
    SqlParam p[] = {head.seq, std::string_view(r.entry.prev_hash), std::string_view(r.entry.hash), r.seq};
    BUDCORE_TRY(conn.execute("UPDATE audit_log SET tenant_seq = ?, prev_hash = ?, hash = ? WHERE seq = ?", p));
  }
  for (auto& [tenant, head] : heads) BUDCORE_TRY(write_chain_head(conn, tenant, head, true));
  if (!rows.empty()) {
    // The migration's own entry, in the system tenant's chain.
    backend::AuditEntry e;
    e.actor = "budcore";
    e.action = "audit_log.rechained";
    e.object_type = "audit_log";
    e.at = core::system_clock()->now();
    e.detail = core::Value::map({{"entries", static_cast<std::int64_t>(rows.size())},
                                 {"previous_chain_ok", problems.empty()},
                                 {"previous_chain_problems", core::Value(std::move(problems))}});
    const core::Id system;
    BUDCORE_TRY_ASSIGN(ChainHead head, lock_chain_head(conn, system));
    BUDCORE_TRY(insert_chained_audit(conn, system, std::move(e), head));
    BUDCORE_TRY(write_chain_head(conn, system, head, false));
  }
  return conn.exec_script(sqlite ? kAppendOnlySqlite : kAppendOnlyPostgres);
}

}  // namespace

core::Status migrate_to_v7(SqlConnection& conn) {
  BUDCORE_TRY(number_events_per_tenant(conn));
  BUDCORE_TRY(rechain_audit_per_tenant(conn));
  return conn.exec_script(kSchemaV7Indexes);
}

// v11: the digest of the document a job was submitted with under an idempotency key, so that a
// key sent again with another document is refused rather than answered with the first job. NULL:
// a job created before v11 or without a digest (its key is not checked against documents).
constexpr std::string_view kSchemaV11 = R"sql(
ALTER TABLE jobs ADD COLUMN request_digest TEXT;
)sql";

// v12: use-case templates and components in one table, told apart by kind; each kind's rows keep
// their order (seq: the newest version of a name is the last written).
constexpr std::string_view kSchemaV12 = R"sql(
CREATE TABLE catalog_items (
  seq {SERIAL},
  kind TEXT NOT NULL,
  tenant_id {ID} NOT NULL,
  name {ID} NOT NULL,
  version {ID} NOT NULL,
  scope TEXT NOT NULL,
  doc TEXT NOT NULL,
  created_ns BIGINT NOT NULL,
  id TEXT,
  category TEXT NOT NULL DEFAULT '',
  tags TEXT NOT NULL DEFAULT '[]',
  is_active BIGINT NOT NULL DEFAULT 1,
  is_default BIGINT NOT NULL DEFAULT 0,
  source TEXT NOT NULL DEFAULT '',
  UNIQUE (tenant_id, kind, name, version)
);
CREATE INDEX catalog_items_name ON catalog_items (tenant_id, kind, name, seq);
INSERT INTO catalog_items (kind, tenant_id, name, version, scope, doc, created_ns, id, category, tags, is_active,
                           is_default, source)
  SELECT 'usecase_template', tenant_id, name, version, scope, doc, created_ns, id, category, tags, is_active,
         is_default, source FROM usecase_templates ORDER BY seq;
INSERT INTO catalog_items (kind, tenant_id, name, version, scope, doc, created_ns, id, category, tags, is_active,
                           is_default, source)
  SELECT 'component', tenant_id, name, version, scope, doc, created_ns, id, category, tags, is_active,
         is_default, source FROM components ORDER BY seq;
DROP TABLE usecase_templates;
DROP TABLE components;
)sql";

// Version 13: budgets read the usage appended since they last looked (UsageQuery::after_seq).
constexpr std::string_view kSchemaV13 = R"sql(
CREATE INDEX usage_tenant_seq ON usage_records (tenant_id, seq);
)sql";

// Fewer index entries per job row (every status change of a job writes a new entry in each
// index that covers the row): no index leads with the cluster (every query names the tenant),
// and jobs without an idempotency key or a pipeline, most of them, have no entry in those two.
// A partial index is equivalent here: a NULL key or pipeline never matched a lookup or a conflict.
constexpr std::string_view kSchemaV14 = R"sql(
DROP INDEX jobs_cluster_status;
DROP INDEX jobs_idempotency;
CREATE UNIQUE INDEX jobs_idempotency ON jobs (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
DROP INDEX jobs_tenant_pipeline;
CREATE INDEX jobs_tenant_pipeline ON jobs (tenant_id, pipeline_id) WHERE pipeline_id IS NOT NULL;
)sql";

// PostgreSQL: the event and request numbers step by a block (kSeqBlock), so a transaction
// reserves its numbers with one nextval instead of one per row (SeqPool).
constexpr std::string_view kSchemaV14Postgres = R"sql(
ALTER TABLE platform_events ALTER COLUMN seq SET INCREMENT BY 1024;
ALTER TABLE platform_requests ALTER COLUMN seq SET INCREMENT BY 1024;
)sql";

std::string migration_sql(Dialect dialect, int version) {
  switch (version) {
    case 1: return apply_dialect(dialect, kSchemaV1);
    case 2: return std::string(dialect == Dialect::Sqlite ? kSchemaV2Sqlite : kSchemaV2Postgres);
    case 3: return std::string(kSchemaV3);
    case 4: return apply_dialect(dialect, kSchemaV4);
    case 5:
      return replace_all(std::string(kSchemaV5PerCatalogTable), "{T}", "components") +
             replace_all(std::string(kSchemaV5PerCatalogTable), "{T}", "usecase_templates");
    case 6: return apply_dialect(dialect, kSchemaV6);
    case 7: return apply_dialect(dialect, kSchemaV7);
    case 8: return apply_dialect(dialect, kSchemaV8);
    case 9:
      return apply_dialect(dialect, kSchemaV9Table) +
             std::string(dialect == Dialect::Sqlite ? kSchemaV9Sqlite : kSchemaV9Postgres);
    case 10: return apply_dialect(dialect, kSchemaV10);
    case 11: return std::string(kSchemaV11);
    case 12: return apply_dialect(dialect, kSchemaV12);
    case 13: return std::string(kSchemaV13);
    case 14: return std::string(kSchemaV14) + std::string(dialect == Dialect::Postgres ? kSchemaV14Postgres : "");
    default: return {};
  }
}

core::Result<int> read_schema_version(SqlConnection& conn) {
  // A database without the meta table has no budcore schema yet.
  bool has_meta = false;
  std::string_view probe = conn.dialect() == Dialect::Sqlite
                               ? "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'budcore_meta'"
                               : "SELECT 1 FROM pg_catalog.pg_tables WHERE tablename = 'budcore_meta' "
                                 "AND schemaname = current_schema()";
  BUDCORE_TRY(conn.query(probe, {}, [&](const SqlRow&) -> core::Status {
    has_meta = true;
    return {};
  }));
  if (!has_meta) return 0;
  int version = 0;
  BUDCORE_TRY(conn.query("SELECT schema_version FROM budcore_meta WHERE id = 1", {},
                         [&](const SqlRow& row) -> core::Status {
                           // Read whole: a value past int's range must not wrap into an old or
                           // negative version (a migration loop over billions of versions).
                           const std::int64_t stored = row.int64(0);
                           if (stored < 0)
                             return core::Error::make(core::ErrorCode::Io,
                                                      "the store's schema version " + std::to_string(stored) +
                                                          " is not a schema version: the store was damaged",
                                                      "schema_version");
                           if (stored > kMaxReadableSchemaVersion)
                             return core::Error::make(core::ErrorCode::Unsupported,
                                                      "the store's schema version " + std::to_string(stored) +
                                                          " is newer than this library supports (" +
                                                          std::to_string(kLatestSchemaVersion) + "); upgrade budcore to open it",
                                                      "schema_version");
                           version = static_cast<int>(stored);
                           return {};
                         }));
  return version;
}

core::Result<MigrationOutcome> migrate_schema(SqlConnection& conn, bool migrate, int target_version) {
  BUDCORE_TRY(conn.begin());
  auto run = [&]() -> core::Result<MigrationOutcome> {
    BUDCORE_TRY(conn.lock_for_migration());
    BUDCORE_TRY_ASSIGN(int stored, read_schema_version(conn));
    if (stored > kLatestSchemaVersion) {
      return core::Error::make(
          core::ErrorCode::Unsupported,
          "the store's schema version " + std::to_string(stored) +
              " is newer than this library supports (" + std::to_string(kLatestSchemaVersion) +
              "); upgrade budcore to open it",
          "schema_version");
    }
    if (stored < target_version && !migrate) {
      return core::Error::make(core::ErrorCode::Unsupported,
                               "the store's schema version " + std::to_string(stored) +
                                   " is older than this library's (" + std::to_string(target_version) +
                                   "); run `budcore store migrate URI`",
                               "schema_version");
    }
    for (int v = stored + 1; v <= target_version; ++v) {
      if (v == 1) BUDCORE_TRY(conn.exec_script(kMetaTable));
      core::Status st = conn.exec_script(migration_sql(conn.dialect(), v));
      if (st && v == 7) st = migrate_to_v7(conn);
      if (!st) {
        core::Error e = st.error();
        e.message = "migration to schema version " + std::to_string(v) + " failed: " + e.message;
        return e;
      }
    }
    if (stored < target_version) {
      std::int64_t to = target_version;
      SqlParam p[] = {to};
      BUDCORE_TRY(conn.execute(
          "INSERT INTO budcore_meta (id, schema_version) VALUES (1, ?) "
          "ON CONFLICT (id) DO UPDATE SET schema_version = excluded.schema_version",
          p));
    }
    return MigrationOutcome{stored, std::max(stored, target_version)};
  };
  auto out = run();
  if (!out) {
    conn.rollback();
    return out;
  }
  if (auto st = conn.commit(); !st) {
    conn.rollback();
    return std::move(st).error();
  }
  return out;
}

namespace {

// The indexed columns lists and filters read must say what the document says; a row edited by
// hand (or by a buggy writer) would otherwise list a job under the wrong tenant or status.
core::Status check_job_columns(const SqlRow& row, const job::Job& j, const std::string& at, bool summary_columns) {
  auto differs = [&](std::string_view column, std::string_view stored, std::string_view in_doc) -> core::Status {
    if (stored == in_doc) return {};
    return core::Error::make(core::ErrorCode::Io,
                             "indexed column " + std::string(column) + " is '" + core::truncate_text(stored) +
                                 "' but the document says '" + core::truncate_text(in_doc) + "'",
                             at + "." + std::string(column));
  };
  auto text_or = [&](int col) { return row.is_null(col) ? std::string_view() : row.text(col); };
  BUDCORE_TRY(differs("tenant_id", row.text(0), j.tenant_id.to_string()));
  BUDCORE_TRY(differs("id", row.text(1), j.id.to_string()));
  BUDCORE_TRY(differs("status", row.text(3), job::to_string(j.status)));
  if (summary_columns && !row.is_null(4) && row.int64(4) != j.gpu_count) {
    return core::Error::make(core::ErrorCode::Io,
                             "indexed column gpu_count is " + std::to_string(row.int64(4)) + " but the document says " +
                                 std::to_string(j.gpu_count),
                             at + ".gpu_count");
  }
  if (!row.is_null(5)) BUDCORE_TRY(differs("name", row.text(5), j.name));  // NULL: written before schema 3
  if (!row.is_null(6)) BUDCORE_TRY(differs("priority", row.text(6), job::to_string(j.priority)));
  if (!row.is_null(5)) BUDCORE_TRY(differs("gpu_type", text_or(7), j.gpu_type.value_or("")));
  BUDCORE_TRY(differs("job_type", row.text(8), job::to_string(j.job_type)));
  BUDCORE_TRY(differs("source", row.text(9), job::to_string(j.source)));
  BUDCORE_TRY(differs("project_id", row.text(10), j.project_id.to_string()));
  BUDCORE_TRY(differs("cluster_id", row.text(11), j.cluster_id.to_string()));
  BUDCORE_TRY(differs("pipeline_id", text_or(12), j.pipeline_id ? j.pipeline_id->to_string() : std::string()));
  if (j.created_at && row.int64(13) != j.created_at->unix_nanos()) {
    return core::Error::make(core::ErrorCode::Io, "indexed column created_ns does not match the document's created_at",
                             at + ".created_ns");
  }
  return {};
}

}  // namespace

core::Result<std::int64_t> check_documents(SqlConnection& conn, std::vector<std::string>& problems, int schema_version) {
  std::int64_t count = 0;
  // Schema 3 added the summary columns (name, priority, gpu_type, gpu_count).
  std::string columns = schema_version >= 3 ? "gpu_count, name, priority, gpu_type" : "0, NULL, NULL, NULL";
  BUDCORE_TRY(collect_rows(conn,
                           "SELECT tenant_id, id, doc, status, " + columns +
                               ", job_type, source, project_id, cluster_id, pipeline_id, created_ns FROM jobs",
                           problems, count, [schema_version](const SqlRow& row) -> core::Status {
                             std::string at = "jobs[" + std::string(row.text(1)) + "]";
                             auto job = job::Job::from_json(row.text(2));
                             if (!job) {
                               return core::Error::make(core::ErrorCode::Io,
                                                        "stored job document does not load: " + job.error().describe(),
                                                        at + ".doc");
                             }
                             return check_job_columns(row, *job, at, schema_version >= 3);
                           }));
  BUDCORE_TRY(collect_rows(conn, "SELECT id, definition, state FROM pipelines", problems, count,
                           [](const SqlRow& row) -> core::Status {
                             std::string at = "pipelines[" + std::string(row.text(0)) + "]";
                             BUDCORE_TRY(check_json(row, 1, at + ".definition"));
                             return check_json(row, 2, at + ".state");
                           }));
  BUDCORE_TRY(collect_rows(conn, "SELECT pipeline_id, step_id, state FROM pipeline_steps", problems, count,
                           [](const SqlRow& row) -> core::Status {
                             return check_json(row, 2, "pipeline_steps[" + std::string(row.text(0)) + "/" +
                                                           std::string(row.text(1)) + "].state");
                           }));
  if (schema_version >= 12) {
    BUDCORE_TRY(collect_rows(conn, "SELECT name, version, doc, kind FROM catalog_items", problems, count,
                             [&](const SqlRow& row) -> core::Status {
                               return check_json(row, 2, "catalog_items[" + std::string(row.text(3)) + ":" +
                                                             std::string(row.text(0)) + "@" +
                                                             std::string(row.text(1)) + "].doc");
                             }));
  }
  for (std::string_view table : {"usecase_templates", "components"}) {
    if (schema_version >= 12) break;
    BUDCORE_TRY(collect_rows(conn, "SELECT name, version, doc FROM " + std::string(table), problems, count,
                             [&](const SqlRow& row) -> core::Status {
                               return check_json(row, 2, std::string(table) + "[" + std::string(row.text(0)) +
                                                             "@" + std::string(row.text(1)) + "].doc");
                             }));
  }
  BUDCORE_TRY(collect_rows(conn, "SELECT name, doc FROM quota_configs", problems, count,
                           [](const SqlRow& row) -> core::Status {
                             return check_json(row, 1, "quota_configs[" + std::string(row.text(0)) + "].doc");
                           }));
  BUDCORE_TRY(collect_rows(conn, "SELECT seq, doc FROM usage_records", problems, count,
                           [](const SqlRow& row) -> core::Status {
                             return check_json(row, 1, "usage_records[" + std::to_string(row.int64(0)) + "].doc");
                           }));
  BUDCORE_TRY(collect_rows(conn, "SELECT seq, detail FROM audit_log", problems, count,
                           [](const SqlRow& row) -> core::Status {
                             return check_json(row, 1, "audit_log[" + std::to_string(row.int64(0)) + "].detail");
                           }));
  BUDCORE_TRY(collect_rows(conn, "SELECT seq, doc FROM platform_events", problems, count,
                           [](const SqlRow& row) -> core::Status {
                             return check_json(row, 1, "platform_events[" + std::to_string(row.int64(0)) + "].doc");
                           }));
  BUDCORE_TRY(collect_rows(conn, "SELECT kind, record_key, doc FROM platform_records", problems, count,
                           [](const SqlRow& row) -> core::Status {
                             return check_json(row, 2, "platform_records[" + std::string(row.text(0)) + "/" +
                                                           std::string(row.text(1)) + "].doc");
                           }));
  return count;
}

core::Error idempotency_key_taken(std::string_view key) {
  return core::Error::make(core::ErrorCode::Conflict,
                           "another request created a job under idempotency key '" + std::string(key) +
                               "' during this one; try again to have that job returned",
                           "idempotency_key");
}

core::Status check_later(const core::Result<std::int64_t>& rows, const LaterCheck& check) {
  if (!rows) {
    if (rows.error().code == core::ErrorCode::AlreadyExists && !check.what.empty())
      return core::Error::make(core::ErrorCode::AlreadyExists, check.what + " already exists", "id");
    return rows.error();
  }
  if (check.expect_rows >= 0 && *rows != check.expect_rows) {
    if (check.miscount) return *check.miscount;
    return core::Error::make(core::ErrorCode::Conflict, check.what + " was changed by another writer", "version");
  }
  return {};
}

core::Result<std::int64_t> SeqPool::next(SqlConnection& db) {
  if (next_ == end_) {
    const std::string sql = "SELECT nextval(pg_get_serial_sequence('" + std::string(table_) + "', 'seq'))";
    bool got = false;
    BUDCORE_TRY(db.query(sql, {}, [&](const SqlRow& row) -> core::Status {
      next_ = row.int64(0);
      got = true;
      return {};
    }));
    if (!got) return core::Error::make(core::ErrorCode::Io, "the store returned no sequence number for " + std::string(table_));
    end_ = next_ + kSeqBlock;
  }
  return next_++;
}

}  // namespace budcore::backends
