// SqlStore: jobs (create with idempotency keys, read, list and page, update, transition).
#include "backends/sql_store_impl.hpp"

namespace budcore::backends::sql {

Result<CreateJobResult> SqlStore::create_job(const core::Id& tenant, job::Job job, std::string_view key,
                                             std::string_view request_digest) {
  return insert_job(tenant, std::move(job), key, request_digest, false);
}

Result<CreateJobResult> SqlStore::create_job_with_new_key(const core::Id& tenant, job::Job job, std::string_view key,
                                                          std::string_view request_digest) {
  return insert_job(tenant, std::move(job), key, request_digest, !key.empty());
}

Result<CreateJobResult> SqlStore::insert_job(const core::Id& tenant, job::Job job, std::string_view key,
                                             std::string_view request_digest, bool key_seen_absent) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(claim_for_tenant(job.tenant_id, tenant));
  if (!key.empty()) BUDCORE_TRY(check_key("idempotency_key", key));
  const core::Timestamp now = s_->clock->now();
  if (job.id.is_nil()) job.id = core::Id::generate(*s_->clock);
  if (!job.created_at) job.created_at = now;
  if (!job.updated_at) job.updated_at = *job.created_at;
  BUDCORE_TRY(job.validate());
  return write([&]() -> Result<CreateJobResult> {
    if (!key.empty() && !key_seen_absent) {
      BUDCORE_TRY_ASSIGN(auto existing, replay_job_by_key(tenant, key, request_digest));
      if (existing) return CreateJobResult{std::move(*existing), false};
    }
    BUDCORE_TRY_ASSIGN(std::string doc, job_document(job));
    std::string tid = tenant.to_string(), id = job.id.to_string(), project = job.project_id.to_string(),
                cluster = job.cluster_id.to_string();
    std::string pipeline = job.pipeline_id ? job.pipeline_id->to_string() : std::string();
    std::int64_t created = job.created_at->unix_nanos(), updated = job.updated_at->unix_nanos();
    SqlParam p[] = {tid,
                    id,
                    project,
                    cluster,
                    job.pipeline_id ? SqlParam(std::string_view(pipeline)) : SqlParam(nullptr),
                    job::to_string(job.status),
                    job::to_string(job.job_type),
                    job::to_string(job.source),
                    created,
                    updated,
                    key.empty() ? SqlParam(nullptr) : SqlParam(key),
                    doc,
                    job.name,
                    job::to_string(job.priority),
                    job.gpu_type ? SqlParam(std::string_view(*job.gpu_type)) : SqlParam(nullptr),
                    job.gpu_count,
                    key.empty() || request_digest.empty() ? SqlParam(nullptr) : SqlParam(request_digest)};
    const std::string_view insert =
        "INSERT INTO jobs (tenant_id, id, project_id, cluster_id, pipeline_id, status, job_type, source, "
        "created_ns, updated_ns, version, idempotency_key, doc, name, priority, gpu_type, gpu_count, request_digest) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING";
    if (key.empty() && defers()) {
      deferred_.inserts.push_back(DeferredJobWrite{
          tid, id, project, cluster, job.pipeline_id ? std::optional<std::string>(pipeline) : std::nullopt,
          job.gpu_type, std::string(job::to_string(job.status)), std::string(job::to_string(job.job_type)),
          std::string(job::to_string(job.source)), std::move(doc), job.name, std::string(job::to_string(job.priority)), updated,
          job.gpu_count, /*expected_version=*/0, /*writes=*/1, created});
      return CreateJobResult{JobRecord{std::move(job), 1, std::string()}, true};
    }
    if (key.empty()) {
      // Nothing to find on a clash: the answer can wait (an existing id fails the transaction;
      // with no key, ON CONFLICT never skips the row, so there is no count to check).
      BUDCORE_TRY(db_keeping_records().execute_later(insert, p, LaterCheck{-1, "job " + id}));
      return CreateJobResult{JobRecord{std::move(job), 1, std::string()}, true};
    }
    // A key the caller has just read as absent that another writer committed first: a Conflict
    // for the caller to read again and answer as a replay, with its own checks (whether this
    // caller may see that job) before anything of the job is told.
    if (key_seen_absent && defers()) {
      // The answer can wait too: a skipped row fails the count, and the transaction.
      BUDCORE_TRY(db_keeping_records().execute_later(insert, p, LaterCheck{1, "job " + id, idempotency_key_taken(key)}));
      return CreateJobResult{JobRecord{std::move(job), 1, std::string(key)}, true};
    }
    auto rows = db().execute(insert, p);
    if (!rows) return already_exists(rows.error(), "job " + id + " already exists", "id");
    if (*rows == 0 && key_seen_absent) return idempotency_key_taken(key);
    if (*rows == 0) {
      // Another writer committed the same key between our lookup and insert.
      BUDCORE_TRY_ASSIGN(auto existing, replay_job_by_key(tenant, key, request_digest));
      if (existing) return CreateJobResult{std::move(*existing), false};
      return Error::make(ErrorCode::Internal, "idempotent insert neither inserted nor found a job");
    }
    return CreateJobResult{JobRecord{std::move(job), 1, std::string(key)}, true};
  });
}

