// SqlStore: the one implementation of backend::Store, over any SqlConnection (SQLite or
// PostgreSQL). Every statement carries the tenant in its WHERE clause or its inserted row, so
// tenant scoping does not depend on callers; every write runs in a transaction.
#include <algorithm>
#include <charconv>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backends/sql_security.hpp"
#include "backends/store_common.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/utf8.hpp"
#include "budcore/job/state_machine.hpp"
#include "job/job_json.hpp"

namespace budcore::backends {
namespace {

using backend::AuditEntry;
using backend::AuditQuery;
using backend::CatalogItem;
using backend::CatalogKind;
using backend::CatalogScope;
using backend::CreateJobResult;
using backend::JobFilter;
using backend::JobRecord;
using backend::Page;
using backend::PageRequest;
using backend::PipelineRecord;
using backend::QuotaConfigRecord;
using backend::StepRecord;
using backend::UsageQuery;
using backend::UsageRecord;
using core::Error;
using core::ErrorCode;
using core::Result;
using core::Status;
using core::Value;

constexpr std::size_t kMaxKeyLength = 256;

std::string_view catalog_table(CatalogKind k) {
  return k == CatalogKind::UsecaseTemplate ? "usecase_templates" : "components";
}

std::string_view catalog_noun(CatalogKind k) {
  return k == CatalogKind::UsecaseTemplate ? "use-case template" : "component";
}

core::Timestamp ts(std::int64_t ns) { return core::Timestamp::from_unix_nanos(ns); }

// A stored document that does not load is damage to the database, not bad caller input.
Result<core::Value> load_json(std::string_view text, std::string field) {
  auto v = core::parse_json(text);
  if (!v) return Error::make(ErrorCode::Io, "stored document is not valid JSON: " + v.error().message, std::move(field));
  return std::move(v).value();
}

// The stored job document: Job::to_value without its null members (every one is optional on
// input), which halves the text and the time to load it back in lists. Refused past
// job::kMaxDocumentBytes however the job was built (a C++ or Python caller need not go
// through Job::from_json).
Result<std::string> job_document(const job::Job& job) {
  std::string doc = job::detail::compact_json(job);
  if (doc.size() > job::kMaxDocumentBytes) {
    return Error::invalid("job", {}, "the job document is " + std::to_string(doc.size()) + " bytes, over the limit of " +
                                         std::to_string(job::kMaxDocumentBytes) + " bytes");
  }
  return doc;
}

Result<core::Id> load_id(std::string_view text, std::string field) {
  auto id = core::Id::parse(text);
  if (!id) return Error::make(ErrorCode::Io, "stored id is not a UUID: '" + std::string(text) + "'", std::move(field));
  return *id;
}

Status check_key(std::string_view field, std::string_view value) {
  if (value.empty()) return Error::invalid(std::string(field), "", "must not be empty");
  if (value.size() > kMaxKeyLength) {
    return Error::invalid(std::string(field), std::string(value.substr(0, 32)) + "...",
                          "is longer than " + std::to_string(kMaxKeyLength) + " bytes");
  }
  // Keys come back to every surface as text: bytes that are not UTF-8 would break the Python
  // list of the whole tenant, and a NUL would be cut by C callers.
  if (auto bad = core::find_invalid_utf8(value)) {
    return Error::invalid(std::string(field), {}, "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  }
  if (value.find('\0') != std::string_view::npos) return Error::invalid(std::string(field), {}, "contains a NUL byte");
  return {};
}

std::size_t page_limit(const PageRequest& p) { return std::clamp<std::size_t>(p.limit, 1, PageRequest::kMaxPageSize); }

Error bad_cursor(const PageRequest& p) {
  return Error::invalid("page.after", core::truncate_text(p.after), "is not a cursor this list returned");
}

// Cursors are accepted only in the exact form the lists write them ("007" or "+7" for 7, an
// upper-case id, trailing junk are forged), as docs/store.md promises.
Result<std::int64_t> parse_int(std::string_view s, const PageRequest& p) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || std::to_string(v) != s) return bad_cursor(p);
  return v;
}

enum class CursorKey { Id, Seq };

// Cursor "<ns>_<key>" for lists ordered by (time, key); key is an id or a sequence number.
Result<std::pair<std::int64_t, std::string>> parse_pair_cursor(const PageRequest& p, CursorKey kind = CursorKey::Id) {
  auto sep = p.after.find('_');
  if (sep == std::string::npos || sep + 1 == p.after.size()) return bad_cursor(p);
  BUDCORE_TRY_ASSIGN(std::int64_t ns, parse_int(std::string_view(p.after).substr(0, sep), p));
  std::string key = p.after.substr(sep + 1);
  if (kind == CursorKey::Id) {
    auto id = core::Id::parse(key);
    if (!id || id->to_string() != key) return bad_cursor(p);
  } else {
    BUDCORE_TRY(parse_int(key, p));
  }
  return std::pair{ns, std::move(key)};
}

// Accumulates a WHERE clause and its parameters; the strings the parameters point at live in
// a deque, whose elements never move, so the parameters' views stay valid.
class Query {
 public:
  Query& where(std::string_view cond) {
    sql_ += clauses_++ == 0 ? " WHERE " : " AND ";
    sql_ += cond;
    return *this;
  }
  Query& sql(std::string_view s) {
    sql_ += s;
    return *this;
  }
  Query& bind(std::int64_t v) {
    params_.emplace_back(v);
    return *this;
  }
  Query& bind(std::string s) {
    strings_.push_back(std::move(s));
    params_.emplace_back(std::string_view(strings_.back()));
    return *this;
  }
  const std::string& text() const { return sql_; }
  std::span<const SqlParam> params() const { return params_; }

