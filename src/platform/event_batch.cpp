// A batch of cluster events applied in one store transaction (group commit): each changed job
// is read once and written once, with the batch's event log entries, the usage it meters and
// the actual_cost of the jobs it ends; memory learns the outcome only after the commit.
#include <algorithm>

#include "budcore/job/retry_policy.hpp"
#include "budcore/job/state_machine.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using backend::ClusterEvent;
using backend::ClusterEventKind;
using core::Error;
using core::ErrorCode;
using job::JobStatus;
using Impl = Platform::Impl;

namespace {

double seconds_between(std::int64_t from_ns, std::int64_t to_ns) {
  return from_ns > 0 && to_ns >= from_ns ? static_cast<double>(to_ns - from_ns) / 1e9 : 0.0;
}

// The breaker's state is not stored: it follows from the job's recorded runs (each failure
// with the start of the run it ended), replayed through a fresh breaker.
job::CircuitBreaker replay_breaker(const job::Job& job, const job::CircuitBreakerConfig& config) {
  job::CircuitBreaker b(config);
  // The start of the run in progress, or nullptr (a pointer, not an optional: GCC's
  // maybe-uninitialized warning misfires on an optional Timestamp under ThreadSanitizer).
  const core::Timestamp* started = nullptr;
  for (const auto& t : job.status_history) {
    if (t.to == JobStatus::Running) started = &t.at;
    if (t.to == JobStatus::Completed) b.record_success();
    if (t.to == JobStatus::Failed) {
      b.record_failure(started != nullptr ? *started : t.at, t.at);
      started = nullptr;
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

// A Queued echo of a submit (the job is queued already) changes nothing.
bool is_echo(const ClusterEvent& e, const LiveJob& lj) {
  return e.kind == ClusterEventKind::Queued && lj.status == JobStatus::Queued && e.reason != "Inadmissible";
}

// The run's outputs join the job's (a key the run reports again replaces the job's).
void merge_outputs(job::Job& job, const core::Value& outputs) {
  if (!outputs.is_map()) return;
  core::Map out = job.outputs.is_map() ? job.outputs.as_map() : core::Map{};
  for (const auto& [k, v] : outputs.as_map()) out.set(k, v);
  job.outputs = core::Value(std::move(out));
}

class EventBatch {
 public:
  EventBatch(Impl& m, std::vector<ClusterEvent>& events) : m_(m), events_(events) {
    for (const ClusterEvent& e : events_)
      if (e.kind == ClusterEventKind::Usage && e.usage) usage_.push_back(&e);
  }

  // Only the events that change something cost a transaction (Queued echoes of a submit do
  // not). Usage is metered whether or not the batch changes a job (a cancelled run's last
  // segment comes after the cancel was committed).
  bool needs_commit() const {
    return (m_.cost_meter && !usage_.empty()) || std::any_of(events_.begin(), events_.end(), [&](const ClusterEvent& e) {
             const LiveJob* lj = m_.event_job(e);
             return lj != nullptr && !is_echo(e, *lj);
           });
  }

  // The transaction's body.
  core::Status apply(backend::Store& tx) {
    BUDCORE_TRY_ASSIGN(stored_, m_.read_documents(tx, events_));
    for (const ClusterEvent& e : events_) {
      LiveJob* lj = m_.event_job(e);
      if (lj != nullptr) BUDCORE_TRY(apply_one(tx, *lj, e));
    }
    BUDCORE_TRY(m_.meter_batch(tx, usage_, writes_, order_));
    BUDCORE_TRY(write_jobs(tx));
    for (auto& [tenant, e] : log_) BUDCORE_TRY(tx.append_event(tenant, e));
    return m_.save_clock(tx);
  }

  // After the commit: memory follows what was stored.
  void settle() {
    for (const core::Id& id : order_) {
      auto it = m_.live.find(id);
      if (it == m_.live.end()) continue;
      // Queued jobs do not keep their document: memory follows what holds quota, not the queue.
      if (!job::holds_resources(it->second.status)) it->second.doc.reset();
    }
    for (const core::Id& id : ended_) {
      m_.queued_docs.forget(id);
      m_.live.erase(id);
    }
    for (auto& r : new_retries_) m_.retries.push(r);
    for (const ClusterEvent* e : usage_)
      for (const auto& o : m_.usage_observers) o->on_usage(e->tenant, e->job_id, e->run, *e->usage);
    if (!m_.cost_meter) return;
    if (!usage_.empty() || !started_.empty()) m_.budget_stops_due = true;
    for (const core::Id& id : started_)
      if (auto it = m_.live.find(id); it != m_.live.end()) m_.schedule_budget_check(it->second);
  }

 private:
  core::Status apply_one(backend::Store& tx, LiveJob& lj, const ClusterEvent& e) {
    switch (e.kind) {
      case ClusterEventKind::Queued: return on_queued(tx, lj, e);
      case ClusterEventKind::Admitted: return on_admitted(tx, lj, e);
      case ClusterEventKind::Started: return on_started(tx, lj, e);
      case ClusterEventKind::Succeeded: return on_succeeded(tx, lj, e);
      case ClusterEventKind::Failed: return on_failed(tx, lj, e);
      case ClusterEventKind::Cancelled: return on_cancelled(tx, lj, e);
      case ClusterEventKind::Preempted: return on_preempted(tx, lj, e);
      case ClusterEventKind::DeadlineMissed: on_deadline_missed(lj, e); return {};
      case ClusterEventKind::Usage: return {};
    }
    return {};
  }

  // The job's pending write: its document read (once per batch) and its version checked.
  core::Result<PendingWrite*> touch(backend::Store& tx, LiveJob& lj) {
    auto [it, inserted] = writes_.try_emplace(lj.id);
    PendingWrite& w = it->second;
    if (!inserted) return &w;
    order_.push_back(lj.id);
    w.live = &lj;
    w.tenant = lj.tenant;
    w.expected_version = lj.version;
    if (!lj.doc) lj.doc = m_.queued_docs.take(lj.id, lj.version);
    if (!lj.doc) {
      auto found = stored_.find(lj.id);
      if (found == stored_.end()) {  // not among the batch's reads: read alone
        BUDCORE_TRY_ASSIGN(auto rec, tx.get_job(lj.tenant, lj.id));
        found = stored_.emplace(lj.id, std::move(rec)).first;
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
    return &w;
  }

  core::Status move(LiveJob& lj, job::Job& job, JobStatus to, core::Timestamp at, std::string_view message) {
    return m_.move(&lj, job, to, at, message, log_);
  }

  // Moves along the forward path when the cluster skipped a step (a requeue it did not
  // report, an admission reported together with the start).
  core::Status reach(LiveJob& lj, job::Job& job, JobStatus to, core::Timestamp at, std::string_view message) {
    if (job.status == JobStatus::Preempted && to != JobStatus::Cancelled && to != JobStatus::Queued)
      BUDCORE_TRY(move(lj, job, JobStatus::Queued, at, "requeued"));
    if (job.status == JobStatus::Pending && to != JobStatus::Queued && to != JobStatus::Failed && to != JobStatus::Cancelled)
      BUDCORE_TRY(move(lj, job, JobStatus::Queued, at, "queued"));
    if (job.status == JobStatus::Queued && (to == JobStatus::Running || to == JobStatus::Completed))
      BUDCORE_TRY(move(lj, job, JobStatus::Scheduled, at, "admitted"));
    if (job.status == JobStatus::Scheduled && to == JobStatus::Completed)
      BUDCORE_TRY(move(lj, job, JobStatus::Running, at, "running"));
    return move(lj, job, to, at, message);
  }

  static std::string type_of(const LiveJob& lj) { return std::string(job::to_string(lj.type)); }
  static std::string source_of(const LiveJob& lj) { return std::string(job::to_string(lj.source)); }
  void count_ended(const LiveJob& lj, const char* status) {
    m_.metrics.count("jobs_total", {{"source_type", source_of(lj)}, {"job_type", type_of(lj)}, {"status", status}});
  }

  core::Status on_queued(backend::Store& tx, LiveJob& lj, const ClusterEvent& e) {
    if (lj.status == JobStatus::Queued && e.reason == "Inadmissible") {
      // Still QUEUED (as Kueue keeps it pending), with the reason it cannot run.
      BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(tx, lj));
      w->job->status_message = e.message;
      return {};
    }
    if (lj.status != JobStatus::Preempted && lj.status != JobStatus::Pending) return {};
    BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(tx, lj));
    BUDCORE_TRY(move(lj, *w->job, JobStatus::Queued, e.at,
                     lj.status == JobStatus::Preempted ? "requeued after preemption" : "queued"));
    lj.queued_ns = e.at.unix_nanos();
    lj.placement.reset();
    return {};
  }

  core::Status on_admitted(backend::Store& tx, LiveJob& lj, const ClusterEvent& e) {
    if (lj.status != JobStatus::Queued && lj.status != JobStatus::Preempted && lj.status != JobStatus::Pending) return {};
    BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(tx, lj));
    backend::Placement p = e.placement.value_or(backend::Placement{});
    BUDCORE_TRY(reach(lj, *w->job, JobStatus::Scheduled, e.at, describe_admission(p)));
    lj.placement = std::make_unique<backend::Placement>(std::move(p));
    lj.admitted_ns = e.at.unix_nanos();
    const double wait = seconds_between(lj.queued_ns, lj.admitted_ns);
    const std::string& cq = lj.placement->admission.cluster_queue;
    m_.metrics.observe("job_queue_wait_seconds",
                       {{"job_type", type_of(lj)}, {"priority", std::string(job::to_string(lj.priority))}, {"cluster_queue", cq}},
                       wait);
    m_.metrics.observe("kueue_admission_wait_time_seconds", {{"cluster_queue", cq}}, wait);
    m_.metrics.observe("job_wait_time_seconds", {{"source_type", source_of(lj)}}, wait);
    m_.metrics.count("kueue_admitted_workloads_total", {{"cluster_queue", cq}});
    return {};
  }

  core::Status on_started(backend::Store& tx, LiveJob& lj, const ClusterEvent& e) {
    if (job::is_terminal(lj.status) && lj.status != JobStatus::Preempted) return {};
    if (lj.status == JobStatus::Running) return {};
    BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(tx, lj));
    std::string where = e.placement && !e.placement->nodes.empty() ? " on " + e.placement->nodes[0] : "";
    BUDCORE_TRY(reach(lj, *w->job, JobStatus::Running, e.at, "running" + where));
    if (e.placement) lj.placement = std::make_unique<backend::Placement>(*e.placement);
    lj.started_ns = e.at.unix_nanos();
    started_.push_back(lj.id);
    merge_outputs(*w->job, e.outputs);
    return {};
  }

  core::Status on_succeeded(backend::Store& tx, LiveJob& lj, const ClusterEvent& e) {
    BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(tx, lj));
    BUDCORE_TRY(reach(lj, *w->job, JobStatus::Completed, e.at, "completed"));
    merge_outputs(*w->job, e.outputs);
    m_.metrics.observe("job_duration_seconds", {{"job_type", type_of(lj)}, {"status", "completed"}, {"source_type", source_of(lj)}},
                       seconds_between(lj.started_ns, e.at.unix_nanos()));
    count_ended(lj, "completed");
    w->ended = true;
    return {};
  }

  core::Status on_failed(backend::Store& tx, LiveJob& lj, const ClusterEvent& e) {
    BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(tx, lj));
    job::Job& job = *w->job;
    if (job.status == JobStatus::Preempted) BUDCORE_TRY(move(lj, job, JobStatus::Queued, e.at, "requeued"));
    const bool ran = job.status == JobStatus::Running;
    std::string message = e.reason.empty() ? e.message : e.reason + ": " + e.message;
    BUDCORE_TRY(move(lj, job, JobStatus::Failed, e.at, message));
    m_.metrics.count("job_failures_total", {{"job_type", type_of(lj)}, {"failure_reason", e.reason.empty() ? "Error" : e.reason}});
    if (ran)
      m_.metrics.observe("job_duration_seconds", {{"job_type", type_of(lj)}, {"status", "failed"}, {"source_type", source_of(lj)}},
                         seconds_between(lj.started_ns, e.at.unix_nanos()));
    lj.in_cluster = false;
    lj.placement.reset();
    lj.admitted_ns = lj.started_ns = 0;
    job::RetryDecision d;
    if (e.reason != "Rejected") {
      job::CircuitBreaker breaker = replay_breaker(job, m_.config.retry.breaker);
      d = m_.config.retry.decide(job, breaker, e.at);
    } else {
      d.reason = "the cluster refused the job";
    }
    if (d.retry) {
      lj.retry_at_ns = d.at.unix_nanos();
      new_retries_.emplace_back(lj.retry_at_ns, lj.id);
      job.status_message = message + "; " + d.reason;
    } else {
      job.status_message = message + (d.reason.empty() ? "" : "; no retry: " + d.reason);
      count_ended(lj, "failed");
      w->ended = true;
    }
    return {};
  }

