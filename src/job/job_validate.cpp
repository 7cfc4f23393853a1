// Job::validate — the semantic rules of a job document. Each rule reports the field path, the
// offending value and why; validate_all collects every violation, validate returns the first
// with the next ones (capped) as its others.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/problems.hpp"
#include "budcore/job/job.hpp"
#include "core/field_reader.hpp"
#include "job/job_rules.hpp"

namespace budcore::job {
namespace {

using core::Error;

constexpr core::int128 kNano = 1'000'000'000;
constexpr core::int128 kMilliInNano = 1'000'000;

std::string ts(const std::optional<core::Timestamp>& t) { return t ? t->to_string() : std::string(); }

using Undecoded = std::set<std::string, std::less<>>;

class Collector {
 public:
  // Rules stop once `limit` violations are listed.
  Collector(std::size_t limit, const Undecoded* undecoded) : limit_(limit), undecoded_(undecoded) {}
  bool done() const { return errors_.size() >= limit_; }
  // False for a field whose value in the document did not decode: it holds its default.
  bool decoded(std::string_view field) const {
    return undecoded_ == nullptr || !undecoded_->contains(core::detail::top_level_key(field));
  }
  // A problem about a field that did not decode was reported already, by the decoder.
  void add(std::string field, std::string value, std::string why) {
    if (done() || !decoded(field)) return;
    errors_.push_back(Error::invalid(std::move(field), std::move(value), std::move(why)));
  }
  std::vector<Error> take() { return std::move(errors_); }

