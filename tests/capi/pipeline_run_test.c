/* budcore_pipeline_run and the function registry exercised from C: FUNCTION steps backed by
 * C callbacks, their outputs read downstream, callback failures, a callback aborting the run,
 * payloads the registry frees, options errors, threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budcore/budcore.h"
#include "check.h"

/* prep (TRANSFORM) -> score (FUNCTION "score", one retry) -> report (TRANSFORM reading
 * steps.score.outputs.total). */
static const char kScored[] =
    "{\"pipeline\": {\"id\": \"p\", \"name\": \"scored\", \"parameters\": {\"base\": 10}},"
    " \"steps\": ["
    "  {\"id\": \"prep\", \"name\": \"prep\", \"step_type\": \"TRANSFORM\", \"depends_on\": [],"
    "   \"config\": {\"outputs\": {\"n\": \"{{ params.base }}\"}}},"
    "  {\"id\": \"score\", \"name\": \"score\", \"step_type\": \"FUNCTION\", \"depends_on\": [\"prep\"], \"retry\": 1,"
    "   \"config\": {\"function\": \"score\", \"args\": {\"n\": \"{{ steps.prep.outputs.n }}\"}}},"
    "  {\"id\": \"report\", \"name\": \"report\", \"step_type\": \"TRANSFORM\", \"depends_on\": [\"score\"],"
    "   \"config\": {\"outputs\": {\"total\": \"{{ steps.score.outputs.total }}\"}}}"
    "]}";

/* What a callback saw and how it should answer. */
struct scorer {
  int calls;
  int last_attempt;
  char last_step[32];
  int fail_attempts;     /* fail the first N attempts */
  const char *fail_text; /* message for a failure (may be "") */
  const char *reply;     /* a fixed reply instead of {"total": 2n} */
  int poke_error;        /* call a failing budcore function from inside the callback */
  int abort_run;         /* return BUDCORE_EUSER (with abort_text in out) */
  const char *abort_text;
};

static int score(const char *args_json, size_t args_len, int attempt, const char *step_id, budcore_buf *out,
                 void *user_data) {
  struct scorer *s = (struct scorer *)user_data;
  char text[64];
  const char *n_at;
  int n = 0;
  ++s->calls;
  s->last_attempt = attempt;
  strncpy(s->last_step, step_id, sizeof s->last_step - 1);
  s->last_step[sizeof s->last_step - 1] = '\0';
  if (args_json[args_len] != '\0') return budcore_buf_set(out, "args not NUL-terminated", 23), 1;
  if (s->poke_error) {
    budcore_buf junk = BUDCORE_BUF_INIT;
    (void)budcore_job_validate(NULL, "{}", 2); /* leaves an error on this thread */
    budcore_buf_dispose(&junk);
  }
  if (s->abort_run) {
    budcore_buf_set(out, s->abort_text, strlen(s->abort_text));
    return BUDCORE_EUSER;
  }
  if (attempt <= s->fail_attempts) {
    budcore_buf_set(out, s->fail_text, strlen(s->fail_text));
    return 7;
  }
  if (s->reply != NULL) return budcore_buf_set(out, s->reply, strlen(s->reply)) == BUDCORE_OK ? 0 : 1;
  n_at = strstr(args_json, "\"n\":");
  if (n_at == NULL || sscanf(n_at + 4, "%d", &n) != 1) return budcore_buf_set(out, "no n in args", 12), 1;
  sprintf(text, "{\"total\": %d}", 2 * n);
  return budcore_buf_set(out, text, strlen(text)) == BUDCORE_OK ? 0 : 1;
}

static budcore_pipeline_function_registry *make_registry(struct scorer *s) {
  budcore_pipeline_function_registry *reg = NULL;
  CHECK(budcore_pipeline_function_registry_new(&reg) == BUDCORE_OK);
  CHECK(reg != NULL);
  CHECK(budcore_pipeline_function_registry_add(reg, "score", 5, score, s, NULL) == BUDCORE_OK);
  return reg;
}

static int run(budcore_buf *out, const char *options, const budcore_pipeline_function_registry *reg) {
  return budcore_pipeline_run(out, kScored, strlen(kScored), options, options ? strlen(options) : 0, reg);
}

