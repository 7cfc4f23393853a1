// SqlStore (sql_store_impl.hpp): transactions, the connection, the helpers the aggregates share,
// and make_sql_store.
#include "backends/sql_store_impl.hpp"

namespace budcore::backends::sql {

std::string_view SqlStore::backend_name() const noexcept { return s_->name; }

Result<int> SqlStore::schema_version() {
  return read([&] { return read_schema_version(db()); });
}

Status SqlStore::transact(const std::function<Status(Store&)>& fn) {
  if (in_tx_) return Error::make(ErrorCode::Unsupported, "transact() calls do not nest");
  return write([&]() -> Status {
    SqlStore tx(s_, true);
    BUDCORE_TRY(fn(tx));
    return tx.write_tenant_heads();
  });
}

Status SqlStore::write_tenant_heads() {
  flush_deferred();
  if (deferred_error_) return *deferred_error_;
  for (const auto& [tenant, head] : chain_heads_) BUDCORE_TRY(write_chain_head(db(), tenant, head));
  for (const auto& [tenant, n] : event_counters_)
    BUDCORE_TRY(write_tenant_value(db(), TenantTable::Counters, tenant, "events", n));
  // Last, in tenant order: every transaction takes counter rows at its end and in one order.
  for (const auto& [tenant, events] : pending_events_) BUDCORE_TRY(write_tenant_events(tenant, events));
  chain_heads_.clear();
  event_counters_.clear();
  pending_events_.clear();
  return {};
}

// Every statement goes through here, so the deferred writes are sent before any statement that
// could read or change their rows.
SqlConnection& SqlStore::db() {
  if (!flushing_ && !deferred_.empty()) flush_deferred();
  return *s_->conn;
}

SqlConnection& SqlStore::db_keeping_records() {
  if (!flushing_ && !deferred_.jobs_empty()) flush_deferred(/*records=*/false);
  return *s_->conn;
}

void SqlStore::flush_deferred(bool records) {
  if (deferred_.empty()) return;
  flushing_ = true;
  Status st = send_deferred_inserts();
  if (st) st = send_deferred_jobs();
  if (st && records) st = send_deferred_records();
  flushing_ = false;
  deferred_.inserts.clear();
  deferred_.jobs.clear();
  deferred_.job_rows.clear();
  if (records) deferred_.records.clear();
  if (!st && !deferred_error_) deferred_error_ = st.error();
}

namespace {

// A number column of the deferred job rows, as a PostgreSQL array for `unnest`.
std::string numbers(const std::vector<DeferredJobWrite>& rows, std::int64_t DeferredJobWrite::*field) {
  return pg_array_of(rows, [field](const DeferredJobWrite& w) { return std::to_string(w.*field); });
}

// "job X" for one row, "one of N <kind>" for more: what a failed batch statement names.
std::string rows_named(const std::vector<DeferredJobWrite>& rows, const std::string& kind) {
  if (rows.size() == 1) return "job " + rows.front().id;
  return "one of " + std::to_string(rows.size()) + " " + kind + " (" + rows.front().id + " to " + rows.back().id + ")";
}

}  // namespace

// One multi-row INSERT for the transaction's new jobs (a statement per row costs PostgreSQL more
// than the row). A clash with an existing id fails the statement, and with it the transaction.
Status SqlStore::send_deferred_inserts() {
  const std::vector<DeferredJobWrite>& rows = deferred_.inserts;
  if (rows.empty()) return {};
  const std::string a[] = {pg_array_of(rows, &DeferredJobWrite::tenant),
                           pg_array_of(rows, &DeferredJobWrite::id),
                           pg_array_of(rows, &DeferredJobWrite::project),
                           pg_array_of(rows, &DeferredJobWrite::cluster),
                           pg_array_of(rows, &DeferredJobWrite::pipeline),
                           pg_array_of(rows, &DeferredJobWrite::status),
                           pg_array_of(rows, &DeferredJobWrite::type),
                           pg_array_of(rows, &DeferredJobWrite::source),
                           numbers(rows, &DeferredJobWrite::created_ns),
                           numbers(rows, &DeferredJobWrite::updated_ns),
                           pg_array_of(rows, &DeferredJobWrite::doc),
                           pg_array_of(rows, &DeferredJobWrite::name),
                           pg_array_of(rows, &DeferredJobWrite::priority),
                           pg_array_of(rows, &DeferredJobWrite::gpu_type),
                           numbers(rows, &DeferredJobWrite::gpu_count)};
  std::vector<SqlParam> p(std::begin(a), std::end(a));
  return s_->conn->execute_later(
      "INSERT INTO jobs (tenant_id, id, project_id, cluster_id, pipeline_id, status, job_type, source, created_ns, "
      "updated_ns, version, doc, name, priority, gpu_type, gpu_count) "
      "SELECT u.tenant_id, u.id, u.project_id, u.cluster_id, u.pipeline_id, u.status, u.job_type, u.source, "
      "u.created_ns, u.updated_ns, 1, u.doc, u.name, u.priority, u.gpu_type, u.gpu_count "
      "FROM unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), "
      "CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), "
      "CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[])) "
      "AS u(tenant_id, id, project_id, cluster_id, pipeline_id, status, job_type, source, created_ns, updated_ns, doc, "
      "name, priority, gpu_type, gpu_count)",
      p, LaterCheck{static_cast<std::int64_t>(rows.size()), rows_named(rows, "new jobs")});
}

Status SqlStore::send_deferred_jobs() {
  const std::vector<DeferredJobWrite>& rows = deferred_.jobs;
  if (rows.empty()) return {};
  const std::string a[] = {pg_array_of(rows, &DeferredJobWrite::project),
                           pg_array_of(rows, &DeferredJobWrite::cluster),
                           pg_array_of(rows, &DeferredJobWrite::pipeline),
                           pg_array_of(rows, &DeferredJobWrite::status),
                           pg_array_of(rows, &DeferredJobWrite::type),
                           pg_array_of(rows, &DeferredJobWrite::source),
                           numbers(rows, &DeferredJobWrite::updated_ns),
                           pg_array_of(rows, &DeferredJobWrite::doc),
                           pg_array_of(rows, &DeferredJobWrite::name),
                           pg_array_of(rows, &DeferredJobWrite::priority),
                           pg_array_of(rows, &DeferredJobWrite::gpu_type),
                           numbers(rows, &DeferredJobWrite::gpu_count),
                           pg_array_of(rows, &DeferredJobWrite::tenant),
                           pg_array_of(rows, &DeferredJobWrite::id),
                           numbers(rows, &DeferredJobWrite::expected_version),
                           numbers(rows, &DeferredJobWrite::writes)};
  std::vector<SqlParam> p(std::begin(a), std::end(a));
  // Each row a compare-and-set: fewer rows changed than sent means another writer got there.
  return s_->conn->execute_later(
      "UPDATE jobs AS j SET project_id = u.project_id, cluster_id = u.cluster_id, pipeline_id = u.pipeline_id, "
      "status = u.status, job_type = u.job_type, source = u.source, updated_ns = u.updated_ns, doc = u.doc, "
      "name = u.name, priority = u.priority, gpu_type = u.gpu_type, gpu_count = u.gpu_count, version = j.version + u.writes "
      "FROM unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), "
      "CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), "
      "CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[])) "
      "AS u(project_id, cluster_id, pipeline_id, status, job_type, source, updated_ns, doc, name, priority, gpu_type, "
      "gpu_count, tenant_id, id, expected, writes) "
      "WHERE j.tenant_id = u.tenant_id COLLATE \"C\" AND j.id = u.id COLLATE \"C\" AND j.version = u.expected",
      p, LaterCheck{static_cast<std::int64_t>(rows.size()), rows_named(rows, "jobs")});
}

Status SqlStore::send_deferred_records() {
  std::vector<std::string> put_kind, put_key, put_doc, put_at, del_kind, del_key;
  for (const auto& [k, v] : deferred_.records) {
    if (v) {
      put_kind.push_back(k.first);
      put_key.push_back(k.second);
      put_doc.push_back(v->first);
      put_at.push_back(std::to_string(v->second));
    } else {
      del_kind.push_back(k.first);
      del_key.push_back(k.second);
    }
  }
  if (!put_kind.empty()) {
    const std::string a[] = {pg_text_array(put_kind), pg_text_array(put_key), pg_text_array(put_doc), pg_text_array(put_at)};
    std::vector<SqlParam> p(std::begin(a), std::end(a));
    BUDCORE_TRY(s_->conn->execute_later(
        "INSERT INTO platform_records (kind, record_key, doc, updated_ns) "
        "SELECT * FROM unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[])) "
        "ON CONFLICT (kind, record_key) DO UPDATE SET doc = excluded.doc, updated_ns = excluded.updated_ns",
        p, {}));
  }
  if (!del_kind.empty()) {
    const std::string a[] = {pg_text_array(del_kind), pg_text_array(del_key)};
    std::vector<SqlParam> p(std::begin(a), std::end(a));
    BUDCORE_TRY(s_->conn->execute_later(
        "DELETE FROM platform_records AS r USING unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[])) AS d(kind, record_key) "
        "WHERE r.kind = d.kind COLLATE \"C\" AND r.record_key = d.record_key COLLATE \"C\"",
        p, {}));
  }
  return {};
}

Result<backend::PlatformRecord> SqlStore::platform_record_from_row(const SqlRow& row) {
  backend::PlatformRecord r;
  r.kind = row.text(0);
  r.key = row.text(1);
  BUDCORE_TRY_ASSIGN(r.doc, load_json(row.text(2), "platform_records[" + r.kind + "/" + r.key + "].doc"));
  r.updated_at = ts(row.int64(3));
  return r;
}

Status SqlStore::check_tenant(const core::Id& tenant) {
  if (tenant.is_nil()) {
    return Error::invalid("tenant", tenant.to_string(), "the nil id is the system tenant, which owns no such rows");
  }
  return {};
}

Status SqlStore::claim_for_tenant(core::Id& owner, const core::Id& tenant) {
  if (owner.is_nil()) {
    owner = tenant;
    return {};
  }
  if (owner != tenant) {
    return Error::invalid("tenant_id", owner.to_string(), "belongs to another tenant than the caller's");
  }
  return {};
}

Status SqlStore::check_version(const std::string& what, std::int64_t stored, std::int64_t expected) {
  if (stored != expected) {
    return Error::make(ErrorCode::Conflict,
                       what + " is at version " + std::to_string(stored) + ", not " + std::to_string(expected) +
                           " (another writer changed it)",
                       "version");
  }
  return {};
}

Error SqlStore::lost_race(const std::string& what) {
  return Error::make(ErrorCode::Conflict, what + " was changed by another writer", "version");
}

Error SqlStore::already_exists(const Error& e, std::string message, std::string field) {
  if (e.code != ErrorCode::AlreadyExists) return e;
  return Error::make(ErrorCode::AlreadyExists, std::move(message), std::move(field));
}

// SELECT `columns` FROM jobs with the filter, the cursor and ORDER BY ... LIMIT page + 1.
Status SqlStore::job_list_query(Query& q, std::string_view columns, const core::Id& tenant, const JobFilter& f,
                             const PageRequest& page) {
  q.sql(columns).where("tenant_id = ?").bind(tenant.to_string());
  if (f.project_id) q.where("project_id = ?").bind(f.project_id->to_string());
  if (f.cluster_id) q.where("cluster_id = ?").bind(f.cluster_id->to_string());
  if (f.pipeline_id) q.where("pipeline_id = ?").bind(f.pipeline_id->to_string());
  if (!f.statuses.empty()) {
    std::string in = "status IN (";
    for (std::size_t i = 0; i < f.statuses.size(); ++i) in += i == 0 ? "?" : ", ?";
    q.where(in + ")");
    for (auto st : f.statuses) q.bind(std::string(job::to_string(st)));
  }
  if (f.job_type) q.where("job_type = ?").bind(std::string(job::to_string(*f.job_type)));
  if (f.source) q.where("source = ?").bind(std::string(job::to_string(*f.source)));
  if (f.created_from) q.where("created_ns >= ?").bind(f.created_from->unix_nanos());
  if (f.created_to) q.where("created_ns < ?").bind(f.created_to->unix_nanos());
  if (!page.after.empty()) {
    BUDCORE_TRY_ASSIGN(auto cur, parse_pair_cursor(page));
    q.where("(created_ns, id) < (?, ?)").bind(cur.first).bind(std::move(cur.second));
  }
  q.sql(" ORDER BY created_ns DESC, id DESC LIMIT ?").bind(static_cast<std::int64_t>(page_limit(page) + 1));
  return {};
}

// A summary from the columns of kSummaryColumns. A row written before schema version 3 has
// no name column yet: its summary comes from its document (the slow path, until it changes).
Result<backend::JobSummary> SqlStore::summary_from_row(const SqlRow& row) {
  const std::string at = "jobs[" + std::string(row.text(0)) + "]";
  if (row.is_null(1)) {
    auto job = job::Job::from_json(row.text(15));
    if (!job) {
      return Error::make(ErrorCode::Io, "stored job document does not load: " + job.error().describe(),
                         at + ".doc");
    }
    JobRecord rec{std::move(job).value(), row.int64(13), row.is_null(14) ? std::string() : std::string(row.text(14))};
    return backend::summarize(rec);
  }
  backend::JobSummary s;
  BUDCORE_TRY_ASSIGN(s.id, load_id(row.text(0), at + ".id"));
  s.name = row.text(1);
  BUDCORE_TRY_ASSIGN(s.status, column_enum(job::parse_job_status, row.text(2), at + ".status"));
  BUDCORE_TRY_ASSIGN(s.job_type, column_enum(job::parse_job_type, row.text(3), at + ".job_type"));
  BUDCORE_TRY_ASSIGN(s.source, column_enum(job::parse_job_source, row.text(4), at + ".source"));
  if (!row.is_null(5)) {
    BUDCORE_TRY_ASSIGN(s.priority, column_enum(job::parse_job_priority, row.text(5), at + ".priority"));
  }
  BUDCORE_TRY_ASSIGN(s.project_id, load_id(row.text(6), at + ".project_id"));
  BUDCORE_TRY_ASSIGN(s.cluster_id, load_id(row.text(7), at + ".cluster_id"));
  if (!row.is_null(8)) {
    BUDCORE_TRY_ASSIGN(s.pipeline_id, load_id(row.text(8), at + ".pipeline_id"));
  }
  if (!row.is_null(9)) s.gpu_type = std::string(row.text(9));
  if (!row.is_null(10)) s.gpu_count = row.int64(10);
  s.created_at = ts(row.int64(11));
  s.updated_at = ts(row.int64(12));
  s.version = row.int64(13);
  if (!row.is_null(14)) s.idempotency_key = row.text(14);
  return s;
}

Result<StoredJob> SqlStore::job_from_row(const SqlRow& row) {
  auto job = job::Job::from_json(row.text(0));
  if (!job) {
    return Error::make(ErrorCode::Io, "stored job document does not load: " + job.error().describe(),
                       "jobs[" + std::string(row.text(3)) + "].doc");
  }
  StoredJob out;
  out.record.job = std::move(job).value();
  out.record.version = row.int64(1);
  if (!row.is_null(2)) out.record.idempotency_key = row.text(2);
  out.created_ns = row.int64(4);
  return out;
}

Result<StoredJob> SqlStore::load_job(const core::Id& tenant, const core::Id& id) {
  std::string tid = tenant.to_string(), jid = id.to_string();
  SqlParam p[] = {tid, jid};
  std::optional<StoredJob> found;
  BUDCORE_TRY(db().query(std::string(kJobColumns) + " WHERE tenant_id = ? AND id = ?", p,
                         [&](const SqlRow& row) -> Status {
                           BUDCORE_TRY_ASSIGN(auto j, job_from_row(row));
                           found = std::move(j);
                           return {};
                         }));
  if (!found) return Error::make(ErrorCode::NotFound, "job " + jid + " not found", "id");
  return std::move(*found);
}

Result<std::optional<JobRecord>> SqlStore::find_job_by_key(const core::Id& tenant, std::string_view key) {
  std::string tid = tenant.to_string();
  SqlParam p[] = {tid, key};
  std::optional<JobRecord> found;
  BUDCORE_TRY(db().query("SELECT doc, version, idempotency_key, id, created_ns, request_digest FROM jobs "
                         "WHERE tenant_id = ? AND idempotency_key = ?",
                         p, [&](const SqlRow& row) -> Status {
                           BUDCORE_TRY_ASSIGN(found, keyed_job_from_row(row));
                           return {};
                         }));
  return found;
}

Result<JobRecord> SqlStore::keyed_job_from_row(const SqlRow& row) {
  BUDCORE_TRY_ASSIGN(StoredJob j, job_from_row(row));
  if (!row.is_null(5)) j.record.request_digest = row.text(5);
  return std::move(j.record);
}

// Writes a changed job as a compare-and-set on expected_version.
Result<JobRecord> SqlStore::save_job(const core::Id& tenant, job::Job job, std::int64_t expected_version, std::string key) {
  BUDCORE_TRY_ASSIGN(std::string doc, job_document(job));
  std::string tid = tenant.to_string(), id = job.id.to_string(), project = job.project_id.to_string(),
              cluster = job.cluster_id.to_string();
  std::string pipeline = job.pipeline_id ? job.pipeline_id->to_string() : std::string();
  std::int64_t updated = job.updated_at ? job.updated_at->unix_nanos() : s_->clock->now().unix_nanos();
  if (defers()) {
    DeferredJobWrite row{tid, id, std::move(project), std::move(cluster),
                         job.pipeline_id ? std::optional<std::string>(std::move(pipeline)) : std::nullopt, job.gpu_type,
                         std::string(job::to_string(job.status)), std::string(job::to_string(job.job_type)),
                         std::string(job::to_string(job.source)), std::move(doc), job.name,
                         std::string(job::to_string(job.priority)), updated, job.gpu_count, expected_version};
    if (auto at = deferred_.job_rows.find({tid, id}); at != deferred_.job_rows.end()) {
      DeferredJobWrite& earlier = deferred_.jobs[at->second];
      if (earlier.expected_version + earlier.writes == expected_version) {
        // The job written again on top of its write in this transaction (admitted, started and
        // ended in one commit batch): one row update carries both, as nobody sees in between.
        row.expected_version = earlier.expected_version;
        row.writes = earlier.writes + 1;
        earlier = std::move(row);
        return JobRecord{std::move(job), expected_version + 1, std::move(key)};
      }
      // Not on top of it: sent after it (one statement cannot update a row twice), where the
      // compare-and-set refuses it.
      flush_deferred();
    }
    deferred_.job_rows.emplace(std::make_pair(tid, id), deferred_.jobs.size());
    deferred_.jobs.push_back(std::move(row));
    return JobRecord{std::move(job), expected_version + 1, std::move(key)};
  }
  SqlParam p[] = {project,
                  cluster,
                  job.pipeline_id ? SqlParam(std::string_view(pipeline)) : SqlParam(nullptr),
                  job::to_string(job.status),
                  job::to_string(job.job_type),
                  job::to_string(job.source),
                  updated,
                  doc,
                  job.name,
                  job::to_string(job.priority),
                  job.gpu_type ? SqlParam(std::string_view(*job.gpu_type)) : SqlParam(nullptr),
                  job.gpu_count,
                  tid,
                  id,
                  expected_version};
  // A compare-and-set whose answer can wait: another writer's change fails the transaction.
  BUDCORE_TRY(db().execute_later("UPDATE jobs SET project_id = ?, cluster_id = ?, pipeline_id = ?, "
                                 "status = ?, job_type = ?, source = ?, updated_ns = ?, doc = ?, "
                                 "name = ?, priority = ?, gpu_type = ?, gpu_count = ?, "
                                 "version = version + 1 WHERE tenant_id = ? AND id = ? AND version = ?",
                                 p, LaterCheck{1, "job " + id}));
  return JobRecord{std::move(job), expected_version + 1, std::move(key)};
}

Result<PipelineRecord> SqlStore::pipeline_from_row(const SqlRow& row) {
  PipelineRecord p;
  BUDCORE_TRY_ASSIGN(p.id, load_id(row.text(0), "pipelines.id"));
  const std::string at = "pipelines[" + std::string(row.text(0)) + "]";
  p.name = row.text(1);
  BUDCORE_TRY_ASSIGN(p.definition, load_json(row.text(2), at + ".definition"));
  BUDCORE_TRY_ASSIGN(p.state, load_json(row.text(3), at + ".state"));
  p.version = row.int64(4);
  p.created_at = ts(row.int64(5));
  p.updated_at = ts(row.int64(6));
  return p;
}

Result<PipelineRecord> SqlStore::load_pipeline(const core::Id& tenant, const core::Id& id) {
  std::string tid = tenant.to_string(), pid = id.to_string();
  SqlParam p[] = {tid, pid};
  std::optional<PipelineRecord> found;
  BUDCORE_TRY(db().query(std::string(kPipelineColumns) + " WHERE tenant_id = ? AND id = ?", p,
                         [&](const SqlRow& row) -> Status {
                           BUDCORE_TRY_ASSIGN(auto r, pipeline_from_row(row));
                           found = std::move(r);
                           return {};
                         }));
  if (!found) return Error::make(ErrorCode::NotFound, "pipeline " + pid + " not found", "pipeline_id");
  return std::move(*found);
}

Result<StepRecord> SqlStore::step_from_row(const SqlRow& row) {
  StepRecord s;
  BUDCORE_TRY_ASSIGN(s.pipeline_id, load_id(row.text(0), "pipeline_steps.pipeline_id"));
  s.step_id = row.text(1);
  s.status = row.text(2);
  BUDCORE_TRY_ASSIGN(s.state, load_json(row.text(3), "pipeline_steps[" + std::string(row.text(0)) + "/" +
                                                         s.step_id + "].state"));
  s.version = row.int64(4);
  s.updated_at = ts(row.int64(5));
  return s;
}

Result<StepRecord> SqlStore::load_step(const core::Id& tenant, const core::Id& pipeline_id, std::string_view step_id) {
  std::string tid = tenant.to_string(), pid = pipeline_id.to_string();
  SqlParam p[] = {tid, pid, step_id};
  std::optional<StepRecord> found;
  BUDCORE_TRY(db().query(std::string(kStepColumns) + " WHERE tenant_id = ? AND pipeline_id = ? AND step_id = ?", p,
                         [&](const SqlRow& row) -> Status {
                           BUDCORE_TRY_ASSIGN(auto s, step_from_row(row));
                           found = std::move(s);
                           return {};
                         }));
  if (!found) {
    return Error::make(ErrorCode::NotFound, "step " + std::string(step_id) + " of pipeline " + pid + " not found",
                       "step_id");
  }
  return std::move(*found);
}

Result<CatalogItem> SqlStore::catalog_from_row(const SqlRow& row, CatalogKind kind) {
  CatalogItem item;
  item.kind = kind;
  item.scope = row.text(0) == "system" ? CatalogScope::System : CatalogScope::User;
  item.name = row.text(1);
  item.version = row.text(2);
  const std::string at =
      std::string(kCatalogTable) + "[" + std::string(backend::to_string(kind)) + ":" + item.name + "@" + item.version + "]";
  BUDCORE_TRY_ASSIGN(item.document, load_json(row.text(3), at + ".doc"));
  item.created_at = ts(row.int64(4));
  if (!row.is_null(5)) {
    BUDCORE_TRY_ASSIGN(item.id, load_id(row.text(5), at + ".id"));
  }
  item.category = row.text(6);
  BUDCORE_TRY_ASSIGN(Value tags, load_json(row.text(7), at + ".tags"));
  if (!tags.is_list()) return Error::make(ErrorCode::Io, "stored tags are not a list", at + ".tags");
  for (const auto& t : tags.as_list()) {
    if (t.is_string()) item.tags.push_back(t.as_string());
  }
  item.is_active = row.int64(8) != 0;
  item.is_default = row.int64(9) != 0;
  item.source = row.text(10);
  return item;
}

Result<QuotaConfigRecord> SqlStore::quota_from_row(const SqlRow& row) {
  QuotaConfigRecord q;
  q.name = row.text(0);
  BUDCORE_TRY_ASSIGN(q.document, load_json(row.text(1), "quota_configs[" + q.name + "].doc"));
  q.version = row.int64(2);
  q.updated_at = ts(row.int64(3));
  return q;
}

Result<QuotaConfigRecord> SqlStore::load_quota(const core::Id& tenant, std::string_view name) {
  std::string tid = tenant.to_string();
  SqlParam p[] = {tid, name};
  std::optional<QuotaConfigRecord> found;
  BUDCORE_TRY(db().query("SELECT name, doc, version, updated_ns FROM quota_configs WHERE tenant_id = ? AND name = ?",
                         p, [&](const SqlRow& row) -> Status {
                           BUDCORE_TRY_ASSIGN(auto q, quota_from_row(row));
                           found = std::move(q);
                           return {};
                         }));
  if (!found) {
    return Error::make(ErrorCode::NotFound, "quota configuration " + std::string(name) + " not found", "name");
  }
  return std::move(*found);
}

}  // namespace budcore::backends::sql

namespace budcore::backends {
std::unique_ptr<backend::Store> make_sql_store(std::unique_ptr<SqlConnection> conn, std::string backend_name,
                                               std::shared_ptr<core::Clock> clock) {
  auto shared = std::make_shared<sql::Shared>();
  shared->conn = std::move(conn);
  shared->name = std::move(backend_name);
  shared->clock = clock ? std::move(clock) : core::system_clock();
  return std::make_unique<sql::SqlStore>(std::move(shared), false);
}

}  // namespace budcore::backends
