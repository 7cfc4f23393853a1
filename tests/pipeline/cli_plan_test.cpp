// `budcore pipeline plan` as a process: stdout JSON, exit codes, "-" for stdin.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kCli = budcore::test::detail::cli_binary();
const fs::path kData = fs::path(BUDCORE_SOURCE_DIR) / "tests" / "pipeline" / "data";

using budcore::test::detail::CliRun;

// Runs `budcore <args>` (args may redirect stdin; stderr discarded).
CliRun run(const std::string& args) { return budcore::test::detail::run_cli(args); }

class CliPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kCli)) GTEST_SKIP() << "build the budcore_cli target first: " << kCli;
  }
};

TEST_F(CliPlanTest, ValidFileExitsZero) {
  CliRun r = run("pipeline plan " + (kData / "rag.json").string());
  EXPECT_EQ(r.exit_code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["valid"], true);
  EXPECT_EQ(j["critical_path_seconds"], 0);
  EXPECT_EQ(j["levels"].size(), 4u);
}

TEST_F(CliPlanTest, InvalidFileExitsTwoWithErrorsOnStdout) {
  CliRun r = run("pipeline plan " + (kData / "broken_many.json").string());
  EXPECT_EQ(r.exit_code, 2);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["errors"].size(), 7u);
}

TEST_F(CliPlanTest, StdinAndYaml) {
  CliRun r = run("pipeline plan - < " + (kData / "branches.yaml").string());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["critical_path_seconds"], 3700);
}

TEST_F(CliPlanTest, UnreadableFileIsInvalidInput) {
  EXPECT_EQ(run("pipeline plan /nonexistent/p.json").exit_code, 2);
}

}  // namespace
