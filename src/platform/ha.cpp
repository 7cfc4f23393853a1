// High availability (docs/ha.md): replicas of one platform on one store. The leader holds the
// store's lease and drives everything (admission, retries, pipelines, metering); every write
// it makes is fenced by the lease's epoch, so a deposed leader can change nothing. Followers
// serve reads and take mutations as requests, which the leader carries out in order.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "budcore/core/json.hpp"
#include "budcore/job/state_machine.hpp"
#include "job/job_json.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;
using job::JobStatus;
using Impl = Platform::Impl;

namespace {

constexpr std::string_view kLease = "platform";
constexpr std::size_t kRequestBatch = 250;

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string_view role_name(Impl::HaRole r) {
  return r == Impl::HaRole::Leader ? "leader" : r == Impl::HaRole::Follower ? "follower" : "single";
}

std::string text_of(const core::Value& doc, std::string_view key) {
  const core::Value* v = doc.find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

}  // namespace

core::Error Impl::fail_if_deposed(core::Error e) {
  if (e.code == ErrorCode::NotLeader && ha_role == HaRole::Leader) ha_deposed = true;
  return e;
}

core::Status Impl::ha_join() {
  const HaConfig& ha = *config.ha;
  // The lease is held by a process, not by a name: a replica restarted under the same id waits
  // for its predecessor's lease to pass, and two live processes cannot share one id.
  std::random_device rd;
  char token[17];
  std::snprintf(token, sizeof token, "%08x%08x", rd(), rd());
  ha_instance = token;
  ha_holder = ha.replica + "#" + ha_instance;
  // A replica stopped inside a transaction (a leader's holds the lease row) is ended by the
  // database once it has been idle for a lease, so the others can elect and go on.
  BUDCORE_TRY(store->set_idle_transaction_limit(ha.lease));
  if (!ha.lead) return {};
  BUDCORE_TRY(wait_for_predecessor());
  return start_renewer();
}

// A platform opened without `ha` on a store that replicas drive would write beside their leader
// and acknowledge jobs that leader never sees: it is refused while a lease is held.
core::Status Impl::check_no_replicas() {
  BUDCORE_TRY_ASSIGN(auto lease, store->read_lease(kLease));
  if (lease.holder.empty() || lease.expires <= lease.now) return {};
  Error e = Error::make(ErrorCode::Conflict,
                        "the store is driven by replicas: " + lease.holder + " holds its lease (epoch " +
                            std::to_string(lease.epoch) + "); open it with the replicas' `ha` section (docs/ha.md)",
                        "ha");
  e.value = lease.holder;
  return e;
}

// An id reported within the lease is watched: a live process reports again at its next attempt
// (at least three times a lease), so one that does is in use and refused; one that stays silent
// for a lease since its last report has no process behind it (killed, restarting under the same
// id), and this one takes the id over.
core::Status Impl::wait_for_predecessor() {
  const HaConfig& ha = *config.ha;
  std::optional<core::Timestamp> first_seen;
  for (;;) {
    BUDCORE_TRY_ASSIGN(auto lease, store->read_lease(kLease));  // the database's clock
    BUDCORE_TRY_ASSIGN(auto others, store->list_replicas(kLease));
    auto mine = std::find_if(others.begin(), others.end(), [&](const auto& r) { return r.replica == ha.replica; });
    if (mine == others.end() || mine->role == "stopped" || lease.now - mine->seen >= ha.lease) return {};
    if (first_seen && mine->seen != *first_seen)
      return Error::make(ErrorCode::AlreadyExists,
                         "replica " + ha.replica + " is in use by a live process (it reported " +
                             (lease.now - mine->seen).to_string() + " ago, while this one waited): give each " +
                             "replica an id of its own",
                         "ha.replica");
    if (!first_seen) first_seen = mine->seen;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<std::int64_t>(ha.retry.count_ns(), 200'000'000)));
  }
}

// ---- the renewer -------------------------------------------------------------------------------

