// Drives the built `budcore` binary through `quota simulate|import|export` as docs/cli.md contract 2
// describes it: JSON on stdout, a one-line error object on stderr, exit codes 0/2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_runner.hpp"
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using budcore::test::detail::CliRun;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using budcore::test::detail::slurp;

// A standalone queue with 6 cpu, "low" (priority -1) and "mid" (0) admitted with 2 cpu each, and
// "high" (priority 1) asking for 4: one preemption, then admission one cycle later.
json preemption_scenario(const json& cycles) {
  auto admitted = [](const char* name, int prio, int seq) {
    return json{{"name", name}, {"namespace", "ns"}, {"queue", "main"}, {"priority", prio}, {"creation_seq", seq},
                {"pod_sets", json::array({{{"name", "main"}, {"count", 1}, {"requests", {{"cpu", "2"}}}}})},
                {"admitted", {{"cluster_queue", "standalone"}, {"flavors", {{"main", {{"cpu", "default"}}}}}}}};
  };
  json high = {{"name", "high"}, {"namespace", "ns"}, {"queue", "main"}, {"priority", 1}, {"creation_seq", 3},
               {"pod_sets", json::array({{{"name", "main"}, {"count", 1}, {"requests", {{"cpu", "4"}}}}})},
               {"admitted", nullptr}};
  return {
      {"cycles", cycles},
      {"fair_sharing", false},
      {"resource_flavors", json::array({{{"name", "default"}, {"node_labels", json::object()}}})},
      {"cluster_queues",
       json::array({{{"name", "standalone"},
                     {"cohort", nullptr},
                     {"queueing_strategy", "BestEffortFIFO"},
                     {"preemption", {{"within_cluster_queue", "LowerPriority"}, {"reclaim_within_cohort", "Never"}}},
                     {"resource_groups",
                      json::array({{{"covered_resources", {"cpu"}},
                                    {"flavors", json::array({{{"name", "default"},
                                                              {"resources", json::array({{{"name", "cpu"},
                                                                                          {"nominal", "6"}}})}}})}}})}}})},
      {"local_queues", json::array({{{"namespace", "ns"}, {"name", "main"}, {"cluster_queue", "standalone"}}})},
      {"workloads", json::array({admitted("low", -1, 1), admitted("mid", 0, 2), high})}};
}

class CliQuotaTest : public budcore::test::detail::CliFixture {
 protected:
  CliQuotaTest() : CliFixture("budcore_cli_quota_") {}
  static fs::path kueue_yaml() { return fs::path(BUDCORE_SOURCE_DIR) / "tests/quota/data_kueue/source_design_cqs.yaml"; }

  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  CliRun run(const std::string& args, const fs::path& stdin_file = {}) {
    return run_cli(args, dir_ / "stderr.txt", stdin_file);
  }

