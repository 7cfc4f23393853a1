/* budcore — version macros. CMake reads the numbers from this file. */
#ifndef BUDCORE_C_VERSION_H
#define BUDCORE_C_VERSION_H

#include "budcore/export.h"

#define BUDCORE_VERSION_MAJOR 0
#define BUDCORE_VERSION_MINOR 1
#define BUDCORE_VERSION_PATCH 0
#define BUDCORE_VERSION_STRING "0.1.0"
/* SOVERSION is "0.<minor>" while on 0.x, then "<major>" from 1.0 (libgit2's rule). */
#define BUDCORE_SOVERSION "0.1"

#define BUDCORE_VERSION_NUMBER \
  (BUDCORE_VERSION_MAJOR * 1000000 + BUDCORE_VERSION_MINOR * 1000 + BUDCORE_VERSION_PATCH)
/* True when the headers are at least version (ma, mi, pa). */
#define BUDCORE_VERSION_CHECK(ma, mi, pa) \
  (BUDCORE_VERSION_NUMBER >= ((ma) * 1000000 + (mi) * 1000 + (pa)))

BUDCORE_BEGIN_DECL

/* Runtime version of the loaded library; any out pointer may be NULL. Returns 0.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_version(int *major, int *minor, int *patch);
/* Borrowed, static string ("0.1.0"); valid for the life of the process.
 * Thread-safety: safe from any thread. */
BUDCORE_API const char *budcore_version_string(void);

BUDCORE_END_DECL

#endif
