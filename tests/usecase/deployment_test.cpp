// plan_deployment and the deployment record: job order, teardown order, status.
#include <gtest/gtest.h>

#include "budcore/usecase/deployment.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::usecase {
namespace {

using core::Id;
using job::JobStatus;
using testing::yaml;

ResolvedStack enterprise() {
  return testing::resolve_ok(*builtin_template("enterprise-rag-v1"), builtin_components(),
                             yaml("{cluster_id: c1, vector_db: milvus}"));
}

TEST(DeploymentTest, JobsInDependencyOrderAndTeardownInReverse) {
  auto stack = enterprise();
  DeploymentRequest req;
  req.tenant_id = Id::generate();
  req.project_id = Id::generate();
  auto plan = plan_deployment(stack, req);
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_FALSE(plan->deployment_id.is_nil());
  std::vector<std::vector<std::string>> levels{
      {"vector-db-milvus", "embedding-endpoint", "reranker-endpoint", "llm-endpoint"},
      {"rag-orchestrator"},
      {"chat-ui"}};
  EXPECT_EQ(plan->levels, levels);
  std::vector<std::string> order;
  for (const auto& j : plan->jobs) order.push_back(j.instance_id);
  EXPECT_EQ(order, (std::vector<std::string>{"vector-db-milvus", "embedding-endpoint", "reranker-endpoint",
                                             "llm-endpoint", "rag-orchestrator", "chat-ui"}));
  EXPECT_EQ(plan->teardown_order,
            (std::vector<std::string>{"chat-ui", "rag-orchestrator", "llm-endpoint", "reranker-endpoint",
                                      "embedding-endpoint", "vector-db-milvus"}));
  const PlannedJob* llm = plan->job("llm-endpoint");
  ASSERT_NE(llm, nullptr);
  EXPECT_EQ(llm->job.name, "llm-endpoint");
  EXPECT_EQ(llm->job.source, job::JobSource::Usecase);
  EXPECT_EQ(llm->job.usecase_deployment_id, plan->deployment_id);
  EXPECT_EQ(llm->job.tenant_id, req.tenant_id);
  EXPECT_EQ(llm->job.job_type, job::JobType::Service);
  EXPECT_EQ(llm->job.deployment_type, job::DeploymentType::Model);
  EXPECT_EQ(llm->job.gpu_type, "nvidia-a100-80gb");
  EXPECT_EQ(llm->job.gpu_count, 2);
  EXPECT_EQ(llm->job.cpu_cores, core::Quantity::from_int(8));
  EXPECT_EQ(llm->job.memory_gb, core::Quantity::from_int(32));
  EXPECT_EQ(llm->job.spec.find("model_id")->as_string(), "meta-llama/Llama-3.3-70B-Instruct");
  EXPECT_EQ(llm->job.spec.find("model_engine")->as_string(), "vllm");
  EXPECT_TRUE(llm->job.validate());
  auto ui = plan->job("chat-ui");
  EXPECT_EQ(ui->job.memory_gb, *core::Quantity::parse("0.5"));
  EXPECT_FALSE(ui->job.gpu_type);
  // The stamped pipeline still plans, and its JOB steps say which deployment they belong to.
  auto planned = pipeline::plan_document(plan->pipeline);
  EXPECT_TRUE(planned.valid()) << pipeline::to_json(planned);
  const std::string id = plan->deployment_id.to_string();
  EXPECT_EQ(plan->pipeline.find_path("pipeline.usecase_deployment_id")->as_string(), id);
  for (const auto& step : plan->pipeline.find("steps")->as_list()) {
    EXPECT_EQ(step.find_path("config.usecase_deployment_id")->as_string(), id);
  }
  req.deployment_id = plan->deployment_id;
  EXPECT_EQ(plan_deployment(stack, req)->deployment_id, plan->deployment_id);
}

TEST(DeploymentTest, RecordFollowsItsJobs) {
  auto stack = enterprise();
  DeploymentRequest req;
  req.tenant_id = Id::generate();
  auto plan = *plan_deployment(stack, req);
  auto rec = DeploymentRecord::from_plan(plan, stack, req);
  EXPECT_EQ(rec.id, plan.deployment_id);
  EXPECT_EQ(rec.template_id, "enterprise-rag-v1");
  ASSERT_EQ(rec.components.size(), 6u);
  EXPECT_EQ(rec.components[4].instance_id, "rag-orchestrator");
  EXPECT_EQ(rec.status, DeploymentStatus::Deploying);
  EXPECT_EQ(rec.derive_status(), DeploymentStatus::Deploying);

  std::vector<Id> jobs;
  for (std::size_t i = 0; i < 4; ++i) {
    jobs.push_back(Id::generate());
    ASSERT_TRUE(rec.update_job(rec.components[i].instance_id, jobs.back(), JobStatus::Running,
                               core::Value::map({{"url", core::Value("http://x")}})));
  }
  EXPECT_EQ(rec.status, DeploymentStatus::Deploying);
  ASSERT_TRUE(rec.update_job("rag-orchestrator", Id::generate(), JobStatus::Running));
  ASSERT_TRUE(rec.update_job("chat-ui", Id::generate(), JobStatus::Queued));
  EXPECT_EQ(rec.status, DeploymentStatus::Deploying);
  ASSERT_TRUE(rec.update_job("chat-ui", rec.components[5].job_id.value(), JobStatus::Running));
  EXPECT_EQ(rec.status, DeploymentStatus::Running);
  EXPECT_EQ(rec.components[0].outputs.find("url")->as_string(), "http://x");
  ASSERT_TRUE(rec.update_job("llm-endpoint", jobs[3], JobStatus::Failed));
  EXPECT_EQ(rec.status, DeploymentStatus::Failed);
  EXPECT_EQ(rec.update_job("ghost", Id::generate(), JobStatus::Running).error().code, core::ErrorCode::NotFound);

  // Teardown: dependents first, skipping jobs that already ended.
  auto order = rec.begin_teardown();
  EXPECT_EQ(order, (std::vector<std::string>{"chat-ui", "rag-orchestrator", "reranker-endpoint", "embedding-endpoint",
                                             "vector-db-milvus"}));
  EXPECT_EQ(rec.status, DeploymentStatus::TearingDown);
  for (const auto& instance : order) {
    ASSERT_TRUE(rec.update_job(instance, rec.component(instance)->job_id.value(), JobStatus::Cancelled));
  }
  EXPECT_EQ(rec.status, DeploymentStatus::Deleted);
}

TEST(DeploymentTest, TeardownOfAPartlyDeployedStack) {
  auto stack = enterprise();
  auto plan = *plan_deployment(stack);
  auto rec = DeploymentRecord::from_plan(plan, stack, {});
  ASSERT_TRUE(rec.update_job("embedding-endpoint", Id::generate(), JobStatus::Running));
  ASSERT_TRUE(rec.update_job("llm-endpoint", Id::generate(), JobStatus::Queued));
  EXPECT_EQ(rec.begin_teardown(), (std::vector<std::string>{"llm-endpoint", "embedding-endpoint"}));
}

TEST(DeploymentTest, RecordDocumentRoundTrips) {
  auto stack = enterprise();
  auto plan = *plan_deployment(stack);
  auto rec = DeploymentRecord::from_plan(plan, stack, {});
  ASSERT_TRUE(rec.update_job("chat-ui", Id::generate(), JobStatus::Running));
  rec.created_at = core::Timestamp::from_unix_nanos(1'700'000'000'000'000'000);
  auto again = DeploymentRecord::from_value(rec.to_value());
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(*again, rec);
  core::Map doc = rec.to_value().as_map();
  doc.set("statuss", core::Value("running"));
  auto bad = DeploymentRecord::from_value(core::Value(doc));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("did you mean 'status'?"), std::string::npos);
  doc = rec.to_value().as_map();
  doc.find("components")->mutable_list()[1].mutable_map().set("job_status", core::Value("dancing"));
  EXPECT_EQ(DeploymentRecord::from_value(core::Value(doc)).error().field, "components[1].job_status");
  EXPECT_EQ(to_string(DeploymentStatus::TearingDown), "tearing_down");
}

}  // namespace
}  // namespace budcore::usecase
