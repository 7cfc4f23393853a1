// run_until_decision() skips runs of cycles whose heads all fail again as before; the queues
// requeue a cohort tree by bumping a generation. Both must be invisible: on random cohorts
// (one or two flavors, cpu and memory, fungibility), policies and workloads (partial admission), with finishes, removals, withdrawals and new arrivals in between, an
// engine driven by run_until_decision() reports the same decisions and leaves every workload
// in the same state with the same reason as one driven cycle by cycle -- and as one that
// memoizes nothing at all.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "budcore/quota/admission.hpp"

namespace budcore::quota {
namespace {

QuotaConfig random_config(std::mt19937& rnd, int queues) {
  auto pick = [&](int n) { return static_cast<int>(rnd() % static_cast<unsigned>(n)); };
  QuotaConfig c;
  c.resource_flavors.push_back({"f", {}, {}});
  c.resource_flavors.push_back({"g", {}, {}});
  const int cohorts = 1 + pick(3);
  for (int i = 0; i < queues; ++i) {
    ClusterQueue q;
    q.name = "cq" + std::to_string(i);
    const bool in_cohort = pick(10) < 8;
    if (in_cohort) q.cohort = "co" + std::to_string(pick(cohorts));
    // One flavor or two (in either order), each with cpu and memory quotas.
    auto quota = [&](const char* resource, int most) {
      ResourceQuota r{resource, core::Quantity::from_int(pick(most)), std::nullopt, std::nullopt};
      if (in_cohort && pick(2) == 0) r.borrowing_limit = core::Quantity::from_int(pick(8));
      if (in_cohort && pick(3) == 0) r.lending_limit = core::Quantity::from_int(pick(6));
      return r;
    };
    std::vector<FlavorQuotas> flavors;
    for (const char* f : pick(2) == 0 ? std::vector<const char*>{"f", "g"} : std::vector<const char*>{"g", "f"})
      flavors.push_back({f, {quota("cpu", 12), quota("memory", 8)}});
    if (pick(3) != 0) flavors.pop_back();
    q.resource_groups.push_back({{"cpu", "memory"}, flavors});
    if (pick(2) == 0) q.flavor_fungibility.when_can_borrow = FungibilityPolicy::TryNextFlavor;
    if (pick(2) == 0) q.flavor_fungibility.when_can_preempt = FungibilityPolicy::MayStopSearch;
    const PreemptionPolicy within[] = {PreemptionPolicy::Never, PreemptionPolicy::LowerPriority,
                                       PreemptionPolicy::LowerOrNewerEqualPriority};
    const PreemptionPolicy reclaim[] = {PreemptionPolicy::Never, PreemptionPolicy::LowerPriority, PreemptionPolicy::Any};
    q.preemption.within_cluster_queue = within[pick(3)];
    q.preemption.reclaim_within_cohort = reclaim[pick(3)];
    if (pick(5) == 0) q.queueing_strategy = QueueingStrategy::StrictFIFO;
    c.cluster_queues.push_back(q);
    c.local_queues.push_back({"ns", "lq" + std::to_string(i), q.name});
  }
  return c;
}

Workload random_workload(std::mt19937& rnd, int seq, int queues) {
  Workload w;
  w.name = "w" + std::to_string(seq);
  w.namespace_ = "ns";
  w.queue = "lq" + std::to_string(rnd() % static_cast<unsigned>(queues));
  w.priority = static_cast<std::int32_t>(rnd() % 4);
  w.creation_seq = seq;
  PodSet ps;
  EXPECT_TRUE(ps.requests.set("cpu", core::Quantity::from_int(1 + static_cast<int>(rnd() % 5))).has_value());
  if (const int memory = static_cast<int>(rnd() % 4); memory > 0)
    EXPECT_TRUE(ps.requests.set("memory", core::Quantity::from_int(memory)).has_value());
  if (rnd() % 6 == 0) {  // partial admission
    ps.count = 2;
    ps.min_count = 1;
  }
  w.pod_sets.push_back(ps);
  return w;
}

struct Driven {
  AdmissionEngine engine;
  enum class Mode { Cycles, Decisions } mode;
  std::int64_t steps = 0, cycles = 0;
  // One "step": cycles until one decides something or changes nothing.
  CycleReport step() {
    ++steps;
    if (mode == Mode::Decisions) {
      std::int64_t ran = 0;
      CycleReport r = engine.run_until_decision(&ran);
      cycles += ran;
      return r;
    }
    CycleReport total;
    for (;;) {
      CycleReport r = engine.run_cycle();
      total.changed = total.changed || r.changed;
      total.admitted.insert(total.admitted.end(), r.admitted.begin(), r.admitted.end());
      total.preempted.insert(total.preempted.end(), r.preempted.begin(), r.preempted.end());
      total.released.insert(total.released.end(), r.released.begin(), r.released.end());
      if (!r.admitted.empty() || !r.preempted.empty() || !r.released.empty() || !r.changed) return total;
    }
  }
};

void expect_same(const std::vector<WorkloadStatus>& a, const std::vector<WorkloadStatus>& b, const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].key, b[i].key) << where;
    EXPECT_EQ(a[i].state, b[i].state) << where << " " << a[i].key;
    EXPECT_EQ(a[i].pending_reason, b[i].pending_reason) << where << " " << a[i].key;
    EXPECT_EQ(a[i].admission.has_value(), b[i].admission.has_value()) << where << " " << a[i].key;
    if (a[i].admission && b[i].admission) EXPECT_EQ(a[i].admission->cluster_queue, b[i].admission->cluster_queue) << where;
  }
}

