// budcore::kubernetes job operations — what the kubernetes/kueue ClusterBackend does with one
// job, over Client + render_job + observe_job: submit (idempotent), observe, start an admitted
// service, cancel.
#pragma once

#include <optional>
#include <string>

#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/kubernetes/client.hpp"
#include "budcore/kubernetes/render.hpp"
#include "budcore/kubernetes/status.hpp"

namespace budcore::kubernetes {

struct SubmitResult {
  RenderedJob rendered;
  bool created = false;  // false: the objects existed already (a resubmission), none duplicated
};

// Creates the job's namespace (if missing) and objects. Objects that exist already are adopted
// when they carry this job's id label and match what budcore renders; otherwise Conflict, naming
// the object and the field someone changed ("Job tenant-x/bc-...: metadata.labels.kueue.x-k8s.io/
// queue-name is 'other', budcore set 'batch-jobs'"). The first refusal stops it.
BUDCORE_API core::Result<SubmitResult> submit_job(Client& client, const job::Job& job, const RenderOptions& options = {},
                                                  std::int64_t run = 1);

struct JobObjects {
  std::optional<core::Value> job_object;  // batch/v1 Job or apps/v1 Deployment
  std::optional<core::Value> workload;
};

// The live objects of a rendered job (absent ones are nullopt). A batch Job's Workload is the one
// Kueue labelled with the Job's uid.
BUDCORE_API core::Result<JobObjects> fetch_job_objects(Client& client, const RenderedJob& rendered);

// fetch_job_objects + observe_job; for an admitted service job it also scales the Deployment to
// its replicas with the admitted flavors' node labels (start_admitted_service).
BUDCORE_API core::Result<ObservedJob> observe(Client& client, const RenderedJob& rendered);

// Scales an admitted service's Deployment up (replicas from its budcore.io/replicas annotation)
// with the node labels of the flavors Kueue assigned. No-op when not admitted or already done.
BUDCORE_API core::Status start_admitted_service(Client& client, const RenderedJob& rendered, const JobObjects& objects);

// Deletes the job's objects with background propagation (pods go with their Job) and its
// Workloads; objects already gone are fine.
BUDCORE_API core::Status cancel_job(Client& client, const RenderedJob& rendered);

// A job run the cluster holds, found by budcore's labels (what a reopened platform adopts).
struct ClusterJob {
  core::Id job_id;
  std::int64_t run = 1;
  std::string tenant;      // budcore.io/tenant-id ("" when absent)
  std::string kind;        // "Job" or "Deployment"
  std::string namespace_;
  std::string name;
  core::Value object;      // the live object
};

// Every budcore Job and Deployment (label app.kubernetes.io/managed-by=budcore) in `ns` ("" =
// all namespaces), sorted by job id then run. Objects whose budcore.io/job-id label is not a
// UUID (edited by hand) are skipped and named in `skipped`.
BUDCORE_API core::Result<std::vector<ClusterJob>> list_budcore_jobs(Client& client, std::string_view ns = {},
                                                                   std::vector<std::string>* skipped = nullptr);

}  // namespace budcore::kubernetes
