// budcore::backend::Store — the durable home of jobs, pipelines and their steps, use-case
// templates and components, quota configuration, usage records and the audit log.
//
// Rules every backend keeps (the conformance suite in tests/backends/ checks them):
// - Every call is scoped to a tenant. No call returns or changes another tenant's rows: a row
//   of tenant B is NotFound for tenant A. The nil Id is the "system" tenant, which owns the
//   system templates and components that every tenant can read (but not change).
// - Every write is one unit of work: it commits whole or not at all. transact() groups several
//   calls into one unit of work.
// - Jobs carry a version; update_job / transition_job are compare-and-set on it, so of two
//   writers that read the same version exactly one wins (the other gets ErrorCode::Conflict).
// - create_job with an idempotency key creates at most one job per (tenant, key): a retried
//   submit returns the job the first call created.
// - The schema is versioned; opening a store migrates it forward. A store written by a newer
//   library fails to open with ErrorCode::Unsupported naming both versions.
//
// Backends: open_store("sqlite:///path.db" | "sqlite::memory:" | "postgresql://...").
// Thread-safety: a Store may be shared by threads (calls are serialized on its connection);
// several Stores (and processes) may open the same database.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/audit.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/page.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/tenant.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/usage_ledger.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/job/job_status.hpp"
#include "budcore/job/priority.hpp"
#include "budcore/serverless/durable_queue.hpp"
#include "budcore/usecase/catalog_store.hpp"