 private:
  std::string sql_;
  int clauses_ = 0;
  std::deque<std::string> strings_;
  std::vector<SqlParam> params_;
};

struct Shared {
  std::mutex mu;
  std::unique_ptr<SqlConnection> conn;
  std::string name;
  std::shared_ptr<core::Clock> clock;
};

// The row of a job as loaded for an update.
struct StoredJob {
  JobRecord record;
  std::int64_t created_ns = 0;
};

constexpr std::string_view kJobColumns = "SELECT doc, version, idempotency_key, id, created_ns FROM jobs";
// Column 15 (the document) is read only for rows written before schema version 3.
constexpr std::string_view kSummaryColumns =
    "SELECT id, name, status, job_type, source, priority, project_id, cluster_id, pipeline_id, gpu_type, "
    "gpu_count, created_ns, updated_ns, version, idempotency_key, CASE WHEN name IS NULL THEN doc END FROM jobs";
constexpr std::string_view kPipelineColumns =
    "SELECT id, name, definition, state, version, created_ns, updated_ns FROM pipelines";
// Followed by the table name.
constexpr std::string_view kCatalogColumns =
    "SELECT scope, name, version, doc, created_ns, id, category, tags, is_active, is_default, source FROM ";
constexpr std::string_view kStepColumns =
    "SELECT pipeline_id, step_id, status, state, version, updated_ns FROM pipeline_steps";

class SqlStore final : public backend::Store {
 public:
  SqlStore(std::shared_ptr<Shared> shared, bool in_tx) : s_(std::move(shared)), in_tx_(in_tx) {}

  std::string_view backend_name() const noexcept override { return s_->name; }

  Result<int> schema_version() override {
    return read([&] { return read_schema_version(db()); });
  }

  Status transact(const std::function<Status(Store&)>& fn) override {
    if (in_tx_) return Error::make(ErrorCode::Unsupported, "transact() calls do not nest");
    return write([&]() -> Status {
      SqlStore tx(s_, true);
      BUDCORE_TRY(fn(tx));
      if (tx.chain_head_) return write_chain_head(db(), *tx.chain_head_);
      return {};
    });
  }

  // ---- jobs ----

  Result<CreateJobResult> create_job(const core::Id& tenant, job::Job job, std::string_view key) override {
    BUDCORE_TRY(check_tenant(tenant));
    BUDCORE_TRY(claim_for_tenant(job.tenant_id, tenant));
    if (!key.empty()) BUDCORE_TRY(check_key("idempotency_key", key));
    const core::Timestamp now = s_->clock->now();
    if (job.id.is_nil()) job.id = core::Id::generate(*s_->clock);
    if (!job.created_at) job.created_at = now;
    if (!job.updated_at) job.updated_at = *job.created_at;
    BUDCORE_TRY(job.validate());
    return write([&]() -> Result<CreateJobResult> {
      if (!key.empty()) {
        BUDCORE_TRY_ASSIGN(auto existing, find_job_by_key(tenant, key));
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
                      job.gpu_count};
      auto rows = db().execute(
          "INSERT INTO jobs (tenant_id, id, project_id, cluster_id, pipeline_id, status, job_type, source, "
          "created_ns, updated_ns, version, idempotency_key, doc, name, priority, gpu_type, gpu_count) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?) "
          "ON CONFLICT (tenant_id, idempotency_key) DO NOTHING",
          p);
      if (!rows) return already_exists(rows.error(), "job " + id + " already exists", "id");
      if (*rows == 0) {
        // Another writer committed the same key between our lookup and insert.
        BUDCORE_TRY_ASSIGN(auto existing, find_job_by_key(tenant, key));
        if (existing) return CreateJobResult{std::move(*existing), false};
        return Error::make(ErrorCode::Internal, "idempotent insert neither inserted nor found a job");
      }
      return CreateJobResult{JobRecord{std::move(job), 1, std::string(key)}, true};
    });
  }

  Result<JobRecord> get_job(const core::Id& tenant, const core::Id& id) override {
    return read([&]() -> Result<JobRecord> {
      BUDCORE_TRY_ASSIGN(StoredJob j, load_job(tenant, id));
      return std::move(j.record);
    });
  }

  Result<std::optional<JobRecord>> get_job_by_key(const core::Id& tenant, std::string_view key) override {
    BUDCORE_TRY(check_key("idempotency_key", key));
    return read([&] { return find_job_by_key(tenant, key); });
  }

