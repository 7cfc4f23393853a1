// libFuzzer target: the defragmentation problem document either is refused with an Invalid error
// naming the field, or reads; a problem that reads is planned, and a plan found is applied to a
// copy of its pool: it must then apply (the request fits), no workload of higher priority
// than the request may have moved, and every MIG instance a workload holds is in use; a MIG
// request's MIG-aware placement must allocate.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "budcore/gpu/defrag.hpp"

namespace gpu = budcore::gpu;
using budcore::core::ErrorCode;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto problem = gpu::parse_defrag_problem(text);
  if (!problem) {
    if (problem.error().code != ErrorCode::Invalid || problem.error().field.empty()) std::abort();
    return 0;
  }
  // Small problems only: a move plan searches subsets of a node's workloads.
  if (problem->pool.size() > 16 || problem->holders.size() > 32) return 0;
  auto plan = gpu::plan_defrag(problem->pool, problem->holders, problem->request, problem->options);
  if (!plan) {
    if (plan.error().code != ErrorCode::Invalid) std::abort();
    return 0;
  }
  if (!plan->has_value()) return 0;
  std::map<std::string, gpu::Placement> before;
  for (const auto& h : problem->holders) before[h.name] = h.placement;
  gpu::Pool pool = problem->pool;
  auto holders = problem->holders;
  if (!gpu::apply_plan(pool, holders, problem->request, **plan)) std::abort();
  for (const auto& h : holders)
    if (h.priority > problem->request.priority && before.count(h.name) && !(before[h.name] == h.placement)) std::abort();
  // Every MIG instance a workload holds afterwards is in use (a re-partition re-indexes them).
  for (const auto& h : holders)
    for (const auto& [g, i] : h.mig) {
      const auto& gpus = pool.node(h.placement.node).gpus;
      if (g < 0 || static_cast<std::size_t>(g) >= gpus.size()) std::abort();
      const auto& d = gpus[static_cast<std::size_t>(g)];
      if (i >= d.mig.size() || d.mig_state[i] == 0) std::abort();
    }
  (void)gpu::defrag_document(*problem);
  // A MIG request: where place_mig puts it is allocatable as it says.
  if (!problem->request.mig_profile.empty()) {
    gpu::DefragProblem placed = *problem;
    placed.apply = true;
    if (!gpu::place_mig_document(placed)) std::abort();
  }
  return 0;
}
