// Every rule and every error code of docs/cli.md contract 3, through both input paths (the
// Value path and the simdjson path must report exactly the same).
#include "budcore/pipeline/validation.hpp"

#include <gtest/gtest.h>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/pipeline/planner.hpp"

namespace budcore::pipeline {
namespace {

std::vector<Issue> errors_of(const std::string& text) {
  auto doc = core::parse_document(text);
  EXPECT_TRUE(doc) << doc.error().describe();
  ValidationReport r = validate_document(*doc);
  // The streaming JSON path must agree with the Value path.
  PlanResult fast = plan_text(text);
  EXPECT_EQ(fast.report.errors, r.errors) << text;
  return r.errors;
}

std::string steps_doc(const std::string& steps) { return R"({"pipeline": {"name": "t"}, "steps": [)" + steps + "]}"; }

const char* kJob = R"("config": {"job_type": "batch", "deployment_type": "docker"})";

std::string job(const std::string& id, const std::string& deps = "", const std::string& extra = "") {
  return R"({"id": ")" + id + R"(", "step_type": "JOB", "depends_on": [)" + deps + "], " + kJob + extra + "}";
}

std::vector<std::string> codes(const std::vector<Issue>& issues) {
  std::vector<std::string> out;
  for (const auto& i : issues) out.push_back(i.code);
  return out;
}

TEST(ValidationTest, ValidPipelineHasNoErrors) {
  EXPECT_TRUE(errors_of(steps_doc(job("a") + "," + job("b-1", R"("a")"))).empty());
  EXPECT_TRUE(errors_of(steps_doc("")).empty());  // an empty pipeline is valid
}

TEST(ValidationTest, UnknownDependency) {
  auto e = errors_of(steps_doc(job("a") + "," + job("b", R"("a", "ghost")")));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].code, "unknown_dependency");
  EXPECT_EQ(e[0].path, "steps[1].depends_on[1]");
  EXPECT_NE(e[0].message.find("'ghost'"), std::string::npos);
}

// A repeated key keeps its last value (as Python's json does) on both paths: the first
// depends_on / url below are dead and must not be reported. Found by pipeline_fuzz.
TEST(ValidationTest, RepeatedKeysKeepTheLastValue) {
  EXPECT_TRUE(errors_of(steps_doc(job("a") + R"(, {"id": "b", "step_type": "JOB", "depends_on": ["ghost"],
      "depends_on": ["a"], )" + kJob + "}")).empty());
  EXPECT_TRUE(errors_of(steps_doc(R"({"id": "c", "step_type": "API_CALL",
      "config": {"url": "{{ broken", "headers": {"x": "{{ bad", "x": "ok"}, "url": "http://x"}})")).empty());
  auto e = errors_of(R"({"steps": [], "steps": [)" + job("a", R"("nope")") + "]}");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].code, "unknown_dependency");
}

TEST(ValidationTest, UnknownBranchAndParallelTargets) {
  auto e = errors_of(steps_doc(
      R"({"id": "c", "step_type": "CONDITION", "config": {"expression": "{{ true }}", "then_steps": ["x"], "else_steps": ["y"]}},
         {"id": "p", "step_type": "PARALLEL", "config": {"steps": ["c", "z"]}})"));
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].path, "steps[0].config.then_steps[0]");
  EXPECT_EQ(e[1].path, "steps[0].config.else_steps[0]");
  EXPECT_EQ(e[2].path, "steps[1].config.steps[1]");
  for (const auto& i : e) EXPECT_EQ(i.code, "unknown_dependency");
}

TEST(ValidationTest, DuplicateId) {
  auto e = errors_of(steps_doc(job("a") + "," + job("b") + "," + job("a")));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].code, "duplicate_id");
  EXPECT_EQ(e[0].path, "steps[2].id");
  EXPECT_NE(e[0].message.find("steps[0]"), std::string::npos);
}

TEST(ValidationTest, UnknownStepType) {
  auto e = errors_of(steps_doc(R"({"id": "a", "step_type": "SHELL", "config": {}})"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].code, "unknown_step_type");
  EXPECT_EQ(e[0].path, "steps[0].step_type");
  EXPECT_NE(e[0].message.find("'SHELL'"), std::string::npos);
}

