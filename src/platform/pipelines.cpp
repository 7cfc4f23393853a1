// Pipelines through the Platform: each run is a pipeline::Engine whose JOB steps submit
// platform jobs (RunJobs, a JobRunner over the Platform) and whose transitions are saved to the
// Store before they are acted on (RunSink), so a reopened Platform resumes the run.
#include <algorithm>
#include <cstdio>
#include <span>

#include "budcore/core/json.hpp"
#include "budcore/job/state_machine.hpp"
#include "budcore/pipeline/run_state.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;
using job::JobStatus;
using Impl = Platform::Impl;

namespace {

std::string base_step(std::string_view step_id) {
  auto bracket = step_id.find('[');
  return std::string(bracket == std::string_view::npos ? step_id : step_id.substr(0, bracket));
}

bool terminal_step(std::string_view state) {
  return state == "succeeded" || state == "failed" || state == "errored" || state == "skipped" || state == "omitted" ||
         state == "cancelled";
}

bool terminal_run(std::string_view status) { return status == "completed" || status == "failed" || status == "cancelled"; }

// On a pipeline record's state saved by steps: how many step records the state has. A state
// without it was saved whole (RunState::to_value).
constexpr std::string_view kStepRecords = "step_records";

// A step record's key: the step's index in the run's state, zero-padded so that the records
// list in order (LOOP iterations and hooks have ids of their own making; the index is unique).
std::string step_record_key(std::size_t index) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%08zu", index);
  return buf;
}

}  // namespace

// JOB steps of one run as platform jobs. The engine's key "<run>/<step>/<attempt>" becomes the
// job's idempotency key in the platform's own namespace ("budcore:pipeline/<run>/<step>/
// <attempt>"), which no caller may use, and is looked up only in the run's tenant.
class RunJobs final : public pipeline::JobRunner {
 public:
  RunJobs(Impl& p, LiveRun& run) : p_(p), run_(run) {
    if (p.sim) outputs_ = pipeline::referenced_output_keys(run.document);
  }

  static std::string internal_key(std::string_view engine_key) {
    return std::string(kInternalKeyPrefix) + "pipeline/" + std::string(engine_key);
  }

  core::Status submit(const pipeline::JobRequest& req) override {
    const std::string key = internal_key(req.key);
    if (p_.pipeline_keys.count({run_.tenant, key})) return {};
    BUDCORE_TRY_ASSIGN(job::Job job, job_from_step_config(req.step_id, {}, req.config));
    // Where the job comes from is the run's to say, not the step config's.
    BUDCORE_TRY(check_step_provenance(job));
    job.source = job::JobSource::Pipeline;
    job.pipeline_id = run_.id;
    job.source_id = run_.id;
    job.pipeline_step_id = derived_id(run_.id.to_string() + "/" + req.step_id);
    // Only a deployment's own run says its jobs deploy it; any other run's say nothing (a plan
    // run through run_pipeline carries its deployment id in the configs: it is not kept).
    job.usecase_deployment_id = run_.deployment;
    // Templates downstream read outputs of this step the simulated cluster does not produce
    // by itself: it returns them as "sim://<step>/<key>", as a rehearsal does.
    if (auto keys = outputs_.find(base_step(req.step_id)); keys != outputs_.end()) {
      core::Map spec = job.spec.is_map() ? job.spec.as_map() : core::Map{};
      core::Map sim = spec.find("sim") && spec.find("sim")->is_map() ? spec.find("sim")->as_map() : core::Map{};
      core::Map outs = sim.find("outputs") && sim.find("outputs")->is_map() ? sim.find("outputs")->as_map() : core::Map{};
      for (const auto& k : keys->second)
        if (k != "job_id" && k != "url" && k != "node" && !outs.contains(k)) outs.set(k, "sim://" + base_step(req.step_id) + "/" + k);
      if (!outs.empty()) {
        sim.set("outputs", core::Value(std::move(outs)));
        spec.set("sim", core::Value(std::move(sim)));
        job.spec = core::Value(std::move(spec));
      }
    }
    CallContext ctx = CallContext::for_tenant(run_.tenant, run_.principal, "pipeline:" + run_.id.to_string());
    std::vector<SubmitRequest> one;
    one.push_back(SubmitRequest{std::move(job), key});
    auto results = p_.submit_jobs(ctx, std::move(one), false, JobOrigin::Pipeline);
    if (!results) {
      // Over the tenant's submit rate or queue depth: the step waits (it is not a failure of the
      // step's own) and submits again when the limit allows.
      if (results.error().code == ErrorCode::RateLimited && results.error().retry_after_ms > 0) {
        deferred_[req.key] = Deferred{req, p_.clock->now() + core::Duration::milliseconds(results.error().retry_after_ms)};
        return {};
      }
      return results.error();
    }
    deferred_.erase(req.key);
    if (results->front().created) p_.metrics.count("jobs_created_from_steps_total", {{"step_type", "job"}});
    return {};
  }

