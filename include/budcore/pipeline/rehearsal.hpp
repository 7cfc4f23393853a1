// budcore::pipeline rehearsal — runs a pipeline document end to end on a virtual clock with
// simulated executors (SimJobRunner, SimHttpClient, SimNotifier) and caller-supplied FUNCTION
// callables, answering approval gates and injecting what-if faults. Nothing leaves the
// process, and the same inputs always give the same transitions. `budcore pipeline run`, the
// C ABI's budcore_pipeline_run and Python's Pipeline.run are thin faces of rehearse().
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/pipeline/executors.hpp"
#include "budcore/pipeline/run_state.hpp"

namespace budcore::pipeline {

struct RehearsalOptions {
  std::string run_id = "run";
  core::Value params;  // a map merged over pipeline.parameters (null: none)
  // What-if faults by step id. fail_attempts and hang apply to every step type (JOB steps
  // through SimJobRunner, in-process steps through the engine); slow_factor to JOB steps.
  std::map<std::string, SimJobFault, std::less<>> faults;
  std::vector<std::string> reject;  // approval gates to reject; every other gate is approved
  std::string approver = "rehearsal";
  std::string reject_reason = "rejected in rehearsal";
};

// Parses the options document shared by the C ABI and Python:
//   {"run_id": "run", "params": {...}, "fail": {"step-3": 1} or ["step-3"] (every attempt),
//    "slow": {"step-4": 2.0}, "timeout": ["step-5"], "reject": ["gate"]}
// Null or absent keys mean "none". An unknown key or a wrong type is an Invalid error whose
// field is `path`.<key>[...] (just <key> when path is empty).
BUDCORE_API core::Result<RehearsalOptions> rehearsal_options_from_value(const core::Value& options,
                                                                        std::string_view path = "options");

struct RehearsalResult {
  PipelineStatus status = PipelineStatus::Pending;
  bool done = false;             // false: the run waits for something a rehearsal never sends
  core::Duration elapsed;        // virtual time from the run's start to the end of the rehearsal
  std::string failure_reason;
  core::Timestamp start;         // virtual time when the rehearsal began (transition offsets)
  std::vector<Transition> transitions;
  RunState state;                // the final state: every step's state, message and outputs

  // {"status", "done", "elapsed_seconds", "failure_reason", "steps": {id: state}} — the
  // summary line `budcore pipeline run` prints.
  core::Value summary() const;
  // summary() plus "outputs" ({id: outputs} for steps that produced any), "messages"
  // ({id: message} for steps that have one) and "transitions" (each Transition::to_value()
  // with "elapsed_seconds").
  core::Value to_value() const;
  // A transition as the CLI prints it: to_value() plus "elapsed_seconds" since `start`.
  static core::Value transition_value(const Transition& t, core::Timestamp start);
};

// Validates the document, then runs it to completion (or until it can only wait for outside
// input). `functions` may be null (FUNCTION steps then end Errored: no function registered);
// callables are called synchronously on this thread. `observer`, when given, sees every
// transition as it happens (before the engine acts on it); its error stops the rehearsal
// with that error. An invalid document or options are Invalid errors naming the field.
// Not thread-safe per call; separate calls may run on separate threads if `functions` is
// not modified meanwhile and its callables are thread-safe.
BUDCORE_API core::Result<RehearsalResult> rehearse(const core::Value& document, const RehearsalOptions& options,
                                                   const FunctionRegistry* functions = nullptr,
                                                   StateSink* observer = nullptr);

}  // namespace budcore::pipeline
