// Orchestrator: starting runs and feeding finished runs to completion triggers.
#include <algorithm>
#include <utility>

#include "pipeline/orchestrator_impl.hpp"

namespace budcore::pipeline {

using core::Error;
using core::Timestamp;
using core::Value;
using detail::OrchestratedPipeline;

void Orchestrator::Impl::log_error(const OrchestratedPipeline& p, TriggerType type, std::string cause, const Error& e,
                                   std::optional<std::string> triggered_by) {
  FiringRecord f;
  f.time = now();
  f.pipeline = p.id;
  f.trigger = type;
  f.action = FiringAction::Error;
  f.cause = std::move(cause);
  f.message = e.message;
  f.field = detail::document_field(e.field);
  f.triggered_by_run_id = std::move(triggered_by);
  log(std::move(f));
}

core::Result<std::string> Orchestrator::Impl::start(OrchestratedPipeline& p, StartRequest request) {
  std::string run_id = p.id + "-" + std::to_string(p.runs_started + 1);
  std::size_t index = records.size();
  auto sink = std::make_unique<detail::RunSink>(*this, index);
  EngineDeps engine_deps = deps;
  engine_deps.sink = sink.get();
  EngineOptions engine_options;
  engine_options.run_id = run_id;
  engine_options.params = request.params;
  auto engine = Engine::create(p.document, engine_deps, std::move(engine_options));
  if (!engine) return std::move(engine).error();
  ++p.runs_started;

  RunRecord record;
  record.run_id = run_id;
  record.pipeline = p.id;
  record.trigger = request.trigger;
  record.cause = request.cause;
  record.scheduled_time = request.scheduled_time;
  record.triggered_by_run_id = request.triggered_by_run_id;
  record.chain_depth = request.chain_depth;
  record.params = request.params.is_null() ? Value(core::Map{}) : request.params;
  record.created_at = now();
  records.push_back(std::move(record));
  live.push_back(Live{std::move(sink), std::make_unique<Engine>(std::move(*engine))});
  open.push_back(index);

  FiringRecord f;
  f.time = now();
  f.pipeline = p.id;
  f.trigger = request.trigger;
  f.action = FiringAction::Start;
  f.run_id = run_id;
  f.cause = std::move(request.cause);
  f.scheduled_time = request.scheduled_time;
  f.triggered_by_run_id = std::move(request.triggered_by_run_id);
  log(std::move(f));

  BUDCORE_TRY(live[index].engine->start());
  records[index].status = live[index].engine->status();
  return run_id;
}

void Orchestrator::Impl::start_firings(const TriggerOutcome& outcome, TriggerType type, const std::string& cause,
                   std::vector<std::string>* started) {
  for (const auto& firing : outcome.firings) {
    OrchestratedPipeline* p = find_pipeline(firing.pipeline);
    if (p == nullptr) continue;
    StartRequest r;
    r.trigger = type;
    r.cause = firing.cause.empty() ? cause : firing.cause;
    r.params = Value(firing.parameters);
    r.triggered_by_run_id = firing.triggered_by_run_id;
    r.chain_depth = firing.chain_depth;
    auto id = start(*p, std::move(r));
    if (!id) {
      log_error(*p, type, firing.cause, id.error(), firing.triggered_by_run_id);
    } else if (started != nullptr) {
      started->push_back(*id);
    }
  }
}

// Runs each pipeline's trigger set against `fire`, in registration order.
void Orchestrator::Impl::fire_sets(TriggerType type, const std::string& cause, std::optional<std::string> triggered_by,
                                   std::vector<std::string>* started, const FireFn& fire) {
  for (std::size_t i = 0; i < pipelines.size(); ++i) {
    if (pipelines[i].trigger != type || !pipelines[i].triggers) continue;
    TriggerOutcome outcome = fire(*pipelines[i].triggers);
    for (const auto& e : outcome.errors) log_error(pipelines[i], type, cause, e, triggered_by);
    start_firings(outcome, type, cause, started);
  }
}

void Orchestrator::Impl::finish(std::size_t index) {
  live[index].finish_handled = true;
  if (auto at = std::lower_bound(open.begin(), open.end(), index); at != open.end() && *at == index) open.erase(at);
  finished_seq += live[index].engine->state().seq;
  const Engine& engine = *live[index].engine;
  RunRecord& rec = records[index];
  rec.status = engine.status();
  rec.finished_at = engine.state().finished_at.value_or(now());
  PipelineFinished done;
  done.pipeline = rec.pipeline;
  done.run_id = rec.run_id;
  done.status = rec.status;
  core::Map outputs;
  for (const auto& s : engine.state().steps)
    if (s.state == StepState::Succeeded && s.outputs.is_map()) outputs.set(s.id, s.outputs);
  done.outputs = Value(std::move(outputs));
  done.parameters = engine.state().params;
  done.finished_at = *rec.finished_at;
  done.chain_depth = rec.chain_depth;
  std::string cause = "pipeline " + done.pipeline + " run " + done.run_id + " " + std::string(to_string(done.status));
  std::string run_id = rec.run_id;  // `rec` may move when runs start below
  fire_sets(TriggerType::Pipeline, cause, run_id, nullptr,
            [&](const TriggerSet& set) { return set.on_pipeline_finished(done); });
}

void Orchestrator::Impl::drop_old_runs() {
  if (options.keep_finished_runs == 0) return;
  std::size_t finished = 0;
  for (const auto& l : live) finished += l.finish_handled ? 1 : 0;
  if (finished <= options.keep_finished_runs) return;
  std::size_t to_drop = finished - options.keep_finished_runs;
  std::vector<RunRecord> kept_records;
  std::vector<Live> kept_live;
  for (std::size_t i = 0; i < live.size(); ++i) {
    if (to_drop > 0 && live[i].finish_handled) {  // oldest first: start order
      --to_drop;
      continue;
    }
    live[i].sink->move_to(kept_live.size());
    kept_records.push_back(std::move(records[i]));
    kept_live.push_back(std::move(live[i]));
  }
  records = std::move(kept_records);
  live = std::move(kept_live);
  reindex_open();
}

void Orchestrator::Impl::reindex_open() {
  open.clear();
  for (std::size_t i = 0; i < live.size(); ++i)
    if (!live[i].finish_handled) open.push_back(i);
}

std::int64_t Orchestrator::Impl::progress() const {
  std::int64_t mark = static_cast<std::int64_t>(firings.size() + records.size()) + finished_seq;
  for (std::size_t i : open) mark += live[i].engine->state().seq;
  return mark;
}

std::optional<Timestamp> Orchestrator::Impl::next_wakeup(std::optional<Timestamp> after) const {
  std::optional<Timestamp> best;
  auto consider = [&](std::optional<Timestamp> t) {
    if (!t || (after && *t <= *after)) return;
    if (!best || *t < *best) best = t;
  };
  for (const auto& p : pipelines) consider(p.next_cron);
  for (std::size_t i : open) consider(live[i].engine->next_wakeup());
  return best;
}

}  // namespace budcore::pipeline
