// budcore::job::Job — the atomic scheduling unit: what the queue admits,
// what the timeline shows and what metering charges for.
//
// Wire format (Job::to_value / Job::from_value, JSON through to_json / from_json):
// - the snake_case keys of the Job schema below, plus "schema_version" (1), "currency",
//   "time_window_start"/"time_window_end", "source"/"source_id" and "status_history".
//   to_value writes every key; an absent optional is written as null. Unknown keys are
//   rejected (a typo such as "gpu_cont" is an error naming the key, with a suggestion).
// - Enums: lower-case values are written ("service", "helm", "high"); input may use any
//   letter case ("SERVICE", "HIGH", as pipeline documents often write them).
// - Ids are UUIDs (core::Id, written lower-case 8-4-4-4-12); a non-UUID string ("step-1") is
//   rejected. id, tenant_id, project_id and cluster_id may be absent or null = not assigned
//   yet (nil Id): the platform assigns id on submit and fills tenant/project from the caller,
//   and cluster_id stays unset until a cluster is chosen.
// - cpu_cores and memory_gb are exact (core::Quantity). Input: a JSON number (2, 0.5) or a
//   string ("2", "0.5", "500m"). Output: a JSON integer when whole, else a decimal string
//   ("0.5"). memory_gb and storage_gb count GiB (2^30 bytes): resources() turns
//   memory_gb 8 into memory "8Gi", matching how Kubernetes manifests size memory.
// - Money: "currency" (ISO 4217, default "USD") applies to estimated_cost, actual_cost and
//   budget_limit, which are written as decimal strings ("12.50"); input may also be a JSON
//   number that has an exact short decimal form (12.5).
// - Timestamps are RFC 3339 strings, UTC on output ("2026-01-30T22:00:00Z").
// - The time window is daily, UTC, "HH:MM"; a window whose end is not after its start
//   crosses midnight ("22:00"-"06:00"). Give both ends or neither.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/resource_list.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job_status.hpp"
#include "budcore/job/priority.hpp"

namespace budcore::job {

enum class JobType : std::uint8_t {
  Service,   // long-running deployment (model endpoint, database, UI)
  Batch,     // run to completion (batch inference, data processing)
  Training,  // training / fine-tuning, checkpointed and resumable
};

enum class DeploymentType : std::uint8_t { Helm, Docker, Model };

// What created the job. DIRECT: an API call; PIPELINE: a JOB step (pipeline_id required);
// USECASE: a use-case deployment (usecase_deployment_id required).
enum class JobSource : std::uint8_t { Direct, Pipeline, Usecase };

BUDCORE_API std::string_view to_string(JobType t) noexcept;
BUDCORE_API std::string_view to_string(DeploymentType t) noexcept;
BUDCORE_API std::string_view to_string(JobSource s) noexcept;
BUDCORE_API core::Result<JobType> parse_job_type(std::string_view text);
BUDCORE_API core::Result<DeploymentType> parse_deployment_type(std::string_view text);
BUDCORE_API core::Result<JobSource> parse_job_source(std::string_view text);

// One recorded status change (state_machine.hpp appends these).
struct BUDCORE_API StatusTransition {
  JobStatus from = JobStatus::Pending;
  JobStatus to = JobStatus::Pending;
  core::Timestamp at;
  std::string message;
  friend bool operator==(const StatusTransition&, const StatusTransition&) = default;
};

struct JobCheck;

// Largest job document accepted (JSON text): 1.5 MiB, the object size Kubernetes stores in
// etcd, so every job budcore accepts can also run on a cluster. Job::from_json, the CLI and the
// stores enforce it (docs/limits.md).
inline constexpr std::size_t kMaxDocumentBytes = 1536 * 1024;

struct BUDCORE_API Job {
  static constexpr int kSchemaVersion = 1;
  // status_history keeps the most recent transitions only; older ones are dropped first.
  static constexpr std::size_t kMaxHistory = 64;
  // memory_gb / storage_gb upper bound, so the byte count fits int64.
  static constexpr std::int64_t kMaxGigabytes = (std::int64_t{1} << 33) - 1;

