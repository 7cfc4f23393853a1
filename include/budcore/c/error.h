/* budcore C ABI — the last error of the calling thread. */
#ifndef BUDCORE_C_ERROR_H
#define BUDCORE_C_ERROR_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

typedef struct budcore_error {
  int code;            /* a budcore_status (negative), or BUDCORE_OK when there is none */
  const char *message; /* never NULL; "" when there is no error */
  const char *field;   /* path of the offending input ("resources.gpu_count"); "" if none */
  const char *value;   /* the offending value as given; "" if none */
  long long retry_after_ms; /* BUDCORE_ERATELIMITED: retry after this many ms; 0 otherwise */
  /* Members are only ever added here, at the end: the library allocates every budcore_error
   * and hands out pointers, so a program built against an older header reads the prefix it
   * knows. A program reading the members below needs a library at least as new as its header
   * (compare budcore_version() with BUDCORE_VERSION_*). */
  const char *kind; /* what failed, within its input: for a template failure Jinja2's exception
                     * name ("UndefinedError", "TemplateSyntaxError", "SecurityError", ...);
                     * "" otherwise */
  int line;         /* 1-based position in the input `field` names (the template text); 0 when */
  int column;       /* unknown or not a text position */
} budcore_error;

/* The last error raised on this thread. Never NULL: with no error, code is BUDCORE_OK and the
 * strings are "". The pointer and its strings stay valid until the next budcore call on this
 * thread. Thread-safety: thread-local. */
BUDCORE_API const budcore_error *budcore_error_last(void);

/* How many problems the last error reports: 0 with no error, 1 for an error that stands alone,
 * more when one input had several (a job document given to budcore_job_validate, a job submit or
 * store call lists every field it cannot accept, as budcore_job_validate_all does). At most 101:
 * 100 problems, then one without a field that says how many more there are.
 * Thread-safety: thread-local. */
BUDCORE_API size_t budcore_error_problem_count(void);

/* Problem `index` of the last error, in order; problem 0 is budcore_error_last() itself. NULL
 * when index >= budcore_error_problem_count(). The pointer and its strings stay valid as long as
 * budcore_error_last()'s. Thread-safety: thread-local. */
BUDCORE_API const budcore_error *budcore_error_problem(size_t index);

/* Clears this thread's last error. Thread-safety: thread-local. */
BUDCORE_API void budcore_error_clear(void);

BUDCORE_END_DECL

#endif
