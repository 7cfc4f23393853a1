// budcore::pipeline executors — what the engine calls to run JOB and FUNCTION steps.
// (API_CALL goes through core::HttpClient, NOTIFICATION through core::Notifier.)
//
// JobRunner is keyed by an idempotency key the engine derives from (run, step, attempt), so a
// resumed engine can submit again after a crash without creating a second job.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "budcore/core/clock.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::pipeline {

struct JobRequest {
  std::string key;      // idempotency key: "<run>/<step>/<attempt>"
  std::string step_id;  // "step-3", or "loop-1[2]" for a LOOP iteration
  int attempt = 1;      // 1-based
  core::Value config;   // the step's config with every template resolved
  std::optional<core::Duration> estimated_duration;  // config.estimated_duration_seconds
};

enum class JobOutcome : std::uint8_t { Running, Succeeded, Failed, Cancelled };

struct JobPoll {
  JobOutcome outcome = JobOutcome::Running;
  core::Value outputs;  // a map when Succeeded
  std::string message;  // why it failed
};

class BUDCORE_API JobRunner {
 public:
  virtual ~JobRunner() = default;
  // Starts the job, or does nothing when a job with request.key exists (idempotent).
  virtual core::Status submit(const JobRequest& request) = 0;
  virtual core::Result<JobPoll> poll(const std::string& key) = 0;
  // Cancelling a finished or unknown job is not an error.
  virtual core::Status cancel(const std::string& key) = 0;
  // A hint for virtual-time drivers: the earliest time a running job may change state.
  virtual std::optional<core::Timestamp> next_change() const { return std::nullopt; }
};

// FUNCTION steps: C++ callables registered by name. args is the resolved config.args; the
// returned value becomes the step's outputs (a non-map is wrapped as {"result": value}).
struct FunctionCall {
  std::string_view step_id;
  int attempt = 1;
  // When the attempt times out (the step's timeout_seconds, else config.timeout_seconds), on
  // the engine's clock. The engine cannot interrupt a callable: one that returns after this is
  // failed as timed out and its outputs dropped, so long work should check it and stop early.
  std::optional<core::Timestamp> deadline;
  // Who runs it (EngineOptions): the run, and on a platform the run's tenant and the principal
  // that started it, so that a function shared by several tenants can tell them apart.
  std::string_view run_id;
  std::string_view tenant;
  std::string_view principal;
};
using StepFunction = std::function<core::Result<core::Value>(const core::Value& args, const FunctionCall& call)>;

class BUDCORE_API FunctionRegistry {
 public:
  // Registering a name twice is an AlreadyExists error.
  core::Status add(std::string name, StepFunction function);
  const StepFunction* find(std::string_view name) const;
  // Adds the functions of `other` whose names are not taken here.
  void merge_missing(const FunctionRegistry& other);
  std::size_t size() const noexcept { return functions_.size(); }

 private:
  std::map<std::string, StepFunction, std::less<>> functions_;
};

// What-if controls for the simulated runner (CLI --fail / --slow / --timeout).
struct SimJobFault {
  int fail_attempts = 0;      // the first N attempts fail (a large N: every attempt)
  double slow_factor = 1.0;   // duration multiplier
  bool hang = false;          // never finishes (exercises timeouts)
};

struct SimJobOptions {
  core::Duration default_duration = core::Duration::seconds(60);  // when no estimate is given
  std::map<std::string, SimJobFault, std::less<>> faults;         // by step id (LOOP: the loop's id)
  // Extra output keys per step id, each set to "sim://<step>/<key>" (so templates that read
  // steps.X.outputs.<key> resolve in a rehearsal).
  std::map<std::string, std::vector<std::string>, std::less<>> output_keys;
};

// Simulated JOB runner on a Clock: a job finishes `estimated_duration` (or default_duration)
// after submit, with outputs {"job_id", "url", ...output_keys}. Not thread-safe.
class BUDCORE_API SimJobRunner final : public JobRunner {
 public:
  SimJobRunner(const core::Clock& clock, SimJobOptions options = {});
  ~SimJobRunner() override;
  core::Status submit(const JobRequest& request) override;
  core::Result<JobPoll> poll(const std::string& key) override;
  core::Status cancel(const std::string& key) override;
  std::optional<core::Timestamp> next_change() const override;

  std::size_t submissions() const noexcept;   // distinct jobs created
  std::size_t duplicate_submits() const noexcept;  // submits that found an existing key
  std::size_t cancellations() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace budcore::pipeline