  core::Status on_cancelled(backend::Store& tx, LiveJob& lj, const ClusterEvent& e) {
    if (job::is_final(lj.status)) return {};
    BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(tx, lj));
    BUDCORE_TRY(move(lj, *w->job, JobStatus::Cancelled, e.at, e.message.empty() ? "cancelled by the cluster" : e.message));
    count_ended(lj, "cancelled");
    w->ended = true;
    return {};
  }

  core::Status on_preempted(backend::Store& tx, LiveJob& lj, const ClusterEvent& e) {
    if (!job::holds_resources(lj.status)) return {};
    BUDCORE_TRY_ASSIGN(PendingWrite * w, touch(tx, lj));
    BUDCORE_TRY(move(lj, *w->job, JobStatus::Preempted, e.at, e.message));
    const std::string cq = lj.placement ? lj.placement->admission.cluster_queue : std::string();
    m_.metrics.count("job_preemptions_total", {{"job_type", type_of(lj)}, {"preemption_reason", e.reason}});
    m_.metrics.count("kueue_evicted_workloads_total", {{"cluster_queue", cq}, {"reason", e.reason}});
    lj.placement.reset();
    lj.admitted_ns = lj.started_ns = 0;
    return {};
  }

  void on_deadline_missed(const LiveJob& lj, const ClusterEvent& e) {
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
    log_.emplace_back(lj.tenant, std::move(r));
    m_.metrics.count("budcore_deadline_misses_total", {{"job_type", type_of(lj)}});
  }

  // Each changed job once, compare-and-set on the version memory holds; its platform record
  // follows it (gone when the job ended).
  core::Status write_jobs(backend::Store& tx) {
    for (const core::Id& id : order_) {
      PendingWrite& w = writes_.at(id);
      BUDCORE_TRY_ASSIGN(auto rec, tx.write_job(w.tenant, *w.job, w.expected_version));
      if (!w.live) continue;  // an ended job's late actual_cost
      w.live->version = rec.version;
      if (w.ended) {
        BUDCORE_TRY(tx.delete_platform_record("job", id.to_string()));
        ended_.push_back(id);
      } else {
        BUDCORE_TRY(tx.put_platform_record("job", id.to_string(), m_.record_doc(*w.live)));
      }
    }
    return {};
  }

  Impl& m_;
  std::vector<ClusterEvent>& events_;
  std::unordered_map<core::Id, backend::JobRecord> stored_;
  std::unordered_map<core::Id, PendingWrite> writes_;
  std::vector<core::Id> order_;
  std::vector<std::pair<core::Id, backend::EventRecord>> log_;
  std::vector<const ClusterEvent*> usage_;
  std::vector<core::Id> ended_;
  std::vector<core::Id> started_;  // for the budget_limit checks
  std::vector<std::pair<std::int64_t, core::Id>> new_retries_;
};

}  // namespace

