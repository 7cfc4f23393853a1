// The companion's metering, pure part: when a Workload ran on its admitted quota (its
// conditions), and that stretch priced into usage intervals (companion/companion.hpp).
#include "budcore/companion/companion.hpp"
#include "budcore/kubernetes/status.hpp"

namespace budcore::companion {
namespace {

using core::Error;
using core::Value;

// The instant a condition of `type` with `status` last changed, if the Workload shows it.
std::optional<core::Timestamp> condition_since(const Value& wl, std::string_view type, std::string_view status) {
  auto c = kubernetes::find_condition(wl, type);
  if (!c || c->status != status) return std::nullopt;
  auto t = core::Timestamp::parse(c->last_transition_time);
  if (!t) return std::nullopt;
  return *t;
}

// GPUs per pod of a pod set (whole devices, as Kueue counts them) and the flavor they run on.
std::pair<std::int64_t, std::string> gpus_of(const CompanionConfig& config, const PodSetFacts& p) {
  std::int64_t milli = 0;
  std::string flavor;
  for (const auto& res : config.gpu_resources) {
    auto it = p.requests.find(res);
    if (it == p.requests.end()) continue;
    milli += it->second.milli_value().value_or(0);
    if (auto f = p.flavors.find(res); f != p.flavors.end()) flavor = f->second;
  }
  return {(milli + 999) / 1000, flavor};
}

}  // namespace

AdmissionState admission_state(const Value& workload) {
  AdmissionState s;
  s.admitted_at = condition_since(workload, "Admitted", "True");
  auto finished = condition_since(workload, "Finished", "True");
  auto evicted = condition_since(workload, "Evicted", "True");
  if (s.admitted_at) {
    // An eviction older than the admission belongs to an earlier run of the Workload.
    if (finished && *finished >= *s.admitted_at) s.ended_at = finished;
    else if (evicted && *evicted >= *s.admitted_at) s.ended_at = evicted;
    return s;
  }
  // No longer admitted: the run ended when it finished, was evicted, or lost its admission.
  if (finished) s.ended_at = finished;
  else if (evicted) s.ended_at = evicted;
  else s.ended_at = condition_since(workload, "Admitted", "False");
  return s;
}

std::string segment_key(std::string_view uid, core::Timestamp admitted_at) {
  return std::string(uid) + "/" + std::to_string(admitted_at.unix_seconds());
}

core::Result<std::vector<cost::UsageInterval>> segment_intervals(const CompanionConfig& config, const WorkloadFacts& w,
                                                                 const core::Id& tenant, const std::string& key,
                                                                 core::Timestamp start, core::Timestamp end) {
  BUDCORE_TRY_ASSIGN(core::Id job, core::Id::parse_field(w.uid, "metadata.uid"));
  std::vector<cost::UsageInterval> out;
  const auto& book = config.price_book;
  for (std::size_t i = 0; i < w.pod_sets.size(); ++i) {
    const PodSetFacts& p = w.pod_sets[i];
    cost::UsageInterval u;
    u.tenant_id = tenant;
    u.job_id = job;
    u.start = start;
    u.end = end;
    u.labels = {{std::string(kSegmentLabel), key},
                {std::string(kPodSetLabel), p.name},
                {"kueue.x-k8s.io/workload", w.namespace_ + "/" + w.name},
                {"kueue.x-k8s.io/cluster-queue", w.cluster_queue}};
    auto [gpus_per_pod, flavor] = gpus_of(config, p);
    u.gpu_count = gpus_per_pod * p.count;
    if (u.gpu_count > 0) {
      if (flavor.empty())
        return Error::invalid("status.admission.podSetAssignments[" + p.name + "].flavors", "",
                              "pod set " + p.name + " has GPUs but no flavor assigned to them");
      auto t = config.flavor_gpu_types.find(flavor);
      u.gpu_type = t != config.flavor_gpu_types.end() ? t->second : flavor;
    }
    // CPU and memory only when the book prices them, as the budget check's estimate does.
    if (book.cpu_core_hour)
      if (auto it = p.requests.find("cpu"); it != p.requests.end())
        u.cpu_cores = core::Quantity::from_nano(it->second.nano() * p.count);
    if (book.memory_gib_hour)
      if (auto it = p.requests.find("memory"); it != p.requests.end())
        u.memory_gib = core::Quantity::from_nano(it->second.nano() * p.count / (core::int128{1} << 30));
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace budcore::companion
