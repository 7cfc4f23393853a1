// Job::check_value / check_json: every problem of a document at once, structural and semantic,
// without a second error for a field that did not decode, and in agreement with from_json.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/job/job.hpp"

namespace budcore::job {
namespace {

using core::ErrorCode;

std::vector<std::string> paths(const JobCheck& c) {
  std::vector<std::string> out;
  for (const auto& e : c.errors) out.push_back(e.field);
  return out;
}

// A minimal valid document with `extra` members appended.
std::string doc(const std::string& extra) {
  std::string base = R"({"name": "a", "job_type": "batch", "deployment_type": "docker")";
  return base + (extra.empty() ? "" : ", " + extra) + "}";
}

TEST(JobCheckTest, ReportsStructuralAndSemanticProblemsTogether) {
  auto c = Job::check_json(R"({"name": "ok", "job_type": "batch", "deployment_type": "DOCKER",
      "spec": {"image": "x/y"}, "gpu_count": -1, "cpu_cores": -2, "priority": "ultra"})");
  ASSERT_FALSE(c.ok());
  EXPECT_FALSE(c.job.has_value());
  EXPECT_EQ(paths(c), (std::vector<std::string>{"priority", "gpu_count", "cpu_cores"}));
  EXPECT_EQ(c.errors[0].value, "ultra");
  EXPECT_EQ(c.errors[1].message, "must not be negative");
  EXPECT_EQ(c.errors[2].value, "-2");

  // A missing required field beside them, in schema order among the structural ones.
  c = Job::check_json(R"({"name": "ok", "deployment_type": "docker", "gpu_count": -1, "cpu_cores": -2,
      "priority": "ultra"})");
  EXPECT_EQ(paths(c), (std::vector<std::string>{"job_type", "priority", "gpu_count", "cpu_cores"}));
  EXPECT_EQ(c.errors[0].message, "required field is missing");
}

TEST(JobCheckTest, KeepsGoingPastEveryKindOfStructuralProblem) {
  auto c = Job::check_json(R"({"nmae": "a", "job_type": "SIDEWAYS", "deployment_type": "docker",
      "tenant_id": "tenant-1", "gpu_cont": 2, "gpu_count": "two", "preemptible": "yes",
      "deadline": "tomorrow", "currency": "usd", "outputs": [1]})");
  EXPECT_EQ(paths(c), (std::vector<std::string>{"nmae", "gpu_cont", "name", "tenant_id", "job_type", "gpu_count",
                                                "deadline", "preemptible", "currency", "outputs"}));
  EXPECT_NE(c.errors[0].message.find("did you mean 'name'"), std::string::npos);
  EXPECT_NE(c.errors[1].message.find("did you mean 'gpu_count'"), std::string::npos);
  for (const auto& e : c.errors) EXPECT_EQ(e.code, ErrorCode::Invalid) << e.describe();
}

TEST(JobCheckTest, EveryEntryOfTheHistoryAndEachOfItsFields) {
  auto c = Job::check_json(doc(R"("status_history": [
      {"from": "pending", "to": "queued", "at": "2026-01-01T00:00:00Z"},
      {"from": "limbo", "to": "nowhere", "why": "x"},
      7])"));
  EXPECT_EQ(paths(c), (std::vector<std::string>{"status_history[1].why", "status_history[1].from",
                                                "status_history[1].to", "status_history[1].at",
                                                "status_history[2]"}));
}

TEST(JobCheckTest, NoSecondProblemForAFieldThatDidNotDecode) {
  struct Case {
    const char* extra;
    std::vector<std::string> paths;
  };
  const Case cases[] = {
      // Not also "must be a DNS-1123 label" for the empty default.
      {R"("name": 5)", {"name"}},
      // Not also "gpu_type is set but gpu_count is 0" for the default count.
      {R"("gpu_type": "nvidia-a100-80gb", "gpu_count": "two")", {"gpu_count"}},
      // Not also "retry_count exceeds max_retries (3)" for the default maximum.
      {R"("retry_count": 5, "max_retries": "many")", {"max_retries"}},
      // Not also "a direct job has no source_id": the source was to be inferred from it.
      {R"("pipeline_id": "run-1", "source_id": "00000000-0000-4000-8000-000000000001")", {"pipeline_id"}},
      // Not also "pipeline_id: required when source is pipeline".
      {R"("source": "pipeline", "pipeline_id": "run-1")", {"pipeline_id"}},
      // Not also "time_window_end: required when time_window_start is set".
      {R"("time_window_start": "25:00")", {"time_window_start"}},
      // Not also "status_history[1].at is before the previous transition": the list is not whole.
      {R"("status_history": [{"from": "pending", "to": "queued", "at": "2026-01-02T00:00:00Z"},
          {"from": "queued", "to": "bogus", "at": "2026-01-03T00:00:00Z"},
          {"from": "queued", "to": "running", "at": "2026-01-01T00:00:00Z"}])",
       {"status_history[1].to"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(paths(Job::check_json(doc(c.extra))), c.paths) << c.extra;
  }
}

