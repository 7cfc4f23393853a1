// budcore::gpu trace replay on the Alibaba GPU cluster trace ("openb", cluster-trace-gpu-v2023):
// the node and pod CSV files, and the experiment of Weng et al. (USENIX ATC 2023): tasks drawn
// from the trace with replacement (seeded) arrive one by one and are placed by a policy; as
// the arrived GPU demand grows past the cluster's capacity, the share of GPU capacity left
// unallocated is recorded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/gpu/inventory.hpp"

namespace budcore::gpu {

// `sn,cpu_milli,memory_mib,gpu,model`: one fractional-sharing node per row. `source` names the
// file in errors ("nodes.csv:12.model": line 12, column model).
BUDCORE_API core::Result<Pool> parse_nodes_csv(std::string_view text, std::string_view source = "nodes");
// `name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]`: one task per row; gpu_spec (when
// the file has it) lists the allowed models separated by `|`. Other columns are ignored.
BUDCORE_API core::Result<std::vector<Task>> parse_pods_csv(std::string_view text, std::string_view source = "pods");

struct ReplayOptions {
  std::uint64_t seed = 1;
  double max_load = 1.3;   // stop when the arrived GPU demand reaches this share of capacity
  double step = 0.05;      // record a point at every step of arrived load
  std::int64_t max_arrivals = 10'000'000;
};

struct ReplayPoint {
  double arrived_load = 0;        // arrived GPU demand / cluster GPU capacity
  double unallocated_share = 0;   // free GPU capacity / cluster GPU capacity
  double fragmentation_share = 0; // FGD's measure for the trace's task mix / free GPU capacity
  std::int64_t arrived = 0;       // tasks
  std::int64_t failed = 0;        // tasks no node could take
};

struct ReplayResult {
  std::string policy;
  std::vector<ReplayPoint> points;            // at every step of arrived load up to max_load
  std::optional<ReplayPoint> first_failure;   // when the first task could not be placed
};

// Replays the tasks on a copy of the pool with the named policy. The same seed draws the same
// task sequence for every policy.
BUDCORE_API core::Result<ReplayResult> replay(const Pool& pool, const std::vector<Task>& tasks, std::string_view policy,
                                              const ReplayOptions& options = {});

BUDCORE_API core::Value to_value(const ReplayResult& result);
// "all" (every policy, in policy_names() order), one policy name, or names separated by commas,
// in the order given. An unknown name is an error naming `field`.
BUDCORE_API core::Result<std::vector<std::string>> parse_policy_list(std::string_view text,
                                                                      std::string_view field = "policy");
// The document `budcore gpu replay --format json` prints: {"nodes", "gpus", "tasks", "seed",
// "results": [to_value(result), ...]}.
BUDCORE_API core::Value replay_document(const Pool& pool, std::size_t tasks, std::uint64_t seed,
                                        const std::vector<ReplayResult>& results);
// One row per recorded load, one column per policy: the unallocated GPU share in percent.
BUDCORE_API std::string to_table(const std::vector<ReplayResult>& results);

}  // namespace budcore::gpu
