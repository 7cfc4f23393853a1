/* budcore C ABI — serverless endpoints: a request trace replayed through an endpoint's queue,
 * warm pool and autoscaling policies on a virtual clock, as `budcore serverless simulate` does
 * (docs/serverless.md). Documents in, JSON out. */
#ifndef BUDCORE_C_SERVERLESS_H
#define BUDCORE_C_SERVERLESS_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Replays trace_csv (the Azure LLM inference format: TIMESTAMP,ContextTokens,GeneratedTokens)
 * through the endpoint of endpoint_doc (JSON or YAML, docs/serverless.md) once per policy.
 * options_json (NULL with length 0: defaults) is an object with any of
 *   "policies": "queue_depth" | "kpa,budget" | ["kpa", "budget"] | "all"  (default
 *               "queue_depth"; the others: kpa, ray_serve, predictive, budget)
 * Writes to `out` (which must be empty: BUDCORE_BUF_INIT) the document
 * `budcore serverless simulate --format json` prints: {"reports": [{"endpoint", "policy",
 * "requests", "admitted", "completed", "timeouts", "failed", "dead_letters", "sla_misses",
 * "refusals", "preemptions", "wait_seconds", "end_to_end_seconds" ({"p50", "p95", "p99", "max",
 * "mean"}), "cold_starts", "peak_workers", "busy_gpu_seconds", "idle_gpu_seconds", "cost",
 * "currency", "virtual_seconds", ...}, ...]}.
 * Errors: BUDCORE_EINVALID with budcore_error_last()->field naming the input: a path in the
 * endpoint ("concurrency_per_worker"), a trace line and column ("trace_csv:3.ContextTokens"),
 * "options.policies" (an unknown policy, value = its name) or an unknown key
 * ("options.bogus"); `out` is then untouched.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_serverless_simulate(budcore_buf *out, const char *endpoint_doc, size_t endpoint_doc_len,
                                            const char *trace_csv, size_t trace_csv_len, const char *options_json,
                                            size_t options_json_len);

BUDCORE_END_DECL

#endif
