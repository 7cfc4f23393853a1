// schedule::Timeline: exact answers on small cases (contract 6), agreement with the admission
// engine at every instant, windows, preemption, bad input and live updates.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "budcore/core/json.hpp"
#include "budcore/quota/scenario.hpp"
#include "budcore/schedule/estimate.hpp"
#include "budcore/schedule/timeline.hpp"
#include "budcore/schedule/view.hpp"

namespace budcore::schedule {
namespace {

using Json = nlohmann::json;

Json cq(const std::string& name, const char* cohort, const std::string& nominal, Json extra = Json::object()) {
  Json q = {{"name", name},
            {"cohort", cohort ? Json(cohort) : Json(nullptr)},
            {"resource_groups",
             Json::array({{{"covered_resources", {"cpu"}},
                           {"flavors", Json::array({{{"name", "on-demand"},
                                                     {"resources", Json::array({{{"name", "cpu"}, {"nominal", nominal}}})}}})}}})}};
  for (auto& [k, v] : extra.items()) q[k] = v;
  return q;
}

Json wl(const std::string& name, const std::string& queue, const std::string& cpu, double duration, int seq = 0,
        int prio = 0) {
  return {{"name", name},       {"namespace", "ns"},    {"queue", queue},
          {"priority", prio},   {"creation_seq", seq},  {"duration_seconds", duration},
          {"pod_sets", Json::array({{{"name", "main"}, {"count", 1}, {"requests", {{"cpu", cpu}}}}})}};
}

Json scenario(Json queues, Json workloads) {
  Json s = {{"resource_flavors", Json::array({{{"name", "on-demand"}}})}, {"cluster_queues", queues},
            {"local_queues", Json::array()}, {"workloads", workloads}};
  for (const auto& q : queues) s["local_queues"].push_back({{"namespace", "ns"}, {"name", "lq-" + q["name"].get<std::string>()}, {"cluster_queue", q["name"]}});
  return s;
}

core::Result<Timeline> make(const Json& s) {
  auto in = parse_estimate(s.dump());
  if (!in) return std::move(in).error();
  return Timeline::create(std::move(*in));
}

Json estimate(const Json& s, bool details = false) {
  auto tl = make(s);
  EXPECT_TRUE(tl.has_value()) << (tl ? "" : tl.error().describe());
  if (!tl) return {};
  return Json::parse(to_json(tl->result(), {-1, details}));
}

Json job(const Json& out, const std::string& name) {
  for (const auto& j : out["jobs"])
    if (j["name"] == name) return j;
  ADD_FAILURE() << "no job " << name << " in " << out.dump();
  return {};
}

TEST(TimelineTest, ContractExampleShapeAndExactTimes) {
  Json s = scenario(Json::array({cq("cq-a", nullptr, "10")}),
                    Json::array({wl("w1", "lq-cq-a", "6", 600, 1), wl("w2", "lq-cq-a", "6", 300, 2),
                                 wl("w3", "lq-cq-a", "4", 100.5, 3), wl("w9", "lq-cq-a", "64", 10, 4)}));
  s["workloads"][2]["depends_on"] = {"w1"};
  s["workloads"][2]["deadline"] = 700;
  Json out = estimate(s);
  Json expected = Json::parse(R"({"jobs": [
    {"name": "w1", "cluster_queue": "cq-a", "flavors": {"main": {"cpu": "on-demand"}}, "estimated_start": 0,
     "estimated_end": 600, "deadline_met": null, "preempted_at": []},
    {"name": "w2", "cluster_queue": "cq-a", "flavors": {"main": {"cpu": "on-demand"}}, "estimated_start": 600,
     "estimated_end": 900, "deadline_met": null, "preempted_at": []},
    {"name": "w3", "cluster_queue": "cq-a", "flavors": {"main": {"cpu": "on-demand"}}, "estimated_start": 600,
     "estimated_end": 700.5, "deadline_met": false, "preempted_at": []}],
    "never": {"w9": "requests 64 cpu but cq-a can never provide more than 10"},
    "makespan": 900})");
  EXPECT_EQ(out, expected) << out.dump(2);
}

TEST(TimelineTest, NowSubmissionsAndRunningJobs) {
  Json s = scenario(Json::array({cq("cq-a", nullptr, "4")}),
                    Json::array({wl("run", "lq-cq-a", "4", 100, 1), wl("late", "lq-cq-a", "2", 50, 2), wl("next", "lq-cq-a", "4", 10, 3)}));
  s["now"] = 1000;
  s["workloads"][0]["admitted"] = {{"cluster_queue", "cq-a"}, {"flavors", {{"main", {{"cpu", "on-demand"}}}}}};
  s["workloads"][0]["started_at"] = 950;  // ends at 1050
  s["workloads"][1]["submit_at"] = 2000;
  Json out = estimate(s, true);
  EXPECT_EQ(job(out, "run")["estimated_start"], 950);
  EXPECT_EQ(job(out, "run")["estimated_end"], 1050);
  EXPECT_EQ(job(out, "run")["running"], true);
  EXPECT_EQ(job(out, "next")["estimated_start"], 1050);
  EXPECT_EQ(job(out, "next")["wait"]["reason"], "quota");
  EXPECT_EQ(job(out, "late")["estimated_start"], 2000);
  EXPECT_EQ(job(out, "late")["wait"], nullptr);
  EXPECT_EQ(out["makespan"], 1050);  // from now to the last end
}

