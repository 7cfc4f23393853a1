/* An admission engine handle from C, fed over time: workloads added, cycles run, a finish that
 * lets a waiting workload in, statuses read; bad workloads name their field. And a store job
 * moved along its state machine with budcore_store_job_transition (compare-and-set). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budcore/budcore.h"
#include "check.h"

#define S(x) x, strlen(x)
#define TENANT "00000000-0000-4000-8000-0000000000e1"

static const char kConfig[] =
    "{\"resource_flavors\": [{\"name\": \"default\"}],"
    " \"cluster_queues\": [{\"name\": \"cq\", \"resource_groups\": [{\"covered_resources\": [\"cpu\"],"
    "   \"flavors\": [{\"name\": \"default\", \"resources\": [{\"name\": \"cpu\", \"nominal\": \"4\"}]}]}]}],"
    " \"local_queues\": [{\"namespace\": \"ns\", \"name\": \"lq\", \"cluster_queue\": \"cq\"}],"
    " \"workloads\": [{\"name\": \"a\", \"namespace\": \"ns\", \"queue\": \"lq\", \"creation_seq\": 1,"
    "   \"pod_sets\": [{\"name\": \"main\", \"count\": 1, \"requests\": {\"cpu\": \"3\"}}]}]}";
static const char kB[] =
    "{\"name\": \"b\", \"namespace\": \"ns\", \"queue\": \"lq\", \"creation_seq\": 2,"
    " \"pod_sets\": [{\"name\": \"main\", \"count\": 1, \"requests\": {\"cpu\": \"3\"}}]}";

static void engine(void) {
  budcore_quota_engine *e = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  int64_t cycles = -1;

  CHECK(budcore_quota_engine_new(&e, S("{\"cluster_queues\": 3}")) == BUDCORE_EINVALID);
  CHECK(e == NULL && strcmp(budcore_error_last()->field, "cluster_queues") == 0);
  CHECK(budcore_quota_engine_new(&e, S(kConfig)) == BUDCORE_OK);
  if (e == NULL) return;

  /* b joins later; a duplicate and a bad pod set are refused, naming what is wrong. */
  CHECK(budcore_quota_engine_add(e, S(kB)) == BUDCORE_OK);
  CHECK(budcore_quota_engine_add(e, S(kB)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "name") == 0 && strstr(budcore_error_last()->message, "duplicate") != NULL);
  CHECK(budcore_quota_engine_add(e, S("{\"name\": \"c\", \"queue\": \"lq\", \"pod_sets\": [{\"count\": -1}]}")) ==
        BUDCORE_EINVALID);
  CHECK(strncmp(budcore_error_last()->field, "workload.pod_sets[0]", 20) == 0);

  /* One cycle admits a; b waits for quota, with a reason. */
  CHECK(budcore_quota_engine_cycle(&out, e) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"admitted\":[\"ns/a\"]") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_quota_engine_run(&cycles, e, 100) == BUDCORE_OK);
  CHECK(cycles >= 1);
  CHECK(budcore_quota_engine_status(&out, e, S("ns/b")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"state\":\"pending\"") != NULL &&
        strstr(out.ptr, "\"pending_reason\":\"") != NULL);
  budcore_buf_dispose(&out);

  /* a finishes: b is admitted. */
  CHECK(budcore_quota_engine_finish(e, S("ns/a")) == BUDCORE_OK);
  CHECK(budcore_quota_engine_finish(e, S("ns/zzz")) == BUDCORE_ENOTFOUND);
  CHECK(budcore_quota_engine_run(&cycles, e, 100) == BUDCORE_OK);
  CHECK(budcore_quota_engine_status(&out, e, S("ns/b")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"state\":\"admitted\"") != NULL &&
        strstr(out.ptr, "\"cluster_queue\":\"cq\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_quota_engine_status(&out, e, S("ns/nope")) == BUDCORE_ENOTFOUND);
  CHECK(out.ptr == NULL);
  CHECK(budcore_quota_engine_statuses(&out, e) == BUDCORE_OK);
  CHECK(out.ptr != NULL && out.ptr[0] == '[' && strstr(out.ptr, "\"key\":\"ns/a\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_quota_engine_run(&cycles, e, -1) == BUDCORE_EINVALID);
  CHECK(budcore_quota_engine_run(NULL, e, 1) == BUDCORE_EINVALID);
  CHECK(budcore_quota_engine_cycle(&out, NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "engine") == 0);
  budcore_quota_engine_free(e);
  budcore_quota_engine_free(NULL);
}

static void store_transition(void) {
  char dir[] = "/tmp/budcore-capi-transition-XXXXXX", uri[200], id[37];
  budcore_store *st = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  static const char job[] =
      "{\"name\": \"t\", \"job_type\": \"batch\", \"deployment_type\": \"docker\", \"gpu_count\": 0}";
  CHECK(mkdtemp(dir) != NULL);
  snprintf(uri, sizeof uri, "sqlite://%s/s.db", dir);
  CHECK(budcore_store_open(&st, S(uri)) == BUDCORE_OK);
  CHECK(budcore_store_job_submit(&out, st, S(TENANT), S(job), NULL, 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && find_id(out.ptr, "\"id\":", id));
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"version\":1") != NULL);
  budcore_buf_dispose(&out);

  /* pending -> queued at version 1; the same version again is a lost compare-and-set. */
  CHECK(budcore_store_job_transition(&out, st, S(TENANT), S(id), 1, S("queued"), S("in the queue")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"version\":2") != NULL && strstr(out.ptr, "\"status\":\"queued\"") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status_message\":\"in the queue\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_store_job_transition(&out, st, S(TENANT), S(id), 1, S("scheduled"), NULL, 0) == BUDCORE_ECONFLICT);
  CHECK(out.ptr == NULL);
  /* An illegal move, an unknown status, another tenant's job. */
  CHECK(budcore_store_job_transition(&out, st, S(TENANT), S(id), 2, S("completed"), NULL, 0) == BUDCORE_ECONFLICT);
  CHECK(budcore_store_job_transition(&out, st, S(TENANT), S(id), 2, S("finished"), NULL, 0) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "to") == 0);
  CHECK(budcore_store_job_transition(&out, st, S("00000000-0000-4000-8000-0000000000e2"), S(id), 2, S("scheduled"),
                                     NULL, 0) == BUDCORE_ENOTFOUND);
  CHECK(budcore_store_job_transition(&out, st, S(TENANT), S(id), 2, S("scheduled"), NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  budcore_store_free(st);
  CHECK(remove_tree(dir));
}

int main(void) {
  engine();
  store_transition();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("capi quota engine and store transition: ok\n");
  return failures != 0;
}
