// `budcore job submit/get/list --store URI --tenant T` driven through the built binary, as an
// operator or an acceptance test would: JSON on stdout, an error object on stderr, exit 0/2/1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;

class CliStoreTest : public budcore::test::detail::CliFixture {
 protected:
  CliStoreTest() : CliFixture("budcore_cli_store_") {}
  void SetUp() override {
    CliFixture::SetUp();
    store_ = "sqlite://" + (dir_ / "jobs.db").string();
  }
  static fs::path spec(const std::string& name) {
    return fs::path(BUDCORE_SOURCE_DIR) / "examples" / "specs" / "jobs" / name;
  }
  static std::string new_tenant() {
    std::random_device rd;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-8%03x-%04x%08x", rd(), rd() & 0xffff, rd() & 0xfff, rd() & 0xfff,
                  rd() & 0xffff, rd());
    return buf;
  }

  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  CliRun run(const std::string& args, const fs::path& stdin_file = {}) {
    return run_cli(args, dir_ / "stderr.txt", stdin_file);
  }

  std::string on(const std::string& tenant) const { return " --store " + quote(store_) + " --tenant " + tenant; }

  static json error_of(const CliRun& r) {
    json j = json::parse(r.err, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stderr is not JSON: " << r.err;
    if (j.is_discarded() || !j.contains("error")) return json::object();
    return j["error"];
  }

  std::string store_;
  // The tenant the example job specs name (each test has a store file of its own).
  const std::string tenant_ = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b";
};

TEST_F(CliStoreTest, SubmitThenGetRoundTripsAndRetriesAreIdempotent) {
  CliRun s = run("job submit " + quote(spec("llm-endpoint.json").string()) + on(tenant_) + " --idempotency-key req-7");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  json first = json::parse(s.out);
  EXPECT_EQ(first["created"], true);
  EXPECT_EQ(first["version"], 1);
  EXPECT_EQ(first["idempotency_key"], "req-7");
  EXPECT_EQ(first["job"]["name"], "llama-70b-endpoint");
  EXPECT_EQ(first["job"]["tenant_id"], tenant_);
  const std::string id = first["job"]["id"];

  CliRun again = run("job submit " + quote(spec("llm-endpoint.json").string()) + on(tenant_) + " --idempotency-key req-7");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  json second = json::parse(again.out);
  EXPECT_EQ(second["created"], false);
  EXPECT_EQ(second["job"]["id"], id);

  CliRun g = run("job get " + id + on(tenant_));
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(json::parse(g.out)["job"], first["job"]);
}

TEST_F(CliStoreTest, TransitionIsACompareAndSetOnTheVersion) {
  CliRun s = run("job submit " + quote(spec("llm-endpoint.json").string()) + on(tenant_));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const std::string id = json::parse(s.out)["job"]["id"];
  CliRun q = run("job transition " + id + " queued --version 1 --message 'in line'" + on(tenant_));
  ASSERT_EQ(q.exit_code, 0) << q.err;
  json moved = json::parse(q.out);
  EXPECT_EQ(moved["version"], 2);
  EXPECT_EQ(moved["job"]["status"], "queued");
  EXPECT_EQ(moved["job"]["status_message"], "in line");
  // The version the caller read moved on: a conflict, nothing changed.
  CliRun stale = run("job transition " + id + " scheduled --version 1" + on(tenant_));
  EXPECT_EQ(stale.exit_code, 2);
  EXPECT_EQ(error_of(stale)["code"], "conflict");
  CliRun illegal = run("job transition " + id + " completed --version 2" + on(tenant_));
  EXPECT_EQ(illegal.exit_code, 2);
  EXPECT_EQ(error_of(illegal)["code"], "conflict");
  CliRun unknown = run("job transition " + id + " finished --version 2" + on(tenant_));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(error_of(unknown)["path"], "to");
  EXPECT_EQ(json::parse(run("job get " + id + on(tenant_)).out)["version"], 2);
}

TEST_F(CliStoreTest, MigrateCreatesTheSchemaThenHasNothingToDo) {
  CliRun first = run("store migrate " + quote(store_));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  json j = json::parse(first.out);
  EXPECT_EQ(j["from_schema_version"], 0);
  EXPECT_EQ(j["migrated"], true);
  json again = json::parse(run("store migrate " + quote(store_)).out);
  EXPECT_EQ(again["from_schema_version"], j["schema_version"]);
  EXPECT_EQ(again["migrated"], false);
}

TEST_F(CliStoreTest, SubmitReadsYamlFromStandardInput) {
  fs::path yaml = write("job.yaml",
                        "name: finetune-small\njob_type: training\ndeployment_type: docker\n"
                        "gpu_type: nvidia-h100-sxm\ngpu_count: 4\nspec:\n  image: trainer:1\n");
  CliRun s = run("job submit -" + on(tenant_), yaml);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  json j = json::parse(s.out);
  EXPECT_EQ(j["job"]["job_type"], "training");
  EXPECT_EQ(j["job"]["gpu_count"], 4);
  EXPECT_EQ(j["idempotency_key"], nullptr);
  // A deadline already past (the example spec's) is refused at submit, naming the field.
  CliRun late = run("job submit " + quote(spec("finetune-nightly.yaml").string()) + on(tenant_));
  EXPECT_EQ(late.exit_code, 2);
  EXPECT_EQ(error_of(late)["path"], "deadline");
}