TEST(JobCheckTest, RulesOnFieldsThatDecodedStillRun) {
  // gpu_count did not decode, but gpu_type's own rules do not depend on it.
  auto c = Job::check_json(doc(R"("gpu_type": "", "gpu_count": "two", "storage_gb": -1)"));
  EXPECT_EQ(paths(c), (std::vector<std::string>{"gpu_count", "gpu_type", "storage_gb"}));
  EXPECT_NE(c.errors[1].message.find("must not be empty"), std::string::npos);
  // An explicit source does not depend on the ids.
  c = Job::check_json(doc(R"("source": "direct", "pipeline_step_id": "step-1",
      "source_id": "00000000-0000-4000-8000-000000000001")"));
  EXPECT_EQ(paths(c), (std::vector<std::string>{"pipeline_step_id", "source_id"}));
}

// A long list of bad entries is counted, not listed: memory stays bounded by the cap.
TEST(JobCheckTest, ListsAtMostTheCapAndCountsTheRest) {
  auto history = [](std::size_t n) {
    std::string list;
    for (std::size_t i = 0; i < n; ++i) list += (i ? ",1" : "1");
    return R"("status_history": [)" + list + "]";
  };
  auto c = Job::check_json(doc(history(250) + R"(, "gpu_count": -1)"));
  ASSERT_EQ(c.errors.size(), JobCheck::kMaxListed + 1);
  EXPECT_EQ(c.errors[0].field, "status_history[0]");
  EXPECT_EQ(c.errors[JobCheck::kMaxListed - 1].field, "status_history[99]");
  const core::Error& more = c.errors.back();
  EXPECT_EQ(more.field, "");
  EXPECT_EQ(more.message, "151 more problems are not listed (a check lists the first 100)");
  EXPECT_EQ(c.errors.front(), Job::from_json(doc(history(250))).error());

  // Exactly the cap: every problem listed, no note.
  c = Job::check_json(doc(history(99) + R"(, "gpu_count": -1)"));
  ASSERT_EQ(c.errors.size(), JobCheck::kMaxListed);
  EXPECT_EQ(c.errors.back().field, "gpu_count");
}

std::vector<std::string> paths(const core::Error& e) {
  std::vector<std::string> out;
  for (const auto& p : e.all_problems()) out.push_back(p.field);
  return out;
}

// from_json / from_value stop at the first problem but carry the document's others, so every
// caller (a submit too) can show them all; the first stays the error it always was.
TEST(JobCheckTest, FromJsonCarriesEveryProblemBesideTheFirst) {
  const std::string text = R"({"name": "ok", "job_type": "batch", "deployment_type": "DOCKER",
      "spec": {"image": "x/y"}, "gpu_count": -1, "cpu_cores": -2, "priority": "ultra"})";
  auto r = Job::from_json(text);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "priority");
  EXPECT_EQ(r.error().value, "ultra");
  EXPECT_EQ(paths(r.error()), (std::vector<std::string>{"priority", "gpu_count", "cpu_cores"}));
  EXPECT_EQ(r.error().others[0].value, "-1");
  EXPECT_EQ(r.error().others[0].message, "must not be negative");
  EXPECT_EQ(paths(r.error()), paths(Job::check_json(text)));
  EXPECT_TRUE(r.error().all_problems().front().others.empty());

  // A missing required field beside them.
  r = Job::from_value(*core::parse_json(R"({"name": "ok", "deployment_type": "docker", "gpu_count": -1,
      "cpu_cores": -2, "priority": "ultra"})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(paths(r.error()), (std::vector<std::string>{"job_type", "priority", "gpu_count", "cpu_cores"}));

  // One problem: nothing beside it.
  r = Job::from_json(doc(R"("gpu_count": -1)"));
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().others.empty());
}

TEST(JobCheckTest, ValidateCarriesEveryViolation) {
  auto j = *Job::from_json(doc(""));
  j.gpu_count = -1;
  j.retry_count = 9;
  j.max_retries = 1;
  auto st = j.validate();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().field, "gpu_count");
  EXPECT_EQ(paths(st.error()), (std::vector<std::string>{"gpu_count", "retry_count"}));
  std::vector<std::string> all;
  for (const auto& e : j.validate_all()) all.push_back(e.field);
  EXPECT_EQ(paths(st.error()), all);
}

// A parent path (a submit request's "job", a pipeline step) prefixes every problem.
TEST(JobCheckTest, APathPrefixReachesEveryProblem) {
  auto r = Job::from_json(doc(R"("gpu_count": -1, "storage_gb": -5)"));
  ASSERT_FALSE(r);
  core::Error e = r.error();
  e.at("job");
  EXPECT_EQ(paths(e), (std::vector<std::string>{"job.gpu_count", "job.storage_gb"}));
}