  core::Result<pipeline::JobPoll> poll(const std::string& engine_key) override {
    pipeline::JobPoll out;
    if (auto d = deferred_.find(engine_key); d != deferred_.end()) {
      if (p_.clock->now() < d->second.at) return out;
      const pipeline::JobRequest req = d->second.request;
      BUDCORE_TRY(submit(req));
      if (deferred_.count(engine_key)) return out;
    }
    const std::string key = internal_key(engine_key);
    if (auto it = p_.pipeline_keys.find({run_.tenant, key}); it != p_.pipeline_keys.end()) {
      if (auto l = p_.live.find(it->second); l != p_.live.end() && l->second.tenant == run_.tenant) {
        // A service's step is done once it serves: a deployment, not a run to completion.
        if (l->second.type == job::JobType::Service && l->second.status == JobStatus::Running && l->second.doc) {
          out.outcome = pipeline::JobOutcome::Succeeded;
          out.outputs = l->second.doc->outputs;
        }
        return out;  // otherwise queued, running, or failed with a retry to come
      }
      p_.pipeline_keys.erase(it);
    }
    BUDCORE_TRY_ASSIGN(auto rec, p_.store->get_job_by_key(run_.tenant, key));
    if (!rec) return Error::make(ErrorCode::NotFound, "no job was submitted for step key '" + engine_key + "'", "key");
    if (rec->job.pipeline_id != run_.id)
      return Error::make(ErrorCode::Internal, "the job under step key '" + engine_key + "' is not this run's", "key");
    switch (rec->job.status) {
      case JobStatus::Completed:
        out.outcome = pipeline::JobOutcome::Succeeded;
        out.outputs = rec->job.outputs;
        break;
      case JobStatus::Failed:
        out.outcome = pipeline::JobOutcome::Failed;
        out.message = rec->job.status_message.value_or("job failed");
        break;
      case JobStatus::Cancelled:
        out.outcome = pipeline::JobOutcome::Cancelled;
        out.message = rec->job.status_message.value_or("cancelled");
        break;
      default:
        break;
    }
    return out;
  }

  core::Status cancel(const std::string& engine_key) override {
    deferred_.erase(engine_key);
    auto it = p_.pipeline_keys.find({run_.tenant, internal_key(engine_key)});
    if (it == p_.pipeline_keys.end()) return {};
    core::Id id = it->second;
    CallContext ctx = CallContext::for_tenant(run_.tenant, run_.principal, "pipeline:" + run_.id.to_string());
    auto r = p_.cancel(ctx, id, "pipeline run " + run_.id.to_string() + " cancelled it");
    if (!r && r.error().code != ErrorCode::Conflict) return r.error();
    return {};
  }

  // The earliest time a step waiting for the submit limits tries again.
  std::optional<core::Timestamp> next_deferred() const {
    std::optional<core::Timestamp> best;
    for (const auto& [key, d] : deferred_)
      if (!best || d.at < *best) best = d.at;
    return best;
  }

