// Estimated start and end of pending Workloads (companion/estimates.hpp): the live Kueue
// objects turned into a schedule::Timeline input, simulated, and read back per Workload.
#include "budcore/companion/estimates.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <map>
#include <set>

#include "budcore/kubernetes/status.hpp"
#include "budcore/schedule/timeline.hpp"
#include "companion/companion_impl.hpp"

namespace budcore::companion {
namespace {

using core::Error;
using core::Value;

constexpr std::size_t kMaxReasonChars = 1024;

std::optional<core::Timestamp> condition_time(const Value& wl, std::string_view type) {
  auto c = kubernetes::find_condition(wl, type);
  if (!c || c->status != "True") return std::nullopt;
  auto t = core::Timestamp::parse(c->last_transition_time);
  return t ? std::optional<core::Timestamp>(*t) : std::nullopt;
}

// Kubernetes tolerations as the flavor matcher reads them: operator Exists is an empty value.
std::vector<quota::Taint> tolerations_of(const Value* list) {
  std::vector<quota::Taint> out;
  if (list == nullptr || !list->is_list()) return out;
  for (const auto& t : list->as_list()) {
    quota::Taint x{str(t.find("key")), str(t.find("value")), str(t.find("effect"))};
    if (str(t.find("operator")) == "Exists") x.value.clear();
    out.push_back(std::move(x));
  }
  return out;
}

std::map<std::string, std::string> node_selector_of(const Value* m) {
  std::map<std::string, std::string> out;
  if (m == nullptr || !m->is_map()) return out;
  for (const auto& [k, v] : m->as_map())
    if (v.is_string()) out[k] = v.as_string();
  return out;
}

// The quota workload of a Workload: its pod sets' per-pod requests, queue and priority.
core::Result<quota::Workload> quota_workload(const Value& wl, const WorkloadFacts& f, std::int64_t seq) {
  quota::Workload q;
  q.name = f.name;
  q.namespace_ = f.namespace_.empty() ? "default" : f.namespace_;
  q.queue = str(wl.find_path("spec.queueName"));
  if (const Value* p = wl.find_path("spec.priority"); p != nullptr && p->is_int())
    q.priority = static_cast<std::int32_t>(std::clamp<std::int64_t>(p->as_int(), INT32_MIN, INT32_MAX));
  q.creation_seq = seq;
  const Value* specs = wl.find_path("spec.podSets");
  for (std::size_t i = 0; i < f.pod_sets.size(); ++i) {
    const PodSetFacts& p = f.pod_sets[i];
    const Value* spec = specs != nullptr && specs->is_list() && i < specs->size() ? &specs->as_list()[i] : nullptr;
    std::string path = "spec.podSets[" + std::to_string(i) + "]";
    quota::PodSet ps;
    ps.name = p.name.empty() ? "main" : p.name;
    ps.count = static_cast<std::int32_t>(std::clamp<std::int64_t>(p.count, 0, INT32_MAX));
    for (const auto& [res, qty] : p.requests)
      if (auto st = ps.requests.set(res, qty); !st) return std::move(std::move(st).error().at(path + ".requests"));
    if (spec != nullptr) {
      if (const Value* m = spec->find("minCount"); m != nullptr && m->is_int())
        ps.min_count = static_cast<std::int32_t>(std::clamp<std::int64_t>(m->as_int(), 0, INT32_MAX));
      ps.node_selector = node_selector_of(spec->find_path("template.spec.nodeSelector"));
      ps.tolerations = tolerations_of(spec->find_path("template.spec.tolerations"));
    }
    q.pod_sets.push_back(std::move(ps));
  }
  return q;
}

// The admission a Workload holding quota shows (status.admission), as the engine charges it.
quota::Admission admission_of(const WorkloadFacts& f) {
  quota::Admission a;
  a.cluster_queue = f.cluster_queue;
  for (const auto& p : f.pod_sets) {
    std::string name = p.name.empty() ? "main" : p.name;
    a.flavors[name] = p.flavors;
    a.count[name] = static_cast<std::int32_t>(std::clamp<std::int64_t>(p.count, 0, INT32_MAX));
  }
  return a;
}

// Why an admission cannot be charged against `quota` (a queue or flavor deleted since): "" if it can.
std::string unknown_in(const quota::QuotaConfig& quota, const quota::Admission& a) {
  auto cq = std::find_if(quota.cluster_queues.begin(), quota.cluster_queues.end(),
                         [&](const quota::ClusterQueue& q) { return q.name == a.cluster_queue; });
  if (cq == quota.cluster_queues.end()) return "ClusterQueue " + a.cluster_queue + " is unknown";
  for (const auto& ps : a.flavors)
    for (const auto& assigned : ps.second) {
      const std::string& flavor = assigned.second;
      bool known = std::any_of(quota.resource_flavors.begin(), quota.resource_flavors.end(),
                               [&](const quota::ResourceFlavor& f) { return f.name == flavor; });
      if (!known) return "ResourceFlavor " + flavor + " is unknown";
    }
  return "";
}

std::string cluster_queue_of(const quota::QuotaConfig& quota, const std::string& ns, const std::string& queue) {
  for (const auto& lq : quota.local_queues)
    if (lq.namespace_ == ns && lq.name == queue) return lq.cluster_queue;
  return "";
}

// The time Kueue orders a pending Workload by (its GetQueueOrderTimestamp): the last eviction
// for one evicted by an admission check or by the PodsReady timeout (the default requeuing
// timestamp, Eviction), else its creation. Evicted by preemption it keeps its place.
core::Timestamp queue_order_time(const Value& wl) {
  auto evicted = kubernetes::find_condition(wl, "Evicted");
  if (evicted && evicted->status == "True" && (evicted->reason == "AdmissionCheck" || evicted->reason == "PodsReadyTimeout"))
    if (auto t = core::Timestamp::parse(evicted->last_transition_time)) return *t;
  auto created = core::Timestamp::parse(str(wl.find_path("metadata.creationTimestamp")));
  return created ? *created : core::Timestamp{};
}

// Workload indices in Kueue's FIFO order: queue_order_time, then namespace/name for equal times.
std::vector<std::size_t> queue_order(const std::vector<Value>& workloads) {
  std::vector<std::pair<core::Timestamp, std::string>> keys;
  for (const auto& wl : workloads) {
    keys.emplace_back(queue_order_time(wl),
                      str(wl.find_path("metadata.namespace")) + "/" + str(wl.find_path("metadata.name")));
  }
  std::vector<std::size_t> order(workloads.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  return order;
}

// A pending Workload on the timeline and what its estimate needs.
struct Pending {
  std::size_t index;  // into the result's estimates
  std::string key;    // namespace/name
  std::string name;
  std::string duration_unknown;  // why its end cannot be estimated ("" when it can)
};

std::string clipped(std::string s) {
  if (s.size() > kMaxReasonChars) s.resize(kMaxReasonChars);
  return s;
}

core::Timestamp whole_seconds(core::Timestamp t) { return core::Timestamp::from_unix_seconds(t.unix_seconds()); }

// A Workload that cannot be read (a quantity out of range, no pod set) is not estimated and
// says why, if it is pending in a queue; the others are estimated without it.
void left_out(EstimatesResult& out, const Value& wl, const core::Error& why) {
  const std::string ns = str(wl.find_path("metadata.namespace")), name = str(wl.find_path("metadata.name"));
  out.warnings.push_back(ns + "/" + name + ": " + why.describe() + "; left out");
  auto reserved = kubernetes::find_condition(wl, "QuotaReserved");
  if ((reserved && reserved->status == "True") || str(wl.find_path("spec.queueName")).empty()) return;
  if (name.empty() || str(wl.find_path("metadata.uid")).empty()) return;  // nothing to patch
  out.estimates.push_back(WorkloadEstimate{ns, name, str(wl.find_path("metadata.uid")), std::nullopt, std::nullopt,
                                           clipped("cannot be estimated: " + why.describe())});
}

// Why a pending Workload never runs. One that waits behind a Workload of another namespace is
// not told that Workload's name (the reader may not see that namespace), only that it is there.
// The timeline calls a job by its name, or namespace/name when names repeat.
std::string never_reason(const schedule::TimelineResult& r, const Pending& p, const std::string& ns,
                         const std::map<std::string, std::set<std::string>>& namespaces) {
  for (const auto& n : {p.name, p.key}) {
    auto it = r.never.find(n);
    if (it == r.never.end()) continue;
    auto blocker = r.blocked_behind.find(n);
    if (blocker == r.blocked_behind.end()) return it->second;
    auto head = namespaces.find(blocker->second.head);
    if (head != namespaces.end() && head->second == std::set<std::string>{ns}) return it->second;
    return "blocked behind a Workload of another namespace in StrictFIFO ClusterQueue " + blocker->second.cluster_queue +
           " (it can never be admitted)";
  }
  return "not admitted before the horizon";
}

}  // namespace

core::Result<EstimatesResult> estimate_workloads(const CompanionConfig& config, const quota::QuotaConfig& quota,
                                                 const std::vector<Value>& workloads, core::Timestamp now,
                                                 const OwnerAnnotations& owner_annotations) {
  EstimatesResult out;
  schedule::TimelineInput in;
  in.config = quota;
  in.now = now;
  std::vector<Pending> pending;
  std::map<std::string, std::set<std::string>> namespaces;  // a pending Workload's timeline name -> its namespaces
  std::int64_t seq = 0;
  for (std::size_t i : queue_order(workloads)) {
    const Value& wl = workloads[i];
    auto owner = owner_annotations.find(str(wl.find_path("metadata.uid")));
    auto facts = owner != owner_annotations.end() ? read_workload(wl, owner->second) : read_workload(wl);
    if (!facts) {
      left_out(out, wl, facts.error());
      continue;
    }
    WorkloadFacts f = std::move(*facts);
    if (f.finished) continue;
    const std::string key = f.namespace_ + "/" + f.name;
    auto qw = quota_workload(wl, f, seq++);
    if (qw) {
      if (auto st = quota::check_pod_sets(*qw); !st) qw = std::move(st).error();
    }
    if (!qw) {
      left_out(out, wl, qw.error());
      continue;
    }
    schedule::JobInput j;
    j.workload = std::move(*qw);
    if (!f.quota_reserved) f.cluster_queue = cluster_queue_of(quota, j.workload.namespace_, j.workload.queue);
    // Without a duration the Workload is taken to run until the horizon: whatever waits
    // behind it is then said to wait that long, rather than estimated too early.
    auto d = expected_duration(config, f);
    j.duration = d ? d->duration : in.horizon;
    std::string unknown = d ? "" : d.error().message;
    if (f.quota_reserved) {
      j.workload.admitted = admission_of(f);
      if (auto why = unknown_in(quota, *j.workload.admitted); !why.empty()) {
        out.warnings.push_back(key + ": holds quota but " + why + "; left out");
        continue;
      }
      auto since = condition_time(wl, "QuotaReserved");
      j.started_at = std::min(since.value_or(now), now);
      if (!unknown.empty()) out.warnings.push_back(key + ": " + unknown + "; assumed to run until the horizon");
      in.jobs.push_back(std::move(j));
      continue;
    }
    if (j.workload.queue.empty()) continue;  // in no queue: Kueue does not schedule it
    WorkloadEstimate e{f.namespace_, f.name, f.uid, std::nullopt, std::nullopt, ""};
    const Value* active = wl.find_path("spec.active");
    if (active != nullptr && active->is_bool() && !active->as_bool()) {
      // Held by this companion: queued again when the hold ends. Otherwise out of the queue.
      auto held = f.annotations.find(std::string(kHeldUntilAnnotation));
      auto until = core::Timestamp::parse(held != f.annotations.end() ? held->second : "");
      if (!until) {
        e.reason = "deactivated (spec.active is false): Kueue does not queue it";
        out.estimates.push_back(std::move(e));
        continue;
      }
      j.submit_at = std::max(*until, now);
    }
    pending.push_back(Pending{out.estimates.size(), key, f.name, unknown});
    namespaces[f.name].insert(f.namespace_);
    namespaces[key].insert(f.namespace_);
    out.estimates.push_back(std::move(e));
    in.jobs.push_back(std::move(j));
  }
  auto timeline = schedule::Timeline::create(std::move(in));
  if (!timeline) return std::move(timeline).error();
  const schedule::TimelineResult& r = timeline->result();
  for (const Pending& p : pending) {
    WorkloadEstimate& e = out.estimates[p.index];
    const schedule::JobEstimate* j = timeline->find(p.key);
    if (j == nullptr) {
      e.reason = clipped(never_reason(r, p, e.namespace_, namespaces));
      continue;
    }
    e.start = whole_seconds(j->start);
    if (p.duration_unknown.empty()) e.end = whole_seconds(j->end);
    else e.reason = clipped(p.duration_unknown);
  }
  for (const auto& j : r.jobs)
    for (core::Timestamp t : {j.start, j.end})
      if (t > now && (!out.valid_until || t < *out.valid_until)) out.valid_until = t;
  return out;
}

core::Duration estimate_tolerance(const WorkloadEstimate& estimate, core::Timestamp now) {
  const core::Duration floor = core::Duration::seconds(1);
  if (!estimate.start || *estimate.start <= now) return floor;
  const std::int64_t lead_seconds = (*estimate.start - now).count_ns() / 1'000'000'000;
  return std::max(floor, core::Duration::seconds(lead_seconds / 20));
}

std::optional<Value> estimate_patch(const Value& workload, const WorkloadEstimate& estimate, core::Timestamp now) {
  std::map<std::string, std::optional<std::string>> want{
      {std::string(kEstimatedStartAnnotation), estimate.start ? std::optional(estimate.start->to_string()) : std::nullopt},
      {std::string(kEstimatedEndAnnotation), estimate.end ? std::optional(estimate.end->to_string()) : std::nullopt},
      {std::string(kEstimateReasonAnnotation), estimate.reason.empty() ? std::nullopt : std::optional(estimate.reason)}};
  const core::Duration tolerance = estimate_tolerance(estimate, now);
  // A time shown close enough to the one wanted stays (the reason is compared exactly).
  auto close_enough = [&](const std::string& key, const std::string& shown, const std::string& wanted) {
    if (key == kEstimateReasonAnnotation) return false;
    auto a = core::Timestamp::parse(shown), b = core::Timestamp::parse(wanted);
    if (!a || !b) return false;
    core::Duration d = *a > *b ? *a - *b : *b - *a;
    return d <= tolerance;
  };
  const Value* have = workload.find_path("metadata.annotations");
  core::Map changes;
  for (const auto& [k, v] : want) {
    const Value* cur = have != nullptr && have->is_map() ? have->find(k) : nullptr;
    std::optional<std::string> shown = cur != nullptr && cur->is_string() ? std::optional(cur->as_string()) : std::nullopt;
    if (shown == v || (shown && v && close_enough(k, *shown, *v))) continue;
    if (v) changes.set(k, *v);
    else changes.set(k, nullptr);
  }
  if (changes.empty()) return std::nullopt;
  return Value(core::Map{{"metadata", core::Map{{"annotations", std::move(changes)}}}});
}

}  // namespace budcore::companion
