// The GPU layer for Python (budcore.gpu wraps it): the Alibaba trace replay of
// `budcore gpu replay`, through the library's own CSV readers and policy list, so Python sees
// the same results and error paths as the CLI and the C ABI. The replay releases the GIL.
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "budcore/gpu/defrag.hpp"
#include "budcore/gpu/policy.hpp"
#include "budcore/gpu/trace.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"

namespace budcore::bindings {
namespace {

JsonDict replay(const std::string& nodes_csv, const std::string& pods_csv, const std::string& policies,
                  std::int64_t seed, double max_load, double step, const std::string& nodes_source,
                  const std::string& pods_source) {
  if (seed < 0) throw PyError(core::Error::invalid("seed", std::to_string(seed), "must be 0 or more"));
  core::Result<core::Value> out = [&]() -> core::Result<core::Value> {
    py::gil_scoped_release release;
    auto pool = gpu::parse_nodes_csv(nodes_csv, nodes_source);
    if (!pool) return std::move(pool).error();
    auto tasks = gpu::parse_pods_csv(pods_csv, pods_source);
    if (!tasks) return std::move(tasks).error();
    auto names = gpu::parse_policy_list(policies, "policy");
    if (!names) return std::move(names).error();
    gpu::ReplayOptions options;
    options.seed = static_cast<std::uint64_t>(seed);
    options.max_load = max_load;
    options.step = step;
    std::vector<gpu::ReplayResult> results;
    for (const auto& name : *names) {
      auto r = gpu::replay(*pool, *tasks, name, options);
      if (!r) return std::move(r).error();
      results.push_back(std::move(*r));
    }
    return gpu::replay_document(*pool, tasks->size(), options.seed, results);
  }();
  return hinted<JsonDict>(to_python(unwrap(std::move(out))));
}

JsonDict defrag(const std::string& problem_json) {
  core::Result<core::Value> out = [&]() -> core::Result<core::Value> {
    py::gil_scoped_release release;
    auto problem = gpu::parse_defrag_problem(problem_json);
    if (!problem) return std::move(problem).error();
    return gpu::defrag_document(*problem);
  }();
  return hinted<JsonDict>(to_python(unwrap(std::move(out))));
}

JsonDict place_mig(const std::string& problem_json) {
  core::Result<core::Value> out = [&]() -> core::Result<core::Value> {
    py::gil_scoped_release release;
    auto problem = gpu::parse_defrag_problem(problem_json);
    if (!problem) return std::move(problem).error();
    return gpu::place_mig_document(*problem);
  }();
  return hinted<JsonDict>(to_python(unwrap(std::move(out))));
}

}  // namespace

void bind_gpu(py::module_& m) {
  m.def("gpu_policy_names", &gpu::policy_names, "The placement policies gpu_replay knows, in the order 'all' runs them.");
  m.def("gpu_replay", &replay, py::arg("nodes_csv"), py::arg("pods_csv"), py::arg("policies") = "all",
        py::arg("seed") = 1, py::arg("max_load") = 1.3, py::arg("step") = 0.05, py::arg("nodes_source") = "nodes",
        py::arg("pods_source") = "pods",
        "Replay the Alibaba GPU trace (openb node and pod CSV text) with placement policies ('all', a name, or "
        "names separated by commas): {nodes, gpus, tasks, seed, results}, as `budcore gpu replay --format json`.");
  m.def("gpu_defrag", &defrag, py::arg("problem_json"),
        "The cheapest defragmentation plan for a pending request (the problem document of docs/gpu.md, JSON): "
        "{plan, applied[, workloads]}, as `budcore gpu defrag`.");
  m.def("gpu_place_mig", &place_mig, py::arg("problem_json"),
        "MIG-aware placement of the problem's request.mig_profile (a free instance, else a new one a GPU's layout "
        "admits, re-partitioning it): {placement, applied[, workloads]}, as `budcore gpu place-mig`.");
}

}  // namespace budcore::bindings
