// KueueCluster: the ClusterBackend over Kubernetes + Kueue (see cluster.hpp for the contract).
#include "budcore/kubernetes/cluster.hpp"

#include <deque>
#include <map>
#include <set>

#include "backends/kubernetes/util.hpp"
#include "budcore/kubernetes/jobs.hpp"
#include "budcore/kubernetes/status.hpp"
#include "budcore/quota/job_workload.hpp"

namespace budcore::kubernetes {

using backend::ClusterEvent;
using backend::ClusterEventKind;
using core::Error;
using core::ErrorCode;
using job::JobStatus;

namespace {

// One run the backend tracks: the last status it reported for it.
struct Tracked {
  core::Id tenant;
  std::int64_t run = 1;
  RenderedJob rendered;
  JobStatus reported = JobStatus::Queued;
  std::optional<backend::Placement> placement;
  std::optional<core::Timestamp> started_at;
  std::string message;
};

backend::Placement placement_of(const ObservedJob& o) {
  backend::Placement p;
  p.admission.cluster_queue = o.cluster_queue;
  p.admission.flavors["main"] = o.flavors;
  p.admission.count["main"] = 1;
  return p;
}

backend::WorkloadInfo::Phase phase_of(JobStatus s) {
  if (s == JobStatus::Running) return backend::WorkloadInfo::Phase::Running;
  if (s == JobStatus::Scheduled) return backend::WorkloadInfo::Phase::Admitted;
  return backend::WorkloadInfo::Phase::Queued;
}

}  // namespace

struct KueueCluster::Impl {
  std::unique_ptr<Client> client;
  KueueClusterOptions options;
  const core::Clock* clock = nullptr;
  std::map<core::Id, Tracked> runs;  // one current run per job
  std::deque<ClusterEvent> ready;    // observed, not yet handed out by poll()
  std::uint64_t seq = 0;
  std::vector<backend::WorkloadInfo> unclaimed;  // objects no record claimed at adoption
  std::set<std::string> queues_ready;             // "namespace/name" of LocalQueues known to exist

  core::Status ensure_local_queue(const job::Job& job) {
    if (!options.create_tenant_queues) return {};
    quota::LocalQueue lq = quota::local_queue_for(job, options.render.layout);
    if (queues_ready.count(lq.key())) return {};
    if (auto made = ensure_namespace(*client, lq.namespace_); !made) return std::move(made).error();
    core::Value obj = core::Map{
        {"apiVersion", "kueue.x-k8s.io/v1beta2"},
        {"kind", "LocalQueue"},
        {"metadata", core::Map{{"name", lq.name},
                               {"namespace", lq.namespace_},
                               {"labels", core::Map{{kLabelManagedBy, kManagedByValue}}}}},
        {"spec", core::Map{{"clusterQueue", lq.cluster_queue}}}};
    auto applied = client->apply(resources::local_queues(), lq.namespace_, obj, true);
    if (!applied) {
      Error e = std::move(applied).error();
      e.message = "creating LocalQueue " + lq.key() + " failed: " + e.message;
      return e;
    }
    queues_ready.insert(lq.key());
    return {};
  }

  ClusterEvent& emit(ClusterEventKind kind, const core::Id& job_id, const Tracked& t) {
    ClusterEvent e;
    e.seq = ++seq;
    e.kind = kind;
    e.tenant = t.tenant;
    e.job_id = job_id;
    e.run = t.run;
    e.at = clock->now();
    ready.push_back(std::move(e));
    return ready.back();
  }

