// try_reserve: immediate, atomic reservations; many threads racing for the last units never
// over-commit a queue or a cohort (run under TSan in a -DBUDCORE_SANITIZE=thread build).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "budcore/quota/admission.hpp"

namespace budcore::quota {
namespace {

core::Quantity q(const char* s) { return *core::Quantity::parse(s); }

ClusterQueue queue(const std::string& name, const char* nominal, std::optional<core::Quantity> borrowing,
                   std::optional<core::Quantity> lending) {
  ClusterQueue cq;
  cq.name = name;
  cq.cohort = "pool";
  ResourceGroup g;
  g.covered_resources = {"nvidia.com/gpu"};
  g.flavors.push_back({"a100", {{"nvidia.com/gpu", q(nominal), borrowing, lending}}});
  cq.resource_groups.push_back(g);
  return cq;
}

// Two queues in one cohort: a (10 GPUs, lends at most 4), b (6 GPUs, borrows at most 3).
QuotaConfig config() {
  QuotaConfig c;
  c.resource_flavors.push_back({"a100", {}, {}});
  c.cluster_queues.push_back(queue("a", "10", std::nullopt, q("4")));
  c.cluster_queues.push_back(queue("b", "6", q("3"), std::nullopt));
  c.local_queues.push_back({"team-a", "main", "a"});
  c.local_queues.push_back({"team-b", "main", "b"});
  return c;
}

Workload gpu_job(const std::string& ns, const std::string& name, int gpus) {
  Workload w;
  w.name = name;
  w.namespace_ = ns;
  w.queue = "main";
  PodSet ps;
  EXPECT_TRUE(ps.requests.set("nvidia.com/gpu", core::Quantity::from_int(gpus)).has_value());
  w.pod_sets.push_back(ps);
  return w;
}

std::int64_t used(const AdmissionEngine& e, const std::string& cq) {
  return e.cluster_queue_usage().at(cq).at("a100").at("nvidia.com/gpu").used;
}

TEST(QuotaReservationTest, ReservesUntilFullThenRefusesWithReason) {
  auto engine = AdmissionEngine::create(config());
  ASSERT_TRUE(engine.has_value()) << engine.error().describe();
  auto first = engine->try_reserve(gpu_job("team-b", "j1", 6));
  ASSERT_TRUE(first.has_value()) << first.error().describe();
  EXPECT_EQ(first->cluster_queue, "b");
  EXPECT_EQ(first->flavors.at("main").at("nvidia.com/gpu"), "a100");
  // b may borrow 3 more from a's lendable 4.
  ASSERT_TRUE(engine->try_reserve(gpu_job("team-b", "j2", 3)).has_value());
  auto refused = engine->try_reserve(gpu_job("team-b", "j3", 1));
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, core::ErrorCode::QuotaExceeded);
  EXPECT_NE(refused.error().message.find("nvidia.com/gpu"), std::string::npos) << refused.error().message;
  EXPECT_FALSE(engine->status("team-b/j3").has_value());  // a refused workload is not kept
  // a still has its own 10 minus the 3 lent: 7.
  EXPECT_TRUE(engine->try_reserve(gpu_job("team-a", "k1", 7)).has_value());
  EXPECT_FALSE(engine->try_reserve(gpu_job("team-a", "k2", 1)).has_value());
  // Finishing releases quota for the next reservation.
  ASSERT_TRUE(engine->finish("team-b/j2").has_value());
  EXPECT_TRUE(engine->try_reserve(gpu_job("team-a", "k2", 1)).has_value());
}

TEST(QuotaReservationTest, ErrorsNameTheProblem) {
  auto engine = AdmissionEngine::create(config());
  ASSERT_TRUE(engine.has_value());
  auto missing = engine->try_reserve(gpu_job("nobody", "x", 1));
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, core::ErrorCode::NotFound);
  ASSERT_TRUE(engine->try_reserve(gpu_job("team-a", "x", 1)).has_value());
  auto dup = engine->try_reserve(gpu_job("team-a", "x", 1));
  ASSERT_FALSE(dup.has_value());
  EXPECT_EQ(dup.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(dup.error().field, "name");
  auto too_big = engine->try_reserve(gpu_job("team-b", "huge", 100));
  ASSERT_FALSE(too_big.has_value());
  EXPECT_EQ(too_big.error().code, core::ErrorCode::QuotaExceeded);
}

// A workload is built in its slot (a fresh one, or one a removal freed): a rejected one leaves
// neither its slot nor its key behind. reserve() changes nothing but capacity.
TEST(QuotaReservationTest, RejectedWorkloadLeavesNoTrace) {
  auto engine = AdmissionEngine::create(config());
  ASSERT_TRUE(engine.has_value());
  engine->reserve(8);
  ASSERT_TRUE(engine->add_workload(gpu_job("team-a", "j1", 2)).has_value());
  ASSERT_TRUE(engine->remove("team-a/j1").has_value());  // its slot is free now
  auto bad = gpu_job("team-a", "bad", 1);
  bad.pod_sets[0].count = -1;
  for (int round = 0; round < 2; ++round) {  // into the freed slot, then (j2 took it) a fresh one
    auto st = engine->add_workload(bad);
    ASSERT_FALSE(st.has_value());
    EXPECT_EQ(st.error().field, "pod_sets[0].count");
    EXPECT_FALSE(engine->status("team-a/bad").has_value());
    EXPECT_EQ(engine->statuses().size(), static_cast<std::size_t>(round));
    if (round == 0) ASSERT_TRUE(engine->add_workload(gpu_job("team-a", "j2", 2)).has_value());
  }
  bad.pod_sets[0].count = 1;
  ASSERT_TRUE(engine->add_workload(bad).has_value());  // the key was not kept
  auto report = engine->run_until_decision();
  engine->run_until_quiescent(10);
  EXPECT_EQ(engine->status("team-a/j2")->state, WorkloadState::Admitted);
  EXPECT_EQ(engine->status("team-a/bad")->state, WorkloadState::Admitted);
  EXPECT_EQ(used(*engine, "a"), 3000);
  EXPECT_FALSE(report.admitted.empty());
}

TEST(QuotaReservationTest, ConcurrentSubmittersNeverOverCommit) {
  auto engine = AdmissionEngine::create(config());
  ASSERT_TRUE(engine.has_value());
  constexpr int kThreads = 12;
  constexpr int kPerThread = 40;
  std::atomic<int> granted_a{0}, granted_b{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < kPerThread; ++i) {
        bool to_a = (t + i) % 2 == 0;
        auto r = engine->try_reserve(gpu_job(to_a ? "team-a" : "team-b", "t" + std::to_string(t) + "-" + std::to_string(i), 1));
        if (r) (to_a ? granted_a : granted_b).fetch_add(1);
        if (i % 7 == 0) (void)engine->cluster_queue_usage();  // readers race with writers too
      }
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  // The cohort holds 16 GPUs; b can use at most 6 + 3, a at most 10.
  EXPECT_EQ(granted_a + granted_b, 16);
  EXPECT_LE(granted_b.load(), 9);
  EXPECT_LE(granted_a.load(), 10);
  EXPECT_EQ(used(*engine, "a"), granted_a.load() * 1000);
  EXPECT_EQ(used(*engine, "b"), granted_b.load() * 1000);
  int admitted = 0;
  for (const auto& s : engine->statuses()) admitted += s.state == WorkloadState::Admitted;
  EXPECT_EQ(admitted, 16);
}

TEST(QuotaReservationTest, ReservationsAndCyclesInterleaveSafely) {
  auto engine = AdmissionEngine::create(config());
  ASSERT_TRUE(engine.has_value());
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(engine->add_workload(gpu_job("team-a", "queued-" + std::to_string(i), 1)).has_value());
  std::atomic<int> reserved{0};
  std::thread submitter([&] {
    for (int i = 0; i < 30; ++i)
      if (engine->try_reserve(gpu_job("team-b", "r-" + std::to_string(i), 1))) reserved.fetch_add(1);
  });
  std::thread scheduler([&] {
    for (int i = 0; i < 40; ++i) engine->run_cycle();
  });
  submitter.join();
  scheduler.join();
  int admitted = 0;
  for (const auto& s : engine->statuses()) admitted += s.state == WorkloadState::Admitted;
  EXPECT_EQ(admitted, 16);  // the cohort's 16 GPUs, whoever won them
  EXPECT_LE(used(*engine, "a") + used(*engine, "b"), 16000);
}

}  // namespace
}  // namespace budcore::quota
