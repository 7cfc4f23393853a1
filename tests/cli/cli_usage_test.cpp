// Argument errors (a missing, unknown or malformed option) follow the CLI's one error rule:
// exit 2 with {"error": {"code": "invalid", "message", "path"}} on stderr, the path naming the
// option. --help and --version still print text and exit 0.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"

namespace {

using budcore::test::detail::CliRun;
using nlohmann::json;

class CliUsageTest : public budcore::test::detail::CliFixture {
 protected:
  CliUsageTest() : CliFixture("budcore_cli_usage_") {}
  CliRun run(const std::string& args) { return budcore::test::detail::run_cli(args, dir_ / "err.txt"); }
  // The one error object on stderr, and nothing on stdout.
  static json error_of(const CliRun& r) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    json e = json::parse(r.err, nullptr, false);
    EXPECT_FALSE(e.is_discarded()) << "stderr is not one JSON document: " << r.err;
    if (e.is_discarded() || !e.contains("error")) return json::object();
    EXPECT_EQ(e["error"]["code"], "invalid") << r.err;
    return e["error"];
  }
};

TEST_F(CliUsageTest, AMissingRequiredOptionNamesIt) {
  json e = error_of(run("template eval"));
  EXPECT_EQ(e["path"], "--batch");
  EXPECT_NE(e["message"].get<std::string>().find("--batch is required"), std::string::npos) << e.dump();
}

TEST_F(CliUsageTest, AnUnknownOptionNamesIt) {
  json e = error_of(run("template eval --batch - --bacth x"));
  EXPECT_EQ(e["path"], "--bacth");
}

TEST_F(CliUsageTest, AMalformedOptionValueNamesTheOption) {
  json e = error_of(run("--max-input-bytes 0 template eval --batch -"));
  EXPECT_EQ(e["path"], "--max-input-bytes");
  e = error_of(run("--max-input-bytes lots template eval --batch -"));
  EXPECT_EQ(e["path"], "--max-input-bytes");
}

TEST_F(CliUsageTest, AMissingOrUnknownCommandIsAnErrorObjectToo) {
  json e = error_of(run(""));
  EXPECT_EQ(e["path"], "command");
  EXPECT_NE(e["message"].get<std::string>().find("budcore needs a command: one of audit, cost, gpu, job, kubernetes, kueue, pipeline, platform, quota, schedule, serverless, "), std::string::npos)
      << e.dump();
  e = error_of(run("tempalte eval"));
  EXPECT_EQ(e["path"], "command");
  EXPECT_EQ(e["value"], "tempalte");
  EXPECT_NE(e["message"].get<std::string>().find("did you mean 'template'?"), std::string::npos) << e.dump();
  // Below a group, after a global option that takes a value.
  e = error_of(run("--max-input-bytes 1000 quota simulat x.json"));
  EXPECT_EQ(e["value"], "simulat");
  EXPECT_NE(e["message"].get<std::string>().find("for budcore quota; did you mean 'simulate'?"), std::string::npos)
      << e.dump();
  e = error_of(run("quota"));
  EXPECT_EQ(e["path"], "command");
  EXPECT_NE(e["message"].get<std::string>().find("budcore quota needs a command: one of "), std::string::npos)
      << e.dump();
}

TEST_F(CliUsageTest, HelpAndVersionStillPrintTextAndSucceed) {
  CliRun r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("template"), std::string::npos) << r.out;
  r = run("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("budcore ", 0), 0u) << r.out;
}

}  // namespace
