// budcore::platform::Platform — the facade the library exists for: it owns a Store, a
// ClusterBackend, the quota admission engine (inside the simulated cluster), pipeline engines
// and a Clock, and carries a job from submission to completion:
//
//   submit -> PENDING -> QUEUED -> SCHEDULED -> RUNNING -> COMPLETED | FAILED | CANCELLED | PREEMPTED
//
// Rules (docs/platform.md):
// - Persist before acting: a job is committed (QUEUED, with its PENDING -> QUEUED transition)
//   before the cluster hears of it; every transition the cluster reports is committed before
//   anything acts on it. A reopened Platform rebuilds everything from the Store (jobs, queue
//   order, admitted workloads with their flavors, pipeline runs) and hands the live runs back to
//   the cluster (ClusterBackend::adopt). Cluster events are applied in batches, one store
//   transaction per batch (group commit).
// - Every call takes a CallContext. Another tenant's job or run is NotFound. Illegal moves
//   (cancel a completed job, retry a running one) are Conflict naming the status; bad documents
//   are Invalid naming the field. Nothing is half-applied.
// - Failed runs are retried by job::RetryPolicy (backoff, jitter, circuit breaker) while
//   retry_count < max_retries; a preempted run is requeued by the cluster.
// - Time: a virtual clock moves only when the Platform is driven (run_until, run_until_idle)
//   and is persisted, so a reopened Platform resumes at the time it stopped; a system clock
//   is driven by a background thread.
//
// Where the other layers plug in: admission gates (budgets, tenant policy, rate limits), an
// Authorizer (RBAC), usage observers, a job cost meter (metering, actual_cost, budget_limit) —
// hooks.hpp. Use-case deployments (deploy_usecase, usecase_deploy.cpp) run over the same Store
// and cluster.
//
// Thread-safety: every member may be called from any thread; calls are serialized by one lock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/backend/cluster_backend.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/gpu/fragmentation.hpp"
#include "budcore/job/job.hpp"
#include "budcore/pipeline/executors.hpp"
#include "budcore/pipeline/step.hpp"
#include "budcore/platform/config.hpp"
#include "budcore/platform/context.hpp"
#include "budcore/platform/hooks.hpp"
#include "budcore/platform/rbac.hpp"
#include "budcore/schedule/timeline.hpp"
#include "budcore/usecase/deployment.hpp"
#include "budcore/usecase/registry.hpp"

namespace budcore::platform {

class CostControls;  // cost_controls.hpp

struct SubmitRequest {
  job::Job job;
  std::string idempotency_key;  // empty: none
};

struct SubmitResult {
  backend::JobRecord record;
  bool created = false;  // false: the idempotency key named an existing job, returned as is
};

// One page of a tenant's event log. Resume with `since = last_seq`.
struct EventPage {
  std::vector<backend::EventRecord> events;
  std::int64_t last_seq = 0;  // the seq of the last event returned (or `since` when none)
};

// A pipeline run driven by the Platform (its record lives in the Store's pipelines table).
struct BUDCORE_API PipelineRun {
  core::Id id;
  std::string pipeline;  // the document's pipeline.name
  pipeline::PipelineStatus status = pipeline::PipelineStatus::Pending;
  core::Value state;     // pipeline::RunState::to_value(): every step's state, message and outputs
  std::int64_t version = 0;
  core::Timestamp created_at;
  core::Timestamp updated_at;
  // {"id", "pipeline", "status", "created_at", "updated_at", "version", "state"}
  core::Value to_value() const;
};

// What the cluster holds and the quota it uses (for views and tests).
struct ClusterSnapshot {
  std::vector<backend::WorkloadInfo> workloads;
  // cluster queue -> flavor -> resource -> {used, nominal} (milli-units)
  struct Cell {
    std::int64_t used = 0;
    std::int64_t nominal = 0;
  };
  std::map<std::string, std::map<std::string, std::map<std::string, Cell>>> usage;
  // In a caller's view (cluster(caller)): how the caller names workloads[i]'s job, its id or
  // "[hidden <token>]" for another tenant's run (whose job_id and tenant are then nil and its
  // message empty). Empty in the operator's view, cluster(), which names every job by id.
  std::vector<std::string> names;
};

// One flavor's GPU nodes in the simulated cluster under a placement policy (docs/gpu.md "In the
// platform"): FGD's fragmentation per node and for the flavor, the unallocated share, and per
// GPU model the largest gang that still fits. The task mix is the distinct requests placed on
// the flavor so far (one whole GPU before any).
struct GpuFlavorReport {
  std::string flavor;
  gpu::PoolReport report;
};

// A replica's view of the election (docs/ha.md): its role ("single" without an `ha` section,
// "leader" or "follower"), the epoch it leads under, the lease as the store holds it, and every
// replica's last report.
struct HaStatus {
  std::string role;
  std::string replica;
  std::int64_t epoch = 0;
  backend::LeaseState lease;
  std::vector<backend::ReplicaRecord> replicas;
};

class BUDCORE_API Platform {
 public:
  // Opens the Store (migrating it), builds the cluster, restores the virtual clock, rebuilds
  // the live jobs and pipeline runs from the Store and hands them to the cluster. Errors: the
  // config's (Invalid, naming the field), the Store's (Io, Unsupported).
  static core::Result<std::unique_ptr<Platform>> open(PlatformConfig config);
  // The same on a cluster of the caller's instead of the simulated one: a
  // kubernetes::KueueCluster, whose Kueue admits the jobs. config.cluster.layout must be the
  // layout that cluster renders with; config.clock should be System (a real cluster runs in real
  // time; the platform then polls it at least every second). Reopening the platform on the same
  // Store hands the cluster every live run (ClusterBackend::adopt).
  static core::Result<std::unique_ptr<Platform>> open(PlatformConfig config,
                                                      std::unique_ptr<backend::ClusterBackend> cluster);
  // The embedded default (PlatformConfig::embedded): SQLite in `dir`, simulated cluster, virtual clock.
  static core::Result<std::unique_ptr<Platform>> open_embedded(const std::string& dir);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  const PlatformConfig& config() const noexcept;
  core::Timestamp now() const;

