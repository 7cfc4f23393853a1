// Throughput through replicas (docs/ha.md) on one PostgreSQL database, end to end: from the
// first submit to the leader having completed every job (admitted, run 0 s, completed, every
// transition committed). Starts no server: it reads the server's URI from BUDCORE_BENCH_PG_URI
// (benchmarks/ha_bench.sh starts a throwaway one) and skips every case without it. Each case
// works in a fresh schema of that database (dropped after), with one leader replica and
// follower replicas opened in this process (Platform handles with an `ha` section, replica ids
// of their own, system clock, the simulated cluster with room for every job):
// - ha_batch_submit/via:V/batch:B: BUDCORE_BENCH_HA_JOBS (default 10,000) jobs in submit_batch
//   calls of B jobs; V = 1: on the two followers in turn (each batch stored QUEUED with one
//   request per job that the leader carries out), V = 0: on the leader itself;
// - ha_single_submit/threads:T: the same number of jobs as single submits from T client
//   threads, each with a follower handle of its own (replicas r2 .. r(T+1));
// - graceful_handover/backlog:L: the time from closing the leader (it resigns the lease) to a
//   follower leading, recovery included, with the follower retry period of 2 s (Kueue's) and L
//   jobs running (1 core, an hour each) that the new leader takes over from their records;
//   BUDCORE_BENCH_HANDOVER_STORE=sqlite measures it on a SQLite file instead;
// - handover_to_admission/queued:Q: from closing the leader to the new leader admitting a job
//   submitted on a follower right after, with Q jobs waiting in a full queue beside it (and ten
//   running) that the new leader takes over first (the same store choice).
// Counters: jobs_per_s (to every job completed), admitted_jobs_per_s (to every job admitted),
// acked_jobs_per_s (to the last submit returning), all read from the store; leader_changes.
#include <benchmark/benchmark.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/platform/platform.hpp"

namespace {

using namespace budcore;
using Clock = std::chrono::steady_clock;

const core::Id kTenant = core::Id::parse("00000000-0000-4000-8000-0000000000be").value();

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoll(v) : fallback;
}

const char* server_uri() {
  const char* u = std::getenv("BUDCORE_BENCH_PG_URI");
  return u != nullptr && *u != '\0' ? u : nullptr;
}

bool skip_without_server(benchmark::State& state) {
  if (server_uri() != nullptr) return false;
  state.SkipWithError("BUDCORE_BENCH_PG_URI is not set (benchmarks/ha_bench.sh starts a PostgreSQL and sets it)");
  return true;
}

void sql(const std::string& uri, const std::string& statement) {
  PGconn* c = PQconnectdb(uri.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::fprintf(stderr, "connect: %s", PQerrorMessage(c));
    std::abort();
  }
  PGresult* r = PQexec(c, ("SET client_min_messages = warning; " + statement).c_str());
  if (PQresultStatus(r) != PGRES_COMMAND_OK) {
    std::fprintf(stderr, "%s: %s", statement.c_str(), PQerrorMessage(c));
    std::abort();
  }
  PQclear(r);
  PQfinish(c);
}

// A fresh schema on the server; the store URI whose search_path is that schema.
struct Schema {
  std::string name;
  std::string store_uri;
  explicit Schema(const std::string& tag) {
    static int seq = 0;
    name = "ha_bench_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++seq);
    const std::string server = server_uri();
    sql(server, "DROP SCHEMA IF EXISTS " + name + " CASCADE; CREATE SCHEMA " + name);
    store_uri = server + (server.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + name;
  }
  ~Schema() { sql(server_uri(), "DROP SCHEMA IF EXISTS " + name + " CASCADE"); }
};

// A ClusterQueue of `cores` cores and room in memory for as many 1 GB jobs.
std::string cluster_queue(const std::string& name, std::int64_t cores) {
  return R"({"name": ")" + name + R"(", "resource_groups": [{"covered_resources": ["cpu", "memory"],
      "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": ")" +
         std::to_string(cores) + R"("}, {"name": "memory", "nominal": ")" + std::to_string(2 * cores) + R"(Gi"}]}]}]})";
}

