// Opening a Platform on an existing Store: the virtual clock, every live job (from its
// platform record and its stored document) handed back to the cluster, and every pipeline run
// resumed by its engine from the last state it saved.
#include "budcore/core/json.hpp"
#include "budcore/job/state_machine.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;
using job::JobStatus;
using Impl = Platform::Impl;

namespace {

constexpr std::size_t kAdoptBatch = 1000;

core::Error damaged(const backend::PlatformRecord& r, std::string why) {
  return Error::make(ErrorCode::Io, "platform record " + r.kind + "/" + r.key + " is damaged: " + why,
                     "platform_records[" + r.kind + "/" + r.key + "]");
}

}  // namespace

core::Result<LiveJob> live_from_record(const backend::PlatformRecord& r, const core::Id& tenant,
                                       const backend::JobRecord& rec) {
  LiveJob lj;
  BUDCORE_TRY_ASSIGN(lj.id, core::Id::parse(r.key));
  lj.tenant = tenant;
  lj.version = rec.version;
  lj.run = rec.job.retry_count + 1;
  lj.queue_seq = record_int(r.doc, "queue_seq");
  lj.queued_ns = record_int(r.doc, "queued_ns");
  lj.admitted_ns = record_int(r.doc, "admitted_ns");
  lj.started_ns = record_int(r.doc, "started_ns");
  lj.retry_at_ns = record_int(r.doc, "retry_at_ns");
  lj.status = rec.job.status;
  lj.type = rec.job.job_type;
  lj.source = rec.job.source;
  lj.priority = rec.job.priority;
  if (const core::Value* pv = r.doc.find("placement"); pv != nullptr && !pv->is_null()) {
    BUDCORE_TRY_ASSIGN(auto placement, placement_from(*pv));
    lj.placement = std::make_unique<backend::Placement>(std::move(placement));
  }
  return lj;
}

core::Status Impl::recover() {
  if (vclock) {
    BUDCORE_TRY_ASSIGN(auto saved, store->get_platform_record("state", "clock"));
    if (saved) vclock->set(core::Timestamp::from_unix_nanos(record_int(saved->doc, "now_ns")));
  }
  std::vector<backend::AdoptedRun> batch;
  auto flush = [&]() -> core::Status {
    if (batch.empty()) return {};
    BUDCORE_TRY(cluster->adopt(batch));
    batch.clear();
    return {};
  };
  backend::PageRequest page;
  page.limit = backend::PageRequest::kMaxPageSize;
  do {
    BUDCORE_TRY_ASSIGN(auto p, store->list_platform_records("job", page));
    // A page's jobs in one read (one query per page on PostgreSQL, not one per job): a new
    // leader with a large backlog leads sooner.
    std::vector<backend::JobKey> keys;
    keys.reserve(p.items.size());
    for (const auto& r : p.items) {
      auto id = core::Id::parse(r.key);
      const core::Value* t = r.doc.find("tenant");
      if (!id || t == nullptr || !t->is_string()) return damaged(r, "no job id or tenant");
      auto tenant = core::Id::parse(t->as_string());
      if (!tenant) return damaged(r, "tenant is not a UUID");
      keys.push_back({*tenant, *id});
    }
    BUDCORE_TRY_ASSIGN(auto found, store->get_jobs(keys));
    for (std::size_t i = 0; i < p.items.size(); ++i) {
      const backend::PlatformRecord& r = p.items[i];
      const core::Id* id = &keys[i].id;
      const core::Id* tenant = &keys[i].tenant;
      std::optional<backend::JobRecord>& rec = found[i];
      const std::int64_t retry_at = record_int(r.doc, "retry_at_ns");
      if (!rec || job::is_final(rec->job.status) || (rec->job.status == JobStatus::Failed && retry_at == 0)) {
        // Written in one transaction with the job, a record outlives its job only if the store
        // was edited by hand; the job has ended, so the record goes.
        BUDCORE_TRY(store->delete_platform_record("job", r.key));
        continue;
      }
      job::Job& job = rec->job;
      auto built = live_from_record(r, *tenant, *rec);
      if (!built) return damaged(r, built.error().message);
      LiveJob lj = std::move(*built);
      if (job.source == job::JobSource::Pipeline && rec->idempotency_key.starts_with(kInternalKeyPrefix))
        pipeline_keys[{*tenant, rec->idempotency_key}] = *id;
      if (job.status == JobStatus::Failed) {
        retries.emplace(retry_at, *id);
        live.emplace(*id, std::move(lj));
        continue;
      }
      backend::AdoptedRun a;
      BUDCORE_TRY_ASSIGN(a.request, request_for(lj, job));
      if (job::holds_resources(job.status) && lj.placement) {
        a.phase = job.status == JobStatus::Running ? backend::AdoptedRun::Phase::Running : backend::AdoptedRun::Phase::Admitted;
        a.placement = *lj.placement;
        if (lj.admitted_ns) a.admitted_at = core::Timestamp::from_unix_nanos(lj.admitted_ns);
        if (job.status == JobStatus::Running)
          a.started_at = job.actual_start ? *job.actual_start : core::Timestamp::from_unix_nanos(lj.started_ns);
        lj.doc = std::make_shared<job::Job>(std::move(job));
      } else {
        a.phase = backend::AdoptedRun::Phase::Queued;  // QUEUED, PREEMPTED (requeued), PENDING
      }
      lj.in_cluster = true;
      batch.push_back(std::move(a));
      live.emplace(*id, std::move(lj));
      if (batch.size() >= kAdoptBatch) BUDCORE_TRY(flush());
    }
    page.after = p.next_cursor;
  } while (!page.after.empty());
  BUDCORE_TRY(flush());
  BUDCORE_TRY(cluster->adoption_complete());
  return recover_runs();
}