 private:
  std::size_t limit_;
  const Undecoded* undecoded_;  // nullptr: a Job built in code, every field as given
  std::vector<Error> errors_;
};

void non_negative(Collector& c, const char* field, std::int64_t v) {
  if (v < 0) c.add(field, std::to_string(v), "must not be negative");
}
void non_negative(Collector& c, const char* field, const std::optional<std::int64_t>& v) {
  if (v) non_negative(c, field, *v);
}

void ordered(Collector& c, const char* earlier_name, const std::optional<core::Timestamp>& earlier,
             const char* later_name, const std::optional<core::Timestamp>& later) {
  if (earlier && later && *later < *earlier) {
    c.add(later_name, ts(later), std::string("must not be before ") + earlier_name + " (" + ts(earlier) + ")");
  }
}

void check_gigabytes(Collector& c, const char* field, const core::Quantity& q) {
  if (q.sign() < 0) {
    c.add(field, core::detail::decimal_string(q), "must not be negative");
  } else if (q.nano() > core::int128{Job::kMaxGigabytes} * kNano) {
    c.add(field, core::detail::decimal_string(q),
          "is too large: at most " + std::to_string(Job::kMaxGigabytes) + " GiB (the byte count must fit 64 bits)");
  }
}

void check_money(Collector& c, const char* field, const std::optional<core::Money>& m, const std::string& currency) {
  if (!m) return;
  if (m->currency() != currency) {
    c.add(field, m->to_string(), "must be in the job's currency " + currency);
  } else if (m->units() < 0) {
    c.add(field, m->amount_string(2), "must not be negative");
  }
}

void check_source(const Job& j, Collector& c) {
  switch (j.source) {
    case JobSource::Direct:
      if (j.source_id) c.add("source_id", j.source_id->to_string(), "a direct job has no source_id");
      break;
    case JobSource::Pipeline:
      if (!j.pipeline_id) c.add("pipeline_id", {}, "required when source is pipeline");
      break;
    case JobSource::Usecase:
      if (!j.usecase_deployment_id) c.add("usecase_deployment_id", {}, "required when source is usecase");
      break;
  }
}

// The path below v of its first NaN or infinity ("" for v itself; JSON has none: stored, one
// would read back as null). The path is built only for the value found, on the way back up, so
// a document without one costs no string work.
std::optional<std::string> non_finite_at(const core::Value& v) {
  if (v.is_float()) return std::isfinite(v.as_float()) ? std::nullopt : std::optional<std::string>("");
  if (v.is_list()) {
    for (std::size_t i = 0; i < v.as_list().size(); ++i)
      if (auto at = non_finite_at(v.as_list()[i])) return "[" + std::to_string(i) + "]" + *at;
  } else if (v.is_map()) {
    for (const auto& [key, member] : v.as_map())
      if (auto at = non_finite_at(member)) return "." + key + *at;
  }
  return std::nullopt;
}

void check_identity(const Job& j, Collector& c) {
  if (j.schema_version != Job::kSchemaVersion) {
    c.add("schema_version", std::to_string(j.schema_version),
          "unsupported schema version; this library writes version " + std::to_string(Job::kSchemaVersion));
  }
  if (!core::detail::is_dns1123_label(j.name)) {
    c.add("name", j.name,
          "must be a DNS-1123 label: 1-63 characters of a-z, 0-9 and '-', starting and ending with a letter or "
          "digit (it names Kubernetes objects)");
  }
  // An inferred source is only as good as the ids it was inferred from.
  if (c.decoded("source")) check_source(j, c);
  if (j.pipeline_step_id && !j.pipeline_id) {
    c.add("pipeline_id", {}, "required when pipeline_step_id is set (the step belongs to a pipeline)");
  }
  if (!j.spec.is_map()) c.add("spec", core::detail::value_text(j.spec), "must be an object");
  if (!j.outputs.is_map()) c.add("outputs", core::detail::value_text(j.outputs), "must be an object");
  for (const auto& [name, doc] : {std::pair<const char*, const core::Value*>{"spec", &j.spec}, {"outputs", &j.outputs}})
    if (auto at = non_finite_at(*doc)) c.add(name + *at, "", "is not a finite number (JSON has no NaN or infinity)");
}

void check_resources(const Job& j, Collector& c) {
  non_negative(c, "gpu_count", j.gpu_count);
  if (j.gpu_type) {
    if (j.gpu_count == 0 && c.decoded("gpu_count")) {
      c.add("gpu_type", *j.gpu_type, "is set but gpu_count is 0; set gpu_count or remove gpu_type");
    } else if (j.gpu_type->empty()) {
      c.add("gpu_type", *j.gpu_type, "must not be empty; omit it for any GPU");
    } else if (auto st = core::validate_resource_name(*j.gpu_type); !st) {
      c.add("gpu_type", *j.gpu_type, "is not a valid flavor or resource name: " + st.error().message);
    }
  }
  if (j.cpu_cores.sign() < 0) {
    c.add("cpu_cores", core::detail::decimal_string(j.cpu_cores), "must not be negative");
  } else if (j.cpu_cores.nano() % kMilliInNano != 0) {
    c.add("cpu_cores", core::detail::decimal_string(j.cpu_cores),
          "is finer than Kubernetes allows: CPU is counted in whole milli-cores (0.001)");
  }
  check_gigabytes(c, "memory_gb", j.memory_gb);
  if (j.storage_gb) {
    non_negative(c, "storage_gb", *j.storage_gb);
    if (*j.storage_gb > Job::kMaxGigabytes) {
      c.add("storage_gb", std::to_string(*j.storage_gb),
            "is too large: at most " + std::to_string(Job::kMaxGigabytes) + " GiB (the byte count must fit 64 bits)");
    }
  }
}

void check_time(const Job& j, Collector& c) {
  non_negative(c, "estimated_duration_seconds", j.estimated_duration_seconds);
  if (j.max_duration_seconds && *j.max_duration_seconds <= 0) {
    c.add("max_duration_seconds", std::to_string(*j.max_duration_seconds),
          "must be positive (it is the timeout); omit it for no timeout");
  }
  if (j.max_duration_seconds && j.estimated_duration_seconds &&
      *j.max_duration_seconds < *j.estimated_duration_seconds) {
    c.add("max_duration_seconds", std::to_string(*j.max_duration_seconds),
          "is shorter than estimated_duration_seconds (" + std::to_string(*j.estimated_duration_seconds) +
              "): the job would time out before its estimated end");
  }
  if (j.deadline && j.created_at && *j.deadline <= *j.created_at) {
    c.add("deadline", ts(j.deadline), "must be after created_at (" + ts(j.created_at) + ")");
  }
  if (j.time_window && j.time_window->start == j.time_window->end) {
    c.add("time_window_end", j.time_window->end.to_string(),
          "equals time_window_start: an empty window never opens; omit both for no window");
  }
  ordered(c, "created_at", j.created_at, "updated_at", j.updated_at);
  ordered(c, "estimated_start", j.estimated_start, "estimated_end", j.estimated_end);
  ordered(c, "actual_start", j.actual_start, "actual_end", j.actual_end);
}

void check_status(const Job& j, Collector& c) {
  non_negative(c, "retry_count", j.retry_count);
  non_negative(c, "max_retries", j.max_retries);
  if (j.retry_count > j.max_retries && j.max_retries >= 0 && c.decoded("max_retries")) {
    c.add("retry_count", std::to_string(j.retry_count),
          "exceeds max_retries (" + std::to_string(j.max_retries) + ")");
  }
  if (j.status_history.size() > Job::kMaxHistory) {
    c.add("status_history", std::to_string(j.status_history.size()) + " entries",
          "holds at most " + std::to_string(Job::kMaxHistory) + " entries");
  }
  for (std::size_t i = 0; i < j.status_history.size(); ++i) {
    if (i > 0 && j.status_history[i].at < j.status_history[i - 1].at) {
      c.add("status_history[" + std::to_string(i) + "].at", j.status_history[i].at.to_string(),
            "is before the previous transition (" + j.status_history[i - 1].at.to_string() + ")");
    }
  }
}

void check_priority(const Job& j, Collector& c) {
  if (j.priority == JobPriority::Critical && j.preemptible) {
    c.add("preemptible", "true", "a critical job cannot be preempted");
  }
  if (j.priority == JobPriority::Spot && j.preempts_others) {
    c.add("preempts_others", "true", "a spot job has the lowest priority and cannot preempt others");
  }
}

void check_cost(const Job& j, Collector& c) {
  bool ok = j.currency.size() == 3 &&
            std::all_of(j.currency.begin(), j.currency.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
  if (!ok) {
    c.add("currency", j.currency, "must be a three-letter upper-case ISO 4217 code such as USD");
    return;
  }
  check_money(c, "estimated_cost", j.estimated_cost, j.currency);
  check_money(c, "actual_cost", j.actual_cost, j.currency);
  check_money(c, "budget_limit", j.budget_limit, j.currency);
}

constexpr std::size_t kEvery = std::numeric_limits<std::size_t>::max();

std::vector<Error> run_checks(const Job& j, std::size_t limit, const Undecoded* undecoded = nullptr) {
  Collector c(limit, undecoded);
  for (auto check : {check_identity, check_resources, check_time, check_priority, check_status, check_cost}) {
    if (c.done()) break;
    check(j, c);
  }
  return c.take();
}

}  // namespace

core::Status Job::validate() const {
  // One pass: the first violation and up to kMaxListed others after it.
  auto listed = run_checks(*this, JobCheck::kMaxListed + 1);
  if (listed.empty()) return {};
  return core::first_with_others(std::move(listed));
}

std::vector<core::Error> Job::validate_all() const { return run_checks(*this, kEvery); }

std::vector<core::Error> detail::rule_violations(const Job& j, const std::set<std::string, std::less<>>& undecoded) {
  return run_checks(j, kEvery, &undecoded);
}

bool can_preempt(const Job& preemptor, const Job& victim) noexcept {
  return preemptor.preempts_others && victim.effectively_preemptible() && victim.priority != JobPriority::Critical &&
         outranks(preemptor.priority, victim.priority);
}

}  // namespace budcore::job
