// The simulated cluster placing admitted runs through the gpu layer's policy: the policy decides
// the node, the quota decides admission exactly as before, and a run the quota admits but no
// node can take waits for placement and says why.
#include <gtest/gtest.h>

#include <algorithm>

#include "budcore/backend/sim_cluster.hpp"
#include "budcore/gpu/defrag.hpp"
#include "budcore/gpu/policy.hpp"
#include "budcore/platform/config.hpp"
#include "budcore/quota/job_workload.hpp"
#include "platform/platform_fixture.hpp"
#include "platform/sim_requests.hpp"

namespace budcore::testing {
namespace {

using backend::ClusterEventKind;

// The embedded quota and inventory, with the A100 pool shrunk to 2 nodes of 4 GPUs (batch-jobs
// may use 8 A100s: 4 nominal, 4 borrowed from the idle cohort).
backend::SimClusterOptions options(std::string policy) {
  backend::SimClusterOptions o;
  o.quota = platform::embedded_quota();
  o.inventory = platform::embedded_inventory();
  o.inventory[0].gpus_per_node = 4;
  o.placement_policy = std::move(policy);
  return o;
}

// Where each started run went: job id -> node.
std::map<core::Id, std::string> started_on(const std::vector<backend::ClusterEvent>& ev) {
  std::map<core::Id, std::string> out;
  for (const auto& e : ev)
    if (e.kind == ClusterEventKind::Started && e.placement && !e.placement->nodes.empty()) out[e.job_id] = e.placement->nodes[0];
  return out;
}

bool admitted(const std::vector<backend::ClusterEvent>& ev, const core::Id& id) {
  return std::any_of(ev.begin(), ev.end(), [&](const auto& e) { return e.job_id == id && e.kind == ClusterEventKind::Admitted; });
}

// A (1 GPU, 300 s), B (1 GPU, 600 s), then C (4 GPUs): 6 of the 8 GPUs the quota allows.
struct Three {
  backend::WorkloadRequest a = sim_request(gpu_job("a", 1, 300), 1, 1);
  backend::WorkloadRequest b = sim_request(gpu_job("b", 1, 600), 1, 2);
  backend::WorkloadRequest c = sim_request(gpu_job("c", 4, 600), 1, 3);
};

// A, B and C submitted to a cluster under `policy`, with every event it gave.
struct ThreeSubmitted {
  core::VirtualClock clock;
  std::unique_ptr<backend::SimCluster> cluster;
  Three t;
  std::vector<backend::ClusterEvent> events;
  explicit ThreeSubmitted(std::string policy) : cluster(backend::SimCluster::create(clock, options(std::move(policy))).value()) {
    for (auto* r : {&t.a, &t.b, &t.c}) EXPECT_TRUE(cluster->submit(*r));
    events = drain(*cluster);
  }
};

TEST(SimPlacementTest, BestFitPacksTheSmallRunsAndTheGangFits) {
  ThreeSubmitted s("best_fit");
  auto& cluster = s.cluster;
  auto& t = s.t;
  auto on = started_on(s.events);
  EXPECT_EQ(on[t.a.job.id], "a100-0");
  EXPECT_EQ(on[t.b.job.id], "a100-0");  // the node left with the least free
  EXPECT_EQ(on[t.c.job.id], "a100-1");
  EXPECT_TRUE(cluster->waiting_for_placement().empty());
  auto pools = cluster->gpu_pools();
  auto a100 = std::find_if(pools.begin(), pools.end(), [](const auto& p) { return p.flavor == "a100-80gb"; });
  ASSERT_NE(a100, pools.end());
  EXPECT_EQ(a100->pool->total_capacity().allocated, 6000);
  EXPECT_EQ(a100->pool->node(1).model, "A100-80GB");
  EXPECT_EQ(a100->requests->size(), 2u);  // 1 GPU and 4 GPUs
}

TEST(SimPlacementTest, WorstFitSpreadsAndTheGangWaitsForPlacementNotQuota) {
  core::VirtualClock clock;
  auto cluster = backend::SimCluster::create(clock, options("worst_fit")).value();
  Three t;
  for (auto* r : {&t.a, &t.b, &t.c}) ASSERT_TRUE(cluster->submit(*r));
  auto ev = drain(*cluster);
  auto on = started_on(ev);
  EXPECT_EQ(on[t.a.job.id], "a100-0");
  EXPECT_EQ(on[t.b.job.id], "a100-1");  // the node left with the most free
  EXPECT_FALSE(on.count(t.c.job.id));
  // The quota admitted C exactly as without a policy; only the nodes hold it back.
  EXPECT_TRUE(admitted(ev, t.c.job.id));
  EXPECT_EQ(cluster->held_quota()["batch-jobs"]["a100-80gb"]["nvidia.com/gpu"], 6000);
  auto waiting = cluster->waiting_for_placement();
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].first, t.c.job.id);
  EXPECT_NE(waiting[0].second.find("admitted by quota; waiting for placement: no node of flavor a100-80gb can take 4 GPUs"),
            std::string::npos)
      << waiting[0].second;
  EXPECT_NE(waiting[0].second.find("(policy worst_fit; the most free GPUs on one node: 3)"), std::string::npos) << waiting[0].second;
  auto listed = cluster->list().value();
  auto c = std::find_if(listed.begin(), listed.end(), [&](const auto& w) { return w.job_id == t.c.job.id; });
  ASSERT_NE(c, listed.end());
  EXPECT_EQ(c->phase, backend::WorkloadInfo::Phase::Admitted);
  EXPECT_EQ(c->message, waiting[0].second);
  // A ends at 300 s: a100-0 has its 4 GPUs free again and C starts there.
  clock.advance(core::Duration::seconds(300));
  on = started_on(drain(*cluster));
  EXPECT_EQ(on[t.c.job.id], "a100-0");
  EXPECT_TRUE(cluster->waiting_for_placement().empty());
}

