// Flavor assignment (Kueue pkg/scheduler/flavorassigner), classical preemption
// (pkg/scheduler/preemption, .../classical) and partial admission (podset_reducer.go).
#include <algorithm>
#include <array>
#include <initializer_list>
#include <string_view>

#include "quota/engine_impl.hpp"

namespace budcore::quota {

using Impl = AdmissionEngine::Impl;

namespace {

struct Granular {
  PMode mode = PMode::NoFit;
  int borrow = 0;
};

// isPreferred(a, b): a is a better flavor outcome than b.
bool is_preferred(const Granular& a, const Granular& b, const FlavorFungibility& ff) {
  if (a.mode == PMode::NoFit) return false;
  if (b.mode == PMode::NoFit) return true;
  bool a_none = a.mode == PMode::NoCandidates, b_none = b.mode == PMode::NoCandidates;
  if (a_none != b_none) return !a_none;
  if (ff.preference == FungibilityPreference::PreemptionOverBorrowing) {
    if (a.borrow != b.borrow) return a.borrow < b.borrow;
    return a.mode > b.mode;
  }
  if (a.mode != b.mode) return a.mode > b.mode;
  return a.borrow < b.borrow;
}

bool should_try_next(const Granular& m, const FlavorFungibility& ff) {
  if (m.mode == PMode::NoFit || m.mode == PMode::NoCandidates) return true;
  if ((m.mode == PMode::Preempt || m.mode == PMode::Reclaim) && ff.when_can_preempt == FungibilityPolicy::TryNextFlavor)
    return true;
  return m.borrow != 0 && ff.when_can_borrow == FungibilityPolicy::TryNextFlavor;
}

AMode to_amode(PMode m) {
  switch (m) {
    case PMode::NoFit: return AMode::NoFit;
    case PMode::Fit: return AMode::Fit;
    default: return AMode::Preempt;
  }
}

void add_to(std::vector<std::pair<int, Amount>>& usage, int fr, Amount v) {
  auto it = std::lower_bound(usage.begin(), usage.end(), fr, [](const auto& p, int k) { return p.first < k; });
  if (it != usage.end() && it->first == fr)
    it->second = sat_add(it->second, v);
  else
    usage.insert(it, {fr, v});
}

Amount get_of(const std::vector<std::pair<int, Amount>>& usage, int fr) {
  auto it = std::lower_bound(usage.begin(), usage.end(), fr, [](const auto& p, int k) { return p.first < k; });
  return it != usage.end() && it->first == fr ? it->second : 0;
}

bool flavor_matches(const ResourceFlavor& f, const PodSet& ps, std::string& why) {
  for (const auto& t : f.node_taints) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    bool tolerated = false;
    for (const auto& tol : ps.tolerations)
      tolerated = tolerated || (tol.key == t.key && (tol.value.empty() || tol.value == t.value) &&
                                (tol.effect.empty() || tol.effect == t.effect));
    if (!tolerated) {
      why = "untolerated taint {" + t.key + ": " + t.value + "} in flavor " + f.name;
      return false;
    }
  }
  for (const auto& [k, v] : ps.node_selector) {
    auto it = f.node_labels.find(k);
    if (it != f.node_labels.end() && it->second != v) {
      why = "flavor " + f.name + " doesn't match node affinity";
      return false;
    }
  }
  return true;
}

}  // namespace

bool satisfies_policy(const Wl& preemptor, const Wl& cand, PreemptionPolicy policy) {
  bool lower = preemptor.priority > cand.priority;
  switch (policy) {
    case PreemptionPolicy::LowerPriority: return lower;
    case PreemptionPolicy::LowerOrNewerEqualPriority:
      return lower || (preemptor.priority == cand.priority && preemptor.creation_seq < cand.creation_seq);
    case PreemptionPolicy::Any: return true;
    case PreemptionPolicy::Never: return false;
  }
  return false;
}

bool Impl::uses_any(int w, const std::vector<int>& frs) const {
  for (const auto& [fr, v] : wls[w].usage)
    if (v > 0 && std::find(frs.begin(), frs.end(), fr) != frs.end()) return true;
  return false;
}

bool ByCandidateOrder::operator()(int x, int y) const {
  if (x == y) return false;
  const Wl& a = m->wls[x];
  const Wl& b = m->wls[y];
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.reservation_seq != b.reservation_seq) return a.reservation_seq > b.reservation_seq;
  return a.key < b.key;
}

