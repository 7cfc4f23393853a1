/* The Kueue companion's C ABI from C: a configuration validated (and refused naming the
 * field), and the budget and window checks decided for one Workload. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

static const char kConfig[] =
    "controllers: [{name: budcore.io/budget, checks: [budget, window]}]\n"
    "tenants: [{namespace: team-a, tenant_id: 0190e6f4-0000-7000-8000-00000000000a}]\n"
    "price_book: {currency: USD, gpu_hour: {a100: {on_demand: \"2.00\"}}}\n"
    "budgets: {budgets: [{name: team-a, tenant_id: 0190e6f4-0000-7000-8000-00000000000a, amount: \"100\","
    " hard_limit: true}]}\n"
    "soft_limit_percent: 80\n"
    "queues: {cq: {window: {start: \"22:00\", end: \"06:00\"}}}\n";

/* One pod with 2 GPUs on flavor a100 for 5 h: 20.00 USD. */
#define WORKLOAD                                                                                               \
  "{\"metadata\": {\"name\": \"wl\", \"namespace\": \"team-a\", \"uid\": \"u1\","                               \
  " \"annotations\": {\"budcore.io/expected-duration\": \"5h\"}},"                                             \
  " \"spec\": {\"podSets\": [{\"name\": \"main\", \"count\": 1, \"template\": {\"spec\": {\"containers\":"       \
  " [{\"name\": \"c\", \"resources\": {\"requests\": {\"nvidia.com/gpu\": \"2\"}}}]}}}]},"                       \
  " \"status\": {\"admission\": {\"clusterQueue\": \"cq\", \"podSetAssignments\": [{\"name\": \"main\","         \
  " \"flavors\": {\"nvidia.com/gpu\": \"a100\"}}]}}}"

static int contains(const budcore_buf *b, const char *needle) { return b->ptr != NULL && strstr(b->ptr, needle) != NULL; }

static void decide(const char *spent, const char *now, budcore_buf *out) {
  char request[4096];
  snprintf(request, sizeof request, "{\"workload\": " WORKLOAD ", \"spent\": {\"team-a\": \"%s\"}, \"now\": \"%s\"}", spent,
           now);
  CHECK(budcore_kueue_companion_decide(out, kConfig, strlen(kConfig), request, strlen(request)) == BUDCORE_OK);
}

