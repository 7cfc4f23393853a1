/* budcore C ABI — the Kueue companion (docs/kueue-companion.md): its configuration and decisions,
 * the budget and window checks budcore answers for Kueue's AdmissionChecks, as pure functions
 * of a Workload, the spend so far and the time; and the controller itself, run against a
 * cluster with a Store. JSON in, JSON out. */
#ifndef BUDCORE_C_KUEUE_H
#define BUDCORE_C_KUEUE_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Validates a companion configuration (YAML or JSON; file names in it are relative to the
 * process's working directory) and writes a summary: {"controllers": [{"name", "checks"}],
 * "cluster_queues", "tenants", "budgets", "currency", "leader_election"? (when configured:
 * {"lease_name", "namespace", "identity", "lease_duration_seconds", "renew_deadline_seconds",
 * "retry_period_seconds"})}. An invalid one is BUDCORE_EINVALID with
 * budcore_error_last()->field naming it ("budgets.budgets[0].tenant_id"); `out` is untouched.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_kueue_companion_check_config(budcore_buf *out, const char *config_doc, size_t config_doc_len);

/* Decides the budget and window checks for one Workload. request_json:
 * {"workload": <a kueue.x-k8s.io Workload object>, "owner_annotations": {...} (optional: the
 * owning Job's), "spent": {"<budget name>": "12.00 USD", ...} (optional: spend so far in each
 * budget's period), "now": "2026-11-28T12:00:00Z"}. Writes {"tenant_id" (when mapped),
 * "price": {"total", "duration_seconds", "duration_source", "lines"} or "price_error":
 * {"code", "message", "path", "value"}, "budget": <decision>, "window": <decision>}, each
 * decision {"check", "state": "Ready"|"Retry"|"Rejected", "message", "requeue_after_seconds"?,
 * "estimate"?, "tenant_id"?, "budget"?}.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_kueue_companion_decide(budcore_buf *out, const char *config_doc, size_t config_doc_len,
                                               const char *request_json, size_t request_json_len);

/* The companion controller with its own Kubernetes client and Store. Opaque; release with
 * budcore_kueue_companion_free(). */
typedef struct budcore_kueue_companion budcore_kueue_companion;

/* Called by budcore_kueue_companion_run() with one event's JSON: {"event": "decision",
 * "workload", "admission_check", "check", "state", "message", ...} for each decision written,
 * {"event": "retrying", "error": {"code", "message", "field", "value"}} for an error the
 * controller retries (a second later). Calls never overlap. A non-zero return stops the run,
 * which then returns BUDCORE_EUSER. */
typedef int (*budcore_kueue_companion_event_cb)(const char *event_json, size_t event_len, void *payload);

/* Opens the controller: a companion configuration (as budcore_kueue_companion_check_config),
 * a kubeconfig file (NULL/0: the configuration's kubeconfig, else $KUBECONFIG, ~/.kube/config,
 * in-cluster) and a store URI (NULL/0: the configuration's store, else
 * sqlite:budcore-companion.db; opened and migrated). Nothing is written to the cluster yet.
 * Errors: BUDCORE_EINVALID naming the configuration's field, or "kubeconfig_path" / "store_uri"
 * with the value and why (a file that cannot be read, a malformed kubeconfig); BUDCORE_EIO.
 * Thread-safety: the handle is driven by one thread at a time; budcore_kueue_companion_stop()
 * may be called from any thread. */
BUDCORE_API int budcore_kueue_companion_open(budcore_kueue_companion **out, const char *config_doc,
                                             size_t config_doc_len, const char *kubeconfig_path,
                                             size_t kubeconfig_path_len, const char *store_uri, size_t store_uri_len);

/* One pass (`budcore kueue companion --once`): with leader election one attempt at the Lease;
 * then the companion's AdmissionChecks marked Active, every Workload listed, its runs metered
 * into the Store and its pending checks answered; the Lease released. Writes {"leader": false
 * when another replica holds the Lease (nothing written), "identity"? (with leader election),
 * "admission_checks": [...], "written": [<decision with "workload", "admission_check">...],
 * "retrying": [{"code", "message", "field", "value"}...]}. Errors: BUDCORE_EIO (the
 * cluster or the Store), BUDCORE_ESECURITY (refused by the cluster's RBAC).
 * Thread-safety: not concurrently with other calls on the handle (but _stop). */
BUDCORE_API int budcore_kueue_companion_sync_once(budcore_buf *out, budcore_kueue_companion *companion);

/* Runs the controller until budcore_kueue_companion_stop() (from another thread or a signal
 * handler) or until `callback` (may be NULL) returns non-zero: with leader election it renews
 * the Lease, writes only while holding it and releases it when stopped. Returns BUDCORE_OK after
 * a stop, BUDCORE_EUSER when the callback stopped it.
 * Thread-safety: blocks the calling thread; the callback runs on it or on the Lease renewer's
 * thread, never two calls at once. */
BUDCORE_API int budcore_kueue_companion_run(budcore_kueue_companion *companion,
                                            budcore_kueue_companion_event_cb callback, void *payload);

/* Asks a running budcore_kueue_companion_run() to return (after its current pass); a later run
 * returns at once. NULL is a no-op.
 * Thread-safety: safe from any thread and async-signal-safe (it only stores to atomics). */
BUDCORE_API void budcore_kueue_companion_stop(budcore_kueue_companion *companion);

/* Closes the controller (its client and Store). NULL is a no-op.
 * Thread-safety: no other call may use the handle meanwhile (stop and join a run first). */
BUDCORE_API void budcore_kueue_companion_free(budcore_kueue_companion *companion);

BUDCORE_END_DECL

#endif /* BUDCORE_C_KUEUE_H */
