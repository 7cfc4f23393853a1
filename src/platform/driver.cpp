// Driving the Platform: pumping the cluster's events (applied in batches: event_batch.cpp),
// automatic retries, pipeline engines, the virtual clock, and the background driver of a
// system-clock Platform.
#include <algorithm>
#include <set>

#include "budcore/core/json.hpp"
#include "budcore/job/state_machine.hpp"
#include "budcore/quota/job_workload.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using backend::ClusterEvent;
using backend::ClusterEventKind;
using core::Error;
using core::ErrorCode;
using job::JobStatus;
using Impl = Platform::Impl;

namespace {

constexpr int kMaxRoundsPerPump = 100'000;

}  // namespace

core::Status Impl::save_clock(backend::Store& tx) {
  if (!vclock) return {};
  return tx.put_platform_record("state", "clock", core::Value::map({{"now_ns", clock->now().unix_nanos()}}));
}

// The live job a cluster event is about: nullptr for usage, an old run, or (never expected) an
// event whose tenant is not the job's, which are not applied to a job.
LiveJob* Impl::event_job(const ClusterEvent& e) {
  if (e.kind == ClusterEventKind::Usage) return nullptr;
  auto it = live.find(e.job_id);
  if (it == live.end() || it->second.run != e.run || !it->second.in_cluster || it->second.tenant != e.tenant) return nullptr;
  return &it->second;
}

core::Status Impl::fire_retries() {
  const std::int64_t now = clock->now().unix_nanos();
  while (!retries.empty() && retries.top().first <= now) {
    auto [at, id] = retries.top();
    retries.pop();
    auto it = live.find(id);
    if (it == live.end() || it->second.status != JobStatus::Failed || it->second.retry_at_ns != at) continue;
    CallContext ctx = CallContext::for_tenant(it->second.tenant, "platform", "retry");
    auto r = retry(ctx, id, true);
    if (r) continue;
    if (halted) return *halted;
    // Refused (a gate, or the budget changed): the failure is final.
    core::Error why = r.error();
    auto rec = store->get_job(it->second.tenant, id);
    if (!rec) return fail_halted(rec.error());
    rec->job.status_message = (rec->job.status_message ? *rec->job.status_message + "; " : std::string()) +
                              "retry refused: " + why.message;
    // Captures a copy of the id: clang before 16 rejects capturing a structured binding.
    auto st = store->transact([&, key = id.to_string()](backend::Store& tx) -> core::Status {
      price_ended(tx, it->second.tenant, rec->job);
      BUDCORE_TRY(tx.write_job(it->second.tenant, rec->job, rec->version));
      return tx.delete_platform_record("job", key);
    });
    if (!st) return fail_halted(st.error());
    queued_docs.forget(it->first);
    live.erase(it);
  }
  return {};
}

core::Status Impl::pump_locked() {
  if (halted) return *halted;
  // A follower drives nothing: the leader does (ha.cpp).
  if (ha_role == HaRole::Follower) return {};
  if (ha_role == HaRole::Leader) {
    BUDCORE_TRY(apply_requests());
    if (ha_deposed) return {};
  }
  std::vector<ClusterEvent> events;
  for (int round = 0; round < kMaxRoundsPerPump; ++round) {
    // A long backlog does not starve the lease: a leader renews between rounds when it is due.
    if (ha_role == HaRole::Leader && !ha_keep_leading()) return {};
    bool progressed = false;
    if (!resubmit.empty()) {
      auto ids = std::move(resubmit);
      resubmit.clear();
      for (const core::Id& id : ids) {
        auto it = live.find(id);
        if (it == live.end() || it->second.in_cluster) continue;
        auto rec = store->get_job(it->second.tenant, id);
        if (!rec) return fail_halted(rec.error());
        hand_to_cluster(it->second, rec->job);
      }
    }
    std::size_t before = retries.size();
    BUDCORE_TRY(fire_retries());
    progressed |= retries.size() != before;
    // Before the cluster's events: a run that would end at the instant it passes its
    // budget_limit is stopped, not completed.
    before = budget_checks.size();
    BUDCORE_TRY(fire_budget_checks());
    progressed |= budget_checks.size() != before;
    for (;;) {
      events.clear();
      BUDCORE_TRY_ASSIGN(std::size_t n, cluster->poll(events, config.max_events_per_commit));
      if (n == 0) break;
      progressed = true;
      BUDCORE_TRY(apply_events(events));
      if (n < config.max_events_per_commit) break;
      // Between the commits of a long backlog, too.
      if (ha_role == HaRole::Leader && !ha_keep_leading()) return {};
    }
    // After the batch was metered: runs covered by a budget that passed and stops running jobs.
    const std::size_t live_before = live.size();
    BUDCORE_TRY(fire_budget_stops());
    progressed |= live.size() != live_before;
    BUDCORE_TRY(pump_runs(progressed));
    if (halted) return *halted;
    if (!progressed) {
      BUDCORE_TRY(compact_if_due());
      return publish_audit_anchor();
    }
  }
  return Error::make(ErrorCode::Internal, "pump did not settle after 100000 rounds");
}