  Result<Page<JobRecord>> list_jobs(const core::Id& tenant, const JobFilter& f, const PageRequest& page) override {
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

  Result<Page<backend::JobSummary>> list_job_summaries(const core::Id& tenant, const JobFilter& f,
                                                       const PageRequest& page) override {
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

  Result<JobRecord> update_job(const core::Id& tenant, job::Job job, std::int64_t expected_version) override {
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

  Result<JobRecord> transition_job(const core::Id& tenant, const core::Id& id, std::int64_t expected_version,
                                   job::JobStatus to, std::string_view message) override {
    return write([&]() -> Result<JobRecord> {
      BUDCORE_TRY_ASSIGN(StoredJob stored, load_job(tenant, id));
      BUDCORE_TRY(check_version("job " + id.to_string(), stored.record.version, expected_version));
      BUDCORE_TRY(job::transition(stored.record.job, to, *s_->clock, message));
      return save_job(tenant, std::move(stored.record.job), expected_version,
                      std::move(stored.record.idempotency_key));
    });
  }

  // ---- pipelines and steps ----

  Result<PipelineRecord> create_pipeline(const core::Id& tenant, PipelineRecord p) override {
    BUDCORE_TRY(check_tenant(tenant));
    BUDCORE_TRY(check_key("name", p.name));
    if (p.id.is_nil()) p.id = core::Id::generate(*s_->clock);
    p.created_at = p.updated_at = s_->clock->now();
    p.version = 1;
    return write([&]() -> Result<PipelineRecord> {
      std::string tid = tenant.to_string(), id = p.id.to_string(), def = core::to_json(p.definition),
                  state = core::to_json(p.state);
      std::int64_t now = p.created_at.unix_nanos();
      SqlParam params[] = {tid, id, std::string_view(p.name), def, state, now, now};
      auto rows = db().execute(
          "INSERT INTO pipelines (tenant_id, id, name, definition, state, version, created_ns, updated_ns) "
          "VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
          params);
      if (!rows) return already_exists(rows.error(), "pipeline " + id + " already exists", "id");
      return std::move(p);
    });
  }

  Result<PipelineRecord> get_pipeline(const core::Id& tenant, const core::Id& id) override {
    return read([&] { return load_pipeline(tenant, id); });
  }

  Result<Page<PipelineRecord>> list_pipelines(const core::Id& tenant, const PageRequest& page) override {
    Query q;
    q.sql(kPipelineColumns).where("tenant_id = ?").bind(tenant.to_string());
    if (!page.after.empty()) {
      BUDCORE_TRY_ASSIGN(auto cur, parse_pair_cursor(page));
      q.where("(created_ns, id) < (?, ?)").bind(cur.first).bind(std::move(cur.second));
    }
    const std::size_t limit = page_limit(page);
    q.sql(" ORDER BY created_ns DESC, id DESC LIMIT ?").bind(static_cast<std::int64_t>(limit + 1));
    return read([&]() -> Result<Page<PipelineRecord>> {
      Page<PipelineRecord> out;
      BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
        if (out.items.size() == limit) {
          const auto& l = out.items.back();
          out.next_cursor = std::to_string(l.created_at.unix_nanos()) + "_" + l.id.to_string();
          return {};
        }
        BUDCORE_TRY_ASSIGN(auto p, pipeline_from_row(row));
        out.items.push_back(std::move(p));
        return {};
      }));
      return out;
    });
  }

  Result<PipelineRecord> save_pipeline_state(const core::Id& tenant, const core::Id& id,
                                             std::int64_t expected_version, core::Value state) override {
    return write([&]() -> Result<PipelineRecord> {
      BUDCORE_TRY_ASSIGN(PipelineRecord p, load_pipeline(tenant, id));
      BUDCORE_TRY(check_version("pipeline " + id.to_string(), p.version, expected_version));
      std::string tid = tenant.to_string(), sid = id.to_string(), text = core::to_json(state);
      p.updated_at = s_->clock->now();
      std::int64_t now = p.updated_at.unix_nanos();
      SqlParam params[] = {text, now, tid, sid, expected_version};
      BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE pipelines SET state = ?, version = version + 1, updated_ns = ? "
                                                 "WHERE tenant_id = ? AND id = ? AND version = ?",
                                                 params));
      if (rows != 1) return lost_race("pipeline " + sid);
      p.state = std::move(state);
      p.version = expected_version + 1;
      return p;
    });
  }

