/* The GPU trace replay and the serverless simulation from C: results read back from the JSON,
 * the options, and the error path of each input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budcore/budcore.h"
#include "check.h"

/* The whole file as a malloc'd NUL-terminated string (NULL when it cannot be read). */
static char *slurp(const char *name, size_t *len) {
  char path[1024];
  FILE *f;
  char *text;
  long n;
  snprintf(path, sizeof path, "%s/%s", BUDCORE_TEST_DATA, name);
  f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = malloc((size_t)n + 1);
  if (text != NULL && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  if (text != NULL) text[n] = '\0';
  fclose(f);
  *len = (size_t)n;
  return text;
}

/* How often `needle` occurs in `hay`. */
static int count(const char *hay, const char *needle) {
  int n = 0;
  const char *p = hay;
  while ((p = strstr(p, needle)) != NULL) {
    ++n;
    p += strlen(needle);
  }
  return n;
}

/* The integer after "key": in json (-1 when absent). */
static long number_after(const char *json, const char *key) {
  const char *p = strstr(json, key);
  if (p == NULL) return -1;
  return strtol(p + strlen(key), NULL, 10);
}

static int error_is(int status, int want, const char *field) {
  return status == want && strcmp(budcore_error_last()->field, field) == 0;
}

static void gpu(void) {
  size_t nodes_len = 0, pods_len = 0, bad_len = 0;
  char *nodes = slurp("gpu/nodes.csv", &nodes_len);
  char *pods = slurp("gpu/pods.csv", &pods_len);
  budcore_buf out = BUDCORE_BUF_INIT, again = BUDCORE_BUF_INIT;
  const char *opts = "{\"policies\": [\"fgd\", \"best_fit\"], \"seed\": 7, \"max_load\": 0.5, \"step\": 0.1}";
  CHECK(nodes != NULL && pods != NULL);
  if (nodes == NULL || pods == NULL) return;

  CHECK(budcore_gpu_replay(&out, nodes, nodes_len, pods, pods_len, opts, strlen(opts)) == BUDCORE_OK);
  CHECK(out.ptr != NULL);
  if (out.ptr != NULL) {
    /* 4 nodes with 2 + 2 + 4 + 8 GPUs, 6 pods; two policies in the order given, 5 points each. */
    CHECK(number_after(out.ptr, "\"nodes\":") == 4);
    CHECK(number_after(out.ptr, "\"gpus\":") == 16);
    CHECK(number_after(out.ptr, "\"tasks\":") == 6);
    CHECK(number_after(out.ptr, "\"seed\":") == 7);
    CHECK(strstr(out.ptr, "\"policy\":\"fgd\"") != NULL && strstr(out.ptr, "\"policy\":\"best_fit\"") != NULL);
    CHECK(strstr(out.ptr, "\"policy\":\"fgd\"") < strstr(out.ptr, "\"policy\":\"best_fit\""));
    CHECK(count(out.ptr, "\"arrived_load\":") == 10);
  }
  /* The same seed draws the same tasks: the same document again. */
  CHECK(budcore_gpu_replay(&again, nodes, nodes_len, pods, pods_len, opts, strlen(opts)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && again.ptr != NULL && strcmp(out.ptr, again.ptr) == 0);
  budcore_buf_dispose(&again);
  /* A buffer that still holds text is refused. */
  CHECK(error_is(budcore_gpu_replay(&out, nodes, nodes_len, pods, pods_len, NULL, 0), BUDCORE_EINVALID, "out"));
  budcore_buf_dispose(&out);

  /* No options: every policy. */
  CHECK(budcore_gpu_replay(&out, nodes, nodes_len, pods, pods_len, NULL, 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && count(out.ptr, "\"policy\":") >= 3 && strstr(out.ptr, "\"policy\":\"fgd\"") != NULL);
  budcore_buf_dispose(&out);

  {
    const char *unknown = "{\"policies\": \"fgd,nope\"}";
    const char *typo = "{\"sed\": 3}";
    const char *seed = "{\"seed\": -1}";
    const char *step = "{\"max_load\": 0.5, \"step\": 0.9}";
    CHECK(error_is(budcore_gpu_replay(&out, nodes, nodes_len, pods, pods_len, unknown, strlen(unknown)), BUDCORE_EINVALID,
                   "options.policies"));
    CHECK(strcmp(budcore_error_last()->value, "nope") == 0);
    CHECK(error_is(budcore_gpu_replay(&out, nodes, nodes_len, pods, pods_len, typo, strlen(typo)), BUDCORE_EINVALID,
                   "options.sed"));
    CHECK(strstr(budcore_error_last()->message, "did you mean 'seed'") != NULL);
    CHECK(error_is(budcore_gpu_replay(&out, nodes, nodes_len, pods, pods_len, seed, strlen(seed)), BUDCORE_EINVALID,
                   "options.seed"));
    CHECK(error_is(budcore_gpu_replay(&out, nodes, nodes_len, pods, pods_len, step, strlen(step)), BUDCORE_EINVALID,
                   "options.step"));
    CHECK(out.ptr == NULL);
  }
  {
    char *bad = slurp("gpu/nodes_negative_gpus.csv", &bad_len);
    CHECK(bad != NULL);
    if (bad != NULL) {
      CHECK(budcore_gpu_replay(&out, bad, bad_len, pods, pods_len, NULL, 0) == BUDCORE_EINVALID);
      CHECK(strcmp(budcore_error_last()->field, "nodes_csv:2.gpu") == 0);
      free(bad);
    }
    bad = slurp("gpu/pods_bad_number.csv", &bad_len);
    CHECK(bad != NULL);
    if (bad != NULL) {
      CHECK(budcore_gpu_replay(&out, nodes, nodes_len, bad, bad_len, NULL, 0) == BUDCORE_EINVALID);
      CHECK(strcmp(budcore_error_last()->field, "pods_csv:3.cpu_milli") == 0);
      free(bad);
    }
    CHECK(out.ptr == NULL);
  }
  free(nodes);
  free(pods);
}

static void serverless(void) {
  size_t endpoint_len = 0, trace_len = 0;
  char *endpoint = slurp("serverless/endpoint.yaml", &endpoint_len);
  char *trace = slurp("serverless/trace_small.csv", &trace_len);
  budcore_buf out = BUDCORE_BUF_INIT;
  const char *opts = "{\"policies\": [\"kpa\", \"budget\"]}";
  CHECK(endpoint != NULL && trace != NULL);
  if (endpoint == NULL || trace == NULL) return;

  CHECK(budcore_serverless_simulate(&out, endpoint, endpoint_len, trace, trace_len, opts, strlen(opts)) == BUDCORE_OK);
  CHECK(out.ptr != NULL);
  if (out.ptr != NULL) {
    /* 10 trace lines, one report per policy in the order given. */
    CHECK(count(out.ptr, "\"endpoint\":\"chat\"") == 2);
    CHECK(strstr(out.ptr, "\"policy\":\"kpa\"") != NULL && strstr(out.ptr, "\"policy\":\"budget\"") != NULL);
    CHECK(strstr(out.ptr, "\"policy\":\"kpa\"") < strstr(out.ptr, "\"policy\":\"budget\""));
    CHECK(number_after(out.ptr, "\"requests\":") == 10);
    CHECK(number_after(out.ptr, "\"admitted\":") <= 10);
  }
  budcore_buf_dispose(&out);

  /* Run on until the pool is down to zero: the last change of the pool leaves no worker. */
  {
    const char *down = "{\"until_scaled_down\": true}";
    const char *not_bool = "{\"until_scaled_down\": \"yes\"}";
    CHECK(budcore_serverless_simulate(&out, endpoint, endpoint_len, trace, trace_len, down, strlen(down)) == BUDCORE_OK);
    CHECK(out.ptr != NULL && number_after(out.ptr, "\"virtual_seconds\":") == 214);
    CHECK(out.ptr != NULL && strstr(out.ptr, "{\"at_seconds\":214.0,\"workers\":0,\"ready\":0,\"busy\":0,\"pending\":0}]") != NULL);
    budcore_buf_dispose(&out);
    CHECK(error_is(budcore_serverless_simulate(&out, endpoint, endpoint_len, trace, trace_len, not_bool, strlen(not_bool)),
                   BUDCORE_EINVALID, "options.until_scaled_down"));
  }

  /* No options: queue_depth alone. */
  CHECK(budcore_serverless_simulate(&out, endpoint, endpoint_len, trace, trace_len, NULL, 0) == BUDCORE_OK);
  CHECK(out.ptr != NULL && count(out.ptr, "\"policy\":") == 1 && strstr(out.ptr, "\"policy\":\"queue_depth\"") != NULL);
  budcore_buf_dispose(&out);

  {
    const char *unknown = "{\"policies\": \"kpa,nope\"}";
    const char *typo = "{\"policy\": \"kpa\"}";
    const char *bad_trace = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:00:00.0000000,lots,10\n";
    const char *bad_endpoint = "{\"name\": \"chat\"}";
    CHECK(error_is(budcore_serverless_simulate(&out, endpoint, endpoint_len, trace, trace_len, unknown, strlen(unknown)),
                   BUDCORE_EINVALID, "options.policies"));
    CHECK(strstr(budcore_error_last()->message, "nope") != NULL || strcmp(budcore_error_last()->value, "nope") == 0);
    CHECK(error_is(budcore_serverless_simulate(&out, endpoint, endpoint_len, trace, trace_len, typo, strlen(typo)),
                   BUDCORE_EINVALID, "options.policy"));
    CHECK(budcore_serverless_simulate(&out, endpoint, endpoint_len, bad_trace, strlen(bad_trace), NULL, 0) ==
          BUDCORE_EINVALID);
    CHECK(strncmp(budcore_error_last()->field, "trace_csv:2", 11) == 0);
    CHECK(budcore_serverless_simulate(&out, bad_endpoint, strlen(bad_endpoint), trace, trace_len, NULL, 0) ==
          BUDCORE_EINVALID);
    CHECK(budcore_error_last()->field[0] != '\0');
    CHECK(out.ptr == NULL);
  }
  free(endpoint);
  free(trace);
}

/* A defragmentation plan: w1 and w2 move off n0 for the 4-GPU gang, 1 x (100 + 60) + 1 x (500 +
 * 60) = 720 GPU-seconds; applied on request; a GPU index the node lacks names the field. */
static void defrag(void) {
  size_t len = 0;
  char *problem = slurp("gpu/defrag_gang.json", &len);
  CHECK(problem != NULL);
  if (problem == NULL) return;
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(budcore_gpu_defrag(&out, problem, len) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"kind\":\"move\"") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"cost_gpu_seconds\":720") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"applied\":false") != NULL);
  budcore_buf_dispose(&out);
  const char *apply = "{\"nodes\": [{\"name\": \"n0\", \"model\": \"T4\", \"gpus\": 2}],"
                      " \"workloads\": [{\"name\": \"a\", \"node\": \"n0\", \"gpus\": [0], \"ends_in_seconds\": 30}],"
                      " \"request\": {\"num_gpu\": 2}, \"apply\": true}";
  CHECK(budcore_gpu_defrag(&out, apply, strlen(apply)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"kind\":\"wait\"") != NULL && strstr(out.ptr, "\"applied\":true") != NULL);
  budcore_buf_dispose(&out);
  const char *bad = "{\"nodes\": [{\"name\": \"n0\", \"model\": \"T4\", \"gpus\": 1}],"
                    " \"workloads\": [{\"name\": \"a\", \"node\": \"n0\", \"gpus\": [3]}], \"request\": {\"num_gpu\": 1}}";
  CHECK(error_is(budcore_gpu_defrag(&out, bad, strlen(bad)), BUDCORE_EINVALID, "workloads[0].gpus[0]"));
  CHECK(out.ptr == NULL);
  free(problem);
}