// However long the document, the error carries at most the cap: 100 problems and one counting
// the rest (the parsers are fuzzed; the list must stay bounded).
TEST(JobCheckTest, TheErrorsListIsBounded) {
  std::string list;
  for (int i = 0; i < 5000; ++i) list += (i ? ",1" : "1");
  auto r = Job::from_json(doc(R"("status_history": [)" + list + R"(], "gpu_count": -1)"));
  ASSERT_FALSE(r);
  ASSERT_EQ(r.error().others.size(), JobCheck::kMaxListed);
  EXPECT_EQ(r.error().others.back().field, "");
  EXPECT_EQ(r.error().others.back().message, "4901 more problems are not listed (a check lists the first 100)");

  auto j = *Job::from_json(doc(""));
  for (int i = 0; i < 300; ++i) j.status_history.push_back({JobStatus::Pending, JobStatus::Queued, core::Timestamp{}, ""});
  for (int i = 1; i < 300; i += 2) j.status_history[i - 1].at = core::Timestamp::from_unix_seconds(1000);
  auto st = j.validate();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().others.size(), JobCheck::kMaxListed);
}

TEST(JobCheckTest, DocumentLevelProblemsAreTheOnlyOne) {
  EXPECT_EQ(Job::check_json(R"({"name": )").errors.size(), 1u);
  auto c = Job::check_json("[1, 2]");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].message.find("JSON object"), std::string::npos);
  c = Job::check_json(std::string(kMaxDocumentBytes + 1, ' '));
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0], Job::from_json(std::string(kMaxDocumentBytes + 1, ' ')).error());
}

TEST(JobCheckTest, AValidDocumentGivesTheJobOfFromJson) {
  std::string text = doc(R"("gpu_type": "nvidia-a100-80gb", "gpu_count": 2, "priority": "HIGH",
      "time_window_start": "22:00", "time_window_end": "06:00",
      "status_history": [{"from": "pending", "to": "queued", "at": "2026-01-01T00:00:00Z"}])");
  auto c = Job::check_json(text);
  ASSERT_TRUE(c.ok()) << c.errors.front().describe();
  ASSERT_TRUE(c.job.has_value());
  EXPECT_EQ(*c.job, Job::from_json(text).value());
  EXPECT_EQ(Job::check_value(*core::parse_json(text)).job, c.job);
}

// The first problem listed is from_json's error, and a document passes exactly when from_json
// accepts it: callers can switch to check_* and keep the first error they reported.
TEST(JobCheckTest, AgreesWithFromJson) {
  const char* extras[] = {
      "",
      R"("gpu_count": -1)",
      R"("gpu_count": -1, "priority": "ultra")",
      R"("schema_version": 2, "gpu_count": -1)",
      R"("id": "step-1", "name": "Bad_Name")",
      R"("currency": "EUR", "budget_limit": -3)",
      R"("currency": "eur", "budget_limit": "x")",
      R"("time_window_end": "06:00", "gpu_count": 1.5)",
      R"("status_history": [3], "retry_count": 9, "max_retries": 1)",
      R"("pipeline_step_id": "55555555-5555-4555-8555-555555555555")",
      R"("created_at": "2026-01-02T00:00:00Z", "deadline": "2026-01-01T00:00:00Z")",
      R"("priority": "critical", "preemptible": true, "zzz": 1)",
  };
  for (const char* extra : extras) {
    std::string text = doc(extra);
    auto c = Job::check_json(text);
    auto j = Job::from_json(text);
    ASSERT_EQ(c.ok(), j.has_value()) << text;
    if (j) {
      EXPECT_EQ(*c.job, *j) << text;
    } else {
      EXPECT_EQ(c.errors.front(), j.error()) << text;
    }
  }
}

// The first problem check_json lists is the one decode_json or validate() stops at, so from_json,
// which reports check_json's list, keeps the error it always returned; a document that decodes
// lists validate()'s problems, in its order.
TEST(JobCheckTest, TheFirstProblemIsWhereDecodeOrValidateStops) {
  const char* extras[] = {
      "",
      R"("gpu_count": -1, "storage_gb": -5, "retry_count": 9, "max_retries": 1)",
      R"("zzz": 1, "gpu_count": -1)",
      R"("job_type": "sideways", "gpu_count": -1)",
      R"("status_history": [{"from": "pending", "to": "nowhere", "at": "x"}], "gpu_count": -1)",
      R"("priority": "spot", "preempts_others": true, "currency": "USD", "budget_limit": "-1")",
      R"("gpu_type": "nvidia-a100-80gb", "name": "Bad_Name")",
  };
  for (const char* extra : extras) {
    std::string text = doc(extra);
    auto c = Job::check_json(text);
    auto decoded = Job::decode_json(text);
    if (!decoded) {
      ASSERT_FALSE(c.ok()) << text;
      EXPECT_EQ(c.errors.front(), decoded.error()) << text;
      continue;
    }
    auto st = decoded->validate();
    ASSERT_EQ(c.ok(), st.has_value()) << text;
    if (st) {
      EXPECT_EQ(*c.job, *decoded) << text;
    } else {
      EXPECT_EQ(st.error().all_problems(), c.errors) << text;
    }
  }
  EXPECT_EQ(Job::check_json("[1, 2]").errors.front(), Job::decode_json("[1, 2]").error());
}

}  // namespace
}  // namespace budcore::job
