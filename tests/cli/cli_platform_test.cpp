// `budcore platform ...` through the built binary: an embedded platform in a directory driven
// command by command (submit, run the virtual clock, get, list, watch, cancel), a what-if
// scenario as a table and as JSON, and bad input exiting 2 with the field named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::test::detail::quote;
using budcore::test::detail::run_cli;
using nlohmann::json;

constexpr const char* kTenant = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b";

class CliPlatformTest : public budcore::test::detail::CliFixture {
 protected:
  CliPlatformTest() : CliFixture("budcore_cli_platform_") {}
  std::string common() const { return " --dir " + quote((dir_ / "p").string()) + " --tenant " + kTenant; }
  std::string dir_only() const { return " --dir " + quote((dir_ / "p").string()); }
  fs::path write(const std::string& name, const std::string& text) const {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
};

TEST_F(CliPlatformTest, AJobGoesThroughTheEmbeddedPlatformCommandByCommand) {
  fs::path spec = fs::path(BUDCORE_SOURCE_DIR) / "examples" / "specs" / "jobs" / "batch-embeddings.json";
  auto sub = run_cli("platform submit " + quote(spec.string()) + common() + " --key k1");
  ASSERT_EQ(sub.exit_code, 0) << sub.out;
  json rec = json::parse(sub.out);
  EXPECT_TRUE(rec["created"].get<bool>());
  std::string id = rec["job"]["id"];
  EXPECT_EQ(rec["job"]["status"], "queued");
  auto again = run_cli("platform submit " + quote(spec.string()) + common() + " --key k1");
  EXPECT_FALSE(json::parse(again.out)["created"].get<bool>());
  // The key with another document: refused naming the key and the job it made, exit 2.
  auto reused = run_cli("platform submit " + quote(write("other.json", R"({"name": "other", "job_type": "batch",
      "deployment_type": "docker", "spec": {"image": "x/y"}})").string()) + common() + " --key k1", dir_ / "other.err");
  EXPECT_EQ(reused.exit_code, 2) << reused.err;
  EXPECT_NE(reused.err.find("idempotency_key"), std::string::npos) << reused.err;
  EXPECT_NE(reused.err.find(id), std::string::npos) << reused.err;
  // A key given empty is refused, not taken as no key (its retries would each make a job).
  auto empty = run_cli("platform submit " + quote(spec.string()) + common() + " --key ''", dir_ / "empty.err");
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_NE(empty.err.find("--key"), std::string::npos) << empty.err;

  auto step = run_cli("platform run --for 60" + dir_only());
  ASSERT_EQ(step.exit_code, 0);
  EXPECT_EQ(json::parse(step.out)["now"], "2026-01-01T00:01:00Z");
  EXPECT_EQ(json::parse(run_cli("platform get " + id + common()).out)["job"]["status"], "running");
  auto cluster = json::parse(run_cli("platform cluster" + dir_only()).out);
  ASSERT_EQ(cluster["workloads"].size(), 1u);
  EXPECT_EQ(cluster["workloads"][0]["phase"], "running");
  ASSERT_EQ(run_cli("platform run --idle" + dir_only()).exit_code, 0);
  auto list = json::parse(run_cli("platform list --status completed" + common()).out);
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["id"], id);
  auto events = json::parse(run_cli("platform watch --since 0" + common()).out);
  EXPECT_EQ(events["events"].size(), 4u);
  EXPECT_EQ(json::parse(run_cli("platform watch --since " + std::to_string(events["last_seq"].get<long>()) + common()).out)["events"].size(), 0u);
  EXPECT_EQ(json::parse(run_cli("platform check" + dir_only()).out)["ok"], true);
  auto metrics = run_cli("platform metrics" + dir_only());
  EXPECT_NE(metrics.out.find("# TYPE job_queue_wait_seconds histogram"), std::string::npos);

  fs::path err = dir_ / "err.json";
  auto cancel = run_cli("platform cancel " + id + common(), err);
  EXPECT_EQ(cancel.exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "status");
  auto other = run_cli("platform get " + id + " --dir " + quote((dir_ / "p").string()) +
                           " --tenant 00000000-0000-4000-8000-000000000001",
                       err);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["code"], "not_found");
}

