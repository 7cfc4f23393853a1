/* The use-case C ABI from C, against the shared library: the shipped templates, a render and
 * its error report. */
#include <stdio.h>
#include <string.h>

#include "budcore/budcore.h"
#include "check.h"

static int render(budcore_usecase_registry *r, const char *id, const char *request, budcore_buf *out,
                  budcore_buf *errors) {
  return budcore_usecase_render(out, errors, r, id, strlen(id), request, strlen(request));
}

int main(void) {
  budcore_usecase_registry *r = NULL;
  budcore_buf out = BUDCORE_BUF_INIT, errors = BUDCORE_BUF_INIT;

  CHECK(budcore_usecase_registry_new(&r, 1) == BUDCORE_OK && r != NULL);
  CHECK(budcore_usecase_list(&out, r) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"enterprise-rag-v1\"") != NULL);
  budcore_buf_dispose(&out);

  CHECK(render(r, "simple-chatbot-v1", "{\"parameters\": {\"model_id\": \"meta-llama/Llama-3.1-8B-Instruct\"}}",
               &out, &errors) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"valid\":true") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "{{ steps.llm.outputs.url }}/v1") != NULL);
  CHECK(errors.ptr == NULL);
  budcore_buf_dispose(&out);

  CHECK(render(r, "simple-chatbot-v1", "{\"parameters\": {\"gpu_count\": 99}}", &out, &errors) == BUDCORE_EINVALID);
  CHECK(out.ptr == NULL);
  CHECK(errors.ptr != NULL && strstr(errors.ptr, "\"missing_parameter\"") != NULL);
  CHECK(errors.ptr != NULL && strstr(errors.ptr, "\"parameters.gpu_count\"") != NULL);
  CHECK(strcmp(budcore_error_last()->field, "parameters.model_id") == 0);
  budcore_buf_dispose(&errors);

  budcore_usecase_registry_free(r);
  budcore_usecase_registry_free(NULL);
  if (failures == 0) printf("usecase C ABI: ok\n");
  return failures != 0;
}
