// Engine semantics on the virtual clock: dependencies and trigger rules, skips, templates,
// every step type, retries, timeouts, fail-fast, hooks, compensation, approval, pause, cancel,
// retry-from-failed.
#include "pipeline/engine_fixture.hpp"

#include "pipeline/engine_depends.hpp"

namespace budcore::pipeline {
namespace {

using testing::doc;
using testing::Harness;

TEST(EngineDependsTest, ParsesAndEvaluatesArgoExpressions) {
  auto e = detail::DependsExpr::parse("(step-a.Succeeded || step-a.Skipped) && !step-b.Failed");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->names(), (std::vector<std::string>{"step-a", "step-b"}));
  EXPECT_TRUE(e->handles_failure_of("step-b"));
  EXPECT_FALSE(e->handles_failure_of("step-a"));
  std::map<std::string, StepState> states{{"step-a", StepState::Skipped}, {"step-b", StepState::Succeeded}};
  auto lookup = [&](std::string_view n) { return detail::UpstreamResult{states[std::string(n)]}; };
  EXPECT_TRUE(e->evaluate(lookup));
  states["step-b"] = StepState::Failed;
  EXPECT_FALSE(e->evaluate(lookup));
  auto bare = detail::DependsExpr::parse("x");
  ASSERT_TRUE(bare.has_value());
  EXPECT_TRUE(bare->evaluate([](std::string_view) { return detail::UpstreamResult{StepState::Skipped}; }));
  EXPECT_FALSE(bare->evaluate([](std::string_view) { return detail::UpstreamResult{StepState::Failed}; }));
  auto any = detail::DependsExpr::parse("loop.AnySucceeded && !loop.AllFailed");
  ASSERT_TRUE(any.has_value());
  EXPECT_TRUE(any->evaluate([](std::string_view) { return detail::UpstreamResult{StepState::Failed, 3, 1, 2}; }));
  EXPECT_FALSE(any->evaluate([](std::string_view) { return detail::UpstreamResult{StepState::Failed, 3, 0, 3}; }));
  for (const char* bad : {"", "a &&", "(a", "a b", "!"}) {
    EXPECT_FALSE(detail::DependsExpr::parse(bad).has_value()) << bad;
  }
}

TEST(EngineTest, TransformsFlowThroughTemplatesInNativeMode) {
  Harness h;
  auto e = h.make(doc(R"({"pipeline": {"parameters": {"n": 3}}, "steps": [
    {"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {"n2": "{{ params.n * 2 }}", "l": "{{ [1, 2] }}"}}},
    {"id": "b", "step_type": "TRANSFORM", "depends_on": ["a"],
     "config": {"outputs": {"sum": "{{ steps.a.outputs.n2 + steps.a.outputs.l | length }}", "s": "n={{ steps.a.outputs.n2 }}"}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  EXPECT_EQ(Harness::outputs_of(e, "b"), doc(R"({"sum": 8, "s": "n=6"})"));
  EXPECT_EQ(Harness::outputs_of(e, "a").find("l")->as_list().size(), 2u);
}

TEST(EngineTest, JobStepsFinishAfterTheirEstimatedDurationOnTheVirtualClock) {
  Harness h;
  auto e = h.make(doc(R"({"steps": [
    {"id": "j1", "step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 3600}},
    {"id": "j2", "step_type": "JOB", "depends_on": ["j1"], "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 86400}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  EXPECT_DOUBLE_EQ(h.elapsed(e), 3600 + 86400);
  EXPECT_EQ(Harness::outputs_of(e, "j2").find("url")->as_string(), "http://j2.sim.local");
  EXPECT_EQ(h.jobs->submissions(), 2u);
}

TEST(EngineTest, TriggerRulesAndSkipPropagation) {
  Harness h;
  h.functions.add("boom", [](const core::Value&, const FunctionCall&) -> core::Result<core::Value> {
    return core::Error::make(core::ErrorCode::Invalid, "boom");
  }).value();
  auto e = h.make(doc(R"({"pipeline": {"fail_fast": false, "parameters": {"go": false}}, "steps": [
    {"id": "ok", "step_type": "TRANSFORM", "config": {"outputs": {}}},
    {"id": "bad", "step_type": "FUNCTION", "config": {"function": "boom"}},
    {"id": "off", "step_type": "TRANSFORM", "condition": "{{ params.go }}", "config": {"outputs": {}}},
    {"id": "after-off", "step_type": "TRANSFORM", "depends_on": ["off"], "config": {"outputs": {}}},
    {"id": "after-bad", "step_type": "TRANSFORM", "depends_on": ["bad"], "config": {"outputs": {}}},
    {"id": "all-done", "step_type": "TRANSFORM", "depends_on": ["ok", "bad"], "trigger_rule": "all_done", "config": {"outputs": {}}},
    {"id": "one-failed", "step_type": "TRANSFORM", "depends_on": ["ok", "bad"], "trigger_rule": "one_failed", "config": {"outputs": {}}},
    {"id": "one-success", "step_type": "TRANSFORM", "depends_on": ["ok", "bad"], "trigger_rule": "one_success", "config": {"outputs": {}}},
    {"id": "none-failed", "step_type": "TRANSFORM", "depends_on": ["ok", "off"], "trigger_rule": "none_failed", "config": {"outputs": {}}},
    {"id": "expr", "step_type": "TRANSFORM", "depends_on": ["bad", "off"], "depends": "bad.Failed && off.Skipped", "config": {"outputs": {}}},
    {"id": "expr-false", "step_type": "TRANSFORM", "depends_on": ["ok"], "depends": "ok.Failed", "config": {"outputs": {}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);  // bad's failure is handled by all_done / one_failed / expr
  EXPECT_EQ(Harness::state_of(e, "bad"), StepState::Failed);
  EXPECT_EQ(Harness::state_of(e, "off"), StepState::Skipped);
  EXPECT_EQ(Harness::state_of(e, "after-off"), StepState::Skipped);  // skip cascades through all_success
  EXPECT_EQ(Harness::state_of(e, "after-bad"), StepState::Omitted);
  EXPECT_EQ(Harness::state_of(e, "all-done"), StepState::Succeeded);
  EXPECT_EQ(Harness::state_of(e, "one-failed"), StepState::Succeeded);
  EXPECT_EQ(Harness::state_of(e, "one-success"), StepState::Succeeded);
  EXPECT_EQ(Harness::state_of(e, "none-failed"), StepState::Succeeded);
  EXPECT_EQ(Harness::state_of(e, "expr"), StepState::Succeeded);
  EXPECT_EQ(Harness::state_of(e, "expr-false"), StepState::Omitted);
}

TEST(EngineTest, UnhandledFailureFailsFastAndCancelsRunningJobs) {
  Harness h;
  h.sim_options.faults["bad"].fail_attempts = 99;
  auto e = h.make(doc(R"({"steps": [
    {"id": "bad", "step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 10}},
    {"id": "long", "step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 1000}},
    {"id": "later", "step_type": "TRANSFORM", "depends_on": ["long"], "config": {"outputs": {}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  EXPECT_EQ(Harness::state_of(e, "long"), StepState::Cancelled);
  EXPECT_EQ(Harness::state_of(e, "later"), StepState::Omitted);
  EXPECT_EQ(h.jobs->cancellations(), 1u);
  EXPECT_DOUBLE_EQ(h.elapsed(e), 10);
  EXPECT_NE(e.state().failure_reason.find("'bad' failed"), std::string::npos);
}

TEST(EngineTest, ConditionBranchesSkipTheUntakenSideAndSoftReferencesReadTheDefault) {
  Harness h;
  auto e = h.make(doc(R"({"pipeline": {"parameters": {"big": false}}, "steps": [
    {"id": "c", "step_type": "CONDITION", "config": {"expression": "{{ params.big }}", "then_steps": ["t"], "else_steps": ["f"]}},
    {"id": "t", "step_type": "TRANSFORM", "config": {"outputs": {"v": "then"}}},
    {"id": "f", "step_type": "TRANSFORM", "config": {"outputs": {"v": "else"}}},
    {"id": "r", "step_type": "TRANSFORM", "depends_on": ["c"],
     "config": {"outputs": {"v": "{{ steps.t.outputs.v | default('none') }}/{{ steps.f.outputs.v | default('none') }}"}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  EXPECT_EQ(Harness::state_of(e, "t"), StepState::Skipped);
  EXPECT_EQ(Harness::state_of(e, "f"), StepState::Succeeded);
  EXPECT_EQ(Harness::outputs_of(e, "r").find("v")->as_string(), "none/else");  // r waited for f
  EXPECT_EQ(Harness::outputs_of(e, "c"), doc(R"({"result": false, "branch": "else"})"));
}

TEST(EngineTest, ApiCallResolvesTemplatesRetriesTransientErrorsAndReturnsJson) {
  Harness h;
  h.http.script = {{503, {}, "busy"}, {200, {}, R"({"config": {"tp": 2}})"}};
  auto e = h.make(doc(R"({"pipeline": {"parameters": {"m": "llama"}}, "steps": [
    {"id": "api", "step_type": "API_CALL", "config": {"url": "http://sim/{{ params.m }}", "method": "PUT",
     "headers": {"X-Model": "{{ params.m }}"}, "body": {"model": "{{ params.m }}"}, "retry_count": 2}},
    {"id": "use", "step_type": "TRANSFORM", "depends_on": ["api"], "config": {"outputs": {"tp": "{{ steps.api.outputs.config.tp }}"}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  ASSERT_EQ(h.http.requests.size(), 2u);
  EXPECT_EQ(h.http.requests[0].url, "http://sim/llama");
  EXPECT_EQ(h.http.requests[0].method, "PUT");
  EXPECT_EQ(h.http.requests[0].body, R"({"model":"llama"})");
  EXPECT_EQ(h.http.requests[0].headers[0], (std::pair<std::string, std::string>{"X-Model", "llama"}));
  EXPECT_EQ(Harness::outputs_of(e, "use").find("tp")->as_int(), 2);
  EXPECT_EQ(Harness::outputs_of(e, "api").find("status_code")->as_int(), 200);
  EXPECT_DOUBLE_EQ(h.elapsed(e), 1);  // one backoff of 1 s
  EXPECT_TRUE(h.sink.saw("api:running->retrying"));
}

TEST(EngineTest, ApiCallClientErrorIsNotRetried) {
  Harness h;
  h.http.script = {{404, {}, ""}};
  auto e = h.make(doc(R"({"steps": [{"id": "api", "step_type": "API_CALL", "config": {"url": "http://x"}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  EXPECT_EQ(h.http.requests.size(), 1u);
  EXPECT_EQ(e.state().find("api")->message, "HTTP 404");
}

TEST(EngineTest, NotificationAndFunctionSteps) {
  Harness h;
  h.functions.add("add", [](const core::Value& args, const FunctionCall&) -> core::Result<core::Value> {
    return core::Value(args.find("a")->as_int() + args.find("b")->as_int());
  }).value();
  auto e = h.make(doc(R"({"steps": [
    {"id": "f", "step_type": "FUNCTION", "config": {"function": "add", "args": {"a": 2, "b": "{{ 3 }}"}}},
    {"id": "n", "step_type": "NOTIFICATION", "depends_on": ["f"],
     "config": {"channel": "slack", "recipients": ["#ops"], "message": "sum={{ steps.f.outputs.result }}"}},
    {"id": "missing", "step_type": "FUNCTION", "continue_on_failure": true, "config": {"function": "nope"}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  ASSERT_EQ(h.notifier.sent.size(), 1u);
  EXPECT_EQ(h.notifier.sent[0].message, "sum=5");
  EXPECT_EQ(h.notifier.sent[0].recipients, std::vector<std::string>{"#ops"});
  EXPECT_EQ(Harness::state_of(e, "missing"), StepState::Errored);
}

// A callable cannot be interrupted, so it is told its deadline (config.timeout_seconds here,
// the step's timeout_seconds first) and judged when it returns: late is a timeout, outputs dropped.
TEST(EngineTest, FunctionTimeoutIsADeadlineTheCallableSees) {
  Harness h;
  std::vector<std::optional<core::Timestamp>> deadlines;
  h.functions.add("slow", [&](const core::Value& args, const FunctionCall& call) -> core::Result<core::Value> {
    deadlines.push_back(call.deadline);
    h.clock.advance(core::Duration::seconds(args.find("takes")->as_int()));  // the work takes this long
    return core::Value::map({{"done", true}});
  }).value();
  auto start = h.clock.now();
  auto e = h.make(doc(R"({"pipeline": {"fail_fast": false}, "steps": [
    {"id": "late", "step_type": "FUNCTION", "config": {"function": "slow", "args": {"takes": 90}, "timeout_seconds": 60}},
    {"id": "step-limit", "step_type": "FUNCTION", "timeout_seconds": 5, "config": {"function": "slow", "args": {"takes": 10}, "timeout_seconds": 60}},
    {"id": "in-time", "step_type": "FUNCTION", "config": {"function": "slow", "args": {"takes": 30}, "timeout_seconds": 60}},
    {"id": "no-limit", "step_type": "FUNCTION", "config": {"function": "slow", "args": {"takes": 5000}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  const StepRun& late = *e.state().find("late");
  EXPECT_EQ(late.state, StepState::Failed);
  EXPECT_EQ(late.message, "timed out after 1m0s");
  EXPECT_TRUE(late.outputs.is_null() || late.outputs.as_map().empty()) << core::to_json(late.outputs);
  EXPECT_EQ(e.state().find("step-limit")->message, "timed out after 5s");  // the step's own limit wins
  EXPECT_EQ(Harness::state_of(e, "in-time"), StepState::Succeeded);
  EXPECT_EQ(Harness::state_of(e, "no-limit"), StepState::Succeeded);
  ASSERT_EQ(deadlines.size(), 4u);
  EXPECT_EQ(deadlines[0], start + core::Duration::seconds(60));
  EXPECT_EQ(deadlines[1], start + core::Duration::seconds(90 + 5));  // started after late returned
  EXPECT_FALSE(deadlines[3].has_value());
}

TEST(EngineTest, WaitForDurationAndForEventWithTimeout) {
  Harness h;
  auto e = h.make(doc(R"({"steps": [
    {"id": "sleep", "step_type": "WAIT", "config": {"duration_seconds": 90}},
    {"id": "ev", "step_type": "WAIT", "config": {"wait_for_event": "ready", "timeout_seconds": 600}},
    {"id": "ev2", "step_type": "WAIT", "continue_on_failure": true, "config": {"wait_for_event": "never", "timeout_seconds": 300}}]})"));
  ASSERT_TRUE(e.start().has_value());
  ASSERT_TRUE(e.pump().has_value());
  EXPECT_EQ(*e.next_wakeup(), h.clock.now() + core::Duration::seconds(90));
  h.clock.advance(core::Duration::seconds(300));
  ASSERT_TRUE(e.pump().has_value());
  EXPECT_EQ(Harness::state_of(e, "ev2"), StepState::Failed);  // timed out
  EXPECT_EQ(Harness::state_of(e, "sleep"), StepState::Succeeded);
  EXPECT_EQ(Harness::state_of(e, "ev"), StepState::Running);
  ASSERT_TRUE(e.signal("ready", doc(R"({"x": 1})")).has_value());
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  EXPECT_DOUBLE_EQ(h.elapsed(e), 300);
  EXPECT_EQ(Harness::outputs_of(e, "ev").find("payload")->find("x")->as_int(), 1);
  // An event that arrived before the WAIT started is consumed at once.
  Harness h2;
  auto e2 = h2.make(doc(R"({"steps": [{"id": "w", "step_type": "WAIT", "config": {"wait_for_event": "go"}}]})"));
  ASSERT_TRUE(e2.signal("go").has_value());
  EXPECT_EQ(h2.run(e2), PipelineStatus::Completed);
  EXPECT_DOUBLE_EQ(h2.elapsed(e2), 0);
}

TEST(EngineTest, LoopGathersResultsInItemOrderWithinItsParallelism) {
  Harness h;
  auto e = h.make(doc(R"({"steps": [
    {"id": "loop", "step_type": "LOOP", "config": {"items": "{{ [10, 20, 30, 40] }}", "max_concurrency": 2,
     "body": {"step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": "{{ item }}"}}}},
    {"id": "sum", "step_type": "TRANSFORM", "depends_on": ["loop"],
     "config": {"outputs": {"n": "{{ steps.loop.outputs.results | length }}"}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  EXPECT_DOUBLE_EQ(h.elapsed(e), 60);  // [10,20] then 30 at t=10 (ends 40), 40 at t=20 (ends 60)
  EXPECT_EQ(Harness::outputs_of(e, "sum").find("n")->as_int(), 4);
  EXPECT_EQ(Harness::outputs_of(e, "loop").find("results")->as_list()[2].find("url")->as_string(), "http://loop.sim.local");
}

TEST(EngineTest, LoopItemAndLoopVariablesAreInScope) {
  Harness h;
  auto e = h.make(doc(R"({"steps": [{"id": "l", "step_type": "LOOP", "config": {"items": ["a", "b"],
     "body": {"step_type": "TRANSFORM", "config": {"outputs": {"v": "{{ item }}{{ loop.index }}/{{ loop.length }}"}}}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  EXPECT_EQ(Harness::outputs_of(e, "l").find("results")->as_list()[1].find("v")->as_string(), "b2/2");
}

TEST(EngineTest, ParallelGroupLimitsConcurrencyAndToleratesFailuresByRatio) {
  Harness h;
  h.sim_options.faults["m3"].fail_attempts = 99;
  std::string job = R"("step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 100})";
  auto e = h.make(doc(R"({"steps": [
    {"id": "g", "step_type": "PARALLEL", "config": {"steps": ["m1", "m2", "m3", "m4"], "max_concurrency": 2, "fail_fast": false, "min_success_ratio": 0.75}},
    {"id": "m1", )" + job + R"(}, {"id": "m2", )" + job + R"(}, {"id": "m3", )" + job + R"(}, {"id": "m4", )" + job + R"(},
    {"id": "after", "step_type": "TRANSFORM", "depends_on": ["g"], "config": {"outputs": {"ok": "{{ steps.g.outputs.succeeded }}"}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  EXPECT_DOUBLE_EQ(h.elapsed(e), 200);  // two waves of two
  EXPECT_EQ(Harness::outputs_of(e, "after").find("ok")->as_int(), 3);
  EXPECT_EQ(Harness::state_of(e, "m3"), StepState::Failed);
}

TEST(EngineTest, StepRetryPolicyBackoffAndStepTimeout) {
  Harness h;
  h.sim_options.faults["flaky"].fail_attempts = 2;
  h.sim_options.faults["stuck"].hang = true;
  auto e = h.make(doc(R"({"pipeline": {"fail_fast": false}, "steps": [
    {"id": "flaky", "step_type": "JOB", "retry": {"limit": 3, "backoff": {"base_seconds": 10, "factor": 3, "cap_seconds": 1000}},
     "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 5}},
    {"id": "stuck", "step_type": "JOB", "timeout_seconds": 50, "retry": 1,
     "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 5}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  const StepRun* flaky = e.state().find("flaky");
  EXPECT_EQ(flaky->state, StepState::Succeeded);
  EXPECT_EQ(flaky->attempts, 3);
  // 5 + 10 + 5 + 30 + 5 = 55 s
  EXPECT_EQ((*flaky->finished_at - *flaky->started_at).whole_seconds(), 55);
  const StepRun* stuck = e.state().find("stuck");
  EXPECT_EQ(stuck->state, StepState::Failed);
  EXPECT_EQ(stuck->attempts, 2);
  EXPECT_NE(stuck->message.find("timed out"), std::string::npos);
}

TEST(EngineTest, PipelineTimeoutStopsTheRun) {
  Harness h;
  auto e = h.make(doc(R"({"pipeline": {"timeout_seconds": 100}, "steps": [
    {"id": "j", "step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 500}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  EXPECT_DOUBLE_EQ(h.elapsed(e), 100);
  EXPECT_EQ(e.state().failure_reason, "pipeline timed out");
  EXPECT_EQ(Harness::state_of(e, "j"), StepState::Cancelled);
}

TEST(EngineTest, HooksAndCompensationRunInReverseCompletionOrder) {
  Harness h;
  h.sim_options.faults["c"].fail_attempts = 99;
  auto e = h.make(doc(R"({"pipeline": {
      "on_failure": [{"step_type": "NOTIFICATION", "config": {"channel": "slack", "recipients": ["#a"], "message": "failed: {{ pipeline.failure_reason }}"}}],
      "finally": [{"id": "cleanup", "step_type": "TRANSFORM", "config": {"outputs": {"s": "{{ pipeline.status }}"}}}]},
    "steps": [
    {"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}, "compensation": {"step_type": "TRANSFORM", "config": {"outputs": {"undo": "a"}}}},
    {"id": "b", "step_type": "TRANSFORM", "depends_on": ["a"], "config": {"outputs": {}}, "compensation": {"step_type": "TRANSFORM", "config": {"outputs": {"undo": "b"}}}},
    {"id": "c", "step_type": "JOB", "depends_on": ["b"], "config": {"job_type": "BATCH", "deployment_type": "DOCKER"}, "compensation": {"step_type": "TRANSFORM", "config": {"outputs": {}}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  ASSERT_EQ(h.notifier.sent.size(), 1u);
  EXPECT_NE(h.notifier.sent[0].message.find("'c' failed"), std::string::npos);
  std::vector<std::string> order;
  for (const auto& t : h.sink.transitions)
    if (t.to == "succeeded" && t.step.find(".compensation") != std::string::npos) order.push_back(t.step);
  EXPECT_EQ(order, (std::vector<std::string>{"b.compensation", "a.compensation"}));
  EXPECT_EQ(Harness::state_of(e, "c.compensation"), StepState::Pending);  // c never succeeded
  EXPECT_EQ(Harness::outputs_of(e, "cleanup").find("s")->as_string(), "failed");
}

TEST(EngineTest, ApprovalGatePauseResumeAndCancel) {
  Harness h;
  auto e = h.make(doc(R"({"steps": [
    {"id": "gate", "step_type": "TRANSFORM", "approval": true, "config": {"outputs": {}}},
    {"id": "next", "step_type": "JOB", "depends_on": ["gate"], "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 100}},
    {"id": "last", "step_type": "TRANSFORM", "depends_on": ["next"], "config": {"outputs": {}}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Running);
  EXPECT_EQ(Harness::state_of(e, "gate"), StepState::AwaitingApproval);
  EXPECT_FALSE(e.approve("next", "bob").has_value());
  ASSERT_TRUE(e.approve("gate", "alice").has_value());
  EXPECT_EQ(e.state().find("gate")->approved_by, "alice");
  ASSERT_TRUE(e.pump().has_value());
  ASSERT_TRUE(e.pause().has_value());
  EXPECT_EQ(h.run(e), PipelineStatus::Paused);
  EXPECT_EQ(Harness::state_of(e, "next"), StepState::Succeeded);  // running work finishes
  EXPECT_EQ(Harness::state_of(e, "last"), StepState::Pending);    // nothing new starts
  ASSERT_TRUE(e.cancel("operator").has_value());
  EXPECT_EQ(h.run(e), PipelineStatus::Cancelled);
  EXPECT_EQ(Harness::state_of(e, "last"), StepState::Omitted);
}

TEST(EngineTest, RetryFromFailedKeepsSucceededOutputsAndMemoizes) {
  Harness h;
  int calls = 0;
  h.functions.add("count", [&](const core::Value&, const FunctionCall&) -> core::Result<core::Value> {
    ++calls;
    return core::Value::map({{"n", calls}});
  }).value();
  h.sim_options.faults["j"].fail_attempts = 1;
  auto d = doc(R"({"steps": [
    {"id": "f", "step_type": "FUNCTION", "config": {"function": "count"}},
    {"id": "j", "step_type": "JOB", "depends_on": ["f"], "config": {"job_type": "BATCH", "deployment_type": "DOCKER"}},
    {"id": "t", "step_type": "TRANSFORM", "depends_on": ["j"], "config": {"outputs": {"n": "{{ steps.f.outputs.n }}"}}}]})");
  auto e = h.make(d);
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  EXPECT_EQ(Harness::state_of(e, "t"), StepState::Omitted);
  ASSERT_TRUE(e.retry_from_failed().has_value());
  EXPECT_EQ(h.run(e), PipelineStatus::Completed);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(Harness::outputs_of(e, "t").find("n")->as_int(), 1);
  EXPECT_EQ(h.jobs->submissions(), 2u);  // a new job for the retried step, not the old key
  // Rerunning everything: f and j memoize (same inputs), so nothing executes again.
  EXPECT_FALSE(e.retry_from_failed().has_value());  // a completed run cannot be retried
}

TEST(EngineTest, InvalidEngineKeysAreReportedWithTheirPath) {
  Harness h;
  auto bad = [&](std::string_view json, std::string_view field) {
    auto e = Engine::create(doc(json), h.deps());
    ASSERT_FALSE(e.has_value()) << json;
    EXPECT_EQ(e.error().field, field) << e.error().describe();
  };
  bad(R"({"steps": [{"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}, "depends": "a &&"}]})", "steps[0].depends");
  bad(R"({"steps": [{"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}},
                    {"id": "b", "step_type": "TRANSFORM", "config": {"outputs": {}}, "depends": "a"}]})", "steps[1].depends");
  bad(R"({"steps": [{"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}, "trigger_rule": "sometimes"}]})", "steps[0].trigger_rule");
  bad(R"({"steps": [{"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}, "retry": {"limit": -1}}]})", "steps[0].retry.limit");
  bad(R"({"pipeline": {"finally": [{"step_type": "LOOP"}]}, "steps": []})", "pipeline.finally[0].step_type");
  bad(R"({"steps": [{"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}, "depends_on": ["zz"]}]})", "steps[0].depends_on[0]");
}

TEST(EngineTest, SameInputGivesTheSameTransitions) {
  auto once = [] {
    Harness h;
    h.sim_options.faults["m2"].fail_attempts = 1;
    auto e = h.make(doc(R"({"steps": [
      {"id": "l", "step_type": "LOOP", "config": {"items": [3, 1, 2], "max_concurrency": 2,
       "body": {"step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": "{{ item }}"}}}},
      {"id": "m2", "step_type": "JOB", "retry": 2, "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 2}}]})"));
    h.run(e);
    std::vector<std::string> out;
    for (const auto& t : h.sink.transitions) out.push_back(core::to_json(t.to_value()));
    return out;
  };
  auto a = once();
  EXPECT_GT(a.size(), 10u);
  EXPECT_EQ(a, once());
}

}  // namespace
}  // namespace budcore::pipeline