TEST(TimelineTest, OverrunningJobEndsNoEarlierThanNow) {
  Json s = scenario(Json::array({cq("cq-a", nullptr, "4")}), Json::array({wl("run", "lq-cq-a", "4", 10, 1), wl("w", "lq-cq-a", "4", 5, 2)}));
  s["now"] = 100;
  s["workloads"][0]["admitted"] = {{"cluster_queue", "cq-a"}, {"flavors", {{"main", {{"cpu", "on-demand"}}}}}};
  s["workloads"][0]["started_at"] = 20;  // estimated end 30 is in the past
  Json out = estimate(s);
  EXPECT_EQ(job(out, "run")["estimated_end"], 100);
  EXPECT_EQ(job(out, "w")["estimated_start"], 100);
}

TEST(TimelineTest, BorrowingAcrossACohort) {
  Json s = scenario(Json::array({cq("a", "all", "4"), cq("b", "all", "4")}),
                    Json::array({wl("big", "lq-a", "8", 100, 1), wl("small", "lq-b", "2", 10, 2)}));
  Json out = estimate(s);
  // One cycle: the entry that does not borrow goes first (Kueue orders entries by borrowing),
  // so big, which would borrow 4 of b's cpu, waits until small ends and then borrows.
  EXPECT_EQ(job(out, "small")["estimated_start"], 0);
  EXPECT_EQ(job(out, "big")["estimated_start"], 10);
  EXPECT_EQ(job(out, "big")["estimated_end"], 110);
}

TEST(TimelineTest, PreemptionRestartsTheVictim) {
  Json q = cq("cq-a", nullptr, "4", {{"preemption", {{"within_cluster_queue", "LowerPriority"}}}});
  Json s = scenario(Json::array({q}), Json::array({wl("low", "lq-cq-a", "4", 100, 1, 0), wl("high", "lq-cq-a", "4", 50, 2, 10)}));
  s["workloads"][1]["submit_at"] = 30;
  Json out = estimate(s);
  EXPECT_EQ(job(out, "high")["estimated_start"], 30);
  EXPECT_EQ(job(out, "high")["estimated_end"], 80);
  EXPECT_EQ(job(out, "low")["preempted_at"], Json::array({30}));
  EXPECT_EQ(job(out, "low")["estimated_start"], 80);  // its last start, with its full duration
  EXPECT_EQ(job(out, "low")["estimated_end"], 180);
}

TEST(TimelineTest, WindowsInTheirZone) {
  // now = 2026-01-01T12:00:00Z; a 22:00-06:00 UTC window opens at 22:00.
  Json s = scenario(Json::array({cq("cq-a", nullptr, "4")}), Json::array({wl("night", "lq-cq-a", "1", 60, 1), wl("berlin", "lq-cq-a", "1", 60, 2)}));
  const std::int64_t noon = 1767268800;
  s["now"] = noon;
  s["workloads"][0]["window"] = {{"start", "22:00"}, {"end", "06:00"}, {"zone", "UTC"}};
  s["workloads"][1]["window"] = {{"start", "22:00"}, {"end", "23:00"}, {"zone", "Europe/Berlin"}};  // UTC+1 in January
  Json out = estimate(s, true);
  EXPECT_EQ(job(out, "night")["estimated_start"], noon + 10 * 3600);
  EXPECT_EQ(job(out, "night")["wait"]["reason"], "window");
  EXPECT_EQ(job(out, "berlin")["estimated_start"], noon + 9 * 3600);
}

TEST(TimelineTest, WindowClosingWithdrawsAQueuedJob) {
  // The queue is full until 3 h after noon; the job's window (12:00-13:00 UTC) closes first, so
  // it waits for the next day's window.
  Json s = scenario(Json::array({cq("cq-a", nullptr, "4")}), Json::array({wl("hog", "lq-cq-a", "4", 3 * 3600, 1), wl("w", "lq-cq-a", "4", 60, 2)}));
  const std::int64_t noon = 1767268800;
  s["now"] = noon;
  s["workloads"][1]["window"] = {{"start", "12:00"}, {"end", "13:00"}};
  Json out = estimate(s);
  EXPECT_EQ(job(out, "w")["estimated_start"], noon + 24 * 3600);
}

