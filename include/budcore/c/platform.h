/* budcore C ABI — the platform: jobs from submission to completion on a store and a cluster,
 * pipeline runs, the event stream, metrics and what-if scenarios. JSON in, JSON out; the JSON
 * forms are those of budcore/platform/platform_json.hpp and budcore/backend/store_json.hpp.
 * Conventions: 0 or a negative BUDCORE_E* code; outputs first; every text input is UTF-8 as
 * (pointer, length); `out` must be an empty budcore_buf (BUDCORE_BUF_INIT) and is filled only
 * on success. The handle is thread-safe. */
#ifndef BUDCORE_C_PLATFORM_H
#define BUDCORE_C_PLATFORM_H

#include <stdint.h>

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* An open platform. Opaque; release with budcore_platform_free(). */
typedef struct budcore_platform budcore_platform;

/* Who calls: the tenant (a UUID, required), the principal and the request id (optional; empty
 * when the pointer is NULL and the length 0). `version` comes first so later releases can add
 * fields at the end: set it to BUDCORE_CALLER_VERSION, or start from BUDCORE_CALLER_INIT.
 * A version of 0 or one newer than the library knows is BUDCORE_EINVALID (field
 * "caller.version"). */
typedef struct budcore_caller {
  unsigned int version;
  const char *tenant;
  size_t tenant_len;
  const char *principal;
  size_t principal_len;
  const char *request_id;
  size_t request_id_len;
} budcore_caller;

#define BUDCORE_CALLER_VERSION 1
#define BUDCORE_CALLER_INIT {BUDCORE_CALLER_VERSION, NULL, 0, NULL, 0, NULL, 0}

/* Called once per event with its JSON ({"seq", "at", "type", "object_id", "data"}); a non-zero
 * return stops the watch, which then returns BUDCORE_EUSER. */
typedef int (*budcore_platform_event_cb)(const char *event_json, size_t event_len, void *payload);

/* Opens a platform from a config document (YAML or JSON; docs/platform.md "Configuration"):
 * opens and migrates its store, rebuilds its live jobs and pipeline runs. Errors:
 * BUDCORE_EINVALID naming the config field, BUDCORE_EIO, BUDCORE_EUNSUPPORTED.
 * Thread-safety: the returned handle may be shared by threads. */
BUDCORE_API int budcore_platform_open(budcore_platform **out, const char *config, size_t config_len);

/* Opens the embedded default: SQLite in directory `dir` (created by the caller), the simulated
 * cluster, a virtual clock.
 * Thread-safety: the returned handle may be shared by threads. */
BUDCORE_API int budcore_platform_open_embedded(budcore_platform **out, const char *dir, size_t dir_len);

/* Closes the platform. NULL is a no-op.
 * Thread-safety: no other call may use the handle meanwhile. */
BUDCORE_API void budcore_platform_free(budcore_platform *platform);

