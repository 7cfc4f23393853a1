/* The durable serverless request queue from C, on a SQLite store in memory: enqueue with a
 * refusal, claim by score, a completion recorded once, a stale claim token refused, a failure
 * to the dead letters, and bad input that names the field and stores nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budcore/budcore.h"
#include "check.h"

#define OWNER "0190e6f4-5c3a-7abc-8def-00000000000b"

static const char kEndpoint[] = "{\"name\": \"chat\", \"model\": \"m\", \"queue\": {\"max_retries\": 0, \"max_payload_bytes\": 100}}";

static int contains(const budcore_buf *b, const char *needle) { return b->ptr != NULL && strstr(b->ptr, needle) != NULL; }

#define S(x) x, strlen(x)

int main(void) {
  budcore_store *store = NULL;
  CHECK(budcore_store_open(&store, S("sqlite::memory:")) == BUDCORE_OK);
  budcore_buf out = BUDCORE_BUF_INIT;

  static const char subs[] =
      "[{\"tenant\": \"acme\", \"priority\": \"batch\"}, {\"tenant\": \"acme\", \"priority\": \"premium\"},"
      " {\"tenant\": \"acme\", \"payload_size_bytes\": 101}]";
  CHECK(budcore_serverless_queue_enqueue(&out, store, S(OWNER), S(kEndpoint), S(subs)) == BUDCORE_OK);
  CHECK(contains(&out, "{\"id\":1,\"deduplicated\":false}"));
  CHECK(contains(&out, "\"refusal\":\"payload_too_large\""));
  budcore_buf_dispose(&out);

  /* Premium (id 2) first; each under claim token 1. */
  CHECK(budcore_serverless_queue_claim(&out, store, S(OWNER), S("chat"), S("w1"), 1, 30.0) == BUDCORE_OK);
  CHECK(contains(&out, "\"id\":2") && contains(&out, "\"claim\":1") && contains(&out, "\"status\":\"assigned\""));
  budcore_buf_dispose(&out);

  static const char done[] = "[{\"id\": 2, \"claim\": 1, \"outcome\": \"complete\"}]";
  CHECK(budcore_serverless_queue_finish(&out, store, S(OWNER), S(done)) == BUDCORE_OK);
  CHECK(contains(&out, "\"ok\":true,\"status\":\"completed\""));
  budcore_buf_dispose(&out);
  CHECK(budcore_serverless_queue_finish(&out, store, S(OWNER), S(done)) == BUDCORE_OK);
  CHECK(contains(&out, "\"ok\":false,\"status\":\"completed\""));
  budcore_buf_dispose(&out);

  /* Request 1: a stale token changes nothing; a failure with no retries left dead-letters it. */
  CHECK(budcore_serverless_queue_claim(&out, store, S(OWNER), S("chat"), S("w2"), 5, 30.0) == BUDCORE_OK);
  budcore_buf_dispose(&out);
  static const char stale[] = "[{\"id\": 1, \"claim\": 7, \"outcome\": \"complete\"}]";
  CHECK(budcore_serverless_queue_finish(&out, store, S(OWNER), S(stale)) == BUDCORE_OK);
  CHECK(contains(&out, "\"ok\":false,\"status\":\"assigned\""));
  budcore_buf_dispose(&out);
  static const char fail[] = "[{\"id\": 1, \"claim\": 1, \"outcome\": \"fail\", \"reason\": \"oom\"}]";
  CHECK(budcore_serverless_queue_finish(&out, store, S(OWNER), S(fail)) == BUDCORE_OK);
  CHECK(contains(&out, "\"status\":\"failed\""));
  budcore_buf_dispose(&out);
  static const char dead[] = "{\"statuses\": [\"failed\", \"timeout\"]}";
  CHECK(budcore_serverless_queue_list(&out, store, S(OWNER), S("chat"), S(dead)) == BUDCORE_OK);
  CHECK(contains(&out, "\"last_error\":\"oom\""));
  budcore_buf_dispose(&out);

  /* Bad input: the field is named, nothing is stored. */
  static const char bad[] = "[{\"tenant\": \"acme\"}, {\"tenant\": \"acme\", \"priority\": \"urgent\"}]";
  CHECK(budcore_serverless_queue_enqueue(&out, store, S(OWNER), S(kEndpoint), S(bad)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "submissions[1].priority") == 0);
  CHECK(budcore_serverless_queue_claim(&out, store, S(OWNER), S("chat"), S("w1"), 1, 0.0) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "lease_seconds") == 0);
  static const char bad_list[] = "{\"statuses\": [\"done\"]}";
  CHECK(budcore_serverless_queue_list(&out, store, S(OWNER), S("chat"), S(bad_list)) == BUDCORE_EINVALID);
  CHECK(strcmp(budcore_error_last()->field, "options.statuses[0]") == 0);
  CHECK(budcore_serverless_queue_status(&out, store, S(OWNER), S("chat")) == BUDCORE_OK);
  CHECK(contains(&out, "\"pending\":0") && contains(&out, "\"completed\":1") && contains(&out, "\"failed\":1"));
  budcore_buf_dispose(&out);

  budcore_store_free(store);
  if (failures == 0) printf("serverless queue C ABI: all checks passed\n");
  return failures != 0;
}
