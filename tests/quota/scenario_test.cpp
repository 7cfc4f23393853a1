// Admission rules from Kueue's documented behaviour, driven through the simulate contract.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <algorithm>
#include <iostream>

#include "budcore/quota/scenario.hpp"

namespace budcore::quota {
namespace {

using Json = nlohmann::json;

// A scenario with flavors, one cohort "all" and the given queues/workloads.
Json base() {
  return Json::parse(R"({"cycles": 1, "resource_flavors": [{"name": "on-demand"}, {"name": "spot"}],
    "cohorts": [], "cluster_queues": [], "local_queues": [], "workloads": []})");
}

// The flavors come as a vector: a one-element braced list converted to Json is an array under
// GCC and a copy of the element under Clang (nlohmann/json's documented pitfall).
Json cq(const std::string& name, const char* cohort, const std::vector<Json>& flavors, Json extra = Json::object()) {
  Json q = {{"name", name}, {"cohort", cohort ? Json(cohort) : Json(nullptr)},
            {"resource_groups", Json::array({{{"covered_resources", Json::array({"cpu"})}, {"flavors", Json(flavors)}}})}};
  for (auto& [k, v] : extra.items()) q[k] = v;
  return q;
}

Json flavor(const std::string& name, const std::string& nominal, Json borrowing = nullptr, Json lending = nullptr) {
  return {{"name", name},
          {"resources", Json::array({{{"name", "cpu"}, {"nominal", nominal}, {"borrowing_limit", borrowing}, {"lending_limit", lending}}})}};
}

Json wl(const std::string& name, const std::string& queue, const std::string& cpu, int prio, int seq, int count = 1,
        Json min_count = nullptr) {
  return {{"name", name}, {"namespace", "ns"}, {"queue", queue}, {"priority", prio}, {"creation_seq", seq},
          {"pod_sets", Json::array({{{"name", "main"}, {"count", count}, {"min_count", min_count}, {"requests", {{"cpu", cpu}}}}})}};
}

Json admitted(Json w, const std::string& cq, const std::string& fl) {
  w["admitted"] = {{"cluster_queue", cq}, {"flavors", {{"main", {{"cpu", fl}}}}}};
  return w;
}

void add_lq(Json& s, const std::string& name, const std::string& cq) {
  s["local_queues"].push_back({{"namespace", "ns"}, {"name", name}, {"cluster_queue", cq}});
}

Json run(const Json& s) {
  auto sc = parse_scenario(s.dump());
  EXPECT_TRUE(sc.has_value()) << (sc ? "" : sc.error().describe());
  if (!sc) return {};
  auto r = simulate(*sc);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().describe());
  if (!r) return {};
  return Json::parse(to_json(*r));
}

core::Error run_error(const Json& s) {
  auto sc = parse_scenario(s.dump());
  if (!sc) return sc.error();
  auto r = simulate(*sc);
  EXPECT_FALSE(r.has_value());
  return r ? core::Error{} : r.error();
}

TEST(QuotaSimulateTest, AdmitsWithinNominalAndReportsUsage) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "10")}));
  add_lq(s, "lq", "cq-a");
  s["workloads"].push_back(wl("w1", "lq", "3", 0, 1, 2));
  Json out = run(s);
  EXPECT_EQ(out["admitted"]["w1"]["cluster_queue"], "cq-a");
  EXPECT_EQ(out["admitted"]["w1"]["flavors"]["main"]["cpu"], "on-demand");
  EXPECT_EQ(out["admitted"]["w1"]["borrowing"], false);
  EXPECT_EQ(out["usage"]["cq-a"]["on-demand"]["cpu"], "6");
  EXPECT_TRUE(out["pending"].empty());
}

