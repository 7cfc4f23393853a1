// The system templates and components that ship with budcore (examples/usecases): each valid,
// each template renders, its pipeline plans unchanged and its JOB steps are valid jobs.
#include <gtest/gtest.h>

#include <filesystem>

#include "budcore/pipeline/rehearsal.hpp"
#include "budcore/usecase/deployment.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::usecase {
namespace {

using core::Value;
using testing::resolve_ok;
using testing::yaml;

const std::string kDir = std::string(BUDCORE_SOURCE_DIR) + "/examples/usecases";


TEST(ShippedTest, TheLibraryCarriesTheFilesUnderExamples) {
  ComponentRegistry from_disk;
  ASSERT_TRUE(load_components(kDir + "/components", from_disk));
  ASSERT_EQ(from_disk.size(), builtin_components().size());
  for (const auto* c : from_disk.all()) {
    const ComponentDefinition* built = builtin_components().find(c->id);
    ASSERT_NE(built, nullptr) << c->id;
    EXPECT_EQ(*built, *c);
  }
  auto templates = load_templates(kDir + "/templates");
  ASSERT_TRUE(templates) << templates.error().describe();
  ASSERT_EQ(templates->size(), builtin_templates().size());
  for (std::size_t i = 0; i < templates->size(); ++i) {
    EXPECT_EQ((*templates)[i].source_file, builtin_templates()[i].source_file);
    EXPECT_EQ((*templates)[i].tmpl.to_value(), builtin_templates()[i].tmpl.to_value());
  }
}

TEST(ShippedTest, TheIssueNamesEveryTemplateAndComponent) {
  std::vector<std::string> ids;
  for (const auto* c : builtin_components().all()) ids.push_back(c->id);
  EXPECT_EQ(ids,
            (std::vector<std::string>{"agent-runtime", "chat-ui", "milvus", "postgres", "qdrant", "rag-orchestrator",
                                      "redis", "tei-embedding", "tei-reranker", "vllm-endpoint"}));
  ids.clear();
  for (const auto& t : builtin_templates()) ids.push_back(t.source_file);
  EXPECT_EQ(ids, (std::vector<std::string>{"agent/simple-agent-v1.yaml", "chatbot/chatbot-memory-v1.yaml",
                                           "chatbot/simple-chatbot-v1.yaml", "rag/enterprise-rag-v1.yaml",
                                           "rag/simple-rag-v1.yaml"}));
  EXPECT_NE(builtin_template("enterprise-rag-v1"), nullptr);
  EXPECT_EQ(builtin_template("nope"), nullptr);
}

TEST(ShippedTest, SourceDesignComponentsAreAsWritten) {
  auto source = testing::source_components();
  for (const auto* c : source.all()) {
    const ComponentDefinition* shipped = builtin_components().find(c->id);
    ASSERT_NE(shipped, nullptr);
    // The shipped ones add only resources and readiness to what 8.2 wrote.
    EXPECT_EQ(shipped->default_values, c->default_values) << c->id;
    EXPECT_EQ(shipped->default_env, c->default_env) << c->id;
    EXPECT_EQ(shipped->required_inputs, c->required_inputs) << c->id;
    EXPECT_EQ(shipped->outputs, c->outputs) << c->id;
    EXPECT_EQ(shipped->image, c->image) << c->id;
    EXPECT_EQ(shipped->helm_chart, c->helm_chart) << c->id;
  }
}

TEST(ShippedTest, EveryTemplateRendersPlansAndDeploys) {
  for (const auto& f : builtin_templates()) {
    SCOPED_TRACE(f.tmpl.id);
    Resolver r(f.tmpl, builtin_components());
    EXPECT_TRUE(r.static_issues().empty()) << testing::describe(r.static_issues());
    auto res = r.resolve(testing::shipped_template_parameters(f.tmpl.id));
    ASSERT_TRUE(res.valid()) << testing::describe(res.errors);
    testing::expect_deployable(*res.stack);
    auto plan = plan_deployment(*res.stack);
    ASSERT_TRUE(plan) << plan.error().describe();
    EXPECT_EQ(plan->jobs.size(), res.stack->components.size());
    EXPECT_TRUE(pipeline::plan_document(plan->pipeline).valid());
    // The pipeline engine runs the stamped pipeline (simulated jobs): every component deploys
    // after the ones it reads, and the references resolve at run time.
    auto run = pipeline::rehearse(plan->pipeline, {});
    ASSERT_TRUE(run) << run.error().describe();
    EXPECT_EQ(run->status, pipeline::PipelineStatus::Completed) << core::to_json(run->summary());
    EXPECT_EQ(run->summary().find("steps")->size(), res.stack->components.size());
  }
}

TEST(ShippedTest, SimpleRagWiresTheOrchestratorAsTheSourceDesignDraws) {
  auto s = resolve_ok(*builtin_template("simple-rag-v1"), builtin_components(), yaml("{model_id: m}"));
  ASSERT_EQ(s.components.size(), 4u);
  const auto* orch = s.component("orchestrator");
  EXPECT_EQ(orch->depends_on, (std::vector<std::string>{"vector-db", "embedding", "llm"}));
  EXPECT_EQ(orch->env.find("VECTOR_DB_URL")->as_string(), "{{ steps.vector-db.outputs.url }}");
  EXPECT_EQ(orch->env.find("LOG_LEVEL")->as_string(), "INFO");
  EXPECT_EQ(orch->values, yaml("{max_context_length: 4096, retrieval_top_k: 5}"));
  const auto* llm = s.component("llm");
  EXPECT_EQ(llm->model_id, "m");
  EXPECT_EQ(llm->gpu_type, "nvidia-a100-40gb");
  EXPECT_TRUE(llm->optimize_with_budsim);
  EXPECT_EQ(s.component("vector-db")->values.find_path("persistence.size")->as_string(), "50Gi");
  auto big = resolve_ok(*builtin_template("simple-rag-v1"), builtin_components(),
                        yaml("{model_id: m, vector_db_size: 500Gi, gpu_type: nvidia-a100-80gb}"));
  EXPECT_EQ(big.component("vector-db")->values.find_path("persistence.size")->as_string(), "500Gi");
  auto bad =
      resolve(*builtin_template("simple-rag-v1"), builtin_components(), yaml("{model_id: m, vector_db_size: 1Ti}"));
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].path, "parameters.vector_db_size");
}

