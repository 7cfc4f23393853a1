// The placement policies on hand-made clusters whose best placement is known.
#include <gtest/gtest.h>

#include <set>

#include "budcore/gpu/policy.hpp"

namespace budcore::gpu {
namespace {

Node node(std::string name, std::vector<int> used, std::int64_t cpu = 32000, std::string model = "T4") {
  Node n{std::move(name), std::move(model), cpu, 65536};
  for (int u : used) {
    Device d;
    d.milli_used = u;
    n.gpus.push_back(d);
  }
  return n;
}

std::unique_ptr<Policy> policy(std::string_view name, PolicyOptions options = {}) {
  auto p = make_policy(name, options);
  EXPECT_TRUE(p) << name;
  return std::move(*p);
}

TEST(PolicyTest, EveryNameMakesItsPolicyAndUnknownNamesAreRefused) {
  PolicyOptions o;
  o.workload = Workload::from_tasks({{"t", 1000, 0, 1, 500, {}}});
  for (const auto& n : policy_names()) EXPECT_EQ(policy(n, o)->name(), n);
  auto bad = make_policy("tetris");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "policy");
  EXPECT_EQ(bad.error().value, "tetris");
  EXPECT_EQ(make_policy("fgd").error().field, "workload");
}

TEST(PolicyTest, FirstFitTakesTheFirstNodeThatFits) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("small", {0}, 2000)));
  ASSERT_TRUE(pool.add_node(node("a", {0, 0})));
  ASSERT_TRUE(pool.add_node(node("b", {0, 0})));
  auto p = policy("first_fit")->place(pool, {"t", 4000, 0, 1, 500, {}});
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (Placement{1, {0}}));
}

TEST(PolicyTest, BestFitFillsTheTightestGapAndWorstFitTheLargest) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("free", {0, 0})));
  ASSERT_TRUE(pool.add_node(node("busy", {0, 700})));
  Task t{"t", 1000, 0, 1, 300, {}};
  EXPECT_EQ(*policy("best_fit")->place(pool, t), (Placement{1, {1}}));
  EXPECT_EQ(*policy("worst_fit")->place(pool, t), (Placement{0, {0}}));
}

TEST(PolicyTest, BinpackPrefersTheNodeItsRequestFillsMost) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("idle", {0, 0})));
  ASSERT_TRUE(pool.add_node(node("half", {1000, 0})));
  ASSERT_TRUE(pool.allocate({"x", 16000, 0, 0, 0, {}}, {1, {}}));
  EXPECT_EQ(*policy("binpack")->place(pool, {"t", 4000, 1024, 1, 1000, {}}), (Placement{1, {1}}));
}

TEST(PolicyTest, GpuPackingSharesAUsedGpuBeforeOpeningAFreeOne) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("free", {0, 0})));
  ASSERT_TRUE(pool.add_node(node("used", {0, 500})));
  ASSERT_TRUE(pool.add_node(node("fuller", {0, 800})));
  EXPECT_EQ(*policy("gpu_packing")->place(pool, {"t", 1000, 0, 1, 200, {}}), (Placement{2, {1}}));
  // A whole GPU: a used node's free GPU before a free node.
  EXPECT_EQ(*policy("gpu_packing")->place(pool, {"t", 1000, 0, 1, 1000, {}}), (Placement{1, {0}}));
}

TEST(PolicyTest, GpuClusteringGroupsTasksOfTheSameShare) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("a", {0, 0})));
  ASSERT_TRUE(pool.add_node(node("b", {0, 0})));
  ASSERT_TRUE(pool.allocate({"x", 1000, 0, 1, 500, {}}, {0, {0}}));
  ASSERT_TRUE(pool.allocate({"y", 1000, 0, 1, 250, {}}, {1, {0}}));
  EXPECT_EQ(policy("gpu_clustering")->place(pool, {"t", 1000, 0, 1, 250, {}})->node, 1u);
  EXPECT_EQ(policy("gpu_clustering")->place(pool, {"t", 1000, 0, 1, 500, {}})->node, 0u);
}

TEST(PolicyTest, RandomIsSeededAndOnlyPicksNodesThatFit) {
  Pool pool;
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(pool.add_node(node("n" + std::to_string(i), {0}, i % 2 == 0 ? 32000 : 1000)));
  Task t{"t", 4000, 0, 1, 100, {}};
  PolicyOptions o;
  o.seed = 7;
  auto a = policy("random", o), b = policy("random", o);
  std::set<std::size_t> seen;
  for (int k = 0; k < 50; ++k) {
    auto pa = a->place(pool, t), pb = b->place(pool, t);
    ASSERT_TRUE(pa && pb);
    EXPECT_EQ(*pa, *pb);
    EXPECT_EQ(pa->node % 2, 0u);
    seen.insert(pa->node);
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST(PolicyTest, PoliciesHonourTheGpuModelAndReportNoPlacement) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("t4", {0})));
  ASSERT_TRUE(pool.add_node(node("p100", {0}, 32000, "P100")));
  PolicyOptions o;
  o.workload = Workload::from_tasks({{"t", 1000, 0, 1, 500, {"P100"}}});
  for (const auto& n : policy_names()) {
    auto p = policy(n, o);
    EXPECT_EQ(p->place(pool, {"t", 1000, 0, 1, 500, {"P100"}})->node, 1u) << n;
    EXPECT_FALSE(p->place(pool, {"t", 1000, 0, 2, 1000, {}})) << n;
  }
}