int main(void) {
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(budcore_kueue_companion_check_config(&out, kConfig, strlen(kConfig)) == BUDCORE_OK);
  CHECK(contains(&out, "\"controllers\":[{\"name\":\"budcore.io/budget\",\"checks\":[\"budget\",\"window\"]}]"));
  CHECK(contains(&out, "\"budgets\":[\"team-a\"]"));
  CHECK(!contains(&out, "leader_election"));
  CHECK(contains(&out, "\"estimates\":{\"enabled\":false,\"refresh_seconds\":5,\"writers\":8}"));
  budcore_buf_dispose(&out);
  {
    char elected[2048];
    snprintf(elected, sizeof elected, "%sleader_election: {namespace: budcore-system, identity: c-0}\n", kConfig);
    CHECK(budcore_kueue_companion_check_config(&out, elected, strlen(elected)) == BUDCORE_OK);
    CHECK(contains(&out, "\"leader_election\":{\"lease_name\":\"budcore-kueue-companion\",\"namespace\":\"budcore-system\""));
    CHECK(contains(&out, "\"lease_duration_seconds\":15"));
    budcore_buf_dispose(&out);
  }

  /* A budget for a tenant no rule maps is refused, naming the field; out stays empty. */
  static const char bad[] =
      "controllers: [{name: x, checks: [budget]}]\nprice_book: {currency: USD}\n"
      "budgets: {budgets: [{name: b, tenant_id: 0190e6f4-0000-7000-8000-00000000000b, amount: \"1\"}]}\n";
  CHECK(budcore_kueue_companion_check_config(&out, bad, strlen(bad)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "budgets.budgets[0].tenant_id") == 0);
  CHECK(out.ptr == NULL);

  /* 50 + 20 <= 80: Ready; inside the window at 23:00. */
  decide("50.00 USD", "2026-11-28T23:00:00Z", &out);
  CHECK(contains(&out, "\"total\":\"20.00 USD\""));
  CHECK(contains(&out, "\"budget\":{\"check\":\"budget\",\"state\":\"Ready\""));
  CHECK(contains(&out, "\"window\":{\"check\":\"window\",\"state\":\"Ready\""));
  budcore_buf_dispose(&out);
  /* 70 + 20 passes the soft limit; at noon the window is closed until 22:00 (10 h). */
  decide("70.00 USD", "2026-11-28T12:00:00Z", &out);
  CHECK(contains(&out, "\"budget\":{\"check\":\"budget\",\"state\":\"Retry\""));
  CHECK(contains(&out, "passes the soft limit"));
  CHECK(contains(&out, "\"state\":\"Retry\",\"message\":\"outside the window 22:00-06:00 UTC (ClusterQueue cq); next opening 2026-11-28T22:00:00Z\",\"requeue_after_seconds\":36000"));
  budcore_buf_dispose(&out);
  /* 90 + 20 passes the hard limit: Rejected. */
  decide("90.00 USD", "2026-11-28T23:00:00Z", &out);
  CHECK(contains(&out, "\"state\":\"Rejected\""));
  budcore_buf_dispose(&out);

  /* A request without "now" is refused naming it. */
  static const char no_now[] = "{\"workload\": " WORKLOAD "}";
  CHECK(budcore_kueue_companion_decide(&out, kConfig, strlen(kConfig), no_now, strlen(no_now)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "request_json.now") == 0);
  CHECK(out.ptr == NULL);

  /* The controller: a kubeconfig that cannot be read, a malformed one, and a bad store are
   * refused naming the input, its value and why; nothing is opened. */
  {
    budcore_kueue_companion *c = NULL;
    static const char missing[] = "/nonexistent/budcore/kubeconfig";
    CHECK(budcore_kueue_companion_open(&c, kConfig, strlen(kConfig), missing, strlen(missing), NULL, 0) ==
          BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "kubeconfig_path") == 0);
    CHECK(strstr(budcore_error_last()->message, missing) != NULL || strcmp(budcore_error_last()->value, missing) == 0);
    CHECK(c == NULL);

    /* A kubeconfig without a current context names that place in the file. */
    char path[] = "/tmp/budcore-kueue-kubeconfig-XXXXXX";
    int fd = mkstemp(path);
    static const char no_context[] = "apiVersion: v1\nkind: Config\nclusters: []\n";
    CHECK(fd >= 0);
    CHECK(write(fd, no_context, strlen(no_context)) == (ssize_t)strlen(no_context));
    close(fd);
    CHECK(budcore_kueue_companion_open(&c, kConfig, strlen(kConfig), path, strlen(path), NULL, 0) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "kubeconfig_path.current-context") == 0);
    CHECK(strstr(budcore_error_last()->message, "current-context") != NULL);
    CHECK(c == NULL);

    /* A usable kubeconfig (nothing is asked of the cluster when opening) and a store URI of no
     * known scheme: refused naming store_uri. */
    {
      static const char usable[] =
          "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
          "clusters: [{name: k, cluster: {server: \"https://127.0.0.1:1\", insecure-skip-tls-verify: true}}]\n"
          "users: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n";
      static const char bogus[] = "bogus://nowhere";
      fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      CHECK(fd >= 0);
      CHECK(write(fd, usable, strlen(usable)) == (ssize_t)strlen(usable));
      close(fd);
      CHECK(budcore_kueue_companion_open(&c, kConfig, strlen(kConfig), path, strlen(path), bogus, strlen(bogus)) ==
            BUDCORE_EINVALID);
      printf("bad store: %s (value %s): %s\n", budcore_error_last()->field, budcore_error_last()->value,
             budcore_error_last()->message);
      CHECK(strcmp(budcore_error_last()->field, "store_uri") == 0);
      CHECK(c == NULL);
    }
    unlink(path);

    static const char bad_config[] = "controllers: []\n";
    CHECK(budcore_kueue_companion_open(&c, bad_config, strlen(bad_config), NULL, 0, NULL, 0) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "controllers") == 0);
    CHECK(budcore_kueue_companion_open(NULL, kConfig, strlen(kConfig), NULL, 0, NULL, 0) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "out") == 0);
    CHECK(budcore_kueue_companion_sync_once(&out, NULL) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "companion") == 0);
    budcore_kueue_companion_stop(NULL);
    budcore_kueue_companion_free(NULL);
  }
  if (failures == 0) puts("kueue companion C ABI ok");
  return failures != 0;
}
