// Schedule timeline: estimate 10,000 pending jobs across 100 ClusterQueues in 10 cohorts, an
// incremental update after one job finishes at that size, and Kueue's baseline replay.
#include <benchmark/benchmark.h>

#include "budcore/schedule/replay.hpp"
#include "budcore/schedule/timeline.hpp"

namespace {

using namespace budcore;

// Q queues in Q/10 cohorts (nominal 10 cpu each, borrowing allowed), N pending jobs of 1-4 cpu
// and 60-600 s, priorities 0-2, LowerPriority preemption within queues; plus one running job
// per queue (started at 0) so updates have something to finish.
schedule::TimelineInput make_input(int queues, int jobs) {
  schedule::TimelineInput in;
  in.config.resource_flavors.push_back({"default", {}, {}});
  for (int i = 0; i < queues; ++i) {
    quota::ClusterQueue q;
    q.name = "cq-" + std::to_string(i);
    q.cohort = "cohort-" + std::to_string(i / 10);
    q.preemption.within_cluster_queue = quota::PreemptionPolicy::LowerPriority;
    q.resource_groups.push_back({{"cpu"}, {{"default", {{"cpu", core::Quantity::from_int(10), std::nullopt, std::nullopt}}}}});
    in.config.cluster_queues.push_back(q);
    in.config.local_queues.push_back({"ns", "lq-" + q.name, q.name});
  }
  auto job = [&](int i, int cpu, int seconds, int priority) {
    schedule::JobInput j;
    j.workload.name = "j" + std::to_string(i);
    j.workload.namespace_ = "ns";
    j.workload.queue = in.config.local_queues[static_cast<std::size_t>(i % queues)].name;
    j.workload.priority = priority;
    j.workload.creation_seq = i;
    quota::PodSet ps;
    (void)ps.requests.set("cpu", core::Quantity::from_int(cpu));
    j.workload.pod_sets.push_back(ps);
    j.duration = core::Duration::seconds(seconds);
    return j;
  };
  for (int q = 0; q < queues; ++q) {
    auto j = job(jobs + q, 2, 1000, 0);
    j.workload.admitted = quota::Admission{in.config.cluster_queues[static_cast<std::size_t>(q)].name, {{"main", {{"cpu", "default"}}}}, {}};
    in.jobs.push_back(std::move(j));
  }
  for (int i = 0; i < jobs; ++i) in.jobs.push_back(job(i, 1 + (i * 7) % 4, 60 + (i * 37) % 541, (i * 13) % 3));
  return in;
}

void BM_Estimate(benchmark::State& state) {
  const int queues = static_cast<int>(state.range(0)), jobs = static_cast<int>(state.range(1));
  auto input = make_input(queues, jobs);
  for (auto _ : state) {
    auto tl = schedule::Timeline::create(input);
    if (!tl) state.SkipWithError(tl.error().describe().c_str());
    benchmark::DoNotOptimize(tl);
  }
  state.counters["jobs"] = jobs;
}
BENCHMARK(BM_Estimate)->ArgNames({"cqs", "pending"})->Args({100, 10'000})->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

// One running job finishes early; only its cohort tree (10 queues, ~1,000 jobs) is simulated
// again. Each iteration finishes a different queue's running job.
void BM_IncrementalFinish(benchmark::State& state) {
  const int queues = 100, jobs = 10'000;
  auto tl = schedule::Timeline::create(make_input(queues, jobs));
  if (!tl) {
    state.SkipWithError(tl.error().describe().c_str());
    return;
  }
  int q = 0;
  for (auto _ : state) {
    auto st = tl->finished("j" + std::to_string(jobs + q), core::Timestamp::from_unix_seconds(q + 1));
    if (!st) state.SkipWithError(st.error().describe().c_str());
    q = (q + 1) % queues;
  }
  state.counters["trees_simulated"] = tl->trees_simulated();
}
BENCHMARK(BM_IncrementalFinish)->Iterations(100)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

// Kueue's test/performance/scheduler configs/baseline: 15,000 workloads, 30 queues, 5 cohorts.
void BM_ReplayBaseline(benchmark::State& state) {
  auto config = schedule::kueue_baseline();
  for (auto _ : state) {
    auto r = schedule::replay(config);
    if (!r) state.SkipWithError(r.error().describe().c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ReplayBaseline)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace
