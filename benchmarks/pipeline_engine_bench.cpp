// Engine overhead per step transition on the virtual clock (simulated executors; no sink, a
// sink serializing the whole state at each transition, or a JournalSink writing a file):
// a layered DAG of N steps (width 10, each step depends on two of the previous layer).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/engine.hpp"
#include "budcore/pipeline/journal.hpp"

namespace {

using namespace budcore;

core::Value layered(int n, const char* type) {
  std::string json = R"({"steps": [)";
  for (int i = 0; i < n; ++i) {
    if (i) json += ',';
    json += R"({"id": "s)" + std::to_string(i) + R"(", "step_type": ")" + type + R"(", "depends_on": [)";
    if (i >= 10) json += "\"s" + std::to_string(i - 10) + "\", \"s" + std::to_string(i - 10 + (i % 10 == 9 ? -9 : 1)) + "\"";
    json += "], \"config\": ";
    json += std::string(type) == "JOB"
                ? R"({"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 60})"
                : R"({"outputs": {"v": "{{ params.x }}"}})";
    json += '}';
  }
  json += R"(], "pipeline": {"parameters": {"x": 1}}})";
  return core::parse_json(json).value();
}

// The crash-safe configuration: every transition's whole RunState serialized to JSON before the
// engine acts (what a sink writing a snapshot file or row does), so the cost is O(steps) each.
class SnapshotSink final : public pipeline::StateSink {
 public:
  core::Status save(const pipeline::Transition&, const pipeline::RunState& state) override {
    bytes += state.to_json().size();
    return {};
  }
  std::size_t bytes = 0;
};

enum class Sink { None, Snapshot, Journal };

void run_engine(benchmark::State& state, const char* type, Sink kind = Sink::None) {
  const core::Value doc = layered(static_cast<int>(state.range(0)), type);
  const std::string journal_path =
      (std::filesystem::temp_directory_path() / ("budcore_bench_" + std::to_string(::getpid()) + ".journal")).string();
  std::int64_t transitions = 0;
  std::size_t journal_bytes = 0;
  for (auto _ : state) {
    core::VirtualClock clock;
    pipeline::SimJobRunner jobs(clock);
    SnapshotSink snapshots;
    pipeline::JournalOptions options;
    options.fsync = false;  // CPU cost of the format; fsync adds the device's latency per transition
    pipeline::JournalSink journal(journal_path, options);
    pipeline::StateSink* sink = kind == Sink::Snapshot ? static_cast<pipeline::StateSink*>(&snapshots)
                                : kind == Sink::Journal ? &journal
                                                        : nullptr;
    pipeline::EngineDeps deps{&clock, &jobs, nullptr, nullptr, nullptr, sink};
    auto engine = pipeline::Engine::create(doc, deps).value();
    auto status = engine.run_virtual(clock).value();
    if (status != pipeline::PipelineStatus::Completed) state.SkipWithError("run did not complete");
    transitions += engine.state().seq;
    journal_bytes += journal.bytes_written();
  }
  std::remove(journal_path.c_str());
  state.counters["transitions/s"] = benchmark::Counter(static_cast<double>(transitions), benchmark::Counter::kIsRate);
  state.counters["ns/transition"] = benchmark::Counter(static_cast<double>(transitions),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (kind == Sink::Journal) {
    state.counters["bytes/transition"] = static_cast<double>(journal_bytes) / static_cast<double>(transitions);
  }
}

void BM_EngineTransform(benchmark::State& state) { run_engine(state, "TRANSFORM"); }
void BM_EngineJob(benchmark::State& state) { run_engine(state, "JOB"); }
void BM_EngineTransformSnapshots(benchmark::State& state) { run_engine(state, "TRANSFORM", Sink::Snapshot); }
// The crash-safe configuration at scale: a JournalSink (fsync off) appends only the changed step
// records, so the cost per transition stays flat as N grows.
void BM_EngineTransformJournal(benchmark::State& state) { run_engine(state, "TRANSFORM", Sink::Journal); }

BENCHMARK(BM_EngineTransform)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineJob)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineTransformSnapshots)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineTransformJournal)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
