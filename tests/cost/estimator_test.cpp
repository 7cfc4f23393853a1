#include "budcore/cost/estimator.hpp"

#include <gtest/gtest.h>

#include "cost/cost_fixture.hpp"

namespace budcore::cost {
namespace {

using testing::contract_book;
using testing::json;

core::Value estimate_json(const std::string& spec, const PriceBook& book = contract_book()) {
  auto e = estimate_document(book, json(spec));
  EXPECT_TRUE(e) << e.error().describe();
  return e ? to_value(*e) : core::Value();
}

core::Error estimate_error(const std::string& spec, const PriceBook& book = contract_book()) {
  auto e = estimate_document(book, json(spec));
  EXPECT_FALSE(e) << "estimated: " << spec;
  return e ? core::Error{} : e.error();
}

TEST(EstimatorTest, PricesAJobLineByLine) {
  core::Value v = estimate_json(R"({"name": "train", "job_type": "training", "deployment_type": "docker",
      "gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "cpu_cores": 8, "memory_gb": 64, "storage_gb": 100,
      "estimated_duration_seconds": 5400})");
  EXPECT_EQ(core::to_json(v),
            R"({"currency":"USD","seconds":5400,"tier":"on_demand","total":"8.450833","lines":[)"
            R"({"item":"gpu","resource":"nvidia-a100-80gb","quantity":"10800","unit":"gpu-second","unit_price":"2.49","amount":"7.470000"},)"
            R"({"item":"cpu","resource":"cpu","quantity":"43200","unit":"core-second","unit_price":"0.04","amount":"0.480000"},)"
            R"({"item":"memory","resource":"memory","quantity":"345600","unit":"GiB-second","unit_price":"0.005","amount":"0.480000"},)"
            R"({"item":"storage","resource":"storage","quantity":"540000","unit":"GiB-second","unit_price":"0.10","amount":"0.020833"}]})");
}

TEST(EstimatorTest, SpotPriorityUsesTheSpotTierAndDefaultsApply) {
  // cpu_cores 1 and memory_gb 4 are the job schema's defaults.
  core::Value v = estimate_json(R"({"job_type": "batch", "gpu_type": "nvidia-t4", "gpu_count": 1,
      "priority": "SPOT", "estimated_duration_seconds": 3600})");
  EXPECT_EQ(v.find("tier")->as_string(), "spot");
  EXPECT_EQ(v.find("total")->as_string(), "0.190000");  // 0.16 + 0.02 + 4 x 0.0025
  EXPECT_EQ(v.find("lines")->as_list().size(), 3u);
}

TEST(EstimatorTest, LinesWithZeroQuantityAreOmitted) {
  core::Value v = estimate_json(R"({"job_type": "batch", "cpu_cores": 0, "memory_gb": "0.5",
      "estimated_duration_seconds": 7200})");
  const auto& lines = v.find("lines")->as_list();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].find("item")->as_string(), "memory");
  EXPECT_EQ(lines[0].find("quantity")->as_string(), "3600");
  EXPECT_EQ(lines[0].find("amount")->as_string(), "0.005000");
}

TEST(EstimatorTest, MinimumBillableSecondsAndFractionalQuantities) {
  core::Value v = estimate_json(R"({"job_type": "batch", "cpu_cores": "250m", "memory_gb": 0,
      "estimated_duration_seconds": 7})");
  EXPECT_EQ(v.find("seconds")->as_int(), 60);
  const auto& cpu = v.find("lines")->as_list()[0];
  EXPECT_EQ(cpu.find("quantity")->as_string(), "15");
  EXPECT_EQ(cpu.find("amount")->as_string(), "0.000167");  // 15 x 0.04 / 3600 = 0.0001666...
  v = estimate_json(R"({"job_type": "batch", "cpu_cores": 1.5, "memory_gb": 0, "estimated_duration_seconds": 61})");
  EXPECT_EQ(v.find("lines")->as_list()[0].find("quantity")->as_string(), "91.5");
}