// The plan for the waiting gang, applied to the cluster's own pool: A (high priority) on a100-0
// and B (low) on a100-1 under worst_fit; C (4 GPUs, normal) waits. Waiting costs 4 x 300 (A) or
// 4 x 600 (B); moving B (it has run 0 s) costs 1 x (0 + 60) and A, of higher priority, may not
// move. Applied, C fits on a100-1 and A has not moved.
TEST(SimPlacementTest, TheDefragmentationPlanAppliedToTheClusterLetsTheGangFitAndMovesNothingOfHigherPriority) {
  core::VirtualClock clock;
  auto cluster = backend::SimCluster::create(clock, options("worst_fit")).value();
  job::Job ja = gpu_job("a", 1, 300), jb = gpu_job("b", 1, 600);
  ja.priority = job::JobPriority::High;
  jb.priority = job::JobPriority::Low;
  auto a = sim_request(ja, 1, 1), b = sim_request(jb, 1, 2), c = sim_request(gpu_job("c", 4, 600), 1, 3);
  // A and B first (the queue would admit C, of higher priority than B, before B).
  for (auto* r : {&a, &b}) ASSERT_TRUE(cluster->submit(*r));
  auto on = started_on(drain(*cluster));
  ASSERT_TRUE(cluster->submit(c));
  drain(*cluster);
  ASSERT_EQ(on[a.job.id], "a100-0");
  ASSERT_EQ(on[b.job.id], "a100-1");
  ASSERT_EQ(cluster->waiting_for_placement().size(), 1u);

  auto problem = cluster->defrag_problem(c.job.id);
  ASSERT_TRUE(problem) << problem.error().describe();
  ASSERT_EQ(problem->holders.size(), 2u);
  std::map<std::string, gpu::Holder> before;
  for (const auto& h : problem->holders) before[h.name] = h;
  ASSERT_GT(before[a.job.id.to_string()].priority, problem->request.priority);
  ASSERT_LT(before[b.job.id.to_string()].priority, problem->request.priority);
  EXPECT_FALSE(problem->pool.node(0).name.empty());

  auto plan = gpu::plan_defrag(problem->pool, problem->holders, problem->request, problem->options);
  ASSERT_TRUE(plan) << plan.error().describe();
  ASSERT_TRUE(plan->has_value());
  const gpu::Plan& pl = **plan;
  EXPECT_EQ(pl.kind, gpu::PlanKind::Move);
  EXPECT_EQ(problem->pool.node(pl.target.node).name, "a100-1");
  ASSERT_EQ(pl.moves.size(), 1u);
  EXPECT_EQ(pl.moves[0].workload, b.job.id.to_string());
  EXPECT_DOUBLE_EQ(pl.cost_gpu_seconds, 60);
  for (const auto& m : pl.moves) EXPECT_LE(before[m.workload].priority, problem->request.priority) << m.workload;

  // Applied in the simulator's pool: the gang holds 4 GPUs of a100-1, B went to a100-0, A stayed.
  const std::int64_t allocated = problem->pool.total_capacity().allocated;
  ASSERT_TRUE(gpu::apply_plan(problem->pool, problem->holders, problem->request, pl));
  EXPECT_EQ(problem->pool.total_capacity().allocated, allocated + 4000);
  EXPECT_EQ(problem->pool.node_capacity(pl.target.node).free, 0);
  for (const auto& h : problem->holders) {
    if (h.priority > problem->request.priority) EXPECT_EQ(h.placement, before[h.name].placement) << h.name;
    if (h.name == b.job.id.to_string()) EXPECT_EQ(problem->pool.node(h.placement.node).name, "a100-0");
  }
  // The cluster itself is unchanged: a plan is advice.
  EXPECT_EQ(cluster->waiting_for_placement().size(), 1u);

  // Only a run that waits for placement has a problem.
  EXPECT_EQ(cluster->defrag_problem(a.job.id).error().field, "job");
  EXPECT_EQ(cluster->defrag_problem(core::Id::generate()).error().code, core::ErrorCode::NotFound);
}

