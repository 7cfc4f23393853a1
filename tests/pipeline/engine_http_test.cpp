// End to end: the Engine drives the real libcurl HttpClient (API_CALL) and the webhook Notifier
// (NOTIFICATION) against a real HTTP server on 127.0.0.1. The virtual clock is used where only
// engine timers matter (retry backoff: HTTP calls are synchronous, so virtual time stands still
// during a call); the system clock where waiting is real (timeouts).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "backends/loopback_http_server.hpp"
#include "budcore/backend/http_client.hpp"
#include "budcore/backend/notifier.hpp"
#include "pipeline/engine_fixture.hpp"

namespace budcore::pipeline {
namespace {

using budcore::testing::closed_port;
using budcore::testing::LoopbackHttpServer;
using budcore::testing::RecordedRequest;
using budcore::testing::ScriptedResponse;
using testing::doc;
using testing::RecordingSink;

ScriptedResponse json_response(int status, std::string body) {
  ScriptedResponse r;
  r.status = status;
  r.reason = status < 300 ? "OK" : "Error";
  r.headers = {{"Content-Type", "application/json"}};
  r.body = std::move(body);
  return r;
}

ScriptedResponse status_response(int status, std::string body = {}) {
  ScriptedResponse r;
  r.status = status;
  r.reason = "Status";
  r.body = std::move(body);
  return r;
}

std::string path_of(const RecordedRequest& r) { return r.target.substr(0, r.target.find('?')); }

nlohmann::json body_json(const RecordedRequest& r) {
  auto j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.body;
  return j;
}


// Real HTTP executors over a loopback server; the clock is chosen per test.
struct HttpHarness {
  LoopbackHttpServer server;
  std::unique_ptr<core::HttpClient> http = backend::make_curl_http_client();
  std::unique_ptr<core::Notifier> notifier;
  FunctionRegistry functions;
  RecordingSink sink;
  core::VirtualClock virtual_clock;

  HttpHarness() {
    backend::WebhookNotifierOptions o;
    o.url = server.url("/hooks/slack");
    notifier = backend::make_webhook_notifier(*http, std::move(o));
  }