// The documents of the jobs a batch of events changes that the platform does not hold (queued
// jobs keep none), read together: one read for the batch instead of one per job.
core::Result<std::unordered_map<core::Id, backend::JobRecord>> Impl::read_documents(backend::Store& tx,
                                                                                   const std::vector<ClusterEvent>& events) {
  std::vector<backend::JobKey> keys;
  for (const ClusterEvent& e : events) {
    const LiveJob* lj = event_job(e);
    if (lj == nullptr || lj->doc || is_echo(e, *lj) || e.kind == ClusterEventKind::DeadlineMissed) continue;
    if (queued_docs.has(lj->id, lj->version)) continue;
    keys.push_back({lj->tenant, lj->id});
  }
  std::unordered_map<core::Id, backend::JobRecord> out;
  if (keys.empty()) return out;
  BUDCORE_TRY_ASSIGN(auto found, tx.get_jobs(keys));
  for (auto& rec : found)
    if (rec) out.emplace(rec->job.id, std::move(*rec));
  return out;
}

core::Status Impl::apply_events(std::vector<ClusterEvent>& events, const TxWrite& also) {
  if (events.empty() && !also) return {};
  EventBatch batch(*this, events);
  const bool needed = batch.needs_commit() || also;
  if (needed) {
    auto st = store->transact([&](backend::Store& tx) -> core::Status {
      BUDCORE_TRY(batch.apply(tx));
      return also ? also(tx) : core::Status{};
    });
    if (!st) return fail_halted(st.error());
  }
  metrics.count("budcore_commits_total", {}, needed ? 1 : 0);
  metrics.count("budcore_events_applied_total", {}, static_cast<double>(events.size()));
  batch.settle();
  return {};
}

}  // namespace budcore::platform
