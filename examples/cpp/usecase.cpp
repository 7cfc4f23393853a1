// Use cases in C++: resolve the shipped enterprise RAG template with a few parameters, print
// its components, then plan the deployment (jobs in dependency order, teardown reversed).
#include <iostream>

#include "budcore/core/json.hpp"
#include "budcore/usecase/deployment.hpp"
#include "budcore/usecase/resolver.hpp"

int main() {
  using namespace budcore;
  const usecase::UseCaseTemplate* tmpl = usecase::builtin_template("enterprise-rag-v1");
  usecase::Resolver resolver(*tmpl, usecase::builtin_components());  // compiles the template once
  auto params = core::Value::map({{"cluster_id", "gpu-cluster-1"}, {"vector_db", "milvus"}, {"chunk_size", 1024}});
  usecase::ResolveResult result = resolver.resolve(params);
  if (!result.valid()) {
    // Every problem, each naming its path (parameters.chunk_size, components[3].env.LLM_URL).
    for (const auto& e : result.errors) std::cerr << e.code << " at " << e.path << ": " << e.message << "\n";
    return 1;
  }
  const usecase::ResolvedStack& stack = *result.stack;
  std::cout << stack.template_id << "@" << stack.template_version << ": " << stack.components.size()
            << " components, disabled:";
  for (const auto& d : stack.disabled) std::cout << " " << d;
  std::cout << "\n";
  for (const auto& c : stack.components) {
    std::cout << "  " << c.id << " (" << c.component_ref << ", " << job::to_string(c.deployment_type) << ")";
    if (c.gpu_count > 0) std::cout << " " << c.gpu_count << "x " << c.gpu_type.value_or("any GPU");
    if (!c.depends_on.empty()) {
      std::cout << " after";
      for (const auto& d : c.depends_on) std::cout << " " << d;
    }
    std::cout << "\n";
  }
  std::cout << "LLM_URL of the orchestrator: " << stack.component("rag-orchestrator")->env.find("LLM_URL")->as_string()
            << "\n";

  auto plan = usecase::plan_deployment(stack, {core::Id(), core::Id::generate(), core::Id::generate(), core::Id()});
  if (!plan) {
    std::cerr << plan.error().describe() << "\n";
    return 1;
  }
  std::cout << "deployment " << plan->deployment_id.to_string() << "\n  submit:";
  for (const auto& j : plan->jobs) std::cout << " " << j.instance_id;
  std::cout << "\n  teardown:";
  for (const auto& id : plan->teardown_order) std::cout << " " << id;
  std::cout << "\n";
  return 0;
}
