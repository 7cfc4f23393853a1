/* The cross-tenant matrix from C (docs/security.md "Tenant isolation"), on the store argv[1]
 * names: "sqlite" (a file in a temp dir) or "postgres" (a schema of its own on the ctest
 * fixture's server, BUDCORE_PG_URI_FILE; exit 77, skipped, only when PostgreSQL is not
 * installed). Tenant A owns a job (SQL metacharacters in its spec and idempotency key), a
 * pipeline run and a deployment. Tenant B calls everything on their ids and gets the error of an
 * id that exists nowhere; B's lists, events, audit and deployments name nothing of A's; A's
 * cursor and idempotency key give B only its own; a document claiming A's tenant is refused; A's
 * job reads as it did before.
 *
 * Then the tenant boundary class by class (docs/security.md), generated from tables on a store of
 * its own: for every way an identifier enters (a document's id, alone and in batches; every field
 * only the platform writes; idempotency keys in and out of the platform's `budcore:` namespace;
 * every spelling of A's secret names) B tries A's identifiers and a fresh one: each is refused
 * with the expected code and field, the refusal for A's identifier is the fresh one's once the
 * identifier is replaced, A's objects are untouched and A's pipeline step still takes its own key;
 * B's event and audit numbers are 1, 2, ... with a chain of its own. Last, audit verification
 * with anchors (a platform admin under RBAC): a fake anchor breaks it, a real head keeps it. */
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
static int store_uri(char *uri, size_t cap, const char *kind, const char *dir, const char *name) {
  const char *file = getenv("BUDCORE_PG_URI_FILE");
  char cmd[1400], state[1024];
  FILE *f;
  int rc;
  if (strcmp(kind, "sqlite") == 0) {
    snprintf(uri, cap, "sqlite://%s/%s.db", dir, name);
    return 0;
  }
  if (file == NULL || strlen(file) >= sizeof state || strrchr(file, '/') == NULL) return 77;
  snprintf(state, sizeof state, "%s", file);
  *strrchr(state, '/') = '\0';
  snprintf(cmd, sizeof cmd, "bash '%s' schema '%s' capi_iso_%ld_%s", BUDCORE_PG_FIXTURE, state, (long)getpid(), name);
  f = popen(cmd, "r");
  if (f == NULL || fgets(uri, (int)cap, f) == NULL) uri[0] = '\0';
  rc = f == NULL ? -1 : pclose(f);
  if (rc != -1 && WEXITSTATUS(rc) == 3) return 77; /* no PostgreSQL installed */
  uri[strcspn(uri, "\n")] = '\0';
  return rc == 0 && uri[0] != '\0' ? 0 : 1;
}

/* ---- The tenant boundary, class by class, generated from tables ---------------------------- */

#define FRESH "00000000-0000-4000-8000-00000000f00d"
#define FIELDS "\"name\": \"b-claims\", \"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_count\": 0, " \
               "\"estimated_duration_seconds\": 600"
#define TRAIN_STEP                                                                                              \
  "{\"id\": \"train\", \"name\": \"train\", \"step_type\": \"JOB\", \"depends_on\": [\"wait\"], \"config\": {" \
  "\"job_type\": \"BATCH\", \"deployment_type\": \"DOCKER\", \"gpu_type\": \"nvidia-a100-80gb\", \"gpu_count\": 1," \
  " \"estimated_duration_seconds\": 600, \"sim\": {\"outputs\": {\"model_url\": \"s3://a/model\"}}}}"
static const char kTrain[] =
    "{\"pipeline\": {\"id\": \"p\", \"name\": \"a-train-pipe\"}, \"steps\": ["
    " {\"id\": \"wait\", \"name\": \"wait\", \"step_type\": \"WAIT\", \"depends_on\": [], \"config\": {\"duration_seconds\": 600}},"
    " " TRAIN_STEP "]}";

/* A way an identifier enters a submitted document ('@' stands for the identifier) and the field
 * the refusal names. A document without `source` has it read from its pipeline_id or
 * usecase_deployment_id, and a step without its pipeline fails the document's own checks, so the
 * bare spellings name `source` or `pipeline_id`. */
