// KueueCluster: the ClusterBackend over Kubernetes + Kueue (see cluster.hpp for the contract).
#include "budcore/kubernetes/cluster.hpp"
#include "budcore/kubernetes/kueue.hpp"

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
  std::optional<core::Timestamp> started_at;  // when the run was seen running
  std::string message;
  std::optional<quota::PodSet> pod_set;  // what the run asks for (metered usage)
  std::optional<std::string> evicting;   // evict() deactivated its Workload, for this reason
};

bool condition_true(const core::Value* object, std::string_view type) {
  if (object == nullptr) return false;
  auto c = find_condition(*object, type);
  return c && c->status == "True";
}

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

struct BUDCORE_HIDDEN KueueCluster::Impl {
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

  // The run's usage from `start` (else when it was seen running) to `end`, when it ran.
  void emit_usage(const core::Id& job_id, const Tracked& t, std::optional<core::Timestamp> start, core::Timestamp end) {
    if (!start) start = t.started_at;
    if (!start || !(*start < end) || !t.pod_set) return;
    ClusterEvent& e = emit(ClusterEventKind::Usage, job_id, t);
    e.at = end;
    e.usage = backend::usage_of_run(*t.pod_set, t.placement ? &*t.placement : nullptr,
                                    options.render.layout.gpu_type_label, *start, end);
  }
  // Kueue's way to evict one workload: spec.active=false (it is evicted and its Job suspended);
  // true again requeues it.
  core::Status set_active(const Tracked& t, const core::Value& workload, bool active) {
    const core::Value* name = workload.find_path("metadata.name");
    if (name == nullptr || !name->is_string())
      return Error::make(ErrorCode::Internal, "the run's Workload has no name", "metadata.name");
    core::Value patch = core::Map{{"spec", core::Map{{"active", active}}}};
    auto p = client->patch(resources::workloads(), t.rendered.namespace_, name->as_string(), patch);
    if (!p) {
      Error e = std::move(p).error();
      e.message = std::string(active ? "reactivating" : "deactivating") + " Workload " + t.rendered.namespace_ + "/" +
                  name->as_string() + " failed: " + e.message;
      return e;
    }
    return {};
  }

  // A run seen running leaves the node (preempted, lost, cancelled): its segment until now.
  void end_segment(const core::Id& job_id, Tracked& t) {
    if (t.reported == JobStatus::Running) emit_usage(job_id, t, std::nullopt, clock->now());
    t.started_at.reset();
  }

  // What changed for one run since it was last reported; false when the run ended (untrack it).
  core::Result<bool> observe_run(const core::Id& job_id, Tracked& t) {
    JobObjects objs;
    BUDCORE_TRY_ASSIGN(objs, fetch_job_objects(*client, t.rendered));
    if (!objs.job_object && !objs.workload) {
      end_segment(job_id, t);
      ClusterEvent& e = emit(ClusterEventKind::Failed, job_id, t);
      e.reason = "Lost";
      e.message = "the run's objects (" + t.rendered.namespace_ + "/" + t.rendered.name +
                  ") were deleted outside budcore";
      return false;
    }
    if (t.evicting && objs.workload) {
      const core::Value* job_object = objs.job_object ? &*objs.job_object : nullptr;
      const bool ended = condition_true(job_object, "Complete") || condition_true(job_object, "Failed");
      if (!ended) {
        // Deactivated by evict(): not a failure. Once Kueue has released the quota, the run
        // is preempted; reactivating the Workload puts it back in its queue.
        if (condition_true(&*objs.workload, "QuotaReserved")) return true;
        BUDCORE_TRY(set_active(t, *objs.workload, true));
        end_segment(job_id, t);
        ClusterEvent& e = emit(ClusterEventKind::Preempted, job_id, t);
        e.reason = "Evicted";
        e.message = t.evicting->empty() ? "evicted by an administrator" : *t.evicting;
        t.evicting.reset();
        emit(ClusterEventKind::Queued, job_id, t).reason = "Requeued";
        t.reported = JobStatus::Queued;
        t.placement.reset();
        return true;
      }
      t.evicting.reset();  // it ended meanwhile: report that
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
          end_segment(job_id, t);
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
          end_segment(job_id, t);
          ClusterEvent& e = emit(ClusterEventKind::Preempted, job_id, t);
          e.reason = "Preempted";
          e.message = o.message;
          t.reported = JobStatus::Preempted;
        }
        return true;
      case JobStatus::Completed: {
        emit_usage(job_id, t, o.started_at, o.finished_at.value_or(clock->now()));
        ClusterEvent& e = emit(ClusterEventKind::Succeeded, job_id, t);
        e.outputs = core::Value(core::Map{});
        e.message = o.message;
        return false;
      }
      case JobStatus::Failed:
      case JobStatus::Cancelled: {
        emit_usage(job_id, t, o.started_at, o.finished_at.value_or(clock->now()));
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
  // On a MultiKueue manager, Jobs of the dispatching ClusterQueues need spec.managedBy. A
  // client that may not list Kueue's objects keeps the configured queues: such a Job is then
  // refused by Kueue with a message budcore reports.
  if (auto mk = multikueue_cluster_queues(*client); mk) options.render.multikueue_cluster_queues.merge(*mk);
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
  if (!request.workload.pod_sets.empty()) t.pod_set = request.workload.pod_sets.front();
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
  m.end_segment(job_id, it->second);
  ClusterEvent& e = m.emit(ClusterEventKind::Cancelled, job_id, it->second);
  e.reason = "Cancelled";
  e.message = std::string(reason);
  m.runs.erase(it);
  return {};
}

core::Status KueueCluster::evict(const core::Id& job_id, std::string_view reason) {
  Impl& m = *impl_;
  auto it = m.runs.find(job_id);
  if (it == m.runs.end())
    return Error::make(ErrorCode::NotFound, "job " + job_id.to_string() + " has no run on the cluster", "job_id");
  Tracked& t = it->second;
  if (t.evicting) return {};
  if (t.reported != JobStatus::Scheduled && t.reported != JobStatus::Running)
    return Error::make(ErrorCode::Conflict, "job " + job_id.to_string() + " is queued, not admitted: nothing to preempt",
                       "status");
  JobObjects objs;
  BUDCORE_TRY_ASSIGN(objs, fetch_job_objects(*m.client, t.rendered));
  if (!objs.workload)
    return Error::make(ErrorCode::Conflict, "job " + job_id.to_string() + " has no Workload on the cluster to evict",
                       "job_id");
  BUDCORE_TRY(m.set_active(t, *objs.workload, false));
  t.evicting = std::string(reason);
  return {};
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
    if (!a.request.workload.pod_sets.empty()) t.pod_set = a.request.workload.pod_sets.front();
    if (!objs.job_object && !objs.workload) {
      // Gone while the platform was down (or never arrived): the run starts again in the queue,
      // its tenant's LocalQueue made sure of as by a submit (this process has not seen it yet).
      BUDCORE_TRY(m.ensure_local_queue(j));
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