// CandidatesOrdering: other queues' workloads first, lower priority, most recently reserved.
bool Impl::candidate_less(int x, int y, int preemptor_cq) const {
  const Wl& a = wls[x];
  const Wl& b = wls[y];
  bool a_own = a.adm_cq == preemptor_cq, b_own = b.adm_cq == preemptor_cq;
  if (a_own != b_own) return !a_own;
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.reservation_seq != b.reservation_seq) return a.reservation_seq > b.reservation_seq;
  return a.key < b.key;
}

// fillBackWorkloads: from the second-to-last target down, give back each victim whose return
// still lets the preemptor fit. Victims' usage is removed on entry and on return.
void Impl::fill_back(std::vector<int>& targets, const std::function<bool()>& fits_now) {
  for (int i = static_cast<int>(targets.size()) - 2; i >= 0; --i) {
    add_wl_usage(targets[i]);
    if (fits_now()) {
      targets[i] = targets.back();
      targets.pop_back();
    } else {
      remove_wl_usage(targets[i]);
    }
  }
}

const std::string& Impl::describe(Amount milli, int res) {
  if (describe_cache_.size() != resource_format.size()) describe_cache_.assign(resource_format.size(), {});
  auto& cache = describe_cache_[static_cast<std::size_t>(res)];
  if (auto it = cache.find(milli); it != cache.end()) return it->second;
  if (cache.size() >= 4096) cache.clear();  // bounded: amounts seen in one run are few, but not always
  core::int128 nano = static_cast<core::int128>(milli) * 1'000'000;
  return cache.emplace(milli, core::Quantity::from_nano(nano, resource_format[res]).to_string()).first->second;
}

// Total requests of pod set p at `count` pods, resource -> milli, a queue's "pods" resource
// counted per pod; sorted by resource name (the order of ids is arbitrary; Kueue iterates
// resources sorted). What assign asks flavors for, and what the derived memo keys on.
void Impl::pod_set_requests(const Wl& wl, std::size_t p, std::int32_t count, std::vector<std::pair<int, Amount>>& req) const {
  const CqState& cq = cqs[wl.cq];
  const int pods_res = pods_resource >= 0 && cq.group_of.count(pods_resource) ? pods_resource : -1;
  req.clear();
  for (const auto& [r, v] : wl.per_pod[p]) {
    Amount total;
    if (__builtin_mul_overflow(v, static_cast<Amount>(count), &total)) total = kMaxAmount;
    req.emplace_back(r, total);
  }
  if (pods_res >= 0) {
    auto it = std::find_if(req.begin(), req.end(), [&](const auto& x) { return x.first == pods_res; });
    if (it != req.end()) it->second = static_cast<Amount>(count) * 1000;
    else req.emplace_back(pods_res, static_cast<Amount>(count) * 1000);
  }
  std::sort(req.begin(), req.end(), [&](const auto& x, const auto& y) { return resource_names[x.first] < resource_names[y.first]; });
}

