// Security through the built `budcore` binary: a platform config with RBAC, roles granted and
// used command by command, refusals exiting 2 with the principal named, the audit log listed,
// exported as JSON lines and verified — and a row edited in the SQLite file found by
// `budcore audit verify`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using nlohmann::json;

constexpr const char* kTenant = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b";
constexpr const char* kProject = "00000000-0000-4000-8000-0000000000e1";

class CliSecurityTest : public budcore::test::detail::CliFixture {
 protected:
  CliSecurityTest() : CliFixture("budcore_cli_security_") {}
  void SetUp() override {
    CliFixture::SetUp();
    db_ = dir_ / "platform.db";
    config_ = dir_ / "platform.yaml";
    std::ofstream(config_) << "store: " << quote("sqlite://" + db_.string()) << "\n"
                           << "security:\n  rbac: true\n  platform_admins: ['user:root']\n"
                           << "  tenants:\n    '*': {max_gpus_per_job: 4}\n";
    job_ = dir_ / "job.json";
    std::ofstream(job_) << R"({"name": "emb", "job_type": "batch", "deployment_type": "docker", "gpu_count": 1,
      "gpu_type": "nvidia-a100-80gb", "estimated_duration_seconds": 60, "project_id": ")"
                        << kProject << R"("})";
  }
  std::string as(const std::string& principal) const {
    return " --config " + quote(config_.string()) + " --tenant " + kTenant + " --principal " + principal;
  }
  fs::path db_, config_, job_;
};

TEST_F(CliSecurityTest, RolesAuditAndTheChainFromTheCommandLine) {
  const fs::path err = dir_ / "err.json";
  auto denied = run_cli("platform submit " + quote(job_.string()) + as("user:erin"), err);
  EXPECT_EQ(denied.exit_code, 2);
  json e = json::parse(budcore::test::detail::slurp(err));
  EXPECT_EQ(e["error"]["code"], "security");
  EXPECT_EQ(e["error"]["path"], "principal");
  EXPECT_EQ(e["error"]["value"], "user:erin");

  auto bound = run_cli("platform bind user:erin editor --project " + std::string(kProject) + as("user:root"));
  ASSERT_EQ(bound.exit_code, 0) << bound.out;
  EXPECT_EQ(json::parse(bound.out)["created_by"], "user:root");
  auto sub = run_cli("platform submit " + quote(job_.string()) + as("user:erin"));
  ASSERT_EQ(sub.exit_code, 0) << sub.out;
  const std::string id = json::parse(sub.out)["job"]["id"];
  EXPECT_EQ(run_cli("platform cancel " + id + as("user:erin")).exit_code, 0);
  EXPECT_EQ(run_cli("platform bind user:eve viewer" + as("user:erin")).exit_code, 2);
  auto bindings = json::parse(run_cli("platform bindings" + as("user:root")).out);
  ASSERT_EQ(bindings["items"].size(), 1u);
  EXPECT_EQ(bindings["items"][0]["project_id"], kProject);

  auto audit = run_cli("platform audit" + as("user:root"));
  ASSERT_EQ(audit.exit_code, 0) << audit.out;
  std::vector<std::string> actions;
  const json page = json::parse(audit.out);
  for (const auto& item : page["items"])
    actions.push_back(item["action"].get<std::string>() + ":" + item["detail"]["outcome"].get<std::string>());
  EXPECT_EQ(actions, (std::vector<std::string>{"jobs.create:denied", "role_bindings.bind:ok", "jobs.create:ok",
                                                "jobs.cancel:ok", "role_bindings.bind:denied"}));
  EXPECT_EQ(json::parse(run_cli("platform audit-verify" + as("user:root")).out)["ok"], true);
  EXPECT_EQ(run_cli("platform audit-verify" + as("user:erin")).exit_code, 2);

  // The operator's tools on the store itself.
  const std::string uri = quote("sqlite://" + db_.string());
  auto lines = run_cli("audit export " + uri + " --tenant " + kTenant);
  ASSERT_EQ(lines.exit_code, 0);
  std::istringstream in(lines.out);
  std::string line, last_hash;
  int n = 0;
  for (; std::getline(in, line); ++n) {
    json entry = json::parse(line);
    if (n > 0) EXPECT_EQ(entry["prev_hash"], last_hash);
    last_hash = entry["hash"];
  }
  EXPECT_EQ(n, 6);  // and the refused audit-verify
  auto ok = run_cli("audit verify " + uri);
  ASSERT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_EQ(json::parse(ok.out)["entries"], 6);
  ASSERT_EQ(json::parse(ok.out)["heads"].size(), 1u);  // one tenant, one chain
  EXPECT_EQ(json::parse(ok.out)["heads"][0]["hash"], last_hash);
  EXPECT_EQ(json::parse(ok.out)["heads"][0]["seq"], 6);

  // Someone with write access to the file drops the trigger and rewrites who cancelled the job.
  const std::string py = "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                         "c.executescript(\"DROP TRIGGER audit_log_append_only_u; "
                         "UPDATE audit_log SET actor='user:root' WHERE action='jobs.cancel';\"); c.commit()";
  ASSERT_EQ(std::system(("python3 -c " + quote(py) + " " + quote(db_.string())).c_str()), 0);
  auto broken = run_cli("audit verify " + uri);
  EXPECT_EQ(broken.exit_code, 2);
  json report = json::parse(broken.out);
  EXPECT_EQ(report["ok"], false);
  ASSERT_EQ(report["problems"].size(), 1u);
  EXPECT_NE(report["problems"][0].get<std::string>().find("edited"), std::string::npos);
}

TEST_F(CliSecurityTest, PolicyRefusalsAndBadRolesExitTwo) {
  ASSERT_EQ(run_cli("platform bind user:erin editor" + as("user:root")).exit_code, 0);
  fs::path big = dir_ / "big.json";
  std::ofstream(big) << R"({"name": "big", "job_type": "batch", "deployment_type": "docker", "gpu_count": 8,
    "gpu_type": "nvidia-a100-80gb"})";
  const fs::path err = dir_ / "err.json";
  EXPECT_EQ(run_cli("platform submit " + quote(big.string()) + as("user:erin"), err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "gpu_count");
  EXPECT_EQ(run_cli("platform bind user:eve superuser" + as("user:root"), err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "role");
  EXPECT_EQ(run_cli("platform bind eve viewer" + as("user:root"), err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "binding.principal");
  EXPECT_EQ(run_cli("audit export " + quote("sqlite://" + db_.string()) + " --tenant nope", err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "tenant");
}

}  // namespace
