// Runs the built `budcore` binary as a separate process, the way a user or an acceptance test
// would, and captures its exit code, stdout and (optionally) stderr. Shared by the CLI tests.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace budcore::test::detail {

struct CliRun {
  int exit_code = -1;  // -1 when the process could not start or did not exit normally
  std::string out;
  std::string err;  // empty unless an err_file was given
};

inline std::filesystem::path cli_binary() { return std::filesystem::path(BUDCORE_BINARY_DIR) / "bin" / "budcore"; }

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Single-quotes `s` for /bin/sh.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `budcore <args>` (args already shell-quoted). stderr goes to err_file and is read back into
// CliRun::err, or is discarded when err_file is empty; stdin comes from stdin_file when given.
inline CliRun run_cli(const std::string& args, const std::filesystem::path& err_file = {},
                      const std::filesystem::path& stdin_file = {}) {
  std::string cmd = quote(cli_binary().string()) + " " + args;
  cmd += err_file.empty() ? std::string(" 2>/dev/null") : " 2>" + quote(err_file.string());
  if (!stdin_file.empty()) cmd += " <" + quote(stdin_file.string());
  CliRun r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!err_file.empty()) r.err = slurp(err_file);
  return r;
}

// A fixture giving each test a fresh directory (removed afterwards) and checking that the
// CLI binary has been built.
class CliFixture : public ::testing::Test {
 protected:
  explicit CliFixture(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + std::to_string(::getpid()) + "_" + info->name());
    std::filesystem::create_directories(dir_);
    ASSERT_TRUE(std::filesystem::exists(binary())) << "build the budcore_cli target first: " << binary();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static std::filesystem::path binary() { return cli_binary(); }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace budcore::test::detail