TEST(EstimatorTest, RoundsHalfToEvenAtSixDecimals) {
  auto book = PriceBook::from_text("currency: USD\ncpu_core_hour: {on_demand: \"0.000009\"}\n");
  ASSERT_TRUE(book);
  // 1800 x 0.000009 / 3600 = 0.0000045 -> 0.000004 (4 is even); 5400 -> 0.0000135 -> 0.000014.
  auto amount = [&](int seconds) {
    core::Value v = estimate_json(R"({"job_type": "batch", "memory_gb": 0, "estimated_duration_seconds": )" +
                                      std::to_string(seconds) + "}",
                                  *book);
    return v.find("lines")->as_list()[0].find("amount")->as_string();
  };
  EXPECT_EQ(amount(1800), "0.000004");
  EXPECT_EQ(amount(5400), "0.000014");
  EXPECT_EQ(amount(2000), "0.000005");  // 0.000005 exactly
  EXPECT_EQ(amount(1801), "0.000005");  // 0.0000045025 is above the half
}

TEST(EstimatorTest, ServiceWithoutEstimateIsPricedPerMonth) {
  core::Value v = estimate_json(R"({"job_type": "SERVICE", "deployment_type": "model", "gpu_type": "nvidia-t4",
      "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0})");
  EXPECT_EQ(v.find("seconds")->as_int(), 2'628'000);
  EXPECT_EQ(v.find("period")->as_string(), "month");
  EXPECT_EQ(v.find("total")->as_string(), "292.000000");  // 730 h x 0.40
  // With an estimate a service is priced for it, without a period.
  v = estimate_json(R"({"job_type": "service", "gpu_type": "nvidia-t4", "gpu_count": 1, "cpu_cores": 0,
      "memory_gb": 0, "estimated_duration_seconds": 3600})");
  EXPECT_EQ(v.find("period"), nullptr);
  EXPECT_EQ(v.find("total")->as_string(), "0.400000");
}

// A serverless endpoint's worker (spec.serverless_endpoint) runs until its endpoint scales it
// down: without an estimate it is priced for one hour, its hourly rate, not for a month.
TEST(EstimatorTest, ServerlessWorkerWithoutEstimateIsPricedPerHour) {
  core::Value v = estimate_json(R"({"job_type": "service", "gpu_type": "nvidia-t4", "gpu_count": 2, "cpu_cores": 0,
      "memory_gb": 0, "spec": {"serverless_endpoint": "chat"}})");
  EXPECT_EQ(v.find("seconds")->as_int(), 3600);
  EXPECT_EQ(v.find("period")->as_string(), "hour");
  EXPECT_EQ(v.find("total")->as_string(), "0.800000");  // 2 GPUs x 1 h x 0.40
  // With an estimate it is priced for it, without a period.
  v = estimate_json(R"({"job_type": "service", "gpu_type": "nvidia-t4", "gpu_count": 1, "cpu_cores": 0,
      "memory_gb": 0, "estimated_duration_seconds": 600, "spec": {"serverless_endpoint": "chat"}})");
  EXPECT_EQ(v.find("period"), nullptr);
  EXPECT_EQ(v.find("total")->as_string(), "0.066667");
  // The same on a Job: request_of() marks a worker open-ended.
  job::Job j;
  j.job_type = job::JobType::Service;
  j.spec = core::Value::map({{"serverless_endpoint", core::Value("chat")}});
  EXPECT_TRUE(request_of(j).open_ended);
  j.spec = core::Value(core::Map{});
  EXPECT_FALSE(request_of(j).open_ended);
  // A worker names its endpoint.
  auto e = estimate_error(R"({"job_type": "service", "gpu_type": "nvidia-t4", "gpu_count": 1,
      "spec": {"serverless_endpoint": 7}})");
  EXPECT_EQ(e.field, "spec.serverless_endpoint");
  EXPECT_EQ(e.value, "7");
  EXPECT_NE(e.message.find("name of the serverless endpoint"), std::string::npos) << e.message;
}

