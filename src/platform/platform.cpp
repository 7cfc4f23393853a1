// Platform: open/close, the public members (each takes the lock and forwards to Impl), the
// hooks, and the hand-over of runs to the cluster.
#include "budcore/platform/platform.hpp"

#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/platform/rbac.hpp"
#include "core/digest.hpp"
#include "budcore/platform/cost_controls.hpp"
#include "budcore/platform/platform_json.hpp"
#include "budcore/quota/job_workload.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;

AdmissionGate::~AdmissionGate() = default;
Authorizer::~Authorizer() = default;
UsageObserver::~UsageObserver() = default;

Platform::Platform(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Platform::~Platform() {
  if (impl_ && impl_->driver.joinable()) {
    {
      std::lock_guard lock(impl_->mu);
      impl_->stopping = true;
    }
    impl_->wake.notify_all();
    impl_->driver.join();
  }
  if (impl_ && impl_->config.ha && impl_->config.ha->lead) {
    // A graceful stop resigns, so a follower takes the lease at its next attempt; the renewer
    // stops first, so that nothing renews the lease once it is given up.
    Impl& m = *impl_;
    m.stop_renewer();
    if (m.ha_role == Impl::HaRole::Leader) (void)m.store->release_lease("platform", m.ha_holder, m.ha_epoch);
    m.store->set_fence(std::nullopt);
    backend::ReplicaRecord me;
    me.replica = m.config.ha->replica;
    me.instance = m.ha_instance;
    me.role = "stopped";
    me.epoch = m.ha_epoch;
    me.takeover_after = m.config.ha->lease;  // a process that lost the id leaves its new owner's row alone
    (void)m.store->report_replica("platform", me);
  }
}

core::Result<std::unique_ptr<Platform>> Platform::open(PlatformConfig config) { return open(std::move(config), nullptr); }

core::Result<std::unique_ptr<Platform>> Platform::open(PlatformConfig config,
                                                       std::unique_ptr<backend::ClusterBackend> cluster) {
  BUDCORE_TRY(config.validate());
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.config = std::move(config);
  if (m.config.clock == ClockKind::Virtual) {
    auto v = std::make_shared<core::VirtualClock>(m.config.virtual_start);
    m.vclock = v.get();
    m.clock = std::move(v);
  } else {
    m.clock = core::system_clock();
  }
  backend::StoreOptions so;
  so.clock = m.clock;
  so.durable = m.config.store_durable;
  BUDCORE_TRY_ASSIGN(m.store, backend::open_store(m.config.store_uri, so));
  if (cluster == nullptr && m.config.cluster_backend == "kubernetes") {
    BUDCORE_TRY_ASSIGN(cluster, open_kubernetes_cluster(m.config, *m.clock));
  }
  if (cluster != nullptr) {
    m.cluster = std::move(cluster);
  } else {
    BUDCORE_TRY_ASSIGN(auto sim, backend::SimCluster::create(*m.clock, m.config.cluster));
    m.sim = sim.get();
    m.cluster = std::move(sim);
    if (!m.config.cluster.placement_policy.empty()) m.metrics.set_collector([&m](Metrics& out) { m.gpu_gauges(out); });
  }
  if (m.config.http == HttpKind::Curl) m.http = backend::make_curl_http_client();
  {
    std::vector<std::shared_ptr<backend::SecretProvider>> providers;
    for (const auto& sp : m.config.security.secret_providers)
      providers.push_back(sp.kind == "file"        ? backend::file_secret_provider(sp.arg)
                          : sp.kind == "rehearsal" ? backend::rehearsal_secret_provider()
                                                   : backend::env_secret_provider(sp.arg));
    m.secrets = std::make_shared<backend::SecretResolver>(std::move(providers), m.config.security.shared_secrets);
  }
  if (const auto& anchor = m.config.security.audit_anchor)
    m.anchor_notifier = CostControls::webhook_alerts(anchor->webhook, m.secrets);
  if (m.config.ha) {
    // A replica starts as a follower: it recovers only once it holds the lease (ha_step).
    m.ha_role = Impl::HaRole::Follower;
    BUDCORE_TRY(m.ha_join());
  } else {
    BUDCORE_TRY(m.check_no_replicas());
    BUDCORE_TRY(m.recover());
  }
  std::unique_ptr<Platform> p(new Platform(std::move(impl)));
  if (const SecurityConfig& sec = p->impl_->config.security; sec.rbac || sec.default_policy || !sec.tenants.empty()) {
    Impl& m = *p->impl_;
    if (sec.rbac) m.authorizer = std::make_shared<RbacAuthorizer>(*m.store, sec.platform_admins);
    if (sec.default_policy || !sec.tenants.empty()) m.gates.insert(m.gates.begin(), std::make_shared<TenantPolicyGate>(sec));
  }
  if (const PlatformConfig& c = p->impl_->config; c.prices) {
    std::shared_ptr<backend::Notifier> alerts;
    if (c.budget_alerts) alerts = CostControls::webhook_alerts(*c.budget_alerts, p->impl_->secrets);
    p->impl_->cost_controls = CostControls::attach(*p, *c.prices, c.budgets, std::move(alerts));
  }
  if (p->impl_->ha_role == Impl::HaRole::Follower) {
    // The first election step now: a replica that finds the lease free leads from open on. One
    // whose recovery outlasted the lease, so that another replica leads now, is a follower.
    std::lock_guard lock(p->impl_->mu);
    if (auto st = p->impl_->ha_step(); !st && st.error().code != ErrorCode::NotLeader) return st.error();
  }
  if (p->impl_->config.clock == ClockKind::System) {
    Impl* raw = p->impl_.get();
    raw->driver = std::thread([raw] { raw->background_loop(); });
  }
  return p;
}

core::Result<std::unique_ptr<Platform>> Platform::open_embedded(const std::string& dir) {
  return open(PlatformConfig::embedded(dir));
}

const PlatformConfig& Platform::config() const noexcept { return impl_->config; }
core::Timestamp Platform::now() const { return impl_->clock->now(); }

// ---- Impl helpers -------------------------------------------------------------------------------

core::Status Platform::Impl::guard(const CallContext& caller, std::string_view verb, std::string_view resource,
                                   const core::Id* object, const core::Id* project) {
  if (halted) return *halted;
  if (caller.tenant.is_nil())
    return Error::invalid("tenant", caller.tenant.to_string(), "a call needs a tenant (the nil id is the system tenant)");
  if (caller.request_id.size() > kMaxRequestId)
    return Error::invalid("request_id", std::to_string(caller.request_id.size()) + " bytes",
                          "a request id is at most " + std::to_string(kMaxRequestId) + " bytes");
  if (!authorizer) return {};
  // A job named by id is authorized in its project. A job that does not exist (or is another
  // tenant's) is asked about tenant-wide, so a caller without the role cannot tell the two apart.
  std::optional<core::Id> stored_project;
  if (object != nullptr && project == nullptr && project_scoped(resource)) {
    auto rec = store->get_job(caller.tenant, *object);
    if (rec) stored_project = rec->job.project_id;
    else if (rec.error().code != ErrorCode::NotFound) return rec.error();
    if (stored_project) project = &*stored_project;
  }
  auto st = authorizer->authorize(caller, AccessRequest{verb, resource, object, project});
  if (!st && stored_project &&
      !authorizer->authorize(caller, AccessRequest{"get", resource, object, &*stored_project})) {
    // The caller may not see the job at all: it gets the refusal an id that exists nowhere gets,
    // word for word, so that refusals do not tell existing ids from random ones.
    auto nowhere = authorizer->authorize(caller, AccessRequest{verb, resource, object, nullptr});
    if (!nowhere) {
      core::Error shown = nowhere.error();
      audit_denial(caller, std::string(resource) + "." + std::string(verb), resource, object->to_string(), st.error().message);
      return shown;
    }
  }
  if (!st) {
    audit_denial(caller, std::string(resource) + "." + std::string(verb), resource,
                 object != nullptr ? object->to_string() : std::string(), st.error().message);
    return st;
  }
  return {};
}

core::Result<backend::JobRecord> Platform::Impl::visible(const CallContext& caller,
                                                         core::Result<backend::JobRecord> rec) {
  if (!rec || !authorizer) return rec;
  if (!authorizer->authorize(caller, AccessRequest{"get", "costs", nullptr, &rec->job.project_id})) {
    rec->job.estimated_cost.reset();
    rec->job.actual_cost.reset();
    rec->job.budget_limit.reset();
  }
  return rec;
}

core::Status Platform::Impl::guard_submit(const CallContext& caller, const std::vector<SubmitRequest>& jobs) {
  BUDCORE_TRY(guard(caller, "create", "jobs", nullptr, jobs.empty() ? nullptr : &jobs.front().job.project_id));
  if (!authorizer || jobs.empty()) return {};
  // Each project once (a batch is usually one project), and critical jobs need an admin.
  std::vector<std::pair<core::Id, bool>> asked{{jobs.front().job.project_id, false}};
  for (const auto& r : jobs) {
    const bool critical = r.job.priority == job::JobPriority::Critical;
    auto it = std::find_if(asked.begin(), asked.end(), [&](const auto& a) { return a.first == r.job.project_id; });
    if (it == asked.end()) {
      BUDCORE_TRY(guard(caller, "create", "jobs", nullptr, &r.job.project_id));
      it = asked.insert(asked.end(), {r.job.project_id, false});
    }
    if (critical && !it->second) {
      BUDCORE_TRY(guard(caller, "create_critical", "jobs", nullptr, &r.job.project_id));
      it->second = true;
    }
  }
  return {};
}

void Platform::Impl::audit_denial(const CallContext& caller, std::string action, std::string_view type,
                                  std::string object, const std::string& reason) {
  // Anyone may name a tenant and be refused: denials are recorded at a bounded rate per tenant
  // (a burst of 100, then 10 a second), so that refused calls cannot flood a tenant's log; the
  // next recorded denial says how many were not.
  auto d = denial_limiter.acquire(caller.tenant, {10, 100}, 1, clock->now().unix_nanos());
  if (!d.allowed) {
    ++denials_unrecorded[caller.tenant];
    metrics.count("budcore_audit_denials_unrecorded_total", {});
    return;
  }
  backend::AuditEntry e = audit_entry(caller, action, type, std::move(object));
  core::Map detail{{"outcome", "denied"}, {"reason", reason}};
  if (auto it = denials_unrecorded.find(caller.tenant); it != denials_unrecorded.end()) {
    detail.set("unrecorded_before", it->second);
    denials_unrecorded.erase(it);
  }
  e.detail = core::Value(std::move(detail));
  // The denial stands even if it cannot be recorded (a store failure surfaces on the next write).
  if (e.actor.size() <= 256) (void)store->append_audit(caller.tenant, std::move(e));
}

std::string actor_of(const CallContext& caller) { return caller.principal.empty() ? "anonymous" : caller.principal; }

backend::AuditEntry Platform::Impl::audit_entry(const CallContext& caller, std::string_view action,
                                                std::string_view object_type, std::string_view object) const {
  backend::AuditEntry e;
  e.actor = actor_of(caller);
  e.action = std::string(action);
  e.object_type = std::string(object_type);
  e.object_id = std::string(object);
  e.request_id = caller.request_id;
  e.at = clock->now();
  return e;
}

core::Status Platform::Impl::audit(backend::Store& tx, const CallContext& caller, std::string_view action,
                                   std::string_view object_type, std::string_view object, std::string_view before,
                                   std::string_view after, core::Map extra) const {
  backend::AuditEntry e = audit_entry(caller, action, object_type, object);
  extra.set("outcome", "ok");
  extra.set("before", before.empty() ? core::Value() : core::Value(core::sha256_hex(before)));
  extra.set("after", after.empty() ? core::Value() : core::Value(core::sha256_hex(after)));
  e.detail = core::Value(std::move(extra));
  auto r = tx.append_audit(caller.tenant, std::move(e));
  if (!r) return r.error();
  return {};
}

core::Status Platform::Impl::check_gates(const CallContext& caller, const job::Job& job, GateStage stage) {
  for (const auto& g : gates) {
    auto st = g->admit(caller, job, stage);
    if (!st) {
      core::Error e = st.error();
      e.message = "admission gate '" + std::string(g->name()) + "' denied the job: " + e.message;
      return e;
    }
  }
  return {};
}

core::Result<backend::WorkloadRequest> Platform::Impl::request_for(const LiveJob& lj, const job::Job& job) const {
  backend::WorkloadRequest r;
  r.tenant = lj.tenant;
  r.run = lj.run;
  r.queue_seq = lj.queue_seq;
  r.job = job;
  BUDCORE_TRY_ASSIGN(r.workload, quota::workload_for(job, lj.queue_seq, config.cluster.layout));
  return r;
}

core::Error Platform::Impl::fail_halted(core::Error e) {
  // A deposed leader steps down instead of halting: another replica leads.
  if (e.code == ErrorCode::NotLeader && ha_role == HaRole::Leader) return fail_if_deposed(std::move(e));
  // A lost race names what the other writer changed, maybe another tenant's job; the halt is
  // told to every later caller, and this one may be of any tenant: they learn that, not which.
  if (e.code == ErrorCode::Conflict)
    e = Error::make(ErrorCode::Conflict,
                    "another writer (another process on the store) changed a job or run this platform holds in memory",
                    e.field);
  if (!halted) {
    core::Error h = e;
    h.message = "the platform stopped after a store failure (reopen it to continue): " + e.message;
    halted = h;
  }
  return e;
}

// ---- public members ----------------------------------------------------------------------------

core::Result<SubmitResult> Platform::submit(const CallContext& caller, job::Job job, std::string_view key) {
  std::lock_guard lock(impl_->mu);
  std::vector<SubmitRequest> one;
  one.push_back(SubmitRequest{std::move(job), std::string(key)});
  BUDCORE_TRY_ASSIGN(auto results, impl_->submit_jobs(caller, std::move(one), false));
  impl_->wake.notify_all();
  return std::move(results.front());
}

core::Result<std::vector<SubmitResult>> Platform::submit_batch(const CallContext& caller, std::vector<SubmitRequest> jobs) {
  std::lock_guard lock(impl_->mu);
  auto r = impl_->submit_jobs(caller, std::move(jobs), true);
  impl_->wake.notify_all();
  return r;
}

namespace {

// The project a document names, if it names one well (for the role check of a refused document).
core::Id project_of(const core::Value& doc) {
  const core::Value* job = doc.is_map() && doc.find("job") && doc.find("job")->is_map() ? doc.find("job") : &doc;
  const core::Value* p = job->is_map() ? job->find("project_id") : nullptr;
  if (p == nullptr || !p->is_string()) return core::Id();
  auto id = core::Id::parse(p->as_string());
  return id ? *id : core::Id();
}

}  // namespace

core::Status Platform::Impl::charge_undecoded(const CallContext& caller, const core::Value& doc, std::size_t n) {
  // Only a caller who may submit at all spends the tenant's tokens (an outsider's junk does not).
  std::vector<SubmitRequest> probe(1);
  probe.front().job.project_id = project_of(doc);
  if (!guard_submit(caller, probe)) return {};
  auto ticket = check_submit_limits(caller, n);
  if (ticket && ticket->limited) (void)store->transact([&](backend::Store& tx) { return take_submit_tokens(tx, caller, *ticket); });
  return {};
}

core::Result<SubmitResult> Platform::submit_document(const CallContext& caller, const core::Value& document,
                                                     std::string_view key) {
  std::lock_guard lock(impl_->mu);
  auto req = parse_submit_request(document);
  if (!req) {
    BUDCORE_TRY(impl_->charge_undecoded(caller, document, 1));
    return req.error();
  }
  if (!key.empty()) req->idempotency_key = std::string(key);
  std::vector<SubmitRequest> one;
  one.push_back(std::move(*req));
  BUDCORE_TRY_ASSIGN(auto results, impl_->submit_jobs(caller, std::move(one), false));
  impl_->wake.notify_all();
  return std::move(results.front());
}

core::Result<std::vector<SubmitResult>> Platform::submit_batch_document(const CallContext& caller,
                                                                        const core::Value& document,
                                                                        std::string_view batch_key) {
  std::lock_guard lock(impl_->mu);
  auto batch = parse_submit_batch(document);
  if (!batch) {
    const core::Value* list = document.is_list() ? &document : document.find("jobs");
    const std::size_t n = list != nullptr && list->is_list() ? std::max<std::size_t>(1, list->as_list().size()) : 1;
    BUDCORE_TRY(impl_->charge_undecoded(caller, document, n));
    return batch.error();
  }
  if (!batch_key.empty()) {
    for (std::size_t i = 0; i < batch->size(); ++i) {
      auto& req = (*batch)[i];
      if (req.idempotency_key.empty()) req.idempotency_key = std::string(batch_key) + "/" + std::to_string(i);
    }
  }
  auto r = impl_->submit_jobs(caller, std::move(*batch), true);
  impl_->wake.notify_all();
  return r;
}

core::Result<std::vector<SubmitResult>> Platform::submit_batch_documents(
    const CallContext& caller, const std::vector<std::pair<core::Value, std::string>>& jobs) {
  std::lock_guard lock(impl_->mu);
  std::vector<SubmitRequest> batch;
  batch.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto req = parse_submit_request(jobs[i].first);
    if (!req) {
      BUDCORE_TRY(impl_->charge_undecoded(caller, jobs[i].first, std::max<std::size_t>(1, jobs.size())));
      return core::Error(req.error()).at("jobs[" + std::to_string(i) + "]");
    }
    if (!jobs[i].second.empty()) req->idempotency_key = jobs[i].second;
    batch.push_back(std::move(*req));
  }
  auto r = impl_->submit_jobs(caller, std::move(batch), true);
  impl_->wake.notify_all();
  return r;
}