core::Status Impl::start_renewer() {
  backend::StoreOptions so;
  so.clock = clock;
  so.durable = config.store_durable;
  BUDCORE_TRY_ASSIGN(renewer.store, backend::open_store(config.store_uri, so));
  BUDCORE_TRY(renewer.store->set_idle_transaction_limit(config.ha->lease));
  renewer.thread = std::thread([this] { renewer_loop(); });
  return {};
}

void Impl::stop_renewer() {
  {
    std::lock_guard lock(renewer.mu);
    renewer.stop = true;
    renewer.epoch = 0;
    ++renewer.term;
  }
  renewer.cv.notify_all();
  if (renewer.thread.joinable()) renewer.thread.join();
}

Impl::~Impl() { stop_renewer(); }

void Impl::renew_as(std::int64_t epoch, std::int64_t until_ns) {
  {
    std::lock_guard lock(renewer.mu);
    ++renewer.term;
    renewer.epoch = epoch;
    renewer.lost.store(false);
    renewer.until_ns.store(until_ns);
  }
  renewer.cv.notify_all();
}

void Impl::renew_stop() {
  {
    std::lock_guard lock(renewer.mu);
    ++renewer.term;
    renewer.epoch = 0;
  }
  renewer.cv.notify_all();
}

void Impl::drain_renewals() {
  std::vector<double> taken;
  {
    std::lock_guard lock(renewer.mu);
    taken.swap(renewer.latencies);
  }
  for (double s : taken) metrics.observe("budcore_ha_renewal_seconds", {}, s);
}

void Impl::renewer_loop() {
  const HaConfig& ha = *config.ha;
  std::unique_lock lock(renewer.mu);
  std::int64_t term = -1, next_ns = 0;
  while (!renewer.stop) {
    if (renewer.epoch == 0) {
      renewer.cv.wait(lock);
      continue;
    }
    // A lease just taken (a new term) was renewed by its taking: the next renewal is a renewal
    // period later.
    if (renewer.term != term) {
      term = renewer.term;
      next_ns = steady_ns() + ha.renew.count_ns();
    }
    const std::int64_t now = steady_ns();
    if (now < next_ns) {
      renewer.cv.wait_for(lock, std::chrono::nanoseconds(next_ns - now));
      continue;
    }
    const std::int64_t epoch = renewer.epoch;
    renewer.in_flight = true;
    lock.unlock();
    const std::int64_t t0 = steady_ns();
    auto lease = renewer.store->acquire_lease(kLease, ha_holder, ha.lease);
    const std::int64_t t1 = steady_ns();
    const bool renewed = lease && lease->held_by(ha_holder) && lease->epoch == epoch;
    if (renewed) {
      backend::ReplicaRecord me;
      me.replica = ha.replica;
      me.instance = ha_instance;
      me.role = "leader";
      me.epoch = epoch;
      me.renew_us = (t1 - t0) / 1000;
      me.takeover_after = ha.lease;
      if (!note_report(renewer.store->report_replica(kLease, me))) renewer.lost.store(true);
    }
    lock.lock();
    renewer.in_flight = false;
    renewer.cv.notify_all();
    if (renewer.latencies.size() < 4096) renewer.latencies.push_back(static_cast<double>(t1 - t0) / 1e9);
    if (renewer.term != term) continue;  // stopped or restarted meanwhile: this result is of an older term
    if (!lease) {
      // The store is unreachable: try again at the retry period; the driving thread stops acting
      // once until_ns passes.
      next_ns = t1 + ha.retry.count_ns();
      continue;
    }
    if (renewed) {
      // The lease holds for `lease` from before the attempt, on our clock.
      renewer.until_ns.store(t0 + ha.lease.count_ns());
      next_ns = t0 + ha.renew.count_ns();
      continue;
    }
    // Another holder, or this holder at another epoch (the lease passed and came back): the
    // driving thread steps down before its next fenced write, and as soon as it wakes.
    renewer.lost.store(true);
    renewer.epoch = 0;
    lock.unlock();
    wake.notify_all();
    lock.lock();
  }
}

// ---- the election on the driving thread --------------------------------------------------------