  // What changed for one run since it was last reported; false when the run ended (untrack it).
  core::Result<bool> observe_run(const core::Id& job_id, Tracked& t) {
    JobObjects objs;
    BUDCORE_TRY_ASSIGN(objs, fetch_job_objects(*client, t.rendered));
    if (!objs.job_object && !objs.workload) {
      ClusterEvent& e = emit(ClusterEventKind::Failed, job_id, t);
      e.reason = "Lost";
      e.message = "the run's objects (" + t.rendered.namespace_ + "/" + t.rendered.name +
                  ") were deleted outside budcore";
      return false;
    }
    BUDCORE_TRY(start_admitted_service(*client, t.rendered, objs));
    ObservedJob o = observe_job(objs.job_object ? &*objs.job_object : nullptr, objs.workload ? &*objs.workload : nullptr);
    t.message = o.message;
    auto requeued = [&] {
      if (t.reported != JobStatus::Preempted) return;
      emit(ClusterEventKind::Queued, job_id, t).reason = "Requeued";
      t.reported = JobStatus::Queued;
    };
    auto admitted = [&] {
      requeued();
      if (t.reported != JobStatus::Queued && t.reported != JobStatus::Pending) return;
      t.placement = placement_of(o);
      ClusterEvent& e = emit(ClusterEventKind::Admitted, job_id, t);
      e.placement = t.placement;
      e.message = "admitted by ClusterQueue " + o.cluster_queue;
      t.reported = JobStatus::Scheduled;
    };
    switch (o.status) {
      case JobStatus::Pending:
      case JobStatus::Queued:
        if (t.reported == JobStatus::Scheduled || t.reported == JobStatus::Running) {
          // Evicted without a Preempted condition (quota removed, node lost): back in the queue.
          ClusterEvent& e = emit(ClusterEventKind::Preempted, job_id, t);
          e.reason = "Evicted";
          e.message = o.message;
          t.reported = JobStatus::Preempted;
        }
        requeued();
        return true;
      case JobStatus::Scheduled:
        admitted();
        return true;
      case JobStatus::Running:
        admitted();
        if (t.reported != JobStatus::Running) {
          t.started_at = clock->now();
          ClusterEvent& e = emit(ClusterEventKind::Started, job_id, t);
          e.placement = t.placement;
          t.reported = JobStatus::Running;
        }
        return true;
      case JobStatus::Preempted:
        if (t.reported != JobStatus::Preempted) {
          ClusterEvent& e = emit(ClusterEventKind::Preempted, job_id, t);
          e.reason = "Preempted";
          e.message = o.message;
          t.reported = JobStatus::Preempted;
        }
        return true;
      case JobStatus::Completed: {
        ClusterEvent& e = emit(ClusterEventKind::Succeeded, job_id, t);
        e.outputs = core::Value(core::Map{});
        e.message = o.message;
        return false;
      }
      case JobStatus::Failed:
      case JobStatus::Cancelled: {
        ClusterEvent& e = emit(ClusterEventKind::Failed, job_id, t);
        e.reason = o.reason.empty() ? "Error" : o.reason;
        e.message = o.message;
        return false;
      }
    }
    return true;
  }
};

KueueCluster::KueueCluster(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KueueCluster::~KueueCluster() = default;

core::Result<std::unique_ptr<KueueCluster>> KueueCluster::create(std::unique_ptr<Client> client,
                                                                  KueueClusterOptions options,
                                                                  const core::Clock& clock) {
  if (client == nullptr) return Error::invalid("client", "", "a Kubernetes client is required");
  auto impl = std::make_unique<Impl>();
  impl->client = std::move(client);
  impl->options = std::move(options);
  impl->clock = &clock;
  return std::unique_ptr<KueueCluster>(new KueueCluster(std::move(impl)));
}

Client& KueueCluster::client() noexcept { return *impl_->client; }

core::Status KueueCluster::submit(const backend::WorkloadRequest& request) {
  Impl& m = *impl_;
  auto it = m.runs.find(request.job.id);
  if (it != m.runs.end()) {
    if (it->second.run >= request.run) return {};  // the same run again: submit_job is idempotent anyway
    // A newer run replaces the old one: its objects go (a retry never runs beside its predecessor).
    BUDCORE_TRY(cancel_job(*m.client, it->second.rendered));
    m.runs.erase(it);
  }
  BUDCORE_TRY(m.ensure_local_queue(request.job));
  SubmitResult sr;
  BUDCORE_TRY_ASSIGN(sr, submit_job(*m.client, request.job, m.options.render, request.run));
  Tracked t;
  t.tenant = request.tenant;
  t.run = request.run;
  t.rendered = std::move(sr.rendered);
  auto [pos, inserted] = m.runs.insert_or_assign(request.job.id, std::move(t));
  (void)inserted;
  m.emit(ClusterEventKind::Queued, request.job.id, pos->second).reason = "Submitted";
  return {};
}

core::Status KueueCluster::cancel(const core::Id& job_id, std::string_view reason) {
  Impl& m = *impl_;
  auto it = m.runs.find(job_id);
  if (it == m.runs.end()) return {};  // unknown or finished: not an error
  BUDCORE_TRY(cancel_job(*m.client, it->second.rendered));
  ClusterEvent& e = m.emit(ClusterEventKind::Cancelled, job_id, it->second);
  e.reason = "Cancelled";
  e.message = std::string(reason);
  m.runs.erase(it);
  return {};
}

core::Status KueueCluster::evict(const core::Id& job_id, std::string_view) {
  if (impl_->runs.find(job_id) == impl_->runs.end())
    return Error::make(ErrorCode::NotFound, "job " + job_id.to_string() + " has no run on the cluster", "job_id");
  return Error::make(ErrorCode::Unsupported,
                     "evicting a run is not supported on Kubernetes yet: Kueue preempts by priority (raise the "
                     "priority of the job that should run instead)",
                     "job_id");
}

core::Status KueueCluster::set_priority(const core::Id& job_id, std::int32_t priority) {
  Impl& m = *impl_;
  auto it = m.runs.find(job_id);
  if (it == m.runs.end())
    return Error::make(ErrorCode::NotFound, "job " + job_id.to_string() + " has no run on the cluster", "job_id");
  std::string cls;
  for (const auto& pc : budcore_priority_classes())
    if (pc.value == priority) cls = pc.name;
  if (cls.empty())
    return Error::invalid("priority", std::to_string(priority), "no budcore WorkloadPriorityClass has this value");
  const RenderedJob& r = it->second.rendered;
  core::Value label_patch = core::Map{{"metadata", core::Map{{"labels", core::Map{{"kueue.x-k8s.io/priority-class", cls}}}}}};
  for (const auto& obj : r.objects) {
    const core::Value* kind = obj.find("kind");
    if (kind == nullptr || !kind->is_string()) continue;
    if (kind->as_string() == "Job") {
      // Kueue's job reconciler carries the class to the Workload's priority.
      auto p = m.client->patch(resources::jobs(), r.namespace_, r.name, label_patch);
      if (!p) return std::move(p).error();
    } else if (kind->as_string() == "Workload") {
      // A service's Workload is budcore's own: set its priority directly.
      core::Value wl_patch = core::Map{{"spec", core::Map{{"priority", static_cast<std::int64_t>(priority)}}}};
      auto p = m.client->patch(resources::workloads(), r.namespace_, r.name, wl_patch);
      if (!p) return std::move(p).error();
    }
  }
  return {};
}

core::Result<std::size_t> KueueCluster::poll(std::vector<ClusterEvent>& out, std::size_t max_events) {
  Impl& m = *impl_;
  if (m.ready.empty()) {
    for (auto it = m.runs.begin(); it != m.runs.end();) {
      auto live = m.observe_run(it->first, it->second);
      if (!live) return std::move(live).error();
      it = *live ? std::next(it) : m.runs.erase(it);
    }
  }
  std::size_t n = 0;
  while (n < max_events && !m.ready.empty()) {
    out.push_back(std::move(m.ready.front()));
    m.ready.pop_front();
    ++n;
  }
  return n;
}

core::Result<std::vector<backend::WorkloadInfo>> KueueCluster::list() {
  std::vector<backend::WorkloadInfo> out;
  for (const auto& [id, t] : impl_->runs) {
    backend::WorkloadInfo w;
    w.tenant = t.tenant;
    w.job_id = id;
    w.run = t.run;
    w.phase = phase_of(t.reported);
    if (w.phase != backend::WorkloadInfo::Phase::Queued) w.placement = t.placement;
    w.started_at = t.started_at;
    w.message = t.message;
    out.push_back(std::move(w));
  }
  out.insert(out.end(), impl_->unclaimed.begin(), impl_->unclaimed.end());
  return out;
}

core::Status KueueCluster::adopt(std::span<const backend::AdoptedRun> runs) {
  Impl& m = *impl_;
  for (const auto& a : runs) {
    const job::Job& j = a.request.job;
    RenderedJob rendered;
    BUDCORE_TRY_ASSIGN(rendered, render_job(j, m.options.render, a.request.run));
    JobObjects objs;
    BUDCORE_TRY_ASSIGN(objs, fetch_job_objects(*m.client, rendered));
    Tracked t;
    t.tenant = a.request.tenant;
    t.run = a.request.run;
    if (!objs.job_object && !objs.workload) {
      // Gone while the platform was down (or never arrived): the run starts again in the queue.
      SubmitResult sr;
      BUDCORE_TRY_ASSIGN(sr, submit_job(*m.client, j, m.options.render, a.request.run));
      t.rendered = std::move(sr.rendered);
      auto [pos, inserted] = m.runs.insert_or_assign(j.id, std::move(t));
      (void)inserted;
      const std::string why = "the run's objects were missing when the platform reopened; submitted again";
      if (a.phase != backend::AdoptedRun::Phase::Queued) {  // it lost the admission it had
        ClusterEvent& p = m.emit(ClusterEventKind::Preempted, j.id, pos->second);
        p.reason = "Lost";
        p.message = why;
      }
      ClusterEvent& q = m.emit(ClusterEventKind::Queued, j.id, pos->second);
      q.reason = "Resubmitted";
      q.message = why;
      continue;
    }
    t.rendered = std::move(rendered);
    t.reported = a.phase == backend::AdoptedRun::Phase::Running    ? JobStatus::Running
                 : a.phase == backend::AdoptedRun::Phase::Admitted ? JobStatus::Scheduled
                                                                    : JobStatus::Queued;
    t.placement = a.placement;
    t.started_at = a.started_at;
    m.runs.insert_or_assign(j.id, std::move(t));
  }
  return {};
}

core::Status KueueCluster::adoption_complete() {
  Impl& m = *impl_;
  m.unclaimed.clear();
  std::vector<ClusterJob> found;
  BUDCORE_TRY_ASSIGN(found, list_budcore_jobs(*m.client));
  for (const auto& cj : found) {
    auto it = m.runs.find(cj.job_id);
    if (it != m.runs.end() && it->second.run == cj.run) continue;
    if (it != m.runs.end() && cj.run < it->second.run) continue;  // an older run's leftovers
    backend::WorkloadInfo w;
    w.job_id = cj.job_id;
    w.run = cj.run;
    if (auto tenant = core::Id::parse(cj.tenant)) w.tenant = *tenant;
    w.message = cj.kind + " " + cj.namespace_ + "/" + cj.name + ": no platform record claims it";
    w.adopted = false;
    m.unclaimed.push_back(std::move(w));
  }
  return {};
}

}  // namespace budcore::kubernetes
