// Fair sharing: dominant resource share (Kueue pkg/cache/scheduler/fair_sharing.go), the
// admission tournament (pkg/scheduler/fair_sharing_iterator.go) and fair preemption
// (pkg/scheduler/preemption/preemption.go fairPreemptions, preemption/fairsharing/*.go).
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <unordered_map>

#include "quota/engine_impl.hpp"

namespace budcore::quota {

using Impl = AdmissionEngine::Impl;

namespace {

bool zero_weight_borrows(const Drs& d) { return d.weight == 0 && d.ratio != 0; }

double weighted_share(const Drs& d) {
  if (d.ratio == 0) return 0;
  if (d.weight == 0) return std::numeric_limits<double>::infinity();
  return d.ratio / d.weight;
}

int cmp(double a, double b) { return a < b ? -1 : (a > b ? 1 : 0); }

}  // namespace

int compare_drs(const Drs& a, const Drs& b) {
  bool za = zero_weight_borrows(a), zb = zero_weight_borrows(b);
  if (za && zb) return cmp(a.ratio, b.ratio);
  if (za) return 1;
  if (zb) return -1;
  return cmp(weighted_share(a), weighted_share(b));
}

// Borrowed amount per resource (summed over flavors) against what the parent could lend of
// that resource (summed over every flavor of the tree); the largest ratio wins, ties go to the
// alphabetically first resource. Roots have no share.
Drs Impl::drs(int n) const {
  const Node& node = nodes[n];
  Drs d;
  d.weight = node.weight;
  if (node.parent < 0) return d;
  const int F = fr_count();
  std::vector<Amount> borrowed(static_cast<std::size_t>(nres), 0);
  for (int fr = 0; fr < F; ++fr) {
    Amount b = sat_sub(node.usage[fr], node.subtree[fr]);
    if (b > 0) {
      borrowed[fr % nres] = sat_add(borrowed[fr % nres], b);
      d.borrowed_frs.push_back(fr);
    }
  }
  if (d.borrowed_frs.empty()) return d;
  d.borrowing = true;
  std::vector<Amount> lendable(static_cast<std::size_t>(nres), 0);
  for (int fr = 0; fr < F; ++fr) lendable[fr % nres] = sat_add(lendable[fr % nres], potential_available(node.parent, fr));
  std::string dominant;
  for (int r = 0; r < nres; ++r) {
    if (borrowed[r] <= 0 || lendable[r] <= 0) continue;
    double ratio = static_cast<double>(borrowed[r]) * 1000.0 / static_cast<double>(lendable[r]);
    if (ratio > d.ratio || (ratio == d.ratio && resource_names[r] < dominant)) {
      d.ratio = ratio;
      dominant = resource_names[r];
    }
  }
  return d;
}

// The next entry to process: take any remaining entry's cohort tree and run the tournament from
// its root. At each cohort the children (queues with an entry, winners of child cohorts) compare
// by: not borrowing on the requested flavor-resources first, lower DRS with the entry's usage
// added, higher priority, earlier creation.
std::size_t Impl::fair_next(const std::vector<Entry>& entries, const std::vector<char>& done) {
  std::size_t first = 0;
  while (done[first]) ++first;
  int start = cqs[wls[entries[first].wl].cq].node;
  if (nodes[start].parent < 0) return first;
  int root = root_of(start);
  std::unordered_map<int, std::size_t> entry_of_cq;  // cq node -> entry
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (done[i]) continue;
    int n = cqs[wls[entries[i].wl].cq].node;
    if (nodes[n].parent >= 0 && root_of(n) == root) entry_of_cq.emplace(n, i);
  }
  // DRS of the child on the entry's path, seen from each ancestor cohort.
  std::map<std::pair<int, std::size_t>, Drs> drs_at;
  std::vector<std::vector<int>> requested(entries.size());
  for (const auto& [n, i] : entry_of_cq) {
    const auto& usage = entries[i].assignment->usage;
    for (const auto& [fr, v] : usage)
      if (v > 0) requested[i].push_back(fr);
    add_usage_list(n, usage);
    Drs d = drs(n);
    for (int anc = nodes[n].parent; anc >= 0; anc = nodes[anc].parent) {
      drs_at[{anc, i}] = d;
      d = drs(anc);
    }
    remove_usage_list(n, usage);
  }
  auto borrowing_on = [&](const Drs& d, std::size_t i) {
    for (int fr : d.borrowed_frs)
      if (std::find(requested[i].begin(), requested[i].end(), fr) != requested[i].end()) return true;
    return false;
  };
  auto less = [&](std::size_t a, std::size_t b, int cohort) {
    const Drs& da = drs_at[{cohort, a}];
    const Drs& db = drs_at[{cohort, b}];
    bool ba = borrowing_on(da, a), bb = borrowing_on(db, b);
    if (ba != bb) return !ba;
    if (int c = compare_drs(da, db); c != 0) return c < 0;
    const Wl& x = wls[entries[a].wl];
    const Wl& y = wls[entries[b].wl];
    if (x.priority != y.priority) return x.priority > y.priority;
    return x.creation_seq < y.creation_seq;
  };
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::function<std::size_t(int)> tournament = [&](int cohort) {
    std::vector<std::size_t> cands;
    for (int c : nodes[cohort].child_cohorts)
      if (std::size_t w = tournament(c); w != kNone) cands.push_back(w);
    for (int c : nodes[cohort].child_cqs)
      if (auto it = entry_of_cq.find(c); it != entry_of_cq.end()) cands.push_back(it->second);
    if (cands.empty()) return kNone;
    std::size_t best = cands[0];
    for (std::size_t k = 1; k < cands.size(); ++k)
      if (less(cands[k], best, cohort)) best = cands[k];
    return best;
  };
  std::size_t winner = tournament(root);
  return winner == kNone ? first : winner;
}

