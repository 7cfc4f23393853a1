/* The platform handle from C on a real Kueue (cluster.backend: kubernetes): the same config
 * document as any platform; a job admitted by Kueue, a second one waiting for the single GPU,
 * cancel deleting the first run and freeing its quota. Needs the Kubernetes test bed
 * (BUDCORE_K8S_STATE_DIR, set by the ctest fixture); exits 77 (skipped) without one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

#define S(x) x, strlen(x)

static const char kJob[] =
    "{\"name\": \"%s\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_count\": 1,"
    " \"cpu_cores\": \"1\", \"memory_gb\": 1, \"spec\": {\"image\": \"busybox:1.36\"}}";

/* The job's status is `status` and, when `also` is not NULL, its record mentions `also`. */
static int has_status(budcore_platform *p, const budcore_caller *c, const char *id, const char *status,
                      const char *also) {
  budcore_buf out = BUDCORE_BUF_INIT;
  char want[64];
  int found = 0;
  snprintf(want, sizeof want, "\"status\":\"%s\"", status);
  if (budcore_platform_get(&out, p, c, id, strlen(id)) == BUDCORE_OK)
    found = strstr(out.ptr, want) != NULL && (also == NULL || strstr(out.ptr, also) != NULL);
  budcore_buf_dispose(&out);
  return found;
}

/* Polls for up to 60 s: the platform's own thread follows the cluster (clock: system). */
static int wait_status(budcore_platform *p, const budcore_caller *c, const char *id, const char *status,
                       const char *also) {
  int i;
  for (i = 0; i < 600; ++i) {
    if (has_status(p, c, id, status, also)) return 1;
    usleep(100000);
  }
  return has_status(p, c, id, status, also);
}

static void submit(budcore_platform *p, const budcore_caller *c, const char *name, char id[37]) {
  char job[512];
  budcore_buf out = BUDCORE_BUF_INIT;
  snprintf(job, sizeof job, kJob, name);
  CHECK(budcore_platform_submit(&out, p, c, S(job), NULL, 0) == BUDCORE_OK);
  CHECK(find_id(out.ptr, "\"id\":", id));
  budcore_buf_dispose(&out);
}

int main(void) {
  const char *state = getenv("BUDCORE_K8S_STATE_DIR");
  char kubeconfig[1024], dir[] = "/tmp/budcore-capi-k8s-XXXXXX", q[32], config[4096];
  char first[37], second[37];
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_caller caller = {BUDCORE_CALLER_VERSION, S("00000000-0000-4000-8000-0000000000c8"), S("user:c"), S("req-k8s")};

  if (state == NULL) {
    printf("no Kubernetes test bed (BUDCORE_K8S_STATE_DIR unset): skipped\n");
    return 77;
  }
  snprintf(kubeconfig, sizeof kubeconfig, "%s/kubeconfig", state);
  if (access(kubeconfig, R_OK) != 0) {
    printf("no Kubernetes test bed (%s missing, BUDCORE_K8S_TESTS=0?): skipped\n", kubeconfig);
    return 77;
  }
  CHECK(mkdtemp(dir) != NULL);
  snprintf(q, sizeof q, "c%lx", (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 8));
  snprintf(config, sizeof config,
           "store: \"sqlite://%s/k.db\"\n"
           "clock: system\n"
           "cluster: {backend: kubernetes, kubernetes: {kubeconfig: \"%s\"}}\n"
           "queues: {service: %s, batch: %s, training: %s, usecase: %s, tenant_namespace_prefix: %s-}\n"
           "quota:\n"
           "  resource_flavors: [{name: f%s, node_labels: {gpu.type: f%s}}]\n"
           "  cluster_queues:\n"
           "    - name: %s\n"
           "      resource_groups:\n"
           "        - covered_resources: [cpu, memory, nvidia.com/gpu]\n"
           "          flavors: [{name: f%s, resources: [{name: cpu, nominal: \"8\"}, {name: memory, nominal: 64Gi},"
           " {name: nvidia.com/gpu, nominal: \"1\"}]}]\n",
           dir, kubeconfig, q, q, q, q, q, q, q, q, q);
  CHECK(budcore_platform_open(&p, S(config)) == BUDCORE_OK);

  submit(p, &caller, "first", first);
  CHECK(wait_status(p, &caller, first, "scheduled", NULL));
  submit(p, &caller, "second", second); /* one GPU in all: it waits */
  usleep(1500000);
  CHECK(has_status(p, &caller, second, "queued", NULL));
  CHECK(budcore_platform_cancel(&out, p, &caller, first, strlen(first), S("make room")) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"status\":\"cancelled\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(wait_status(p, &caller, second, "scheduled", NULL));
  /* An administrator's preemption: Kueue evicts the run, the platform requeues it. */
  CHECK(budcore_platform_preempt(&out, p, &caller, second, strlen(second), S("maintenance")) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(wait_status(p, &caller, second, "scheduled", "maintenance"));
  CHECK(budcore_platform_check(p) == BUDCORE_OK);
  budcore_platform_free(p);
  CHECK(remove_tree(dir));
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("ok: the C ABI drives a platform on a real Kueue\n");
  return 0;
}
