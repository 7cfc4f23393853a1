// Parse and dump of a ~1 MB JSON document (a list of job-like records), against nlohmann's DOM
// as a reference point. Run: build/<dir>/benchmarks/core_value_bench
#include <benchmark/benchmark.h>

#include <string>

#include <nlohmann/json.hpp>

#include "budcore/core/json.hpp"
#include "budcore/core/value.hpp"
#include "budcore/core/yaml.hpp"

namespace {

using budcore::core::JsonOptions;
using budcore::core::List;
using budcore::core::Map;
using budcore::core::Value;

// Deterministic: record i differs only by its numbers and names.
Value make_document(std::size_t target_bytes) {
  List jobs;
  std::size_t approx = 0;
  for (long long i = 0; approx < target_bytes; ++i) {
    Map labels{{"team", "ml-" + std::to_string(i % 7)}, {"kueue.x-k8s.io/queue-name", "lq-" + std::to_string(i % 3)}};
    Map resources{{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", i % 4}};
    Map job{{"id", "job-" + std::to_string(i)},
            {"priority", i % 10},
            {"cost_per_hour", 2.5 + static_cast<double>(i % 100) / 8.0},
            {"preemptible", i % 2 == 0},
            {"labels", Value(std::move(labels))},
            {"resources", Value(std::move(resources))},
            {"args", Value::list({"--epochs", i % 50, "--lr", 0.001, "héllo \"quoted\"\n"})},
            {"parent", i == 0 ? Value() : Value("job-" + std::to_string(i - 1))}};
    jobs.emplace_back(std::move(job));
    approx += 330;
  }
  return Value(Map{{"schema_version", 1}, {"jobs", Value(std::move(jobs))}});
}

const std::string& document_text() {
  static const std::string text = budcore::core::to_json(make_document(1 << 20));
  return text;
}

void BM_ParseJson(benchmark::State& state) {
  const std::string& text = document_text();
  for (auto _ : state) {
    auto v = budcore::core::parse_json(text);
    if (!v) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(v);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseJson)->Unit(benchmark::kMillisecond);

void BM_DumpJsonCompact(benchmark::State& state) {
  Value v = *budcore::core::parse_json(document_text());
  for (auto _ : state) {
    std::string out = budcore::core::to_json(v);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(document_text().size()));
}
BENCHMARK(BM_DumpJsonCompact)->Unit(benchmark::kMillisecond);

void BM_DumpJsonIndented(benchmark::State& state) {
  Value v = *budcore::core::parse_json(document_text());
  JsonOptions pretty;
  pretty.indent = 2;
  for (auto _ : state) {
    std::string out = budcore::core::to_json(v, pretty);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_DumpJsonIndented)->Unit(benchmark::kMillisecond);

void BM_NlohmannParse(benchmark::State& state) {
  const std::string& text = document_text();
  for (auto _ : state) {
    auto j = nlohmann::ordered_json::parse(text);
    benchmark::DoNotOptimize(j);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_NlohmannParse)->Unit(benchmark::kMillisecond);

void BM_NlohmannDump(benchmark::State& state) {
  auto j = nlohmann::ordered_json::parse(document_text());
  for (auto _ : state) {
    std::string out = j.dump();
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_NlohmannDump)->Unit(benchmark::kMillisecond);

void BM_CopyAndMutate(benchmark::State& state) {
  Value v = *budcore::core::parse_json(document_text());
  for (auto _ : state) {
    Value copy = v;  // O(1)
    copy.mutable_map().set("schema_version", 2);  // clones only the top-level map
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_CopyAndMutate);

void BM_ToYamlAndBack(benchmark::State& state) {
  Value v = make_document(64 << 10);
  for (auto _ : state) {
    auto back = budcore::core::parse_yaml(budcore::core::to_yaml(v));
    benchmark::DoNotOptimize(back);
  }
}
BENCHMARK(BM_ToYamlAndBack)->Unit(benchmark::kMillisecond);

}  // namespace
