// budcore::gpu defragmentation plans: for a pending request that no node can take (a gang of
// whole GPUs, one GPU's share, or one MIG instance of a profile), the cheapest plan that makes
// it fit: which workloads to move elsewhere, or which to wait for (by their estimated ends), or
// which MIG GPU to re-partition, with its cost in GPU-seconds of disruption. A plan is advice:
// nothing changes until apply_plan, and no plan moves a workload of higher priority than the
// request's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/gpu/inventory.hpp"

namespace budcore::gpu {

// A workload that holds part of the pool (the pool's allocations include it).
struct Holder {
  std::string name;
  Task task;             // what it holds; a MIG workload holds CPU and memory here (num_gpu 0)
  Placement placement;   // its node and GPUs
  std::vector<std::pair<int, std::size_t>> mig;  // MIG instances it holds on its node: (GPU, instance)
  std::int32_t priority = 0;
  bool movable = true;                    // false: never moved, only waited for (another tenant's run)
  double elapsed_seconds = 0;             // how long it has run: lost when it moves
  std::optional<double> ends_in_seconds;  // estimated time until it ends; absent: unknown
};

// What waits: a gang of whole GPUs or one GPU's share (task), or one instance of a MIG profile.
struct Request {
  Task task;
  std::string mig_profile;  // non-empty: one instance of this profile (task's GPUs are ignored)
  std::int32_t priority = 0;
};

enum class PlanKind : std::uint8_t {
  FitsNow,      // nothing to do
  Move,         // move `moves` off `node`
  Wait,         // wait `wait_seconds` for `wait_for` to end
  Repartition,  // re-partition MIG GPU `gpu` of `node` into `layout` (moving `moves` first)
};
BUDCORE_API std::string_view to_string(PlanKind kind) noexcept;

struct Move {
  std::string workload;
  std::size_t from_node = 0;
  Placement to;                               // its new node and GPUs
  std::vector<std::pair<int, std::size_t>> to_mig;  // a MIG workload: its new (GPU, instance)s
  double cost_gpu_seconds = 0;
};

struct Plan {
  PlanKind kind = PlanKind::FitsNow;
  Placement target;            // where the request then goes (its node; GPUs for a gang or share)
  int target_gpu = -1;         // a MIG request: the GPU and the instance it takes
  std::size_t target_instance = 0;
  std::vector<Move> moves;
  std::vector<std::string> wait_for;
  double wait_seconds = 0;
  int gpu = -1;                       // Repartition: the GPU of `target.node` re-partitioned
  std::vector<MigInstance> layout;    // Repartition: its new layout (instances kept, then the request's)
  double cost_gpu_seconds = 0;
  std::string summary;                // one line a person reads
};

struct PlanOptions {
  // Added to each moved workload's elapsed time: its restart, in seconds of its GPUs.
  double move_overhead_seconds = 60;
};

// Cost in GPU-seconds: a move costs the GPUs the workload holds (a share: gpu_milli / 1000; a
// MIG instance: compute slices / 7) x (elapsed_seconds + move_overhead_seconds); a wait costs
// the request's GPUs x the wait; a re-partition costs the moves it needs. The cheapest plan
// wins; on a tie a wait before a re-partition before a move, then the first node. Workloads of
// higher priority than the request are never moved (they may be waited for). Errors: a request
// or holder that is not valid (the field names it, "holders[2].placement.node"). No plan
// (std::nullopt): nothing short of moving higher-priority work, or waiting for a workload
// without an estimated end, makes room.
BUDCORE_API core::Result<std::optional<Plan>> plan_defrag(const Pool& pool, const std::vector<Holder>& holders,
                                                          const Request& request, const PlanOptions& options = {});

// Applies a plan to the pool and the holders (waited-for workloads end and leave `holders`,
// moved ones move, a GPU is re-partitioned) and places the request; refused, changing
// nothing, when the plan no longer fits.
BUDCORE_API core::Status apply_plan(Pool& pool, std::vector<Holder>& holders, const Request& request, const Plan& plan);

// After GPU `gpu` was re-partitioned from `before` into `after`: the instances a workload holds
// on it, (GPU, index), re-indexed into `after` (the same profile at the same start).
BUDCORE_API void remap_mig(std::vector<std::pair<int, std::size_t>>& held, int gpu, const std::vector<MigInstance>& before,
                           const std::vector<MigInstance>& after);

// {"kind", "node", "gpus", "gpu", "instance", "moves": [{"workload", "from", "to", "gpus",
// "mig", "cost_gpu_seconds"}], "wait_for", "wait_seconds", "repartition": {"gpu", "layout"},
// "cost_gpu_seconds", "summary"}; node names from the pool.
BUDCORE_API core::Value to_value(const Plan& plan, const Pool& pool);

// A planning problem as one JSON document (docs/gpu.md "Defragmentation plans"):
//   {"nodes": [{"name", "model", "cpu_milli", "memory_mib", "gpus": N,
//               "sharing": "whole" | "fractional" | "time_slice", "replicas",
//               "mig": [["1g.5gb@0", ...], ...]  (one layout per GPU; the GPUs are MIG)}],
//    "workloads": [{"name", "node", "gpus": [0, 1], "gpu_milli": 1000, "cpu_milli", "memory_mib",
//                   "mig": [[gpu, instance], ...], "priority", "elapsed_seconds", "ends_in_seconds"}],
//    "request": {"num_gpu", "gpu_milli", "cpu_milli", "memory_mib", "mig_profile", "priority"},
//    "move_overhead_seconds": 60, "apply": false}
// The workloads are allocated on the nodes as they say; errors name the field
// ("workloads[1].gpus[0]").
struct DefragProblem {
  Pool pool;
  std::vector<Holder> holders;
  Request request;
  PlanOptions options;
  bool apply = false;
};
BUDCORE_API core::Result<DefragProblem> parse_defrag_problem(std::string_view json);
// Plans, and applies the plan when the problem asks: {"plan": <to_value> | null, "applied",
// "workloads": [{"name", "node", "gpus", "mig"}] after it (when applied)}.
BUDCORE_API core::Result<core::Value> defrag_document(const DefragProblem& problem);
// MIG-aware placement of the problem's request (its mig_profile, CPU and memory; place_mig):
// {"placement": {"node", "gpu", "instance", "repartition": ["1g.5gb@0", ...] | null,
// "dropped"} | null}; `instance` is the instance's index once placed (after a re-partition,
// the new layout's last), `repartition` the GPU's new layout when it needs one. With `apply`
// the instance is allocated and "workloads" lists every MIG workload after it, as
// defrag_document does. Invalid ("request.mig_profile") for a request without a profile.
BUDCORE_API core::Result<core::Value> place_mig_document(const DefragProblem& problem);

}  // namespace budcore::gpu
