// AdmissionEngine: setup, queues and Kueue's scheduling cycle (pkg/scheduler/scheduler.go).
#include <algorithm>

#include "quota/engine_impl.hpp"

namespace budcore::quota {

using core::Error;
using Impl = AdmissionEngine::Impl;

namespace {
std::string joined_reasons(const Assignment& a) {
  std::string out;
  for (const auto& r : a.reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

// The pending reason of a head that failed: no fit, or no workloads to preempt.
std::string failure_reason(const Assignment& a) {
  if (a.failure != nullptr) return *a.failure;
  std::string reasons = joined_reasons(a);
  if (a.mode == AMode::NoFit) return reasons.empty() ? "couldn't assign flavors" : reasons;
  return reasons + (reasons.empty() ? "" : "; ") + "no workloads can be preempted to make room";
}

void set_failure(Wl& wl, const Assignment& a) {
  if (a.failure != nullptr) wl.reason_shared = a.failure;
  else wl.set_reason(failure_reason(a));
}

core::Result<Amount> to_milli(const core::Quantity& q, const std::string& field) {
  auto m = q.milli_value();
  if (!m) return Error::invalid(field, q.to_string(), "quantity out of range");
  return *m;
}
}  // namespace

int Impl::intern_resource(const std::string& name, core::QuantityFormat fmt) {
  auto [it, inserted] = resource_id.emplace(name, nres);
  if (inserted) {
    resource_names.push_back(name);
    resource_format.push_back(fmt);
    ++nres;
  }
  return it->second;
}

core::Status Impl::build(const QuotaConfig& config) {
  BUDCORE_TRY(validate(config));
  for (const auto& f : config.resource_flavors) {
    flavor_id.emplace(f.name, static_cast<int>(flavors.size()));
    flavors.push_back(f);
  }
  auto intern_groups = [&](const std::vector<ResourceGroup>& groups) {
    for (const auto& g : groups)
      for (const auto& f : g.flavors)
        for (const auto& r : f.resources) intern_resource(r.name, r.nominal.format());
  };
  for (const auto& c : config.cohorts) intern_groups(c.resource_groups);
  for (const auto& cq : config.cluster_queues) intern_groups(cq.resource_groups);
  for (const auto& pc : config.priority_classes) priority_class[pc.name] = pc.value;
  // Requests may name resources no queue covers; keep room for a few more resource ids.
  nres += 0;
  return {};
}

// Charges an assignment's quota to the workload's queue and marks it admitted.
void Impl::admit(int w, const Assignment& a) {
  Wl& wl = wls[w];
  int cq = wl.cq;
  wl.state = WorkloadState::Admitted;
  wl.adm_cq = cq;
  wl.usage = a.usage;
  wl.adm_counts = a.counts;
  wl.adm_ps_flavor.clear();
  wl.borrowing = false;
  for (const auto& ps : a.pod_sets) {
    std::map<int, int> m;
    for (const auto& [r, ra] : ps.flavors) m[r] = ra.flavor;
    wl.adm_ps_flavor.push_back(std::move(m));
  }
  add_wl_usage(w);
  ++state_version;
  for (const auto& [fr, v] : wl.usage)
    if (nodes[cqs[cq].node].usage[fr] > nodes[cqs[cq].node].nominal[fr]) wl.borrowing = true;
  wl.borrowing = wl.borrowing || a.borrowing > 0;
  wl.reservation_seq = ++reservation_clock;
  wl.admitted_by_engine = true;
  wl.set_reason({});
  cqs[cq].workloads.insert(w);
  leave_queue(w);
}

CycleReport Impl::run_cycle() {
  CycleReport report;
  ++cycle;
  // Victims' evictions complete: release quota, requeue them and their tree's inadmissible set.
  auto victims = std::move(evicting);
  evicting.clear();
  for (int v : victims) {
    Wl& wl = wls[v];
    int cq = wl.adm_cq;
    remove_wl_usage(v);
    ++state_version;
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
  if (victims.empty() && trivial_cycle(report)) return report;
  // 1. Heads: one per ClusterQueue (the sticky preemptor first).
  std::vector<Entry> entries;
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
  // 4. Order: lower borrowing level, higher priority, earlier creation.
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& x, const Entry& y) {
    if (x.assignment->borrowing != y.assignment->borrowing) return x.assignment->borrowing < y.assignment->borrowing;
    const Wl& a = wls[x.wl];
    const Wl& b = wls[y.wl];
    if (a.spec.priority != b.spec.priority) return a.spec.priority > b.spec.priority;
    if (a.spec.creation_seq != b.spec.creation_seq) return a.spec.creation_seq < b.spec.creation_seq;
    return a.key < b.key;
  });
  // Temporary snapshot additions (reservations, preemptors' usage) undone at the end.
  std::vector<std::pair<int, std::vector<std::pair<int, Amount>>>> temp_usage;
  std::set<int> claimed;  // victims chosen this cycle
  auto fits_without = [&](int cq, const std::vector<std::pair<int, Amount>>& usage, const std::vector<int>& extra) {
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
    bool fit_now;
    if (overlap) {
      // RecomputeAssignmentUponPreemptionTargetsOverlap: with other victims gone, same flavors.
      for (int v : claimed) remove_wl_usage(v);
      Assignment pinned = *e.assignment;
      Assignment na = assign(e.wl, pinned.counts, &pinned);
      std::vector<int> nt;
      if (na.mode == AMode::Preempt) nt = get_targets(e.wl, frs_of(na), na.usage);
      for (int v : claimed) add_wl_usage(v);
      if (na.mode == AMode::Fit) na.mode = AMode::DeferredFit;
      e.assignment = std::make_shared<const Assignment>(std::move(na));
      e.targets = std::move(nt);
      overlap = std::any_of(e.targets.begin(), e.targets.end(), [&](int t) { return claimed.count(t) > 0; });
    }
    fit_now = fits_without(cq, e.assignment->usage, e.targets);
    AMode mode = e.assignment->mode;
    if (mode == AMode::NoFit) {
      e.outcome = Entry::Outcome::NoFit;
      set_failure(wl, *e.assignment);
    } else if (mode == AMode::Preempt && e.targets.empty()) {
      e.outcome = Entry::Outcome::NoCandidates;
      set_failure(wl, *e.assignment);
      if (cqs[cq].spec.preemption.reclaim_within_cohort != PreemptionPolicy::Any) {
        std::vector<std::pair<int, Amount>> reserve;
        const Node& n = nodes[cqs[cq].node];
        for (const auto& [fr, v] : e.assignment->usage) {
          Amount r;
          if (e.assignment->borrowing > 0) {
            r = n.borrowing_limit[fr] == kNoLimit ? v : std::min(v, sat_sub(sat_add(n.nominal[fr], n.borrowing_limit[fr]), n.usage[fr]));
          } else {
            r = std::max<Amount>(0, std::min(v, sat_sub(n.nominal[fr], n.usage[fr])));
          }
          reserve.emplace_back(fr, r);
        }
        add_usage_list(cq, reserve);
        temp_usage.emplace_back(cq, std::move(reserve));
      }
    } else if (mode == AMode::DeferredFit) {
      e.outcome = Entry::Outcome::Deferred;
      wl.set_reason("waiting for preempted workloads to release quota");
      add_usage_list(cq, e.assignment->usage);
      temp_usage.emplace_back(cq, e.assignment->usage);
    } else if (overlap || !fit_now) {
      e.outcome = Entry::Outcome::Skipped;
      wl.set_reason(overlap ? "has overlapping preemption targets with another workload"
                          : "no longer fits after processing another workload");
      if (std::string reasons = joined_reasons(*e.assignment); !reasons.empty()) wl.set_reason(wl.reason() + "; " + reasons);
    } else if (mode == AMode::Preempt) {
      e.outcome = Entry::Outcome::Preempting;
      add_usage_list(cq, e.assignment->usage);
      temp_usage.emplace_back(cq, e.assignment->usage);
      std::string names;
      for (int t : e.targets) {
        claimed.insert(t);
        wls[t].state = WorkloadState::Evicting;
        ++state_version;
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
  for (auto it = temp_usage.rbegin(); it != temp_usage.rend(); ++it) remove_usage_list(it->first, it->second);
  // 5. Requeue what was not admitted.
  for (auto& e : entries) {
    if (e.outcome == Entry::Outcome::Admitted) continue;
    Wl& wl = wls[e.wl];
    auto& q = cqs[wl.cq];
    bool strict = q.spec.queueing_strategy == QueueingStrategy::StrictFIFO;
    bool immediate = strict || e.outcome == Entry::Outcome::Skipped || e.outcome == Entry::Outcome::Preempting ||
                     e.outcome == Entry::Outcome::Deferred;
    if (e.outcome == Entry::Outcome::Preempting && !strict) q.sticky = e.wl;
    if (immediate) {
      push_heap(e.wl);
    } else {
      make_inadmissible(e.wl);
      report.changed = true;
    }
  }
  return report;
}

// Everything a nomination reads of the workload itself: its queue, priority (and creation order
// where a policy compares it), and every pod set's name, counts, per-pod requests and
// scheduling constraints.
int Impl::shape_of(const Wl& wl) {
  std::string k = std::to_string(wl.cq) + "|" + std::to_string(wl.spec.priority);
  const auto& pol = cqs[wl.cq].spec.preemption;
  if (options.fair_sharing || pol.within_cluster_queue == PreemptionPolicy::LowerOrNewerEqualPriority ||
      pol.reclaim_within_cohort == PreemptionPolicy::LowerOrNewerEqualPriority)
    k += "|" + std::to_string(wl.spec.creation_seq);
  for (std::size_t p = 0; p < wl.spec.pod_sets.size(); ++p) {
    const PodSet& ps = wl.spec.pod_sets[p];
    k += "|" + ps.name + "#" + std::to_string(ps.count) + "#" + (ps.min_count ? std::to_string(*ps.min_count) : "-");
    for (const auto& [r, v] : wl.per_pod[p]) k += ":" + std::to_string(r) + "=" + std::to_string(v);
    for (const auto& [a, b] : ps.node_selector) k += "@" + a + "=" + b;
    for (const auto& t : ps.tolerations) k += "~" + t.key + "=" + t.value + "/" + t.effect;
  }
  auto [it, inserted] = shape_ids.emplace(std::move(k), static_cast<int>(shape_ids.size()));
  return it->second;
}

const std::string* Impl::intern_failure(std::string text) {
  auto it = failure_texts.find(text);
  if (it == failure_texts.end()) {
    auto owned = std::make_unique<const std::string>(text);
    it = failure_texts.emplace(std::move(text), std::move(owned)).first;
  }
  return it->second.get();
}

const Impl::Nomination* Impl::failed_nomination(int shape) const {
  if (shape < 0 || static_cast<std::size_t>(shape) >= failed_nominations.size()) return nullptr;
  const Nomination& n = failed_nominations[static_cast<std::size_t>(shape)];
  return n.version == state_version ? &n : nullptr;
}

std::pair<std::shared_ptr<const Assignment>, std::vector<int>> Impl::nominate(int w) {
  const int shape = options.memoize_nominations ? wls[w].shape : -1;
  if (const Nomination* n = failed_nomination(shape)) return {n->assignment, {}};
  auto [a, targets] = initial_assignment(w);
  bool failed = targets.empty() && (a.mode == AMode::NoFit || a.mode == AMode::Preempt);
  if (failed) a.failure = intern_failure(failure_reason(a));
  auto shared = std::make_shared<const Assignment>(std::move(a));
  if (shape >= 0 && failed) {
    if (static_cast<std::size_t>(shape) >= failed_nominations.size()) failed_nominations.resize(static_cast<std::size_t>(shape) + 1);
    failed_nominations[static_cast<std::size_t>(shape)] = Nomination{state_version, shared};
  }
  return {std::move(shared), std::move(targets)};
}

// A cycle in which every queue's head is a known failure at this state version (memo) changes
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
    const Nomination* n = failed_nomination(wls[head].shape);
    if (n == nullptr) return false;
    heads.emplace_back(head, n);
  }
  if (heads.empty()) return false;
  for (auto [w, n] : heads) {
    Wl& wl = wls[w];
    take_head(w);
    wl.reason_shared = n->assignment->failure;
    if (cqs[wl.cq].spec.queueing_strategy == QueueingStrategy::StrictFIFO) {
      push_heap(w);
    } else {
      make_inadmissible(w);
      report.changed = true;
    }
  }
  return true;
}

// --- public surface

AdmissionEngine::AdmissionEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AdmissionEngine::AdmissionEngine(AdmissionEngine&&) noexcept = default;
AdmissionEngine& AdmissionEngine::operator=(AdmissionEngine&&) noexcept = default;
AdmissionEngine::~AdmissionEngine() = default;

core::Result<AdmissionEngine> AdmissionEngine::create(const QuotaConfig& config, EngineOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  BUDCORE_TRY(impl->build(config));
  Impl& m = *impl;
  // Nodes: cluster queues first (node index == cq index), then cohorts (declared or implicit).
  for (std::size_t i = 0; i < config.cluster_queues.size(); ++i) {
    Node n;
    n.name = config.cluster_queues[i].name;
    n.is_cq = true;
    m.nodes.push_back(std::move(n));
    m.cq_id[config.cluster_queues[i].name] = static_cast<int>(i);
  }
  auto cohort_of = [&](const std::string& name) {
    auto it = m.cohort_node.find(name);
    if (it != m.cohort_node.end()) return it->second;
    Node n;
    n.name = name;
    m.nodes.push_back(std::move(n));
    int id = static_cast<int>(m.nodes.size()) - 1;
    m.cohort_node[name] = id;
    return id;
  };
  for (const auto& c : config.cohorts) cohort_of(c.name);
  for (const auto& c : config.cohorts) {
    int id = m.cohort_node[c.name];
    m.nodes[id].weight = c.fair_weight;
    if (c.parent) {
      int p = cohort_of(*c.parent);
      m.nodes[id].parent = p;
      m.nodes[p].child_cohorts.push_back(id);
    }
  }
  for (std::size_t i = 0; i < config.cluster_queues.size(); ++i) {
    const auto& cq = config.cluster_queues[i];
    m.nodes[i].weight = cq.fair_weight;
    if (cq.cohort) {
      int p = cohort_of(*cq.cohort);
      m.nodes[i].parent = p;
      m.nodes[p].child_cqs.push_back(static_cast<int>(i));
    }
  }
  const int F = m.fr_count();
  for (auto& n : m.nodes) {
    n.nominal.assign(F, 0);
    n.borrowing_limit.assign(F, kNoLimit);
    n.lending_limit.assign(F, kNoLimit);
    n.usage.assign(F, 0);
  }
  auto load_groups = [&](int node, const std::vector<ResourceGroup>& groups, const std::string& base) -> core::Status {
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (std::size_t f = 0; f < groups[g].flavors.size(); ++f) {
        const auto& fq = groups[g].flavors[f];
        int fl = m.flavor_id.at(fq.name);
        for (std::size_t r = 0; r < fq.resources.size(); ++r) {
          const auto& rq = fq.resources[r];
          std::string path = base + ".resource_groups[" + std::to_string(g) + "].flavors[" + std::to_string(f) +
                             "].resources[" + std::to_string(r) + "]";
          int fr = m.fr_of(fl, m.resource_id.at(rq.name));
          BUDCORE_TRY_ASSIGN(m.nodes[node].nominal[fr], to_milli(rq.nominal, path + ".nominal"));
          if (rq.borrowing_limit) {
            BUDCORE_TRY_ASSIGN(m.nodes[node].borrowing_limit[fr], to_milli(*rq.borrowing_limit, path + ".borrowing_limit"));
          }
          if (rq.lending_limit) {
            BUDCORE_TRY_ASSIGN(m.nodes[node].lending_limit[fr], to_milli(*rq.lending_limit, path + ".lending_limit"));
          }
        }
      }
    return {};
  };
  for (std::size_t i = 0; i < config.cohorts.size(); ++i)
    BUDCORE_TRY(load_groups(m.cohort_node[config.cohorts[i].name], config.cohorts[i].resource_groups,
                            "cohorts[" + std::to_string(i) + "]"));
  for (std::size_t i = 0; i < config.cluster_queues.size(); ++i) {
    const auto& spec = config.cluster_queues[i];
    BUDCORE_TRY(load_groups(static_cast<int>(i), spec.resource_groups, "cluster_queues[" + std::to_string(i) + "]"));
    CqState q;
    q.spec = spec;
    q.node = static_cast<int>(i);
    q.early = std::set<int, HeapOrder>(HeapOrder{impl.get()});
    q.workloads = std::set<int, ByCandidateOrder>(ByCandidateOrder{impl.get()});
    for (const auto& g : spec.resource_groups) {
      CqState::Group grp;
      for (const auto& r : g.covered_resources) {
        grp.resources.push_back(m.resource_id.at(r));
        q.group_of[m.resource_id.at(r)] = static_cast<int>(q.groups.size());
      }
      for (const auto& f : g.flavors) grp.flavors.push_back(m.flavor_id.at(f.name));
      q.groups.push_back(std::move(grp));
    }
    m.cqs.push_back(std::move(q));
  }
  for (const auto& lq : config.local_queues) m.lq_to_cq[lq.key()] = m.cq_id.at(lq.cluster_queue);
  m.recompute_tree();
  m.tree_gen.assign(m.nodes.size(), 1);
  for (auto& q : m.cqs) q.root = m.root_of(q.node);
  return AdmissionEngine(std::move(impl));
}

core::Status AdmissionEngine::add_workload(const Workload& w) {
  std::lock_guard lock(impl_->mu);
  return impl_->add_workload(w, true);
}

core::Status Impl::add_workload(const Workload& w, bool enqueue, int* index) {
  Impl& m = *this;
  Wl wl;
  wl.spec = w;
  wl.key = w.key();
  if (w.name.empty()) return Error::invalid("name", "", "workload name must not be empty");
  if (m.wl_id.count(wl.key)) return Error::invalid("name", wl.key, "duplicate workload");
  if (w.pod_sets.empty()) return Error::invalid("pod_sets", "", "a workload needs at least one pod set");
  std::set<std::string> ps_names;
  for (std::size_t p = 0; p < w.pod_sets.size(); ++p) {
    const auto& ps = w.pod_sets[p];
    std::string path = "pod_sets[" + std::to_string(p) + "]";
    if (!ps_names.insert(ps.name).second) return Error::invalid(path + ".name", ps.name, "duplicate pod set name");
    if (ps.count < 0) return Error::invalid(path + ".count", std::to_string(ps.count), "count must not be negative");
    if (ps.min_count && (*ps.min_count < 1 || *ps.min_count > ps.count))
      return Error::invalid(path + ".min_count", std::to_string(*ps.min_count), "min_count must be between 1 and count");
    std::vector<std::pair<int, Amount>> per_pod;
    for (const auto& [name, q] : ps.requests.items()) {
      if (q.sign() < 0) return Error::invalid(path + ".requests." + name, q.to_string(), "request must not be negative");
      auto it = m.resource_id.find(name);
      int r = it != m.resource_id.end() ? it->second : -1;
      Amount milli;
      BUDCORE_TRY_ASSIGN(milli, to_milli(q, path + ".requests." + name));
      if (r < 0) {
        // A resource no queue covers: only a zero request may pass (checked at nomination).
        if (milli == 0) continue;
        wl.queue_error = "resource " + name + " unavailable in ClusterQueue";
        continue;
      }
      per_pod.emplace_back(r, milli);
    }
    wl.per_pod.push_back(std::move(per_pod));
  }
  auto lq = m.lq_to_cq.find(w.namespace_ + "/" + w.queue);
  if (lq != m.lq_to_cq.end()) {
    wl.cq = lq->second;
  } else if (!w.admitted) {
    wl.queue_error = "LocalQueue " + w.namespace_ + "/" + w.queue + " doesn't exist";
  }
  int id = m.free_slots.empty() ? static_cast<int>(m.wls.size()) : m.free_slots.back();
  if (w.admitted) {
    auto cq = m.cq_id.find(w.admitted->cluster_queue);
    if (cq == m.cq_id.end()) return Error::invalid("admitted.cluster_queue", w.admitted->cluster_queue, "unknown cluster queue");
    wl.adm_cq = cq->second;
    for (std::size_t p = 0; p < w.pod_sets.size(); ++p) {
      const auto& ps = w.pod_sets[p];
      std::int32_t count = ps.count;
      if (auto c = w.admitted->count.find(ps.name); c != w.admitted->count.end()) count = c->second;
      if (count < 0 || count > ps.count)
        return Error::invalid("admitted.count." + ps.name, std::to_string(count), "must be between 0 and the pod set's count");
      wl.adm_counts.push_back(count);
      std::map<int, int> psf;
      auto fl = w.admitted->flavors.find(ps.name);
      for (const auto& [r, v] : wl.per_pod[p]) {
        std::string path = "admitted.flavors." + ps.name + "." + m.resource_names[r];
        if (fl == w.admitted->flavors.end() || !fl->second.count(m.resource_names[r])) {
          if (v == 0) continue;
          return Error::invalid(path, "", "admitted workload has no flavor for a requested resource");
        }
        auto f = m.flavor_id.find(fl->second.at(m.resource_names[r]));
        if (f == m.flavor_id.end()) return Error::invalid(path, fl->second.at(m.resource_names[r]), "unknown resource flavor");
        psf[r] = f->second;
        Amount total;
        if (__builtin_mul_overflow(v, static_cast<Amount>(count), &total)) total = kMaxAmount;
        int fr = m.fr_of(f->second, r);
        auto it = std::find_if(wl.usage.begin(), wl.usage.end(), [&](const auto& x) { return x.first == fr; });
        if (it != wl.usage.end()) it->second = sat_add(it->second, total);
        else wl.usage.emplace_back(fr, total);
      }
      wl.adm_ps_flavor.push_back(std::move(psf));
    }
    std::sort(wl.usage.begin(), wl.usage.end());
    wl.state = WorkloadState::Admitted;
    wl.reservation_seq = w.reservation_seq.value_or(w.creation_seq);
    if (wl.cq < 0) wl.cq = wl.adm_cq;
  }
  if (wl.queue_error.empty() && wl.cq >= 0) wl.shape = m.shape_of(wl);
  if (id == static_cast<int>(m.wls.size())) {
    m.wls.push_back(std::move(wl));
  } else {
    m.free_slots.pop_back();
    m.wls[id] = std::move(wl);
  }
  m.wl_id[m.wls[id].key] = id;
  if (index != nullptr) *index = id;
  Wl& stored = m.wls[id];
  if (stored.state == WorkloadState::Admitted) {
    m.add_wl_usage(id);
    ++m.state_version;
    m.cqs[stored.adm_cq].workloads.insert(id);
    const Node& n = m.nodes[m.cqs[stored.adm_cq].node];
    for (const auto& [fr, v] : stored.usage) stored.borrowing = stored.borrowing || n.usage[fr] > n.nominal[fr];
  } else if (!enqueue) {
    stored.set_reason(stored.queue_error);
  } else if (stored.cq >= 0 && stored.queue_error.empty()) {
    m.push_heap(id);
    stored.set_reason("waiting in ClusterQueue " + m.cqs[stored.cq].spec.name + " for its turn");
  } else {
    stored.set_reason(stored.queue_error);
  }
  return {};
}

namespace {
core::Result<int> workload_index(const Impl& m, std::string_view key) {
  auto it = m.wl_id.find(std::string(key));
  if (it == m.wl_id.end()) return Error::make(core::ErrorCode::NotFound, "unknown workload " + std::string(key), "key");
  return it->second;
}
}  // namespace

core::Status AdmissionEngine::finish(std::string_view key) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  int w;
  BUDCORE_TRY_ASSIGN(w, workload_index(m, key));
  Wl& wl = m.wls[w];
  if (wl.state == WorkloadState::Pending) {
    m.leave_queue(w);
    wl.cq = -1;
    wl.queue_error = "finished";
    wl.set_reason("finished");
    return {};
  }
  int cq = wl.adm_cq;
  m.remove_wl_usage(w);
  ++m.state_version;
  m.cqs[cq].workloads.erase(w);
  m.evicting.erase(std::remove(m.evicting.begin(), m.evicting.end(), w), m.evicting.end());
  wl.state = WorkloadState::Pending;
  wl.cq = -1;
  wl.queue_error = "finished";
  wl.set_reason("finished");
  m.requeue_tree(m.cqs[cq].node);
  return {};
}

core::Status AdmissionEngine::withdraw(std::string_view key) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  int w;
  BUDCORE_TRY_ASSIGN(w, workload_index(m, key));
  Wl& wl = m.wls[w];
  if (wl.state != WorkloadState::Pending)
    return Error::make(core::ErrorCode::Conflict, "workload " + std::string(key) + " holds quota; finish it instead", "key");
  m.leave_queue(w);
  // Its slot stays (indices are stable) but no queue or lookup reaches it any more.
  wl.withdrawn = true;
  wl.cq = -1;
  wl.set_reason("withdrawn");
  m.wl_id.erase(wl.key);
  return {};
}

void Impl::remove_slot(int w) {
  wl_id.erase(wls[w].key);
  wls[w] = Wl{};
  wls[w].removed = true;
  free_slots.push_back(w);
}

core::Status AdmissionEngine::remove(std::string_view key) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  int w;
  BUDCORE_TRY_ASSIGN(w, workload_index(m, key));
  Wl& wl = m.wls[w];
  if (wl.state == WorkloadState::Pending) {
    m.leave_queue(w);
  } else {
    int cq = wl.adm_cq;
    m.remove_wl_usage(w);
    m.cqs[cq].workloads.erase(w);
    m.evicting.erase(std::remove(m.evicting.begin(), m.evicting.end(), w), m.evicting.end());
    if (wl.cq >= 0 && m.cqs[wl.cq].sticky == w) m.cqs[wl.cq].sticky = -1;
    m.requeue_tree(m.cqs[cq].node);
    ++m.state_version;  // quota came back: memoized failed nominations are stale
  }
  m.remove_slot(w);
  return {};
}

