// Orchestrator: starts runs from triggers and drives their engines on one clock.
// Order inside pump() is fixed (cron schedules in registration order, then engines in start
// order, completions fed as runs finish), so the same inputs always give the same log.
#include "budcore/pipeline/orchestrator.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "budcore/core/json.hpp"
#include "pipeline/orchestrator_impl.hpp"

namespace budcore::pipeline {

using core::Error;
using core::ErrorCode;
using core::Timestamp;
using core::Value;
using detail::OrchestratedPipeline;

std::string_view to_string(FiringAction a) noexcept {
  switch (a) {
    case FiringAction::Start: return "start";
    case FiringAction::Skip: return "skip";
    case FiringAction::Replace: return "replace";
    case FiringAction::Error: return "error";
  }
  return "unknown";
}

namespace {

Value optional_text(const std::optional<std::string>& s) { return s ? Value(*s) : Value(); }

}  // namespace

Value FiringRecord::to_value() const {
  return Value::map({{"time", time.to_string()},
                     {"pipeline", pipeline},
                     {"trigger", std::string(pipeline::to_string(trigger))},
                     {"action", std::string(pipeline::to_string(action))},
                     {"run_id", run_id},
                     {"cause", cause},
                     {"scheduled_time", detail::optional_time(scheduled_time)},
                     {"triggered_by_run_id", optional_text(triggered_by_run_id)},
                     {"message", message},
                     {"path", field}});  // every JSON document names the offending input `path`
}

Value RunRecord::to_value() const {
  return Value::map({{"run_id", run_id},
                     {"pipeline", pipeline},
                     {"trigger", std::string(pipeline::to_string(trigger))},
                     {"cause", cause},
                     {"status", std::string(pipeline::to_string(status))},
                     {"scheduled_time", detail::optional_time(scheduled_time)},
                     {"triggered_by_run_id", optional_text(triggered_by_run_id)},
                     {"chain_depth", chain_depth},
                     {"params", params},
                     {"created_at", created_at.to_string()},
                     {"finished_at", detail::optional_time(finished_at)}});
}


core::Status detail::RunSink::save(const Transition& transition, const RunState& state) {
  return forward(transition, state, nullptr);
}

core::Status detail::RunSink::save_changes(const Transition& transition, const RunState& state,
                                           std::span<const std::size_t> changed_steps) {
  return forward(transition, state, &changed_steps);
}

// Passes the change list on when the engine gave one, so a journaling sink stays incremental.
core::Status detail::RunSink::forward(const Transition& transition, const RunState& state,
                                      const std::span<const std::size_t>* changed_steps) {
  if (index_ < owner_.records.size()) {  // not recorded yet: nothing to tag
    RunRecord& rec = owner_.records[index_];
    rec.status = state.status;
    if (owner_.options.on_transition) owner_.options.on_transition(RunTransition{rec.pipeline, rec.run_id, &transition, &state});
  }
  if (owner_.deps.sink == nullptr) return {};
  return changed_steps != nullptr ? owner_.deps.sink->save_changes(transition, state, *changed_steps)
                                  : owner_.deps.sink->save(transition, state);
}

Orchestrator::Orchestrator(EngineDeps shared_deps, OrchestratorOptions options) : impl_(std::make_unique<Impl>()) {
  if (shared_deps.clock == nullptr) throw std::invalid_argument("Orchestrator needs a clock");
  impl_->deps = shared_deps;
  impl_->options = std::move(options);
}
Orchestrator::~Orchestrator() = default;
Orchestrator::Orchestrator(Orchestrator&&) noexcept = default;
Orchestrator& Orchestrator::operator=(Orchestrator&&) noexcept = default;

core::Status Orchestrator::add_pipeline(const core::Value& document) {
  Impl& m = *impl_;
  BUDCORE_TRY_ASSIGN(auto p, detail::derive_pipeline(document, m.now(), m.options.max_chain_depth));
  if (m.find_pipeline(p.id) != nullptr)
    return Error{ErrorCode::AlreadyExists, "a pipeline with this id is already registered", "pipeline.id", p.id};
  // The engine's own checks too, so a document that registers can always start.
  EngineDeps check = m.deps;
  check.sink = nullptr;
  if (auto e = Engine::create(document, check); !e) return std::move(e).error();
  m.pipelines.push_back(std::move(p));
  return {};
}

bool Orchestrator::has_pipeline(std::string_view id) const { return impl_->find_pipeline(id) != nullptr; }

core::Result<std::string> Orchestrator::start_run(std::string_view pipeline_id, core::Value params) {
  Impl& m = *impl_;
  OrchestratedPipeline* p = m.find_pipeline(pipeline_id);
  if (p == nullptr)
    return Error{ErrorCode::NotFound, "no pipeline with this id is registered", "pipeline_id", std::string(pipeline_id)};
  if (!params.is_null() && !params.is_map()) return Error::invalid("params", core::to_json(params), "must be a map");
  Impl::StartRequest r;
  r.trigger = TriggerType::Manual;
  r.cause = "manual";
  r.params = std::move(params);
  return m.start(*p, std::move(r));
}

core::Result<std::vector<std::string>> Orchestrator::post_event(Event event) {
  Impl& m = *impl_;
  if (event.name.empty()) return Error::invalid("event.name", "", "an event needs a name");
  if (event.time == Timestamp{}) event.time = m.now();
  for (std::size_t i = 0; i < m.live.size(); ++i) {
    if (m.live[i].finish_handled || m.live[i].engine->done() || m.live[i].engine->halted()) continue;
    BUDCORE_TRY(m.live[i].engine->signal(event.name, event.payload));
  }
  std::vector<std::string> started;
  m.fire_sets(TriggerType::Event, "event " + event.name, std::nullopt, &started,
              [&](const TriggerSet& set) { return set.on_event(event); });
  return started;
}

core::Status Orchestrator::cancel_run(std::string_view run_id, std::string_view reason) {
  Impl& m = *impl_;
  auto index = m.find_run(run_id);
  if (!index) return Error{ErrorCode::NotFound, "no run with this id", "run_id", std::string(run_id)};
  if (m.live[*index].engine->done())
    return Error{ErrorCode::Conflict, "the run has already finished", "run_id", std::string(run_id)};
  m.live[*index].cancel_requested = true;
  return m.live[*index].engine->cancel(reason);
}

core::Status Orchestrator::pump() {
  Impl& m = *impl_;
  for (int round = 0; round < m.options.max_rounds_per_pump; ++round) {
    std::int64_t before = m.progress();
    m.fire_crons();
    // Runs started below (by completions) are pumped in the same pass.
    // finish() removes the run from m.open and may append runs it starts: walk by position.
    for (std::size_t k = 0; k < m.open.size();) {
      std::size_t i = m.open[k];
      Engine& engine = *m.live[i].engine;
      if (!engine.halted()) BUDCORE_TRY(engine.pump());
      m.records[i].status = engine.status();
      if (engine.done()) {
        m.finish(i);
      } else {
        ++k;
      }
    }
    if (m.progress() == before) {
      m.drop_old_runs();
      return {};
    }
  }
  return Error::make(ErrorCode::Conflict, "pump() did not settle after " + std::to_string(m.options.max_rounds_per_pump) +
                                              " rounds (runs keep starting each other at the same instant)");
}

std::optional<Timestamp> Orchestrator::next_wakeup() const { return impl_->next_wakeup(std::nullopt); }

core::Status Orchestrator::run_virtual(core::VirtualClock& clock, Timestamp until) {
  Impl& m = *impl_;
  if (static_cast<const core::Clock*>(&clock) != m.deps.clock)
    return Error::invalid("clock", "", "run_virtual needs the clock the orchestrator was built with");
  while (clock.now() < until) {
    BUDCORE_TRY(pump());
    std::optional<Timestamp> w = m.next_wakeup(std::nullopt);
    if (w && *w <= clock.now()) {
      // Something is due now but pump() settled: only later wakeups can change anything.
      w = m.next_wakeup(clock.now());
    }
    if (!w || *w > until) break;
    clock.set(*w);
  }
  clock.set(until);
  return pump();
}

core::Result<std::vector<Timestamp>> Orchestrator::preview(std::string_view pipeline_id, Timestamp from,
                                                           Timestamp until, std::size_t limit) const {
  const OrchestratedPipeline* p = impl_->find_pipeline(pipeline_id);
  if (p == nullptr)
    return Error{ErrorCode::NotFound, "no pipeline with this id is registered", "pipeline_id", std::string(pipeline_id)};
  if (!p->schedule)
    return Error::invalid("pipeline.trigger_type", std::string(to_string(p->trigger)), "only SCHEDULED pipelines have fire times");
  std::vector<Timestamp> out;
  for (auto t = p->schedule->next(from); t && *t <= until && out.size() < limit; t = p->schedule->next(*t)) out.push_back(*t);
  return out;
}

const std::vector<RunRecord>& Orchestrator::runs() const noexcept { return impl_->records; }
const RunRecord* Orchestrator::find_run(std::string_view run_id) const noexcept {
  auto i = impl_->find_run(run_id);
  return i ? &impl_->records[*i] : nullptr;
}
const Engine* Orchestrator::engine(std::string_view run_id) const noexcept {
  auto i = impl_->find_run(run_id);
  return i ? impl_->live[*i].engine.get() : nullptr;
}
const std::vector<FiringRecord>& Orchestrator::firings() const noexcept { return impl_->firings; }
std::size_t Orchestrator::active_runs() const noexcept {
  std::size_t n = 0;
  for (const auto& l : impl_->live) n += l.engine->done() ? 0 : 1;
  return n;
}

}  // namespace budcore::pipeline
