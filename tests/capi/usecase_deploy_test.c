/* Use-case deployments from C: deploy a shipped template on an embedded platform, read the
 * record and the tenant's list, tear it down (twice: the second is not an error), and the error
 * rules (bad parameters name the path and leave out untouched, unknown template, another
 * tenant's deployment, a full out refused). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

#define S(x) x, strlen(x)

static const char kParams[] =
    "{\"model_id\": \"meta-llama/Llama-3.1-8B-Instruct\", \"gpu_type\": \"nvidia-a100-80gb\"}";

int main(void) {
  char dir[] = "/tmp/budcore-capi-usecase-deploy-XXXXXX";
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_caller caller = {BUDCORE_CALLER_VERSION, S("00000000-0000-4000-8000-0000000000d1"), S("user:c"), S("req-d")};
  budcore_caller other = {BUDCORE_CALLER_VERSION, S("00000000-0000-4000-8000-0000000000d2"), NULL, 0, NULL, 0};
  char id[37];

  CHECK(mkdtemp(dir) != NULL);
  CHECK(budcore_platform_open_embedded(&p, S(dir)) == BUDCORE_OK);

  /* Bad parameters: Invalid naming the parameter, out untouched, nothing deployed. */
  CHECK(budcore_platform_deploy_usecase(&out, p, &caller, S("simple-rag-v1"),
                                        S("{\"model_id\": \"m\", \"no_such_param\": 1}")) == BUDCORE_EINVALID);
  CHECK(strstr(budcore_error_last()->field, "no_such_param") != NULL);
  CHECK(out.ptr == NULL);
  CHECK(budcore_platform_deploy_usecase(&out, p, &caller, S("no-such-template"), S(kParams)) == BUDCORE_ENOTFOUND);
  CHECK(strcmp(budcore_error_last()->field, "template") == 0);
  CHECK(budcore_platform_deployments(&out, p, &caller) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strcmp(out.ptr, "[]") == 0);
  budcore_buf_dispose(&out);

  /* Deploy, run the virtual clock, read it back. */
  CHECK(budcore_platform_deploy_usecase(&out, p, &caller, S("simple-rag-v1"), S(kParams)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"template_id\":\"simple-rag-v1\"") != NULL);
  CHECK(out.ptr != NULL && find_id(out.ptr, "\"id\":", id));
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"pipeline_run_id\":\"") != NULL);
  /* A full out is refused. */
  CHECK(budcore_platform_deployment(&out, p, &caller, S(id)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "out") == 0);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_run(&out, p, 3600.0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_deployment(&out, p, &caller, S(id)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"running\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_deployment(&out, p, &other, S(id)) == BUDCORE_ENOTFOUND);
  CHECK(out.ptr == NULL);
  CHECK(budcore_platform_deployments(&out, p, &caller) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, id) != NULL);
  budcore_buf_dispose(&out);

  /* Teardown, twice. */
  CHECK(budcore_platform_teardown_deployment(&out, p, &caller, S(id)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"deleted\"") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"job_status\":\"running\"") == NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_teardown_deployment(&out, p, &caller, S(id)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"deleted\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_teardown_deployment(&out, p, &caller, S("not-a-uuid")) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "id") == 0);
  CHECK(budcore_platform_check(p) == BUDCORE_OK);

  budcore_platform_free(p);
  CHECK(remove_tree(dir));
  return failures != 0;
}