core::Status AdmissionEngine::add_local_queue(const LocalQueue& queue) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  auto cq = m.cq_id.find(queue.cluster_queue);
  if (cq == m.cq_id.end()) return Error::invalid("cluster_queue", queue.cluster_queue, "unknown cluster queue");
  auto [it, inserted] = m.lq_to_cq.emplace(queue.key(), cq->second);
  if (!inserted && it->second != cq->second)
    return Error::invalid("name", queue.key(), "the local queue exists and points at another cluster queue");
  return {};
}

bool AdmissionEngine::has_local_queue(std::string_view key) const {
  std::lock_guard lock(impl_->mu);
  return impl_->lq_to_cq.count(std::string(key)) > 0;
}

CycleReport AdmissionEngine::run_cycle() {
  std::lock_guard lock(impl_->mu);
  return impl_->run_cycle();
}

core::Result<Admission> AdmissionEngine::try_reserve(const Workload& workload) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  if (workload.admitted) return Error::invalid("admitted", workload.admitted->cluster_queue, "try_reserve takes a workload that holds no quota");
  int w = -1;
  BUDCORE_TRY(m.add_workload(workload, false, &w));
  auto forget = [&] { m.remove_slot(w); };
  if (m.wls[w].cq < 0 || !m.wls[w].queue_error.empty()) {
    std::string why = m.wls[w].queue_error;
    forget();
    return Error::make(core::ErrorCode::NotFound, why, "queue");
  }
  std::vector<std::int32_t> counts;
  for (const auto& ps : workload.pod_sets) counts.push_back(ps.count);
  Assignment a = m.assign(w, counts, nullptr);
  if (a.mode != AMode::Fit) {
    std::string why;
    for (const auto& r : a.reasons) why += (why.empty() ? "" : "; ") + r;
    forget();
    return Error::make(core::ErrorCode::QuotaExceeded, why.empty() ? "does not fit" : why, "pod_sets");
  }
  m.admit(w, a);
  Admission out;
  out.cluster_queue = m.cqs[m.wls[w].cq].spec.name;
  for (std::size_t p = 0; p < workload.pod_sets.size(); ++p) {
    for (const auto& [r, f] : m.wls[w].adm_ps_flavor[p]) out.flavors[workload.pod_sets[p].name][m.resource_names[r]] = m.flavors[f].name;
    out.count[workload.pod_sets[p].name] = m.wls[w].adm_counts[p];
  }
  return out;
}

