// budcore::pipeline::Dag — a directed graph over step indices 0..n-1 (edge u -> v: v depends
// on u), stored as a Boost.Graph compressed sparse row graph, with the algorithms validation
// and planning need. Deterministic: every result depends only on the nodes and edges given.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "budcore/export.h"

namespace budcore::pipeline {

class BUDCORE_API Dag {
 public:
  using Node = std::uint32_t;
  using Edge = std::pair<Node, Node>;

  // Duplicate edges are allowed (they change no result); self-loops are cycles.
  Dag(std::size_t node_count, std::vector<Edge> edges);
  ~Dag();
  Dag(Dag&&) noexcept;
  Dag& operator=(Dag&&) noexcept;

  std::size_t node_count() const noexcept;
  std::size_t edge_count() const noexcept;
  // Successors / predecessors in ascending node order.
  std::vector<Node> successors(Node v) const;
  std::vector<Node> predecessors(Node v) const;

  // Longest chain of edges from a source to each node (Kahn's algorithm). Nodes on or behind
  // a cycle get -1; has_cycle() tells whether any did.
  const std::vector<std::int32_t>& levels() const noexcept;
  bool has_cycle() const noexcept;

  // Every cycle: one per strongly connected component with more than one node or with a
  // self-loop. Each cycle starts at its component's smallest node and follows edges back to
  // it by a shortest path (ties: smaller node first); cycles are ordered by first node.
  std::vector<std::vector<Node>> cycles() const;

  // True when a path of one or more edges leads from `ancestor` to `node`.
  bool is_ancestor(Node ancestor, Node node) const;
  // Marks every ancestor of `node` (mark[a] = true); used to answer many queries at once.
  void ancestors(Node node, std::vector<bool>& mark) const;

  // The path with the largest sum of node weights (weights >= 0), source to sink. Ties: more
  // edges first, then the smaller node at each choice (the end node, then predecessors).
  // Empty for an empty graph; requires !has_cycle().
  std::vector<Node> longest_path(const std::vector<double>& weights, double* total = nullptr) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace budcore::pipeline