Assignment Impl::assign(int w, std::span<const std::int32_t> counts, const Assignment* pinned) {
  const Wl& wl = wls[w];
  const CqState& cq = cqs[wl.cq];
  const Node& node = nodes[cq.node];
  const FlavorFungibility& ff = cq.spec.flavor_fungibility;
  bool preempt_while_borrowing = cq.spec.preemption.borrow_within_cohort.policy != BorrowWithinCohortPolicy::Never ||
                                 (options.fair_sharing && cq.spec.preemption.reclaim_within_cohort != PreemptionPolicy::Never);
  Assignment a;
  a.counts.assign(counts.begin(), counts.end());

  for (std::size_t p = 0; p < wl.per_pod.size(); ++p) {
    const PodSet& ps = wl.spec.pod_sets[p];
    std::vector<std::pair<int, Amount>>& req = assign_req_;  // scratch: assign does not recurse
    pod_set_requests(wl, p, counts[p], req);

    PodSetAssign psa;
    psa.count = counts[p];
    bool status_fit = true;
    bool group_failed = false;
    // Reasons go straight to a.reasons, part by part (no text is built on the side, as reasons
    // are built on every fresh nomination); a group's are dropped again when it fits.
    auto add_reason = [&](std::initializer_list<std::string_view> parts) {
      if (!a.reasons.empty()) a.reasons += "; ";
      for (auto part : parts) a.reasons += part;
    };
    for (const auto& [res, qty] : req) {
      auto g = cq.group_of.find(res);
      if (g == cq.group_of.end()) {
        if (qty == 0) continue;
        add_reason({"resource ", resource_names[res], " unavailable in ClusterQueue"});
        group_failed = true;
        break;
      }
      if (psa.flavors.count(res)) continue;
      const auto& group = cq.groups[g->second];
      std::vector<std::pair<int, Amount>>& greq = assign_greq_;
      greq.clear();
      for (const auto& [r2, q2] : req)
        if (auto g2 = cq.group_of.find(r2); g2 != cq.group_of.end() && g2->second == g->second) greq.emplace_back(r2, q2);

      ResAssignMap best;
      Granular best_mode{PMode::NoFit, std::numeric_limits<int>::max()};
      const std::size_t group_reasons = a.reasons.size();
      for (int fl : group.flavors) {
        if (pinned) {  // recompute with the flavors nominated before (NominationMapping)
          const auto& pf = pinned->pod_sets[p].flavors;
          auto it = pf.find(res);
          if (it != pf.end() && it->second.flavor != fl) continue;
        }
        std::string why;
        if (!flavor_matches(flavors[fl], ps, why)) {
          add_reason({why});
          continue;
        }
        ResAssignMap assigns;
        Granular rep{PMode::Fit, 0};
        for (const auto& [r, val_req] : greq) {
          int fr = fr_of(fl, r);
          Amount val = sat_add(get_of(a.usage, fr), val_req);
          PMode mode;
          int borrow = 0;
          Amount maxcap = potential_available(cq.node, fr);
          if (val > maxcap) {
            const std::string want = describe(val, r);  // a copy: the second call may rehash the cache
            add_reason({"insufficient quota for ", resource_names[r], " in flavor ", flavors[fl].name, ", request > maximum capacity (",
                        want, " > ", describe(maxcap, r), ")"});
            mode = PMode::NoFit;
          } else {
            auto [b, may_reclaim] = lowest_subtree_that_fits(wl.cq, fr, val);
            Amount avail = cq_available(wl.cq, fr);
            if (val <= avail) {
              mode = PMode::Fit;
              borrow = b;
            } else {
              add_reason({"insufficient unused quota for ", resource_names[r], " in flavor ", flavors[fl].name, ", ",
                          describe(val - avail, r), " more needed"});
              if (node.nominal[fr] >= val || may_reclaim || preempt_while_borrowing) {
                assign_one_.assign(1, {fr, val});
                assign_frs_.assign(1, fr);
                std::vector<int> targets = get_targets(w, assign_frs_, assign_one_);
                if (targets.empty()) {
                  a.no_victims.emplace_back(fr, val);
                  mode = PMode::NoCandidates;
                  borrow = lowest_subtree_that_fits(wl.cq, fr, val).first;
                } else {
                  mode = PMode::Reclaim;
                  for (int t : targets) {
                    remove_wl_usage(t);
                    if (wls[t].adm_cq == wl.cq) mode = PMode::Preempt;
                  }
                  borrow = lowest_subtree_that_fits(wl.cq, fr, val).first;
                  for (int t : targets) add_wl_usage(t);
                }
              } else {
                mode = PMode::NoFit;
                borrow = b;
              }
            }
          }
          Granular gm{mode, borrow};
          if (is_preferred(rep, gm, ff)) rep = gm;
          if (rep.mode == PMode::NoFit) break;
          assigns[r] = ResAssign{fl, mode, borrow};
        }
        if (!should_try_next(rep, ff)) {
          best = std::move(assigns);
          best_mode = rep;
          break;
        }
        if (is_preferred(rep, best_mode, ff)) {
          best = std::move(assigns);
          best_mode = rep;
        }
      }
      if (best.empty()) {
        if (a.reasons.size() == group_reasons) add_reason({"no flavor available for ", resource_names[res]});
        group_failed = true;
        break;
      }
      if (best_mode.mode != PMode::Fit) status_fit = false;
      else a.reasons.resize(group_reasons);
      psa.flavors.insert(best.begin(), best.end());  // groups cover disjoint resources: every key is new
    }
    if (group_failed) psa.flavors.clear();
    psa.failed = group_failed;
    for (const auto& [r, ra] : psa.flavors) {
      a.borrowing = std::max(a.borrowing, ra.borrow);
      Amount amount = 0;
      for (const auto& [r2, q2] : req)
        if (r2 == r) amount = q2;
      add_to(a.usage, fr_of(ra.flavor, r), amount);
    }
    AMode ps_mode = AMode::Fit;
    if (group_failed || (psa.flavors.empty() && !req.empty() && !status_fit)) {
      ps_mode = AMode::NoFit;
    } else if (!status_fit) {
      for (const auto& [r, ra] : psa.flavors) ps_mode = std::min(ps_mode, to_amode(ra.mode));
    }
    a.pod_sets.push_back(std::move(psa));
    a.mode = p == 0 ? ps_mode : std::min(a.mode, ps_mode);
    if (group_failed) {
      a.mode = AMode::NoFit;
      return a;
    }
  }
  if (wl.per_pod.empty()) a.mode = AMode::NoFit;
  return a;
}

