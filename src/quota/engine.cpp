// AdmissionEngine: setup, workloads and the public surface. The scheduling cycle is in cycle.cpp,
// the queues in pending_queue.cpp.
#include <algorithm>

#include "quota/engine_impl.hpp"

namespace budcore::quota {

using core::Error;
using Impl = AdmissionEngine::Impl;

namespace {
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
    if (name == "pods") pods_resource = nres;
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
    q.waiting_reason = m.intern_text("waiting in ClusterQueue " + spec.name + " for its turn");
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
  for (auto& q : m.cqs) {
    q.root = m.root_of(q.node);
    const auto& pol = q.spec.preemption;
    q.value_memo = !options.fair_sharing && pol.reclaim_within_cohort == PreemptionPolicy::Never;
    q.shape_per_workload = options.fair_sharing || pol.within_cluster_queue == PreemptionPolicy::LowerOrNewerEqualPriority ||
                           pol.reclaim_within_cohort == PreemptionPolicy::LowerOrNewerEqualPriority;
    for (int n = q.node; n >= 0; n = m.nodes[n].parent) q.memo_path.push_back(n);
    for (const auto& g : q.groups)
      for (int f : g.flavors)
        for (int r : g.resources) q.memo_frs.push_back(m.fr_of(f, r));
  }
  return AdmissionEngine(std::move(impl));
}

core::Status AdmissionEngine::add_workload(const Workload& w) {
  std::lock_guard lock(impl_->mu);
  return impl_->add_workload(w, true);
}

void AdmissionEngine::reserve(std::size_t workloads) {
  std::lock_guard lock(impl_->mu);
  impl_->wls.reserve(workloads);
  impl_->wl_id.reserve(workloads);
}

core::Status Impl::add_workload(const Workload& w, bool enqueue, int* index) {
  Impl& m = *this;
  // Built in its slot, not moved there (a workload record is large); an error leaves the slot
  // as it was.
  const bool fresh_slot = m.free_slots.empty();
  const int id = fresh_slot ? static_cast<int>(m.wls.size()) : m.free_slots.back();
  if (fresh_slot) m.wls.emplace_back();
  else m.wls[id] = Wl{};
  struct SlotGuard {
    Impl& m;
    int id;
    bool fresh, keep = false;
    ~SlotGuard() {
      if (keep) return;
      if (fresh) {
        m.wls.pop_back();
      } else {
        m.wls[id] = Wl{};
        m.wls[id].removed = true;
      }
    }
  } guard{m, id, fresh_slot};
  Wl& wl = m.wls[id];
  wl.spec = w;
  wl.priority = w.priority;
  wl.creation_seq = w.creation_seq;
  wl.key = w.key();
  if (w.name.empty()) return Error::invalid("name", "", "workload name must not be empty");
  if (m.wl_id.count(wl.key)) return Error::invalid("name", wl.key, "duplicate workload");
  BUDCORE_TRY(check_pod_sets(w));
  for (const auto& ps : w.pod_sets) {
    Wl::PerPod& per_pod = wl.per_pod.emplace_back();
    for (const auto& [name, q] : ps.requests.items()) {
      auto it = m.resource_id.find(name);
      int r = it != m.resource_id.end() ? it->second : -1;
      const Amount milli = *q.milli_value();  // in range: check_pod_sets
      if (r < 0) {
        // A resource no queue covers: only a zero request may pass (checked at nomination).
        if (milli == 0) continue;
        wl.queue_error = "resource " + name + " unavailable in ClusterQueue";
        continue;
      }
      per_pod.emplace_back(r, milli);
    }
  }
  auto lq = m.lq_to_cq.find(w.namespace_ + "/" + w.queue);
  if (lq != m.lq_to_cq.end()) {
    wl.cq = lq->second;
  } else if (!w.admitted) {
    wl.queue_error = "LocalQueue " + w.namespace_ + "/" + w.queue + " doesn't exist";
  }
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
      FlavorOfResource psf;
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
  guard.keep = true;
  if (!fresh_slot) m.free_slots.pop_back();
  m.wl_id[wl.key] = id;
  if (index != nullptr) *index = id;
  Wl& stored = m.wls[id];
  if (stored.state == WorkloadState::Admitted) {
    m.add_wl_usage(id);
    m.quota_changed(stored.adm_cq);
    m.cqs[stored.adm_cq].workloads.insert(id);
    const Node& n = m.nodes[m.cqs[stored.adm_cq].node];
    for (const auto& [fr, v] : stored.usage) stored.borrowing = stored.borrowing || n.usage[fr] > n.nominal[fr];
  } else if (!enqueue) {
    stored.set_reason(stored.queue_error);
  } else if (stored.cq >= 0 && stored.queue_error.empty()) {
    m.push_heap(id);
    stored.reason_shared = m.cqs[stored.cq].waiting_reason;
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
  m.quota_changed(cq);
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
  if (with_targets_.w == w) with_targets_ = {};  // the slot may hold another workload next
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
    m.quota_changed(cq);  // quota came back: memoized failed nominations are stale
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
    std::string why = a.reasons;
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
    Impl::WalkEnd walk_end = Impl::WalkEnd::Other;
    if (m.evicting.empty() && m.options.memoize_nominations) {
      // No second call after a run: it would stop at once, where this one stopped.
      ran += m.skip_failing_cycles(total, walk_end);
      bool unchanged = false;
      // With no head in any queue there is nothing to repeat.
      if (std::int64_t repeated = walk_end == Impl::WalkEnd::NoHeads ? 0 : m.repeat_cycles(total, unchanged); repeated > 0) {
        ran += repeated;
        if (unchanged) break;  // as a cycle that changed nothing below
        continue;
      }
    }
    // What the walk saw still holds when repeat_cycles repeated nothing: the heads are as it left them.
    CycleReport r = m.run_cycle(walk_end);
    ++ran;
    total.changed = total.changed || r.changed;
    const bool decided = !r.admitted.empty() || !r.preempted.empty() || !r.released.empty();
    for (auto part : {&CycleReport::admitted, &CycleReport::preempted, &CycleReport::released}) {
      if ((total.*part).empty()) (total.*part) = std::move(r.*part);  // the common case: one cycle decides
      else
        for (auto& k : r.*part) (total.*part).push_back(std::move(k));
    }
    if (decided || !r.changed) break;
  }
  if (cycles != nullptr) *cycles = ran;
  return total;
}

std::uint64_t AdmissionEngine::fresh_nominations() const {
  std::lock_guard lock(impl_->mu);
  return impl_->fresh_nominations;
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
    s.pending_reason = m.reason_of(static_cast<int>(&wl - m.wls.data()));
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