static int starts_with(const char *text, const char *prefix) { return strncmp(text, prefix, strlen(prefix)) == 0; }

static void print_error(void) {
  const budcore_error *e = budcore_error_last();
  fprintf(stderr, "  error %d: %s (field '%s', value '%s')\n", e->code, e->message, e->field, e->value);
}

static void test_buf_set(void) {
  budcore_buf b = BUDCORE_BUF_INIT;
  CHECK(budcore_buf_set(&b, "hello", 5) == BUDCORE_OK);
  CHECK(b.size == 5 && b.ptr != NULL && strcmp(b.ptr, "hello") == 0);
  CHECK(budcore_buf_set(&b, "hi there", 2) == BUDCORE_OK); /* replaces (and frees) the old text */
  CHECK(b.size == 2 && strcmp(b.ptr, "hi") == 0);
  CHECK(budcore_buf_set(&b, NULL, 0) == BUDCORE_OK);
  CHECK(b.size == 0 && b.ptr != NULL && b.ptr[0] == '\0');
  CHECK(budcore_buf_set(&b, NULL, 3) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "text") == 0);
  CHECK(budcore_buf_set(NULL, "x", 1) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "buf") == 0);
  budcore_buf_dispose(&b);
}

static void test_registry(void) {
  struct scorer s;
  budcore_pipeline_function_registry *reg;
  memset(&s, 0, sizeof s);
  reg = make_registry(&s);
  CHECK(budcore_pipeline_function_registry_size(reg) == 1);
  CHECK(budcore_pipeline_function_registry_add(reg, "score", 5, score, &s, NULL) == BUDCORE_EEXISTS);
  CHECK(budcore_pipeline_function_registry_add(reg, "", 0, score, &s, NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "name") == 0);
  CHECK(budcore_pipeline_function_registry_add(reg, "other", 5, NULL, &s, NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "callback") == 0);
  CHECK(budcore_pipeline_function_registry_add(NULL, "other", 5, score, &s, NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "registry") == 0);
  CHECK(budcore_pipeline_function_registry_add(reg, "\xC0\xAF", 2, score, &s, NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "name") == 0);
  CHECK(budcore_pipeline_function_registry_add(reg, "scoreXYZ", 5, score, &s, NULL) == BUDCORE_EEXISTS); /* length honoured */
  CHECK(budcore_pipeline_function_registry_add(reg, "other", 5, score, NULL, NULL) == BUDCORE_OK);
  CHECK(budcore_pipeline_function_registry_size(reg) == 2);
  CHECK(budcore_pipeline_function_registry_size(NULL) == 0);
  CHECK(budcore_pipeline_function_registry_new(NULL) == BUDCORE_EINVALID);
  budcore_pipeline_function_registry_free(reg);
  budcore_pipeline_function_registry_free(NULL);
  CHECK(s.calls == 0);
}

/* The names before the layer prefix stay exported (deprecated) and are the same functions. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void test_deprecated_registry_names(void) {
  struct scorer s;
  budcore_function_registry *reg = NULL;
  memset(&s, 0, sizeof s);
  CHECK(budcore_function_registry_new(&reg) == BUDCORE_OK);
  CHECK(budcore_function_registry_add(reg, "score", 5, score, &s, NULL) == BUDCORE_OK);
  CHECK(budcore_function_registry_size(reg) == 1);
  CHECK(budcore_pipeline_function_registry_size(reg) == 1);
  CHECK(budcore_function_registry_add(reg, "score", 5, score, &s, NULL) == BUDCORE_EEXISTS);
  budcore_function_registry_free(reg);
}
#pragma GCC diagnostic pop

static void test_function_output_feeds_transform(void) {
  struct scorer s;
  budcore_pipeline_function_registry *reg;
  budcore_buf out = BUDCORE_BUF_INIT;
  int rc;
  memset(&s, 0, sizeof s);
  reg = make_registry(&s);
  rc = run(&out, NULL, reg);
  CHECK(rc == BUDCORE_OK);
  if (rc != BUDCORE_OK) print_error();
  CHECK(budcore_error_last()->code == BUDCORE_OK);
  CHECK(s.calls == 1 && s.last_attempt == 1);
  CHECK(strcmp(s.last_step, "score") == 0);
  CHECK(out.ptr != NULL && out.ptr[out.size] == '\0');
  if (out.ptr != NULL) {
    CHECK(starts_with(out.ptr, "{\"status\":\"completed\",\"done\":true,"));
    CHECK(strstr(out.ptr, "\"score\":{\"total\":20}") != NULL);
    CHECK(strstr(out.ptr, "\"report\":{\"total\":20}") != NULL); /* read downstream */
    CHECK(strstr(out.ptr, "\"transitions\":[{\"seq\":1,") != NULL);
  }
  budcore_buf_dispose(&out);

  /* params override the document's parameters. */
  CHECK(run(&out, "{\"params\": {\"base\": 21}}", reg) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"report\":{\"total\":42}") != NULL);
  budcore_buf_dispose(&out);

  /* A non-object reply is wrapped as {"result": ...}; the downstream template then fails. */
  s.reply = "42";
  CHECK(run(&out, NULL, reg) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"score\":{\"result\":42}") != NULL);
  budcore_buf_dispose(&out);
  budcore_pipeline_function_registry_free(reg);
}