Result<std::optional<JobRecord>> SqlStore::replay_job_by_key(const core::Id& tenant, std::string_view key,
                                                              std::string_view request_digest) {
  BUDCORE_TRY_ASSIGN(auto existing, find_job_by_key(tenant, key));
  if (!existing) return existing;
  BUDCORE_TRY(backend::check_request_digest(*existing, request_digest));
  return existing;
}

Result<JobRecord> SqlStore::get_job(const core::Id& tenant, const core::Id& id) {
  return read([&]() -> Result<JobRecord> {
    BUDCORE_TRY_ASSIGN(StoredJob j, load_job(tenant, id));
    return std::move(j.record);
  });
}

Result<std::vector<std::optional<JobRecord>>> SqlStore::get_jobs(std::span<const backend::JobKey> keys) {
  if (dialect() != Dialect::Postgres) return Store::get_jobs(keys);  // in-process: nothing to save
  std::vector<std::optional<JobRecord>> out(keys.size());
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> at;
  for (std::size_t i = 0; i < keys.size(); ++i) at[{keys[i].tenant.to_string(), keys[i].id.to_string()}].push_back(i);
  auto from = at.begin();
  return read([&]() -> Result<std::vector<std::optional<JobRecord>>> {
    while (from != at.end()) {
      std::vector<std::string> tenants, ids;
      for (; from != at.end() && ids.size() < kReadBatch; ++from) {
        tenants.push_back(from->first.first);
        ids.push_back(from->first.second);
      }
      const std::string t = pg_text_array(tenants), i = pg_text_array(ids);
      SqlParam p[] = {t, i};
      BUDCORE_TRY(db().query("SELECT j.doc, j.version, j.idempotency_key, j.id, j.created_ns, j.tenant_id "
                             "FROM unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[])) AS k(t, i) "
                             "JOIN jobs j ON j.tenant_id = k.t COLLATE \"C\" AND j.id = k.i COLLATE \"C\"",
                             p, [&](const SqlRow& row) -> Status {
                               auto slots = at.find({std::string(row.text(5)), std::string(row.text(3))});
                               if (slots == at.end()) return {};
                               BUDCORE_TRY_ASSIGN(StoredJob j, job_from_row(row));
                               for (std::size_t slot : slots->second) out[slot] = j.record;
                               return {};
                             }));
    }
    return std::move(out);
  });
}

Result<std::optional<JobRecord>> SqlStore::get_job_by_key(const core::Id& tenant, std::string_view key) {
  BUDCORE_TRY(check_key("idempotency_key", key));
  return read([&] { return find_job_by_key(tenant, key); });
}