namespace budcore::backend {

// Types the store shares with the layers that own them (core's paging and audit entries,
// cost's usage ledger, usecase's catalog), under the names the store's callers use.
using core::system_tenant;
using core::PageRequest;
template <class T>
using Page = core::Page<T>;
using core::AuditEntry;
using core::AuditQuery;
using cost::UsageQuery;
using cost::UsageRecord;
using usecase::CatalogItem;
using usecase::CatalogKind;
using usecase::CatalogQuery;
using usecase::CatalogScope;
using usecase::to_string;

// ---- jobs ----------------------------------------------------------------------------------

struct JobRecord {
  job::Job job;
  std::int64_t version = 0;  // 1 on create, +1 on every update
  std::string idempotency_key;  // empty: none
  // The digest the key was first sent with (job_request_digest); read by get_job_by_key only,
  // empty when none was kept.
  std::string request_digest;
};

struct CreateJobResult {
  JobRecord record;
  bool created = false;  // false: the idempotency key named an existing job, returned as is
};

// What a job list shows, read from the indexed columns of the job's row without loading its
// document: listing a tenant's 100 newest jobs stays well under a millisecond. get_job loads the
// whole job when a caller needs it.
struct JobSummary {
  core::Id id;
  std::string name;
  job::JobStatus status = job::JobStatus::Pending;
  job::JobType job_type = job::JobType::Batch;
  job::JobSource source = job::JobSource::Direct;
  job::JobPriority priority = job::JobPriority::Normal;
  core::Id project_id;
  core::Id cluster_id;
  std::optional<core::Id> pipeline_id;
  std::optional<std::string> gpu_type;
  std::int64_t gpu_count = 0;
  core::Timestamp created_at;
  core::Timestamp updated_at;
  std::int64_t version = 0;
  std::string idempotency_key;  // empty: none
  friend bool operator==(const JobSummary&, const JobSummary&) = default;
};

// The summary of a loaded record (what list_job_summaries returns for the same row).
BUDCORE_API JobSummary summarize(const JobRecord& record);

// The digest create_job keeps with an idempotency key: SHA-256 of the job as `tenant` sent it
// (a tenant_id left out is the sender's), without what a submit sets (times, status message),
// members sorted and numbers by value, so one request written two ways digests the same.
BUDCORE_API std::string job_request_digest(const job::Job& job, const core::Id& tenant);
// Invalid on idempotency_key when `existing` (a job found by its key) was created by a request
// with another digest than `request_digest`; nothing to check when either digest is empty.
BUDCORE_API core::Status check_request_digest(const JobRecord& existing, std::string_view request_digest);

// All set fields must match. Jobs come newest first (created_at, then id, descending).
struct JobFilter {
  std::optional<core::Id> project_id;
  std::optional<core::Id> cluster_id;
  std::vector<job::JobStatus> statuses;  // any of these; empty = any status
  std::optional<job::JobType> job_type;
  std::optional<job::JobSource> source;
  std::optional<core::Id> pipeline_id;
  std::optional<core::Timestamp> created_from;  // inclusive
  std::optional<core::Timestamp> created_to;    // exclusive
};

// ---- pipelines -----------------------------------------------------------------------------

// A pipeline's definition plus the engine's saved state; both are documents the pipeline layer
// owns (the store keeps them as JSON).
struct PipelineRecord {
  core::Id id;  // nil on create: the store assigns one
  std::string name;
  core::Value definition = core::Value(core::Map{});
  core::Value state = core::Value(core::Map{});
  std::int64_t version = 0;
  core::Timestamp created_at;
  core::Timestamp updated_at;
};

struct StepRecord {
  core::Id pipeline_id;
  std::string step_id;  // the step's id in the pipeline document ("step-1")
  std::string status;   // the engine's step status ("pending", "running", ...)
  core::Value state = core::Value(core::Map{});
  std::int64_t version = 0;
  core::Timestamp updated_at;
};

// ---- quota, audit --------------------------------------------------------------------------

struct QuotaConfigRecord {
  std::string name;
  core::Value document = core::Value(core::Map{});
  std::int64_t version = 0;
  core::Timestamp updated_at;
};

// Where one tenant's chain ends, as the store records it.
struct AuditHead {
  core::Id tenant;
  std::int64_t seq = 0;
  std::string hash;
  friend bool operator==(const AuditHead&, const AuditHead&) = default;
};

// SHA-256 over the heads, in tenant order ("<tenant>:<seq>:<hash>;" each): the digest
// AuditChainReport::head_hash reports.
BUDCORE_API std::string audit_heads_digest(std::vector<AuditHead> heads);

// What verify_audit_chain found. ok is false when any problem was found.
struct AuditChainReport {
  bool ok = true;
  std::int64_t entries = 0;     // rows checked (every tenant's)
  std::int64_t unchained = 0;   // always 0 from schema version 7 (its migration chains every entry)
  std::int64_t head_seq = 0;    // the chained entries the heads account for (every tenant's)
  std::int64_t compacted = 0;   // entries retention removed before the tenants' checkpoints
  // SHA-256 over every tenant's head (tenant, seq, hash) at this moment: two equal digests mean
  // identical logs. To anchor the log, keep `heads` (or their hashes) where the database's
  // writers cannot, and pass them to verify_audit_chain later.
  std::string head_hash;
  std::vector<AuditHead> heads;
  std::vector<std::string> problems;  // "audit_log[tenant ... seq 17]: its hash does not match its fields ...", ...
};

// ---- role bindings (schema version 6) -------------------------------------------------------

// One grant of a role to a principal, within a tenant (or the system tenant for platform-wide
// roles), on one project or the whole tenant. The platform layer gives roles their meaning
// (platform/rbac.hpp); the store keeps them.
struct RoleBindingRecord {
  std::string principal;              // "user:alice", "sa:ci-bot"
  std::string role;                   // "viewer", "editor", "admin", "tenant-admin", "platform-admin"
  std::optional<core::Id> project_id; // nullopt: every project of the tenant
  core::Timestamp created_at;         // stamped by the store
  std::string created_by;             // the principal that granted it
  friend bool operator==(const RoleBindingRecord&, const RoleBindingRecord&) = default;
};

// ---- platform bookkeeping (schema version 4) ------------------------------------------------

// A job named with its tenant (Store::get_jobs).
struct JobKey {
  core::Id tenant;
  core::Id id;
};

// One entry of a tenant's event log (Platform::watch): job transitions and what the cluster
// reported, in commit order. `seq` is the tenant's own sequence (1, 2, ... without gaps, in the
// order the tenant's events committed), so a reader resumes after the last seq it saw and learns
// nothing of other tenants' activity.
struct EventRecord {
  std::int64_t seq = 0;  // assigned by append_event
  core::Timestamp at;
  std::string type;      // "job.transition", "job.deadline_missed", "pipeline.transition", ...
  core::Id object_id;    // the job or pipeline run it is about
  core::Value data = core::Value(core::Map{});
};

// What the platform keeps about the live jobs and pipeline runs it drives, so that a reopened
// platform rebuilds its state from these rows instead of scanning every tenant's jobs. The
// rows are the platform's own (the documents carry the tenant); no tenant-scoped call reads them.
struct PlatformRecord {
  std::string kind;  // "job", "run", "state"
  std::string key;   // unique within the kind (a job id, "clock")
  core::Value doc = core::Value(core::Map{});
  core::Timestamp updated_at;
};

// ---- high availability (schema version 8; docs/ha.md) -------------------------------------

// A leader lease kept in the store: its holder, an epoch that grows by one at every change of
// holder, and its expiry on the database's clock (never a replica's).
struct LeaseState {
  std::string name;     // "platform"
  std::string holder;   // the replica id holding it ("" when never held)
  std::int64_t epoch = 0;
  core::Timestamp expires;  // the database's clock
  core::Timestamp now;      // the database's clock when this was read
  bool held_by(std::string_view replica) const { return holder == replica && expires > now; }
};

// One replica taking part in an election, as it last reported itself.
struct ReplicaRecord {
  std::string replica;
  std::string instance;       // the process behind it (a fresh token each time a replica opens)
  std::string role;           // "leader", "follower", "stopped"
  std::int64_t epoch = 0;     // the epoch it led under (leader) or last saw
  core::Timestamp started;    // the database's clock
  core::Timestamp seen;       // its last renewal or attempt, the database's clock
  std::int64_t renew_us = 0;  // how long its last renewal took
  // On report: a row another process (instance) reported is taken over only once it has been
  // silent this long (0: always); otherwise the report is refused (AlreadyExists, "ha.replica").
  core::Duration takeover_after{};
};

// A mutation a follower took (acknowledged once committed), for the leader to carry out.
struct PlatformRequest {
  std::int64_t seq = 0;
  core::Id tenant;
  std::string kind;     // "adopt", "cancel", "retry", "priority", "preempt", "start_run", "cancel_run"
  core::Id object_id;   // the job or the pipeline run
  core::Value doc = core::Value(core::Map{});  // the caller and the request's arguments
  std::string replica;  // which replica took it
  core::Timestamp created;
};

// ---- retention (schema version 9; docs/store.md "Retention") ---------------------------------

// What compact() may remove. Unset: that log is kept whole. Each tenant keeps its newest event
// and audit entry whatever the policy, so its numbers never restart.
struct RetentionPolicy {
  std::optional<core::Duration> event_max_age;    // events older than this
  std::optional<std::int64_t> event_max_count;    // per tenant: the newest this many are kept
  std::optional<core::Duration> audit_max_age;    // audit entries older than this
  std::optional<std::int64_t> audit_max_count;    // per tenant
  std::optional<core::Duration> usage_max_age;    // usage records that ended before now - this
  friend bool operator==(const RetentionPolicy&, const RetentionPolicy&) = default;
};

// Where a tenant's log was cut: entries up to `seq` are gone (usage: records that ended before
// `seq` nanoseconds since the epoch). An audit checkpoint keeps the hash of the last entry it
// removed, so the chain verifies from there.
struct RetentionCheckpoint {
  core::Id tenant;
  std::string log;  // "events", "audit", "usage"
  std::int64_t seq = 0;
  std::string hash;  // audit only
  core::Timestamp at;
  friend bool operator==(const RetentionCheckpoint&, const RetentionCheckpoint&) = default;
};

struct CompactionReport {
  std::int64_t events_removed = 0;
  std::int64_t audit_removed = 0;
  std::int64_t usage_removed = 0;
  std::vector<RetentionCheckpoint> checkpoints;  // the ones this call moved
};

// ---- the store -----------------------------------------------------------------------------

class BUDCORE_API Store : public cost::UsageLedger, public usecase::CatalogStore {
 public:
  virtual ~Store();
  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual std::string_view backend_name() const noexcept = 0;  // "sqlite", "postgres"
  virtual core::Result<int> schema_version() = 0;