core::Status Impl::recover_runs() {
  backend::PageRequest page;
  page.limit = backend::PageRequest::kMaxPageSize;
  do {
    BUDCORE_TRY_ASSIGN(auto p, store->list_platform_records("run", page));
    for (const auto& r : p.items) {
      auto id = core::Id::parse(r.key);
      const core::Value* t = r.doc.find("tenant");
      if (!id || t == nullptr || !t->is_string()) return damaged(r, "no run id or tenant");
      auto tenant = core::Id::parse(t->as_string());
      if (!tenant) return damaged(r, "tenant is not a UUID");
      auto rec = store->get_pipeline(*tenant, *id);
      if (!rec) {
        if (rec.error().code != ErrorCode::NotFound) return rec.error();
        BUDCORE_TRY(store->delete_platform_record("run", r.key));
        continue;
      }
      BUDCORE_TRY(load_run_state(*tenant, *rec));
      auto run = std::make_unique<LiveRun>();
      run->id = *id;
      run->tenant = *tenant;
      if (const core::Value* pr = r.doc.find("principal"); pr != nullptr && pr->is_string()) run->principal = pr->as_string();
      if (const core::Value* d = r.doc.find("deployment"); d != nullptr && d->is_string()) {
        auto deployment = core::Id::parse(d->as_string());
        if (!deployment) return damaged(r, "deployment is not a UUID");
        run->deployment = *deployment;
      }
      run->pipeline = rec->name;
      run->document = rec->definition;
      run->version = rec->version;
      run->started_ns = record_int(r.doc, "started_ns");
      LiveRun& ref = *run;
      runs.emplace(*id, std::move(run));
      const core::Value* saved = rec->state.is_map() && rec->state.find("run_id") ? &rec->state : nullptr;
      BUDCORE_TRY(start_engine(ref, saved));
      // A run stored but never started (by a follower, or by a process that stopped right
      // after storing it) starts now.
      if (!saved && ref.engine) BUDCORE_TRY(ref.engine->start());
      if (ref.engine && ref.engine->done()) BUDCORE_TRY(finish_run(ref));
    }
    page.after = p.next_cursor;
  } while (!page.after.empty());
  return {};
}

}  // namespace budcore::platform