  // ---- jobs ----------------------------------------------------------------------------------
  // Validates the job (Invalid naming the field), fills tenant (from the caller), id, created_at;
  // builds its Kueue workload (Invalid when its resources are); asks the admission gates; then
  // commits it QUEUED and hands it to the cluster. With an idempotency key a retried submit
  // returns the first job (created = false) and hands nothing to the cluster.
  core::Result<SubmitResult> submit(const CallContext& caller, job::Job job, std::string_view idempotency_key = {});
  // Many jobs in one store transaction: all are checked first (the first bad one is an error
  // naming "jobs[i].<field>", and nothing is created), then created together.
  core::Result<std::vector<SubmitResult>> submit_batch(const CallContext& caller, std::vector<SubmitRequest> jobs);
  // The same from documents as callers send them (a job, {"job", "idempotency_key"}; a batch
  // {"jobs": [...]} or a list: platform_json.hpp). Decoded inside the platform after the
  // caller's role is known, so that a document that is not a job still takes its submit tokens
  // (the surfaces use these: a flood of malformed documents is limited like any other).
  core::Result<SubmitResult> submit_document(const CallContext& caller, const core::Value& document,
                                             std::string_view idempotency_key = {});
  // A batch key makes a retried batch idempotent as a whole: each job without a key of its own
  // is keyed "<batch_key>/<i>" (i its place in the batch), so a retry returns the same jobs.
  core::Result<std::vector<SubmitResult>> submit_batch_document(const CallContext& caller, const core::Value& document,
                                                                std::string_view batch_key = {});
  // (job document, idempotency key) pairs; errors name "jobs[i].<field>".
  core::Result<std::vector<SubmitResult>> submit_batch_documents(const CallContext& caller,
                                                                 const std::vector<std::pair<core::Value, std::string>>& jobs);
  core::Result<backend::JobRecord> get_job(const CallContext& caller, const core::Id& id);
  core::Result<backend::Page<backend::JobSummary>> list_jobs(const CallContext& caller, const backend::JobFilter& filter,
                                                             const backend::PageRequest& page = {});
  // Cancels a job that has not ended (Conflict for a completed or cancelled one); its run is
  // removed from the cluster.
  core::Result<backend::JobRecord> cancel_job(const CallContext& caller, const core::Id& id, std::string_view reason = {});
  // Starts another run of a FAILED job now (Conflict when it is not FAILED or its retry budget
  // is spent; the admission gates are asked with GateStage::Retry).
  core::Result<backend::JobRecord> retry_job(const CallContext& caller, const core::Id& id);
  // Changes a job's priority (queue order and preemption); Conflict for an ended job.
  core::Result<backend::JobRecord> set_priority(const CallContext& caller, const core::Id& id, job::JobPriority priority);
  // An administrator's preemption of an admitted or running job: it goes PREEMPTED and back to
  // the queue. Conflict when it holds no quota.
  core::Result<backend::JobRecord> preempt_job(const CallContext& caller, const core::Id& id, std::string_view reason = {});
  // The caller's events with seq > since, oldest first (at most `limit`, 1..10000): every job
  // transition ("job.transition": {"job", "name", "from", "to", "message", "run"}; a
  // submission's PENDING -> QUEUED also has "job_type", "source", "idempotency_key",
  // "request_id", "principal"), priority changes ("job.priority_changed"), deadline misses
  // ("job.deadline_missed") and pipeline runs ("pipeline.started", "pipeline.transition").
  // Resumable: pass the last seq seen.
  core::Result<EventPage> watch(const CallContext& caller, std::int64_t since, std::size_t limit = 1000);