  // Runs fn as one unit of work: every call fn makes on `tx` commits when fn returns OK and
  // none does otherwise (and if fn throws, which is then rethrown). `tx` is valid only inside
  // fn; transact() calls do not nest.
  virtual core::Status transact(const std::function<core::Status(Store& tx)>& fn) = 0;

  // Jobs. create_job assigns id (when nil), tenant_id, created_at and updated_at (when unset);
  // the job is validated first (ErrorCode::Invalid). A job whose tenant_id names another
  // tenant is Invalid. With a non-empty idempotency_key an existing job of that key is
  // returned with created = false. A request_digest (job_request_digest of the document as the
  // caller sent it) is kept with the key: the key sent again with another digest is Invalid on
  // idempotency_key, as a payment API refuses a key reused with other parameters. An empty
  // digest is neither kept nor checked.
  virtual core::Result<CreateJobResult> create_job(const core::Id& tenant, job::Job job,
                                                   std::string_view idempotency_key = {},
                                                   std::string_view request_digest = {}) = 0;
  virtual core::Result<JobRecord> get_job(const core::Id& tenant, const core::Id& id) = 0;
  // Several jobs, each of its own tenant, in as few reads as the store can (a leader applying a
  // batch of cluster events): out[i] is keys[i]'s job, nullopt when that tenant has no such
  // job. The default asks get_job for each.
  virtual core::Result<std::vector<std::optional<JobRecord>>> get_jobs(std::span<const JobKey> keys);
  // The job a create_job with this idempotency key created (nullopt: none).
  virtual core::Result<std::optional<JobRecord>> get_job_by_key(const core::Id& tenant, std::string_view key) = 0;
  // The same for several keys of one tenant, in as few reads as the store can (a batch submit
  // checks all its keys at once): out[i] is what get_job_by_key(tenant, keys[i]) returns, request
  // digest included. A key get_job_by_key refuses fails the call the same way. The default asks
  // get_job_by_key for each.
  virtual core::Result<std::vector<std::optional<JobRecord>>> get_jobs_by_keys(const core::Id& tenant,
                                                                               std::span<const std::string> keys);
  // create_job for a non-empty key that get_jobs_by_keys (or get_job_by_key) has just found
  // absent: the store may skip its own lookup of the key and, inside transact, send the insert
  // with a later statement. Another writer that commits the key in between fails the call (and
  // the transaction) with Conflict on idempotency_key, never its job nor a word of it: nothing of
  // the transaction is kept, and the caller reads the key again and answers it as a replay, with
  // the checks a read of that job gets. The default is create_job.
  virtual core::Result<CreateJobResult> create_job_with_new_key(const core::Id& tenant, job::Job job,
                                                                std::string_view idempotency_key,
                                                                std::string_view request_digest = {});
  virtual core::Result<Page<JobRecord>> list_jobs(const core::Id& tenant, const JobFilter& filter,
                                                  const PageRequest& page = {}) = 0;
  // The same rows, order and cursors as list_jobs (a cursor of one works in the other), as
  // summaries read from indexed columns instead of whole jobs.
  virtual core::Result<Page<JobSummary>> list_job_summaries(const core::Id& tenant, const JobFilter& filter,
                                                            const PageRequest& page = {}) = 0;
  // Replaces the job when its stored version is expected_version (else Conflict; NotFound when
  // absent). The id and tenant cannot change; updated_at is stamped.
  virtual core::Result<JobRecord> update_job(const core::Id& tenant, job::Job job,
                                             std::int64_t expected_version) = 0;
  // Moves the job along the state machine (job::transition) as a compare-and-set: Conflict
  // when the version moved on or the move is illegal.
  virtual core::Result<JobRecord> transition_job(const core::Id& tenant, const core::Id& id,
                                                 std::int64_t expected_version, job::JobStatus to,
                                                 std::string_view message = {}) = 0;
  // Replaces the stored job at expected_version with `job` without reading the row first: for a
  // caller that holds the job as it read or created it at that version and changed it in memory
  // (the platform applies job::transition and writes the result). Conflict when the stored
  // version moved on (or the row is gone); Invalid when `job` does not validate. id, tenant,
  // created_at and the idempotency key are not changed by this call.
  virtual core::Result<JobRecord> write_job(const core::Id& tenant, job::Job job, std::int64_t expected_version) = 0;

