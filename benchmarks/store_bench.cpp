// Store benchmarks (SQLite backend, on a file in the working directory's temp dir):
// - durable submits per second (one transaction each, synchronous=FULL), measured interleaved
//   with a raw-SQLite peer doing the same inserts (same schema and indexes, one prepared
//   statement, same pragmas), so the ratio is taken under the same disk conditions;
// - durable status transitions per second;
// - listing a tenant's 100 newest jobs out of BUDCORE_BENCH_JOBS (default 1,000,000), as
//   summaries (indexed columns) and as whole records (documents decoded), from a database
//   cached in $BUDCORE_BENCH_DIR (default /tmp) so it is built only once.
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/job/job.hpp"

namespace {

using budcore::backend::open_store;
using budcore::backend::Store;
using budcore::core::Id;

std::filesystem::path bench_dir() {
  const char* d = std::getenv("BUDCORE_BENCH_DIR");
  return d != nullptr ? std::filesystem::path(d) : std::filesystem::temp_directory_path();
}

budcore::job::Job sample_job(int i) {
  budcore::job::Job j;
  j.name = "bench-" + std::to_string(i % 1000);
  j.gpu_count = 1;
  j.gpu_type = "nvidia-a100-80gb";
  j.spec = budcore::core::Value::map({{"image", "vllm/vllm-openai:0.6"}, {"model", "llama-3-8b"}});
  return j;
}

std::unique_ptr<Store> must_open(const std::string& uri, bool durable = true) {
  budcore::backend::StoreOptions o;
  o.durable = durable;
  auto s = open_store(uri, o);
  if (!s) {
    std::fprintf(stderr, "open_store(%s): %s\n", uri.c_str(), s.error().describe().c_str());
    std::abort();
  }
  return std::move(*s);
}

void must(int rc, sqlite3* db) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "sqlite: %s\n", sqlite3_errmsg(db));
    std::abort();
  }
}

// The raw peer: the store's own schema (created by open_store), the same pragmas, and the
// INSERT the store issues, prepared once, one BEGIN IMMEDIATE / COMMIT per row.
struct RawSqlite {
  sqlite3* db = nullptr;
  sqlite3_stmt* insert = nullptr;
  sqlite3_stmt* begin = nullptr;
  sqlite3_stmt* commit = nullptr;
  std::string tenant = Id::generate().to_string();
  std::string doc;

  explicit RawSqlite(const std::string& path) {
    must(sqlite3_open(path.c_str(), &db), db);
    sqlite3_busy_timeout(db, 10000);
    must(sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;",
                      nullptr, nullptr, nullptr),
         db);
    must(sqlite3_prepare_v2(db,
                            "INSERT INTO jobs (tenant_id, id, project_id, cluster_id, pipeline_id, status, job_type, "
                            "source, created_ns, updated_ns, version, idempotency_key, doc, name, priority, gpu_type, "
                            "gpu_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?) "
                            "ON CONFLICT (tenant_id, idempotency_key) DO NOTHING",
                            -1, &insert, nullptr),
         db);
    must(sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, nullptr), db);
    must(sqlite3_prepare_v2(db, "COMMIT", -1, &commit, nullptr), db);
    auto j = sample_job(0);
    j.id = Id::generate();
    j.created_at = j.updated_at = budcore::core::Timestamp::from_unix_seconds(1'767'225'600);
    doc = j.to_json();  // a document of the size the store writes
  }
  ~RawSqlite() {
    sqlite3_finalize(insert);
    sqlite3_finalize(begin);
    sqlite3_finalize(commit);
    sqlite3_close(db);
  }
  void step(sqlite3_stmt* s) {
    must(sqlite3_step(s), db);
    sqlite3_reset(s);
  }
  void submit(std::int64_t n) {
    std::string id = Id::generate().to_string();
    std::string nil = Id().to_string();
    std::string key = "raw-" + std::to_string(n);
    step(begin);
    sqlite3_bind_text(insert, 1, tenant.data(), static_cast<int>(tenant.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 2, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 3, nil.data(), static_cast<int>(nil.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 4, nil.data(), static_cast<int>(nil.size()), SQLITE_STATIC);
    sqlite3_bind_null(insert, 5);
    sqlite3_bind_text(insert, 6, "pending", -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 7, "batch", -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 8, "direct", -1, SQLITE_STATIC);
    sqlite3_bind_int64(insert, 9, n);
    sqlite3_bind_int64(insert, 10, n);
    sqlite3_bind_text(insert, 11, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 12, doc.data(), static_cast<int>(doc.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 13, "bench-0", -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 14, "normal", -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 15, "nvidia-a100-80gb", -1, SQLITE_STATIC);
    sqlite3_bind_int64(insert, 16, 1);
    step(insert);
    step(commit);
  }
};

struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& name) : path(bench_dir() / name) { remove(); }
  ~TempFile() { remove(); }
  void remove() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  }
};

