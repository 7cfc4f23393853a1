// Deploying a use case in C++: the shipped simple RAG stack on an embedded platform (SQLite in a
// temporary directory, simulated cluster, virtual clock). Deploy, let the virtual clock bring
// the services up, read the deployment back, then tear it down (dependents first).
#include <filesystem>
#include <iostream>

#include "budcore/platform/platform.hpp"

int main() {
  using namespace budcore;
  auto dir = std::filesystem::temp_directory_path() / "budcore-usecase-deploy-example";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto opened = platform::Platform::open_embedded(dir.string());
  if (!opened) {
    std::cerr << opened.error().describe() << "\n";
    return 1;
  }
  auto& p = **opened;
  auto me = platform::CallContext::for_tenant(core::Id::parse("3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b").value(),
                                              "user:example");

  // A parameter the template does not declare: Invalid naming it, and nothing is stored.
  auto bad = p.deploy_usecase(me, "simple-rag-v1", core::Value::map({{"model_id", "m"}, {"top_kk", 3}}));
  std::cout << "bad input: " << (bad ? "accepted?!" : bad.error().field) << "\n";

  // The embedded cluster has A100-80GB GPUs (the template defaults to A100-40GB).
  auto params = core::Value::map({{"model_id", "meta-llama/Llama-3.1-8B-Instruct"}, {"gpu_type", "nvidia-a100-80gb"}});
  auto d = p.deploy_usecase(me, "simple-rag-v1", params);
  if (!d) {
    std::cerr << d.error().describe() << "\n";
    return 1;
  }
  std::cout << "deployment " << d->id.to_string() << " of " << d->template_id << "@" << d->template_version << "\n";
  if (!p.run_until_idle()) return 1;
  auto up = p.get_deployment(me, d->id);
  if (!up) return 1;
  std::cout << "status: " << usecase::to_string(up->status) << "\n";
  for (const auto& c : up->components)
    std::cout << "  " << c.instance_id << " (" << c.component_ref << "): " << job::to_string(c.job_status) << "\n";

  auto down = p.teardown_deployment(me, d->id);
  if (!down) return 1;
  std::cout << "after teardown: " << usecase::to_string(down->status) << "\n";
  std::filesystem::remove_all(dir);
  return up->status == usecase::DeploymentStatus::Running && down->status == usecase::DeploymentStatus::Deleted &&
                 !bad
             ? 0
             : 1;
}