TEST(SimPlacementTest, AfterARestartRunsGoBackWhereTheyWereAndTheGangStillWaits) {
  core::VirtualClock clock;
  auto cluster = backend::SimCluster::create(clock, options("worst_fit")).value();
  Three t;
  for (auto* r : {&t.a, &t.b, &t.c}) ASSERT_TRUE(cluster->submit(*r));
  std::map<core::Id, backend::Placement> where;
  for (const auto& e : drain(*cluster))
    if ((e.kind == ClusterEventKind::Admitted || e.kind == ClusterEventKind::Started) && e.placement) where[e.job_id] = *e.placement;
  // A new process adopts them, the waiting gang first: it must not take the others' devices.
  auto fresh = backend::SimCluster::create(clock, options("worst_fit")).value();
  std::vector<backend::AdoptedRun> runs;
  for (auto* r : {&t.c, &t.a, &t.b}) {
    backend::AdoptedRun a;
    a.request = *r;
    a.phase = r == &t.c ? backend::AdoptedRun::Phase::Admitted : backend::AdoptedRun::Phase::Running;
    a.placement = where[r->job.id];
    a.admitted_at = clock.now();
    if (r != &t.c) a.started_at = clock.now();
    runs.push_back(std::move(a));
  }
  ASSERT_TRUE(fresh->adopt(runs));
  ASSERT_TRUE(fresh->adoption_complete());
  EXPECT_TRUE(started_on(drain(*fresh)).empty());
  auto listed = fresh->list().value();
  for (const auto& w : listed) {
    if (w.job_id == t.c.job.id) {
      EXPECT_EQ(w.phase, backend::WorkloadInfo::Phase::Admitted);
    } else {
      ASSERT_TRUE(w.placement);
      EXPECT_EQ(w.placement->nodes, where[w.job_id].nodes);
      EXPECT_EQ(w.placement->devices, where[w.job_id].devices);
    }
  }
  EXPECT_EQ(fresh->waiting_for_placement().size(), 1u);
  EXPECT_EQ(fresh->gpu_pools()[0].pool->total_capacity().allocated, 2000);
}

