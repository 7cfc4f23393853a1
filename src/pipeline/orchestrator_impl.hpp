// Orchestrator internals shared by orchestrator.cpp (public API), orchestrator_runs.cpp
// (starting runs, completions), orchestrator_cron.cpp (schedules) and orchestrator_config.cpp
// (deriving a pipeline's trigger from its document).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "budcore/pipeline/orchestrator.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::pipeline {
namespace detail {

// Optional fields as written in records and checkpoints: null when absent.
inline core::Value optional_time(const std::optional<core::Timestamp>& t) {
  return t ? core::Value(t->to_string()) : core::Value();
}

// A registered pipeline and the live state of its trigger.
struct OrchestratedPipeline {
  std::string id;
  core::Value document;
  TriggerType trigger = TriggerType::Manual;
  // SCHEDULED
  std::optional<CronSchedule> schedule;
  CronPolicy policy;
  CronState cron;
  std::optional<core::Timestamp> next_cron;     // when the schedule wants a decision again
  std::optional<core::Timestamp> missed_until;  // schedule times up to here were logged as missed
  std::string last_logged_skip;                 // a Skip is logged once per schedule time and reason
  // EVENT / PIPELINE: a set holding this pipeline's one trigger
  std::optional<TriggerSet> triggers;
  int runs_started = 0;  // run ids are "<id>-<n>"
};

// Reads `pipeline.id` and the trigger keys of `document` (docs/triggers.md). Errors name the
// document field. `created` starts the cron window.
core::Result<OrchestratedPipeline> derive_pipeline(const core::Value& document, core::Timestamp created,
                                                   int max_chain_depth);

// Maps a TriggerSet field ("event_triggers[0].parameters.x") onto the document key it came
// from ("pipeline.event_config.parameters.x").
std::string document_field(std::string_view trigger_field);

// Tags an engine's transitions with its run and passes them on.
class RunSink final : public StateSink {
 public:
  RunSink(Orchestrator::Impl& owner, std::size_t index) : owner_(owner), index_(index) {}
  void move_to(std::size_t index) noexcept { index_ = index; }  // its run moved in the records
  core::Status save(const Transition& transition, const RunState& state) override;
  core::Status save_changes(const Transition& transition, const RunState& state,
                            std::span<const std::size_t> changed_steps) override;

 private:
  core::Status forward(const Transition& transition, const RunState& state,
                       const std::span<const std::size_t>* changed_steps);
  Orchestrator::Impl& owner_;
  std::size_t index_;
};

}  // namespace detail

struct BUDCORE_HIDDEN Orchestrator::Impl {
  using OrchestratedPipeline = detail::OrchestratedPipeline;
  using Timestamp = core::Timestamp;
  using Value = core::Value;
  using FireFn = std::function<TriggerOutcome(const TriggerSet&)>;

  EngineDeps deps;
  OrchestratorOptions options;
  std::vector<OrchestratedPipeline> pipelines;  // registration order
  std::vector<RunRecord> records;               // start order
  struct Live {
    std::unique_ptr<detail::RunSink> sink;
    std::unique_ptr<Engine> engine;
    bool cancel_requested = false;
    bool finish_handled = false;
  };
  std::vector<Live> live;  // parallel to records
  // Indexes (ascending) of the runs whose completion is not handled yet, and the sequence
  // numbers their engines had reached when they were: pump(), progress(), active_of() and
  // next_wakeup() look at open runs only, so a schedule that has fired 20,000 times does not
  // rescan 20,000 finished runs at every wakeup (an every-minute cron over 14 days was quadratic).
  std::vector<std::size_t> open;
  std::int64_t finished_seq = 0;
  void reindex_open();
  std::vector<FiringRecord> firings;

  Timestamp now() const { return deps.clock->now(); }

  OrchestratedPipeline* find_pipeline(std::string_view id) {
    for (auto& p : pipelines)
      if (p.id == id) return &p;
    return nullptr;
  }
  const OrchestratedPipeline* find_pipeline(std::string_view id) const {
    return const_cast<Impl*>(this)->find_pipeline(id);
  }
  std::optional<std::size_t> find_run(std::string_view id) const {
    for (std::size_t i = 0; i < records.size(); ++i)
      if (records[i].run_id == id) return i;
    return std::nullopt;
  }

  void log(FiringRecord record) {
    firings.push_back(std::move(record));
    if (options.on_firing) options.on_firing(firings.back());
  }

  struct StartRequest {
    TriggerType trigger = TriggerType::Manual;
    std::string cause;
    Value params;
    std::optional<Timestamp> scheduled_time;
    std::optional<std::string> triggered_by_run_id;
    int chain_depth = 0;
  };

  void log_error(const OrchestratedPipeline& p, TriggerType type, std::string cause, const core::Error& e,
                 std::optional<std::string> triggered_by = std::nullopt);
  // Creates, records and starts one run. A failure to create the engine is returned (and
  // logged by the caller when a trigger, not a person, asked for the run).
  core::Result<std::string> start(OrchestratedPipeline& p, StartRequest request);
  void start_firings(const TriggerOutcome& outcome, TriggerType type, const std::string& cause,
                     std::vector<std::string>* started);
  void fire_sets(TriggerType type, const std::string& cause, std::optional<std::string> triggered_by,
                 std::vector<std::string>* started, const FireFn& fire);
  // Feeds a finished run to the completion triggers.
  void finish(std::size_t index);
  // Drops the oldest finished runs beyond options.keep_finished_runs.
  void drop_old_runs();
  std::int64_t progress() const;  // grows whenever anything happens
  std::optional<Timestamp> next_wakeup(std::optional<Timestamp> after) const;

  // Cron (orchestrator_cron.cpp).
  FiringRecord cron_record(const OrchestratedPipeline& p, FiringAction action, std::string cause,
                           std::optional<Timestamp> scheduled_time, std::string message) const;
  std::vector<ActiveRun> active_of(const std::string& pipeline) const;
  void log_missed_deadline(OrchestratedPipeline& p);
  bool fire_crons();  // one decision per schedule; true when a run started
};

}  // namespace budcore::pipeline

#pragma GCC visibility pop