core::Result<backend::JobRecord> Platform::get_job(const CallContext& caller, const core::Id& id) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "get", "jobs", &id));
  auto rec = impl_->visible(caller, impl_->store->get_job(caller.tenant, id));
  if (rec) impl_->fill_estimates(*rec);
  return rec;
}

core::Result<backend::Page<backend::JobSummary>> Platform::list_jobs(const CallContext& caller,
                                                                     const backend::JobFilter& filter,
                                                                     const backend::PageRequest& page) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "list", "jobs", nullptr, filter.project_id ? &*filter.project_id : nullptr));
  return impl_->store->list_job_summaries(caller.tenant, filter, page);
}

core::Result<backend::JobRecord> Platform::cancel_job(const CallContext& caller, const core::Id& id, std::string_view reason) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "cancel", "jobs", &id));
  return impl_->visible(caller, impl_->cancel(caller, id, reason));
}

core::Result<backend::JobRecord> Platform::retry_job(const CallContext& caller, const core::Id& id) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "retry", "jobs", &id));
  return impl_->visible(caller, impl_->retry(caller, id, false));
}

core::Result<EventPage> Platform::watch(const CallContext& caller, std::int64_t since, std::size_t limit) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "watch", "events"));
  if (since < 0) return Error::invalid("since", std::to_string(since), "must not be negative");
  if (limit < 1 || limit > 10'000) return Error::invalid("limit", std::to_string(limit), "must be between 1 and 10000");
  BUDCORE_TRY_ASSIGN(auto events, impl_->store->list_events(caller.tenant, since, limit));
  EventPage page;
  page.last_seq = events.empty() ? since : events.back().seq;
  page.events = std::move(events);
  return page;
}

