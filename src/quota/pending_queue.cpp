// The pending side of a ClusterQueue: queue order, heads, parking and cohort-tree requeues.
//
// Kueue moves every inadmissible workload of a cohort tree back to its heap after each finish,
// and each cycle takes one head per queue, so an event costs a pass over everything pending in
// the tree. Two things keep that pass cheap without changing a decision:
// - A requeue bumps the tree's generation (O(1)): a member parked in an older generation is
//   active again. Heads come from a cursor over a sorted array, so taking and parking a head
//   moves no workload.
// - Cycles in which every queue's head fails again exactly as the last head of its shape did
//   (the nomination memo, same quota state) change nothing but reasons and places; a run of
//   them is done in one step that walks the arrays (skip_failing_cycles).
#include <algorithm>
#include <cstdint>
#include <utility>

#include "quota/engine_impl.hpp"

namespace budcore::quota {

using Impl = AdmissionEngine::Impl;

bool Impl::heap_less(int a, int b) const {
  if (a == b) return false;  // lookups compare an element with itself: skip the key compare
  const Wl& x = wls[a];
  const Wl& y = wls[b];
  if (x.priority != y.priority) return x.priority > y.priority;
  if (x.creation_seq != y.creation_seq) return x.creation_seq < y.creation_seq;
  return x.key < y.key;
}

bool HeapOrder::operator()(int a, int b) const { return m->heap_less(a, b); }

const std::string& Impl::reason_of(int w) const {
  const Wl& wl = wls[w];
  if (wl.member && wl.cq >= 0) {
    const CqState& q = cqs[wl.cq];
    const std::size_t at = index_of(q, w);
    if (at < q.order.size() && q.order[at] == w && q.order_reason[at] != nullptr) return *q.order_reason[at];
  }
  return wl.reason();
}

std::size_t Impl::index_of(const CqState& q, int w) const {
  auto it = std::lower_bound(q.order.begin(), q.order.end(), w, [&](int a, int b) { return heap_less(a, b); });
  return static_cast<std::size_t>(it - q.order.begin());
}

// A new generation (the tree was requeued): every member is active, the cursor starts over.
void Impl::sync_queue(CqState& q) {
  const std::uint64_t gen = tree_gen[q.root];
  if (q.cursor_gen == gen) return;
  q.cursor_gen = gen;
  q.cursor = 0;
  q.early.clear();
  q.parked_ahead = 0;
}

int Impl::queue_head(CqState& q) {
  sync_queue(q);
  if (q.sticky >= 0 && active(q.sticky) && wls[q.sticky].state == WorkloadState::Pending) return q.sticky;
  if (!q.early.empty()) return q.early.front();  // behind the cursor, so ahead of its members
  while (q.cursor < q.order.size() && !active(q.order[q.cursor])) {
    if (parked(wls[q.order[q.cursor]])) --q.parked_ahead;
    ++q.cursor;
  }
  return q.cursor < q.order.size() ? q.order[q.cursor] : -1;
}

void Impl::take_head(int w) {
  Wl& wl = wls[w];
  auto& q = cqs[wl.cq];
  sync_queue(q);
  wl.taken = true;
  wl.taken_ahead = false;
  if (q.cursor < q.order.size() && q.order[q.cursor] == w) {
    q.order_reason[q.cursor] = nullptr;
    ++q.cursor;
    return;
  }
  // An early member has no walk reason: it joined behind the cursor, or came back there after
  // being taken (which cleared its entry), and walks start at the cursor.
  if (early_erase(q, w)) return;
  const std::size_t at = index_of(q, w);  // the sticky preemptor, out of turn
  if (at < q.order.size() && q.order[at] == w) q.order_reason[at] = nullptr;
  wl.taken_ahead = at >= q.cursor;
}

void Impl::push_heap(int w) {
  Wl& wl = wls[w];
  auto& q = cqs[wl.cq];
  sync_queue(q);
  const bool was_taken = wl.taken;
  wl.taken = false;
  wl.parked_gen = 0;
  if (!wl.member) {
    std::size_t at = index_of(q, w);
    q.order.insert(q.order.begin() + static_cast<std::ptrdiff_t>(at), w);
    q.order_shape.insert(q.order_shape.begin() + static_cast<std::ptrdiff_t>(at), wl.shape);
    q.order_reason.insert(q.order_reason.begin() + static_cast<std::ptrdiff_t>(at), nullptr);
    wl.member = true;
    if (at < q.cursor) {
      ++q.cursor;
      early_insert(q, w);
    }
    return;
  }
  // A taken head back in line: behind the cursor the walk will not see it again.
  if (was_taken && !wl.taken_ahead) early_insert(q, w);
}

void Impl::early_insert(CqState& q, int w) {
  auto it = std::lower_bound(q.early.begin(), q.early.end(), w, [&](int a, int b) { return heap_less(a, b); });
  if (it == q.early.end() || *it != w) q.early.insert(it, w);
}

bool Impl::early_erase(CqState& q, int w) {
  auto it = std::find(q.early.begin(), q.early.end(), w);
  if (it == q.early.end()) return false;
  q.early.erase(it);
  return true;
}

void Impl::make_inadmissible(int w) {
  Wl& wl = wls[w];
  wl.taken = false;
  wl.parked_gen = tree_gen[cqs[wl.cq].root];
  if (wl.taken_ahead) ++cqs[wl.cq].parked_ahead;
}

void Impl::leave_queue(int w) {
  Wl& wl = wls[w];
  if (wl.cq >= 0) {
    auto& q = cqs[wl.cq];
    if (wl.member) {
      sync_queue(q);
      std::size_t at = index_of(q, w);
      if (at < q.cursor) --q.cursor;
      else if (parked(wl)) --q.parked_ahead;
      q.order.erase(q.order.begin() + static_cast<std::ptrdiff_t>(at));
      q.order_shape.erase(q.order_shape.begin() + static_cast<std::ptrdiff_t>(at));
      q.order_reason.erase(q.order_reason.begin() + static_cast<std::ptrdiff_t>(at));
      early_erase(q, w);
    }
    if (q.sticky == w) q.sticky = -1;
  }
  wl.member = false;
  wl.taken = false;
  wl.parked_gen = 0;
}

// A workload left the tree (finished or evicted): everything inadmissible in the whole cohort
// tree is active again (requeueWorkloadsCohort walks from the root).
void Impl::requeue_tree(int node) { ++tree_gen[root_of(node)]; }

// T cycles at once, T the largest number such that in each of them every queue with a head has
// one whose shape failed at this state version: cycle k takes each queue's k-th head. Only
// queues in their plain state qualify (no sticky preemptor, nothing behind or parked ahead of
// the cursor); otherwise, or when the next cycle has a head that is not a known failure, this
// returns 0 and run_cycle() does the next cycle. No queue is scanned past the cycle at which
// another one already stops the run, and a shape is nominated only in the cycle that reaches it.
std::int64_t Impl::skip_failing_cycles(CycleReport& report, WalkEnd& walk_end) {
  walk_end = WalkEnd::Other;
  std::vector<SkipRun>& runs = skip_runs_;
  runs.clear();
  bool strict_only = true;
  for (auto& q : cqs) {
    if (q.spec.stop_policy != StopPolicy::None) continue;
    sync_queue(q);
    if (q.sticky >= 0 && active(q.sticky)) return 0;
    if (!q.early.empty() || q.parked_ahead > 0) return 0;
    const std::size_t i = q.cursor;
    if (i == q.order.size()) continue;    // no head
    if (wls[q.order[i]].taken) return 0;  // none outside a cycle; kept for safety
    const bool strict = q.spec.queueing_strategy == QueueingStrategy::StrictFIFO;
    const std::string* failure = failure_at(q.order_shape[i], q.order[i]);
    if (failure == nullptr) {
      walk_end = WalkEnd::HeadOpen;  // queue_head's too: the plain state's head is the cursor's member
      return 0;
    }
    runs.push_back({&q, strict, failure});
    strict_only = strict_only && strict;
  }
  if (runs.empty()) {
    walk_end = WalkEnd::NoHeads;
    return 0;
  }
  // Only StrictFIFO heads failing forever (their heads are taken and put back every cycle): one
  // ordinary cycle.
  if (strict_only) return 0;
  // Cycle k: every queue that still has a head there must fail with it. Rows whose heads all
  // have shapes known to fail at this state are passed by a scan of each queue's shapes; at the
  // first row with a head not known to fail, the heads of that row are asked in turn (a shape met
  // for the first time is nominated there), and the run stops at the first that does not fail.
  // Queues that ran dry drop out; when all have, the last one to do so decided.
  auto& walking = skip_walking_;
  walking.clear();
  for (auto& r : runs)
    if (!r.strict) walking.push_back(&r);
  const bool none_strict = walking.size() == runs.size();
  // Passed members are parked by the cursor alone (nothing reads parked_gen behind it); their
  // reasons go to the queue's array: each is its shape's failure at this state.
  const std::string* const* text = failing_text_.data();
  auto give_reasons = [&](CqState& q, std::size_t from, std::size_t to) {
    const int* shape = q.order_shape.data();
    const std::string** reason = q.order_reason.data();
    std::size_t i = from;
    for (; i + 4 <= to; i += 4) {  // by four: a walk passes every parked member of its tree
      reason[i] = text[shape[i]];
      reason[i + 1] = text[shape[i + 1]];
      reason[i + 2] = text[shape[i + 2]];
      reason[i + 3] = text[shape[i + 3]];
    }
    for (; i < to; ++i) reason[i] = text[shape[i]];
  };
  // By shape, -1 included (never failing). Shapes are added only with workloads, never by a
  // nomination, so the arrays stay where they are during the walk.
  const std::uint64_t* failing = failing_version_.data() + 1;
  const std::uint64_t version = state_version;
  std::size_t cycles = 0, longest = 0;
  for (std::size_t row = 1;;) {
    std::size_t stop = SIZE_MAX, kept_walking = 0;
    for (SkipRun* r : walking) {
      const std::size_t len = r->q->order.size() - r->q->cursor;
      if (len <= row) {
        // Ran dry before this row: passed to its end however the run ends (it ends at this row
        // or later), so its reasons are given now and later rounds skip it.
        longest = std::max(longest, len);
        give_reasons(*r->q, r->q->cursor, r->q->order.size());
        continue;
      }
      walking[kept_walking++] = r;
      const std::size_t end = std::min(len, stop);
      longest = std::max(longest, len);
      if (row >= end) continue;
      // The scan stops at the first member not known to fail, or at `end`: -1 is written there
      // for the scan (the array's own -1 when end is the last member's successor).
      int* shapes = r->q->order_shape.data() + r->q->cursor;
      const int kept = std::exchange(shapes[end], -1);
      const int* p = shapes + row;
      while (failing[*p] == version) ++p;
      shapes[end] = kept;
      if (const auto c = static_cast<std::size_t>(p - shapes); c < end) stop = c;
    }
    walking.resize(kept_walking);
    if (stop == SIZE_MAX) {  // every queue ran dry through known failures
      cycles = std::max(row, longest);
      if (none_strict) walk_end = WalkEnd::NoHeads;  // no StrictFIFO head stays
      break;
    }
    bool stopped = false;
    for (SkipRun* r : walking) {
      const std::size_t i = r->q->cursor + stop;
      if (i >= r->q->order.size()) continue;
      if (failure_at(r->q->order_shape[i], r->q->order[i]) == nullptr) {
        stopped = true;
        break;
      }
    }
    if (stopped) {
      cycles = stop;
      walk_end = WalkEnd::HeadOpen;  // the row the cursors stop at has it
      break;
    }
    row = stop + 1;
  }
  for (SkipRun* r : walking) give_reasons(*r->q, r->q->cursor, std::min(r->q->order.size(), r->q->cursor + cycles));
  if (cycles == 0) return 0;
  for (auto& r : runs) {
    CqState& q = *r.q;
    if (r.strict) {
      q.order_reason[q.cursor] = r.failure;
      continue;
    }
    q.cursor = std::min(q.order.size(), q.cursor + cycles);
    report.changed = true;
  }
  cycle += static_cast<std::int64_t>(cycles);
  return static_cast<std::int64_t>(cycles);
}

}  // namespace budcore::quota
