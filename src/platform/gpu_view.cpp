// The simulated cluster's GPU pools as the platform shows them: Platform::gpu_report(), its JSON
// form, and the budcore_gpu_* gauges of metrics() (docs/gpu.md "In the platform").
#include <limits>
#include <optional>

#include "budcore/core/json.hpp"
#include "core/digest.hpp"
#include "budcore/platform/platform_json.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using Impl = Platform::Impl;

std::vector<GpuFlavorReport> Impl::gpu_reports() const {
  std::vector<GpuFlavorReport> out;
  if (sim == nullptr) return out;
  for (const auto& view : sim->gpu_pools()) {
    std::vector<gpu::Task> mix = *view.requests;
    if (mix.empty()) {
      gpu::Task one;
      one.name = "one-gpu";
      one.num_gpu = 1;
      one.gpu_milli = gpu::kMilliPerGpu;
      mix.push_back(one);
    }
    out.push_back({view.flavor, gpu::report(*view.pool, gpu::Workload::from_tasks(mix))});
  }
  return out;
}

void Impl::gpu_gauges(Metrics& m) const {
  if (sim == nullptr) return;
  const auto reports = gpu_reports();
  if (reports.empty()) return;
  for (const auto& [flavor, r] : reports) {
    for (const auto& n : r.nodes)
      m.gauge("budcore_gpu_node_fragmentation_milli", {{"flavor", flavor}, {"node", n.name}, {"model", n.model}}, n.fragmentation_milli);
    m.gauge("budcore_gpu_fragmentation_milli", {{"flavor", flavor}}, r.cluster.fragmentation_milli);
    m.gauge("budcore_gpu_fragmentation_share", {{"flavor", flavor}}, r.cluster.fragmentation_share);
    m.gauge("budcore_gpu_unallocated_share", {{"flavor", flavor}}, r.cluster.unallocated_share);
    gpu::Capacity c;
    for (const auto& n : r.nodes) c += n.capacity;
    m.gauge("budcore_gpu_capacity_milli", {{"flavor", flavor}, {"state", "total"}}, static_cast<double>(c.total));
    m.gauge("budcore_gpu_capacity_milli", {{"flavor", flavor}, {"state", "allocated"}}, static_cast<double>(c.allocated));
    m.gauge("budcore_gpu_capacity_milli", {{"flavor", flavor}, {"state", "reserved"}}, static_cast<double>(c.reserved));
    m.gauge("budcore_gpu_capacity_milli", {{"flavor", flavor}, {"state", "free"}}, static_cast<double>(c.free));
    for (const auto& [model, gang] : r.largest_gang_by_model)
      m.gauge("budcore_gpu_largest_gang", {{"flavor", flavor}, {"model", model}}, gang);
  }
  m.gauge("budcore_gpu_waiting_for_placement", {}, static_cast<double>(sim->waiting_for_placement().size()));
}

std::vector<GpuFlavorReport> Platform::gpu_report() {
  std::lock_guard lock(impl_->mu);
  return impl_->gpu_reports();
}

namespace {

std::string saved_key(const std::optional<backend::PlatformRecord>& saved) {
  const core::Value* k = saved ? saved->doc.find("key") : nullptr;
  return k != nullptr && k->is_string() ? k->as_string() : std::string();
}

}  // namespace

core::Result<std::string> Impl::hidden_key() {
  if (!view_key.empty()) return view_key;
  BUDCORE_TRY_ASSIGN(auto saved, store->get_platform_record("state", "view_key"));
  std::string key = saved_key(saved);
  // The first time, read again and made in one write transaction: two processes on a new store
  // agree on the key (write transactions queue).
  if (key.empty()) {
    auto st = store->transact([&](backend::Store& tx) -> core::Status {
      BUDCORE_TRY_ASSIGN(auto again, tx.get_platform_record("state", "view_key"));
      key = saved_key(again);
      if (!key.empty()) return {};
      key = core::random_hex(32);
      return tx.put_platform_record("state", "view_key", core::Value::map({{"key", key}}));
    });
    if (!st) return fail_if_deposed(st.error());
  }
  view_key = key;
  return view_key;
}

core::Result<std::string> Impl::hidden_name(const core::Id& viewer, const core::Id& job, std::int64_t run) {
  BUDCORE_TRY_ASSIGN(std::string key, hidden_key());
  // 8 hex digits: enough to tell one run from the next in a plan, short enough to read.
  const std::string token = core::hmac_sha256_hex(key, viewer.to_string() + "/" + job.to_string() + "/" + std::to_string(run));
  return "[hidden " + token.substr(0, 8) + "]";
}

