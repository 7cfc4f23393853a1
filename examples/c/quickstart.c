/* The smallest useful budcore program in C: validate a job document and print it normalized. */
#include <stdio.h>
#include <string.h>

#include "budcore/budcore.h"

int main(void) {
  const char *job =
      "{\"name\": \"nightly-batch\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\","
      " \"spec\": {\"image\": \"busybox:1.36\"}, \"gpu_count\": 1, \"cpu_cores\": \"500m\"}";
  budcore_buf out = BUDCORE_BUF_INIT;

  printf("budcore %s\n", budcore_version_string());
  if (budcore_job_validate(&out, job, strlen(job)) != BUDCORE_OK) {
    const budcore_error *e = budcore_error_last(); /* this thread's error, valid until the next call */
    fprintf(stderr, "%s: %s (value '%s')\n", e->field, e->message, e->value);
    return 1;
  }
  printf("%s\n", out.ptr);
  budcore_buf_dispose(&out); /* the caller owns out.ptr */
  return 0;
}