  int schema_version = kSchemaVersion;

  // Identity (nil = not assigned yet, see the header comment).
  core::Id id;
  std::string name;  // DNS-1123 label: it names Kubernetes objects
  core::Id tenant_id;
  core::Id project_id;
  core::Id cluster_id;

  // Source tracking.
  std::optional<core::Id> pipeline_id;
  std::optional<core::Id> pipeline_step_id;
  std::optional<core::Id> usecase_deployment_id;
  JobSource source = JobSource::Direct;  // inferred from the ids above when absent in input
  std::optional<core::Id> source_id;     // the run / deployment that created it; not for DIRECT

  // What to run.
  JobType job_type = JobType::Batch;  // required in input
  DeploymentType deployment_type = DeploymentType::Docker;  // required in input
  core::Value spec = core::Value(core::Map{});  // a map: the component configuration

  // Resources (what the queue admits).
  std::optional<std::string> gpu_type;  // flavor ("nvidia-a100-80gb") or resource ("nvidia.com/mig-1g.5gb")
  std::int64_t gpu_count = 0;
  core::Quantity cpu_cores = core::Quantity::from_int(1);
  core::Quantity memory_gb = core::Quantity::from_int(4);  // GiB
  std::optional<std::int64_t> storage_gb;                  // GiB

  // Time constraints.
  std::optional<std::int64_t> estimated_duration_seconds;
  std::optional<std::int64_t> max_duration_seconds;  // timeout
  std::optional<core::Timestamp> deadline;           // must complete by
  std::optional<core::TimeWindow> time_window;       // daily, UTC; may cross midnight

  // Priority and preemption.
  JobPriority priority = JobPriority::Normal;
  bool preemptible = false;      // may be stopped by a higher priority (Spot always is)
  bool preempts_others = false;  // may stop lower-priority preemptible jobs

  // Schedule tracking (the timeline). actual_* describe the latest run.
  std::optional<core::Timestamp> estimated_start;
  std::optional<core::Timestamp> estimated_end;
  std::optional<core::Timestamp> actual_start;
  std::optional<core::Timestamp> actual_end;

  // Status.
  JobStatus status = JobStatus::Pending;
  std::optional<std::string> status_message;
  std::int64_t retry_count = 0;
  std::int64_t max_retries = 3;
  std::vector<StatusTransition> status_history;

  // Cost, all in `currency`.
  std::string currency = "USD";
  std::optional<core::Money> estimated_cost;
  std::optional<core::Money> actual_cost;
  std::optional<core::Money> budget_limit;  // fail if cost exceeds

  core::Value outputs = core::Value(core::Map{});  // a map: {"url": ..., ...}

  std::optional<core::Timestamp> created_at;  // set by the platform on submit
  std::optional<core::Timestamp> updated_at;  // set on every transition

  // Parses a job document and validates it (the first problem is returned, with its field
  // path, offending value and reason). Structural errors (wrong JSON type, unknown key, bad
  // UUID, bad enum value, missing required field) come first, then the rules of validate().
  // The error's `others` hold the document's other problems, check_value()'s list after its
  // first, so every caller (submit included) can show them all.
  static core::Result<Job> from_value(const core::Value& value);
  // Decodes only (keys, types, enums), without the semantic rules of validate(); the first
  // structural problem is the error.
  static core::Result<Job> decode(const core::Value& value);
  // Also refuses text longer than kMaxDocumentBytes.
  static core::Result<Job> from_json(std::string_view json);
  // decode() of JSON text (size, syntax, keys, types, enums).
  static core::Result<Job> decode_json(std::string_view json);
  // Every problem of a job document at once, as Kubernetes' API validation reports them: a
  // field that does not decode is skipped and its problem recorded, reading goes on, then the
  // rules of validate_all() run on what decoded, less those that read a field that did not
  // decode (its default would be a second, misleading problem). The job is accepted exactly
  // when from_value() accepts it, and then equals it; otherwise the first problem listed is
  // the error from_value() returns.
  static JobCheck check_value(const core::Value& value);
  // check_value() of JSON text; text too long or not JSON is its one problem.
  static JobCheck check_json(std::string_view json);
  core::Value to_value() const;
  std::string to_json() const;  // compact JSON of to_value()

