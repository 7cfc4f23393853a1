// Job <-> JSON: every field of the Job schema, defaults, enum spellings, exact
// quantities and money, and the structural errors of from_value.
#include <gtest/gtest.h>

#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/job/job.hpp"

namespace budcore::job {
namespace {

using core::ErrorCode;

// Every field set, written the way a person might write it (upper-case enums, numbers for
// quantities and money).
constexpr const char* kFullJob = R"({
  "schema_version": 1,
  "id": "0190E6F4-5C3A-7ABC-8DEF-0123456789AB",
  "name": "deploy-llm",
  "tenant_id": "11111111-1111-4111-8111-111111111111",
  "project_id": "22222222-2222-4222-8222-222222222222",
  "cluster_id": "33333333-3333-4333-8333-333333333333",
  "pipeline_id": "44444444-4444-4444-8444-444444444444",
  "pipeline_step_id": "55555555-5555-4555-8555-555555555555",
  "usecase_deployment_id": "66666666-6666-4666-8666-666666666666",
  "source": "USECASE",
  "source_id": "77777777-7777-4777-8777-777777777777",
  "job_type": "SERVICE",
  "deployment_type": "MODEL",
  "spec": {"model_id": "meta-llama/Llama-3.3-70B-Instruct", "engine": "vllm", "args": [1, 2.5, true, null]},
  "gpu_type": "nvidia-a100-80gb",
  "gpu_count": 2,
  "cpu_cores": 0.5,
  "memory_gb": "1.5",
  "storage_gb": 100,
  "estimated_duration_seconds": 300,
  "max_duration_seconds": 14400,
  "deadline": "2026-01-31T06:00:00Z",
  "time_window_start": "22:00",
  "time_window_end": "06:00",
  "priority": "HIGH",
  "preemptible": true,
  "preempts_others": true,
  "estimated_start": "2026-01-30T22:05:00Z",
  "estimated_end": "2026-01-30T22:10:00Z",
  "actual_start": "2026-01-30T22:06:00+01:00",
  "actual_end": "2026-01-30T22:11:00.5Z",
  "status": "Failed",
  "status_message": "OOMKilled",
  "retry_count": 1,
  "max_retries": 5,
  "status_history": [
    {"from": "pending", "to": "queued", "at": "2026-01-30T21:00:00Z", "message": ""},
    {"from": "QUEUED", "to": "scheduled", "at": "2026-01-30T21:05:00Z", "message": "admitted"}
  ],
  "currency": "EUR",
  "estimated_cost": 12.5,
  "actual_cost": "13.000971",
  "budget_limit": 100,
  "outputs": {"url": "http://llm.svc:8000", "api_key": "k"},
  "created_at": "2026-01-30T20:00:00Z",
  "updated_at": "2026-01-30T22:11:00.5Z"
})";

Job parse_ok(std::string_view json) {
  auto r = Job::from_json(json);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().describe());
  return r ? *r : Job{};
}

core::Error parse_err(std::string_view json) {
  auto r = Job::from_json(json);
  EXPECT_FALSE(r.has_value()) << "parsed unexpectedly: " << json;
  return r ? core::Error{} : r.error();
}

core::Id id(const char* s) { return *core::Id::parse(s); }
core::Timestamp at(const char* s) { return *core::Timestamp::parse(s); }

