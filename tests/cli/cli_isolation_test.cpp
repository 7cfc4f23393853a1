// The cross-tenant matrix through the built `budcore` binary, on SQLite and on a real PostgreSQL
// server (docs/security.md "Tenant isolation"): tenant A owns a job (SQL metacharacters in its
// spec and idempotency key), a pipeline run and a deployment; tenant B runs every command on
// their ids and gets what an id that exists nowhere gets; B's lists, events, audit and
// deployments name nothing of A's; A's cursor and key give B only its own; a document claiming
// A's tenant is refused; A's job reads as it did before.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/store_fixture.hpp"
#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using budcore::test::detail::slurp;
using nlohmann::json;

constexpr const char* kTenantA = "00000000-0000-4000-8000-0000000000a7";
constexpr const char* kTenantB = "00000000-0000-4000-8000-0000000000b7";
constexpr const char* kUnknown = "00000000-0000-4000-8000-00000000dead";
constexpr const char* kEvil = "x'); DROP TABLE jobs; -- \" OR 1=1 --";

class CliIsolation : public budcore::test::detail::CliFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  CliIsolation() : CliFixture("budcore_cli_isolation_") {}

  fs::path write(const std::string& name, const json& doc) const {
    fs::path f = dir_ / name;
    std::ofstream(f) << doc.dump();
    return f;
  }
  std::string as(const char* tenant, const char* principal) const {
    return " --config " + quote(config_.string()) + " --tenant " + tenant + " --principal " + principal;
  }
  static json job(const std::string& name) {
    return {{"name", name}, {"job_type", "BATCH"}, {"deployment_type", "DOCKER"}, {"gpu_count", 0},
            {"estimated_duration_seconds", 3600}};
  }
  // Runs a command expected to succeed and returns its JSON.
  json ok(const std::string& args) {
    auto r = run_cli(args, dir_ / "err.json");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << slurp(dir_ / "err.json");
    return r.exit_code == 0 ? json::parse(r.out) : json();
  }
  // A refused command: its exit code and its error with `id` replaced by <id>.
  std::pair<int, std::string> refused(const std::string& args, const std::string& id) {
    auto r = run_cli(args, dir_ / "err.json");
    std::string err = slurp(dir_ / "err.json");
    if (!id.empty())
      for (auto at = err.find(id); at != std::string::npos; at = err.find(id)) err.replace(at, id.size(), "<id>");
    return {r.exit_code, err};
  }

  fs::path config_;
};

