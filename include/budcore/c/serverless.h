/* budcore C ABI — serverless endpoints: a request trace replayed through an endpoint's queue,
 * warm pool and autoscaling policies on a virtual clock, as `budcore serverless simulate` does
 * (docs/serverless.md). Documents in, JSON out. */
#ifndef BUDCORE_C_SERVERLESS_H
#define BUDCORE_C_SERVERLESS_H

#include "budcore/c/common.h"
#include "budcore/c/platform.h"
#include "budcore/c/store.h"

BUDCORE_BEGIN_DECL

/* Replays trace_csv (the Azure LLM inference format: TIMESTAMP,ContextTokens,GeneratedTokens)
 * through the endpoint of endpoint_doc (JSON or YAML, docs/serverless.md) once per policy.
 * options_json (NULL with length 0: defaults) is an object with any of
 *   "policies": "queue_depth" | "kpa,budget" | ["kpa", "budget"] | "all"  (default
 *               "queue_depth"; the others: kpa, ray_serve, predictive, budget)
 *   "until_scaled_down": true | false  (default false: the run ends with the last request;
 *               true: it runs on until the pool is down to warm_pool.min_warm_workers)
 * Writes to `out` (which must be empty: BUDCORE_BUF_INIT) the document
 * `budcore serverless simulate --format json` prints: {"reports": [{"endpoint", "policy",
 * "requests", "admitted", "completed", "timeouts", "failed", "dead_letters", "sla_misses",
 * "refusals", "preemptions", "wait_seconds", "end_to_end_seconds" ({"p50", "p95", "p99", "max",
 * "mean"}), "cold_starts", "peak_workers", "busy_gpu_seconds", "idle_gpu_seconds", "cost",
 * "currency", "virtual_seconds", "scaling" ([{"at_seconds", "workers", "ready", "busy",
 * "pending"}, ...]: the pool after each change of its size), ...}, ...]}.
 * Errors: BUDCORE_EINVALID with budcore_error_last()->field naming the input: a path in the
 * endpoint ("concurrency_per_worker"), a trace line and column ("trace_csv:3.ContextTokens"),
 * "options.policies" (an unknown policy, value = its name), "options.until_scaled_down" (not a
 * boolean) or an unknown key
 * ("options.bogus"); `out` is then untouched.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_serverless_simulate(budcore_buf *out, const char *endpoint_doc, size_t endpoint_doc_len,
                                            const char *trace_csv, size_t trace_csv_len, const char *options_json,
                                            size_t options_json_len);

/* ---- the durable request queue (docs/serverless.md "Durable queue") ------------------------
 * An endpoint's requests kept in a store (budcore_store_open), owned by `tenant` (a UUID).
 * Every call is one transaction; a batch with one bad element stores nothing. */

/* Admits, scores and stores the submissions_json list ([{"tenant", "payload_hash",
 * "payload_size_bytes", "estimated_compute_seconds", "priority"}, ...]; "tenant" required)
 * for the endpoint of endpoint_doc (JSON or YAML: its queue limits, SLA, retries and weights).
 * Writes {"results": [{"id", "deduplicated"} | {"id": 0, "refusal": "queue_full" |
 * "payload_too_large" | "tenant_concurrency", "error": {"code", "message", "path", "value"}}]},
 * one per submission in order. Errors: BUDCORE_EINVALID naming the field
 * ("submissions[2].priority", a path in the endpoint, "tenant").
 * Thread-safety: safe from any thread; calls on one store handle are serialized. */
BUDCORE_API int budcore_serverless_queue_enqueue(budcore_buf *out, budcore_store *store, const char *tenant,
                                                 size_t tenant_len, const char *endpoint_doc, size_t endpoint_doc_len,
                                                 const char *submissions_json, size_t submissions_json_len);

/* Claims up to `max` (0..10000) pending requests of the endpoint named `endpoint` for `worker`,
 * highest score first, each leased for lease_seconds (> 0); expires what is due first. Writes
 * {"requests": [{"id", "claim", "tenant", "status": "assigned", "lease_until", ...}, ...]}:
 * report on each with its "claim" token.
 * Thread-safety: safe from any thread; calls on one store handle are serialized. */
BUDCORE_API int budcore_serverless_queue_claim(budcore_buf *out, budcore_store *store, const char *tenant,
                                               size_t tenant_len, const char *endpoint, size_t endpoint_len,
                                               const char *worker, size_t worker_len, int64_t max,
                                               double lease_seconds);

/* Applies the reports_json list ([{"id", "claim", "outcome": "start" | "renew" | "complete" |
 * "fail", "reason", "lease_seconds"}, ...]) in one transaction. Writes {"results": [{"id",
 * "ok", "status"}, ...]}; ok is false when the request is no longer under that claim.
 * Errors: BUDCORE_EINVALID ("reports[0].outcome"), BUDCORE_ENOTFOUND (an unknown id).
 * Thread-safety: safe from any thread; calls on one store handle are serialized. */
BUDCORE_API int budcore_serverless_queue_finish(budcore_buf *out, budcore_store *store, const char *tenant,
                                                size_t tenant_len, const char *reports_json, size_t reports_json_len);

/* Writes the endpoint's counts: {"pending", "in_flight", "completed", "failed", "timeout",
 * "tenant_active": {tenant: n}}.
 * Thread-safety: safe from any thread; calls on one store handle are serialized. */