// Store vs raw SQLite, interleaved in batches so both see the same disk.
void BM_DurableSubmitStoreVsRawSqlite(benchmark::State& state) {
  TempFile store_file("budcore-bench-store.db"), raw_file("budcore-bench-raw.db");
  auto store = must_open("sqlite://" + store_file.path.string());
  { must_open("sqlite://" + raw_file.path.string()); }  // same schema and indexes
  RawSqlite raw(raw_file.path.string());
  const Id tenant = Id::generate();
  constexpr int kBatch = 25;
  double store_s = 0, raw_s = 0;
  std::int64_t n = 0, submitted = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) {
      auto r = store->create_job(tenant, sample_job(static_cast<int>(n + i)), "k-" + std::to_string(n + i));
      if (!r) state.SkipWithError(r.error().describe().c_str());
    }
    auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) raw.submit(n + i);
    auto t2 = std::chrono::steady_clock::now();
    store_s += std::chrono::duration<double>(t1 - t0).count();
    raw_s += std::chrono::duration<double>(t2 - t1).count();
    n += kBatch;
    submitted += kBatch;
  }
  state.counters["store_submits_per_s"] = static_cast<double>(submitted) / store_s;
  state.counters["raw_sqlite_inserts_per_s"] = static_cast<double>(submitted) / raw_s;
  state.counters["store_vs_raw"] = raw_s / store_s;
}
BENCHMARK(BM_DurableSubmitStoreVsRawSqlite)->Unit(benchmark::kMillisecond)->MinTime(3.0);

