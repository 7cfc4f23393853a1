// Job::validate: every rule, with the field, the value and the reason it reports; plus
// resources() and can_preempt().
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <ostream>
#include <string>

#include "budcore/job/job.hpp"

namespace budcore::job {
namespace {

using core::ErrorCode;

core::Id id(const char* s) { return *core::Id::parse(s); }
core::Timestamp at(const char* s) { return *core::Timestamp::parse(s); }
core::Money usd(const char* s) { return *core::Money::parse(s, "USD"); }

Job valid_job() {
  Job j;
  j.name = "batch-inference";
  j.job_type = JobType::Batch;
  j.deployment_type = DeploymentType::Docker;
  j.gpu_type = "nvidia-a100-80gb";
  j.gpu_count = 2;
  j.estimated_duration_seconds = 3600;
  j.max_duration_seconds = 7200;
  j.created_at = at("2026-01-30T20:00:00Z");
  j.updated_at = at("2026-01-30T20:00:00Z");
  j.deadline = at("2026-01-31T06:00:00Z");
  j.budget_limit = usd("100");
  return j;
}

TEST(JobValidateTest, ValidJobPasses) {
  EXPECT_TRUE(valid_job().validate().has_value());
  EXPECT_TRUE(valid_job().validate_all().empty());
}

struct RuleCase {
  const char* name;
  std::function<void(Job&)> mutate;
  const char* field;
  const char* value;
  const char* why;
  bool survives_json = true;  // false: the JSON form cannot express the fault
};

void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.name; }

class JobRuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(JobRuleTest, ReportsFieldValueAndReason) {
  const RuleCase& c = GetParam();
  Job j = valid_job();
  c.mutate(j);
  auto st = j.validate();
  ASSERT_FALSE(st.has_value()) << c.name;
  EXPECT_EQ(st.error().code, ErrorCode::Invalid);
  EXPECT_EQ(st.error().field, c.field);
  EXPECT_EQ(st.error().value, c.value);
  EXPECT_NE(st.error().message.find(c.why), std::string::npos) << st.error().describe();
  if (!c.survives_json) return;
  // from_value applies the same rules to a document.
  auto parsed = Job::from_value(j.to_value());
  ASSERT_FALSE(parsed.has_value()) << c.name;
  EXPECT_EQ(parsed.error().field, c.field);
}

const RuleCase kRules[] = {
    {"empty_name", [](Job& j) { j.name = ""; }, "name", "", "DNS-1123"},
    {"upper_name", [](Job& j) { j.name = "Deploy-LLM"; }, "name", "Deploy-LLM", "DNS-1123"},
    {"underscore_name", [](Job& j) { j.name = "deploy_llm"; }, "name", "deploy_llm", "DNS-1123"},
    {"dash_end_name", [](Job& j) { j.name = "llm-"; }, "name", "llm-", "DNS-1123"},
    {"long_name", [](Job& j) { j.name = std::string(64, 'a'); }, "name", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "1-63"},
    {"direct_with_source_id", [](Job& j) { j.source_id = id("77777777-7777-4777-8777-777777777777"); },
     "source_id", "77777777-7777-4777-8777-777777777777", "direct"},
    {"pipeline_without_id", [](Job& j) { j.source = JobSource::Pipeline; }, "pipeline_id", "", "source is pipeline"},
    {"usecase_without_id", [](Job& j) { j.source = JobSource::Usecase; }, "usecase_deployment_id", "",
     "source is usecase"},
    {"step_without_pipeline",
     [](Job& j) { j.pipeline_step_id = id("55555555-5555-4555-8555-555555555555"); }, "pipeline_id", "",
     "pipeline_step_id"},
    {"negative_gpus", [](Job& j) { j.gpu_count = -1; j.gpu_type.reset(); }, "gpu_count", "-1", "negative"},
    {"gpu_type_without_count", [](Job& j) { j.gpu_count = 0; }, "gpu_type", "nvidia-a100-80gb", "gpu_count is 0"},
    {"empty_gpu_type", [](Job& j) { j.gpu_type = ""; }, "gpu_type", "", "empty"},
    {"bad_gpu_type", [](Job& j) { j.gpu_type = "nvidia a100"; }, "gpu_type", "nvidia a100", "not a valid"},
    {"negative_cpu", [](Job& j) { j.cpu_cores = core::Quantity::from_milli(-500); }, "cpu_cores", "-0.5",
     "negative"},
    {"sub_milli_cpu", [](Job& j) { j.cpu_cores = *core::Quantity::parse("0.0005"); }, "cpu_cores", "0.0005",
     "milli-cores"},
    {"negative_memory", [](Job& j) { j.memory_gb = core::Quantity::from_int(-4); }, "memory_gb", "-4", "negative"},
    {"huge_memory", [](Job& j) { j.memory_gb = core::Quantity::from_int(Job::kMaxGigabytes + 1); }, "memory_gb",
     "8589934592", "too large"},
    {"negative_storage", [](Job& j) { j.storage_gb = -1; }, "storage_gb", "-1", "negative"},
    {"huge_storage", [](Job& j) { j.storage_gb = Job::kMaxGigabytes + 1; }, "storage_gb", "8589934592",
     "too large"},
    {"negative_estimate", [](Job& j) { j.estimated_duration_seconds = -5; }, "estimated_duration_seconds", "-5",
     "negative"},
    {"zero_timeout", [](Job& j) { j.max_duration_seconds = 0; }, "max_duration_seconds", "0", "positive"},
    {"timeout_before_estimate", [](Job& j) { j.max_duration_seconds = 1800; }, "max_duration_seconds", "1800",
     "shorter than estimated_duration_seconds (3600)"},
    {"deadline_before_creation", [](Job& j) { j.deadline = at("2026-01-30T19:00:00Z"); }, "deadline",
     "2026-01-30T19:00:00Z", "after created_at (2026-01-30T20:00:00Z)"},
    {"deadline_at_creation", [](Job& j) { j.deadline = j.created_at; }, "deadline", "2026-01-30T20:00:00Z",
     "after created_at"},
    {"empty_window",
     [](Job& j) { j.time_window = core::TimeWindow{{22 * 3600}, {22 * 3600}}; }, "time_window_end", "22:00",
     "equals time_window_start"},
    {"updated_before_created", [](Job& j) { j.updated_at = at("2026-01-30T19:59:59Z"); }, "updated_at",
     "2026-01-30T19:59:59Z", "created_at"},
    {"estimated_end_before_start",
     [](Job& j) {
       j.estimated_start = at("2026-01-30T22:00:00Z");
       j.estimated_end = at("2026-01-30T21:00:00Z");
     },
     "estimated_end", "2026-01-30T21:00:00Z", "estimated_start"},
    {"actual_end_before_start",
     [](Job& j) {
       j.actual_start = at("2026-01-30T22:00:00Z");
       j.actual_end = at("2026-01-30T21:00:00Z");
     },
     "actual_end", "2026-01-30T21:00:00Z", "actual_start"},
    {"critical_preemptible",
     [](Job& j) {
       j.priority = JobPriority::Critical;
       j.preemptible = true;
     },
     "preemptible", "true", "critical"},
    {"spot_preempts",
     [](Job& j) {
       j.priority = JobPriority::Spot;
       j.preempts_others = true;
     },
     "preempts_others", "true", "spot"},
    {"negative_retries", [](Job& j) { j.retry_count = -1; }, "retry_count", "-1", "negative"},
    {"negative_max_retries", [](Job& j) { j.max_retries = -1; }, "max_retries", "-1", "negative"},
    {"retries_over_max", [](Job& j) { j.retry_count = 4; }, "retry_count", "4", "max_retries (3)"},
    {"history_out_of_order",
     [](Job& j) {
       j.status_history = {{JobStatus::Pending, JobStatus::Queued, at("2026-01-30T21:00:00Z"), ""},
                           {JobStatus::Queued, JobStatus::Scheduled, at("2026-01-30T20:30:00Z"), ""}};
     },
     "status_history[1].at", "2026-01-30T20:30:00Z", "previous"},
    {"bad_currency", [](Job& j) { j.currency = "dollars"; }, "currency", "dollars", "ISO 4217"},
    {"other_currency", [](Job& j) { j.actual_cost = *core::Money::parse("5", "EUR"); }, "actual_cost",
     "5.00 EUR", "currency USD", false},
    {"negative_budget", [](Job& j) { j.budget_limit = usd("-1"); }, "budget_limit", "-1.00", "negative"},
    {"spec_not_map", [](Job& j) { j.spec = core::Value(3); }, "spec", "3", "object"},
    {"outputs_not_map", [](Job& j) { j.outputs = core::Value::list({}); }, "outputs", "[]", "object"},
    {"schema_version", [](Job& j) { j.schema_version = 2; }, "schema_version", "2", "version"},
};

INSTANTIATE_TEST_SUITE_P(Rules, JobRuleTest, ::testing::ValuesIn(kRules),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(JobValidateTest, HistoryLongerThanTheCapIsRejected) {
  Job j = valid_job();
  for (std::size_t i = 0; i <= Job::kMaxHistory; ++i) {
    j.status_history.push_back({JobStatus::Pending, JobStatus::Queued, at("2026-01-30T21:00:00Z"), ""});
  }
  auto st = j.validate();
  ASSERT_FALSE(st.has_value());
  EXPECT_EQ(st.error().field, "status_history");
}

TEST(JobValidateTest, ValidateAllReportsEveryProblemInFieldOrder) {
  Job j = valid_job();
  j.name = "Bad_Name";
  j.gpu_count = -2;
  j.max_duration_seconds = 10;
  j.retry_count = 9;
  j.currency = "us";
  auto errors = j.validate_all();
  std::vector<std::string> fields;
  for (const auto& e : errors) fields.push_back(e.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"name", "gpu_count", "max_duration_seconds",
                                              "retry_count", "currency"}));
  auto first = j.validate();
  ASSERT_FALSE(first.has_value());
  EXPECT_EQ(first.error(), errors.front());
}