// A batch retried under one --key creates nothing twice: each job is keyed "<key>/<i>".
TEST_F(CliPlatformTest, ABatchRetriedUnderOneKeyReturnsTheSameJobs) {
  const std::string job = R"({"name":"n","job_type":"batch","deployment_type":"docker","gpu_count":1,)"
                          R"("gpu_type":"nvidia-a100-80gb","spec":{"image":"nginx"}})";
  fs::path batch = write("batch.json", "{\"jobs\": [" + job + ", " + job + "]}");
  auto first = run_cli("platform submit " + quote(batch.string()) + common() + " --key nightly");
  ASSERT_EQ(first.exit_code, 0) << first.out;
  auto again = run_cli("platform submit " + quote(batch.string()) + common() + " --key nightly");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  json a = json::parse(first.out)["results"], b = json::parse(again.out)["results"];
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(a[i]["idempotency_key"], "nightly/" + std::to_string(i));
    EXPECT_TRUE(a[i]["created"].get<bool>());
    EXPECT_FALSE(b[i]["created"].get<bool>());
    EXPECT_EQ(a[i]["job"]["id"], b[i]["job"]["id"]);
  }
  EXPECT_EQ(json::parse(run_cli("platform list" + common()).out)["items"].size(), 2u);
}

TEST_F(CliPlatformTest, ScheduleShowsWhenTheTenantsJobsStartAndEnd) {
  fs::path job = write("j.json", R"({"name": "wide", "job_type": "BATCH", "deployment_type": "DOCKER",
    "gpu_type": "nvidia-a100-80gb", "gpu_count": 8, "estimated_duration_seconds": 600})");
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    auto sub = run_cli("platform submit " + quote(job.string()) + common());
    ASSERT_EQ(sub.exit_code, 0) << sub.out;
    ids.push_back(json::parse(sub.out)["job"]["id"]);
  }
  fs::path html = dir_ / "schedule.html";
  auto out = run_cli("platform schedule" + common() + " --html " + quote(html.string()));
  ASSERT_EQ(out.exit_code, 0) << out.out;
  json s = json::parse(out.out);
  ASSERT_EQ(s["jobs"].size(), 4u);
  std::set<std::string> names;
  bool waits = false;
  for (const auto& j : s["jobs"]) {
    names.insert(j["name"].get<std::string>());
    EXPECT_EQ(j["estimated_end"].get<double>() - j["estimated_start"].get<double>(), 600);
    waits = waits || (j["wait"].is_object() && j["wait"]["reason"] == "quota");
  }
  EXPECT_EQ(names, std::set<std::string>(ids.begin(), ids.end()));
  EXPECT_TRUE(waits) << out.out;
  EXPECT_NE(budcore::test::detail::slurp(html).find("<svg"), std::string::npos);
  // get shows the same estimate on the job record.
  auto rec = json::parse(run_cli("platform get " + ids.back() + common()).out);
  EXPECT_EQ(rec["job"]["estimated_start"].is_string(), true) << rec.dump();
  // Another tenant sees none of them; no tenant is an error.
  auto other = json::parse(run_cli("platform schedule --dir " + quote((dir_ / "p").string()) +
                                   " --tenant 00000000-0000-4000-8000-000000000001").out);
  EXPECT_TRUE(other["jobs"].empty());
  fs::path err = dir_ / "err.json";
  EXPECT_EQ(run_cli("platform schedule" + dir_only(), err).exit_code, 2);
}

