// Uses the installed C++ API through find_package(budcore): parses quantities, validates a job
// and checks the answers. Exit 1 on any mismatch.
#include <iostream>
#include <string>

#include "budcore/core/quantity.hpp"
#include "budcore/job/job.hpp"

namespace {
int failures = 0;

void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "ok    " : "FAIL  ") << what << "\n";
  if (!ok) ++failures;
}
}  // namespace

int main() {
  using budcore::core::Quantity;

  // Kubernetes quantities, canonical form.
  for (auto [in, want] : {std::pair{"1.5Gi", "1536Mi"}, {"1.5", "1500m"}, {"1000", "1k"}}) {
    auto q = Quantity::parse(in);
    expect(q && q->to_string() == want,
           std::string("Quantity ") + in + " -> " + (q ? q->to_string() : q.error().describe()));
  }
  expect(!Quantity::parse("12XB"), "Quantity 12XB is rejected");

  // A job: parsed, validated, normalized.
  auto job = budcore::job::Job::from_json(
      R"({"name": "consumer-job", "job_type": "TRAINING", "deployment_type": "DOCKER",
          "gpu_type": "nvidia-h100-sxm", "gpu_count": 4, "memory_gb": 64,
          "time_window_start": "22:00", "time_window_end": "06:00"})");
  expect(job.has_value(), job ? "job validates" : "job validates: " + job.error().describe());
  if (job) {
    expect(job->job_type == budcore::job::JobType::Training, "job_type is training");
    auto res = job->resources();
    expect(res && res->get("nvidia.com/gpu") == Quantity::from_int(4), "requests 4 nvidia.com/gpu");
    expect(res && res->get("memory").to_string() == "64Gi", "memory_gb 64 -> memory 64Gi");
    std::cout << job->to_json() << "\n";
  }
  auto bad = budcore::job::Job::from_json(R"({"name": "x", "job_type": "batch", "deployment_type": "docker", "gpu_count": -1})");
  expect(!bad && bad.error().field == "gpu_count", "negative gpu_count is rejected naming gpu_count");

  std::cout << (failures == 0 ? "cmake_consumer: ok\n" : "cmake_consumer: FAILED\n");
  return failures == 0 ? 0 : 1;
}
