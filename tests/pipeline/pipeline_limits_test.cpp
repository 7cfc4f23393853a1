// Pipeline documents that crashed or misled the engine (issue #19): an expression chain in a
// template or a `depends`, a WAIT of 1e18 seconds, retry counts and backoffs out of range.
// Planning and running fail cleanly, also on a 1 MiB thread.
#include <gtest/gtest.h>

#include <string>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/planner.hpp"
#include "budcore/pipeline/rehearsal.hpp"
#include "support/small_stack.hpp"

namespace budcore::pipeline {
namespace {

using core::Value;
using test::on_small_stack;

std::string repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

Value doc_with(const std::string& steps_json, const std::string& params = "{}") {
  auto v = core::parse_json(R"({"pipeline": {"id": "p", "parameters": )" + params + R"(}, "steps": )" + steps_json + "}");
  EXPECT_TRUE(v) << v.error().describe();
  return v ? *v : Value();
}

TEST(PipelineLimitsTest, DeepTemplatesAreATemplateSyntaxErrorNotACrash) {
  // Validation compiles every template: a 20,000-term chain used to overflow the stack there.
  std::string chain = "{{ 1" + repeat("+1", 20000) + " }}";
  Value doc = doc_with(R"([{"id": "t", "name": "t", "step_type": "TRANSFORM", "config": {"outputs": {"x": ")" + chain + R"("}}}])");
  PlanResult plan;
  on_small_stack([&] { plan = plan_document(doc); });
  ASSERT_FALSE(plan.valid());
  EXPECT_EQ(plan.report.errors[0].code, "template_syntax");
  EXPECT_EQ(plan.report.errors[0].path, "steps[0].config.outputs.x");
  PlanResult from_text;
  on_small_stack([&] { from_text = plan_text(core::to_json(doc)); });
  ASSERT_FALSE(from_text.valid());
  EXPECT_EQ(from_text.report.errors[0].code, "template_syntax");
  core::Result<RehearsalResult> run = core::Error{};
  on_small_stack([&] { run = rehearse(doc, {}); });
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, core::ErrorCode::Invalid);
}

TEST(PipelineLimitsTest, DeepDependsExpressionsAreInvalid) {
  for (const std::string& expr : {"a" + repeat(" || a", 20000), repeat("(", 50000) + "a" + repeat(")", 50000),
                                  repeat("!", 50000) + "a"}) {
    Value doc = doc_with(R"([{"id": "a", "name": "a", "step_type": "TRANSFORM", "config": {"outputs": {"x": 1}}},
        {"id": "b", "name": "b", "step_type": "TRANSFORM", "depends_on": ["a"], "depends": ")" + expr +
                         R"(", "config": {"outputs": {"x": 1}}}])");
    core::Result<RehearsalResult> run = core::Error{};
    on_small_stack([&] { run = rehearse(doc, {}); });
    ASSERT_FALSE(run) << expr.substr(0, 20);
    EXPECT_EQ(run.error().code, core::ErrorCode::Invalid);
    EXPECT_NE(run.error().message.find("nested deeper than 100 levels"), std::string::npos) << run.error().message;
  }
  Value ok = doc_with(R"([{"id": "a", "name": "a", "step_type": "TRANSFORM", "config": {"outputs": {"x": 1}}},
      {"id": "b", "name": "b", "step_type": "TRANSFORM", "depends_on": ["a"], "depends": ")" +
                      repeat("(", 40) + "a || a" + repeat(")", 40) + R"(", "config": {"outputs": {"x": 1}}}])");
  auto run = rehearse(ok, {});
  ASSERT_TRUE(run) << run.error().describe();
  EXPECT_EQ(run->status, PipelineStatus::Completed);
}

TEST(PipelineLimitsTest, AWaitBeyondTheDurationRangeIsAnErrorNotAnInstantFinish) {
  // Written as a number: refused when the document is validated.
  Value literal = doc_with(R"([{"id": "w", "name": "w", "step_type": "WAIT", "config": {"duration_seconds": 1000000000000000000}}])");
  PlanResult plan = plan_document(literal);
  ASSERT_FALSE(plan.valid());
  EXPECT_EQ(plan.report.errors[0].code, "invalid_value");
  EXPECT_EQ(plan.report.errors[0].path, "steps[0].config.duration_seconds");
  EXPECT_FALSE(plan_text(core::to_json(literal)).valid());
  // Running it is refused the same way (it used to finish at once: 1e18 s overflowed the
  // conversion to milliseconds).
  auto run = rehearse(literal, {});
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(run.error().field, "steps[0].config.duration_seconds");
  // The longest representable wait is fine, and an ordinary one still waits.
  EXPECT_TRUE(plan_document(doc_with(R"([{"id": "w", "name": "w", "step_type": "WAIT", "config": {"duration_seconds": 9223372036}}])")).valid());
  auto waited = rehearse(doc_with(R"([{"id": "w", "name": "w", "step_type": "WAIT", "config": {"duration_seconds": 90}}])"), {});
  ASSERT_TRUE(waited) << waited.error().describe();
  EXPECT_EQ(waited->status, PipelineStatus::Completed);
  EXPECT_EQ(waited->elapsed.count_ns(), 90'000'000'000);
}

TEST(PipelineLimitsTest, RetryCountsAndBackoffsAreRangeChecked) {
  Value retries = doc_with(R"([{"id": "t", "name": "t", "step_type": "TRANSFORM", "retry": 4294967297, "config": {"outputs": {"x": 1}}}])");
  auto r = rehearse(retries, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().field.find("retry"), std::string::npos) << r.error().field;
  Value backoff = doc_with(R"([{"id": "t", "name": "t", "step_type": "TRANSFORM",
      "retry": {"limit": 2, "backoff": {"base_seconds": 1e300}}, "config": {"outputs": {"x": 1}}}])");
  auto b = rehearse(backoff, {});
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().field.find("backoff.base_seconds"), std::string::npos) << b.error().field;
}

}  // namespace
}  // namespace budcore::pipeline