TEST(ValidationTest, CycleNamesStepsInOrder) {
  // a depends on c, b on a, c on b: a -> b -> c -> a.
  auto e = errors_of(steps_doc(job("a", R"("c")") + "," + job("b", R"("a")") + "," + job("c", R"("b")") + "," +
                               job("d", R"("c")")));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].code, "cycle");
  EXPECT_EQ(e[0].message, "dependency cycle: 'a' -> 'b' -> 'c' -> 'a'");
  EXPECT_EQ(e[0].path, "steps[0].depends_on[0]");
}

TEST(ValidationTest, CycleThroughConditionBranch) {
  // The condition's then-target is also its dependency: cond -> t (branch) and t -> cond.
  auto e = errors_of(steps_doc(
      R"({"id": "cond", "step_type": "CONDITION", "depends_on": ["t"], "config": {"expression": "{{ 1 }}", "then_steps": ["t"]}},)" +
      job("t")));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].code, "cycle");
  EXPECT_EQ(e[0].message, "dependency cycle: 'cond' -> 't' -> 'cond'");
}

TEST(ValidationTest, SelfDependencyAndSeveralCycles) {
  auto e = errors_of(steps_doc(job("s", R"("s")") + "," + job("m", R"("n")") + "," + job("n", R"("m")")));
  ASSERT_EQ(codes(e), (std::vector<std::string>{"cycle", "cycle"}));
  EXPECT_EQ(e[0].message, "dependency cycle: 's' -> 's'");
  EXPECT_EQ(e[1].message, "dependency cycle: 'm' -> 'n' -> 'm'");
}