// JSON has no NaN or infinity: one in spec or outputs is refused naming its path, through
// lists and maps, the first one of each document.
TEST(JobValidateTest, ANonFiniteNumberIsRefusedNamingItsPath) {
  Job j = valid_job();
  j.spec = core::Value::map({{"a", core::Value::list({core::Value(1), core::Value::map({{"b", core::Value(INFINITY)}})})},
                             {"c", core::Value(NAN)}});
  j.outputs = core::Value::map({{"x", core::Value::list({core::Value(-INFINITY)})}});
  auto all = j.validate_all();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].field, "spec.a[1].b");
  EXPECT_EQ(all[1].field, "outputs.x[0]");
  EXPECT_NE(all[0].message.find("not a finite number"), std::string::npos) << all[0].describe();
  j.spec = core::Value::map({{"ok", core::Value(1.5)}});
  j.outputs = core::Value::map({});
  EXPECT_TRUE(j.validate().has_value());
}

TEST(JobValidateTest, GpuCountWithoutTypeMeansAnyGpu) {
  Job j = valid_job();
  j.gpu_type.reset();
  EXPECT_TRUE(j.validate().has_value());
  auto r = j.resources();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->get("nvidia.com/gpu"), core::Quantity::from_int(2));
}

TEST(JobResourcesTest, CpuMemoryStorageAndGpu) {
  Job j = valid_job();
  j.cpu_cores = core::Quantity::from_milli(2500);
  j.memory_gb = core::Quantity::from_int(8);
  j.storage_gb = 100;
  auto r = j.resources();
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  EXPECT_EQ(r->size(), 4u);
  EXPECT_EQ(r->get("cpu"), core::Quantity::from_milli(2500));
  EXPECT_EQ(r->get("memory"), core::Quantity::from_int(8LL << 30));
  EXPECT_EQ(r->get("memory").to_string(), "8Gi");
  EXPECT_EQ(r->get("ephemeral-storage"), core::Quantity::from_int(100LL << 30));
  EXPECT_EQ(r->get("nvidia.com/gpu"), core::Quantity::from_int(2));
}