struct way {
  const char *doc;
  const char *field;
};
static const struct way kWays[] = {
    {"{" FIELDS ", \"id\": \"@\"}", "id"},
    {"{\"jobs\": [{" FIELDS ", \"id\": \"@\"}, {" FIELDS "}]}", "jobs[0].id"},
    {"{\"jobs\": [{" FIELDS "}, {" FIELDS "}, {\"job\": {" FIELDS ", \"id\": \"@\"}, \"idempotency_key\": \"k\"}]}",
     "jobs[2].id"},
    {"[{" FIELDS "}, {" FIELDS ", \"id\": \"@\"}]", "jobs[1].id"},
    {"{" FIELDS ", \"source\": \"direct\", \"pipeline_id\": \"@\"}", "pipeline_id"},
    {"{" FIELDS ", \"source\": \"direct\", \"pipeline_id\": \"@\", \"pipeline_step_id\": \"@\"}", "pipeline_id"},
    {"{" FIELDS ", \"source\": \"direct\", \"usecase_deployment_id\": \"@\"}", "usecase_deployment_id"},
    {"{" FIELDS ", \"source\": \"pipeline\", \"pipeline_id\": \"@\"}", "source"},
    {"{" FIELDS ", \"source\": \"pipeline\", \"pipeline_id\": \"@\", \"pipeline_step_id\": \"@\", \"source_id\": \"@\"}",
     "source"},
    {"{" FIELDS ", \"source\": \"usecase\", \"usecase_deployment_id\": \"@\", \"source_id\": \"@\"}", "source"},
    {"{" FIELDS ", \"source_id\": \"@\"}", "source_id"},
    {"{" FIELDS ", \"pipeline_id\": \"@\"}", "source"},
    {"{" FIELDS ", \"usecase_deployment_id\": \"@\"}", "source"},
    {"{" FIELDS ", \"pipeline_step_id\": \"@\"}", "pipeline_id"},
    {"{" FIELDS ", \"outputs\": {\"model_url\": \"s3://@\"}}", "outputs"},
    {"{" FIELDS ", \"actual_cost\": \"12.50\"}", "actual_cost"},
    {"{\"jobs\": [{" FIELDS "}, {" FIELDS ", \"source\": \"direct\", \"pipeline_id\": \"@\"}]}", "jobs[1].pipeline_id"},
    {"{\"jobs\": [{" FIELDS "}, {" FIELDS ", \"outputs\": {\"@\": 1}}]}", "jobs[1].outputs"},
};

/* Every spelling of the key A's pipeline step will use ('@': A's run id), and A's own key. */
static const char *const kKeys[] = {"@/train/1",
                                    "budcore:pipeline/@/train/1",
                                    "budcore:@/train/1",
                                    "budcore:pipeline/@/train/2",
                                    "BUDCORE:pipeline/@/train/1",
                                    " budcore:pipeline/@/train/1",
                                    "Budcore:pipeline/@/train/1",
                                    "budcore:",
                                    "budcore:pipeline/",
                                    "a-key"};

/* `fmt` with every '@' replaced by `ident`. */
static void subst(char *dst, size_t cap, const char *fmt, const char *ident) {
  size_t used = 0, n = strlen(ident);
  for (; *fmt != '\0' && used + n + 1 < cap; ++fmt) {
    if (*fmt == '@') {
      memcpy(dst + used, ident, n);
      used += n;
    } else {
      dst[used++] = *fmt;
    }
  }
  dst[used] = '\0';
  CHECK(*fmt == '\0'); /* it fit */
}

/* Submits as `who`; returns the code and, when refused, what the refusal says with `blind`
 * replaced by <id> ("message|field|value", prefixed by the code). */
static int attempt(budcore_platform *p, const budcore_caller *who, const char *doc, const char *key, const char *blind,
                   char *refusal, size_t cap) {
  budcore_buf out = BUDCORE_BUF_INIT;
  char text[2200];
  int rc = budcore_platform_submit(&out, p, who, S(doc), key, key != NULL ? strlen(key) : 0);
  refusal[0] = '\0';
  if (rc == BUDCORE_OK) {
    budcore_buf_dispose(&out);
    return rc;
  }
  CHECK(out.ptr == NULL);
  said(text, sizeof text, blind);
  snprintf(refusal, cap, "%d|%s", rc, text);
  return rc;
}