TEST(EstimatorTest, ErrorsUseTheContractCodesAndNameThePath) {
  auto e = estimate_error(R"({"job_type": "batch", "gpu_type": "nvidia-h100", "gpu_count": 1,
      "estimated_duration_seconds": 60})");
  EXPECT_EQ(contract_error_code(e), "unknown_price");
  EXPECT_EQ(e.field, "gpu_type");
  EXPECT_EQ(e.value, "nvidia-h100");

  auto spot_only = PriceBook::from_text("currency: USD\ngpu_hour:\n  t4: {on_demand: \"0.4\"}\n");
  e = estimate_error(R"({"job_type": "batch", "gpu_type": "t4", "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0,
      "priority": "spot", "estimated_duration_seconds": 60})", *spot_only);
  EXPECT_EQ(contract_error_code(e), "unknown_price");
  EXPECT_NE(e.message.find("spot"), std::string::npos);
  e = estimate_error(R"({"job_type": "batch", "estimated_duration_seconds": 60})", *spot_only);
  EXPECT_EQ(contract_error_code(e), "unknown_price");
  EXPECT_EQ(e.field, "cpu_cores");

  e = estimate_error(R"({"job_type": "batch", "gpu_type": "nvidia-t4", "gpu_count": 1})");
  EXPECT_EQ(contract_error_code(e), "missing_field");
  EXPECT_EQ(e.field, "estimated_duration_seconds");
  e = estimate_error(R"({"job_type": "batch", "gpu_count": 1, "estimated_duration_seconds": 60})");
  EXPECT_EQ(contract_error_code(e), "missing_field");
  EXPECT_EQ(e.field, "gpu_type");

  e = estimate_error(R"({"job_type": "batch", "estimated_duration_seconds": -5})");
  EXPECT_EQ(contract_error_code(e), "invalid_value");
  EXPECT_EQ(e.field, "estimated_duration_seconds");
  EXPECT_EQ(e.value, "-5");
  e = estimate_error(R"({"job_type": "batch", "gpu_count": -1, "estimated_duration_seconds": 5})");
  EXPECT_EQ(e.field, "gpu_count");
  e = estimate_error(R"({"job_type": "batch", "memory_gb": "8Gi", "estimated_duration_seconds": 5})");
  EXPECT_EQ(e.field, "memory_gb");
  e = estimate_error(R"({"job_type": "batch", "gpu_cont": 2, "estimated_duration_seconds": 5})");
  EXPECT_EQ(contract_error_code(e), "invalid_value");
  EXPECT_EQ(e.field, "gpu_cont");
  EXPECT_NE(e.message.find("did you mean 'gpu_count'"), std::string::npos);
  e = estimate_error(R"({"job_type": "sometimes", "estimated_duration_seconds": 5})");
  EXPECT_EQ(e.field, "job_type");
  e = estimate_error(R"({"job_type": "batch", "priority": "urgent", "estimated_duration_seconds": 5})");
  EXPECT_EQ(e.field, "priority");
  e = estimate_error(R"({"job_type": "batch", "gpu_count": "{{ params.n }}", "estimated_duration_seconds": 5})");
  EXPECT_EQ(e.field, "gpu_count");
  e = estimate_error(R"([1, 2])");
  EXPECT_EQ(contract_error_code(e), "invalid_value");
}

TEST(EstimatorTest, EstimatesAJobObject) {
  auto job = job::Job::from_json(R"({"name": "x", "job_type": "batch", "deployment_type": "docker",
      "gpu_type": "nvidia-t4", "gpu_count": 2, "cpu_cores": 0, "memory_gb": 0, "estimated_duration_seconds": 1800})");
  ASSERT_TRUE(job) << job.error().describe();
  auto e = estimate_job(contract_book(), *job);
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->total.to_string(), "0.40 USD");
}

constexpr const char* kRagPipeline = R"({
  "pipeline": {"name": "rag", "parameters": {"llm_gpus": 2}},
  "steps": [
    {"id": "step-1", "step_type": "API_CALL", "config": {"url": "http://x"}},
    {"id": "step-2", "step_type": "JOB", "config": {"job_type": "SERVICE", "deployment_type": "HELM",
       "cpu_cores": 2, "memory_gb": 8}},
    {"id": "step-3", "step_type": "JOB", "depends_on": ["step-1"], "config": {"job_type": "BATCH",
       "deployment_type": "MODEL", "gpu_type": "nvidia-t4", "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0,
       "estimated_duration_seconds": 3600}},
    {"id": "step-4", "step_type": "JOB", "config": {"job_type": "batch", "deployment_type": "MODEL",
       "gpu_type": "nvidia-a100-80gb", "gpu_count": "{{ params.llm_gpus }}", "cpu_cores": 0, "memory_gb": 0,
       "estimated_duration_seconds": 1800, "priority": "spot"}},
    {"id": "step-5", "step_type": "CONDITION", "config": {"expression": "{{ params.x }}", "then_steps": ["step-6"]}},
    {"id": "step-6", "step_type": "JOB", "depends_on": ["step-5"], "config": {"job_type": "batch",
       "deployment_type": "MODEL", "gpu_type": "nvidia-t4", "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0,
       "estimated_duration_seconds": 7200}},
    {"id": "step-7", "step_type": "job", "condition": "{{ params.y }}", "config": {"job_type": "batch",
       "deployment_type": "docker", "cpu_cores": 1, "memory_gb": 0, "estimated_duration_seconds": 3600}}
  ]})";