 private:
  struct Deferred {
    pipeline::JobRequest request;
    core::Timestamp at;
  };

  // A step config may not claim another provenance than its run's.
  core::Status check_step_provenance(const job::Job& job) const {
    const std::string why = "is set by the platform from the pipeline run";
    if (job.pipeline_id && job.pipeline_id != run_.id)
      return Error::invalid("config.pipeline_id", job.pipeline_id->to_string(), why);
    if (run_.deployment && job.usecase_deployment_id && job.usecase_deployment_id != run_.deployment)
      return Error::invalid("config.usecase_deployment_id", job.usecase_deployment_id->to_string(), why);
    if (job.source_id && job.source_id != run_.id) return Error::invalid("config.source_id", job.source_id->to_string(), why);
    if (job.actual_cost) return Error::invalid("config.actual_cost", job.actual_cost->to_string(), "is metered by the platform");
    return {};
  }

  Impl& p_;
  LiveRun& run_;
  std::map<std::string, std::vector<std::string>, std::less<>> outputs_;
  std::map<std::string, Deferred> deferred_;  // engine key -> the submit to try again
};

// Saves every transition of the run and logs it, in one transaction, before the engine acts on
// it: the run-level fields on the pipeline record, and one step record for each step the
// transition changed (its StepRun and its memo entry), so what a transition writes does not
// grow with the number of steps. A replica taking over reads them back (load_run_state).
class RunSink final : public pipeline::StateSink {
 public:
  RunSink(Impl& p, LiveRun& run) : p_(p), run_(run) {}