  // Pipelines and steps. save_pipeline_state: a compare-and-set on the version (returns no definition).
  virtual core::Result<PipelineRecord> create_pipeline(const core::Id& tenant, PipelineRecord p) = 0;
  virtual core::Result<PipelineRecord> get_pipeline(const core::Id& tenant, const core::Id& id) = 0;
  virtual core::Result<Page<PipelineRecord>> list_pipelines(const core::Id& tenant,
                                                            const PageRequest& page = {}) = 0;
  virtual core::Result<PipelineRecord> save_pipeline_state(const core::Id& tenant, const core::Id& id,
                                                           std::int64_t expected_version,
                                                           core::Value state) = 0;
  // Inserts or replaces a step of an existing pipeline. expected_version: nullopt = write
  // unconditionally; 0 = the step must not exist yet; n = the stored step must be at n.
  virtual core::Result<StepRecord> put_step(const core::Id& tenant, StepRecord step,
                                            std::optional<std::int64_t> expected_version = std::nullopt) = 0;
  virtual core::Result<StepRecord> get_step(const core::Id& tenant, const core::Id& pipeline_id,
                                            std::string_view step_id) = 0;
  virtual core::Result<std::vector<StepRecord>> list_steps(const core::Id& tenant,
                                                           const core::Id& pipeline_id) = 0;

