// Deploying a resolved stack: what the platform calls once a template is resolved (plan the
// jobs, then run them; docs/usecases.md "Deploying").
//
// plan_deployment() turns a ResolvedStack into the jobs that deploy it, each a validated
// job::Job (source usecase, usecase_deployment_id set, name = instance id), in dependency
// order, with the reverse order for teardown, and the stack's pipeline document stamped with
// the deployment id (pipeline.usecase_deployment_id and, on every JOB step,
// config.usecase_deployment_id) for a platform that runs the pipeline instead of submitting
// the jobs itself.
//
// DeploymentRecord is the usecase_deployments row: which template and parameters, which job
// deploys each instance, and the deployment's status, derived from its jobs' statuses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/job/job_status.hpp"
#include "budcore/usecase/resolver.hpp"

namespace budcore::usecase {

struct DeploymentRequest {
  core::Id deployment_id;  // nil: a new v7 id
  core::Id tenant_id;      // copied onto every job
  core::Id project_id;
  core::Id cluster_id;  // nil: not chosen yet
};

struct PlannedJob {
  std::string instance_id;
  std::vector<std::string> depends_on;  // instance ids; submit this job after theirs run
  job::Job job;                         // validated
};

struct BUDCORE_API DeploymentPlan {
  core::Id deployment_id;
  std::vector<PlannedJob> jobs;                  // dependency order: every job after its depends_on
  std::vector<std::vector<std::string>> levels;  // jobs[i] of a level may start together
  std::vector<std::string> teardown_order;       // dependents first (jobs reversed)
  core::Value pipeline;                          // the stack's pipeline, stamped with the deployment id

  const PlannedJob* job(std::string_view instance_id) const noexcept;
};

// Errors: Invalid when a component's job does not validate (its field prefixed with
// "components.<id>."), which a valid resolution never produces.
BUDCORE_API core::Result<DeploymentPlan> plan_deployment(const ResolvedStack& stack,
                                                         const DeploymentRequest& request = {});

enum class DeploymentStatus : std::uint8_t {
  Deploying,    // some job is not running yet
  Running,      // every job is running (services stay running)
  Failed,       // a job failed or was preempted and is not running again
  TearingDown,  // teardown asked for; some job has not ended yet
  Deleted,      // teardown done: every job ended
};
BUDCORE_API std::string_view to_string(DeploymentStatus s) noexcept;
BUDCORE_API core::Result<DeploymentStatus> parse_deployment_status(std::string_view text);

struct DeploymentComponent {
  std::string instance_id;
  std::string component_ref;
  std::vector<std::string> depends_on;
  std::optional<core::Id> job_id;  // once submitted
  job::JobStatus job_status = job::JobStatus::Pending;
  core::Value outputs = core::Value(core::Map{});  // the job's outputs (url, ...) once running
  friend bool operator==(const DeploymentComponent&, const DeploymentComponent&) = default;
};

struct BUDCORE_API DeploymentRecord {
  static constexpr int kSchemaVersion = 1;

  core::Id id;  // the usecase_deployment_id on every job
  core::Id tenant_id;
  core::Id project_id;
  core::Id cluster_id;
  std::string name;
  std::string template_id;
  std::string template_version;
  core::Value parameters = core::Value(core::Map{});
  DeploymentStatus status = DeploymentStatus::Deploying;
  std::string status_message;
  bool teardown_requested = false;
  std::optional<core::Id> pipeline_run_id;      // the pipeline run that deploys it (Platform::deploy_usecase)
  std::vector<DeploymentComponent> components;  // dependency order
  core::Value routing;                          // the rendered routing (references resolve once deployed)
  std::optional<core::Timestamp> created_at;
  std::optional<core::Timestamp> updated_at;

  // A record for a plan: every component pending, no job yet.
  static DeploymentRecord from_plan(const DeploymentPlan& plan, const ResolvedStack& stack,
                                    const DeploymentRequest& request);

  static core::Result<DeploymentRecord> from_value(const core::Value& value);
  core::Value to_value() const;

  DeploymentComponent* component(std::string_view instance_id) noexcept;
  // Records a job's id and status (outputs when given) and re-derives `status`. NotFound for an
  // instance the deployment does not have.
  core::Status update_job(std::string_view instance_id, const core::Id& job_id, job::JobStatus status,
                          const core::Value& outputs = core::Value());
  // The status the components' job statuses imply (see DeploymentStatus).
  DeploymentStatus derive_status() const noexcept;
  // Marks the teardown and returns the instances whose jobs to cancel, dependents first (the
  // reverse dependency order), skipping jobs that already ended or were never submitted.
  std::vector<std::string> begin_teardown();

  friend BUDCORE_API bool operator==(const DeploymentRecord& a, const DeploymentRecord& b);
};

}  // namespace budcore::usecase