  // Without a list of changes every step is written: correct, O(steps).
  core::Status save(const pipeline::Transition& t, const pipeline::RunState& state) override {
    std::vector<std::size_t> all(state.steps.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    return save_changes(t, state, all);
  }

  core::Status save_changes(const pipeline::Transition& t, const pipeline::RunState& state,
                            std::span<const std::size_t> changed_steps) override {
    backend::EventRecord e;
    e.at = t.at;
    e.type = "pipeline.transition";
    e.object_id = run_.id;
    core::Value data = t.to_value();
    data.mutable_map().set("run", run_.id.to_string());
    data.mutable_map().set("pipeline", run_.pipeline);
    e.data = std::move(data);
    core::Value fields = state.fields_to_value();
    fields.mutable_map().set(std::string(kStepRecords), static_cast<std::int64_t>(state.steps.size()));
    std::vector<backend::StepRecord> rows;
    rows.reserve(changed_steps.size());
    for (std::size_t i : changed_steps) {
      if (i >= state.steps.size())
        return Error::make(ErrorCode::Internal, "changed step index " + std::to_string(i) + " is beyond the " +
                                                    std::to_string(state.steps.size()) + " steps of the run");
      const pipeline::StepRun& s = state.steps[i];
      backend::StepRecord r;
      r.pipeline_id = run_.id;
      r.step_id = step_record_key(i);
      r.status = std::string(pipeline::to_string(s.state));
      core::Value doc = core::Value::map({{"index", static_cast<std::int64_t>(i)}, {"step", s.to_value()}});
      // The memo holds each step's last success; it changes only with its step's record.
      if (auto m = state.memo.find(s.id); m != state.memo.end()) doc.mutable_map().set("memo", m->second.to_value());
      r.state = std::move(doc);
      rows.push_back(std::move(r));
    }
    auto st = p_.store->transact([&](backend::Store& tx) -> core::Status {
      BUDCORE_TRY_ASSIGN(auto rec, tx.save_pipeline_state(run_.tenant, run_.id, run_.version, std::move(fields)));
      run_.version = rec.version;
      for (auto& r : rows) BUDCORE_TRY(tx.put_step(run_.tenant, std::move(r), std::nullopt));
      BUDCORE_TRY(tx.append_event(run_.tenant, e));
      return p_.save_clock(tx);
    });
    if (!st) return p_.fail_halted(st.error());
    count(t, state);
    return {};
  }

 private:
  void count(const pipeline::Transition& t, const pipeline::RunState& state) {
    if (!t.step.empty()) {
      if (!terminal_step(t.to)) return;
      auto type = run_.step_types.find(base_step(t.step));
      std::string step_type = type == run_.step_types.end() ? "unknown" : type->second;
      p_.metrics.count("step_executions_total", {{"step_type", step_type}, {"status", t.to}});
      if (const pipeline::StepRun* r = state.find(t.step); r != nullptr && r->started_at && r->finished_at)
        p_.metrics.observe("step_duration_seconds", {{"step_type", step_type}, {"status", t.to}},
                           static_cast<double>((*r->finished_at - *r->started_at).count_ns()) / 1e9);
      return;
    }
    if (!terminal_run(t.to)) return;
    p_.metrics.count("pipeline_executions_total", {{"status", t.to}});
    if (state.started_at && state.finished_at)
      p_.metrics.observe("pipeline_duration_seconds", {{"pipeline_id", run_.pipeline}, {"status", t.to}},
                         static_cast<double>((*state.finished_at - *state.started_at).count_ns()) / 1e9);
  }

  Impl& p_;
  LiveRun& run_;
};

LiveRun::LiveRun() = default;
LiveRun::~LiveRun() = default;

std::optional<core::Timestamp> Impl::next_deferred_submit(const LiveRun& run) const {
  return run.jobs ? run.jobs->next_deferred() : std::nullopt;
}

core::Status Impl::start_engine(LiveRun& run, const core::Value* saved_state) {
  run.jobs = std::make_unique<RunJobs>(*this, run);
  run.sink = std::make_unique<RunSink>(*this, run);
  run.step_types.clear();
  if (const core::Value* steps = run.document.find("steps"); steps != nullptr && steps->is_list())
    for (const auto& s : steps->as_list()) {
      const core::Value* id = s.find("id");
      const core::Value* type = s.find("step_type");
      if (id && id->is_string() && type && type->is_string()) {
        std::string t = type->as_string();
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        run.step_types[id->as_string()] = t;
      }
    }
  pipeline::EngineDeps deps;
  deps.clock = clock.get();
  deps.jobs = run.jobs.get();
  // The run sees its tenant's functions and the shared ones, never another tenant's.
  run.functions = pipeline::FunctionRegistry{};
  if (auto own = tenant_functions.find(run.tenant); own != tenant_functions.end()) run.functions = own->second;
  run.functions.merge_missing(functions);
  deps.functions = &run.functions;
  deps.sink = run.sink.get();
  core::HttpClient* wire = http.get();
  if (config.http != HttpKind::Curl) {
    run.sim_http = std::make_unique<pipeline::SimHttpClient>(pipeline::referenced_output_keys(run.document));
    wire = run.sim_http.get();
  }
  // secret:// in a step's URL, headers or body is expanded at the wire, and its value redacted
  // from what comes back, so the run's state, events and errors never hold it.
  run.secret_http = backend::secret_expanding_http_client(*wire, secrets, run.tenant);
  deps.http = run.secret_http.get();
  if (config.notifier == NotifierKind::Sim) {
    run.sim_notifier = std::make_unique<pipeline::SimNotifier>();
    deps.notifier = run.sim_notifier.get();
  }
  pipeline::EngineOptions opts;
  opts.run_id = run.id.to_string();
  opts.tenant = run.tenant.to_string();
  opts.principal = run.principal;
  opts.max_loop_items = config.max_loop_items;
  auto engine = saved_state ? pipeline::Engine::restore(run.document, deps, *saved_state, opts)
                            : pipeline::Engine::create(run.document, deps, opts);
  if (!engine) return engine.error();
  run.engine.emplace(std::move(*engine));
  return {};
}

core::Status Impl::load_run_state(const core::Id& tenant, backend::PipelineRecord& rec) {
  const core::Value* count = rec.state.is_map() ? rec.state.find(kStepRecords) : nullptr;
  if (count == nullptr) return {};  // saved whole, or not started
  const std::string what = "pipeline run " + rec.id.to_string();
  if (!count->is_int() || count->as_int() < 0)
    return Error::make(ErrorCode::Io, what + ": the stored state's step count is not a count", "state");
  const auto n = static_cast<std::size_t>(count->as_int());
  BUDCORE_TRY_ASSIGN(auto rows, store->list_steps(tenant, rec.id));
  std::vector<const core::Value*> steps(n, nullptr);
  core::Map memo;
  for (const auto& r : rows) {
    const core::Value* index = r.state.find("index");
    const core::Value* step = r.state.find("step");
    if (index == nullptr || !index->is_int() || index->as_int() < 0 || step == nullptr || !step->is_map())
      return Error::make(ErrorCode::Io, what + ": step record " + r.step_id + " is not a saved step", "state");
    const auto i = static_cast<std::size_t>(index->as_int());
    if (i >= n) continue;  // never written: steps are only appended, and the count is written with them
    steps[i] = step;
  }
  core::List list;
  list.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (steps[i] == nullptr)
      return Error::make(ErrorCode::Io, what + ": the record of step " + std::to_string(i) + " of " + std::to_string(n) + " is missing",
                         "state");
    list.push_back(*steps[i]);
  }
  // The memo holds each step's last success, saved with its step's record.
  for (const auto& r : rows) {
    const core::Value* index = r.state.find("index");
    if (static_cast<std::size_t>(index->as_int()) >= n) continue;
    if (const core::Value* m = r.state.find("memo"); m != nullptr) {
      const core::Value* id = r.state.find("step")->find("id");
      if (id != nullptr && id->is_string()) memo.set(id->as_string(), *m);
    }
  }
  core::Map whole;
  for (const auto& [k, v] : rec.state.as_map())
    if (k != kStepRecords) whole.set(k, v);
  whole.set("steps", core::Value(std::move(list)));
  whole.set("memo", core::Value(std::move(memo)));
  rec.state = core::Value(std::move(whole));
  return {};
}