TEST(QuotaSimulateTest, OneHeadPerClusterQueuePerCycle) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "10")}));
  add_lq(s, "lq", "cq-a");
  s["workloads"].push_back(wl("late", "lq", "1", 0, 2));
  s["workloads"].push_back(wl("high", "lq", "1", 5, 3));
  s["workloads"].push_back(wl("early", "lq", "1", 0, 1));
  Json out = run(s);
  EXPECT_EQ(out["admitted"].size(), 1u);
  EXPECT_TRUE(out["admitted"].contains("high"));  // priority first, then creation
  s["cycles"] = 2;
  out = run(s);
  EXPECT_TRUE(out["admitted"].contains("early"));
  EXPECT_TRUE(out["pending"].contains("late"));
  s["cycles"] = "until_quiescent";
  out = run(s);
  EXPECT_EQ(out["admitted"].size(), 3u);
}

TEST(QuotaSimulateTest, FallsBackToNextFlavorInOrder) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "2"), flavor("spot", "10")}));
  add_lq(s, "lq", "cq-a");
  s["workloads"].push_back(wl("w1", "lq", "3", 0, 1));
  Json out = run(s);
  EXPECT_EQ(out["admitted"]["w1"]["flavors"]["main"]["cpu"], "spot");
  EXPECT_EQ(out["usage"]["cq-a"]["on-demand"]["cpu"], "0");
  EXPECT_EQ(out["usage"]["cq-a"]["spot"]["cpu"], "3");
}

TEST(QuotaSimulateTest, BorrowsIdleQuotaFromCohortWithinBorrowingLimit) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", "all", {flavor("on-demand", "4", "2")}));
  s["cluster_queues"].push_back(cq("cq-b", "all", {flavor("on-demand", "10")}));
  add_lq(s, "lq-a", "cq-a");
  s["workloads"].push_back(wl("fits", "lq-a", "6", 0, 1));
  Json out = run(s);
  EXPECT_EQ(out["admitted"]["fits"]["borrowing"], true);
  EXPECT_EQ(out["usage"]["cq-a"]["on-demand"]["cpu"], "6");
  s["workloads"][0] = wl("too-big", "lq-a", "7", 0, 1);
  out = run(s);
  EXPECT_TRUE(out["admitted"].empty());
  EXPECT_NE(out["pending"]["too-big"].get<std::string>().find("maximum capacity"), std::string::npos);
}

TEST(QuotaSimulateTest, LendingLimitKeepsQuotaPrivate) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", "all", {flavor("on-demand", "0")}));
  s["cluster_queues"].push_back(cq("cq-b", "all", {flavor("on-demand", "10", nullptr, "3")}));
  add_lq(s, "lq-a", "cq-a");
  s["workloads"].push_back(wl("w", "lq-a", "4", 0, 1));
  Json out = run(s);
  EXPECT_TRUE(out["pending"].contains("w"));
  s["workloads"][0] = wl("w", "lq-a", "3", 0, 1);
  out = run(s);
  EXPECT_TRUE(out["admitted"].contains("w"));
}

TEST(QuotaSimulateTest, NoCohortNeverExceedsNominal) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "4")}));
  add_lq(s, "lq", "cq-a");
  s["workloads"].push_back(admitted(wl("old", "lq", "3", 0, 1), "cq-a", "on-demand"));
  s["workloads"].push_back(wl("new", "lq", "2", 0, 2));
  Json out = run(s);
  // Kueue still asks the preemption oracle (request <= nominal); with policy Never it finds none.
  EXPECT_EQ(out["pending"]["new"],
            "insufficient unused quota for cpu in flavor on-demand, 1 more needed; "
            "no workloads can be preempted to make room");
  EXPECT_EQ(out["usage"]["cq-a"]["on-demand"]["cpu"], "3");
}

