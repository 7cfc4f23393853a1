// `budcore serverless simulate` run as a user would: the JSON report of a replay, several
// policies in one table, exit 2 naming the field on bad input.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>
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

TEST_F(CliServerlessTest, UntilScaledDownRunsOnToZeroWorkers) {
  auto r = run_cli("serverless simulate --endpoint " + data("endpoint.yaml") + " --trace " + data("trace_small.csv") +
                   " --format json --until-scaled-down");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rep = json::parse(r.out)["reports"][0];
  EXPECT_EQ(rep["scaling"].front()["workers"], 0);
  EXPECT_EQ(rep["scaling"].back()["workers"], 0);
  EXPECT_EQ(rep["scaling"].back()["at_seconds"], 214.0);
  EXPECT_EQ(rep["virtual_seconds"], 214.0);
  EXPECT_EQ(rep["billed_gpu_seconds"], 444);
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

namespace {

// `budcore serverless serve`: the small trace served by an endpoint whose workers are jobs on an
// embedded-like platform with a price book; every request completes, the workers' time is
// metered, and the pool ends at zero.
class CliServerlessServeTest : public budcore::test::detail::CliFixture {
 protected:
  CliServerlessServeTest() : CliFixture("budcore_cli_sserve_") {}
  std::string args() const {
    std::ofstream(dir_ / "platform.yaml")
        << "store: \"sqlite://" << (dir_ / "p.db").string() << "\"\nclock: {kind: virtual, start: \"2026-01-01T00:00:00Z\"}\n"
        << "cost:\n  prices: {currency: USD, gpu_hour: {nvidia-a100-80gb: {on_demand: \"3.60\"}}, "
           "cpu_core_hour: {on_demand: \"0\"}, memory_gib_hour: {on_demand: \"0\"}}\n";
    const std::string data = std::string(BUDCORE_TEST_DATA_DIR) + "/serverless/";
    return " --config " + quote((dir_ / "platform.yaml").string()) + " --endpoint " + quote(data + "endpoint.yaml") +
           " --trace " + quote(data + "trace_small.csv");
  }
};

TEST_F(CliServerlessServeTest, ServesATraceWithPlatformWorkers) {
  auto r = run_cli("serverless serve" + args() + " --tenant 00000000-0000-4000-8000-0000000000c3 --tail-seconds 120");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rep = json::parse(r.out);
  EXPECT_EQ(rep["requests"], 10);
  EXPECT_EQ(rep["completed"], rep["admitted"]);
  EXPECT_EQ(rep["timeouts"], 0);
  EXPECT_GE(rep["peak_workers"].get<int>(), 1);
  EXPECT_GE(rep["status"]["cold_starts"].get<int>(), 1);
  EXPECT_TRUE(rep["status"]["workers"].empty());
  EXPECT_GT(rep["usage"]["records"].get<int>(), 0);
  EXPECT_NE(rep["usage"]["idle_gpu_seconds"], "0");
}

TEST_F(CliServerlessServeTest, BadInputExitsTwoNamingTheOption) {
  auto r = run_cli("serverless serve" + args() + " --tenant nope", dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "--tenant");
  r = run_cli("serverless serve" + args() + " --tenant 00000000-0000-4000-8000-0000000000c3 --policy fastest",
              dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "--policy");
}

}  // namespace

namespace {

// `budcore serverless queue`: requests enqueued, served by a worker and read back from a SQLite
// store; bad input exits 2 naming the option or field and stores nothing.
class CliServerlessQueueTest : public budcore::test::detail::CliFixture {
 protected:
  CliServerlessQueueTest() : CliFixture("budcore_cli_squeue_") {}
  std::string common() const {
    return " --store " + quote("sqlite://" + (dir_ / "q.db").string()) + " --endpoint " +
           quote(std::string(BUDCORE_TEST_DATA_DIR) + "/serverless/endpoint.yaml");
  }
};

TEST_F(CliServerlessQueueTest, EnqueueWorkStatusList) {
  auto r = run_cli("serverless queue enqueue" + common() + " --count 5 --batch 2 --payload-hash p");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("{\"accepted\":[1,2],"), std::string::npos) << r.out;
  r = run_cli("serverless queue enqueue" + common() + " --count 1 --payload-hash p");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"deduplicated\":[1]"), std::string::npos) << r.out;
  r = run_cli("serverless queue work" + common() + " --worker w1 --until-empty --log " + quote((dir_ / "w.log").string()));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(json::parse(r.out)["served"], 5);
  EXPECT_NE(slurp(dir_ / "w.log").find("complete 5 1\n"), std::string::npos);
  r = run_cli("serverless queue status" + common());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json st = json::parse(r.out);
  EXPECT_EQ(st["completed"], 5);
  EXPECT_EQ(st["pending"], 0);
  r = run_cli("serverless queue list" + common() + " --status completed --after 3");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rows = json::parse(r.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["id"], 4);
  EXPECT_EQ(rows[0]["claim"], 1);
}

// A worker whose batch takes longer than its lease keeps its claims by renewing them: a second
// worker that comes after the first lease would have ended finds nothing to take over.
TEST_F(CliServerlessQueueTest, WorkRenewsItsLeasesWhileServingALongBatch) {
  auto r = run_cli("serverless queue enqueue" + common() + " --count 6");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // Six requests of 500 ms under a 2 s lease: 3 s of serving.
  std::thread first([&] {
    r = run_cli("serverless queue work" + common() + " --worker w1 --batch 6 --lease-seconds 2 --service-ms 500 "
                "--until-empty --log " + quote((dir_ / "w1.log").string()));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2600));
  auto second = run_cli("serverless queue work" + common() + " --worker w2 --until-empty --idle-ms 100 --log " +
                        quote((dir_ / "w2.log").string()));
  first.join();
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_EQ(second.exit_code, 0) << second.out;
  EXPECT_EQ(json::parse(second.out)["served"], 0);
  const std::string log = slurp(dir_ / "w1.log");
  EXPECT_EQ(log.find("lost"), std::string::npos) << log;
  for (int id = 1; id <= 6; ++id) EXPECT_NE(log.find("complete " + std::to_string(id) + " 1\n"), std::string::npos) << log;
}

TEST_F(CliServerlessQueueTest, BadInputExitsTwoNamingTheField) {
  auto r = run_cli("serverless queue enqueue" + common() + " --priority urgent", dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "--priority");
  r = run_cli("serverless queue enqueue" + common() + " --batch 0", dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "--batch");
  r = run_cli("serverless queue enqueue" + common() + " --tenant ''", dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "submissions[0].tenant");
  r = run_cli("serverless queue list" + common() + " --status done", dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "--status");
  r = run_cli("serverless queue status" + common());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(json::parse(r.out)["pending"], 0);
}

}  // namespace
