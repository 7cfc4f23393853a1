// quota/engine_json.hpp: a workload goes through the scenario parser (the one `budcore quota
// simulate` uses) so defaults and error paths are the contract's.
#include "budcore/quota/engine_json.hpp"

#include "budcore/core/json.hpp"
#include "budcore/quota/scenario.hpp"

namespace budcore::quota {

using core::Value;

core::Result<Workload> parse_workload(std::string_view json, const QuotaConfig& config) {
  BUDCORE_TRY_ASSIGN(Value workload, core::parse_json(json));
  core::List classes;
  for (const auto& pc : config.priority_classes)
    classes.push_back(Value::map({{"name", pc.name}, {"value", static_cast<std::int64_t>(pc.value)}}));
  Value doc = Value::map({{"priority_classes", Value(std::move(classes))}, {"workloads", Value(core::List{workload})}});
  auto s = parse_scenario(core::to_json(doc));
  if (!s) {
    core::Error e = std::move(s).error();
    static constexpr std::string_view kPrefix = "workloads[0]";
    if (e.field.rfind(kPrefix, 0) == 0) e.field = "workload" + e.field.substr(kPrefix.size());
    return e;
  }
  if (s->workloads.size() != 1) return core::Error::invalid("workload", "", "must be one workload object");
  return std::move(s->workloads.front());
}

core::Value to_value(const Admission& a) {
  core::Map flavors, count;
  for (const auto& [pod_set, resources] : a.flavors) {
    core::Map r;
    for (const auto& [resource, flavor] : resources) r.set(resource, flavor);
    flavors.set(pod_set, Value(std::move(r)));
  }
  for (const auto& [pod_set, n] : a.count) count.set(pod_set, static_cast<std::int64_t>(n));
  return Value::map({{"cluster_queue", a.cluster_queue}, {"flavors", Value(std::move(flavors))}, {"count", Value(std::move(count))}});
}

core::Value to_value(const WorkloadStatus& s) {
  const char* state = s.state == WorkloadState::Pending ? "pending" : s.state == WorkloadState::Admitted ? "admitted" : "evicting";
  return Value::map({{"key", s.key},
                     {"state", std::string(state)},
                     {"admission", s.admission ? to_value(*s.admission) : Value()},
                     {"borrowing", s.borrowing},
                     {"admitted_by_engine", s.admitted_by_engine},
                     {"preempted", s.preempted},
                     {"pending_reason", s.pending_reason.empty() ? Value() : Value(s.pending_reason)}});
}

core::Value to_value(const CycleReport& r) {
  return Value::map({{"admitted", Value(core::List(r.admitted.begin(), r.admitted.end()))},
                     {"preempted", Value(core::List(r.preempted.begin(), r.preempted.end()))},
                     {"released", Value(core::List(r.released.begin(), r.released.end()))},
                     {"changed", r.changed}});
}

}  // namespace budcore::quota