TEST(ValidationTest, TemplateSyntax) {
  auto e = errors_of(steps_doc(
      R"({"id": "a", "step_type": "API_CALL", "condition": "{{ params.x ==  }}", "config": {"url": "http://x", "body": {"q": ["ok", "{% if %}"]}}})"));
  ASSERT_EQ(codes(e), (std::vector<std::string>{"template_syntax", "template_syntax"}));
  EXPECT_EQ(e[0].path, "steps[0].condition");
  EXPECT_EQ(e[1].path, "steps[0].config.body.q[1]");
  EXPECT_NE(e[0].message.find("TemplateSyntaxError"), std::string::npos);
}

TEST(ValidationTest, UnknownFilterIsASyntaxLevelError) {
  auto e = errors_of(steps_doc(R"({"id": "a", "step_type": "API_CALL", "config": {"url": "{{ params.x | nosuchfilter }}"}})"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].code, "template_syntax");
  EXPECT_NE(e[0].message.find("TemplateAssertionError"), std::string::npos);
}

TEST(ValidationTest, ReferenceMustBeUpstream) {
  // b reads a's outputs: fine through a chain; c reads b without depending on it.
  auto e = errors_of(steps_doc(
      job("a") + "," + job("m", R"("a")") + "," +
      R"({"id": "b", "step_type": "API_CALL", "depends_on": ["m"], "config": {"url": "{{ steps.a.outputs.url }}"}},
         {"id": "c", "step_type": "API_CALL", "config": {"url": "{{ steps.b.outputs.url }}/{{ steps.ghost.outputs.x }}"}},
         {"id": "d", "step_type": "API_CALL", "config": {"url": "{{ steps.d.outputs.url }}"}})"));
  ASSERT_EQ(codes(e), (std::vector<std::string>{"reference_not_upstream", "reference_not_upstream",
                                                "reference_not_upstream"}));
  EXPECT_EQ(e[0].path, "steps[3].config.url");
  EXPECT_NE(e[0].message.find("'b' is not upstream"), std::string::npos);
  EXPECT_NE(e[1].message.find("no step 'ghost'"), std::string::npos);
  EXPECT_EQ(e[2].path, "steps[4].config.url");
  EXPECT_NE(e[2].message.find("its own outputs"), std::string::npos);
}

TEST(ValidationTest, ConditionBranchesCountAsEdgesForReferences) {
  auto e = errors_of(steps_doc(
      R"({"id": "c", "step_type": "CONDITION", "config": {"expression": "{{ true }}", "then_steps": ["t"]}},
         {"id": "t", "step_type": "NOTIFICATION", "config": {"channel": "slack", "recipients": ["#a"], "message": "{{ steps.c.outputs.result }}"}})"));
  EXPECT_TRUE(e.empty());
}

TEST(ValidationTest, GuardedReferencesAreSoft) {
  const std::string branch =
      R"({"id": "c", "step_type": "CONDITION", "config": {"expression": "{{ true }}", "then_steps": ["opt"]}},)" +
      job("opt", R"("c")");
  for (const char* guarded : {"{{ steps.opt.outputs.url | default('') }}", "{{ steps['opt'].outputs.url|d('x') }}",
                              "{% if steps.opt is defined %}{{ steps.opt.outputs.url }}{% endif %}",
                              "{{ steps.opt.outputs.url if steps.opt is not undefined else '' }}"}) {
    std::string doc = steps_doc(branch + R"(,{"id": "r", "step_type": "API_CALL", "depends_on": ["c"], "config": {"url": ")" +
                                std::string(guarded) + R"("}})");
    EXPECT_TRUE(errors_of(doc).empty()) << guarded;
    auto report = validate_document(*core::parse_json(doc));
    ASSERT_EQ(report.warnings.size(), 1u) << guarded;
    EXPECT_EQ(report.warnings[0].code, "soft_reference");
    EXPECT_EQ(report.warnings[0].path, "steps[2].config.url");
  }
  // Unguarded: an error.
  auto e = errors_of(steps_doc(branch + R"(,{"id": "r", "step_type": "API_CALL", "depends_on": ["c"], "config": {"url": "{{ steps.opt.outputs.url }}"}})"));
  ASSERT_EQ(codes(e), std::vector<std::string>{"reference_not_upstream"});
  // Guarded, but the step does not exist or runs after the reader: still errors.
  e = errors_of(steps_doc(R"({"id": "r", "step_type": "API_CALL", "config": {"url": "{{ steps.none.outputs.u | default('') }}"}},)" +
                          job("after", R"("r")") +
                          R"(,{"id": "r2", "step_type": "API_CALL", "config": {"url": "{{ steps.r2x.outputs.u | default('') }}"}},)" +
                          job("r2x", R"("r2")")));
  ASSERT_EQ(codes(e), (std::vector<std::string>{"reference_not_upstream", "reference_not_upstream"}));
  EXPECT_NE(e[0].message.find("no step 'none'"), std::string::npos);
  EXPECT_EQ(e[1].path, "steps[2].config.url");
}

TEST(ValidationTest, MissingRequiredFieldsOfEveryType) {
  auto e = errors_of(steps_doc(R"(
    {"id": "j", "step_type": "JOB", "config": {}},
    {"id": "a", "step_type": "API_CALL"},
    {"id": "f", "step_type": "FUNCTION", "config": {"args": {}}},
    {"id": "n", "step_type": "NOTIFICATION", "config": {"channel": "slack", "recipients": null}},
    {"id": "t", "step_type": "TRANSFORM", "config": {}},
    {"id": "c", "step_type": "CONDITION", "config": {}},
    {"id": "p", "step_type": "PARALLEL", "config": {}},
    {"id": "w", "step_type": "WAIT", "config": {"timeout_seconds": 10}},
    {"id": "l", "step_type": "LOOP", "config": {"items": [1]}},
    {"step_type": "WAIT", "config": {"wait_for_event": "go"}},
    {"id": "nt", "config": {}})"));
  std::vector<std::string> paths;
  for (const auto& i : e) {
    EXPECT_EQ(i.code, "missing_field") << i.path;
    paths.push_back(i.path);
  }
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "steps[0].config.job_type", "steps[0].config.deployment_type", "steps[1].config.url",
                       "steps[2].config.function", "steps[3].config.recipients", "steps[3].config.message",
                       "steps[4].config.outputs", "steps[5].config.expression", "steps[5].config.then_steps",
                       "steps[6].config.steps", "steps[7].config.duration_seconds", "steps[8].config.body",
                       "steps[9].id", "steps[10].step_type"}));
}

