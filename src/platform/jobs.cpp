// The job operations of the Platform: submit (one or a batch, one transaction), cancel, retry,
// priority, preemption — each persisted before the cluster is told.
#include <algorithm>
#include <cctype>
#include <map>

#include "budcore/core/json.hpp"
#include "budcore/job/state_machine.hpp"
#include "budcore/quota/job_workload.hpp"
#include "core/digest.hpp"
#include "core/field_reader.hpp"
#include "job/job_json.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;
using job::JobStatus;
using Impl = Platform::Impl;

namespace {

Error at_index(Error e, bool batch, std::size_t i) {
  if (batch) e.at("jobs[" + std::to_string(i) + "]");
  return e;
}

// A submitted document may name the caller's own tenant or none; another tenant's is refused,
// whether the submit is new or a replay.
core::Status check_own_tenant(const job::Job& job, const core::Id& caller_tenant) {
  if (job.tenant_id.is_nil() || job.tenant_id == caller_tenant) return {};
  return Error::invalid("tenant_id", job.tenant_id.to_string(), "belongs to another tenant than the caller's");
}

core::Value transition_data(const job::Job& job, JobStatus from, JobStatus to, std::string_view message) {
  return core::Value::map({{"job", job.id.to_string()},
                           {"name", job.name},
                           {"from", std::string(job::to_string(from))},
                           {"to", std::string(job::to_string(to))},
                           {"message", std::string(message)},
                           {"run", job.retry_count + 1}});
}

}  // namespace

core::Status Impl::move(LiveJob* lj, job::Job& job, JobStatus to, core::Timestamp at, std::string_view message,
                        std::vector<std::pair<core::Id, backend::EventRecord>>& log) {
  const JobStatus from = job.status;
  if (job.updated_at && at < *job.updated_at) at = *job.updated_at;  // never backwards
  AtClock c(at);
  BUDCORE_TRY(job::transition(job, to, c, message));
  backend::EventRecord e;
  e.at = at;
  e.type = "job.transition";
  e.object_id = job.id;
  e.data = transition_data(job, from, to, message);
  // A leader stamps its epoch: along the event log the epochs never go back (docs/ha.md).
  if (ha_role == HaRole::Leader) e.data.mutable_map().set("epoch", ha_epoch);
  log.emplace_back(job.tenant_id, std::move(e));
  metrics.count("job_state_transitions_total", {{"job_type", std::string(job::to_string(job.job_type))},
                                                {"from_state", std::string(job::to_string(from))},
                                                {"to_state", std::string(job::to_string(to))}});
  if (lj) lj->status = to;
  return {};
}

core::Value Impl::record_doc(const LiveJob& lj) const {
  core::Map m;
  m.set("tenant", lj.tenant.to_string());
  m.set("queue_seq", lj.queue_seq);
  m.set("queued_ns", lj.queued_ns);
  if (lj.admitted_ns) m.set("admitted_ns", lj.admitted_ns);
  if (lj.started_ns) m.set("started_ns", lj.started_ns);
  if (lj.retry_at_ns) m.set("retry_at_ns", lj.retry_at_ns);
  if (lj.placement) m.set("placement", placement_value(*lj.placement));
  return core::Value(std::move(m));
}

// Which GPUs a container sees is the device plugin's to say (NVIDIA_VISIBLE_DEVICES and its
// siblings): a job that set them could reach every GPU of its node, other tenants' included.
static core::Status check_device_env(const core::Value& spec) {
  for (std::string_view key : {"env", "secret_env"}) {
    const core::Value* env = spec.is_map() ? spec.find(key) : nullptr;
    if (env == nullptr || !env->is_map()) continue;
    for (const auto& [name, v] : env->as_map()) {
      std::string upper = name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (upper.starts_with("NVIDIA_") || upper == "AMD_VISIBLE_DEVICES")
        return Error{ErrorCode::Security,
                     "the NVIDIA_* and AMD_VISIBLE_DEVICES variables choose which GPUs a container sees: the device plugin sets them from the "
                     "GPUs the job requests (gpu_count)",
                     "spec." + std::string(key) + "." + name, core::detail::value_text(v)};
    }
  }
  return {};
}