Result<std::vector<std::optional<JobRecord>>> SqlStore::get_jobs_by_keys(const core::Id& tenant,
                                                                        std::span<const std::string> keys) {
  if (dialect() != Dialect::Postgres) return Store::get_jobs_by_keys(tenant, keys);  // in-process
  for (const std::string& k : keys) BUDCORE_TRY(check_key("idempotency_key", k));
  std::vector<std::optional<JobRecord>> out(keys.size());
  std::map<std::string_view, std::vector<std::size_t>> at;
  for (std::size_t i = 0; i < keys.size(); ++i) at[keys[i]].push_back(i);
  const std::string tid = tenant.to_string();
  auto from = at.begin();
  return read([&]() -> Result<std::vector<std::optional<JobRecord>>> {
    while (from != at.end()) {
      std::vector<std::string> batch;
      for (; from != at.end() && batch.size() < kReadBatch; ++from) batch.emplace_back(from->first);
      const std::string k = pg_text_array(batch);
      SqlParam p[] = {k, tid};
      // The keys in the column's collation ("C"), and the key index's own condition spelled out
      // (it holds keyed jobs only), or the key index is not used.
      BUDCORE_TRY(db().query("SELECT j.doc, j.version, j.idempotency_key, j.id, j.created_ns, j.request_digest "
                             "FROM unnest(CAST(? AS TEXT[])) AS k(key) "
                             "JOIN jobs j ON j.tenant_id = ? AND j.idempotency_key = k.key COLLATE \"C\" "
                             "AND j.idempotency_key IS NOT NULL",
                             p, [&](const SqlRow& row) -> Status {
                               auto slots = at.find(row.text(2));
                               if (slots == at.end()) return {};
                               BUDCORE_TRY_ASSIGN(JobRecord rec, keyed_job_from_row(row));
                               for (std::size_t slot : slots->second) out[slot] = rec;
                               return {};
                             }));
    }
    return std::move(out);
  });
}

Result<Page<JobRecord>> SqlStore::list_jobs(const core::Id& tenant, const JobFilter& f, const PageRequest& page) {
  Query q;
  BUDCORE_TRY(job_list_query(q, kJobColumns, tenant, f, page));
  const std::size_t limit = page_limit(page);
  return read([&]() -> Result<Page<JobRecord>> {
    Page<JobRecord> out;
    std::string last;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      if (out.items.size() == limit) {
        out.next_cursor = last;
        return {};
      }
      BUDCORE_TRY_ASSIGN(StoredJob j, job_from_row(row));
      last = std::to_string(j.created_ns) + "_" + std::string(row.text(3));
      out.items.push_back(std::move(j.record));
      return {};
    }));
    return out;
  });
}

Result<Page<backend::JobSummary>> SqlStore::list_job_summaries(const core::Id& tenant, const JobFilter& f,
                                                     const PageRequest& page) {
  Query q;
  BUDCORE_TRY(job_list_query(q, kSummaryColumns, tenant, f, page));
  const std::size_t limit = page_limit(page);
  return read([&]() -> Result<Page<backend::JobSummary>> {
    Page<backend::JobSummary> out;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      if (out.items.size() == limit) {
        const auto& l = out.items.back();
        out.next_cursor = std::to_string(l.created_at.unix_nanos()) + "_" + l.id.to_string();
        return {};
      }
      BUDCORE_TRY_ASSIGN(auto summary, summary_from_row(row));
      out.items.push_back(std::move(summary));
      return {};
    }));
    return out;
  });
}

Result<JobRecord> SqlStore::update_job(const core::Id& tenant, job::Job job, std::int64_t expected_version) {
  BUDCORE_TRY(claim_for_tenant(job.tenant_id, tenant));
  if (job.id.is_nil()) return Error::invalid("id", "", "an update needs the job's id");
  return write([&]() -> Result<JobRecord> {
    BUDCORE_TRY_ASSIGN(StoredJob stored, load_job(tenant, job.id));
    BUDCORE_TRY(check_version("job " + job.id.to_string(), stored.record.version, expected_version));
    job.created_at = ts(stored.created_ns);  // creation time is immutable
    job.updated_at = s_->clock->now();
    BUDCORE_TRY(job.validate());
    return save_job(tenant, std::move(job), expected_version, std::move(stored.record.idempotency_key));
  });
}

Result<JobRecord> SqlStore::transition_job(const core::Id& tenant, const core::Id& id, std::int64_t expected_version,
                                 job::JobStatus to, std::string_view message) {
  return write([&]() -> Result<JobRecord> {
    BUDCORE_TRY_ASSIGN(StoredJob stored, load_job(tenant, id));
    BUDCORE_TRY(check_version("job " + id.to_string(), stored.record.version, expected_version));
    BUDCORE_TRY(job::transition(stored.record.job, to, *s_->clock, message));
    return save_job(tenant, std::move(stored.record.job), expected_version,
                    std::move(stored.record.idempotency_key));
  });
}

}  // namespace budcore::backends::sql