/* A copy of what a call wrote (an empty string when it failed). */
static char *copy_of(int rc, budcore_buf *out) {
  const char *text = rc == BUDCORE_OK && out->ptr != NULL ? out->ptr : "";
  char *c = malloc(strlen(text) + 1);
  if (c != NULL) strcpy(c, text);
  budcore_buf_dispose(out);
  return c;
}

/* What tenant A holds, as the calls write it: its job, its list, its run, its deployment. */
static char *a_holds(budcore_platform *p, const budcore_caller *a, const char *job, const char *run, const char *dep) {
  budcore_buf out = BUDCORE_BUF_INIT;
  char *parts[4], *all;
  size_t n = 1;
  int i;
  parts[0] = copy_of(budcore_platform_get(&out, p, a, S(job)), &out);
  parts[1] = copy_of(budcore_platform_list(&out, p, a, NULL, 0), &out);
  parts[2] = copy_of(budcore_platform_pipeline_run(&out, p, a, S(run)), &out);
  parts[3] = copy_of(budcore_platform_deployment(&out, p, a, S(dep)), &out);
  for (i = 0; i < 4; ++i) n += parts[i] != NULL ? strlen(parts[i]) + 1 : 0;
  all = malloc(n);
  if (all != NULL) all[0] = '\0';
  for (i = 0; i < 4; ++i) {
    CHECK(parts[i] != NULL && parts[i][0] != '\0');
    if (all != NULL && parts[i] != NULL) {
      strcat(all, parts[i]);
      strcat(all, "\n");
    }
    free(parts[i]);
  }
  return all;
}

/* Events are delivered one by one: each must be the next number. */
struct numbering {
  long next;
  int gaps;
};
static int next_event(const char *event, size_t len, void *payload) {
  struct numbering *n = payload;
  char want[40];
  (void)len;
  snprintf(want, sizeof want, "{\"seq\":%ld,", n->next++);
  if (strncmp(event, want, strlen(want)) != 0) {
    fprintf(stderr, "event out of order (want %s): %.120s\n", want, event);
    ++n->gaps;
  }
  return 0;
}

/* Checks a tenant's audit page: seq 1, 2, ... (returns how many), the first prev_hash 64 zeros,
 * each prev_hash the hash before it. */
static long audit_chain(const char *page) {
  static const char zeros[] = "0000000000000000000000000000000000000000000000000000000000000000";
  char want[40], hash[65] = "";
  const char *at = page;
  long n = 0;
  for (;;) {
    const char *prev, *own;
    snprintf(want, sizeof want, "{\"seq\":%ld,", n + 1);
    at = strstr(at, "{\"seq\":");
    if (at == NULL) break;
    CHECK(strncmp(at, want, strlen(want)) == 0);
    prev = strstr(at, "\"prev_hash\":\"");
    own = strstr(at, "\"hash\":\"");
    CHECK(prev != NULL && own != NULL);
    if (prev == NULL || own == NULL) break;
    CHECK(strncmp(prev + 13, n == 0 ? zeros : hash, 64) == 0);
    memcpy(hash, own + 8, 64);
    hash[64] = '\0';
    at = own;
    ++n;
  }
  return n;
}