core::Result<job::Job> Impl::prepare(const CallContext& caller, job::Job job, std::string_view path) {
  auto fail = [&](Error e) {
    if (!path.empty()) e.at(path);
    return e;
  };
  if (auto st = check_own_tenant(job, caller.tenant); !st) return fail(st.error());
  if (job.status != JobStatus::Pending)
    return fail(Error::invalid("status", std::string(job::to_string(job.status)), "a submitted job starts pending"));
  if (!job.status_history.empty())
    return fail(Error::invalid("status_history", "", "a submitted job has no history yet"));
  if (job.retry_count != 0)
    return fail(Error::invalid("retry_count", std::to_string(job.retry_count), "a submitted job has not been retried"));
  job.tenant_id = caller.tenant;
  job.id = core::Id::generate(*clock, caller.tenant);
  const core::Timestamp now = clock->now();
  job.created_at = now;
  job.updated_at = now;
  job.actual_start.reset();
  job.actual_end.reset();
  job.estimated_start.reset();
  job.estimated_end.reset();
  if (auto st = job.validate(); !st) return fail(st.error());
  if (auto st = check_device_env(job.spec); !st) return fail(st.error());
  // A secret reference that does not resolve is the caller's to fix now, not the run's to fail.
  if (auto st = secrets->check(caller.tenant, job.spec, "spec"); !st) return fail(st.error());
  if (auto w = quota::workload_for(job, 0, config.cluster.layout); !w) return fail(w.error());
  if (sim) {
    if (auto st = backend::SimCluster::check_spec(job.spec); !st) return fail(st.error());
  }
  return job;
}

core::Result<std::vector<std::optional<backend::JobRecord>>> Impl::read_keys(const core::Id& tenant,
                                                                            const std::vector<SubmitRequest>& jobs,
                                                                            const std::vector<bool>& skip) {
  std::vector<std::optional<backend::JobRecord>> out(jobs.size());
  std::vector<std::string> keys;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!skip[i] && !jobs[i].idempotency_key.empty()) {
      keys.push_back(jobs[i].idempotency_key);
      at.push_back(i);
    }
  if (keys.empty()) return out;
  BUDCORE_TRY_ASSIGN(auto found, store->get_jobs_by_keys(tenant, keys));
  for (std::size_t k = 0; k < at.size(); ++k) out[at[k]] = std::move(found[k]);
  return out;
}

// A key that names an existing job returns that job: only to a caller who may read it, else the
// refusal a read of it gets (the same as for an id that exists nowhere); and only for the
// document it was first sent with. A replay is answered before any check of the document or
// the policy: it creates nothing, so a queue cap the first job fills, or a policy tightened
// since, must not refuse the retry of a submit whose answer was lost.
core::Status Impl::check_replay(const CallContext& caller, const backend::JobRecord& existing, const job::Job& sent,
                                std::string_view digest) {
  const core::Id id = existing.job.id;
  if (authorizer) BUDCORE_TRY(guard(caller, "get", "jobs", &id));
  BUDCORE_TRY(check_own_tenant(sent, caller.tenant));
  return backend::check_request_digest(existing, digest);
}

core::Result<std::size_t> Impl::take_replays(const CallContext& caller, const std::vector<SubmitRequest>& jobs,
                                             const std::vector<std::string>& digests, bool batch,
                                             std::vector<bool>& replayed, std::vector<SubmitResult>& results) {
  BUDCORE_TRY_ASSIGN(auto known, read_keys(caller.tenant, jobs, replayed));
  std::size_t found = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!known[i]) continue;
    if (auto st = check_replay(caller, *known[i], jobs[i].job, digests[i]); !st) return at_index(st.error(), batch, i);
    results[i] = SubmitResult{std::move(*known[i]), false};
    replayed[i] = true;
    ++found;
  }
  return found;
}

namespace {

// What create_job_with_new_key reports when another request took its key first.
bool lost_key_race(const Error& e) {
  return e.code == ErrorCode::Conflict && (e.field == "idempotency_key" || e.field.ends_with(".idempotency_key"));
}

// Each job of a batch needs its own key: two entries under one key would make the second the
// first's replay inside one request.
core::Status check_distinct_keys(const std::vector<SubmitRequest>& jobs) {
  std::map<std::string_view, std::size_t> first;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string& key = jobs[i].idempotency_key;
    if (key.empty()) continue;
    auto [at, fresh] = first.emplace(key, i);
    if (!fresh)
      return at_index(Error::invalid("idempotency_key", key,
                                     "jobs[" + std::to_string(at->second) + "] of this batch has the same key; each job needs its own"),
                      true, i);
  }
  return {};
}

}  // namespace

