// Platform benchmarks on a durable SQLite file (WAL, synchronous=FULL) in $BUDCORE_BENCH_DIR
// (default /tmp), simulated cluster, virtual clock:
// - end_to_end: BUDCORE_BENCH_PLATFORM_JOBS (default 100,000) jobs submitted in batches of 1,000,
//   admitted, run (60 s of virtual time each, 1,000 at a time) and completed, every transition
//   persisted; jobs per second of wall time;
// - batch_submit: 10,000 jobs per submit_batch call (validated, stored QUEUED with their
//   events and records in one transaction, handed to the cluster);
// - store_batch_create: the raw store rate for the same rows, Store::create_job x 1,000 per
//   transaction, the ceiling batch_submit is compared against;
// - end_to_end_with_costs: the same for BUDCORE_BENCH_COST_JOBS (default 10,000) jobs with a
//   price book (/1) and also a budget (/2) attached;
// - queued_memory: resident memory per queued job with BUDCORE_BENCH_QUEUED (default
//   1,000,000) jobs waiting in a cluster with no free quota;
// - platform_schedule: Platform::schedule() with BUDCORE_BENCH_SCHEDULE_JOBS (default 10,000)
//   jobs, 64 running and the rest waiting for a 64-core queue. /changed: the first call after a
//   change (one waiting job cancelled) builds the timeline again; /unchanged: the cached one.
#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "budcore/core/json.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/platform/platform.hpp"

namespace {

using namespace budcore;

std::filesystem::path bench_dir() {
  const char* d = std::getenv("BUDCORE_BENCH_DIR");
  return d != nullptr ? std::filesystem::path(d) : std::filesystem::temp_directory_path();
}

// CPU seconds of this process: on a shared machine the wall rate depends on the neighbours, the
// CPU rate does not (the disk's fsyncs are in the wall figure only).
double cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The iteration's wall time and both rates of `n` jobs since t0 (wall) and c0 (CPU seconds).
void report_rates(benchmark::State& state, std::int64_t n, std::chrono::steady_clock::time_point t0, double c0) {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  state.counters["cpu_jobs_per_s"] = static_cast<double>(n) / (cpu_seconds() - c0);
  state.SetIterationTime(secs);
  state.counters["jobs_per_s"] = static_cast<double>(n) / secs;
}

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoll(v) : fallback;
}

const core::Id kTenant = core::Id::parse("00000000-0000-4000-8000-0000000000be").value();

// One ClusterQueue of `cpu` cores; jobs of 1 core and 1 GiB.
platform::PlatformConfig bench_config(const std::string& db, std::int64_t cpu) {
  platform::PlatformConfig c;
  c.store_uri = "sqlite://" + db;
  c.store_durable = true;
  std::string quota = R"({"resource_flavors": [{"name": "default"}],
    "cluster_queues": [{"name": "batch-jobs", "resource_groups": [{"covered_resources": ["cpu", "memory"],
      "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": ")" + std::to_string(cpu) + R"("},
                                                   {"name": "memory", "nominal": "100Ti"}]}]}]}]})";
  c.cluster.quota = platform::quota_config_from_value(core::parse_json(quota).value(), "quota").value();
  return c;
}

job::Job bench_job(std::int64_t i) {
  job::Job j;
  j.name = "bench-" + std::to_string(i % 1000);
  j.job_type = job::JobType::Batch;
  j.deployment_type = job::DeploymentType::Docker;
  j.memory_gb = core::Quantity::from_int(1);
  j.estimated_duration_seconds = 60;
  j.spec = core::Value::map({{"image", "ghcr.io/example/worker:1.0"}, {"args", core::Value::list({"--shard", i})}});
  return j;
}

std::unique_ptr<platform::Platform> must_open(const platform::PlatformConfig& c) {
  auto p = platform::Platform::open(c);
  if (!p) {
    std::fprintf(stderr, "open: %s\n", p.error().describe().c_str());
    std::abort();
  }
  return std::move(*p);
}