TEST(JobCodecTest, ReadsEveryFieldOfTheSourceSchema) {
  Job j = parse_ok(kFullJob);
  EXPECT_EQ(j.schema_version, 1);
  EXPECT_EQ(j.id, id("0190e6f4-5c3a-7abc-8def-0123456789ab"));
  EXPECT_EQ(j.name, "deploy-llm");
  EXPECT_EQ(j.tenant_id, id("11111111-1111-4111-8111-111111111111"));
  EXPECT_EQ(j.project_id, id("22222222-2222-4222-8222-222222222222"));
  EXPECT_EQ(j.cluster_id, id("33333333-3333-4333-8333-333333333333"));
  EXPECT_EQ(j.pipeline_id, id("44444444-4444-4444-8444-444444444444"));
  EXPECT_EQ(j.pipeline_step_id, id("55555555-5555-4555-8555-555555555555"));
  EXPECT_EQ(j.usecase_deployment_id, id("66666666-6666-4666-8666-666666666666"));
  EXPECT_EQ(j.source, JobSource::Usecase);
  EXPECT_EQ(j.source_id, id("77777777-7777-4777-8777-777777777777"));
  EXPECT_EQ(j.job_type, JobType::Service);
  EXPECT_EQ(j.deployment_type, DeploymentType::Model);
  ASSERT_TRUE(j.spec.is_map());
  EXPECT_EQ(j.spec.find("engine")->as_string(), "vllm");
  EXPECT_EQ(j.spec.find("args")->as_list().size(), 4u);
  EXPECT_EQ(j.gpu_type, "nvidia-a100-80gb");
  EXPECT_EQ(j.gpu_count, 2);
  EXPECT_EQ(j.cpu_cores, core::Quantity::from_milli(500));
  EXPECT_EQ(j.memory_gb, core::Quantity::from_milli(1500));
  EXPECT_EQ(j.storage_gb, 100);
  EXPECT_EQ(j.estimated_duration_seconds, 300);
  EXPECT_EQ(j.max_duration_seconds, 14400);
  EXPECT_EQ(j.deadline, at("2026-01-31T06:00:00Z"));
  ASSERT_TRUE(j.time_window.has_value());
  EXPECT_EQ(j.time_window->start.seconds, 22 * 3600);
  EXPECT_EQ(j.time_window->end.seconds, 6 * 3600);
  EXPECT_EQ(j.priority, JobPriority::High);
  EXPECT_TRUE(j.preemptible);
  EXPECT_TRUE(j.preempts_others);
  EXPECT_EQ(j.estimated_start, at("2026-01-30T22:05:00Z"));
  EXPECT_EQ(j.estimated_end, at("2026-01-30T22:10:00Z"));
  EXPECT_EQ(j.actual_start, at("2026-01-30T21:06:00Z"));  // offset applied
  EXPECT_EQ(j.actual_end, at("2026-01-30T22:11:00.5Z"));
  EXPECT_EQ(j.status, JobStatus::Failed);
  EXPECT_EQ(j.status_message, "OOMKilled");
  EXPECT_EQ(j.retry_count, 1);
  EXPECT_EQ(j.max_retries, 5);
  ASSERT_EQ(j.status_history.size(), 2u);
  EXPECT_EQ(j.status_history[1], (StatusTransition{JobStatus::Queued, JobStatus::Scheduled,
                                                   at("2026-01-30T21:05:00Z"), "admitted"}));
  EXPECT_EQ(j.currency, "EUR");
  EXPECT_EQ(j.estimated_cost, *core::Money::parse("12.5", "EUR"));
  EXPECT_EQ(j.actual_cost, *core::Money::parse("13.000971", "EUR"));
  EXPECT_EQ(j.budget_limit, *core::Money::parse("100", "EUR"));
  EXPECT_EQ(j.outputs.find("url")->as_string(), "http://llm.svc:8000");
  EXPECT_EQ(j.created_at, at("2026-01-30T20:00:00Z"));
  EXPECT_EQ(j.updated_at, at("2026-01-30T22:11:00.5Z"));
}