  // params always carry the server's base URL as params.base.
  EngineOptions options(core::Value params = core::Value(core::Map{}), std::string run_id = "run-1") {
    if (!params.is_map()) params = core::Value(core::Map{});
    params.mutable_map().set("base", server.url(""));
    EngineOptions o;
    o.run_id = std::move(run_id);
    o.params = std::move(params);
    return o;
  }
  Engine make(const core::Value& d, const core::Clock& clock, EngineOptions o) {
    auto e = Engine::create(d, EngineDeps{&clock, nullptr, http.get(), notifier.get(), &functions, &sink}, std::move(o));
    EXPECT_TRUE(e.has_value()) << (e ? "" : e.error().describe());
    return std::move(e).value();
  }
  PipelineStatus run_virtual(Engine& e) {
    auto s = e.run_virtual(virtual_clock);
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().describe());
    return s ? *s : PipelineStatus::Failed;
  }
  // Drives an engine on a real clock: pump, sleep until the next wakeup, repeat (bounded).
  static PipelineStatus run_real(Engine& e, const core::Clock& clock) {
    EXPECT_TRUE(e.start().has_value());
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < give_up) {
      auto st = e.pump();
      EXPECT_TRUE(st.has_value()) << (st ? "" : st.error().describe());
      if (e.done() || !st) break;
      auto wake = e.next_wakeup();
      if (!wake) break;
      std::int64_t ns = (*wake - clock.now()).count_ns();
      if (ns > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
    }
    EXPECT_TRUE(e.done());
    return e.status();
  }
  std::vector<RecordedRequest> requests_to(const std::string& path) const {
    std::vector<RecordedRequest> out;
    for (auto& r : server.requests())
      if (path_of(r) == path) out.push_back(r);
    return out;
  }
};

const StepRun& step(const Engine& e, std::string_view id) {
  const StepRun* r = e.state().find(id);
  if (r == nullptr) throw std::logic_error("no step " + std::string(id));
  return *r;
}

// ---- API_CALL: templates in, JSON out ----------------------------------------------------

TEST(EngineHttpTest, ApiCallSendsTemplatedRequestAndItsJsonResponseFeedsDownstreamSteps) {
  HttpHarness h;
  h.server.set_handler([](const RecordedRequest& r) {
    if (path_of(r) == "/v1/models/llama-3/deploy")
      return json_response(201, R"({"deployment_id": "dep-7", "endpoint": {"host": "gpu-3", "port": 8443}, "ready": true})");
    if (path_of(r) == "/v1/deployments/dep-7/register") return json_response(200, R"({"registered": "dep-7@gpu-3"})");
    return status_response(404, "no route");
  });
  auto d = doc(R"({"pipeline": {"name": "deploy", "parameters": {"replicas": 1}}, "steps": [
    {"id": "cfg", "step_type": "TRANSFORM", "config": {"outputs": {"model": "{{ params.model }}-3"}}},
    {"id": "deploy", "step_type": "API_CALL", "depends_on": ["cfg"], "config": {
       "url": "{{ params.base }}/v1/models/{{ steps.cfg.outputs.model }}/deploy?replicas={{ params.replicas }}",
       "method": "POST",
       "headers": {"Authorization": "Bearer {{ params.token }}", "X-Replicas": "{{ params.replicas }}"},
       "body": {"model": "{{ steps.cfg.outputs.model }}", "replicas": "{{ params.replicas }}",
                "tags": ["team-a", "{{ params.env }}"], "note": "deploy {{ steps.cfg.outputs.model }} to {{ params.env }}"}}},
    {"id": "register", "step_type": "API_CALL", "depends_on": ["deploy"], "config": {
       "url": "{{ params.base }}/v1/deployments/{{ steps.deploy.outputs.deployment_id }}/register",
       "method": "PUT",
       "body": {"host": "{{ steps.deploy.outputs.endpoint.host }}", "port": "{{ steps.deploy.outputs.endpoint.port }}"}}},
    {"id": "summary", "step_type": "TRANSFORM", "depends_on": ["register"], "config": {"outputs": {
       "url": "https://{{ steps.deploy.outputs.endpoint.host }}:{{ steps.deploy.outputs.endpoint.port }}",
       "codes": "{{ steps.deploy.outputs.status_code }}/{{ steps.register.outputs.status_code }}",
       "registered": "{{ steps.register.outputs.registered }}"}}}]})");
  auto params = doc(R"({"model": "llama", "replicas": 2, "token": "s3cret", "env": "prod"})");
  auto e = h.make(d, h.virtual_clock, h.options(params));
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Completed) << step(e, "deploy").message << step(e, "register").message;

  auto requests = h.server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const auto& deploy = requests[0];
  EXPECT_EQ(deploy.method, "POST");
  EXPECT_EQ(deploy.target, "/v1/models/llama-3/deploy?replicas=2");
  EXPECT_EQ(deploy.header("Authorization"), "Bearer s3cret");
  EXPECT_EQ(deploy.header("X-Replicas"), "2");  // a native int rendered into a header as text
  EXPECT_EQ(deploy.header("Content-Type"), "application/json");  // added for a map body
  EXPECT_EQ(body_json(deploy), nlohmann::json::parse(R"({"model": "llama-3", "replicas": 2,
      "tags": ["team-a", "prod"], "note": "deploy llama-3 to prod"})"));

  const auto& reg = requests[1];
  EXPECT_EQ(reg.method, "PUT");
  EXPECT_EQ(reg.target, "/v1/deployments/dep-7/register");
  EXPECT_EQ(body_json(reg), nlohmann::json::parse(R"({"host": "gpu-3", "port": 8443})"));

  EXPECT_EQ(step(e, "deploy").outputs, doc(R"({"deployment_id": "dep-7", "endpoint": {"host": "gpu-3", "port": 8443},
      "ready": true, "status_code": 201})"));
  EXPECT_EQ(step(e, "summary").outputs, doc(R"({"url": "https://gpu-3:8443", "codes": "201/200", "registered": "dep-7@gpu-3"})"));
  EXPECT_EQ(step(e, "deploy").attempts, 1);
}

TEST(EngineHttpTest, StringBodyIsSentVerbatimWithTheStepsOwnContentType) {
  HttpHarness h;
  h.server.enqueue(json_response(200, "{}"));
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL", "config": {
      "url": "{{ params.base }}/raw", "method": "PUT", "headers": {"content-type": "text/csv", "X-Count": 3},
      "body": "name,count\n{{ params.name }},{{ params.n }}\n"}}]})"),
      h.virtual_clock, h.options(doc(R"({"name": "a", "n": 3})")));
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Completed) << step(e, "api").message;
  auto requests = h.server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, "name,count\na,3");  // Jinja2's keep_trailing_newline=False (docs/templates.md)
  EXPECT_EQ(requests[0].header("Content-Type"), "text/csv");
  EXPECT_EQ(requests[0].header("X-Count"), "3");  // a non-string header value is written as JSON
  std::size_t content_types = 0;
  for (const auto& [k, v] : requests[0].headers) content_types += k == "content-type";
  EXPECT_EQ(content_types, 1u);  // the engine does not add a second one
  EXPECT_EQ(step(e, "api").outputs, doc(R"({"status_code": 200})"));  // an empty JSON object, plus status
}