  // Semantic rules; the first violation, or all of them. Rules:
  //  name DNS-1123 label; gpu_count, storage_gb, durations, retry counts non-negative;
  //  gpu_type only with gpu_count > 0 (gpu_count > 0 without a type = any GPU); cpu_cores,
  //  memory_gb >= 0 with cpu in whole milli-cores; max_duration > 0 and >= estimated_duration;
  //  deadline after created_at; updated_at not before it; estimated/actual start <= end;
  //  time window start != end; retry_count <= max_retries; a CRITICAL job is not preemptible
  //  and a SPOT job cannot preempt others; currency an ISO 4217 code and every amount in it,
  //  non-negative; spec/outputs maps; source consistent with pipeline/usecase ids.
  // validate() returns the first violation with the others (at most JobCheck::kMaxListed) in
  // its `others`; validate_all() lists them all.
  core::Status validate() const;
  std::vector<core::Error> validate_all() const;

  // Kubernetes requests of one pod: cpu, memory (GiB -> bytes, "8Gi"), ephemeral-storage when
  // storage_gb is set, and gpu_count of the GPU resource gpu_resource_name() names.
  core::Result<core::ResourceList> resources() const;
  // Same, with a gpu_type -> resource-name table consulted first (e.g. a platform that maps
  // "amd-mi300x" to "amd.com/gpu").
  core::Result<core::ResourceList> resources(const std::map<std::string, std::string, std::less<>>& gpu_resource_names) const;

  // The extended resource a GPU of gpu_type is requested as: a qualified name ("amd.com/gpu",
  // "nvidia.com/mig-1g.5gb") as is; "mig-<profile>" / "nvidia-mig-<profile>" ->
  // "nvidia.com/mig-<profile>"; anything else (a flavor such as "nvidia-a100-80gb") ->
  // "nvidia.com/gpu", the flavor being chosen by node labels, not by resource name.
  std::string gpu_resource_name() const;

  // Spot jobs are preemptible whatever `preemptible` says.
  bool effectively_preemptible() const noexcept {
    return preemptible || priority == JobPriority::Spot;
  }

  // Field-by-field equality (a Quantity compares by amount, not by how it was written).
  friend BUDCORE_API bool operator==(const Job& a, const Job& b);
};

// A job document checked whole (Job::check_value, Job::check_json).
struct BUDCORE_API JobCheck {
  // Problems listed at most; a 1.5 MiB list of bad entries would otherwise be a million.
  static constexpr std::size_t kMaxListed = 100;

  std::optional<Job> job;  // the job, set exactly when errors is empty
  // Every problem, each with its path: first the structural ones in schema order (unknown keys
  // first), then the rule violations in validate_all()'s order. Past kMaxListed, one last
  // entry (no path) says how many more there are.
  std::vector<core::Error> errors;
  bool ok() const noexcept { return errors.empty(); }
};

// `preemptor` may stop `victim`: preemptor.preempts_others, victim effectively preemptible
// and not CRITICAL, and preemptor's priority strictly higher.
BUDCORE_API bool can_preempt(const Job& preemptor, const Job& victim) noexcept;

// Every key a job document may carry (what Job::from_value accepts), for readers that take a
// job document's shape without all of Job's rules (the cost estimator).
BUDCORE_API std::span<const std::string_view> job_document_keys() noexcept;

}  // namespace budcore::job
