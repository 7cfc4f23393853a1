// Workload + Job conditions -> budcore JobStatus (see status.hpp for the table).
#include "budcore/kubernetes/status.hpp"

namespace budcore::kubernetes {
namespace {

using core::Value;
using job::JobStatus;

std::string str(const Value* v, std::string_view key) {
  if (v == nullptr || !v->is_map()) return {};
  const Value* f = v->find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string();
}

std::int64_t integer(const Value* v, std::string_view path) {
  const Value* f = v != nullptr ? v->find_path(path) : nullptr;
  return f != nullptr && f->is_int() ? f->as_int() : 0;
}

bool is_true(const std::optional<Condition>& c) { return c && c->status == "True"; }

std::string reason_message(const Condition& c) {
  if (c.reason.empty()) return c.message;
  if (c.message.empty()) return c.reason;
  return c.reason + ": " + c.message;
}

// " on worker cluster X" when MultiKueue dispatched the workload (status.clusterName).
std::string worker_suffix(const Value& workload) {
  std::string cluster = str(workload.find("status"), "clusterName");
  return cluster.empty() ? std::string() : " on worker cluster " + cluster;
}

// The admission checks not yet Ready, as "name (State: message)"; MultiKueue's also names the
// worker clusters it nominated.
std::string pending_checks(const Value& workload) {
  const Value* checks = workload.find_path("status.admissionChecks");
  if (checks == nullptr || !checks->is_list()) return {};
  std::string nominated;
  if (const Value* n = workload.find_path("status.nominatedClusterNames"); n != nullptr && n->is_list())
    for (const Value& c : n->as_list())
      if (c.is_string()) nominated += (nominated.empty() ? "" : ", ") + c.as_string();
  std::string out;
  for (const Value& c : checks->as_list()) {
    std::string state = str(&c, "state");
    if (state == "Ready") continue;
    std::string detail = state;
    if (!str(&c, "message").empty()) detail += ": " + str(&c, "message");
    else if (!nominated.empty()) detail += ": dispatched to " + nominated;
    out += (out.empty() ? "" : "; ") + str(&c, "name") + " (" + detail + ")";
  }
  return out;
}

}  // namespace

std::optional<Condition> find_condition(const Value& object, std::string_view type) {
  const Value* conds = object.find_path("status.conditions");
  if (conds == nullptr || !conds->is_list()) return std::nullopt;
  for (const Value& c : conds->as_list()) {
    if (str(&c, "type") != type) continue;
    return Condition{str(&c, "type"), str(&c, "status"), str(&c, "reason"), str(&c, "message"), str(&c, "lastTransitionTime")};
  }
  return std::nullopt;
}

ObservedJob observe_job(const Value* job_object, const Value* workload) {
  ObservedJob out;
  if (workload != nullptr) {
    if (const Value* adm = workload->find_path("status.admission"); adm != nullptr && adm->is_map()) {
      out.cluster_queue = str(adm, "clusterQueue");
      if (const Value* psa = adm->find("podSetAssignments"); psa != nullptr && psa->is_list() && psa->size() > 0)
        if (const Value* fl = psa->as_list()[0].find("flavors"); fl != nullptr && fl->is_map())
          for (const auto& [res, flavor] : fl->as_map())
            if (flavor.is_string()) out.flavors[res] = flavor.as_string();
    }
  }
  const bool is_batch = job_object != nullptr && str(job_object, "kind") == "Job";
  auto time_of = [](const std::string& text) -> std::optional<core::Timestamp> {
    if (text.empty()) return std::nullopt;
    auto t = core::Timestamp::parse(text);
    return t ? std::optional(*t) : std::nullopt;
  };
  // 1. The run's outcome, from the Job itself.
  if (is_batch) {
    const Value* status = job_object->find("status");
    out.started_at = time_of(str(status, "startTime"));
    out.finished_at = time_of(str(status, "completionTime"));
    if (auto c = find_condition(*job_object, "Complete"); is_true(c)) {
      out.status = JobStatus::Completed;
      out.reason = c->reason.empty() ? "Complete" : c->reason;
      out.message = c->message.empty() ? "the Job completed" : c->message;
      return out;
    }
    if (auto c = find_condition(*job_object, "Failed"); is_true(c)) {
      if (!out.finished_at) out.finished_at = time_of(c->last_transition_time);
      out.status = JobStatus::Failed;
      out.reason = c->reason;
      out.message = "the Job failed: " + reason_message(*c);
      return out;
    }
  }
  if (workload == nullptr) {
    out.status = job_object != nullptr ? JobStatus::Queued : JobStatus::Pending;
    out.message = job_object != nullptr ? "waiting for Kueue to create the Workload" : "no objects in the cluster";
    return out;
  }
  // 2. Kueue's view.
  if (auto fin = find_condition(*workload, "Finished"); is_true(fin)) {
    out.reason = fin->reason;
    if (fin->reason == "Succeeded") {
      out.status = JobStatus::Completed;
      out.message = fin->message.empty() ? "the workload finished" : fin->message;
    } else {
      out.status = JobStatus::Failed;
      out.message = "Kueue finished the workload: " + reason_message(*fin);
    }
    return out;
  }
  auto reserved = find_condition(*workload, "QuotaReserved");
  auto admitted = find_condition(*workload, "Admitted");
  auto evicted = find_condition(*workload, "Evicted");
  auto requeued = find_condition(*workload, "Requeued");
  out.requeued = is_true(requeued);
  if (const Value* active = workload->find_path("spec.active"); active != nullptr && active->is_bool() && !active->as_bool()) {
    out.status = JobStatus::Failed;
    out.reason = evicted ? evicted->reason : "Deactivated";
    out.message = "Kueue deactivated the workload" + (evicted ? ": " + reason_message(*evicted) : std::string());
    return out;
  }
  if (is_true(evicted) && !is_true(reserved)) {
    if (auto pre = find_condition(*workload, "Preempted"); evicted->reason == "Preempted" || is_true(pre)) {
      out.status = JobStatus::Preempted;
      out.reason = "Preempted";
      out.preemption_reason = pre ? pre->reason : std::string();
      out.message = evicted->message.empty() ? "preempted" : evicted->message;
      if (!out.preemption_reason.empty()) out.message += " (" + out.preemption_reason + ")";
      return out;
    }
    out.status = JobStatus::Queued;
    out.reason = evicted->reason;
    out.message = "evicted and back in the queue: " + reason_message(*evicted);
    return out;
  }
  if (is_true(reserved) && is_true(admitted)) {
    out.reason = "Admitted";
    std::string by = (out.cluster_queue.empty() ? std::string() : " by ClusterQueue " + out.cluster_queue) + worker_suffix(*workload);
    bool running = false;
    bool suspended = false;
    if (job_object != nullptr) {
      if (is_batch) {
        const Value* s = job_object->find_path("spec.suspend");
        suspended = s != nullptr && s->is_bool() && s->as_bool();
        running = !suspended && (integer(job_object, "status.active") > 0 || integer(job_object, "status.ready") > 0 ||
                                 !str(job_object->find("status"), "startTime").empty());
      } else {
        running = integer(job_object, "status.availableReplicas") > 0;
      }
    }
    out.status = running ? JobStatus::Running : JobStatus::Scheduled;
    out.message = running ? "running; admitted" + by
                          : (suspended ? "admitted" + by + "; waiting for the Job to be unsuspended" : "admitted" + by + "; starting");
    return out;
  }
  out.status = JobStatus::Queued;
  if (is_true(reserved)) {
    out.reason = "QuotaReserved";
    out.message = "quota reserved" + (out.cluster_queue.empty() ? std::string() : " in ClusterQueue " + out.cluster_queue) +
                  "; waiting for admission checks";
    if (std::string checks = pending_checks(*workload); !checks.empty()) out.message += ": " + checks;
  } else if (reserved) {
    out.reason = reserved->reason;
    out.message = reserved->message.empty() ? "waiting for quota" : reserved->message;
  } else {
    out.reason = "Created";
    out.message = "queued; Kueue has not evaluated the workload yet";
  }
  return out;
}

}  // namespace budcore::kubernetes
