// The cohort-tree quota math of Kueue's pkg/cache/scheduler/resource_node.go, on dense arrays.
#include <algorithm>

#include "quota/engine_impl.hpp"

namespace budcore::quota {

using Impl = AdmissionEngine::Impl;

Amount Impl::local_quota(int n, int fr) const {
  const Node& node = nodes[n];
  Amount ll = node.lending_limit[fr];
  if (ll == kNoLimit) return 0;
  return std::max<Amount>(0, sat_sub(node.subtree[fr], ll));
}

Amount Impl::local_available(int n, int fr) const {
  return std::max<Amount>(0, sat_sub(local_quota(n, fr), nodes[n].usage[fr]));
}

Amount Impl::available(int n, int fr) const {
  const Node& node = nodes[n];
  if (node.parent < 0) return sat_sub(node.subtree[fr], node.usage[fr]);
  Amount parent_avail = available(node.parent, fr);
  if (node.borrowing_limit[fr] != kNoLimit) {
    Amount lq = local_quota(n, fr);
    Amount stored_in_parent = sat_sub(node.subtree[fr], lq);
    Amount used_in_parent = std::max<Amount>(0, sat_sub(node.usage[fr], lq));
    Amount with_max = sat_add(sat_sub(stored_in_parent, used_in_parent), node.borrowing_limit[fr]);
    parent_avail = std::min(with_max, parent_avail);
  }
  return sat_add(local_available(n, fr), parent_avail);
}

Amount Impl::cq_available(int cq, int fr) const { return std::max<Amount>(0, available(cqs[cq].node, fr)); }

Amount Impl::potential_available(int n, int fr) const {
  const Node& node = nodes[n];
  if (node.parent < 0) return node.subtree[fr];
  Amount avail = sat_add(local_quota(n, fr), potential_available(node.parent, fr));
  if (node.borrowing_limit[fr] != kNoLimit) avail = std::min(avail, sat_add(node.subtree[fr], node.borrowing_limit[fr]));
  return avail;
}

void Impl::add_usage(int n, int fr, Amount v) {
  Amount la = local_available(n, fr);
  nodes[n].usage[fr] = sat_add(nodes[n].usage[fr], v);
  if (nodes[n].parent >= 0 && v > la) add_usage(nodes[n].parent, fr, sat_sub(v, la));
}

void Impl::remove_usage(int n, int fr, Amount v) {
  Amount stored_in_parent = sat_sub(nodes[n].usage[fr], local_quota(n, fr));
  nodes[n].usage[fr] = sat_sub(nodes[n].usage[fr], v);
  if (stored_in_parent <= 0 || nodes[n].parent < 0) return;
  remove_usage(nodes[n].parent, fr, std::min(v, stored_in_parent));
}

void Impl::add_usage_list(int cq, const std::vector<std::pair<int, Amount>>& u) {
  for (const auto& [fr, v] : u) add_usage(cqs[cq].node, fr, v);
}
void Impl::remove_usage_list(int cq, const std::vector<std::pair<int, Amount>>& u) {
  for (const auto& [fr, v] : u) remove_usage(cqs[cq].node, fr, v);
}
void Impl::add_wl_usage(int w) { add_usage_list(wls[w].adm_cq, wls[w].usage); }
void Impl::remove_wl_usage(int w) { remove_usage_list(wls[w].adm_cq, wls[w].usage); }

bool Impl::cq_borrowing_with(int cq, int fr, Amount v) const {
  const Node& node = nodes[cqs[cq].node];
  return node.nominal[fr] < sat_add(node.usage[fr], v);
}

bool Impl::node_borrowing_with(int n, int fr, Amount v) const {
  const Node& node = nodes[n];
  return node.subtree[fr] < sat_add(node.usage[fr], v);
}

int Impl::node_height(int cohort) const {
  const Node& node = nodes[cohort];
  int h = (node.child_cqs.size() + node.child_cohorts.size()) > 0 ? 1 : 0;
  for (int c : node.child_cohorts) h = std::max(h, node_height(c) + 1);
  return h;
}

int Impl::root_of(int n) const {
  while (nodes[n].parent >= 0) n = nodes[n].parent;
  return n;
}

// Kueue's FindHeightOfLowestSubtreeThatFits: 0 when the queue stays within nominal, else the
// height of the first ancestor whose subtree absorbs the rest; the bool says whether that
// subtree is not the root (a reclaim inside it is possible).
std::pair<int, bool> Impl::lowest_subtree_that_fits(int cq, int fr, Amount v) const {
  int n = cqs[cq].node;
  bool has_parent = nodes[n].parent >= 0;
  if (!cq_borrowing_with(cq, fr, v) || !has_parent) return {0, has_parent};
  Amount remaining = sat_sub(v, local_available(n, fr));
  for (int t = nodes[n].parent; t >= 0; t = nodes[t].parent) {
    if (!node_borrowing_with(t, fr, remaining)) return {node_height(t), nodes[t].parent >= 0};
    remaining = sat_sub(remaining, local_available(t, fr));
  }
  return {node_height(root_of(n)), false};
}

bool Impl::within_nominal(int n, const std::vector<int>& frs) const {
  for (int fr : frs)
    if (nodes[n].subtree[fr] < nodes[n].usage[fr]) return false;
  return true;
}

bool Impl::fits(int cq, const std::vector<std::pair<int, Amount>>& usage) const {
  for (const auto& [fr, v] : usage)
    if (v > cq_available(cq, fr)) return false;
  return true;
}

// SubtreeQuota of every node from the nominal quotas (updateCohortResourceNode); usage starts 0.
void Impl::recompute_tree() {
  const int F = fr_count();
  std::function<void(int)> visit = [&](int n) {
    Node& node = nodes[n];
    node.subtree = node.nominal;
    for (int c : node.child_cohorts) visit(c);
    std::vector<int> children = node.child_cohorts;
    children.insert(children.end(), node.child_cqs.begin(), node.child_cqs.end());
    for (int c : children) {
      if (nodes[c].is_cq) nodes[c].subtree = nodes[c].nominal;
      for (int fr = 0; fr < F; ++fr) node.subtree[fr] = sat_add(node.subtree[fr], sat_sub(nodes[c].subtree[fr], local_quota(c, fr)));
    }
  };
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    if (nodes[n].is_cq) nodes[n].subtree = nodes[n].nominal;
  }
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n)
    if (!nodes[n].is_cq && nodes[n].parent < 0) visit(n);
}

}  // namespace budcore::quota