  Result<StepRecord> put_step(const core::Id& tenant, StepRecord step,
                              std::optional<std::int64_t> expected_version) override {
    BUDCORE_TRY(check_key("step_id", step.step_id));
    return write([&]() -> Result<StepRecord> {
      if (auto owner = load_pipeline(tenant, step.pipeline_id); !owner) return std::move(owner).error();
      std::string tid = tenant.to_string(), pid = step.pipeline_id.to_string(), state = core::to_json(step.state);
      std::int64_t now = s_->clock->now().unix_nanos();
      const std::string what = "step " + step.step_id + " of pipeline " + pid;
      if (!expected_version) {
        SqlParam p[] = {tid, pid, std::string_view(step.step_id), std::string_view(step.status), state, now};
        BUDCORE_TRY(db().execute(
            "INSERT INTO pipeline_steps (tenant_id, pipeline_id, step_id, status, state, version, updated_ns) "
            "VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (tenant_id, pipeline_id, step_id) DO UPDATE SET "
            "status = excluded.status, state = excluded.state, version = pipeline_steps.version + 1, "
            "updated_ns = excluded.updated_ns",
            p));
      } else if (*expected_version == 0) {
        SqlParam p[] = {tid, pid, std::string_view(step.step_id), std::string_view(step.status), state, now};
        auto rows = db().execute(
            "INSERT INTO pipeline_steps (tenant_id, pipeline_id, step_id, status, state, version, updated_ns) "
            "VALUES (?, ?, ?, ?, ?, 1, ?)",
            p);
        if (!rows) {
          if (rows.error().code == ErrorCode::AlreadyExists) return lost_race(what + " (it exists already)");
          return std::move(rows).error();
        }
      } else {
        SqlParam p[] = {std::string_view(step.status), state, now, tid, pid, std::string_view(step.step_id),
                        *expected_version};
        BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE pipeline_steps SET status = ?, state = ?, "
                                                   "version = version + 1, updated_ns = ? WHERE tenant_id = ? AND "
                                                   "pipeline_id = ? AND step_id = ? AND version = ?",
                                                   p));
        if (rows != 1) {
          BUDCORE_TRY(load_step(tenant, step.pipeline_id, step.step_id));  // NotFound when absent
          return lost_race(what);
        }
      }
      return load_step(tenant, step.pipeline_id, step.step_id);
    });
  }

  Result<StepRecord> get_step(const core::Id& tenant, const core::Id& pipeline_id, std::string_view step_id) override {
    return read([&] { return load_step(tenant, pipeline_id, step_id); });
  }

  Result<std::vector<StepRecord>> list_steps(const core::Id& tenant, const core::Id& pipeline_id) override {
    return read([&]() -> Result<std::vector<StepRecord>> {
      std::string tid = tenant.to_string(), pid = pipeline_id.to_string();
      SqlParam p[] = {tid, pid};
      std::vector<StepRecord> out;
      BUDCORE_TRY(db().query(std::string(kStepColumns) + " WHERE tenant_id = ? AND pipeline_id = ? ORDER BY step_id",
                             p, [&](const SqlRow& row) -> Status {
                               BUDCORE_TRY_ASSIGN(auto s, step_from_row(row));
                               out.push_back(std::move(s));
                               return {};
                             }));
      return out;
    });
  }

  // ---- templates and components ----

  Result<CatalogItem> put_catalog_item(const core::Id& tenant, CatalogItem item) override {
    if (item.scope == CatalogScope::System && !tenant.is_nil()) {
      return Error::invalid("scope", "system", "system items are written by the system tenant only");
    }
    if (item.scope == CatalogScope::User && tenant.is_nil()) {
      return Error::invalid("scope", "user", "user items belong to a tenant, not the system tenant");
    }
    BUDCORE_TRY(check_key("name", item.name));
    BUDCORE_TRY(check_key("version", item.version));
    if (item.category.size() > kMaxKeyLength) return Error::invalid("category", item.category.substr(0, 32), "is too long");
    item.created_at = s_->clock->now();
    item.id = core::Id::generate(*s_->clock);
    return write([&]() -> Result<CatalogItem> {
      const std::string table(catalog_table(item.kind));
      std::string tid = tenant.to_string(), id = item.id.to_string(), doc = core::to_json(item.document);
      std::string tags = core::to_json(Value(core::List(item.tags.begin(), item.tags.end())));
      if (item.is_default) {
        SqlParam c[] = {tid, std::string_view(item.name)};
        BUDCORE_TRY(db().execute("UPDATE " + table + " SET is_default = 0 WHERE tenant_id = ? AND name = ?", c));
      }
      SqlParam p[] = {tid, std::string_view(item.name), std::string_view(item.version), backend::to_string(item.scope),
                      doc, item.created_at.unix_nanos(), id, std::string_view(item.category), tags,
                      std::int64_t{item.is_active}, std::int64_t{item.is_default}, std::string_view(item.source)};
      auto rows = db().execute("INSERT INTO " + table +
                                   " (tenant_id, name, version, scope, doc, created_ns, id, category, tags, is_active, "
                                   "is_default, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               p);
      if (!rows) {
        return already_exists(rows.error(),
                              std::string(catalog_noun(item.kind)) + " " + item.name + "@" + item.version +
                                  " already exists (versions are immutable)",
                              "version");
      }
      return std::move(item);
    });
  }

  Result<CatalogItem> get_catalog_item(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                       std::string_view version) override {
    Query q;
    q.sql(kCatalogColumns).sql(catalog_table(kind));
    q.where("tenant_id IN (?, ?)").bind(tenant.to_string()).bind(backend::system_tenant().to_string());
    q.where("name = ?").bind(std::string(name));
    if (!version.empty()) q.where("version = ?").bind(std::string(version));
    q.where("is_active = 1");
    // The tenant's own item shadows a system item of the same name; then the default version,
    // then the newest.
    q.sql(" ORDER BY (tenant_id = ?) DESC, is_default DESC, seq DESC LIMIT 1").bind(tenant.to_string());
    return read([&]() -> Result<CatalogItem> {
      std::optional<CatalogItem> found;
      BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
        BUDCORE_TRY_ASSIGN(auto item, catalog_from_row(row, kind));
        found = std::move(item);
        return {};
      }));
      if (!found) {
        std::string what = std::string(name) + (version.empty() ? "" : "@" + std::string(version));
        return Error::make(ErrorCode::NotFound, std::string(catalog_noun(kind)) + " " + what + " not found", "name");
      }
      return std::move(*found);
    });
  }

  Result<std::vector<CatalogItem>> list_catalog_items(const core::Id& tenant, CatalogKind kind) override {
    return search_catalog_items(tenant, kind, backend::CatalogQuery{.all_versions = true});
  }

  Result<std::vector<CatalogItem>> search_catalog_items(const core::Id& tenant, CatalogKind kind,
                                                        const backend::CatalogQuery& query) override {
    Query q;
    q.sql(kCatalogColumns).sql(catalog_table(kind));
    q.where("tenant_id IN (?, ?)").bind(tenant.to_string()).bind(backend::system_tenant().to_string());
    if (query.name) q.where("name = ?").bind(*query.name);
    if (!query.include_inactive) q.where("is_active = 1");
    // All versions: by name, then age (the list order). Otherwise the first row of each name is
    // the one get_catalog_item returns.
    if (query.all_versions) {
      q.sql(" ORDER BY name, seq");
    } else {
      q.sql(" ORDER BY name, is_active DESC, (tenant_id = ?) DESC, is_default DESC, seq DESC").bind(tenant.to_string());
    }
    return read([&]() -> Result<std::vector<CatalogItem>> {
      std::vector<CatalogItem> out;
      BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
        if (!query.all_versions && !out.empty() && out.back().name == row.text(1)) return {};
        BUDCORE_TRY_ASSIGN(auto item, catalog_from_row(row, kind));
        out.push_back(std::move(item));
        return {};
      }));
      // Category, tags and scope are matched on the chosen version, so a name is found by what
      // its default version says, not by an older version's tags.
      std::erase_if(out, [&](const CatalogItem& item) {
        if (query.category && item.category != *query.category) return true;
        if (query.scope && item.scope != *query.scope) return true;
        return !std::all_of(query.tags.begin(), query.tags.end(), [&](const std::string& t) {
          return std::find(item.tags.begin(), item.tags.end(), t) != item.tags.end();
        });
      });
      return out;
    });
  }

  Result<CatalogItem> set_default_catalog_version(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                                  std::string_view version) override {
    return write([&]() -> Result<CatalogItem> {
      const std::string table(catalog_table(kind));
      std::string tid = tenant.to_string();
      std::optional<CatalogItem> found;
      SqlParam k[] = {tid, name, version};
      BUDCORE_TRY(db().query(std::string(kCatalogColumns) + table + " WHERE tenant_id = ? AND name = ? AND version = ?",
                             k, [&](const SqlRow& row) -> Status {
                               BUDCORE_TRY_ASSIGN(auto item, catalog_from_row(row, kind));
                               found = std::move(item);
                               return {};
                             }));
      if (!found) {
        return Error::make(ErrorCode::NotFound,
                           std::string(catalog_noun(kind)) + " " + std::string(name) + "@" + std::string(version) +
                               " is not one of this tenant's items",
                           "version");
      }
      SqlParam p[] = {version, tid, name};
      BUDCORE_TRY(db().execute("UPDATE " + table + " SET is_default = CASE WHEN version = ? THEN 1 ELSE 0 END "
                               "WHERE tenant_id = ? AND name = ?",
                               p));
      found->is_default = true;
      return std::move(*found);
    });
  }

  Status set_catalog_item_active(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                 bool active) override {
    return write([&]() -> Status {
      const std::string table(catalog_table(kind));
      std::string tid = tenant.to_string();
      SqlParam p[] = {std::int64_t{active}, tid, name};
      BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE " + table + " SET is_active = ? WHERE tenant_id = ? AND name = ?", p));
      if (rows > 0) return {};
      std::string sys = backend::system_tenant().to_string();
      SqlParam s[] = {sys, name};
      bool system_item = false;
      BUDCORE_TRY(db().query("SELECT 1 FROM " + table + " WHERE tenant_id = ? AND name = ?", s,
                             [&](const SqlRow&) -> Status {
                               system_item = true;
                               return {};
                             }));
      std::string what = std::string(catalog_noun(kind)) + " " + std::string(name);
      if (system_item && !tenant.is_nil()) {
        return Error::invalid("name", std::string(name), what + " is a system item, which only the system tenant changes");
      }
      return Error::make(ErrorCode::NotFound, what + " not found", "name");
    });
  }

  // ---- quota configuration ----

  Result<QuotaConfigRecord> put_quota_config(const core::Id& tenant, std::string_view name, core::Value document,
                                             std::optional<std::int64_t> expected_version) override {
    BUDCORE_TRY(check_tenant(tenant));
    BUDCORE_TRY(check_key("name", name));
    return write([&]() -> Result<QuotaConfigRecord> {
      std::string tid = tenant.to_string(), doc = core::to_json(document);
      std::int64_t now = s_->clock->now().unix_nanos();
      const std::string what = "quota configuration " + std::string(name);
      if (!expected_version) {
        SqlParam p[] = {tid, name, doc, now};
        BUDCORE_TRY(db().execute("INSERT INTO quota_configs (tenant_id, name, doc, version, updated_ns) "
                                 "VALUES (?, ?, ?, 1, ?) ON CONFLICT (tenant_id, name) DO UPDATE SET "
                                 "doc = excluded.doc, version = quota_configs.version + 1, "
                                 "updated_ns = excluded.updated_ns",
                                 p));
      } else if (*expected_version == 0) {
        SqlParam p[] = {tid, name, doc, now};
        auto rows = db().execute(
            "INSERT INTO quota_configs (tenant_id, name, doc, version, updated_ns) VALUES (?, ?, ?, 1, ?)", p);
        if (!rows) {
          if (rows.error().code == ErrorCode::AlreadyExists) return lost_race(what + " (it exists already)");
          return std::move(rows).error();
        }
      } else {
        SqlParam p[] = {doc, now, tid, name, *expected_version};
        BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE quota_configs SET doc = ?, version = version + 1, "
                                                   "updated_ns = ? WHERE tenant_id = ? AND name = ? AND version = ?",
                                                   p));
        if (rows != 1) {
          BUDCORE_TRY(load_quota(tenant, name));
          return lost_race(what);
        }
      }
      return load_quota(tenant, name);
    });
  }

  Result<QuotaConfigRecord> get_quota_config(const core::Id& tenant, std::string_view name) override {
    return read([&] { return load_quota(tenant, name); });
  }

  Result<std::vector<QuotaConfigRecord>> list_quota_configs(const core::Id& tenant) override {
    return read([&]() -> Result<std::vector<QuotaConfigRecord>> {
      std::string tid = tenant.to_string();
      SqlParam p[] = {tid};
      std::vector<QuotaConfigRecord> out;
      BUDCORE_TRY(db().query("SELECT name, doc, version, updated_ns FROM quota_configs WHERE tenant_id = ? "
                             "ORDER BY name",
                             p, [&](const SqlRow& row) -> Status {
                               BUDCORE_TRY_ASSIGN(auto q, quota_from_row(row));
                               out.push_back(std::move(q));
                               return {};
                             }));
      return out;
    });
  }

  // ---- usage and audit ----

  Result<UsageRecord> append_usage(const core::Id& tenant, UsageRecord r) override {
    BUDCORE_TRY(check_tenant(tenant));
    if (r.job_id.is_nil()) return Error::invalid("job_id", "", "a usage record names its job");
    if (r.end < r.start) return Error::invalid("end", r.end.to_string(), "is before start " + r.start.to_string());
    return write([&]() -> Result<UsageRecord> {
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

  Result<Page<UsageRecord>> list_usage(const core::Id& tenant, const UsageQuery& uq, const PageRequest& page) override {
    Query q;
    q.sql("SELECT seq, job_id, start_ns, end_ns, doc FROM usage_records").where("tenant_id = ?").bind(tenant.to_string());
    if (uq.job_id) q.where("job_id = ?").bind(uq.job_id->to_string());
    if (uq.from) q.where("start_ns >= ?").bind(uq.from->unix_nanos());
    if (uq.to) q.where("start_ns < ?").bind(uq.to->unix_nanos());
    if (!page.after.empty()) {
      BUDCORE_TRY_ASSIGN(auto cur, parse_pair_cursor(page, CursorKey::Seq));
      BUDCORE_TRY_ASSIGN(std::int64_t seq, parse_int(cur.second, page));
      q.where("(start_ns, seq) > (?, ?)").bind(cur.first).bind(seq);
    }
    const std::size_t limit = page_limit(page);
    q.sql(" ORDER BY start_ns, seq LIMIT ?").bind(static_cast<std::int64_t>(limit + 1));
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

  Result<AuditEntry> append_audit(const core::Id& tenant, AuditEntry e) override {
    BUDCORE_TRY(check_key("actor", e.actor));
    BUDCORE_TRY(check_key("action", e.action));
    if (e.at == core::Timestamp()) e.at = s_->clock->now();
    if (in_tx_) {
      // Within transact(): the head is read (and locked) once and written once, when fn returns.
      if (!chain_head_) {
        BUDCORE_TRY_ASSIGN(chain_head_, lock_chain_head(db()));
      }
      return insert_chained_audit(db(), tenant, std::move(e), *chain_head_);
    }
    return write([&]() -> Result<AuditEntry> {
      BUDCORE_TRY_ASSIGN(ChainHead head, lock_chain_head(db()));
      BUDCORE_TRY_ASSIGN(AuditEntry out, insert_chained_audit(db(), tenant, std::move(e), head));
      BUDCORE_TRY(write_chain_head(db(), head));
      return out;
    });
  }

  Result<Page<AuditEntry>> list_audit(const core::Id& tenant, const AuditQuery& aq, const PageRequest& page) override {
    Query q;
    q.sql("SELECT " + std::string(kAuditColumns) + " FROM audit_log")
        .where("tenant_id = ?")
        .bind(tenant.to_string());
    if (aq.actor) q.where("actor = ?").bind(*aq.actor);
    if (aq.object_type) q.where("object_type = ?").bind(*aq.object_type);
    if (aq.object_id) q.where("object_id = ?").bind(*aq.object_id);
    if (aq.from) q.where("at_ns >= ?").bind(aq.from->unix_nanos());
    if (aq.to) q.where("at_ns < ?").bind(aq.to->unix_nanos());
    if (!page.after.empty()) {
      BUDCORE_TRY_ASSIGN(std::int64_t seq, parse_int(page.after, page));
      q.where("seq > ?").bind(seq);
    }
    const std::size_t limit = page_limit(page);
    q.sql(" ORDER BY seq LIMIT ?").bind(static_cast<std::int64_t>(limit + 1));
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

  Result<backend::AuditChainReport> verify_audit_chain() override {
    return read([&] { return backends::verify_audit_chain(db()); });
  }

  // ---- role bindings ----

  Result<backend::RoleBindingRecord> put_role_binding(const core::Id& tenant, backend::RoleBindingRecord b) override {
    BUDCORE_TRY(check_key("principal", b.principal));
    BUDCORE_TRY(check_key("role", b.role));
    BUDCORE_TRY(check_key("created_by", b.created_by));
    if (b.created_at == core::Timestamp()) b.created_at = s_->clock->now();
    return write([&] { return backends::put_role_binding(db(), tenant, std::move(b)); });
  }

  Status delete_role_binding(const core::Id& tenant, std::string_view principal, std::string_view role,
                             const std::optional<core::Id>& project_id) override {
    return write([&] { return backends::delete_role_binding(db(), tenant, principal, role, project_id); });
  }

  Result<std::vector<backend::RoleBindingRecord>> list_role_bindings(
      const core::Id& tenant, std::optional<std::string_view> principal) override {
    return read([&] { return backends::list_role_bindings(db(), tenant, principal); });
  }

  // ---- platform bookkeeping ----

  Result<JobRecord> write_job(const core::Id& tenant, job::Job job, std::int64_t expected_version) override {
    BUDCORE_TRY(claim_for_tenant(job.tenant_id, tenant));
    if (job.id.is_nil()) return Error::invalid("id", "", "a write needs the job's id");
    BUDCORE_TRY(job.validate());
    return write([&]() -> Result<JobRecord> { return save_job(tenant, std::move(job), expected_version, {}); });
  }

  Result<std::int64_t> append_event(const core::Id& tenant, const backend::EventRecord& e) override {
    BUDCORE_TRY(check_key("type", e.type));
    return write([&]() -> Result<std::int64_t> {
      std::string tid = tenant.to_string(), oid = e.object_id.to_string(), doc = core::to_json(e.data);
      SqlParam p[] = {tid, e.at.unix_nanos(), std::string_view(e.type), oid, doc};
      std::int64_t seq = 0;
      BUDCORE_TRY(db().query("INSERT INTO platform_events (tenant_id, at_ns, type, object_id, doc) "
                             "VALUES (?, ?, ?, ?, ?) RETURNING seq",
                             p, [&](const SqlRow& row) -> Status {
                               seq = row.int64(0);
                               return {};
                             }));
      return seq;
    });
  }

  Result<std::vector<backend::EventRecord>> list_events(const core::Id& tenant, std::int64_t after_seq,
                                                        std::size_t limit) override {
    limit = std::clamp<std::size_t>(limit, 1, 10'000);
    std::string tid = tenant.to_string();
    SqlParam p[] = {tid, after_seq, static_cast<std::int64_t>(limit)};
    return read([&]() -> Result<std::vector<backend::EventRecord>> {
      std::vector<backend::EventRecord> out;
      BUDCORE_TRY(db().query("SELECT seq, at_ns, type, object_id, doc FROM platform_events "
                             "WHERE tenant_id = ? AND seq > ? ORDER BY seq LIMIT ?",
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

  Status put_platform_record(std::string_view kind, std::string_view key, const core::Value& doc) override {
    BUDCORE_TRY(check_key("kind", kind));
    BUDCORE_TRY(check_key("key", key));
    std::string text = core::to_json(doc);
    std::int64_t now = s_->clock->now().unix_nanos();
    SqlParam p[] = {kind, key, text, now};
    return write([&]() -> Status {
      BUDCORE_TRY(db().execute("INSERT INTO platform_records (kind, record_key, doc, updated_ns) VALUES (?, ?, ?, ?) "
                               "ON CONFLICT (kind, record_key) DO UPDATE SET doc = excluded.doc, "
                               "updated_ns = excluded.updated_ns",
                               p));
      return {};
    });
  }

  Status delete_platform_record(std::string_view kind, std::string_view key) override {
    SqlParam p[] = {kind, key};
    return write([&]() -> Status {
      BUDCORE_TRY(db().execute("DELETE FROM platform_records WHERE kind = ? AND record_key = ?", p));
      return {};
    });
  }

  Result<std::optional<backend::PlatformRecord>> get_platform_record(std::string_view kind,
                                                                     std::string_view key) override {
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

  Result<Page<backend::PlatformRecord>> list_platform_records(std::string_view kind, const PageRequest& page) override {
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

 private:
  SqlConnection& db() { return *s_->conn; }

  // transact(): the audit chain's head after this transaction's appends, written before commit.
  std::optional<ChainHead> chain_head_;

  // Runs f in a write transaction (or in the enclosing transact()).
  template <class F>
  auto write(F&& f) -> decltype(f()) {
    if (in_tx_) return f();
    std::lock_guard lock(s_->mu);
    BUDCORE_TRY(db().begin());
    try {
      auto r = f();
      if (!r.has_value()) {
        db().rollback();
        return r;
      }
      if (auto st = db().commit(); !st) {
        db().rollback();
        return std::move(st).error();
      }
      return r;
    } catch (...) {
      db().rollback();
      throw;
    }
  }

  template <class F>
  auto read(F&& f) -> decltype(f()) {
    if (in_tx_) return f();
    std::lock_guard lock(s_->mu);
    return f();
  }

  static Result<backend::PlatformRecord> platform_record_from_row(const SqlRow& row) {
    backend::PlatformRecord r;
    r.kind = row.text(0);
    r.key = row.text(1);
    BUDCORE_TRY_ASSIGN(r.doc, load_json(row.text(2), "platform_records[" + r.kind + "/" + r.key + "].doc"));
    r.updated_at = ts(row.int64(3));
    return r;
  }

  static Status check_tenant(const core::Id& tenant) {
    if (tenant.is_nil()) {
      return Error::invalid("tenant", tenant.to_string(), "the nil id is the system tenant, which owns no such rows");
    }
    return {};
  }

  static Status claim_for_tenant(core::Id& owner, const core::Id& tenant) {
    if (owner.is_nil()) {
      owner = tenant;
      return {};
    }
    if (owner != tenant) {
      return Error::invalid("tenant_id", owner.to_string(), "belongs to another tenant than the caller's");
    }
    return {};
  }

  static Status check_version(const std::string& what, std::int64_t stored, std::int64_t expected) {
    if (stored != expected) {
      return Error::make(ErrorCode::Conflict,
                         what + " is at version " + std::to_string(stored) + ", not " + std::to_string(expected) +
                             " (another writer changed it)",
                         "version");
    }
    return {};
  }

  static Error lost_race(const std::string& what) {
    return Error::make(ErrorCode::Conflict, what + " was changed by another writer", "version");
  }

  static Error already_exists(const Error& e, std::string message, std::string field) {
    if (e.code != ErrorCode::AlreadyExists) return e;
    return Error::make(ErrorCode::AlreadyExists, std::move(message), std::move(field));
  }

  // SELECT `columns` FROM jobs with the filter, the cursor and ORDER BY ... LIMIT page + 1.
  static Status job_list_query(Query& q, std::string_view columns, const core::Id& tenant, const JobFilter& f,
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
  static Result<backend::JobSummary> summary_from_row(const SqlRow& row) {
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

  template <class T>
  static Result<T> column_enum(Result<T> (*parse)(std::string_view), std::string_view text, std::string field) {
    auto v = parse(text);
    if (!v) return Error::make(ErrorCode::Io, "stored value '" + std::string(text) + "' is not valid", std::move(field));
    return *v;
  }

  Result<StoredJob> job_from_row(const SqlRow& row) {
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

  Result<StoredJob> load_job(const core::Id& tenant, const core::Id& id) {
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

  Result<std::optional<JobRecord>> find_job_by_key(const core::Id& tenant, std::string_view key) {
    std::string tid = tenant.to_string();
    SqlParam p[] = {tid, key};
    std::optional<JobRecord> found;
    BUDCORE_TRY(db().query(std::string(kJobColumns) + " WHERE tenant_id = ? AND idempotency_key = ?", p,
                           [&](const SqlRow& row) -> Status {
                             BUDCORE_TRY_ASSIGN(auto j, job_from_row(row));
                             found = std::move(j.record);
                             return {};
                           }));
    return found;
  }

  // Writes a changed job as a compare-and-set on expected_version.
  Result<JobRecord> save_job(const core::Id& tenant, job::Job job, std::int64_t expected_version, std::string key) {
    BUDCORE_TRY_ASSIGN(std::string doc, job_document(job));
    std::string tid = tenant.to_string(), id = job.id.to_string(), project = job.project_id.to_string(),
                cluster = job.cluster_id.to_string();
    std::string pipeline = job.pipeline_id ? job.pipeline_id->to_string() : std::string();
    std::int64_t updated = job.updated_at ? job.updated_at->unix_nanos() : s_->clock->now().unix_nanos();
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
    BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE jobs SET project_id = ?, cluster_id = ?, pipeline_id = ?, "
                                               "status = ?, job_type = ?, source = ?, updated_ns = ?, doc = ?, "
                                               "name = ?, priority = ?, gpu_type = ?, gpu_count = ?, "
                                               "version = version + 1 WHERE tenant_id = ? AND id = ? AND version = ?",
                                               p));
    if (rows != 1) return lost_race("job " + id);
    return JobRecord{std::move(job), expected_version + 1, std::move(key)};
  }

  Result<PipelineRecord> pipeline_from_row(const SqlRow& row) {
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

  Result<PipelineRecord> load_pipeline(const core::Id& tenant, const core::Id& id) {
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

  Result<StepRecord> step_from_row(const SqlRow& row) {
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

  Result<StepRecord> load_step(const core::Id& tenant, const core::Id& pipeline_id, std::string_view step_id) {
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

  Result<CatalogItem> catalog_from_row(const SqlRow& row, CatalogKind kind) {
    CatalogItem item;
    item.kind = kind;
    item.scope = row.text(0) == "system" ? CatalogScope::System : CatalogScope::User;
    item.name = row.text(1);
    item.version = row.text(2);
    const std::string at = std::string(catalog_table(kind)) + "[" + item.name + "@" + item.version + "]";
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

  Result<QuotaConfigRecord> quota_from_row(const SqlRow& row) {
    QuotaConfigRecord q;
    q.name = row.text(0);
    BUDCORE_TRY_ASSIGN(q.document, load_json(row.text(1), "quota_configs[" + q.name + "].doc"));
    q.version = row.int64(2);
    q.updated_at = ts(row.int64(3));
    return q;
  }

  Result<QuotaConfigRecord> load_quota(const core::Id& tenant, std::string_view name) {
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

  std::shared_ptr<Shared> s_;
  bool in_tx_;
};

}  // namespace

std::unique_ptr<backend::Store> make_sql_store(std::unique_ptr<SqlConnection> conn, std::string backend_name,
                                               std::shared_ptr<core::Clock> clock) {
  auto shared = std::make_shared<Shared>();
  shared->conn = std::move(conn);
  shared->name = std::move(backend_name);
  shared->clock = clock ? std::move(clock) : core::system_clock();
  return std::make_unique<SqlStore>(std::move(shared), false);
}

}  // namespace budcore::backends