std::optional<core::Timestamp> Impl::next_wakeup_locked() {
  if (ha_role == HaRole::Follower) return std::nullopt;
  std::optional<core::Timestamp> best = cluster->next_change();
  auto consider = [&](core::Timestamp t) {
    if (!best || t < *best) best = t;
  };
  while (!retries.empty()) {
    auto [at, id] = retries.top();
    auto it = live.find(id);
    if (it != live.end() && it->second.status == JobStatus::Failed && it->second.retry_at_ns == at) {
      consider(core::Timestamp::from_unix_nanos(at));
      break;
    }
    retries.pop();
  }
  for (const auto& [id, run] : runs)
    if (run->engine && !run->finished) {
      if (auto w = run->engine->next_wakeup()) consider(*w);
      if (auto d = next_deferred_submit(*run)) consider(*d);
    }
  if (auto at = next_budget_check()) consider(*at);
  if (!resubmit.empty()) consider(clock->now() + core::Duration::seconds(1));
  return best;
}

core::Status Platform::run_until(core::Timestamp until) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  if (!m.vclock) return Error::make(ErrorCode::Unsupported, "run_until drives a virtual clock; this platform's clock is the system's", "clock");
  int stuck = 0;
  for (;;) {
    BUDCORE_TRY(m.pump_locked());
    auto next = m.next_wakeup_locked();
    if (!next || *next > until) break;
    if (*next <= m.clock->now()) {
      if (++stuck > 1000) return Error::make(ErrorCode::Internal, "the platform keeps waking at " + next->to_string() + " without progress");
      continue;
    }
    stuck = 0;
    m.vclock->set(*next);
  }
  m.vclock->set(until);
  BUDCORE_TRY(m.pump_locked());
  auto st = m.store->transact([&](backend::Store& tx) { return m.save_clock(tx); });
  if (!st) return m.fail_halted(st.error());
  return {};
}

core::Result<core::Timestamp> Platform::run_until_idle(core::Duration max_span) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  if (!m.vclock) return Error::make(ErrorCode::Unsupported, "run_until_idle drives a virtual clock; this platform's clock is the system's", "clock");
  const core::Timestamp limit = m.clock->now() + max_span;
  int stuck = 0;
  for (;;) {
    BUDCORE_TRY(m.pump_locked());
    auto next = m.next_wakeup_locked();
    if (!next || *next > limit) break;
    if (*next <= m.clock->now()) {
      if (++stuck > 1000) return Error::make(ErrorCode::Internal, "the platform keeps waking at " + next->to_string() + " without progress");
      continue;
    }
    stuck = 0;
    m.vclock->set(*next);
  }
  auto st = m.store->transact([&](backend::Store& tx) { return m.save_clock(tx); });
  if (!st) return m.fail_halted(st.error());
  return m.clock->now();
}

void Impl::background_loop() {
  std::unique_lock lock(mu);
  while (!stopping) {
    (void)ha_step();
    if (!halted) (void)pump_locked();
    auto next = next_wakeup_locked();
    auto now = clock->now();
    core::Duration wait = core::Duration::seconds(1);
    if (next) wait = std::max(core::Duration(), std::min(wait, *next - now));
    // A replica wakes for its election steps; a leader also looks for followers' requests
    // often (a cheap read of the store's change marker) so that they are picked up promptly.
    if (ha_role != HaRole::Single) wait = std::min(wait, core::Duration::milliseconds(50));
    if (wait.count_ns() > 0) wake.wait_for(lock, std::chrono::nanoseconds(wait.count_ns()));
  }
}

// ---- observability -----------------------------------------------------------------------------

