/* budcore C ABI — GPU placement: the Alibaba GPU trace ("openb") replayed with placement
 * policies, as `budcore gpu replay` does, and defragmentation plans, as `budcore gpu defrag`
 * does (docs/gpu.md). CSV or JSON in, JSON out. */
#ifndef BUDCORE_C_GPU_H
#define BUDCORE_C_GPU_H

#include "budcore/c/common.h"

BUDCORE_BEGIN_DECL

/* Replays the trace: tasks drawn from pods_csv (name,cpu_milli,memory_mib,num_gpu,gpu_milli
 * [,gpu_spec,...]) with replacement arrive one by one on the nodes of nodes_csv
 * (sn,cpu_milli,memory_mib,gpu,model) and are placed by each policy in turn.
 * options_json (NULL with length 0: defaults) is an object with any of
 *   "policies": "all" | "fgd" | "fgd,best_fit" | ["fgd", "best_fit"]   (default "all")
 *   "seed":     1      seed of the task draws (an integer >= 0)
 *   "max_load": 1.3    stop at this arrived GPU demand / cluster GPU capacity (0 < x <= 100)
 *   "step":     0.05   record a point every step of arrived load (0 < x <= max_load)
 * Writes to `out` (which must be empty: BUDCORE_BUF_INIT) the document
 * `budcore gpu replay --format json` prints: {"nodes", "gpus", "tasks", "seed", "results":
 * [{"policy", "points": [{"arrived_load", "unallocated_share", "fragmentation_share",
 * "arrived", "failed"}, ...], "first_failure"}, ...]}.
 * Errors: BUDCORE_EINVALID with budcore_error_last()->field naming the input: "nodes_csv:3.gpu"
 * (line 3, column gpu of the nodes), "pods_csv:2.cpu_milli", "options.policies" (an unknown
 * policy, value = its name), "options.seed", "options.bogus" (an unknown key); `out` is then
 * untouched.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_gpu_replay(budcore_buf *out, const char *nodes_csv, size_t nodes_csv_len, const char *pods_csv,
                                   size_t pods_csv_len, const char *options_json, size_t options_json_len);

/* Plans, for a request no node takes, the cheapest of moving workloads of lower or equal
 * priority off one node, waiting for workloads with estimated ends, or re-partitioning one MIG
 * GPU. problem_json is the document of docs/gpu.md "Defragmentation plans": {"nodes",
 * "workloads", "request", "move_overhead_seconds", "apply"}. Writes to `out` (which must be
 * empty: BUDCORE_BUF_INIT) {"plan": {"kind", "node", "gpus", "moves", "wait_for",
 * "wait_seconds", "repartition", "cost_gpu_seconds", "summary"} | null, "applied", and with
 * "apply": true "workloads" after the plan}.
 * Errors: BUDCORE_EINVALID with budcore_error_last()->field naming the input ("nodes[0].model",
 * "workloads[1].gpus[0]", "request.gpu_milli"); `out` is then untouched.
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_gpu_defrag(budcore_buf *out, const char *problem_json, size_t problem_json_len);

/* MIG-aware placement (docs/gpu.md "MIG-aware placement") of one instance of the problem's
 * request.mig_profile (with its cpu_milli and memory_mib), on the nodes and workloads of a
 * problem document as budcore_gpu_defrag reads it: a free instance of the profile, else a new
 * one where a MIG GPU's layout admits it under NVIDIA's rules, re-partitioning that GPU.
 * Writes {"placement": {"node", "gpu", "instance", "repartition": ["1g.5gb@0", ...] | null,
 * "dropped"} | null, "applied"}, and with "apply": true "workloads" after it.
 * Errors: BUDCORE_EINVALID naming the input ("request.mig_profile" when it has none).
 * Thread-safety: safe from any thread. */
BUDCORE_API int budcore_gpu_place_mig(budcore_buf *out, const char *problem_json, size_t problem_json_len);

BUDCORE_END_DECL

#endif