TEST(PolicyTest, FgdClosesTheGapThatWouldOtherwiseBeLost) {
  // Half the tasks want a whole GPU, half 700 milli-GPU. A 300 share on B's 300 gap leaves no
  // fragment; anywhere else a GPU becomes too small for both kinds.
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("A", {0, 0})));
  ASSERT_TRUE(pool.add_node(node("B", {0, 700})));
  PolicyOptions o;
  o.workload = Workload::from_tasks({{"w", 1000, 0, 1, 1000, {}}, {"s", 1000, 0, 1, 700, {}}});
  EXPECT_EQ(*policy("fgd", o)->place(pool, {"t", 1000, 0, 1, 300, {}}), (Placement{1, {1}}));
}

TEST(PolicyTest, FgdKeepsAGpuBigEnoughForTheCommonShareWhereBestFitDoesNot) {
  // Tasks want 700 or 500. A 200 share on the half-used GPU leaves 300 (too small for both);
  // on the free GPU it leaves 800, still good for both: FGD takes the free GPU.
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("A", {0, 500})));
  PolicyOptions o;
  o.workload = Workload::from_tasks({{"a", 1000, 0, 1, 700, {}}, {"b", 1000, 0, 1, 500, {}}});
  Task t{"t", 1000, 0, 1, 200, {}};
  EXPECT_EQ(*policy("fgd", o)->place(pool, t), (Placement{0, {0}}));
  EXPECT_EQ(*policy("best_fit", o)->place(pool, t), (Placement{0, {1}}));
}

TEST(PolicyTest, FgdSeesANodeChangeAfterItsLastDecision) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("A", {0})));
  ASSERT_TRUE(pool.add_node(node("B", {0})));
  PolicyOptions o;
  o.workload = Workload::from_tasks({{"s", 1000, 0, 1, 500, {}}});
  auto fgd = policy("fgd", o);
  Task t{"t", 1000, 0, 1, 500, {}};
  auto first = fgd->place(pool, t);
  ASSERT_TRUE(first);
  ASSERT_TRUE(pool.allocate(t, *first));
  // The half-used GPU takes the second half (no fragment either way, the first node wins).
  auto second = fgd->place(pool, t);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->node, first->node);
  ASSERT_TRUE(pool.allocate(t, *second));
  EXPECT_EQ(fgd->place(pool, t)->node, 1 - first->node);
}

TEST(PolicyTest, EveryPolicyPlacesExactlyWhenSomeNodeFitsAcrossSharingModes) {
  // Whole, time-sliced and fractional GPUs side by side, filled task by task: each policy's
  // answer agrees with Pool::fits and each placement it returns is accepted by the pool.
  std::vector<Task> mix = {{"share", 2000, 1024, 1, 300, {}}, {"one", 4000, 2048, 1, 1000, {}},
                           {"two", 8000, 4096, 2, 1000, {}},  {"cpu", 6000, 1024, 0, 0, {}},
                           {"p100", 2000, 1024, 1, 600, {"P100"}}};
  PolicyOptions o;
  o.workload = Workload::from_tasks(mix);
  for (const auto& name : policy_names()) {
    Pool pool;
    Node whole{"whole", "T4", 32000, 65536};
    Device w;
    w.sharing = Sharing::Whole;
    whole.gpus = {w, w};
    Node sliced{"sliced", "T4", 32000, 65536};
    Device ts;
    ts.sharing = Sharing::TimeSlice;
    ts.replicas = 3;
    sliced.gpus = {ts};
    ASSERT_TRUE(pool.add_node(whole));
    ASSERT_TRUE(pool.add_node(sliced));
    ASSERT_TRUE(pool.add_node(node("frac", {0, 0}, 16000, "P100")));
    auto p = policy(name, o);
    int placed = 0;
    for (int k = 0; k < 40; ++k) {
      const Task& t = mix[static_cast<std::size_t>(k) % mix.size()];
      bool any = false;
      for (std::size_t i = 0; i < pool.size(); ++i) any = any || pool.fits(t, pool.model_mask(t), i);
      auto where = p->place(pool, t);
      ASSERT_EQ(where.has_value(), any) << name << " task " << k;
      if (where) {
        ASSERT_TRUE(pool.allocate(t, *where)) << name << " task " << k;
        ++placed;
      }
    }
    EXPECT_GT(placed, 5) << name;
    EXPECT_LT(placed, 40) << name;
  }
}

}  // namespace
}  // namespace budcore::gpu