  // Templates and components: the usecase::CatalogStore calls (their rules are there), and
  // catalog_transact, which is transact().
  core::Status catalog_transact(const std::function<core::Status(usecase::CatalogStore& tx)>& fn) override;

  // Quota configuration documents, by name. expected_version as in put_step.
  virtual core::Result<QuotaConfigRecord> put_quota_config(
      const core::Id& tenant, std::string_view name, core::Value document,
      std::optional<std::int64_t> expected_version = std::nullopt) = 0;
  virtual core::Result<QuotaConfigRecord> get_quota_config(const core::Id& tenant,
                                                           std::string_view name) = 0;
  virtual core::Result<std::vector<QuotaConfigRecord>> list_quota_configs(const core::Id& tenant) = 0;

  // Usage records and the audit log: the cost::UsageLedger calls (append-only).

  // Fencing (docs/ha.md): with a fence set, every write transaction of this handle first checks
  // it (check_fence), so a leader's writes commit only while it holds the lease at the fence's
  // epoch, and a deposed leader's fail with NotLeader. nullopt removes it.
  struct Fence {
    std::string name;
    std::string replica;
    std::int64_t epoch = 0;
  };
  virtual void set_fence(std::optional<Fence> fence) = 0;
  // A transaction of this handle left idle longer than `limit` (its process stopped or paused
  // mid-transaction) is ended by the database server, releasing its locks: without it, a leader
  // stopped inside a fenced transaction keeps the lease row locked and no replica can take over.
  // PostgreSQL applies it to every session of the handle (idle_in_transaction_session_timeout);
  // a SQLite file has no server to end it, so there it changes nothing. nullopt removes it.
  virtual core::Status set_idle_transaction_limit(std::optional<core::Duration> limit) = 0;
  // Open jobs of the tenant (pending, queued, scheduled, running, preempted): what a queue
  // depth limit counts when several processes submit.
  virtual core::Result<std::int64_t> count_open_jobs(const core::Id& tenant) = 0;

  // Every tenant's audit chain, checked from its first entry to the head the store recorded, and
  // each anchor (an entry hash kept outside the store, such as a head published earlier) found
  // among the chained entries (a system-level check: `budcore audit verify`).
  // With `tenant`, only that tenant's chain and head are checked and reported.
  virtual core::Result<AuditChainReport> verify_audit_chain(const std::vector<std::string>& anchors = {},
                                                            std::optional<core::Id> tenant = std::nullopt) = 0;
  // Removes what `policy` lets go, as of `now`, in one transaction: events and audit entries per
  // tenant up to a cut (never a tenant's newest; events of open jobs and live runs stay), usage
  // records of jobs that are no longer open. Each cut is recorded as a checkpoint first: a
  // tenant's watch from before its event checkpoint fails with ErrorCode::Gone, and its audit
  // chain verifies from the checkpoint's hash. The database refuses to delete an audit entry or
  // usage record behind no checkpoint.
  virtual core::Result<CompactionReport> compact(const RetentionPolicy& policy, core::Timestamp now) = 0;
  // Every checkpoint, by tenant then log.
  virtual core::Result<std::vector<RetentionCheckpoint>> retention_checkpoints() = 0;
  // Where every tenant's chain ends now (a read of the heads only: what an anchor publishes).
  virtual core::Result<std::vector<AuditHead>> audit_heads() = 0;

