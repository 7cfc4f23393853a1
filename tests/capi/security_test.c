/* Security from C: a platform config with RBAC and a tenant's submit limits; a role granted by
 * the bootstrap admin, a refusal naming the principal, a rate-limited submit carrying
 * retry_after_ms, the bindings listed, the audit log read and its chain verified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

#define S(x) x, strlen(x)
#define TENANT "00000000-0000-4000-8000-0000000000c1"

static const char kJob[] =
    "{\"name\": \"c-job\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_count\": 0,"
    " \"estimated_duration_seconds\": 600}";

int main(void) {
  char dir[] = "/tmp/budcore-capi-security-XXXXXX";
  char config[1024];
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_caller root = {BUDCORE_CALLER_VERSION, S(TENANT), S("user:root"), S("req-root")};
  budcore_caller erin = {BUDCORE_CALLER_VERSION, S(TENANT), S("user:erin"), S("req-erin")};
  budcore_caller nobody = {BUDCORE_CALLER_VERSION, S(TENANT), NULL, 0, NULL, 0};

  CHECK(mkdtemp(dir) != NULL);
  snprintf(config, sizeof config,
           "store: 'sqlite://%s/p.db'\nsecurity:\n  rbac: true\n  platform_admins: ['user:root']\n"
           "  tenants:\n    '*': {submits_per_second: 1, submit_burst: 2}\n",
           dir);
  CHECK(budcore_platform_open(&p, S(config)) == BUDCORE_OK);

  /* No role yet: refused, naming the principal. */
  CHECK(budcore_platform_submit(&out, p, &erin, S(kJob), NULL, 0) == BUDCORE_ESECURITY);
  CHECK(strcmp(budcore_error_last()->field, "principal") == 0);
  CHECK(strcmp(budcore_error_last()->value, "user:erin") == 0);
  CHECK(strstr(budcore_error_last()->message, "needs role editor") != NULL);
  CHECK(out.ptr == NULL);
  CHECK(budcore_platform_submit(&out, p, &nobody, S(kJob), NULL, 0) == BUDCORE_ESECURITY);

  /* Granted by the bootstrap admin; a bad binding names its key. */
  CHECK(budcore_platform_bind_role(&out, p, &root, S("{\"principal\": \"user:erin\", \"role\": \"editor\"}")) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"created_by\":\"user:root\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_bind_role(&out, p, &root, S("{\"principal\": \"user:erin\", \"role\": \"editor\"}")) == BUDCORE_EEXISTS);
  CHECK(budcore_platform_bind_role(&out, p, &root, S("{\"principal\": \"user:erin\", \"role\": \"boss\"}")) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "role") == 0);
  CHECK(budcore_platform_bind_role(&out, p, &erin, S("{\"principal\": \"user:eve\", \"role\": \"viewer\"}")) == BUDCORE_ESECURITY);
  CHECK(budcore_platform_role_bindings(&out, p, &root, S("user:erin")) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"role\":\"editor\"") != NULL);
  budcore_buf_dispose(&out);

  /* Two submits fit the burst; the third is rate limited with a retry-after. */
  CHECK(budcore_platform_submit(&out, p, &erin, S(kJob), NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_submit(&out, p, &erin, S(kJob), NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_submit(&out, p, &erin, S(kJob), NULL, 0) == BUDCORE_ERATELIMITED);
  CHECK(budcore_error_last()->retry_after_ms == 1000);
  CHECK(strcmp(budcore_strerror(BUDCORE_ERATELIMITED), "rate limited: retry later") == 0);
  CHECK(out.ptr == NULL);
  budcore_error_clear();
  CHECK(budcore_error_last()->retry_after_ms == 0);

  /* The audit log: the refusals, the binding and the submits; the chain holds. */
  CHECK(budcore_platform_audit(&out, p, &erin, NULL, 0) == BUDCORE_ESECURITY);
  CHECK(budcore_platform_audit(&out, p, &root, S("{\"actor\": \"user:erin\", \"limit\": 10}")) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"action\":\"jobs.create\"") != NULL);
  CHECK(strstr(out.ptr, "\"outcome\":\"denied\"") != NULL);
  CHECK(strstr(out.ptr, "\"prev_hash\":") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_audit(&out, p, &root, S("{\"limit\": 0}")) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "limit") == 0);
  CHECK(budcore_platform_audit_verify(&out, p, &root) == BUDCORE_OK);
  CHECK(strstr(out.ptr, "\"ok\":true") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_audit_verify(&out, p, &erin) == BUDCORE_ESECURITY);

  CHECK(budcore_platform_unbind_role(p, &root, S("{\"principal\": \"user:erin\", \"role\": \"editor\"}")) == BUDCORE_OK);
  CHECK(budcore_platform_unbind_role(p, &root, S("{\"principal\": \"user:erin\", \"role\": \"editor\"}")) == BUDCORE_ENOTFOUND);
  CHECK(budcore_platform_submit(&out, p, &erin, S(kJob), NULL, 0) == BUDCORE_ESECURITY);

  budcore_platform_free(p);
  {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
  }
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("capi security: ok\n");
  return failures != 0;
}