std::string Platform::metrics() {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  (void)m.refresh_view();  // a follower counts the live jobs the store holds
  m.metrics.clear_gauges();
  if (m.ha_role != Impl::HaRole::Single) {
    m.drain_renewals();  // the renewer's latencies since the last step
    m.metrics.gauge("budcore_ha_leader", {{"replica", m.config.ha->replica}}, m.ha_role == Impl::HaRole::Leader ? 1 : 0);
    m.metrics.gauge("budcore_ha_epoch", {}, static_cast<double>(m.ha_epoch));
  }
  std::map<std::string, std::int64_t> by_status;
  for (const auto& [id, lj] : m.live) ++by_status[std::string(job::to_string(lj.status))];
  for (JobStatus s : job::kAllJobStatuses) {
    std::string name(job::to_string(s));
    if (!job::is_final(s)) m.metrics.gauge("budcore_live_jobs", {{"status", name}}, static_cast<double>(by_status[name]));
  }
  if (m.sim) {
    for (const auto& [cq, flavors] : m.sim->cluster_queue_usage())
      for (const auto& [flavor, resources] : flavors)
        for (const auto& [res, cell] : resources) {
          Metrics::Labels l{{"cluster_queue", cq}, {"flavor", flavor}, {"resource", res}};
          m.metrics.gauge("kueue_cluster_queue_resource_usage", l, static_cast<double>(cell.used) / 1000.0);
          m.metrics.gauge("kueue_cluster_queue_nominal_quota", l, static_cast<double>(cell.nominal) / 1000.0);
        }
    m.metrics.gauge("kueue_pending_workloads", {}, static_cast<double>(m.sim->queued()));
  }
  m.read_metrics_sources(true);
  return m.metrics.render();
}

ClusterSnapshot Impl::cluster_snapshot(std::vector<backend::WorkloadInfo> workloads) const {
  ClusterSnapshot out;
  out.workloads = std::move(workloads);
  if (sim)
    for (const auto& [cq, flavors] : sim->cluster_queue_usage())
      for (const auto& [flavor, resources] : flavors)
        for (const auto& [res, cell] : resources) out.usage[cq][flavor][res] = ClusterSnapshot::Cell{cell.used, cell.nominal};
  return out;
}

ClusterSnapshot Platform::cluster() {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  auto listed = m.cluster->list();
  return m.cluster_snapshot(listed ? std::move(*listed) : std::vector<backend::WorkloadInfo>{});
}

core::Result<ClusterSnapshot> Platform::cluster(const CallContext& caller) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY(m.guard(caller, "list", "jobs"));
  BUDCORE_TRY(m.cluster_shown_here());
  BUDCORE_TRY_ASSIGN(auto listed, m.cluster->list());
  ClusterSnapshot out = m.cluster_snapshot(std::move(listed));
  // A platform admin sees every tenant's runs; the check is not a refusal, so it is not audited.
  if (m.authorizer && m.authorizer->authorize(caller, AccessRequest{"list", "cluster"})) return out;
  out.names.reserve(out.workloads.size());
  for (auto& w : out.workloads) {
    if (w.tenant == caller.tenant) {
      out.names.push_back(w.job_id.to_string());
      w.message = m.redact_for(w.message, caller.tenant);
      continue;
    }
    BUDCORE_TRY_ASSIGN(std::string name, m.hidden_name(caller.tenant, w.job_id, w.run));
    out.names.push_back(std::move(name));
    // Only where another tenant's run is and what it holds: not whose it is, why it waits, nor
    // which run of its job it is (a run number would link a retry to the run before).
    w.job_id = core::Id();
    w.tenant = core::Id();
    w.run = 0;
    w.message.clear();
  }
  return out;
}

// The simulated cluster lives in the leader's memory: a follower's is empty, and showing it
// would tell the caller that nothing runs.
core::Status Impl::cluster_shown_here() const {
  if (ha_role != HaRole::Follower || !sim) return {};
  Error e = Error::make(ErrorCode::NotLeader,
                        "replica " + config.ha->replica +
                            " is a follower: the simulated cluster's runs are shown by the leader",
                        "epoch");
  e.value = std::to_string(ha_epoch);
  return e;
}

