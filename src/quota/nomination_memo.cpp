// The nomination memo: Kueue nominates every head again after each change of its cohort tree,
// and most nominations repeat one made before. Three layers, each exact (a hit is what a fresh
// nomination would return): by shape at this state version (or the same values of the state it
// read, in a queue with value_memo); by shape and the derived values it read (derived_memo);
// and per shape at this version for walks of failing heads (failure_now).
#include <algorithm>

#include "quota/engine_impl.hpp"

namespace budcore::quota {

using Impl = AdmissionEngine::Impl;

namespace {
constexpr std::size_t kDerivedWays = 16;
}  // namespace

void Impl::quota_changed(int cq) {
  ++state_version;
  ++cqs[cq].admitted_version;
}

const Impl::Nomination* Impl::memoized_nomination(int shape) {
  if (shape < 0 || static_cast<std::size_t>(shape) >= nominations.size()) return nullptr;
  ShapeMemo& memo = nominations[static_cast<std::size_t>(shape)];
  if (memo.valid_version == state_version) return &memo.ways[memo.valid_way];
  if (memo.ways.empty()) return nullptr;
  // Another state version: a way is valid when the state its nomination read is the same now
  // (value_memo): the queue's admitted workloads and the usage on its memo path. A shape is of
  // one queue (ways[0] is stored first).
  const CqState& q = cqs[static_cast<std::size_t>(memo.ways[0].cq)];
  if (!q.value_memo) return nullptr;
  for (std::size_t i = 0; i < memo.ways.size(); ++i) {
    Nomination& n = memo.ways[i];
    if (n.assignment == nullptr || n.admitted_version != q.admitted_version) continue;
    const Amount* seen = n.usage.data();
    bool same = true;
    for (int node : q.memo_path) {
      const Amount* usage = nodes[static_cast<std::size_t>(node)].usage.data();
      for (int fr : q.memo_frs) same = same && usage[fr] == *seen++;
    }
    if (same) {
      memo.valid_version = state_version;
      memo.valid_way = i;
      return &n;
    }
  }
  return nullptr;
}

const std::string* Impl::failure_now(int shape, int w) {
  if (static_cast<std::size_t>(shape) >= failure_now_.size()) failure_now_.resize(static_cast<std::size_t>(shape) + 1);
  auto& known = failure_now_[static_cast<std::size_t>(shape)];
  // Set only on a failed nomination (no fit, or no victims); a memo hit or a nomination with
  // victims made at this state answers as a fresh one would.
  if (known.first != state_version) {
    // A memo hit answers without nominate()'s copy of the shared assignment.
    const Nomination* n = memoized_nomination(shape);
    known = {state_version, n != nullptr ? n->assignment->failure : nominate_unmemoized(w, shape).first->failure};
    if (known.second != nullptr) {
      failing_version_[static_cast<std::size_t>(shape) + 1] = state_version;
      failing_text_[static_cast<std::size_t>(shape)] = known.second;
    }
  }
  return known.second;
}

std::pair<std::shared_ptr<const Assignment>, std::vector<int>> Impl::nominate(int w) {
  const int shape = options.memoize_nominations ? wls[w].shape : -1;
  if (const Nomination* n = memoized_nomination(shape)) return {n->assignment, std::vector<int>{}};
  return nominate_unmemoized(w, shape);
}

std::pair<std::shared_ptr<const Assignment>, std::vector<int>> Impl::nominate_unmemoized(int w, int shape) {
  // A head with victims, nominated ahead by a run of failing heads that then stopped at it, is
  // nominated again by the full cycle that follows at the same state: the same answer.
  if (with_targets_.w == w && with_targets_.version == state_version && options.memoize_nominations)
    return {with_targets_.assignment, with_targets_.targets};
  DerivedMemo* derived = shape >= 0 ? derived_memo(w, shape) : nullptr;
  std::shared_ptr<const Assignment> shared;
  std::vector<int> targets;
  auto same_key = [&](const DerivedMemo::Key& key) {
    if (key.size() != derived_key_.size()) return false;
    for (std::size_t i = 0; i < key.size(); ++i)  // a loop, not memcmp: keys are two or four values
      if (key[i] != derived_key_[i]) return false;
    return true;
  };
  if (derived != nullptr)
    for (const auto& way : derived->ways)
      if (same_key(way.key)) {
        shared = way.assignment;
        break;
      }
  if (shared == nullptr) {
    ++fresh_nominations;
    auto [a, t] = initial_assignment(w);
    if (t.empty() && (a.mode == AMode::NoFit || a.mode == AMode::Preempt)) a.failure = intern_text(failure_reason(a, text_scratch_));
    shared = std::make_shared<const Assignment>(std::move(a));
    targets = std::move(t);
    if (derived != nullptr && targets.empty()) {  // always empty there: no candidate can exist
      if (derived->ways.size() < kDerivedWays) derived->ways.push_back({derived_key_, shared});
      else derived->ways[derived->next] = {derived_key_, shared};
      derived->next = (derived->next + 1) % kDerivedWays;
    }
  }
  const bool failed = targets.empty() && (shared->mode == AMode::NoFit || shared->mode == AMode::Preempt);
  // A fit or a failure depends on the shape and the quota state only; a nomination with
  // preemption targets is not kept (its victims are chosen for this workload).
  if (shape >= 0 && targets.empty() && (failed || (shared->mode == AMode::Fit && !cqs[wls[w].cq].shape_per_workload))) {
    const CqState& q = cqs[wls[w].cq];
    if (static_cast<std::size_t>(shape) >= nominations.size()) nominations.resize(static_cast<std::size_t>(shape) + 1);
    ShapeMemo& memo = nominations[static_cast<std::size_t>(shape)];
    if (memo.ways.empty()) memo.ways.resize(q.value_memo ? 4 : 1);
    memo.valid_version = state_version;
    memo.valid_way = memo.next;
    Nomination& n = memo.ways[memo.next];
    memo.next = (memo.next + 1) % memo.ways.size();
    n.assignment = shared;
    n.cq = wls[w].cq;
    n.admitted_version = q.admitted_version;
    n.usage.clear();
    if (q.value_memo)
      for (int node : q.memo_path)
        for (int fr : q.memo_frs) n.usage.push_back(nodes[node].usage[fr]);
  }
  if (!targets.empty()) with_targets_ = {w, state_version, shared, targets};
  return {std::move(shared), std::move(targets)};
}

// Whether a nomination of w can read no admitted workload: get_targets, which reads them, finds
// no candidate at all. Only the own queue is a source in a queue with value_memo (no reclaim
// within the cohort, no fair sharing); its candidates come lowest priority first.
bool Impl::admitted_set_unread(int w) const {
  const Wl& wl = wls[w];
  const CqState& q = cqs[wl.cq];
  switch (q.spec.preemption.within_cluster_queue) {
    case PreemptionPolicy::Never: return true;
    case PreemptionPolicy::LowerPriority:  // the stream ends at the first candidate of priority >= the head's
      return q.workloads.empty() || wls[*q.workloads.begin()].priority >= wl.priority;
    default: return q.workloads.empty();
  }
}

Impl::DerivedMemo* Impl::derived_memo(int w, int shape) {
  const Wl& wl = wls[w];
  const CqState& q = cqs[wl.cq];
  if (!q.value_memo || q.shape_per_workload) return nullptr;
  if (static_cast<std::size_t>(shape) >= derived_.size()) derived_.resize(static_cast<std::size_t>(shape) + 1);
  DerivedMemo& memo = derived_[static_cast<std::size_t>(shape)];
  if (!memo.ready) {
    // What assign reads for this shape: with one pod set, each (flavor, resource) of the groups
    // its requests fall in, at the pod set's total request (nothing is assigned before it).
    memo.ready = true;
    memo.usable = wl.spec.pod_sets.size() == 1 && !wl.spec.pod_sets[0].min_count;
    if (memo.usable) {
      std::vector<std::pair<int, Amount>> req;
      pod_set_requests(wl, 0, wl.spec.pod_sets[0].count, req);
      for (const auto& [r, total] : req) {
        auto g = q.group_of.find(r);
        if (g == q.group_of.end()) continue;
        for (int fl : q.groups[static_cast<std::size_t>(g->second)].flavors) memo.inputs.emplace_back(fr_of(fl, r), total);
      }
    }
  }
  if (!memo.usable || !admitted_set_unread(w)) return nullptr;
  derived_key_.clear();
  for (const auto& [fr, val] : memo.inputs) {
    auto [height, may_reclaim] = lowest_subtree_that_fits(wl.cq, fr, val);
    derived_key_.push_back(cq_available(wl.cq, fr));
    derived_key_.push_back(static_cast<Amount>(height) * 2 + (may_reclaim ? 1 : 0));
  }
  return &memo;
}

}  // namespace budcore::quota
