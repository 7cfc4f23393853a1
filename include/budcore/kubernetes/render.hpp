// budcore::kubernetes rendering — a budcore Job as Kubernetes objects Kueue admits.
//
// Batch and training jobs become one batch/v1 Job, created suspended, labelled with the tenant's
// LocalQueue (kueue.x-k8s.io/queue-name) and the WorkloadPriorityClass of the job's priority
// (kueue.x-k8s.io/priority-class: budcore-<priority>); Kueue unsuspends it on admission.
// Service jobs become a Deployment (0 replicas until admitted), a Service, and a Kueue Workload
// that budcore owns: Kueue admits the Workload, the backend then scales the Deployment up with
// the admitted flavor's node selector (Kueue's own Deployment integration needs its pod webhook
// and a controller manager; a Workload works on every cluster Kueue runs on).
//
// Every object carries owner labels (budcore.io/job-id, tenant-id, project-id, pipeline-id,
// pipeline-step-id, usecase-deployment-id, app.kubernetes.io/managed-by=budcore) and is named
// from the job id ("bc-<uuid>"), so a resubmission finds its own objects instead of duplicating
// them.
//
// The container comes from the job's `spec` (DOCKER and MODEL deployment types; HELM is
// Unsupported here). Keys, all optional but `image`:
//   image            container image (MODEL: defaults to RenderOptions::model_image)
//   command, args    lists of strings; MODEL jobs get args ["--model", <model_id>] by default
//   model_id         MODEL: the model to serve
//   env              map NAME -> string value
//   secret_env       map NAME -> {secret: <Secret name>, key: <key>}   (secretKeyRef)
//   env_from_secrets list of Secret names (envFrom)
//   ports            list of {name?, port, protocol?}  (service jobs: the Service's ports)
//   node_selector    map of node labels
//   tolerations      list of Kubernetes tolerations {key, operator, value, effect, tolerationSeconds}
//   replicas         service jobs: pod count (default 1)
//   service_account, working_dir, image_pull_secrets (list of names)
//   values           passed through untouched (Helm values of other renderers); ignored here
// Unknown keys are rejected with a suggestion, naming the path ("spec.node_selecter").
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/job_workload.hpp"

namespace budcore::kubernetes {

// Label keys budcore sets and selects by.
inline constexpr const char* kLabelJobId = "budcore.io/job-id";
inline constexpr const char* kLabelTenant = "budcore.io/tenant-id";
inline constexpr const char* kLabelProject = "budcore.io/project-id";
inline constexpr const char* kLabelPipeline = "budcore.io/pipeline-id";
inline constexpr const char* kLabelStep = "budcore.io/pipeline-step-id";
inline constexpr const char* kLabelUsecase = "budcore.io/usecase-deployment-id";
inline constexpr const char* kLabelJobType = "budcore.io/job-type";
inline constexpr const char* kLabelRun = "budcore.io/run";
inline constexpr const char* kLabelManagedBy = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "budcore";
inline constexpr const char* kLabelQueueName = "kueue.x-k8s.io/queue-name";
// The AdmissionCheck controller of MultiKueue, and the spec.managedBy of the Jobs it dispatches.
inline constexpr const char* kMultiKueueController = "kueue.x-k8s.io/multikueue";
inline constexpr const char* kLabelPriorityClass = "kueue.x-k8s.io/priority-class";
inline constexpr const char* kAnnotationJobName = "budcore.io/job-name";
inline constexpr const char* kAnnotationReplicas = "budcore.io/replicas";
inline constexpr const char* kAnnotationRenderHash = "budcore.io/render-hash";

struct RenderOptions {
  quota::JobQueueLayout layout;  // ClusterQueue per job type, tenant namespaces, GPU resources
  // Flavors by name: a job whose gpu_type names a flavor gets that flavor's node labels as its
  // node selector, which pins Kueue's flavor choice (Kueue matches selectors against flavors).
  std::vector<quota::ResourceFlavor> flavors;
  std::string model_image;  // image of MODEL jobs that name none
  std::string container_name = "main";
  // ClusterQueues whose AdmissionCheck is MultiKueue's (a manager cluster): their batch Jobs
  // get spec.managedBy kueue.x-k8s.io/multikueue, without which Kueue rejects the dispatch and
  // which only Kueue's Job webhook would set. Service jobs cannot go there (Unsupported):
  // MultiKueue dispatches a Workload only through the Job that owns it.
  std::set<std::string, std::less<>> multikueue_cluster_queues;
};

struct RenderedJob {
  std::string namespace_;
  std::string name;        // of the Job / Deployment / Service / Workload
  std::string local_queue;
  std::string priority_class;  // WorkloadPriorityClass name
  std::vector<core::Value> objects;  // in creation order: [Job] or [Workload, Deployment, Service]
};

// The objects of one run of a job (its id must be set: names derive from it). Run 1 is
// "bc-<uuid>", a retry's run n "bc-<uuid>-r<n>", so a new run never collides with an old one
// still being deleted; every object is labelled budcore.io/run.
BUDCORE_API core::Result<RenderedJob> render_job(const job::Job& job, const RenderOptions& options = {},
                                                 std::int64_t run = 1);

// The name of every object of a job's run.
BUDCORE_API std::string object_name_for(const core::Id& job_id, std::int64_t run = 1);
// "budcore-critical", ..., "budcore-spot".
BUDCORE_API std::string priority_class_name(job::JobPriority p);
// The five WorkloadPriorityClasses budcore's priorities map to (values kueue_priority_value()).
BUDCORE_API std::vector<quota::WorkloadPriorityClass> budcore_priority_classes();

// Fields budcore set on a live object that someone changed by hand (labels budcore owns, queue
// name, priority class, container image and resources, replicas): "" when none; else the first
// one as "<Kind> <ns>/<name>: <path> is <live>, budcore set <rendered>".
BUDCORE_API std::string find_drift(const core::Value& rendered, const core::Value& live);

}  // namespace budcore::kubernetes
