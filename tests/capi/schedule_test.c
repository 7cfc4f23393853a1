/* The schedule C ABI from C: an estimate, the error path, a live timeline handle, the HTML view
 * and a small replay. */
#include <stdlib.h>
#include <string.h>

#include "budcore/budcore.h"
#include "check.h"

static const char kScenario[] =
    "{\"resource_flavors\": [{\"name\": \"on-demand\"}],"
    " \"cluster_queues\": [{\"name\": \"cq-a\", \"resource_groups\": [{\"covered_resources\": [\"cpu\"],"
    "   \"flavors\": [{\"name\": \"on-demand\", \"resources\": [{\"name\": \"cpu\", \"nominal\": \"10\"}]}]}]}],"
    " \"local_queues\": [{\"namespace\": \"ns\", \"name\": \"lq\", \"cluster_queue\": \"cq-a\"}],"
    " \"workloads\": ["
    "  {\"name\": \"w1\", \"namespace\": \"ns\", \"queue\": \"lq\", \"creation_seq\": 1, \"duration_seconds\": 600,"
    "   \"pod_sets\": [{\"count\": 1, \"requests\": {\"cpu\": \"6\"}}]},"
    "  {\"name\": \"w2\", \"namespace\": \"ns\", \"queue\": \"lq\", \"creation_seq\": 2, \"duration_seconds\": 300,"
    "   \"pod_sets\": [{\"count\": 1, \"requests\": {\"cpu\": \"6\"}}]}]}";

/* The names before the layer prefix stay exported (deprecated) and are the same functions. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void deprecated_timeline_names(const char *started) {
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_timeline *tl = NULL;
  CHECK(budcore_timeline_new(&tl, kScenario, strlen(kScenario)) == BUDCORE_OK);
  CHECK(budcore_timeline_apply(tl, started, strlen(started)) == BUDCORE_OK);
  CHECK(budcore_timeline_result(&out, tl, 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"name\":\"w2\"") != NULL);
  budcore_buf_dispose(&out);
  budcore_timeline_free(tl);
}
#pragma GCC diagnostic pop

int main(void) {
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_schedule_timeline *tl = NULL;
  const char *started =
      "{\"type\": \"started\", \"name\": \"w1\", \"at\": 0,"
      " \"admission\": {\"cluster_queue\": \"cq-a\", \"flavors\": {\"main\": {\"cpu\": \"on-demand\"}}}}";
  const char *finished = "{\"type\": \"finished\", \"name\": \"w1\", \"at\": 100}";

  CHECK(budcore_schedule_estimate(&out, kScenario, strlen(kScenario), 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"name\":\"w2\",\"cluster_queue\":\"cq-a\"") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"estimated_start\":600,\"estimated_end\":900") != NULL);
  /* A buffer that still holds text is refused and left alone. */
  CHECK(budcore_schedule_estimate(&out, kScenario, strlen(kScenario), 0) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "out") == 0);
  budcore_buf_dispose(&out);

  {
    const char *bad = "{\"workloads\": [{\"name\": \"w\", \"pod_sets\": [], \"duration_seconds\": -1}]}";
    CHECK(budcore_schedule_estimate(&out, bad, strlen(bad), 0) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "workloads[0].duration_seconds") == 0);
    CHECK(out.ptr == NULL);
  }

  CHECK(budcore_schedule_timeline_new(&tl, kScenario, strlen(kScenario)) == BUDCORE_OK);
  CHECK(budcore_schedule_timeline_apply(tl, started, strlen(started)) == BUDCORE_OK);
  CHECK(budcore_schedule_timeline_apply(tl, finished, strlen(finished)) == BUDCORE_OK);
  CHECK(budcore_schedule_timeline_apply(tl, finished, strlen(finished)) == BUDCORE_ECONFLICT);
  CHECK(budcore_schedule_timeline_result(&out, tl, BUDCORE_SCHEDULE_DETAILS) == BUDCORE_OK);
  /* w1 finished early at 100, so w2 starts then. */
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"name\":\"w2\",\"cluster_queue\":\"cq-a\",\"flavors\":{\"main\":{\"cpu\":\"on-demand\"}},\"estimated_start\":100") != NULL);
  budcore_buf_dispose(&out);
  {
    const char *typo = "{\"type\": \"finished\", \"nmae\": \"w2\", \"at\": 100}";
    CHECK(budcore_schedule_timeline_apply(tl, typo, strlen(typo)) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "event.nmae") == 0);
    CHECK(strstr(budcore_error_last()->message, "did you mean 'name'") != NULL);
  }
  budcore_schedule_timeline_free(tl);
  budcore_schedule_timeline_free(NULL);
  deprecated_timeline_names(started);

  CHECK(budcore_schedule_render_html(&out, kScenario, strlen(kScenario)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "<svg") != NULL && strstr(out.ptr, "cpu-pool-1") != NULL);
  budcore_buf_dispose(&out);

  {
    const char *gen =
        "{\"cohorts\": [{\"className\": \"cohort\", \"count\": 1, \"queuesSets\": [{\"className\": \"cq\", \"count\": 2,"
        " \"nominalQuota\": 4, \"workloadsSets\": [{\"count\": 10, \"creationIntervalMs\": 100,"
        " \"workloads\": [{\"className\": \"small\", \"runtimeMs\": 200, \"priority\": 50, \"request\": 1}]}]}]}]}";
    CHECK(budcore_schedule_replay(&out, gen, strlen(gen)) == BUDCORE_OK);
    CHECK(out.ptr != NULL && strstr(out.ptr, "\"workloads\":20") != NULL);
    budcore_buf_dispose(&out);
  }
  return failures != 0;
}
