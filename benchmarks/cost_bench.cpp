// The cost layer: a contract-5 estimate, metering one interval, and rollups (records split
// across hours; the columnar fast path over 10M records, the peer comparison's workload).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/cost/estimator.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/rollup.hpp"

namespace {

using namespace budcore;

cost::PriceBook book() {
  return *cost::PriceBook::from_text(R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "2.49", spot: "1.19"}
  nvidia-t4: {on_demand: "0.40", spot: "0.16"}
cpu_core_hour: {on_demand: "0.04", spot: "0.02"}
memory_gib_hour: {on_demand: "0.005", spot: "0.0025"}
storage_gib_month: "0.10"
minimum_billable_seconds: 60
)");
}

void BM_EstimateJob(benchmark::State& state) {
  const cost::PriceBook b = book();
  const core::Value job = *core::parse_json(R"({"job_type": "batch", "gpu_type": "nvidia-a100-80gb",
      "gpu_count": 2, "cpu_cores": 8, "memory_gb": 64, "storage_gb": 100, "estimated_duration_seconds": 5400})");
  for (auto _ : state) benchmark::DoNotOptimize(cost::estimate_document(b, job));
}
BENCHMARK(BM_EstimateJob);

cost::UsageInterval interval(std::int64_t start_s, std::int64_t seconds) {
  cost::UsageInterval u;
  u.job_id = core::Id::generate();
  u.gpu_type = "nvidia-a100-80gb";
  u.gpu_count = 2;
  u.cpu_cores = core::Quantity::from_int(8);
  u.memory_gib = core::Quantity::from_int(64);
  u.start = core::Timestamp::from_unix_seconds(start_s);
  u.end = core::Timestamp::from_unix_seconds(start_s + seconds);
  return u;
}

void BM_MeterInterval(benchmark::State& state) {
  const cost::PriceBook b = book();
  const cost::UsageInterval u = interval(1'777'593'600, 60);
  for (auto _ : state) benchmark::DoNotOptimize(cost::meter(b, u));
}
BENCHMARK(BM_MeterInterval);

// 100k metered records of 10 minutes, a third crossing an hour, rolled up by hour x GPU type.
void BM_RollupRecordsHourly(benchmark::State& state) {
  const cost::PriceBook b = book();
  std::vector<cost::Usage> usage;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100'000; ++i) usage.push_back(*cost::meter(b, interval(1'777'593'600 + static_cast<std::int64_t>(rng() % 2'592'000), 600)));
  cost::RollupQuery q{cost::Granularity::Hour, {cost::GroupBy{cost::Dimension::GpuType, {}}}, {}, {}};
  for (auto _ : state) benchmark::DoNotOptimize(cost::rollup(usage, q));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(usage.size()));
}
BENCHMARK(BM_RollupRecordsHourly)->Unit(benchmark::kMillisecond);

// The peer workload (benchmarks/peers/cost_rollup.py): 10M records, hour x 20 tenants x 8 types.
void BM_RollupColumns10M(benchmark::State& state) {
  const std::size_t n = 10'000'000;
  std::vector<std::int64_t> start(n), nanos(n), pico(n);
  std::vector<std::int32_t> tenant(n), type(n);
  std::mt19937_64 rng(42);
  for (std::size_t i = 0; i < n; ++i) {
    start[i] = 1'777'593'600 + static_cast<std::int64_t>(rng() % 2'592'000) / 60 * 60;
    tenant[i] = static_cast<std::int32_t>(rng() % 20);
    type[i] = static_cast<std::int32_t>(rng() % 8);
    nanos[i] = static_cast<std::int64_t>(1 + rng() % 8) * 60'000'000'000LL;
    pico[i] = static_cast<std::int64_t>(rng() % 100'000'000'000ULL);
  }
  std::sort(start.begin(), start.end());
  const cost::UsageColumns c{start, tenant, type, nanos, pico};
  for (auto _ : state) benchmark::DoNotOptimize(cost::rollup_columns(c, cost::Granularity::Hour, static_cast<unsigned>(state.range(0))));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_RollupColumns10M)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
