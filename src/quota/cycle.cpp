// Kueue's scheduling cycle (pkg/scheduler/scheduler.go): heads, nomination (through the memo
// in nomination_memo.cpp), ordering, processing with in-cycle usage, requeueing; and admission.
#include <algorithm>
#include <cstring>

#include "quota/engine_impl.hpp"

namespace budcore::quota {

using Impl = AdmissionEngine::Impl;

std::string_view failure_reason(const Assignment& a, std::string& scratch) {
  if (a.failure != nullptr) return *a.failure;
  const std::string& reasons = a.reasons;
  if (a.mode == AMode::NoFit) return reasons.empty() ? std::string_view("couldn't assign flavors") : std::string_view(reasons);
  scratch.assign(reasons);
  if (!reasons.empty()) scratch += "; ";
  scratch += "no workloads can be preempted to make room";
  return scratch;
}

namespace {

void set_failure(Wl& wl, const Assignment& a) {
  if (a.failure != nullptr) wl.reason_shared = a.failure;
  else {
    std::string scratch;
    wl.set_reason(std::string(failure_reason(a, scratch)));
  }
}

}  // namespace

// Charges an assignment's quota to the workload's queue and marks it admitted.
void Impl::admit(int w, const Assignment& a) {
  Wl& wl = wls[w];
  int cq = wl.cq;
  wl.state = WorkloadState::Admitted;
  wl.adm_cq = cq;
  wl.usage = a.usage;
  wl.adm_counts.assign(a.counts.begin(), a.counts.end());
  wl.adm_ps_flavor.clear();
  wl.borrowing = false;
  for (const auto& ps : a.pod_sets) {
    FlavorOfResource& m = wl.adm_ps_flavor.emplace_back();
    for (const auto& [r, ra] : ps.flavors) m.emplace_hint(m.end(), r, ra.flavor);  // in resource order
  }
  add_wl_usage(w);
  quota_changed(cq);
  for (const auto& [fr, v] : wl.usage)
    if (nodes[cqs[cq].node].usage[fr] > nodes[cqs[cq].node].nominal[fr]) wl.borrowing = true;
  wl.borrowing = wl.borrowing || a.borrowing > 0;
  wl.reservation_seq = ++reservation_clock;
  wl.admitted_by_engine = true;
  wl.set_reason({});
  cqs[cq].workloads.insert(w);
  leave_queue(w);
}

CycleReport Impl::run_cycle(WalkEnd walk_end) {
  CycleReport report;
  ++cycle;
  // Victims' evictions complete: release quota, requeue them and their tree's inadmissible set.
  auto victims = std::move(evicting);
  evicting.clear();
  for (int v : victims) {
    Wl& wl = wls[v];
    int cq = wl.adm_cq;
    remove_wl_usage(v);
    quota_changed(cq);
    cqs[cq].workloads.erase(v);
    wl.state = WorkloadState::Pending;
    wl.adm_cq = -1;
    wl.usage.clear();
    wl.set_reason("preempted; waiting to be admitted again");
    report.released.push_back(wl.key);
    requeue_tree(cqs[cq].node);
    push_heap(v);
    report.changed = true;
  }
  if (victims.empty()) {
    if (walk_end == WalkEnd::NoHeads) {  // the steps below would find no entry, and record that
      last_cycle_.version = 0;
      return report;
    }
    if ((walk_end != WalkEnd::HeadOpen && trivial_cycle(report)) || repeat_cycle(report)) return report;
  }
  // 1. Heads: one per ClusterQueue (the sticky preemptor first).
  std::vector<Entry>& entries = cycle_entries_;
  entries.clear();
  for (auto& q : cqs) {
    if (q.spec.stop_policy != StopPolicy::None) continue;
    const int head = queue_head(q);
    if (head < 0) continue;
    take_head(head);
    Entry e;
    e.wl = head;
    entries.push_back(std::move(e));
  }
  // 2-3. Nominate against the start-of-cycle state.
  for (auto& e : entries) {
    auto [a, t] = nominate(e.wl);
    e.assignment = std::move(a);
    e.targets = std::move(t);
  }
  // 4. Order: lower borrowing level, higher priority, earlier creation (then key: a total order,
  // so any sort gives Kueue's). A cycle has one entry per queue: few, sorted in place.
  auto before = [&](const Entry& x, const Entry& y) {
    return entry_before(x.assignment->borrowing, x.wl, y.assignment->borrowing, y.wl);
  };
  if (entries.size() <= 16) {
    for (std::size_t i = 1; i < entries.size(); ++i)
      for (std::size_t j = i; j > 0 && before(entries[j], entries[j - 1]); --j) std::swap(entries[j], entries[j - 1]);
  } else {
    std::sort(entries.begin(), entries.end(), before);
  }
  // Temporary snapshot additions (reservations, preemptors' usage) undone at the end.
  temp_usage_.clear();
  temp_starts_.clear();
  auto add_temp = [&](int cq, int fr, Amount v) {
    add_usage(cqs[cq].node, fr, v);
    temp_usage_.push_back({cq, fr, v});
  };
  std::set<int> claimed;  // victims chosen this cycle
  auto fits_without = [&](int cq, const std::vector<std::pair<int, Amount>>& usage, const std::vector<int>& extra) {
    if (claimed.empty() && extra.empty()) return fits(cq, usage);
    std::vector<int> removed;
    for (int v : claimed) removed.push_back(v);
    for (int v : extra)
      if (!claimed.count(v)) removed.push_back(v);
    for (int v : removed) remove_wl_usage(v);
    bool ok = fits(cq, usage);
    for (int v : removed) add_wl_usage(v);
    return ok;
  };
  auto frs_of = [&](const Assignment& a) {
    std::vector<int> frs;
    for (const auto& ps : a.pod_sets)
      for (const auto& [r, ra] : ps.flavors)
        if (ra.mode != PMode::Fit && ra.mode != PMode::NoFit) frs.push_back(fr_of(ra.flavor, r));
    return frs;
  };
  auto process = [&](Entry& e) {
    Wl& wl = wls[e.wl];
    int cq = wl.cq;
    bool overlap = std::any_of(e.targets.begin(), e.targets.end(), [&](int t) { return claimed.count(t) > 0; });
    if (overlap) {
      // RecomputeAssignmentUponPreemptionTargetsOverlap: with other victims gone, same flavors.
      for (int v : claimed) remove_wl_usage(v);
      Assignment pinned = *e.assignment;
      Assignment na = assign(e.wl, {pinned.counts.data(), pinned.counts.size()}, &pinned);
      std::vector<int> nt;
      if (na.mode == AMode::Preempt) nt = get_targets(e.wl, frs_of(na), na.usage);
      for (int v : claimed) add_wl_usage(v);
      if (na.mode == AMode::Fit) na.mode = AMode::DeferredFit;
      e.assignment = std::make_shared<const Assignment>(std::move(na));
      e.targets = std::move(nt);
      overlap = std::any_of(e.targets.begin(), e.targets.end(), [&](int t) { return claimed.count(t) > 0; });
    }
    AMode mode = e.assignment->mode;
    if (mode == AMode::NoFit) {
      e.outcome = Entry::Outcome::NoFit;
      set_failure(wl, *e.assignment);
    } else if (mode == AMode::Preempt && e.targets.empty()) {
      e.outcome = Entry::Outcome::NoCandidates;
      set_failure(wl, *e.assignment);
      if (cqs[cq].spec.preemption.reclaim_within_cohort != PreemptionPolicy::Any) {
        // Each amount is read before any is added (the list is added as a whole).
        const Node& n = nodes[cqs[cq].node];
        temp_starts_.push_back(temp_usage_.size());
        for (const auto& [fr, v] : e.assignment->usage) {
          Amount r;
          if (e.assignment->borrowing > 0) {
            r = n.borrowing_limit[fr] == kNoLimit ? v : std::min(v, sat_sub(sat_add(n.nominal[fr], n.borrowing_limit[fr]), n.usage[fr]));
          } else {
            r = std::max<Amount>(0, std::min(v, sat_sub(n.nominal[fr], n.usage[fr])));
          }
          temp_usage_.push_back({cq, fr, r});
        }
        for (std::size_t i = temp_starts_.back(); i < temp_usage_.size(); ++i) add_usage(cqs[cq].node, temp_usage_[i].fr, temp_usage_[i].v);
      }
    } else if (mode == AMode::DeferredFit) {
      e.outcome = Entry::Outcome::Deferred;
      wl.set_reason("waiting for preempted workloads to release quota");
      temp_starts_.push_back(temp_usage_.size());
      for (const auto& [fr, v] : e.assignment->usage) add_temp(cq, fr, v);
    } else if (overlap || !fits_without(cq, e.assignment->usage, e.targets)) {  // asked only of a head that may be admitted
      e.outcome = Entry::Outcome::Skipped;
      const std::string*& text = e.assignment->skipped[overlap ? 1 : 0];
      if (text == nullptr) {
        std::string why = overlap ? "has overlapping preemption targets with another workload"
                                  : "no longer fits after processing another workload";
        if (!e.assignment->reasons.empty()) why += "; " + e.assignment->reasons;
        text = intern_text(std::move(why));
      }
      wl.reason_shared = text;
    } else if (mode == AMode::Preempt) {
      e.outcome = Entry::Outcome::Preempting;
      temp_starts_.push_back(temp_usage_.size());
      for (const auto& [fr, v] : e.assignment->usage) add_temp(cq, fr, v);
      std::string names;
      for (int t : e.targets) {
        claimed.insert(t);
        wls[t].state = WorkloadState::Evicting;
        quota_changed(wls[t].adm_cq);
        wls[t].preempted = true;
        evicting.push_back(t);
        report.preempted.push_back(wls[t].key);
        names += (names.empty() ? "" : ", ") + wls[t].key;
      }
      wl.set_reason("waiting for preempted workloads to release quota (" + names + ")");
      report.changed = true;
    } else {
      // Fit: reserve quota.
      e.outcome = Entry::Outcome::Admitted;
      admit(e.wl, *e.assignment);
      report.admitted.push_back(wl.key);
      report.changed = true;
    }
  };
  if (!options.fair_sharing) {
    for (auto& e : entries) process(e);
  } else {
    // Fair sharing: a DRS tournament per cohort tree picks each next entry, after the previous
    // entries' usage is in the snapshot (fair_sharing_iterator.go).
    std::vector<char> done(entries.size(), 0);
    for (std::size_t k = 0; k < entries.size(); ++k) {
      std::size_t i = fair_next(entries, done);
      done[i] = 1;
      process(entries[i]);
    }
  }
  // Undone entry by entry from the last, each entry's list in its order.
  for (std::size_t k = temp_starts_.size(), end = temp_usage_.size(); k-- > 0; end = temp_starts_[k])
    for (std::size_t i = temp_starts_[k]; i < end; ++i) remove_usage(cqs[temp_usage_[i].cq].node, temp_usage_[i].fr, temp_usage_[i].v);
  record_cycle(entries, report);
  // 5. Requeue what was not admitted.
  for (auto& e : entries)
    if (e.outcome != Entry::Outcome::Admitted) requeue(e.wl, e.outcome, report);
  return report;
}

void Impl::requeue(int w, Entry::Outcome outcome, CycleReport& report) {
  auto& q = cqs[wls[w].cq];
  bool strict = q.spec.queueing_strategy == QueueingStrategy::StrictFIFO;
  bool immediate = strict || outcome == Entry::Outcome::Skipped || outcome == Entry::Outcome::Preempting ||
                   outcome == Entry::Outcome::Deferred;
  if (outcome == Entry::Outcome::Preempting && !strict) q.sticky = w;
  if (immediate) {
    push_heap(w);
  } else {
    make_inadmissible(w);
    report.changed = true;
  }
}

// Kept only for a cycle whose every entry failed or was skipped, each with an interned reason;
// without fair sharing (its tournament reads usage between entries).
void Impl::record_cycle(const std::vector<Entry>& entries, const CycleReport& report) {
  auto& rec = last_cycle_;
  rec.version = 0;
  if (!options.memoize_nominations || options.fair_sharing || entries.empty() || !report.admitted.empty() ||
      !report.preempted.empty())
    return;
  rec.slots.clear();
  for (const Entry& e : entries) {
    const Wl& wl = wls[e.wl];
    const std::string* reason = wl.reason_shared;
    bool failed = e.outcome == Entry::Outcome::NoFit || e.outcome == Entry::Outcome::NoCandidates;
    if ((!failed && e.outcome != Entry::Outcome::Skipped) || reason == nullptr) return;
    rec.slots.push_back({wl.cq, wl.shape, e.targets.empty() ? -1 : e.wl, e.assignment->borrowing, e.outcome, reason});
  }
  rec.slot_of_cq.assign(cqs.size(), -1);
  for (std::size_t i = 0; i < rec.slots.size(); ++i) rec.slot_of_cq[static_cast<std::size_t>(rec.slots[i].cq)] = static_cast<int>(i);
  rec.version = state_version;
}

std::int64_t Impl::repeat_cycles(CycleReport& report, bool& unchanged) {
  std::int64_t rows = 0;
  for (;;) {
    bool changed = report.changed;
    report.changed = false;
    const bool repeated = repeat_cycle(report);
    const bool row_changed = report.changed;
    report.changed = changed || row_changed;
    if (!repeated) break;
    ++cycle;
    ++rows;
    if (!row_changed) {
      unchanged = true;
      break;
    }
    rows += repeat_rows(report);
  }
  return rows;
}

// After a repeat that parked heads: the rows that would repeat next, done at once. A queue whose
// head was requeued at once (skipped, StrictFIFO) has the same head in every row; a queue whose
// head was parked takes its next member each row, which must be of the slot's shape. Each row
// must also pass repeat_cycle's order check. Walking queues then move their cursor past the
// rows' heads and give each its slot's reason (as a walk of failing heads does).
std::int64_t Impl::repeat_rows(CycleReport& report) {
  auto& rec = last_cycle_;
  auto& heads = rec.heads;  // the row just repeated
  auto& walking = repeat_walking_;
  walking.assign(rec.slots.size(), 0);
  bool any = false;
  for (std::size_t i = 0; i < rec.slots.size(); ++i) {
    const CycleSlot& s = rec.slots[i];
    CqState& q = cqs[static_cast<std::size_t>(s.cq)];
    const bool strict = q.spec.queueing_strategy == QueueingStrategy::StrictFIFO;
    if (strict || s.outcome == Entry::Outcome::Skipped) {
      if (queue_head(q) != heads[i]) return 0;  // not the same head again
      continue;
    }
    // Walks need the plain state: the next heads are the members from the cursor on.
    if (s.wl >= 0 || (q.sticky >= 0 && active(q.sticky)) || !q.early.empty() || q.parked_ahead > 0) return 0;
    sync_queue(q);
    walking[i] = 1;
    any = true;
  }
  if (!any) return 0;
  auto& row = repeat_row_;
  std::size_t rows = 0;
  for (;; ++rows) {
    row = heads;
    bool ok = true;
    for (std::size_t i = 0; i < rec.slots.size() && ok; ++i) {
      if (walking[i] == 0) continue;
      const CqState& q = cqs[static_cast<std::size_t>(rec.slots[i].cq)];
      const std::size_t at = q.cursor + rows;
      ok = at < q.order.size() && q.order_shape[at] == rec.slots[i].shape;
      if (ok) row[i] = q.order[at];
    }
    for (std::size_t i = 1; i < row.size() && ok; ++i)
      ok = entry_before(rec.slots[i - 1].borrowing, row[i - 1], rec.slots[i].borrowing, row[i]);
    if (!ok) break;
  }
  if (rows == 0) return 0;
  for (std::size_t i = 0; i < rec.slots.size(); ++i) {
    if (walking[i] == 0) continue;
    CqState& q = cqs[static_cast<std::size_t>(rec.slots[i].cq)];
    for (std::size_t k = 0; k < rows; ++k) q.order_reason[q.cursor + k] = rec.slots[i].reason;
    q.cursor += rows;
  }
  report.changed = true;
  cycle += static_cast<std::int64_t>(rows);
  return static_cast<std::int64_t>(rows);
}

// The last full cycle again: same quota state, and each queue's head takes the same slot with
// the same shape (the same workload where the entry had victims) in the same order. Every
// nomination is then the same (the memo's premise), and so is every step of processing: no
// victims are claimed, and each entry sees the same in-cycle reservations before it.
bool Impl::repeat_cycle(CycleReport& report) {
  auto& rec = last_cycle_;
  if (rec.version != state_version || !options.memoize_nominations) return false;
  auto& heads = rec.heads;
  heads.assign(rec.slots.size(), -1);
  std::size_t found = 0;
  for (auto& q : cqs) {
    if (q.spec.stop_policy != StopPolicy::None) continue;
    const int head = queue_head(q);
    if (head < 0) continue;
    const int slot = rec.slot_of_cq[static_cast<std::size_t>(wls[head].cq)];
    if (slot < 0) return false;
    const CycleSlot& s = rec.slots[static_cast<std::size_t>(slot)];
    if (s.wl >= 0 ? s.wl != head : s.shape != wls[head].shape) return false;
    heads[static_cast<std::size_t>(slot)] = head;
    ++found;
  }
  if (found != rec.slots.size()) return false;
  // The full cycle's order must put them in slot order.
  for (std::size_t i = 1; i < heads.size(); ++i)
    if (!entry_before(rec.slots[i - 1].borrowing, heads[i - 1], rec.slots[i].borrowing, heads[i])) return false;
  for (std::size_t i = 0; i < heads.size(); ++i) take_head(heads[i]);
  for (std::size_t i = 0; i < heads.size(); ++i) {
    wls[heads[i]].reason_shared = rec.slots[i].reason;
    requeue(heads[i], rec.slots[i].outcome, report);
  }
  return true;
}

// Everything a nomination reads of the workload itself: its queue, priority (and creation order
// where a policy compares it), and every pod set's name, counts, per-pod requests and
// scheduling constraints.
int Impl::shape_of(const Wl& wl) {
  // Numbers take eight bytes each and texts carry their length, so no two different shapes
  // share a key (a selector value holding a separator cannot pass for another entry).
  std::string& k = shape_key_;  // reused: a shape is looked up for every workload added
  k.clear();
  auto num = [&](std::int64_t v) {  // fixed width: the bytes as they are (a key is never shown)
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    k.append(bytes, sizeof v);
  };
  auto text = [&](const std::string& t) {
    num(static_cast<std::int64_t>(t.size()));
    k += t;
  };
  num(wl.cq);
  num(wl.priority);
  if (cqs[wl.cq].shape_per_workload) num(wl.creation_seq);
  for (std::size_t p = 0; p < wl.spec.pod_sets.size(); ++p) {
    const PodSet& ps = wl.spec.pod_sets[p];
    text(ps.name);
    num(ps.count);
    num(ps.min_count ? *ps.min_count : -1);
    num(static_cast<std::int64_t>(wl.per_pod[p].size()));
    for (const auto& [r, v] : wl.per_pod[p]) {
      num(r);
      num(v);
    }
    num(static_cast<std::int64_t>(ps.node_selector.size()));
    for (const auto& [a, b] : ps.node_selector) {
      text(a);
      text(b);
    }
    num(static_cast<std::int64_t>(ps.tolerations.size()));
    for (const auto& t : ps.tolerations) {
      text(t.key);
      text(t.value);
      text(t.effect);
    }
  }
  if (auto it = shape_ids.find(k); it != shape_ids.end()) return it->second;
  const int shape = static_cast<int>(shape_ids.size());
  shape_ids.emplace(k, shape);
  failing_version_.push_back(0);
  failing_text_.push_back(nullptr);
  return shape;
}

const std::string* Impl::intern_text(std::string_view text) {
  auto it = interned_texts.find(text);
  if (it == interned_texts.end()) {
    auto owned = std::make_unique<const std::string>(text);
    it = interned_texts.emplace(std::string(text), std::move(owned)).first;
  }
  return it->second.get();
}

// A cycle in which every queue's head fails at this state (failure_now) changes
// nothing but those heads' reasons and places: no fit, or no preemption candidates (the quota
// such a head holds back for itself only matters to heads that could be admitted, and there
// are none). It is done here without building, sorting and processing entries; the outcome is
// the full cycle's. Heads are only taken once every queue's head is known to fail.
bool Impl::trivial_cycle(CycleReport& report) {
  if (!options.memoize_nominations) return false;
  auto& heads = trivial_heads_;
  heads.clear();
  for (auto& q : cqs) {
    if (q.spec.stop_policy != StopPolicy::None) continue;
    const int head = queue_head(q);
    if (head < 0) continue;
    const std::string* failure = failure_at(wls[head].shape, head);
    if (failure == nullptr) return false;
    heads.emplace_back(head, failure);
  }
  if (heads.empty()) return false;
  for (auto [w, failure] : heads) {
    Wl& wl = wls[w];
    take_head(w);
    wl.reason_shared = failure;
    if (cqs[wl.cq].spec.queueing_strategy == QueueingStrategy::StrictFIFO) {
      push_heap(w);
    } else {
      make_inadmissible(w);
      report.changed = true;
    }
  }
  return true;
}

}  // namespace budcore::quota