static void test_callback_errors(void) {
  struct scorer s;
  budcore_pipeline_function_registry *reg;
  budcore_buf out = BUDCORE_BUF_INIT;
  memset(&s, 0, sizeof s);
  reg = make_registry(&s);

  /* One failure is absorbed by the step's single retry. */
  s.fail_attempts = 1;
  s.fail_text = "model not ready";
  CHECK(run(&out, NULL, reg) == BUDCORE_OK);
  CHECK(s.calls == 2 && s.last_attempt == 2);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"completed\"") != NULL);
  budcore_buf_dispose(&out);

  /* Every attempt fails: the step is failed with the callback's message. */
  s.fail_attempts = 100;
  CHECK(run(&out, NULL, reg) == BUDCORE_OK); /* the rehearsal ran; the pipeline failed */
  CHECK(out.ptr != NULL);
  if (out.ptr != NULL) {
    CHECK(strstr(out.ptr, "\"status\":\"failed\"") != NULL);
    CHECK(strstr(out.ptr, "\"score\":\"failed\"") != NULL);
    CHECK(strstr(out.ptr, "\"report\":\"omitted\"") != NULL);
    CHECK(strstr(out.ptr, "\"messages\":{\"score\":\"model not ready\"") != NULL);
  }
  budcore_buf_dispose(&out);

  /* A failure without a message gets one naming the function and the code. */
  s.fail_text = "";
  CHECK(run(&out, NULL, reg) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "function 'score' failed with code 7") != NULL);
  budcore_buf_dispose(&out);

  /* Invalid JSON from a successful callback fails the attempt. */
  s.fail_attempts = 0;
  s.reply = "{not json";
  CHECK(run(&out, NULL, reg) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "function 'score' returned invalid JSON") != NULL);
  budcore_buf_dispose(&out);

  /* Errors a callback caused on this thread do not outlive a successful run. */
  s.reply = NULL;
  s.poke_error = 1;
  CHECK(run(&out, NULL, reg) == BUDCORE_OK);
  CHECK(budcore_error_last()->code == BUDCORE_OK);
  CHECK(budcore_error_last()->field[0] == '\0');
  budcore_buf_dispose(&out);
  budcore_pipeline_function_registry_free(reg);

  /* No registry: the FUNCTION step cannot run. */
  CHECK(run(&out, NULL, NULL) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"score\":\"errored\"") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "no function registered as 'score'") != NULL);
  budcore_buf_dispose(&out);
}

static int pure_score(const char *args_json, size_t args_len, int attempt, const char *step_id, budcore_buf *out,
                      void *user_data) {
  const char *n_at = strstr(args_json, "\"n\":");
  char text[64];
  int n = 0;
  (void)user_data, (void)args_len, (void)attempt, (void)step_id;
  if (n_at == NULL || sscanf(n_at + 4, "%d", &n) != 1) return 1;
  sprintf(text, "{\"total\": %d}", 2 * n);
  return budcore_buf_set(out, text, strlen(text)) == BUDCORE_OK ? 0 : 1;
}