TEST(JobCodecTest, WritesCanonicalFormAndRoundTrips) {
  Job j = parse_ok(kFullJob);
  core::Value v = j.to_value();
  EXPECT_EQ(v.find("id")->as_string(), "0190e6f4-5c3a-7abc-8def-0123456789ab");  // lower-case
  EXPECT_EQ(v.find("source")->as_string(), "usecase");
  EXPECT_EQ(v.find("job_type")->as_string(), "service");
  EXPECT_EQ(v.find("deployment_type")->as_string(), "model");
  EXPECT_EQ(v.find("priority")->as_string(), "high");
  EXPECT_EQ(v.find("status")->as_string(), "failed");
  EXPECT_EQ(v.find("status_history")->as_list()[1].find("from")->as_string(), "queued");
  EXPECT_EQ(*v.find("cpu_cores"), core::Value("0.5"));
  EXPECT_EQ(*v.find("memory_gb"), core::Value("1.5"));
  EXPECT_EQ(*v.find("gpu_count"), core::Value(2));
  EXPECT_EQ(*v.find("estimated_cost"), core::Value("12.50"));
  EXPECT_EQ(*v.find("actual_cost"), core::Value("13.000971"));
  EXPECT_EQ(*v.find("budget_limit"), core::Value("100.00"));
  EXPECT_EQ(*v.find("time_window_start"), core::Value("22:00"));
  EXPECT_EQ(*v.find("time_window_end"), core::Value("06:00"));
  EXPECT_EQ(*v.find("actual_start"), core::Value("2026-01-30T21:06:00Z"));
  EXPECT_EQ(*v.find("schema_version"), core::Value(1));

  // Round trip: the canonical text parses back to an equal job and prints identically.
  std::string text = j.to_json();
  Job back = parse_ok(text);
  EXPECT_EQ(back, j);
  EXPECT_EQ(back.to_json(), text);
  // Key order follows the schema: schema_version first, updated_at last.
  const auto& entries = v.as_map().entries();
  EXPECT_EQ(entries.front().first, "schema_version");
  EXPECT_EQ(entries.back().first, "updated_at");
  EXPECT_EQ(entries.size(), 43u);
}

TEST(JobCodecTest, MinimalDocumentGetsTheSourceDefaults) {
  Job j = parse_ok(R"({"name": "qdrant", "job_type": "service", "deployment_type": "helm"})");
  EXPECT_TRUE(j.id.is_nil());
  EXPECT_TRUE(j.tenant_id.is_nil());
  EXPECT_EQ(j.source, JobSource::Direct);
  EXPECT_FALSE(j.source_id.has_value());
  EXPECT_EQ(j.gpu_count, 0);
  EXPECT_EQ(j.cpu_cores, core::Quantity::from_int(1));
  EXPECT_EQ(j.memory_gb, core::Quantity::from_int(4));
  EXPECT_EQ(j.priority, JobPriority::Normal);
  EXPECT_FALSE(j.preemptible);
  EXPECT_FALSE(j.preempts_others);
  EXPECT_EQ(j.status, JobStatus::Pending);
  EXPECT_EQ(j.retry_count, 0);
  EXPECT_EQ(j.max_retries, 3);
  EXPECT_EQ(j.currency, "USD");
  EXPECT_TRUE(j.spec.is_map());
  EXPECT_TRUE(j.outputs.is_map());
  EXPECT_TRUE(j.status_history.empty());

  core::Value v = j.to_value();
  EXPECT_TRUE(v.find("id")->is_null());
  EXPECT_TRUE(v.find("deadline")->is_null());
  EXPECT_TRUE(v.find("estimated_cost")->is_null());
  EXPECT_EQ(*v.find("cpu_cores"), core::Value(1));
  EXPECT_EQ(*v.find("memory_gb"), core::Value(4));
  EXPECT_EQ(*v.find("currency"), core::Value("USD"));
  EXPECT_EQ(parse_ok(j.to_json()), j);
}

TEST(JobCodecTest, NullMeansAbsent) {
  Job j = parse_ok(R"({"name": "a", "job_type": "batch", "deployment_type": "docker",
                       "gpu_type": null, "deadline": null, "cpu_cores": null, "status_history": null})");
  EXPECT_FALSE(j.gpu_type.has_value());
  EXPECT_FALSE(j.deadline.has_value());
  EXPECT_EQ(j.cpu_cores, core::Quantity::from_int(1));
}

TEST(JobCodecTest, EnumsAcceptAnyCaseAndWriteLowerCase) {
  for (const char* spelling : {"training", "TRAINING", "Training"}) {
    std::string doc = std::string(R"({"name": "t", "deployment_type": "docker", "job_type": ")") + spelling + "\"}";
    EXPECT_EQ(parse_ok(doc).job_type, JobType::Training) << spelling;
  }
  for (JobPriority p : kAllJobPriorities) {
    auto parsed = parse_job_priority(to_string(p));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, p);
  }
  for (JobStatus s : kAllJobStatuses) {
    auto parsed = parse_job_status(to_string(s));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, s);
  }
  auto bad = parse_job_priority("urgent");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().value, "urgent");
  EXPECT_NE(bad.error().message.find("critical, high, normal, low, spot"), std::string::npos);
}

