// Private: the engine's node table and Impl (engine_build.cpp builds it; engine.cpp, engine_state.cpp and engine_steps.cpp run it).
#pragma once

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "budcore/job/retry_policy.hpp"
#include "budcore/pipeline/engine.hpp"
#include "budcore/pipeline/pipeline_spec.hpp"
#include "budcore/templates/template.hpp"
#include "pipeline/engine_depends.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::pipeline {

namespace detail {

enum class NodeKind : std::uint8_t { Main, Iteration, OnFailure, Finally, Compensation };

struct RetrySpec {
  int limit = 0;  // retries after the first attempt
  job::BackoffPolicy backoff;
  bool on_failed = true;
  bool on_errored = true;
};

// Engine-level keys of a step beyond its typed config (docs/pipelines.md).
struct StepExtras {
  std::optional<DependsExpr> depends;
  TriggerRule rule = TriggerRule::AllSuccess;
  RetrySpec retry;
  std::optional<core::Duration> timeout;
  bool approval = false;
  std::optional<core::Duration> approval_timeout;
  bool continue_on_failure = false;
  core::Value compensation;  // an inline step, or null
};

struct NodeDef {
  std::string id;
  StepType type = StepType::Transform;
  core::Value config;
  std::optional<std::string> condition;
  NodeKind kind = NodeKind::Main;
  int parent = -1;  // Iteration: the LOOP; Compensation: the compensated step
  int index = -1;   // Iteration: item index
  StepExtras extras;
  std::vector<int> preds, succs;
  std::vector<int> branch_sources;  // CONDITION steps listing this one in then/else
  std::vector<int> soft_waits, soft_readers;
  int group = -1;                   // the PARALLEL step this one belongs to
  std::vector<int> members;         // PARALLEL: its members; LOOP: its iterations
  int compensation = -1;            // node index of this step's compensation
};

core::Result<StepExtras> parse_extras(const core::Value& raw_step, std::string_view path, StepType type);
// An inline step {"id"?, "step_type", "config", "condition"?} (hooks, compensation, LOOP body).
core::Result<NodeDef> parse_inline_step(const core::Value& raw, std::string_view path, std::string default_id);
std::string hash_inputs(StepType type, const core::Value& resolved);
bool truthy(const core::Value& v) noexcept;

}  // namespace detail

struct BUDCORE_HIDDEN Engine::Impl {
  EngineDeps deps;
  EngineOptions options;
  PipelineSpec spec;
  std::deque<detail::NodeDef> nodes;  // a deque: LOOP iterations append without moving nodes
  std::unordered_map<std::string, int> index;
  std::vector<int> on_failure_hooks, finally_hooks;
  bool fail_fast = true;
  std::optional<std::int64_t> max_concurrency;
  std::optional<core::Timestamp> deadline;  // pipeline.deadline
  std::optional<core::Duration> timeout;    // pipeline.timeout_seconds

  RunState state;
  // Indexes of state.steps changed since the last save (StateSink::save_changes). Every write
  // to a step record goes through run(n) or mark_changed(); reads use peek(n), so a loop that
  // only looks at many records does not make the next save O(steps).
  std::vector<std::size_t> changed;
  std::vector<bool> changed_flag;
  core::Value ctx;
  std::set<int> dirty, active, blocked, resume;
  // Per LOOP node: its iterations before this index are known to be terminal. Lets the end of
  // each iteration check the loop in amortised O(1) instead of rescanning every iteration
  // (a 16k-item LOOP was quadratic). Dropped whenever an iteration leaves a terminal state.
  std::unordered_map<int, std::size_t> loop_scan;
  std::int64_t open_main = 0;
  std::size_t iterations = 0;  // LOOP iterations of every LOOP of the run (EngineOptions::max_loop_items)
  bool halted = false;
  bool settle_restored = false;  // restore(): redo what the crashed engine did after its last save
  bool stopping = false;
  core::Error halt_error;
  std::unordered_map<std::string, templates::Template> compiled;

  // engine_build.cpp
  static core::Result<std::unique_ptr<Impl>> build(const core::Value& document, EngineDeps deps, EngineOptions options);
  core::Status load(RunState saved);
  int add_iteration(int loop, int i);

  // engine.cpp (the loop), engine_state.cpp (bookkeeping, readiness), engine_steps.cpp (step actions)
  core::Timestamp now() const { return deps.clock->now(); }
  StepRun& run(int n) {
    mark_changed(static_cast<std::size_t>(n));
    return state.steps[static_cast<std::size_t>(n)];
  }
  const StepRun& peek(int n) const { return state.steps[static_cast<std::size_t>(n)]; }
  void mark_changed(std::size_t i) {
    if (i >= changed_flag.size()) changed_flag.resize(std::max(i + 1, state.steps.size()), false);
    if (changed_flag[i]) return;
    changed_flag[i] = true;
    changed.push_back(i);
  }
  void mark_all_changed() {
    for (std::size_t i = 0; i < state.steps.size(); ++i) mark_changed(i);
  }
  bool record(std::string step, std::string from, std::string to, int attempt, std::string message);
  bool set_state(int n, StepState to, std::string message);
  // After iteration n of a LOOP ends: checks the loop only when that can decide it.
  void iteration_ended(int n);
  bool pipeline_transition(std::string from, std::string to, std::string message);
  core::Result<core::Value> resolve(int n, const core::Value& v);
  void set_scope(int n);
  void clear_scope(int n);
  void publish(int n);
  bool check(int n);
  bool start_attempt(int n);
  bool act(int n, const core::Value& resolved);
  bool complete(int n, core::Value outputs, std::string message = {});
  bool fail_attempt(int n, StepState kind, std::string message);
  // An error the same inputs would repeat (a template or config error, a missing executor):
  // `errored` without the retries a policy grants to transient errors.
  bool error_for_good(int n, std::string message);
  // Synchronous calls (API_CALL, NOTIFICATION) are bounded by what is left of the attempt's
  // timeout; nullopt when the step has none.
  std::optional<core::Duration> time_left_in_attempt(const StepRun& r) const;
  bool attempt_timed_out(const StepRun& r) const { return r.timeout_at && now() >= *r.timeout_at; }
  static std::string timed_out_message(const StepRun& r);
  bool finish(int n, StepState to, std::string message);
  void after_terminal(int n);
  bool handled(int n) const;
  bool stop_main(const std::string& why, bool cancelled);
  bool stop_node(int n, const std::string& why);
  bool check_group(int g);
  bool check_loop(int l);
  bool fire_timers();
  bool poll_jobs();
  bool schedule();
  bool advance_phase();
  bool resume_running();
  bool settle_after_restore();
  std::optional<core::Timestamp> pipeline_deadline() const;
  std::string job_key(int n) const;
  bool concurrency_full(int n) const;
  core::Status pump();
};

}  // namespace budcore::pipeline

#pragma GCC visibility pop
