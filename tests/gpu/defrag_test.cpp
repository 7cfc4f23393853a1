// Defragmentation plans against hand-worked answers: a gang freed by moving the cheapest
// workloads, by waiting when that is cheaper, never by moving higher priority; a MIG profile
// fitted by re-partitioning one GPU; each plan applied, after which the request holds its place
// and nothing of higher priority moved.
#include <gtest/gtest.h>

#include <map>

#include "budcore/core/json.hpp"
#include "budcore/gpu/defrag.hpp"

namespace budcore::gpu {
namespace {

// Two nodes of 4 whole GPUs, 2 taken on each: n0 holds w1 (ran 100 s) and w2 (500 s), n1 holds
// w3 (priority 5) and w4. A gang of 4 GPUs at priority 1 fits nowhere.
std::string gang_problem(const std::string& w1_end = "null", const std::string& w2_end = "null", int request_priority = 1) {
  return R"({"nodes": [{"name": "n0", "model": "V100M32", "gpus": 4}, {"name": "n1", "model": "V100M32", "gpus": 4}],
    "workloads": [
      {"name": "w1", "node": "n0", "gpus": [0], "elapsed_seconds": 100, "ends_in_seconds": )" + w1_end + R"(},
      {"name": "w2", "node": "n0", "gpus": [1], "elapsed_seconds": 500, "ends_in_seconds": )" + w2_end + R"(},
      {"name": "w3", "node": "n1", "gpus": [0], "priority": 5, "elapsed_seconds": 50, "ends_in_seconds": 1000},
      {"name": "w4", "node": "n1", "gpus": [1], "elapsed_seconds": 10, "ends_in_seconds": 200}],
    "request": {"num_gpu": 4, "priority": )" + std::to_string(request_priority) + "}}";
}

TEST(DefragTest, AGangIsFreedByMovingTheCheapestWorkloadsOfOneNode) {
  auto p = parse_defrag_problem(gang_problem()).value();
  auto plan = plan_defrag(p.pool, p.holders, p.request, p.options).value();
  ASSERT_TRUE(plan);
  // n0: move w1 and w2: 1 GPU x (100 + 60) + 1 GPU x (500 + 60) = 720 GPU-seconds. n1 would
  // need w3 moved (higher priority: never); waiting on n1 takes 1000 s: 4 x 1000 = 4000.
  EXPECT_EQ(plan->kind, PlanKind::Move);
  EXPECT_EQ(plan->target.node, 0u);
  EXPECT_EQ(plan->target.gpus, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(plan->moves.size(), 2u);
  EXPECT_EQ(plan->moves[0].workload, "w1");
  EXPECT_DOUBLE_EQ(plan->moves[0].cost_gpu_seconds, 160);
  EXPECT_EQ(plan->moves[1].workload, "w2");
  EXPECT_DOUBLE_EQ(plan->moves[1].cost_gpu_seconds, 560);
  EXPECT_EQ(plan->moves[0].to.node, 1u);
  EXPECT_EQ(plan->moves[1].to.node, 1u);
  EXPECT_DOUBLE_EQ(plan->cost_gpu_seconds, 720);
  EXPECT_EQ(plan->summary, "move w1 to n1, w2 to n1; then 4 GPUs fit on n0 (cost 720 GPU-seconds)");

  // Applied: the gang holds n0, w1 and w2 run on n1, w3 (priority 5) has not moved.
  ASSERT_TRUE(apply_plan(p.pool, p.holders, p.request, *plan));
  EXPECT_EQ(p.pool.node_capacity(0).allocated, 4000);
  EXPECT_EQ(p.pool.node_capacity(1).allocated, 4000);
  for (const auto& h : p.holders) {
    if (h.name == "w3") {
      EXPECT_EQ(h.placement, (Placement{1, {0}}));
    }
    if (h.name == "w1" || h.name == "w2") {
      EXPECT_EQ(h.placement.node, 1u);
    }
  }
  // The plan does not fit twice.
  EXPECT_FALSE(apply_plan(p.pool, p.holders, p.request, *plan));
}

TEST(DefragTest, WaitingIsChosenWhenItCostsLess) {
  // w1 ends in 100 s, w2 in 150 s: waiting 150 s for both costs 4 x 150 = 600 < 720.
  auto p = parse_defrag_problem(gang_problem("100", "150")).value();
  auto plan = plan_defrag(p.pool, p.holders, p.request, p.options).value();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->kind, PlanKind::Wait);
  EXPECT_EQ(plan->target.node, 0u);
  EXPECT_EQ(plan->wait_for, (std::vector<std::string>{"w1", "w2"}));
  EXPECT_DOUBLE_EQ(plan->wait_seconds, 150);
  EXPECT_DOUBLE_EQ(plan->cost_gpu_seconds, 600);
  ASSERT_TRUE(apply_plan(p.pool, p.holders, p.request, *plan));
  EXPECT_EQ(p.holders.size(), 2u);  // w1 and w2 ended; the request is not a holder
  EXPECT_EQ(p.pool.node_capacity(0).allocated, 4000);
}