core::Status Impl::ha_step() {
  if (ha_role == HaRole::Single || !config.ha) return {};
  const HaConfig& ha = *config.ha;
  drain_renewals();
  const std::int64_t now = steady_ns();
  if (ha_replaced.load()) {
    if (ha_role == HaRole::Leader) step_down("another process runs this replica's id now");
    return replaced_error();
  }
  if (ha_deposed) step_down("a write was refused: another replica leads now");
  // A store failure mid-commit (the database restarting) leaves memory ahead of the store. A
  // single platform halts until reopened; a replica goes back to the store instead: it steps
  // down and recovers when it takes the lease again, at once if it still holds it.
  if (halted) {
    step_down("a store write failed: " + halted->message);
    halted.reset();
    ha_next_step_ns = 0;
  }
  if (ha_role == HaRole::Leader) {
    // The renewer keeps the lease; it tells here what it found.
    if (renewer.lost.load()) step_down("another replica holds the lease");
    // A leader that could not renew in time stops acting before its lease can have passed on.
    else if (now >= renewer.until_ns.load()) step_down("the lease was not renewed in time");
    else return {};
  }
  if (now < ha_next_step_ns && !lease_given_up(now)) return {};
  // A follower reports at each attempt, and one silent for a lease may have its id taken over
  // by another process: it attempts at least three times a lease, however long the retry period.
  const std::int64_t step_ns = std::min(ha.retry.count_ns(), ha.lease.count_ns() / 3);
  if (!ha.lead) {
    ha_next_step_ns = now + step_ns;
    return {};
  }
  const std::int64_t t0 = steady_ns();
  auto lease = store->acquire_lease(kLease, ha_holder, ha.lease);
  const std::int64_t t1 = steady_ns();
  ha_renew_us = (t1 - t0) / 1000;
  metrics.observe("budcore_ha_renewal_seconds", {}, static_cast<double>(t1 - t0) / 1e9);
  ha_next_step_ns = now + step_ns;
  if (!lease) return {};  // the store is unreachable: try again at the retry period
  // Taken (or still ours after a step down): the lease holds for `lease` from before the
  // attempt, on our clock; the renewer keeps it from now on.
  if (lease->held_by(ha_holder)) BUDCORE_TRY(become_leader(*lease, t0 + ha.lease.count_ns()));
  backend::ReplicaRecord me;
  me.replica = ha.replica;
  me.instance = ha_instance;
  me.role = std::string(role_name(ha_role));
  me.epoch = lease->epoch;
  me.renew_us = ha_renew_us;
  me.takeover_after = ha.lease;
  return note_report(store->report_replica(kLease, me));
}

// Between election steps a follower that may lead looks at the lease (a plain read, no lock)
// every kLeasePeek: a leader that stops gracefully expires its lease at once, and one that died
// lets it run out, and either way the follower takes it at once rather than at its next retry,
// up to a retry period later (a graceful handover then takes a fraction of a second).
bool Impl::lease_given_up(std::int64_t now) {
  constexpr std::int64_t kLeasePeek = 200'000'000;  // ns
  const HaConfig& ha = *config.ha;
  if (!ha.lead || ha.retry.count_ns() <= kLeasePeek || now < ha_next_peek_ns) return false;
  ha_next_peek_ns = now + kLeasePeek;
  auto lease = store->read_lease(kLease);
  return lease && lease->expires <= lease->now;
}

// A report refused because another process runs this replica's id now stops this one; any
// other failure (the store unreachable) is tried again at the next report.
core::Status Impl::note_report(core::Status reported) {
  if (reported || reported.error().code != ErrorCode::AlreadyExists) return {};
  ha_replaced.store(true);
  return reported;
}

bool Impl::ha_keep_leading() {
  if (ha_role != HaRole::Leader) return ha_role == HaRole::Single;
  // No store round trip: the renewer keeps the lease. Between two pieces of work (never inside a
  // transaction) a renewal under way is let through first: it may be waiting for the store's
  // write lock (SQLite), which back-to-back transactions of this thread would never leave it
  // (at most half a renewal period; the renewer never takes mu, so waiting here under mu is safe).
  {
    std::unique_lock lock(renewer.mu);
    renewer.cv.wait_for(lock, std::chrono::nanoseconds(config.ha->renew.count_ns() / 2),
                        [&] { return !renewer.in_flight || renewer.stop; });
  }
  // A deposition a write or the renewer found, or a lease not renewed in time, steps down here.
  if (ha_deposed || renewer.lost.load() || steady_ns() >= renewer.until_ns.load()) {
    ha_next_step_ns = 0;
    (void)ha_step();
  }
  return ha_role == HaRole::Leader;
}

