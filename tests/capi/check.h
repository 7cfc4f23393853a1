/* A soft assertion for the C ABI test programs: prints what failed and counts it; main
 * returns failures != 0. */
#ifndef BUDCORE_TESTS_CAPI_CHECK_H
#define BUDCORE_TESTS_CAPI_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

/* Copies the <uuid> of the first "key": "<uuid>" in json into out (37 bytes); 0 when absent. */
static inline int find_id(const char *json, const char *key, char out[37]) {
  const char *p = strstr(json, key);
  if (p == NULL) return 0;
  p = strchr(p + strlen(key), '"');
  if (p == NULL || strlen(p + 1) < 36) return 0;
  memcpy(out, p + 1, 36);
  out[36] = '\0';
  return 1;
}

/* Removes a test's mkdtemp directory and everything in it; 1 on success. */
static inline int remove_tree(const char *dir) {
  char cmd[1100];
  if (strlen(dir) > 1000 || strchr(dir, '\'') != NULL) return 0;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0;
}

#endif
