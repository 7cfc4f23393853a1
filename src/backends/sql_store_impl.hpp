// Private to the store: SqlStore, the one implementation of backend::Store over any SqlConnection
// (SQLite or PostgreSQL), declared here and defined per aggregate in sql_store*.cpp: jobs,
// pipelines and steps, the catalog and quota configurations, records (usage, audit, role
// bindings, platform bookkeeping); transactions and shared helpers in sql_store.cpp.
// Every statement carries the tenant in its WHERE clause or its inserted row, so tenant
// scoping does not depend on callers; every write runs in a transaction.
#pragma once

#include <algorithm>
#include <charconv>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/sql_lease.hpp"
#include "backends/sql_security.hpp"
#include "backends/store_common.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/utf8.hpp"
#include "budcore/job/state_machine.hpp"
#include "job/job_json.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::backends::sql {


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

// Use-case templates and components share one table, told apart by kind (the CatalogKind's
// name, backend::to_string).
constexpr std::string_view kCatalogTable = "catalog_items";

inline std::string_view catalog_noun(CatalogKind k) {
  return k == CatalogKind::UsecaseTemplate ? "use-case template" : "component";
}

inline core::Timestamp ts(std::int64_t ns) { return core::Timestamp::from_unix_nanos(ns); }

// A stored document that does not load is damage to the database, not bad caller input.
inline Result<core::Value> load_json(std::string_view text, std::string field) {
  auto v = core::parse_json(text);
  if (!v) return Error::make(ErrorCode::Io, "stored document is not valid JSON: " + v.error().message, std::move(field));
  return std::move(v).value();
}

// The stored job document: Job::to_value without its null members (every one is optional on
// input), which halves the text and the time to load it back in lists. Refused past
// job::kMaxDocumentBytes however the job was built (a C++ or Python caller need not go
// through Job::from_json).
inline Result<std::string> job_document(const job::Job& job) {
  std::string doc = job::detail::compact_json(job);
  if (doc.size() > job::kMaxDocumentBytes) {
    return Error::invalid("job", {}, "the job document is " + std::to_string(doc.size()) + " bytes, over the limit of " +
                                         std::to_string(job::kMaxDocumentBytes) + " bytes");
  }
  return doc;
}

inline Result<core::Id> load_id(std::string_view text, std::string field) {
  auto id = core::Id::parse(text);
  if (!id) return Error::make(ErrorCode::Io, "stored id is not a UUID: '" + std::string(text) + "'", std::move(field));
  return *id;
}

inline Status check_key(std::string_view field, std::string_view value) {
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

inline std::size_t page_limit(const PageRequest& p) { return std::clamp<std::size_t>(p.limit, 1, PageRequest::kMaxPageSize); }

// One quoted element of a PostgreSQL array literal: the runs between quotes and backslashes
// are appended whole (the documents of a batch make these literals megabytes long).
inline void append_pg_array_item(std::string& out, std::string_view s) {
  out += '"';
  std::size_t from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '"' && s[i] != '\\') continue;
    out.append(s.data() + from, i - from);
    out += '\\';
    from = i;  // the quote or backslash itself goes with the next run
  }
  out.append(s.data() + from, s.size() - from);
  out += '"';
}

// A PostgreSQL array literal ({"a","b",NULL}) of one field of each row, read by `field` (a
// member pointer or a callable: text, or an optional text whose absence is NULL), written
// straight from the rows without copying the fields, for `CAST(? AS TEXT[])`: one statement
// reads or writes a batch however many rows it has.
template <class Rows, class Field>
std::string pg_array_of(const Rows& rows, Field field) {
  std::string out;
  out.reserve(2 + std::size(rows) * 8);
  out += '{';
  for (const auto& r : rows) {
    if (out.size() > 1) out += ',';
    const auto& v = std::invoke(field, r);
    if constexpr (requires { v.has_value(); }) {
      if (v) {
        append_pg_array_item(out, *v);
      } else {
        out += "NULL";
      }
    } else {
      append_pg_array_item(out, v);
    }
  }
  out += '}';
  return out;
}

// A text[] literal of the items themselves, every element quoted.
inline std::string pg_text_array(std::span<const std::string> items) { return pg_array_of(items, std::identity{}); }

// The same with NULL elements (an unquoted NULL) where an item is absent.
inline std::string pg_nullable_text_array(std::span<const std::optional<std::string>> items) {
  return pg_array_of(items, std::identity{});
}