TEST_P(CliIsolation, TenantBCanNeitherSeeNorInferNorChangeAnythingOfTenantA) {
  auto store = budcore::testing::make_target(GetParam());
  if (!store.skip.empty()) GTEST_SKIP() << store.skip;
  ASSERT_TRUE(store.error.empty()) << store.error;
  config_ = dir_ / "platform.yaml";
  std::ofstream(config_) << "store: " << quote(store.uri) << "\n";
  const std::string a = as(kTenantA, "user:alice"), b = as(kTenantB, "user:bob");

  // Tenant A: a job with metacharacters in its spec and key, a pipeline run, a deployment.
  json evil_job = job("a-train");
  evil_job["spec"] = {{"note", kEvil}, {kEvil, "a key too"}};
  const std::string job_id = ok("platform submit " + quote(write("a.json", evil_job).string()) + " --key " + quote(kEvil) + a)["job"]["id"];
  ok("platform submit " + quote(write("a2.json", job("a-two")).string()) + " --key shared" + a);
  json pipeline = {{"pipeline", {{"id", "p"}, {"name", "a-pipe"}}},
                   {"steps", {{{"id", "s"}, {"name", "s"}, {"step_type", "WAIT"}, {"depends_on", json::array()},
                               {"config", {{"duration_seconds", 3600}}}}}}};
  const std::string run_id = ok("platform pipeline " + quote(write("p.json", pipeline).string()) + a)["id"];
  const std::string dep_id = ok("usecase deploy simple-chatbot-v1 --param gpu_type=nvidia-a100-80gb --param "
                                "model_id=meta-llama/Llama-3.1-8B-Instruct" + a)["id"];
  ok("platform run --for 60 --config " + quote(config_.string()));
  const json before = ok("platform get " + job_id + a);

  // Every command on A's ids by B: what an id that exists nowhere gets.
  struct Probe {
    std::string command;
    std::string id;
  };
  for (const Probe& probe : {Probe{"platform get", job_id}, Probe{"platform cancel", job_id}, Probe{"platform retry", job_id},
                             Probe{"platform preempt", job_id}, Probe{"platform run-status", run_id},
                             Probe{"platform run-cancel", run_id}, Probe{"usecase deployment", dep_id},
                             Probe{"usecase teardown", dep_id}}) {
    SCOPED_TRACE(probe.command);
    auto on_a = refused(probe.command + " " + probe.id + b, probe.id);
    auto on_none = refused(probe.command + " " + kUnknown + b, kUnknown);
    EXPECT_EQ(on_a.first, 2);
    EXPECT_EQ(on_a, on_none);
    EXPECT_EQ(on_a.second.find("a-"), std::string::npos) << on_a.second;
  }
  auto prio_a = refused("platform priority " + job_id + " critical" + b, job_id);
  EXPECT_EQ(prio_a, refused(std::string("platform priority ") + kUnknown + " critical" + b, kUnknown));
  EXPECT_EQ(json::parse(prio_a.second)["error"]["code"], "not_found");

  // B's lists, events, audit and deployments hold nothing of A's; A's cursor lists only B's jobs.
  ok("platform submit " + quote(write("b.json", job("b-job")).string()) + b);
  const json a_page = ok("platform list --limit 1" + a);
  ASSERT_TRUE(a_page["next_cursor"].is_string());
  auto with_a_cursor = run_cli("platform list --after " + quote(a_page["next_cursor"].get<std::string>()) + b);
  if (with_a_cursor.exit_code == 0) {
    const json page = json::parse(with_a_cursor.out);  // named: a range-for over a temporary's member dangles
    for (const auto& item : page["items"]) EXPECT_EQ(item["name"], "b-job");
  } else {
    EXPECT_EQ(with_a_cursor.exit_code, 2);
  }
  const std::string b_sees = ok("platform list" + b).dump() + ok("platform watch --limit 10000" + b).dump() +
                             ok("platform audit" + b).dump() + ok("usecase deployments" + b).dump();
  for (const std::string& of_a : {job_id, run_id, dep_id, std::string("a-train"), std::string("a-pipe"),
                                  std::string(kTenantA), std::string("DROP TABLE")})
    EXPECT_EQ(b_sees.find(of_a), std::string::npos) << of_a;

  // A's idempotency keys replayed by B make jobs of B's own.
  for (const std::string& key : {std::string("shared"), std::string(kEvil)}) {
    json replay = ok("platform submit " + quote(write("b2.json", job("b-keyed")).string()) + " --key " + quote(key) + b);
    EXPECT_EQ(replay["created"], true);
    EXPECT_EQ(replay["job"]["tenant_id"], kTenantB);
  }

  // A document claiming A's tenant is refused, naming the field.
  json forged = job("forged");
  forged["tenant_id"] = kTenantA;
  auto f = refused("platform submit " + quote(write("f.json", forged).string()) + b, "");
  EXPECT_EQ(f.first, 2);
  EXPECT_EQ(json::parse(f.second)["error"]["path"], "tenant_id");

  // A's job is as it was, metacharacters and all; A's run still runs.
  const json after = ok("platform get " + job_id + a);
  EXPECT_EQ(after, before);
  EXPECT_EQ(after["job"]["spec"]["note"], kEvil);
  EXPECT_EQ(after["job"]["spec"][kEvil], "a key too");
  EXPECT_EQ(ok("platform run-status " + run_id + a)["status"], "running");
  EXPECT_EQ(ok("platform check --config " + quote(config_.string()))["ok"], true);
}

INSTANTIATE_TEST_SUITE_P(Stores, CliIsolation, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
