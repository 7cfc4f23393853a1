/* Uses the installed C ABI: checks the header and library versions agree, validates a job and
 * shows the error a bad one gets. Exit 0 when everything behaves as documented. */
#include <stdio.h>
#include <string.h>

#include <budcore/budcore.h>

static const char kJob[] =
    "{\"name\": \"pkgconfig-consumer\", \"tenant_id\": \"3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b\","
    " \"project_id\": \"7a8b9c0d-1e2f-4a3b-8c5d-6e7f8a9b0c1d\","
    " \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\","
    " \"spec\": {\"image\": \"busybox:1.36\"}, \"gpu_count\": 1, \"cpu_cores\": 0.5}";
static const char kBadJob[] =
    "{\"name\": \"pkgconfig-consumer\", \"tenant_id\": \"3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b\","
    " \"project_id\": \"7a8b9c0d-1e2f-4a3b-8c5d-6e7f8a9b0c1d\","
    " \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_count\": -3}";

int main(void) {
  int major = 0, minor = 0, patch = 0;
  budcore_buf out = BUDCORE_BUF_INIT;
  const budcore_error *e;

  budcore_version(&major, &minor, &patch);
  printf("budcore library %s (headers %s)\n", budcore_version_string(), BUDCORE_VERSION_STRING);
  if (major != BUDCORE_VERSION_MAJOR || minor != BUDCORE_VERSION_MINOR) {
    fprintf(stderr, "header/library version mismatch\n");
    return 1;
  }

  if (budcore_job_validate(&out, kJob, strlen(kJob)) != BUDCORE_OK) {
    e = budcore_error_last();
    fprintf(stderr, "valid job rejected: %s: %s\n", e->field, e->message);
    return 1;
  }
  printf("normalized job: %s\n", out.ptr);
  budcore_buf_dispose(&out);

  if (budcore_job_validate(&out, kBadJob, strlen(kBadJob)) != BUDCORE_EINVALID) {
    fprintf(stderr, "a negative gpu_count was accepted\n");
    budcore_buf_dispose(&out);
    return 1;
  }
  e = budcore_error_last();
  printf("rejected as expected: %s = '%s': %s\n", e->field, e->value, e->message);
  if (strstr(e->field, "gpu_count") == NULL) {
    fprintf(stderr, "error names field '%s', expected gpu_count\n", e->field);
    return 1;
  }
  printf("pkgconfig_consumer: ok\n");
  return 0;
}
