// `budcore pipeline run` as a process: JSON lines of transitions on the virtual clock, then a
// summary; what-if flags; invalid input exits 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kCli = budcore::test::detail::cli_binary();
const fs::path kRag = fs::path(BUDCORE_SOURCE_DIR) / "tests" / "pipeline" / "data" / "rag.json";

struct CliLines {
  int status = -1;
  std::vector<nlohmann::json> lines;
};

// Runs `budcore pipeline run <args>` (stderr discarded) and parses each stdout line as JSON.
CliLines run(const std::string& args) {
  budcore::test::detail::CliRun raw = budcore::test::detail::run_cli("pipeline run " + args);
  CliLines r;
  r.status = raw.exit_code;
  std::istringstream in(raw.out);
  for (std::string line; std::getline(in, line);) r.lines.push_back(nlohmann::json::parse(line));
  return r;
}

class CliRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kCli)) GTEST_SKIP() << "build the budcore_cli target first: " << kCli;
  }
};

TEST_F(CliRunTest, RagRunsToCompletionOnVirtualTime) {
  CliLines r = run(kRag.string());
  ASSERT_EQ(r.status, 0);
  ASSERT_GT(r.lines.size(), 10u);
  const auto& summary = r.lines.back();
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["elapsed_seconds"], 120.0);  // two 60 s JOB waves (no estimates given)
  EXPECT_EQ(summary["steps"]["step-6"], "succeeded");
  double last = 0;
  for (std::size_t i = 0; i + 1 < r.lines.size(); ++i) {
    EXPECT_EQ(r.lines[i]["seq"], static_cast<int>(i + 1));
    EXPECT_GE(r.lines[i]["elapsed_seconds"].get<double>(), last);
    last = r.lines[i]["elapsed_seconds"];
  }
  EXPECT_EQ(run(kRag.string()).lines, r.lines);  // deterministic
}

TEST_F(CliRunTest, WhatIfFlagsAndParams) {
  CliLines failed = run(kRag.string() + " --fail step-4 --params '{\"enable_reranker\": false}'");
  ASSERT_EQ(failed.status, 0);
  const auto& s = failed.lines.back();
  EXPECT_EQ(s["status"], "failed");
  EXPECT_EQ(s["steps"]["step-4"], "failed");
  EXPECT_EQ(s["steps"]["step-6"], "skipped");
  EXPECT_EQ(s["steps"]["step-7"], "omitted");

  CliLines slow = run(kRag.string() + " --slow step-2=3x");
  EXPECT_EQ(slow.lines.back()["elapsed_seconds"], 240.0);  // step-2 takes 180 s, then step-7 60 s

  CliLines hang = run(kRag.string() + " --timeout step-3");
  EXPECT_EQ(hang.lines.back()["done"], false);  // no timeout configured: the run waits forever
  EXPECT_EQ(hang.lines.back()["steps"]["step-3"], "running");
}

TEST_F(CliRunTest, InvalidInputExitsTwo) {
  EXPECT_EQ(run(kRag.string() + " --slow step-2=fast").status, 2);
  EXPECT_EQ(run(kRag.string() + " --params '{nope'").status, 2);
  EXPECT_EQ(run("/nonexistent.json").status, 2);
}

}  // namespace
