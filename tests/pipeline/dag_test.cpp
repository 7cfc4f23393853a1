#include "budcore/pipeline/dag.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace budcore::pipeline {
namespace {

using Nodes = std::vector<Dag::Node>;

TEST(DagTest, LevelsAreLongestEdgeChains) {
  // 0 -> 1 -> 3, 0 -> 3, 2 (isolated), 1 -> 4
  Dag dag(5, {{0, 1}, {1, 3}, {0, 3}, {1, 4}});
  EXPECT_FALSE(dag.has_cycle());
  EXPECT_EQ(dag.levels(), (std::vector<std::int32_t>{0, 1, 0, 2, 2}));
  EXPECT_EQ(dag.successors(0), (Nodes{1, 3}));
  EXPECT_EQ(dag.predecessors(3), (Nodes{0, 1}));
  EXPECT_EQ(dag.edge_count(), 4u);
}

TEST(DagTest, DuplicateEdgesChangeNothing) {
  Dag dag(3, {{0, 1}, {0, 1}, {1, 2}, {1, 2}});
  EXPECT_EQ(dag.levels(), (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(dag.predecessors(1), (Nodes{0}));
  EXPECT_TRUE(dag.is_ancestor(0, 2));
}

TEST(DagTest, AncestorQueries) {
  Dag dag(6, {{0, 1}, {1, 2}, {3, 2}, {4, 5}});
  EXPECT_TRUE(dag.is_ancestor(0, 2));
  EXPECT_TRUE(dag.is_ancestor(3, 2));
  EXPECT_FALSE(dag.is_ancestor(2, 0));
  EXPECT_FALSE(dag.is_ancestor(4, 2));
  EXPECT_FALSE(dag.is_ancestor(2, 2));
  std::vector<bool> mark;
  dag.ancestors(2, mark);
  EXPECT_EQ(mark, (std::vector<bool>{true, true, false, true, false, false}));
}

TEST(DagTest, CyclesOnePerComponentInEdgeOrder) {
  // 0 -> 1 -> 2 -> 0 (component {0,1,2}), 3 self-loop, 4 -> 5 -> 4, 6 acyclic behind them.
  Dag dag(7, {{0, 1}, {1, 2}, {2, 0}, {3, 3}, {5, 4}, {4, 5}, {2, 6}});
  EXPECT_TRUE(dag.has_cycle());
  auto cycles = dag.cycles();
  ASSERT_EQ(cycles.size(), 3u);
  EXPECT_EQ(cycles[0], (Nodes{0, 1, 2}));
  EXPECT_EQ(cycles[1], (Nodes{3}));
  EXPECT_EQ(cycles[2], (Nodes{4, 5}));
  EXPECT_EQ(dag.levels()[6], -1);  // behind a cycle: no level
}

TEST(DagTest, CycleIsShortestThroughSmallestNode) {
  // Component {0,1,2,3}: 0->1->2->3->0 and a shortcut 1->0.
  Dag dag(4, {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {1, 0}});
  auto cycles = dag.cycles();
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0], (Nodes{0, 1}));
}

TEST(DagTest, AncestorsWithCyclesStillAnswer) {
  Dag dag(4, {{0, 1}, {1, 0}, {1, 2}});
  EXPECT_TRUE(dag.is_ancestor(0, 2));
  EXPECT_FALSE(dag.is_ancestor(2, 0));
}

TEST(DagTest, LongestPathByWeightThenEdgesThenInputOrder) {
  // 0 -> 2, 1 -> 2, 2 -> 3; weights make 1 the heavier source.
  Dag dag(4, {{0, 2}, {1, 2}, {2, 3}});
  double total = 0;
  EXPECT_EQ(dag.longest_path({5, 7, 1, 2}, &total), (Nodes{1, 2, 3}));
  EXPECT_EQ(total, 10);
  // Equal weights: the earlier source wins.
  EXPECT_EQ(dag.longest_path({7, 7, 1, 2}, &total), (Nodes{0, 2, 3}));
  // All zero: the path with most edges, earliest node first.
  Dag chain(5, {{0, 1}, {1, 2}, {3, 4}});
  EXPECT_EQ(chain.longest_path({0, 0, 0, 0, 0}, &total), (Nodes{0, 1, 2}));
  EXPECT_EQ(total, 0);
}

TEST(DagTest, LongestPathEdgeCases) {
  Dag empty(0, {});
  EXPECT_TRUE(empty.longest_path({}).empty());
  Dag single(1, {});
  EXPECT_EQ(single.longest_path({3}), (Nodes{0}));
  Dag cyclic(2, {{0, 1}, {1, 0}});
  EXPECT_THROW(cyclic.longest_path({1, 1}), std::logic_error);
  EXPECT_THROW(Dag(2, {{0, 5}}), std::out_of_range);
}

}  // namespace
}  // namespace budcore::pipeline