TEST(DefragTest, NothingOfHigherPriorityMoves) {
  // At priority -1 nothing may move (w1, w2, w4 are priority 0, w3 is 5), and only n1's
  // workloads have ends: waiting 1000 s on n1 for w3 and w4 costs 4000.
  auto p = parse_defrag_problem(gang_problem("null", "null", -1)).value();
  auto plan = plan_defrag(p.pool, p.holders, p.request, p.options).value();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->kind, PlanKind::Wait);
  EXPECT_EQ(plan->target.node, 1u);
  EXPECT_EQ(plan->wait_for, (std::vector<std::string>{"w4", "w3"}));
  EXPECT_DOUBLE_EQ(plan->cost_gpu_seconds, 4000);
  // Without w3's end there is no plan at all.
  std::string text = gang_problem("null", "null", -1);
  text.replace(text.find("\"ends_in_seconds\": 1000"), 23, "\"ends_in_seconds\": null");
  auto q = parse_defrag_problem(text).value();
  EXPECT_FALSE(plan_defrag(q.pool, q.holders, q.request, q.options).value());
  // A plan that would move a higher-priority workload is refused when applied.
  Plan bad;
  bad.kind = PlanKind::Move;
  bad.target = Placement{1, {0, 1, 2, 3}};
  bad.moves.push_back({"w3", 1, Placement{0, {2}}, {}, 0});
  EXPECT_FALSE(apply_plan(q.pool, q.holders, q.request, bad));
}

TEST(DefragTest, AMigProfileIsFittedByRepartitioningOneGpu) {
  // One A100-40GB node with two MIG GPUs of seven 1g.5gb instances. GPU 0: h1 on instance 0
  // (ran 100 s), h2 on instance 5 (ran 30 s). GPU 1: h3 and h4 (priority 9) on instances 0 and 4.
  // A 3g.20gb starts at slice 0 or 4: GPU 0 needs h1 or h2 moved, GPU 1 needs h3 or h4 (never).
  // Moving h2 costs 1/7 GPU x (30 + 60) s = 12.857; h1 would cost 1/7 x 160 = 22.857.
  const std::string seven = R"(["1g.5gb@0","1g.5gb@1","1g.5gb@2","1g.5gb@3","1g.5gb@4","1g.5gb@5","1g.5gb@6"])";
  auto p = parse_defrag_problem(R"({"nodes": [{"name": "m0", "model": "A100-40GB", "mig": [)" + seven + "," + seven + R"(]}],
    "workloads": [
      {"name": "h1", "node": "m0", "mig": [[0, 0]], "elapsed_seconds": 100},
      {"name": "h2", "node": "m0", "mig": [[0, 5]], "elapsed_seconds": 30},
      {"name": "h3", "node": "m0", "mig": [[1, 0]], "priority": 9},
      {"name": "h4", "node": "m0", "mig": [[1, 4]], "priority": 9}],
    "request": {"mig_profile": "3g.20gb"}})")
               .value();
  auto plan = plan_defrag(p.pool, p.holders, p.request, p.options).value();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->kind, PlanKind::Repartition);
  EXPECT_EQ(plan->gpu, 0);
  EXPECT_EQ(plan->layout, (std::vector<MigInstance>{{"1g.5gb", 0}, {"3g.20gb", 4}}));
  ASSERT_EQ(plan->moves.size(), 1u);
  EXPECT_EQ(plan->moves[0].workload, "h2");
  EXPECT_EQ(plan->moves[0].to_mig, (std::vector<std::pair<int, std::size_t>>{{1, 1}}));  // GPU 1's first free 1g.5gb
  EXPECT_NEAR(plan->cost_gpu_seconds, 90.0 / 7, 1e-9);
  ASSERT_TRUE(apply_plan(p.pool, p.holders, p.request, *plan));
  const Device& g0 = p.pool.node(0).gpus[0];
  EXPECT_EQ(g0.mig, plan->layout);
  EXPECT_EQ(g0.mig_state, (std::vector<std::uint8_t>{1, 1}));  // h1 kept, the request placed
  EXPECT_EQ(p.pool.node(0).gpus[1].mig_state[1], 1);           // h2 moved there
  EXPECT_EQ(p.pool.node(0).gpus[1].mig_state[0], 1);           // h3 untouched

  // With a free 3g.20gb already somewhere, the plan is to place it now, at no cost.
  auto q = parse_defrag_problem(R"({"nodes": [{"name": "m0", "model": "A100-40GB", "mig": [["3g.20gb@0", "3g.20gb@4"]]}],
    "request": {"mig_profile": "3g.20gb"}})")
               .value();
  auto now = plan_defrag(q.pool, q.holders, q.request, q.options).value();
  ASSERT_TRUE(now);
  EXPECT_EQ(now->kind, PlanKind::FitsNow);
  EXPECT_EQ(now->target_instance, 0u);
  EXPECT_DOUBLE_EQ(now->cost_gpu_seconds, 0);
}

