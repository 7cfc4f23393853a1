// SimJobRunner: JOB steps finish after their estimated duration on the engine's clock, with
// what-if faults (fail the first N attempts, slow down, hang). Also the FunctionRegistry.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "budcore/pipeline/executors.hpp"

namespace budcore::pipeline {

core::Status FunctionRegistry::add(std::string name, StepFunction function) {
  if (name.empty() || !function) return core::Error::invalid("function", name, "needs a name and a callable");
  if (functions_.count(name)) {
    return core::Error::make(core::ErrorCode::AlreadyExists, "function '" + name + "' is already registered", "function");
  }
  functions_.emplace(std::move(name), std::move(function));
  return {};
}

const StepFunction* FunctionRegistry::find(std::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

void FunctionRegistry::merge_missing(const FunctionRegistry& other) {
  for (const auto& [name, fn] : other.functions_) functions_.try_emplace(name, fn);
}

struct BUDCORE_HIDDEN SimJobRunner::Impl {
  struct Job {
    std::string step_id;
    core::Timestamp finish_at;
    bool hang = false;
    bool fail = false;
    bool cancelled = false;
  };
  const core::Clock* clock;
  SimJobOptions options;
  std::map<std::string, Job> jobs;  // by key
  // (finish time, key) of every job that will finish by itself (not hanging, not cancelled):
  // next_change() looks up the next one in O(log n) instead of scanning every job ever
  // submitted (a 32k-step JOB chain was quadratic).
  std::set<std::pair<std::int64_t, std::string>> finishing;
  std::size_t duplicates = 0;
  std::size_t cancels = 0;

  // "loop-1[2]" -> "loop-1": faults and output keys name the step as the document does.
  static std::string base_id(const std::string& step_id) {
    auto bracket = step_id.find('[');
    return bracket == std::string::npos ? step_id : step_id.substr(0, bracket);
  }
};

SimJobRunner::SimJobRunner(const core::Clock& clock, SimJobOptions options)
    : impl_(std::make_unique<Impl>(Impl{&clock, std::move(options), {}, {}, 0, 0})) {}
SimJobRunner::~SimJobRunner() = default;

core::Status SimJobRunner::submit(const JobRequest& request) {
  if (impl_->jobs.count(request.key)) {
    ++impl_->duplicates;
    return {};
  }
  Impl::Job job;
  job.step_id = request.step_id;
  core::Duration d = request.estimated_duration.value_or(impl_->options.default_duration);
  auto fault = impl_->options.faults.find(Impl::base_id(request.step_id));
  if (fault != impl_->options.faults.end()) {
    const SimJobFault& f = fault->second;
    job.fail = request.attempt <= f.fail_attempts;
    job.hang = f.hang;
    double scaled = static_cast<double>(d.count_ns()) * std::max(0.0, f.slow_factor);
    d = core::Duration::nanoseconds(scaled >= 9.2e18 ? std::int64_t{9'200'000'000'000'000'000} : static_cast<std::int64_t>(scaled));
  }
  job.finish_at = impl_->clock->now() + d;
  if (!job.hang) impl_->finishing.emplace(job.finish_at.unix_nanos(), request.key);
  impl_->jobs.emplace(request.key, std::move(job));
  return {};
}

core::Result<JobPoll> SimJobRunner::poll(const std::string& key) {
  auto it = impl_->jobs.find(key);
  if (it == impl_->jobs.end()) {
    return core::Error::make(core::ErrorCode::NotFound, "no simulated job '" + key + "'", "key");
  }
  const Impl::Job& job = it->second;
  JobPoll p;
  if (job.cancelled) {
    p.outcome = JobOutcome::Cancelled;
    return p;
  }
  if (job.hang || impl_->clock->now() < job.finish_at) return p;
  if (job.fail) {
    p.outcome = JobOutcome::Failed;
    p.message = "simulated failure";
    return p;
  }
  p.outcome = JobOutcome::Succeeded;
  std::string base = Impl::base_id(job.step_id);
  core::Map out;
  out.set("job_id", key);
  out.set("url", "http://" + base + ".sim.local");
  auto keys = impl_->options.output_keys.find(base);
  if (keys != impl_->options.output_keys.end()) {
    for (const auto& k : keys->second) {
      if (!out.contains(k)) out.set(k, "sim://" + base + "/" + k);
    }
  }
  p.outputs = core::Value(std::move(out));
  return p;
}

core::Status SimJobRunner::cancel(const std::string& key) {
  auto it = impl_->jobs.find(key);
  if (it != impl_->jobs.end() && !it->second.cancelled) {
    it->second.cancelled = true;
    impl_->finishing.erase({it->second.finish_at.unix_nanos(), key});
    ++impl_->cancels;
  }
  return {};
}

std::optional<core::Timestamp> SimJobRunner::next_change() const {
  std::int64_t now = impl_->clock->now().unix_nanos();
  if (now == INT64_MAX) return std::nullopt;
  auto next = impl_->finishing.lower_bound({now + 1, std::string()});
  if (next == impl_->finishing.end()) return std::nullopt;
  return core::Timestamp::from_unix_nanos(next->first);
}

std::size_t SimJobRunner::submissions() const noexcept { return impl_->jobs.size(); }
std::size_t SimJobRunner::duplicate_submits() const noexcept { return impl_->duplicates; }
std::size_t SimJobRunner::cancellations() const noexcept { return impl_->cancels; }

}  // namespace budcore::pipeline