TEST(QuotaSimulateTest, PreemptsLowerPriorityWithinQueueAndAdmitsNextCycle) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "4")},
                                   {{"preemption", {{"within_cluster_queue", "LowerPriority"}}}}));
  add_lq(s, "lq", "cq-a");
  s["workloads"].push_back(admitted(wl("low1", "lq", "2", 0, 1), "cq-a", "on-demand"));
  s["workloads"].push_back(admitted(wl("low2", "lq", "2", 0, 2), "cq-a", "on-demand"));
  s["workloads"].push_back(wl("high", "lq", "2", 10, 3));
  Json out = run(s);
  // Most recently reserved (low2) is the first candidate; one victim is enough.
  EXPECT_EQ(out["preempted"], Json::array({"low2"}));
  EXPECT_TRUE(out["pending"].contains("high"));  // not admitted in the cycle it preempts
  EXPECT_TRUE(out["admitted"].empty());
  s["cycles"] = 2;
  out = run(s);
  EXPECT_EQ(out["preempted"], Json::array({"low2"}));
  EXPECT_TRUE(out["admitted"].contains("high"));
  EXPECT_EQ(out["usage"]["cq-a"]["on-demand"]["cpu"], "4");
}

TEST(QuotaSimulateTest, NeverPolicyDoesNotPreempt) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "4")}));
  add_lq(s, "lq", "cq-a");
  s["workloads"].push_back(admitted(wl("low", "lq", "4", 0, 1), "cq-a", "on-demand"));
  s["workloads"].push_back(wl("high", "lq", "2", 10, 3));
  Json out = run(s);
  EXPECT_TRUE(out["preempted"].empty());
  EXPECT_TRUE(out["pending"].contains("high"));
}

TEST(QuotaSimulateTest, ReclaimsLentQuotaFromBorrowingQueue) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", "all", {flavor("on-demand", "4")},
                                   {{"preemption", {{"reclaim_within_cohort", "Any"}}}}));
  s["cluster_queues"].push_back(cq("cq-b", "all", {flavor("on-demand", "4")}));
  add_lq(s, "lq-a", "cq-a");
  add_lq(s, "lq-b", "cq-b");
  s["workloads"].push_back(admitted(wl("b1", "lq-b", "3", 100, 1), "cq-b", "on-demand"));
  s["workloads"].push_back(admitted(wl("b2", "lq-b", "3", 100, 2), "cq-b", "on-demand"));
  s["workloads"].push_back(wl("a1", "lq-a", "3", 0, 3));
  Json out = run(s);
  EXPECT_EQ(out["preempted"].size(), 1u);
  EXPECT_TRUE(out["pending"].contains("a1"));
}

TEST(QuotaSimulateTest, StrictFifoBlocksButBestEffortMovesOn) {
  for (const char* strategy : {"StrictFIFO", "BestEffortFIFO"}) {
    Json s = base();
    s["cycles"] = 3;
    s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "4")}, {{"queueing_strategy", strategy}}));
    add_lq(s, "lq", "cq-a");
    s["workloads"].push_back(wl("big", "lq", "8", 0, 1));
    s["workloads"].push_back(wl("small", "lq", "1", 0, 2));
    Json out = run(s);
    EXPECT_TRUE(out["pending"].contains("big")) << strategy;
    EXPECT_EQ(out["admitted"].contains("small"), std::string(strategy) == "BestEffortFIFO") << strategy;
  }
}

TEST(QuotaSimulateTest, PartialAdmissionReducesCountDownToMinCount) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "5")}));
  add_lq(s, "lq", "cq-a");
  s["workloads"].push_back(wl("w", "lq", "1", 0, 1, 8, 2));
  Json out = run(s);
  ASSERT_TRUE(out["admitted"].contains("w"));
  EXPECT_EQ(out["admitted"]["w"]["count"]["main"], 5);
  EXPECT_EQ(out["usage"]["cq-a"]["on-demand"]["cpu"], "5");
}