// Under a placement policy (the platform reopened by every command): two A100 nodes of 4 GPUs
// under worst_fit; a and b take one GPU on each node, so c (4 GPUs) waits for placement, and
// `platform defrag` gives the plan that frees it (move a: 1 GPU x (0 + 60) s), nothing applied.
TEST_F(CliPlatformTest, DefragGivesThePlanForAGangWaitingForPlacement) {
  fs::path cfg = write("gpu.yaml", "store: sqlite://" + (dir_ / "gpu.db").string() +
                                       "\ncluster:\n  placement_policy: worst_fit\n  inventory:\n"
                                       "    - {name: a100, flavor: a100-80gb, nodes: 2, gpu_type: nvidia-a100-80gb,"
                                       " gpus_per_node: 4, cpu_per_node: \"96\", memory_per_node: 1Ti}\n");
  const std::string with = " --config " + quote(cfg.string()) + " --tenant " + kTenant;
  std::vector<std::string> ids;
  for (auto [name, gpus, seconds] : {std::tuple{"a", 1, 300}, {"b", 1, 600}, {"c", 4, 600}}) {
    fs::path job = write(std::string(name) + ".json",
                         std::string(R"({"name": ")") + name + R"(", "job_type": "BATCH", "deployment_type": "DOCKER",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": )" + std::to_string(gpus) +
                             R"(, "estimated_duration_seconds": )" + std::to_string(seconds) + "}");
    auto sub = run_cli("platform submit " + quote(job.string()) + with);
    ASSERT_EQ(sub.exit_code, 0) << sub.out;
    ids.push_back(json::parse(sub.out)["job"]["id"]);
  }
  auto out = run_cli("platform defrag " + ids[2] + with);
  ASSERT_EQ(out.exit_code, 0) << out.out;
  json d = json::parse(out.out);
  EXPECT_EQ(d["applied"], false);
  ASSERT_TRUE(d["plan"].is_object()) << out.out;
  EXPECT_EQ(d["plan"]["kind"], "move");
  EXPECT_EQ(d["plan"]["cost_gpu_seconds"], 60);
  ASSERT_EQ(d["plan"]["moves"].size(), 1u);
  EXPECT_EQ(d["plan"]["moves"][0]["workload"], ids[0]);
  // A job that does not wait for placement, and a bad id: exit 2 naming the field.
  fs::path err = dir_ / "err.json";
  EXPECT_EQ(run_cli("platform defrag " + ids[0] + with, err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "job");
  EXPECT_EQ(run_cli("platform defrag not-a-uuid" + with, err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "job");

  // --apply --plan FILE: a plan that no longer matches the cluster is refused (conflict, naming
  // where), changing nothing; the plan printed above (the platform reopened since) is applied.
  json stale_doc = d;
  stale_doc["plan"]["moves"][0]["to"] = "a100-0";
  fs::path stale = write("stale.json", stale_doc.dump());
  EXPECT_NE(run_cli("platform defrag " + ids[2] + " --apply --plan " + quote(stale.string()) + with, err).exit_code, 0);
  json e = json::parse(budcore::test::detail::slurp(err))["error"];
  EXPECT_EQ(e["code"], "conflict") << e.dump();
  EXPECT_EQ(e["path"], "plan.moves[0].to") << e.dump();
  EXPECT_NE(json::parse(run_cli("platform get " + ids[2] + with).out)["job"]["status"], "running");
  fs::path plan = write("plan.json", out.out);
  auto applied = run_cli("platform defrag " + ids[2] + " --apply --plan " + quote(plan.string()) + with);
  ASSERT_EQ(applied.exit_code, 0) << applied.out;
  json a = json::parse(applied.out);
  EXPECT_EQ(a["applied"], true);
  EXPECT_EQ(a["plan"]["moves"][0]["workload"], ids[0]);
  EXPECT_EQ(json::parse(run_cli("platform get " + ids[2] + with).out)["job"]["status"], "running");
  EXPECT_EQ(json::parse(run_cli("platform get " + ids[1] + with).out)["job"]["status"], "running");
  auto check = run_cli("platform check --config " + quote(cfg.string()));
  EXPECT_EQ(json::parse(check.out)["ok"], true) << check.out;
  // --plan without --apply is a usage error.
  EXPECT_NE(run_cli("platform defrag " + ids[2] + " --plan " + quote(plan.string()) + with).exit_code, 0);
}

// Two tenants under RBAC on one SQLite file, every command its own process: B's run x and A's y
// take one GPU on each node, so A's gang c waits for placement.
class CliTwoTenantGpuTest : public CliPlatformTest {
 protected:
  static constexpr const char* kTenantB = "00000000-0000-4000-8000-0000000000b2";
  void SetUp() override {
    CliPlatformTest::SetUp();
    cfg_ = write("gpu.yaml", "store: sqlite://" + (dir_ / "gpu.db").string() +
                                 "\ncluster:\n  placement_policy: worst_fit\n  inventory:\n"
                                 "    - {name: a100, flavor: a100-80gb, nodes: 2, gpu_type: nvidia-a100-80gb,"
                                 " gpus_per_node: 4, cpu_per_node: \"96\", memory_per_node: 1Ti}\n"
                                 "security:\n  rbac: true\n  platform_admins: ['user:root']\n");
    ASSERT_EQ(run_cli("platform bind user:alice admin" + as(kTenant, "user:root")).exit_code, 0);
    ASSERT_EQ(run_cli("platform bind user:bob admin" + as(kTenantB, "user:root")).exit_code, 0);
    x_ = submit("x", 1, 300, as(kTenantB, "user:bob"));
    y_ = submit("y", 1, 600, alice());
    c_ = submit("c", 4, 600, alice());
    ASSERT_EQ(run_cli("platform run --for 1 --config " + quote(cfg_.string())).exit_code, 0);
  }
  std::string as(const char* tenant, const std::string& principal) const {
    return " --config " + quote(cfg_.string()) + " --tenant " + tenant + " --principal " + principal;
  }
  std::string alice() const { return as(kTenant, "user:alice"); }
  std::string submit(const std::string& name, int gpus, int seconds, const std::string& who) {
    fs::path job = write(name + ".json", R"({"name": ")" + name + R"(", "job_type": "BATCH", "deployment_type": "DOCKER",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": )" + std::to_string(gpus) +
                                             R"(, "estimated_duration_seconds": )" + std::to_string(seconds) + "}");
    auto sub = run_cli("platform submit " + quote(job.string()) + who);
    EXPECT_EQ(sub.exit_code, 0) << sub.out;
    return sub.exit_code == 0 ? json::parse(sub.out)["job"]["id"].get<std::string>() : std::string();
  }
  fs::path cfg_;
  std::string x_, y_, c_;
};

// `platform cluster` shows a tenant's caller its runs by id and the other tenant's hidden (the
// name a plan gives it); a platform admin sees every id; with RBAC a call with no tenant is
// refused.
TEST_F(CliTwoTenantGpuTest, ClusterShowsACallerItsOwnRunsAndHidesTheOthers) {
  fs::path err = dir_ / "err.json";
  EXPECT_EQ(run_cli("platform cluster --config " + quote(cfg_.string()), err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "tenant");
  auto mine = run_cli("platform cluster" + alice());
  ASSERT_EQ(mine.exit_code, 0) << mine.out;
  EXPECT_EQ(mine.out.find(x_), std::string::npos) << mine.out;
  EXPECT_EQ(mine.out.find(kTenantB), std::string::npos) << mine.out;
  std::set<std::string> names;
  const json view = json::parse(mine.out);
  for (const auto& w : view["workloads"]) names.insert(w["job_id"].get<std::string>());
  EXPECT_TRUE(names.count(y_) && names.count(c_)) << mine.out;
  EXPECT_EQ(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.rfind("[hidden ", 0) == 0; }), 1)
      << mine.out;
  // A's plan moves A's own run, never B's (which it sees only hidden).
  auto plan = json::parse(run_cli("platform defrag " + c_ + alice()).out);
  EXPECT_EQ(plan["plan"]["moves"][0]["workload"], y_) << plan.dump();
  auto all = run_cli("platform cluster" + as(kTenant, "user:root"));
  ASSERT_EQ(all.exit_code, 0) << all.out;
  EXPECT_NE(all.out.find(x_), std::string::npos) << all.out;
}