TEST(SimPlacementTest, WithoutAPolicyTheFirstNodeWithFreeDevicesTakesEachRun) {
  ThreeSubmitted s("");
  auto& cluster = s.cluster;
  auto& t = s.t;
  auto on = started_on(s.events);
  EXPECT_EQ(on[t.a.job.id], "a100-0");
  EXPECT_EQ(on[t.b.job.id], "a100-0");
  EXPECT_EQ(on[t.c.job.id], "a100-1");
  EXPECT_TRUE(cluster->gpu_pools().empty());
}

TEST(SimPlacementTest, EveryPolicyAdmitsWhatTheQuotaAloneAdmits) {
  // The quota decides admission as without a policy: the same runs are admitted at once (a
  // policy only changes where, and so when, they start and end), and every run is admitted in
  // the end.
  auto admissions = [](const std::string& policy) {
    core::VirtualClock clock;
    auto cluster = backend::SimCluster::create(clock, options(policy)).value();
    std::vector<backend::WorkloadRequest> rs;
    for (int i = 0; i < 12; ++i) rs.push_back(sim_request(gpu_job("j" + std::to_string(i), 1 + i % 3, 100 + 50 * i), 1, i + 1));
    for (auto& r : rs) EXPECT_TRUE(cluster->submit(r));
    std::vector<std::string> first;
    std::size_t total = 0;
    for (int step = 0; step < 60; ++step) {
      for (const auto& e : drain(*cluster))
        if (e.kind == ClusterEventKind::Admitted)
          for (const auto& r : rs)
            if (r.job.id == e.job_id) {
              if (step == 0) first.push_back(r.job.name);
              ++total;
            }
      clock.advance(core::Duration::seconds(50));
    }
    return std::make_pair(first, total);
  };
  const auto base = admissions("");
  EXPECT_GE(base.first.size(), 4u);  // j0-j3: 1 + 2 + 3 + 1 GPUs of the 8 the quota allows
  EXPECT_EQ(base.second, 12u);
  for (const auto& p : gpu::policy_names()) {
    const auto got = admissions(p);
    EXPECT_EQ(got.first, base.first) << p;
    EXPECT_EQ(got.second, base.second) << p;
  }
}

TEST(SimPlacementTest, BadPlacementOptionsNameTheField) {
  core::VirtualClock clock;
  auto o = options("tightest");
  EXPECT_EQ(backend::SimCluster::create(clock, o).error().field, "placement_policy");
  o = options("fgd");
  o.inventory[0].gpu_type = "nvidia-k80";
  auto err = backend::SimCluster::create(clock, o).error();
  EXPECT_EQ(err.field, "inventory[0].gpu_model");
  EXPECT_NE(err.message.find("is not a known GPU model"), std::string::npos);
  o = options("");
  o.inventory[0].sharing = backend::GpuSharing::Fractional;
  EXPECT_EQ(backend::SimCluster::create(clock, o).error().field, "inventory[0].sharing");
  o = options("first_fit");
  o.inventory[3].mig_profile = "4g.40gb";
  o.inventory[3].mig_instances_per_gpu = 2;  // one 4g instance fits an A100-80GB
  EXPECT_EQ(backend::SimCluster::create(clock, o).error().field, "inventory[3].mig_instances_per_gpu");
  o.inventory[3].mig_instances_per_gpu = 1;
  EXPECT_TRUE(backend::SimCluster::create(clock, o));
  auto model = [](std::string type) {
    backend::NodePool p;
    p.gpu_type = std::move(type);
    return p.resolved_gpu_model();
  };
  EXPECT_EQ(model("nvidia-t4"), "T4");
  EXPECT_EQ(model("nvidia-a100-80gb"), "A100-80GB");
  EXPECT_EQ(model("nvidia-h100-sxm"), "");
}

}  // namespace
}  // namespace budcore::testing
