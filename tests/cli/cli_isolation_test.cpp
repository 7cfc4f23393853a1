// The cross-tenant matrix through the built `budcore` binary, on SQLite and on a real PostgreSQL
// server (docs/security.md "Tenant isolation"): tenant A owns a job (SQL metacharacters in its
// spec and idempotency key), a pipeline run and a deployment; tenant B runs every command on
// their ids and gets what an id that exists nowhere gets; B's lists, events, audit and
// deployments name nothing of A's; A's cursor and key give B only its own; a document claiming
// A's tenant is refused; A's job reads as it did before.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// ---- The tenant boundary, class by class (docs/security.md), generated from tables ----------
// Tenant B is a legitimate user of its own tenant. For every way an identifier enters (a
// document's id, each field only the platform writes, an idempotency key, a secret name) B tries
// tenant A's identifiers and a fresh one through `budcore platform submit`: each is refused with
// exit 2 and the expected code and path, and the refusal for A's identifier is the fresh one's
// once the identifier itself is replaced. A's objects are untouched; B's event and audit numbers
// are 1, 2, ... with a chain of its own. The submit limit is kept in the store, so successive
// processes share one token bucket.

constexpr const char* kFresh = "00000000-0000-4000-8000-00000000f00d";
constexpr const char* kFields = R"("name": "b-claims", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 0, )"
                                R"("estimated_duration_seconds": 600)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// Every way an identifier enters a submitted document (<job>: a job's fields, @: the