  // ---- schedule (docs/schedule.md "The platform's timeline") ---------------------------------
  // When each of the caller's waiting and running jobs is expected to start and end: a
  // schedule::Timeline of every live job under the platform's quota configuration (all tenants
  // share it), of which the caller sees its own tenant's jobs. Durations are the jobs'
  // estimated_duration_seconds (else max_duration_seconds, else 3600 s with a warning). The
  // timeline is kept until a live job changes or time passes an instant at which it expected a
  // start or an end; get_job() fills a live job's estimated_start / estimated_end from it.
  // Needs "list jobs" in the tenant (viewer).
  core::Result<schedule::TimelineResult> schedule(const CallContext& caller);

  // ---- pipelines -----------------------------------------------------------------------------
  // Validates the pipeline document (Invalid naming the field), stores the run and starts it.
  // Its JOB steps submit platform jobs (source PIPELINE, pipeline_id = the run's id,
  // pipeline_step_id derived from the step) with the idempotency key
  // "budcore:pipeline/<run>/<step>/<attempt>" (keys starting with "budcore:" are the platform's:
  // a caller's submit may not use one); they pass the same roles, tenant policy and submit
  // limits as the caller's own submits (a step over the limits waits and submits again);
  // step outputs are the jobs' outputs. API_CALL / NOTIFICATION go to the configured executors.
  core::Result<PipelineRun> run_pipeline(const CallContext& caller, const core::Value& document,
                                         core::Value params = {});
  core::Result<PipelineRun> get_pipeline_run(const CallContext& caller, const core::Id& id);
  // Cancels the run; its running jobs are cancelled. Conflict for a run that has ended.
  core::Result<PipelineRun> cancel_pipeline_run(const CallContext& caller, const core::Id& id,
                                                std::string_view reason = "cancelled");
  // FUNCTION steps of runs call these (registered before runs that use them are started or
  // restored). AlreadyExists for a name registered twice in one scope. With a tenant, only that
  // tenant's runs see the function (a tenant's function shadows a shared one of the same name);
  // without one every tenant's runs may call it: such a function is the embedding service's
  // own and must decide what to do for whom from FunctionCall::tenant and ::principal.
  core::Status register_function(std::string name, pipeline::StepFunction function,
                                 std::optional<core::Id> tenant = std::nullopt);

  // ---- use-case deployments (usecase_deploy.cpp; docs/usecases.md "Deploying") ----------------
  // Resolves the template with `params` (Invalid naming the parameter or component path, every
  // problem listed in the message; nothing is stored), plans its jobs, stores the deployment
  // record (platform record kind "usecase_deployment") and runs the stack's pipeline through
  // run_pipeline: every job it creates carries usecase_deployment_id = the record's id.
  // `template_ref` is "<id>" or "<id>@<version>": the caller tenant's template catalog in this
  // platform's Store first (resolved against the tenant's components), else a shipped template.
  core::Result<usecase::DeploymentRecord> deploy_usecase(const CallContext& caller, std::string_view template_ref,
                                                         const core::Value& params);
  core::Result<usecase::DeploymentRecord> deploy_usecase(
      const CallContext& caller, const usecase::UseCaseTemplate& tmpl, const core::Value& params,
      const usecase::ComponentRegistry& components = usecase::builtin_components());
  // The record with its components' job ids and statuses read now, and the status they imply
  // (failed as well when the pipeline run ended failed or cancelled before every job existed).
  // NotFound for another tenant's deployment.
  core::Result<usecase::DeploymentRecord> get_deployment(const CallContext& caller, const core::Id& id);
  // The caller tenant's deployments, oldest first.
  core::Result<std::vector<usecase::DeploymentRecord>> list_deployments(const CallContext& caller);
  // Cancels the deployment's jobs that have not ended, dependents first (the reverse dependency
  // order), then its pipeline run if it still runs, and marks the record torn down (status
  // deleted). Idempotent: tearing down a torn-down deployment returns it unchanged.
  core::Result<usecase::DeploymentRecord> teardown_deployment(const CallContext& caller, const core::Id& id);