TEST(JobResourcesTest, FractionalGibRoundsUpToWholeBytes) {
  Job j = valid_job();
  j.memory_gb = *core::Quantity::parse("1.5");
  auto r = j.resources();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->get("memory"), core::Quantity::from_int(1536LL << 20));
  EXPECT_EQ(r->get("memory").to_string(), "1536Mi");
  j.memory_gb = *core::Quantity::parse("0.1");  // 107374182.4 bytes
  r = j.resources();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->get("memory"), core::Quantity::from_int(107374183));
}

TEST(JobResourcesTest, NoGpuNoStorageMeansNoSuchResources) {
  Job j = valid_job();
  j.gpu_count = 0;
  j.gpu_type.reset();
  auto r = j.resources();
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->contains("nvidia.com/gpu"));
  EXPECT_FALSE(r->contains("ephemeral-storage"));
  EXPECT_EQ(r->get("cpu"), core::Quantity::from_int(1));
  EXPECT_EQ(r->get("memory").to_string(), "4Gi");
}

TEST(JobResourcesTest, GpuTypeMapsToResourceNames) {
  Job j = valid_job();
  struct Case {
    const char* gpu_type;
    const char* resource;
  };
  for (const Case& c : {Case{"nvidia-a100-80gb", "nvidia.com/gpu"}, Case{"nvidia-h100-sxm", "nvidia.com/gpu"},
                        Case{"mig-1g.5gb", "nvidia.com/mig-1g.5gb"}, Case{"nvidia-mig-3g.20gb", "nvidia.com/mig-3g.20gb"},
                        Case{"amd.com/gpu", "amd.com/gpu"}}) {
    j.gpu_type = c.gpu_type;
    EXPECT_EQ(j.gpu_resource_name(), c.resource) << c.gpu_type;
    auto r = j.resources();
    ASSERT_TRUE(r.has_value()) << c.gpu_type;
    EXPECT_EQ(r->get(c.resource), core::Quantity::from_int(2)) << c.gpu_type;
  }
  j.gpu_type = "amd-mi300x";
  auto r = j.resources({{"amd-mi300x", "amd.com/gpu"}});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->get("amd.com/gpu"), core::Quantity::from_int(2));
  EXPECT_FALSE(r->contains("nvidia.com/gpu"));

  r = j.resources({{"amd-mi300x", "not a name!"}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().field, "gpu_type");
  EXPECT_EQ(r.error().value, "not a name!");
}

