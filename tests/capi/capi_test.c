/* The C ABI exercised from C, as a foreign caller sees it. Each check prints what failed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budcore/budcore.h"
#include "check.h"

/* A complete, valid job in the Job schema. */
static const char kValidJob[] =
    "{\"name\": \"llm-endpoint\", \"tenant_id\": \"3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b\","
    " \"project_id\": \"7a8b9c0d-1e2f-4a3b-8c5d-6e7f8a9b0c1d\","
    " \"job_type\": \"SERVICE\", \"deployment_type\": \"MODEL\","
    " \"spec\": {\"model_id\": \"meta-llama/Llama-3.3-70B-Instruct\", \"engine\": \"vllm\"},"
    " \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 2, \"cpu_cores\": 1.5, \"memory_gb\": 64,"
    " \"priority\": \"HIGH\"}";

/* Same job with one bad field: a negative GPU count. */
static const char kNegativeGpus[] =
    "{\"name\": \"llm-endpoint\", \"tenant_id\": \"3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b\","
    " \"project_id\": \"7a8b9c0d-1e2f-4a3b-8c5d-6e7f8a9b0c1d\","
    " \"job_type\": \"SERVICE\", \"deployment_type\": \"MODEL\", \"gpu_count\": -1}";

static int validate_str(budcore_buf *out, const char *json) {
  return budcore_job_validate(out, json, strlen(json));
}

static void test_version(void) {
  int ma = -1, mi = -1, pa = -1;
  CHECK(budcore_version(&ma, &mi, &pa) == BUDCORE_OK);
  CHECK(ma == BUDCORE_VERSION_MAJOR && mi == BUDCORE_VERSION_MINOR && pa == BUDCORE_VERSION_PATCH);
  CHECK(strcmp(budcore_version_string(), BUDCORE_VERSION_STRING) == 0);
  CHECK(budcore_version(NULL, NULL, NULL) == BUDCORE_OK);
  CHECK(BUDCORE_VERSION_CHECK(0, 0, 1));
}

static void test_error_last_never_null(void) {
  const budcore_error *e;
  budcore_error_clear();
  e = budcore_error_last();
  CHECK(e != NULL);
  CHECK(e->code == BUDCORE_OK);
  CHECK(e->message != NULL && e->message[0] == '\0');
  CHECK(e->field != NULL && e->value != NULL);
  CHECK(strcmp(budcore_strerror(BUDCORE_EINVALID), "invalid input") == 0);
  CHECK(strcmp(budcore_strerror(12345), "unknown status code") == 0);
}

static void test_buf_dispose(void) {
  budcore_buf empty = BUDCORE_BUF_INIT;
  budcore_buf_dispose(&empty); /* no-op on an empty buf */
  budcore_buf_dispose(NULL);   /* and on NULL */
  budcore_free(NULL);
  CHECK(empty.ptr == NULL && empty.size == 0);
}

static void test_job_validate_ok(void) {
  budcore_buf out = BUDCORE_BUF_INIT;
  int rc = validate_str(&out, kValidJob);
  CHECK(rc == BUDCORE_OK);
  if (rc != BUDCORE_OK) {
    fprintf(stderr, "  error: %s (field '%s')\n", budcore_error_last()->message, budcore_error_last()->field);
    return;
  }
  CHECK(budcore_error_last()->code == BUDCORE_OK);
  CHECK(out.ptr != NULL && out.size > 2);
  CHECK(out.ptr[out.size] == '\0');
  CHECK(strlen(out.ptr) == out.size);
  CHECK(out.ptr[0] == '{' && out.ptr[out.size - 1] == '}');
  CHECK(strstr(out.ptr, "\"llm-endpoint\"") != NULL);
  CHECK(strstr(out.ptr, "nvidia-a100-80gb") != NULL);
  /* Normalized: enums lower-case, defaults filled in. */
  CHECK(strstr(out.ptr, "\"job_type\":\"service\"") != NULL);
  CHECK(strstr(out.ptr, "\"priority\":\"high\"") != NULL);
  CHECK(strstr(out.ptr, "\"status\":\"pending\"") != NULL);

  /* The normalized form is a fixed point: validating it again gives the same text. */
  {
    budcore_buf again = BUDCORE_BUF_INIT;
    CHECK(budcore_job_validate(&again, out.ptr, out.size) == BUDCORE_OK);
    CHECK(again.ptr != NULL && again.size == out.size);
    if (again.ptr != NULL && again.size == out.size) CHECK(memcmp(again.ptr, out.ptr, out.size) == 0);
    CHECK(again.ptr != out.ptr); /* every call hands out its own allocation */
    budcore_buf_dispose(&again);
  }

  /* The caller owns the buffer: it may write to it before disposing. */
  out.ptr[0] = 'x';
  budcore_buf_dispose(&out);
  CHECK(out.ptr == NULL && out.size == 0);
  budcore_buf_dispose(&out); /* disposing twice is harmless */
}

