// Private state of the Platform: the compact record of every live job (queued, admitted,
// running, or failed with a retry pending), the live pipeline runs with their engines, the
// metrics, and the helpers every platform source shares. Ended jobs live only in the Store.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "budcore/backend/notifier.hpp"
#include "budcore/backend/sim_cluster.hpp"
#include "budcore/pipeline/engine.hpp"
#include "budcore/pipeline/simulation.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/backend/secret_provider.hpp"
#include "budcore/job/image_ref.hpp"
#include "budcore/platform/rate_limiter.hpp"
#include "platform/metrics.hpp"
#include "platform/queued_docs.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::platform {

// A Clock fixed at one instant: transitions are stamped with the time the cluster reports.
class AtClock final : public core::Clock {
 public:
  explicit AtClock(core::Timestamp t) : t_(t) {}
  core::Timestamp now() const override { return t_; }

 private:
  core::Timestamp t_;
};

struct LiveJob {
  core::Id id;
  core::Id tenant;
  std::int64_t version = 0;      // the stored version (write_job's compare-and-set)
  std::int64_t run = 1;          // retry_count + 1
  std::int64_t queue_seq = 0;
  std::int64_t queued_ns = 0;    // last time it entered QUEUED (queue wait)
  std::int64_t admitted_ns = 0;
  std::int64_t started_ns = 0;
  std::int64_t retry_at_ns = 0;  // > 0: FAILED, the platform starts another run then
  std::int64_t budget_check_ns = 0;  // > 0: RUNNING with a budget_limit, checked then (job_costs.cpp)
  job::JobStatus status = job::JobStatus::Pending;
  job::JobType type = job::JobType::Batch;
  job::JobSource source = job::JobSource::Direct;
  job::JobPriority priority = job::JobPriority::Normal;
  bool in_cluster = false;                // the cluster holds its current run
  std::shared_ptr<job::Job> doc;          // cached while it holds quota (bounded by the cluster's size)
  std::unique_ptr<backend::Placement> placement;  // while admitted or running
};

class RunJobs;
class RunSink;

struct LiveRun {
  LiveRun();
  ~LiveRun();  // in pipelines.cpp, where RunJobs and RunSink are complete
  core::Id id;
  core::Id tenant;
  std::string principal;
  std::string pipeline;  // pipeline.name
  std::optional<core::Id> deployment;  // the use-case deployment the run deploys, if any
  core::Value document;
  std::int64_t version = 0;
  std::int64_t started_ns = 0;
  std::map<std::string, std::string, std::less<>> step_types;  // step id -> "job", "api_call", ...
  std::unique_ptr<RunJobs> jobs;
  std::unique_ptr<RunSink> sink;
  std::unique_ptr<pipeline::SimHttpClient> sim_http;
  std::unique_ptr<core::HttpClient> secret_http;  // expands secret:// for the run's tenant
  std::unique_ptr<pipeline::SimNotifier> sim_notifier;
  pipeline::FunctionRegistry functions;  // what its FUNCTION steps may call: the tenant's, then the shared ones
  std::optional<pipeline::Engine> engine;
  bool finished = false;
};

// One job write of a commit: the job as changed in memory and the version it was read at.
struct PendingWrite {
  LiveJob* live = nullptr;     // null for a job that is no longer live in memory
  core::Id tenant;
  std::shared_ptr<job::Job> job;
  std::int64_t expected_version = 0;
  bool ended = false;          // its platform record goes
};

// The config's per-tenant admission policy (registries, GPUs per job, GPU types, priorities),
// installed as the first admission gate when the config has one (tenant_policy.cpp).
class TenantPolicyGate final : public AdmissionGate {
 public:
  explicit TenantPolicyGate(SecurityConfig security);
  std::string_view name() const noexcept override;
  core::Status admit(const CallContext& caller, const job::Job& job, GateStage stage) override;

