// Admission throughput: Q ClusterQueues in Q/10 cohorts, N pending workloads, run to quiescence.
// Modes: 0 classical, everything fits (borrowing allowed); 1 classical with preemption: every
// queue is full of low-priority workloads and the pending ones (higher priority) each preempt one;
// 2 fair sharing, everything fits; 3 fair sharing with preemption as in 1.
// Counter "per_admission" is the process CPU time per pending workload (admission, or preemption
// decision plus admission).
#include <benchmark/benchmark.h>

#include "budcore/quota/admission.hpp"

namespace {

using namespace budcore;

quota::QuotaConfig make_config(int queues, std::int64_t nominal) {
  quota::QuotaConfig c;
  c.resource_flavors.push_back({"default", {}, {}});
  for (int i = 0; i < queues; ++i) {
    quota::ClusterQueue q;
    q.name = "cq-" + std::to_string(i);
    q.cohort = "cohort-" + std::to_string(i / 10);
    q.preemption.within_cluster_queue = quota::PreemptionPolicy::LowerPriority;
    q.preemption.reclaim_within_cohort = quota::PreemptionPolicy::Any;
    quota::ResourceQuota rq{"cpu", core::Quantity::from_int(nominal), std::nullopt, std::nullopt};
    q.resource_groups.push_back({{"cpu"}, {{"default", {rq}}}});
    c.cluster_queues.push_back(q);
    c.local_queues.push_back({"ns", "lq-" + q.name, q.name});
  }
  return c;
}

quota::Workload make_workload(const quota::QuotaConfig& c, int i, int priority) {
  quota::Workload w;
  w.name = "w" + std::to_string(i);
  w.namespace_ = "ns";
  w.queue = c.local_queues[static_cast<std::size_t>(i) % c.local_queues.size()].name;
  w.priority = priority;
  w.creation_seq = i;
  quota::PodSet ps;
  (void)ps.requests.set("cpu", core::Quantity::from_int(1));
  w.pod_sets.push_back(ps);
  return w;
}

void BM_Admission(benchmark::State& state) {
  const int queues = static_cast<int>(state.range(0));
  const int workloads = static_cast<int>(state.range(1));
  const int mode = static_cast<int>(state.range(2));
  const bool preempt = mode == 1 || mode == 3;
  const bool fair = mode >= 2;
  const int per_queue = std::max(1, workloads / queues);
  // Preemption modes: each queue's nominal quota is full of low-priority work.
  auto config = make_config(queues, preempt ? per_queue : 1'000'000);
  std::int64_t decisions = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = quota::AdmissionEngine::create(config, quota::EngineOptions{fair, {}}).value();
    if (preempt) {
      for (int i = 0; i < queues * per_queue; ++i) {
        quota::Workload w = make_workload(config, workloads + i, 0);
        w.admitted = quota::Admission{config.local_queues[static_cast<std::size_t>(i) % queues].cluster_queue,
                                      {{"main", {{"cpu", "default"}}}}, {}};
        (void)engine.add_workload(w);
      }
    }
    for (int i = 0; i < workloads; ++i) (void)engine.add_workload(make_workload(config, i, preempt ? 1 + i % 3 : i % 3));
    state.ResumeTiming();
    int cycles = engine.run_until_quiescent();
    benchmark::DoNotOptimize(cycles);
    decisions += workloads;
  }
  state.counters["per_admission"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Admission)
    ->ArgNames({"cqs", "workloads", "mode"})
    ->Args({10, 10'000, 0})
    ->Args({100, 10'000, 0})
    ->Args({1000, 10'000, 0})
    ->Args({100, 100'000, 0})
    ->Args({1000, 100'000, 0})
    ->Args({100, 10'000, 1})
    ->Args({100, 10'000, 2})
    ->Args({100, 100'000, 2})
    ->Args({100, 10'000, 3})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();
// 100k workloads with preemption (about a minute of CPU: every decision scans the queue's
// ~1000 admitted candidates): run with --benchmark_filter=Preemption100k.
BENCHMARK(BM_Admission)->Name("Preemption100k")->Args({100, 100'000, 1})->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

}  // namespace