core::Result<std::vector<SubmitResult>> Impl::submit_jobs(const CallContext& caller, std::vector<SubmitRequest> jobs,
                                                          bool batch, JobOrigin origin) {
  if (jobs.empty()) return std::vector<SubmitResult>{};
  if (jobs.size() > 100'000) return Error::invalid("jobs", std::to_string(jobs.size()), "at most 100000 jobs per batch");
  // The same checks on every path, in this order: roles, limits (before a document is read, so
  // that a flood of bad documents is limited too), the fields only the platform writes, the
  // document, the admission gates.
  BUDCORE_TRY(guard_submit(caller, jobs));
  BUDCORE_TRY_ASSIGN(SubmitTicket ticket, check_submit_limits(caller, jobs.size()));
  auto refused = [&](Error e) -> Error {
    // A refused submit still takes its tokens; the refusal is the caller's answer either way.
    if (ticket.limited) (void)store->transact([&](backend::Store& tx) { return take_submit_tokens(tx, caller, ticket); });
    return e;
  };
  if (batch)
    if (auto st = check_distinct_keys(jobs); !st) return refused(st.error());
  // A caller's key is kept with the digest of the document as sent (before prepare fills it in),
  // so the key sent again with another document is refused. The platform's own keys (pipeline
  // steps) name a step, whose document may be rendered anew after a restart: not digested.
  std::vector<std::string> digests(jobs.size());
  std::vector<SubmitResult> results(jobs.size());
  std::vector<bool> replayed(jobs.size(), false);
  std::size_t fresh = 0;
  // Every key of the batch in one read. When that read fails (a key the store refuses, say),
  // each key is read alone below, so that the refusal names its job as it always has.
  auto known = read_keys(caller.tenant, jobs, replayed);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (auto st = check_origin(jobs[i].job, jobs[i].idempotency_key, origin); !st)
      return refused(at_index(st.error(), batch, i));
    const std::string& key = jobs[i].idempotency_key;
    if (origin == JobOrigin::Caller && !key.empty()) digests[i] = backend::job_request_digest(jobs[i].job, caller.tenant);
    core::Result<std::optional<backend::JobRecord>> existing = std::optional<backend::JobRecord>();
    if (known)
      existing = std::move((*known)[i]);
    else if (!key.empty())
      existing = store->get_job_by_key(caller.tenant, key);
    if (!existing) return refused(at_index(existing.error(), batch, i));
    if (*existing) {
      if (auto st = check_replay(caller, **existing, jobs[i].job, digests[i]); !st)
        return refused(at_index(st.error(), batch, i));
      results[i] = SubmitResult{std::move(**existing), false};
      replayed[i] = true;
      continue;
    }
    ++fresh;
    auto prepared = prepare(caller, std::move(jobs[i].job), batch ? "jobs[" + std::to_string(i) + "]" : "");
    if (!prepared) return refused(prepared.error());
    jobs[i].job = std::move(*prepared);
    if (auto st = admit_job(caller, jobs[i].job, GateStage::Submit); !st) return refused(at_index(st.error(), batch, i));
  }
  const core::Timestamp now = clock->now();
  std::vector<LiveJob> staged;
  std::vector<std::shared_ptr<job::Job>> staged_docs;
  staged.reserve(jobs.size());
  // The audit log has one entry per request, as Kubernetes' does: a batch is one "jobs.create"
  // entry listing every job it created with its digest (object_id empty), one job is its own.
  core::List created_jobs;
  auto create_all = [&](backend::Store& tx) -> core::Status {
    staged.clear();
    staged_docs.clear();
    created_jobs.clear();
    BUDCORE_TRY(take_submit_tokens(tx, caller, ticket));
    BUDCORE_TRY(check_open_jobs(tx, caller, fresh));
    std::vector<std::pair<core::Id, backend::EventRecord>> log;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (replayed[i]) continue;
      job::Job queued = jobs[i].job;  // the prepared job stays as it was, for a second attempt
      const std::string cq = quota::cluster_queue_for(queued, config.cluster.layout);
      log.clear();
      BUDCORE_TRY(move(nullptr, queued, JobStatus::Queued, now, "submitted; waiting for admission by ClusterQueue " + cq, log));
      // Its key, if any, was read as absent above: the store need not look it up again.
      auto created = tx.create_job_with_new_key(caller.tenant, std::move(queued), jobs[i].idempotency_key, digests[i]);
      if (!created) return at_index(created.error(), batch, i);
      results[i] = SubmitResult{std::move(created->record), created->created};
      // A key taken meanwhile is the store's Conflict (lost_key_race), never a job it returns:
      // such a job would reach the caller without the replay checks.
      if (!created->created)
        return Error::make(ErrorCode::Internal, "the store returned an existing job for a key read as absent");
      const job::Job& job = results[i].record.job;
      // The PENDING -> QUEUED transition is the submission's event: it carries who asked and how.
      core::Map& data = log.front().second.data.mutable_map();
      data.set("job_type", std::string(job::to_string(job.job_type)));
      data.set("source", std::string(job::to_string(job.source)));
      data.set("idempotency_key", jobs[i].idempotency_key.empty() ? core::Value() : core::Value(jobs[i].idempotency_key));
      data.set("request_id", caller.request_id.empty() ? core::Value() : core::Value(caller.request_id));
      data.set("principal", caller.principal.empty() ? core::Value() : core::Value(caller.principal));
      BUDCORE_TRY_ASSIGN(std::int64_t seq, tx.append_event(caller.tenant, log.front().second));
      LiveJob lj;
      lj.id = job.id;
      lj.tenant = caller.tenant;
      lj.version = results[i].record.version;
      lj.run = 1;
      lj.queue_seq = seq;
      lj.queued_ns = now.unix_nanos();
      lj.status = JobStatus::Queued;
      lj.type = job.job_type;
      lj.source = job.source;
      lj.priority = job.priority;
      BUDCORE_TRY(tx.put_platform_record("job", job.id.to_string(), record_doc(lj)));
      // A follower's job is the leader's to hand to the cluster: a request, in this transaction.
      if (ha_role == HaRole::Follower) BUDCORE_TRY(append_request(tx, caller, "adopt", job.id, {}));
      if (batch)
        created_jobs.emplace_back(core::Map{{"id", job.id.to_string()},
                                            {"after", core::sha256_hex(job::detail::compact_json(job))}});
      else
        BUDCORE_TRY(audit(tx, caller, "jobs.create", "job", job.id.to_string(), {}, job::detail::compact_json(job)));
      staged.push_back(std::move(lj));
      staged_docs.push_back(std::make_shared<job::Job>(results[i].record.job));  // as stored
    }
    if (!created_jobs.empty()) {
      const auto n = static_cast<std::int64_t>(created_jobs.size());
      BUDCORE_TRY(audit(tx, caller, "jobs.create", "job", {}, {}, {},
                        core::Map{{"count", n}, {"jobs", core::Value(std::move(created_jobs))}}));
    }
    return save_clock(tx);
  };
  auto st = store->transact(create_all);
  // Another request created a job under one of the keys after they were read: read them again,
  // now as replays, and create the rest (a few times at most: each round has fewer keys left).
  for (int round = 0; round < 3 && !st && lost_key_race(st.error()); ++round) {
    auto found = take_replays(caller, jobs, digests, batch, replayed, results);
    if (!found) return refused(found.error());
    if (*found == 0) break;
    fresh -= *found;
    st = store->transact(create_all);
  }
  if (!st) {
    // The transaction rolled back: nothing was created; the metrics counted transitions of it.
    return fail_if_deposed(st.error());
  }
  // A replayed key returns the job it names as a read would: cost fields for those who may see them.
  for (auto& r : results)
    if (!r.created) {
      auto shown = visible(caller, r.record);
      if (shown) r.record = std::move(*shown);
    }
  if (ha_role == HaRole::Follower) return results;  // the leader hands them to the cluster
  for (std::size_t k = 0; k < staged.size(); ++k) {
    LiveJob& lj = live.emplace(staged[k].id, std::move(staged[k])).first->second;
    const job::Job& job = *staged_docs[k];
    metrics.count("jobs_total", {{"source_type", std::string(job::to_string(job.source))},
                                 {"job_type", std::string(job::to_string(job.job_type))},
                                 {"status", "submitted"}});
    if (origin == JobOrigin::Pipeline)
      for (std::size_t i = 0; i < jobs.size(); ++i)
        if (jobs[i].job.id == lj.id && !jobs[i].idempotency_key.empty())
          pipeline_keys[{lj.tenant, jobs[i].idempotency_key}] = lj.id;
    hand_to_cluster(lj, job);
    queued_docs.keep(lj.id, lj.version, staged_docs[k]);
  }
  return results;
}

