// `budcore serverless simulate` run as a user would: the JSON report of a replay, several
// policies in one table, exit 2 naming the field on bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.hpp"

namespace {

using nlohmann::json;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using budcore::test::detail::slurp;

class CliServerlessTest : public budcore::test::detail::CliFixture {
 protected:
  CliServerlessTest() : CliFixture("budcore_cli_serverless_") {}
  static std::string data(const std::string& name) { return quote(std::string(BUDCORE_TEST_DATA_DIR) + "/serverless/" + name); }
  std::string write(const std::string& name, const std::string& text) {
    auto p = dir_ / name;
    std::ofstream(p) << text;
    return quote(p.string());
  }
};

TEST_F(CliServerlessTest, SimulateReportsTheReplayAsJson) {
  auto r = run_cli("serverless simulate --endpoint " + data("endpoint.yaml") + " --trace " + data("trace_small.csv") +
                   " --policy queue_depth --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rep = json::parse(r.out)["reports"][0];
  EXPECT_EQ(rep["policy"], "queue_depth");
  EXPECT_EQ(rep["completed"], 10);
  EXPECT_EQ(rep["cold_starts"], 5);
  EXPECT_EQ(rep["wait_seconds"]["max"], 22.0);
  EXPECT_EQ(rep["cost"], "0.326");
  EXPECT_EQ(rep["currency"], "USD");
}

TEST_F(CliServerlessTest, AllPoliciesShareOneTable) {
  auto r = run_cli("serverless simulate --endpoint " + data("endpoint.yaml") + " --trace " + data("trace_small.csv") +
                   " --policy all");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* name : {"\nqueue_depth ", "\nkpa ", "\nray_serve ", "\npredictive ", "\nbudget "}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out;
  }
}

TEST_F(CliServerlessTest, BadInputExitsTwoNamingTheField) {
  auto r = run_cli("serverless simulate --endpoint " + data("endpoint.yaml") + " --trace " + data("trace_small.csv") +
                   " --policy hpa", dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "--policy");

  const std::string trace = write("t.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:00:01.0,1,1\n"
                                           "2023-11-16 18:00:00.0,1,1\n");
  r = run_cli("serverless simulate --endpoint " + data("endpoint.yaml") + " --trace " + trace, dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  json err = json::parse(slurp(dir_ / "err.txt"))["error"];
  EXPECT_NE(err["path"].get<std::string>().find(":3.TIMESTAMP"), std::string::npos) << err;

  r = run_cli("serverless simulate --endpoint " + write("e.yaml", "name: e\nmodel: m\nsla: {max_wait_seconds: 0}\n") +
                  " --trace " + data("trace_small.csv"), dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "sla.max_wait_seconds");
}

}  // namespace
