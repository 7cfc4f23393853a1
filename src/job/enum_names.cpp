// Names of the job enums: written lower-case, read in any case.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "budcore/job/job.hpp"
#include "budcore/job/retry_policy.hpp"
#include "budcore/job/state_machine.hpp"
#include "core/enum_lookup.hpp"

namespace budcore::job {
namespace {

using core::detail::enum_name;
using core::detail::parse_enum;

constexpr std::array<std::pair<JobType, std::string_view>, 3> kJobTypes{{
    {JobType::Service, "service"}, {JobType::Batch, "batch"}, {JobType::Training, "training"}}};
constexpr std::array<std::pair<DeploymentType, std::string_view>, 3> kDeploymentTypes{{
    {DeploymentType::Helm, "helm"}, {DeploymentType::Docker, "docker"}, {DeploymentType::Model, "model"}}};
constexpr std::array<std::pair<JobSource, std::string_view>, 3> kSources{{
    {JobSource::Direct, "direct"}, {JobSource::Pipeline, "pipeline"}, {JobSource::Usecase, "usecase"}}};
constexpr std::array<std::pair<JobStatus, std::string_view>, 8> kStatuses{{
    {JobStatus::Pending, "pending"},
    {JobStatus::Queued, "queued"},
    {JobStatus::Scheduled, "scheduled"},
    {JobStatus::Running, "running"},
    {JobStatus::Completed, "completed"},
    {JobStatus::Failed, "failed"},
    {JobStatus::Cancelled, "cancelled"},
    {JobStatus::Preempted, "preempted"}}};
constexpr std::array<std::pair<JobPriority, std::string_view>, 5> kPriorities{{
    {JobPriority::Critical, "critical"},
    {JobPriority::High, "high"},
    {JobPriority::Normal, "normal"},
    {JobPriority::Low, "low"},
    {JobPriority::Spot, "spot"}}};
constexpr std::array<std::pair<TransitionKind, std::string_view>, 6> kKinds{{
    {TransitionKind::Advance, "advance"},
    {TransitionKind::Fail, "fail"},
    {TransitionKind::Cancel, "cancel"},
    {TransitionKind::Preempt, "preempt"},
    {TransitionKind::Requeue, "requeue"},
    {TransitionKind::Retry, "retry"}}};
constexpr std::array<std::pair<BreakerState, std::string_view>, 3> kBreakerStates{{
    {BreakerState::Closed, "closed"}, {BreakerState::Open, "open"}, {BreakerState::HalfOpen, "half_open"}}};

}  // namespace

std::string_view to_string(JobType t) noexcept { return enum_name(t, kJobTypes); }
std::string_view to_string(DeploymentType t) noexcept { return enum_name(t, kDeploymentTypes); }
std::string_view to_string(JobSource s) noexcept { return enum_name(s, kSources); }
std::string_view to_string(JobStatus s) noexcept { return enum_name(s, kStatuses); }
std::string_view to_string(JobPriority p) noexcept { return enum_name(p, kPriorities); }
std::string_view to_string(TransitionKind k) noexcept { return enum_name(k, kKinds); }
std::string_view to_string(BreakerState s) noexcept { return enum_name(s, kBreakerStates); }

core::Result<JobType> parse_job_type(std::string_view text) { return parse_enum(text, kJobTypes, "job type"); }
core::Result<DeploymentType> parse_deployment_type(std::string_view text) {
  return parse_enum(text, kDeploymentTypes, "deployment type");
}
core::Result<JobSource> parse_job_source(std::string_view text) { return parse_enum(text, kSources, "job source"); }
core::Result<JobStatus> parse_job_status(std::string_view text) { return parse_enum(text, kStatuses, "job status"); }
core::Result<JobPriority> parse_job_priority(std::string_view text) {
  return parse_enum(text, kPriorities, "job priority");
}

}  // namespace budcore::job
