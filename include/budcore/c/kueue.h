/* budcore C ABI — the Kueue companion's configuration and decisions (docs/kueue-companion.md):
 * the budget and window checks budcore answers for Kueue's AdmissionChecks, as pure functions
 * of a Workload, the spend so far and the time. JSON in, JSON out. */
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

BUDCORE_END_DECL

#endif /* BUDCORE_C_KUEUE_H */
