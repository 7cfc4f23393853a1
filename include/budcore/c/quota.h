/* budcore C ABI — quota and admission (Kueue semantics). */
#ifndef BUDCORE_C_QUOTA_H
#define BUDCORE_C_QUOTA_H

#include <stdint.h>

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Runs `budcore quota simulate` on a scenario (JSON, docs/cli.md contract 2: flavors, cohorts,
 * cluster queues, local queues, workloads, cycles) and writes the outcome JSON ({"admitted",
 * "preempted", "pending", "usage", "cycles_run"}) to `out`, which the caller releases with
 * budcore_buf_dispose(). On invalid input returns BUDCORE_EINVALID and
 * budcore_error_last()->field names the offending field ("workloads[2].pod_sets[0].count").
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_simulate(budcore_buf *out, const char *scenario_json, size_t scenario_json_len);

/* An admission engine with Kueue's semantics that lives across calls: add workloads as they
 * arrive, run cycles, finish workloads, read statuses. Opaque; release with
 * budcore_quota_engine_free(). Every call on one engine is serialized inside it. */
typedef struct budcore_quota_engine budcore_quota_engine;

/* Creates an engine from a scenario document (contract 2's JSON): its flavors, cohorts, cluster
 * queues, local queues, priority classes and fair_sharing options; its workloads, if any, are
 * added ("cycles" is ignored). Errors: BUDCORE_EINVALID naming the field; *out stays NULL.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_engine_new(budcore_quota_engine **out, const char *scenario_json, size_t scenario_json_len);

/* Frees the engine. NULL is a no-op.
 * Thread-safety: not while another thread uses the engine. */
BUDCORE_API void budcore_quota_engine_free(budcore_quota_engine *engine);

/* Adds a workload (one entry of contract 2's "workloads": name, namespace, queue, priority or
 * priority_class, pod_sets, admitted, ...) to its queue; an "admitted" one holds its quota at
 * once. Errors: BUDCORE_EINVALID with field "workload.pod_sets[0].count" and the like, or
 * field "name" for a key the engine already holds.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_engine_add(budcore_quota_engine *engine, const char *workload_json, size_t workload_json_len);

/* The workload `key` ("namespace/name") ends: its quota is released and the waiting workloads
 * of its cohort tree are requeued. BUDCORE_ENOTFOUND for an unknown key.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_engine_finish(budcore_quota_engine *engine, const char *key, size_t key_len);

/* Runs one scheduling cycle and writes {"admitted": [keys], "preempted": [...], "released":
 * [...], "changed": bool} to `out`.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_engine_cycle(budcore_buf *out, budcore_quota_engine *engine);

/* Runs cycles until one changes nothing, at most max_cycles (0..1000000000), and writes the
 * number run to *out_cycles.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_engine_run(int64_t *out_cycles, budcore_quota_engine *engine, int64_t max_cycles);

/* Writes the status of workload `key`: {"key", "state": "pending" | "admitted" | "evicting",
 * "admission": {"cluster_queue", "flavors", "count"} or null, "borrowing", "admitted_by_engine",
 * "preempted", "pending_reason"}. BUDCORE_ENOTFOUND for an unknown key.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_engine_status(budcore_buf *out, const budcore_quota_engine *engine, const char *key,
                                           size_t key_len);

/* Writes every workload's status as a JSON list, in the order they were added.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_engine_statuses(budcore_buf *out, const budcore_quota_engine *engine);

BUDCORE_END_DECL

#endif
