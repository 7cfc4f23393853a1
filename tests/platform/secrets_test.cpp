// Secrets by reference (docs/security.md "Secrets"): a planted secret value is used where it
// must be (the HTTP request of an API_CALL step reaches a real loopback server with it) and is
// found nowhere else — not in any result, event, audit entry, error or metric, nor anywhere in
// the bytes of the SQLite database and its WAL — even when the server echoes it back.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/loopback_http_server.hpp"
#include "budcore/backend/secret_provider.hpp"
#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/platform/cost_controls.hpp"
#include "budcore/platform/platform_json.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using core::ErrorCode;

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SecretRefs, ReferencesAreFoundWholeAndBadOnesNamed) {
  auto refs = backend::secret_refs("Bearer secret://api-token, also secret://db.pass_2!");
  ASSERT_TRUE(refs) << refs.error().describe();
  EXPECT_EQ(*refs, (std::vector<std::string>{"api-token", "db.pass_2"}));
  auto bad = backend::secret_refs("x secret:// y", "headers.Authorization");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "headers.Authorization");
}

TEST(SecretResolverTest, ProvidersInOrderInTheTenantsNamespaceAndRedactionPerTenant) {
  TempDir dir;
  const core::Id tenant = tenant_a();
  std::filesystem::create_directories(dir.path / tenant.to_string());
  std::ofstream(dir.path / tenant.to_string() / "db-pass") << "tenant-a-db-password\n";
  std::ofstream(dir.path / "db-pass") << "shared-db-password\n";
  std::ofstream(dir.path / tenant.to_string() / "tiny") << "abc";
  const std::string var = tenant_secret_var(tenant, "only-env", "BUDCORE_TEST_SECRET_");
  ::setenv(var.c_str(), "from-the-environment", 1);
  ::setenv("BUDCORE_TEST_SECRET_ONLY_ENV", "the-platforms-own", 1);
  backend::SecretResolver r({backend::env_secret_provider("BUDCORE_TEST_SECRET_"),
                             backend::file_secret_provider(dir.path.string())},
                            {"db-pass"});
  EXPECT_EQ(r.expand(tenant, "p=secret://db-pass;").value(), "p=tenant-a-db-password;");
  // A shared name falls back to the platform's namespace; no other name does.
  EXPECT_EQ(r.expand(tenant_b(), "secret://db-pass").value(), "shared-db-password");
  EXPECT_EQ(r.expand(tenant, "secret://only-env").value(), "from-the-environment");
  EXPECT_EQ(r.expand(tenant_b(), "secret://only-env").error().code, ErrorCode::NotFound);
  EXPECT_EQ(r.expand(backend::system_tenant(), "secret://only-env").value(), "the-platforms-own");
  auto missing = r.expand(tenant, "secret://nope", "url");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
  EXPECT_EQ(missing.error().field, "url");
  EXPECT_EQ(missing.error().value, "secret://nope");
  // The error names neither a variable nor a directory.
  EXPECT_EQ(missing.error().message.find("BUDCORE_TEST_SECRET"), std::string::npos) << missing.error().message;
  EXPECT_EQ(missing.error().message.find(dir.path.string()), std::string::npos) << missing.error().message;
  EXPECT_EQ(r.expand(tenant, "secret://tiny").error().code, ErrorCode::Invalid);
  EXPECT_EQ(r.redact(tenant, "got tenant-a-db-password and from-the-environment"),
            "got [redacted secret://db-pass] and [redacted secret://only-env]");
  // Redaction is per tenant: another tenant's texts are not searched for these values (that
  // would tell it a value it sent was someone's secret).
  EXPECT_EQ(r.redact(tenant_b(), "got tenant-a-db-password"), "got tenant-a-db-password");
  auto doc = r.redact_value(tenant_b(), core::Value::map({{"k", core::Value::list({"x shared-db-password"})}}));
  EXPECT_EQ(core::to_json(doc), R"({"k":["x [redacted secret://db-pass]"]})");
  EXPECT_TRUE(r.check(tenant, core::Value::map({{"env", core::Value::map({{"A", "secret://db-pass"}})}}), "spec"));
  auto bad = r.check(tenant, core::Value::map({{"env", core::Value::map({{"B", "secret://gone"}})}}), "spec");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "spec.env.B");
  ::unsetenv(var.c_str());
  ::unsetenv("BUDCORE_TEST_SECRET_ONLY_ENV");
}

// Another tenant's file reached by any second name is not a secret of this namespace: a symbolic
// link to it, a hard link to it, a namespace directory that is itself a link to the other's, or
// a FIFO (which must not block the resolver either).
TEST(SecretResolverTest, NoSecondNameReachesAnotherNamespacesFile) {
  namespace fs = std::filesystem;
  TempDir dir;
  const fs::path a = dir.path / tenant_a().to_string();
  const fs::path b = dir.path / tenant_b().to_string();
  fs::create_directories(a);
  fs::create_directories(b);
  std::ofstream(a / "token") << "tenant-a-only-token\n";
  fs::create_symlink(a / "token", b / "soft");
  fs::create_hard_link(a / "token", b / "hard");
  ASSERT_EQ(::mkfifo((b / "fifo").c_str(), 0600), 0);
  backend::SecretResolver r({backend::file_secret_provider(dir.path.string())}, {});
  EXPECT_EQ(r.expand(tenant_b(), "secret://soft").error().code, ErrorCode::NotFound);
  auto hard = r.expand(tenant_b(), "secret://hard");
  ASSERT_FALSE(hard);
  EXPECT_EQ(hard.error().code, ErrorCode::Invalid);
  EXPECT_NE(hard.error().message.find("hard link"), std::string::npos) << hard.error().message;
  // The hard link makes A's own file refuse too, until the second name is gone: a value with two
  // names cannot be told to be A's alone.
  EXPECT_FALSE(r.expand(tenant_a(), "secret://token"));
  fs::remove(b / "hard");
  EXPECT_EQ(r.expand(tenant_a(), "secret://token").value(), "tenant-a-only-token");
  EXPECT_EQ(r.expand(tenant_b(), "secret://fifo").error().code, ErrorCode::NotFound);
  fs::remove_all(b);
  fs::create_directory_symlink(a, b);
  EXPECT_EQ(r.expand(tenant_b(), "secret://token").error().code, ErrorCode::NotFound);
  EXPECT_EQ(r.expand(tenant_a(), "secret://token").value(), "tenant-a-only-token");
}

TEST(PlatformSecrets, APlantedSecretIsUsedAtTheWireAndFoundNowhereElse) {
  const std::string planted = "pl4nted-" + core::Id::generate().to_string();
  const std::string var = tenant_secret_var(tenant_a(), "api-token");
  ::setenv(var.c_str(), planted.c_str(), 1);
  LoopbackHttpServer server;
  // The service echoes what it was sent: the Authorization header and the path.
  server.set_handler([](const RecordedRequest& r) {
    ScriptedResponse resp;
    resp.headers = {{"Content-Type", "application/json"}, {"X-Echo", r.header("authorization").value_or("")}};
    resp.body = core::to_json(core::Value::map({{"seen", r.header("authorization").value_or("")}, {"path", r.target}}));
    return resp;
  });
  TempDir dir;
  const auto db = dir.path / "p.db";
  auto config = platform::PlatformConfig::parse("store: 'sqlite://" + db.string() +
                                                "'\npipelines: {http: curl}\nsecurity: {secrets: [env]}\n");
  ASSERT_TRUE(config) << config.error().describe();
  auto opened = platform::Platform::open(*config);
  ASSERT_TRUE(opened) << opened.error().describe();
  auto& p = **opened;
  std::string seen;  // everything any call returned
  auto keep = [&](const core::Value& v) { seen += core::to_json(v) + "\n"; };

  // A job refers to the secret; one that names a missing secret is refused, naming the field.
  job::Job j = gpu_job("uses-token", 1, 60);
  j.spec = core::Value::map({{"env", core::Value::map({{"API_TOKEN", "secret://api-token"}})}});
  auto sub = p.submit(ctx_a(), j);
  ASSERT_TRUE(sub) << sub.error().describe();
  keep(backend::to_value(sub->record));
  job::Job bad = gpu_job("missing", 1, 60);
  bad.spec = core::Value::map({{"env", core::Value::map({{"DB", "secret://no-such-secret"}})}});
  auto refused = p.submit(ctx_a(), bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "spec.env.DB");
  seen += refused.error().describe() + "\n";

  // A pipeline calls the service with the secret in a header and the URL; the echo comes back.
  const std::string doc = R"({"pipeline": {"id": "s", "name": "secret-call"}, "steps": [
    {"id": "call", "name": "call", "step_type": "API_CALL", "depends_on": [], "config": {
      "url": ")" + server.url("/v1/echo") + R"(?key=secret://api-token", "method": "POST",
      "headers": {"Authorization": "Bearer secret://api-token"}, "body": {"token": "secret://api-token"}}},
    {"id": "down", "name": "down", "step_type": "API_CALL", "depends_on": ["call"], "config": {
      "url": "http://127.0.0.1:1/secret://api-token", "method": "GET", "timeout_seconds": 2}}]})";
  auto run = p.run_pipeline(ctx_a(), core::parse_json(doc).value());
  ASSERT_TRUE(run) << run.error().describe();
  ASSERT_TRUE(p.run_until_idle());
  auto done = p.get_pipeline_run(ctx_a(), run->id);
  ASSERT_TRUE(done);
  keep(done->to_value());
  EXPECT_NE(core::to_json(done->to_value()).find("[redacted secret://api-token]"), std::string::npos)
      << core::to_json(done->to_value());

  // The value reached the service where it was referenced.
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].header("authorization").value_or(""), "Bearer " + planted);
  EXPECT_NE(reqs[0].target.find(planted), std::string::npos);
  EXPECT_NE(reqs[0].body.find(planted), std::string::npos);

  // Every other output: jobs, events, audit, metrics, the cluster view.
  keep(backend::to_value(p.get_job(ctx_a(), sub->record.job.id).value()));
  keep(backend::to_value(p.list_jobs(ctx_a(), {}).value()));
  keep(platform::to_value(p.watch(ctx_a(), 0, 10000).value()));
  keep(backend::to_value(p.list_audit(ctx_a(), {}).value()));
  keep(platform::to_value(p.cluster()));
  seen += p.metrics();
  EXPECT_EQ(seen.find(planted), std::string::npos) << seen.substr(seen.find(planted) - std::min<std::size_t>(seen.find(planted), 200), 400);
  EXPECT_NE(seen.find("secret://api-token"), std::string::npos);  // the reference is what is kept
  opened->reset();

  // And not one byte of the database holds it.
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    auto f = db.string() + suffix;
    if (!std::filesystem::exists(f)) continue;
    EXPECT_EQ(file_bytes(f).find(planted), std::string::npos) << f;
  }
  EXPECT_NE(file_bytes(db).find("secret://api-token"), std::string::npos);
  ::unsetenv(var.c_str());
}

