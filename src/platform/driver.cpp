// Driving the Platform: cluster events applied in batches (one store transaction each: group
// commit, with the batch's usage rows and the actual_cost of the jobs it ends), automatic
// retries, pipeline engines, the virtual clock, and the background driver of a system-clock
// Platform.
#include <algorithm>
#include <set>

#include "budcore/core/json.hpp"
#include "budcore/job/retry_policy.hpp"
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

double seconds_between(std::int64_t from_ns, std::int64_t to_ns) {
  return from_ns > 0 && to_ns >= from_ns ? static_cast<double>(to_ns - from_ns) / 1e9 : 0.0;
}

// The breaker's state is not stored: it follows from the job's recorded runs (each failure
// with the start of the run it ended), replayed through a fresh breaker.
job::CircuitBreaker replay_breaker(const job::Job& job, const job::CircuitBreakerConfig& config) {
  job::CircuitBreaker b(config);
  std::optional<core::Timestamp> started;
  for (const auto& t : job.status_history) {
    if (t.to == JobStatus::Running) started = t.at;
    if (t.to == JobStatus::Completed) b.record_success();
    if (t.to == JobStatus::Failed) {
      b.record_failure(started.value_or(t.at), t.at);
      started.reset();
    }
  }
  return b;
}

std::string describe_admission(const backend::Placement& p) {
  std::string flavors;
  for (const auto& [ps, m] : p.admission.flavors)
    for (const auto& [res, f] : m) flavors += (flavors.empty() ? "" : ", ") + res + "=" + f;
  return "admitted by ClusterQueue " + p.admission.cluster_queue + (flavors.empty() ? "" : " (" + flavors + ")");
}

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

namespace {
// A Queued echo of a submit (the job is queued already) changes nothing.
bool is_echo(const ClusterEvent& e, const LiveJob& lj) {
  return e.kind == ClusterEventKind::Queued && lj.status == JobStatus::Queued && e.reason != "Inadmissible";
}
}  // namespace

// The documents of the jobs a batch of events changes that the platform does not hold (queued
// jobs keep none), read together: one read for the batch instead of one per job.
core::Result<std::unordered_map<core::Id, backend::JobRecord>> Impl::read_documents(backend::Store& tx,
                                                                                   const std::vector<ClusterEvent>& events) {
  std::vector<backend::JobKey> keys;
  for (const ClusterEvent& e : events) {
    const LiveJob* lj = event_job(e);
    if (lj == nullptr || lj->doc || is_echo(e, *lj) || e.kind == ClusterEventKind::DeadlineMissed) continue;
    keys.push_back({lj->tenant, lj->id});
  }
  std::unordered_map<core::Id, backend::JobRecord> out;
  if (keys.empty()) return out;
  BUDCORE_TRY_ASSIGN(auto found, tx.get_jobs(keys));
  for (auto& rec : found)
    if (rec) out.emplace(rec->job.id, std::move(*rec));
  return out;
}

