// Helpers shared by the usecase tests: documents from YAML text, a small component registry,
// and the checks that a resolved pipeline plans and that its JOB steps are valid jobs.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/job/job.hpp"
#include "budcore/pipeline/planner.hpp"
#include "budcore/pipeline/step.hpp"
#include "budcore/usecase/registry.hpp"
#include "budcore/usecase/resolver.hpp"

namespace budcore::testing {

inline core::Value yaml(std::string_view text) {
  auto v = core::parse_yaml(text);
  EXPECT_TRUE(v) << v.error().describe();
  return v ? *v : core::Value();
}

// Parameters each shipped template needs (its required ones without defaults).
inline core::Value shipped_template_parameters(std::string_view id) {
  if (id == "enterprise-rag-v1") return yaml("{cluster_id: gpu-cluster-1}");
  return yaml("{model_id: meta-llama/Llama-3.1-8B-Instruct}");
}

inline usecase::UseCaseTemplate make_template(std::string_view text) {
  auto t = usecase::UseCaseTemplate::from_value(yaml(text));
  EXPECT_TRUE(t) << t.error().describe();
  return t ? *t : usecase::UseCaseTemplate{};
}

// Four of the shipped components (qdrant, vllm-endpoint, rag-orchestrator, chat-ui), as JSON.
inline constexpr std::string_view kSourceComponents = R"([
  {"id": "qdrant", "name": "Qdrant Vector Database",
   "description": "High-performance vector database for similarity search", "category": "database",
   "version": "1.0.0", "deployment_type": "helm", "helm_repo": "https://qdrant.github.io/qdrant-helm",
   "helm_chart": "qdrant/qdrant", "helm_version": "1.12.x",
   "default_values": {"replicaCount": 1, "persistence": {"size": "50Gi"},
     "resources": {"requests": {"memory": "4Gi", "cpu": "2"}, "limits": {"memory": "8Gi", "cpu": "4"}}},
   "default_env": {}, "required_inputs": [], "outputs": ["url", "api_key", "grpc_url"],
   "health_check_path": "/readyz", "tags": ["vector-db", "qdrant", "similarity-search"]},
  {"id": "rag-orchestrator", "name": "RAG Orchestrator Service",
   "description": "Bud's RAG orchestration service with retrieval and generation", "category": "service",
   "version": "1.0.0", "deployment_type": "docker", "image": "ghcr.io/budecosystem/rag-orchestrator",
   "image_tag": "latest", "default_env": {"LOG_LEVEL": "INFO", "MAX_CONTEXT_LENGTH": "4096"},
   "default_resources": {"requests": {"memory": "2Gi", "cpu": "1"}, "limits": {"memory": "4Gi", "cpu": "2"}},
   "required_inputs": ["VECTOR_DB_URL", "EMBEDDING_URL", "LLM_URL"], "outputs": ["url", "health_endpoint"],
   "health_check_path": "/health", "tags": ["rag", "orchestrator", "retrieval"]},
  {"id": "vllm-endpoint", "name": "vLLM Model Endpoint", "description": "High-throughput LLM serving with vLLM engine",
   "category": "model_endpoint", "version": "1.0.0", "deployment_type": "model", "model_engine": "vllm",
   "default_gpu_type": "nvidia-a100-80gb", "default_gpu_count": 1,
   "default_env": {"VLLM_ATTENTION_BACKEND": "FLASH_ATTN"}, "required_inputs": ["model_id"],
   "outputs": ["url", "metrics_url"], "health_check_path": "/health", "tags": ["llm", "vllm", "inference"]},
  {"id": "chat-ui", "name": "Chat Interface", "description": "Web-based chat UI for conversational AI",
   "category": "application", "version": "1.0.0", "deployment_type": "docker",
   "image": "ghcr.io/budecosystem/chat-ui", "image_tag": "latest", "default_env": {"THEME": "light"},
   "default_resources": {"requests": {"memory": "512Mi", "cpu": "0.5"}, "limits": {"memory": "1Gi", "cpu": "1"}},
   "required_inputs": ["API_ENDPOINT"], "outputs": ["url"], "health_check_path": "/", "tags": ["ui", "chat", "frontend"]}
])";

inline usecase::ComponentRegistry source_components() {
  usecase::ComponentRegistry r;
  auto doc = core::parse_json(kSourceComponents);
  EXPECT_TRUE(doc) << doc.error().describe();
  auto st = r.add_document(*doc);
  EXPECT_TRUE(st) << st.error().describe();
  return r;
}

inline std::string describe(const std::vector<usecase::Issue>& issues) {
  std::string out;
  for (const auto& i : issues) out += i.code + " at " + i.path + ": " + i.message + "\n";
  return out;
}

// Resolves and expects success.
inline usecase::ResolvedStack resolve_ok(const usecase::UseCaseTemplate& t, const usecase::ComponentRegistry& r,
                                         const core::Value& params, const usecase::ResolveOptions& options = {}) {
  auto res = usecase::resolve(t, r, params, options);
  EXPECT_TRUE(res.valid()) << describe(res.errors);
  return res.stack ? *res.stack : usecase::ResolvedStack{};
}

// The one issue a resolution reports (fails the test when there are none or several).
inline usecase::Issue single_issue(const usecase::ResolveResult& res) {
  EXPECT_EQ(res.errors.size(), 1u) << describe(res.errors);
  return res.errors.empty() ? usecase::Issue{} : res.errors.front();
}

// The pipeline plans as contract 3 says, unchanged (the JSON text as `budcore pipeline plan`
// would read it), and every JOB step's config is a valid job document once named.
inline void expect_deployable(const usecase::ResolvedStack& stack) {
  auto plan = pipeline::plan_text(core::to_json(stack.pipeline));
  ASSERT_TRUE(plan.valid()) << pipeline::to_json(plan);
  ASSERT_EQ(plan.plan.job_steps.size(), stack.components.size());
  for (const auto& step : stack.pipeline.find("steps")->as_list()) {
    const core::Value& config = *step.find("config");
    auto typed = pipeline::parse_step_config(pipeline::StepType::Job, config);
    ASSERT_TRUE(typed) << typed.error().describe();
    core::Map doc;
    for (const auto& [k, v] : config.as_map()) {
      // Step-level keys the job document does not have.
      if (k != "component_ref" && k != "optimize_with_budsim" && k != "usecase_deployment_id") doc.set(k, v);
    }
    doc.set("name", step.find("id")->as_string());
    auto job = job::Job::from_value(core::Value(std::move(doc)));
    ASSERT_TRUE(job) << step.find("id")->as_string() << ": " << job.error().describe();
    EXPECT_TRUE(job->validate()) << job->validate().error().describe();
    EXPECT_EQ(job->job_type, job::JobType::Service);
  }
}

}  // namespace budcore::testing
