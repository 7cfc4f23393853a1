// make_curl_http_client against a real HTTP/1.1 server on loopback.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/loopback_http_server.hpp"
#include "budcore/backend/http_client.hpp"

namespace {

using budcore::backend::CurlHttpOptions;
using budcore::backend::HttpRequest;
using budcore::backend::make_curl_http_client;
using budcore::core::Duration;
using budcore::core::ErrorCode;
using budcore::testing::closed_port;
using budcore::testing::LoopbackHttpServer;
using budcore::testing::ScriptedResponse;

std::string header_of(const budcore::backend::HttpResponse& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "<absent>";
}


TEST(HttpClientTest, GetReturnsStatusBodyAndLowerCasedHeaders) {
  LoopbackHttpServer server;
  server.enqueue({.status = 200, .headers = {{"X-Request-Id", "abc-123"}, {"Content-Type", "application/json"}},
                  .body = R"({"ok":true})"});
  auto client = make_curl_http_client();
  HttpRequest req;
  req.url = server.url("/v1/items?limit=5");
  req.headers = {{"Authorization", "Bearer t0k"}, {"X-Trace", "t-1"}};
  auto resp = client->send(req);
  ASSERT_TRUE(resp) << resp.error().describe();
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body, R"({"ok":true})");
  EXPECT_EQ(header_of(*resp, "x-request-id"), "abc-123");
  EXPECT_EQ(header_of(*resp, "content-type"), "application/json");
  for (const auto& [k, v] : resp->headers) {
    for (char c : k) EXPECT_FALSE(c >= 'A' && c <= 'Z') << k;
  }
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].target, "/v1/items?limit=5");
  EXPECT_EQ(reqs[0].header("authorization").value_or(""), "Bearer t0k");
  EXPECT_EQ(reqs[0].header("x-trace").value_or(""), "t-1");
  EXPECT_EQ(reqs[0].header("user-agent").value_or(""), "budcore");
  EXPECT_EQ(reqs[0].body, "");
}

TEST(HttpClientTest, PostSendsJsonBodyAndHeaders) {
  LoopbackHttpServer server;
  server.set_handler([](const budcore::testing::RecordedRequest& r) {
    auto in = nlohmann::json::parse(r.body);
    nlohmann::json out = {{"echo", in["name"]}, {"count", in["items"].size()}};
    return ScriptedResponse{.status = 201, .reason = "Created",
                            .headers = {{"Content-Type", "application/json"}}, .body = out.dump()};
  });
  auto client = make_curl_http_client({.user_agent = "budcore-test/1"});
  HttpRequest req;
  req.method = "POST";
  req.url = server.url("/deploy");
  req.headers = {{"Content-Type", "application/json"}};
  req.body = R"({"name":"llama","items":[1,2,3]})";
  auto resp = client->send(req);
  ASSERT_TRUE(resp) << resp.error().describe();
  EXPECT_EQ(resp->status, 201);
  auto body = nlohmann::json::parse(resp->body);
  EXPECT_EQ(body["echo"], "llama");
  EXPECT_EQ(body["count"], 3);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].body, req.body);
  EXPECT_EQ(reqs[0].header("content-type").value_or(""), "application/json");
  EXPECT_EQ(reqs[0].header("content-length").value_or(""), std::to_string(req.body.size()));
  EXPECT_EQ(reqs[0].header("user-agent").value_or(""), "budcore-test/1");
  EXPECT_FALSE(reqs[0].header("expect").has_value());
}

TEST(HttpClientTest, EveryMethodReachesTheServer) {
  LoopbackHttpServer server;
  auto client = make_curl_http_client();
  for (std::string method : {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}) {
    HttpRequest req;
    req.method = method;
    req.url = server.url("/m");
    if (method == "PUT" || method == "PATCH") req.body = "payload-" + method;
    auto resp = client->send(req);
    ASSERT_TRUE(resp) << method << ": " << resp.error().describe();
    EXPECT_EQ(resp->status, 200) << method;
    EXPECT_EQ(resp->body, method == "HEAD" ? "" : "ok") << method;
  }
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 6u);
  std::vector<std::string> seen;
  for (const auto& r : reqs) seen.push_back(r.method);
  EXPECT_EQ(seen, (std::vector<std::string>{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}));
  EXPECT_EQ(reqs[2].body, "payload-PUT");
  EXPECT_EQ(reqs[3].body, "payload-PATCH");
}