// How many keys one batched read sends (bounds the statement's size).
constexpr std::size_t kReadBatch = 1000;

inline Error bad_cursor(const PageRequest& p) {
  return Error::invalid("page.after", core::truncate_text(p.after), "is not a cursor this list returned");
}

// Cursors are accepted only in the exact form the lists write them ("007" or "+7" for 7, an
// upper-case id, trailing junk are forged), as docs/store.md promises.
inline Result<std::int64_t> parse_int(std::string_view s, const PageRequest& p) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || std::to_string(v) != s) return bad_cursor(p);
  return v;
}

enum class CursorKey { Id, Seq };

// Cursor "<ns>_<key>" for lists ordered by (time, key); key is an id or a sequence number.
inline Result<std::pair<std::int64_t, std::string>> parse_pair_cursor(const PageRequest& p, CursorKey kind = CursorKey::Id) {
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
  std::optional<backend::Store::Fence> fence;  // checked first by every write transaction
};

// transact() on PostgreSQL: the writes of a transaction whose rows are alike (job
// compare-and-sets, platform-record upserts and deletes) gathered and sent as one statement
// each over arrays, before the transaction's next statement or its commit: the server then
// runs one statement per batch instead of one per job, the largest share of a leader's
// commits.
struct DeferredJobWrite {
  std::string tenant, id, project, cluster;
  std::optional<std::string> pipeline, gpu_type;
  std::string status, type, source, doc, name, priority;
  std::int64_t updated_ns = 0, gpu_count = 0, expected_version = 0;
  std::int64_t writes = 1;  // the job's writes this row carries: its version grows by as many
  std::int64_t created_ns = 0;  // read for an insert only
};
struct DeferredWrites {
  std::vector<DeferredJobWrite> inserts;  // new jobs without an idempotency key, sent before `jobs`
  std::vector<DeferredJobWrite> jobs;
  std::map<std::pair<std::string, std::string>, std::size_t> job_rows;  // (tenant, id) -> its row in `jobs`
  // (kind, key) -> the document and time to store, or nullopt to delete; the last write wins.
  std::map<std::pair<std::string, std::string>, std::optional<std::pair<std::string, std::int64_t>>> records;
  bool empty() const { return inserts.empty() && jobs.empty() && records.empty(); }
  bool jobs_empty() const { return inserts.empty() && jobs.empty(); }
};

// The row of a job as loaded for an update.
struct StoredJob {
  JobRecord record;
  std::int64_t created_ns = 0;
};

// The statuses of a job that has not ended (what a queue depth limit counts, what retention keeps).
constexpr std::string_view kOpenStatuses = "('pending', 'queued', 'scheduled', 'running', 'preempted')";

constexpr std::string_view kJobColumns = "SELECT doc, version, idempotency_key, id, created_ns FROM jobs";
// Column 15 (the document) is read only for rows written before schema version 3.
constexpr std::string_view kSummaryColumns =
    "SELECT id, name, status, job_type, source, priority, project_id, cluster_id, pipeline_id, gpu_type, "
    "gpu_count, created_ns, updated_ns, version, idempotency_key, CASE WHEN name IS NULL THEN doc END FROM jobs";
constexpr std::string_view kPipelineColumns =
    "SELECT id, name, definition, state, version, created_ns, updated_ns FROM pipelines";
// Followed by the table name.
constexpr std::string_view kCatalogColumns =
    "SELECT scope, name, version, doc, created_ns, id, category, tags, is_active, is_default, source FROM catalog_items";
constexpr std::string_view kStepColumns =
    "SELECT pipeline_id, step_id, status, state, version, updated_ns FROM pipeline_steps";

class SqlStore final : public backend::Store {
 public:
  SqlStore(std::shared_ptr<Shared> shared, bool in_tx) : s_(std::move(shared)), in_tx_(in_tx) {}
  std::string_view backend_name() const noexcept override;
  Result<int> schema_version() override;
  Status transact(const std::function<Status(Store&)>& fn) override;

