/* The Kueue companion controller from C on the real test bed: one pass with leader election on
 * a Lease of its own (taken, answered, released), then a run on a second thread stopped from
 * this one. Needs the Kubernetes test bed (BUDCORE_K8S_STATE_DIR, set by the ctest fixture);
 * exits 77 (skipped) without one. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

struct run_args {
  budcore_kueue_companion *companion;
  int rc;
};

static void *run_companion(void *p) {
  struct run_args *a = (struct run_args *)p;
  a->rc = budcore_kueue_companion_run(a->companion, NULL, NULL);
  return NULL;
}

int main(void) {
  const char *state = getenv("BUDCORE_K8S_STATE_DIR");
  char kubeconfig[1024], dir[] = "/tmp/budcore-capi-kueue-XXXXXX", store[1200], config[2048], id[64];
  budcore_kueue_companion *c = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  struct run_args args;
  pthread_t runner;

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
  snprintf(store, sizeof store, "sqlite:%s/companion.db", dir);
  snprintf(id, sizeof id, "capi-%lx", (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 8));
  /* A controller name no AdmissionCheck uses: the pass answers nothing and meters no tenant. */
  snprintf(config, sizeof config,
           "controllers: [{name: budcore.io/%s, checks: [budget]}]\n"
           "price_book: {currency: USD}\n"
           "budgets: {budgets: []}\n"
           "leader_election: {lease_name: %s, namespace: default, identity: %s}\n",
           id, id, id);

  CHECK(budcore_kueue_companion_open(&c, config, strlen(config), kubeconfig, strlen(kubeconfig), store, strlen(store)) ==
        BUDCORE_OK);
  if (c == NULL) {
    printf("open: %s\n", budcore_error_last()->message);
    return 1;
  }
  CHECK(budcore_kueue_companion_sync_once(&out, c) == BUDCORE_OK);
  printf("pass: %s\n", out.ptr != NULL ? out.ptr : budcore_error_last()->message);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"leader\":true") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"admission_checks\":[],\"written\":[],\"retrying\":[]") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, id) != NULL);
  budcore_buf_dispose(&out);

  /* A run blocks until stopped from another thread, and releases the Lease. */
  args.companion = c;
  args.rc = -100;
  CHECK(pthread_create(&runner, NULL, run_companion, &args) == 0);
  usleep(1500000);
  budcore_kueue_companion_stop(c);
  CHECK(pthread_join(runner, NULL) == 0);
  CHECK(args.rc == BUDCORE_OK);
  budcore_kueue_companion_free(c);
  if (failures == 0) puts("kueue companion controller C ABI ok");
  return failures != 0;
}