TEST(RunUntilDecisionTest, SameDecisionsAndReasonsAsCycleByCycle) {
  std::int64_t steps = 0, cycles = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 rnd(seed);
    const int queues = 2 + static_cast<int>(rnd() % 8);
    QuotaConfig config = random_config(rnd, queues);
    EngineOptions plain;
    plain.memoize_nominations = false;
    std::vector<Driven> engines;
    for (auto [mode, options] : {std::pair{Driven::Mode::Cycles, EngineOptions{}}, std::pair{Driven::Mode::Decisions, EngineOptions{}},
                                 std::pair{Driven::Mode::Cycles, plain}}) {
      auto e = AdmissionEngine::create(config, options);
      ASSERT_TRUE(e.has_value()) << e.error().describe();
      engines.push_back({std::move(*e), mode});
    }
    int seq = 0;
    std::vector<std::string> admitted;
    for (int round = 0; round < 30; ++round) {
      const std::string where = "seed " + std::to_string(seed) + " round " + std::to_string(round);
      // Arrivals, then one of: a finish, a removal, a withdrawal of a pending workload.
      const int arrivals = static_cast<int>(rnd() % 20);
      for (int k = 0; k < arrivals; ++k) {
        Workload w = random_workload(rnd, seq++, queues);
        for (auto& d : engines) ASSERT_TRUE(d.engine.add_workload(w).has_value());
      }
      auto statuses = engines[0].engine.statuses();
      if (!admitted.empty() && rnd() % 4 != 0) {
        std::size_t i = rnd() % admitted.size();
        const bool remove = rnd() % 5 == 0;
        auto st = engines[0].engine.status(admitted[i]);  // gone if removed (admitted lists re-admissions too)
        if (st && st->state == WorkloadState::Admitted)
          for (auto& d : engines)
            ASSERT_TRUE((remove ? d.engine.remove(admitted[i]) : d.engine.finish(admitted[i])).has_value()) << where;
        admitted.erase(admitted.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (!statuses.empty() && rnd() % 3 == 0) {
        const auto& s = statuses[rnd() % statuses.size()];
        if (s.state == WorkloadState::Pending && s.pending_reason != "withdrawn" && s.pending_reason != "finished")
          for (auto& d : engines) ASSERT_TRUE(d.engine.withdraw(s.key).has_value()) << where;
      }
      // Steps until quiet; every engine must decide the same at every step.
      for (int step = 0; step < 200; ++step) {
        std::vector<CycleReport> reports;
        for (auto& d : engines) reports.push_back(d.step());
        for (std::size_t e = 1; e < engines.size(); ++e) {
          EXPECT_EQ(reports[e].admitted, reports[0].admitted) << where << " step " << step;
          EXPECT_EQ(reports[e].preempted, reports[0].preempted) << where << " step " << step;
          EXPECT_EQ(reports[e].released, reports[0].released) << where << " step " << step;
          EXPECT_EQ(reports[e].changed, reports[0].changed) << where << " step " << step;
        }
        for (const auto& k : reports[0].admitted) admitted.push_back(k);
        if (::testing::Test::HasFailure()) return;
        if (!reports[0].changed && reports[0].admitted.empty() && reports[0].preempted.empty()) break;
      }
      expect_same(engines[1].engine.statuses(), engines[0].engine.statuses(), where);
      expect_same(engines[2].engine.statuses(), engines[0].engine.statuses(), where);
      if (::testing::Test::HasFailure()) return;
    }
    steps += engines[1].steps;
    cycles += engines[1].cycles;
  }
  EXPECT_GT(cycles, 2 * steps) << "runs of failing cycles were skipped in one step";
}

}  // namespace
}  // namespace budcore::quota