std::string fresh_db(const char* name) {
  auto path = bench_dir() / (std::string(name) + "-" + std::to_string(::getpid()) + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  return path.string();
}

void drop_db(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

void submit_all(platform::Platform& p, std::int64_t n, std::int64_t batch) {
  auto ctx = platform::CallContext::for_tenant(kTenant, "bench");
  for (std::int64_t base = 0; base < n; base += batch) {
    std::vector<platform::SubmitRequest> jobs;
    for (std::int64_t i = base; i < std::min(n, base + batch); ++i) jobs.push_back({bench_job(i), ""});
    auto r = p.submit_batch(ctx, std::move(jobs));
    if (!r) {
      std::fprintf(stderr, "submit: %s\n", r.error().describe().c_str());
      std::abort();
    }
    if (!p.pump()) std::abort();  // as a service's driver would, between requests
  }
}

// `costs`: 0 none; 1 a price book (metering, actual_cost, the budget gate's estimate); 2 that
// and one budget covering the tenant (spend read from the store for every admission).
void run_end_to_end(benchmark::State& state, std::int64_t n, int costs) {
  for (auto _ : state) {
    std::string db = fresh_db("platform-e2e");
    platform::PlatformConfig config = bench_config(db, 1000);
    if (costs > 0) {
      config.prices = cost::PriceBook::from_text(R"(currency: USD
gpu_hour: {nvidia-a100-80gb: {on_demand: "2.00"}}
cpu_core_hour: {on_demand: "0.04"}
memory_gib_hour: {on_demand: "0.005"}
)").value();
    }
    if (costs > 1) {
      config.budgets = cost::BudgetSet::from_text(R"(budgets:
  - {name: bench, tenant_id: 00000000-0000-4000-8000-0000000000be, amount: "1000000.00", hard_limit: true}
)").value();
    }
    auto p = must_open(config);
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    submit_all(*p, n, 1000);
    auto end = p->run_until_idle();
    if (!end) std::abort();
    report_rates(state, n, t0, c0);
    state.counters["virtual_hours"] = static_cast<double>((*end - p->config().virtual_start).whole_seconds()) / 3600.0;
    auto list = p->list_jobs(platform::CallContext::for_tenant(kTenant), {.statuses = {job::JobStatus::Completed}}, {.limit = 1});
    if (!list || list->items.empty()) std::abort();
    p.reset();
    drop_db(db);
  }
}

void end_to_end(benchmark::State& state) { run_end_to_end(state, env_int("BUDCORE_BENCH_PLATFORM_JOBS", 100'000), 0); }
BENCHMARK(end_to_end)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

// The same with cost controls (docs/cost.md "On a platform"): every run metered into usage
// records and priced into actual_cost; with a budget, every admission reads the spend.
void end_to_end_with_costs(benchmark::State& state) {
  run_end_to_end(state, env_int("BUDCORE_BENCH_COST_JOBS", 10'000), static_cast<int>(state.range(0)));
}
BENCHMARK(end_to_end_with_costs)->Arg(1)->Arg(2)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

// Admissions against a budget when the period already has `history` usage rows: each of 1,000
// submitted jobs asks the budget gate, which needs the tenant's spend in the period. The first
// admission of the period (timed apart) reads the history.
void budget_with_history(benchmark::State& state) {
  const std::int64_t history = state.range(0), n = 1000;
  for (auto _ : state) {
    std::string db = fresh_db("platform-history");
    platform::PlatformConfig config = bench_config(db, 0);
    config.prices = cost::PriceBook::from_text(R"(currency: USD
cpu_core_hour: {on_demand: "0.04"}
memory_gib_hour: {on_demand: "0.005"}
)").value();
    config.budgets = cost::BudgetSet::from_text(R"(budgets:
  - {name: bench, tenant_id: 00000000-0000-4000-8000-0000000000be, amount: "1000000000.00", hard_limit: true}
)").value();
    config.virtual_start = core::Timestamp::parse("2026-06-15T00:00:00Z").value();  // a day's rows fit its month
    auto p = must_open(config);
    const core::Timestamp now = p->now();
    auto filled = p->store().transact([&](backend::Store& tx) -> core::Status {
      for (std::int64_t i = 0; i < history; ++i) {
        cost::UsageInterval u;
        u.tenant_id = kTenant;
        u.job_id = core::Id::generate();
        u.cpu_cores = core::Quantity::from_int(1);
        u.end = core::Timestamp::from_unix_nanos(now.unix_nanos() - (i % 86'400) * 1'000'000'000LL);
        u.start = core::Timestamp::from_unix_nanos(u.end.unix_nanos() - 60'000'000'000LL);
        BUDCORE_TRY(cost::record_usage(tx, *config.prices, u));
      }
      return {};
    });
    if (!filled) std::abort();
    auto ctx = platform::CallContext::for_tenant(kTenant, "bench");
    // The period's first admission reads its history once; the rate is of those after it.
    auto first_at = std::chrono::steady_clock::now();
    if (!p->submit(ctx, bench_job(n))) std::abort();
    state.counters["first_admission_ms"] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_at).count();
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    std::vector<platform::SubmitRequest> jobs;
    for (std::int64_t i = 0; i < n; ++i) jobs.push_back({bench_job(i), ""});
    if (!p->submit_batch(ctx, std::move(jobs))) std::abort();
    report_rates(state, n, t0, c0);
    p.reset();
    drop_db(db);
  }
}
BENCHMARK(budget_with_history)->ArgName("rows")->Arg(1000)->Arg(10000)->Arg(100000)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

void batch_submit(benchmark::State& state) {
  const std::int64_t n = 10'000;
  for (auto _ : state) {
    std::string db = fresh_db("platform-submit");
    auto p = must_open(bench_config(db, 0));
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    submit_all(*p, n, n);
    report_rates(state, n, t0, c0);
    p.reset();
    drop_db(db);
  }
}
BENCHMARK(batch_submit)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

void store_batch_create(benchmark::State& state) {
  const std::int64_t n = 10'000;
  for (auto _ : state) {
    std::string db = fresh_db("platform-raw");
    backend::StoreOptions o;
    o.durable = true;
    auto store = backend::open_store("sqlite://" + db, o).value();
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    for (std::int64_t base = 0; base < n; base += 1000) {
      auto st = store->transact([&](backend::Store& tx) -> core::Status {
        for (std::int64_t i = base; i < base + 1000; ++i) {
          auto r = tx.create_job(kTenant, bench_job(i));
          if (!r) return r.error();
        }
        return {};
      });
      if (!st) std::abort();
    }
    report_rates(state, n, t0, c0);
    store.reset();
    drop_db(db);
  }
}
BENCHMARK(store_batch_create)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

std::int64_t rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

void queued_memory(benchmark::State& state) {
  const std::int64_t n = env_int("BUDCORE_BENCH_QUEUED", 1'000'000);
  for (auto _ : state) {
    std::string db = fresh_db("platform-queued");
    auto config = bench_config(db, 0);  // nothing fits: every job stays queued
    config.store_durable = false;
    auto p = must_open(config);
    const std::int64_t before = rss_bytes();
    auto t0 = std::chrono::steady_clock::now();
    submit_all(*p, n, 10'000);
    if (!p->pump()) std::abort();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(secs);
    const std::int64_t after = rss_bytes();
    state.counters["queued"] = static_cast<double>(n);
    state.counters["rss_bytes_per_queued_job"] = static_cast<double>(after - before) / static_cast<double>(n);
    state.counters["rss_mib"] = static_cast<double>(after) / (1 << 20);
    p.reset();
    drop_db(db);
  }
}
BENCHMARK(queued_memory)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

void platform_schedule(benchmark::State& state) {
  const bool change = state.range(0) == 1;
  const std::int64_t n = env_int("BUDCORE_BENCH_SCHEDULE_JOBS", 10'000);
  std::string db = fresh_db("platform-schedule");
  auto config = bench_config(db, 64);
  config.store_durable = false;
  auto p = must_open(config);
  submit_all(*p, n, 1000);
  auto ctx = platform::CallContext::for_tenant(kTenant, "bench");
  auto waiting = p->list_jobs(ctx, {.statuses = {job::JobStatus::Queued}}, {.limit = 500});
  if (!waiting || waiting->items.size() < 100) std::abort();
  if (!p->schedule(ctx)) std::abort();
  std::size_t next = 0;
  for (auto _ : state) {
    if (change) {
      state.PauseTiming();
      if (!p->cancel_job(ctx, waiting->items[next++ % waiting->items.size()].id)) std::abort();
      state.ResumeTiming();
    }
    auto timeline = p->schedule(ctx);
    if (!timeline || timeline->jobs.empty()) std::abort();
    benchmark::DoNotOptimize(timeline);
  }
  state.counters["jobs"] = static_cast<double>(n);
  p.reset();
  drop_db(db);
}
BENCHMARK(platform_schedule)->ArgName("changed")->Arg(1)->Arg(0)->Iterations(20)->Unit(benchmark::kMillisecond);

}  // namespace