core::Status Impl::reset_drive_state() {
  live.clear();
  queued_docs.clear();
  runs.clear();
  pipeline_keys.clear();
  resubmit.clear();
  retries = {};
  budget_checks = {};
  timeline_cache.reset();
  timeline_index.clear();
  timeline_inputs.clear();
  if (sim != nullptr) {
    // The simulated cluster lives in the leader's memory: a new one, filled by recover().
    BUDCORE_TRY_ASSIGN(auto fresh, backend::SimCluster::create(*clock, config.cluster));
    sim = fresh.get();
    cluster = std::move(fresh);
  }
  return {};
}

core::Status Impl::become_leader(const backend::LeaseState& lease, std::int64_t until_ns) {
  ha_epoch = lease.epoch;
  ha_deposed = false;
  halted.reset();
  // Renewed from now on by the renewer, also while the recovery below runs.
  renew_as(lease.epoch, until_ns);
  store->set_fence(backend::Store::Fence{std::string(kLease), ha_holder, lease.epoch});
  BUDCORE_TRY(reset_drive_state());
  ha_role = HaRole::Leader;
  next_compaction_ns = 0;  // retention: one interval after taking the lease
  // Everything from the store: live jobs handed to the cluster, pipeline runs resumed; then
  // the requests followers took meanwhile.
  if (auto st = recover(); !st) {
    step_down("recovery failed: " + st.error().message);
    return st;
  }
  metrics.count("budcore_ha_leader_changes_total", {});
  ha_seen_marker = -1;
  return apply_requests();
}

void Impl::step_down(std::string_view why) {
  (void)why;
  renew_stop();
  if (ha_role == HaRole::Leader) {
    (void)reset_drive_state();
    metrics.count("budcore_ha_stepped_down_total", {});
  }
  store->set_fence(std::nullopt);
  ha_role = HaRole::Follower;
  ha_deposed = false;
  ha_view_marker = -1;
  // Keep trying at the retry period; the halt of a fenced write is over.
  if (halted && halted->code == ErrorCode::NotLeader) halted.reset();
}

core::Status Impl::append_request(backend::Store& tx, const CallContext& caller, std::string_view kind,
                                  const core::Id& object, core::Map args) {
  backend::PlatformRequest r;
  r.tenant = caller.tenant;
  r.kind = std::string(kind);
  r.object_id = object;
  args.set("principal", caller.principal);
  args.set("request_id", caller.request_id);
  r.doc = core::Value(std::move(args));
  r.replica = config.ha ? config.ha->replica : std::string("single");
  r.created = clock->now();
  BUDCORE_TRY(tx.append_request(r));
  return {};
}

core::Result<backend::JobRecord> Impl::request(const CallContext& caller, std::string_view kind,
                                               const backend::JobRecord& rec, core::Map args) {
  const std::string id = rec.job.id.to_string();
  auto st = store->transact([&](backend::Store& tx) -> core::Status {
    BUDCORE_TRY(append_request(tx, caller, kind, rec.job.id, args));
    backend::AuditEntry e = audit_entry(caller, "jobs." + std::string(kind == "priority" ? "update" : kind), "job", id);
    args.set("outcome", "requested");
    e.detail = core::Value(std::move(args));
    BUDCORE_TRY(tx.append_audit(caller.tenant, std::move(e)));
    return {};
  });
  if (!st) return st.error();
  backend::JobRecord out = rec;
  return out;
}