core::Result<Impl::DefragView> Impl::defrag_view(const CallContext& caller, const core::Id& job_id) {
  auto lj = live.find(job_id);
  if (lj == live.end() || lj->second.tenant != caller.tenant)
    return core::Error::make(core::ErrorCode::NotFound, "no live job " + job_id.to_string() + " of the tenant", "job");
  if (sim == nullptr) return core::Error::make(core::ErrorCode::Unsupported, "defragmentation plans need the simulated cluster");
  DefragView view;
  BUDCORE_TRY_ASSIGN(view.problem, sim->defrag_problem(job_id));
  // Estimated ends from the timeline, for jobs whose duration is known.
  BUDCORE_TRY_ASSIGN(const schedule::TimelineResult* tl, current_timeline());
  const core::Timestamp now = clock->now();
  // A tenant's plan may wait for another tenant's run but never move it (only Kueue's own
  // preemption rules evict across tenants); a platform admin's plan may move any run.
  const bool moves_any = authorizer && authorizer->authorize(caller, AccessRequest{"preempt", "cluster"});
  for (auto& h : view.problem.holders) {
    view.job_ids.push_back(h.name);
    auto id = core::Id::parse(h.name);
    if (!id) continue;
    auto in = timeline_inputs.find(*id);
    auto at = timeline_index.find(h.name);
    if (in != timeline_inputs.end() && !in->second.assumed_duration && at != timeline_index.end()) {
      const schedule::JobEstimate& e = tl->jobs[at->second];
      h.ends_in_seconds = std::max(0.0, static_cast<double>((e.end - now).count_ns()) / 1e9);
    }
    // Other tenants' runs stay distinct, so a plan can name each, and a run that took another's
    // place is named differently, so a plan made before is stale.
    auto other = live.find(*id);
    if (other == live.end() || other->second.tenant != caller.tenant) {
      BUDCORE_TRY_ASSIGN(h.name, hidden_name(caller.tenant, *id, other == live.end() ? 0 : other->second.run));
      h.movable = moves_any;
    }
  }
  view.problem.apply = false;
  return view;
}

core::Result<core::Value> Platform::gpu_defrag(const CallContext& caller, const core::Id& job_id) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "list", "jobs"));
  BUDCORE_TRY_ASSIGN(Impl::DefragView view, impl_->defrag_view(caller, job_id));
  return gpu::defrag_document(view.problem);
}

