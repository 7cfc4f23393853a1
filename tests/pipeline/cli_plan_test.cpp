// `budcore pipeline plan` as a process: stdout JSON, exit codes, "-" for stdin.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace {

namespace fs = std::filesystem;

const fs::path kCli = fs::path(BUDCORE_BINARY_DIR) / "bin" / "budcore";
const fs::path kData = fs::path(BUDCORE_SOURCE_DIR) / "tests" / "pipeline" / "data";

struct CliRun {
  int status = -1;
  std::string out;
};

CliRun run(const std::string& args) {
  CliRun r;
  std::string cmd = kCli.string() + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class CliPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kCli)) GTEST_SKIP() << "build the budcore_cli target first: " << kCli;
  }
};

TEST_F(CliPlanTest, ValidFileExitsZero) {
  CliRun r = run("pipeline plan " + (kData / "rag.json").string());
  EXPECT_EQ(r.status, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["valid"], true);
  EXPECT_EQ(j["critical_path_seconds"], 0);
  EXPECT_EQ(j["levels"].size(), 4u);
}

TEST_F(CliPlanTest, InvalidFileExitsTwoWithErrorsOnStdout) {
  CliRun r = run("pipeline plan " + (kData / "broken_many.json").string());
  EXPECT_EQ(r.status, 2);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["valid"], false);
  EXPECT_EQ(j["errors"].size(), 7u);
}

TEST_F(CliPlanTest, StdinAndYaml) {
  CliRun r = run("pipeline plan - < " + (kData / "branches.yaml").string());
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["critical_path_seconds"], 3700);
}

TEST_F(CliPlanTest, UnreadableFileIsInvalidInput) {
  EXPECT_EQ(run("pipeline plan /nonexistent/p.json").status, 2);
}

}  // namespace