CycleReport AdmissionEngine::run_until_decision(std::int64_t* cycles) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  CycleReport total;
  std::int64_t ran = 0;
  for (;;) {
    if (m.evicting.empty() && m.options.memoize_nominations) {
      if (std::int64_t skipped = m.skip_failing_cycles(total); skipped > 0) {
        ran += skipped;
        continue;
      }
    }
    CycleReport r = m.run_cycle();
    ++ran;
    total.changed = total.changed || r.changed;
    for (auto part : {&CycleReport::admitted, &CycleReport::preempted, &CycleReport::released})
      for (auto& k : r.*part) (total.*part).push_back(std::move(k));
    if (!r.admitted.empty() || !r.preempted.empty() || !r.released.empty() || !r.changed) break;
  }
  if (cycles != nullptr) *cycles = ran;
  return total;
}

int AdmissionEngine::run_until_quiescent(int max_cycles) {
  std::lock_guard lock(impl_->mu);
  int n = 0;
  while (n < max_cycles) {
    ++n;
    if (!impl_->run_cycle().changed) break;
  }
  return n;
}


namespace {
WorkloadStatus status_of(const Impl& m, const Wl& wl) {
    WorkloadStatus s;
    s.key = wl.key;
    s.state = wl.state;
    s.borrowing = wl.borrowing;
    s.admitted_by_engine = wl.admitted_by_engine;
    s.preempted = wl.preempted;
    s.pending_reason = wl.reason();
    if (wl.state != WorkloadState::Pending) {
      Admission a;
      a.cluster_queue = m.cqs[wl.adm_cq].spec.name;
      for (std::size_t p = 0; p < wl.spec.pod_sets.size() && p < wl.adm_ps_flavor.size(); ++p) {
        const auto& name = wl.spec.pod_sets[p].name;
        auto& fm = a.flavors[name];
        for (const auto& [r, f] : wl.adm_ps_flavor[p]) fm[m.resource_names[r]] = m.flavors[f].name;
        a.count[name] = wl.adm_counts[p];
      }
      s.admission = std::move(a);
    }
    return s;
}
}  // namespace