// Hands the job's current run to the cluster. A refusal fails the job (through the same path
// as a failure the cluster reports); an unreachable cluster is tried again at the next pump.
void Impl::hand_to_cluster(LiveJob& lj, const job::Job& job) {
  auto req = request_for(lj, job);
  core::Status st = req ? cluster->submit(*req) : core::Status(req.error());
  if (st) {
    lj.in_cluster = true;
    return;
  }
  if (st.error().code == ErrorCode::Io) {
    resubmit.push_back(lj.id);
    return;
  }
  backend::ClusterEvent e;
  e.kind = backend::ClusterEventKind::Failed;
  e.tenant = lj.tenant;
  e.job_id = lj.id;
  e.run = lj.run;
  e.at = clock->now();
  e.reason = "Rejected";
  e.message = "the cluster refused the job: " + st.error().describe();
  std::vector<backend::ClusterEvent> one{std::move(e)};
  (void)apply_events(one);
}

core::Result<backend::JobRecord> Impl::cancel(const CallContext& caller, const core::Id& id, std::string_view reason) {
  BUDCORE_TRY_ASSIGN(backend::JobRecord rec, store->get_job(caller.tenant, id));
  if (ha_role == HaRole::Follower) {
    if (job::is_final(rec.job.status))
      return Error::make(ErrorCode::Conflict,
                         "job " + id.to_string() + " is " + std::string(job::to_string(rec.job.status)) +
                             ": only a job that has not ended can be cancelled",
                         "status");
    return request(caller, "cancel", rec, core::Map{{"reason", std::string(reason)}});
  }
  if (job::is_final(rec.job.status) || rec.job.status == JobStatus::Failed) {
    auto it = live.find(id);
    bool retry_pending = it != live.end() && it->second.retry_at_ns > 0;
    if (!retry_pending)
      return Error::make(ErrorCode::Conflict,
                         "job " + id.to_string() + " is " + std::string(job::to_string(rec.job.status)) +
                             ": only a job that has not ended can be cancelled",
                         "status");
    // A failed job waiting for its retry: cancelling it stops the retries (FAILED is final then).
    backend::EventRecord e;
    e.at = clock->now();
    e.type = "job.retries_cancelled";
    e.object_id = id;
    e.data = core::Value::map({{"job", id.to_string()}, {"reason", std::string(reason)}});
    rec.job.status_message = "retries cancelled" + (reason.empty() ? std::string() : ": " + std::string(reason));
    const std::string before = job::detail::compact_json(rec.job);
    auto st = store->transact([&](backend::Store& tx) -> core::Status {
      price_ended(tx, caller.tenant, rec.job);
      BUDCORE_TRY_ASSIGN(rec, tx.write_job(caller.tenant, rec.job, rec.version));
      BUDCORE_TRY(tx.append_event(caller.tenant, e));
      BUDCORE_TRY(audit(tx, caller, "jobs.cancel", "job", id.to_string(), before, job::detail::compact_json(rec.job)));
      return tx.delete_platform_record("job", id.to_string());
    });
    if (!st) return fail_if_deposed(st.error());
    queued_docs.forget(it->first);
    live.erase(it);
    return store->get_job(caller.tenant, id);
  }
  std::string message = reason.empty() ? "cancelled" : "cancelled: " + std::string(reason);
  if (!caller.principal.empty()) message += " (by " + caller.principal + ")";
  std::vector<std::pair<core::Id, backend::EventRecord>> log;
  job::Job job = rec.job;
  BUDCORE_TRY(move(nullptr, job, JobStatus::Cancelled, clock->now(), message, log));
  backend::JobRecord out;
  auto st = store->transact([&](backend::Store& tx) -> core::Status {
    // The cost of the earlier runs; the cancelled run's segment follows with the cluster's
    // report (the next pump).
    price_ended(tx, caller.tenant, job);
    BUDCORE_TRY_ASSIGN(out, tx.write_job(caller.tenant, job, rec.version));
    for (auto& [tenant, e] : log) BUDCORE_TRY(tx.append_event(tenant, e));
    BUDCORE_TRY(audit(tx, caller, "jobs.cancel", "job", id.to_string(), job::detail::compact_json(rec.job),
                      job::detail::compact_json(out.job)));
    BUDCORE_TRY(tx.delete_platform_record("job", id.to_string()));
    return save_clock(tx);
  });
  if (!st) return fail_if_deposed(st.error());
  metrics.count("jobs_total", {{"source_type", std::string(job::to_string(job.source))},
                               {"job_type", std::string(job::to_string(job.job_type))},
                               {"status", "cancelled"}});
  if (auto it = live.find(id); it != live.end()) {
    bool in_cluster = it->second.in_cluster;
    queued_docs.forget(it->first);
    live.erase(it);
    if (in_cluster) (void)cluster->cancel(id, message);
  }
  out.idempotency_key = rec.idempotency_key;
  return out;
}