// As above with h1 on instance 3: the re-partition keeps 1g.5gb@3, which becomes the new
// layout's first instance, and h1 is re-indexed to it (a workload kept in place keeps its
// instance, whatever its index).
TEST(DefragTest, ARepartitionReindexesTheInstancesItKeeps) {
  const std::string seven = R"(["1g.5gb@0","1g.5gb@1","1g.5gb@2","1g.5gb@3","1g.5gb@4","1g.5gb@5","1g.5gb@6"])";
  auto p = parse_defrag_problem(R"({"nodes": [{"name": "m0", "model": "A100-40GB", "mig": [)" + seven + "," + seven + R"(]}],
    "workloads": [
      {"name": "h1", "node": "m0", "mig": [[0, 3]], "elapsed_seconds": 100},
      {"name": "h2", "node": "m0", "mig": [[0, 5]], "elapsed_seconds": 30},
      {"name": "h3", "node": "m0", "mig": [[1, 0]], "priority": 9},
      {"name": "h4", "node": "m0", "mig": [[1, 4]], "priority": 9}],
    "request": {"mig_profile": "3g.20gb"}})")
               .value();
  auto plan = plan_defrag(p.pool, p.holders, p.request, p.options).value();
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->kind, PlanKind::Repartition);
  EXPECT_EQ(plan->layout, (std::vector<MigInstance>{{"1g.5gb", 3}, {"3g.20gb", 4}}));
  ASSERT_TRUE(apply_plan(p.pool, p.holders, p.request, *plan));
  std::map<std::string, std::vector<std::pair<int, std::size_t>>> held;
  for (const auto& h : p.holders) held[h.name] = h.mig;
  EXPECT_EQ(held["h1"], (std::vector<std::pair<int, std::size_t>>{{0, 0}}));
  EXPECT_EQ(held["h2"], (std::vector<std::pair<int, std::size_t>>{{1, 1}}));
  EXPECT_EQ(held["h3"], (std::vector<std::pair<int, std::size_t>>{{1, 0}}));
  for (const auto& [name, mig] : held)
    for (const auto& [g, i] : mig) EXPECT_EQ(p.pool.node(0).gpus[static_cast<std::size_t>(g)].mig_state[i], 1) << name;
  EXPECT_EQ(plan->target_instance, 1u);
}

TEST(DefragTest, TheDocumentAndBadInputNameTheField) {
  auto p = parse_defrag_problem(gang_problem()).value();
  p.apply = true;
  auto doc = defrag_document(p).value();
  EXPECT_EQ(doc.find("plan")->find("kind")->as_string(), "move");
  EXPECT_EQ(doc.find("plan")->find("node")->as_string(), "n0");
  EXPECT_EQ(doc.find("plan")->find("cost_gpu_seconds")->as_float(), 720);
  EXPECT_TRUE(doc.find("applied")->as_bool());
  EXPECT_EQ(doc.find("workloads")->as_list().back().find("node")->as_string(), "n0");

  auto err = [](const std::string& json) { return parse_defrag_problem(json).error().field; };
  EXPECT_EQ(err(R"({"nodes": [{"name": "n0", "model": "K80", "gpus": 1}], "request": {"num_gpu": 1}})"), "nodes[0].model");
  EXPECT_EQ(err(R"({"nodes": [{"name": "n0", "model": "T4", "gpus": -1}], "request": {"num_gpu": 1}})"), "nodes[0].gpus");
  EXPECT_EQ(err(R"({"nodes": [{"name": "m", "model": "A100-40GB", "mig": [["3g.20gb@0", "2g.10gb@2"]]}], "request": {"num_gpu": 1}})"),
            "nodes[0].gpus[0].mig[1]");
  EXPECT_EQ(err(R"({"nodes": [{"name": "n0", "model": "T4", "gpus": 1}],
                   "workloads": [{"name": "a", "node": "n0", "gpus": [3]}], "request": {"num_gpu": 1}})"),
            "workloads[0].gpus[0]");
  EXPECT_EQ(err(R"({"nodes": [{"name": "n0", "model": "T4", "gpus": 1}], "request": {"num_gpu": 1, "gpu_milli": 1500}})"),
            "request.gpu_milli");
  EXPECT_EQ(err(R"({"nodes": [{"name": "n0", "model": "T4", "gpus": 1}], "request": {}})"), "request.num_gpu");
  EXPECT_EQ(err(R"({"nodes": [{"name": "n0", "model": "T4", "gpus": 1}], "request": {"num_gpu": 1}, "oops": 1})"), "problem.oops");
  // Text that is not JSON: the whole problem, or where in it the JSON broke.
  EXPECT_EQ(err(""), "problem");
  EXPECT_EQ(err("{"), "problem");
  EXPECT_EQ(err(R"({"nodes": [{"name": "n0", "gpus": 99999999999999999999}]})"), "nodes[0].gpus");
}

}  // namespace
}  // namespace budcore::gpu