static void boundary(const char *kind, const char *dir) {
  char uri[1024], config[2400], files[1100], path[1300], var[200], a_hex[33];
  char job_id[37], run_id[37], dep_id[37], doc[4096], key[400], ref[200], spec[600];
  char on_fresh[2400], on_a[2400], by_a[2400];
  const char *a_ids[3];
  char *before, *after;
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_caller a = {BUDCORE_CALLER_VERSION, S(TENANT_A), S("user:alice"), S("req-a")};
  budcore_caller b = {BUDCORE_CALLER_VERSION, S(TENANT_B), S("user:bob"), S("req-b")};
  long b_writes = 0;
  size_t i, j, k, n;
  int rc;
  FILE *f;

  if (store_uri(uri, sizeof uri, kind, dir, "boundary") != 0) {
    CHECK(!"a store for the boundary");
    return;
  }
  /* A's secrets: an env variable and a file of its namespace; the platform's own variables, one
   * of them shared. */
  for (i = 0, n = 0; TENANT_A[i] != '\0'; ++i)
    if (TENANT_A[i] != '-') a_hex[n++] = (char)(TENANT_A[i] >= 'a' && TENANT_A[i] <= 'f' ? TENANT_A[i] - 32 : TENANT_A[i]);
  a_hex[n] = '\0';
  CHECK(n == 32);
  snprintf(files, sizeof files, "%s/secrets", dir);
  snprintf(path, sizeof path, "mkdir -p '%s/%s'", files, TENANT_A);
  CHECK(system(path) == 0);
  snprintf(path, sizeof path, "%s/%s/db-pass", files, TENANT_A);
  f = fopen(path, "w");
  CHECK(f != NULL);
  if (f != NULL) {
    fputs("a-file-secret-2f9c41", f);
    fclose(f);
  }
  snprintf(var, sizeof var, "BUDCORE_SECRET_%s_API_TOKEN", a_hex);
  CHECK(setenv(var, "a-env-secret-77b1e0", 1) == 0);
  CHECK(setenv("BUDCORE_SECRET_API_TOKEN", "platform-secret-5d0a93", 1) == 0); /* the platform's, not shared */
  CHECK(setenv("BUDCORE_SECRET_SHARED_HOOK", "platform-secret-5d0a93", 1) == 0); /* the platform's, shared */
  snprintf(config, sizeof config,
           "store: '%s'\nsecurity:\n  secrets: [env, {file: '%s'}]\n  shared_secrets: [shared-hook]\n", uri, files);
  CHECK(budcore_platform_open(&p, S(config)) == BUDCORE_OK);
  if (p == NULL) return;

  /* Tenant A: a running job under a key of its own, a run whose JOB step will take the key
   * budcore:pipeline/<run>/train/1, a deployment. */
  CHECK(budcore_platform_submit(&out, p, &a, S("{\"name\": \"a-running\", \"job_type\": \"BATCH\", \"deployment_type\":"
                                               " \"DOCKER\", \"gpu_count\": 0, \"estimated_duration_seconds\": 7200}"),
                                S("a-key")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && find_id(out.ptr, "\"id\":", job_id));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_run_pipeline(&out, p, &a, S(kTrain), NULL, 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && find_id(out.ptr, "\"id\":", run_id));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_deploy_usecase(&out, p, &a, S("simple-chatbot-v1"), S(kChatbot)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && find_id(out.ptr, "\"id\":", dep_id));
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_run(&out, p, 30) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_submit(&out, p, &a, S("{\"name\": \"a-env\", \"job_type\": \"BATCH\", \"deployment_type\":"
                                               " \"DOCKER\", \"gpu_count\": 0, \"spec\": {\"env\": {\"T\": "
                                               "\"secret://api-token\", \"P\": \"secret://db-pass\"}}}"),
                                NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  before = a_holds(p, &a, job_id, run_id, dep_id);
  CHECK(before != NULL && strstr(before, "\"status\":\"running\"") != NULL);
  a_ids[0] = job_id;
  a_ids[1] = run_id;
  a_ids[2] = dep_id;

  /* Class 1 and 2: every way in, with each of A's ids and a fresh one. */
  for (i = 0; i < sizeof kWays / sizeof kWays[0]; ++i) {
    subst(doc, sizeof doc, kWays[i].doc, FRESH);
    rc = attempt(p, &b, doc, NULL, FRESH, on_fresh, sizeof on_fresh);
    if (rc != BUDCORE_EINVALID || strcmp(budcore_error_last()->field, kWays[i].field) != 0) {
      fprintf(stderr, "way %lu (%s): %s\n", (unsigned long)i, kWays[i].field, on_fresh);
      ++failures;
    }
    if (strcmp(kWays[i].field, "id") == 0) {
      snprintf(on_a, sizeof on_a, "%d|is assigned by the platform: submit without an id (an idempotency key makes a "
               "submit safe to repeat)|id|<id>", BUDCORE_EINVALID);
      CHECK(strcmp(on_fresh, on_a) == 0);
    }
    /* Nobody writes these, A included. */
    attempt(p, &a, doc, NULL, FRESH, by_a, sizeof by_a);
    CHECK(strcmp(by_a, on_fresh) == 0);
    for (j = 0; j < 3; ++j) {
      subst(doc, sizeof doc, kWays[i].doc, a_ids[j]);
      attempt(p, &b, doc, NULL, a_ids[j], on_a, sizeof on_a);
      if (strcmp(on_a, on_fresh) != 0) {
        fprintf(stderr, "way %lu with A's id %lu: '%s' vs '%s'\n", (unsigned long)i, (unsigned long)j, on_a, on_fresh);
        ++failures;
      }
    }
  }

  /* Idempotency keys: the platform's namespace is refused alike for A's run and a fresh one (and
   * for A); any other key is B's own, in B's tenant. */
  for (i = 0; i < sizeof kKeys / sizeof kKeys[0]; ++i) {
    const char *idents[2] = {run_id, FRESH};
    char first[400] = "";
    if (strncmp(kKeys[i], "budcore:", 8) == 0) {
      subst(key, sizeof key, kKeys[i], FRESH);
      rc = attempt(p, &b, "{" FIELDS "}", key, FRESH, on_fresh, sizeof on_fresh);
      CHECK(rc == BUDCORE_EINVALID && strcmp(budcore_error_last()->field, "idempotency_key") == 0);
      CHECK(strstr(on_fresh, "keys starting with 'budcore:' are the platform's own") != NULL);
      subst(key, sizeof key, kKeys[i], run_id);
      attempt(p, &b, "{" FIELDS "}", key, run_id, on_a, sizeof on_a);
      attempt(p, &a, "{" FIELDS "}", key, run_id, by_a, sizeof by_a);
      if (strcmp(on_a, on_fresh) != 0 || strcmp(by_a, on_fresh) != 0) {
        fprintf(stderr, "key %s: '%s' / '%s' vs '%s'\n", kKeys[i], on_a, by_a, on_fresh);
        ++failures;
      }
      continue;
    }
    for (j = 0; j < 2; ++j) {
      subst(key, sizeof key, kKeys[i], idents[j]);
      if (strcmp(key, first) == 0) continue; /* "a-key" holds no id: once */
      snprintf(first, sizeof first, "%s", key);
      CHECK(budcore_platform_submit(&out, p, &b, S("{" FIELDS "}"), S(key)) == BUDCORE_OK);
      CHECK(out.ptr != NULL && strstr(out.ptr, "\"created\":true") != NULL && strstr(out.ptr, TENANT_B) != NULL);
      CHECK(out.ptr != NULL && strstr(out.ptr, TENANT_A) == NULL);
      {
        char made[37] = "";
        const char *rec = out.ptr != NULL ? strstr(out.ptr, "\"job\":") : NULL;
        CHECK(rec != NULL && find_id(rec, "\"id\":", made));
        for (k = 0; k < 3; ++k) CHECK(strcmp(made, a_ids[k]) != 0);
      }
      budcore_buf_dispose(&out);
      ++b_writes;
    }
  }

  /* Class 3: every spelling of A's secret names is B's not-found, the one any name gets; the
   * shared name falls back to the platform's. */
  CHECK(budcore_platform_submit(&out, p, &b, S("{" FIELDS ", \"spec\": {\"env\": {\"H\": \"secret://shared-hook\"}}}"),
                                NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  ++b_writes;
  rc = attempt(p, &b, "{" FIELDS ", \"spec\": {\"env\": {\"TOKEN\": \"secret://no-such-secret\"}}}", NULL,
               "secret://no-such-secret", on_fresh, sizeof on_fresh);
  CHECK(rc == BUDCORE_ENOTFOUND && strcmp(budcore_error_last()->field, "spec.env.TOKEN") == 0);
  {
    const char *forms[4] = {TENANT_A, "000000000000400080000000000000a1", NULL, "00000000-0000-4000-8000-0000000000A1"};
    const char *names[5] = {"api-token", "API_TOKEN", "api.token", "api_token", "db-pass"};
    const char *seps = "_-.";
    const char *plain[9] = {"api-token", "API_TOKEN", "api_token", "db-pass", TENANT_A, "..", ".",
                            "BUDCORE_SECRET_API_TOKEN", "SHARED_HOOK"};
    size_t spellings = 0;
    forms[2] = a_hex;
    for (i = 0; i < 9 + 3 + 4 * 3 * 5; ++i) { /* the plain names, A's hex, then form x separator x name */
      if (i < 9) {
        snprintf(ref, sizeof ref, "%s", plain[i]);
      } else if (i < 12) {
        snprintf(ref, sizeof ref, i == 9 ? "%s" : i == 10 ? "BUDCORE_SECRET_%s_API_TOKEN" : "BUDCORE_SECRET_%s_api-token",
                 a_hex);
      } else {
        k = i - 12;
        snprintf(ref, sizeof ref, "%s%c%s", forms[k / 15], seps[(k / 5) % 3], names[k % 5]);
      }
      snprintf(spec, sizeof spec, "{" FIELDS ", \"spec\": {\"env\": {\"TOKEN\": \"secret://%s\"}}}", ref);
      snprintf(key, sizeof key, "secret://%s", ref);
      attempt(p, &b, spec, NULL, key, on_a, sizeof on_a);
      if (strcmp(on_a, on_fresh) != 0 || strstr(on_a, files) != NULL ||
          (strstr(ref, "BUDCORE_SECRET") == NULL && strstr(on_a, "BUDCORE_SECRET") != NULL)) {
        fprintf(stderr, "secret://%s: '%s' vs '%s'\n", ref, on_a, on_fresh);
        ++failures;
      }
      ++spellings;
    }
    CHECK(spellings == 72);
  }

  /* A holds what it held, byte for byte. */
  after = a_holds(p, &a, job_id, run_id, dep_id);
  CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
  free(after);
  free(before);
  /* A's step takes the platform's key in A's tenant, and completes with A's outputs. */
  CHECK(budcore_platform_run(&out, p, 3 * 3600) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_pipeline_run(&out, p, &a, S(run_id)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"status\":\"completed\"") != NULL && strstr(out.ptr, "s3://a/model") != NULL);
  budcore_buf_dispose(&out);
  snprintf(doc, sizeof doc, "{\"pipeline_id\": \"%s\"}", run_id);
  snprintf(key, sizeof key, "\"idempotency_key\":\"budcore:pipeline/%s/train/1\"", run_id);
  CHECK(budcore_platform_list(&out, p, &a, S(doc)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, key) != NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_list(&out, p, &b, S(doc)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"items\":[]") != NULL);
  budcore_buf_dispose(&out);

  /* Class 6: B's numbers count B's own: events 1, 2, ... and an audit chain of B's writes only,
   * from 64 zeros; A's chain starts from zeros too. */
  {
    struct numbering events = {1, 0};
    int64_t last = 0;
    CHECK(budcore_platform_watch(&last, p, &b, 0, 10000, next_event, &events) == BUDCORE_OK);
    CHECK(events.gaps == 0 && events.next > 1 && last == events.next - 1);
  }
  CHECK(budcore_platform_audit(&out, p, &b, S("{\"limit\": 1000}")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && audit_chain(out.ptr) == b_writes);
  CHECK(out.ptr != NULL && strstr(out.ptr, TENANT_A) == NULL && strstr(out.ptr, job_id) == NULL);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_audit(&out, p, &a, S("{\"limit\": 1000}")) == BUDCORE_OK);
  CHECK(out.ptr != NULL && audit_chain(out.ptr) >= 4); /* A's calls and its runs' step jobs */
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_check(p) == BUDCORE_OK);
  budcore_platform_free(p);
  unsetenv(var);
  unsetenv("BUDCORE_SECRET_API_TOKEN");
  unsetenv("BUDCORE_SECRET_SHARED_HOOK");
}

/* Audit verification with anchors, by a platform admin under RBAC: the report's own heads and
 * any chained entry keep it ok; a fake anchor (64 'f') makes it a problem; a principal without the
 * role is refused. */
static void audit_anchors(const char *kind, const char *dir) {
  static const char fake[] = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
  char uri[1024], config[1400], head[65] = "", anchors[300];
  const char *at;
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT;
  budcore_caller root = {BUDCORE_CALLER_VERSION, S(TENANT_A), S("user:root"), S("req-root")};
  budcore_caller root_b = {BUDCORE_CALLER_VERSION, S(TENANT_B), S("user:root"), S("req-root")};
  budcore_caller erin = {BUDCORE_CALLER_VERSION, S(TENANT_A), S("user:erin"), S("req-erin")};

  if (store_uri(uri, sizeof uri, kind, dir, "anchors") != 0) {
    CHECK(!"a store for the anchors");
    return;
  }
  snprintf(config, sizeof config, "store: '%s'\nsecurity:\n  rbac: true\n  platform_admins: ['user:root']\n", uri);
  CHECK(budcore_platform_open(&p, S(config)) == BUDCORE_OK);
  if (p == NULL) return;
  CHECK(budcore_platform_submit(&out, p, &root, S(kJobB), NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_submit(&out, p, &root_b, S(kJobB), NULL, 0) == BUDCORE_OK);
  budcore_buf_dispose(&out);

  CHECK(budcore_platform_audit_verify_anchored(&out, p, &root, NULL, 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"ok\":true") != NULL && strstr(out.ptr, "\"problems\":[]") != NULL);
  at = out.ptr != NULL ? strstr(out.ptr, "\"heads\":[") : NULL;
  at = at != NULL ? strstr(at, "\"hash\":\"") : NULL;
  CHECK(at != NULL && strlen(at) > 8 + 64);
  if (at != NULL && strlen(at) > 8 + 64) memcpy(head, at + 8, 64);
  budcore_buf_dispose(&out);

  snprintf(anchors, sizeof anchors, "[\"%s\"]", head);
  CHECK(budcore_platform_audit_verify_anchored(&out, p, &root, S(anchors)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"ok\":true") != NULL && strstr(out.ptr, "\"problems\":[]") != NULL);
  budcore_buf_dispose(&out);
  snprintf(anchors, sizeof anchors, "[\"%s\"]", fake);
  CHECK(budcore_platform_audit_verify_anchored(&out, p, &root, S(anchors)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"ok\":false") != NULL);
  CHECK(out.ptr != NULL && (at = strstr(out.ptr, "\"problems\":[")) != NULL && strstr(at, fake) != NULL);
  budcore_buf_dispose(&out);
  snprintf(anchors, sizeof anchors, "[\"%s\", \"%s\"]", head, fake);
  CHECK(budcore_platform_audit_verify_anchored(&out, p, &root, S(anchors)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"ok\":false") != NULL);
  CHECK(out.ptr != NULL && (at = strstr(out.ptr, "\"problems\":[")) != NULL && strstr(at, fake) != NULL &&
        strstr(at, head) == NULL); /* the real head is no problem */
  budcore_buf_dispose(&out);
  CHECK(budcore_platform_audit_verify_anchored(&out, p, &root, S("[\"not a hash\"")) == BUDCORE_EINVALID);
  CHECK(budcore_platform_audit_verify_anchored(&out, p, &erin, S(anchors)) == BUDCORE_ESECURITY);
  CHECK(out.ptr == NULL);
  budcore_platform_free(p);
}

int main(int argc, char **argv) {
  char dir[] = "/tmp/budcore-capi-isolation-XXXXXX";
  char uri[1024], config[1200], job_id[37], run_id[37], dep_id[37], before[8192], on_a[2200], on_none[2200];
  budcore_platform *p = NULL;
  budcore_buf out = BUDCORE_BUF_INIT, seen = BUDCORE_BUF_INIT;
  budcore_caller a = {BUDCORE_CALLER_VERSION, S(TENANT_A), S("user:alice"), S("req x'); DROP TABLE audit_log; --")};
  budcore_caller b = {BUDCORE_CALLER_VERSION, S(TENANT_B), S("user:bob"), S("req-b")};
  const char *ids[PROBES];
  int i, rc;

  if (argc != 2) {
    fprintf(stderr, "usage: %s sqlite|postgres\n", argv[0]);
    return 2;
  }
  CHECK(mkdtemp(dir) != NULL);
  rc = store_uri(uri, sizeof uri, argv[1], dir, "matrix");
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
    /* The cluster as B sees it: A's runs are there, hidden; the operator's view names them. */
    CHECK(budcore_platform_cluster_view(&out, p, &b) == BUDCORE_OK);
    CHECK(out.ptr != NULL && strstr(out.ptr, "[hidden ") != NULL);
    strncat(all, out.ptr != NULL ? out.ptr : "", sizeof all - strlen(all) - 1);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_cluster(&out, p) == BUDCORE_OK);
    CHECK(out.ptr != NULL && strstr(out.ptr, job_id) != NULL);
    budcore_buf_dispose(&out);
    CHECK(budcore_platform_cluster_view(&out, p, &a) == BUDCORE_OK);
    CHECK(out.ptr != NULL && strstr(out.ptr, job_id) != NULL);
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
  boundary(argv[1], dir);
  audit_anchors(argv[1], dir);
  CHECK(remove_tree(dir));
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("capi isolation (%s): ok\n", argv[1]);
  return failures != 0;
}