TEST(TimelineTest, DependenciesAcrossCohortTrees) {
  Json s = scenario(Json::array({cq("a", "x", "4"), cq("b", "y", "4")}),
                    Json::array({wl("first", "lq-a", "4", 100, 1), wl("second", "lq-b", "4", 50, 2)}));
  s["workloads"][1]["depends_on"] = {"first"};
  Json out = estimate(s, true);
  EXPECT_EQ(job(out, "second")["estimated_start"], 100);
  EXPECT_EQ(job(out, "second")["wait"]["reason"], "dependency");
}

TEST(TimelineTest, NeverWithReasons) {
  Json strict = cq("s", nullptr, "4", {{"queueing_strategy", "StrictFIFO"}});
  Json s = scenario(Json::array({strict}),
                    Json::array({wl("huge", "lq-s", "8", 10, 1), wl("behind", "lq-s", "1", 10, 2), wl("child", "lq-s", "1", 10, 3),
                                 wl("far", "lq-s", "1", 10, 4), wl("lost", "nowhere", "1", 10, 5)}));
  s["workloads"][2]["depends_on"] = {"huge"};
  s["workloads"][3]["submit_at"] = 400 * 24 * 3600;  // after the default one-year horizon
  Json out = estimate(s);
  EXPECT_TRUE(out["jobs"].empty()) << out.dump();
  EXPECT_EQ(out["never"]["huge"], "requests 8 cpu but s can never provide more than 4");
  EXPECT_EQ(out["never"]["behind"], "blocked behind huge in StrictFIFO ClusterQueue s (huge can never be admitted)");
  EXPECT_EQ(out["never"]["child"], "depends on huge, which never runs");
  EXPECT_NE(out["never"]["far"].get<std::string>().find("horizon"), std::string::npos);
  EXPECT_EQ(out["never"]["lost"], "LocalQueue ns/nowhere doesn't exist");
  // The StrictFIFO head is also given as data: only `behind` waits behind one.
  auto t = make(s);
  ASSERT_TRUE(t) << t.error().describe();
  const auto& blocked = t->result().blocked_behind;
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_EQ(blocked.at("behind").head, "huge");
  EXPECT_EQ(blocked.at("behind").cluster_queue, "s");
}