// Four processes apply one plan (it moves A's own run) at once: one applies it; the others are
// refused without naming B's job, and A's audit log holds one applied jobs.defrag entry.
TEST_F(CliTwoTenantGpuTest, ConcurrentAppliesOfOnePlanAuditOnceAndNameNoForeignJob) {
  auto plan = run_cli("platform defrag " + c_ + alice());
  ASSERT_EQ(plan.exit_code, 0) << plan.out;
  const fs::path plan_file = write("plan.json", plan.out);
  std::string script;
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    script += "( " + quote(budcore::test::detail::cli_binary().string()) + " platform defrag " + c_ + " --apply --plan " +
              quote(plan_file.string()) + alice() + " >" + quote((dir_ / ("out" + n)).string()) + " 2>" +
              quote((dir_ / ("err" + n)).string()) + "; echo $? >" + quote((dir_ / ("rc" + n)).string()) + " ) & ";
  }
  ASSERT_EQ(std::system(("sh -c " + quote(script + "wait")).c_str()), 0);
  int applied = 0;
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    const int rc = std::stoi(budcore::test::detail::slurp(dir_ / ("rc" + n)));
    const std::string said = budcore::test::detail::slurp(dir_ / ("out" + n)) + budcore::test::detail::slurp(dir_ / ("err" + n));
    EXPECT_EQ(said.find(x_), std::string::npos) << said;
    if (rc == 0) ++applied;
    else EXPECT_EQ(rc, 2) << said;
  }
  EXPECT_EQ(applied, 1);
  auto audit = run_cli("platform audit" + as(kTenant, "user:root"));
  ASSERT_EQ(audit.exit_code, 0) << audit.out;
  int entries = 0;
  const json log = json::parse(audit.out);
  for (const auto& e : log["items"])
    if (e["action"] == "jobs.defrag" && e["detail"]["outcome"] == "ok") ++entries;
  EXPECT_EQ(entries, 1) << audit.out;
  EXPECT_EQ(json::parse(run_cli("platform get " + c_ + alice()).out)["job"]["status"], "running");
}