std::optional<WorkloadStatus> AdmissionEngine::status(std::string_view key) const {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->wl_id.find(std::string(key));
  if (it == impl_->wl_id.end()) return std::nullopt;
  return status_of(*impl_, impl_->wls[it->second]);
}

std::vector<WorkloadStatus> AdmissionEngine::statuses() const {
  std::lock_guard lock(impl_->mu);
  std::vector<WorkloadStatus> out;
  out.reserve(impl_->wls.size());
  for (const auto& wl : impl_->wls)
    if (!wl.withdrawn && !wl.removed) out.push_back(status_of(*impl_, wl));
  return out;
}

namespace {
// Siblings' borrowing under n's parent, shared among the lenders pro rata to idle lendable quota.
Amount lent_by(const Impl& m, int n, int fr) {
  const Node& node = m.nodes[n];
  if (node.parent < 0) return 0;
  auto idle_lendable = [&](int c) {
    const Node& x = m.nodes[c];
    Amount lendable = sat_sub(x.subtree[fr], m.local_quota(c, fr));
    Amount above_guarantee = std::max<Amount>(0, sat_sub(x.usage[fr], m.local_quota(c, fr)));
    return std::max<Amount>(0, sat_sub(lendable, above_guarantee));
  };
  const Node& parent = m.nodes[node.parent];
  Amount borrowed = 0, supply = 0;
  auto visit = [&](int c) {
    borrowed = sat_add(borrowed, std::max<Amount>(0, sat_sub(m.nodes[c].usage[fr], m.nodes[c].subtree[fr])));
    supply = sat_add(supply, idle_lendable(c));
  };
  for (int c : parent.child_cqs) visit(c);
  for (int c : parent.child_cohorts) visit(c);
  Amount mine = idle_lendable(n);
  if (borrowed <= 0 || supply <= 0 || mine <= 0) return 0;
  auto share = static_cast<Amount>(static_cast<core::int128>(std::min(borrowed, supply)) * mine / supply);
  return std::min(share, mine);
}

UsageView usage_of(const Impl& m, bool cq_nodes) {
  UsageView view;
  for (int ni = 0; ni < static_cast<int>(m.nodes.size()); ++ni) {
    const Node& n = m.nodes[ni];
    if (n.is_cq != cq_nodes) continue;
    auto& per_flavor = view[n.name];
    for (int fl = 0; fl < static_cast<int>(m.flavors.size()); ++fl)
      for (int r = 0; r < m.nres; ++r) {
        int fr = m.fr_of(fl, r);
        bool configured = n.nominal[fr] != 0 || n.usage[fr] != 0 || n.borrowing_limit[fr] != kNoLimit || n.subtree[fr] != 0;
        if (!configured && cq_nodes) {
          // listed in the queue's groups with nominal 0?
          const auto& q = m.cqs[m.cq_id.at(n.name)];
          auto g = q.group_of.find(r);
          configured = g != q.group_of.end() &&
                       std::find(q.groups[g->second].flavors.begin(), q.groups[g->second].flavors.end(), fl) !=
                           q.groups[g->second].flavors.end();
        }
        if (!configured) continue;
        UsageCell c;
        c.nominal = n.nominal[fr];
        c.used = n.usage[fr];
        c.borrowed = std::max<Amount>(0, n.usage[fr] - (cq_nodes ? n.nominal[fr] : n.subtree[fr]));
        c.lent = lent_by(m, ni, fr);
        c.available = std::max<Amount>(0, m.available(ni, fr));
        per_flavor[m.flavors[fl].name][m.resource_names[r]] = c;
      }
  }
  return view;
}
}  // namespace

