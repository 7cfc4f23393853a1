// `budcore gpu replay` run as a user would: JSON or a table on stdout, exit 2 naming the file,
// line and column on bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.hpp"

namespace {

using nlohmann::json;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;

class CliGpuTest : public budcore::test::detail::CliFixture {
 protected:
  CliGpuTest() : CliFixture("budcore_cli_gpu_") {}
  static std::string data(const std::string& name) { return quote(std::string(BUDCORE_TEST_DATA_DIR) + "/gpu/" + name); }
};

TEST_F(CliGpuTest, ReplayPrintsEveryPolicysCurve) {
  auto r = run_cli("gpu replay --nodes " + data("nodes.csv") + " --pods " + data("pods.csv") + " --seed 5 --step 0.1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["nodes"], 4);
  EXPECT_EQ(doc["gpus"], 16);
  EXPECT_EQ(doc["tasks"], 6);
  ASSERT_EQ(doc["results"].size(), 8u);
  for (const auto& res : doc["results"]) {
    ASSERT_EQ(res["points"].size(), 13u) << res["policy"];
    EXPECT_NEAR(res["points"][0]["arrived_load"].get<double>(), 0.1, 1e-9);
    EXPECT_LE(res["points"].back()["unallocated_share"].get<double>(), 1.0);
  }
  auto table = run_cli("gpu replay --nodes " + data("nodes.csv") + " --pods " + data("pods.csv") + " --policy fgd,random --format table");
  ASSERT_EQ(table.exit_code, 0);
  EXPECT_EQ(table.out.rfind("arrived_load", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("fgd"), std::string::npos);
  EXPECT_NE(table.out.find("first failure"), std::string::npos);
}

TEST_F(CliGpuTest, BadInputExitsTwoNamingTheLineAndField) {
  auto err = dir_ / "err.json";
  auto r = run_cli("gpu replay --nodes " + data("nodes.csv") + " --pods " + data("pods_too_much_gpu.csv"), err);
  EXPECT_EQ(r.exit_code, 2);
  json e = json::parse(budcore::test::detail::slurp(err))["error"];
  EXPECT_EQ(e["path"], std::string(BUDCORE_TEST_DATA_DIR) + "/gpu/pods_too_much_gpu.csv:3.gpu_milli");
  EXPECT_EQ(e["value"], "1500");
  r = run_cli("gpu replay --nodes " + data("nodes_unknown_model.csv") + " --pods " + data("pods.csv"), err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["value"], "K80");
  r = run_cli("gpu replay --nodes " + data("nodes.csv") + " --pods " + data("pods.csv") + " --policy tetris", err);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "--policy");
}

}  // namespace