BUDCORE_API int budcore_serverless_queue_status(budcore_buf *out, budcore_store *store, const char *tenant,
                                                size_t tenant_len, const char *endpoint, size_t endpoint_len);

/* Lists the endpoint's requests by id. options_json (NULL with length 0: defaults) has any of
 * "statuses" (a list: "pending", ..., "timeout"; default any), "after" (an id, default 0),
 * "limit" (1..10000, default 1000). Writes {"requests": [...]}.
 * Thread-safety: safe from any thread; calls on one store handle are serialized. */
BUDCORE_API int budcore_serverless_queue_list(budcore_buf *out, budcore_store *store, const char *tenant,
                                              size_t tenant_len, const char *endpoint, size_t endpoint_len,
                                              const char *options_json, size_t options_json_len);

/* ---- endpoints on a platform (docs/serverless.md "On a platform") --------------------------
 * An endpoint whose warm workers are SERVICE jobs of the owner tenant on a platform handle,
 * admitted by the serverless ClusterQueue (the config's queues.serverless). The platform must
 * outlive the endpoint. An endpoint handle is used by one thread at a time. */
typedef struct budcore_serverless_endpoint budcore_serverless_endpoint;

/* Opens an endpoint (endpoint_doc: JSON or YAML, docs/serverless.md) owned by the caller's
 * tenant. options_json (NULL with length 0: defaults) has any of "worker_priority" (a job
 * priority, default "high") and "image" (the worker jobs' spec.image). Errors: BUDCORE_EINVALID
 * naming the field (a path in the endpoint, "options.worker_priority", "caller.tenant").
 * Thread-safety: the handle is used by one thread at a time. */
BUDCORE_API int budcore_serverless_endpoint_open(budcore_serverless_endpoint **out, budcore_platform *platform,
                                                 const budcore_caller *owner, const char *endpoint_doc,
                                                 size_t endpoint_doc_len, const char *options_json,
                                                 size_t options_json_len);

/* Frees the handle (NULL is allowed). Its worker jobs keep running: scale to 0 first to end
 * them.
 * Thread-safety: not while another call uses the handle. */
BUDCORE_API void budcore_serverless_endpoint_free(budcore_serverless_endpoint *endpoint);

/* Reads every worker's job (call after driving the platform), then grows or shrinks the pool to
 * `desired` (clamped to the warm pool's bounds; a negative desired only reads). Writes the
 * status {"endpoint", "queued", "starting", "ready", "busy", "pending", "in_flight",
 * "cold_starts", "stopped", "lost", "failed_starts", "preemptions", "metered_rows", "last_refusal",
 * "workers": [{"id", "job", "name", "state", "status", "in_flight"}]}; a worker still starting
 * warm_pool.warmup_timeout_seconds after its job started is cancelled and counted in
 * "failed_starts". Errors: a refused worker job
 * (BUDCORE_EBUDGET from a hard budget, ...); the workers submitted before it stay.
 * Thread-safety: one thread at a time per handle. */
BUDCORE_API int budcore_serverless_endpoint_scale(budcore_buf *out, budcore_serverless_endpoint *endpoint,
                                                  int64_t desired);

/* Admits the submissions_json list ([{"tenant", "payload_hash", "payload_size_bytes",
 * "estimated_compute_seconds", "priority"}, ...]) into the endpoint's in-memory queue, then
 * places what can run now (warm worker, else cold start, else preempt a lower class, else wait).
 * Writes {"results": [{"id", "deduplicated"} | {"id": 0, "refusal", "error"}], "assignments":
 * [{"request", "worker", "placement": "warm" | "preempted", "preempted"}]}. Errors:
 * BUDCORE_EINVALID naming the field ("submissions[1].priority").
 * Thread-safety: one thread at a time per handle. */
BUDCORE_API int budcore_serverless_endpoint_enqueue(budcore_buf *out, budcore_serverless_endpoint *endpoint,
                                                    const char *submissions_json, size_t submissions_json_len);

/* A request ended: completed (reason NULL with length 0) or a failed attempt with `reason`;
 * then places what can run now. Writes {"assignments": [...]}. BUDCORE_ENOTFOUND for an
 * unknown request, BUDCORE_ECONFLICT for one not in flight.
 * Thread-safety: one thread at a time per handle. */
BUDCORE_API int budcore_serverless_endpoint_finish(budcore_buf *out, budcore_serverless_endpoint *endpoint,
                                                   uint64_t request, const char *reason, size_t reason_len);

/* Writes the workers' GPU time since their last rows as usage rows of the owner tenant
 * ({"usage": [usage records as budcore_cost_* read them: "gpu_seconds", "idle_gpu_seconds",
 * "computed_cost", "labels": {"serverless_endpoint"}, ...]}), which cost reports, budgets and
 * chargeback read; then has the platform check its budgets against them (threshold alerts;
 * stop_running budgets stop the running jobs they cover, workers included).
 * BUDCORE_EUNSUPPORTED when the platform has no cost section.
 * Thread-safety: one thread at a time per handle. */
BUDCORE_API int budcore_serverless_endpoint_meter(budcore_buf *out, budcore_serverless_endpoint *endpoint);

BUDCORE_END_DECL

#endif