TEST(ValidationTest, LoopBodyIsChecked) {
  auto e = errors_of(steps_doc(R"(
    {"id": "l1", "step_type": "LOOP", "config": {"items": [1], "body": {"step_type": "JOB", "config": {"job_type": "batch"}}}},
    {"id": "l2", "step_type": "LOOP", "config": {"items": [1], "body": {"step_type": "SSH"}}},
    {"id": "l3", "step_type": "LOOP", "config": {"items": [1], "body": {"config": {}}}},
    {"id": "l4", "step_type": "LOOP", "config": {"items": "{{ params.xs }}", "body": {"step_type": "API_CALL", "config": {"url": "{{ item.url }}/{{ steps.l1.outputs.x }}"}}}})"));
  ASSERT_EQ(codes(e), (std::vector<std::string>{"missing_field", "unknown_step_type", "missing_field",
                                                "reference_not_upstream"}));
  EXPECT_EQ(e[0].path, "steps[0].config.body.config.deployment_type");
  EXPECT_EQ(e[1].path, "steps[1].config.body.step_type");
  EXPECT_EQ(e[2].path, "steps[2].config.body.step_type");
  EXPECT_EQ(e[3].path, "steps[3].config.body.config.url");
}

TEST(ValidationTest, InvalidValuesAndDocuments) {
  auto e = errors_of(steps_doc(R"(
    {"id": 7, "step_type": "JOB", "config": {"job_type": "batch", "deployment_type": "helm"}},
    {"id": "b", "step_type": "JOB", "depends_on": "a", "config": {"job_type": "batch", "deployment_type": "helm", "estimated_duration_seconds": -5}},
    {"id": "c", "step_type": "WAIT", "depends_on": [3], "config": {"duration_seconds": "soon"}},
    "not a step")"));
  ASSERT_EQ(codes(e), (std::vector<std::string>{"invalid_value", "invalid_value", "invalid_value", "invalid_value",
                                                "invalid_value", "invalid_value"}));
  EXPECT_EQ(e[0].path, "steps[0].id");
  EXPECT_EQ(e[1].path, "steps[1].depends_on");
  EXPECT_EQ(e[2].path, "steps[1].config.estimated_duration_seconds");
  EXPECT_EQ(e[3].path, "steps[2].depends_on[0]");
  EXPECT_EQ(e[4].path, "steps[2].config.duration_seconds");
  EXPECT_EQ(e[5].path, "steps[3]");
  // The message quotes the value as written.
  EXPECT_NE(e[2].message.find("got -5"), std::string::npos) << e[2].message;
  EXPECT_NE(e[4].message.find("got \"soon\""), std::string::npos) << e[4].message;

  EXPECT_EQ(codes(errors_of(R"([1, 2])")), std::vector<std::string>{"invalid_document"});
  EXPECT_EQ(errors_of(R"({"pipeline": {}})")[0].path, "steps");
  EXPECT_EQ(errors_of(R"({"steps": {}})")[0].code, "invalid_value");
  EXPECT_EQ(errors_of(R"({"pipeline": {"trigger_type": "sometimes"}, "steps": []})")[0].path, "pipeline.trigger_type");
}

TEST(ValidationTest, EveryProblemAtOnce) {
  auto e = errors_of(steps_doc(
      job("a", R"("missing")") + "," + job("a") + "," + R"({"id": "x", "step_type": "BOGUS"},)" +
      R"({"id": "n", "step_type": "NOTIFICATION", "config": {"channel": "c", "recipients": [], "message": "{{ steps.x.outputs.y }} {{ oops"}},)" +
      R"({"id": "k", "step_type": "JOB", "depends_on": ["k2"], "config": {"job_type": "batch"}},)" + job("k2", R"("k")") + "," +
      R"({"id": "r", "step_type": "API_CALL", "config": {"url": "{{ steps.a.outputs.u }}"}})"));
  EXPECT_EQ(codes(e), (std::vector<std::string>{"unknown_dependency", "duplicate_id", "unknown_step_type",
                                                "template_syntax", "missing_field", "reference_not_upstream", "cycle"}));
}

TEST(ValidationTest, YamlAndStepTypeCase) {
  auto doc = core::parse_yaml(R"(
steps:
  - {id: fetch-data, step_type: api_call, config: {url: "http://x"}}
  - {id: use-it, step_type: Notification, depends_on: [fetch-data],
     config: {channel: slack, recipients: ["#a"], message: "{{ steps.fetch-data.outputs.rows }} rows"}}
)");
  ASSERT_TRUE(doc);
  EXPECT_TRUE(validate_document(*doc).valid());
}

}  // namespace
}  // namespace budcore::pipeline