core::Status Impl::apply_requests() {
  if (ha_role != HaRole::Leader) return {};
  // Only when some process committed something since the last look (a cheap read).
  BUDCORE_TRY_ASSIGN(std::int64_t marker, store->change_marker());
  if (marker == ha_seen_marker) return {};
  ha_seen_marker = marker;
  for (;;) {
    BUDCORE_TRY_ASSIGN(auto batch, store->list_requests(0, kRequestBatch));
    if (batch.empty()) return {};
    // Carried out at least once: a leader that fails after carrying one out and before
    // deleting it leaves it to the next, and every kind tolerates a second time. The ones
    // carried out are deleted together, in one transaction (one fence check and one commit for
    // the batch), also when a later one fails.
    std::size_t done = 0;
    core::Status applied;
    BUDCORE_TRY_ASSIGN(Adoptions adoptions, read_adoptions(batch));
    for (; done < batch.size(); ++done) {
      const auto& r = batch[done];
      applied = r.kind == "adopt" ? adopt(r, adoptions) : apply_request(r);
      if (!applied) break;
    }
    if (done > 0) {
      auto st = store->transact([&](backend::Store& tx) -> core::Status {
        for (std::size_t i = 0; i < done; ++i) BUDCORE_TRY(tx.delete_request(batch[i].seq));
        return {};
      });
      if (!st) return fail_if_deposed(st.error());
    }
    BUDCORE_TRY(applied);
    if (batch.size() < kRequestBatch) return {};
    if (!ha_keep_leading()) return {};
  }
}

// The records and jobs of a batch's adopt requests, read together (two reads for the batch).
core::Result<Impl::Adoptions> Impl::read_adoptions(const std::vector<backend::PlatformRequest>& batch) {
  std::vector<std::string> keys;
  std::vector<backend::JobKey> jobs;
  for (const auto& r : batch) {
    if (r.kind != "adopt" || live.count(r.object_id)) continue;
    keys.push_back(r.object_id.to_string());
    jobs.push_back({r.tenant, r.object_id});
  }
  Adoptions out;
  if (keys.empty()) return out;
  BUDCORE_TRY_ASSIGN(auto records, store->get_platform_records("job", keys));
  BUDCORE_TRY_ASSIGN(auto found, store->get_jobs(jobs));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!records[i] || !found[i]) continue;  // ended (cancelled) before the leader saw it
    out.emplace(jobs[i].id, std::pair{std::move(*records[i]), std::move(*found[i])});
  }
  return out;
}

core::Status Impl::adopt(const backend::PlatformRequest& r, Adoptions& adoptions) {
  if (live.count(r.object_id)) return {};
  auto it = adoptions.find(r.object_id);
  if (it == adoptions.end() || it->second.second.job.tenant_id != r.tenant) return {};
  auto& [row, rec] = it->second;
  BUDCORE_TRY_ASSIGN(LiveJob lj, live_from_record(row, r.tenant, rec));
  LiveJob& placed = live.emplace(lj.id, std::move(lj)).first->second;
  hand_to_cluster(placed, rec.job);
  if (!placed.doc) queued_docs.keep(placed.id, placed.version, std::make_shared<job::Job>(std::move(rec.job)));
  return {};
}

