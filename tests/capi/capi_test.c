/* The C ABI exercised from C, as a foreign caller sees it. Each check prints what failed. */
#include <stdio.h>
#include <string.h>

#include "budcore/budcore.h"

static int failures = 0;
#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                    \
    }                                                                \
  } while (0)

static void test_version(void) {
  int ma = -1, mi = -1, pa = -1;
  CHECK(budcore_version(&ma, &mi, &pa) == BUDCORE_OK);
  CHECK(ma == BUDCORE_VERSION_MAJOR && mi == BUDCORE_VERSION_MINOR && pa == BUDCORE_VERSION_PATCH);
  CHECK(strcmp(budcore_version_string(), BUDCORE_VERSION_STRING) == 0);
  CHECK(budcore_version(NULL, NULL, NULL) == BUDCORE_OK);
  CHECK(BUDCORE_VERSION_CHECK(0, 0, 1));
}

static void test_error_last_never_null(void) {
  const budcore_error *e;
  budcore_error_clear();
  e = budcore_error_last();
  CHECK(e != NULL);
  CHECK(e->code == BUDCORE_OK);
  CHECK(e->message != NULL && e->message[0] == '\0');
  CHECK(e->field != NULL && e->value != NULL);
  CHECK(strcmp(budcore_strerror(BUDCORE_EINVALID), "invalid input") == 0);
  CHECK(strcmp(budcore_strerror(12345), "unknown status code") == 0);
}

static void test_buf_dispose(void) {
  budcore_buf empty = BUDCORE_BUF_INIT;
  budcore_buf_dispose(&empty); /* no-op on an empty buf */
  budcore_buf_dispose(NULL);   /* and on NULL */
  budcore_free(NULL);
  CHECK(empty.ptr == NULL && empty.size == 0);
}

int main(void) {
  test_version();
  test_error_last_never_null();
  test_buf_dispose();
  if (failures == 0) printf("capi_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