// cost.alerts.webhook may be a secret (a Slack webhook URL is a credential): the alert reaches
// the URL the secret holds, and the config and the errors only ever hold the reference.
TEST(PlatformSecrets, TheBudgetAlertWebhookCanBeASecret) {
  LoopbackHttpServer receiver;
  receiver.enqueue({.status = 500, .reason = "Internal Server Error", .body = "down"});
  const std::string hook = receiver.url("/hooks/T0-" + core::Id::generate().to_string());
  ::setenv("BUDCORE_SECRET_ALERT_HOOK", hook.c_str(), 1);
  TempDir store;
  auto config = platform::PlatformConfig::parse(budget_alert_config((store.path / "b.db").string(), "secret://alert-hook"));
  ASSERT_TRUE(config) << config.error().describe();
  auto p = platform::Platform::open(*config);
  ASSERT_TRUE(p) << p.error().describe();
  ASSERT_TRUE((*p)->submit(ctx_a(), gpu_job("hour", 1, 3600)));
  ASSERT_TRUE((*p)->submit(ctx_a(), gpu_job("ninety-minutes", 1, 5400)));
  ASSERT_TRUE((*p)->run_until_idle());
  auto sent = receiver.requests();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0].target, hook.substr(hook.find("/hooks/")));
  auto costs = (*p)->cost_controls();
  ASSERT_TRUE(costs && costs->last_alert_error());
  const std::string err = costs->last_alert_error()->describe();
  EXPECT_EQ(err.find(hook), std::string::npos) << err;
  EXPECT_NE(err.find("secret://alert-hook"), std::string::npos) << err;
  EXPECT_EQ(platform::PlatformConfig::parse("store: x\ncost: {prices: {currency: USD}, alerts: {webhook: 'ftp://x'}}")
                .error()
                .field,
            "cost.alerts.webhook");
  ::unsetenv("BUDCORE_SECRET_ALERT_HOOK");
}

}  // namespace
}  // namespace budcore::testing