core::Result<backend::JobRecord> Impl::retry(const CallContext& caller, const core::Id& id, bool automatic) {
  BUDCORE_TRY_ASSIGN(backend::JobRecord rec, store->get_job(caller.tenant, id));
  if (rec.job.status != JobStatus::Failed)
    return Error::make(ErrorCode::Conflict,
                       "job " + id.to_string() + " is " + std::string(job::to_string(rec.job.status)) +
                           ": only a failed job can be retried",
                       "status");
  if (rec.job.retry_count >= rec.job.max_retries)
    return Error::make(ErrorCode::Conflict,
                       "job " + id.to_string() + " has used its retry budget (" + std::to_string(rec.job.retry_count) +
                           " of max_retries " + std::to_string(rec.job.max_retries) + ")",
                       "retry_count");
  BUDCORE_TRY(admit_job(caller, rec.job, GateStage::Retry));
  // A requested retry is a new run the caller asks for: it counts against the tenant's queue
  // depth and submit rate like a submit (automatic retries are the retry policy's, not a request).
  SubmitTicket ticket;
  if (!automatic) {
    BUDCORE_TRY_ASSIGN(ticket, check_submit_limits(caller, 1));
  }
  if (ha_role == HaRole::Follower) return request(caller, "retry", rec, {});
  job::Job job = rec.job;
  std::vector<std::pair<core::Id, backend::EventRecord>> log;
  const core::Timestamp now = clock->now();
  std::string message = "retry " + std::to_string(job.retry_count + 1) + " of " + std::to_string(job.max_retries) +
                        (automatic ? "" : " (requested)");
  BUDCORE_TRY(move(nullptr, job, JobStatus::Queued, now, message, log));
  LiveJob fresh;
  auto it = live.find(id);
  LiveJob& lj = it != live.end() ? it->second : fresh;
  backend::JobRecord out;
  auto st = store->transact([&](backend::Store& tx) -> core::Status {
    BUDCORE_TRY(take_submit_tokens(tx, caller, ticket));
    if (!automatic) BUDCORE_TRY(check_open_jobs(tx, caller, 1));
    BUDCORE_TRY_ASSIGN(out, tx.write_job(caller.tenant, job, rec.version));
    BUDCORE_TRY_ASSIGN(std::int64_t seq, tx.append_event(caller.tenant, log.front().second));
    lj.id = id;
    lj.tenant = caller.tenant;
    lj.version = out.version;
    lj.run = job.retry_count + 1;
    lj.queue_seq = seq;
    lj.queued_ns = now.unix_nanos();
    lj.admitted_ns = lj.started_ns = lj.retry_at_ns = 0;
    lj.status = JobStatus::Queued;
    lj.type = job.job_type;
    lj.source = job.source;
    lj.priority = job.priority;
    lj.placement.reset();
    lj.doc.reset();
    BUDCORE_TRY(tx.put_platform_record("job", id.to_string(), record_doc(lj)));
    // Automatic retries are the retry policy's, not a caller's mutation: the event log has them.
    if (!automatic)
      BUDCORE_TRY(audit(tx, caller, "jobs.retry", "job", id.to_string(), job::detail::compact_json(rec.job),
                        job::detail::compact_json(out.job)));
    return save_clock(tx);
  });
  if (!st) return automatic ? fail_halted(st.error()) : fail_if_deposed(st.error());
  metrics.count("job_retries_total", {{"job_type", std::string(job::to_string(job.job_type))}});
  LiveJob& placed = it != live.end() ? it->second : live.emplace(id, std::move(fresh)).first->second;
  placed.in_cluster = false;
  hand_to_cluster(placed, job);
  out.idempotency_key = rec.idempotency_key;
  return out;
}

