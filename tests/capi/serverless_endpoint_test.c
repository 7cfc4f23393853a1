/* A serverless endpoint on a platform handle from C: its worker is a job the platform admits,
 * a request is placed on it warm, its busy and idle GPU time comes back as usage rows, and the
 * pool shrinks to zero; bad options are refused naming the field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

#define S(x) x, strlen(x)

/* $3.60 per A100-hour: a GPU-second costs $0.001. */
static const char kCost[] =
    "clock: {kind: virtual, start: \"2026-01-01T00:00:00Z\"}\n"
    "cost:\n"
    "  prices:\n"
    "    currency: USD\n"
    "    gpu_hour: {nvidia-a100-80gb: {on_demand: \"3.60\"}}\n"
    "    cpu_core_hour: {on_demand: \"0\"}\n"
    "    memory_gib_hour: {on_demand: \"0\"}\n";

static const char kEndpoint[] =
    "name: chat\nmodel: llama-3-8b\nconcurrency_per_worker: 1\n"
    "cold_start: {container_seconds: 2, model_gib: 1, load_gib_per_second: 1, warmup_seconds: 0}\n"
    "warm_pool: {min_warm_workers: 0, max_warm_workers: 2, target_warm_workers: 0}\n";

static void run(budcore_platform *p, double seconds) {
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(budcore_platform_run(&out, p, seconds) == BUDCORE_OK);
  budcore_buf_dispose(&out);
}

int main(void) {
  char dir[] = "/tmp/budcore-capi-sls-XXXXXX";
  char config[2048];
  budcore_platform *p = NULL;
  budcore_serverless_endpoint *ep = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_caller caller = {BUDCORE_CALLER_VERSION, S("00000000-0000-4000-8000-0000000000c1"), S("user:c"), S("req-c")};
  const char *subs = "[{\"tenant\": \"acme\", \"payload_hash\": \"h1\", \"estimated_compute_seconds\": 10, "
                     "\"priority\": \"premium\"}]";

  CHECK(mkdtemp(dir) != NULL);
  snprintf(config, sizeof config, "store: \"sqlite://%s/budcore.db\"\n%s", dir, kCost);
  CHECK(budcore_platform_open(&p, S(config)) == BUDCORE_OK);

  CHECK(budcore_serverless_endpoint_open(&ep, p, &caller, S(kEndpoint), S("{\"worker_priority\": \"urgent\"}")) ==
        BUDCORE_EINVALID);
  CHECK(ep == NULL);
  CHECK(strcmp(budcore_error_last()->field, "options.worker_priority") == 0);
  CHECK(budcore_serverless_endpoint_open(&ep, p, &caller, S(kEndpoint), NULL, 0) == BUDCORE_OK);

  /* One worker: a job waiting for admission, then running, then warm after its 3 s cold start. */
  CHECK(budcore_serverless_endpoint_scale(&out, ep, 1) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"queued\":1") != NULL);
  CHECK(strstr(out.ptr, "\"name\":\"chat-w1\"") != NULL);
  budcore_buf_dispose(&out);
  run(p, 5);
  CHECK(budcore_serverless_endpoint_scale(&out, ep, -1) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"ready\":1") != NULL);
  if (failures) fprintf(stderr, "%s\n", out.ptr);
  budcore_buf_dispose(&out);

  /* A request goes to the warm worker and is busy for 10 s. */
  CHECK(budcore_serverless_endpoint_enqueue(&out, ep, S(subs)) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"placement\":\"warm\"") != NULL);
  if (failures) fprintf(stderr, "%s\n", out.ptr);
  budcore_buf_dispose(&out);
  run(p, 10);
  CHECK(budcore_serverless_endpoint_finish(&out, ep, 1, NULL, 0) == BUDCORE_OK);
  CHECK(strcmp(out.ptr, "{\"assignments\":[]}") == 0);
  budcore_buf_dispose(&out);
  CHECK(budcore_serverless_endpoint_finish(&out, ep, 99, NULL, 0) == BUDCORE_ENOTFOUND);
  CHECK(out.ptr == NULL);
  run(p, 10);

  /* 25 GPU-seconds, 10 of them busy: one usage row tagged with the endpoint. */
  CHECK(budcore_serverless_endpoint_meter(&out, ep) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"serverless_endpoint\":\"chat\"") != NULL);
  CHECK(strstr(out.ptr, "\"gpu_seconds\":\"25\"") != NULL);
  CHECK(strstr(out.ptr, "\"idle_gpu_seconds\":\"15\"") != NULL);
  if (failures) fprintf(stderr, "%s\n", out.ptr);
  budcore_buf_dispose(&out);

  CHECK(budcore_serverless_endpoint_scale(&out, ep, 0) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"stopped\":1") != NULL);
  CHECK(strstr(out.ptr, "\"workers\":[]") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_check(p) == BUDCORE_OK);

  budcore_serverless_endpoint_free(ep);
  budcore_platform_free(p);
  CHECK(remove_tree(dir));
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