TEST(QuotaSimulateTest, NonBorrowingEntryGoesFirstInACycle) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", "all", {flavor("on-demand", "2")}));
  s["cluster_queues"].push_back(cq("cq-b", "all", {flavor("on-demand", "4")}));
  add_lq(s, "lq-a", "cq-a");
  add_lq(s, "lq-b", "cq-b");
  // cq-a's head needs to borrow 2 and has the higher priority; cq-b's fits in its nominal.
  s["workloads"].push_back(wl("a", "lq-a", "4", 100, 1));
  s["workloads"].push_back(wl("b", "lq-b", "4", 0, 2));
  Json out = run(s);
  EXPECT_TRUE(out["admitted"].contains("b"));
  EXPECT_NE(out["pending"]["a"].get<std::string>().find("no longer fits"), std::string::npos);
}

TEST(QuotaSimulateTest, HierarchicalCohortQuotaIsBorrowable) {
  Json s = base();
  s["cohorts"].push_back({{"name", "root"}, {"parent", nullptr},
                          {"resource_groups", Json::array({{{"covered_resources", {"cpu"}}, {"flavors", {flavor("on-demand", "6")}}}})}});
  s["cohorts"].push_back({{"name", "team"}, {"parent", "root"}});
  s["cluster_queues"].push_back(cq("cq-a", "team", {flavor("on-demand", "1")}));
  add_lq(s, "lq", "cq-a");
  s["workloads"].push_back(wl("w", "lq", "7", 0, 1));
  Json out = run(s);
  EXPECT_EQ(out["admitted"]["w"]["borrowing"], true);
  s["workloads"][0] = wl("w", "lq", "8", 0, 1);
  EXPECT_TRUE(run(s)["pending"].contains("w"));
}

TEST(QuotaSimulateTest, DuplicateNamesAcrossNamespacesUseQualifiedKeys) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "10")}));
  add_lq(s, "lq", "cq-a");
  s["local_queues"].push_back({{"namespace", "other"}, {"name", "lq"}, {"cluster_queue", "cq-a"}});
  s["workloads"].push_back(wl("w", "lq", "1", 0, 1));
  Json w2 = wl("w", "lq", "1", 0, 2);
  w2["namespace"] = "other";
  s["workloads"].push_back(w2);
  s["cycles"] = "until_quiescent";
  Json out = run(s);
  EXPECT_TRUE(out["admitted"].contains("ns/w"));
  EXPECT_TRUE(out["admitted"].contains("other/w"));
}

TEST(QuotaValidationTest, ErrorsNameTheField) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("gpu-x", "10")}));
  auto e = run_error(s);
  EXPECT_EQ(e.code, core::ErrorCode::Invalid);
  EXPECT_EQ(e.field, "cluster_queues[0].resource_groups[0].flavors[0].name");
  EXPECT_EQ(e.value, "gpu-x");

  s = base();
  Json q = cq("cq-a", nullptr, {flavor("on-demand", "10")});
  q["resource_groups"].push_back({{"covered_resources", {"cpu"}}, {"flavors", {flavor("spot", "1")}}});
  s["cluster_queues"].push_back(q);
  EXPECT_EQ(run_error(s).field, "cluster_queues[0].resource_groups[1].covered_resources[0]");

  s = base();
  q = cq("cq-a", nullptr, {flavor("on-demand", "10")});
  q["resource_groups"][0]["covered_resources"].push_back("memory");
  s["cluster_queues"].push_back(q);
  e = run_error(s);
  EXPECT_EQ(e.field, "cluster_queues[0].resource_groups[0].flavors[0].resources");
  EXPECT_EQ(e.value, "memory");

  s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "-1")}));
  EXPECT_EQ(run_error(s).field, "cluster_queues[0].resource_groups[0].flavors[0].resources[0].nominal");

  s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "1", "2")}));
  EXPECT_EQ(run_error(s).field, "cluster_queues[0].resource_groups[0].flavors[0].resources[0].borrowing_limit");

  s = base();
  add_lq(s, "lq", "nope");
  EXPECT_EQ(run_error(s).field, "local_queues[0].cluster_queue");

  s = base();
  s["cohorts"].push_back({{"name", "a"}, {"parent", "b"}});
  s["cohorts"].push_back({{"name", "b"}, {"parent", "a"}});
  EXPECT_EQ(run_error(s).field, "cohorts[0].parent");

  s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "10")}));
  s["workloads"].push_back(admitted(wl("w", "lq", "1", 0, 1), "cq-zzz", "on-demand"));
  EXPECT_EQ(run_error(s).field, "workloads[0].admitted.cluster_queue");

  s = base();
  s["workloads"].push_back(wl("w", "lq", "1", 0, 1, 2, 5));
  EXPECT_EQ(run_error(s).field, "workloads[0].pod_sets[0].min_count");

  s = base();
  s["cycles"] = "forever";
  EXPECT_EQ(run_error(s).field, "cycles");
  s = base();
  s["workloads"].push_back(wl("w", "lq", "12XB", 0, 1));
  EXPECT_EQ(run_error(s).field, "workloads[0].pod_sets[0].requests.cpu");
}

