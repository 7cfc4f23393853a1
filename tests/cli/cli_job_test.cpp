// Drives the built `budcore` binary as a user or an acceptance test would: arguments in,
// JSON on stdout, an error object on stderr, exit codes 0/2/1 (docs/cli.md's general rules).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;

class CliJobTest : public budcore::test::detail::CliFixture {
 protected:
  CliJobTest() : CliFixture("budcore_cli_") {}
  static fs::path spec(const std::string& name) {
    return fs::path(BUDCORE_SOURCE_DIR) / "examples" / "specs" / "jobs" / name;
  }

  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  // Runs `budcore <args>` (args already shell-quoted), optionally feeding stdin from a file.
  CliRun run(const std::string& args, const fs::path& stdin_file = {}) {
    return run_cli(args, dir_ / "stderr.txt", stdin_file);
  }

  // Parses the single-line error object of docs/cli.md from stderr.
  static json error_of(const CliRun& r) {
    json j = json::parse(r.err, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stderr is not JSON: " << r.err;
    EXPECT_TRUE(j.contains("error")) << r.err;
    if (j.is_discarded() || !j.contains("error")) return json::object();
    const json& e = j["error"];
    EXPECT_TRUE(e.contains("code") && e.contains("message") && e.contains("path")) << r.err;
    return e;
  }

};

TEST_F(CliJobTest, VersionPrintsTheLibraryVersion) {
  CliRun r = run("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("budcore 0."), std::string::npos) << r.out;
}

TEST_F(CliJobTest, ValidJsonJobPrintsNormalizedJob) {
  CliRun r = run("job validate " + quote(spec("llm-endpoint.json").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["name"], "llama-70b-endpoint");
  EXPECT_EQ(j["job_type"], "service");  // enums written lower-case
  EXPECT_EQ(j["deployment_type"], "model");
  EXPECT_EQ(j["priority"], "high");
  EXPECT_EQ(j["gpu_count"], 2);
  EXPECT_EQ(j["gpu_type"], "nvidia-a100-80gb");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["status"], "pending");  // defaults filled in
  EXPECT_EQ(j["max_retries"], 3);
  EXPECT_EQ(j["spec"]["engine"], "vllm");
  EXPECT_EQ(r.out.back(), '\n');
}

TEST_F(CliJobTest, YamlJobIsAccepted) {
  CliRun r = run("job validate " + quote(spec("finetune-nightly.yaml").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["job_type"], "training");
  EXPECT_EQ(j["time_window_start"], "22:00");
  EXPECT_EQ(j["time_window_end"], "06:00");
  EXPECT_EQ(j["deadline"], "2026-01-02T06:00:00Z");
  EXPECT_EQ(j["gpu_count"], 4);
}

TEST_F(CliJobTest, EveryExampleJobSpecValidates) {
  int seen = 0;
  for (const auto& e : fs::directory_iterator(spec("").parent_path())) {
    ++seen;
    CliRun r = run("job validate " + quote(e.path().string()));
    EXPECT_EQ(r.exit_code, 0) << e.path() << ": " << r.err;
  }
  EXPECT_GE(seen, 3);
}

TEST_F(CliJobTest, StdinDashGivesTheSameOutputAsTheFile) {
  CliRun from_file = run("job validate " + quote(spec("batch-embeddings.json").string()));
  CliRun from_stdin = run("job validate -", spec("batch-embeddings.json"));
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.err;
  EXPECT_EQ(from_file.out, from_stdin.out);
  // YAML on stdin too.
  CliRun yaml = run("job validate -", spec("finetune-nightly.yaml"));
  EXPECT_EQ(yaml.exit_code, 0) << yaml.err;
}

TEST_F(CliJobTest, NormalizedOutputIsAFixedPoint) {
  CliRun first = run("job validate " + quote(spec("finetune-nightly.yaml").string()));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  fs::path normalized = write("normalized.json", first.out);
  CliRun second = run("job validate " + quote(normalized.string()));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(first.out, second.out);
}

TEST_F(CliJobTest, InvalidFieldExitsTwoNamingThePath) {
  fs::path f = write("neg.json",
                     R"({"name": "neg", "job_type": "batch", "deployment_type": "docker", "gpu_count": -1})");
  CliRun r = run("job validate " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  json e = error_of(r);
  EXPECT_EQ(e["code"], "invalid");
  EXPECT_EQ(e["path"], "gpu_count");
  EXPECT_FALSE(e["message"].get<std::string>().empty());
}

TEST_F(CliJobTest, EveryProblemIsReportedAtOnceEachWithItsPath) {
  fs::path f = write("many.json", R"({"name": "Not_A_Label", "job_type": "batch", "deployment_type": "docker",
    "gpu_count": -1, "storage_gb": -5})");
  CliRun r = run("job validate " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  json all = json::parse(r.err);
  ASSERT_TRUE(all.contains("errors")) << r.err;
  std::vector<std::string> paths;
  for (const auto& e : all["errors"]) paths.push_back(e["path"]);
  EXPECT_EQ(paths, (std::vector<std::string>{"name", "gpu_count", "storage_gb"})) << r.err;
  EXPECT_EQ(all["error"], all["errors"][0]);  // the single-error shape still holds
}

// Problems of the document's shape (a bad enum value, a missing required field) do not hide
// the others: one run lists them all.
TEST_F(CliJobTest, StructuralAndSemanticProblemsAreReportedTogether) {
  fs::path f = write("mixed.json", R"({"name":"ok","job_type":"batch","deployment_type":"DOCKER",
    "spec":{"image":"x/y"},"gpu_count":-1,"cpu_cores":-2,"priority":"ultra"})");
  CliRun r = run("job validate " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  json all = json::parse(r.err);
  std::vector<std::string> paths;
  for (const auto& e : all["errors"]) paths.push_back(e["path"]);
  EXPECT_EQ(paths, (std::vector<std::string>{"priority", "gpu_count", "cpu_cores"})) << r.err;
  EXPECT_EQ(all["errors"][0], (json{{"code", "invalid"},
                                    {"message", "unknown job priority; expected one of critical, high, normal, low, spot (any letter case)"},
                                    {"path", "priority"},
                                    {"value", "ultra"}}));
  EXPECT_EQ(all["error"], all["errors"][0]);

  fs::path g = write("missing.yaml", "name: ok\ndeployment_type: docker\ngpu_count: -1\npriority: ultra\n");
  r = run("job validate " + quote(g.string()));
  EXPECT_EQ(r.exit_code, 2);
  all = json::parse(r.err);
  paths.clear();
  for (const auto& e : all["errors"]) paths.push_back(e["path"]);
  EXPECT_EQ(paths, (std::vector<std::string>{"job_type", "priority", "gpu_count"})) << r.err;
}

// "errors" is there whatever the count, so a reader needs no second code path.
TEST_F(CliJobTest, ErrorsListsEvenASingleProblem) {
  fs::path f = write("one.json", R"({"name": "one", "job_type": "batch", "deployment_type": "docker", "gpu_cont": 2})");
  CliRun r = run("job validate " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  json all = json::parse(r.err);
  ASSERT_EQ(all["errors"].size(), 1u) << r.err;
  EXPECT_EQ(all["errors"][0], all["error"]);
  EXPECT_EQ(all["error"]["path"], "gpu_cont");

  fs::path missing = dir_ / "nowhere.json";
  r = run("job validate " + quote(missing.string()));
  EXPECT_EQ(r.exit_code, 2);
  all = json::parse(r.err);
  ASSERT_EQ(all["errors"].size(), 1u) << r.err;
  EXPECT_EQ(all["errors"][0]["path"], "FILE");
  EXPECT_EQ(all["errors"][0], all["error"]);
}

TEST_F(CliJobTest, UnknownKeyIsNamed) {
  fs::path f = write("typo.yaml", "name: typo\njob_type: batch\ndeployment_type: docker\ngpu_cont: 2\n");
  CliRun r = run("job validate " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["path"], "gpu_cont");
}

TEST_F(CliJobTest, BadEnumValueIsNamedWithItsValue) {
  fs::path f = write("type.json", R"({"name": "t", "job_type": "SIDEWAYS", "deployment_type": "docker"})");
  CliRun r = run("job validate " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  json e = error_of(r);
  EXPECT_EQ(e["path"], "job_type");
  EXPECT_EQ(e["value"], "SIDEWAYS");
}

TEST_F(CliJobTest, MalformedDocumentExitsTwo) {
  fs::path f = write("broken.json", R"({"name": "x", "job_type": )");
  CliRun r = run("job validate " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["code"], "invalid");
  EXPECT_TRUE(r.out.empty());
}

TEST_F(CliJobTest, NotAMappingExitsTwo) {
  fs::path f = write("list.json", "[1, 2, 3]");
  CliRun r = run("job validate " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r)["code"], "invalid");
}

// A FILE that cannot be read is bad input from the caller (exit 2), not an internal failure;
// the error's path names the argument and its value the file.
TEST_F(CliJobTest, MissingFileExitsTwoNamingTheFile) {
  fs::path missing = dir_ / "does-not-exist.json";
  CliRun r = run("job validate " + quote(missing.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(error_of(r), (json{{"code", "invalid"},
                               {"message", "cannot open file '" + missing.string() + "': No such file or directory"},
                               {"path", "FILE"},
                               {"value", missing.string()}}));
}

TEST_F(CliJobTest, MissingArgumentIsAUsageErrorExitTwo) {
  EXPECT_EQ(run("job validate").exit_code, 2);
  EXPECT_EQ(run("job").exit_code, 2);
  EXPECT_EQ(run("job frobnicate x").exit_code, 2);
}

}  // namespace
