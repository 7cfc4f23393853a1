// The Platform's side of its JobCostMeter (hooks.hpp): an ended job's actual_cost, and the
// job-level budget_limit ("fail if cost exceeds") enforced while a run is in progress.
//
// A run is metered when its segment ends, so a running job's cost is not in the Store yet. The
// meter says when the run would push the job past its limit (budget_deadline, to the second);
// the Platform wakes then — the virtual clock jumps there like to any other wakeup — asks
// check_budget, and stops the run: the job goes FAILED for good with the BudgetExceeded message,
// the cluster withdraws the run (its usage is reported and metered as usual), and actual_cost
// follows once that segment is in.
//
// Usage rows and actual_cost are written in the transactions that change the jobs they belong
// to (meter_batch, price_ended), covered by the same fence, never in transactions of their own.
#include <algorithm>

#include "budcore/job/state_machine.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using job::JobStatus;
using Impl = Platform::Impl;

JobCostMeter::~JobCostMeter() = default;
core::Status JobCostMeter::record_usage(backend::Store&, const core::Id&, const job::Job&, const backend::UsageInterval&) {
  return {};
}
bool JobCostMeter::refresh_stops(core::Timestamp) { return false; }
std::optional<std::string> JobCostMeter::stop_reason(const core::Id&, const job::Job&) { return std::nullopt; }

bool Impl::price_ended(backend::Store& tx, const core::Id& tenant, job::Job& job) {
  if (!cost_meter) return false;
  std::optional<core::Money> cost = cost_meter->actual_cost(tx, tenant, job);
  if (!cost || job.actual_cost == cost) return false;
  job.actual_cost = std::move(cost);
  return true;
}

core::Status Impl::meter_batch(backend::Store& tx, const std::vector<const backend::ClusterEvent*>& usage,
                               std::unordered_map<core::Id, PendingWrite>& writes, std::vector<core::Id>& order) {
  if (!cost_meter) return {};
  // Jobs the batch does not write, read once: a running job's periodic segment, or the last
  // segment of a job that ended in an earlier commit.
  std::unordered_map<core::Id, backend::JobRecord> others;
  std::vector<std::pair<core::Id, core::Id>> late;  // (job, tenant)
  for (const backend::ClusterEvent* e : usage) {
    const job::Job* job = nullptr;
    if (auto w = writes.find(e->job_id); w != writes.end() && w->second.tenant == e->tenant) {
      job = w->second.job.get();
    } else if (auto o = others.find(e->job_id); o != others.end()) {
      job = &o->second.job;
    } else {
      auto rec = tx.get_job(e->tenant, e->job_id);
      if (!rec && rec.error().code == core::ErrorCode::NotFound) continue;  // not this tenant's job
      if (!rec) return rec.error();
      job = &others.emplace(e->job_id, std::move(*rec)).first->second.job;
      if (live.count(e->job_id) == 0) late.emplace_back(e->job_id, e->tenant);
    }
    BUDCORE_TRY(cost_meter->record_usage(tx, e->tenant, *job, *e->usage));
  }
  // Priced once every segment of the batch is in: the jobs it ends, then the ended jobs whose
  // segments came after their end.
  for (const core::Id& id : order) {
    PendingWrite& w = writes.at(id);
    if (w.ended) price_ended(tx, w.tenant, *w.job);
  }
  for (const auto& [id, tenant] : late) {
    backend::JobRecord& rec = others.at(id);
    if (!job::is_final(rec.job.status) && rec.job.status != JobStatus::Failed) continue;
    if (!price_ended(tx, tenant, rec.job)) continue;
    PendingWrite& w = writes[id];  // written with the batch's jobs; no live record to keep
    w.tenant = tenant;
    w.job = std::make_shared<job::Job>(std::move(rec.job));
    w.expected_version = rec.version;
    order.push_back(id);
  }
  return {};
}

core::Result<std::shared_ptr<const job::Job>> Impl::job_doc(const LiveJob& lj) {
  if (lj.doc) return std::shared_ptr<const job::Job>(lj.doc);
  BUDCORE_TRY_ASSIGN(backend::JobRecord rec, store->get_job(lj.tenant, lj.id));
  return std::shared_ptr<const job::Job>(std::make_shared<job::Job>(std::move(rec.job)));
}

void Impl::schedule_budget_check(LiveJob& lj) {
  lj.budget_check_ns = 0;
  if (!cost_meter || lj.status != JobStatus::Running || lj.started_ns <= 0) return;
  auto doc = job_doc(lj);
  if (!doc) return;  // a store failure surfaces at the next write; the check waits for the next start
  if (!(*doc)->budget_limit) return;
  auto at = cost_meter->budget_deadline(lj.tenant, **doc, core::Timestamp::from_unix_nanos(lj.started_ns));
  if (!at) return;
  lj.budget_check_ns = std::max<std::int64_t>(at->unix_nanos(), 1);
  budget_checks.emplace(lj.budget_check_ns, lj.id);
}

