// Serverless hot paths: a request from enqueue through assignment to completion in the
// in-memory queue (the admission checks and scoring included), the latency of each such
// operation, the durable queue on a SQLite file with group commit, and replaying a trace
// through queue, pool and policy on the virtual clock.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include <unistd.h>

#include "budcore/backend/store.hpp"
#include "budcore/serverless/autoscaler.hpp"
#include "budcore/serverless/durable_queue.hpp"
#include "budcore/serverless/replay.hpp"
#include "budcore/serverless/request_queue.hpp"

namespace {

using namespace budcore;
using serverless::EndpointConfig;

EndpointConfig endpoint() {
  auto c = EndpointConfig::from_text(
      "name: bench\nmodel: m\nconcurrency_per_worker: 8\nprice_per_gpu_hour: \"2.49\"\n"
      "cold_start: {container_seconds: 8, model_gib: 16, load_gib_per_second: 1, warmup_seconds: 4}\n"
      "service: {prefill_tokens_per_second: 8000, decode_tokens_per_second: 50, overhead_seconds: 0.05}\n"
      "warm_pool: {max_warm_workers: 64, idle_timeout_seconds: 120, max_idle_cost_per_hour: \"4.98\"}\n"
      "queue: {max_queue_size: 100000000, dedup_window_seconds: 0}\n"
      "tenants: {default_concurrency: 100000000}\n");
  if (!c) std::abort();
  return *c;
}

serverless::Submission submission(int tenant, serverless::Priority p) {
  serverless::Submission s;
  s.tenant = "tenant-" + std::to_string(tenant);
  s.priority = p;
  s.payload_size_bytes = 512;
  s.estimated_compute = core::Duration::milliseconds(800);
  return s;
}

// Enqueue (admission + scoring), pick the best, assign, start and complete one request, with
// `tenants` tenants in turn over the four classes and 64 requests always waiting; the clock
// advances 1 us per operation.
void enqueue_to_assign(benchmark::State& state) {
  const int tenants = static_cast<int>(state.range(0));
  auto clock = std::make_shared<core::VirtualClock>();
  serverless::RequestQueue q(endpoint(), clock);
  q.set_capacity({1'000'000, core::Duration()});
  std::vector<serverless::Submission> subs;
  for (int t = 0; t < tenants; ++t) {
    for (auto p : serverless::kAllPriorities) subs.push_back(submission(t, p));
  }
  std::size_t i = 0;
  for (int k = 0; k < 64; ++k) (void)q.enqueue(subs[i++ % subs.size()]);
  for (auto _ : state) {
    auto r = q.enqueue(subs[i++ % subs.size()]);
    benchmark::DoNotOptimize(r);
    const serverless::RequestId id = *q.peek();
    (void)q.assign(id, 1);
    (void)q.start(id);
    (void)q.complete(id);
    clock->advance(core::Duration::microseconds(1));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(enqueue_to_assign)->Arg(1)->Arg(16)->Iterations(2'000'000);

// The durable queue on a SQLite file with synchronous=FULL (every commit survives power loss):
// per iteration `batch` requests are enqueued in one transaction, claimed in one and completed
// in one (group commit). Items: requests taken from enqueue to COMPLETED. With enqueue_only,
// requests enqueued (one transaction per batch) and nothing else.
void durable_sqlite(benchmark::State& state, bool enqueue_only) {
  const std::int64_t batch = state.range(0);
  const auto dir = std::filesystem::temp_directory_path() / ("budcore_squeue_bench_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  backend::StoreOptions o;
  o.durable = true;
  auto opened = backend::open_store("sqlite://" + (dir / "queue.db").string(), o);
  if (!opened) std::abort();
  std::unique_ptr<backend::Store> store = std::move(*opened);
  const core::Id owner = core::Id::generate();
  std::vector<serverless::DurableEnqueue> reqs(static_cast<std::size_t>(batch));
  for (std::int64_t i = 0; i < batch; ++i) {
    auto& r = reqs[static_cast<std::size_t>(i)];
    r.endpoint = "bench";
    r.tenant = "tenant-" + std::to_string(i % 16);
    r.payload_hash = {};
    r.priority = serverless::kAllPriorities[i % 4];
    r.score = static_cast<double>(4 - i % 4) * 1000.0;
    r.estimated_compute = core::Duration::milliseconds(800);
    r.max_wait = core::Duration::seconds(3600);
    r.max_process = core::Duration::seconds(600);
    r.max_retries = 2;
  }
  std::vector<serverless::DurableFinish> done;
  for (auto _ : state) {
    auto e = store->enqueue_serverless_requests(owner, reqs);
    if (!e) std::abort();
    if (enqueue_only) continue;
    auto c = store->claim_serverless_requests(owner, "bench", "w", batch, core::Duration::seconds(30));
    if (!c || static_cast<std::int64_t>(c->size()) != batch) std::abort();
    done.clear();
    for (const auto& r : *c) done.push_back({r.id, r.claim, serverless::DurableOutcome::Complete, {}, {}});
    auto f = store->finish_serverless_requests(owner, done);
    if (!f) std::abort();
  }
  state.SetItemsProcessed(state.iterations() * batch);
  store.reset();
  std::filesystem::remove_all(dir);
}
void durable_sqlite_group_commit(benchmark::State& state) { durable_sqlite(state, false); }
void durable_sqlite_enqueue(benchmark::State& state) { durable_sqlite(state, true); }
BENCHMARK(durable_sqlite_group_commit)->Arg(1)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(durable_sqlite_enqueue)->Arg(1)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same operation timed one by one: p50 and p99 in nanoseconds as counters.
void enqueue_to_assign_latency(benchmark::State& state) {
  auto clock = std::make_shared<core::VirtualClock>();
  serverless::RequestQueue q(endpoint(), clock);
  q.set_capacity({1'000'000, core::Duration()});
  std::vector<serverless::Submission> subs;
  for (int t = 0; t < 16; ++t) {
    for (auto p : serverless::kAllPriorities) subs.push_back(submission(t, p));
  }
  std::vector<double> ns;
  ns.reserve(static_cast<std::size_t>(state.max_iterations));
  std::size_t i = 0;
  for (int k = 0; k < 64; ++k) (void)q.enqueue(subs[i++ % subs.size()]);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = q.enqueue(subs[i++ % subs.size()]);
    benchmark::DoNotOptimize(r);
    const serverless::RequestId id = *q.peek();
    (void)q.assign(id, 1);
    (void)q.start(id);
    (void)q.complete(id);
    ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
    clock->advance(core::Duration::microseconds(1));
  }
  std::sort(ns.begin(), ns.end());
  state.counters["p50_ns"] = ns[ns.size() / 2];
  state.counters["p99_ns"] = ns[ns.size() * 99 / 100];
}
BENCHMARK(enqueue_to_assign_latency)->Iterations(1'000'000);

// A synthetic trace of `n` requests at 20 per second (prompt 1,000-3,000 tokens, 50-250 generated).
std::vector<serverless::TraceRequest> synthetic_trace(std::int64_t n) {
  std::vector<serverless::TraceRequest> t;
  t.reserve(static_cast<std::size_t>(n));
  const core::Timestamp start = core::Timestamp::from_unix_seconds(1'700'000'000);
  std::uint64_t x = 88172645463325252ULL;  // xorshift: the same trace every run
  for (std::int64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    serverless::TraceRequest r;
    r.at = start + core::Duration::milliseconds(i * 50);
    r.context_tokens = 1000 + static_cast<std::int64_t>(x % 2000);
    r.generated_tokens = 50 + static_cast<std::int64_t>((x >> 20) % 200);
    t.push_back(r);
  }
  return t;
}

void replay_synthetic(benchmark::State& state) {
  const auto trace = synthetic_trace(state.range(0));
  const EndpointConfig c = endpoint();
  double completed = 0;
  for (auto _ : state) {
    serverless::QueueDepthPolicy policy(c);
    auto r = serverless::replay(c, trace, policy);
    if (!r) state.SkipWithError(r.error().describe().c_str());
    benchmark::DoNotOptimize(r);
    completed = r ? static_cast<double>(r->completed) / static_cast<double>(trace.size()) : 0;
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  // Requests arriving before the first workers are ready are refused for an estimated wait over the SLA.
  state.counters["completed_share"] = completed;
}
BENCHMARK(replay_synthetic)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// Both Azure LLM inference trace files under every policy, when the shared data is present.
void replay_azure(benchmark::State& state) {
  const char* dir = std::getenv("BUDCORE_AZURE_TRACE_DIR");
  const std::filesystem::path base = dir != nullptr ? dir : "../shared/data/azure-llm-inference-2023";
  auto code = serverless::load_azure_trace((base / "AzureLLMInferenceTrace_code.csv").string());
  auto conv = serverless::load_azure_trace((base / "AzureLLMInferenceTrace_conv.csv").string());
  if (!code || !conv) {
    state.SkipWithError("the Azure trace is not present (set BUDCORE_AZURE_TRACE_DIR)");
    return;
  }
  const EndpointConfig c = endpoint();
  std::int64_t requests = 0;
  for (auto _ : state) {
    for (const auto* trace : {&*code, &*conv}) {
      for (std::string_view name : serverless::kPolicyNames) {
        auto policy = serverless::make_policy(name, c);
        auto r = serverless::replay(c, *trace, **policy);
        benchmark::DoNotOptimize(r);
        requests += static_cast<std::int64_t>(trace->size());
      }
    }
  }
  state.SetItemsProcessed(requests);
}
BENCHMARK(replay_azure)->Unit(benchmark::kMillisecond);

}  // namespace
