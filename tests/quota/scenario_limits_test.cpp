// Quota documents that used to be misread (issue #19): integers narrowed to 32 bits, unknown
// keys silently dropped, unbounded nesting, quadratic cohort chains. Each is now an error that
// names the field.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "budcore/quota/admission.hpp"
#include "budcore/quota/cohort.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/engine_json.hpp"
#include "budcore/quota/scenario.hpp"

namespace budcore::quota {
namespace {

using nlohmann::json;

json base_scenario() {
  return json::parse(R"({
    "cycles": 1,
    "resource_flavors": [{"name": "default"}],
    "cluster_queues": [{"name": "cq", "cohort": null, "resource_groups": [{"covered_resources": ["cpu"],
      "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "10"}]}]}]}],
    "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
    "workloads": [{"name": "w", "namespace": "ns", "queue": "lq", "priority": 0,
                   "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "1"}}]}]})");
}

core::Error parse_error(const json& doc) {
  auto s = parse_scenario(doc.dump());
  EXPECT_FALSE(s) << doc.dump().substr(0, 200);
  return s ? core::Error{} : s.error();
}

TEST(ScenarioLimitsTest, PodCountsAreRangeCheckedNotNarrowed) {
  for (long long count : {4294967297LL, 2147483648LL, -1LL}) {
    json doc = base_scenario();
    doc["workloads"][0]["pod_sets"][0]["count"] = count;
    core::Error e = parse_error(doc);
    EXPECT_EQ(e.code, core::ErrorCode::Invalid);
    EXPECT_EQ(e.field, "workloads[0].pod_sets[0].count");
    EXPECT_EQ(e.message, "must be between 0 and 2147483647");
  }
  json big = base_scenario();
  big["workloads"][0]["pod_sets"][0]["count"] = 18446744073709551615ULL;
  EXPECT_EQ(parse_error(big).field, "workloads[0].pod_sets[0].count");
  json ok = base_scenario();
  ok["workloads"][0]["pod_sets"][0]["count"] = 2147483647;
  ok["workloads"][0]["pod_sets"][0]["requests"]["cpu"] = "0";
  auto s = parse_scenario(ok.dump());
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_EQ(s->workloads[0].pod_sets[0].count, 2147483647);
}

TEST(ScenarioLimitsTest, PrioritiesAndOtherIntegersAreRangeChecked) {
  json p = base_scenario();
  p["workloads"][0]["priority"] = 2147483648LL;
  EXPECT_EQ(parse_error(p).field, "workloads[0].priority");
  json pc = base_scenario();
  pc["priority_classes"] = json::array({{{"name", "high"}, {"value", -2147483649LL}}});
  EXPECT_EQ(parse_error(pc).field, "priority_classes[0].value");
  json t = base_scenario();
  t["cluster_queues"][0]["preemption"] = {{"reclaim_within_cohort", "Any"},
                                          {"borrow_within_cohort", {{"policy", "LowerPriority"}, {"max_priority_threshold", 1LL << 40}}}};
  EXPECT_EQ(parse_error(t).field, "cluster_queues[0].preemption.borrow_within_cohort.max_priority_threshold");
  json a = base_scenario();
  a["workloads"][0]["admitted"] = {{"cluster_queue", "cq"}, {"flavors", {{"main", {{"cpu", "default"}}}}}, {"count", {{"main", 4294967297LL}}}};
  EXPECT_EQ(parse_error(a).field, "workloads[0].admitted.count.main");
}

TEST(ScenarioLimitsTest, UnknownKeysAreRejectedWithAHint) {
  json r = base_scenario();
  r["workloads"][0]["pod_sets"][0].erase("requests");
  r["workloads"][0]["pod_sets"][0]["reqests"] = {{"cpu", "100"}};
  core::Error e = parse_error(r);
  EXPECT_EQ(e.field, "workloads[0].pod_sets[0].reqests");
  EXPECT_EQ(e.message, "unknown field; did you mean 'requests'?");

  json b = base_scenario();
  b["cluster_queues"][0]["resource_groups"][0]["flavors"][0]["resources"][0]["borowing_limit"] = "5";
  e = parse_error(b);
  EXPECT_EQ(e.field, "cluster_queues[0].resource_groups[0].flavors[0].resources[0].borowing_limit");
  EXPECT_EQ(e.message, "unknown field; did you mean 'borrowing_limit'?");

  for (auto [where, key] : std::initializer_list<std::pair<const char*, const char*>>{
           {"", "cycle"}, {"/cluster_queues/0", "premption"}, {"/local_queues/0", "clusterqueue"},
           {"/workloads/0", "priorty"}, {"/resource_flavors/0", "node_label"}}) {
    json d = base_scenario();
    d[json::json_pointer(where)][key] = 1;
    e = parse_error(d);
    EXPECT_NE(e.message.find("did you mean"), std::string::npos) << key << ": " << e.message;
    EXPECT_NE(e.field.find(key), std::string::npos) << e.field;
  }
  // Free-text metadata is allowed at the top.
  json m = base_scenario();
  m["source"] = "kueue scheduler_test.go";
  EXPECT_TRUE(parse_scenario(m.dump()));
}

TEST(ScenarioLimitsTest, DeepJsonIsRefused) {
  std::string deep = R"({"cycles": 1, "workloads": [{"name": "w", "admitted": )" + std::string(100000, '[') +
                     std::string(100000, ']') + "}]}";
  auto s = parse_scenario(deep);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("nesting deeper than 512"), std::string::npos) << s.error().message;
}

TEST(ScenarioLimitsTest, CohortChainsAreLinearAndBounded) {
  auto chain = [](int n) {
    QuotaConfig c;
    for (int i = 0; i < n; ++i) {
      Cohort co;
      co.name = "c" + std::to_string(i);
      if (i > 0) co.parent = "c" + std::to_string(i - 1);
      c.cohorts.push_back(co);
    }
    return c;
  };
  auto t0 = std::chrono::steady_clock::now();
  auto st = validate(chain(10000));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("deeper than 100 levels"), std::string::npos) << st.error().message;
  EXPECT_TRUE(validate(chain(kMaxCohortDepth)));
  EXPECT_FALSE(validate(chain(kMaxCohortDepth + 1)));
  // A cycle is still found, in one pass.
  QuotaConfig cyc = chain(1000);
  cyc.cohorts[0].parent = "c999";
  auto c = validate(cyc);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("cycle"), std::string::npos);
}

TEST(ScenarioLimitsTest, EngineRefusesAdmittedCountsOutsideThePodSet) {
  auto s = parse_scenario(base_scenario().dump());
  ASSERT_TRUE(s);
  auto engine = AdmissionEngine::create(s->config);
  ASSERT_TRUE(engine);
  Workload w = s->workloads[0];
  w.admitted = Admission{};
  w.admitted->cluster_queue = "cq";
  w.admitted->flavors["main"]["cpu"] = "default";
  w.admitted->count["main"] = -3;
  auto st = engine->add_workload(w);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "admitted.count.main");
  Workload neg = s->workloads[0];
  neg.name = "neg";
  neg.pod_sets[0].count = -1;
  auto r = engine->try_reserve(neg);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "pod_sets[0].count");
}

}  // namespace
}  // namespace budcore::quota

namespace budcore::quota {
namespace {

// Found by platform_scenario_fuzz: a resource group without flavors passed validation and the
// engine, finding no flavor to take its resources from, threw out of create().
TEST(ScenarioLimitsTest, AResourceGroupWithoutFlavorsIsRefused) {
  json doc = base_scenario();
  doc["cluster_queues"][0]["resource_groups"][0]["flavors"] = json::array();
  auto s = parse_scenario(doc.dump());
  ASSERT_TRUE(s) << s.error().describe();
  auto st = validate(s->config);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "cluster_queues[0].resource_groups[0].flavors");
  auto engine = AdmissionEngine::create(s->config);
  ASSERT_FALSE(engine);
  EXPECT_EQ(engine.error().code, core::ErrorCode::Invalid);
  auto sim = simulate(*s);
  ASSERT_FALSE(sim);
}

// One workload of the engine handle (C, Python) reads as in a scenario, paths under "workload",
// an integer outside int64 included (parse_json names it by a JSON pointer).
TEST(ScenarioLimitsTest, AWorkloadAloneIsNamedWorkload) {
  QuotaConfig config;
  auto big = parse_workload(R"({"name": "w", "queue": "lq", "priority": 9223372036854775808, "pod_sets": []})", config);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().field, "workload.priority");
  auto bad = parse_workload(R"({"name": "w", "pod_sets": [{"count": -1}]})", config);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "workload.pod_sets[0].count");
  auto typo = parse_workload(R"({"name": "w", "priorty": 1, "pod_sets": []})", config);
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().field, "workload.priorty");
}

}  // namespace
}  // namespace budcore::quota