void expect_invalid(Json s, const std::string& field, const std::string& message_part) {
  auto tl = make(s);
  ASSERT_FALSE(tl.has_value()) << field;
  EXPECT_EQ(tl.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(tl.error().field, field) << tl.error().describe();
  EXPECT_NE(tl.error().describe().find(message_part), std::string::npos) << tl.error().describe();
}

TEST(TimelineTest, BadInputIsAClearError) {
  Json base = scenario(Json::array({cq("cq-a", nullptr, "4")}), Json::array({wl("a", "lq-cq-a", "1", 10, 1), wl("b", "lq-cq-a", "1", 10, 2)}));
  Json s = base;
  s["workloads"][0]["depends_on"] = {"b"};
  s["workloads"][1]["depends_on"] = {"a"};
  expect_invalid(s, "workloads[0].depends_on", "a -> b -> a");
  s = base;
  s["workloads"][0]["depends_on"] = {"a"};
  expect_invalid(s, "workloads[0].depends_on[0]", "cycle");
  s = base;
  s["workloads"][0]["depends_on"] = {"zz"};
  expect_invalid(s, "workloads[0].depends_on[0]", "unknown workload");
  s = base;
  s["workloads"][1]["duration_seconds"] = -5;
  expect_invalid(s, "workloads[1].duration_seconds", "negative");
  s = base;
  s["workloads"][1].erase("duration_seconds");
  expect_invalid(s, "workloads[1].duration_seconds", "required");
  s = base;
  s["workloads"][1]["started_at"] = 3;
  expect_invalid(s, "workloads[1].started_at", "admitted");
  s = base;
  s["workloads"][1]["window"] = {{"start", "25:00"}, {"end", "06:00"}};
  expect_invalid(s, "workloads[1].window.start", "");
  s = base;
  s["workloads"][1]["window"] = {{"start", "22:00"}, {"ends", "06:00"}};
  expect_invalid(s, "workloads[1].window.ends", "did you mean 'end'");
  s = base;
  s["workloads"][1]["window"] = {{"start", "22:00"}, {"end", "06:00"}, {"zone", "Mars/Olympus"}};
  expect_invalid(s, "workloads[1].window.zone", "");
  s = base;
  s["now"] = "soon";
  expect_invalid(s, "now", "number of seconds");
  s = base;
  s["horizon_seconds"] = 1e300;
  expect_invalid(s, "horizon_seconds", "at most");
  s = base;
  s["workloads"][1]["pod_sets"][0]["count"] = -1;
  expect_invalid(s, "workloads[1].pod_sets[0].count", "must be between 0 and");
}

TEST(TimelineTest, DeadlineInThePastIsReported) {
  Json s = scenario(Json::array({cq("cq-a", nullptr, "4")}), Json::array({wl("late", "lq-cq-a", "1", 10, 1)}));
  s["now"] = 500;
  s["workloads"][0]["deadline"] = 100;
  Json out = estimate(s, true);
  EXPECT_EQ(job(out, "late")["deadline_met"], false);
  ASSERT_EQ(out["warnings"].size(), 1u);
  EXPECT_NE(out["warnings"][0].get<std::string>().find("before now"), std::string::npos);
}

TEST(TimelineTest, Deterministic) {
  Json qs = Json::array({cq("a", "c", "6", {{"preemption", {{"within_cluster_queue", "LowerPriority"}, {"reclaim_within_cohort", "Any"}}}}),
                         cq("b", "c", "6")});
  Json wls = Json::array();
  for (int i = 0; i < 60; ++i) {
    Json w = wl("w" + std::to_string(i), i % 2 ? "lq-a" : "lq-b", std::to_string(1 + i % 4), 10 + (i * 7) % 50, i, i % 3);
    w["submit_at"] = (i * 13) % 90;
    if (i > 5 && i % 5 == 0) w["depends_on"] = {"w" + std::to_string(i - 3)};
    wls.push_back(w);
  }
  Json s = scenario(qs, wls);
  EXPECT_EQ(estimate(s, true).dump(), estimate(s, true).dump());
}

// The timeline never disagrees with the engine: at every instant where jobs start, a fresh
// `quota simulate` (until quiescent) over the jobs running just before and the jobs eligible
// then admits exactly the jobs the timeline starts at that instant.
TEST(TimelineTest, AgreesWithQuotaSimulateAtEveryInstant) {
  Json qs = Json::array({cq("a", "c", "6"), cq("b", "c", "4"), cq("d", "c", "2"), cq("solo", nullptr, "4")});
  Json wls = Json::array();
  const char* queues[] = {"lq-a", "lq-b", "lq-d", "lq-solo"};
  for (int i = 0; i < 80; ++i) {
    Json w = wl("w" + std::to_string(i), queues[i % 4], std::to_string(1 + (i * 5) % 4), 5 + (i * 11) % 40, 1000 - i, (i * 7) % 3);
    w["submit_at"] = (i * 17) % 120;
    wls.push_back(w);
  }
  Json s = scenario(qs, wls);
  Json out = estimate(s);
  ASSERT_TRUE(out["never"].empty());
  std::map<std::string, Json> by_name;
  for (const auto& j : out["jobs"]) by_name[j["name"]] = j;
  std::set<double> instants;
  for (const auto& j : out["jobs"]) instants.insert(j["estimated_start"].get<double>());
  for (double t : instants) {
    Json sc = s;
    sc["cycles"] = "until_quiescent";
    Json kept = Json::array();
    std::set<std::string> expected;
    for (auto w : s["workloads"]) {
      const Json& e = by_name.at(w["name"]);
      double start = e["estimated_start"], end = e["estimated_end"], submit = w["submit_at"];
      for (const char* k : {"duration_seconds", "submit_at"}) w.erase(k);
      if (start < t && end > t) {
        w["admitted"] = {{"cluster_queue", e["cluster_queue"]}, {"flavors", e["flavors"]}};
        kept.push_back(w);
      } else if (submit <= t && start >= t) {
        if (start == t) expected.insert(w["name"]);
        kept.push_back(w);
      }
    }
    sc["workloads"] = kept;
    auto parsed = quota::parse_scenario(sc.dump());
    ASSERT_TRUE(parsed.has_value()) << parsed.error().describe();
    auto r = quota::simulate(*parsed);
    ASSERT_TRUE(r.has_value());
    std::set<std::string> got;
    for (const auto& [name, a] : r->admitted) got.insert(name);
    EXPECT_EQ(got, expected) << "at t=" << t;
  }
}

// ---- live updates

TEST(TimelineTest, LiveUpdatesReviseEstimatesOfTheAffectedTreeOnly) {
  Json s = scenario(Json::array({cq("a", "x", "4"), cq("b", "y", "4")}),
                    Json::array({wl("a1", "lq-a", "4", 100, 1), wl("a2", "lq-a", "4", 100, 2), wl("b1", "lq-b", "4", 100, 3),
                                 wl("b2", "lq-b", "4", 100, 4)}));
  auto tl = make(s);
  ASSERT_TRUE(tl.has_value());
  EXPECT_EQ(tl->trees_simulated(), 2);
  EXPECT_EQ(tl->find("a2")->start, core::Timestamp::from_unix_seconds(100));
  quota::Admission adm{"a", {{"main", {{"cpu", "on-demand"}}}}, {}};
  ASSERT_TRUE(tl->started("a1", core::Timestamp::from_unix_seconds(0), adm));
  EXPECT_EQ(tl->trees_simulated(), 1);
  ASSERT_TRUE(tl->finished("a1", core::Timestamp::from_unix_seconds(60)));  // 40 s early
  EXPECT_EQ(tl->trees_simulated(), 1);
  EXPECT_EQ(tl->find("a2")->start, core::Timestamp::from_unix_seconds(60));
  EXPECT_EQ(tl->find("a2")->end, core::Timestamp::from_unix_seconds(160));
  EXPECT_TRUE(tl->find("a1")->finished);
  EXPECT_EQ(tl->find("b2")->start, core::Timestamp::from_unix_seconds(100));  // untouched tree

  // A job that fails: its dependents can never run.
  JobInput child;
  child.workload.name = "child";
  child.workload.namespace_ = "ns";
  child.workload.queue = "lq-b";
  quota::PodSet ps;
  (void)ps.requests.set("cpu", core::Quantity::from_int(1));
  child.workload.pod_sets.push_back(ps);
  child.duration = core::Duration::seconds(10);
  child.depends_on = {"a2"};
  ASSERT_TRUE(tl->submitted(child, core::Timestamp::from_unix_seconds(61)));
  EXPECT_EQ(tl->trees_simulated(), 1);  // only the child's tree: a2's estimate does not change
  // Tree y is simulated again from now (61): b1 was never reported started, so it starts at 61
  // and ends at 161; a2 ends at 160; at 161 the child (creation 0) goes before b2.
  EXPECT_EQ(tl->find("child")->start, core::Timestamp::from_unix_seconds(161));
  EXPECT_EQ(tl->find("b2")->start, core::Timestamp::from_unix_seconds(171));
  ASSERT_TRUE(tl->failed("a2", core::Timestamp::from_unix_seconds(70)));
  EXPECT_EQ(tl->find("child"), nullptr);
  EXPECT_EQ(tl->result().never.at("child"), "depends on a2, which failed");

  // Contradictions and time travel are errors that change nothing.
  EXPECT_EQ(tl->finished("b2", core::Timestamp::from_unix_seconds(80)).error().code, core::ErrorCode::Conflict);
  EXPECT_EQ(tl->advance(core::Timestamp::from_unix_seconds(10)).error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(tl->cancelled("nope", core::Timestamp::from_unix_seconds(80)).error().code, core::ErrorCode::NotFound);
  JobInput cyc = child;
  cyc.workload.name = "cyc";
  cyc.depends_on = {"cyc"};
  EXPECT_FALSE(tl->submitted(cyc, core::Timestamp::from_unix_seconds(80)));
  EXPECT_EQ(tl->find("cyc"), nullptr);
  EXPECT_EQ(tl->result().never.count("cyc"), 0u);
}

TEST(TimelineTest, ASubmittedEventNamesItsPriorityClass) {
  Json s = scenario(Json::array({cq("a", nullptr, "4")}),
                    Json::array({wl("a1", "lq-a", "4", 100, 1), wl("a2", "lq-a", "4", 100, 2)}));
  s["priority_classes"] = Json::array({{{"name", "urgent"}, {"value", 1000}}});
  auto tl = make(s);
  ASSERT_TRUE(tl.has_value()) << tl.error().describe();
  quota::Admission adm{"a", {{"main", {{"cpu", "on-demand"}}}}, {}};
  ASSERT_TRUE(tl->started("a1", core::Timestamp::from_unix_seconds(0), adm));
  Json job = wl("hot", "lq-a", "4", 10, 3);
  job.erase("priority");
  job["priority_class"] = "urgent";
  auto v = core::parse_json(Json({{"type", "submitted"}, {"at", 5}, {"job", job}}).dump());
  ASSERT_TRUE(v);
  ASSERT_TRUE(apply_event(*tl, *v));
  // The class's value puts it ahead of a2, which was created first: it runs when a1 ends.
  EXPECT_EQ(tl->find("hot")->start, core::Timestamp::from_unix_seconds(100));
  EXPECT_EQ(tl->find("a2")->start, core::Timestamp::from_unix_seconds(110));
  // An unknown class is an error naming the event's field, and changes nothing.
  job["name"] = "cold";
  job["priority_class"] = "urgnet";
  v = core::parse_json(Json({{"type", "submitted"}, {"at", 6}, {"job", job}}).dump());
  auto st = apply_event(*tl, *v);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "event.job.priority_class");
  EXPECT_EQ(tl->find("cold"), nullptr);
}

TEST(TimelineTest, LivePreemptionSendsAJobBack) {
  Json s = scenario(Json::array({cq("a", nullptr, "4")}), Json::array({wl("a1", "lq-a", "4", 100, 1), wl("a2", "lq-a", "4", 100, 2)}));
  auto tl = make(s);
  ASSERT_TRUE(tl.has_value());
  quota::Admission adm{"a", {{"main", {{"cpu", "on-demand"}}}}, {}};
  ASSERT_TRUE(tl->started("a1", core::Timestamp::from_unix_seconds(0), adm));
  ASSERT_TRUE(tl->preempted("a1", core::Timestamp::from_unix_seconds(10)));
  // a2 is ahead now? No: a1 keeps its creation order and is admitted again at 10.
  EXPECT_EQ(tl->find("a1")->start, core::Timestamp::from_unix_seconds(10));
  EXPECT_EQ(tl->find("a1")->preempted_at.size(), 1u);
  EXPECT_EQ(tl->find("a2")->start, core::Timestamp::from_unix_seconds(110));
}

}  // namespace
}  // namespace budcore::schedule

