// The checks every path that creates or changes a job goes through (submit, submit_batch,
// pipeline JOB steps, use-case deploys, retries, priority changes): the fields only the
// platform writes, the roles a job needs, and the admission gates (docs/security.md "One
// policy, every path").
#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using Impl = Platform::Impl;

namespace {

Error platform_field(std::string field, std::string value, std::string why) {
  return Error::invalid(std::move(field), core::truncate_text(value), std::move(why));
}

std::string opt_text(const std::optional<core::Id>& id) { return id ? id->to_string() : std::string(); }

}  // namespace

core::Status Impl::check_origin(const job::Job& job, std::string_view key, JobOrigin origin) const {
  // An id is the platform's, so that no caller can name (or probe for) another's object.
  if (!job.id.is_nil())
    return platform_field("id", job.id.to_string(),
                          "is assigned by the platform: submit without an id (an idempotency key makes a submit "
                          "safe to repeat)");
  if (origin == JobOrigin::Pipeline) return {};  // the run sets where its jobs come from
  if (key.starts_with(kInternalKeyPrefix))
    return platform_field("idempotency_key", std::string(key),
                          "keys starting with '" + std::string(kInternalKeyPrefix) + "' are the platform's own");
  const std::string why = "is set by the platform for the jobs its pipelines and use-case deployments create";
  if (job.source != job::JobSource::Direct)
    return platform_field("source", std::string(job::to_string(job.source)), why + " (a submitted job is direct)");
  if (job.pipeline_id) return platform_field("pipeline_id", opt_text(job.pipeline_id), why);
  if (job.pipeline_step_id) return platform_field("pipeline_step_id", opt_text(job.pipeline_step_id), why);
  if (job.usecase_deployment_id) return platform_field("usecase_deployment_id", opt_text(job.usecase_deployment_id), why);
  if (job.source_id) return platform_field("source_id", opt_text(job.source_id), why);
  if (job.actual_cost) return platform_field("actual_cost", job.actual_cost->to_string(), "is metered by the platform");
  if (job.outputs.is_map() ? !job.outputs.as_map().empty() : !job.outputs.is_null())
    return platform_field("outputs", core::to_json(job.outputs), "are written by the cluster when the job runs");
  return {};
}

core::Status Impl::admit_job(const CallContext& caller, const job::Job& job, GateStage stage) {
  // Raising a job to critical is creating a critical job: it needs the same role.
  if (stage == GateStage::Priority && job.priority == job::JobPriority::Critical)
    BUDCORE_TRY(guard(caller, "create_critical", "jobs", nullptr, &job.project_id));
  return check_gates(caller, job, stage);
}

}  // namespace budcore::platform
