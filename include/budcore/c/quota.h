/* budcore C ABI — quota and admission (Kueue semantics). */
#ifndef BUDCORE_C_QUOTA_H
#define BUDCORE_C_QUOTA_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Runs `budcore quota simulate` on a scenario (JSON, CONTRACTS.md section 2: flavors, cohorts,
 * cluster queues, local queues, workloads, cycles) and writes the outcome JSON ({"admitted",
 * "preempted", "pending", "usage", "cycles_run"}) to `out`, which the caller releases with
 * budcore_buf_dispose(). On invalid input returns BUDCORE_EINVALID and
 * budcore_error_last()->field names the offending field ("workloads[2].pod_sets[0].count").
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_quota_simulate(budcore_buf *out, const char *scenario_json, size_t scenario_json_len);

BUDCORE_END_DECL

#endif