TEST(EstimatorTest, PricesAPipelineWithOptionalSteps) {
  core::Value v = estimate_json(kRagPipeline);
  const auto& steps = v.find("steps")->as_list();
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[0].find("step")->as_string(), "step-2");
  EXPECT_EQ(steps[0].find("period")->as_string(), "month");
  EXPECT_EQ(steps[0].find("total")->as_string(), "87.600000");   // 730 h x (2 x 0.04 + 8 x 0.005)
  EXPECT_EQ(steps[1].find("total")->as_string(), "0.400000");
  EXPECT_EQ(steps[2].find("total")->as_string(), "1.190000");    // 2 x 0.5 h x 1.19 (spot)
  EXPECT_EQ(steps[2].find("tier")->as_string(), "spot");
  EXPECT_EQ(steps[3].find("total")->as_string(), "0.800000");    // behind step-5's branch
  EXPECT_EQ(steps[4].find("total")->as_string(), "0.040000");    // behind its own condition
  EXPECT_EQ(v.find("total")->as_string(), "90.030000");
  EXPECT_EQ(v.find("total_min")->as_string(), "89.190000");
  EXPECT_EQ(v.find("currency")->as_string(), "USD");
}

TEST(EstimatorTest, PipelineErrorsNameTheStepPath) {
  auto e = estimate_error(R"({"pipeline": {}, "steps": [{"id": "a", "step_type": "WAIT", "config": {}},
      {"id": "b", "step_type": "JOB", "config": {"job_type": "batch", "gpu_type": "x100", "gpu_count": 1,
       "estimated_duration_seconds": 5}}]})");
  EXPECT_EQ(contract_error_code(e), "unknown_price");
  EXPECT_EQ(e.field, "steps[1].config.gpu_type");
  e = estimate_error(R"({"steps": [{"id": "b", "step_type": "JOB", "config": {"job_type": "batch"}}]})");
  EXPECT_EQ(contract_error_code(e), "missing_field");
  EXPECT_EQ(e.field, "steps[0].config.estimated_duration_seconds");
  e = estimate_error(R"({"steps": [{"id": "b", "step_type": "JOB"}]})");
  EXPECT_EQ(e.field, "steps[0].config");
  EXPECT_EQ(contract_error_code(e), "missing_field");
  e = estimate_error(R"({"steps": [{"id": "b", "step_type": "JOB", "config": {"job_type": "batch",
      "estimated_duration_seconds": "{{ steps.a.outputs.n }}"}}]})");
  EXPECT_EQ(e.field, "steps[0].config.estimated_duration_seconds");
  EXPECT_EQ(contract_error_code(e), "invalid_value");
  e = estimate_error(R"({"steps": "no"})");
  EXPECT_EQ(e.field, "steps");
}