  // ---- security (docs/security.md) --------------------------------------------------------------
  // Grants `binding` in the caller's tenant (needs tenant-admin there; a platform-admin binding
  // goes to the system tenant and needs platform-admin). Invalid naming principal, role or
  // project (tenant-admin and platform-admin take no project); AlreadyExists when bound.
  // Audited ("role_bindings.bind").
  core::Result<backend::RoleBindingRecord> bind_role(const CallContext& caller, const RoleBinding& binding);
  // Revokes it (NotFound when it is not bound). Audited ("role_bindings.unbind").
  core::Status unbind_role(const CallContext& caller, const RoleBinding& binding);
  // The caller tenant's bindings (of one principal when given); tenant-admin.
  core::Result<std::vector<backend::RoleBindingRecord>> list_role_bindings(
      const CallContext& caller, std::optional<std::string> principal = std::nullopt);
  // The caller tenant's audit log, oldest first; tenant-admin.
  core::Result<backend::Page<backend::AuditEntry>> list_audit(const CallContext& caller, const backend::AuditQuery& query,
                                                              const backend::PageRequest& page = {});
  // Checks every tenant's audit chain and head; platform-admin.
  // anchors: entry hashes kept outside the store (heads published earlier, AuditAnchorConfig):
  // each must still be the hash of a chained entry.
  core::Result<backend::AuditChainReport> verify_audit(const CallContext& caller,
                                                       const std::vector<std::string>& anchors = {});
  // Compacts the store now by the config's `retention` (docs/store.md "Retention"; the leader
  // also does it every retention.interval_seconds); platform-admin. Invalid without a
  // `retention` section; NotLeader on a follower (the leader compacts).
  core::Result<backend::CompactionReport> compact(const CallContext& caller);

  // ---- driving -------------------------------------------------------------------------------
  // Acts on everything due now: retries, cluster events (applied and committed in batches),
  // pipeline steps. A system-clock Platform does this on its own thread; call it to hurry.
  core::Status pump();
  // The earliest time something is due (none: only outside input can change anything).
  std::optional<core::Timestamp> next_wakeup();
  // Virtual clock only (Unsupported otherwise): pump, move the clock to the next wakeup, repeat,
  // until nothing is due before `until`; ends with the clock at `until`.
  core::Status run_until(core::Timestamp until);
  // Virtual clock only: runs until nothing more is scheduled (every job ended or waits for
  // outside input), at most `max_span` of virtual time. Returns the time reached.
  core::Result<core::Timestamp> run_until_idle(core::Duration max_span = core::Duration::hours(24 * 365));

  // ---- high availability (docs/ha.md) --------------------------------------------------------
  // With an `ha` section the platform is one replica of several on one store: the leader
  // drives everything and every write of its commits only while it holds the lease's epoch;
  // a follower serves reads and takes submit, cancel, retry, priority, preempt, pipeline runs
  // and deploys as requests the leader carries out (the call returns once the request is
  // stored: durable, not yet done). A deposed leader's write fails with NotLeader and it steps
  // down. Closing the platform (the destructor) resigns the lease so a follower leads at once.
  core::Result<HaStatus> ha_status();

