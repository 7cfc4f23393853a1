/* The cost C ABI from C: contract-5 estimates, error codes and paths, metering into a SQLite
 * store, the job's actual cost, the admission gate and reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

static const char kPrices[] =
    "currency: USD\n"
    "gpu_hour:\n"
    "  nvidia-a100-80gb: {on_demand: \"2.49\", spot: \"1.19\"}\n"
    "cpu_core_hour: {on_demand: \"0.04\", spot: \"0.02\"}\n"
    "memory_gib_hour: {on_demand: \"0.005\", spot: \"0.0025\"}\n"
    "minimum_billable_seconds: 60\n";

#define TENANT "0190e6f4-5c3a-7abc-8def-00000000000a"
#define PROJECT "0190e6f4-5c3a-7abc-8def-0000000000a1"
#define JOB "0190e6f4-5c3a-7abc-8def-0000000000f1"

static int contains(const budcore_buf *b, const char *needle) { return b->ptr != NULL && strstr(b->ptr, needle) != NULL; }

static void estimates(void) {
  static const char job[] =
      "{\"job_type\": \"batch\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 2, \"cpu_cores\": 8,"
      " \"memory_gb\": 64, \"estimated_duration_seconds\": 5400}";
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(budcore_cost_estimate(&out, kPrices, strlen(kPrices), job, strlen(job)) == BUDCORE_OK);
  CHECK(contains(&out, "\"total\":\"8.430000\""));
  CHECK(contains(&out, "\"quantity\":\"10800\""));
  /* A buf that still holds text is refused, and left as it was. */
  CHECK(budcore_cost_estimate(&out, kPrices, strlen(kPrices), job, strlen(job)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "out") == 0);
  CHECK(contains(&out, "8.430000"));
  budcore_buf_dispose(&out);

  CHECK(budcore_cost_compare_tiers(&out, kPrices, strlen(kPrices), job, strlen(job)) == BUDCORE_OK);
  CHECK(contains(&out, "\"savings\":\"4.380000\""));
  budcore_buf_dispose(&out);

  static const char unknown[] = "{\"job_type\": \"batch\", \"gpu_type\": \"h100\", \"gpu_count\": 1, \"estimated_duration_seconds\": 1}";
  CHECK(budcore_cost_estimate(&out, kPrices, strlen(kPrices), unknown, strlen(unknown)) == BUDCORE_ENOTFOUND);
  CHECK(strncmp(budcore_error_last()->message, "unknown_price: ", 15) == 0);
  CHECK(strcmp(budcore_error_last()->field, "gpu_type") == 0);
  CHECK(strcmp(budcore_error_last()->value, "h100") == 0);
  CHECK(out.ptr == NULL);

  static const char missing[] = "{\"job_type\": \"batch\"}";
  CHECK(budcore_cost_estimate(&out, kPrices, strlen(kPrices), missing, strlen(missing)) == BUDCORE_EINVALID);
  CHECK(strncmp(budcore_error_last()->message, "missing_field: ", 15) == 0);
  CHECK(strcmp(budcore_error_last()->field, "estimated_duration_seconds") == 0);
  CHECK(budcore_cost_estimate(&out, "\xff", 1, job, strlen(job)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "prices") == 0);
  CHECK(budcore_cost_estimate(NULL, kPrices, strlen(kPrices), job, strlen(job)) == BUDCORE_EINVALID);

  static const char need[] = "{\"memory_gib\": 40, \"gpu_count\": 2}";
  CHECK(budcore_cost_cheapest_gpu(&out, kPrices, strlen(kPrices), need, strlen(need)) == BUDCORE_OK);
  CHECK(contains(&out, "\"gpu_type\":\"nvidia-a100-80gb\""));
  budcore_buf_dispose(&out);
}