// `gpu place-mig`: where one instance of a MIG profile goes, re-partitioning a GPU when no free
// instance of it fits.
TEST_F(CliPlatformTest, GpuPlaceMigRePartitionsAGpu) {
  fs::path problem = write("mig.json", R"({"nodes": [{"name": "n0", "model": "A100-80GB", "gpus": 1,
      "mig": [["1g.10gb@0", "1g.10gb@1", "1g.10gb@2", "1g.10gb@3", "1g.10gb@4", "1g.10gb@5", "1g.10gb@6"]]}],
      "workloads": [{"name": "w", "node": "n0", "mig": [[0, 5]]}], "request": {"mig_profile": "3g.40gb"}})");
  auto out = run_cli("gpu place-mig --problem " + quote(problem.string()));
  ASSERT_EQ(out.exit_code, 0) << out.out;
  json p = json::parse(out.out)["placement"];
  // At slice 4 the instance in use at 5 would go: the new one starts at 0, giving up four.
  EXPECT_EQ(p["node"], "n0");
  EXPECT_EQ(p["dropped"], 4);
  EXPECT_EQ(p["repartition"], json::parse(R"(["1g.10gb@4", "1g.10gb@5", "1g.10gb@6", "3g.40gb@0"])"));
  EXPECT_EQ(p["instance"], 3);
  auto applied = json::parse(run_cli("gpu place-mig --apply --problem " + quote(problem.string())).out);
  EXPECT_EQ(applied["applied"], true);
  // The workload in use keeps its instance: 1g.10gb@5 is now the layout's second.
  EXPECT_EQ(applied["workloads"][0]["mig"], json::parse("[[0, 1]]"));
}

