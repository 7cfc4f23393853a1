/* The platform from C: open the embedded platform in a temp dir, submit (one and a batch),
 * run the virtual clock, get/list/cancel/retry, the event stream by poll and by callback,
 * the schedule, a pipeline run, metrics, a what-if scenario, and the error rules (out untouched on failure,
 * a full out refused, NULL handles, bad UTF-8, unknown ids, illegal moves). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

#define S(x) x, strlen(x)

static const char kJob[] =
    "{\"name\": \"c-train\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\","
    " \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 2, \"estimated_duration_seconds\": 600}";

static const char kPipeline[] =
    "{\"pipeline\": {\"id\": \"p\", \"name\": \"c-pipe\"}, \"steps\": ["
    " {\"id\": \"a\", \"name\": \"a\", \"step_type\": \"JOB\", \"depends_on\": [],"
    "  \"config\": {\"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"estimated_duration_seconds\": 30}}]}";

struct seen {
  int count;
  int stop_after;
};

static int on_event(const char *json, size_t len, void *payload) {
  struct seen *s = (struct seen *)payload;
  CHECK(len > 0 && json[0] == '{' && json[len] == '\0');
  ++s->count;
  return s->stop_after > 0 && s->count >= s->stop_after;
}

int main(void) {
  char dir[] = "/tmp/budcore-capi-platform-XXXXXX";
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_caller caller = {BUDCORE_CALLER_VERSION, S("00000000-0000-4000-8000-0000000000c1"), S("user:c"), S("req-c")};
  budcore_caller other = {BUDCORE_CALLER_VERSION, S("00000000-0000-4000-8000-0000000000c2"), NULL, 0, NULL, 0};
  char id[37];
  int64_t last = -1;
  struct seen seen = {0, 0};

  CHECK(mkdtemp(dir) != NULL);
  CHECK(budcore_platform_open_embedded(NULL, S(dir)) == BUDCORE_EINVALID);
  CHECK(budcore_platform_open(&p, S("store: {uri: x}\nclock: sundial\n")) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "clock") == 0);
  CHECK(budcore_platform_open_embedded(&p, S(dir)) == BUDCORE_OK);

  /* Submit, run, read back. */
  CHECK(budcore_platform_submit(&out, p, &caller, S(kJob), S("k-1")) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"created\":true") != NULL);
  CHECK(find_id(out.ptr, "\"id\":", id));
  /* A full buffer is refused and left as it was. */
  CHECK(budcore_platform_get(&out, p, &caller, S(id)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "out") == 0);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_run(&out, p, -1) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"now\":\"2026-01-01T00:10:00Z\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_get(&out, p, &caller, S(id)) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"status\":\"completed\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_get(&out, p, &other, S(id)) == BUDCORE_ENOTFOUND);
  CHECK(out.ptr == NULL);
  CHECK(budcore_platform_cancel(&out, p, &caller, S(id), S("too late")) == BUDCORE_ECONFLICT);
  CHECK(budcore_platform_retry(&out, p, &caller, S(id)) == BUDCORE_ECONFLICT);
  CHECK(out.ptr == NULL);

  /* A batch, listed by status. */
  CHECK(budcore_platform_submit(&out, p, &caller, S("{\"jobs\": [{\"name\": \"b1\", \"job_type\": \"BATCH\","
                                                   " \"deployment_type\": \"DOCKER\"}, {\"job\": {\"name\": \"b2\","
                                                   " \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\"},"
                                                   " \"idempotency_key\": \"b2\"}]}"),
                                NULL, 0) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"results\":[") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_list(&out, p, &caller, S("{\"status\": \"queued\"}")) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"b1\"") != NULL && strstr(out.ptr, "\"b2\"") != NULL && strstr(out.ptr, "c-train") == NULL);
  budcore_buf_dispose(&out);
  /* The schedule of the queued batch: jobs named by id, estimated times, the caller's own only. */
  CHECK(budcore_platform_schedule(&out, p, &caller) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"estimated_start\":") != NULL);
  CHECK(strstr(out.ptr, "no estimated_duration_seconds; assumed 3600 s") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_schedule(&out, p, &other) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"jobs\":[]") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_schedule(&out, NULL, &caller) == BUDCORE_EINVALID);
  CHECK(out.ptr == NULL);
  CHECK(budcore_platform_submit(&out, p, &caller, S("{\"jobs\": [{\"name\": \"Bad Name\"}]}"), NULL, 0) == BUDCORE_EINVALID);
  CHECK(strncmp(budcore_error_last()->field, "jobs[0]", 7) == 0);

  /* Events: poll, then a callback that stops early. */
  CHECK(budcore_platform_events(&out, p, &caller, 0, 1000) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"to\":\"completed\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_watch(&last, p, &caller, 0, 1000, on_event, &seen) == BUDCORE_OK);
  CHECK(seen.count >= 6 && last > 0);
  seen.count = 0;
  seen.stop_after = 2;
  CHECK(budcore_platform_watch(&last, p, &caller, 0, 1000, on_event, &seen) == BUDCORE_EUSER);
  CHECK(seen.count == 2);
  CHECK(budcore_platform_events(&out, p, &caller, 0, 0) == BUDCORE_EINVALID);

  /* A pipeline run through platform jobs. */
  CHECK(budcore_platform_run_pipeline(&out, p, &caller, S(kPipeline), NULL, 0) == BUDCORE_OK);
  CHECK(find_id(out.ptr, "\"id\":", id));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_run(&out, p, 3600) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_pipeline_run(&out, p, &caller, S(id)) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"status\":\"completed\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_check(p) == BUDCORE_OK);

  CHECK(budcore_platform_metrics(&out, p) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "# TYPE job_state_transitions_total counter") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_cluster(&out, p) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"usage\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_ha_status(&out, p) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"role\":\"single\"") != NULL);
  budcore_buf_dispose(&out);

  /* Bad input. */
  CHECK(budcore_platform_get(&out, NULL, &caller, S(id)) == BUDCORE_EINVALID);
  CHECK(budcore_platform_get(&out, p, &caller, S("not-a-uuid")) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "id") == 0);
  CHECK(budcore_platform_submit(&out, p, &caller, "{\"name\": \"\xff\"}", 12, NULL, 0) == BUDCORE_EINVALID);
  CHECK(budcore_platform_pump(p) == BUDCORE_OK);
  {
    /* A caller struct never initialised (version 0) or from a later header is refused by name. */
    budcore_caller unset = BUDCORE_CALLER_INIT;
    budcore_caller later = caller;
    unset.version = 0;
    CHECK(budcore_platform_get(&out, p, &unset, S(id)) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "caller.version") == 0);
    CHECK(strcmp(budcore_error_last()->value, "0") == 0);
    later.version = BUDCORE_CALLER_VERSION + 1;
    CHECK(budcore_platform_get(&out, p, &later, S(id)) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "caller.version") == 0);
    CHECK(strstr(budcore_error_last()->message, "newer than this library knows") != NULL);
  }
  CHECK(out.ptr == NULL);

  /* Retention: the embedded platform keeps everything; one with a retention section compacts on
   * demand, and a watch from before the cut is Gone, naming where to resume. */
  CHECK(budcore_platform_compact(&out, p, &caller) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "retention") == 0);
  {
    char config[512];
    budcore_platform *r = NULL;
    int n = snprintf(config, sizeof config, "store: sqlite://%s/retained.db\nretention: {events: {max_count: 2}}\n", dir);
    CHECK(budcore_platform_open(&r, config, (size_t)n) == BUDCORE_OK);
    CHECK(budcore_platform_submit(&out, r, &caller, S(kJob), S("r-1")) == BUDCORE_OK);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_run(&out, r, -1) == BUDCORE_OK);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_compact(&out, r, &caller) == BUDCORE_OK);
    CHECK(strstr(out.ptr, "\"log\":\"events\"") != NULL);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_events(&out, r, &caller, 0, 1000) == BUDCORE_EGONE);
    CHECK(strcmp(budcore_error_last()->field, "since") == 0);
    CHECK(out.ptr == NULL);
    const int64_t resume = atoll(budcore_error_last()->value);
    CHECK(resume > 0);
    CHECK(budcore_platform_events(&out, r, &caller, resume, 1000) == BUDCORE_OK);
    budcore_buf_dispose(&out);
    CHECK(strcmp(budcore_strerror(BUDCORE_EGONE), "gone: removed by retention") == 0);
    budcore_platform_free(r);
  }

  /* GPU pools under a placement policy: two A100 nodes of 4 GPUs under worst_fit; a and b take
   * one GPU on each node, so c (4 GPUs), which the quota admits, waits for placement, and the
   * plan that frees it moves a (1 GPU x (0 + 60) s) rather than waiting 300 s for it. */
  {
    char config[1024];
    char a[37], c[37];
    budcore_platform *g = NULL;
    int n = snprintf(config, sizeof config,
                     "store: sqlite://%s/gpu.db\nclock: virtual\ncluster:\n  placement_policy: worst_fit\n"
                     "  inventory:\n    - {name: a100, flavor: a100-80gb, nodes: 2, gpu_type: nvidia-a100-80gb,"
                     " gpus_per_node: 4, cpu_per_node: \"96\", memory_per_node: 1Ti}\n",
                     dir);
    CHECK(budcore_platform_open(&g, config, (size_t)n) == BUDCORE_OK);
    CHECK(budcore_platform_submit(&out, g, &caller, S("{\"name\": \"a\", \"job_type\": \"BATCH\", \"deployment_type\": "
                                                      "\"DOCKER\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1,"
                                                      " \"estimated_duration_seconds\": 300}"), NULL, 0) == BUDCORE_OK);
    CHECK(find_id(out.ptr, "\"id\":", a));
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_submit(&out, g, &caller, S("{\"name\": \"b\", \"job_type\": \"BATCH\", \"deployment_type\": "
                                                      "\"DOCKER\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1,"
                                                      " \"estimated_duration_seconds\": 600}"), NULL, 0) == BUDCORE_OK);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_submit(&out, g, &caller, S("{\"name\": \"c\", \"job_type\": \"BATCH\", \"deployment_type\": "
                                                      "\"DOCKER\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 4,"
                                                      " \"estimated_duration_seconds\": 600}"), NULL, 0) == BUDCORE_OK);
    CHECK(find_id(out.ptr, "\"id\":", c));
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_pump(g) == BUDCORE_OK);
    CHECK(budcore_platform_gpu_defrag(&out, g, &caller, S(c)) == BUDCORE_OK);
    CHECK(out.ptr != NULL && strstr(out.ptr, "\"kind\":\"move\"") != NULL);
    CHECK(out.ptr != NULL && strstr(out.ptr, "\"applied\":false") != NULL);
    CHECK(out.ptr != NULL && strstr(out.ptr, a) != NULL);
    budcore_buf_dispose(&out);
    /* A plan that no longer matches the cluster is refused, naming where; the plan made now
     * (NULL) moves a, and c then runs. */
    CHECK(budcore_platform_gpu_defrag_apply(&out, g, &caller, S(c), S("{\"plan\": {\"kind\": \"move\", \"node\": \"a100-9\"}}")) ==
          BUDCORE_ECONFLICT);
    CHECK(strcmp(budcore_error_last()->field, "plan.node") == 0);
    CHECK(out.ptr == NULL);
    CHECK(budcore_platform_gpu_defrag_apply(&out, g, &caller, S(c), NULL, 0) == BUDCORE_OK);
    CHECK(out.ptr != NULL && strstr(out.ptr, "\"applied\":true") != NULL && strstr(out.ptr, a) != NULL);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_get(&out, g, &caller, S(c)) == BUDCORE_OK);
    CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"running\"") != NULL);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_gpu_defrag(&out, g, &caller, S(a)) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "job") == 0);
    CHECK(budcore_platform_gpu_defrag(&out, g, &other, S(c)) == BUDCORE_ENOTFOUND);
    CHECK(budcore_platform_gpu_defrag(&out, g, &caller, S("not-a-uuid")) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "id") == 0);
    CHECK(out.ptr == NULL);
    budcore_platform_free(g);
  }

  /* A what-if scenario. */
  CHECK(budcore_platform_simulate(&out, S("jobs: [{at: 10, job: {name: w, job_type: BATCH, deployment_type: DOCKER,"
                                          " estimated_duration_seconds: 60}}]")) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"ended_at\":70") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_simulate(&out, S("jobs: [{at: -1}]")) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "jobs[0].at") == 0);

  budcore_platform_free(p);
  budcore_platform_free(NULL);
  CHECK(remove_tree(dir));
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures != 0;
}
