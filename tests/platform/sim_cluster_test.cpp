// The simulated cluster on its own, through the ClusterBackend contract: idempotent submits,
// newer runs replacing older ones, the event order of a run, eviction, the queue window,
// adoption after a restart, and the quota its runs hold equal to what the engine charges.
#include <gtest/gtest.h>

#include <algorithm>

#include "budcore/backend/sim_cluster.hpp"
#include "budcore/platform/config.hpp"
#include "budcore/quota/job_workload.hpp"
#include "platform/platform_fixture.hpp"
#include "platform/sim_requests.hpp"

namespace budcore::testing {
namespace {

using backend::ClusterEventKind;

backend::SimClusterOptions options(std::size_t window = 64) {
  backend::SimClusterOptions o;
  o.quota = platform::embedded_quota();
  o.inventory = platform::embedded_inventory();
  o.admission_window = window;
  return o;
}

std::vector<ClusterEventKind> kinds_of(const std::vector<backend::ClusterEvent>& ev, const core::Id& id) {
  std::vector<ClusterEventKind> k;
  for (const auto& e : ev)
    if (e.job_id == id && e.kind != ClusterEventKind::Usage) k.push_back(e.kind);
  return k;
}

TEST(SimClusterTest, ARunIsQueuedAdmittedStartedAndSucceedsOnTheClock) {
  core::VirtualClock clock;
  auto c = backend::SimCluster::create(clock, options()).value();
  auto r = sim_request(gpu_job("a", 2, 300));
  ASSERT_TRUE(c->submit(r));
  ASSERT_TRUE(c->submit(r));  // the same run again: nothing new
  auto ev = drain(*c);
  EXPECT_EQ(kinds_of(ev, r.job.id),
            (std::vector<ClusterEventKind>{ClusterEventKind::Queued, ClusterEventKind::Admitted, ClusterEventKind::Started}));
  EXPECT_EQ(c->next_change()->to_string(), (clock.now() + core::Duration::seconds(300)).to_string());
  EXPECT_EQ(c->held_quota()["batch-jobs"]["a100-80gb"]["nvidia.com/gpu"], 2000);
  clock.advance(core::Duration::seconds(300));
  ev = drain(*c);
  ASSERT_EQ(kinds_of(ev, r.job.id), std::vector<ClusterEventKind>{ClusterEventKind::Succeeded});
  bool usage = false;
  for (const auto& e : ev)
    if (e.kind == ClusterEventKind::Usage) {
      usage = true;
      EXPECT_EQ(e.usage->gpu_count, 2);
      EXPECT_EQ(e.usage->sharing_mode, "full");
    }
  EXPECT_TRUE(usage);
  EXPECT_EQ(c->running(), 0u);
  EXPECT_EQ(c->cluster_queue_usage()["batch-jobs"]["a100-80gb"]["nvidia.com/gpu"].used, 0);
}

TEST(SimClusterTest, ANewerRunReplacesTheOldOneAndCancelAndEvictFollowTheContract) {
  core::VirtualClock clock;
  auto c = backend::SimCluster::create(clock, options()).value();
  auto r1 = sim_request(gpu_job("a", 1, 1000));
  ASSERT_TRUE(c->submit(r1));
  drain(*c);
  auto r2 = r1;
  r2.run = 2;
  ASSERT_TRUE(c->submit(r2));
  auto ev = drain(*c);
  // Only the old run's metered interval (it ran until replaced) still names run 1.
  for (const auto& e : ev) EXPECT_EQ(e.run, e.kind == ClusterEventKind::Usage ? 1 : 2) << static_cast<int>(e.kind);
  EXPECT_EQ(c->list()->size(), 1u);
  ASSERT_TRUE(c->evict(r1.job.id, "drain node"));
  ev = drain(*c);
  auto k = kinds_of(ev, r1.job.id);
  ASSERT_GE(k.size(), 2u);
  EXPECT_EQ(k[0], ClusterEventKind::Preempted);
  EXPECT_EQ(k[1], ClusterEventKind::Queued);
  ASSERT_TRUE(c->cancel(r1.job.id, "bye"));
  ASSERT_TRUE(c->cancel(r1.job.id, "again"));  // unknown now: not an error
  EXPECT_EQ(c->list()->size(), 0u);
  EXPECT_EQ(c->evict(r1.job.id, "x").error().code, core::ErrorCode::NotFound);
  auto big = sim_request(gpu_job("huge", 64, 10));
  ASSERT_TRUE(c->submit(big));
  drain(*c);
  EXPECT_EQ(c->evict(big.job.id, "x").error().code, core::ErrorCode::Conflict);  // only queued
}

TEST(SimClusterTest, OnlyTheWindowOfQueueHeadsIsInTheEngineAndHigherPriorityMovesUp) {
  core::VirtualClock clock;
  auto c = backend::SimCluster::create(clock, options(2)).value();
  std::vector<backend::WorkloadRequest> reqs;
  for (int i = 0; i < 6; ++i) {
    reqs.push_back(sim_request(gpu_job("w" + std::to_string(i), 8, 100), 1, i + 1));
    ASSERT_TRUE(c->submit(reqs.back()));
  }
  auto urgent = gpu_job("urgent", 8, 100);
  urgent.priority = job::JobPriority::High;
  auto ur = sim_request(urgent, 1, 100);
  ASSERT_TRUE(c->submit(ur));
  auto ev = drain(*c);
  EXPECT_EQ(c->running(), 1u);
  EXPECT_EQ(c->queued(), 6u);
  // The high-priority run was submitted last, behind a full window, but is admitted first.
  auto urgent_kinds = kinds_of(ev, ur.job.id);
  EXPECT_NE(std::find(urgent_kinds.begin(), urgent_kinds.end(), ClusterEventKind::Admitted), urgent_kinds.end());
  auto first = kinds_of(ev, reqs[0].job.id);
  EXPECT_EQ(std::find(first.begin(), first.end(), ClusterEventKind::Admitted), first.end());
  clock.advance(core::Duration::seconds(100));
  ev = drain(*c);
  // Then the queue heads in order: w0 next.
  auto next = kinds_of(ev, reqs[0].job.id);
  EXPECT_NE(std::find(next.begin(), next.end(), ClusterEventKind::Admitted), next.end());
}

TEST(SimClusterTest, AdoptionRebuildsQueueOrderAdmissionsAndRunningEnds) {
  core::VirtualClock clock;
  auto c = backend::SimCluster::create(clock, options()).value();
  auto running = sim_request(gpu_job("running", 8, 1000), 1, 1);
  auto waiting = sim_request(gpu_job("waiting", 8, 100), 1, 2);
  ASSERT_TRUE(c->submit(running));
  ASSERT_TRUE(c->submit(waiting));
  auto ev = drain(*c);
  backend::Placement placement;
  for (const auto& e : ev)
    if (e.job_id == running.job.id && e.kind == ClusterEventKind::Started) placement = *e.placement;
  clock.advance(core::Duration::seconds(400));
  // A new process: the cluster is rebuilt from the records.
  auto fresh = backend::SimCluster::create(clock, options()).value();
  backend::AdoptedRun a;
  a.request = running;
  a.phase = backend::AdoptedRun::Phase::Running;
  a.placement = placement;
  a.started_at = clock.now() - core::Duration::seconds(400);
  backend::AdoptedRun b;
  b.request = waiting;
  ASSERT_TRUE(fresh->adopt(std::vector<backend::AdoptedRun>{a, b}));
  ASSERT_TRUE(fresh->adoption_complete());
  EXPECT_EQ(fresh->held_quota(), c->held_quota());
  EXPECT_TRUE(drain(*fresh).empty());  // nothing changed: the waiting run still does not fit
  EXPECT_EQ(fresh->next_change()->to_string(), (clock.now() + core::Duration::seconds(600)).to_string());
  clock.advance(core::Duration::seconds(600));
  ev = drain(*fresh);
  EXPECT_EQ(kinds_of(ev, running.job.id), std::vector<ClusterEventKind>{ClusterEventKind::Succeeded});
  EXPECT_EQ(kinds_of(ev, waiting.job.id).front(), ClusterEventKind::Admitted);
}

TEST(SimClusterTest, BadOptionsAndSpecsNameTheField) {
  core::VirtualClock clock;
  auto o = options();
  o.inventory[0].flavor = "nope";
  EXPECT_EQ(backend::SimCluster::create(clock, o).error().field, "inventory[0].flavor");
  o = options();
  o.inventory[3].mig_instances_per_gpu = 9;
  EXPECT_EQ(backend::SimCluster::create(clock, o).error().field, "inventory[3].mig_instances_per_gpu");
  EXPECT_EQ(backend::SimCluster::check_spec(core::Value::map({{"sim", core::Value::map({{"duraton_seconds", 1}})}})).error().field,
            "spec.sim.duraton_seconds");
  auto c = backend::SimCluster::create(clock, options()).value();
  auto r = sim_request(gpu_job("x"));
  r.workload.queue = "no-such-queue";
  EXPECT_EQ(c->submit(r).error().field, "workload.queue");
}

}  // namespace
}  // namespace budcore::testing