std::optional<core::Timestamp> Impl::next_budget_check() {
  while (!budget_checks.empty()) {
    auto [at, id] = budget_checks.top();
    auto it = live.find(id);
    if (it != live.end() && it->second.budget_check_ns == at) return core::Timestamp::from_unix_nanos(at);
    budget_checks.pop();
  }
  return std::nullopt;
}

core::Status Impl::fire_budget_checks() {
  const core::Timestamp now = clock->now();
  while (auto due = next_budget_check()) {
    if (now < *due) break;
    const core::Id id = budget_checks.top().second;
    budget_checks.pop();
    LiveJob& lj = live.at(id);
    lj.budget_check_ns = 0;
    if (!cost_meter || lj.status != JobStatus::Running) continue;
    auto rec = store->get_job(lj.tenant, id);
    if (!rec) return fail_halted(rec.error());
    core::Status verdict = cost_meter->check_budget(lj.tenant, rec->job, core::Timestamp::from_unix_nanos(lj.started_ns), now);
    if (verdict) {
      // Not past it (prices or earlier runs changed since the deadline was computed): ask again,
      // never for a time already checked.
      schedule_budget_check(lj);
      if (lj.budget_check_ns != 0 && lj.budget_check_ns <= now.unix_nanos()) {
        lj.budget_check_ns = (now + core::Duration::seconds(1)).unix_nanos();
        budget_checks.emplace(lj.budget_check_ns, id);
      }
      continue;
    }
    BUDCORE_TRY(stop_for_budget(lj, std::move(*rec), now, "BudgetExceeded: " + verdict.error().message,
                                "the job passed its budget_limit"));
  }
  return {};
}

core::Status Impl::stop_for_budget(LiveJob& lj, backend::JobRecord rec, core::Timestamp now, const std::string& message,
                                   std::string_view no_retry_because) {
  // FAILED for good (another run would only spend more), committed before the cluster is
  // told, like a cancel.
  const core::Id id = lj.id;
  const core::Id tenant = lj.tenant;
  job::Job job = std::move(rec.job);
  std::vector<std::pair<core::Id, backend::EventRecord>> log;
  BUDCORE_TRY(move(&lj, job, JobStatus::Failed, now, message, log));
  job.status_message = message + "; no retry: " + std::string(no_retry_because);
  auto st = store->transact([&](backend::Store& tx) -> core::Status {
    price_ended(tx, tenant, job);  // the earlier runs; this run's segment follows its withdrawal
    BUDCORE_TRY(tx.write_job(tenant, job, rec.version));
    for (auto& [t, e] : log) BUDCORE_TRY(tx.append_event(t, e));
    BUDCORE_TRY(tx.delete_platform_record("job", id.to_string()));
    return save_clock(tx);
  });
  if (!st) return fail_halted(st.error());
  const std::string type_label(job::to_string(job.job_type));
  metrics.count("job_failures_total", {{"job_type", type_label}, {"failure_reason", "BudgetExceeded"}});
  metrics.count("jobs_total", {{"source_type", std::string(job::to_string(job.source))}, {"job_type", type_label}, {"status", "failed"}});
  const bool in_cluster = lj.in_cluster;
  queued_docs.forget(id);
  live.erase(id);
  if (in_cluster) (void)cluster->cancel(id, message);
  return {};
}

core::Status Impl::fire_budget_stops() {
  if (!budget_stops_due || !cost_meter) return {};
  budget_stops_due = false;
  const core::Timestamp now = clock->now();
  if (!cost_meter->refresh_stops(now)) return {};
  std::vector<core::Id> running;
  for (const auto& [id, lj] : live)
    if (lj.status == JobStatus::Running) running.push_back(id);
  std::sort(running.begin(), running.end());  // a deterministic order of stops
  for (const core::Id& id : running) {
    auto it = live.find(id);
    if (it == live.end() || it->second.status != JobStatus::Running) continue;
    auto doc = job_doc(it->second);  // a running job's document is cached: no read for the rest
    if (!doc) return fail_halted(doc.error());
    std::optional<std::string> reason = cost_meter->stop_reason(it->second.tenant, **doc);
    if (!reason) continue;
    auto rec = store->get_job(it->second.tenant, id);
    if (!rec) return fail_halted(rec.error());
    BUDCORE_TRY(stop_for_budget(it->second, std::move(*rec), now, "BudgetExceeded: " + *reason,
                                "its budget stops running jobs"));
  }
  return {};
}

core::Status Platform::check_budgets() {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  if (m.halted) return *m.halted;
  if (m.ha_role == Impl::HaRole::Follower || !m.cost_meter) return {};
  m.budget_stops_due = true;
  BUDCORE_TRY(m.fire_budget_stops());
  return m.pump_locked();  // the stopped runs' withdrawals and their last segments
}

void Platform::set_job_cost_meter(std::shared_ptr<JobCostMeter> meter) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  m.cost_meter = std::move(meter);
  for (auto& [id, lj] : m.live) m.schedule_budget_check(lj);
}

}  // namespace budcore::platform