TEST(JobCodecTest, SourceIsInferredFromTheIds) {
  const char* base = R"({"name": "a", "job_type": "batch", "deployment_type": "docker")";
  EXPECT_EQ(parse_ok(std::string(base) + "}").source, JobSource::Direct);
  EXPECT_EQ(parse_ok(std::string(base) + R"(, "pipeline_id": "44444444-4444-4444-8444-444444444444"})").source,
            JobSource::Pipeline);
  EXPECT_EQ(parse_ok(std::string(base) + R"(, "pipeline_id": "44444444-4444-4444-8444-444444444444",
                  "usecase_deployment_id": "66666666-6666-4666-8666-666666666666"})")
                .source,
            JobSource::Usecase);
}

TEST(JobCodecTest, CpuCoresAreExactQuantities) {
  struct Case {
    const char* json;
    core::Quantity expected;
    core::Value written;
  };
  const Case cases[] = {
      {"2", core::Quantity::from_int(2), core::Value(2)},
      {"0.5", core::Quantity::from_milli(500), core::Value("0.5")},
      {"\"500m\"", core::Quantity::from_milli(500), core::Value("0.5")},
      {"\"1.5\"", core::Quantity::from_milli(1500), core::Value("1.5")},
      {"\"2k\"", core::Quantity::from_int(2000), core::Value(2000)},
      {"0.1", core::Quantity::from_milli(100), core::Value("0.1")},
      {"\"0.001\"", core::Quantity::from_milli(1), core::Value("0.001")},
  };
  for (const auto& c : cases) {
    std::string doc = std::string(R"({"name": "a", "job_type": "batch", "deployment_type": "docker", "cpu_cores": )") +
                      c.json + "}";
    Job j = parse_ok(doc);
    EXPECT_EQ(j.cpu_cores, c.expected) << c.json;
    EXPECT_EQ(*j.to_value().find("cpu_cores"), c.written) << c.json;
  }
}

TEST(JobCodecTest, MoneyIsExactAndInTheJobCurrency) {
  const char* base = R"({"name": "a", "job_type": "batch", "deployment_type": "docker", )";
  Job j = parse_ok(std::string(base) + R"("budget_limit": "0.000000000001", "estimated_cost": 3})");
  EXPECT_EQ(j.budget_limit->units(), 1);
  EXPECT_EQ(j.budget_limit->currency(), "USD");
  EXPECT_EQ(*j.to_value().find("budget_limit"), core::Value("0.000000000001"));
  EXPECT_EQ(*j.to_value().find("estimated_cost"), core::Value("3.00"));

  // A float whose shortest form needs 17 digits has no exact decimal: ask for a string.
  auto e = parse_err(std::string(base) + R"("actual_cost": 0.30000000000000004})");
  EXPECT_EQ(e.field, "actual_cost");
  EXPECT_NE(e.message.find("decimal string"), std::string::npos);
  e = parse_err(std::string(base) + R"("actual_cost": "12,50"})");
  EXPECT_EQ(e.field, "actual_cost");
  EXPECT_EQ(e.value, "12,50");
  e = parse_err(std::string(base) + R"("currency": "usd"})");
  EXPECT_EQ(e.field, "currency");
  EXPECT_EQ(e.value, "usd");
  e = parse_err(std::string(base) + R"("estimated_cost": -1})");
  EXPECT_EQ(e.field, "estimated_cost");
  EXPECT_NE(e.message.find("negative"), std::string::npos);
}

