// MIG-aware placement against NVIDIA's rules: a free instance of the profile first; else a new
// instance at a start the profile may take, keeping every instance in use and the free ones it
// does not overlap, on the GPU that gives up the fewest; refused when the rules forbid it.
#include <gtest/gtest.h>

#include "budcore/gpu/defrag.hpp"
#include "budcore/gpu/mig_place.hpp"

namespace budcore::gpu {
namespace {

// One A100-40GB node; each GPU's layout, and which instances are in use.
Pool mig_node(const std::vector<std::vector<MigInstance>>& layouts, const std::vector<std::pair<int, std::size_t>>& used,
              std::int64_t cpu_milli = 64000) {
  Node n;
  n.name = "m0";
  n.model = "A100-40GB";
  n.cpu_milli = cpu_milli;
  n.memory_mib = 1 << 20;
  for (const auto& l : layouts) {
    Device d;
    d.sharing = Sharing::Mig;
    d.mig = l;
    n.gpus.push_back(d);
  }
  Pool pool;
  EXPECT_TRUE(pool.add_node(std::move(n)));
  for (const auto& [g, i] : used) EXPECT_TRUE(pool.allocate_mig(0, g, i));
  return pool;
}

Task cpu(std::int64_t milli) {
  Task t;
  t.name = "t";
  t.cpu_milli = milli;
  return t;
}

TEST(MigPlaceTest, AFreeInstanceOfTheProfileComesFirst) {
  Pool pool = mig_node({{{"1g.5gb", 0}, {"3g.20gb", 4}}}, {{0, 0}});
  auto p = place_mig(pool, cpu(0), "3g.20gb");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->gpu, 0);
  EXPECT_EQ(p->instance, std::optional<std::size_t>(1));
  EXPECT_TRUE(p->layout.empty());
}

TEST(MigPlaceTest, OnOneNodeOnly) {
  Pool pool = mig_node({{{"1g.5gb", 0}, {"3g.20gb", 4}}}, {});
  auto p = place_mig(pool, 0, cpu(0), "3g.20gb");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->instance, std::optional<std::size_t>(1));
  EXPECT_FALSE(place_mig(pool, 1, cpu(0), "3g.20gb"));  // the pool has one node
}

TEST(MigPlaceTest, ANewInstanceKeepsWhatIsInUseAndGivesUpOnlyFreeOverlaps) {
  // 3g.20gb starts at 0 or 4. GPU 0: 1g.5gb@0 in use blocks 0; at 4 the free 1g.5gb@4 is given
  // up. GPU 1: 1g.5gb@0 in use; at 4 nothing is given up, so GPU 1 wins.
  Pool pool = mig_node({{{"1g.5gb", 0}, {"1g.5gb", 1}, {"1g.5gb", 4}}, {{"1g.5gb", 0}}}, {{0, 0}, {1, 0}});
  auto p = place_mig(pool, cpu(0), "3g.20gb");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->gpu, 1);
  EXPECT_FALSE(p->instance);
  EXPECT_EQ(p->layout, (std::vector<MigInstance>{{"1g.5gb", 0}, {"3g.20gb", 4}}));
  EXPECT_EQ(p->dropped, 0);
  EXPECT_EQ(allocate_mig_placement(pool, cpu(0), *p).value(), 1u);
  EXPECT_EQ(pool.node(0).gpus[1].mig, p->layout);
  EXPECT_EQ(pool.node(0).gpus[1].mig_state, (std::vector<std::uint8_t>{1, 1}));
  // The next one goes to GPU 0 at slice 4, giving up the free 1g.5gb@4 and keeping 1g.5gb@1.
  auto q = place_mig(pool, cpu(0), "3g.20gb");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->gpu, 0);
  EXPECT_EQ(q->layout, (std::vector<MigInstance>{{"1g.5gb", 0}, {"1g.5gb", 1}, {"3g.20gb", 4}}));
  EXPECT_EQ(q->dropped, 1);
  EXPECT_EQ(allocate_mig_placement(pool, cpu(0), *q).value(), 2u);
  EXPECT_EQ(pool.node(0).gpus[0].mig_state, (std::vector<std::uint8_t>{1, 0, 1}));
  // A third has nowhere to go: every start of every GPU overlaps an instance in use.
  EXPECT_FALSE(place_mig(pool, cpu(0), "3g.20gb"));
}

TEST(MigPlaceTest, TheRulesRefuseWhatTheDriverWould) {
  // 4g.20gb starts only at 0; 7g.40gb needs the whole GPU.
  Pool pool = mig_node({{{"1g.5gb", 0}}}, {{0, 0}});
  EXPECT_FALSE(place_mig(pool, cpu(0), "4g.20gb"));
  EXPECT_FALSE(place_mig(pool, cpu(0), "7g.40gb"));
  // At most one 1g.5gb+me per GPU.
  Pool me = mig_node({{{"1g.5gb+me", 0}}}, {{0, 0}});
  EXPECT_FALSE(place_mig(me, cpu(0), "1g.5gb+me"));
  auto other = place_mig(me, cpu(0), "1g.5gb");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->layout.back(), (MigInstance{"1g.5gb", 1}));
  // A profile of another model, and a node without the CPU.
  EXPECT_FALSE(place_mig(pool, cpu(0), "3g.40gb"));
  Pool small = mig_node({{}}, {}, 1000);
  EXPECT_FALSE(place_mig(small, cpu(2000), "1g.5gb"));
  auto empty = place_mig(small, cpu(500), "7g.40gb");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->layout, (std::vector<MigInstance>{{"7g.40gb", 0}}));
}

TEST(MigPlaceTest, ADefragPlanCreatesTheInstanceAtNoCostWhenTheLayoutAdmitsIt) {
  auto p = parse_defrag_problem(R"({"nodes": [{"name": "m0", "model": "A100-40GB",
      "mig": [["1g.5gb@0", "1g.5gb@1", "1g.5gb@4"]]}],
    "workloads": [{"name": "h", "node": "m0", "mig": [[0, 0]]}],
    "request": {"mig_profile": "3g.20gb"}})")
               .value();
  auto plan = plan_defrag(p.pool, p.holders, p.request, p.options).value();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->kind, PlanKind::Repartition);
  EXPECT_TRUE(plan->moves.empty());
  EXPECT_DOUBLE_EQ(plan->cost_gpu_seconds, 0);
  EXPECT_EQ(plan->layout, (std::vector<MigInstance>{{"1g.5gb", 0}, {"1g.5gb", 1}, {"3g.20gb", 4}}));
  ASSERT_TRUE(apply_plan(p.pool, p.holders, p.request, *plan));
  EXPECT_EQ(p.pool.node(0).gpus[0].mig_state, (std::vector<std::uint8_t>{1, 0, 1}));
}

}  // namespace
}  // namespace budcore::gpu