core::Status Platform::register_function(std::string name, pipeline::StepFunction function,
                                         std::optional<core::Id> tenant) {
  std::lock_guard lock(impl_->mu);
  if (tenant) {
    if (tenant->is_nil()) return Error::invalid("tenant", tenant->to_string(), "a function's tenant is a tenant, not the system");
    return impl_->tenant_functions[*tenant].add(std::move(name), std::move(function));
  }
  return impl_->functions.add(std::move(name), std::move(function));
}

core::Status Platform::pump() {
  std::lock_guard lock(impl_->mu);
  return impl_->pump_locked();
}

std::optional<core::Timestamp> Platform::next_wakeup() {
  std::lock_guard lock(impl_->mu);
  return impl_->next_wakeup_locked();
}

void Platform::add_admission_gate(std::shared_ptr<AdmissionGate> gate) {
  std::lock_guard lock(impl_->mu);
  if (gate) impl_->gates.push_back(std::move(gate));
}

void Platform::set_authorizer(std::shared_ptr<Authorizer> authorizer) {
  std::lock_guard lock(impl_->mu);
  impl_->authorizer = std::move(authorizer);
}

void Platform::add_usage_observer(std::shared_ptr<UsageObserver> observer) {
  std::lock_guard lock(impl_->mu);
  if (observer) impl_->usage_observers.push_back(std::move(observer));
}

backend::Store& Platform::store() noexcept { return *impl_->store; }

void Platform::add_metrics_source(MetricsSource source) {
  std::lock_guard lock(impl_->mu);
  // Sources gone since the last metrics() are dropped here too: endpoints opened and closed
  // on a platform nobody scrapes must not pile up.
  impl_->read_metrics_sources(false);
  if (source) impl_->metrics_sources.push_back(std::move(source));
}

void Platform::Impl::read_metrics_sources(bool report) {
  // In the order added: a later source reporting the same series (an endpoint reopened) wins.
  std::erase_if(metrics_sources, [&](const MetricsSource& source) {
    auto samples = source();
    if (!samples) return true;
    if (report)
      for (const auto& sample : *samples) (void)metrics.report(sample.name, sample.labels, sample.value);
    return false;
  });
}

std::shared_ptr<CostControls> Platform::cost_controls() const {
  std::lock_guard lock(impl_->mu);
  return impl_->cost_controls;
}

}  // namespace budcore::platform
