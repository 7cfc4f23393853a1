// quota/engine_json.hpp: the engine's outputs as core::Value (parse_workload is beside the
// scenario reader in scenario.cpp, so a workload reads exactly as in `budcore quota simulate`).
#include "budcore/quota/engine_json.hpp"

#include <map>
#include <string>

#include "budcore/quota/scenario.hpp"

namespace budcore::quota {

using core::Value;

namespace {

Value string_map(const std::map<std::string, std::string>& m) {
  core::Map out;
  for (const auto& [k, v] : m) out.set(k, v);
  return Value(std::move(out));
}

// pod set (or cluster queue) -> resource -> flavor (or quantity)
Value nested_map(const std::map<std::string, std::map<std::string, std::string>>& m) {
  core::Map out;
  for (const auto& [k, v] : m) out.set(k, string_map(v));
  return Value(std::move(out));
}

}  // namespace

core::Value to_value(const Admission& a) {
  core::Map count;
  for (const auto& [pod_set, n] : a.count) count.set(pod_set, static_cast<std::int64_t>(n));
  return Value::map({{"cluster_queue", a.cluster_queue}, {"flavors", nested_map(a.flavors)}, {"count", Value(std::move(count))}});
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

core::Value to_value(const SimulationResult& r) {
  core::Map admitted;
  for (const auto& [name, a] : r.admitted) {
    core::Map e{{"cluster_queue", a.cluster_queue}, {"flavors", nested_map(a.flavors)}};
    if (!a.count.empty()) {
      core::Map count;
      for (const auto& [ps, n] : a.count) count.set(ps, static_cast<std::int64_t>(n));
      e.set("count", Value(std::move(count)));
    }
    e.set("borrowing", a.borrowing);
    admitted.set(name, Value(std::move(e)));
  }
  core::Map usage;
  for (const auto& [cq, flavors] : r.usage) usage.set(cq, nested_map(flavors));
  return Value::map({{"admitted", Value(std::move(admitted))},
                     {"preempted", Value(core::List(r.preempted.begin(), r.preempted.end()))},
                     {"pending", string_map(r.pending)},
                     {"usage", Value(std::move(usage))},
                     {"cycles_run", static_cast<std::int64_t>(r.cycles_run)}});
}

}  // namespace budcore::quota