TEST(JobCodecTest, UnknownFieldsAreRejectedWithASuggestion) {
  auto e = parse_err(R"({"name": "a", "job_type": "batch", "deployment_type": "docker", "gpu_cont": 1})");
  EXPECT_EQ(e.code, ErrorCode::Invalid);
  EXPECT_EQ(e.field, "gpu_cont");
  EXPECT_NE(e.message.find("unknown field"), std::string::npos);
  EXPECT_NE(e.message.find("did you mean 'gpu_count'"), std::string::npos);

  e = parse_err(R"({"name": "a", "job_type": "batch", "deployment_type": "docker", "component_ref": "qdrant"})");
  EXPECT_EQ(e.field, "component_ref");
  EXPECT_EQ(e.message, "unknown field");  // a step-config key, nothing close in the job schema

  // Typos are reported before "required": the user sees the real cause.
  e = parse_err(R"({"nmae": "a", "job_type": "batch", "deployment_type": "docker"})");
  EXPECT_EQ(e.field, "nmae");
  EXPECT_NE(e.message.find("'name'"), std::string::npos);

  e = parse_err(R"({"name": "a", "job_type": "batch", "deployment_type": "docker",
                    "status_history": [{"from": "pending", "to": "queued", "at": "2026-01-01T00:00:00Z", "why": "x"}]})");
  EXPECT_EQ(e.field, "status_history[0].why");
}

TEST(JobCodecTest, StructuralErrorsNameFieldAndValue) {
  struct Case {
    const char* extra;  // appended to a valid minimal document
    const char* field;
    const char* value;
    const char* why;  // substring of the message
  };
  const Case cases[] = {
      {R"("id": "step-1")", "id", "step-1", "UUID"},
      {R"("pipeline_step_id": "step-2")", "pipeline_step_id", "step-2", "UUID"},
      {R"("tenant_id": 7)", "tenant_id", "7", "string"},
      {R"("gpu_count": 1.5)", "gpu_count", "1.5", "integer"},
      {R"("gpu_count": "2")", "gpu_count", "2", "integer"},
      {R"("preemptible": "yes")", "preemptible", "yes", "true or false"},
      {R"("priority": "urgent")", "priority", "urgent", "critical"},
      {R"("status": "done")", "status", "done", "pending"},
      {R"("source": "cli")", "source", "cli", "direct"},
      {R"("cpu_cores": "lots")", "cpu_cores", "lots", "quantity"},
      {R"("cpu_cores": [1])", "cpu_cores", "[1]", "number"},
      {R"("memory_gb": "8Gi")", "memory_gb", "8Gi", "without a unit"},
      {R"("memory_gb": "1.2.3")", "memory_gb", "1.2.3", "number"},
      {R"("deadline": "tomorrow")", "deadline", "tomorrow", "RFC 3339"},
      {R"("deadline": "2026-02-30T00:00:00Z")", "deadline", "2026-02-30T00:00:00Z", "RFC 3339"},
      {R"("time_window_start": "25:00", "time_window_end": "06:00")", "time_window_start", "25:00", "HH:MM"},
      {R"("time_window_start": "22:00")", "time_window_end", "", "both ends"},
      {R"("time_window_end": "06:00")", "time_window_start", "", "both ends"},
      {R"("spec": [1, 2])", "spec", "[1,2]", "object"},
      {R"("outputs": "x")", "outputs", "x", "object"},
      {R"("status_history": {})", "status_history", "{}", "list"},
      {R"("status_history": [{"from": "pending", "to": "nowhere", "at": "2026-01-01T00:00:00Z"}])",
       "status_history[0].to", "nowhere", "pending"},
      {R"("status_history": [{"from": "pending", "to": "queued"}])", "status_history[0].at", "", "required"},
      {R"("status_history": [3])", "status_history[0]", "3", "object"},
  };
  const std::string base = R"({"name": "a", "job_type": "batch", "deployment_type": "docker", )";
  for (const auto& c : cases) {
    auto e = parse_err(base + c.extra + "}");
    EXPECT_EQ(e.code, ErrorCode::Invalid) << c.extra;
    EXPECT_EQ(e.field, c.field) << c.extra;
    EXPECT_EQ(e.value, c.value) << c.extra;
    EXPECT_NE(e.message.find(c.why), std::string::npos) << c.extra << " -> " << e.message;
  }
}