TEST_F(CliPlatformTest, SimulatePrintsATableOrJson) {
  fs::path s = write("s.yaml", R"(
jobs:
  - {at: 0, job: {name: first, job_type: BATCH, deployment_type: DOCKER, gpu_type: nvidia-a100-80gb, gpu_count: 8, estimated_duration_seconds: 1000}}
  - {at: 0, job: {name: second, job_type: BATCH, deployment_type: DOCKER, gpu_type: nvidia-a100-80gb, gpu_count: 8, estimated_duration_seconds: 500}}
)");
  auto table = run_cli("platform simulate " + quote(s.string()));
  ASSERT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("NAME"), std::string::npos);
  EXPECT_NE(table.out.find("second"), std::string::npos);
  auto out = run_cli("platform simulate --json " + quote(s.string()));
  ASSERT_EQ(out.exit_code, 0) << out.out;
  json j = json::parse(out.out);
  EXPECT_EQ(j["jobs"][1]["started_at"], 1000);
  EXPECT_EQ(j["jobs"][1]["wait_seconds"], 1000);
  // An action's outcome is in the story, before the transitions it caused, and one the
  // platform refuses is told too.
  fs::path acted = write("a.yaml", R"(
jobs:
  - {at: 0, job: {name: long, job_type: BATCH, deployment_type: DOCKER, gpu_type: nvidia-a100-80gb, gpu_count: 8, estimated_duration_seconds: 5000}}
actions:
  - {at: 100, cancel: long}
  - {at: 200, cancel: long}
)");
  auto story = run_cli("platform simulate --json " + quote(acted.string()));
  ASSERT_EQ(story.exit_code, 0) << story.out;
  std::vector<std::string> log = json::parse(story.out)["log"];
  auto at = [&](const std::string& part) {
    return std::find_if(log.begin(), log.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; }) - log.begin();
  };
  ASSERT_LT(at("action actions[0] on long: done"), static_cast<long>(log.size())) << story.out;
  EXPECT_LT(at("action actions[0] on long: done"), at("-> cancelled"));
  EXPECT_LT(at("action actions[1] on long: "), static_cast<long>(log.size())) << story.out;
  EXPECT_EQ(log[at("action actions[1]")].find("done"), std::string::npos);
  auto demo = run_cli("platform simulate --json " +
                      quote((fs::path(BUDCORE_SOURCE_DIR) / "examples" / "specs" / "demo-scenario.yaml").string()));
  ASSERT_EQ(demo.exit_code, 0);
  EXPECT_GE(json::parse(demo.out)["jobs"].size(), 10u);
}