// docs/pipelines.md: "the JSON object response plus status_code (other bodies as {"body"})".
TEST(EngineHttpTest, NonObjectResponsesBecomeABodyOutput) {
  HttpHarness h;
  h.server.set_handler([](const RecordedRequest& r) {
    if (path_of(r) == "/text") return status_response(200, "plain words, not JSON");
    if (path_of(r) == "/list") return json_response(200, R"([1, "two", {"three": 3}])");
    if (path_of(r) == "/number") return json_response(200, "42");
    if (path_of(r) == "/empty") return status_response(204);
    return json_response(200, R"({"broken": )");
  });
  auto e = h.make(doc(R"({"steps": [
      {"id": "text", "step_type": "API_CALL", "config": {"url": "{{ params.base }}/text", "method": "GET"}},
      {"id": "list", "step_type": "API_CALL", "config": {"url": "{{ params.base }}/list", "method": "GET"}},
      {"id": "number", "step_type": "API_CALL", "config": {"url": "{{ params.base }}/number", "method": "GET"}},
      {"id": "empty", "step_type": "API_CALL", "config": {"url": "{{ params.base }}/empty", "method": "DELETE"}},
      {"id": "broken", "step_type": "API_CALL", "config": {"url": "{{ params.base }}/broken", "method": "GET"}},
      {"id": "use", "step_type": "TRANSFORM", "depends_on": ["text", "list"], "config": {"outputs": {
         "words": "{{ steps.text.outputs.body | upper }}", "second": "{{ steps.list.outputs.body[1] }}"}}}]})"),
      h.virtual_clock, h.options());
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Completed);
  EXPECT_EQ(step(e, "text").outputs, doc(R"({"body": "plain words, not JSON", "status_code": 200})"));
  EXPECT_EQ(step(e, "list").outputs, doc(R"({"body": [1, "two", {"three": 3}], "status_code": 200})"));
  EXPECT_EQ(step(e, "number").outputs, doc(R"({"body": 42, "status_code": 200})"));
  EXPECT_EQ(step(e, "empty").outputs, doc(R"({"body": "", "status_code": 204})"));
  EXPECT_EQ(step(e, "broken").outputs, doc(R"({"body": "{\"broken\": ", "status_code": 200})"));
  EXPECT_EQ(step(e, "use").outputs, doc(R"({"words": "PLAIN WORDS, NOT JSON", "second": "two"})"));
  for (const auto& r : h.server.requests()) {
    if (path_of(r) == "/empty") EXPECT_EQ(r.method, "DELETE");
    EXPECT_TRUE(r.body.empty());  // no body configured, none sent
    EXPECT_FALSE(r.header("Content-Type").has_value());
  }
}

// ---- API_CALL: retries, their classification and the idempotency key ------------------------

TEST(EngineHttpTest, TwoServiceUnavailableAnswersAreRetriedAndTheThirdAttemptSucceeds) {
  HttpHarness h;
  h.server.enqueue(status_response(503, "busy"));
  h.server.enqueue(status_response(503, "still busy"));
  h.server.enqueue(json_response(200, R"({"ok": true})"));
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL",
      "config": {"url": "{{ params.base }}/flaky", "body": {"n": 1}}}]})"), h.virtual_clock, h.options({}, "run-42"));
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Completed) << step(e, "api").message;
  EXPECT_EQ(step(e, "api").attempts, 3);
  EXPECT_EQ(step(e, "api").outputs, doc(R"({"ok": true, "status_code": 200})"));
  auto requests = h.server.requests();
  ASSERT_EQ(requests.size(), 3u);
  for (const auto& r : requests) EXPECT_EQ(body_json(r), nlohmann::json::parse(R"({"n": 1})"));
  // Default API_CALL backoff: 1 s base, factor 2 -> 1 s + 2 s of engine time.
  EXPECT_EQ(*step(e, "api").finished_at - *step(e, "api").started_at, core::Duration::seconds(3));
  EXPECT_TRUE(h.sink.saw("api:running->retrying"));
  EXPECT_TRUE(h.sink.saw("api:retrying->running"));
  std::vector<std::string> retry_messages;
  for (const auto& t : h.sink.transitions)
    if (t.to == "retrying") retry_messages.push_back(t.message);
  ASSERT_EQ(retry_messages.size(), 2u);
  EXPECT_EQ(retry_messages[0], "HTTP 503; retry 1 of 3 in 1s");
  EXPECT_EQ(retry_messages[1], "HTTP 503; retry 2 of 3 in 2s");
  // Retries repeat one logical request, so they share its key "<run>/<step>/<generation>":
  // a server that did act on a timed-out attempt recognises the repeat.
  EXPECT_EQ(requests[0].header("Idempotency-Key"), "run-42/api/1");
  EXPECT_EQ(requests[1].header("Idempotency-Key"), "run-42/api/1");
  EXPECT_EQ(requests[2].header("Idempotency-Key"), "run-42/api/1");
}

