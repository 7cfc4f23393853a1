/* Cost controls on the platform handle from C: a config document's `cost` section (price book
 * and budgets) — the job's actual_cost after it ends, the job-level budget_limit stopping a
 * running job, a hard-limit budget refusing admission (BUDCORE_EBUDGET), and a bad section
 * refused naming its path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

#define S(x) x, strlen(x)

/* $2 per A100-hour; tenant c1 may spend $2.50. */
static const char kCost[] =
    "cost:\n"
    "  prices:\n"
    "    currency: USD\n"
    "    gpu_hour: {nvidia-a100-80gb: {on_demand: \"2.00\"}}\n"
    "    cpu_core_hour: {on_demand: \"0\"}\n"
    "    memory_gib_hour: {on_demand: \"0\"}\n"
    "  budgets:\n"
    "    - {name: c-team, tenant_id: 00000000-0000-4000-8000-0000000000c1, amount: \"2.50\", hard_limit: true}\n";

static const char kCapped[] =
    "{\"name\": \"capped\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_type\": \"nvidia-a100-80gb\","
    " \"gpu_count\": 1, \"estimated_duration_seconds\": 3600, \"budget_limit\": \"1.00\"}";
static const char kHalfHour[] =
    "{\"name\": \"half\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_type\": \"nvidia-a100-80gb\","
    " \"gpu_count\": 1, \"estimated_duration_seconds\": 1200}";

int main(void) {
  char dir[] = "/tmp/budcore-capi-cost-XXXXXX";
  char config[2048];
  char capped[37], half[37];
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_caller caller = {BUDCORE_CALLER_VERSION, S("00000000-0000-4000-8000-0000000000c1"), S("user:c"), S("req-c")};

  CHECK(mkdtemp(dir) != NULL);
  /* A bad section: the error names its path. */
  snprintf(config, sizeof config, "store: \"sqlite://%s/bad.db\"\ncost: {budgets: []}\n", dir);
  CHECK(budcore_platform_open(&p, S(config)) == BUDCORE_EINVALID);
  CHECK(p == NULL);
  CHECK(strcmp(budcore_error_last()->field, "cost.prices") == 0);

  snprintf(config, sizeof config, "store: \"sqlite://%s/budcore.db\"\n%s", dir, kCost);
  CHECK(budcore_platform_open(&p, S(config)) == BUDCORE_OK);
  CHECK(budcore_platform_submit(&out, p, &caller, S(kCapped), NULL, 0) == BUDCORE_OK);
  CHECK(find_id(out.ptr, "\"id\":", capped));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_submit(&out, p, &caller, S(kHalfHour), NULL, 0) == BUDCORE_OK);
  CHECK(find_id(out.ptr, "\"id\":", half));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_run(&out, p, -1) == BUDCORE_OK);
  budcore_buf_dispose(&out);

  /* $1.00 passed after 1800 s: failed at 00:30:01 with the cost of 1801 s. */
  CHECK(budcore_platform_get(&out, p, &caller, S(capped)) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"status\":\"failed\"") != NULL);
  CHECK(strstr(out.ptr, "BudgetExceeded") != NULL);
  CHECK(strstr(out.ptr, "budget_limit") != NULL);
  CHECK(strstr(out.ptr, "\"actual_cost\":\"1.000555555556\"") != NULL);
  CHECK(strstr(out.ptr, "\"actual_end\":\"2026-01-01T00:30:01Z\"") != NULL);
  if (failures) fprintf(stderr, "%s\n", out.ptr);
  budcore_buf_dispose(&out);
  /* 20 minutes at $2/h, no limit: completed, $0.666666666667. */
  CHECK(budcore_platform_get(&out, p, &caller, S(half)) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"status\":\"completed\"") != NULL);
  CHECK(strstr(out.ptr, "\"actual_cost\":\"0.666666666667\"") != NULL);
  if (failures) fprintf(stderr, "%s\n", out.ptr);
  budcore_buf_dispose(&out);

  /* $1.67 spent + $2.00 estimated passes the $2.50 budget: refused, out untouched. */
  CHECK(budcore_platform_submit(&out, p, &caller, S(kCapped), NULL, 0) == BUDCORE_EBUDGET);
  CHECK(out.ptr == NULL);
  CHECK(strstr(budcore_error_last()->message, "c-team") != NULL);
  CHECK(budcore_platform_check(p) == BUDCORE_OK);

  budcore_platform_free(p);
  CHECK(remove_tree(dir));
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
