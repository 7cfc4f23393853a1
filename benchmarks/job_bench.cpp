// Job JSON round trip: parse + validate (from_json) and print (to_json) of a fully populated job.
#include <benchmark/benchmark.h>

#include <string>

#include "budcore/job/job.hpp"

namespace {

constexpr const char* kJob = R"({
  "schema_version": 1, "id": "0190e6f4-5c3a-7abc-8def-0123456789ab", "name": "deploy-llm",
  "tenant_id": "11111111-1111-4111-8111-111111111111", "project_id": "22222222-2222-4222-8222-222222222222",
  "cluster_id": "33333333-3333-4333-8333-333333333333", "pipeline_id": "44444444-4444-4444-8444-444444444444",
  "pipeline_step_id": "55555555-5555-4555-8555-555555555555", "source": "pipeline",
  "job_type": "service", "deployment_type": "model",
  "spec": {"model_id": "meta-llama/Llama-3.3-70B-Instruct", "engine": "vllm",
           "env": {"VECTOR_DB_URL": "http://qdrant:6333", "LLM_URL": "http://llm:8000"}},
  "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "cpu_cores": "1500m", "memory_gb": 64, "storage_gb": 200,
  "estimated_duration_seconds": 300, "max_duration_seconds": 14400, "deadline": "2026-01-31T06:00:00Z",
  "time_window_start": "22:00", "time_window_end": "06:00", "priority": "high", "preemptible": false,
  "preempts_others": true, "estimated_start": "2026-01-30T22:05:00Z", "estimated_end": "2026-01-30T22:10:00Z",
  "actual_start": "2026-01-30T22:06:00Z", "actual_end": null, "status": "running", "status_message": null,
  "retry_count": 0, "max_retries": 3,
  "status_history": [{"from": "pending", "to": "queued", "at": "2026-01-30T21:00:00Z", "message": ""},
                     {"from": "queued", "to": "scheduled", "at": "2026-01-30T22:05:00Z", "message": "admitted"},
                     {"from": "scheduled", "to": "running", "at": "2026-01-30T22:06:00Z", "message": ""}],
  "currency": "USD", "estimated_cost": "12.50", "actual_cost": null, "budget_limit": "100.00",
  "outputs": {"url": "http://llm.svc:8000"}, "created_at": "2026-01-30T20:00:00Z",
  "updated_at": "2026-01-30T22:06:00Z"})";

void BM_JobFromJson(benchmark::State& state) {
  for (auto _ : state) {
    auto job = budcore::job::Job::from_json(kJob);
    if (!job) state.SkipWithError(job.error().describe().c_str());
    benchmark::DoNotOptimize(job);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(std::string(kJob).size()));
}
BENCHMARK(BM_JobFromJson);

void BM_JobToJson(benchmark::State& state) {
  auto job = budcore::job::Job::from_json(kJob);
  if (!job) {
    state.SkipWithError(job.error().describe().c_str());
    return;
  }
  for (auto _ : state) {
    std::string text = job->to_json();
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_JobToJson);

void BM_JobJsonRoundTrip(benchmark::State& state) {
  for (auto _ : state) {
    auto job = budcore::job::Job::from_json(kJob);
    if (!job) {
      state.SkipWithError(job.error().describe().c_str());
      break;
    }
    std::string text = job->to_json();
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_JobJsonRoundTrip);

}  // namespace