  // The error object is the last line of stderr; Kueue imports may print "warning: ..." lines before it.
  static json error_of(const CliRun& r) {
    std::string last = r.err;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    if (auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
    json j = json::parse(last, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stderr is not JSON: " << r.err;
    if (j.is_discarded() || !j.contains("error")) return json::object();
    const json& e = j["error"];
    EXPECT_TRUE(e.contains("code") && e.contains("message") && e.contains("path")) << r.err;
    return e;
  }

};

TEST_F(CliQuotaTest, SimulateWritesTheContractShape) {
  fs::path f = write("s.json", preemption_scenario(1).dump());
  CliRun r = run("quota simulate " + quote(f.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  ASSERT_TRUE(out.contains("admitted") && out.contains("preempted") && out.contains("pending") && out.contains("usage"))
      << r.out;
  // One cycle: the preemptor evicts "low" and waits; it is not admitted in the cycle it preempts.
  EXPECT_TRUE(out["admitted"].empty()) << r.out;
  EXPECT_EQ(out["preempted"], json::array({"low"}));
  ASSERT_TRUE(out["pending"].contains("high")) << r.out;
  EXPECT_TRUE(out["pending"]["high"].is_string());
  EXPECT_FALSE(out["pending"]["high"].get<std::string>().empty());
  EXPECT_FALSE(out["pending"].contains("low"));  // preempted workloads are not listed as pending
}

TEST_F(CliQuotaTest, UntilQuiescentAdmitsThePreemptorAfterTheEviction) {
  fs::path f = write("s.json", preemption_scenario("until_quiescent").dump());
  CliRun r = run("quota simulate " + quote(f.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  ASSERT_TRUE(out["admitted"].contains("high")) << r.out;
  EXPECT_EQ(out["admitted"]["high"]["cluster_queue"], "standalone");
  EXPECT_EQ(out["admitted"]["high"]["flavors"]["main"]["cpu"], "default");
  EXPECT_EQ(out["admitted"]["high"]["borrowing"], false);
  EXPECT_EQ(out["preempted"], json::array({"low"}));
  EXPECT_TRUE(out["pending"].empty()) << r.out;
  EXPECT_EQ(out["usage"]["standalone"]["default"]["cpu"], "6");  // mid 2 + high 4
}

TEST_F(CliQuotaTest, SimulateReadsStdinWithDash) {
  fs::path f = write("s.json", preemption_scenario("until_quiescent").dump());
  CliRun from_stdin = run("quota simulate -", f);
  CliRun from_file = run("quota simulate " + quote(f.string()));
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.err;
  EXPECT_EQ(json::parse(from_stdin.out), json::parse(from_file.out));
}

TEST_F(CliQuotaTest, BadScenarioExitsTwoNamingTheField) {
  json s = preemption_scenario(1);
  s["cluster_queues"][0]["queueing_strategy"] = "Sometimes";
  CliRun r = run("quota simulate " + quote(write("bad.json", s.dump()).string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  json e = error_of(r);
  EXPECT_NE(e.value("path", "").find("cluster_queues[0].queueing_strategy"), std::string::npos) << r.err;

  json s2 = preemption_scenario(1);
  s2["workloads"][2]["pod_sets"][0]["requests"]["cpu"] = "lots";
  CliRun r2 = run("quota simulate " + quote(write("bad2.json", s2.dump()).string()));
  EXPECT_EQ(r2.exit_code, 2);
  EXPECT_NE(error_of(r2).value("path", "").find("workloads[2].pod_sets[0].requests"), std::string::npos) << r2.err;

  json s3 = preemption_scenario(json("forever"));
  CliRun r3 = run("quota simulate " + quote(write("bad3.json", s3.dump()).string()));
  EXPECT_EQ(r3.exit_code, 2);
  EXPECT_NE(error_of(r3).value("path", "").find("cycles"), std::string::npos) << r3.err;

  CliRun r4 = run("quota simulate " + quote((dir_ / "missing.json").string()));
  EXPECT_EQ(r4.exit_code, 2);
  error_of(r4);
}

TEST_F(CliQuotaTest, ImportExportRoundTripsThroughFiles) {
  CliRun imp = run("quota import " + quote(kueue_yaml().string()));
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  json config = json::parse(imp.out);
  ASSERT_TRUE(config.contains("cluster_queues")) << imp.out;
  EXPECT_FALSE(config["cluster_queues"].empty());
  fs::path config_file = write("config.json", imp.out);

  for (const char* api : {"v1beta2", "v1beta1"}) {
    CliRun exp = run("quota export --kueue --api-version " + std::string(api) + " " + quote(config_file.string()));
    ASSERT_EQ(exp.exit_code, 0) << exp.err;
    EXPECT_NE(exp.out.find(std::string("kueue.x-k8s.io/") + api), std::string::npos) << exp.out;
    EXPECT_NE(exp.out.find("kind: ClusterQueue"), std::string::npos);
    fs::path yaml_file = write(std::string("exported-") + api + ".yaml", exp.out);
    CliRun again = run("quota import " + quote(yaml_file.string()));
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(json::parse(again.out), config) << api;
  }

  CliRun bad = run("quota export --kueue --api-version v2 " + quote(config_file.string()));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(error_of(bad).value("path", "").find("--api-version"), std::string::npos) << bad.err;
}

TEST_F(CliQuotaTest, ImportOfBrokenKueueYamlNamesTheDocumentField) {
  fs::path f = write("broken.yaml",
                     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: a}\n---\n"
                     "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n"
                     "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: a\n"
                     "      resources:\n      - name: cpu\n        nominalQuota: plenty\n");
  CliRun r = run("quota import " + quote(f.string()));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(error_of(r).value("path", "").find("documents[1]"), std::string::npos) << r.err;
}

TEST_F(CliQuotaTest, SimulatesKueueYamlWithAWorkloadsFile) {
  CliRun imp = run("quota import " + quote(kueue_yaml().string()));
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  json config = json::parse(imp.out);
  ASSERT_FALSE(config["cluster_queues"].empty());
  const json& first_cq = config["cluster_queues"][0];
  std::string cq = first_cq["name"];
  std::string flavor = first_cq["resource_groups"][0]["flavors"][0]["name"];
  std::string resource = first_cq["resource_groups"][0]["covered_resources"][0];

  // One LocalQueue for the first ClusterQueue plus two workloads: one fits, one asks for more than any queue has.
  std::string yaml =
      "cycles: until_quiescent\n"
      "workloads:\n"
      "- {name: fits, namespace: team, queue: lq, priority: 0, creation_seq: 1,\n"
      "   pod_sets: [{name: main, count: 1, requests: {\"" + resource + "\": \"1\"}}]}\n"
      "- {name: huge, namespace: team, queue: lq, priority: 0, creation_seq: 2,\n"
      "   pod_sets: [{name: main, count: 1, requests: {\"" + resource + "\": \"100000\"}}]}\n";
  fs::path workloads = write("workloads.yaml", yaml);
  std::string kueue = slurp(kueue_yaml()) +
                      "\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: team}\n"
                      "spec: {clusterQueue: " + cq + "}\n";
  fs::path objects = write("kueue.yaml", kueue);

  CliRun r = run("quota simulate " + quote(objects.string()) + " --workloads " + quote(workloads.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  ASSERT_TRUE(out["admitted"].contains("fits")) << r.out;
  EXPECT_EQ(out["admitted"]["fits"]["cluster_queue"], cq);
  EXPECT_EQ(out["admitted"]["fits"]["flavors"]["main"][resource], flavor);
  ASSERT_TRUE(out["pending"].contains("huge")) << r.out;
  EXPECT_NE(out["pending"]["huge"].get<std::string>().find(resource), std::string::npos) << out["pending"]["huge"];

  // A directory of Kueue objects works the same way.
  fs::path d = dir_ / "objs";
  fs::create_directories(d);
  fs::copy_file(objects, d / "kueue.yaml");
  CliRun rd = run("quota simulate " + quote(d.string()) + " --workloads " + quote(workloads.string()));
  ASSERT_EQ(rd.exit_code, 0) << rd.err;
  EXPECT_EQ(json::parse(rd.out), out);

  CliRun bad = run("quota simulate " + quote(objects.string()) + " --workloads " +
                   quote(write("w.json", "\"just a string\"").string()));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(error_of(bad).value("path", "").find("--workloads"), std::string::npos) << bad.err;
}

}  // namespace
