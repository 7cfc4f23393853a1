// Engine overhead per step transition on the virtual clock (simulated executors; no sink, or
// a sink serializing the whole state at each transition):
// a layered DAG of N steps (width 10, each step depends on two of the previous layer).
#include <benchmark/benchmark.h>

#include <string>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/engine.hpp"

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

void run_engine(benchmark::State& state, const char* type, bool snapshot = false) {
  const core::Value doc = layered(static_cast<int>(state.range(0)), type);
  std::int64_t transitions = 0;
  for (auto _ : state) {
    core::VirtualClock clock;
    pipeline::SimJobRunner jobs(clock);
    SnapshotSink sink;
    pipeline::EngineDeps deps{&clock, &jobs, nullptr, nullptr, nullptr, snapshot ? &sink : nullptr};
    auto engine = pipeline::Engine::create(doc, deps).value();
    auto status = engine.run_virtual(clock).value();
    if (status != pipeline::PipelineStatus::Completed) state.SkipWithError("run did not complete");
    transitions += engine.state().seq;
  }
  state.counters["transitions/s"] = benchmark::Counter(static_cast<double>(transitions), benchmark::Counter::kIsRate);
  state.counters["ns/transition"] = benchmark::Counter(static_cast<double>(transitions),
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_EngineTransform(benchmark::State& state) { run_engine(state, "TRANSFORM"); }
void BM_EngineJob(benchmark::State& state) { run_engine(state, "JOB"); }
void BM_EngineTransformSnapshots(benchmark::State& state) { run_engine(state, "TRANSFORM", true); }

BENCHMARK(BM_EngineTransform)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineJob)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineTransformSnapshots)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