  // Role bindings. `tenant` may be system_tenant() (platform-wide roles). put: AlreadyExists
  // when the same (principal, role, project) is bound; delete: NotFound when it is not.
  // list: the tenant's bindings (of one principal when given), by principal, role, project.
  virtual core::Result<RoleBindingRecord> put_role_binding(const core::Id& tenant, RoleBindingRecord binding) = 0;
  virtual core::Status delete_role_binding(const core::Id& tenant, std::string_view principal, std::string_view role,
                                           const std::optional<core::Id>& project_id) = 0;
  virtual core::Result<std::vector<RoleBindingRecord>> list_role_bindings(
      const core::Id& tenant, std::optional<std::string_view> principal = std::nullopt) = 0;

  // The event log (append-only): append_event assigns the tenant's seq and returns the event's
  // place in the store-wide order (increasing over every tenant's events: the platform orders
  // its queue by it; no tenant-scoped call shows it); list_events returns the tenant's events
  // with seq > after_seq, oldest first, at most `limit` (clamped to [1, 10000]); ErrorCode::Gone
  // when events after after_seq were compacted away (the caller relists and watches from now).
  virtual core::Result<std::int64_t> append_event(const core::Id& tenant, const EventRecord& event) = 0;
  virtual core::Result<std::vector<EventRecord>> list_events(const core::Id& tenant, std::int64_t after_seq,
                                                             std::size_t limit) = 0;
  // Leader election (docs/ha.md). acquire_lease takes the lease for `replica` when it is free,
  // expired, or already the replica's (then it is renewed, keeping its epoch; a new holder
  // raises the epoch by one), for `ttl` from the database's now; it returns the lease as it
  // stands after the attempt (held by another replica when the attempt lost). release_lease
  // expires the lease now if `replica` holds it at `epoch` (a graceful stop). check_fence, in a
  // transaction, fails with NotLeader (naming the current epoch) unless `replica` holds the
  // lease at `epoch`; in PostgreSQL it keeps the lease row share-locked until the transaction
  // ends, so no new leader can take over between the check and the commit.
  virtual core::Result<LeaseState> acquire_lease(std::string_view name, std::string_view replica, core::Duration ttl) = 0;
  virtual core::Result<LeaseState> read_lease(std::string_view name) = 0;
  virtual core::Status release_lease(std::string_view name, std::string_view replica, std::int64_t epoch) = 0;
  virtual core::Status check_fence(std::string_view name, std::string_view replica, std::int64_t epoch) = 0;
  // Each replica reports itself after every election step (role, epoch, renewal time); list
  // shows every replica that ever did, by id.
  virtual core::Status report_replica(std::string_view name, const ReplicaRecord& replica) = 0;
  virtual core::Result<std::vector<ReplicaRecord>> list_replicas(std::string_view name) = 0;
  // Requests followers took for the leader (append, read in order, delete once carried out).
  virtual core::Result<std::int64_t> append_request(const PlatformRequest& request) = 0;
  virtual core::Result<std::vector<PlatformRequest>> list_requests(std::int64_t after_seq, std::size_t limit) = 0;
  virtual core::Status delete_request(std::int64_t seq) = 0;
  // A number that changes whenever any process commits a change to the store (SQLite's
  // data_version, a digest of PostgreSQL's current snapshot): a cheap poll for "something changed".
  virtual core::Result<std::int64_t> change_marker() = 0;

  // State of per-tenant limits that must hold across every process on the store (the submit
  // rate's theoretical arrival time): lock_limit reads a value (0 when never written) and, in
  // transact(), locks it until the transaction ends; put_limit writes it.
  virtual core::Result<std::int64_t> get_limit(const core::Id& tenant, std::string_view name) = 0;
  virtual core::Result<std::int64_t> lock_limit(const core::Id& tenant, std::string_view name) = 0;
  virtual core::Status put_limit(const core::Id& tenant, std::string_view name, std::int64_t value) = 0;
  // Platform bookkeeping: insert or replace, delete (absent: not an error), read, and list a
  // kind in key order (keyset-paged; the cursor is the last key).
  virtual core::Status put_platform_record(std::string_view kind, std::string_view key, const core::Value& doc) = 0;
  virtual core::Status delete_platform_record(std::string_view kind, std::string_view key) = 0;
  virtual core::Result<std::optional<PlatformRecord>> get_platform_record(std::string_view kind,
                                                                          std::string_view key) = 0;
  // get_platform_record for several keys of a kind at once (out[i] for keys[i]); the default
  // asks for each.
  virtual core::Result<std::vector<std::optional<PlatformRecord>>> get_platform_records(
      std::string_view kind, std::span<const std::string> keys);
  virtual core::Result<Page<PlatformRecord>> list_platform_records(std::string_view kind,
                                                                   const PageRequest& page = {}) = 0;