TEST(ShippedTest, EnterpriseRagFollowsItsParameters) {
  const UseCaseTemplate& t = *builtin_template("enterprise-rag-v1");
  auto full = resolve_ok(t, builtin_components(), yaml("{cluster_id: c}"));
  EXPECT_EQ(full.disabled, std::vector<std::string>{"vector-db-milvus"});
  const auto* orch = full.component("rag-orchestrator");
  EXPECT_EQ(orch->depends_on,
            (std::vector<std::string>{"vector-db-qdrant", "embedding-endpoint", "reranker-endpoint", "llm-endpoint"}));
  EXPECT_EQ(orch->env.find("RERANKER_URL")->as_string(), "{{ steps.reranker-endpoint.outputs.url }}");
  EXPECT_EQ(orch->env.find("CHUNK_SIZE")->as_string(), "512");
  EXPECT_TRUE(full.component("llm-endpoint")->optimize_with_budsim);
  EXPECT_EQ(full.component("llm-endpoint")->gpu_count, 2);
  EXPECT_EQ(full.component("chat-ui")->env.find("TITLE")->as_string(), "enterprise-rag-v1 Chat");

  auto lean = resolve_ok(
      t, builtin_components(),
      yaml("{cluster_id: c, vector_db: milvus, reranker_model: null, enable_budsim: false, chunk_size: 1024}"));
  EXPECT_EQ(lean.disabled, (std::vector<std::string>{"vector-db-qdrant", "reranker-endpoint"}));
  orch = lean.component("rag-orchestrator");
  EXPECT_EQ(orch->depends_on, (std::vector<std::string>{"vector-db-milvus", "embedding-endpoint", "llm-endpoint"}));
  EXPECT_EQ(orch->env.find("RERANKER_URL")->as_string(), "");
  EXPECT_EQ(orch->env.find("VECTOR_DB_API_KEY")->as_string(), "");
  EXPECT_EQ(orch->env.find("VECTOR_DB_URL")->as_string(), "{{ steps.vector-db-milvus.outputs.url }}");
  EXPECT_FALSE(lean.component("llm-endpoint")->optimize_with_budsim);
  testing::expect_deployable(lean);

  auto res = resolve(t, builtin_components(), yaml("{chunk_size: 64, vector_db: weaviate}"));
  std::vector<std::string> paths;
  for (const auto& e : res.errors) paths.push_back(e.code + " " + e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"missing_parameter parameters.cluster_id",
                                             "invalid_parameter parameters.vector_db",
                                             "invalid_parameter parameters.chunk_size"}));
}

TEST(ShippedTest, OptionalPiecesOfTheChatbotAndAgent) {
  auto mem = resolve_ok(*builtin_template("chatbot-memory-v1"), builtin_components(),
                        yaml("{model_id: m, persist_history: false}"));
  EXPECT_EQ(mem.disabled, std::vector<std::string>{"history"});
  EXPECT_EQ(mem.component("chat-ui")->env.find("HISTORY_DB_URL")->as_string(), "");
  auto agent = resolve_ok(*builtin_template("simple-agent-v1"), builtin_components(),
                          yaml("{model_id: m, enable_ui: false, max_iterations: 3}"));
  EXPECT_EQ(agent.disabled, std::vector<std::string>{"chat-ui"});
  EXPECT_EQ(agent.component("agent")->env.find("MAX_ITERATIONS")->as_string(), "3");
  EXPECT_EQ(agent.component("agent")->depends_on, (std::vector<std::string>{"llm", "memory"}));
  auto chat =
      resolve_ok(*builtin_template("simple-chatbot-v1"), builtin_components(), yaml("{model_id: m, gpu_count: 4}"));
  EXPECT_EQ(chat.component("llm")->gpu_count, 4);
  EXPECT_EQ(chat.component("llm")->values.find("tensor_parallel_size")->as_int(), 4);
}

}  // namespace
}  // namespace budcore::usecase