// Classical preemption: candidates in Kueue's order, remove until the preemptor fits, then fill
// back. Returns victim workload indices (empty: no way to make room).
std::vector<int> Impl::get_targets(int w, const std::vector<int>& frs_need,
                                   const std::vector<std::pair<int, Amount>>& requests) {
  if (options.fair_sharing) return fair_targets(w, frs_need, requests);
  const Wl& pre = wls[w];
  const int cqi = pre.cq;
  const CqState& cq = cqs[cqi];
  const auto& pol = cq.spec.preemption;
  enum Variant { Never, WithinCQ, Hierarchical, ReclaimWithoutBorrowing, ReclaimWhileBorrowing };
  struct Cand {
    int wl;
    int lca;
    Variant v;
  };
  bool bwc_forbidden = pol.borrow_within_cohort.policy == BorrowWithinCohortPolicy::Never;
  auto uses = [&](int c) {
    for (const auto& [fr, v] : wls[c].usage)
      if (v > 0 && std::find(frs_need.begin(), frs_need.end(), fr) != frs_need.end()) return true;
    return false;
  };
  auto classify = [&](int c, bool advantage) -> Variant {
    if (!uses(c)) return Never;
    bool same = wls[c].adm_cq == cqi;
    if (!satisfies_policy(pre, wls[c], same ? pol.within_cluster_queue : pol.reclaim_within_cohort)) return Never;
    if (same) return WithinCQ;
    if (advantage) return Hierarchical;
    if (bwc_forbidden) return ReclaimWithoutBorrowing;
    int cp = wls[c].priority, ip = pre.priority;
    if (cp >= ip) return ReclaimWithoutBorrowing;
    if (pol.borrow_within_cohort.max_priority_threshold && cp > *pol.borrow_within_cohort.max_priority_threshold)
      return ReclaimWithoutBorrowing;
    return ReclaimWhileBorrowing;
  };
  // Where candidates come from: the own queue, and other queues of the tree found by walking
  // up from the preemptor's queue (each queue under the lowest ancestor it shares with it).
  // Scratch vectors of the engine (get_targets does not recurse): it runs on every fresh
  // nomination that finds no room.
  using Source = TargetSource;
  auto& hier_src = target_sources_[0];
  auto& prio_src = target_sources_[1];
  auto& same_src = target_sources_[2];
  for (auto& src : target_sources_) src.clear();
  if (pol.within_cluster_queue != PreemptionPolicy::Never) same_src.push_back({cqi, -1, false});
  if (nodes[cq.node].parent >= 0 && pol.reclaim_within_cohort != PreemptionPolicy::Never) {
    // QuantitiesFitInQuota on the queue, then on each ancestor with the remaining requests.
    auto fit_in_quota = [&](int n, std::vector<std::pair<int, Amount>>& rem) {
      bool ok = true;
      for (auto& [fr, v] : rem) {
        if (nodes[n].subtree[fr] < sat_add(nodes[n].usage[fr], v)) ok = false;
        v = std::max<Amount>(0, sat_sub(v, local_available(n, fr)));
      }
      return ok;
    };
    std::vector<std::pair<int, Amount>>& remaining = target_remaining_;
    remaining = requests;
    bool adv = fit_in_quota(cq.node, remaining);
    int prev = -1;
    auto collect = [&](auto& self, int cur, int root, int skip, bool a, std::vector<Source>& out) -> void {
      for (int ch : nodes[cur].child_cohorts) {
        if (ch == skip || within_nominal(ch, frs_need)) continue;
        self(self, ch, root, skip, a, out);
      }
      for (int ch : nodes[cur].child_cqs) {
        if (ch == cq.node) continue;
        if (!within_nominal(ch, frs_need)) out.push_back({ch, root, a});  // CQ nodes are indexed like cqs
      }
    };
    for (int cur = nodes[cq.node].parent; cur >= 0; cur = nodes[cur].parent) {
      collect(collect, cur, cur, prev, adv, adv ? hier_src : prio_src);
      bool f = fit_in_quota(cur, remaining);
      adv = adv || f;
      prev = cur;
    }
  }
  // A merged, filtered stream over sources, in candidate order. Each queue's admitted workloads
  // are kept in that order, so the stream reads only as far as the preemptor needs; a queue whose
  // next candidate has too high a priority for the policy has none left.
  const ByCandidateOrder by_order{this};
  struct Stream {
    std::vector<Source> const* sources;
    std::vector<std::set<int, ByCandidateOrder>::const_iterator>& pos;  // the engine's scratch
  };
  auto policy_ends = [&](int c, bool same) {
    PreemptionPolicy p = same ? pol.within_cluster_queue : pol.reclaim_within_cohort;
    int cp = wls[c].priority;
    if (p == PreemptionPolicy::LowerPriority) return cp >= pre.priority;
    if (p == PreemptionPolicy::LowerOrNewerEqualPriority) return cp > pre.priority;
    return false;
  };
  auto open = [&](const std::vector<Source>& src, std::size_t scratch) {
    Stream st{&src, target_pos_[scratch]};
    st.pos.clear();
    for (const Source& s : src) st.pos.push_back(cqs[s.cq].workloads.begin());
    return st;
  };
  // The next candidate of the stream (or nullopt), advancing past it.
  auto next = [&](Stream& st) -> std::optional<Cand> {
    for (;;) {
      int best = -1;
      for (std::size_t i = 0; i < st.pos.size(); ++i) {
        const Source& s = (*st.sources)[i];
        auto& it = st.pos[i];
        const auto& set = cqs[s.cq].workloads;
        if (it != set.end() && policy_ends(*it, s.cq == cqi)) it = set.end();
        if (it == set.end()) continue;
        if (best < 0 || by_order(*it, *st.pos[static_cast<std::size_t>(best)])) best = static_cast<int>(i);
      }
      if (best < 0) return std::nullopt;
      const Source& s = (*st.sources)[static_cast<std::size_t>(best)];
      int c = *st.pos[static_cast<std::size_t>(best)]++;
      if (wls[c].state != WorkloadState::Admitted) continue;
      Variant v = classify(c, s.adv);
      if (v != Never) return Cand{c, s.lca, v};
    }
  };
  auto has_any = [&](const std::vector<Source>& src) {
    Stream st = open(src, 0);
    return next(st).has_value();
  };
  const bool hier_empty = !has_any(hier_src), prio_empty = !has_any(prio_src);

  auto under_nominal = [&]() {
    for (int fr : frs_need)
      if (nodes[cq.node].nominal[fr] <= nodes[cq.node].usage[fr]) return false;
    return true;
  };
  std::array<bool, 2> attempt_list{true, false};
  std::size_t attempts = 2;
  if ((hier_empty && prio_empty) || (bwc_forbidden && !under_nominal()))
    attempts = 1;
  else if (bwc_forbidden && hier_empty)
    attempt_list = {false, true};

  auto workload_fits = [&](bool allow_borrowing) {
    for (const auto& [fr, v] : requests) {
      if (!allow_borrowing && cq_borrowing_with(cqi, fr, v)) return false;
      if (v > cq_available(cqi, fr)) return false;
    }
    return true;
  };
  auto valid = [&](const Cand& c, bool borrow) {
    int ccq = wls[c.wl].adm_cq;
    if (ccq == cqi) return true;
    if (borrow && c.v == ReclaimWithoutBorrowing) return false;
    if (within_nominal(cqs[ccq].node, frs_need)) return false;
    for (int n = nodes[cqs[ccq].node].parent; n >= 0 && n != c.lca; n = nodes[n].parent)
      if (within_nominal(n, frs_need)) return false;
    return true;
  };
  for (std::size_t attempt = 0; attempt < attempts; ++attempt) {
    const bool borrow = attempt_list[attempt];
    std::vector<int> targets;
    // Kueue's order: hierarchical reclaim, then priority-based reclaim, then the own queue.
    // (Removing a victim changes no workload's order, so the streams stay valid.)
    std::array<Stream, 3> streams{open(hier_src, 0), open(prio_src, 1), open(same_src, 2)};
    for (Stream& st : streams) {
      while (auto c = next(st)) {
        if (!valid(*c, borrow)) continue;
        remove_wl_usage(c->wl);
        targets.push_back(c->wl);
        if (workload_fits(borrow)) {
          for (int i = static_cast<int>(targets.size()) - 2; i >= 0; --i) {
            add_wl_usage(targets[i]);
            if (workload_fits(borrow)) {
              targets[i] = targets.back();
              targets.pop_back();
            } else {
              remove_wl_usage(targets[i]);
            }
          }
          for (int t : targets) add_wl_usage(t);
          return targets;
        }
      }
    }
    for (int t : targets) add_wl_usage(t);
  }
  return {};
}