// `batch_cores` for batch jobs (room for every job at once by default: admission never waits
// for quota) and 100 cores for training jobs.
platform::PlatformConfig replica_config(const std::string& store_uri, const std::string& replica,
                                        std::int64_t batch_cores = 100'000) {
  platform::PlatformConfig c;
  c.store_uri = store_uri;
  c.store_durable = true;
  c.clock = platform::ClockKind::System;
  std::string quota = R"({"resource_flavors": [{"name": "default"}], "cluster_queues": [)" +
                      cluster_queue("batch-jobs", batch_cores) + ", " + cluster_queue("training-jobs", 100) + "]}";
  c.cluster.quota = platform::quota_config_from_value(core::parse_json(quota).value(), "quota").value();
  c.ha = platform::HaConfig{replica, core::Duration::seconds(15), core::Duration::seconds(10),
                            core::Duration::seconds(2), true};
  return c;
}

std::unique_ptr<platform::Platform> must_open(platform::PlatformConfig c) {
  auto p = platform::Platform::open(std::move(c));
  if (!p) {
    std::fprintf(stderr, "open: %s\n", p.error().describe().c_str());
    std::abort();
  }
  return std::move(*p);
}

// A job of 1 core that the simulated cluster runs for `seconds` (0 by default).
job::Job bench_job(std::int64_t i, std::int64_t seconds = 0) {
  job::Job j;
  j.name = "ha-" + std::to_string(i % 1000);
  j.job_type = job::JobType::Batch;
  j.deployment_type = job::DeploymentType::Docker;
  j.memory_gb = core::Quantity::from_int(1);
  j.estimated_duration_seconds = 60;
  j.spec = core::Value::map({{"image", "ghcr.io/example/worker:1.0"},
                             {"args", core::Value::list({"--shard", i})},
                             {"sim", core::Value::map({{"duration_seconds", seconds}})}});
  return j;
}

// Read from the store (so a change of leader mid-run does not hide jobs another replica ran),
// and only what is new since the last look: the tenant's transition events after the last
// tenant_seq seen (numbered at commit, so in commit order). A count over the jobs table every
// poll cost the server about 13 ms a time, a large share of the 2-core machine it measures.
class Progress {
 public:
  double completed = 0;
  double admitted = 0;
  double epoch = 0;

  void poll(PGconn* c) {
    const std::string tenant = kTenant.to_string(), after = std::to_string(last_seq_);
    const char* params[] = {tenant.c_str(), after.c_str()};
    PGresult* r = PQexecParams(c,
                               "SELECT tenant_seq, CAST(doc AS jsonb)->>'to', (SELECT max(epoch) FROM leader_lease) "
                               "FROM platform_events WHERE tenant_id = $1 AND tenant_seq > $2 AND type = 'job.transition' "
                               "ORDER BY tenant_seq",
                               2, nullptr, params, nullptr, nullptr, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
      std::fprintf(stderr, "progress: %s", PQerrorMessage(c));
      std::abort();
    }
    for (int i = 0; i < PQntuples(r); ++i) {
      last_seq_ = std::atoll(PQgetvalue(r, i, 0));
      const std::string_view to = PQgetvalue(r, i, 1);
      if (to == "completed") completed += 1;
      if (to == "scheduled") admitted += 1;  // every job is admitted once (no preemption here)
      epoch = std::atof(PQgetvalue(r, i, 2));
    }
    PQclear(r);
  }

 private:
  long long last_seq_ = 0;
};

// A leader (r1) and `followers` followers (r2 ...) on one fresh schema.
struct Replicas {
  Schema schema;
  std::unique_ptr<platform::Platform> leader;
  std::vector<std::unique_ptr<platform::Platform>> followers;
  explicit Replicas(std::size_t n) : schema("run") {
    leader = must_open(replica_config(schema.store_uri, "r1"));
    if (leader->ha_status()->role != "leader") {
      std::fprintf(stderr, "r1 does not lead\n");
      std::abort();
    }
    for (std::size_t i = 0; i < n; ++i)
      followers.push_back(must_open(replica_config(schema.store_uri, "r" + std::to_string(i + 2))));
  }
  ~Replicas() {
    followers.clear();
    leader.reset();
  }
};