namespace budcore::schedule {
namespace {

// The engine's nomination memo must not change a single decision: the same busy timeline
// (deep BestEffortFIFO queues, preemption within queues and reclaim across the cohort, partial
// admission, fair sharing on and off) with the memo on and off.
TEST(TimelineTest, NominationMemoChangesNoDecision) {
  std::uint64_t seed = 42;
  auto rnd = [&](int n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int>((seed >> 33) % static_cast<std::uint64_t>(n));
  };
  // Reclaim across the cohort, and preemption only within queues (there a memoized nomination
  // outlives changes elsewhere in the cohort while what it read is unchanged).
  for (const char* reclaim : {"Any", "Never"}) {
    SCOPED_TRACE(std::string("reclaim_within_cohort ") + reclaim);
    Json pre = {{"preemption", {{"within_cluster_queue", "LowerPriority"}, {"reclaim_within_cohort", reclaim}}}};
    Json qs = Json::array({cq("a", "c", "6", pre), cq("b", "c", "4", pre), cq("d", "c2", "5"), cq("e", "c2", "3", pre)});
    const char* queues[] = {"lq-a", "lq-b", "lq-d", "lq-e"};
    Json wls = Json::array();
    for (int i = 0; i < 120; ++i) {
      Json w = wl("w" + std::to_string(i), queues[rnd(4)], std::to_string(1 + rnd(4)), 5 + rnd(60), i, rnd(3));
      w["submit_at"] = rnd(160);
      if (rnd(5) == 0) {
        w["pod_sets"][0]["count"] = 2;
        w["pod_sets"][0]["min_count"] = 1;
      }
      wls.push_back(w);
    }
    for (bool fair : {false, true}) {
      Json s = scenario(qs, wls);
      s["fair_sharing"] = fair;
      auto with = parse_estimate(s.dump());
      ASSERT_TRUE(with.has_value()) << with.error().describe();
      auto without = *with;
      without.engine_options.memoize_nominations = false;
      auto a = Timeline::create(std::move(*with));
      auto b = Timeline::create(std::move(without));
      ASSERT_TRUE(b.has_value()) << "without memo: " << b.error().describe();
      ASSERT_TRUE(a.has_value()) << "with memo: " << a.error().describe();
      EXPECT_EQ(to_json(a->result(), {2, true}), to_json(b->result(), {2, true})) << "fair_sharing=" << fair;
      std::size_t preempted = 0;
      for (const auto& j : a->result().jobs) preempted += j.preempted_at.size();
      EXPECT_GT(preempted, 0u) << "the scenario should exercise preemption";
      if (!fair && std::string(reclaim) == "Any") {
        // This scenario also re-admits and preempts one victim over and over at one instant:
        // the timeline stops cycling there with a warning instead of spinning.
        const auto& w = a->result().warnings;
        EXPECT_TRUE(std::any_of(w.begin(), w.end(), [](const std::string& s) { return s.find("preempted 3 times") != std::string::npos; }))
            << to_json(a->result(), {2, true});
      }
    }
  }
}

// The benchmark's cohort tree, smaller: queues borrowing one another's quota, preemption within
// each queue only, every queue holding a long job and a backlog of many jobs of few shapes.
// Here a queue's fitting head is skipped behind another queue's reservation cycle after cycle
// while that queue walks its heads, and the engine repeats such a cycle from its record instead
// of nominating and processing again (checked with temporary counters when written).
TEST(TimelineTest, RepeatedCyclesChangeNoDecision) {
  Json pre = {{"preemption", {{"within_cluster_queue", "LowerPriority"}}}};
  Json qs = Json::array();
  Json wls = Json::array();
  const int queues = 6, jobs = 150;
  for (int q = 0; q < queues; ++q) qs.push_back(cq("q" + std::to_string(q), "c", "10", pre));
  for (int q = 0; q < queues; ++q) {
    Json w = wl("run" + std::to_string(q), "lq-q" + std::to_string(q), "2", 1000, jobs + q);
    w["admitted"] = {{"cluster_queue", "q" + std::to_string(q)}, {"flavors", {{"main", {{"cpu", "on-demand"}}}}}};
    w["started_at"] = 0;
    wls.push_back(w);
  }
  for (int i = 0; i < jobs; ++i)
    wls.push_back(wl("j" + std::to_string(i), "lq-q" + std::to_string(i % queues), std::to_string(1 + (i * 7) % 4),
                     60 + (i * 37) % 541, i, (i * 13) % 3));
  auto with = parse_estimate(scenario(qs, wls).dump());
  ASSERT_TRUE(with.has_value()) << with.error().describe();
  auto without = *with;
  without.engine_options.memoize_nominations = false;
  auto a = Timeline::create(std::move(*with));
  auto b = Timeline::create(std::move(without));
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(to_json(a->result(), {2, true}), to_json(b->result(), {2, true}));
  for (int q = 0; q < queues; ++q) {
    auto at = core::Timestamp::from_unix_seconds(q + 1);
    std::string name = "run" + std::to_string(q);
    ASSERT_TRUE(a->finished(name, at));
    ASSERT_TRUE(b->finished(name, at));
    EXPECT_EQ(to_json(a->result(), {2, true}), to_json(b->result(), {2, true})) << "after " << name << " finished";
  }
  std::size_t waited = 0;
  for (const auto& j : a->result().jobs) waited += j.wait == WaitReason::Quota ? 1 : 0;
  EXPECT_GT(waited, 100u) << "the backlog should wait for quota";
}

// A live event re-simulates only the trees it reaches and replaces their part of the result in
// place. After every event the result must equal the one a full re-simulation gives: both
// timelines are first brought to one instant T, every event happens at T, and the reference
// re-simulates every tree at T after each one (advance), so the trees the event did not reach
// were simulated from the same state.
TEST(TimelineTest, LiveEventsKeepTheResultEqualToAFullRecompute) {
  Json pre = {{"preemption", {{"within_cluster_queue", "LowerPriority"}}}};
  Json qs = Json::array({cq("a", "x", "4", pre), cq("b", "x", "2"), cq("c", "y", "3", pre), cq("d", nullptr, "2")});
  const std::vector<std::string> queues = {"lq-a", "lq-b", "lq-c", "lq-d"};
  Json wls = Json::array();
  for (int i = 0; i < 28; ++i) {
    Json w = wl("j" + std::to_string(i), queues[i % 4], std::to_string(1 + i % 2), 20 + (i * 7) % 50, i, (i * 5) % 3);
    if (i % 6 == 5) w["depends_on"] = Json::array({"j" + std::to_string(i - 3)});  // often in another tree
    if (i % 5 == 0) w["deadline"] = 10 + i * 2;  // j0..j15's are before T
    if (i % 9 == 4) w["submit_at"] = 70 + i;
    wls.push_back(w);
  }
  wls.push_back(wl("lost", "lq-missing", "1", 10, 99));  // no such LocalQueue: never runs
  Json s = scenario(qs, wls);
  auto live = make(s), full = make(s);
  ASSERT_TRUE(live.has_value()) << live.error().describe();
  ASSERT_TRUE(full.has_value());
  const core::Timestamp at = core::Timestamp::from_unix_seconds(50);
  ASSERT_TRUE(live->advance(at));
  ASSERT_TRUE(full->advance(at));
  auto same = [&](const std::string& what) {
    ASSERT_TRUE(full->advance(at));
    ASSERT_EQ(to_json(live->result(), {2, true}), to_json(full->result(), {2, true})) << "after " << what;
  };
  same("advance");

  std::uint32_t rng = 12345;
  auto next = [&](std::uint32_t n) {
    rng = rng * 1664525u + 1013904223u;
    return (rng >> 8) % n;
  };
  int changed = 0;
  bool warned = false;
  for (int step = 0; step < 120; ++step) {
    const std::string name = next(10) == 0 ? "lost" : "j" + std::to_string(next(28));
    const int kind = static_cast<int>(next(7));
    std::string what = std::to_string(step) + ": ";
    core::Status a, b;
    switch (kind) {
      case 0: what += "finished " + name; a = live->finished(name, at); b = full->finished(name, at); break;
      case 1: what += "failed " + name; a = live->failed(name, at); b = full->failed(name, at); break;
      case 2: what += "cancelled " + name; a = live->cancelled(name, at); b = full->cancelled(name, at); break;
      case 3: what += "preempted " + name; a = live->preempted(name, at); b = full->preempted(name, at); break;
      case 4: {
        const int n = name == "lost" ? 0 : std::stoi(name.substr(1));
        quota::Admission adm{std::string(1, static_cast<char>('a' + n % 4)), {{"main", {{"cpu", "on-demand"}}}}, {}};
        what += "started " + name;
        a = live->started(name, at, adm);
        b = full->started(name, at, adm);
        break;
      }
      default: {
        Json w = wl("new" + std::to_string(step), queues[next(4)], "1", 15 + next(30), 100 + step, static_cast<int>(next(3)));
        if (next(2) == 0) w["depends_on"] = Json::array({"j" + std::to_string(next(28))});
        Json one = scenario(qs, Json::array({w}));
        auto parsed = parse_estimate(one.dump());
        ASSERT_TRUE(parsed.has_value()) << parsed.error().describe();
        what += "submitted " + w["name"].get<std::string>();
        a = live->submitted(parsed->jobs[0], at);
        b = full->submitted(parsed->jobs[0], at);
        break;
      }
    }
    ASSERT_EQ(a.has_value(), b.has_value()) << what;
    if (a) ++changed;
    warned = warned || !live->result().warnings.empty();
    same(what);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(changed, 40) << "most events should apply";
  EXPECT_FALSE(live->result().never.empty());
  EXPECT_TRUE(warned) << "deadlines before T should be reported";
}


// The HTML view names jobs as people do (their label; the workload name stays on hover) and
// reads times as clock times and spans ("in 1 h"), never as "+3600 s".
TEST(TimelineViewTest, TheHtmlViewShowsLabelsAndClockTimes) {
  Json s = scenario(Json::array({cq("cq-a", nullptr, "1")}),
                    Json::array({wl("0190e6f4-aaaa", "lq-cq-a", "1", 3600, 0), wl("0190e6f4-bbbb", "lq-cq-a", "1", 7200, 1)}));
  s["now"] = 1767225600;  // 2026-01-01T00:00:00Z
  auto in = parse_estimate(s.dump());
  ASSERT_TRUE(in) << in.error().describe();
  in->jobs[0].label = "train-llama";
  auto tl = Timeline::create(std::move(*in));
  ASSERT_TRUE(tl) << tl.error().describe();
  const std::string page = render_html(tl->result(), HtmlOptions{});
  EXPECT_NE(page.find(">train-llama</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("title=\"0190e6f4-aaaa\""), std::string::npos);
  EXPECT_NE(page.find(">0190e6f4-bbbb</td>"), std::string::npos);  // no label: its name
  EXPECT_NE(page.find("2026-01-01 01:00 UTC (in 1 h)"), std::string::npos) << page;  // the second job's start
  EXPECT_NE(page.find(">00:00</text>"), std::string::npos);  // the axis starts at a clock time
  EXPECT_EQ(page.find(" s</text>"), std::string::npos);
  EXPECT_NE(page.find("makespan: 3 h"), std::string::npos);
  Json out = Json::parse(to_json(tl->result(), {-1, true}));
  EXPECT_EQ(job(out, "0190e6f4-aaaa")["label"], "train-llama");
  EXPECT_EQ(job(out, "0190e6f4-bbbb")["label"], "0190e6f4-bbbb");
  EXPECT_FALSE(Json::parse(to_json(tl->result(), {-1, false}))["jobs"][0].contains("label"));  // the plain output is unchanged
}

// Two jobs with one label are told apart by the end of their names; a scenario without `now`
// (times from the epoch) reads offsets from now on the axis, not 1970's clock.
TEST(TimelineViewTest, TheHtmlViewTellsRepeatedLabelsApartAndReadsOffsetsWithoutAClock) {
  Json s = scenario(Json::array({cq("cq-a", nullptr, "1")}),
                    Json::array({wl("0190e6f4-0000-7000-8000-00000000aaaa", "lq-cq-a", "1", 3600, 0),
                                 wl("0190e6f4-0000-7000-8000-00000000bbbb", "lq-cq-a", "1", 3600, 1)}));
  auto in = parse_estimate(s.dump());
  ASSERT_TRUE(in) << in.error().describe();
  in->jobs[0].label = "train";
  in->jobs[1].label = "train";
  auto tl = Timeline::create(std::move(*in));
  ASSERT_TRUE(tl) << tl.error().describe();
  const std::string page = render_html(tl->result(), HtmlOptions{});
  EXPECT_NE(page.find(">train (\u20260000bbbb)</td>"), std::string::npos) << page;
  EXPECT_NE(page.find(">now</text>"), std::string::npos) << page;
  EXPECT_NE(page.find(">+2 h</text>"), std::string::npos) << page;
  EXPECT_EQ(page.find("1970"), std::string::npos) << page;
  EXPECT_NE(page.find(">in 1 h</td>"), std::string::npos) << page;  // the second job's start
}

}  // namespace
}  // namespace budcore::schedule