static void test_job_validate_length_is_honoured(void) {
  /* The input is (pointer, length): bytes past the length are never read. */
  size_t n = strlen(kValidJob);
  char *text = (char *)malloc(n + 8);
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(text != NULL);
  if (text == NULL) return;
  memcpy(text, kValidJob, n);
  memcpy(text + n, "garbage", 8);
  CHECK(budcore_job_validate(&out, text, n) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  /* Cut short, the same text is broken JSON. */
  CHECK(budcore_job_validate(&out, text, n - 1) == BUDCORE_EINVALID);
  CHECK(out.ptr == NULL);
  free(text);
}

static void test_job_validate_errors(void) {
  budcore_buf out = BUDCORE_BUF_INIT;
  const budcore_error *e;

  /* NULL output. */
  CHECK(validate_str(NULL, kValidJob) == BUDCORE_EINVALID);
  e = budcore_error_last();
  CHECK(e->code == BUDCORE_EINVALID);
  CHECK(strcmp(e->field, "out") == 0);
  CHECK(e->message[0] != '\0');

  /* NULL text with a length. */
  CHECK(budcore_job_validate(&out, NULL, 5) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "json") == 0);
  CHECK(out.ptr == NULL);

  /* NULL text with length 0 is the empty string, which is not a job. */
  CHECK(budcore_job_validate(&out, NULL, 0) == BUDCORE_EINVALID);
  CHECK(out.ptr == NULL);

  /* Invalid UTF-8: a lone continuation byte, an overlong '/', a surrogate. */
  {
    static const char *bad[] = {"{\"name\": \"a\x80\"}", "{\"name\": \"\xC0\xAF\"}",
                                "{\"name\": \"\xED\xA0\x80\"}"};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
      CHECK(validate_str(&out, bad[i]) == BUDCORE_EINVALID);
      e = budcore_error_last();
      CHECK(strcmp(e->field, "json") == 0); /* the argument that is not UTF-8 */
      CHECK(out.ptr == NULL);
    }
  }

  /* Broken JSON. */
  CHECK(validate_str(&out, "{\"name\": ") == BUDCORE_EINVALID);
  CHECK(budcore_error_last()->message[0] != '\0');
  CHECK(out.ptr == NULL);

  /* JSON that is not an object. */
  CHECK(validate_str(&out, "[1, 2]") == BUDCORE_EINVALID);
  CHECK(out.ptr == NULL);

  /* A schema violation names the field and the value. */
  CHECK(validate_str(&out, kNegativeGpus) == BUDCORE_EINVALID);
  e = budcore_error_last();
  CHECK(e->code == BUDCORE_EINVALID);
  CHECK(strstr(e->field, "gpu_count") != NULL);
  CHECK(strcmp(e->value, "-1") == 0);
  CHECK(e->message[0] != '\0');
  CHECK(out.ptr == NULL);

  /* An unknown key is named, not ignored. */
  {
    static const char typo[] =
        "{\"name\": \"j\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_cont\": 2}";
    CHECK(validate_str(&out, typo) == BUDCORE_EINVALID);
    CHECK(strcmp(budcore_error_last()->field, "gpu_cont") == 0);
    CHECK(out.ptr == NULL);
  }

  /* An unknown job type. */
  {
    static const char unknown_type[] =
        "{\"name\": \"j\","
        " \"job_type\": \"SIDEWAYS\", \"deployment_type\": \"MODEL\"}";
    CHECK(validate_str(&out, unknown_type) == BUDCORE_EINVALID);
    e = budcore_error_last();
    CHECK(strstr(e->field, "job_type") != NULL);
    CHECK(strcmp(e->value, "SIDEWAYS") == 0);
  }
}

/* How many times `needle` occurs in `text`. */
static int count(const char *text, const char *needle) {
  int n = 0;
  for (text = strstr(text, needle); text != NULL; text = strstr(text + 1, needle)) ++n;
  return n;
}

