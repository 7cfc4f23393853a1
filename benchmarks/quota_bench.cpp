// Admission throughput: 100 ClusterQueues in 10 cohorts, N pending workloads, run to quiescence.
#include <benchmark/benchmark.h>

#include "budcore/quota/admission.hpp"

namespace {

using namespace budcore;

quota::QuotaConfig make_config(int cohorts, int queues_per_cohort) {
  quota::QuotaConfig c;
  c.resource_flavors.push_back({"default", {}, {}});
  for (int k = 0; k < cohorts; ++k) {
    for (int i = 0; i < queues_per_cohort; ++i) {
      quota::ClusterQueue q;
      q.name = "cq-" + std::to_string(k) + "-" + std::to_string(i);
      q.cohort = "cohort-" + std::to_string(k);
      q.preemption.within_cluster_queue = quota::PreemptionPolicy::LowerPriority;
      q.preemption.reclaim_within_cohort = quota::PreemptionPolicy::Any;
      quota::ResourceQuota rq{"cpu", core::Quantity::from_int(1'000'000), core::Quantity::from_int(1'000'000), std::nullopt};
      q.resource_groups.push_back({{"cpu"}, {{"default", {rq}}}});
      c.cluster_queues.push_back(q);
      c.local_queues.push_back({"ns", "lq-" + q.name, q.name});
    }
  }
  return c;
}

void BM_AdmitUntilQuiescent(benchmark::State& state) {
  const int workloads = static_cast<int>(state.range(0));
  auto config = make_config(10, 10);
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = quota::AdmissionEngine::create(config).value();
    for (int i = 0; i < workloads; ++i) {
      quota::Workload w;
      w.name = "w" + std::to_string(i);
      w.namespace_ = "ns";
      w.queue = config.local_queues[i % 100].name;
      w.priority = i % 3;
      w.creation_seq = i;
      quota::PodSet ps;
      (void)ps.requests.set("cpu", core::Quantity::from_int(1));
      w.pod_sets.push_back(ps);
      (void)engine.add_workload(w);
    }
    state.ResumeTiming();
    int cycles = engine.run_until_quiescent();
    benchmark::DoNotOptimize(cycles);
  }
  state.SetItemsProcessed(state.iterations() * workloads);
}
BENCHMARK(BM_AdmitUntilQuiescent)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace
