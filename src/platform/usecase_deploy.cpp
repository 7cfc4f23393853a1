// Use-case deployments through the Platform: a resolved template's pipeline runs through
// run_pipeline, and a deployment record (platform record kind "usecase_deployment", keyed by the
// deployment id) remembers which template, parameters and run deploy it. The record's
// components are read back from the run's jobs (their idempotency keys "budcore:pipeline/<run>/<step>/<attempt>"
// name the instance), so the status is always the one the jobs imply now.
#include <algorithm>

#include "budcore/core/json.hpp"
#include "budcore/usecase/catalog.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;
using usecase::DeploymentRecord;
using usecase::DeploymentStatus;
using Impl = Platform::Impl;

namespace {

constexpr std::string_view kKind = "usecase_deployment";

// Every resolution problem in one Invalid error: the first one's path is the field, the
// message lists them all ("parameters.top_k: above max 100; components.reranker: ...").
Error resolution_error(const std::vector<pipeline::Issue>& issues) {
  std::string message = "the template does not resolve: ";
  for (std::size_t i = 0; i < issues.size(); ++i) {
    if (i > 0) message += "; ";
    message += issues[i].path.empty() ? issues[i].message : issues[i].path + ": " + issues[i].message;
  }
  Error e = Error::make(ErrorCode::Invalid, std::move(message), issues.empty() ? std::string() : issues.front().path);
  return e;
}

core::Value stored_doc(const DeploymentRecord& r) {
  return core::Value::map({{"tenant", r.tenant_id.to_string()}, {"record", r.to_value()}});
}

// The instance a run's job deploys, from its idempotency key "budcore:pipeline/<run>/<step>/<attempt>".
std::string instance_of(const std::string& key, const std::string& run_prefix) {
  if (key.size() <= run_prefix.size() || key.compare(0, run_prefix.size(), run_prefix) != 0) return {};
  std::string rest = key.substr(run_prefix.size());
  auto slash = rest.rfind('/');
  return slash == std::string::npos ? rest : rest.substr(0, slash);
}

}  // namespace

// Reads a deployment of the caller's tenant (NotFound otherwise) with its jobs' state now.
static core::Result<DeploymentRecord> load_deployment(Impl& m, const core::Id& tenant, const core::Id& id) {
  BUDCORE_TRY_ASSIGN(auto row, m.store->get_platform_record(kKind, id.to_string()));
  const core::Value* owner = row ? row->doc.find("tenant") : nullptr;
  if (!row || !owner || !owner->is_string() || owner->as_string() != tenant.to_string())
    return Error::make(ErrorCode::NotFound, "no use-case deployment " + id.to_string(), "id");
  const core::Value* stored = row->doc.find("record");
  if (!stored) return Error::make(ErrorCode::Internal, "deployment " + id.to_string() + " has no record", "record");
  BUDCORE_TRY_ASSIGN(DeploymentRecord r, DeploymentRecord::from_value(*stored));
  if (!r.pipeline_run_id) return r;

  // The newest job per instance (a retried step's later attempt is newer).
  const std::string prefix = std::string(kInternalKeyPrefix) + "pipeline/" + r.pipeline_run_id->to_string() + "/";
  backend::JobFilter filter;
  filter.pipeline_id = *r.pipeline_run_id;
  backend::PageRequest page;
  page.limit = backend::PageRequest::kMaxPageSize;
  std::vector<std::string> seen;
  for (;;) {
    BUDCORE_TRY_ASSIGN(auto jobs, m.store->list_jobs(tenant, filter, page));
    for (const auto& rec : jobs.items) {
      std::string instance = instance_of(rec.idempotency_key, prefix);
      if (instance.empty() || std::find(seen.begin(), seen.end(), instance) != seen.end()) continue;
      seen.push_back(instance);
      if (r.component(instance)) BUDCORE_TRY(r.update_job(instance, rec.job.id, rec.job.status, rec.job.outputs));
    }
    if (jobs.next_cursor.empty()) break;
    page.after = jobs.next_cursor;
  }
  r.status = r.derive_status();
  r.status_message.clear();
  if (!r.teardown_requested && r.status == DeploymentStatus::Deploying) {
    // A run that ended before every job existed deploys nothing more.
    BUDCORE_TRY_ASSIGN(auto run, m.store->get_pipeline(tenant, *r.pipeline_run_id));
    const core::Value* st = run.state.is_map() ? run.state.find("status") : nullptr;
    std::string status = st && st->is_string() ? st->as_string() : std::string();
    if (status == "failed" || status == "cancelled") {
      r.status = DeploymentStatus::Failed;
      r.status_message = "pipeline run " + r.pipeline_run_id->to_string() + " " + status;
    }
  }
  return r;
}

core::Result<DeploymentRecord> Platform::deploy_usecase(const CallContext& caller, std::string_view template_ref,
                                                        const core::Value& params) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "deploy", "usecase_deployments"));
  std::string ref(template_ref);
  std::string version;
  if (auto at = ref.find('@'); at != std::string::npos) {
    version = ref.substr(at + 1);
    ref.resize(at);
  }
  usecase::TemplateCatalog templates(*impl_->store, caller.tenant);
  auto stored = templates.get(ref, version);
  if (stored) {
    usecase::ComponentCatalog components(*impl_->store, caller.tenant);
    BUDCORE_TRY_ASSIGN(auto registry, components.registry());
    return deploy_usecase(caller, stored->tmpl, params, registry);
  }
  if (stored.error().code != ErrorCode::NotFound) return stored.error();
  const usecase::UseCaseTemplate* shipped = usecase::builtin_template(ref);
  if (!shipped || (!version.empty() && shipped->version != version)) {
    return Error{ErrorCode::NotFound,
                 "no use-case template '" + std::string(template_ref) +
                     "' in the tenant's catalog or among the shipped templates (budcore usecase list)",
                 "template", std::string(template_ref)};
  }
  return deploy_usecase(caller, *shipped, params, usecase::builtin_components());
}

core::Result<DeploymentRecord> Platform::deploy_usecase(const CallContext& caller, const usecase::UseCaseTemplate& tmpl,
                                                        const core::Value& params,
                                                        const usecase::ComponentRegistry& components) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY(m.guard(caller, "deploy", "usecase_deployments"));
  if (!params.is_null() && !params.is_map())
    return Error::invalid("parameters", core::to_json(params), "must be a map of parameter name to value");

  // Everything that can be wrong with the template or the parameters is found before anything
  // is stored.
  auto resolved = usecase::resolve(tmpl, components, params);
  if (!resolved.valid()) return resolution_error(resolved.errors);
  usecase::DeploymentRequest request;
  request.deployment_id = core::Id::generate(*m.clock, caller.tenant);
  request.tenant_id = caller.tenant;
  BUDCORE_TRY_ASSIGN(auto plan, usecase::plan_deployment(*resolved.stack, request));
  DeploymentRecord record = DeploymentRecord::from_plan(plan, *resolved.stack, request);
  record.created_at = m.clock->now();
  record.updated_at = record.created_at;

  // The record first, so no job carrying its id exists without it; a run that does not start
  // takes the record back with it.
  BUDCORE_TRY(m.store->transact([&](backend::Store& tx) -> core::Status {
    const core::Value doc = stored_doc(record);
    BUDCORE_TRY(tx.put_platform_record(kKind, record.id.to_string(), doc));
    return m.audit(tx, caller, "usecase_deployments.deploy", "usecase_deployment", record.id.to_string(), {}, core::to_json(doc),
                   core::Map{{"template", record.template_id}});
  }));
  auto run = m.start_run(caller, plan.pipeline, {}, record.id);
  if (!run) {
    (void)m.store->delete_platform_record(kKind, record.id.to_string());
    return run.error();
  }
  record.pipeline_run_id = run->id;
  BUDCORE_TRY(m.store->put_platform_record(kKind, record.id.to_string(), stored_doc(record)));
  return load_deployment(m, caller.tenant, record.id);
}

core::Result<DeploymentRecord> Platform::get_deployment(const CallContext& caller, const core::Id& id) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "get", "usecase_deployments", &id));
  return load_deployment(*impl_, caller.tenant, id);
}

core::Result<std::vector<DeploymentRecord>> Platform::list_deployments(const CallContext& caller) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY(m.guard(caller, "list", "usecase_deployments"));
  // Platform records are not indexed by tenant: a scan of the kind, keyed by the v7 (time
  // ordered) deployment id, so the result is oldest first.
  std::vector<DeploymentRecord> out;
  backend::PageRequest page;
  page.limit = backend::PageRequest::kMaxPageSize;
  const std::string tenant = caller.tenant.to_string();
  for (;;) {
    BUDCORE_TRY_ASSIGN(auto rows, m.store->list_platform_records(kKind, page));
    for (const auto& row : rows.items) {
      const core::Value* owner = row.doc.find("tenant");
      if (!owner || !owner->is_string() || owner->as_string() != tenant) continue;
      BUDCORE_TRY_ASSIGN(auto id, core::Id::parse(row.key));
      BUDCORE_TRY_ASSIGN(auto r, load_deployment(m, caller.tenant, id));
      out.push_back(std::move(r));
    }
    if (rows.next_cursor.empty()) break;
    page.after = rows.next_cursor;
  }
  return out;
}

core::Result<DeploymentRecord> Platform::teardown_deployment(const CallContext& caller, const core::Id& id) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY(m.guard(caller, "teardown", "usecase_deployments", &id));
  BUDCORE_TRY_ASSIGN(DeploymentRecord r, load_deployment(m, caller.tenant, id));
  if (r.teardown_requested && r.status == DeploymentStatus::Deleted) return r;  // idempotent

  // Mark first: a teardown interrupted half way is finished by the next call.
  const std::string before = core::to_json(stored_doc(r));
  r.teardown_requested = true;
  r.updated_at = m.clock->now();
  BUDCORE_TRY(m.store->transact([&](backend::Store& tx) -> core::Status {
    const core::Value doc = stored_doc(r);
    BUDCORE_TRY(tx.put_platform_record(kKind, r.id.to_string(), doc));
    return m.audit(tx, caller, "usecase_deployments.teardown", "usecase_deployment", r.id.to_string(), before, core::to_json(doc));
  }));
  for (const auto& instance : r.begin_teardown()) {
    const auto* c = r.component(instance);
    auto cancelled = m.cancel(caller, *c->job_id, "use-case deployment " + r.id.to_string() + " torn down");
    // A job that ended meanwhile (Conflict) needs no cancel.
    if (!cancelled && cancelled.error().code != ErrorCode::Conflict) return cancelled.error();
  }
  if (r.pipeline_run_id) {
    auto it = m.runs.find(*r.pipeline_run_id);
    if (it != m.runs.end() && !it->second->finished) {
      auto stopped = cancel_pipeline_run(caller, *r.pipeline_run_id, "use-case deployment torn down");
      if (!stopped && stopped.error().code != ErrorCode::Conflict) return stopped.error();
    }
  }
  BUDCORE_TRY(m.pump_locked());
  return load_deployment(m, caller.tenant, id);
}

}  // namespace budcore::platform