core::Result<backend::JobRecord> Platform::set_priority(const CallContext& caller, const core::Id& id,
                                                        job::JobPriority priority) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "update", "jobs", &id));
  return impl_->visible(caller, impl_->change_priority(caller, id, priority));
}

core::Result<backend::JobRecord> Impl::change_priority(const CallContext& caller, const core::Id& id,
                                                       job::JobPriority priority) {
  Impl& m = *this;
  BUDCORE_TRY_ASSIGN(backend::JobRecord rec, m.store->get_job(caller.tenant, id));
  auto it = m.live.find(id);
  const bool open = ha_role == HaRole::Follower ? !job::is_final(rec.job.status) && rec.job.status != JobStatus::Failed
                                                : it != m.live.end();
  if (!open)
    return Error::make(ErrorCode::Conflict,
                       "job " + id.to_string() + " is " + std::string(job::to_string(rec.job.status)) +
                           ": the priority of an ended job cannot change",
                       "status");
  job::Job job = rec.job;
  const job::JobPriority before = job.priority;
  job.priority = priority;
  if (auto st = job.validate(); !st) return Error(st.error()).at("");
  // The job as it would be passes what a new job of that priority would (roles, tenant policy).
  if (priority != before) BUDCORE_TRY(m.admit_job(caller, job, GateStage::Priority));
  if (ha_role == HaRole::Follower)
    return request(caller, "priority", rec, core::Map{{"priority", std::string(job::to_string(priority))}});
  backend::EventRecord e;
  e.at = m.clock->now();
  e.type = "job.priority_changed";
  e.object_id = id;
  e.data = core::Value::map({{"job", id.to_string()},
                             {"from", std::string(job::to_string(before))},
                             {"to", std::string(job::to_string(priority))}});
  backend::JobRecord out;
  auto st = m.store->transact([&](backend::Store& tx) -> core::Status {
    BUDCORE_TRY_ASSIGN(out, tx.write_job(caller.tenant, job, rec.version));
    BUDCORE_TRY(tx.append_event(caller.tenant, e));
    return m.audit(tx, caller, "jobs.update", "job", id.to_string(), job::detail::compact_json(rec.job),
                   job::detail::compact_json(out.job),
                   core::Map{{"priority", std::string(job::to_string(priority))}});
  });
  if (!st) return fail_if_deposed(st.error());
  LiveJob& lj = it->second;
  lj.version = out.version;
  lj.priority = priority;
  if (lj.doc) lj.doc->priority = priority, lj.doc->updated_at = out.job.updated_at;
  if (lj.in_cluster) (void)m.cluster->set_priority(id, job::kueue_priority_value(priority));
  out.idempotency_key = rec.idempotency_key;
  return out;
}

