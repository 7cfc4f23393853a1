// Pipeline planning at 1k / 10k / 100k steps. Input documents come from
// benchmarks/peers/gen_pipeline.py (run by this program once per size, cached in the build
// directory), so the C++ and the networkx peer read the very same bytes.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/planner.hpp"
#include "pipeline/analyze.hpp"

#ifndef BUDCORE_BENCH_SOURCE_DIR
#define BUDCORE_BENCH_SOURCE_DIR "."
#endif

namespace {

using namespace budcore;

const std::string& document(int n) {
  static std::map<int, std::string> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  std::string file = "pipeline_bench_" + std::to_string(n) + ".json";
  if (!std::ifstream(file).good()) {
    std::string src = std::string(__FILE__);
    std::string dir = src.substr(0, src.find_last_of('/'));
    std::string cmd = "python3 " + dir + "/peers/gen_pipeline.py " + std::to_string(n) + " --out " + file;
    if (std::system(cmd.c_str()) != 0) std::abort();
  }
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return cache.emplace(n, ss.str()).first->second;
}

// The CLI's path: JSON text -> facts (simdjson) -> validation -> plan -> output JSON.
void BM_PlanText(benchmark::State& state) {
  const std::string& text = document(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto r = pipeline::plan_text(text);
    if (!r.valid()) state.SkipWithError("invalid");
    benchmark::DoNotOptimize(pipeline::to_json(r));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["steps"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_PlanText)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Extraction alone (simdjson DOM + facts).
void BM_ExtractFactsJson(benchmark::State& state) {
  const std::string& text = document(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    pipeline::detail::Facts facts;
    pipeline::detail::JsonSource source;
    benchmark::DoNotOptimize(pipeline::detail::extract_facts_json(text, false, source, facts));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ExtractFactsJson)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// The library's Value path: parse to core::Value, then plan.
void BM_PlanDocumentValue(benchmark::State& state) {
  const std::string& text = document(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto doc = core::parse_json(text);
    benchmark::DoNotOptimize(pipeline::plan_document(*doc));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_PlanDocumentValue)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Validation + planning on already extracted facts (copied per iteration).
void BM_AnalyzeOnly(benchmark::State& state) {
  const std::string& text = document(static_cast<int>(state.range(0)));
  pipeline::detail::Facts facts;
  pipeline::detail::JsonSource source;
  if (!pipeline::detail::extract_facts_json(text, false, source, facts)) std::abort();
  for (auto _ : state) {
    state.PauseTiming();
    pipeline::detail::Facts copy = facts;
    state.ResumeTiming();
    benchmark::DoNotOptimize(pipeline::detail::analyze(std::move(copy), true));
  }
}
BENCHMARK(BM_AnalyzeOnly)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
