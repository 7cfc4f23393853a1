// The smallest useful budcore program in C++: parse a job, read it, print it normalized.
#include <iostream>

#include "budcore/job/job.hpp"

int main() {
  auto job = budcore::job::Job::from_json(R"({
    "name": "llm-endpoint", "job_type": "SERVICE", "deployment_type": "MODEL",
    "spec": {"model_id": "meta-llama/Llama-3.3-70B-Instruct", "engine": "vllm"},
    "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "memory_gb": 128, "priority": "HIGH"})");
  if (!job) {
    // Expected failures come back as a Result holding the field, the value and why.
    std::cerr << job.error().describe() << "\n";
    return 1;
  }
  auto requests = job->resources();
  if (!requests) {
    std::cerr << requests.error().describe() << "\n";
    return 1;
  }
  std::cout << job->name << " requests";
  for (const auto& [resource, quantity] : requests->items()) std::cout << " " << resource << "=" << quantity.to_string();
  std::cout << "\n" << job->to_json() << "\n";
  return 0;
}
