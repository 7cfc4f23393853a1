// Paths that were once quadratic, each timed at two or three sizes so a regression shows as
// a time that grows faster than the size (the "per item" counters should stay flat):
// a LOOP over n items, a chain of n JOB steps, an every-minute cron over n hours, validating a
// cohort chain of n levels (refused past kMaxCohortDepth, in linear time), and compiling an
// expression chain of n links (refused past the parse depth, in linear time). Flat
// items_per_second across the sizes of one benchmark is the property to keep.
#include <benchmark/benchmark.h>

#include <string>

#include "budcore/core/clock.hpp"
#include "budcore/core/json.hpp"
#include "budcore/pipeline/engine.hpp"
#include "budcore/pipeline/executors.hpp"
#include "budcore/pipeline/orchestrator.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/templates/template.hpp"

namespace {

using namespace budcore;

// items_per_second: flat across sizes when the path is linear, falling when it is not.
void per_item(benchmark::State& state, std::int64_t n) { state.SetItemsProcessed(state.iterations() * n); }

void run_to_end(const core::Value& doc, benchmark::State& state) {
  core::VirtualClock clock;
  pipeline::SimJobRunner jobs(clock);
  pipeline::EngineDeps deps{&clock, &jobs, nullptr, nullptr, nullptr, nullptr};
  auto engine = pipeline::Engine::create(doc, deps);
  if (!engine) {
    state.SkipWithError(engine.error().describe().c_str());
    return;
  }
  auto status = engine->run_virtual(clock);
  if (!status || *status != pipeline::PipelineStatus::Completed) state.SkipWithError("run did not complete");
}

void BM_LoopItems(benchmark::State& state) {
  const auto n = state.range(0);
  std::string items;
  for (std::int64_t i = 0; i < n; ++i) items += (i ? "," : "") + std::to_string(i);
  const core::Value doc = core::parse_json(R"({"pipeline": {"id": "p"}, "steps": [{"id": "l", "step_type": "LOOP",
      "config": {"items": [)" + items + R"(], "body": {"step_type": "TRANSFORM", "config": {"outputs": {"x": "{{ item }}"}}}}}]})")
                              .value();
  for (auto _ : state) run_to_end(doc, state);
  per_item(state, n);
}
BENCHMARK(BM_LoopItems)->Arg(2000)->Arg(8000)->Arg(16000)->Unit(benchmark::kMillisecond);

void BM_JobChain(benchmark::State& state) {
  const auto n = state.range(0);
  std::string steps;
  for (std::int64_t i = 0; i < n; ++i) {
    steps += i ? "," : "";
    steps += R"({"id": "s)" + std::to_string(i) + R"(", "step_type": "JOB", "depends_on": [)" +
             (i ? "\"s" + std::to_string(i - 1) + "\"" : std::string()) +
             R"(], "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 1}})";
  }
  const core::Value doc = core::parse_json(R"({"pipeline": {"id": "p"}, "steps": [)" + steps + "]}").value();
  for (auto _ : state) run_to_end(doc, state);
  per_item(state, n);
}
BENCHMARK(BM_JobChain)->Arg(2000)->Arg(8000)->Arg(32000)->Unit(benchmark::kMillisecond);

void BM_CronEveryMinute(benchmark::State& state) {
  const auto hours = state.range(0);
  const core::Value doc = core::parse_json(R"({"pipeline": {"id": "every-minute", "trigger_type": "scheduled",
      "cron_expression": "* * * * *"}, "steps": [{"id": "t", "step_type": "TRANSFORM", "config": {"outputs": {"x": 1}}}]})")
                              .value();
  for (auto _ : state) {
    core::VirtualClock clock;
    pipeline::SimJobRunner jobs(clock);
    pipeline::Orchestrator orch(pipeline::EngineDeps{&clock, &jobs, nullptr, nullptr, nullptr, nullptr}, {});
    if (!orch.add_pipeline(doc)) state.SkipWithError("add_pipeline failed");
    if (!orch.run_virtual(clock, clock.now() + core::Duration::hours(hours))) state.SkipWithError("run_virtual failed");
    benchmark::DoNotOptimize(orch.runs().size());
  }
  per_item(state, hours * 60);  // per firing
}
BENCHMARK(BM_CronEveryMinute)->Arg(24)->Arg(96)->Arg(14 * 24)->Unit(benchmark::kMillisecond);

void BM_CohortChainValidate(benchmark::State& state) {
  const auto n = state.range(0);
  quota::QuotaConfig config;
  for (std::int64_t i = 0; i < n; ++i) {
    quota::Cohort c;
    c.name = "c" + std::to_string(i);
    if (i > 0) c.parent = "c" + std::to_string(i - 1);
    config.cohorts.push_back(std::move(c));
  }
  for (auto _ : state) benchmark::DoNotOptimize(quota::validate(config).has_value());
  per_item(state, n);
}
BENCHMARK(BM_CohortChainValidate)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_TemplateChainCompile(benchmark::State& state) {
  const auto n = state.range(0);
  std::string text = "{{ 1";
  for (std::int64_t i = 0; i < n; ++i) text += "+1";
  text += " }}";
  for (auto _ : state) benchmark::DoNotOptimize(templates::Template::compile(text).has_value());
  per_item(state, n);
}
BENCHMARK(BM_TemplateChainCompile)->Arg(150)->Arg(2000)->Arg(20000)->Unit(benchmark::kMicrosecond);

}  // namespace
