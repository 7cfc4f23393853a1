/* The cross-tenant matrix from C (docs/security.md "Tenant isolation"), on the store argv[1]
 * names: "sqlite" (a file in a temp dir) or "postgres" (a schema of its own on the ctest
 * fixture's server, BUDCORE_PG_URI_FILE; exit 77, skipped, only when PostgreSQL is not
 * installed). Tenant A owns a job (SQL metacharacters in its spec and idempotency key), a
 * pipeline run and a deployment. Tenant B calls everything on their ids and gets the error of an
 * id that exists nowhere; B's lists, events, audit and deployments name nothing of A's; A's
 * cursor and idempotency key give B only its own; a document claiming A's tenant is refused; A's
 * job reads as it did before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "budcore/budcore.h"
#include "check.h"

#define S(x) x, strlen(x)
#define TENANT_A "00000000-0000-4000-8000-0000000000a1"
#define TENANT_B "00000000-0000-4000-8000-0000000000b2"
#define UNKNOWN "00000000-0000-4000-8000-00000000dead"

static const char kEvilJob[] =
    "{\"name\": \"a-train\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_count\": 0,"
    " \"estimated_duration_seconds\": 3600,"
    " \"spec\": {\"note\": \"x'); DROP TABLE jobs; -- \\\" OR 1=1 --\", \"x' OR '1'='1\": \"a key too\"}}";
static const char kJobB[] =
    "{\"name\": \"b-job\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_count\": 0,"
    " \"estimated_duration_seconds\": 60}";
static const char kForged[] =
    "{\"name\": \"forged\", \"tenant_id\": \"" TENANT_A "\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\","
    " \"gpu_count\": 0, \"estimated_duration_seconds\": 60}";
static const char kPipeline[] =
    "{\"pipeline\": {\"id\": \"p\", \"name\": \"a-pipe\"}, \"steps\": ["
    " {\"id\": \"s\", \"name\": \"s\", \"step_type\": \"WAIT\", \"depends_on\": [], \"config\": {\"duration_seconds\": 3600}}]}";
static const char kChatbot[] =
    "{\"model_id\": \"meta-llama/Llama-3.1-8B-Instruct\", \"gpu_type\": \"nvidia-a100-80gb\"}";
static const char kEvilKey[] = "k'; DELETE FROM jobs; --";

enum probe { GET, CANCEL, RETRY, PRIORITY, PREEMPT, RUN_GET, RUN_CANCEL, DEP_GET, DEP_TEARDOWN, PROBES };
static const char *const kProbeNames[PROBES] = {"get",     "cancel",     "retry",   "set_priority", "preempt",
                                                "run get", "run cancel", "dep get", "dep teardown"};

static int call(enum probe which, budcore_platform *p, const budcore_caller *c, const char *id) {
  budcore_buf out = BUDCORE_BUF_INIT;
  int rc = BUDCORE_OK;
  size_t n = strlen(id);
  switch (which) {
    case GET: rc = budcore_platform_get(&out, p, c, id, n); break;
    case CANCEL: rc = budcore_platform_cancel(&out, p, c, id, n, S("probe")); break;
    case RETRY: rc = budcore_platform_retry(&out, p, c, id, n); break;
    case PRIORITY: rc = budcore_platform_set_priority(&out, p, c, id, n, S("critical")); break;
    case PREEMPT: rc = budcore_platform_preempt(&out, p, c, id, n, S("probe")); break;
    case RUN_GET: rc = budcore_platform_pipeline_run(&out, p, c, id, n); break;
    case RUN_CANCEL: rc = budcore_platform_cancel_pipeline_run(&out, p, c, id, n, S("probe")); break;
    case DEP_GET: rc = budcore_platform_deployment(&out, p, c, id, n); break;
    case DEP_TEARDOWN: rc = budcore_platform_teardown_deployment(&out, p, c, id, n); break;
    case PROBES: break;
  }
  CHECK(out.ptr == NULL); /* a failed call leaves out untouched */
  budcore_buf_dispose(&out);
  return rc;
}