/* A callback returning BUDCORE_EUSER stops the run at once: no retry (the step allows one), no
 * later step; the run returns BUDCORE_EUSER with the callback's message, `out` untouched. */
static void test_callback_aborts_the_run(void) {
  struct scorer s;
  budcore_pipeline_function_registry *reg;
  budcore_buf out = BUDCORE_BUF_INIT;
  memset(&s, 0, sizeof s);
  reg = make_registry(&s);
  s.abort_run = 1;
  s.abort_text = "operator pressed stop";
  CHECK(run(&out, NULL, reg) == BUDCORE_EUSER);
  CHECK(s.calls == 1);
  CHECK(out.ptr == NULL);
  CHECK(strcmp(budcore_error_last()->message, "operator pressed stop") == 0);
  CHECK(strcmp(budcore_error_last()->field, "score") == 0);
  /* Without a message the library names the function and the step. */
  s.abort_text = "";
  CHECK(run(&out, NULL, reg) == BUDCORE_EUSER);
  CHECK(strcmp(budcore_error_last()->message, "function 'score' aborted the run at step score") == 0);
  CHECK(out.ptr == NULL);
  /* The next run on this thread is not affected. */
  s.abort_run = 0;
  CHECK(run(&out, NULL, reg) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"completed\"") != NULL);
  budcore_buf_dispose(&out);
  budcore_pipeline_function_registry_free(reg);
}

/* The registry owns a payload once added: free_user_data runs once, when the registry is freed;
 * a refused add leaves the payload to the caller. */
static int freed_count;
static void free_counter(void *payload) {
  ++freed_count;
  free(payload);
}

static void test_registry_frees_payloads(void) {
  budcore_pipeline_function_registry *reg = NULL;
  int *a = (int *)malloc(sizeof *a), *b = (int *)malloc(sizeof *b);
  freed_count = 0;
  CHECK(budcore_pipeline_function_registry_new(&reg) == BUDCORE_OK);
  CHECK(budcore_pipeline_function_registry_add(reg, "score", 5, pure_score, a, free_counter) == BUDCORE_OK);
  CHECK(budcore_pipeline_function_registry_add(reg, "score", 5, pure_score, b, free_counter) == BUDCORE_EEXISTS);
  CHECK(freed_count == 0); /* b is still ours */
  free(b);
  CHECK(budcore_pipeline_function_registry_add(reg, "other", 5, pure_score, NULL, NULL) == BUDCORE_OK);
  budcore_pipeline_function_registry_free(reg);
  CHECK(freed_count == 1);
}

static void test_fault_options(void) {
  struct scorer s;
  budcore_pipeline_function_registry *reg;
  budcore_buf out = BUDCORE_BUF_INIT;
  memset(&s, 0, sizeof s);
  reg = make_registry(&s);
  /* An injected failure of the first attempt happens before the callback is called. */
  CHECK(run(&out, "{\"fail\": {\"score\": 1}}", reg) == BUDCORE_OK);
  CHECK(s.calls == 1 && s.last_attempt == 2);
  CHECK(out.ptr != NULL && strstr(out.ptr, "injected failure") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"completed\"") != NULL);
  budcore_buf_dispose(&out);
  /* A hanging step with no timeout leaves the run waiting. */
  CHECK(run(&out, "{\"timeout\": [\"score\"]}", reg) == BUDCORE_OK);
  CHECK(out.ptr != NULL && starts_with(out.ptr, "{\"status\":\"running\",\"done\":false,"));
  budcore_buf_dispose(&out);
  budcore_pipeline_function_registry_free(reg);
}