 private:
  struct Compiled {
    std::vector<job::ImagePattern> allowed, denied;
  };
  SecurityConfig security_;
  Compiled default_;
  std::map<core::Id, Compiled> compiled_;
};

// Who asks for a job: a caller's document, or a pipeline run's JOB step (use-case deploys run
// through one). Fields that say where a job came from are the platform's to write.
enum class JobOrigin : std::uint8_t { Caller, Pipeline };

// The reserved namespace of idempotency keys: the platform's own keys start with it, and a
// caller's key may not.
inline constexpr std::string_view kInternalKeyPrefix = "budcore:";

// Who an audit entry or a role binding names for a caller: its principal, "anonymous" without one.
std::string actor_of(const CallContext& caller);

struct BUDCORE_HIDDEN Platform::Impl {
  PlatformConfig config;
  std::shared_ptr<core::Clock> clock;
  core::VirtualClock* vclock = nullptr;  // when the clock is virtual
  std::unique_ptr<backend::Store> store;
  std::unique_ptr<backend::ClusterBackend> cluster;
  backend::SimCluster* sim = nullptr;  // when the cluster is the simulated one
  std::unique_ptr<backend::HttpClient> http;
  pipeline::FunctionRegistry functions;  // every tenant's runs may call these
  std::map<core::Id, pipeline::FunctionRegistry> tenant_functions;  // only that tenant's runs