// Waits until `n` jobs are completed in the store; fills the counters (leader_changes: how
// often the lease changed hands during the run, 0 when r1 led throughout).
void finish(benchmark::State& state, const std::string& store_uri, std::int64_t n, Clock::time_point t0,
            Clock::time_point acked) {
  PGconn* c = PQconnectdb(store_uri.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::fprintf(stderr, "connect: %s", PQerrorMessage(c));
    std::abort();
  }
  double admitted_at = -1;
  const auto give_up = Clock::now() + std::chrono::minutes(10);
  Progress p;
  for (;;) {
    p.poll(c);
    const double since = std::chrono::duration<double>(Clock::now() - t0).count();
    if (admitted_at < 0 && p.admitted >= static_cast<double>(n)) admitted_at = since;
    if (p.completed >= static_cast<double>(n)) {
      state.SetIterationTime(since);
      state.counters["jobs_per_s"] = static_cast<double>(n) / since;
      state.counters["admitted_jobs_per_s"] = static_cast<double>(n) / admitted_at;
      state.counters["acked_jobs_per_s"] = static_cast<double>(n) / std::chrono::duration<double>(acked - t0).count();
      state.counters["leader_changes"] = p.epoch - 1;
      PQfinish(c);
      return;
    }
    if (Clock::now() > give_up) {
      std::fprintf(stderr, "only %.0f of %lld jobs completed after 10 minutes\n", p.completed, static_cast<long long>(n));
      std::abort();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void ha_batch_submit(benchmark::State& state) {
  if (skip_without_server(state)) return;
  const bool via_followers = state.range(0) == 1;
  const std::int64_t batch = state.range(1);
  const std::int64_t n = env_int("BUDCORE_BENCH_HA_JOBS", 10'000);
  auto ctx = platform::CallContext::for_tenant(kTenant, "bench");
  for (auto _ : state) {
    Replicas r(2);
    const auto t0 = Clock::now();
    std::size_t k = 0;
    for (std::int64_t start = 0; start < n; start += batch) {
      std::vector<platform::SubmitRequest> jobs;
      for (std::int64_t i = start; i < std::min(n, start + batch); ++i) jobs.push_back({bench_job(i), ""});
      platform::Platform& to = via_followers ? *r.followers[k++ % r.followers.size()] : *r.leader;
      auto res = to.submit_batch(ctx, std::move(jobs));
      if (!res) {
        std::fprintf(stderr, "submit: %s\n", res.error().describe().c_str());
        std::abort();
      }
    }
    finish(state, r.schema.store_uri, n, t0, Clock::now());
  }
  state.counters["jobs"] = static_cast<double>(n);
}
BENCHMARK(ha_batch_submit)
    ->ArgNames({"via", "batch"})
    ->Args({1, 1000})
    ->Args({1, 10'000})
    ->Args({0, 1000})
    ->Args({0, 10'000})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void ha_single_submit(benchmark::State& state) {
  if (skip_without_server(state)) return;
  const auto threads = static_cast<std::size_t>(state.range(0));
  const std::int64_t n = env_int("BUDCORE_BENCH_HA_JOBS", 10'000);
  for (auto _ : state) {
    Replicas r(threads);
    std::atomic<std::int64_t> next{0};
    const auto t0 = Clock::now();
    std::vector<std::thread> clients;
    for (std::size_t t = 0; t < threads; ++t)
      clients.emplace_back([&, t] {
        auto ctx = platform::CallContext::for_tenant(kTenant, "bench");
        for (std::int64_t i = next++; i < n; i = next++) {
          auto res = r.followers[t]->submit(ctx, bench_job(i));
          if (!res) {
            std::fprintf(stderr, "submit: %s\n", res.error().describe().c_str());
            std::abort();
          }
        }
      });
    for (auto& c : clients) c.join();
    finish(state, r.schema.store_uri, n, t0, Clock::now());
  }
  state.counters["jobs"] = static_cast<double>(n);
}
BENCHMARK(ha_single_submit)
    ->ArgName("threads")
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// A store for one handover: a fresh schema, or with BUDCORE_BENCH_HANDOVER_STORE=sqlite a fresh
// SQLite file (removed with it).
struct HandoverStore {
  std::optional<Schema> schema;
  std::string uri, file;
  HandoverStore() {
    if (sqlite()) {
      file = (std::filesystem::temp_directory_path() / ("ha-bench-" + std::to_string(::getpid()) + ".db")).string();
      remove_file();
      uri = "sqlite://" + file;
    } else {
      schema.emplace("handover");
      uri = schema->store_uri;
    }
  }
  ~HandoverStore() { remove_file(); }
  static bool sqlite() {
    const char* store = std::getenv("BUDCORE_BENCH_HANDOVER_STORE");
    return store != nullptr && std::string_view(store) == "sqlite";
  }
  void remove_file() const {
    if (!file.empty())
      for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(file + s);
  }
};

// `n` batch jobs of an hour submitted on `leader` in batches of 1,000.
void submit_backlog(platform::Platform& leader, std::int64_t n) {
  auto ctx = platform::CallContext::for_tenant(kTenant, "bench");
  for (std::int64_t start = 0; start < n; start += 1000) {
    std::vector<platform::SubmitRequest> jobs;
    for (std::int64_t i = start; i < std::min(n, start + 1000); ++i) jobs.push_back({bench_job(i, 3600), ""});
    if (auto res = leader.submit_batch(ctx, std::move(jobs)); !res) {
      std::fprintf(stderr, "submit: %s\n", res.error().describe().c_str());
      std::abort();
    }
  }
}

void report_times(benchmark::State& state, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  if (ms.empty()) return;
  state.counters["min_ms"] = ms.front();
  state.counters["p50_ms"] = ms[(ms.size() - 1) / 2];
  state.counters["max_ms"] = ms.back();
}

// From the leader's close (it resigns the lease) to a follower leading.
void graceful_handover(benchmark::State& state) {
  if (!HandoverStore::sqlite() && skip_without_server(state)) return;
  std::vector<double> ms;
  for (auto _ : state) {
    HandoverStore store;
    auto leader = must_open(replica_config(store.uri, "r1"));
    submit_backlog(*leader, state.range(0));
    auto f2 = must_open(replica_config(store.uri, "r2"));
    auto f3 = must_open(replica_config(store.uri, "r3"));
    // Both followers' next attempts fall anywhere in their retry period, as they would.
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + std::rand() % 2000));
    const auto t0 = Clock::now();
    leader.reset();
    for (;;) {
      if (f2->ha_status()->role == "leader" || f3->ha_status()->role == "leader") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    state.SetIterationTime(secs);
    ms.push_back(secs * 1000);
  }
  report_times(state, std::move(ms));
}
BENCHMARK(graceful_handover)->ArgName("backlog")->Arg(0)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(graceful_handover)->ArgName("backlog")->Arg(20'000)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

// From the leader's close to the new leader's first admission: `queued` batch jobs wait behind
// ten running ones (the batch queue has 10 cores), and a training job submitted on a follower
// right after the close is admitted to a queue with room.
void handover_to_admission(benchmark::State& state) {
  if (!HandoverStore::sqlite() && skip_without_server(state)) return;
  std::vector<double> ms;
  auto ctx = platform::CallContext::for_tenant(kTenant, "bench");
  for (auto _ : state) {
    HandoverStore store;
    auto leader = must_open(replica_config(store.uri, "r1", 10));
    submit_backlog(*leader, state.range(0) + 10);
    auto f2 = must_open(replica_config(store.uri, "r2", 10));
    auto f3 = must_open(replica_config(store.uri, "r3", 10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + std::rand() % 2000));
    const auto t0 = Clock::now();
    leader.reset();
    job::Job probe = bench_job(0, 3600);
    probe.job_type = job::JobType::Training;
    auto id = f2->submit(ctx, std::move(probe));
    if (!id) {
      std::fprintf(stderr, "submit: %s\n", id.error().describe().c_str());
      std::abort();
    }
    for (;;) {
      auto rec = f2->get_job(ctx, id->record.job.id);
      if (rec && rec->job.status != job::JobStatus::Queued && rec->job.status != job::JobStatus::Pending) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    state.SetIterationTime(secs);
    ms.push_back(secs * 1000);
  }
  report_times(state, std::move(ms));
}
BENCHMARK(handover_to_admission)->ArgName("queued")->Arg(5'000)->Arg(20'000)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
