/* A soft assertion for the C ABI test programs: prints what failed and counts it; main
 * returns failures != 0. */
#ifndef BUDCORE_TESTS_CAPI_CHECK_H
#define BUDCORE_TESTS_CAPI_CHECK_H

#include <stdio.h>

static int failures = 0;
#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

#endif