core::Status Impl::finish_run(LiveRun& run) {
  if (run.finished) return {};
  run.finished = true;
  auto st = store->delete_platform_record("run", run.id.to_string());
  if (!st) return fail_halted(st.error());
  return {};
}

core::Status Impl::pump_runs(bool& progressed) {
  for (auto& [id, run] : runs) {
    if (run->finished || !run->engine) continue;
    const std::int64_t before = run->engine->state().seq;
    auto st = run->engine->pump();
    if (halted) return *halted;
    if (!st) return fail_halted(st.error());
    if (run->engine->state().seq != before) progressed = true;
    if (run->engine->done()) BUDCORE_TRY(finish_run(*run));
  }
  for (auto it = runs.begin(); it != runs.end();) {
    if (it->second->finished) it = runs.erase(it);
    else ++it;
  }
  return {};
}

// ---- public members ----------------------------------------------------------------------------

namespace {

core::Result<PipelineRun> run_of(const backend::PipelineRecord& rec) {
  PipelineRun out;
  out.id = rec.id;
  out.pipeline = rec.name;
  out.state = rec.state;
  out.version = rec.version;
  out.created_at = rec.created_at;
  out.updated_at = rec.updated_at;
  if (const core::Value* s = rec.state.find("status"); s != nullptr && s->is_string()) {
    auto status = pipeline::parse_pipeline_status(s->as_string());
    if (status) out.status = *status;
  }
  return out;
}

}  // namespace

core::Result<PipelineRun> Platform::run_pipeline(const CallContext& caller, const core::Value& document, core::Value params) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "run", "pipeline_runs"));
  return impl_->start_run(caller, document, std::move(params), std::nullopt);
}