TEST(QuotaSimulateTest, UnknownLocalQueueStaysPendingWithReason) {
  Json s = base();
  s["cluster_queues"].push_back(cq("cq-a", nullptr, {flavor("on-demand", "10")}));
  s["workloads"].push_back(wl("w", "missing", "1", 0, 1));
  Json out = run(s);
  EXPECT_EQ(out["pending"]["w"], "LocalQueue ns/missing doesn't exist");
}

// Compares one scenario file's outcome with its "expected" block; returns "" on a match.
std::string mismatch(const Json& out, const Json& want) {
  if (!out.is_object()) return "simulate failed";
  std::ostringstream why;
  std::set<std::string> got_a, want_a;
  for (const auto& [k, v] : out["admitted"].items()) got_a.insert(k);
  for (const auto& [k, v] : want["admitted"].items()) want_a.insert(k);
  if (got_a != want_a) why << "admitted set differs; ";
  for (const auto& [name, a] : want["admitted"].items()) {
    if (!out["admitted"].contains(name)) continue;
    const Json& g = out["admitted"][name];
    if (g["cluster_queue"] != a["cluster_queue"] || g["flavors"] != a["flavors"]) why << name << " assignment differs; ";
    if (a.contains("count") && g.value("count", Json::object()) != a["count"]) why << name << " count differs; ";
  }
  std::set<std::string> got_p(out["preempted"].begin(), out["preempted"].end());
  std::set<std::string> want_p(want["preempted"].begin(), want["preempted"].end());
  if (got_p != want_p) why << "preempted differs; ";
  std::set<std::string> got_pending;
  for (const auto& [k, v] : out["pending"].items()) got_pending.insert(k);
  std::set<std::string> want_pending(want["pending"].begin(), want["pending"].end());
  if (got_pending != want_pending) why << "pending differs; ";
  std::string s = why.str();
  return s.empty() ? s : s + "got " + out.dump();
}

// Every tests/quota/data/*.json: {"scenario": ..., "expected": {"admitted": {name: {cluster_queue, flavors[, count]}},
// "preempted": [...], "pending": [names]}}. Most are translated from Kueue's own scheduler and preemption
// tests by tests/quota/kueue/gen_*.py.
TEST(QuotaScenarioFilesTest, ReproduceExpectedDecisions) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(BUDCORE_SOURCE_DIR) / "tests/quota/data";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  int passed = 0;
  for (const auto& path : files) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    Json file = Json::parse(ss.str());
    Json out = run(file["scenario"]);
    std::string why = mismatch(out, file["expected"]);
    EXPECT_EQ(why, "") << path.filename().string();
    if (why.empty()) ++passed;
  }
  std::cout << "[quota scenarios] " << passed << "/" << files.size() << " reproduced\n";
  EXPECT_GT(files.size(), 50u);
}

}  // namespace
}  // namespace budcore::quota
