// `budcore schedule estimate|view|replay` run as a user would: contract 6 on stdout, exit 2 with
// the field on bad input, stdin with -, the HTML page, a small replay.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.hpp"

namespace {

using nlohmann::json;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using budcore::test::detail::slurp;

class CliScheduleTest : public budcore::test::detail::CliFixture {
 protected:
  CliScheduleTest() : CliFixture("budcore_cli_schedule_") {}
  std::string write(const std::string& name, const json& doc) {
    auto p = dir_ / name;
    std::ofstream(p) << doc.dump();
    return p.string();
  }
};

json scenario() {
  return json::parse(std::string(R"({"now": 0,
   "resource_flavors": [{"name": "on-demand"}],
   "cluster_queues": [{"name": "cq-a", "cohort": null, "resource_groups": [{"covered_resources": ["cpu"],
     "flavors": [{"name": "on-demand", "resources": [{"name": "cpu", "nominal": "10"}]}]}]}],
   "local_queues": [{"namespace": "ns1", "name": "lq", "cluster_queue": "cq-a"}],
   "workloads": [
    {"name": "w1", "namespace": "ns1", "queue": "lq", "creation_seq": 1, "duration_seconds": 600,
     "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "6"}}]},
    {"name": "w2", "namespace": "ns1", "queue": "lq", "creation_seq": 2, "duration_seconds": 300, "deadline": 1000,
     "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "6"}}]},
    {"name": "w9", "namespace": "ns1", "queue": "lq", "creation_seq": 3, "duration_seconds": 1,
     "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "64"}}]}]})"));
}

TEST_F(CliScheduleTest, EstimateWritesContractSix) {
  auto r = run_cli("schedule estimate " + quote(write("s.json", scenario())));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json expected = json::parse(R"({"jobs": [
    {"name": "w1", "cluster_queue": "cq-a", "flavors": {"main": {"cpu": "on-demand"}}, "estimated_start": 0,
     "estimated_end": 600, "deadline_met": null, "preempted_at": []},
    {"name": "w2", "cluster_queue": "cq-a", "flavors": {"main": {"cpu": "on-demand"}}, "estimated_start": 600,
     "estimated_end": 900, "deadline_met": true, "preempted_at": []}],
    "never": {"w9": "requests 64 cpu but cq-a can never provide more than 10"}, "makespan": 900})");
  EXPECT_EQ(json::parse(r.out), expected);
}

TEST_F(CliScheduleTest, ReadsStdinAndAddsDetailsOnRequest) {
  auto r = run_cli("schedule estimate --details -", {}, write("s.json", scenario()));
  ASSERT_EQ(r.exit_code, 0);
  json out = json::parse(r.out);
  EXPECT_EQ(out["jobs"][1]["wait"]["reason"], "quota");
  EXPECT_TRUE(out.contains("utilization"));
}

TEST_F(CliScheduleTest, BadInputExitsTwoNamingThePath) {
  json s = scenario();
  s["workloads"][0]["depends_on"] = {"w2"};
  s["workloads"][1]["depends_on"] = {"w1"};
  auto r = run_cli("schedule estimate " + quote(write("bad.json", s)), dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  json err = json::parse(slurp(dir_ / "err.txt"))["error"];
  EXPECT_EQ(err["path"], "workloads[0].depends_on");
  EXPECT_NE(err["message"].get<std::string>().find("w1 -> w2 -> w1"), std::string::npos) << err;
  r = run_cli("schedule estimate " + quote((dir_ / "missing.json").string()), dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(CliScheduleTest, ViewWritesOnePage) {
  auto page = dir_ / "view.html";
  auto r = run_cli("schedule view " + quote(write("s.json", scenario())) + " --html " + quote(page.string()));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(json::parse(r.out), (json{{"html", page.string()}, {"jobs", 2}, {"never", 1}}));
  std::string html = slurp(page);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("cpu-pool-1"), std::string::npos);
  EXPECT_NE(html.find("requests 64 cpu"), std::string::npos);
}

TEST_F(CliScheduleTest, ReplaysAGeneratorFile) {
  json gen = json::parse(R"({"cohorts": [{"className": "cohort", "count": 1, "queuesSets": [{"className": "cq",
    "count": 2, "nominalQuota": 4, "borrowingLimit": 4, "reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority",
    "workloadsSets": [{"count": 10, "creationIntervalMs": 100, "workloads": [{"className": "small", "runtimeMs": 200, "priority": 50, "request": 1}]}]}]}]})");
  auto r = run_cli("schedule replay " + quote(write("gen.json", gen)));
  ASSERT_EQ(r.exit_code, 0);
  json out = json::parse(r.out);
  EXPECT_EQ(out["workloads"], 20);
  EXPECT_EQ(out["workload_classes"]["small"]["count"], 10 * 2);
  EXPECT_EQ(out["passed"], true);  // no thresholds for a custom config
  gen["cohorts"][0]["queuesSets"][0]["workloadsSets"][0]["count"] = 100'000'000;
  r = run_cli("schedule replay " + quote(write("big.json", gen)), dir_ / "err.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(json::parse(slurp(dir_ / "err.txt"))["error"]["path"], "cohorts[0].queuesSets[0].workloadsSets[0].count");
}

}  // namespace
