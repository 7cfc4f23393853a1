// The FGD paper's experiment: tasks drawn with replacement arrive until the arrived GPU demand
// reaches a share of the cluster's capacity; a task no node can take is counted and skipped.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "budcore/gpu/fragmentation.hpp"
#include "budcore/gpu/policy.hpp"
#include "budcore/gpu/trace.hpp"

namespace budcore::gpu {
namespace {

constexpr int kMaxReplaySteps = 1000;

ReplayPoint point(const Pool& pool, const Workload& workload, double load, std::int64_t arrived, std::int64_t failed) {
  FragmentationReport r = measure(pool, workload);
  return {load, r.unallocated_share, r.fragmentation_share, arrived, failed};
}

}  // namespace

core::Result<ReplayResult> replay(const Pool& original, const std::vector<Task>& tasks, std::string_view policy_name,
                                  const ReplayOptions& options) {
  if (tasks.empty()) return core::Error::invalid("tasks", "", "a replay needs tasks");
  if (!(options.max_load > 0) || options.max_load > 100)
    return core::Error::invalid("max_load", std::to_string(options.max_load), "must be above 0 and at most 100");
  if (!(options.step > 0) || options.step > options.max_load)
    return core::Error::invalid("step", std::to_string(options.step), "must be above 0 and at most max_load");
  // Every step measures the whole cluster: a tiny step would measure it without end.
  if (options.max_load / options.step > kMaxReplaySteps)
    return core::Error::invalid("step", std::to_string(options.step),
                                "gives more than " + std::to_string(kMaxReplaySteps) + " steps up to max_load");
  const double capacity = static_cast<double>(original.total_gpus()) * kMilliPerGpu;
  if (capacity <= 0) return core::Error::invalid("nodes", "", "the cluster has no GPUs");
  bool any_gpu = false;
  for (const auto& t : tasks) any_gpu = any_gpu || t.num_gpu > 0;
  if (!any_gpu) return core::Error::invalid("tasks", "", "no task asks for a GPU, so the load never grows");

  Workload workload = Workload::from_tasks(tasks);
  PolicyOptions po;
  po.seed = options.seed ^ 0x9E3779B97F4A7C15ULL;  // the random policy's own stream, apart from the draws
  po.workload = workload;
  std::unique_ptr<Policy> policy;
  BUDCORE_TRY_ASSIGN(policy, make_policy(policy_name, po));

  Pool pool = original;
  std::mt19937_64 draw(options.seed);
  ReplayResult result;
  result.policy = std::string(policy_name);
  double arrived_milli = 0;
  std::int64_t arrived = 0, failed = 0;
  int next_step = 1;
  while (arrived_milli < options.max_load * capacity) {
    if (arrived >= options.max_arrivals)
      return core::Error::invalid("max_arrivals", std::to_string(options.max_arrivals), "reached before the load did");
    const Task& t = tasks[draw() % tasks.size()];
    ++arrived;
    arrived_milli += static_cast<double>(t.num_gpu) * t.gpu_milli;
    auto p = policy->place(pool, t);
    bool placed = p.has_value();
    if (placed) {
      auto st = pool.allocate(t, *p);
      if (!st) return core::Error::make(core::ErrorCode::Internal, "policy " + result.policy + " placed " + t.name +
                                                                       " where it does not fit: " + st.error().describe());
    } else {
      ++failed;
    }
    if (!placed && !result.first_failure)
      result.first_failure = point(pool, workload, arrived_milli / capacity, arrived, failed);
    while (next_step * options.step <= options.max_load + 1e-9 && arrived_milli >= next_step * options.step * capacity - 1e-6) {
      result.points.push_back(point(pool, workload, next_step * options.step, arrived, failed));
      ++next_step;
    }
  }
  return result;
}

core::Value to_value(const ReplayResult& r) {
  auto pv = [](const ReplayPoint& p) {
    return core::Value(core::Map{{"arrived_load", core::Value(p.arrived_load)},
                                 {"unallocated_share", core::Value(p.unallocated_share)},
                                 {"fragmentation_share", core::Value(p.fragmentation_share)},
                                 {"arrived", core::Value(static_cast<std::int64_t>(p.arrived))},
                                 {"failed", core::Value(static_cast<std::int64_t>(p.failed))}});
  };
  core::List points;
  for (const auto& p : r.points) points.push_back(pv(p));
  return core::Value(core::Map{{"policy", core::Value(r.policy)},
                               {"points", core::Value(std::move(points))},
                               {"first_failure", r.first_failure ? pv(*r.first_failure) : core::Value()}});
}

core::Result<std::vector<std::string>> parse_policy_list(std::string_view text, std::string_view field) {
  const auto& known = policy_names();
  if (text == "all") return known;
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(',', start);
    std::string name(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return core::Error::invalid(std::string(field), name, "is not a placement policy (" + list + ", or all)");
    }
    out.push_back(std::move(name));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

core::Value replay_document(const Pool& pool, std::size_t tasks, std::uint64_t seed,
                            const std::vector<ReplayResult>& results) {
  core::List list;
  for (const auto& r : results) list.push_back(to_value(r));
  return core::Value(core::Map{{"nodes", core::Value(static_cast<std::int64_t>(pool.size()))},
                               {"gpus", core::Value(pool.total_gpus())},
                               {"tasks", core::Value(static_cast<std::int64_t>(tasks))},
                               {"seed", core::Value(static_cast<std::int64_t>(seed))},
                               {"results", core::Value(std::move(list))}});
}

std::string to_table(const std::vector<ReplayResult>& results) {
  std::string out = "arrived_load";
  for (const auto& r : results) {
    char cell[64];
    std::snprintf(cell, sizeof cell, " %14s", r.policy.c_str());
    out += cell;
  }
  out += "\n";
  std::size_t rows = 0;
  for (const auto& r : results) rows = std::max(rows, r.points.size());
  for (std::size_t i = 0; i < rows; ++i) {
    char cell[64];
    double load = 0;
    for (const auto& r : results)
      if (i < r.points.size()) load = r.points[i].arrived_load;
    std::snprintf(cell, sizeof cell, "%11.0f%%", load * 100);
    out += cell;
    for (const auto& r : results) {
      if (i < r.points.size())
        std::snprintf(cell, sizeof cell, " %13.2f%%", r.points[i].unallocated_share * 100);
      else
        std::snprintf(cell, sizeof cell, " %14s", "-");
      out += cell;
    }
    out += "\n";
  }
  out += "first failure";
  for (const auto& r : results) {
    char cell[64];
    if (r.first_failure)
      std::snprintf(cell, sizeof cell, " %6.1f%%@%5.1f%%", r.first_failure->unallocated_share * 100, r.first_failure->arrived_load * 100);
    else
      std::snprintf(cell, sizeof cell, " %14s", "none");
    out += cell;
  }
  return out + "\n";
}

}  // namespace budcore::gpu