core::Status Platform::check_invariants() {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY(m.pump_locked());
  // A follower drives nothing: its memory is not the platform's state, so there is nothing of
  // its own to compare with the store. The leader's check is the one that means something.
  if (m.ha_role == Impl::HaRole::Follower) {
    Error e = Error::make(ErrorCode::NotLeader,
                          "replica " + m.config.ha->replica + " is a follower: invariants are checked on the leader",
                          "epoch");
    e.value = std::to_string(m.ha_epoch);
    return e;
  }
  auto broken = [](std::string what) { return Error::make(ErrorCode::Internal, "invariant broken: " + what); };
  // 1. Memory matches the Store, and the Store's live records match memory.
  std::size_t records = 0;
  backend::PageRequest page;
  page.limit = backend::PageRequest::kMaxPageSize;
  do {
    BUDCORE_TRY_ASSIGN(auto p, m.store->list_platform_records("job", page));
    for (const auto& r : p.items) {
      ++records;
      auto id = core::Id::parse(r.key);
      if (!id || !m.live.count(*id)) return broken("the store has a live record for job " + r.key + " that the platform does not drive");
    }
    page.after = p.next_cursor;
  } while (!page.after.empty());
  if (records != m.live.size())
    return broken(std::to_string(m.live.size()) + " live jobs in memory, " + std::to_string(records) + " live records stored");
  for (const auto& [id, lj] : m.live) {
    BUDCORE_TRY_ASSIGN(auto rec, m.store->get_job(lj.tenant, id));
    if (rec.job.status != lj.status || rec.version != lj.version)
      return broken("job " + id.to_string() + " is " + std::string(job::to_string(rec.job.status)) + " v" +
                    std::to_string(rec.version) + " in the store but " + std::string(job::to_string(lj.status)) + " v" +
                    std::to_string(lj.version) + " in memory");
    if (job::is_final(lj.status)) return broken("ended job " + id.to_string() + " is still live");
  }
  // 2. The cluster holds exactly the live runs, in matching phases.
  BUDCORE_TRY_ASSIGN(auto held, m.cluster->list());
  std::set<core::Id> seen;
  for (const auto& w : held) {
    // Objects no record of this platform claims (another platform's, on a shared cluster) are
    // reported by cluster(), not held by this platform.
    if (!w.adopted) continue;
    auto it = m.live.find(w.job_id);
    if (it == m.live.end()) return broken("the cluster holds job " + w.job_id.to_string() + ", which is not live");
    const LiveJob& lj = it->second;
    if (w.run != lj.run) return broken("the cluster holds run " + std::to_string(w.run) + " of job " + w.job_id.to_string() + ", the platform run " + std::to_string(lj.run));
    if (w.tenant != lj.tenant)
      return broken("the cluster holds job " + w.job_id.to_string() + " for tenant " + w.tenant.to_string() +
                    ", the platform drives it for tenant " + lj.tenant.to_string());
    bool ok = (w.phase == backend::WorkloadInfo::Phase::Queued && (lj.status == JobStatus::Queued || lj.status == JobStatus::Preempted)) ||
              (w.phase == backend::WorkloadInfo::Phase::Admitted && lj.status == JobStatus::Scheduled) ||
              (w.phase == backend::WorkloadInfo::Phase::Running && lj.status == JobStatus::Running);
    if (!ok) return broken("job " + w.job_id.to_string() + " is " + std::string(job::to_string(lj.status)) + " but the cluster has it in another phase");
    seen.insert(w.job_id);
  }
  for (const auto& [id, lj] : m.live)
    if (lj.status != JobStatus::Failed && !seen.count(id) && lj.in_cluster)
      return broken("live job " + id.to_string() + " (" + std::string(job::to_string(lj.status)) + ") is not in the cluster");
  // 3. Quota charged = the sum of what admitted runs request, from the engine and from the jobs.
  if (m.sim) {
    auto held_quota = m.sim->held_quota();
    std::map<std::string, std::map<std::string, std::map<std::string, std::int64_t>>> from_jobs;
    for (const auto& [id, lj] : m.live) {
      if (!job::holds_resources(lj.status)) continue;
      if (!lj.placement || !lj.doc) return broken("admitted job " + id.to_string() + " has no placement or document in memory");
      auto req = lj.doc->resources(m.config.cluster.layout.gpu_resource_names);
      if (!req) return req.error();
      auto pods = quota::pods_of(*lj.doc);
      if (!pods) return pods.error();
      auto fl = lj.placement->admission.flavors.find("main");
      if (fl == lj.placement->admission.flavors.end()) continue;
      std::int64_t count = *pods;
      if (auto c = lj.placement->admission.count.find("main"); c != lj.placement->admission.count.end()) count = c->second;
      for (const auto& [res, q] : req->items()) {
        auto f = fl->second.find(res);
        if (f == fl->second.end()) continue;
        from_jobs[lj.placement->admission.cluster_queue][f->second][res] += q.milli_value().value_or(0) * count;
      }
    }
    if (from_jobs != held_quota) return broken("the quota admitted jobs request differs from what the cluster's runs hold");
    for (const auto& [cq, flavors] : m.sim->cluster_queue_usage())
      for (const auto& [flavor, resources] : flavors)
        for (const auto& [res, cell] : resources) {
          std::int64_t expect = 0;
          if (auto a = held_quota.find(cq); a != held_quota.end())
            if (auto b = a->second.find(flavor); b != a->second.end())
              if (auto c = b->second.find(res); c != b->second.end()) expect = c->second;
          if (cell.used != expect)
            return broken("ClusterQueue " + cq + " charges " + std::to_string(cell.used) + " milli " + res + " of " +
                          flavor + ", its admitted runs hold " + std::to_string(expect));
        }
  }
  return {};
}

}  // namespace budcore::platform