TEST(EngineHttpTest, TooManyRequestsIsRetriedButClientErrorsAreNot) {
  HttpHarness h;
  auto seen = std::make_shared<std::map<std::string, int>>();  // per path: answer 429 once, then 200
  h.server.set_handler([seen](const RecordedRequest& r) {
    if (path_of(r) == "/limited") return ++(*seen)[r.target] == 1 ? status_response(429, "slow down") : json_response(200, "{}");
    if (path_of(r) == "/missing") return status_response(404, "no such model");
    if (path_of(r) == "/conflict") return status_response(409);
    return status_response(302);
  });
  auto e = h.make(doc(R"({"pipeline": {"fail_fast": false}, "steps": [
      {"id": "limited", "step_type": "API_CALL", "config": {"url": "{{ params.base }}/limited"}},
      {"id": "missing", "step_type": "API_CALL", "continue_on_failure": true, "config": {"url": "{{ params.base }}/missing"}},
      {"id": "conflict", "step_type": "API_CALL", "continue_on_failure": true, "config": {"url": "{{ params.base }}/conflict"}},
      {"id": "moved", "step_type": "API_CALL", "continue_on_failure": true, "config": {"url": "{{ params.base }}/moved"}}]})"),
      h.virtual_clock, h.options());
  EXPECT_EQ(h.run_virtual(e), PipelineStatus::Completed);
  EXPECT_EQ(step(e, "limited").state, StepState::Succeeded);
  EXPECT_EQ(step(e, "limited").attempts, 2);
  EXPECT_EQ(step(e, "missing").state, StepState::Failed);  // the step's own failure, not retried
  EXPECT_EQ(step(e, "missing").attempts, 1);
  EXPECT_EQ(step(e, "missing").message, "HTTP 404");
  EXPECT_EQ(step(e, "conflict").state, StepState::Failed);
  EXPECT_EQ(step(e, "conflict").message, "HTTP 409");
  EXPECT_EQ(step(e, "moved").state, StepState::Failed);  // redirects are not followed
  EXPECT_EQ(step(e, "moved").message, "HTTP 302");
  EXPECT_EQ(h.requests_to("/missing").size(), 1u);
  EXPECT_EQ(h.requests_to("/conflict").size(), 1u);
  EXPECT_EQ(h.requests_to("/limited").size(), 2u);
}

TEST(EngineHttpTest, ExhaustedRetriesFailTheRunWithAMessageNamingTheStatus) {
  HttpHarness h;
  h.server.set_handler([](const RecordedRequest&) { return status_response(502, "bad gateway"); });
  auto e = h.make(doc(R"({"steps": [
      {"id": "api", "step_type": "API_CALL", "config": {"url": "{{ params.base }}/down", "retry_count": 2}},
      {"id": "after", "step_type": "TRANSFORM", "depends_on": ["api"], "config": {"outputs": {}}}]})"),
      h.virtual_clock, h.options());
  EXPECT_EQ(h.run_virtual(e), PipelineStatus::Failed);
  EXPECT_EQ(step(e, "api").state, StepState::Errored);  // 5xx: the service could not do it
  EXPECT_EQ(step(e, "api").attempts, 3);                // 1 + retry_count
  EXPECT_EQ(step(e, "api").message, "HTTP 502");
  EXPECT_EQ(step(e, "after").state, StepState::Omitted);
  EXPECT_NE(e.state().failure_reason.find("api"), std::string::npos) << e.state().failure_reason;
  EXPECT_EQ(h.server.requests().size(), 3u);
}

TEST(EngineHttpTest, RetryFromFailedSendsTheRequestUnderANewIdempotencyKey) {
  HttpHarness h;
  h.server.enqueue(status_response(404));
  h.server.enqueue(json_response(200, R"({"ok": true})"));
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL",
      "config": {"url": "{{ params.base }}/fixed-later", "method": "POST"}}]})"), h.virtual_clock, h.options({}, "run-7"));
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Failed);
  ASSERT_TRUE(e.retry_from_failed());
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Completed) << step(e, "api").message;
  auto requests = h.server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].header("Idempotency-Key"), "run-7/api/1");
  EXPECT_EQ(requests[1].header("Idempotency-Key"), "run-7/api/2");  // a new generation: a new request
}