UsageView AdmissionEngine::cluster_queue_usage() const {
  std::lock_guard lock(impl_->mu);
  return usage_of(*impl_, true);
}
UsageView AdmissionEngine::local_queue_usage() const {
  std::lock_guard lock(impl_->mu);
  const Impl& m = *impl_;
  UsageView view;
  for (const auto& lq : m.lq_to_cq) view[lq.first];
  for (const auto& wl : m.wls) {
    if (wl.state == WorkloadState::Pending) continue;
    auto& per_flavor = view[wl.spec.namespace_ + "/" + wl.spec.queue];
    for (const auto& [fr, v] : wl.usage) {
      auto& c = per_flavor[m.flavors[fr / m.nres].name][m.resource_names[fr % m.nres]];
      c.used = sat_add(c.used, v);
      if (wl.borrowing) c.borrowed = sat_add(c.borrowed, v);
    }
  }
  return view;
}

UsageView AdmissionEngine::cohort_usage() const {
  std::lock_guard lock(impl_->mu);
  return usage_of(*impl_, false);
}

std::optional<std::int64_t> AdmissionEngine::max_capacity(std::string_view cluster_queue, std::string_view flavor,
                                                          std::string_view resource) const {
  std::lock_guard lock(impl_->mu);
  const Impl& m = *impl_;
  auto cq = m.cq_id.find(std::string(cluster_queue));
  auto fl = m.flavor_id.find(std::string(flavor));
  auto r = m.resource_id.find(std::string(resource));
  if (cq == m.cq_id.end() || fl == m.flavor_id.end() || r == m.resource_id.end()) return std::nullopt;
  return m.potential_available(m.cqs[cq->second].node, m.fr_of(fl->second, r->second));
}