static void test_invalid_input(void) {
  budcore_buf out = BUDCORE_BUF_INIT;
  const char *bad_doc = "{\"pipeline\": {\"id\": \"p\", \"name\": \"n\"}, \"steps\": [{\"id\": \"a\", \"name\": \"a\","
                        " \"step_type\": \"TRANSFORM\", \"depends_on\": [\"nope\"], \"config\": {}}]}";
  CHECK(run(&out, "{\"bogus\": 1}", NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "options.bogus") == 0);
  CHECK(out.ptr == NULL); /* untouched on failure */
  CHECK(run(&out, "{\"fail\": {\"score\": \"x\"}}", NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "options.fail.score") == 0);
  CHECK(run(&out, "{\"slow\": {\"score\": -2}}", NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "options.slow.score") == 0);
  CHECK(run(&out, "{\"reject\": \"gate\"}", NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "options.reject") == 0);
  CHECK(run(&out, "{oops", NULL) == BUDCORE_EINVALID);
  CHECK(strncmp(budcore_error_last()->field, "options", 7) == 0);
  CHECK(budcore_pipeline_run(&out, bad_doc, strlen(bad_doc), NULL, 0, NULL) == BUDCORE_EINVALID);
  CHECK(strstr(budcore_error_last()->field, "steps[0]") != NULL);
  CHECK(budcore_pipeline_run(&out, "{", 1, NULL, 0, NULL) == BUDCORE_EINVALID);
  CHECK(budcore_pipeline_run(NULL, kScored, strlen(kScored), NULL, 0, NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "out") == 0);
  CHECK(budcore_pipeline_run(&out, NULL, 3, NULL, 0, NULL) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "document") == 0);
  CHECK(out.ptr == NULL);
}

/* One registry, several threads running at once; each sees its own complete result. */
#define RUN_THREADS 4
struct thread_run {
  const budcore_pipeline_function_registry *reg;
  int base;
  int ok;
};


static void *run_thread(void *arg) {
  struct thread_run *t = (struct thread_run *)arg;
  char options[64], want[64];
  budcore_buf out = BUDCORE_BUF_INIT;
  sprintf(options, "{\"params\": {\"base\": %d}}", t->base);
  sprintf(want, "\"report\":{\"total\":%d}", 2 * t->base);
  t->ok = run(&out, options, t->reg) == BUDCORE_OK && out.ptr != NULL && strstr(out.ptr, want) != NULL;
  budcore_buf_dispose(&out);
  return NULL;
}

static void test_concurrent_runs(void) {
  budcore_pipeline_function_registry *reg = NULL;
  pthread_t ts[RUN_THREADS];
  struct thread_run runs[RUN_THREADS];
  int i;
  CHECK(budcore_pipeline_function_registry_new(&reg) == BUDCORE_OK);
  CHECK(budcore_pipeline_function_registry_add(reg, "score", 5, pure_score, NULL, NULL) == BUDCORE_OK);
  for (i = 0; i < RUN_THREADS; ++i) {
    runs[i].reg = reg;
    runs[i].base = i + 1;
    runs[i].ok = 0;
    CHECK(pthread_create(&ts[i], NULL, run_thread, &runs[i]) == 0);
  }
  for (i = 0; i < RUN_THREADS; ++i) {
    CHECK(pthread_join(ts[i], NULL) == 0);
    CHECK(runs[i].ok);
  }
  budcore_pipeline_function_registry_free(reg);
}

static void test_deterministic(void) {
  budcore_buf a = BUDCORE_BUF_INIT, b = BUDCORE_BUF_INIT;
  budcore_pipeline_function_registry *reg = NULL;
  CHECK(budcore_pipeline_function_registry_new(&reg) == BUDCORE_OK);
  CHECK(budcore_pipeline_function_registry_add(reg, "score", 5, pure_score, NULL, NULL) == BUDCORE_OK);
  CHECK(run(&a, "{\"fail\": [\"prep\"]}", reg) == BUDCORE_OK);
  CHECK(run(&b, "{\"fail\": [\"prep\"]}", reg) == BUDCORE_OK);
  CHECK(a.ptr != NULL && b.ptr != NULL && a.size == b.size && memcmp(a.ptr, b.ptr, a.size) == 0);
  CHECK(a.ptr != NULL && strstr(a.ptr, "\"prep\":\"failed\"") != NULL);
  budcore_buf_dispose(&a);
  budcore_buf_dispose(&b);
  budcore_pipeline_function_registry_free(reg);
}

int main(void) {
  test_buf_set();
  test_registry();
  test_deprecated_registry_names();
  test_function_output_feeds_transform();
  test_callback_errors();
  test_callback_aborts_the_run();
  test_registry_frees_payloads();
  test_fault_options();
  test_invalid_input();
  test_concurrent_runs();
  test_deterministic();
  if (failures == 0) printf("pipeline_run_test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