TEST(EngineHttpTest, StepRetryPolicyCanRetryClientErrorsToo) {
  HttpHarness h;
  h.server.enqueue(status_response(404));
  h.server.enqueue(json_response(200, R"({"found": "late"})"));
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL",
      "retry": {"limit": 1, "backoff": {"base_seconds": 5}, "retry_on": ["failed", "errored"]},
      "config": {"url": "{{ params.base }}/eventually", "method": "GET"}}]})"), h.virtual_clock, h.options());
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Completed) << step(e, "api").message;
  EXPECT_EQ(step(e, "api").attempts, 2);
  EXPECT_EQ(step(e, "api").outputs.find("found")->as_string(), "late");
  EXPECT_EQ(*step(e, "api").finished_at - *step(e, "api").started_at, core::Duration::seconds(5));
}

TEST(EngineHttpTest, RetryBackoffWaitsInRealTimeOnTheSystemClock) {
  HttpHarness h;
  h.server.enqueue(status_response(503));
  h.server.enqueue(json_response(200, R"({"v": 1})"));
  auto clock = core::system_clock();
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL",
      "retry": {"limit": 2, "backoff": {"base_seconds": 0.2}}, "config": {"url": "{{ params.base }}/x"}}]})"),
      *clock, h.options());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(HttpHarness::run_real(e, *clock), PipelineStatus::Completed);
  auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, std::chrono::milliseconds(200));
  EXPECT_LT(waited, std::chrono::seconds(5));
  EXPECT_EQ(step(e, "api").attempts, 2);
  EXPECT_EQ(h.server.requests().size(), 2u);
}

// A crash after the request went out but before its result was saved: the resumed engine sends
// the same attempt again with the same Idempotency-Key, so the server can recognise the repeat.
TEST(EngineHttpTest, IdempotencyKeyIsStableAcrossACrashAndResume) {
  struct CrashAfterRunning final : StateSink {
    core::Value saved;
    core::Status save(const Transition& t, const RunState& state) override {
      if (t.step == "api" && t.to == "succeeded") return core::Error::make(core::ErrorCode::Io, "disk gone");
      saved = state.to_value();
      return {};
    }
  } crashing;
  HttpHarness h;
  h.server.set_handler([](const RecordedRequest&) { return json_response(200, R"({"order": "o-1"})"); });
  auto d = doc(R"({"steps": [{"id": "api", "step_type": "API_CALL",
      "config": {"url": "{{ params.base }}/orders", "body": {"item": "gpu"}}}]})");
  auto o = h.options({}, "run-9");
  auto first = Engine::create(d, EngineDeps{&h.virtual_clock, nullptr, h.http.get(), h.notifier.get(), nullptr, &crashing}, o);
  ASSERT_TRUE(first.has_value()) << first.error().describe();
  EXPECT_FALSE(first->run_virtual(h.virtual_clock).has_value());  // the sink failure halts it
  EXPECT_TRUE(first->halted());
  ASSERT_EQ(h.server.requests().size(), 1u);

  auto resumed = Engine::restore(d, EngineDeps{&h.virtual_clock, nullptr, h.http.get(), h.notifier.get(), nullptr, &h.sink},
                                 crashing.saved, o);
  ASSERT_TRUE(resumed.has_value()) << resumed.error().describe();
  EXPECT_EQ(h.run_virtual(*resumed), PipelineStatus::Completed);
  auto requests = h.server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].header("Idempotency-Key"), "run-9/api/1");
  EXPECT_EQ(requests[1].header("Idempotency-Key"), requests[0].header("Idempotency-Key"));
  EXPECT_EQ(requests[1].body, requests[0].body);
  EXPECT_EQ(step(*resumed, "api").outputs.find("order")->as_string(), "o-1");
}

// ---- API_CALL: timeouts and transport errors -------------------------------------------------

TEST(EngineHttpTest, ConfigTimeoutEndsASlowAttemptWhichIsRetried) {
  HttpHarness h;
  ScriptedResponse slow = json_response(200, R"({"late": true})");
  slow.delay = std::chrono::milliseconds(5000);
  h.server.enqueue(slow);
  h.server.enqueue(json_response(200, R"({"fast": true})"));
  auto clock = core::system_clock();
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL",
      "retry": {"limit": 1, "backoff": {"base_seconds": 0.05}},
      "config": {"url": "{{ params.base }}/slow", "timeout_seconds": 1}}]})"), *clock, h.options());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(HttpHarness::run_real(e, *clock), PipelineStatus::Completed) << step(e, "api").message;
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(took, std::chrono::milliseconds(900));
  EXPECT_LT(took, std::chrono::milliseconds(4500));  // did not wait for the slow answer
  EXPECT_EQ(step(e, "api").attempts, 2);
  EXPECT_EQ(step(e, "api").outputs, doc(R"({"fast": true, "status_code": 200})"));
  std::string first_failure;
  for (const auto& t : h.sink.transitions)
    if (t.to == "retrying") first_failure = t.message;
  EXPECT_NE(first_failure.find("timed out"), std::string::npos) << first_failure;
  EXPECT_NE(first_failure.find("/slow"), std::string::npos) << first_failure;
}