std::string AdmissionEngine::capacity_shortfall(const ClusterQueue& q, const Workload& w) const {
  const std::string& cq = q.name;
  for (const auto& ps : w.pod_sets) {
    const std::int64_t count = ps.min_count.value_or(ps.count);
    for (const auto& [res, per_pod] : ps.requests.items()) {
      auto milli = per_pod.milli_value();
      if (!milli || *milli == 0) continue;
      std::int64_t need;
      if (__builtin_mul_overflow(*milli, count, &need)) need = INT64_MAX;
      std::optional<std::int64_t> best;
      for (const auto& g : q.resource_groups)
        for (const auto& f : g.flavors)
          if (auto cap = max_capacity(cq, f.name, res); cap && (!best || *cap > *best)) best = cap;
      const core::QuantityFormat format = format_of(res);
      auto text = [format](std::int64_t m) {
        return core::Quantity::from_nano(static_cast<core::int128>(m) * 1'000'000, format).to_string();
      };
      if (!best) return "requests " + text(need) + " " + res + " but " + cq + " provides no " + res;
      if (need > *best) return "requests " + text(need) + " " + res + " but " + cq + " can never provide more than " + text(*best);
    }
  }
  return {};
}

core::QuantityFormat AdmissionEngine::format_of(std::string_view resource) const {
  auto it = impl_->resource_id.find(std::string(resource));
  return it == impl_->resource_id.end() ? core::QuantityFormat::DecimalSI : impl_->resource_format[it->second];
}

}  // namespace budcore::quota