static void test_job_validate_all(void) {
  static const char bad[] =
      "{\"name\": \"Bad_Name\", \"job_type\": \"batch\", \"deployment_type\": \"docker\","
      " \"tenant_id\": \"00000000-0000-4000-8000-000000000001\", \"gpu_count\": -1, \"retry_count\": 5,"
      " \"max_retries\": 1}";
  static const char mixed[] =
      "{\"name\": \"ok\", \"deployment_type\": \"DOCKER\", \"gpu_count\": -1, \"cpu_cores\": -2,"
      " \"priority\": \"ultra\"}";
  budcore_buf out = BUDCORE_BUF_INIT, errors = BUDCORE_BUF_INIT, one = BUDCORE_BUF_INIT;
  const char *at;
  /* Every rule a decoded document breaks, each with its path; the first in the last error. */
  CHECK(budcore_job_validate_all(&out, &errors, bad, strlen(bad)) == BUDCORE_EINVALID);
  CHECK(out.ptr == NULL);
  CHECK(strcmp(budcore_error_last()->field, "name") == 0);
  CHECK(errors.ptr != NULL && strncmp(errors.ptr, "{\"valid\":false,\"errors\":[", 25) == 0);
  at = errors.ptr != NULL ? strstr(errors.ptr, "\"path\":\"name\"") : NULL;
  CHECK(at != NULL && (at = strstr(at, "\"path\":\"gpu_count\"")) != NULL && strstr(at, "\"path\":\"retry_count\"") != NULL);
  /* A full errors_out is refused before anything is validated. */
  CHECK(budcore_job_validate_all(&out, &errors, bad, strlen(bad)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "errors_out") == 0);
  budcore_buf_dispose(&errors);
  /* Fields that do not decode do not hide the others, nor the rules the others break; the
   * first problem is budcore_job_validate's error. */
  CHECK(budcore_job_validate_all(&out, &errors, mixed, strlen(mixed)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "job_type") == 0);
  at = errors.ptr != NULL ? strstr(errors.ptr, "\"path\":\"job_type\"") : NULL;
  CHECK(at != NULL && (at = strstr(at, "\"path\":\"priority\",\"value\":\"ultra\"")) != NULL &&
        (at = strstr(at, "\"path\":\"gpu_count\"")) != NULL && strstr(at, "\"path\":\"cpu_cores\"") != NULL);
  CHECK(errors.ptr != NULL && count(errors.ptr, "\"path\":") == 4);
  budcore_buf_dispose(&errors);
  CHECK(validate_str(&one, mixed) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "job_type") == 0);
  /* Text that is not JSON: its one problem. NULL errors_out: only the return code and the last error. */
  CHECK(budcore_job_validate_all(&out, &errors, "{\"name\": ", 9) == BUDCORE_EINVALID);
  CHECK(errors.ptr != NULL && count(errors.ptr, "\"path\":") == 1);
  budcore_buf_dispose(&errors);
  CHECK(budcore_job_validate_all(&out, NULL, bad, strlen(bad)) == BUDCORE_EINVALID);
  /* A good job: what budcore_job_validate writes; errors_out untouched. */
  CHECK(budcore_job_validate_all(&out, &errors, kValidJob, strlen(kValidJob)) == BUDCORE_OK);
  CHECK(validate_str(&one, kValidJob) == BUDCORE_OK);
  CHECK(out.ptr != NULL && one.ptr != NULL && strcmp(out.ptr, one.ptr) == 0);
  CHECK(errors.ptr == NULL);
  budcore_buf_dispose(&out);
  budcore_buf_dispose(&one);
}

/* Every problem of the input is on the error itself: budcore_error_problem(0) is
 * budcore_error_last(), the others follow, and a submit that refuses the document stores nothing. */
static void test_error_problems(void) {
  static const char mixed[] =
      "{\"name\": \"ok\", \"job_type\": \"batch\", \"deployment_type\": \"DOCKER\", \"spec\": {\"image\": \"x/y\"},"
      " \"gpu_count\": -1, \"cpu_cores\": -2, \"priority\": \"ultra\"}";
  static const char tenant[] = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b";
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_store *store = NULL;
  const budcore_error *p;
  CHECK(validate_str(&out, mixed) == BUDCORE_EINVALID);
  CHECK(budcore_error_problem_count() == 3);
  CHECK(budcore_error_problem(0) == budcore_error_last());
  CHECK(strcmp(budcore_error_last()->field, "priority") == 0 && strcmp(budcore_error_last()->value, "ultra") == 0);
  p = budcore_error_problem(1);
  CHECK(p != NULL && p->code == BUDCORE_EINVALID && strcmp(p->field, "gpu_count") == 0 &&
        strcmp(p->value, "-1") == 0 && strcmp(p->message, "must not be negative") == 0);
  p = budcore_error_problem(2);
  CHECK(p != NULL && strcmp(p->field, "cpu_cores") == 0 && strcmp(p->value, "-2") == 0);
  CHECK(budcore_error_problem(3) == NULL);
  /* One problem: the error alone. No error: none. */
  CHECK(validate_str(&out, kNegativeGpus) == BUDCORE_EINVALID);
  CHECK(budcore_error_problem_count() == 1 && budcore_error_problem(1) == NULL);
  CHECK(validate_str(&out, kValidJob) == BUDCORE_OK);
  CHECK(budcore_error_problem_count() == 0 && budcore_error_problem(0) == NULL);
  budcore_buf_dispose(&out);
  /* A submit path: the same list, and nothing stored. */
  CHECK(budcore_store_open(&store, "sqlite::memory:", 15) == BUDCORE_OK);
  CHECK(budcore_store_job_submit(&out, store, tenant, strlen(tenant), mixed, strlen(mixed), NULL, 0) == BUDCORE_EINVALID);
  CHECK(budcore_error_problem_count() == 3);
  p = budcore_error_problem(2);
  CHECK(p != NULL && strcmp(p->field, "cpu_cores") == 0);
  CHECK(out.ptr == NULL);
  CHECK(budcore_store_job_list(&out, store, tenant, strlen(tenant), NULL, 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"items\":[]") != NULL);
  budcore_buf_dispose(&out);
  budcore_store_free(store);
}

