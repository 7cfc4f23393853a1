// The simulated cluster under a placement policy: MIG runs placed by the gpu layer's MIG-aware
// placement (a GPU re-partitioned on demand when that lets a profile fit), and defragmentation
// plans applied to the cluster itself: the runs a plan moves start over where it says, keeping
// their quota, and the waiting run starts.
#include <gtest/gtest.h>

#include <algorithm>

#include "budcore/backend/sim_cluster.hpp"
#include "budcore/gpu/defrag.hpp"
#include "budcore/platform/config.hpp"
#include "platform/platform_fixture.hpp"
#include "platform/sim_requests.hpp"

namespace budcore::testing {
namespace {

using backend::ClusterEventKind;

constexpr const char* kMig1g = "nvidia.com/mig-1g.10gb";

// The embedded quota and inventory under `policy`, with the A100 pool shrunk to 2 nodes of 4
// GPUs and the MIG pool to `mig_gpus` GPUs of seven 1g.10gb; every ClusterQueue that has 1g.10gb
// quota has as much again for 3g.40gb and 1g.5gb (an A100-40GB profile the pool's GPUs lack).
backend::SimClusterOptions options(std::string policy, std::int64_t mig_gpus = 4) {
  backend::SimClusterOptions o;
  o.quota = platform::embedded_quota();
  for (auto& cq : o.quota.cluster_queues)
    for (auto& g : cq.resource_groups) {
      if (std::find(g.covered_resources.begin(), g.covered_resources.end(), kMig1g) == g.covered_resources.end()) continue;
      for (const char* extra : {"nvidia.com/mig-3g.40gb", "nvidia.com/mig-1g.5gb"}) {
        g.covered_resources.push_back(extra);
        for (auto& f : g.flavors) {
          quota::ResourceQuota q = f.resources.front();
          q.name = extra;
          f.resources.push_back(q);
        }
      }
    }
  o.inventory = platform::embedded_inventory();
  o.inventory[0].gpus_per_node = 4;
  o.inventory[3].gpus_per_node = mig_gpus;
  o.placement_policy = std::move(policy);
  return o;
}

job::Job mig_job(std::string name, std::string profile, std::int64_t seconds = 3600) {
  return gpu_job(std::move(name), 1, seconds, "nvidia-mig-" + profile);
}

// Where each started run went: job id -> its device lanes.
std::map<core::Id, std::vector<std::string>> started_devices(const std::vector<backend::ClusterEvent>& ev) {
  std::map<core::Id, std::vector<std::string>> out;
  for (const auto& e : ev)
    if (e.kind == ClusterEventKind::Started && e.placement) out[e.job_id] = e.placement->devices;
  return out;
}

const gpu::Pool& mig_pool(const backend::SimCluster& c) {
  for (const auto& v : c.gpu_pools())
    if (v.flavor == "a100-mig-1g10gb") return *v.pool;
  throw std::runtime_error("no MIG pool");
}

std::vector<std::string> layout_of(const gpu::Device& d) {
  std::vector<std::string> out;
  for (const auto& i : d.mig) out.push_back(gpu::to_string(i));
  return out;
}

// Every instance a run holds is in use in the pool, of the run's profile, and no instance in
// use is held by no run: the simulator's bookkeeping after re-partitions.
void expect_instances_consistent(backend::SimCluster& c, std::size_t runs_holding) {
  const gpu::Pool& pool = mig_pool(c);
  std::size_t in_use = 0;
  for (const auto& d : pool.node(0).gpus)
    for (auto s : d.mig_state) in_use += s != 0;
  std::size_t held = 0;
  const auto listed = c.list().value();
  for (const auto& w : listed) {
    if (!w.placement || w.placement->nodes.empty() || w.placement->nodes[0] != "a100-mig-0") continue;
    for (const auto& lane : w.placement->devices) {
      // "a100-mig-0/gpu<g>/mig<i>"
      const auto g = std::stoul(lane.substr(lane.find("/gpu") + 4));
      const auto i = std::stoul(lane.substr(lane.find("/mig") + 4));
      ASSERT_LT(g, pool.node(0).gpus.size()) << lane;
      const gpu::Device& d = pool.node(0).gpus[g];
      ASSERT_LT(i, d.mig.size()) << lane;
      EXPECT_NE(d.mig_state[i], 0) << lane << " is not in use";
      ++held;
    }
  }
  EXPECT_EQ(held, in_use);
  EXPECT_EQ(held, runs_holding);
}

TEST(SimMigPlacementTest, AProfileNoFreeInstanceHasRePartitionsAGpuAndAFreeInstanceComesFirst) {
  core::VirtualClock clock;
  auto cluster = backend::SimCluster::create(clock, options("first_fit")).value();
  auto big = sim_request(mig_job("big", "3g.40gb"), 1, 1);
  ASSERT_TRUE(cluster->submit(big));
  auto on = started_devices(drain(*cluster));
  // GPU 0 gives up its three free 1g.10gb instances on memory slices 4-6 (at 0 it would give up
  // four): the new layout keeps 1g.10gb at 0-3 and adds 3g.40gb at 4, the fifth instance.
  ASSERT_EQ(on[big.job.id], std::vector<std::string>{"a100-mig-0/gpu0/mig4"});
  EXPECT_EQ(layout_of(mig_pool(*cluster).node(0).gpus[0]),
            (std::vector<std::string>{"1g.10gb@0", "1g.10gb@1", "1g.10gb@2", "1g.10gb@3", "3g.40gb@4"}));
  EXPECT_EQ(mig_pool(*cluster).node(0).gpus[1].mig.size(), 7u);  // untouched

  // A 1g.10gb run takes the first free instance; a second 3g.40gb re-partitions GPU 1 (GPU 0
  // has no room left for one without giving up an instance in use).
  auto small = sim_request(mig_job("small", "1g.10gb"), 1, 2);
  auto big2 = sim_request(mig_job("big2", "3g.40gb"), 1, 3);
  ASSERT_TRUE(cluster->submit(small));
  ASSERT_TRUE(cluster->submit(big2));
  on = started_devices(drain(*cluster));
  EXPECT_EQ(on[small.job.id], std::vector<std::string>{"a100-mig-0/gpu0/mig0"});
  EXPECT_EQ(on[big2.job.id], std::vector<std::string>{"a100-mig-0/gpu1/mig4"});
  EXPECT_TRUE(cluster->waiting_for_placement().empty());
  expect_instances_consistent(*cluster, 3);

  // When big ends its instance is free again, and the next 3g.40gb takes it as it is.
  clock.advance(core::Duration::seconds(3600));
  drain(*cluster);
  auto big3 = sim_request(mig_job("big3", "3g.40gb"), 1, 4);
  ASSERT_TRUE(cluster->submit(big3));
  on = started_devices(drain(*cluster));
  EXPECT_EQ(on[big3.job.id], std::vector<std::string>{"a100-mig-0/gpu0/mig4"});
}

// A new process starts from the GPUs' first layouts: a run adopted on an instance of a GPU that
// was re-partitioned gets it made again on the same node.
TEST(SimMigPlacementTest, AfterARestartARunOnARePartitionedGpuGoesBackToItsNode) {
  core::VirtualClock clock;
  auto cluster = backend::SimCluster::create(clock, options("first_fit")).value();
  auto big = sim_request(mig_job("big", "3g.40gb"), 1, 1);
  ASSERT_TRUE(cluster->submit(big));
  backend::Placement where;
  for (const auto& e : drain(*cluster))
    if (e.kind == ClusterEventKind::Started && e.placement) where = *e.placement;
  ASSERT_EQ(where.devices, std::vector<std::string>{"a100-mig-0/gpu0/mig4"});
  auto fresh = backend::SimCluster::create(clock, options("first_fit")).value();
  backend::AdoptedRun a;
  a.request = big;
  a.phase = backend::AdoptedRun::Phase::Running;
  a.placement = where;
  a.admitted_at = clock.now();
  a.started_at = clock.now();
  ASSERT_TRUE(fresh->adopt(std::vector<backend::AdoptedRun>{a}));
  ASSERT_TRUE(fresh->adoption_complete());
  drain(*fresh);
  const auto listed = fresh->list().value();
  ASSERT_EQ(listed.size(), 1u);
  ASSERT_TRUE(listed[0].placement);
  EXPECT_EQ(listed[0].placement->devices, where.devices);
  EXPECT_EQ(layout_of(mig_pool(*fresh).node(0).gpus[0]),
            (std::vector<std::string>{"1g.10gb@0", "1g.10gb@1", "1g.10gb@2", "1g.10gb@3", "3g.40gb@4"}));
  expect_instances_consistent(*fresh, 1);
}

TEST(SimMigPlacementTest, AProfileTheFlavorsGpusDoNotHaveNeverPlaces) {
  core::VirtualClock clock;
  auto cluster = backend::SimCluster::create(clock, options("first_fit")).value();
  auto r = sim_request(mig_job("forty", "1g.5gb"), 1, 1);
  ASSERT_TRUE(cluster->submit(r));
  EXPECT_TRUE(started_devices(drain(*cluster)).empty());
  auto waiting = cluster->waiting_for_placement();
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_NE(waiting[0].second.find("asks for MIG profile 1g.5gb, which no GPU of flavor a100-mig-1g10gb has"), std::string::npos)
      << waiting[0].second;
}

// Two GPUs of seven 1g.10gb: GPU 0 held at slices 0, 4, 5 and 6, GPU 1 at 0 and 4 (the runs
// between them ended), so neither takes a 3g.40gb (it starts at 0 or 4). The plan re-partitions
// one after moving one run to a free 1g.10gb instance of the other; applied to the cluster, the
// moved run starts over (its quota kept), the others keep their instances, and the 3g.40gb run
// starts.
TEST(SimMigPlacementTest, ARePartitionPlanAppliedToTheClusterStartsTheWaitingRun) {
  core::VirtualClock clock;
  auto cluster = backend::SimCluster::create(clock, options("first_fit", 2)).value();
  std::vector<backend::WorkloadRequest> small;
  for (int i = 0; i < 12; ++i) {
    const bool ends = i == 1 || i == 2 || i == 3 || i == 8 || i == 9 || i == 10;  // GPU 0 and GPU 1, slices 1-3
    small.push_back(sim_request(mig_job("s" + std::to_string(i), "1g.10gb", ends ? 100 : 3600), 1, i + 1));
  }
  for (auto& r : small) ASSERT_TRUE(cluster->submit(r));
  auto on = started_devices(drain(*cluster));
  ASSERT_EQ(on[small[6].job.id], std::vector<std::string>{"a100-mig-0/gpu0/mig6"});
  ASSERT_EQ(on[small[11].job.id], std::vector<std::string>{"a100-mig-0/gpu1/mig4"});
  clock.advance(core::Duration::seconds(100));
  drain(*cluster);
  auto big = sim_request(mig_job("big", "3g.40gb"), 1, 20);
  ASSERT_TRUE(cluster->submit(big));
  drain(*cluster);
  ASSERT_EQ(cluster->waiting_for_placement().size(), 1u);

  auto problem = cluster->defrag_problem(big.job.id).value();
  auto plan = gpu::plan_defrag(problem.pool, problem.holders, problem.request, problem.options).value();
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->kind, gpu::PlanKind::Repartition) << plan->summary;
  ASSERT_EQ(plan->moves.size(), 1u);
  const std::string moved = plan->moves[0].workload;
  ASSERT_TRUE(cluster->apply_defrag(big.job.id, *plan));
  auto ev = drain(*cluster);
  on = started_devices(ev);
  ASSERT_EQ(on.count(big.job.id), 1u);
  EXPECT_TRUE(cluster->waiting_for_placement().empty());
  const auto layout = layout_of(mig_pool(*cluster).node(0).gpus[static_cast<std::size_t>(plan->gpu)]);
  EXPECT_NE(std::find(layout.begin(), layout.end(), "3g.40gb@" + std::to_string(plan->layout.back().start)), layout.end());
  // Only the moved run was stopped, as a preemption reads, and it started again at once.
  for (const auto& e : ev) {
    if (e.kind != ClusterEventKind::Preempted) continue;
    EXPECT_EQ(e.job_id.to_string(), moved);
    EXPECT_EQ(e.reason, "Defragmented");
  }
  EXPECT_EQ(on.count(core::Id::parse(moved).value()), 1u);
  expect_instances_consistent(*cluster, 7);
  EXPECT_EQ(cluster->held_quota()["batch-jobs"]["a100-mig-1g10gb"][kMig1g], 6000);  // the moved run kept its quota
}

// A (high priority) on a100-0, B (low) on a100-1 under worst_fit, C (4 GPUs) waits. The plan
// moves B; applied to the cluster, B starts over on a100-0, C starts on a100-1, A is untouched.
TEST(SimDefragTest, ThePlanAppliedToTheClusterStartsTheGangAndMovesNothingOfHigherPriority) {
  core::VirtualClock clock;
  auto cluster = backend::SimCluster::create(clock, options("worst_fit")).value();
  job::Job ja = gpu_job("a", 1, 300), jb = gpu_job("b", 1, 600);
  ja.priority = job::JobPriority::High;
  jb.priority = job::JobPriority::Low;
  auto a = sim_request(ja, 1, 1), b = sim_request(jb, 1, 2), c = sim_request(gpu_job("c", 4, 600), 1, 3);
  for (auto* r : {&a, &b}) ASSERT_TRUE(cluster->submit(*r));
  drain(*cluster);
  ASSERT_TRUE(cluster->submit(c));
  drain(*cluster);
  clock.advance(core::Duration::seconds(50));
  auto problem = cluster->defrag_problem(c.job.id).value();
  auto plan = gpu::plan_defrag(problem.pool, problem.holders, problem.request, problem.options).value();
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->kind, gpu::PlanKind::Move);

