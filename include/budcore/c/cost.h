/* budcore C ABI — cost: price books, estimates (docs/cli.md contract 5), metering, reports,
 * forecasts and budgets. JSON (or YAML where noted) in, JSON out; the shapes are those of
 * docs/cost.md and the `budcore cost` commands.
 *
 * Every function writes its result to `out`, which must be empty (BUDCORE_BUF_INIT; a buf that
 * still holds text is BUDCORE_EINVALID with field "out") and which the caller releases with
 * budcore_buf_dispose(). A failed call leaves `out` untouched; budcore_error_last() then names
 * the offending field (its path, "steps[2].config.gpu_type") and value. Estimator errors carry
 * the contract-5 code at the start of the message: "unknown_price: ...", "missing_field: ...",
 * "invalid_value: ..." (unknown_price is BUDCORE_ENOTFOUND, the others BUDCORE_EINVALID).
 * Price books and specs may be YAML or JSON text. */
#ifndef BUDCORE_C_COST_H
#define BUDCORE_C_COST_H

#include "budcore/c/common.h"
#include "budcore/c/store.h"

BUDCORE_BEGIN_DECL

/* Prices a job document, a pipeline document or a use-case render against a price book and
 * writes the contract-5 estimate ({"currency", "seconds", "tier", "total", "lines"}, or
 * {"currency", "steps", "total", "total_min"} for a pipeline).
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_cost_estimate(budcore_buf *out, const char *prices, size_t prices_len, const char *spec,
                                      size_t spec_len);

/* The same SPEC priced on demand and on spot: {"currency", "on_demand", "spot", "savings",
 * "savings_percent"}. Thread-safety: safe from any thread. */
BUDCORE_API int budcore_cost_compare_tiers(budcore_buf *out, const char *prices, size_t prices_len, const char *spec,
                                           size_t spec_len);

/* The GPU types with at least `memory_gib` of device memory, cheapest first. requirement_json
 * is {"memory_gib": N, "gpu_count": 1, "seconds": 3600, "tier": "on_demand"}; writes
 * {"cheapest", "options": [{"gpu_type", "memory_gib", "unit_price", "cost"}], "unknown_memory"}.
 * BUDCORE_ENOTFOUND when no type fits. Thread-safety: safe from any thread. */
BUDCORE_API int budcore_cost_cheapest_gpu(budcore_buf *out, const char *prices, size_t prices_len,
                                          const char *requirement_json, size_t requirement_json_len);

/* Prices one usage interval ({"job_id", "start", "end", "gpu_type", "gpu_count", ...}) and
 * writes the usage record (computed_cost and its parts, 12 decimals at most).
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_cost_meter(budcore_buf *out, const char *prices, size_t prices_len, const char *interval_json,
                                   size_t interval_json_len);

/* A report over usage records: usage_json is a list of usage records or intervals (or
 * {"usage": [...]}; JSON Lines also work); query_json (NULL with 0: chargeback by tenant) is
 * {"by": [...], "granularity": "total" | "minute" | "hour" | "day" | "month", "from", "to",
 * "shared": [{"name", "amount", "currency"}]}. granularity "total" writes a chargeback report
 * with shared costs allocated by usage share, any other a rollup per bucket. prices (NULL with
 * 0: none) prices intervals and converts currencies. Thread-safety: safe from any thread. */
BUDCORE_API int budcore_cost_report(budcore_buf *out, const char *usage_json, size_t usage_json_len, const char *query_json,
                                    size_t query_json_len, const char *prices, size_t prices_len);

/* Serverless spend per endpoint and hour: of the usage records (as budcore_cost_report reads
 * them), those labelled serverless_endpoint, summed per time bucket and endpoint; query_json
 * (NULL with 0: every endpoint, per hour) is {"endpoint", "granularity": "minute" | "hour" |
 * "day" | "month" | "total", "from", "to"}. Writes {"granularity", "endpoint", "by", "currency",
 * "rows": [{"bucket", "endpoint", "workers", "records", "gpu_seconds", "busy_gpu_seconds",
 * "idle_gpu_seconds", "cost", "busy_cost", "idle_cost"}]}. prices (NULL with 0: none) prices
 * intervals. Thread-safety: safe from any thread. */
BUDCORE_API int budcore_cost_serverless_report(budcore_buf *out, const char *usage_json, size_t usage_json_len,
                                               const char *query_json, size_t query_json_len, const char *prices,
                                               size_t prices_len);

/* Month-end forecast and daily anomalies from usage records, as of `now` (RFC 3339):
 * {"forecast": {...}, "anomalies": [...]}. Thread-safety: safe from any thread. */
BUDCORE_API int budcore_cost_forecast(budcore_buf *out, const char *usage_json, size_t usage_json_len, const char *now,
                                      size_t now_len);

/* Meters an interval and appends the record to `store` for the interval's tenant_id; writes
 * the stored record (with "seq"). Nothing is stored when pricing fails.
 * Thread-safety: as the store handle (it may be shared by threads). */
BUDCORE_API int budcore_cost_record_usage(budcore_buf *out, budcore_store *store, const char *prices,
                                          size_t prices_len, const char *interval_json, size_t interval_json_len);

/* The actual cost of a job of `tenant` from its usage records: {"currency", "records",
 * "seconds", "gpu_seconds", ..., "total"}. Thread-safety: as the store handle. */
BUDCORE_API int budcore_cost_job_cost(budcore_buf *out, const budcore_store *store, const char *tenant, size_t tenant_len,
                                      const char *job_id, size_t job_id_len);

/* The admission gate: estimates `job_json` (a Job document with tenant_id and project_id) and
 * checks it against the budgets (YAML/JSON document) that cover it, with spend read from
 * `store`, as of `now` (RFC 3339; NULL with 0: the system clock). Allowed: returns 0 and writes
 * {"allowed": true, "checked": [...], ...}. Denied: returns BUDCORE_EBUDGET, `out` untouched,
 * and budcore_error_last() holds the reason with field "budgets.<name>".
 * Thread-safety: as the store handle. */
BUDCORE_API int budcore_cost_admit_job(budcore_buf *out, budcore_store *store, const char *budgets,
                                       size_t budgets_len, const char *prices, size_t prices_len, const char *job_json,
                                       size_t job_json_len, const char *now, size_t now_len);

BUDCORE_END_DECL

#endif
