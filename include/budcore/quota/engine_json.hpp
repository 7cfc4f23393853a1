// JSON of the admission engine's inputs and outputs, in docs/cli.md contract 2's shapes: the
// C ABI's engine handle and the Python AdmissionEngine read and write these, so they agree
// with `budcore quota simulate` on defaults, field paths and output.
#pragma once

#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/quota/admission.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/scenario.hpp"
#include "budcore/quota/workload.hpp"

namespace budcore::quota {

// One workload of a scenario's "workloads" list (JSON text); its priority_class resolves
// against config's priority classes. Errors name "workload.pod_sets[0].count".
BUDCORE_API core::Result<Workload> parse_workload(std::string_view json, const QuotaConfig& config);

// {"cluster_queue", "flavors": {pod set: {resource: flavor}}, "count": {pod set: n}}
BUDCORE_API core::Value to_value(const Admission& admission);
// {"key", "state": "pending"|"admitted"|"evicting", "admission", "borrowing",
//  "admitted_by_engine", "preempted", "pending_reason"} (null admission / reason when absent)
BUDCORE_API core::Value to_value(const WorkloadStatus& status);
// {"admitted": [keys], "preempted": [...], "released": [...], "changed"}
BUDCORE_API core::Value to_value(const CycleReport& report);
// The contract-2 output: {"admitted", "preempted", "pending", "usage", "cycles_run"}
// (quota::to_json writes it as text).
BUDCORE_API core::Value to_value(const SimulationResult& result);

}  // namespace budcore::quota