  std::recursive_mutex mu;
  std::unordered_map<core::Id, LiveJob> live;
  QueuedDocs queued_docs{8'192};  // about 50 MB at most (a Job in memory is ~6 KB); see queued_docs.hpp
  std::priority_queue<std::pair<std::int64_t, core::Id>, std::vector<std::pair<std::int64_t, core::Id>>, std::greater<>>
      retries;  // (retry_at_ns, job): stale entries skipped
  std::vector<core::Id> resubmit;  // live jobs whose hand-over to the cluster failed (Io): tried again
  std::map<core::Id, std::unique_ptr<LiveRun>> runs;
  // (tenant, internal idempotency key) -> job, for the live jobs of pipeline JOB steps.
  std::map<std::pair<core::Id, std::string>, core::Id, std::less<>> pipeline_keys;

  std::vector<std::shared_ptr<AdmissionGate>> gates;
  std::shared_ptr<Authorizer> authorizer;
  std::shared_ptr<backend::SecretResolver> secrets;  // security.secrets
  std::vector<std::shared_ptr<UsageObserver>> usage_observers;
  std::shared_ptr<JobCostMeter> cost_meter;
  bool budget_stops_due = false;  // usage was metered or a run started since the last fire_budget_stops
  std::shared_ptr<CostControls> cost_controls;  // attached on open from config.prices
  std::priority_queue<std::pair<std::int64_t, core::Id>, std::vector<std::pair<std::int64_t, core::Id>>, std::greater<>>
      budget_checks;  // (budget_check_ns, job): stale entries skipped
  Metrics metrics;
  std::vector<MetricsSource> metrics_sources;  // add_metrics_source(): read by metrics(), in order added
  // Calls every source, drops those gone (nullopt) and, with `report`, puts the samples of the
  // others into `metrics`.
  void read_metrics_sources(bool report);

  std::shared_ptr<backend::Notifier> anchor_notifier;  // security.audit_anchor
  std::int64_t next_anchor_ns = 0;
  std::int64_t next_compaction_ns = 0;  // the platform clock: when the leader compacts next (retention)
  // Publishes every tenant's audit chain head when the interval has passed (security.cpp).
  core::Status publish_audit_anchor();
  // Retention: compacts the store when retention.interval has passed (retention.cpp).
  core::Status compact_if_due();
  core::Result<backend::CompactionReport> compact_now();

  std::optional<core::Error> halted;  // a store failure mid-commit: reopen to continue

  // --- ha.cpp (docs/ha.md). Single: no `ha` section, the only process on its store.
  enum class HaRole : std::uint8_t { Single, Follower, Leader };
  HaRole ha_role = HaRole::Single;
  std::int64_t ha_epoch = 0;
  std::int64_t ha_next_step_ns = 0;     // steady clock: the next election step
  std::int64_t ha_next_peek_ns = 0;     // steady clock: the next look for a lease given up
  std::int64_t ha_renew_us = 0;         // how long the last election step took
  std::int64_t ha_view_marker = -1;     // a follower's view of the live jobs: the store's change marker it was read at
  std::int64_t ha_seen_marker = -1;     // the leader's last look at the requests
  bool ha_deposed = false;              // a fenced write failed: step down at the next step
  // Another process took this replica's id over while this one was silent (paused past a
  // lease): it stops taking part (ha_step) and ha_status() says why.
  std::atomic<bool> ha_replaced{false};
  core::Status note_report(core::Status reported);
  core::Status wait_for_predecessor();
  core::Status check_no_replicas();  // Conflict while replicas hold the store's lease
  core::Error replaced_error() const {
    return core::Error::make(core::ErrorCode::AlreadyExists,
                             "replica " + config.ha->replica +
                                 " is run by another process now (it took the id over while this one was silent for a "
                                 "lease): this one takes no further part",
                             "ha.replica");
  }
  // The election: a follower takes the lease when it is free and becomes leader (recovers from
  // the store); a leader steps down when its renewer lost the lease or could not renew in time.
  // Called by the background driver.
  core::Status ha_step();
  bool lease_given_up(std::int64_t now);
  core::Status cluster_shown_here() const;  // NotLeader on a follower over the simulated cluster
  // A leader in the middle of a long stretch of work (a backlog of requests or events) checks
  // that it still leads (no store round trip: the renewer keeps the lease); false when it no
  // longer leads and must stop.
  bool ha_keep_leading();

  // The renewer (ha.cpp): a thread of its own with a store handle of its own that renews the
  // leader's lease every `renew` period, whatever the driving thread is doing (a long round of
  // work, a slow callback, a recovery). It never takes `mu`; the driving thread takes
  // `renewer.mu` under `mu` (lock order: mu, then renewer.mu). It tells the driving thread
  // what it found through `until_ns` and `lost`; the driving thread steps down through
  // step_down() before its next fenced write.
  struct Renewer {
    std::mutex mu;
    std::condition_variable cv;
    std::unique_ptr<backend::Store> store;  // a second handle on config.store_uri
    std::thread thread;
    // Guarded by mu.
    bool stop = false;
    std::int64_t term = 0;   // grows at every start and stop: a renewal of an older term is dropped
    std::int64_t epoch = 0;  // the epoch renewed; 0: not renewing (a follower)
    bool in_flight = false;  // a renewal is under way (the driving thread lets it through: ha_keep_leading)
    std::vector<double> latencies;  // seconds, for budcore_ha_renewal_seconds (the driver records them)
    // Read by the driving thread without mu.
    std::atomic<std::int64_t> until_ns{0};  // steady clock: this replica may act as leader until then
    std::atomic<bool> lost{false};          // the lease names another holder or epoch
  };
  Renewer renewer;
  core::Status start_renewer();        // in ha_join: opens the handle, starts the thread
  void stop_renewer();                 // joins the thread (close, or an open that failed)
  void renew_as(std::int64_t epoch, std::int64_t until_ns);  // become_leader: renew at this epoch
  void renew_stop();                   // step_down: no more renewals
  void renewer_loop();
  void drain_renewals();               // the renewer's latencies into the metrics (under mu)
  ~Impl();
  core::Status ha_join();    // on open: this process's lease identity; refuses an id a live process uses
  std::string ha_instance;   // a fresh token per open
  std::string ha_holder;     // "<replica>#<instance>": what the lease names
  // until_ns: the steady clock instant the lease just taken surely holds until.
  core::Status become_leader(const backend::LeaseState& lease, std::int64_t until_ns);
  void step_down(std::string_view why);
  // Forgets every live job and run and starts an empty cluster (a follower drives nothing).
  core::Status reset_drive_state();
  // The leader carries out the followers' requests, oldest first.
  core::Status apply_requests();
  core::Status apply_request(const backend::PlatformRequest& r);
  // A follower's submitted job handed to the leader's cluster: its record and job, read for a
  // batch of requests at once.
  using Adoptions = std::unordered_map<core::Id, std::pair<backend::PlatformRecord, backend::JobRecord>>;
  core::Result<Adoptions> read_adoptions(const std::vector<backend::PlatformRequest>& batch);
  core::Status adopt(const backend::PlatformRequest& r, Adoptions& adoptions);
  // A follower's view of the live jobs (for schedules and metrics), read again when the store changed.
  core::Status refresh_view();
  // A follower's mutation: the request and its audit entry in one transaction; returns the
  // record as it stands (the leader carries the request out).
  core::Result<backend::JobRecord> request(const CallContext& caller, std::string_view kind,
                                           const backend::JobRecord& rec, core::Map args);
  core::Status append_request(backend::Store& tx, const CallContext& caller, std::string_view kind,
                              const core::Id& object, core::Map args);
  // A NotLeader from a fenced write: this replica was deposed; it steps down at the next step.
  core::Error fail_if_deposed(core::Error e);
  // Requests' targets (jobs.cpp, pipelines.cpp): also what the public calls do on a leader.
  core::Result<backend::JobRecord> change_priority(const CallContext& caller, const core::Id& id, job::JobPriority priority);
  core::Result<backend::JobRecord> preempt(const CallContext& caller, const core::Id& id, std::string_view reason);
  core::Result<PipelineRun> cancel_run(const CallContext& caller, const core::Id& id, std::string_view reason);

  // System clock: the background driver.
  std::thread driver;
  std::condition_variable_any wake;
  bool stopping = false;

  // --- platform.cpp
  // Refuses a call before it reads or writes anything: halted, no tenant, or the authorizer
  // (which sees the job's project for a job named by id; denials are audited).
  core::Status guard(const CallContext& caller, std::string_view verb, std::string_view resource,
                     const core::Id* object = nullptr, const core::Id* project = nullptr);
  // guard() for jobs about to be created: "create" in every project the jobs name,
  // "create_critical" for critical ones.
  core::Status guard_submit(const CallContext& caller, const std::vector<SubmitRequest>& jobs);
  // Every check a job passes before it is created or changed, on every path (tenant_policy.cpp
  // and job_policy.cpp): the fields only the platform writes, the roles (create, and
  // create_critical for a critical job), then the admission gates (tenant policy first).
  core::Status check_origin(const job::Job& job, std::string_view idempotency_key, JobOrigin origin) const;
  core::Status admit_job(const CallContext& caller, const job::Job& job, GateStage stage);
  // The jobs the keys of a batch name now, in one read: out[i] for jobs[i] (nullopt: no key, a
  // new key, or skip[i]).
  core::Result<std::vector<std::optional<backend::JobRecord>>> read_keys(const core::Id& tenant,
                                                                         const std::vector<SubmitRequest>& jobs,
                                                                         const std::vector<bool>& skip);
  // A job an existing key names is returned to this submit (a replay) only when the caller may
  // read it and sent the same document (`digest`: empty when not checked).
  core::Status check_replay(const CallContext& caller, const backend::JobRecord& existing, const job::Job& sent,
                            std::string_view digest);
  // After another request created a job under a key of this batch: the jobs still to create whose
  // keys now name a job become replays, checked as any replay is. Returns how many did.
  core::Result<std::size_t> take_replays(const CallContext& caller, const std::vector<SubmitRequest>& jobs,
                                         const std::vector<std::string>& digests, bool batch,
                                         std::vector<bool>& replayed, std::vector<SubmitResult>& results);
  // A document that did not decode as a job, from a caller who may submit: its tokens are taken.
  core::Status charge_undecoded(const CallContext& caller, const core::Value& doc, std::size_t n);
  // A job record as the caller may see it: with RBAC, cost fields (estimated_cost, actual_cost,
  // budget_limit) are for those who may "get costs" in the job's project (admins); others get
  // them cleared.
  core::Result<backend::JobRecord> visible(const CallContext& caller, core::Result<backend::JobRecord> rec);
  // A submit of n jobs against its tenant's queue depth and token bucket (RateLimited with a
  // retry-after; tenant_policy.cpp). The bucket is kept in the Store, so it holds across every
  // process on it: checked before anything else, taken in the submit's transaction (or alone
  // when the submit is refused later: a refused submit still counts).
  struct SubmitTicket {
    bool limited = false;
    SubmitRateLimiter::Limit limit;
    std::int64_t n = 0;
    std::int64_t now_ns = 0;
    std::string path;  // "security.tenants.<tenant or *>"
  };
  core::Result<SubmitTicket> check_submit_limits(const CallContext& caller, std::size_t n);
  // max_queued_jobs against the store's count (every handle and process submits there), in the
  // submit's transaction.
  core::Status check_open_jobs(backend::Store& tx, const CallContext& caller, std::size_t n);
  // "security.tenants.<tenant id or *>": where the caller's policy is configured.
  std::string policy_path(const core::Id& tenant) const;
  core::Status decide_submit(const SubmitTicket& t, std::int64_t& tat) const;
  core::Status take_submit_tokens(backend::Store& tx, const CallContext& caller, const SubmitTicket& t);
  // An audit entry's who, what and when: the caller's principal ("anonymous" without one), its
  // request id, the platform's clock.
  backend::AuditEntry audit_entry(const CallContext& caller, std::string_view action, std::string_view object_type,
                                  std::string_view object) const;
  // The audit entry of a mutation, in the mutation's transaction: who, what, the object, and
  // SHA-256 digests of its JSON before and after ("" = none).
  core::Status audit(backend::Store& tx, const CallContext& caller, std::string_view action,
                     std::string_view object_type, std::string_view object, std::string_view before,
                     std::string_view after, core::Map extra = {}) const;
  core::Status check_gates(const CallContext& caller, const job::Job& job, GateStage stage);
  core::Result<backend::WorkloadRequest> request_for(const LiveJob& lj, const job::Job& job) const;
  void hand_to_cluster(LiveJob& lj, const job::Job& job);
  core::Error fail_halted(core::Error e);  // records the halt, returns e
  // A refused call's audit entry, at a bounded rate per tenant (platform.cpp).
  void audit_denial(const CallContext& caller, std::string action, std::string_view type, std::string object,
                    const std::string& reason);
  SubmitRateLimiter denial_limiter;
  std::unordered_map<core::Id, std::int64_t> denials_unrecorded;
  static constexpr std::size_t kMaxRequestId = 256;

  // --- jobs.cpp
  core::Result<job::Job> prepare(const CallContext& caller, job::Job job, std::string_view path);
  core::Result<std::vector<SubmitResult>> submit_jobs(const CallContext& caller, std::vector<SubmitRequest> jobs,
                                                      bool batch, JobOrigin origin = JobOrigin::Caller);
  core::Result<backend::JobRecord> cancel(const CallContext& caller, const core::Id& id, std::string_view reason);
  core::Result<backend::JobRecord> retry(const CallContext& caller, const core::Id& id, bool automatic);

  // --- driver.cpp
  core::Status pump_locked();
  std::optional<core::Timestamp> next_wakeup_locked();
  // Commits a batch of events in one transaction; `also`, when set, writes in that transaction
  // too (which then commits even if no job changes).
  using TxWrite = std::function<core::Status(backend::Store& tx)>;
  core::Status apply_events(std::vector<backend::ClusterEvent>& events, const TxWrite& also = {});
  // The listed workloads with the simulated cluster's quota usage (operator and caller views).
  ClusterSnapshot cluster_snapshot(std::vector<backend::WorkloadInfo> workloads) const;
  LiveJob* event_job(const backend::ClusterEvent& e);
  core::Result<std::unordered_map<core::Id, backend::JobRecord>> read_documents(
      backend::Store& tx, const std::vector<backend::ClusterEvent>& events);
  core::Status fire_retries();
  core::Status pump_runs(bool& progressed);
  core::Status save_clock(backend::Store& tx);
  // Moves `job` to `to` at `at`, recording the transition for the event log and metrics.
  core::Status move(LiveJob* lj, job::Job& job, job::JobStatus to, core::Timestamp at, std::string_view message,
                    std::vector<std::pair<core::Id, backend::EventRecord>>& log);
  core::Value record_doc(const LiveJob& lj) const;
  void background_loop();

  // --- schedule.cpp: the timeline of the live jobs, cached until a live job changes or time
  // passes an instant at which it expected a start or an end that has not been reported.
  std::optional<schedule::TimelineResult> timeline_cache;
  std::unordered_map<std::string, std::size_t> timeline_index;  // job id -> timeline_cache->jobs
  std::uint64_t timeline_digest = 0;
  core::Timestamp timeline_valid_until;
  // What the timeline reads of a live job's document, kept while the job's stored version and
  // queue position stand: a rebuild reads the store only for the jobs that changed.
  struct TimelineJobInput {
    std::int64_t version = 0;
    std::int64_t queue_seq = 0;
    schedule::JobInput input;
    bool assumed_duration = false;  // no estimated or maximum duration: 3600 s, with a warning
  };
  std::unordered_map<core::Id, TimelineJobInput> timeline_inputs;
  core::Result<const TimelineJobInput*> timeline_job_input(const LiveJob& lj);
  core::Result<schedule::TimelineInput> timeline_input(std::vector<std::string>* warnings);
  core::Result<const schedule::TimelineResult*> current_timeline();
  // What one tenant may see of the whole timeline: its jobs, other tenants' ids removed from texts.
  schedule::TimelineResult tenant_view(const schedule::TimelineResult& all, const core::Id& tenant) const;
  void mark_waiting_for_placement(schedule::TimelineResult& view) const;
  // `text` with every job id but the tenant's live jobs' (and its own id) as "[hidden]".
  std::string redact_for(const std::string& text, const core::Id& tenant) const;
  // --- gpu_view.cpp
  std::vector<GpuFlavorReport> gpu_reports() const;
  // The key of the tokens in hidden names: random, made once per store and kept in its
  // platform records, so every process on the store names a run alike.
  std::string view_key;
  core::Result<std::string> hidden_key();
  // How `viewer` names another tenant's run: "[hidden <token>]", the token a short keyed digest
  // of the viewer, the job and the run. A new run (another job, or the job's next run) gets
  // another token, so a plan naming the old one is stale; without the key the token cannot be
  // guessed, nor one tenant's token linked to another's of the same run.
  core::Result<std::string> hidden_name(const core::Id& viewer, const core::Id& job, std::int64_t run);
  // The defragmentation problem of one of the caller's waiting jobs as the caller may see it
  // (estimated ends from the timeline; other tenants' runs named by hidden_name), and each
  // holder's job id in the same order.
  struct DefragView {
    gpu::DefragProblem problem;
    std::vector<std::string> job_ids;
  };
  core::Result<DefragView> defrag_view(const CallContext& caller, const core::Id& job_id);
  // An applied plan's cluster events and its audit entry, committed together.
  core::Status commit_defrag(const CallContext& caller, const core::Id& job_id, const core::Value& plan_doc);
  void gpu_gauges(Metrics& m) const;
  void fill_estimates(backend::JobRecord& rec);  // estimated_start / estimated_end of a live job

  // --- job_costs.cpp (the JobCostMeter's calls; all no-ops without one)
  // The job's document: the one cached while it holds quota, else read from the Store.
  core::Result<std::shared_ptr<const job::Job>> job_doc(const LiveJob& lj);
  // An ended job's actual_cost from the meter, read in `tx`, the transaction that writes the
  // job; true when it changed (unchanged when the meter cannot price the job).
  bool price_ended(backend::Store& tx, const core::Id& tenant, job::Job& job);
  // In the batch's transaction, before its jobs are written: the batch's usage segments stored,
  // then actual_cost on the jobs it ends and on ended jobs whose last segment it holds (those
  // join `writes` and `order` with no live record).
  core::Status meter_batch(backend::Store& tx, const std::vector<const backend::ClusterEvent*>& usage,
                           std::unordered_map<core::Id, PendingWrite>& writes, std::vector<core::Id>& order);
  // Asks the meter when a running job with a budget_limit would pass it and remembers the time.
  void schedule_budget_check(LiveJob& lj);
  // Checks the running jobs whose time has come; stops and fails those past their limit.
  core::Status fire_budget_checks();
  // Running jobs covered by a passed stop_running budget, stopped (job_costs.cpp).
  core::Status fire_budget_stops();
  // Stops a running job's run and fails the job for good with `message` (a budget stop).
  core::Status stop_for_budget(LiveJob& lj, backend::JobRecord rec, core::Timestamp now, const std::string& message,
                               std::string_view no_retry_because);
  std::optional<core::Timestamp> next_budget_check();

  // --- recovery.cpp
  core::Status recover();
  core::Status recover_runs();

  // --- pipelines.cpp
  // Stores and starts a run (the caller is authorized): run_pipeline, and deploy_usecase for
  // the deployment's own run.
  core::Result<PipelineRun> start_run(const CallContext& caller, const core::Value& document, core::Value params,
                                      std::optional<core::Id> deployment);
  core::Status start_engine(LiveRun& run, const core::Value* saved_state);
  std::optional<core::Timestamp> next_deferred_submit(const LiveRun& run) const;
  core::Status start_stored_run(const core::Id& tenant, const core::Id& id);
  core::Status finish_run(LiveRun& run);
  // A run's state is saved as its run-level fields on the pipeline record and one step record
  // per step of the state (RunSink writes only the ones a transition changed): puts the whole
  // state (RunState::to_value) back into rec.state. A state saved whole is left as it is.
  core::Status load_run_state(const core::Id& tenant, backend::PipelineRecord& rec);
};

// A number kept in a platform record's document (0 when absent).
inline std::int64_t record_int(const core::Value& doc, std::string_view key) {
  const core::Value* v = doc.find(key);
  return v != nullptr && v->is_int() ? v->as_int() : 0;
}

// The live job a job's platform record and stored document describe (recovery.cpp): what a
// reopened platform, a new leader and a follower's view rebuild from.
core::Result<LiveJob> live_from_record(const backend::PlatformRecord& r, const core::Id& tenant,
                                       const backend::JobRecord& rec);

// Placement <-> the JSON kept in a job's platform record.
core::Value placement_value(const backend::Placement& p);
core::Result<backend::Placement> placement_from(const core::Value& v);

// A deterministic UUID (version 8) from a text: pipeline_step_id of a run's step.
core::Id derived_id(std::string_view text);

// cluster.backend: kubernetes (kubernetes_cluster.cpp).
core::Result<std::unique_ptr<backend::ClusterBackend>> open_kubernetes_cluster(const PlatformConfig& config,
                                                                               const core::Clock& clock);

}  // namespace budcore::platform

#pragma GCC visibility pop
