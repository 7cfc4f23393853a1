/* budcore C ABI — pipelines. */
#ifndef BUDCORE_C_PIPELINE_H
#define BUDCORE_C_PIPELINE_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Validates and plans a pipeline document (JSON or YAML text: {"pipeline": {...}, "steps": [...]})
 * and writes the plan of CONTRACTS.md section 3 to `out` as JSON: {"valid": true, "order": [...],
 * "levels": [...], "critical_path": [...], "critical_path_seconds": N, "job_steps": [...]}.
 * An invalid pipeline returns BUDCORE_EINVALID and still fills `out`, with
 * {"valid": false, "errors": [{"code", "message", "path"}, ...]} listing every problem;
 * budcore_error_last() then describes the first one (field = its path). Release `out` with
 * budcore_buf_dispose() in both cases. Thread-safety: safe from any thread. */
BUDCORE_API int budcore_pipeline_plan(budcore_buf *out, const char *document, size_t document_len);

BUDCORE_END_DECL

#endif