// A scenario's `cost` section (a price book file beside the scenario): every ended job shows its
// actual_cost, and a job past its budget_limit is stopped.
TEST_F(CliPlatformTest, SimulateWithACostSectionShowsActualCostAndStopsAJobAtItsBudgetLimit) {
  write("prices.yaml", "currency: USD\ngpu_hour: {nvidia-a100-80gb: {on_demand: \"2.00\"}}\n"
                       "cpu_core_hour: {on_demand: \"0\"}\nmemory_gib_hour: {on_demand: \"0\"}\n");
  fs::path s = write("cost.yaml", R"(
cost: {prices: prices.yaml}
jobs:
  - {at: 0, job: {name: capped, job_type: BATCH, deployment_type: DOCKER, gpu_type: nvidia-a100-80gb, gpu_count: 1, estimated_duration_seconds: 3600, budget_limit: "1.00"}}
  - {at: 0, job: {name: free, job_type: BATCH, deployment_type: DOCKER, gpu_type: nvidia-a100-80gb, gpu_count: 1, estimated_duration_seconds: 1800}}
)");
  auto out = run_cli("platform simulate --json " + quote(s.string()));
  ASSERT_EQ(out.exit_code, 0) << out.out;
  json j = json::parse(out.out);
  EXPECT_EQ(j["jobs"][0]["status"], "failed");
  EXPECT_EQ(j["jobs"][0]["ended_at"], 1801);
  EXPECT_NE(j["jobs"][0]["message"].get<std::string>().find("BudgetExceeded"), std::string::npos) << out.out;
  EXPECT_EQ(j["jobs"][0]["actual_cost"], "1.000555555556 USD");
  EXPECT_EQ(j["jobs"][1]["status"], "completed");
  EXPECT_EQ(j["jobs"][1]["actual_cost"], "1.00 USD");
  // The shipped example: examples/cost-scenario.yaml.
  auto example = run_cli("platform simulate --json " +
                         quote((fs::path(BUDCORE_SOURCE_DIR) / "examples" / "cost-scenario.yaml").string()));
  ASSERT_EQ(example.exit_code, 0) << example.out;
  json e = json::parse(example.out);
  EXPECT_EQ(e["jobs"][0]["status"], "completed");
  EXPECT_EQ(e["jobs"][0]["actual_cost"], "13.24 USD");
  EXPECT_EQ(e["jobs"][1]["status"], "failed");
  EXPECT_EQ(e["jobs"][1]["ended_at"], 5295);
  fs::path err = dir_ / "err.json";
  fs::path bad = write("bad-cost.yaml", "cost: {prices: missing.yaml}\n");
  EXPECT_EQ(run_cli("platform simulate " + quote(bad.string()), err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"].get<std::string>().rfind("cost.prices", 0), 0u);
}

TEST_F(CliPlatformTest, BadInputExitsTwoNamingTheField) {
  fs::path err = dir_ / "err.json";
  fs::path s = write("bad.yaml", "jobs: [{at: 1, job: {name: x, job_type: BATCH, deployment_type: DOCKER, gpu_count: -3}}]\n");
  EXPECT_EQ(run_cli("platform simulate " + quote(s.string()), err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "jobs[0].job.gpu_count");
  EXPECT_EQ(run_cli("platform simulate " + quote((dir_ / "missing.yaml").string()), err).exit_code, 2);
  EXPECT_EQ(run_cli("platform get not-a-uuid" + common(), err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "id");
  EXPECT_EQ(run_cli("platform list --dir x --tenant nope", err).exit_code, 2);
  fs::path cfg = write("cfg.yaml", "store: \"sqlite::memory:\"\ncluster: {inventroy: []}\n");
  EXPECT_EQ(run_cli("platform list --config " + quote(cfg.string()) + " --tenant " + kTenant, err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "cluster.inventroy");
  // A version this library does not read is the user's to change, like any other bad field.
  fs::path v2 = write("v2.yaml", "schema_version: 2\nstore: \"sqlite::memory:\"\n");
  EXPECT_EQ(run_cli("platform list --config " + quote(v2.string()) + " --tenant " + kTenant, err).exit_code, 2);
  auto said = json::parse(budcore::test::detail::slurp(err));
  EXPECT_EQ(said["error"]["path"], "schema_version");
  EXPECT_EQ(said["error"]["code"], "unsupported");
  // `serve --replica ""` (an unset shell variable) is refused, not run under the config's id.
  fs::path ha = write("ha.yaml", "store: \"sqlite://" + (dir_ / "ha.db").string() + "\"\nclock: system\nha: {replica: r1}\n");
  EXPECT_EQ(run_cli("platform serve --config " + quote(ha.string()) + " --replica ''", err).exit_code, 2);
  EXPECT_EQ(json::parse(budcore::test::detail::slurp(err))["error"]["path"], "--replica");
}

}  // namespace
