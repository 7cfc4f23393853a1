// libFuzzer target: the defragmentation problem document either is refused with an Invalid error
// naming the field, or reads; a problem that reads is planned, and a plan found is applied to a
// copy of its pool: it must then apply (the request fits), and no workload of higher priority
// than the request may have moved.
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
  (void)gpu::defrag_document(*problem);
  return 0;
}