static void store_flow(void) {
  char path[] = "/tmp/budcore_cost_c_XXXXXX";
  int fd = mkstemp(path);
  char uri[128];
  budcore_store *store = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  static const char interval[] =
      "{\"tenant_id\": \"" TENANT "\", \"project_id\": \"" PROJECT "\", \"job_id\": \"" JOB "\","
      " \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1,"
      " \"start\": \"2026-05-02T00:00:00Z\", \"end\": \"2026-05-02T02:00:00Z\"}";
  static const char budgets[] =
      "budgets:\n  - {name: a, tenant_id: " TENANT ", project_id: " PROJECT ", amount: \"10\", hard_limit: true}\n";
  static const char job_ok[] =
      "{\"name\": \"j\", \"tenant_id\": \"" TENANT "\", \"project_id\": \"" PROJECT "\", \"job_type\": \"batch\","
      " \"deployment_type\": \"docker\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1, \"cpu_cores\": 0,"
      " \"memory_gb\": 0, \"estimated_duration_seconds\": 3600}";
  static const char job_big[] =
      "{\"name\": \"big\", \"tenant_id\": \"" TENANT "\", \"project_id\": \"" PROJECT "\", \"job_type\": \"batch\","
      " \"deployment_type\": \"docker\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 4, \"cpu_cores\": 0,"
      " \"memory_gb\": 0, \"estimated_duration_seconds\": 3600}";
  static const char now[] = "2026-05-03T00:00:00Z";
  if (fd < 0) {
    CHECK(fd >= 0);
    return;
  }
  close(fd);
  snprintf(uri, sizeof uri, "sqlite://%s", path);
  CHECK(budcore_store_open(&store, uri, strlen(uri)) == BUDCORE_OK);

  CHECK(budcore_cost_record_usage(&out, store, kPrices, strlen(kPrices), interval, strlen(interval)) == BUDCORE_OK);
  CHECK(contains(&out, "\"computed_cost\":\"4.98\""));
  CHECK(contains(&out, "\"seq\":1"));
  budcore_buf_dispose(&out);

  CHECK(budcore_cost_job_cost(&out, store, TENANT, strlen(TENANT), JOB, strlen(JOB)) == BUDCORE_OK);
  CHECK(contains(&out, "\"total\":\"4.98\""));
  budcore_buf_dispose(&out);

  /* 4.98 spent + 2.49 = 7.47 <= 10: allowed. */
  CHECK(budcore_cost_admit_job(&out, store, budgets, strlen(budgets), kPrices, strlen(kPrices), job_ok, strlen(job_ok),
                               now, strlen(now)) == BUDCORE_OK);
  CHECK(contains(&out, "\"allowed\":true"));
  budcore_buf_dispose(&out);
  /* 4.98 + 9.96 > 10: denied with the reason, out untouched. */
  CHECK(budcore_cost_admit_job(&out, store, budgets, strlen(budgets), kPrices, strlen(kPrices), job_big,
                               strlen(job_big), now, strlen(now)) == BUDCORE_EBUDGET);
  CHECK(strcmp(budcore_error_last()->field, "budgets.a") == 0);
  CHECK(strstr(budcore_error_last()->message, "job big") != NULL);
  CHECK(out.ptr == NULL);
  CHECK(budcore_cost_job_cost(&out, NULL, TENANT, strlen(TENANT), JOB, strlen(JOB)) == BUDCORE_EINVALID);

  budcore_store_free(store);
  unlink(path);
}

static void reports(void) {
  static const char usage[] =
      "[{\"tenant_id\": \"" TENANT "\", \"job_id\": \"" JOB "\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1,"
      " \"start\": \"2026-05-02T00:00:00Z\", \"end\": \"2026-05-02T01:00:00Z\", \"labels\": {\"team\": \"x\"}}]";
  static const char query[] = "{\"by\": [\"label:team\"], \"shared\": [{\"name\": \"ops\", \"amount\": \"1\"}]}";
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(budcore_cost_report(&out, usage, strlen(usage), query, strlen(query), kPrices, strlen(kPrices)) == BUDCORE_OK);
  CHECK(contains(&out, "\"label:team\":\"x\""));
  CHECK(contains(&out, "\"total\":\"3.49\""));
  budcore_buf_dispose(&out);
  /* Intervals need a price book. */
  CHECK(budcore_cost_report(&out, usage, strlen(usage), NULL, 0, NULL, 0) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "usage[0].computed_cost") == 0);
  CHECK(budcore_cost_meter(&out, kPrices, strlen(kPrices), usage + 1, strlen(usage) - 2) == BUDCORE_OK);
  CHECK(contains(&out, "\"computed_cost\":\"2.49\""));
  {
    /* The priced record feeds the forecast. */
    char list[4096];
    snprintf(list, sizeof list, "[%s]", out.ptr);
    budcore_buf_dispose(&out);
    CHECK(budcore_cost_forecast(&out, list, strlen(list), "2026-05-04T00:00:00Z", 20) == BUDCORE_OK);
    CHECK(contains(&out, "\"month_to_date\":\"2.49\""));
    budcore_buf_dispose(&out);
  }
}

/* Serverless spend per endpoint per hour: a worker's row from 00:30 to 01:30, half of it busy,
 * lands half in each hour; a row without the label is left out. */
static void serverless_report(void) {
  static const char usage[] =
      "[{\"tenant_id\": \"" TENANT "\", \"job_id\": \"" JOB "\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1,"
      " \"start\": \"2026-05-02T00:30:00Z\", \"end\": \"2026-05-02T01:30:00Z\", \"gpu_utilization\": \"0.5\","
      " \"labels\": {\"serverless_endpoint\": \"chat\"}},"
      " {\"tenant_id\": \"" TENANT "\", \"job_id\": \"" JOB "\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1,"
      " \"start\": \"2026-05-02T00:00:00Z\", \"end\": \"2026-05-02T01:00:00Z\"}]";
  static const char query[] = "{\"endpoint\": \"chat\"}";
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(budcore_cost_serverless_report(&out, usage, strlen(usage), query, strlen(query), kPrices, strlen(kPrices)) ==
        BUDCORE_OK);
  CHECK(contains(&out, "\"granularity\":\"hour\""));
  CHECK(contains(&out, "\"bucket\":\"2026-05-02T00:00:00Z\",\"endpoint\":\"chat\",\"workers\":1,\"records\":1,"
                       "\"gpu_seconds\":\"1800\",\"busy_gpu_seconds\":\"900\",\"idle_gpu_seconds\":\"900\""));
  CHECK(contains(&out, "\"bucket\":\"2026-05-02T01:00:00Z\""));
  budcore_buf_dispose(&out);
  CHECK(budcore_cost_serverless_report(&out, "[]", 2, "{\"granularity\": \"week\"}", 23, NULL, 0) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "granularity") == 0);
  CHECK(out.ptr == NULL);
}

int main(void) {
  estimates();
  store_flow();
  reports();
  serverless_report();
  if (failures == 0) printf("cost C ABI: all checks passed\n");
  return failures != 0;
}
