/* budcore C ABI — the durable store (SQLite file or PostgreSQL). JSON in, JSON out; the JSON
 * forms are those of budcore/backend/store_json.hpp. */
#ifndef BUDCORE_C_STORE_H
#define BUDCORE_C_STORE_H

#include <stdint.h>

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* An open store. Opaque; release with budcore_store_free(). */
typedef struct budcore_store budcore_store;

/* Opens the store at `uri` (uri_len bytes): "sqlite:///abs/path.db", "sqlite::memory:",
 * "postgresql://user@host:port/db", migrating its schema forward. On success *out holds the
 * handle; on failure *out is NULL and the status says why (BUDCORE_EINVALID for an unknown
 * scheme, BUDCORE_EIO when the database cannot be opened, BUDCORE_EUNSUPPORTED for a schema
 * newer than this library).
 * Thread-safety: the handle may be shared by threads (calls are serialized inside). */
BUDCORE_API int budcore_store_open(budcore_store **out, const char *uri, size_t uri_len);

/* Closes the store. NULL is a no-op. Thread-safety: not while any other call uses the store. */
BUDCORE_API void budcore_store_free(budcore_store *store);

/* Submits a job (JSON, the Job schema) for `tenant` (a UUID). With a non-empty
 * idempotency_key a retried submit returns the first job instead of creating a second one
 * ("created": false). Writes {"created", "version", "idempotency_key", "job"} to `out`.
 * Errors: BUDCORE_EINVALID naming the field (budcore_error_problem() lists every problem of the
 * document; nothing is stored), BUDCORE_EIO.
 * Thread-safety: safe from any thread (calls on one store are serialized inside). */
BUDCORE_API int budcore_store_job_submit(budcore_buf *out, budcore_store *store, const char *tenant,
                                         size_t tenant_len, const char *job_json, size_t job_json_len,
                                         const char *idempotency_key, size_t idempotency_key_len);

/* Writes the job record {"version", "idempotency_key", "job"} of job `id` of `tenant` to `out`.
 * Another tenant's job is BUDCORE_ENOTFOUND.
 * Thread-safety: safe from any thread (calls on one store are serialized inside). */
BUDCORE_API int budcore_store_job_get(budcore_buf *out, const budcore_store *store, const char *tenant,
                                      size_t tenant_len, const char *id, size_t id_len);

/* Moves job `id` of `tenant` to status `to` ("queued", "scheduled", "running", "completed",
 * "failed", "cancelled", ...) along the job state machine, as a compare-and-set on
 * `expected_version` (the "version" of the record the caller read); `message` (NULL/0: none)
 * becomes the job's status_message. Writes the new record {"version", "idempotency_key", "job"}.
 * Errors: BUDCORE_ECONFLICT when the version moved on or the move is not legal from the stored
 * status (the message says which), BUDCORE_ENOTFOUND (another tenant's job too),
 * BUDCORE_EINVALID for an unknown status (field "to"); `out` is untouched on failure.
 * Thread-safety: safe from any thread (calls on one store are serialized inside). */
BUDCORE_API int budcore_store_job_transition(budcore_buf *out, budcore_store *store, const char *tenant,
                                             size_t tenant_len, const char *id, size_t id_len, int64_t expected_version,
                                             const char *to, size_t to_len, const char *message, size_t message_len);

/* Lists `tenant`'s jobs newest first. query_json (NULL with length 0: defaults) is
 * {"status": "queued" | [...], "project_id", "cluster_id", "pipeline_id", "job_type", "source",
 *  "created_from", "created_to", "limit": 1..1000 (default 100), "after": cursor,
 *  "view": "summary" (default) | "full"}. Writes {"items": [...], "next_cursor": "..."}: pass
 * next_cursor as "after" for the next page ("" on the last page).
 * Thread-safety: safe from any thread (calls on one store are serialized inside). */
BUDCORE_API int budcore_store_job_list(budcore_buf *out, const budcore_store *store, const char *tenant,
                                       size_t tenant_len, const char *query_json, size_t query_json_len);

BUDCORE_END_DECL

#endif