namespace budcore::quota {
namespace {

// Workloads share a nomination only when nothing a nomination reads differs, selectors
// included. Written as text, {"b": "c@zone=a"} and {"b": "c", "zone": "a"} once looked alike;
// the first matches no flavor here, the second does and must be admitted.
TEST(RunUntilDecisionTest, SelectorsThatReadAlikeAreDifferentShapes) {
  QuotaConfig c;
  c.resource_flavors.push_back({"f", {{"b", "c"}, {"zone", "a"}}, {}});
  ClusterQueue q;
  q.name = "cq";
  q.resource_groups.push_back({{"cpu"}, {{"f", {{"cpu", core::Quantity::from_int(10), std::nullopt, std::nullopt}}}}});
  c.cluster_queues.push_back(q);
  c.local_queues.push_back({"ns", "lq", "cq"});
  auto engine = AdmissionEngine::create(c);
  ASSERT_TRUE(engine.has_value()) << engine.error().describe();
  auto workload = [](const std::string& name, int seq, std::map<std::string, std::string> selector) {
    Workload w;
    w.name = name;
    w.namespace_ = "ns";
    w.queue = "lq";
    w.creation_seq = seq;
    PodSet ps;
    EXPECT_TRUE(ps.requests.set("cpu", core::Quantity::from_int(1)).has_value());
    ps.node_selector = std::move(selector);
    w.pod_sets.push_back(ps);
    return w;
  };
  ASSERT_TRUE(engine->add_workload(workload("odd", 1, {{"b", "c@zone=a"}})));
  ASSERT_TRUE(engine->add_workload(workload("plain", 2, {{"b", "c"}, {"zone", "a"}})));
  engine->run_until_quiescent();
  auto odd = engine->status("ns/odd");
  auto plain = engine->status("ns/plain");
  ASSERT_TRUE(odd && plain);
  EXPECT_EQ(odd->state, WorkloadState::Pending);
  EXPECT_NE(odd->pending_reason.find("doesn't match node affinity"), std::string::npos) << odd->pending_reason;
  EXPECT_EQ(plain->state, WorkloadState::Admitted) << plain->pending_reason;
}

// The derived-state memo keeps a nomination across quota states that read alike: in a full
// cohort every queue sees the same free quota after most finishes, though the cohort's usage
// (the exact memo's key) moves on every admission. A cohort of six queues drains a backlog of
// four shapes per queue, one finish at a time; decisions and reasons must equal an engine
// that memoizes nothing, and far fewer assignments are computed.
TEST(RunUntilDecisionTest, DerivedMemoReusesNominationsAcrossQuotaStates) {
  QuotaConfig c;
  c.resource_flavors.push_back({"f", {}, {}});
  const int queues = 6;
  for (int i = 0; i < queues; ++i) {
    ClusterQueue q;
    q.name = "cq" + std::to_string(i);
    q.cohort = "co";
    q.preemption.within_cluster_queue = i % 2 == 0 ? PreemptionPolicy::LowerPriority : PreemptionPolicy::Never;
    q.resource_groups.push_back({{"cpu"}, {{"f", {{"cpu", core::Quantity::from_int(10), std::nullopt, std::nullopt}}}}});
    c.cluster_queues.push_back(q);
    c.local_queues.push_back({"ns", "lq" + std::to_string(i), q.name});
  }
  EngineOptions plain;
  plain.memoize_nominations = false;
  auto memo = AdmissionEngine::create(c);
  auto fresh = AdmissionEngine::create(c, plain);
  ASSERT_TRUE(memo.has_value() && fresh.has_value());
  for (int i = 0; i < 360; ++i) {
    Workload w;
    w.name = "w" + std::to_string(i);
    w.namespace_ = "ns";
    w.queue = "lq" + std::to_string(i % queues);
    w.priority = (i * 13) % 3;
    w.creation_seq = i;
    PodSet ps;
    ASSERT_TRUE(ps.requests.set("cpu", core::Quantity::from_int(1 + (i * 7) % 4)).has_value());
    w.pod_sets.push_back(ps);
    ASSERT_TRUE(memo->add_workload(w));
    ASSERT_TRUE(fresh->add_workload(w));
  }
  std::vector<std::string> running;  // admission order
  auto settle = [&](const std::string& where) {
    for (int step = 0; step < 10'000; ++step) {
      CycleReport a = memo->run_until_decision();
      CycleReport b = fresh->run_until_decision();
      ASSERT_EQ(a.admitted, b.admitted) << where;
      ASSERT_EQ(a.preempted, b.preempted) << where;
      ASSERT_EQ(a.changed, b.changed) << where;
      running.insert(running.end(), a.admitted.begin(), a.admitted.end());
      if (!a.changed && a.admitted.empty() && a.preempted.empty()) break;
    }
    expect_same(memo->statuses(), fresh->statuses(), where);
  };
  settle("start");
  for (int round = 0; round < 300 && !running.empty(); ++round) {
    const std::string key = running.front();
    running.erase(running.begin());
    auto st = memo->status(key);
    ASSERT_TRUE(st.has_value());
    if (st->state != WorkloadState::Admitted) continue;  // preempted since
    ASSERT_TRUE(memo->finish(key));
    ASSERT_TRUE(fresh->finish(key));
    settle("after " + key + " finished");
    if (::testing::Test::HasFailure()) return;
  }
  // ~125 against ~57,000; the exact memo alone computes ~2,100 (the derived one is at work).
  EXPECT_LT(memo->fresh_nominations() * 100, fresh->fresh_nominations())
      << memo->fresh_nominations() << " fresh nominations with the memo, " << fresh->fresh_nominations() << " without";
}

}  // namespace
}  // namespace budcore::quota