TEST(EngineHttpTest, ConfigTimeoutWithoutRetriesErrorsTheStep) {
  HttpHarness h;
  ScriptedResponse slow = json_response(200, "{}");
  slow.delay = std::chrono::milliseconds(3000);
  h.server.set_handler([slow](const RecordedRequest&) { return slow; });
  auto clock = core::system_clock();
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL",
      "config": {"url": "{{ params.base }}/slow", "timeout_seconds": 1, "retry_count": 0}}]})"), *clock, h.options());
  EXPECT_EQ(HttpHarness::run_real(e, *clock), PipelineStatus::Failed);
  EXPECT_EQ(step(e, "api").state, StepState::Errored);
  EXPECT_EQ(step(e, "api").attempts, 1);
  EXPECT_NE(step(e, "api").message.find("timed out"), std::string::npos) << step(e, "api").message;
}

// The step-level `timeout_seconds` (per attempt, docs/pipelines.md) bounds a synchronous HTTP
// call too, even when the config's own HTTP timeout is longer.
TEST(EngineHttpTest, StepTimeoutBoundsTheHttpCall) {
  HttpHarness h;
  ScriptedResponse slow = json_response(200, R"({"late": true})");
  slow.delay = std::chrono::milliseconds(6000);
  h.server.set_handler([slow](const RecordedRequest&) { return slow; });
  auto clock = core::system_clock();
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL", "timeout_seconds": 1,
      "config": {"url": "{{ params.base }}/slow", "timeout_seconds": 30, "retry_count": 0}}]})"), *clock, h.options());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(HttpHarness::run_real(e, *clock), PipelineStatus::Failed);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(5000));
  EXPECT_EQ(step(e, "api").state, StepState::Failed);  // a step timeout is the step's failure
  EXPECT_EQ(step(e, "api").message, "timed out after 1s");
  EXPECT_EQ(step(e, "api").attempts, 1);  // a step timeout is `failed`, which API_CALL does not retry by default
  EXPECT_EQ(h.server.requests().size(), 1u);
}

TEST(EngineHttpTest, ConnectionRefusedIsAClearTransportError) {
  HttpHarness h;
  int port = closed_port();
  auto params = core::Value::map({{"dead", "http://127.0.0.1:" + std::to_string(port)}});
  auto e = h.make(doc(R"({"steps": [
      {"id": "api", "step_type": "API_CALL", "config": {"url": "{{ params.dead }}/v1/x", "retry_count": 1}},
      {"id": "bad-url", "step_type": "API_CALL", "continue_on_failure": true,
       "config": {"url": "ftp://{{ params.base }}", "retry_count": 0}}]})"),
      h.virtual_clock, h.options(params));
  EXPECT_EQ(h.run_virtual(e), PipelineStatus::Failed);
  const StepRun& api = step(e, "api");
  EXPECT_EQ(api.state, StepState::Errored);
  EXPECT_EQ(api.attempts, 2);  // transport errors are retried
  EXPECT_NE(api.message.find("127.0.0.1:" + std::to_string(port) + "/v1/x"), std::string::npos) << api.message;
  EXPECT_NE(api.message.find("failed"), std::string::npos) << api.message;
  const StepRun& bad = step(e, "bad-url");
  EXPECT_EQ(bad.state, StepState::Errored);
  EXPECT_NE(bad.message.find("scheme"), std::string::npos) << bad.message;
}

// ---- NOTIFICATION through the webhook notifier -----------------------------------------------