TEST(HttpClientTest, ClientAndServerErrorsAreResponses) {
  LoopbackHttpServer server;
  server.enqueue({.status = 404, .reason = "Not Found", .body = "no such thing"});
  server.enqueue({.status = 503, .reason = "Service Unavailable", .headers = {{"Retry-After", "7"}}, .body = "busy"});
  auto client = make_curl_http_client();
  HttpRequest req;
  req.url = server.url("/x");
  auto r1 = client->send(req);
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->status, 404);
  EXPECT_EQ(r1->body, "no such thing");
  auto r2 = client->send(req);
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->status, 503);
  EXPECT_EQ(header_of(*r2, "retry-after"), "7");
}

TEST(HttpClientTest, RedirectsAreNotFollowedByDefault) {
  LoopbackHttpServer server;
  server.set_handler([&](const budcore::testing::RecordedRequest& r) {
    if (r.target == "/old")
      return ScriptedResponse{.status = 302, .reason = "Found", .headers = {{"Location", "/new"}}};
    return ScriptedResponse{.body = "new place"};
  });
  HttpRequest req;
  req.url = server.url("/old");
  auto plain = make_curl_http_client()->send(req);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 302);
  EXPECT_EQ(header_of(*plain, "location"), "/new");
  auto following = make_curl_http_client({.follow_redirects = true})->send(req);
  ASSERT_TRUE(following);
  EXPECT_EQ(following->status, 200);
  EXPECT_EQ(following->body, "new place");
  EXPECT_EQ(header_of(*following, "location"), "<absent>");  // headers of the final response only
}

TEST(HttpClientTest, TimeoutIsAnIoErrorSayingTimedOut) {
  LoopbackHttpServer server;
  server.enqueue({.body = "late", .delay = std::chrono::milliseconds(2000)});
  auto client = make_curl_http_client();
  HttpRequest req;
  req.url = server.url("/slow");
  req.timeout = Duration::milliseconds(200);
  auto start = std::chrono::steady_clock::now();
  auto resp = client->send(req);
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(resp);
  EXPECT_EQ(resp.error().code, ErrorCode::Io);
  EXPECT_NE(resp.error().message.find("timed out"), std::string::npos) << resp.error().message;
  EXPECT_NE(resp.error().message.find(req.url), std::string::npos) << resp.error().message;
  EXPECT_EQ(resp.error().value, req.url);
  EXPECT_LT(elapsed, std::chrono::milliseconds(1500));
}

TEST(HttpClientTest, RefusedPortIsAnIoErrorNamingTheUrl) {
  auto client = make_curl_http_client();
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/nothing";
  auto resp = client->send(req);
  ASSERT_FALSE(resp);
  EXPECT_EQ(resp.error().code, ErrorCode::Io);
  EXPECT_EQ(resp.error().field, "url");
  EXPECT_NE(resp.error().message.find(req.url), std::string::npos) << resp.error().message;
  EXPECT_EQ(resp.error().message.find("timed out"), std::string::npos) << resp.error().message;
}

TEST(HttpClientTest, OversizeBodyIsAnErrorWithOrWithoutContentLength) {
  LoopbackHttpServer server;
  std::string big(1 << 20, 'x');
  server.enqueue({.body = big});                           // announced by Content-Length
  server.enqueue({.body = big, .close_delimited = true});  // learned only while reading
  server.enqueue({.body = std::string(1000, 'y')});        // exactly at the limit
  auto client = make_curl_http_client({.max_response_bytes = 1000});
  HttpRequest req;
  req.url = server.url("/big");
  for (int i = 0; i < 2; ++i) {
    auto resp = client->send(req);
    ASSERT_FALSE(resp) << "case " << i;
    EXPECT_EQ(resp.error().code, ErrorCode::Io);
    EXPECT_NE(resp.error().message.find("exceeds the limit of 1000 bytes"), std::string::npos)
        << resp.error().message;
  }
  auto ok = client->send(req);
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(ok->body.size(), 1000u);
}