void BM_DurableTransition(benchmark::State& state) {
  TempFile file("budcore-bench-transition.db");
  auto store = must_open("sqlite://" + file.path.string());
  const Id tenant = Id::generate();
  std::vector<Id> ids;
  (void)store->transact([&](Store& tx) -> budcore::core::Status {
    for (int i = 0; i < 20000; ++i) ids.push_back(tx.create_job(tenant, sample_job(i))->record.job.id);
    return {};
  });
  // Round-robin over the jobs, each walked along its path: 4 transitions per prepared job.
  using budcore::job::JobStatus;
  constexpr JobStatus kPath[] = {JobStatus::Queued, JobStatus::Scheduled, JobStatus::Running, JobStatus::Completed};
  std::size_t n = 0;
  for (auto _ : state) {
    const std::size_t step = n / ids.size();
    if (step == std::size(kPath)) {
      state.SkipWithError("ran out of prepared jobs");
      break;
    }
    auto r = store->transition_job(tenant, ids[n % ids.size()], static_cast<std::int64_t>(step) + 1, kPath[step]);
    if (!r) state.SkipWithError(r.error().describe().c_str());
    ++n;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DurableTransition)->Unit(benchmark::kMicrosecond)->MinTime(2.0);

std::int64_t list_corpus_size() {
  const char* n = std::getenv("BUDCORE_BENCH_JOBS");
  return n != nullptr ? std::atoll(n) : 1'000'000;
}

// The cached corpus: `total` jobs of one tenant (the worst case for that tenant's list).
std::string list_corpus(Id& tenant) {
  const std::int64_t total = list_corpus_size();
  // Keyed by schema version: a corpus written by an older schema would take the pre-v3 path.
  auto path = bench_dir() / ("budcore-bench-list-v" + std::to_string(budcore::backend::latest_schema_version()) +
                             "-" + std::to_string(total) + ".db");
  auto tenant_file = path.string() + ".tenant";
  if (std::filesystem::exists(tenant_file)) {
    std::FILE* f = std::fopen(tenant_file.c_str(), "r");
    char buf[64] = {};
    std::size_t got = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    tenant = *Id::parse(std::string_view(buf, got));
    return "sqlite://" + path.string();
  }
  tenant = Id::generate();
  auto store = must_open("sqlite://" + path.string(), false);
  constexpr std::int64_t kChunk = 20000;
  for (std::int64_t done = 0; done < total; done += kChunk) {
    auto st = store->transact([&](Store& tx) -> budcore::core::Status {
      for (std::int64_t i = done; i < std::min(total, done + kChunk); ++i) {
        BUDCORE_TRY(tx.create_job(tenant, sample_job(static_cast<int>(i))));
      }
      return {};
    });
    if (!st) {
      std::fprintf(stderr, "building the corpus: %s\n", st.error().describe().c_str());
      std::abort();
    }
  }
  std::FILE* f = std::fopen(tenant_file.c_str(), "w");
  std::fputs(tenant.to_string().c_str(), f);
  std::fclose(f);
  return "sqlite://" + path.string();
}

void BM_ListNewest100(benchmark::State& state) {
  Id tenant;
  auto store = must_open(list_corpus(tenant));
  for (auto _ : state) {
    auto page = store->list_jobs(tenant, {}, budcore::backend::PageRequest{100, ""});
    if (!page || page->items.size() != 100) state.SkipWithError("list failed");
    benchmark::DoNotOptimize(page);
  }
  state.counters["corpus_jobs"] = static_cast<double>(list_corpus_size());
}
BENCHMARK(BM_ListNewest100)->Unit(benchmark::kMicrosecond);

void BM_ListNewest100Summaries(benchmark::State& state) {
  Id tenant;
  auto store = must_open(list_corpus(tenant));
  for (auto _ : state) {
    auto page = store->list_job_summaries(tenant, {}, budcore::backend::PageRequest{100, ""});
    if (!page || page->items.size() != 100) state.SkipWithError("list failed");
    benchmark::DoNotOptimize(page);
  }
  state.counters["corpus_jobs"] = static_cast<double>(list_corpus_size());
}
BENCHMARK(BM_ListNewest100Summaries)->Unit(benchmark::kMicrosecond);

void BM_ListNewest100SummariesByStatus(benchmark::State& state) {
  Id tenant;
  auto store = must_open(list_corpus(tenant));
  budcore::backend::JobFilter f;
  f.statuses = {budcore::job::JobStatus::Pending};
  for (auto _ : state) {
    auto page = store->list_job_summaries(tenant, f, budcore::backend::PageRequest{100, ""});
    if (!page || page->items.size() != 100) state.SkipWithError("list failed");
    benchmark::DoNotOptimize(page);
  }
}
BENCHMARK(BM_ListNewest100SummariesByStatus)->Unit(benchmark::kMicrosecond);

// A page deep in the list (after 10,000 jobs): keyset paging keeps it as cheap as the first.
void BM_ListSummariesDeepPage(benchmark::State& state) {
  Id tenant;
  auto store = must_open(list_corpus(tenant));
  budcore::backend::PageRequest page{1000, ""};
  for (int i = 0; i < 10; ++i) page.after = store->list_job_summaries(tenant, {}, page)->next_cursor;
  page.limit = 100;
  for (auto _ : state) {
    auto p = store->list_job_summaries(tenant, {}, page);
    if (!p || p->items.size() != 100) state.SkipWithError("list failed");
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_ListSummariesDeepPage)->Unit(benchmark::kMicrosecond);

void BM_ListNewest100ByStatus(benchmark::State& state) {
  Id tenant;
  auto store = must_open(list_corpus(tenant));
  budcore::backend::JobFilter f;
  f.statuses = {budcore::job::JobStatus::Pending};
  for (auto _ : state) {
    auto page = store->list_jobs(tenant, f, budcore::backend::PageRequest{100, ""});
    if (!page || page->items.size() != 100) state.SkipWithError("list failed");
    benchmark::DoNotOptimize(page);
  }
}
BENCHMARK(BM_ListNewest100ByStatus)->Unit(benchmark::kMicrosecond);

}  // namespace
