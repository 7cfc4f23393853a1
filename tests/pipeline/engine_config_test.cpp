// Engine::create rejects literal config values of the wrong type up front (naming the field),
// while template strings may stand for any field and are checked once resolved.
#include <gtest/gtest.h>

#include "pipeline/engine_fixture.hpp"

namespace budcore::pipeline::testing {
namespace {

core::Error create_error(const char* json) {
  Harness h;
  auto e = Engine::create(doc(json), h.deps());
  EXPECT_FALSE(e.has_value());
  return e ? core::Error{} : e.error();
}

TEST(EngineConfigTest, LiteralOfTheWrongTypeIsRejectedBeforeTheRunNamingTheField) {
  auto err = create_error(R"({"steps": [
      {"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}},
      {"id": "b", "step_type": "API_CALL", "depends_on": ["a"], "config": {"url": "http://x", "timeout_seconds": "soon"}}]})");
  EXPECT_EQ(err.field, "steps[1].config.timeout_seconds");
  EXPECT_EQ(err.value, "\"soon\"");
  EXPECT_NE(err.message.find("integer"), std::string::npos) << err.message;
}

TEST(EngineConfigTest, JobAndNotificationLiteralsAreCheckedToo) {
  auto job = create_error(R"({"steps": [{"id": "j", "step_type": "JOB",
      "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "preemptible": "yes"}}]})");
  EXPECT_EQ(job.field, "steps[0].config.preemptible");
  auto note = create_error(R"({"steps": [{"id": "n", "step_type": "NOTIFICATION",
      "config": {"channel": "slack", "recipients": "#ops", "message": "hi"}}]})");
  EXPECT_EQ(note.field, "steps[0].config.recipients");
}

TEST(EngineConfigTest, LoopBodyAndHooksAreChecked) {
  auto body = create_error(R"({"steps": [{"id": "l", "step_type": "LOOP",
      "config": {"items": [1, 2], "body": {"step_type": "API_CALL", "config": {"url": "http://x/{{ item }}", "method": 7}}}}]})");
  EXPECT_NE(body.field.find("config.body.config.method"), std::string::npos) << body.field;
  auto hook = create_error(R"({"pipeline": {"on_failure": [{"step_type": "API_CALL", "config": {"url": "http://x", "headers": "none"}}]},
      "steps": [{"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}}]})");
  EXPECT_NE(hook.field.find("headers"), std::string::npos) << hook.field;
}

TEST(EngineConfigTest, TemplatesMayStandForAnyFieldAndAreCheckedOnceResolved) {
  Harness h;
  core::HttpResponse ok;
  ok.status = 200;
  ok.body = "{}";
  h.http.script = {ok};
  auto e = h.make(doc(R"({"pipeline": {"parameters": {"secs": 5, "bad": "soon"}}, "steps": [
      {"id": "ok", "step_type": "API_CALL", "config": {"url": "http://x", "timeout_seconds": "{{ params.secs }}"}},
      {"id": "late", "step_type": "API_CALL", "depends_on": ["ok"], "config": {"url": "http://x", "retry_count": 0, "timeout_seconds": "{{ params.bad }}"}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  EXPECT_EQ(Harness::state_of(e, "ok"), StepState::Succeeded);
  EXPECT_EQ(Harness::state_of(e, "late"), StepState::Errored);
  EXPECT_NE(e.state().find("late")->message.find("config.timeout_seconds"), std::string::npos) << e.state().find("late")->message;
}

// API_CALL retries `errored` attempts by default, but only transient ones: a config or template
// error, an unknown function or a LOOP over a non-list would only repeat itself.
TEST(EngineConfigTest, ErrorsTheSameInputsWouldRepeatAreNotRetried) {
  Harness h;
  auto e = h.make(doc(R"({"pipeline": {"fail_fast": false, "parameters": {"bad": "soon"}}, "steps": [
      {"id": "typed", "step_type": "API_CALL", "config": {"url": "http://x", "timeout_seconds": "{{ params.bad }}"}},
      {"id": "unknown-fn", "step_type": "FUNCTION", "retry": 3, "config": {"function": "nope"}},
      {"id": "not-a-list", "step_type": "LOOP", "retry": 3, "config": {"items": "{{ params.bad }}",
       "body": {"step_type": "TRANSFORM", "config": {"outputs": {}}}}},
      {"id": "transport", "step_type": "API_CALL", "config": {"url": "http://x", "retry_count": 2}}]})"));
  EXPECT_EQ(h.run(e), PipelineStatus::Failed);
  for (const char* id : {"typed", "unknown-fn", "not-a-list"}) {
    EXPECT_EQ(Harness::state_of(e, id), StepState::Errored) << id;
    EXPECT_EQ(e.state().find(id)->attempts, 1) << id << ": " << e.state().find(id)->message;
  }
  // A transport error is transient: it is retried as the policy says.
  EXPECT_EQ(Harness::state_of(e, "transport"), StepState::Errored);
  EXPECT_EQ(e.state().find("transport")->attempts, 3);
  EXPECT_EQ(h.http.requests.size(), 3u);  // none for "typed"
}

TEST(EngineConfigTest, RetryCountMustBeALiteralInteger) {
  auto err = create_error(R"({"pipeline": {"parameters": {"n": 2}}, "steps": [{"id": "a", "step_type": "API_CALL",
      "config": {"url": "http://x", "retry_count": "{{ params.n }}"}}]})");
  EXPECT_EQ(err.field, "steps[0].config.retry_count");
  EXPECT_NE(err.message.find("literal"), std::string::npos) << err.message;
}

TEST(EngineConfigTest, CheckLiteralsAcceptsTemplatedRequiredFields) {
  EXPECT_TRUE(check_step_config_literals(StepType::Loop, doc(R"({"items": "{{ params.list }}",
      "body": {"step_type": "JOB", "config": {"job_type": "{{ item.kind }}", "deployment_type": "DOCKER", "preemptible": "{{ item.p }}"}}})")));
  EXPECT_FALSE(check_step_config_literals(StepType::Wait, doc(R"({"duration_seconds": -4})")));
}

}  // namespace
}  // namespace budcore::pipeline::testing
