/* budcore C ABI — jobs. */
#ifndef BUDCORE_C_JOB_H
#define BUDCORE_C_JOB_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Validates a job document (JSON, the snake_case Job schema of budcore/job/job.hpp) and writes
 * its normalized JSON (defaults filled in, canonical quantities and amounts, ids lower-case) to
 * `out`, which the caller releases with budcore_buf_dispose(). On invalid input returns
 * BUDCORE_EINVALID and budcore_error_last()->field names the offending field (the first
 * problem); budcore_error_problem_count() and budcore_error_problem() list every problem of the
 * document, as budcore_job_validate_all reports them.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_job_validate(budcore_buf *out, const char *json, size_t json_len);

/* As budcore_job_validate, but reports every problem at once, as Kubernetes' API validation
 * does: every field that does not decode (unknown key, wrong type, bad enum value or UUID,
 * missing required field) and every rule the fields that did decode break; a field that does
 * not decode is reported once, by no rule that reads it. JSON text that does not parse is the
 * one problem listed. On success writes the normalized JSON to `out` (what budcore_job_validate writes).
 * Otherwise returns the first problem's code (that of budcore_job_validate for the same text)
 * with that problem in budcore_error_last() (and every one in budcore_error_problem()), leaves
 * `out` untouched and, when `errors_out` is
 * not NULL, writes {"valid": false, "errors": [{"code", "message", "path", "value"}]} listing
 * every problem to it, the first first ("value" only when known; past 100 problems, one last
 * entry without a path says how many more there are).
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_job_validate_all(budcore_buf *out, budcore_buf *errors_out, const char *json, size_t json_len);

BUDCORE_END_DECL

#endif