TEST(JobCodecTest, RequiredFields) {
  EXPECT_EQ(parse_err(R"({"job_type": "batch", "deployment_type": "docker"})").field, "name");
  EXPECT_EQ(parse_err(R"({"name": "a", "deployment_type": "docker"})").field, "job_type");
  EXPECT_EQ(parse_err(R"({"name": "a", "job_type": "batch"})").field, "deployment_type");
  EXPECT_EQ(parse_err(R"({"name": "a", "job_type": null, "deployment_type": "docker"})").field, "job_type");
}

TEST(JobCodecTest, DocumentLevelErrors) {
  auto e = parse_err("[1, 2]");
  EXPECT_EQ(e.code, ErrorCode::Invalid);
  EXPECT_NE(e.message.find("JSON object"), std::string::npos);
  e = parse_err(R"({"name": )");
  EXPECT_EQ(e.code, ErrorCode::Invalid);  // the JSON parser's error passes through
  e = parse_err(R"({"schema_version": 2, "name": "a", "job_type": "batch", "deployment_type": "docker"})");
  EXPECT_EQ(e.code, ErrorCode::Unsupported);
  EXPECT_EQ(e.field, "schema_version");
  EXPECT_EQ(e.value, "2");
}

TEST(JobCodecTest, TimeWindowCrossesMidnight) {
  Job j = parse_ok(R"({"name": "a", "job_type": "batch", "deployment_type": "docker",
                       "time_window_start": "22:00", "time_window_end": "06:00"})");
  ASSERT_TRUE(j.time_window.has_value());
  EXPECT_TRUE(j.time_window->contains(at("2026-01-30T23:00:00Z")));
  EXPECT_TRUE(j.time_window->contains(at("2026-01-31T05:00:00Z")));
  EXPECT_FALSE(j.time_window->contains(at("2026-01-31T12:00:00Z")));
}

TEST(JobCodecTest, SourcePipelineExampleStepConfigReadsAsAJob) {
  // The JOB-step fields of the RAG pipeline example (step-4) that a Job shares.
  Job j = parse_ok(R"({"name": "deploy-llm", "job_type": "SERVICE", "deployment_type": "MODEL",
      "spec": {"model_id": "{{ params.llm_model }}", "engine": "vllm",
               "budsim_config": "{{ steps.step-1.outputs.config }}"},
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "priority": "HIGH"})");
  EXPECT_EQ(j.priority, JobPriority::High);
  EXPECT_EQ(j.spec.find("budsim_config")->as_string(), "{{ steps.step-1.outputs.config }}");
  Job k = parse_ok(R"({"name": "deploy-qdrant", "job_type": "SERVICE", "deployment_type": "HELM",
                       "cpu_cores": 2, "memory_gb": 8})");
  EXPECT_EQ(k.cpu_cores, core::Quantity::from_int(2));
  EXPECT_EQ(k.memory_gb, core::Quantity::from_int(8));
}

TEST(JobCodecTest, ReadsYamlThroughTheSameValue) {
  auto v = core::parse_yaml(R"(
name: nightly-finetune
job_type: TRAINING
deployment_type: DOCKER
gpu_type: nvidia-h100-sxm
gpu_count: 8
cpu_cores: 32
memory_gb: 512
time_window_start: 22:00
time_window_end: "06:00"
priority: LOW
preemptible: true
budget_limit: "250.00"
)");
  ASSERT_TRUE(v.has_value()) << v.error().describe();
  auto j = Job::from_value(*v);
  ASSERT_TRUE(j.has_value()) << j.error().describe();
  EXPECT_EQ(j->job_type, JobType::Training);
  EXPECT_EQ(j->memory_gb, core::Quantity::from_int(512));
  EXPECT_EQ(j->time_window->start.seconds, 22 * 3600);
  EXPECT_EQ(j->budget_limit, *core::Money::parse("250", "USD"));

  // A time written as a number (YAML 1.1 base-60 style) gets a hint to quote it.
  auto e = parse_err(R"({"name": "a", "job_type": "batch", "deployment_type": "docker",
                         "time_window_start": 1320, "time_window_end": "06:00"})");
  EXPECT_EQ(e.field, "time_window_start");
  EXPECT_EQ(e.value, "1320");
  EXPECT_NE(e.message.find("quote it"), std::string::npos);
}

}  // namespace
}  // namespace budcore::job