core::Result<PipelineRun> Impl::start_run(const CallContext& caller, const core::Value& document, core::Value params,
                                          std::optional<core::Id> deployment) {
  Impl& m = *this;
  if (!params.is_null() && !params.is_map()) return Error::invalid("params", core::to_json(params), "must be a map");
  const core::Value* meta = document.is_map() ? document.find("pipeline") : nullptr;
  const core::Value* name = meta && meta->is_map() ? meta->find("name") : nullptr;
  auto run = std::make_unique<LiveRun>();
  run->id = core::Id::generate(*m.clock, caller.tenant);
  run->tenant = caller.tenant;
  run->principal = caller.principal;
  run->pipeline = name && name->is_string() ? name->as_string() : "pipeline";
  run->document = document;
  run->started_ns = m.clock->now().unix_nanos();
  run->deployment = deployment;
  if (!params.is_null()) {
    // The run's parameters are merged into the document's, so a restored run sees them too.
    core::Map doc = document.as_map();
    core::Map p = meta && meta->is_map() ? meta->as_map() : core::Map{};
    core::Map merged = p.find("parameters") && p.find("parameters")->is_map() ? p.find("parameters")->as_map() : core::Map{};
    for (const auto& [k, v] : params.as_map()) merged.set(k, v);
    p.set("parameters", core::Value(std::move(merged)));
    doc.set("pipeline", core::Value(std::move(p)));
    run->document = core::Value(std::move(doc));
  }
  BUDCORE_TRY(m.start_engine(*run, nullptr));  // validates the document; nothing is stored on error
  backend::PipelineRecord rec;
  rec.id = run->id;
  rec.name = run->pipeline;
  rec.definition = run->document;
  backend::EventRecord e;
  e.at = m.clock->now();
  e.type = "pipeline.started";
  e.object_id = run->id;
  e.data = core::Value::map({{"run", run->id.to_string()}, {"pipeline", run->pipeline}});
  auto st = m.store->transact([&](backend::Store& tx) -> core::Status {
    BUDCORE_TRY_ASSIGN(auto created, tx.create_pipeline(caller.tenant, rec));
    run->version = created.version;
    core::Value doc = core::Value::map(
        {{"tenant", caller.tenant.to_string()}, {"principal", caller.principal}, {"started_ns", run->started_ns}});
    if (deployment) doc.mutable_map().set("deployment", deployment->to_string());
    BUDCORE_TRY(tx.put_platform_record("run", run->id.to_string(), doc));
    BUDCORE_TRY(tx.append_event(caller.tenant, e));
    // A follower stores the run; the leader starts its engine.
    if (m.ha_role == HaRole::Follower) BUDCORE_TRY(m.append_request(tx, caller, "start_run", run->id, {}));
    return m.audit(tx, caller, "pipeline_runs.run", "pipeline_run", run->id.to_string(), {}, core::to_json(run->document),
                   core::Map{{"pipeline", run->pipeline}});
  });
  if (!st) return m.fail_if_deposed(st.error());
  if (m.ha_role == HaRole::Follower) {
    BUDCORE_TRY_ASSIGN(auto stored, m.store->get_pipeline(caller.tenant, run->id));
    BUDCORE_TRY(m.load_run_state(caller.tenant, stored));
    return run_of(stored);
  }
  LiveRun& ref = *run;
  core::Id id = run->id;
  m.runs.emplace(id, std::move(run));
  BUDCORE_TRY(ref.engine->start());
  BUDCORE_TRY(m.pump_locked());
  BUDCORE_TRY_ASSIGN(auto stored, m.store->get_pipeline(caller.tenant, id));
  BUDCORE_TRY(m.load_run_state(caller.tenant, stored));
  return run_of(stored);
}

core::Result<PipelineRun> Platform::get_pipeline_run(const CallContext& caller, const core::Id& id) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "get", "pipeline_runs", &id));
  BUDCORE_TRY_ASSIGN(auto rec, impl_->store->get_pipeline(caller.tenant, id));
  BUDCORE_TRY(impl_->load_run_state(caller.tenant, rec));
  return run_of(rec);
}