core::Status Impl::apply_request(const backend::PlatformRequest& r) {
  const CallContext caller = CallContext::for_tenant(r.tenant, text_of(r.doc, "principal"), text_of(r.doc, "request_id"));
  const std::string_view type = r.kind == "start_run" || r.kind == "cancel_run" ? "pipeline_runs" : "jobs";
  const std::string_view verb = r.kind == "cancel_run" ? "cancel" : r.kind == "start_run" ? "run" : r.kind == "priority" ? "update" : std::string_view(r.kind);
  auto settle = [&](core::Status st) -> core::Status {
    if (st) return {};
    // A refusal now (the job ended meanwhile, a role revoked, a retry over the queue cap) is
    // the request's outcome, not the leader's failure: the caller was already answered, so the
    // audit log is where it is told. Only a deposition or a store failure stops the leader.
    if (st.error().code != ErrorCode::NotLeader && st.error().code != ErrorCode::Io) {
      audit_denial(caller, std::string(type) + "." + std::string(verb), type, r.object_id.to_string(),
                   "refused when the leader carried out the request: " + st.error().message);
      return {};
    }
    return fail_if_deposed(st.error());
  };
  auto status_of = [](const auto& res) -> core::Status {
    if (!res) return res.error();
    return {};
  };
  // The caller's role is checked again now: one revoked since the request was stored refuses it
  // (guard records the denial).
  static constexpr std::string_view kGuarded[] = {"cancel", "retry", "priority", "preempt", "start_run", "cancel_run"};
  if (std::find(std::begin(kGuarded), std::end(kGuarded), r.kind) != std::end(kGuarded)) {
    if (auto g = guard(caller, verb, type, r.kind == "start_run" ? nullptr : &r.object_id); !g) {
      const ErrorCode code = g.error().code;
      return code == ErrorCode::NotLeader || code == ErrorCode::Io ? fail_if_deposed(g.error()) : core::Status{};
    }
  }
  if (r.kind == "cancel") return settle(status_of(cancel(caller, r.object_id, text_of(r.doc, "reason"))));
  if (r.kind == "retry") return settle(status_of(retry(caller, r.object_id, false)));
  if (r.kind == "priority") {
    auto p = job::parse_job_priority(text_of(r.doc, "priority"));
    if (!p) return {};
    return settle(status_of(change_priority(caller, r.object_id, *p)));
  }
  if (r.kind == "preempt") {
    auto it = live.find(r.object_id);
    if (it == live.end() || it->second.run != record_int(r.doc, "run")) return {};  // that run is over
    return settle(status_of(preempt(caller, r.object_id, text_of(r.doc, "reason"))));
  }
  if (r.kind == "start_run") return settle(start_stored_run(r.tenant, r.object_id));
  if (r.kind == "cancel_run") return settle(status_of(cancel_run(caller, r.object_id, text_of(r.doc, "reason"))));
  return {};  // a kind of a newer library: left alone
}

core::Status Impl::refresh_view() {
  if (ha_role != HaRole::Follower) return {};
  BUDCORE_TRY_ASSIGN(std::int64_t marker, store->change_marker());
  if (marker == ha_view_marker) return {};
  live.clear();
  queued_docs.clear();
  timeline_cache.reset();
  backend::PageRequest page;
  page.limit = backend::PageRequest::kMaxPageSize;
  do {
    BUDCORE_TRY_ASSIGN(auto p, store->list_platform_records("job", page));
    for (const auto& r : p.items) {
      auto id = core::Id::parse(r.key);
      auto tenant = core::Id::parse(text_of(r.doc, "tenant"));
      if (!id || !tenant) continue;
      auto rec = store->get_job(*tenant, *id);
      if (!rec) continue;
      auto built = live_from_record(r, *tenant, *rec);
      if (!built) continue;
      LiveJob lj = std::move(*built);
      if (job::holds_resources(lj.status)) lj.doc = std::make_shared<job::Job>(std::move(rec->job));
      live.emplace(*id, std::move(lj));
    }
    page.after = p.next_cursor;
  } while (!page.after.empty());
  ha_view_marker = marker;
  return {};
}

// ---- public ----------------------------------------------------------------------------------

core::Result<HaStatus> Platform::ha_status() {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  if (m.ha_replaced.load()) return m.replaced_error();
  HaStatus s;
  s.role = std::string(role_name(m.ha_role));
  s.replica = m.config.ha ? m.config.ha->replica : std::string();
  s.epoch = m.ha_epoch;
  if (m.ha_role == Impl::HaRole::Single) return s;
  BUDCORE_TRY_ASSIGN(s.lease, m.store->read_lease(kLease));
  BUDCORE_TRY_ASSIGN(s.replicas, m.store->list_replicas(kLease));
  // A row keeps the role its replica last reported: a killed leader's says "leader" forever.
  // Shown as it stands on the database's clock: silent for a lease is unresponsive, and a
  // leader that no longer holds the lease is deposed.
  for (auto& r : s.replicas) {
    if (r.role == "stopped") continue;
    if (r.seen + m.config.ha->lease < s.lease.now) r.role = "unresponsive";
    else if (r.role == "leader" && !s.lease.held_by(r.replica + "#" + r.instance)) r.role = "deposed";
  }
  return s;
}

}  // namespace budcore::platform