namespace {

// A plan's document without what time alone changes (costs, the wait, the summary): what it
// does, to compare a plan made earlier with the one the cluster gives now.
core::Value plan_shape(const core::Value& plan) {
  if (!plan.is_map()) return plan;
  core::Map out;
  for (const auto& [k, v] : plan.as_map()) {
    if (k == "cost_gpu_seconds" || k == "summary" || k == "wait_seconds") continue;
    if (k == "moves" && v.is_list()) {
      core::List moves;
      for (const auto& mv : v.as_list()) moves.push_back(plan_shape(mv));
      out.set(k, core::Value(std::move(moves)));
    } else {
      out.set(k, v);
    }
  }
  return core::Value(std::move(out));
}

// The first place two documents differ ("plan.moves[0].to") and the two values there; empty
// when they are equal.
struct Difference {
  std::string path, was, now;
};
std::optional<Difference> first_difference(const core::Value* a, const core::Value* b, const std::string& path) {
  auto json = [](const core::Value* v) { return v != nullptr ? core::to_json(*v) : std::string("absent"); };
  if (a != nullptr && b != nullptr && a->is_map() && b->is_map()) {
    for (const auto& [k, v] : a->as_map())
      if (auto d = first_difference(&v, b->find(k), path + "." + k)) return d;
    for (const auto& [k, v] : b->as_map())
      if (a->find(k) == nullptr) return Difference{path + "." + k, "absent", core::to_json(v)};
    return std::nullopt;
  }
  if (a != nullptr && b != nullptr && a->is_list() && b->is_list() && a->as_list().size() == b->as_list().size()) {
    for (std::size_t i = 0; i < a->as_list().size(); ++i)
      if (auto d = first_difference(&a->as_list()[i], &b->as_list()[i], path + "[" + std::to_string(i) + "]")) return d;
    return std::nullopt;
  }
  if (a != nullptr && b != nullptr && *a == *b) return std::nullopt;
  return Difference{path, json(a), json(b)};
}

// The plan given (a document of gpu_defrag, or its "plan"), checked against the plan the
// cluster gives now: a stale plan is a Conflict naming where the two differ.
core::Status check_fresh(const core::Value& given, const core::Value& now) {
  const core::Value* plan = given.is_map() && given.find("plan") != nullptr ? given.find("plan") : &given;
  if (!plan->is_map()) return core::Error::invalid("plan", core::to_json(*plan), "there is no plan to apply");
  if (now.is_null())
    return core::Error::make(core::ErrorCode::Conflict, "stale plan: the cluster changed since it was made and no plan makes room now",
                             "plan");
  const core::Value a = plan_shape(*plan), b = plan_shape(now);
  auto d = first_difference(&a, &b, "plan");
  if (!d) return {};
  return core::Error::make(core::ErrorCode::Conflict,
                           "stale plan: the cluster changed since it was made (" + d->path + " was " + d->was + ", now " + d->now + ")",
                           d->path);
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// A refusal of the cluster, which knows runs by job id, in the names the caller sees: another
// tenant's job id becomes its hidden name.
core::Error in_callers_names(core::Error e, const Impl::DefragView& view) {
  for (std::size_t i = 0; i < view.job_ids.size(); ++i) {
    const std::string& shown = view.problem.holders[i].name;
    if (view.job_ids[i] == shown) continue;
    replace_all(e.message, view.job_ids[i], shown);
    replace_all(e.value, view.job_ids[i], shown);
  }
  return e;
}

}  // namespace

core::Result<core::Value> Platform::gpu_defrag_apply(const CallContext& caller, const core::Id& job_id, const core::Value& plan) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  // As the advice: the plan is made over the whole tenant's runs, so a role scoped to a project
  // does not reach it.
  BUDCORE_TRY(m.guard(caller, "list", "jobs"));
  BUDCORE_TRY(m.guard(caller, "preempt", "jobs", &job_id));
  if (m.ha_role == Impl::HaRole::Follower)
    return core::Error::make(core::ErrorCode::Unsupported, "a plan is applied by the leader, which drives the cluster");
  auto viewed = m.defrag_view(caller, job_id);
  // A plan for a job that no longer waits for placement is stale too.
  if (!viewed && !plan.is_null() && viewed.error().code == core::ErrorCode::Invalid && viewed.error().field == "job")
    return core::Error::make(core::ErrorCode::Conflict,
                             "stale plan: the cluster changed since it was made (job " + job_id.to_string() +
                                 " no longer waits for placement)",
                             "plan");
  BUDCORE_TRY_ASSIGN(Impl::DefragView view, std::move(viewed));
  const gpu::DefragProblem& p = view.problem;
  BUDCORE_TRY_ASSIGN(auto now_plan, gpu::plan_defrag(p.pool, p.holders, p.request, p.options));
  const core::Value now_doc = now_plan ? gpu::to_value(*now_plan, p.pool) : core::Value();
  if (!plan.is_null()) BUDCORE_TRY(check_fresh(plan, now_doc));
  if (!now_plan) return core::Error::make(core::ErrorCode::Conflict, "no plan makes room for job " + job_id.to_string(), "plan");
  // The cluster knows its runs by job id. Only the moves are named so: a wait, which the cluster
  // refuses, keeps the names the caller sees ("[hidden <token>]" for other tenants' runs) in its message.
  // Each run of the caller's own tenant that the plan moves needs the right to preempt it.
  gpu::Plan real = *now_plan;
  for (auto& mv : real.moves)
    for (std::size_t i = 0; i < p.holders.size(); ++i) {
      if (p.holders[i].name != mv.workload) continue;
      mv.workload = view.job_ids[i];
      if (auto id = core::Id::parse(mv.workload); id && m.live.count(*id) && m.live.at(*id).tenant == caller.tenant)
        BUDCORE_TRY(m.guard(caller, "preempt", "jobs", &*id));
    }
  if (auto st = m.sim->apply_defrag(job_id, real); !st) return in_callers_names(st.error(), view);
  BUDCORE_TRY(m.commit_defrag(caller, job_id, now_doc));
  BUDCORE_TRY(m.pump_locked());
  return core::Value(core::Map{{"plan", now_doc}, {"applied", true}});
}

core::Status Impl::commit_defrag(const CallContext& caller, const core::Id& job_id, const core::Value& plan_doc) {
  // The moves' events and the audit entry in one transaction: an apply that loses a race with
  // another process's commits neither, so the log holds one entry per plan applied.
  std::vector<backend::ClusterEvent> events;
  for (;;) {
    BUDCORE_TRY_ASSIGN(std::size_t n, cluster->poll(events, std::numeric_limits<std::size_t>::max()));
    if (n == 0) break;
  }
  auto st = apply_events(events, [&](backend::Store& tx) {
    return audit(tx, caller, "jobs.defrag", "job", job_id.to_string(), {}, {}, core::Map{{"plan", plan_doc}});
  });
  if (st || st.error().code != core::ErrorCode::Conflict) return st;
  // The run that lost may be another tenant's: the caller learns that one did, not which.
  return core::Error::make(core::ErrorCode::Conflict,
                           "a run this plan moves was changed by another writer (another process on the store applied "
                           "a plan or moved it first); reopen the platform and ask for a new plan",
                           "plan");
}

core::Value to_value(const std::vector<GpuFlavorReport>& reports) {
  core::Map out;
  for (const auto& r : reports) out.set(r.flavor, gpu::to_value(r.report));
  return core::Value(std::move(out));
}

core::Value to_value(const ClusterSnapshot& snapshot, const std::vector<GpuFlavorReport>& gpu) {
  core::Value v = to_value(snapshot);
  if (gpu.empty()) return v;
  core::Map out = v.as_map();
  out.set("gpu", to_value(gpu));
  return core::Value(std::move(out));
}

}  // namespace budcore::platform