/* Submits a job document, or a batch {"jobs": [<job> | {"job", "idempotency_key"}...]} in one
 * transaction. Writes {"created", "version", "idempotency_key", "job"} (a batch:
 * {"results": [...]}). idempotency_key (NULL/0: none) keys a single job; in a batch each job
 * without a key of its own is keyed "<idempotency_key>/<i>", so a retried batch returns the
 * same jobs. An invalid document is BUDCORE_EINVALID naming its first problem, and
 * budcore_error_problem() lists every one; nothing is submitted.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_submit(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                        const char *job_json, size_t job_json_len, const char *idempotency_key,
                                        size_t idempotency_key_len);

/* Writes the job record {"version", "idempotency_key", "job"}; another tenant's job is
 * BUDCORE_ENOTFOUND.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_get(budcore_buf *out, const budcore_platform *platform, const budcore_caller *caller,
                                     const char *id, size_t id_len);

/* Lists the caller's jobs (the query of budcore_store_job_list; NULL/0: defaults). Writes
 * {"items": [...], "next_cursor"}.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_list(budcore_buf *out, const budcore_platform *platform, const budcore_caller *caller,
                                      const char *query_json, size_t query_json_len);

/* Writes the timeline of the caller's waiting and running jobs: when each is expected to start
 * and end under the platform's quota (every tenant's jobs are simulated; the caller sees its
 * own). The JSON of `budcore schedule estimate --details`: {"jobs", "never", "makespan",
 * "warnings", "utilization"}; job names are job ids.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_schedule(budcore_buf *out, const budcore_platform *platform,
                                          const budcore_caller *caller);

/* Writes the cheapest defragmentation plan for one of the caller's jobs that the quota admitted
 * and no node of its flavor takes yet (cluster.placement_policy; docs/gpu.md "In the platform"):
 * {"plan": {...} | null, "applied": false}, the document of budcore_gpu_defrag over the runs on
 * the job's flavor, with the timeline's estimated ends; other tenants' runs are named
 * "[hidden <token>]" (a keyed digest of the run). Advice only: nothing is applied.
 * BUDCORE_ENOTFOUND for a job that is not the caller's live job, BUDCORE_EINVALID (field
 * "job") for one that does not wait for placement, BUDCORE_EUNSUPPORTED without the simulated
 * cluster.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_gpu_defrag(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                            const char *id, size_t id_len);

/* Applies the defragmentation plan for one of the caller's jobs that waits for placement
 * (docs/gpu.md "In the platform"): the runs the plan moves are evicted and placed where it
 * names (keeping their quota; their events are in the event log as a preemption's), a MIG GPU
 * it names is re-partitioned, and the job is placed and starts. plan_json is a document
 * budcore_platform_gpu_defrag wrote (or its "plan"); NULL with length 0 applies the plan made
 * now. Writes {"plan": {...}, "applied": true}. BUDCORE_ECONFLICT for a stale plan (the cluster
 * changed since it was made; the field names the first difference, "plan.moves[0].to") or
 * when no plan makes room; BUDCORE_EINVALID (field "plan.kind") for a wait, which has nothing
 * to apply; the errors of budcore_platform_gpu_defrag. Needs the "preempt" right on jobs.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_gpu_defrag_apply(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                                  const char *id, size_t id_len, const char *plan_json, size_t plan_json_len);

/* Cancels a job that has not ended (BUDCORE_ECONFLICT otherwise). Writes the job record.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_cancel(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                        const char *id, size_t id_len, const char *reason, size_t reason_len);

/* Starts another run of a FAILED job (BUDCORE_ECONFLICT when it is not failed or its retry
 * budget is spent). Writes the job record.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_retry(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                       const char *id, size_t id_len);

/* Sets a job's priority ("critical", "high", "normal", "low", "spot"). Writes the job record.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_set_priority(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                              const char *id, size_t id_len, const char *priority, size_t priority_len);

/* Preempts a scheduled or running job (it goes back to the queue). Writes the job record.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_preempt(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                         const char *id, size_t id_len, const char *reason, size_t reason_len);

/* Writes the caller's events with seq > since, at most `limit` (1..10000):
 * {"events": [...], "last_seq"}. Pass last_seq as `since` to resume.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_events(budcore_buf *out, const budcore_platform *platform, const budcore_caller *caller,
                                        int64_t since, size_t limit);

/* Calls `callback` for each of the caller's events with seq > since (at most `limit`), in
 * order, and writes the seq of the last one delivered to *out_last_seq (since when none).
 * Thread-safety: safe; the callback runs on the calling thread and must not free the handle. */
BUDCORE_API int budcore_platform_watch(int64_t *out_last_seq, const budcore_platform *platform,
                                       const budcore_caller *caller, int64_t since, size_t limit,
                                       budcore_platform_event_cb callback, void *payload);

/* Starts a pipeline run (a pipeline document; params a JSON map or NULL/0). Writes the run
 * {"id", "pipeline", "status", "created_at", "updated_at", "version", "state"}.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_run_pipeline(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                              const char *document_json, size_t document_json_len, const char *params_json,
                                              size_t params_json_len);

/* Writes a pipeline run (as budcore_platform_run_pipeline).
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_pipeline_run(budcore_buf *out, const budcore_platform *platform,
                                              const budcore_caller *caller, const char *id, size_t id_len);

/* Cancels a pipeline run and its running jobs (BUDCORE_ECONFLICT for an ended run).
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_cancel_pipeline_run(budcore_buf *out, budcore_platform *platform,
                                                     const budcore_caller *caller, const char *id, size_t id_len,
                                                     const char *reason, size_t reason_len);

/* Acts on everything due now (cluster events, retries, pipeline steps).
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_pump(budcore_platform *platform);

/* Virtual clock only (BUDCORE_EUNSUPPORTED otherwise): runs `seconds` of virtual time
 * (seconds < 0: until nothing is scheduled, at most a year). Writes {"now": RFC 3339}.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_run(budcore_buf *out, budcore_platform *platform, double seconds);

/* Writes the metrics in Prometheus text exposition format.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_metrics(budcore_buf *out, const budcore_platform *platform);

/* Writes this replica's view of the election (docs/ha.md): {"role": "single" | "leader" |
 * "follower", "replica", "epoch", "lease": {"holder", "epoch", "expires", "now"} or null,
 * "replicas": [{"replica", "role", "epoch", "started", "seen", "renew_us"}]}.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_ha_status(budcore_buf *out, const budcore_platform *platform);

/* Writes what the cluster holds and the quota it uses ({"workloads", "usage"}), and with
 * cluster.placement_policy its GPU pools' fragmentation ("gpu": per flavor, docs/gpu.md).
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_cluster(budcore_buf *out, const budcore_platform *platform);

/* The same document as the caller sees it (docs/security.md): the caller's tenant's runs by job
 * id, other tenants' runs named "[hidden <token>]" (the names a defragmentation plan gives
 * them) with no tenant and no message; a platform admin sees every run. budcore_platform_cluster
 * is the operator's view of every tenant's runs. Needs the "list" right on jobs.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_cluster_view(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller);

/* Checks the crash-safety invariants; BUDCORE_ERROR naming what differs when one is broken.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_check(budcore_platform *platform);

/* Runs a what-if scenario (YAML/JSON; docs/platform.md "Scenarios") on an in-memory platform
 * and writes its outcome {"start", "end", "elapsed_seconds", "events", "jobs", "pipelines",
 * "log"}. `file:` references in the scenario are refused (no base directory).
 * Thread-safety: safe (each call has its own platform). */
