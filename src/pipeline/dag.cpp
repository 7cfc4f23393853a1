// Dag on a Boost.Graph compressed_sparse_row_graph (bidirectional: successors and
// predecessors). CSR keeps 100k nodes / 300k edges in a few flat arrays.
#include "budcore/pipeline/dag.hpp"

#include <algorithm>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/strong_components.hpp>
#include <boost/range/iterator_range.hpp>
#include <deque>
#include <stdexcept>

namespace budcore::pipeline {

// 32-bit vertex and edge indices: half the memory of the size_t default.
using Csr = boost::compressed_sparse_row_graph<boost::bidirectionalS, boost::no_property, boost::no_property,
                                              boost::no_property, std::uint32_t, std::uint32_t>;

struct BUDCORE_HIDDEN Dag::Impl {
  Csr g;
  std::vector<std::int32_t> levels;
  bool has_cycle = false;
  bool self_loop = false;
};

namespace {

// Per-thread visit stamps so ancestor queries stay O(visited) instead of O(n) each.
struct Stamps {
  std::vector<std::uint32_t> mark;
  std::uint32_t gen = 0;
  std::uint32_t next(std::size_t n) {
    if (mark.size() < n) mark.assign(n, 0), gen = 0;
    if (++gen == 0) std::fill(mark.begin(), mark.end(), 0), gen = 1;
    return gen;
  }
};
thread_local Stamps tl_stamps;

}  // namespace

Dag::Dag(std::size_t node_count, std::vector<Edge> edges) : impl_(std::make_unique<Impl>()) {
  for (const auto& [u, v] : edges) {
    if (u >= node_count || v >= node_count) throw std::out_of_range("Dag edge names a node out of range");
    if (u == v) impl_->self_loop = true;
  }
  impl_->g = Csr(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), node_count);

  // Kahn's algorithm: level = longest chain of edges from a source.
  const auto n = node_count;
  std::vector<std::uint32_t> indegree(n, 0);
  for (std::size_t v = 0; v < n; ++v) indegree[v] = static_cast<std::uint32_t>(boost::in_degree(static_cast<std::uint32_t>(v), impl_->g));
  impl_->levels.assign(n, -1);
  std::vector<Node> queue;
  queue.reserve(n);
  for (std::size_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) {
      queue.push_back(static_cast<Node>(v));
      impl_->levels[v] = 0;
    }
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    Node u = queue[head];
    for (auto e : boost::make_iterator_range(boost::out_edges(u, impl_->g))) {
      Node v = static_cast<Node>(boost::target(e, impl_->g));
      impl_->levels[v] = std::max(impl_->levels[v], impl_->levels[u] + 1);
      if (--indegree[v] == 0) queue.push_back(v);
    }
  }
  if (queue.size() != n) {
    impl_->has_cycle = true;
    for (std::size_t v = 0; v < n; ++v) {
      if (indegree[v] != 0) impl_->levels[v] = -1;
    }
  }
}

Dag::~Dag() = default;
Dag::Dag(Dag&&) noexcept = default;
Dag& Dag::operator=(Dag&&) noexcept = default;

std::size_t Dag::node_count() const noexcept { return boost::num_vertices(impl_->g); }
std::size_t Dag::edge_count() const noexcept { return boost::num_edges(impl_->g); }

std::vector<Dag::Node> Dag::successors(Node v) const {
  std::vector<Node> out;
  for (auto e : boost::make_iterator_range(boost::out_edges(v, impl_->g)))
    out.push_back(static_cast<Node>(boost::target(e, impl_->g)));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Dag::Node> Dag::predecessors(Node v) const {
  std::vector<Node> out;
  for (auto e : boost::make_iterator_range(boost::in_edges(v, impl_->g)))
    out.push_back(static_cast<Node>(boost::source(e, impl_->g)));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const std::vector<std::int32_t>& Dag::levels() const noexcept { return impl_->levels; }
bool Dag::has_cycle() const noexcept { return impl_->has_cycle; }

std::vector<std::vector<Dag::Node>> Dag::cycles() const {
  std::vector<std::vector<Node>> out;
  if (!impl_->has_cycle) return out;
  const auto& g = impl_->g;
  const std::size_t n = node_count();
  std::vector<std::size_t> comp(n);
  std::size_t count = boost::strong_components(g, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, g)));
  std::vector<std::size_t> size(count, 0);
  std::vector<Node> first(count, static_cast<Node>(n));
  for (std::size_t v = 0; v < n; ++v) {
    ++size[comp[v]];
    first[comp[v]] = std::min(first[comp[v]], static_cast<Node>(v));
  }
  std::vector<Node> starts;
  for (std::size_t c = 0; c < count; ++c) {
    Node s = first[c];
    bool self = boost::edge(s, s, g).second;
    if (size[c] > 1 || self) starts.push_back(s);
  }
  std::sort(starts.begin(), starts.end());
  std::vector<Node> parent(n);
  std::vector<std::uint8_t> seen(n, 0);
  for (Node s : starts) {
    if (boost::edge(s, s, g).second) {
      out.push_back({s});
      continue;
    }
    // BFS inside the component from s until an edge returns to s: the shortest cycle through s.
    std::deque<Node> q{s};
    std::vector<Node> touched{s};
    seen[s] = 1;
    Node last = s;
    bool found = false;
    while (!q.empty() && !found) {
      Node u = q.front();
      q.pop_front();
      for (Node v : successors(u)) {  // ascending, so the cycle found is deterministic
        if (comp[v] != comp[s]) continue;
        if (v == s) {
          last = u;
          found = true;
          break;
        }
        if (!seen[v]) {
          seen[v] = 1;
          touched.push_back(v);
          parent[v] = u;
          q.push_back(v);
        }
      }
    }
    std::vector<Node> cycle;
    for (Node v = last; v != s; v = parent[v]) cycle.push_back(v);
    cycle.push_back(s);
    std::reverse(cycle.begin(), cycle.end());
    out.push_back(std::move(cycle));
    for (Node v : touched) seen[v] = 0;
  }
  return out;
}