// fairPreemptions: candidates from the own queue (withinClusterQueue) and from every borrowing
// queue of the tree (reclaimWithinCohort); target queues are visited from the root towards the
// highest share. With the preemptor's usage added, a queue within nominal takes candidates
// freely; otherwise the first strategy (default LessThanOrEqualToFinalShare) and then
// LessThanInitialShare (one workload per queue) decide. Then fill-back.
std::vector<int> Impl::fair_targets(int w, const std::vector<int>& frs_need,
                                    const std::vector<std::pair<int, Amount>>& requests) {
  const Wl& pre = wls[w];
  const int cqi = pre.cq;
  const int pnode = cqs[cqi].node;
  const auto& pol = cqs[cqi].spec.preemption;
  std::vector<int> cands;
  auto take_from = [&](int q, PreemptionPolicy policy) {
    for (int c : cqs[q].workloads)
      if (wls[c].state == WorkloadState::Admitted && satisfies_policy(pre, wls[c], policy) && uses_any(c, frs_need))
        cands.push_back(c);
  };
  if (pol.within_cluster_queue != PreemptionPolicy::Never) take_from(cqi, pol.within_cluster_queue);
  const bool has_parent = nodes[pnode].parent >= 0;
  const int root = has_parent ? root_of(pnode) : -1;
  if (has_parent && pol.reclaim_within_cohort != PreemptionPolicy::Never) {
    for (int q = 0; q < static_cast<int>(cqs.size()); ++q) {
      int n = cqs[q].node;
      if (q == cqi || nodes[n].parent < 0 || root_of(n) != root) continue;
      bool borrowing = std::any_of(frs_need.begin(), frs_need.end(), [&](int fr) { return nodes[n].usage[fr] > nodes[n].nominal[fr]; });
      if (borrowing) take_from(q, pol.reclaim_within_cohort);
    }
  }
  if (cands.empty()) return {};
  std::sort(cands.begin(), cands.end(), [&](int a, int b) { return candidate_less(a, b, cqi); });

  std::vector<char> on_path(nodes.size(), 0);
  for (int a = nodes[pnode].parent; a >= 0; a = nodes[a].parent) on_path[a] = 1;
  auto almost_lca = [&](int n, int lca) {
    int a = n;
    for (int anc = nodes[n].parent; anc >= 0; anc = nodes[anc].parent) {
      if (anc == lca) return a;
      a = anc;
    }
    return a;
  };
  // (preemptor's share, target's share) at the children of their least common ancestor.
  auto shares_nodes = [&](int target) {
    int lca = -1;
    for (int anc = nodes[target].parent; anc >= 0; anc = nodes[anc].parent)
      if (on_path[anc]) {
        lca = anc;
        break;
      }
    return std::pair<int, int>{almost_lca(pnode, lca), almost_lca(target, lca)};
  };
  auto fits_now = [&] {
    for (const auto& [fr, v] : requests)
      if (v > cq_available(cqi, fr)) return false;
    return true;
  };
  auto fits_fs = [&] {
    remove_usage_list(cqi, requests);
    bool ok = fits_now();
    add_usage_list(cqi, requests);
    return ok;
  };

  // TargetClusterQueueOrdering over a candidate list.
  struct Ordering {
    std::unordered_map<int, std::deque<int>> queue;  // cq node -> candidates in order
    std::vector<char> pruned;
  };
  auto make_ordering = [&](const std::vector<int>& list) {
    Ordering o;
    o.pruned.assign(nodes.size(), 0);
    for (int c : list) o.queue[cqs[wls[c].adm_cq].node].push_back(c);
    return o;
  };
  auto has_work = [](Ordering& o, int n) {
    auto it = o.queue.find(n);
    return it != o.queue.end() && !it->second.empty();
  };
  std::function<int(Ordering&, int)> next_target = [&](Ordering& o, int cohort) -> int {
    int best_cq = -1;
    Drs best_cq_drs = Drs::negative();
    for (int ch : nodes[cohort].child_cqs) {
      if (o.pruned[ch]) continue;
      Drs d = drs(ch);
      if ((!d.borrowing && ch != pnode) || !has_work(o, ch)) {
        o.pruned[ch] = 1;
        continue;
      }
      int c = compare_drs(d, best_cq_drs);
      if (c == 0) {
        if (candidate_less(o.queue[ch].front(), o.queue[best_cq].front(), cqi)) best_cq = ch;
      } else if (c > 0) {
        best_cq_drs = d;
        best_cq = ch;
      }
    }
    int best_cohort = -1;
    Drs best_cohort_drs = Drs::negative();
    for (int ch : nodes[cohort].child_cohorts) {
      if (o.pruned[ch]) continue;
      Drs d = drs(ch);
      if (!d.borrowing && !on_path[ch]) {
        o.pruned[ch] = 1;
      } else if (compare_drs(d, best_cohort_drs) >= 0) {
        best_cohort_drs = d;
        best_cohort = ch;
      }
    }
    if (best_cohort < 0 && best_cq < 0) {
      o.pruned[cohort] = 1;
      return -1;
    }
    if (best_cohort >= 0 && compare_drs(best_cohort_drs, best_cq_drs) >= 0) return next_target(o, best_cohort);
    return best_cq;
  };
  auto next = [&](Ordering& o) -> int {
    if (!has_parent) return !o.pruned[pnode] && has_work(o, pnode) ? pnode : -1;
    while (!o.pruned[root])
      if (int t = next_target(o, root); t >= 0) return t;
    return -1;
  };
  auto pop = [](Ordering& o, int n) {
    int c = o.queue[n].front();
    o.queue[n].pop_front();
    return c;
  };

  std::vector<FairSharingStrategy> strategies = options.fair_sharing_strategies;
  if (strategies.empty()) strategies = {FairSharingStrategy::LessThanOrEqualToFinalShare, FairSharingStrategy::LessThanInitialShare};

  add_usage_list(cqi, requests);  // shares include the incoming workload
  std::vector<int> targets;
  auto take = [&](int c) {
    remove_wl_usage(c);
    targets.push_back(c);
    return fits_fs();
  };
  bool fits = false;
  std::vector<int> retry;
  {
    Ordering o = make_ordering(cands);
    bool within_nominal = std::none_of(frs_need.begin(), frs_need.end(), [&](int fr) { return nodes[pnode].usage[fr] > nodes[pnode].nominal[fr]; });
    for (int t; !fits && (t = next(o)) >= 0;) {
      if (t == pnode || within_nominal) {
        fits = take(pop(o, t));
        continue;
      }
      auto [pn, tn] = shares_nodes(t);
      Drs pre_share = drs(pn), target_old = drs(tn);
      if (std::isinf(weighted_share(pre_share)) && !std::isinf(weighted_share(target_old))) {
        while (has_work(o, t)) retry.push_back(pop(o, t));
        continue;
      }
      while (has_work(o, t)) {
        int c = pop(o, t);
        remove_wl_usage(c);
        Drs target_new = drs(tn);
        add_wl_usage(c);
        bool passed = strategies[0] == FairSharingStrategy::LessThanOrEqualToFinalShare
                          ? compare_drs(pre_share, target_new) <= 0
                          : compare_drs(pre_share, target_old) < 0;
        if (passed) {
          fits = take(c);
          break;
        }
        retry.push_back(c);
      }
    }
  }
  if (!fits && strategies.size() > 1 && !retry.empty()) {
    Ordering o = make_ordering(retry);
    for (int t; !fits && (t = next(o)) >= 0;) {
      auto [pn, tn] = shares_nodes(t);
      bool passed = compare_drs(drs(pn), drs(tn)) < 0;
      int c = pop(o, t);
      if (passed) fits = take(c);
      o.pruned[t] = 1;
    }
  }
  remove_usage_list(cqi, requests);
  if (fits) fill_back(targets, fits_now);
  for (int t : targets) add_wl_usage(t);
  if (!fits) return {};
  return targets;
}

}  // namespace budcore::quota
