/* budcore C ABI — pipelines: planning, and rehearsed runs with FUNCTION steps backed by C
 * callbacks. */
#ifndef BUDCORE_C_PIPELINE_H
#define BUDCORE_C_PIPELINE_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Validates and plans a pipeline document (JSON or YAML text: {"pipeline": {...}, "steps": [...]})
 * and writes the plan of docs/cli.md contract 3 to `out` as JSON: {"valid": true, "order": [...],
 * "levels": [...], "critical_path": [...], "critical_path_seconds": N, "job_steps": [...]}.
 * An invalid pipeline returns BUDCORE_EINVALID and leaves `out` untouched; `errors_out` (may be
 * NULL) then receives {"valid": false, "errors": [{"code", "message", "path"}, ...]} listing
 * every problem, and budcore_error_last() describes the first one (field = its path). Both bufs
 * must be empty (BUDCORE_BUF_INIT); release what was filled with budcore_buf_dispose().
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_pipeline_plan(budcore_buf *out, budcore_buf *errors_out, const char *document,
                                      size_t document_len);

/* ---- FUNCTION steps ---------------------------------------------------------------------- */

/* A FUNCTION step's callable. The library calls it synchronously, on the thread that called
 * budcore_pipeline_run(), once per attempt:
 *   args_json  the step's resolved `config.args` as a JSON object (args_json_len bytes, also
 *              NUL-terminated); valid only during the call;
 *   attempt    1 for the first attempt, 2 for the first retry, ...;
 *   step_id    the step's id, NUL-terminated ("loop-1[2]" inside a LOOP); valid only during
 *              the call;
 *   out        an empty buf the callback fills with budcore_buf_set() (which copies), never
 *              with memory of its own;
 *   payload    the payload given to budcore_pipeline_function_registry_add(), passed through
 *              untouched.
 * Return 0 on success with the step's outputs in `out` as JSON: an object becomes the step's
 * outputs, any other value is wrapped as {"result": value}, and an empty `out` means {}.
 * Invalid JSON fails the attempt. Return BUDCORE_EUSER to abort the whole run at once: no
 * retry, no further step; budcore_pipeline_run() then returns BUDCORE_EUSER with `out`'s text
 * (or "function 'NAME' aborted the run at step ID") as the message and the step id as field.
 * Return any other non-zero value to fail the attempt; `out` then holds the failure message
 * (UTF-8; empty gives "function 'NAME' failed with code N"). A failed attempt is retried as
 * the step's retry policy says; the last one leaves the step "failed" with the message.
 * The callback may call other budcore functions (the thread's last error is reset when the
 * run returns). It must not unwind (C++ exception, longjmp) through the library.
 * Thread-safety: see budcore_pipeline_function_registry_add(). */
typedef int (*budcore_step_function)(const char *args_json, size_t args_json_len, int attempt, const char *step_id,
                                     budcore_buf *out, void *payload);


/* Named FUNCTION callables for budcore_pipeline_run(). Opaque. */
typedef struct budcore_pipeline_function_registry budcore_pipeline_function_registry;

/* Creates an empty registry in *out (NULL on failure). Release it with
 * budcore_pipeline_function_registry_free(). Thread-safety: safe from any thread. */
BUDCORE_API int budcore_pipeline_function_registry_new(budcore_pipeline_function_registry **out);

/* Frees the registry. NULL is a no-op. Each function's free_payload (if not NULL) is called
 * once with its payload. Thread-safety: not while any other call uses the registry. */
BUDCORE_API void budcore_pipeline_function_registry_free(budcore_pipeline_function_registry *registry);

/* Registers `callback` as the function named (name, name_len), the `function` a FUNCTION
 * step's config names, with `payload` passed to every call. On success the registry owns
 * payload: free_payload (may be NULL) is called with it once, when the registry is freed.
 * On failure nothing is kept or freed. Errors: BUDCORE_EINVALID (NULL registry or callback,
 * empty name; field names the argument), BUDCORE_EEXISTS when the name is taken.
 * Thread-safety: adding is not thread-safe; a registry nobody modifies any more may be used by
 * concurrent budcore_pipeline_run() calls, whose callbacks then run concurrently. */