TEST(JobPreemptionTest, CanPreemptFollowsPriorityAndFlags) {
  Job hi = valid_job();
  hi.priority = JobPriority::High;
  hi.preempts_others = true;
  Job lo = valid_job();
  lo.priority = JobPriority::Low;
  lo.preemptible = true;
  EXPECT_TRUE(can_preempt(hi, lo));
  EXPECT_FALSE(can_preempt(lo, hi));

  Job not_preemptible = lo;
  not_preemptible.preemptible = false;
  EXPECT_FALSE(can_preempt(hi, not_preemptible));

  Job spot = valid_job();
  spot.priority = JobPriority::Spot;  // spot is preemptible whatever the flag says
  EXPECT_TRUE(spot.effectively_preemptible());
  EXPECT_TRUE(can_preempt(hi, spot));

  Job same = lo;
  same.priority = JobPriority::High;
  EXPECT_FALSE(can_preempt(hi, same));  // strictly higher priority needed

  Job passive = hi;
  passive.preempts_others = false;
  EXPECT_FALSE(can_preempt(passive, lo));

  Job critical = valid_job();
  critical.priority = JobPriority::Critical;
  critical.preempts_others = true;
  EXPECT_TRUE(can_preempt(critical, lo));
  critical.preemptible = true;  // invalid job, but still never a victim
  EXPECT_FALSE(can_preempt(critical, critical));
}

TEST(JobPriorityTest, OrderAndKueueValues) {
  EXPECT_TRUE(outranks(JobPriority::Critical, JobPriority::High));
  EXPECT_TRUE(outranks(JobPriority::High, JobPriority::Normal));
  EXPECT_TRUE(outranks(JobPriority::Normal, JobPriority::Low));
  EXPECT_TRUE(outranks(JobPriority::Low, JobPriority::Spot));
  EXPECT_FALSE(outranks(JobPriority::Normal, JobPriority::Normal));
  EXPECT_EQ(kueue_priority_value(JobPriority::Normal), 0);
  for (std::size_t i = 1; i < std::size(kAllJobPriorities); ++i) {
    EXPECT_GT(kueue_priority_value(kAllJobPriorities[i - 1]), kueue_priority_value(kAllJobPriorities[i]));
  }
}

}  // namespace
}  // namespace budcore::job