  // ---- observability -------------------------------------------------------------------------
  // Prometheus text exposition (version 0.0.4): the job lifecycle, pipeline and scheduling
  // metrics (docs/platform.md "Metrics").
  std::string metrics();
  // Every tenant's runs by job id: the operator's view (an in-process call takes no caller).
  // A follower of replicas (ha) on the simulated cluster holds no runs: the leader drives it.
  ClusterSnapshot cluster();
  // What the cluster holds as the caller may see it (RBAC: "list" on jobs): the caller's
  // tenant's runs by job id, every other tenant's run as "[hidden <token>]" (the token as in
  // gpu_defrag, so a run is named alike in both) with no tenant or message. A platform admin
  // (RBAC: "list" on cluster) sees every run by id, as cluster() does. NotLeader on a follower
  // of replicas (ha) on the simulated cluster, whose runs are the leader's to show.
  core::Result<ClusterSnapshot> cluster(const CallContext& caller);
  // The GPU pools of the simulated cluster (empty without cluster.placement_policy, or on
  // another cluster). Its gauges are in metrics() as budcore_gpu_*.
  std::vector<GpuFlavorReport> gpu_report();
  // The cheapest defragmentation plan for one of the caller's jobs that waits for placement
  // (docs/gpu.md "Defragmentation plans"): the runs on its flavor's nodes, with the timeline's
  // estimated ends (none for a job without estimated_duration_seconds); other tenants' runs are
  // named "[hidden <token>]", the token a keyed digest of the run (another run, another token:
  // a plan naming a run that was replaced is stale). Advice only: nothing is applied. {"plan", "applied": false}.
  core::Result<core::Value> gpu_defrag(const CallContext& caller, const core::Id& job_id);
  // Applies the plan for one of the caller's jobs that waits for placement (RBAC: "preempt" on
  // jobs): each run the plan moves is evicted and placed where the plan names (its events,
  // Preempted "Defragmented" then Queued, Admitted and Started, go through the event log as a
  // preemption's do; it keeps its quota and starts over), a MIG GPU it names is re-partitioned,
  // and the job is placed and starts. `plan` is a document gpu_defrag returned (or its
  // "plan"); null applies the plan made now. Refused, changing nothing: Conflict when the
  // plan is stale (the cluster changed since it was made; the field names the first
  // difference, "plan.moves[0].to"), or no plan makes room; Invalid ("plan.kind") for a wait;
  // a plan never moves a run of higher priority than the job. {"plan", "applied": true}; the
  // audit log records "jobs.defrag".
  core::Result<core::Value> gpu_defrag_apply(const CallContext& caller, const core::Id& job_id, const core::Value& plan);
  // The crash-safety invariants, checked against the Store and the cluster: every live job in
  // memory matches its stored status; the cluster holds exactly the live queued/admitted runs
  // (objects no record claims, adopted = false, are another platform's and not counted); the
  // quota the cluster charges equals the sum of what its admitted runs request. Internal
  // (naming what differs) when one does not hold.
  core::Status check_invariants();

  // ---- hooks ---------------------------------------------------------------------------------
  void add_admission_gate(std::shared_ptr<AdmissionGate> gate);
  void set_authorizer(std::shared_ptr<Authorizer> authorizer);
  void add_usage_observer(std::shared_ptr<UsageObserver> observer);
  // One meter prices jobs (a later call replaces it; nullptr removes it): run segments are
  // metered and ended jobs get their actual_cost in the transactions that record them, and a
  // running job whose cost passes its budget_limit is stopped and FAILED (BudgetExceeded). Running jobs are checked from now on, including those restored on open.
  void set_job_cost_meter(std::shared_ptr<JobCostMeter> meter);
  // Adds a source of metrics kept outside the platform (a serverless endpoint adds its own): its
  // samples join metrics() under their names; a name the platform does not describe is left
  // out. A source that answers nullopt is dropped; its counters keep the last totals it gave.
  void add_metrics_source(MetricsSource source);
  // The CostControls attached on open from the config's `cost` section (null without one).
  std::shared_ptr<CostControls> cost_controls() const;
  // Evaluates the budgets now against the usage in the Store, as after a batch of metered run
  // segments: threshold alerts are raised, and the running jobs a passed stop_running budget
  // covers are stopped and FAILED (BudgetExceeded, naming the budget). For usage written outside
  // the cluster's run segments (a serverless endpoint's meter() calls it after its rows). No-op
  // without a job cost meter, and on a follower (the leader checks after its next batch).
  core::Status check_budgets();
  // The Store the platform writes, for layers that keep their records beside its jobs (cost
  // metering, budgets' spend). Gates and observers may use it: they run outside the
  // platform's transactions (a JobCostMeter's record_usage and actual_cost run inside them
  // and use the transaction they are given). Lives as long as the Platform.
  backend::Store& store() noexcept;

  struct Impl;

 private:
  explicit Platform(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A JOB step's resolved config as a job document: the Job schema's keys as they are, the rest
// (component_ref, optimize_with_budsim, ...) moved into spec; the step's name (or id) names
// the job. Invalid naming "config.<field>" when the result is not a valid job.
BUDCORE_API core::Result<job::Job> job_from_step_config(std::string_view step_id, std::string_view step_name,
                                                        const core::Value& config);

}  // namespace budcore::platform