BUDCORE_API int budcore_pipeline_function_registry_add(budcore_pipeline_function_registry *registry, const char *name,
                                                       size_t name_len, budcore_step_function callback, void *payload,
                                                       budcore_free_payload free_payload);

/* Returns the number of registered functions (0 for NULL). Thread-safety: safe on a registry
 * nobody modifies. */
BUDCORE_API size_t budcore_pipeline_function_registry_size(const budcore_pipeline_function_registry *registry);

/* ---- deprecated names (before the layer prefix), kept for programs built against them ---- */

/* The same type as budcore_pipeline_function_registry. */
typedef budcore_pipeline_function_registry budcore_function_registry;

/* Deprecated: budcore_pipeline_function_registry_new.
 * Thread-safety: as budcore_pipeline_function_registry_new. */
BUDCORE_API int budcore_function_registry_new(budcore_function_registry **out)
    BUDCORE_DEPRECATED("use budcore_pipeline_function_registry_new");

/* Deprecated: budcore_pipeline_function_registry_free.
 * Thread-safety: as budcore_pipeline_function_registry_free. */
BUDCORE_API void budcore_function_registry_free(budcore_function_registry *registry)
    BUDCORE_DEPRECATED("use budcore_pipeline_function_registry_free");

/* Deprecated: budcore_pipeline_function_registry_add.
 * Thread-safety: as budcore_pipeline_function_registry_add. */
BUDCORE_API int budcore_function_registry_add(budcore_function_registry *registry, const char *name, size_t name_len,
                                              budcore_step_function callback, void *payload,
                                              budcore_free_payload free_payload)
    BUDCORE_DEPRECATED("use budcore_pipeline_function_registry_add");

/* Deprecated: budcore_pipeline_function_registry_size.
 * Thread-safety: as budcore_pipeline_function_registry_size. */
BUDCORE_API size_t budcore_function_registry_size(const budcore_function_registry *registry)
    BUDCORE_DEPRECATED("use budcore_pipeline_function_registry_size");

/* ---- rehearsed runs ------------------------------------------------------------------------ */

/* Rehearses a run of a pipeline document (JSON or YAML) on a virtual clock, as
 * `budcore pipeline run` does: JOB steps, API calls and notifications are simulated, FUNCTION
 * steps call `functions` (NULL: none registered, so FUNCTION steps end "errored"), approval
 * gates are approved unless rejected, and the run goes on until it is done or can only wait
 * for outside input. Nothing leaves the process; the same inputs give the same result.
 * options_json (NULL with length 0: defaults) is an object with any of
 *   "params":  {...}                      merged over pipeline.parameters
 *   "fail":    {"step-3": 1} | ["step-3"] the first N attempts fail (a list or true: all)
 *   "slow":    {"step-4": 2.0}            JOB duration multiplier (> 0)
 *   "timeout": ["step-5"]                 the step hangs until a timeout ends it
 *   "reject":  ["gate"]                   approval gates to reject
 *   "run_id":  "run"
 * On success (also when the pipeline itself failed) writes to `out`:
 *   {"status": "completed" | "failed" | "running" | ..., "done": bool, "elapsed_seconds": N,
 *    "failure_reason": "...", "steps": {id: state}, "outputs": {id: {...}},
 *    "messages": {id: "why it failed/was skipped"},
 *    "transitions": [{"seq", "time", "step", "from", "to", "attempt", "message",
 *                     "elapsed_seconds"}, ...]}
 * Errors: BUDCORE_EINVALID for a document that does not parse or validate (field = the
 * path in the document) or for bad options (field = "options.<key>...", e.g. an unknown key
 * "options.bogus" or "options.fail.step-3"); `out` is then untouched.
 * Thread-safety: safe from any thread (see budcore_pipeline_function_registry_add). */
BUDCORE_API int budcore_pipeline_run(budcore_buf *out, const char *document, size_t document_len,
                                     const char *options_json, size_t options_json_len,
                                     const budcore_pipeline_function_registry *functions);

BUDCORE_END_DECL

#endif
