// `budcore usecase deploy|deployment|deployments|teardown` on an embedded platform: JSON on
// stdout, exit 0/2, errors on stderr naming the path; the record outlives the process.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using nlohmann::json;

constexpr const char* kTenant = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b";

class CliUsecaseDeployTest : public budcore::test::detail::CliFixture {
 protected:
  CliUsecaseDeployTest() : CliFixture("budcore_cli_usecase_deploy_") {}
  std::string common() const { return " --dir " + quote((dir_ / "p").string()) + " --tenant " + kTenant; }
  CliRun run(const std::string& args) { return run_cli(args, dir_ / "stderr.txt"); }
};

TEST_F(CliUsecaseDeployTest, DeployListShowAndTearDown) {
  CliRun d = run("usecase deploy simple-rag-v1 --param model_id=meta-llama/Llama-3.1-8B-Instruct"
                 " --param gpu_type=nvidia-a100-80gb --run-for 600" + common());
  ASSERT_EQ(d.exit_code, 0) << d.err;
  json rec = json::parse(d.out);
  EXPECT_EQ(rec["template_id"], "simple-rag-v1");
  EXPECT_EQ(rec["status"], "running");
  EXPECT_EQ(rec["parameters"]["gpu_type"], "nvidia-a100-80gb");
  ASSERT_EQ(rec["components"].size(), 4u);
  for (const auto& c : rec["components"]) EXPECT_TRUE(c["job_id"].is_string()) << c.dump();
  std::string id = rec["id"];

  // Another process reads it back from the store.
  json list = json::parse(run("usecase deployments" + common()).out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], id);
  EXPECT_EQ(json::parse(run("usecase deployment " + id + common()).out)["status"], "running");

  CliRun down = run("usecase teardown " + id + common());
  ASSERT_EQ(down.exit_code, 0) << down.err;
  json gone = json::parse(down.out);
  EXPECT_EQ(gone["status"], "deleted");
  for (const auto& c : gone["components"]) EXPECT_EQ(c["job_status"], "cancelled");
  CliRun again = run("usecase teardown " + id + common());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["status"], "deleted");
}

TEST_F(CliUsecaseDeployTest, BadInputExitsTwoNamingThePathAndDeploysNothing) {
  CliRun bad = run("usecase deploy simple-rag-v1 --param model_id=m --param top_kk=3" + common());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.out.empty());
  json err = json::parse(bad.err);
  EXPECT_EQ(err["error"]["code"], "invalid");
  EXPECT_EQ(err["error"]["path"], "parameters.top_kk");

  CliRun unknown = run("usecase deploy no-such-template" + common());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(json::parse(unknown.err)["error"]["path"], "template");

  CliRun bad_id = run("usecase deployment not-a-uuid" + common());
  EXPECT_EQ(bad_id.exit_code, 2);
  EXPECT_EQ(json::parse(bad_id.err)["error"]["path"], "id");

  CliRun no_tenant = run("usecase deployments --dir " + quote((dir_ / "p").string()));
  EXPECT_NE(no_tenant.exit_code, 0);

  EXPECT_EQ(json::parse(run("usecase deployments" + common()).out), json::array());
  json jobs = json::parse(run("platform list" + common()).out);
  EXPECT_TRUE(jobs["items"].empty()) << jobs.dump();
}

}  // namespace