// identifier) and the path its refusal names. A document without `source` has it read from its
// pipeline_id or usecase_deployment_id, and a step without its pipeline fails the document's own
// checks, so the bare spellings name `source` or `pipeline_id`.
const std::vector<std::pair<std::string, std::string>> kWays = {
    {R"({<job>, "id": "@"})", "id"},
    {R"({"jobs": [{<job>, "id": "@"}, {<job>}]})", "jobs[0].id"},
    {R"({"jobs": [{<job>}, {<job>}, {"job": {<job>, "id": "@"}, "idempotency_key": "k"}]})", "jobs[2].id"},
    {R"({<job>, "source": "direct", "pipeline_id": "@"})", "pipeline_id"},
    {R"({<job>, "source": "direct", "pipeline_id": "@", "pipeline_step_id": "@"})", "pipeline_id"},
    {R"({<job>, "source": "direct", "usecase_deployment_id": "@"})", "usecase_deployment_id"},
    {R"({<job>, "source": "pipeline", "pipeline_id": "@"})", "source"},
    {R"({<job>, "source": "pipeline", "pipeline_id": "@", "pipeline_step_id": "@", "source_id": "@"})", "source"},
    {R"({<job>, "source": "usecase", "usecase_deployment_id": "@", "source_id": "@"})", "source"},
    {R"({<job>, "source_id": "@"})", "source_id"},
    {R"({<job>, "pipeline_id": "@"})", "source"},
    {R"({<job>, "usecase_deployment_id": "@"})", "source"},
    {R"({<job>, "pipeline_step_id": "@"})", "pipeline_id"},
    {R"({<job>, "outputs": {"model_url": "s3://@"}})", "outputs"},
    {R"({<job>, "actual_cost": "12.50"})", "actual_cost"},
    {R"({"jobs": [{<job>}, {<job>, "source": "direct", "pipeline_id": "@"}]})", "jobs[1].pipeline_id"},
};

// Every spelling of the key A's pipeline step will use (@: A's run id), and A's own key.
const std::vector<std::string> kKeys = {"@/train/1", "budcore:pipeline/@/train/1", "budcore:@/train/1",
                                        "budcore:pipeline/@/train/2", "BUDCORE:pipeline/@/train/1",
                                        " budcore:pipeline/@/train/1", "Budcore:pipeline/@/train/1", "budcore:",
                                        "budcore:pipeline/", "a-key"};

std::string tenant_hex(const std::string& tenant) {
  std::string hex;
  for (char c : tenant)
    if (c != '-') hex += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return hex;
}

// Every way B could name A's secret `api-token` (env) or `db-pass` (file).
std::vector<std::string> secret_spellings() {
  const std::string a = kTenantA, hex = tenant_hex(a);
  std::string upper = a;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::vector<std::string> out = {"api-token", "API_TOKEN", "api_token", "db-pass", a, "..", ".", "BUDCORE_SECRET_API_TOKEN",
                                  hex, "BUDCORE_SECRET_" + hex + "_API_TOKEN", "BUDCORE_SECRET_" + hex + "_api-token"};
  for (const std::string& form : {a, replaced(a, "-", ""), hex, upper})
    for (const char* sep : {"_", "-", "."})
      for (const char* name : {"api-token", "API_TOKEN", "api.token", "api_token", "db-pass"}) out.push_back(form + sep + name);
  return out;
}

// A tenant's audit page: seq 1, 2, ..., the first prev_hash 64 zeros, each prev_hash the hash
// before it; how many entries.
std::size_t audit_chain(const json& page) {
  std::string prev(64, '0');
  std::size_t n = 0;
  for (const auto& e : page["items"]) {
    EXPECT_EQ(e["seq"], ++n);
    EXPECT_EQ(e["prev_hash"], prev) << n;
    prev = e["hash"];
  }
  return n;
}

TEST_P(CliIsolation, NoIdentifierOfTenantBReachesTenantA) {
  auto store = budcore::testing::make_target(GetParam());
  if (!store.skip.empty()) GTEST_SKIP() << store.skip;
  ASSERT_TRUE(store.error.empty()) << store.error;
  // A's secrets: an env variable and a file of A's namespace; the platform's own variables, one
  // of them shared. The CLI processes inherit the variables.
  const fs::path files = dir_ / "secrets";
  fs::create_directories(files / kTenantA);
  std::ofstream(files / kTenantA / "db-pass") << "a-file-secret-2f9c41";
  const std::string a_var = "BUDCORE_SECRET_" + tenant_hex(kTenantA) + "_API_TOKEN";
  ::setenv(a_var.c_str(), "a-env-secret-77b1e0", 1);
  ::setenv("BUDCORE_SECRET_API_TOKEN", "platform-secret-5d0a93", 1);
  ::setenv("BUDCORE_SECRET_SHARED_HOOK", "platform-secret-5d0a93", 1);
  config_ = dir_ / "platform.yaml";
  std::ofstream(config_) << "store: " << quote(store.uri) << "\nsecurity:\n  secrets: [env, {file: " << quote(files.string())
                         << "}]\n  shared_secrets: [shared-hook]\n";
  const std::string a = as(kTenantA, "user:alice"), b = as(kTenantB, "user:bob");
  auto doc_file = [&](const std::string& doc) {  // one file for every attempt: errors cannot differ by path
    fs::path f = dir_ / "attempt.json";
    std::ofstream(f) << replaced(doc, "<job>", kFields);
    return quote(f.string());
  };

  // Tenant A: a running job under a key of its own, a run whose JOB step will take the key
  // budcore:pipeline/<run>/train/1, a deployment, a job that uses its secrets.
  json running = job("a-running");
  running["estimated_duration_seconds"] = 7200;
  const std::string job_id = ok("platform submit " + quote(write("a.json", running).string()) + " --key a-key" + a)["job"]["id"];
  json train_step = {{"id", "train"}, {"name", "train"}, {"step_type", "JOB"}, {"depends_on", {"wait"}},
                     {"config", {{"job_type", "BATCH"}, {"deployment_type", "DOCKER"}, {"gpu_type", "nvidia-a100-80gb"},
                                 {"gpu_count", 1}, {"estimated_duration_seconds", 600},
                                 {"sim", {{"outputs", {{"model_url", "s3://a/model"}}}}}}}};
  json pipeline = {{"pipeline", {{"id", "p"}, {"name", "a-train-pipe"}}},
                   {"steps", {{{"id", "wait"}, {"name", "wait"}, {"step_type", "WAIT"}, {"depends_on", json::array()},
                               {"config", {{"duration_seconds", 600}}}},
                              train_step}}};
  const std::string run_id = ok("platform pipeline " + quote(write("p.json", pipeline).string()) + a)["id"];
  const std::string dep_id = ok("usecase deploy simple-chatbot-v1 --param gpu_type=nvidia-a100-80gb --param "
                                "model_id=meta-llama/Llama-3.1-8B-Instruct" + a)["id"];
  ok("platform run --for 30 --config " + quote(config_.string()));
  ok("platform submit " + doc_file(R"({<job>, "spec": {"env": {"T": "secret://api-token", "P": "secret://db-pass"}}})") + a);
  auto holds = [&] {
    return ok("platform get " + job_id + a).dump() + "\n" + ok("platform list" + a).dump() + "\n" +
           ok("platform run-status " + run_id + a).dump() + "\n" + ok("usecase deployment " + dep_id + a).dump();
  };
  const std::string before = holds();
  ASSERT_NE(before.find(R"("status":"running")"), std::string::npos) << before;
  const std::vector<std::string> a_ids = {job_id, run_id, dep_id};
  std::size_t b_writes = 0;

  // Class 1 and 2: every way in, with each of A's ids and a fresh one; A may not either.
  for (const auto& [way, path] : kWays) {
    SCOPED_TRACE(way);
    auto fresh = refused("platform submit " + doc_file(replaced(way, "@", kFresh)) + b, kFresh);
    ASSERT_EQ(fresh.first, 2) << fresh.second;
    const json err = json::parse(fresh.second)["error"];
    EXPECT_EQ(err["code"], "invalid");
    EXPECT_EQ(err["path"], path);
    if (path == "id")
      EXPECT_EQ(err["message"], "is assigned by the platform: submit without an id (an idempotency key makes a submit safe "
                                "to repeat)");
    EXPECT_EQ(refused("platform submit " + doc_file(replaced(way, "@", kFresh)) + a, kFresh), fresh);
    for (const std::string& ident : a_ids)
      EXPECT_EQ(refused("platform submit " + doc_file(replaced(way, "@", ident)) + b, ident), fresh) << ident;
  }

  // Idempotency keys: the platform's namespace is refused alike for A's run and a fresh one (and
  // for A); any other key is B's own, in B's tenant.
  for (const std::string& key : kKeys) {
    SCOPED_TRACE(key);
    const std::string with_a = replaced(key, "@", run_id), with_fresh = replaced(key, "@", kFresh);
    const std::string plain = doc_file("{<job>}");
    if (key.starts_with("budcore:")) {
      auto fresh = refused("platform submit " + plain + " --key " + quote(with_fresh) + b, kFresh);
      ASSERT_EQ(fresh.first, 2) << fresh.second;
      const json err = json::parse(fresh.second)["error"];
      EXPECT_EQ(err["code"], "invalid");
      EXPECT_EQ(err["path"], "idempotency_key");
      EXPECT_EQ(err["value"], replaced(key, "@", "<id>"));
      EXPECT_EQ(refused("platform submit " + plain + " --key " + quote(with_a) + b, run_id), fresh);
      EXPECT_EQ(refused("platform submit " + plain + " --key " + quote(with_a) + a, run_id), fresh);
      continue;
    }
    for (const std::string& k : with_a == with_fresh ? std::vector<std::string>{with_a} : std::vector<std::string>{with_a, with_fresh}) {
      const json made = ok("platform submit " + plain + " --key " + quote(k) + b);
      EXPECT_EQ(made["created"], true);
      EXPECT_EQ(made["job"]["tenant_id"], kTenantB);
      for (const std::string& id : a_ids) EXPECT_NE(made["job"]["id"], id);
      ++b_writes;
    }
  }

  // Class 3: every spelling of A's secret names is B's not-found, the one any name gets; the
  // shared name falls back to the platform's.
  auto uses = [&](const std::string& ref) {
    return "platform submit " + doc_file(R"({<job>, "spec": {"env": {"TOKEN": "secret://)" + ref + R"("}}})") + b;
  };
  ok(uses("shared-hook"));
  ++b_writes;
  const auto unknown = refused(uses("no-such-secret"), "secret://no-such-secret");
  ASSERT_EQ(unknown.first, 2);
  EXPECT_EQ(json::parse(unknown.second)["error"]["code"], "not_found");
  EXPECT_EQ(json::parse(unknown.second)["error"]["path"], "spec.env.TOKEN");
  const auto spellings = secret_spellings();
  EXPECT_EQ(spellings.size(), 71u);
  for (const std::string& ref : spellings) {
    auto said = refused(uses(ref), "secret://" + ref);
    EXPECT_EQ(said, unknown) << ref;
    EXPECT_EQ(said.second.find("BUDCORE_SECRET"), std::string::npos) << said.second;
    EXPECT_EQ(said.second.find(files.string()), std::string::npos) << said.second;
  }

  // A holds what it held, byte for byte; its step takes the platform's key in A's tenant.
  EXPECT_EQ(holds(), before);
  ok("platform run --for 10800 --config " + quote(config_.string()));
  const json done = ok("platform run-status " + run_id + a);
  EXPECT_EQ(done["status"], "completed");
  EXPECT_NE(done.dump().find("s3://a/model"), std::string::npos);
  auto of_run = [&](const std::string& who) {
    std::vector<json> rows;
    const json page = ok("platform list --limit 1000" + who);
    for (const auto& item : page["items"])
      if (item["pipeline_id"] == run_id) rows.push_back(item);
    return rows;
  };
  const auto steps = of_run(a);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0]["idempotency_key"], "budcore:pipeline/" + run_id + "/train/1");
  EXPECT_TRUE(of_run(b).empty());

  // Class 6: B's numbers count B's own.
  const json events = ok("platform watch --limit 10000" + b);
  ASSERT_FALSE(events["events"].empty());
  for (std::size_t i = 0; i < events["events"].size(); ++i) EXPECT_EQ(events["events"][i]["seq"], i + 1);
  EXPECT_EQ(events["last_seq"], events["events"].size());
  const json b_audit = ok("platform audit --limit 1000" + b);
  EXPECT_EQ(audit_chain(b_audit), b_writes);
  EXPECT_EQ(b_audit.dump().find(kTenantA), std::string::npos);
  EXPECT_GE(audit_chain(ok("platform audit --limit 1000" + a)), 4u);
  EXPECT_EQ(ok("platform check --config " + quote(config_.string()))["ok"], true);
  ::unsetenv(a_var.c_str());
  ::unsetenv("BUDCORE_SECRET_API_TOKEN");
  ::unsetenv("BUDCORE_SECRET_SHARED_HOOK");
}

// A new process is no new token bucket: the limit is kept in the store.
TEST_P(CliIsolation, SubmitLimitHoldsAcrossProcesses) {
  auto store = budcore::testing::make_target(GetParam());
  if (!store.skip.empty()) GTEST_SKIP() << store.skip;
  ASSERT_TRUE(store.error.empty()) << store.error;
  config_ = dir_ / "platform.yaml";
  std::ofstream(config_) << "store: " << quote(store.uri)
                         << "\nsecurity:\n  tenants:\n    '*': {submits_per_second: 0.01, submit_burst: 3}\n";
  const std::string a = as(kTenantA, "user:alice"), b = as(kTenantB, "user:bob");
  const std::string file = quote(write("j.json", job("limited")).string());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ok("platform submit " + file + a)["created"], true) << i;
  auto fourth = refused("platform submit " + file + a, "");
  ASSERT_EQ(fourth.first, 2) << fourth.second;
  const json err = json::parse(fourth.second)["error"];
  EXPECT_EQ(err["code"], "rate_limited");
  EXPECT_GT(err["retry_after_ms"].get<long>(), 0);
  EXPECT_EQ(ok("platform list" + a)["items"].size(), 3u);
  // The bucket is A's: B's processes start with B's own burst.
  EXPECT_EQ(ok("platform submit " + file + b)["created"], true);
}

INSTANTIATE_TEST_SUITE_P(Stores, CliIsolation, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