BUDCORE_API int budcore_platform_simulate(budcore_buf *out, const char *scenario, size_t scenario_len);

/* ---- use-case deployments (docs/usecases.md "Deploying") ---- */

/* Deploys a use-case template on the platform: `template_ref` is "<id>" or "<id>@<version>"
 * (the caller tenant's catalog in the platform's store first, else a shipped template);
 * params a JSON/YAML map or NULL/0. Writes the deployment record {"id", "tenant_id",
 * "template_id", "template_version", "parameters", "status", "pipeline_run_id", "components":
 * [{"instance_id", "job_id", "job_status", ...}], "created_at", "updated_at", ...}. Errors:
 * BUDCORE_EINVALID naming the parameter or component path (nothing is stored),
 * BUDCORE_ENOTFOUND for an unknown template (field "template").
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_deploy_usecase(budcore_buf *out, budcore_platform *platform,
                                                const budcore_caller *caller, const char *template_ref,
                                                size_t template_ref_len, const char *params_json, size_t params_json_len);

/* Writes a deployment record (as budcore_platform_deploy_usecase) with its jobs' statuses now.
 * BUDCORE_ENOTFOUND for another tenant's deployment.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_deployment(budcore_buf *out, const budcore_platform *platform,
                                            const budcore_caller *caller, const char *id, size_t id_len);

/* Writes the caller tenant's deployment records as a JSON list, oldest first.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_deployments(budcore_buf *out, const budcore_platform *platform,
                                             const budcore_caller *caller);

/* Tears a deployment down: cancels its jobs dependents first, then its pipeline run, and writes
 * the record (status "deleted"). Tearing down a torn-down deployment is not an error.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_teardown_deployment(budcore_buf *out, budcore_platform *platform,
                                                     const budcore_caller *caller, const char *id, size_t id_len);

/* ---- security (docs/security.md) ----
 * With `security.rbac: true` in the config every call is checked against the caller's roles:
 * a refusal is BUDCORE_ESECURITY naming the principal (field "principal") and the role that is
 * missing; a tenant policy's refusal is BUDCORE_ESECURITY naming the job's field; a submit over
 * the tenant's rate or queue depth is BUDCORE_ERATELIMITED with budcore_error.retry_after_ms. */

/* Grants a role: binding_json {"principal": "user:erin", "role": "editor", "project_id":
 * "<uuid>" | null} (tenant admins; "platform-admin": platform admins). Writes the binding
 * record {"principal", "role", "project_id", "created_at", "created_by"}. BUDCORE_EEXISTS when
 * it is already bound.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_bind_role(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller,
                                           const char *binding_json, size_t binding_json_len);

/* Revokes a role (the same document); BUDCORE_ENOTFOUND when it is not bound.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_unbind_role(budcore_platform *platform, const budcore_caller *caller,
                                             const char *binding_json, size_t binding_json_len);

/* Writes the caller tenant's role bindings {"items": [...]} (of one principal when principal is
 * not NULL/0; tenant admins).
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_role_bindings(budcore_buf *out, const budcore_platform *platform,
                                               const budcore_caller *caller, const char *principal,
                                               size_t principal_len);

/* Writes a page of the caller tenant's audit log {"items": [{"seq", "at", "actor", "action",
 * "object_type", "object_id", "request_id", "detail", "prev_hash", "hash"}], "next_cursor"},
 * oldest first; query_json {"actor", "object_type", "object_id", "from", "to", "limit",
 * "after"} or NULL/0 (tenant admins).
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_audit(budcore_buf *out, const budcore_platform *platform, const budcore_caller *caller,
                                       const char *query_json, size_t query_json_len);

/* Compacts the store now by the config's `retention` (docs/store.md "Retention"; platform
 * admins). Writes {"events_removed", "audit_removed", "usage_removed", "checkpoints": [{"tenant",
 * "log", "seq", "hash", "at"}]}. BUDCORE_EINVALID without a retention section;
 * BUDCORE_ENOTLEADER on a follower.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_compact(budcore_buf *out, budcore_platform *platform, const budcore_caller *caller);

/* Checks every tenant's audit chain and head (platform admins). Writes {"ok", "entries",
 * "unchained", "head_seq", "compacted", "head_hash", "heads": [{"tenant", "seq", "hash"}], "problems": [...]};
 * a broken chain is a report with ok false, not an error.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_audit_verify(budcore_buf *out, const budcore_platform *platform,
                                              const budcore_caller *caller);
/* The same, with anchors: anchors_json is a JSON list of entry hashes kept outside the store
 * (heads published earlier); each must still be the hash of a chained entry, else the report
 * names it as a problem. NULL/0: no anchors.
 * Thread-safety: safe. */
BUDCORE_API int budcore_platform_audit_verify_anchored(budcore_buf *out, const budcore_platform *platform,
                                                       const budcore_caller *caller, const char *anchors_json,
                                                       size_t anchors_json_len);

BUDCORE_END_DECL

#endif