core::Result<backend::JobRecord> Platform::preempt_job(const CallContext& caller, const core::Id& id, std::string_view reason) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "preempt", "jobs", &id));
  return impl_->preempt(caller, id, reason);
}

core::Result<backend::JobRecord> Impl::preempt(const CallContext& caller, const core::Id& id, std::string_view reason) {
  Impl& m = *this;
  BUDCORE_TRY_ASSIGN(backend::JobRecord rec, m.store->get_job(caller.tenant, id));
  auto it = m.live.find(id);
  const bool holds = ha_role == HaRole::Follower ? job::holds_resources(rec.job.status)
                                                 : it != m.live.end() && job::holds_resources(it->second.status);
  if (!holds)
    return Error::make(ErrorCode::Conflict,
                       "job " + id.to_string() + " is " + std::string(job::to_string(rec.job.status)) +
                           ": only a scheduled or running job can be preempted",
                       "status");
  std::string why = reason.empty() ? "preempted by an administrator" : std::string(reason);
  if (!caller.principal.empty()) why += " (by " + caller.principal + ")";
  // A follower's request names the run it saw, so that a request carried out twice (a leader
  // that failed after it) preempts that run at most once.
  if (ha_role == HaRole::Follower)
    return request(caller, "preempt", rec, core::Map{{"reason", why}, {"run", rec.job.retry_count + 1}});
  BUDCORE_TRY(m.cluster->evict(id, why));
  // The eviction is the cluster's to carry out: the entry records the request and the job as it stood.
  auto st = m.store->transact([&](backend::Store& tx) {
    return m.audit(tx, caller, "jobs.preempt", "job", id.to_string(), job::detail::compact_json(rec.job), {},
                   core::Map{{"reason", why}});
  });
  if (!st) return fail_if_deposed(st.error());
  BUDCORE_TRY(m.pump_locked());
  return m.store->get_job(caller.tenant, id);
}

}  // namespace budcore::platform