core::Result<PipelineRun> Platform::cancel_pipeline_run(const CallContext& caller, const core::Id& id, std::string_view reason) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "cancel", "pipeline_runs", &id));
  return impl_->cancel_run(caller, id, reason);
}

core::Result<PipelineRun> Impl::cancel_run(const CallContext& caller, const core::Id& id, std::string_view reason) {
  Impl& m = *this;
  BUDCORE_TRY_ASSIGN(auto rec, m.store->get_pipeline(caller.tenant, id));
  BUDCORE_TRY(m.load_run_state(caller.tenant, rec));
  auto ended = [&] {
    return Error::make(ErrorCode::Conflict, "pipeline run " + id.to_string() + " has ended: only a running run can be cancelled",
                       "status");
  };
  if (m.ha_role == HaRole::Follower) {
    BUDCORE_TRY_ASSIGN(auto live_run, m.store->get_platform_record("run", id.to_string()));
    if (!live_run) return ended();
    auto st = m.store->transact([&](backend::Store& tx) -> core::Status {
      BUDCORE_TRY(m.append_request(tx, caller, "cancel_run", id, core::Map{{"reason", std::string(reason)}}));
      return m.audit(tx, caller, "pipeline_runs.cancel", "pipeline_run", id.to_string(), {}, {},
                     core::Map{{"reason", std::string(reason)}, {"outcome_of_request", "requested"}});
    });
    if (!st) return st.error();
    return run_of(rec);
  }
  auto it = m.runs.find(id);
  if (it == m.runs.end() || it->second->finished || it->second->tenant != caller.tenant) return ended();
  BUDCORE_TRY(it->second->engine->cancel(reason.empty() ? "cancelled" : reason));
  auto st = m.store->transact([&](backend::Store& tx) {
    return m.audit(tx, caller, "pipeline_runs.cancel", "pipeline_run", id.to_string(), core::to_json(rec.state), {},
                   core::Map{{"reason", std::string(reason)}});
  });
  if (!st) return m.fail_if_deposed(st.error());
  BUDCORE_TRY(m.pump_locked());
  BUDCORE_TRY_ASSIGN(rec, m.store->get_pipeline(caller.tenant, id));
  BUDCORE_TRY(m.load_run_state(caller.tenant, rec));
  return run_of(rec);
}

// A run a follower stored: the leader resumes it from its records as a reopened platform does.
core::Status Impl::start_stored_run(const core::Id& tenant, const core::Id& id) {
  if (runs.count(id)) return {};
  BUDCORE_TRY_ASSIGN(auto row, store->get_platform_record("run", id.to_string()));
  if (!row) return {};  // it ended (cancelled) already
  BUDCORE_TRY_ASSIGN(auto rec, store->get_pipeline(tenant, id));
  BUDCORE_TRY(load_run_state(tenant, rec));
  auto run = std::make_unique<LiveRun>();
  run->id = id;
  run->tenant = tenant;
  if (const core::Value* pr = row->doc.find("principal"); pr != nullptr && pr->is_string()) run->principal = pr->as_string();
  if (const core::Value* d = row->doc.find("deployment"); d != nullptr && d->is_string())
    if (auto dep = core::Id::parse(d->as_string())) run->deployment = *dep;
  if (const core::Value* s = row->doc.find("started_ns"); s != nullptr && s->is_int()) run->started_ns = s->as_int();
  run->pipeline = rec.name;
  run->document = rec.definition;
  run->version = rec.version;
  LiveRun& ref = *run;
  runs.emplace(id, std::move(run));
  const core::Value* saved = rec.state.is_map() && rec.state.find("run_id") ? &rec.state : nullptr;
  BUDCORE_TRY(start_engine(ref, saved));
  if (!saved) BUDCORE_TRY(ref.engine->start());
  return {};
}

}  // namespace budcore::platform