  // ---- jobs ----
  Result<CreateJobResult> create_job(const core::Id& tenant, job::Job job, std::string_view key,
                                     std::string_view request_digest) override;
  Result<JobRecord> get_job(const core::Id& tenant, const core::Id& id) override;
  Result<std::vector<std::optional<JobRecord>>> get_jobs(std::span<const backend::JobKey> keys) override;
  Result<std::optional<JobRecord>> get_job_by_key(const core::Id& tenant, std::string_view key) override;
  Result<std::vector<std::optional<JobRecord>>> get_jobs_by_keys(const core::Id& tenant,
                                                                 std::span<const std::string> keys) override;
  Result<CreateJobResult> create_job_with_new_key(const core::Id& tenant, job::Job job, std::string_view key,
                                                  std::string_view request_digest) override;
  Result<Page<JobRecord>> list_jobs(const core::Id& tenant, const JobFilter& f, const PageRequest& page) override;
  Result<Page<backend::JobSummary>> list_job_summaries(const core::Id& tenant, const JobFilter& f,
                                                       const PageRequest& page) override;
  Result<JobRecord> update_job(const core::Id& tenant, job::Job job, std::int64_t expected_version) override;
  Result<JobRecord> transition_job(const core::Id& tenant, const core::Id& id, std::int64_t expected_version,
                                   job::JobStatus to, std::string_view message) override;

  // ---- pipelines and steps ----
  Result<PipelineRecord> create_pipeline(const core::Id& tenant, PipelineRecord p) override;
  Result<PipelineRecord> get_pipeline(const core::Id& tenant, const core::Id& id) override;
  Result<Page<PipelineRecord>> list_pipelines(const core::Id& tenant, const PageRequest& page) override;
  Result<PipelineRecord> save_pipeline_state(const core::Id& tenant, const core::Id& id,
                                             std::int64_t expected_version, core::Value state) override;
  Result<StepRecord> put_step(const core::Id& tenant, StepRecord step,
                              std::optional<std::int64_t> expected_version) override;
  Result<StepRecord> get_step(const core::Id& tenant, const core::Id& pipeline_id, std::string_view step_id) override;
  Result<std::vector<StepRecord>> list_steps(const core::Id& tenant, const core::Id& pipeline_id) override;

  // ---- templates and components ----
  Result<CatalogItem> put_catalog_item(const core::Id& tenant, CatalogItem item) override;
  Result<CatalogItem> get_catalog_item(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                       std::string_view version) override;
  Result<std::vector<CatalogItem>> list_catalog_items(const core::Id& tenant, CatalogKind kind) override;
  Result<std::vector<CatalogItem>> search_catalog_items(const core::Id& tenant, CatalogKind kind,
                                                        const backend::CatalogQuery& query) override;
  Result<CatalogItem> set_default_catalog_version(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                                  std::string_view version) override;
  Status set_catalog_item_active(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                 bool active) override;

  // ---- quota configuration ----
  Result<QuotaConfigRecord> put_quota_config(const core::Id& tenant, std::string_view name, core::Value document,
                                             std::optional<std::int64_t> expected_version) override;
  Result<QuotaConfigRecord> get_quota_config(const core::Id& tenant, std::string_view name) override;
  Result<std::vector<QuotaConfigRecord>> list_quota_configs(const core::Id& tenant) override;

  // ---- usage and audit ----
  Result<UsageRecord> append_usage(const core::Id& tenant, UsageRecord r) override;
  Result<Page<UsageRecord>> list_usage(const core::Id& tenant, const UsageQuery& uq, const PageRequest& page) override;
  Result<AuditEntry> append_audit(const core::Id& tenant, AuditEntry e) override;
  Result<Page<AuditEntry>> list_audit(const core::Id& tenant, const AuditQuery& aq, const PageRequest& page) override;
  Result<backend::AuditChainReport> verify_audit_chain(const std::vector<std::string>& anchors,
                                                       std::optional<core::Id> tenant) override;
  Result<std::vector<backend::AuditHead>> audit_heads() override;
  Result<backend::CompactionReport> compact(const backend::RetentionPolicy& policy, core::Timestamp now) override;
  Result<std::vector<backend::RetentionCheckpoint>> retention_checkpoints() override;

  // ---- role bindings ----
  Result<backend::RoleBindingRecord> put_role_binding(const core::Id& tenant, backend::RoleBindingRecord b) override;
  Status delete_role_binding(const core::Id& tenant, std::string_view principal, std::string_view role,
                             const std::optional<core::Id>& project_id) override;
  Result<std::vector<backend::RoleBindingRecord>> list_role_bindings(
      const core::Id& tenant, std::optional<std::string_view> principal) override;

