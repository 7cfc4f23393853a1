/* Quick start in C: an embedded platform in a directory, one job, the virtual clock run until
 * idle, the job read back. Build: cc quickstart.c $(pkg-config --cflags --libs budcore) */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budcore/budcore.h"

#define S(text) text, strlen(text)
#define TRY(call) \
  if ((call) != BUDCORE_OK) return fprintf(stderr, "%s\n", budcore_error_last()->message), 1

int main(void) {
  const char *job = "{\"name\": \"quickstart\", \"job_type\": \"batch\", \"deployment_type\": \"docker\","
                    " \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1, \"estimated_duration_seconds\": 600}";
  budcore_caller me = {BUDCORE_CALLER_VERSION, S("3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"), NULL, 0, NULL, 0};
  char dir[] = "/tmp/budcore-quickstart-XXXXXX", id[37] = "";
  const char *status;
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;

  if (mkdtemp(dir) == NULL) return 1;
  TRY(budcore_platform_open_embedded(&p, S(dir)));
  TRY(budcore_platform_submit(&out, p, &me, S(job), NULL, 0));
  memcpy(id, strstr(out.ptr, "\"id\":\"") + 6, 36); /* the record's first "id" is the job's */
  budcore_buf_dispose(&out);
  TRY(budcore_platform_run(&out, p, -1)); /* seconds < 0: until nothing is scheduled */
  budcore_buf_dispose(&out);
  TRY(budcore_platform_get(&out, p, &me, S(id)));
  status = strstr(out.ptr, "\"status\":\"") + 10; /* and its first "status" the job's */
  printf("job %s: %.*s\n", id, (int)strcspn(status, "\""), status);
  budcore_buf_dispose(&out);
  budcore_platform_free(p);
  return 0;
}
