// The REST client's own behaviour against a scripted loopback server: throttling (429 with
// Retry-After), client-side rate limiting, Status parsing of odd answers, watch stream parsing.
// (Everything a real API server can show is tested against the test bed: testbed/client_test.)
#include <gtest/gtest.h>

#include <chrono>

#include "backends/loopback_http_server.hpp"
#include "budcore/kubernetes/client.hpp"

namespace budcore::kubernetes {
namespace {

using core::ErrorCode;
using testing::LoopbackHttpServer;
using testing::ScriptedResponse;

std::unique_ptr<Client> client_for(const LoopbackHttpServer& s, ClientOptions o = {}) {
  ClusterConfig cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(s.port());
  cfg.token = "t0ken";
  auto c = Client::open(cfg, o);
  if (!c) throw std::runtime_error(c.error().describe());
  return std::move(*c);
}

ScriptedResponse json(int status, std::string body, std::vector<std::pair<std::string, std::string>> headers = {}) {
  ScriptedResponse r;
  r.status = status;
  r.reason = "X";
  r.body = std::move(body);
  r.headers = std::move(headers);
  r.headers.emplace_back("Content-Type", "application/json");
  return r;
}

TEST(KubeClientTest, PathsAndHeaders) {
  EXPECT_EQ(resource_path(resources::jobs(), "ns", "j", "status"), "/apis/batch/v1/namespaces/ns/jobs/j/status");
  EXPECT_EQ(resource_path(resources::config_maps(), ""), "/api/v1/configmaps");
  EXPECT_EQ(resource_path(resources::cluster_queues(), "ignored", "cq"), "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq");
  EXPECT_EQ(resources::by_kind("batch/v1", "Job"), &resources::jobs());
  EXPECT_EQ(resources::by_kind("batch/v2", "Job"), nullptr);
  LoopbackHttpServer s;
  s.enqueue(json(200, R"({"kind":"ConfigMap","metadata":{"name":"a"}})"));
  auto c = client_for(s);
  auto r = c->apply(resources::config_maps(), "ns", core::Value(core::Map{{"metadata", core::Map{{"name", "a"}}}}), true);
  ASSERT_TRUE(r) << r.error().describe();
  auto req = s.requests().at(0);
  EXPECT_EQ(req.method, "PATCH");
  EXPECT_EQ(req.target, "/api/v1/namespaces/ns/configmaps/a?fieldManager=budcore&force=true");
  EXPECT_EQ(req.header("content-type"), "application/apply-patch+yaml");
  EXPECT_EQ(req.header("authorization"), "Bearer t0ken");
}

TEST(KubeClientTest, RetriesThrottledRequestsAfterRetryAfter) {
  LoopbackHttpServer s;
  s.enqueue(json(429, R"({"kind":"Status","code":429,"reason":"TooManyRequests","message":"slow down","details":{"retryAfterSeconds":1}})",
                 {{"Retry-After", "1"}}));
  s.enqueue(json(200, R"({"kind":"ConfigMap"})"));
  auto c = client_for(s);
  auto t0 = std::chrono::steady_clock::now();
  auto r = c->get(resources::config_maps(), "ns", "a");
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(900));
  EXPECT_EQ(s.requests().size(), 2u);
  EXPECT_EQ(c->requests_sent(), 2u);

  // Still throttled after the retries: an Io error carrying the Retry-After.
  ClientOptions o;
  o.max_throttle_retries = 1;
  o.max_retry_after = core::Duration::milliseconds(10);
  auto c2 = client_for(s, o);
  s.set_handler([](const testing::RecordedRequest&) { return json(429, "busy", {{"Retry-After", "7"}}); });
  auto e = c2->get(resources::config_maps(), "ns", "a");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, ErrorCode::Io);
  EXPECT_NE(e.error().message.find("HTTP 429 Too Many Requests: busy"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("Retry-After 7 s"), std::string::npos) << e.error().message;
  auto st = api_status(e.error());
  ASSERT_TRUE(st);
  EXPECT_EQ(st->code, 429);
  EXPECT_EQ(st->retry_after_seconds, 7);
}

TEST(KubeClientTest, RateLimiterSpacesRequests) {
  LoopbackHttpServer s;
  s.set_handler([](const testing::RecordedRequest&) { return json(200, "{}"); });
  ClientOptions o;
  o.qps = 20;
  o.burst = 2;
  auto c = client_for(s, o);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(c->get(resources::config_maps(), "ns", "a"));
  // 2 at once, then 4 more at 20/s: at least 150 ms (4 x 50 ms, minus slack).
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
}

TEST(KubeClientTest, OddAnswersStillGiveClearErrors) {
  LoopbackHttpServer s;
  s.enqueue(json(502, "<html>bad gateway</html>"));
  s.enqueue(json(200, "not json"));
  auto c = client_for(s);
  auto r = c->get(resources::jobs(), "ns", "j");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  EXPECT_NE(r.error().message.find("GET jobs.batch ns/j: HTTP 502: <html>bad gateway</html>"), std::string::npos) << r.error().message;
  r = c->get(resources::jobs(), "ns", "j");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not JSON"), std::string::npos);
  EXPECT_FALSE(Client::open(ClusterConfig{}));
  ClusterConfig bad;
  bad.server = "https://a/prefix";
  EXPECT_EQ(Client::open(bad).error().field, "server");
  bad.server = "https://a";
  bad.ca_pem = "nonsense";
  EXPECT_EQ(Client::open(bad).error().field, "ca_pem");
}

TEST(KubeClientTest, WatchParsesEventsAndEnds) {
  LoopbackHttpServer s;
  ScriptedResponse stream;
  stream.close_delimited = true;
  stream.headers.emplace_back("Content-Type", "application/json");
  stream.body =
      R"({"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"5"}}})"
      "\n"
      R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"9"}}})"
      "\n"
      R"J({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (9)"}})J"
      "\n";
  s.enqueue(stream);
  auto c = client_for(s);
  std::vector<WatchEvent::Type> types;
  WatchOptions wo;
  wo.resource_version = "1";
  auto end = c->watch(resources::config_maps(), "ns", wo, [&](const WatchEvent& ev) {
    types.push_back(ev.type);
    return true;
  });
  ASSERT_TRUE(end) << end.error().describe();
  EXPECT_EQ(end->reason, WatchEnd::Reason::Gone);
  EXPECT_EQ(end->last_resource_version, "9");
  EXPECT_EQ(types, (std::vector<WatchEvent::Type>{WatchEvent::Type::Added, WatchEvent::Type::Bookmark}));
  EXPECT_NE(s.requests()[0].target.find("watch=true"), std::string::npos);
  EXPECT_NE(s.requests()[0].target.find("allowWatchBookmarks=true"), std::string::npos);
  EXPECT_NE(s.requests()[0].target.find("resourceVersion=1"), std::string::npos);

  ScriptedResponse garbage = stream;
  garbage.body = "{\"type\":\"ADDED\"}\n";
  s.enqueue(garbage);
  end = c->watch(resources::config_maps(), "ns", wo, [&](const WatchEvent&) { return true; });
  ASSERT_FALSE(end);
  EXPECT_NE(end.error().message.find("without an object"), std::string::npos);

  s.enqueue(json(403, R"({"kind":"Status","code":403,"reason":"Forbidden","message":"no watch for you"})"));
  end = c->watch(resources::config_maps(), "ns", wo, [&](const WatchEvent&) { return true; });
  ASSERT_FALSE(end);
  EXPECT_EQ(end.error().code, ErrorCode::Security);
}

}  // namespace
}  // namespace budcore::kubernetes