TEST(HttpClientTest, HugeBodyWithinTheLimitArrivesWhole) {
  LoopbackHttpServer server;
  std::string big;
  for (int i = 0; big.size() < (8u << 20); ++i) big += std::to_string(i) + ",";
  server.enqueue({.body = big});
  auto resp = make_curl_http_client()->send(HttpRequest{.url = server.url("/huge")});
  ASSERT_TRUE(resp) << resp.error().describe();
  EXPECT_EQ(resp->body, big);
}

TEST(HttpClientTest, DroppedConnectionsAreIoErrors) {
  LoopbackHttpServer server;
  server.enqueue({.drop_connection = true});
  server.enqueue({.body = std::string(5000, 'z'), .truncate_body_at = 100});
  auto client = make_curl_http_client();
  HttpRequest req;
  req.url = server.url("/flaky");
  auto r1 = client->send(req);
  ASSERT_FALSE(r1);
  EXPECT_EQ(r1.error().code, ErrorCode::Io);
  EXPECT_NE(r1.error().message.find(req.url), std::string::npos);
  auto r2 = client->send(req);
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.error().code, ErrorCode::Io);
  auto r3 = client->send(req);  // the client recovers
  ASSERT_TRUE(r3) << r3.error().describe();
  EXPECT_EQ(r3->body, "ok");
}

TEST(HttpClientTest, InvalidRequestsNameTheField) {
  auto client = make_curl_http_client();
  struct Case {
    HttpRequest req;
    std::string field;
  };
  std::vector<Case> cases = {
      {{.method = "FETCH", .url = "http://127.0.0.1/"}, "method"},
      {{.method = "get", .url = "http://127.0.0.1/"}, "method"},
      {{.url = ""}, "url"},
      {{.url = "not a url"}, "url"},
      {{.url = "ftp://127.0.0.1/file"}, "url"},
      {{.url = "file:///etc/passwd"}, "url"},
      {{.url = "http://127.0.0.1/", .headers = {{"Bad Name", "v"}}}, "headers[0]"},
      {{.url = "http://127.0.0.1/", .headers = {{"ok", "v"}, {"X", "a\r\nInjected: 1"}}}, "headers[1]"},
      {{.url = "http://127.0.0.1/", .timeout = Duration::seconds(0)}, "timeout"},
  };
  for (const auto& c : cases) {
    auto resp = client->send(c.req);
    ASSERT_FALSE(resp) << c.req.method << " " << c.req.url;
    EXPECT_EQ(resp.error().code, ErrorCode::Invalid) << resp.error().describe();
    EXPECT_EQ(resp.error().field, c.field) << resp.error().describe();
  }
}

TEST(HttpClientTest, ConcurrentCallsFromManyThreads) {
  LoopbackHttpServer server;
  server.set_handler([](const budcore::testing::RecordedRequest& r) {
    return ScriptedResponse{.headers = {{"X-Echo", r.header("x-n").value_or("?")}}, .body = "n=" + r.target.substr(3)};
  });
  auto client = make_curl_http_client();
  constexpr int kThreads = 8;
  constexpr int kCalls = 25;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        std::string n = std::to_string(t * 1000 + i);
        HttpRequest req;
        req.url = server.url("/n/" + n);
        req.headers = {{"X-N", n}};
        auto resp = client->send(req);
        if (!resp || resp->status != 200 || resp->body != "n=" + n || header_of(*resp, "x-echo") != n) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), static_cast<std::size_t>(kThreads * kCalls));
  std::set<std::string> targets;
  for (const auto& r : reqs) targets.insert(r.target);
  EXPECT_EQ(targets.size(), reqs.size());
  // Pooled handles keep connections alive: far fewer connections than requests.
  EXPECT_LT(server.connections_accepted(), reqs.size());
}

}  // namespace