TEST_F(CliStoreTest, ListPagesFiltersAndShowsSummariesOrFullRecords) {
  for (const char* f : {"llm-endpoint.json", "batch-embeddings.json", "spot-mig-inference.json"}) {
    ASSERT_EQ(run("job submit " + quote(spec(f).string()) + on(tenant_)).exit_code, 0);
  }
  CliRun p1 = run("job list" + on(tenant_) + " --limit 2");
  ASSERT_EQ(p1.exit_code, 0) << p1.err;
  json a = json::parse(p1.out);
  ASSERT_EQ(a["items"].size(), 2u);
  EXPECT_TRUE(a["items"][0].contains("status"));
  EXPECT_TRUE(a["items"][0].contains("gpu_count"));
  std::string cursor = a["next_cursor"];
  ASSERT_FALSE(cursor.empty());
  CliRun p2 = run("job list" + on(tenant_) + " --limit 2 --full --after " + quote(cursor));
  ASSERT_EQ(p2.exit_code, 0) << p2.err;
  json b = json::parse(p2.out);
  ASSERT_EQ(b["items"].size(), 1u);
  EXPECT_EQ(b["next_cursor"], "");
  EXPECT_TRUE(b["items"][0]["job"].contains("spec"));
  // Newest first: the last submitted job leads the first page.
  EXPECT_EQ(a["items"][0]["name"], "spot-batch-inference");
  EXPECT_EQ(b["items"][0]["job"]["name"], "llama-70b-endpoint");
  CliRun pending = run("job list" + on(tenant_) + " --status pending --status queued");
  ASSERT_EQ(pending.exit_code, 0) << pending.err;
  EXPECT_EQ(json::parse(pending.out)["items"].size(), 3u);
  CliRun running = run("job list" + on(tenant_) + " --status running");
  ASSERT_EQ(running.exit_code, 0) << running.err;
  EXPECT_TRUE(json::parse(running.out)["items"].empty());
  // Another tenant sees nothing.
  CliRun other = run("job list" + on(new_tenant()));
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_TRUE(json::parse(other.out)["items"].empty());
}

TEST_F(CliStoreTest, BadInputExitsTwoNamingTheField) {
  fs::path bad = write("bad.json", R"({"name": "Bad_Name", "job_type": "batch", "deployment_type": "docker"})");
  CliRun r = run("job submit " + quote(bad.string()) + on(tenant_));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "name");
  EXPECT_TRUE(r.out.empty());

  // The spec names tenant_ as its owner: another tenant cannot submit it.
  r = run("job submit " + quote(spec("llm-endpoint.json").string()) + on(new_tenant()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "tenant_id");

  r = run("job list" + on("not-a-uuid"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "tenant");

  r = run("job list" + on(tenant_) + " --status sleeping");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "status[0]");

  r = run("job list" + on(tenant_) + " --limit 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "limit");

  r = run("job list" + on(tenant_) + " --after forged");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "page.after");

  r = run("job get 0190a0a0-0000-7000-8000-000000000000" + on(tenant_));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["code"], "not_found");

  r = run("job submit " + quote((dir_ / "missing.json").string()) + on(tenant_));
  EXPECT_EQ(r.exit_code, 2);

  r = run("job list --tenant " + tenant_);  // --store is required
  EXPECT_EQ(r.exit_code, 2);
}

// A document with several problems: submit names every one, as job validate does, the first
// being the error a single-error reader sees, and stores nothing.
TEST_F(CliStoreTest, SubmitReportsEveryProblemAndStoresNothing) {
  fs::path bad = write("mixed.json", R"({"name":"ok","job_type":"batch","deployment_type":"DOCKER",
    "spec":{"image":"x/y"},"gpu_count":-1,"cpu_cores":-2,"priority":"ultra"})");
  CliRun r = run("job submit " + quote(bad.string()) + on(tenant_));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  json all = json::parse(r.err);
  std::vector<std::string> paths;
  for (const auto& e : all["errors"]) paths.push_back(e["path"]);
  EXPECT_EQ(paths, (std::vector<std::string>{"priority", "gpu_count", "cpu_cores"})) << r.err;
  EXPECT_EQ(all["error"], all["errors"][0]);
  EXPECT_EQ(all["errors"][1], (json{{"code", "invalid"}, {"message", "must not be negative"}, {"path", "gpu_count"},
                                    {"value", "-1"}}));
  CliRun listed = run("job list" + on(tenant_));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_TRUE(json::parse(listed.out)["items"].empty());
}

TEST_F(CliStoreTest, AStoreThatCannotBeOpenedExitsOne) {
  CliRun r = run("job list --store " + quote("sqlite://" + (dir_ / "no" / "such" / "dir.db").string()) +
                 " --tenant " + tenant_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(error_of(r)["code"], "io");
}

TEST_F(CliStoreTest, ValidateStillNeedsNoStore) {
  CliRun r = run("job validate " + quote(spec("llm-endpoint.json").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["name"], "llama-70b-endpoint");
}

}  // namespace
