#include "budcore/pipeline/step.hpp"

#include <gtest/gtest.h>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/pipeline_spec.hpp"

namespace budcore::pipeline {
namespace {

core::Value json(std::string_view text) { return core::parse_json(text).value(); }

TEST(StepTest, EnumsReadAnyCaseAndWriteLowerCase) {
  for (StepType t : kAllStepTypes) {
    std::string upper(to_string(t));
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(*parse_step_type(upper), t);
    EXPECT_EQ(*parse_step_type(to_string(t)), t);
  }
  EXPECT_EQ(to_string(StepType::ApiCall), "api_call");
  auto bad = parse_step_type("teleport");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("api_call"), std::string::npos);
  EXPECT_EQ(*parse_trigger_type("SCHEDULED"), TriggerType::Scheduled);
  EXPECT_EQ(*parse_step_status("skipped"), StepStatus::Skipped);
  EXPECT_EQ(*parse_pipeline_status("Cancelled"), PipelineStatus::Cancelled);
  EXPECT_FALSE(parse_pipeline_status("done"));
}

TEST(StepTest, JobConfigTyped) {
  auto c = parse_step_config(StepType::Job, json(R"({"job_type": "SERVICE", "deployment_type": "MODEL",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "priority": "HIGH", "estimated_duration_seconds": 600,
      "spec": {"engine": "vllm"}})"));
  ASSERT_TRUE(c) << c.error().describe();
  const auto& job = std::get<JobStepConfig>(*c);
  EXPECT_EQ(job.job_type, job::JobType::Service);
  EXPECT_EQ(job.deployment_type, job::DeploymentType::Model);
  EXPECT_EQ(job.gpu_count, 2);
  EXPECT_EQ(job.priority, job::JobPriority::High);
  EXPECT_EQ(job.estimated_duration_seconds, 600);
  EXPECT_EQ(job.cpu_cores, 1.0);
  EXPECT_EQ(job.memory_gb, 4.0);
  EXPECT_EQ(core::to_json(job.spec), R"({"engine":"vllm"})");
}

TEST(StepTest, ConfigErrorsNameTheField) {
  auto missing = parse_step_config(StepType::Job, json(R"({"job_type": "batch"})"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().field, "config.deployment_type");
  auto wrong = parse_step_config(StepType::Job, json(R"({"job_type": "batch", "deployment_type": "helm", "gpu_count": "two"})"));
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().field, "config.gpu_count");
  EXPECT_EQ(wrong.error().value, "\"two\"");
  auto api = parse_step_config(StepType::ApiCall, json(R"({"url": "http://x", "timeout_seconds": 0})"));
  ASSERT_FALSE(api);
  EXPECT_EQ(api.error().field, "config.timeout_seconds");
  auto wait = parse_step_config(StepType::Wait, json(R"({"timeout_seconds": 10})"));
  ASSERT_FALSE(wait);
  EXPECT_EQ(wait.error().field, "config.duration_seconds");
  auto par = parse_step_config(StepType::Parallel, json(R"({"steps": ["a"], "min_success_ratio": 1.5})"));
  ASSERT_FALSE(par);
  EXPECT_EQ(par.error().field, "config.min_success_ratio");
  auto loop = parse_step_config(StepType::Loop,
                                json(R"({"items": [1, 2], "body": {"step_type": "api_call", "config": {}}})"));
  ASSERT_FALSE(loop);
  EXPECT_EQ(loop.error().field, "config.body.config.url");
}

TEST(StepTest, EveryTypeParsesAMinimalConfig) {
  const std::pair<StepType, const char*> cases[] = {
      {StepType::ApiCall, R"({"url": "http://x"})"},
      {StepType::Function, R"({"function": "score", "args": {"k": 1}})"},
      {StepType::Notification, R"({"channel": "slack", "recipients": ["#a"], "message": "hi"})"},
      {StepType::Transform, R"({"outputs": {"n": "{{ 1 + 1 }}"}})"},
      {StepType::Condition, R"({"expression": "{{ true }}", "then_steps": ["a"], "else_steps": []})"},
      {StepType::Parallel, R"({"steps": ["a", "b"], "max_concurrency": 2})"},
      {StepType::Wait, R"({"wait_for_event": "approved"})"},
      {StepType::Loop, R"({"items": "{{ params.models }}", "body": {"step_type": "wait", "config": {"duration_seconds": 1}}})"},
  };
  for (const auto& [type, text] : cases) {
    auto c = parse_step_config(type, json(text));
    EXPECT_TRUE(c) << to_string(type) << ": " << (c ? "" : c.error().describe());
    for (auto field : required_config_fields(type)) {
      auto without = json(text);
      without.mutable_map().erase(field);
      if (type == StepType::Wait) continue;  // either of two fields
      EXPECT_FALSE(parse_step_config(type, without)) << to_string(type) << " without " << field;
    }
  }
  auto par = std::get<ParallelStepConfig>(*parse_step_config(StepType::Parallel, json(cases[5].second)));
  EXPECT_EQ(par.max_concurrency, 2);
  EXPECT_TRUE(par.fail_fast);
}

TEST(StepTest, PlannedDuration) {
  Step s;
  s.step_type = StepType::Job;
  s.config = json(R"({"estimated_duration_seconds": 90, "duration_seconds": 5})");
  EXPECT_EQ(s.planned_duration_seconds(), 90);
  s.step_type = StepType::Wait;
  EXPECT_EQ(s.planned_duration_seconds(), 5);
  s.step_type = StepType::ApiCall;
  EXPECT_EQ(s.planned_duration_seconds(), 0);
}

TEST(PipelineSpecTest, RoundTripsAndRejectsInvalid) {
  auto spec = PipelineSpec::from_text(R"(
pipeline: {name: demo, trigger_type: scheduled, cron_expression: "0 2 * * *", parameters: {x: 1}}
steps:
  - {id: a, step_type: WAIT, config: {duration_seconds: 3}}
  - {id: b-1, step_type: job, depends_on: [a], condition: "{{ params.x }}",
     config: {job_type: batch, deployment_type: docker}}
)");
  ASSERT_TRUE(spec) << spec.error().describe();
  EXPECT_EQ(spec->pipeline.trigger_type, TriggerType::Scheduled);
  EXPECT_EQ(spec->pipeline.cron_expression, "0 2 * * *");
  ASSERT_EQ(spec->steps.size(), 2u);
  EXPECT_EQ(spec->steps[1].id, "b-1");
  EXPECT_EQ(spec->steps[1].depends_on, std::vector<std::string>{"a"});
  EXPECT_EQ(spec->steps[1].order, 2);
  EXPECT_EQ(spec->steps[0].step_type, StepType::Wait);
  auto again = PipelineSpec::from_value(spec->to_value());
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->to_json(), spec->to_json());

  auto bad = PipelineSpec::from_text(R"({"steps": [{"id": "a", "step_type": "job", "depends_on": ["zz"], "config": {}}]})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "steps[0].config.job_type");
  EXPECT_NE(bad.error().message.find("missing_field"), std::string::npos);
  EXPECT_NE(bad.error().message.find("2 more"), std::string::npos);
}

}  // namespace
}  // namespace budcore::pipeline