static void test_error_cleared_after_success(void) {
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(validate_str(&out, kNegativeGpus) == BUDCORE_EINVALID);
  CHECK(budcore_error_last()->code == BUDCORE_EINVALID);
  CHECK(validate_str(&out, kValidJob) == BUDCORE_OK);
  CHECK(budcore_error_last()->code == BUDCORE_OK);
  CHECK(budcore_error_last()->message[0] == '\0');
  CHECK(budcore_error_last()->field[0] == '\0');
  CHECK(budcore_error_last()->value[0] == '\0');
  budcore_buf_dispose(&out);

  /* budcore_error_clear() also resets it. */
  CHECK(validate_str(NULL, kValidJob) == BUDCORE_EINVALID);
  budcore_error_clear();
  CHECK(budcore_error_last()->code == BUDCORE_OK);
}

/* --- thread-locality ------------------------------------------------------------------ */

struct thread_report {
  int saw_clean_start; /* the new thread starts with no error although main has one */
  int ok_after_success;
  int own_field;       /* after its own failure the thread sees its own field */
};

static void *thread_fresh(void *arg) {
  struct thread_report *r = (struct thread_report *)arg;
  budcore_buf out = BUDCORE_BUF_INIT;
  r->saw_clean_start = budcore_error_last()->code == BUDCORE_OK;
  r->ok_after_success = validate_str(&out, kValidJob) == BUDCORE_OK && budcore_error_last()->code == BUDCORE_OK;
  budcore_buf_dispose(&out);
  r->own_field = validate_str(&out, "{\"name\": \"\xC0\xAF\"}") == BUDCORE_EINVALID &&
                 strcmp(budcore_error_last()->field, "json") == 0;
  return NULL;
}

/* Many threads at once, each alternating successes and failures with its own field. */
#define STRESS_THREADS 4
#define STRESS_ROUNDS 50
static void *thread_stress(void *arg) {
  int index = *(int *)arg, round, bad = 0;
  for (round = 0; round < STRESS_ROUNDS; ++round) {
    budcore_buf out = BUDCORE_BUF_INIT;
    if ((round + index) % 2 == 0) {
      if (validate_str(&out, kValidJob) != BUDCORE_OK || budcore_error_last()->code != BUDCORE_OK) ++bad;
      budcore_buf_dispose(&out);
    } else if (index % 2 == 0) {
      if (validate_str(NULL, kValidJob) != BUDCORE_EINVALID || strcmp(budcore_error_last()->field, "out") != 0) ++bad;
    } else {
      if (validate_str(&out, kNegativeGpus) != BUDCORE_EINVALID ||
          strstr(budcore_error_last()->field, "gpu_count") == NULL)
        ++bad;
    }
  }
  *(int *)arg = bad;
  return NULL;
}

static void test_errors_are_thread_local(void) {
  pthread_t t;
  struct thread_report r = {0, 0, 0};
  int i, index[STRESS_THREADS];
  pthread_t ts[STRESS_THREADS];

  CHECK(validate_str(NULL, kValidJob) == BUDCORE_EINVALID); /* main thread's error: field "out" */
  CHECK(pthread_create(&t, NULL, thread_fresh, &r) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(r.saw_clean_start);
  CHECK(r.ok_after_success);
  CHECK(r.own_field);
  /* The other thread's success and failure left this thread's error alone. */
  CHECK(budcore_error_last()->code == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "out") == 0);

  for (i = 0; i < STRESS_THREADS; ++i) {
    index[i] = i;
    CHECK(pthread_create(&ts[i], NULL, thread_stress, &index[i]) == 0);
  }
  for (i = 0; i < STRESS_THREADS; ++i) {
    CHECK(pthread_join(ts[i], NULL) == 0);
    CHECK(index[i] == 0); /* mismatches seen by thread i */
  }
  budcore_error_clear();
}

int main(void) {
  test_version();
  test_error_last_never_null();
  test_buf_dispose();
  test_job_validate_ok();
  test_job_validate_length_is_honoured();
  test_job_validate_errors();
  test_job_validate_all();
  test_error_problems();
  test_error_cleared_after_success();
  test_errors_are_thread_local();
  if (failures == 0) printf("capi_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