/* The last error's message, field and value with `id` replaced by <id>. */
static void said(char *dst, size_t cap, const char *id) {
  const budcore_error *e = budcore_error_last();
  char text[2048];
  const char *at, *from = text;
  size_t used = 0, idn = strlen(id);
  snprintf(text, sizeof text, "%s|%s|%s", e->message, e->field, e->value);
  dst[0] = '\0';
  while ((at = strstr(from, id)) != NULL && used + (size_t)(at - from) + 5 < cap) {
    memcpy(dst + used, from, (size_t)(at - from));
    used += (size_t)(at - from);
    memcpy(dst + used, "<id>", 5);
    used += 4;
    from = at + idn;
  }
  snprintf(dst + used, cap - used, "%s", from);
}

/* The store URI: a SQLite file under dir, or a fresh schema on the fixture's PostgreSQL server. */
static int store_uri(char *uri, size_t cap, const char *kind, const char *dir) {
  const char *file = getenv("BUDCORE_PG_URI_FILE");
  char cmd[1400], state[1024];
  FILE *f;
  int rc;
  if (strcmp(kind, "sqlite") == 0) {
    snprintf(uri, cap, "sqlite://%s/store.db", dir);
    return 0;
  }
  if (file == NULL || strlen(file) >= sizeof state || strrchr(file, '/') == NULL) return 77;
  snprintf(state, sizeof state, "%s", file);
  *strrchr(state, '/') = '\0';
  snprintf(cmd, sizeof cmd, "bash '%s' schema '%s' capi_iso_%ld", BUDCORE_PG_FIXTURE, state, (long)getpid());
  f = popen(cmd, "r");
  if (f == NULL || fgets(uri, (int)cap, f) == NULL) uri[0] = '\0';
  rc = f == NULL ? -1 : pclose(f);
  if (rc != -1 && WEXITSTATUS(rc) == 3) return 77; /* no PostgreSQL installed */
  uri[strcspn(uri, "\n")] = '\0';
  return rc == 0 && uri[0] != '\0' ? 0 : 1;
}