  // ---- the serverless request queue (schema version 10; docs/serverless.md "Durable queue") ----
  // What serverless::QueueBackend asks of a store (backend/queue_backend.hpp adapts one to the
  // other), scoped to the tenant that owns the endpoints. Each call is one transaction: a batch
  // commits whole or not at all, and a batch with one invalid request (serverless::validate)
  // stores none. Times come from the store's clock. Kept last in the class; a Store that keeps
  // no queue inherits these defaults, which fail with ErrorCode::Unsupported.
  virtual core::Result<std::vector<serverless::DurableEnqueued>> enqueue_serverless_requests(
      const core::Id& tenant, std::span<const serverless::DurableEnqueue> requests);
  // Expires (as expire_serverless_requests), then claims up to `max` PENDING requests of the
  // endpoint by score (then age) for `worker`, each under a new claim token, leased for `lease`
  // (capped at the request's max_process when it has one). PostgreSQL skips rows another
  // claimer holds locked, so concurrent workers do not wait on each other.
  virtual core::Result<std::vector<serverless::DurableRequest>> claim_serverless_requests(
      const core::Id& tenant, std::string_view endpoint, std::string_view worker, std::int64_t max,
      core::Duration lease);
  // Start / renew / complete / fail reports; each applies only while its request is under the
  // claim token it names (else ok = false, nothing changed).
  virtual core::Result<std::vector<serverless::DurableFinished>> finish_serverless_requests(
      const core::Id& tenant, std::span<const serverless::DurableFinish> reports);
  virtual core::Result<std::int64_t> expire_serverless_requests(const core::Id& tenant, std::string_view endpoint);
  virtual core::Result<serverless::DurableCounts> count_serverless_requests(const core::Id& tenant,
                                                                            std::string_view endpoint);
  virtual core::Result<std::vector<serverless::DurableRequest>> list_serverless_requests(
      const core::Id& tenant, std::string_view endpoint, std::span<const serverless::QueueStatus> statuses,
      std::int64_t after_id, std::int64_t limit);
};

struct StoreOptions {
  // Apply forward migrations on open. With false, a store whose schema is older than the
  // library's fails to open (Unsupported) instead of being changed.
  bool migrate = true;
  // Times stamped by the store (created_at, updated_at, audit `at`); nullptr: system clock.
  std::shared_ptr<core::Clock> clock;
  // SQLite: how long a writer waits for another process's lock before ErrorCode::Io.
  core::Duration busy_timeout = core::Duration::seconds(10);
  // SQLite: PRAGMA synchronous=FULL (every commit survives power loss) when true, NORMAL
  // (survives process crashes) when false.
  bool durable = true;
};

// The schema version this library writes.
BUDCORE_API int latest_schema_version() noexcept;

// "sqlite:///abs/path.db", "sqlite://relative.db", "sqlite:path.db", "sqlite::memory:",
// "postgresql://user@host:port/db?..." (or "postgres://"; libpq connection URI).
// Errors: Invalid for an unknown scheme, Io when the database cannot be opened or is not a
// budcore store, Unsupported for a schema newer than this library.
BUDCORE_API core::Result<std::unique_ptr<Store>> open_store(std::string_view uri,
                                                            const StoreOptions& options = {});

// `budcore store check`: integrity of the database file (SQLite), the schema version, and every
// stored document parsed back. ok is false when any problem was found.
struct StoreCheckReport {
  bool ok = true;
  int schema_version = 0;
  int library_schema_version = 0;
  std::int64_t rows_checked = 0;
  std::vector<std::string> problems;
};
BUDCORE_API core::Result<StoreCheckReport> check_store(std::string_view uri);

// `budcore store migrate`: applies the schema migrations the store at `uri` needs, in one
// transaction (a database without a budcore schema gets the whole schema). Unsupported for a
// schema newer than this library.
struct MigrationReport {
  int from_schema_version = 0;  // 0: the database held no budcore schema
  int schema_version = 0;       // after the migrations
};
BUDCORE_API core::Result<MigrationReport> migrate_store(std::string_view uri);

}  // namespace budcore::backend
