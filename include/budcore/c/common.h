/* budcore C ABI — status codes and library-owned memory.
 *
 * Conventions (libgit2's): functions return int, 0 on success and a negative BUDCORE_E* code
 * on failure; outputs come first and a single output is named `out`; text inputs are UTF-8
 * as (pointer, length) and are copied when kept. Handles are opaque; `budcore_x_free(NULL)`
 * is a no-op. Errors are thread-local (budcore/c/error.h). No C++ exception ever crosses
 * this boundary. */
#ifndef BUDCORE_C_COMMON_H
#define BUDCORE_C_COMMON_H

#include <stddef.h>

#include "budcore/export.h"

BUDCORE_BEGIN_DECL

typedef enum budcore_status {
  BUDCORE_OK = 0,
  BUDCORE_ERROR = -1,     /* generic / internal failure */
  BUDCORE_EINVALID = -2,  /* input fails validation; budcore_error_last()->field names it */
  BUDCORE_ENOTFOUND = -3,
  BUDCORE_EEXISTS = -4,
  BUDCORE_ECONFLICT = -5, /* lost a compare-and-set or an illegal state transition */
  BUDCORE_EQUOTA = -6,
  BUDCORE_EBUDGET = -7,
  BUDCORE_EUSER = -8,     /* a user callback returned non-zero */
  BUDCORE_ENOMEM = -9,
  BUDCORE_EOVERFLOW = -10,
  BUDCORE_ESECURITY = -11,
  BUDCORE_EIO = -12,
  BUDCORE_EUNSUPPORTED = -13,
  BUDCORE_ERATELIMITED = -14, /* too many requests now; budcore_error_last()->retry_after_ms says when */
  BUDCORE_ENOTLEADER = -15,   /* a leader-only write by a replica that no longer leads; value: the current epoch */
  BUDCORE_EGONE = -16         /* removed by retention (a watch cursor before the log's start); value: the oldest seq to resume after */
} budcore_status;

/* Text owned by the caller after the library fills it; always NUL-terminated (ptr[size] == 0).
 * Release with budcore_buf_dispose(); do not mix allocators. Initialise with BUDCORE_BUF_INIT. */
typedef struct budcore_buf {
  char *ptr;
  size_t size;
} budcore_buf;

#define BUDCORE_BUF_INIT {NULL, 0}

/* Frees buf->ptr and resets the buf to empty. NULL or an empty buf is a no-op.
 * Thread-safety: safe on distinct bufs. */
BUDCORE_API void budcore_buf_dispose(budcore_buf *buf);

/* Replaces the text in `buf` with a library-owned copy of (text, len) (freeing what it held),
 * NUL-terminated. For callbacks filling their `out` (budcore/c/pipeline.h), and for any buf the caller wants to hand
 * to the library. (NULL, 0) sets the empty text. Errors: BUDCORE_EINVALID for a NULL buf or
 * (NULL, len > 0); BUDCORE_ENOMEM. Thread-safety: safe on distinct bufs. */
BUDCORE_API int budcore_buf_set(budcore_buf *buf, const char *text, size_t text_len);

/* Releases a payload the library kept on the caller's behalf, once, when the library no longer
 * needs it (for example when a function registry is freed). Every callback's context pointer
 * is named `payload`: given with the callback, passed back to each call untouched. */
typedef void (*budcore_free_payload)(void *payload);

/* Frees any other memory the library documents as caller-owned. NULL is a no-op.
 * Thread-safety: safe from any thread (on memory no other thread uses). */
BUDCORE_API void budcore_free(void *ptr);

/* Static English name of a status code ("invalid input"); never NULL.
 * Thread-safety: safe from any thread. */
BUDCORE_API const char *budcore_strerror(int code);

BUDCORE_END_DECL

#endif