  // ---- platform bookkeeping ----
  Result<JobRecord> write_job(const core::Id& tenant, job::Job job, std::int64_t expected_version) override;
  Result<std::int64_t> append_event(const core::Id& tenant, const backend::EventRecord& e) override;
  Result<std::vector<backend::EventRecord>> list_events(const core::Id& tenant, std::int64_t after_seq,
                                                        std::size_t limit) override;
  Result<backend::LeaseState> acquire_lease(std::string_view name, std::string_view replica, core::Duration ttl) override;
  Result<backend::LeaseState> read_lease(std::string_view name) override;
  Status release_lease(std::string_view name, std::string_view replica, std::int64_t epoch) override;
  Status check_fence(std::string_view name, std::string_view replica, std::int64_t epoch) override;
  Status report_replica(std::string_view name, const backend::ReplicaRecord& replica) override;
  Result<std::vector<backend::ReplicaRecord>> list_replicas(std::string_view name) override;
  Result<std::int64_t> append_request(const backend::PlatformRequest& request) override;
  Result<std::vector<backend::PlatformRequest>> list_requests(std::int64_t after_seq, std::size_t limit) override;
  Status delete_request(std::int64_t seq) override;
  Result<std::int64_t> change_marker() override;
  void set_fence(std::optional<Fence> fence) override;
  Result<std::int64_t> count_open_jobs(const core::Id& tenant) override;
  Status set_idle_transaction_limit(std::optional<core::Duration> limit) override;
  Result<std::int64_t> get_limit(const core::Id& tenant, std::string_view name) override;
  Result<std::int64_t> lock_limit(const core::Id& tenant, std::string_view name) override;
  Status put_limit(const core::Id& tenant, std::string_view name, std::int64_t value) override;
  Status put_platform_record(std::string_view kind, std::string_view key, const core::Value& doc) override;
  Status delete_platform_record(std::string_view kind, std::string_view key) override;
  Result<std::optional<backend::PlatformRecord>> get_platform_record(std::string_view kind,
                                                                     std::string_view key) override;
  Result<std::vector<std::optional<backend::PlatformRecord>>> get_platform_records(
      std::string_view kind, std::span<const std::string> keys) override;
  Result<Page<backend::PlatformRecord>> list_platform_records(std::string_view kind, const PageRequest& page) override;

