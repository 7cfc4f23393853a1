// Quick start in C++: an embedded platform in a directory, one job, the virtual clock run until
// idle, the job read back. Build: c++ -std=c++20 quickstart.cpp $(pkg-config --cflags --libs budcore)
#include <filesystem>
#include <iostream>

#include "budcore/platform/platform.hpp"

int main() {
  using namespace budcore;
  auto dir = std::filesystem::temp_directory_path() / ("budcore-quickstart-" + core::Id::generate().to_string());
  std::filesystem::create_directories(dir);
  auto p = platform::Platform::open_embedded(dir.string()).value();  // value() throws on an error
  auto me = platform::CallContext::for_tenant(core::Id::parse("3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b").value());
  auto spec = job::Job::from_json(R"({"name": "quickstart", "job_type": "batch", "deployment_type": "docker",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 600})").value();
  auto id = p->submit(me, std::move(spec)).value().record.job.id;
  p->run_until_idle().value();  // the virtual clock runs until nothing is scheduled
  auto stored = p->get_job(me, id).value();
  std::cout << "job " << id.to_string() << ": " << job::to_string(stored.job.status) << "\n";
  p.reset();
  std::filesystem::remove_all(dir);
}
