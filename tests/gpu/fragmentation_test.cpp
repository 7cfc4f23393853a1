// The fragmentation measure and the cluster metrics on hand-made nodes, values worked by hand.
#include <gtest/gtest.h>

#include "budcore/gpu/fragmentation.hpp"

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

TEST(FragmentationTest, ForOneTask) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("a", {0, 700, 400})));
  // A 500 share: only the 300 left on GPU 1 is too small. A whole GPU: both partly used GPUs.
  EXPECT_DOUBLE_EQ(node_fragmentation(pool, 0, Task{"s", 1000, 0, 1, 500, {}}), 300);
  EXPECT_DOUBLE_EQ(node_fragmentation(pool, 0, Task{"w", 1000, 0, 1, 1000, {}}), 900);
  // Two whole GPUs do not fit: all 1,900 free is lost to that task.
  EXPECT_DOUBLE_EQ(node_fragmentation(pool, 0, Task{"w2", 1000, 0, 2, 1000, {}}), 1900);
  // No CPU for it, or the wrong model: all of it too; a CPU-only task can use no GPU at all.
  EXPECT_DOUBLE_EQ(node_fragmentation(pool, 0, Task{"c", 64000, 0, 1, 100, {}}), 1900);
  EXPECT_DOUBLE_EQ(node_fragmentation(pool, 0, Task{"m", 1000, 0, 1, 100, {"P100"}}), 1900);
  EXPECT_DOUBLE_EQ(node_fragmentation(pool, 0, Task{"cpu", 1000, 0, 0, 0, {}}), 1900);
}

TEST(FragmentationTest, ExpectedOverTheWorkloadsTaskMix) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("a", {0, 700, 400})));
  // Three 500-share tasks and one whole-GPU task: 0.75 x 300 + 0.25 x 900.
  Workload w = Workload::from_tasks({{"s1", 1000, 0, 1, 500, {}},
                                     {"s2", 1000, 0, 1, 500, {}},
                                     {"s3", 1000, 0, 1, 500, {}},
                                     {"w", 1000, 0, 1, 1000, {}}});
  ASSERT_EQ(w.types().size(), 2u);
  EXPECT_DOUBLE_EQ(w.types()[0].weight, 0.75);
  EXPECT_DOUBLE_EQ(node_fragmentation(pool, 0, w), 450);
}

TEST(FragmentationTest, ClusterReportAndLargestGang) {
  Pool pool;
  ASSERT_TRUE(pool.add_node(node("a", {0, 0, 0, 1000})));
  ASSERT_TRUE(pool.add_node(node("b", {0, 500})));
  Workload w = Workload::from_tasks({{"w", 1000, 0, 1, 1000, {}}});
  FragmentationReport r = measure(pool, w);
  EXPECT_EQ(r.total_milli, 6000);
  EXPECT_EQ(r.free_milli, 4500);
  EXPECT_DOUBLE_EQ(r.unallocated_share, 0.75);
  EXPECT_DOUBLE_EQ(r.fragmentation_milli, 500);  // b's half GPU cannot take a whole-GPU task
  EXPECT_DOUBLE_EQ(r.fragmentation_share, 500.0 / 4500.0);
  EXPECT_EQ(r.largest_gang_node, 3);
  EXPECT_EQ(r.largest_gang_cluster, 4);
}

}  // namespace
}  // namespace budcore::gpu
