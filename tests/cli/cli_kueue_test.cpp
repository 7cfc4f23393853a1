// `budcore kueue companion`: its configuration and kubeconfig errors, reported before anything
// touches a cluster (the running controller is tested against the test bed).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using nlohmann::json;

class CliKueueTest : public budcore::test::detail::CliFixture {
 protected:
  CliKueueTest() : CliFixture("budcore_cli_kueue_") {}
  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  CliRun run(const std::string& args) { return run_cli(args, dir_ / "stderr.txt"); }
  static json error_of(const CliRun& r) {
    json j = json::parse(r.err, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.err;
    return j.is_discarded() ? json::object() : j["error"];
  }
};

TEST_F(CliKueueTest, ConfigErrorsNameTheFieldAndExit2) {
  auto cfg = write("companion.yaml", "controllers: [{name: budcore.io/budget, checks: [budget]}]\n"
                                     "price_book: {currency: USD}\n"
                                     "budgets: {budgets: [{name: b, tenant_id: 0190e6f4-0000-7000-8000-00000000000a, amount: '5'}]}\n");
  CliRun r = run("kueue companion --config " + quote(cfg.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  json e = error_of(r);
  EXPECT_EQ(e["path"], "budgets.budgets[0].tenant_id") << r.err;
  EXPECT_NE(e["message"].get<std::string>().find("no entry of tenants"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(CliKueueTest, MissingFilesAreInvalidInput) {
  CliRun r = run("kueue companion --config " + quote((dir_ / "absent.yaml").string()));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(error_of(r)["path"], "--config") << r.err;
  auto cfg = write("companion.yaml", "controllers: [{name: budcore.io/window, checks: [window]}]\n");
  r = run("kueue companion --config " + quote(cfg.string()) + " --kubeconfig " + quote((dir_ / "nokube").string()));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(error_of(r)["path"], "--kubeconfig") << r.err;
  r = run("kueue companion");
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