int main(int argc, char **argv) {
  char dir[] = "/tmp/budcore-capi-isolation-XXXXXX";
  char uri[1024], config[1200], job_id[37], run_id[37], dep_id[37], before[8192], on_a[2200], on_none[2200];
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT, seen = BUDCORE_BUF_INIT;
  budcore_caller a = {S(TENANT_A), S("user:alice"), S("req x'); DROP TABLE audit_log; --")};
  budcore_caller b = {S(TENANT_B), S("user:bob"), S("req-b")};
  const char *ids[PROBES];
  int i, rc;

  if (argc != 2) {
    fprintf(stderr, "usage: %s sqlite|postgres\n", argv[0]);
    return 2;
  }
  CHECK(mkdtemp(dir) != NULL);
  rc = store_uri(uri, sizeof uri, argv[1], dir);
  if (rc != 0) {
    remove_tree(dir);
    if (rc == 77) printf("skipped: PostgreSQL is not installed\n");
    else fprintf(stderr, "no store for %s\n", argv[1]);
    return rc;
  }
  snprintf(config, sizeof config, "store: '%s'\n", uri);
  CHECK(budcore_platform_open(&p, S(config)) == BUDCORE_OK);
  if (p == NULL) return 1;

  /* Tenant A: a job with metacharacters in its spec and key, two more, a pipeline run, a deployment. */
  CHECK(budcore_platform_submit(&out, p, &a, S(kEvilJob), S("shared-key")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && find_id(out.ptr, "\"id\":", job_id));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_submit(&out, p, &a, S(kJobB), S(kEvilKey)) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_submit(&out, p, &a, S(kJobB), NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_run_pipeline(&out, p, &a, S(kPipeline), NULL, 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && find_id(out.ptr, "\"id\":", run_id));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_deploy_usecase(&out, p, &a, S("simple-chatbot-v1"), S(kChatbot)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && find_id(out.ptr, "\"id\":", dep_id));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_run(&out, p, 60) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_get(&out, p, &a, S(job_id)) == BUDCORE_OK);
  snprintf(before, sizeof before, "%s", out.ptr != NULL ? out.ptr : "");
  budcore_buf_dispose(&out);

  /* Every call on A's ids by B fails exactly as on an id that exists nowhere. */
  ids[GET] = ids[CANCEL] = ids[RETRY] = ids[PRIORITY] = ids[PREEMPT] = job_id;
  ids[RUN_GET] = ids[RUN_CANCEL] = run_id;
  ids[DEP_GET] = ids[DEP_TEARDOWN] = dep_id;
  for (i = 0; i < PROBES; ++i) {
    int rc_a = call((enum probe)i, p, &b, ids[i]);
    int rc_none;
    said(on_a, sizeof on_a, ids[i]);
    rc_none = call((enum probe)i, p, &b, UNKNOWN);
    said(on_none, sizeof on_none, UNKNOWN);
    if (rc_a != BUDCORE_ENOTFOUND || rc_none != rc_a || strcmp(on_a, on_none) != 0 || strstr(on_a, "a-") != NULL) {
      fprintf(stderr, "probe %s: %d '%s' vs %d '%s'\n", kProbeNames[i], rc_a, on_a, rc_none, on_none);
      ++failures;
    }
  }

  /* B's own jobs; A's cursor lists only B's; B's lists, events, audit and deployments. */
  CHECK(budcore_platform_submit(&out, p, &b, S(kJobB), NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_list(&out, p, &a, S("{\"limit\": 2}")) == BUDCORE_OK);
  {
    char query[600];
    const char *cur = out.ptr != NULL ? strstr(out.ptr, "\"next_cursor\":\"") : NULL;
    CHECK(cur != NULL);
    if (cur != NULL) {
      size_t len = strcspn(cur + 15, "\"");
      snprintf(query, sizeof query, "{\"after\": \"%.*s\"}", (int)len, cur + 15);
      budcore_buf_dispose(&out);
      rc = budcore_platform_list(&out, p, &b, S(query));
      CHECK(rc == BUDCORE_OK || rc == BUDCORE_EINVALID);
      CHECK(out.ptr == NULL || strstr(out.ptr, "a-train") == NULL);
    }
    budcore_buf_dispose(&out);
  }
  CHECK(budcore_platform_list(&seen, p, &b, NULL, 0) == BUDCORE_OK);
  CHECK(seen.ptr != NULL && strstr(seen.ptr, "\"b-job\"") != NULL);
  {
    char all[1 << 16] = "";
    snprintf(all, sizeof all, "%s", seen.ptr != NULL ? seen.ptr : "");
    budcore_buf_dispose(&seen);
    CHECK(budcore_platform_events(&out, p, &b, 0, 10000) == BUDCORE_OK);
    strncat(all, out.ptr != NULL ? out.ptr : "", sizeof all - strlen(all) - 1);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_audit(&out, p, &b, NULL, 0) == BUDCORE_OK);
    strncat(all, out.ptr != NULL ? out.ptr : "", sizeof all - strlen(all) - 1);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_deployments(&out, p, &b) == BUDCORE_OK);
    strncat(all, out.ptr != NULL ? out.ptr : "", sizeof all - strlen(all) - 1);
    budcore_buf_dispose(&out);
    CHECK(strlen(all) < sizeof all - 1);
    CHECK(strstr(all, job_id) == NULL && strstr(all, run_id) == NULL && strstr(all, dep_id) == NULL);
    CHECK(strstr(all, "a-train") == NULL && strstr(all, "a-pipe") == NULL && strstr(all, TENANT_A) == NULL);
    CHECK(strstr(all, "DROP TABLE") == NULL);
  }

  /* A's idempotency keys replayed by B make jobs of B's own. */
  CHECK(budcore_platform_submit(&out, p, &b, S(kJobB), S("shared-key")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"created\":true") != NULL && strstr(out.ptr, job_id) == NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, TENANT_B) != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_submit(&out, p, &b, S(kJobB), S(kEvilKey)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"created\":true") != NULL && strstr(out.ptr, TENANT_A) == NULL);
  budcore_buf_dispose(&out);

  /* A document claiming A's tenant is refused, naming the field. */
  CHECK(budcore_platform_submit(&out, p, &b, S(kForged), NULL, 0) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "tenant_id") == 0);
  CHECK(out.ptr == NULL);

  /* A's job is as it was, metacharacters and all; A's run still runs; the audit names A's request. */
  CHECK(budcore_platform_get(&out, p, &a, S(job_id)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strcmp(out.ptr, before) == 0);
  CHECK(out.ptr != NULL && strstr(out.ptr, "DROP TABLE jobs") != NULL && strstr(out.ptr, "\"priority\":\"normal\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_pipeline_run(&out, p, &a, S(run_id)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"running\"") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_audit(&out, p, &a, S("{\"limit\": 1}")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "DROP TABLE audit_log") != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_check(p) == BUDCORE_OK);

  budcore_platform_free(p);
  CHECK(remove_tree(dir));
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("capi isolation (%s): ok\n", argv[1]);
  return failures != 0;
}