/* MIG-aware placement: an A100-40GB GPU of seven 1g.5gb instances, one in use at slice 0,
 * takes a 3g.20gb only by re-partitioning: at slice 4 it gives up the three free instances
 * there (at 0 it would give up the one in use). A profile the model lacks has no placement. */
static void place_mig(void) {
  const char *problem = "{\"nodes\": [{\"name\": \"n0\", \"model\": \"A100-40GB\", \"gpus\": 1,"
                        " \"mig\": [[\"1g.5gb@0\", \"1g.5gb@1\", \"1g.5gb@2\", \"1g.5gb@3\", \"1g.5gb@4\", \"1g.5gb@5\", \"1g.5gb@6\"]]}],"
                        " \"workloads\": [{\"name\": \"w\", \"node\": \"n0\", \"mig\": [[0, 0]]}],"
                        " \"request\": {\"mig_profile\": \"3g.20gb\"}, \"apply\": true}";
  budcore_buf out = BUDCORE_BUF_INIT;
  CHECK(budcore_gpu_place_mig(&out, problem, strlen(problem)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"instance\":4") != NULL && strstr(out.ptr, "\"dropped\":3") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"repartition\":[\"1g.5gb@0\",\"1g.5gb@1\",\"1g.5gb@2\",\"1g.5gb@3\",\"3g.20gb@4\"]") != NULL);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"applied\":true") != NULL);
  budcore_buf_dispose(&out);
  const char *none = "{\"nodes\": [{\"name\": \"n0\", \"model\": \"A100-40GB\", \"gpus\": 1, \"mig\": [[\"7g.40gb@0\"]]}],"
                     " \"workloads\": [], \"request\": {\"mig_profile\": \"3g.40gb\"}}";
  CHECK(budcore_gpu_place_mig(&out, none, strlen(none)) == BUDCORE_OK);
  CHECK(out.ptr != NULL && strstr(out.ptr, "\"placement\":null") != NULL);
  budcore_buf_dispose(&out);
  const char *whole = "{\"nodes\": [{\"name\": \"n0\", \"model\": \"T4\", \"gpus\": 1}], \"request\": {\"num_gpu\": 1}}";
  CHECK(error_is(budcore_gpu_place_mig(&out, whole, strlen(whole)), BUDCORE_EINVALID, "request.mig_profile"));
  CHECK(out.ptr == NULL);
}

int main(void) {
  gpu();
  defrag();
  place_mig();
  serverless();
  return failures != 0;
}