  // A plan that would move A is refused, changing nothing.
  gpu::Plan bad = *plan;
  bad.moves[0].workload = a.job.id.to_string();
  auto refused = cluster->apply_defrag(c.job.id, bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "plan.moves[0].workload");
  EXPECT_NE(refused.error().message.find("a plan never moves it"), std::string::npos) << refused.error().message;
  // So is a wait (nothing to apply).
  gpu::Plan wait;
  wait.kind = gpu::PlanKind::Wait;
  wait.wait_for = {a.job.id.to_string()};
  EXPECT_EQ(cluster->apply_defrag(c.job.id, wait).error().field, "plan.kind");
  EXPECT_TRUE(drain(*cluster).empty());

  ASSERT_TRUE(cluster->apply_defrag(c.job.id, *plan));
  auto ev = drain(*cluster);
  std::vector<ClusterEventKind> b_events;
  std::map<core::Id, std::string> started;
  for (const auto& e : ev) {
    EXPECT_NE(e.job_id, a.job.id) << "A, of higher priority than the gang, was touched";
    if (e.job_id == b.job.id) b_events.push_back(e.kind);
    if (e.kind == ClusterEventKind::Started) started[e.job_id] = e.placement->nodes[0];
  }
  // B: its 50 s on a100-1 metered, then evicted and placed where the plan says.
  EXPECT_EQ(b_events, (std::vector<ClusterEventKind>{ClusterEventKind::Usage, ClusterEventKind::Preempted, ClusterEventKind::Queued,
                                                     ClusterEventKind::Admitted, ClusterEventKind::Started}));
  EXPECT_EQ(started[b.job.id], "a100-0");
  EXPECT_EQ(started[c.job.id], "a100-1");
  EXPECT_TRUE(cluster->waiting_for_placement().empty());
  EXPECT_EQ(cluster->held_quota()["batch-jobs"]["a100-80gb"]["nvidia.com/gpu"], 6000);
  EXPECT_EQ(cluster->gpu_pools()[0].pool->total_capacity().allocated, 6000);
  // B starts over: it ends 600 s after the move, not after its first start.
  clock.advance(core::Duration::seconds(599));
  for (const auto& e : drain(*cluster)) EXPECT_FALSE(e.job_id == b.job.id && e.kind == ClusterEventKind::Succeeded);
  clock.advance(core::Duration::seconds(1));
  auto end = drain(*cluster);
  EXPECT_TRUE(std::any_of(end.begin(), end.end(), [&](const auto& e) { return e.job_id == b.job.id && e.kind == ClusterEventKind::Succeeded; }));
  // Once placed, the gang has no problem to solve.
  EXPECT_EQ(cluster->apply_defrag(c.job.id, *plan).error().field, "job");
}

}  // namespace
}  // namespace budcore::testing