  // ---- the serverless request queue (sql_store_squeue.cpp) ----
  Result<std::vector<serverless::DurableEnqueued>> enqueue_serverless_requests(
      const core::Id& tenant, std::span<const serverless::DurableEnqueue> requests) override;
  Result<std::vector<serverless::DurableRequest>> claim_serverless_requests(const core::Id& tenant,
                                                                           std::string_view endpoint,
                                                                           std::string_view worker, std::int64_t max,
                                                                           core::Duration lease) override;
  Result<std::vector<serverless::DurableFinished>> finish_serverless_requests(
      const core::Id& tenant, std::span<const serverless::DurableFinish> reports) override;
  Result<std::int64_t> expire_serverless_requests(const core::Id& tenant, std::string_view endpoint) override;
  Result<serverless::DurableCounts> count_serverless_requests(const core::Id& tenant, std::string_view endpoint) override;
  Result<std::vector<serverless::DurableRequest>> list_serverless_requests(
      const core::Id& tenant, std::string_view endpoint, std::span<const serverless::QueueStatus> statuses,
      std::int64_t after_id, std::int64_t limit) override;
 private:
  SqlConnection& db();
  // The connection's dialect, without sending the deferred writes as db() would.
  Dialect dialect() const { return s_->conn->dialect(); }
  // The same for a statement that reads no platform record (a job's insert, a request's): the
  // deferred platform records stay deferred, so a batch of jobs sends them in one statement.
  SqlConnection& db_keeping_records();
  // transact(): each tenant's audit chain head and event counter after this transaction's
  // appends, read (and locked) at a tenant's first append, written once before commit.
  std::map<core::Id, ChainHead> chain_heads_;
  // Tenants whose usage lock this transaction holds (lock_usage_of).
  std::set<core::Id> usage_locked_;
  static constexpr std::int32_t kUsageLockClass = 0x75736167;  // "usag"
  Status lock_usage_of(const core::Id& tenant);
  std::map<core::Id, std::int64_t> event_counters_;
  // transact() on PostgreSQL: each tenant's events, numbered at commit (write_tenant_events).
  struct PendingEvent {
    std::int64_t seq;
    std::int64_t at_ns;
    std::string type, object_id, doc;
  };
  std::map<core::Id, std::vector<PendingEvent>> pending_events_;
  Status write_tenant_events(const core::Id& tenant, const std::vector<PendingEvent>& events);
  // transact(): a request was stored, so the commit wakes the leader already.
  bool requests_notified_ = false;
  // transact() on PostgreSQL: writes sent together at the next statement (db()) or the commit.
  DeferredWrites deferred_;
  std::optional<Error> deferred_error_;  // a failed send of them fails the commit
  bool flushing_ = false;
  // transact() on PostgreSQL: seqs of the rows it inserts, taken ahead. A block lives for one
  // transaction only: a seq is taken when its event happens, so the store-wide order follows
  // cause and effect across replicas (a submission's event before its admission's), which a
  // block kept from an earlier transaction would break.
  SeqPool event_seqs_{"platform_events"};
  SeqPool request_seqs_{"platform_requests"};
  bool defers() const { return in_tx_ && s_->conn->dialect() == Dialect::Postgres; }
  void flush_deferred(bool records = true);
  Status send_deferred_inserts();
  Status send_deferred_jobs();
  Status send_deferred_records();
  Status write_tenant_heads();
  // Runs f in a write transaction (or in the enclosing transact()).
  template <class F>
  auto write(F&& f) -> decltype(f()) {
    if (in_tx_) return f();
    std::lock_guard lock(s_->mu);
    BUDCORE_TRY(db().begin());
    try {
      auto r = [&]() -> decltype(f()) {
        if (s_->fence) {
          auto st = backends::check_fence(db(), s_->fence->name, s_->fence->replica, s_->fence->epoch);
          if (!st) return std::move(st).error();
        }
        return f();
      }();
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
  static Result<backend::PlatformRecord> platform_record_from_row(const SqlRow& row);
  static Status check_tenant(const core::Id& tenant);
  static Status claim_for_tenant(core::Id& owner, const core::Id& tenant);
  static Status check_version(const std::string& what, std::int64_t stored, std::int64_t expected);
  static Error lost_race(const std::string& what);
  static Error already_exists(const Error& e, std::string message, std::string field);
  // SELECT `columns` FROM jobs with the filter, the cursor and ORDER BY ... LIMIT page + 1.
  static Status job_list_query(Query& q, std::string_view columns, const core::Id& tenant, const JobFilter& f,
                               const PageRequest& page);
  // A summary from the columns of kSummaryColumns. A row written before schema version 3 has
  // no name column yet: its summary comes from its document (the slow path, until it changes).
  static Result<backend::JobSummary> summary_from_row(const SqlRow& row);
  template <class T>
  static Result<T> column_enum(Result<T> (*parse)(std::string_view), std::string_view text, std::string field) {
    auto v = parse(text);
    if (!v) return Error::make(ErrorCode::Io, "stored value '" + std::string(text) + "' is not valid", std::move(field));
    return *v;
  }
  Result<StoredJob> job_from_row(const SqlRow& row);
  Result<StoredJob> load_job(const core::Id& tenant, const core::Id& id);
  Result<std::optional<JobRecord>> find_job_by_key(const core::Id& tenant, std::string_view key);
  // A job record with its request digest, from the columns find_job_by_key reads.
  Result<JobRecord> keyed_job_from_row(const SqlRow& row);
  // create_job and create_job_with_new_key: the second skips the lookup of the key.
  Result<CreateJobResult> insert_job(const core::Id& tenant, job::Job job, std::string_view key,
                                     std::string_view request_digest, bool key_seen_absent);
  // The job of an idempotency key, when the key was not first sent with another request digest.
  Result<std::optional<JobRecord>> replay_job_by_key(const core::Id& tenant, std::string_view key,
                                                     std::string_view request_digest);
  // Writes a changed job as a compare-and-set on expected_version.
  Result<JobRecord> save_job(const core::Id& tenant, job::Job job, std::int64_t expected_version, std::string key);
  Result<PipelineRecord> pipeline_from_row(const SqlRow& row);
  Result<PipelineRecord> load_pipeline(const core::Id& tenant, const core::Id& id);
  Result<StepRecord> step_from_row(const SqlRow& row);
  Result<StepRecord> load_step(const core::Id& tenant, const core::Id& pipeline_id, std::string_view step_id);
  Result<CatalogItem> catalog_from_row(const SqlRow& row, CatalogKind kind);
  Result<QuotaConfigRecord> quota_from_row(const SqlRow& row);
  Result<QuotaConfigRecord> load_quota(const core::Id& tenant, std::string_view name);
  std::shared_ptr<Shared> s_;
  bool in_tx_;
};

}  // namespace budcore::backends::sql

#pragma GCC visibility pop