bool Dag::is_ancestor(Node ancestor, Node node) const {
  const auto& g = impl_->g;
  const auto& lv = impl_->levels;
  const bool prune = !impl_->has_cycle;
  if (prune && lv[ancestor] >= lv[node]) return false;
  for (auto e : boost::make_iterator_range(boost::in_edges(node, g))) {
    if (boost::source(e, g) == ancestor) return true;
  }
  // Backward DFS; in a DAG only nodes above the ancestor's level can lead to it.
  std::uint32_t stamp = tl_stamps.next(node_count());
  auto& mark = tl_stamps.mark;
  std::vector<Node> stack{node};
  mark[node] = stamp;
  while (!stack.empty()) {
    Node v = stack.back();
    stack.pop_back();
    for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) {
      Node u = static_cast<Node>(boost::source(e, g));
      if (u == ancestor) return true;
      if (mark[u] == stamp || (prune && lv[u] <= lv[ancestor])) continue;
      mark[u] = stamp;
      stack.push_back(u);
    }
  }
  return false;
}

void Dag::ancestors(Node node, std::vector<bool>& mark) const {
  const auto& g = impl_->g;
  mark.assign(node_count(), false);
  std::vector<Node> stack{node};
  while (!stack.empty()) {
    Node v = stack.back();
    stack.pop_back();
    for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) {
      Node u = static_cast<Node>(boost::source(e, g));
      if (mark[u]) continue;
      mark[u] = true;
      stack.push_back(u);
    }
  }
}

std::vector<Dag::Node> Dag::longest_path(const std::vector<double>& weights, double* total) const {
  if (impl_->has_cycle) throw std::logic_error("Dag::longest_path on a graph with a cycle");
  const auto& g = impl_->g;
  const auto& lv = impl_->levels;
  const std::size_t n = node_count();
  if (total) *total = 0;
  if (n == 0) return {};
  // Visit nodes by level (every predecessor has a smaller level): counting sort.
  std::int32_t max_level = *std::max_element(lv.begin(), lv.end());
  std::vector<std::uint32_t> start(static_cast<std::size_t>(max_level) + 2, 0);
  for (auto l : lv) ++start[static_cast<std::size_t>(l) + 1];
  for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  std::vector<Node> order(n);
  for (std::size_t v = 0; v < n; ++v) order[start[static_cast<std::size_t>(lv[v])]++] = static_cast<Node>(v);

  constexpr Node kNone = static_cast<Node>(-1);
  std::vector<double> dist(n);
  std::vector<std::uint32_t> hops(n, 0);
  std::vector<Node> best(n, kNone);
  auto better = [&](Node a, Node b) {  // a beats b as a path end / predecessor
    if (dist[a] != dist[b]) return dist[a] > dist[b];
    if (hops[a] != hops[b]) return hops[a] > hops[b];
    return a < b;
  };
  for (Node v : order) {
    Node b = kNone;
    for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) {
      Node u = static_cast<Node>(boost::source(e, g));
      if (b == kNone || better(u, b)) b = u;
    }
    best[v] = b;
    dist[v] = weights[v] + (b == kNone ? 0.0 : dist[b]);
    hops[v] = b == kNone ? 0 : hops[b] + 1;
  }
  Node end = 0;
  for (Node v = 1; v < n; ++v) {
    if (better(v, end)) end = v;
  }
  std::vector<Node> path;
  for (Node v = end; v != kNone; v = best[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  if (total) *total = dist[end];
  return path;
}

}  // namespace budcore::pipeline
