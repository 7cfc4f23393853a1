// make_webhook_notifier over the libcurl client against a real loopback HTTP server.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backends/loopback_http_server.hpp"
#include "budcore/backend/http_client.hpp"
#include "budcore/backend/notifier.hpp"

namespace {

using budcore::backend::make_curl_http_client;
using budcore::backend::make_webhook_notifier;
using budcore::backend::Notification;
using budcore::core::ErrorCode;
using budcore::core::Value;
using budcore::testing::LoopbackHttpServer;
using budcore::testing::ScriptedResponse;

TEST(WebhookNotifierTest, PostsSlackCompatiblePayload) {
  LoopbackHttpServer server;
  auto http = make_curl_http_client();
  auto notifier = make_webhook_notifier(*http, {.url = server.url("/hooks/T000/B000"),
                                                 .headers = {{"Authorization", "Bearer hook"}}});
  Notification n;
  n.channel = "slack";
  n.recipients = {"ops@example.com", "#deployments"};
  n.message = "Pipeline rag-ingest finished: completed";
  n.severity = "warning";
  n.context = Value::map({{"pipeline_id", "rag-ingest"}, {"step_id", "notify-1"}, {"attempt", 2}});
  auto st = notifier->notify(n);
  ASSERT_TRUE(st) << st.error().describe();

  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].target, "/hooks/T000/B000");
  EXPECT_EQ(reqs[0].header("content-type").value_or(""), "application/json");
  EXPECT_EQ(reqs[0].header("authorization").value_or(""), "Bearer hook");
  auto body = nlohmann::json::parse(reqs[0].body);
  EXPECT_EQ(body["text"], n.message);
  EXPECT_EQ(body["channel"], "#deployments");
  EXPECT_EQ(body["severity"], "warning");
  EXPECT_EQ(body["notification_channel"], "slack");
  EXPECT_EQ(body["recipients"], nlohmann::json({"ops@example.com", "#deployments"}));
  EXPECT_EQ(body["context"]["pipeline_id"], "rag-ingest");
  EXPECT_EQ(body["context"]["attempt"], 2);
  ASSERT_EQ(body["blocks"].size(), 2u);
  EXPECT_EQ(body["blocks"][0]["type"], "section");
  EXPECT_EQ(body["blocks"][0]["text"]["type"], "mrkdwn");
  EXPECT_EQ(body["blocks"][0]["text"]["text"], ":warning: " + n.message);
  EXPECT_EQ(body["blocks"][1]["type"], "context");
  EXPECT_EQ(body["blocks"][1]["elements"][0]["text"],
            "*severity*: warning | pipeline_id: rag-ingest | step_id: notify-1 | attempt: 2");
}

TEST(WebhookNotifierTest, MinimalNotificationOmitsOptionalFields) {
  LoopbackHttpServer server;
  auto http = make_curl_http_client();
  auto notifier = make_webhook_notifier(*http, {.url = server.url("/h")});
  Notification n;
  n.message = "hello \"world\"\nline 2";
  ASSERT_TRUE(notifier->notify(n));
  auto body = nlohmann::json::parse(server.requests().at(0).body);
  EXPECT_EQ(body["text"], n.message);
  EXPECT_EQ(body["severity"], "info");
  EXPECT_FALSE(body.contains("channel"));
  EXPECT_FALSE(body.contains("context"));
  EXPECT_EQ(body["blocks"][0]["text"]["text"], ":information_source: " + n.message);
}

TEST(WebhookNotifierTest, Non2xxIsAnErrorNamingTheStatus) {
  LoopbackHttpServer server;
  server.enqueue({.status = 404, .reason = "Not Found", .body = "no_service"});
  server.enqueue({.status = 500, .reason = "Internal Server Error", .body = std::string(1000, 'e')});
  server.enqueue({.status = 204, .reason = "No Content"});
  auto http = make_curl_http_client();
  auto notifier = make_webhook_notifier(*http, {.url = server.url("/h")});
  Notification n;
  n.message = "m";
  auto s1 = notifier->notify(n);
  ASSERT_FALSE(s1);
  EXPECT_EQ(s1.error().code, ErrorCode::Io);
  EXPECT_EQ(s1.error().field, "status");
  EXPECT_EQ(s1.error().value, "404");
  EXPECT_NE(s1.error().message.find("HTTP status 404: no_service"), std::string::npos) << s1.error().message;
  auto s2 = notifier->notify(n);
  ASSERT_FALSE(s2);
  EXPECT_EQ(s2.error().value, "500");
  EXPECT_LT(s2.error().message.size(), 400u);  // the body is only quoted in part
  EXPECT_TRUE(notifier->notify(n));             // any 2xx is success
}

TEST(WebhookNotifierTest, TransportAndInputErrors) {
  auto http = make_curl_http_client();
  Notification n;
  n.message = "m";
  auto empty_url = make_webhook_notifier(*http, {});
  auto s = empty_url->notify(n);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::Invalid);
  EXPECT_EQ(s.error().field, "url");

  LoopbackHttpServer server;
  auto notifier = make_webhook_notifier(*http, {.url = server.url("/h")});
  n.severity = "critical";
  s = notifier->notify(n);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().field, "severity");
  EXPECT_EQ(s.error().value, "critical");
  n.severity = "error";
  n.message.clear();
  s = notifier->notify(n);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().field, "message");
  EXPECT_TRUE(server.requests().empty());  // nothing sent for invalid input

  server.enqueue({.delay = std::chrono::milliseconds(3000)});
  auto slow = make_webhook_notifier(*http, {.url = server.url("/slow"), .timeout = budcore::core::Duration::milliseconds(150)});
  n.message = "m";
  s = slow->notify(n);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::Io);
  EXPECT_NE(s.error().message.find("timed out"), std::string::npos);

  // A notification's own timeout bounds the call when it is the shorter one.
  server.enqueue({.delay = std::chrono::milliseconds(3000)});
  auto patient = make_webhook_notifier(*http, {.url = server.url("/slow")});  // 10 s default
  n.timeout = budcore::core::Duration::milliseconds(150);
  auto t0 = std::chrono::steady_clock::now();
  s = patient->notify(n);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("timed out"), std::string::npos) << s.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(2500));
}

}  // namespace