core::Status Impl::apply_events(std::vector<ClusterEvent>& events) {
  if (events.empty()) return {};
  std::unordered_map<core::Id, PendingWrite> writes;
  std::vector<core::Id> order;
  std::vector<std::pair<core::Id, backend::EventRecord>> log;
  std::vector<const ClusterEvent*> usage;
  std::vector<core::Id> ended;
  std::vector<core::Id> started;  // for the budget_limit checks
  std::vector<std::pair<std::int64_t, core::Id>> new_retries;

  auto body = [&](backend::Store& tx) -> core::Status {
    BUDCORE_TRY_ASSIGN(auto stored, read_documents(tx, events));
    auto touch = [&](LiveJob& lj) -> core::Result<PendingWrite*> {
      auto [it, inserted] = writes.try_emplace(lj.id);
      PendingWrite& w = it->second;
      if (inserted) {
        order.push_back(lj.id);
        w.live = &lj;
        w.tenant = lj.tenant;
        w.expected_version = lj.version;
        if (!lj.doc) {
          auto found = stored.find(lj.id);
          if (found == stored.end()) {  // not among the batch's reads: read alone
            BUDCORE_TRY_ASSIGN(auto rec, tx.get_job(lj.tenant, lj.id));
            found = stored.emplace(lj.id, std::move(rec)).first;
          }
          backend::JobRecord& rec = found->second;
          if (rec.version != lj.version)
            return Error::make(ErrorCode::Conflict,
                               "job " + lj.id.to_string() + " changed in the store behind the platform (version " +
                                   std::to_string(rec.version) + ", expected " + std::to_string(lj.version) + ")",
                               "version");
          lj.doc = std::make_shared<job::Job>(std::move(rec.job));
        }
        w.job = lj.doc;
      }
      return &w;
    };
    // Moves along the forward path when the cluster skipped a step (a requeue it did not
    // report, an admission reported together with the start).
    auto reach = [&](LiveJob& lj, job::Job& job, JobStatus to, core::Timestamp at, std::string_view message) -> core::Status {
      if (job.status == JobStatus::Preempted && to != JobStatus::Cancelled && to != JobStatus::Queued)
        BUDCORE_TRY(move(&lj, job, JobStatus::Queued, at, "requeued", log));
      if (job.status == JobStatus::Pending && to != JobStatus::Queued && to != JobStatus::Failed && to != JobStatus::Cancelled)
        BUDCORE_TRY(move(&lj, job, JobStatus::Queued, at, "queued", log));
      if (job.status == JobStatus::Queued && (to == JobStatus::Running || to == JobStatus::Completed))
        BUDCORE_TRY(move(&lj, job, JobStatus::Scheduled, at, "admitted", log));
      if (job.status == JobStatus::Scheduled && to == JobStatus::Completed)
        BUDCORE_TRY(move(&lj, job, JobStatus::Running, at, "running", log));
      return move(&lj, job, to, at, message, log);
    };
    for (const ClusterEvent& e : events) {
      LiveJob* applies_to = event_job(e);
      if (applies_to == nullptr) continue;
      LiveJob& lj = *applies_to;
      const std::string type_label(job::to_string(lj.type));
      switch (e.kind) {
        case ClusterEventKind::Queued: {
          if (lj.status == JobStatus::Queued && e.reason == "Inadmissible") {
            // Still QUEUED (as Kueue keeps it pending), with the reason it cannot run.
            BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(lj));
            w->job->status_message = e.message;
            break;
          }
          if (lj.status != JobStatus::Preempted && lj.status != JobStatus::Pending) break;
          BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(lj));
          BUDCORE_TRY(move(&lj, *w->job, JobStatus::Queued, e.at,
                           lj.status == JobStatus::Preempted ? "requeued after preemption" : "queued", log));
          lj.queued_ns = e.at.unix_nanos();
          lj.placement.reset();
          break;
        }
        case ClusterEventKind::Admitted: {
          if (lj.status != JobStatus::Queued && lj.status != JobStatus::Preempted && lj.status != JobStatus::Pending) break;
          BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(lj));
          backend::Placement p = e.placement.value_or(backend::Placement{});
          BUDCORE_TRY(reach(lj, *w->job, JobStatus::Scheduled, e.at, describe_admission(p)));
          lj.placement = std::make_unique<backend::Placement>(std::move(p));
          lj.admitted_ns = e.at.unix_nanos();
          const double wait = seconds_between(lj.queued_ns, lj.admitted_ns);
          const std::string& cq = lj.placement->admission.cluster_queue;
          metrics.observe("job_queue_wait_seconds",
                          {{"job_type", type_label}, {"priority", std::string(job::to_string(lj.priority))}, {"cluster_queue", cq}},
                          wait);
          metrics.observe("kueue_admission_wait_time_seconds", {{"cluster_queue", cq}}, wait);
          metrics.observe("job_wait_time_seconds", {{"source_type", std::string(job::to_string(lj.source))}}, wait);
          metrics.count("kueue_admitted_workloads_total", {{"cluster_queue", cq}});
          break;
        }
        case ClusterEventKind::Started: {
          if (job::is_terminal(lj.status) && lj.status != JobStatus::Preempted) break;
          if (lj.status == JobStatus::Running) break;
          BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(lj));
          std::string where = e.placement && !e.placement->nodes.empty() ? " on " + e.placement->nodes[0] : "";
          BUDCORE_TRY(reach(lj, *w->job, JobStatus::Running, e.at, "running" + where));
          if (e.placement) lj.placement = std::make_unique<backend::Placement>(*e.placement);
          lj.started_ns = e.at.unix_nanos();
          started.push_back(lj.id);
          if (e.outputs.is_map()) {
            core::Map out = w->job->outputs.is_map() ? w->job->outputs.as_map() : core::Map{};
            for (const auto& [k, v] : e.outputs.as_map()) out.set(k, v);
            w->job->outputs = core::Value(std::move(out));
          }
          break;
        }
        case ClusterEventKind::Succeeded: {
          BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(lj));
          job::Job& job = *w->job;
          BUDCORE_TRY(reach(lj, job, JobStatus::Completed, e.at, "completed"));
          if (e.outputs.is_map()) {
            core::Map out = job.outputs.is_map() ? job.outputs.as_map() : core::Map{};
            for (const auto& [k, v] : e.outputs.as_map()) out.set(k, v);
            job.outputs = core::Value(std::move(out));
          }
          metrics.observe("job_duration_seconds",
                          {{"job_type", type_label}, {"status", "completed"}, {"source_type", std::string(job::to_string(lj.source))}},
                          seconds_between(lj.started_ns, e.at.unix_nanos()));
          metrics.count("jobs_total", {{"source_type", std::string(job::to_string(lj.source))}, {"job_type", type_label}, {"status", "completed"}});
          w->ended = true;
          break;
        }
        case ClusterEventKind::Failed: {
          BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(lj));
          job::Job& job = *w->job;
          if (job.status == JobStatus::Preempted) BUDCORE_TRY(move(&lj, job, JobStatus::Queued, e.at, "requeued", log));
          const bool ran = job.status == JobStatus::Running;
          std::string message = e.reason.empty() ? e.message : e.reason + ": " + e.message;
          BUDCORE_TRY(move(&lj, job, JobStatus::Failed, e.at, message, log));
          metrics.count("job_failures_total", {{"job_type", type_label}, {"failure_reason", e.reason.empty() ? "Error" : e.reason}});
          if (ran)
            metrics.observe("job_duration_seconds",
                            {{"job_type", type_label}, {"status", "failed"}, {"source_type", std::string(job::to_string(lj.source))}},
                            seconds_between(lj.started_ns, e.at.unix_nanos()));
          lj.in_cluster = false;
          lj.placement.reset();
          lj.admitted_ns = lj.started_ns = 0;
          job::RetryDecision d;
          if (e.reason != "Rejected") {
            job::CircuitBreaker breaker = replay_breaker(job, config.retry.breaker);
            d = config.retry.decide(job, breaker, e.at);
          } else {
            d.reason = "the cluster refused the job";
          }
          if (d.retry) {
            lj.retry_at_ns = d.at.unix_nanos();
            new_retries.emplace_back(lj.retry_at_ns, lj.id);
            job.status_message = message + "; " + d.reason;
          } else {
            job.status_message = message + (d.reason.empty() ? "" : "; no retry: " + d.reason);
            metrics.count("jobs_total", {{"source_type", std::string(job::to_string(lj.source))}, {"job_type", type_label}, {"status", "failed"}});
            w->ended = true;
          }
          break;
        }
        case ClusterEventKind::Cancelled: {
          if (job::is_final(lj.status)) break;
          BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(lj));
          BUDCORE_TRY(move(&lj, *w->job, JobStatus::Cancelled, e.at, e.message.empty() ? "cancelled by the cluster" : e.message, log));
          metrics.count("jobs_total", {{"source_type", std::string(job::to_string(lj.source))}, {"job_type", type_label}, {"status", "cancelled"}});
          w->ended = true;
          break;
        }
        case ClusterEventKind::Preempted: {
          if (!job::holds_resources(lj.status)) break;
          BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(lj));
          BUDCORE_TRY(move(&lj, *w->job, JobStatus::Preempted, e.at, e.message, log));
          const std::string cq = lj.placement ? lj.placement->admission.cluster_queue : std::string();
          metrics.count("job_preemptions_total", {{"job_type", type_label}, {"preemption_reason", e.reason}});
          metrics.count("kueue_evicted_workloads_total", {{"cluster_queue", cq}, {"reason", e.reason}});
          lj.placement.reset();
          lj.admitted_ns = lj.started_ns = 0;
          break;
        }
        case ClusterEventKind::DeadlineMissed: {
          backend::EventRecord r;
          r.at = e.at;
          r.type = "job.deadline_missed";
          r.object_id = lj.id;
          core::Map data;
          data.set("job", lj.id.to_string());
          if (lj.doc) data.set("name", lj.doc->name);  // cached while it holds quota
          data.set("message", e.message);
          data.set("run", lj.run);
          r.data = core::Value(std::move(data));
          log.emplace_back(lj.tenant, std::move(r));
          metrics.count("budcore_deadline_misses_total", {{"job_type", type_label}});
          break;
        }
        case ClusterEventKind::Usage:
          break;
      }
    }
    BUDCORE_TRY(meter_batch(tx, usage, writes, order));
    for (const core::Id& id : order) {
      PendingWrite& w = writes.at(id);
      BUDCORE_TRY_ASSIGN(auto rec, tx.write_job(w.tenant, *w.job, w.expected_version));
      if (!w.live) continue;  // an ended job's late actual_cost
      w.live->version = rec.version;
      if (w.ended) {
        BUDCORE_TRY(tx.delete_platform_record("job", id.to_string()));
        ended.push_back(id);
      } else {
        BUDCORE_TRY(tx.put_platform_record("job", id.to_string(), record_doc(*w.live)));
      }
    }
    for (auto& [tenant, e] : log) BUDCORE_TRY(tx.append_event(tenant, e));
    return save_clock(tx);
  };
  for (const ClusterEvent& e : events)
    if (e.kind == ClusterEventKind::Usage && e.usage) usage.push_back(&e);
  // Only the events that change something cost a transaction (Queued echoes of a submit do
  // not). Usage is metered whether or not the batch changes a job (a cancelled run's last
  // segment comes after the cancel was committed).
  bool needed = (cost_meter && !usage.empty()) || std::any_of(events.begin(), events.end(), [&](const ClusterEvent& e) {
    const LiveJob* lj = event_job(e);
    return lj != nullptr && !is_echo(e, *lj);
  });
  if (needed) {
    auto st = store->transact(body);
    if (!st) return fail_halted(st.error());
  }
  metrics.count("budcore_commits_total", {}, needed ? 1 : 0);
  metrics.count("budcore_events_applied_total", {}, static_cast<double>(events.size()));
  for (const core::Id& id : order) {
    auto it = live.find(id);
    if (it == live.end()) continue;
    // Queued jobs do not keep their document: memory follows what holds quota, not the queue.
    if (!job::holds_resources(it->second.status)) it->second.doc.reset();
  }
  for (const core::Id& id : ended) live.erase(id);
  for (auto& r : new_retries) retries.push(r);
  for (const ClusterEvent* e : usage)
    for (const auto& o : usage_observers) o->on_usage(e->tenant, e->job_id, e->run, *e->usage);
  if (!cost_meter) return {};
  if (!usage.empty() || !started.empty()) budget_stops_due = true;
  for (const core::Id& id : started)
    if (auto it = live.find(id); it != live.end()) schedule_budget_check(it->second);
  return {};
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
  return m.metrics.render();
}

ClusterSnapshot Platform::cluster() {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  ClusterSnapshot out;
  if (auto l = m.cluster->list()) out.workloads = std::move(*l);
  if (m.sim)
    for (const auto& [cq, flavors] : m.sim->cluster_queue_usage())
      for (const auto& [flavor, resources] : flavors)
        for (const auto& [res, cell] : resources) out.usage[cq][flavor][res] = ClusterSnapshot::Cell{cell.used, cell.nominal};
  return out;
}

core::Status Platform::check_invariants() {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY(m.pump_locked());
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