TEST(EstimatorTest, PricesAUseCaseRenderPerMonthFromItsComponents) {
  core::Value v = estimate_json(R"({"valid": true, "template": {"id": "simple-rag-v1", "version": "1.0.0"},
    "parameters": {},
    "components": [
      {"id": "vector-db", "component_ref": "qdrant", "gpu_type": null, "gpu_count": 0,
       "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}},
      {"id": "llm", "component_ref": "vllm-endpoint", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
       "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}],
    "disabled": [],
    "pipeline": {"pipeline": {"name": "simple-rag"}, "steps": [
      {"id": "vector-db", "step_type": "JOB", "config": {"deployment_type": "helm"}},
      {"id": "llm", "step_type": "JOB", "config": {"job_type": "service", "deployment_type": "model"}}]}})");
  const auto& steps = v.find("steps")->as_list();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].find("period")->as_string(), "month");
  EXPECT_EQ(steps[0].find("total")->as_string(), "73.000000");  // 730 h x (2 x 0.04 + 4 x 0.005)
  EXPECT_EQ(steps[1].find("total")->as_string(), "1834.125000");  // 730 h x (2.49 + 0.02 + 0.0025)
  EXPECT_EQ(v.find("total")->as_string(), "1907.125000");
  EXPECT_EQ(v.find("total_min")->as_string(), "1907.125000");

  auto e = estimate_error(R"({"valid": true, "components": [], "pipeline": {"steps": [
      {"id": "x", "step_type": "JOB", "config": {"gpu_type": "nope", "gpu_count": 1}}]}})");
  EXPECT_EQ(e.field, "pipeline.steps[0].config.gpu_type");
  e = estimate_error(R"({"valid": false, "components": [], "pipeline": {}})");
  EXPECT_EQ(e.field, "valid");
}

TEST(EstimatorTest, ComparesSpotAndOnDemand) {
  auto c = compare_tiers(contract_book(), json(R"({"job_type": "batch", "gpu_type": "nvidia-a100-80gb",
      "gpu_count": 1, "cpu_cores": 0, "memory_gb": 0, "estimated_duration_seconds": 3600})"));
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->on_demand.total().amount_string(6), "2.490000");
  EXPECT_EQ(c->spot.total().amount_string(6), "1.190000");
  EXPECT_EQ(c->savings.amount_string(6), "1.300000");
  EXPECT_EQ(c->savings_percent, "52.21");  // 1.30 / 2.49 = 52.208...%
  core::Value v = to_value(*c);
  EXPECT_EQ(v.find("spot")->find("tier")->as_string(), "spot");
}

TEST(EstimatorTest, FindsTheCheapestGpuThatFits) {
  auto book = PriceBook::from_text(R"(currency: USD
gpu_hour:
  nvidia-a100-80gb: {on_demand: "2.49"}
  nvidia-a100-40gb: {on_demand: "1.89"}
  nvidia-l40s: {on_demand: "0.99", memory_gib: 48}
  nvidia-h100-sxm: {on_demand: "4.99"}
  mig-3g.40gb: {on_demand: "1.20"}
  nvidia-t4: {on_demand: "0.40", memory_gib: 16}
)");
  ASSERT_TRUE(book) << book.error().describe();
  auto s = cheapest_gpu(*book, GpuRequirement{40, 2, 1800, Tier::OnDemand});
  ASSERT_TRUE(s) << s.error().describe();
  ASSERT_EQ(s->options.size(), 4u);
  EXPECT_EQ(s->options[0].gpu_type, "nvidia-l40s");
  EXPECT_EQ(s->options[0].cost.amount_string(6), "0.990000");
  EXPECT_EQ(s->options[1].gpu_type, "mig-3g.40gb");
  EXPECT_EQ(s->options[3].gpu_type, "nvidia-a100-80gb");
  EXPECT_EQ(s->unknown_memory, std::vector<std::string>{"nvidia-h100-sxm"});
  auto none = cheapest_gpu(*book, GpuRequirement{100, 1, 60, Tier::OnDemand});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(none.error().field, "memory_gib");
  EXPECT_EQ(gpu_memory_gib(*book, "nvidia-a100-80gb-pcie"), 80);
  EXPECT_EQ(gpu_memory_gib(*book, "gb200"), std::nullopt);

  auto req = read_gpu_requirement(json(R"({"memory_gib": 24, "gpu_count": 4, "tier": "spot"})"));
  ASSERT_TRUE(req);
  EXPECT_EQ(req->seconds, 3600);
  EXPECT_EQ(req->tier, Tier::Spot);
  EXPECT_EQ(read_gpu_requirement(json(R"({"memory_gb": 24})")).error().field, "memory_gb");
  EXPECT_EQ(read_gpu_requirement(json(R"({"memory_gib": 24, "gpu_count": 0})")).error().field, "gpu_count");
}

}  // namespace
}  // namespace budcore::cost