TEST(EngineHttpTest, NotificationPostsASlackCompatiblePayloadWithTheRenderedMessage) {
  HttpHarness h;
  h.server.set_handler([](const RecordedRequest& r) {
    if (path_of(r) == "/hooks/slack") return status_response(200, "ok");  // Slack answers "ok" as text
    return json_response(200, R"({"endpoint": "https://gpu-3:8443"})");
  });
  auto e = h.make(doc(R"({"pipeline": {"name": "deploy-rag"}, "steps": [
      {"id": "deploy", "step_type": "API_CALL", "config": {"url": "{{ params.base }}/deploy"}},
      {"id": "tell", "step_type": "NOTIFICATION", "depends_on": ["deploy"], "config": {
         "channel": "slack", "recipients": ["#deployments", "ops@example.com"], "severity": "warning",
         "message": "{{ params.model }} is live at {{ steps.deploy.outputs.endpoint }}"}},
      {"id": "after", "step_type": "TRANSFORM", "depends_on": ["tell"], "config": {"outputs": {
         "delivered": "{{ steps.tell.outputs.delivered }}", "channel": "{{ steps.tell.outputs.channel }}"}}}]})"),
      h.virtual_clock, h.options(doc(R"({"model": "llama"})"), "run-5"));
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Completed) << step(e, "tell").message;
  auto hooks = h.requests_to("/hooks/slack");
  ASSERT_EQ(hooks.size(), 1u);
  EXPECT_EQ(hooks[0].method, "POST");
  EXPECT_EQ(hooks[0].header("Content-Type"), "application/json");
  auto p = body_json(hooks[0]);
  const std::string message = "llama is live at https://gpu-3:8443";
  EXPECT_EQ(p["text"], message);  // Slack's fallback text
  EXPECT_EQ(p["channel"], "#deployments");
  EXPECT_EQ(p["recipients"], nlohmann::json::parse(R"(["#deployments", "ops@example.com"])"));
  EXPECT_EQ(p["severity"], "warning");
  EXPECT_EQ(p["notification_channel"], "slack");
  EXPECT_EQ(p["context"], nlohmann::json::parse(R"({"run_id": "run-5", "step_id": "tell", "pipeline": "deploy-rag"})"));
  ASSERT_TRUE(p["blocks"].is_array());
  ASSERT_EQ(p["blocks"].size(), 2u);
  EXPECT_EQ(p["blocks"][0]["type"], "section");
  EXPECT_EQ(p["blocks"][0]["text"]["type"], "mrkdwn");
  EXPECT_NE(p["blocks"][0]["text"]["text"].get<std::string>().find(message), std::string::npos);
  EXPECT_EQ(p["blocks"][1]["type"], "context");
  auto ctx = p["blocks"][1]["elements"][0]["text"].get<std::string>();
  EXPECT_NE(ctx.find("warning"), std::string::npos) << ctx;
  EXPECT_NE(ctx.find("run-5"), std::string::npos) << ctx;
  EXPECT_EQ(step(e, "tell").outputs, doc(R"({"delivered": true, "channel": "slack"})"));
  EXPECT_EQ(step(e, "after").outputs, doc(R"({"delivered": true, "channel": "slack"})"));
}

// A NOTIFICATION has no default retries: a webhook answering 500 ends the step at once, with the
// notifier's message. Its answers are classified as API_CALL's are (docs/pipelines.md, Step
// states): 5xx/429 and transport trouble `errored`, other refusals `failed`.
TEST(EngineHttpTest, WebhookServerErrorEndsTheNotificationStepErrored) {
  HttpHarness h;
  h.server.set_handler([](const RecordedRequest& r) {
    if (path_of(r) == "/hooks/slack") return status_response(500, "hook exploded");
    return status_response(404, "no such hook");
  });
  backend::WebhookNotifierOptions o;
  o.url = h.server.url("/hooks/gone");
  auto gone = backend::make_webhook_notifier(*h.http, std::move(o));
  auto e = h.make(doc(R"({"steps": [{"id": "tell", "step_type": "NOTIFICATION",
      "config": {"channel": "slack", "recipients": ["#ops"], "message": "hello"}}]})"), h.virtual_clock, h.options());
  EXPECT_EQ(h.run_virtual(e), PipelineStatus::Failed);
  const StepRun& tell = step(e, "tell");
  EXPECT_EQ(tell.state, StepState::Errored);
  EXPECT_EQ(tell.attempts, 1);
  EXPECT_NE(tell.message.find("HTTP status 500"), std::string::npos) << tell.message;
  EXPECT_NE(tell.message.find("hook exploded"), std::string::npos) << tell.message;
  EXPECT_NE(tell.message.find("/hooks/slack"), std::string::npos) << tell.message;
  EXPECT_EQ(h.server.requests().size(), 1u);

  // A 404 is the receiver's refusal, `failed`; a notification with nothing to say can never be
  // delivered, `errored` and not retried even under a retry policy.
  auto refused = Engine::create(doc(R"({"pipeline": {"fail_fast": false}, "steps": [
      {"id": "tell", "step_type": "NOTIFICATION", "config": {"channel": "slack", "recipients": ["#ops"], "message": "hi"}},
      {"id": "empty", "step_type": "NOTIFICATION", "retry": 3,
       "config": {"channel": "slack", "recipients": ["#ops"], "message": "{{ params.nothing }}"}}]})"),
      EngineDeps{&h.virtual_clock, nullptr, h.http.get(), gone.get(), nullptr, &h.sink},
      h.options(doc(R"({"nothing": ""})")));
  ASSERT_TRUE(refused.has_value()) << refused.error().describe();
  EXPECT_EQ(h.run_virtual(*refused), PipelineStatus::Failed);
  EXPECT_EQ(step(*refused, "tell").state, StepState::Failed);
  EXPECT_NE(step(*refused, "tell").message.find("HTTP status 404"), std::string::npos) << step(*refused, "tell").message;
  EXPECT_EQ(step(*refused, "empty").state, StepState::Errored);
  EXPECT_EQ(step(*refused, "empty").attempts, 1);
  EXPECT_EQ(h.requests_to("/hooks/gone").size(), 1u);  // only "tell" reached the server
}