// getInitialAssignments: full size; preemption targets; else partial admission by binary search.
std::pair<Assignment, std::vector<int>> Impl::initial_assignment(int w) {
  const Wl& wl = wls[w];
  boost::container::small_vector<std::int32_t, 4> full;
  for (const auto& ps : wl.spec.pod_sets) full.push_back(ps.count);
  auto frs_of = [&](const Assignment& a) -> const std::vector<int>& {
    std::vector<int>& frs = initial_frs_;  // scratch: get_targets reads it, and does not nominate
    frs.clear();
    for (const auto& ps : a.pod_sets)
      for (const auto& [r, ra] : ps.flavors)
        if (ra.mode != PMode::Fit && ra.mode != PMode::NoFit) frs.push_back(fr_of(ra.flavor, r));
    std::sort(frs.begin(), frs.end());
    frs.erase(std::unique(frs.begin(), frs.end()), frs.end());
    return frs;
  };
  Assignment fa = assign(w, {full.data(), full.size()}, nullptr);
  if (fa.mode == AMode::Fit) return {std::move(fa), std::vector<int>{}};  // not {}: it would pick pair(const&, const&), a copy
  if (fa.mode == AMode::Preempt) {
    const std::vector<int>& frs = frs_of(fa);
    const bool asked = frs.size() == 1 && fa.usage.size() == 1 && fa.usage[0].first == frs[0] &&
                       std::find(fa.no_victims.begin(), fa.no_victims.end(), fa.usage[0]) != fa.no_victims.end();
    if (!asked)
      if (auto t = get_targets(w, frs, fa.usage); !t.empty()) return {std::move(fa), std::move(t)};
  }
  std::int64_t total_delta = 0;
  boost::container::small_vector<std::int64_t, 4> deltas;
  for (const auto& ps : wl.spec.pod_sets) {
    std::int64_t d = ps.min_count ? ps.count - *ps.min_count : 0;
    deltas.push_back(d);
    total_delta += d;
  }
  if (total_delta == 0) return {std::move(fa), std::vector<int>{}};
  // Go's sort.Search over [0, total_delta]; remember the last index that fitted.
  std::int64_t lo = 0, hi = total_delta + 1, last_good = -1;
  std::optional<std::pair<Assignment, std::vector<int>>> last;
  while (lo < hi) {
    std::int64_t h = lo + (hi - lo) / 2;
    boost::container::small_vector<std::int32_t, 4> counts(full.size());
    for (std::size_t k = 0; k < full.size(); ++k)
      counts[k] = static_cast<std::int32_t>(full[k] - deltas[k] * h / total_delta);
    Assignment pa = assign(w, {counts.data(), counts.size()}, nullptr);
    bool ok = false;
    std::vector<int> t;
    if (pa.mode == AMode::Fit) {
      ok = true;
    } else if (pa.mode == AMode::Preempt) {
      t = get_targets(w, frs_of(pa), pa.usage);
      ok = !t.empty();
    }
    if (ok) {
      last_good = h;
      last.emplace(std::move(pa), std::move(t));
      hi = h;
    } else {
      lo = h + 1;
    }
  }
  if (last && lo == last_good) return std::move(*last);
  return {std::move(fa), std::vector<int>{}};
}

}  // namespace budcore::quota
