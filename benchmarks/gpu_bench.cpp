// GPU placement on the Alibaba trace's 1,213-node cluster (openb_node_list_gpu_node.csv) with
// the default task list. The trace is read from BUDCORE_GPU_TRACE_DIR (default
// ../shared/data/alibaba-gpu-2023, the project's shared data beside the source tree).
//   BM_FgdDecision/load:L   one FGD decision (the task is not applied) on the cluster filled by
//                           FGD to L% of its GPU capacity; items/s = decisions per second.
//   BM_Replay/policy:P      the whole replay to 130% arrived load with policy P (index into
//                           policy_names()); items/s = decisions per second.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "budcore/gpu/policy.hpp"
#include "budcore/gpu/trace.hpp"

namespace {

using namespace budcore;

struct Trace {
  gpu::Pool pool;
  std::vector<gpu::Task> tasks;
  bool ok = false;
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const Trace& trace() {
  static const Trace t = [] {
    const char* env = std::getenv("BUDCORE_GPU_TRACE_DIR");
    std::string dir = env != nullptr ? env : "../shared/data/alibaba-gpu-2023";
    Trace out;
    auto pool = gpu::parse_nodes_csv(read(dir + "/openb_node_list_gpu_node.csv"));
    auto tasks = gpu::parse_pods_csv(read(dir + "/openb_pod_list_default.csv"));
    if (pool && tasks) {
      out.pool = std::move(*pool);
      out.tasks = std::move(*tasks);
      out.ok = true;
    }
    return out;
  }();
  return t;
}

void BM_FgdDecision(benchmark::State& state) {
  const Trace& t = trace();
  if (!t.ok) {
    state.SkipWithError("set BUDCORE_GPU_TRACE_DIR to the openb trace's directory");
    return;
  }
  gpu::PolicyOptions o;
  o.workload = gpu::Workload::from_tasks(t.tasks);
  auto fgd = std::move(*gpu::make_policy("fgd", o));
  gpu::Pool pool = t.pool;
  std::mt19937_64 draw(1);
  const double target = static_cast<double>(state.range(0)) / 100.0 * static_cast<double>(pool.total_gpus()) * 1000;
  double arrived = 0;
  while (arrived < target) {
    const gpu::Task& task = t.tasks[draw() % t.tasks.size()];
    arrived += static_cast<double>(task.num_gpu) * task.gpu_milli;
    if (auto p = fgd->place(pool, task)) (void)pool.allocate(task, *p);
  }
  std::size_t placed = 0;
  for (auto _ : state) {
    const gpu::Task& task = t.tasks[draw() % t.tasks.size()];
    auto p = fgd->place(pool, task);
    placed += p.has_value() ? 1 : 0;
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["placed_share"] = static_cast<double>(placed) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_FgdDecision)->ArgName("load")->Arg(0)->Arg(50)->Arg(90)->Unit(benchmark::kMicrosecond);

void BM_Replay(benchmark::State& state) {
  const Trace& t = trace();
  if (!t.ok) {
    state.SkipWithError("set BUDCORE_GPU_TRACE_DIR to the openb trace's directory");
    return;
  }
  const std::string policy = gpu::policy_names().at(static_cast<std::size_t>(state.range(0)));
  std::int64_t decisions = 0;
  for (auto _ : state) {
    auto r = gpu::replay(t.pool, t.tasks, policy);
    if (!r) {
      state.SkipWithError(r.error().describe().c_str());
      return;
    }
    decisions += r->points.back().arrived;
  }
  state.SetLabel(policy);
  state.SetItemsProcessed(decisions);
}
BENCHMARK(BM_Replay)->ArgName("policy")->DenseRange(0, 7)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