TEST(EngineHttpTest, NotificationWithARetryPolicyRetriesAWebhookFailure) {
  HttpHarness h;
  h.server.enqueue(status_response(500, "down"));
  h.server.enqueue(status_response(503, "down"));
  h.server.enqueue(status_response(200, "ok"));
  auto e = h.make(doc(R"({"steps": [{"id": "tell", "step_type": "NOTIFICATION", "retry": {"limit": 3, "backoff": {"base_seconds": 2}},
      "config": {"channel": "slack", "recipients": ["#ops"], "message": "attempt of {{ params.what }}"}}]})"),
      h.virtual_clock, h.options(doc(R"({"what": "deploy"})")));
  ASSERT_EQ(h.run_virtual(e), PipelineStatus::Completed) << step(e, "tell").message;
  EXPECT_EQ(step(e, "tell").attempts, 3);
  EXPECT_EQ(*step(e, "tell").finished_at - *step(e, "tell").started_at, core::Duration::seconds(2 + 4));
  auto requests = h.server.requests();
  ASSERT_EQ(requests.size(), 3u);
  for (const auto& r : requests) EXPECT_EQ(body_json(r)["text"], "attempt of deploy");
}

// Delivery is synchronous too: a hanging webhook is cut off by the step's timeout, not by the
// notifier's own (longer) limit.
TEST(EngineHttpTest, StepTimeoutBoundsAHangingWebhook) {
  HttpHarness h;
  ScriptedResponse slow = status_response(200, "ok");
  slow.delay = std::chrono::milliseconds(6000);
  h.server.set_handler([slow](const RecordedRequest&) { return slow; });
  auto clock = core::system_clock();
  auto e = h.make(doc(R"({"steps": [{"id": "tell", "step_type": "NOTIFICATION", "timeout_seconds": 1,
      "config": {"channel": "slack", "recipients": ["#ops"], "message": "hello"}}]})"), *clock, h.options());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(HttpHarness::run_real(e, *clock), PipelineStatus::Failed);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(5000));
  EXPECT_EQ(step(e, "tell").state, StepState::Failed);
  EXPECT_EQ(step(e, "tell").message, "timed out after 1s");
  EXPECT_EQ(h.server.requests().size(), 1u);
}

TEST(EngineHttpTest, UnreachableWebhookErrorsTheStepAndOnFailureHookStillRuns) {
  HttpHarness h;
  backend::WebhookNotifierOptions o;
  o.url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/hook";
  auto dead = backend::make_webhook_notifier(*h.http, std::move(o));
  h.server.set_handler([](const RecordedRequest&) { return json_response(200, "{}"); });
  auto e = Engine::create(doc(R"({"pipeline": {"on_failure": [{"step_type": "API_CALL",
        "config": {"url": "{{ params.base }}/alert", "body": {"why": "{{ pipeline.failure_reason }}"}}}]},
      "steps": [{"id": "tell", "step_type": "NOTIFICATION",
        "config": {"channel": "webhook", "recipients": ["ops"], "message": "hi"}}]})"),
      EngineDeps{&h.virtual_clock, nullptr, h.http.get(), dead.get(), nullptr, &h.sink}, h.options());
  ASSERT_TRUE(e.has_value()) << e.error().describe();
  EXPECT_EQ(h.run_virtual(*e), PipelineStatus::Failed);
  const StepRun& tell = step(*e, "tell");
  EXPECT_EQ(tell.state, StepState::Errored);  // transport trouble
  EXPECT_NE(tell.message.find("/hook"), std::string::npos) << tell.message;
  auto alerts = h.requests_to("/alert");
  ASSERT_EQ(alerts.size(), 1u);  // the failure was reported over real HTTP by the hook
  EXPECT_NE(body_json(alerts[0])["why"].get<std::string>().find("tell"), std::string::npos) << alerts[0].body;
}

}  // namespace
}  // namespace budcore::pipeline
