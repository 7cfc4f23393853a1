// Orchestrator: cron, event and completion triggers starting real engines on a virtual clock
// with the simulated job runner.
#include "budcore/pipeline/orchestrator.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/simulation.hpp"
#include "pipeline/engine_fixture.hpp"

namespace budcore::pipeline {
namespace {

using core::Duration;
using core::Timestamp;
using core::Value;
using testing::doc;

Timestamp at(std::string_view rfc3339) { return *Timestamp::parse(rfc3339); }

// A pipeline with one JOB step of `job_seconds`, plus the given `pipeline` keys.
Value job_pipeline(const std::string& pipeline_keys, int job_seconds) {
  return doc(R"({"pipeline": {)" + pipeline_keys + R"(},
    "steps": [{"id": "job", "step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER",
               "estimated_duration_seconds": )" + std::to_string(job_seconds) + "}}]}");
}

struct World {
  core::VirtualClock clock;  // 2026-01-01T00:00:00Z, a Thursday
  SimJobRunner jobs{clock};
  SimHttpClient http;
  SimNotifier notifier;
  FunctionRegistry functions;
  std::vector<std::string> transitions;  // "run step:from->to"
  std::unique_ptr<Orchestrator> orch;

  explicit World(int max_chain_depth = 16) {
    OrchestratorOptions o;
    o.max_chain_depth = max_chain_depth;
    o.on_transition = [this](const RunTransition& t) {
      transitions.push_back(t.run_id + " " + t.transition->step + ":" + t.transition->from + "->" + t.transition->to);
    };
    orch = std::make_unique<Orchestrator>(EngineDeps{&clock, &jobs, &http, &notifier, &functions, nullptr}, o);
  }
  void add(const Value& d) {
    auto st = orch->add_pipeline(d);
    ASSERT_TRUE(st.has_value()) << st.error().describe();
  }
  void run_until(std::string_view t) {
    auto st = orch->run_virtual(clock, at(t));
    ASSERT_TRUE(st.has_value()) << st.error().describe();
  }
  std::vector<std::string> run_ids() const {
    std::vector<std::string> out;
    for (const auto& r : orch->runs()) out.push_back(r.run_id);
    return out;
  }
  std::vector<const FiringRecord*> firings(FiringAction action) const {
    std::vector<const FiringRecord*> out;
    for (const auto& f : orch->firings())
      if (f.action == action) out.push_back(&f);
    return out;
  }
};

TEST(OrchestratorCronTest, FiresAtScheduleTimesOnVirtualTime) {
  World w;
  w.add(job_pipeline(R"("id": "hourly", "trigger_type": "SCHEDULED", "cron_expression": "0 * * * *")", 600));
  EXPECT_EQ(w.orch->next_wakeup(), at("2026-01-01T01:00:00Z"));
  w.run_until("2026-01-01T03:30:00Z");
  ASSERT_EQ(w.run_ids(), (std::vector<std::string>{"hourly-1", "hourly-2", "hourly-3"}));
  for (int i = 0; i < 3; ++i) {
    const RunRecord& r = w.orch->runs()[static_cast<std::size_t>(i)];
    Timestamp expected = at("2026-01-01T01:00:00Z") + Duration::hours(i);
    EXPECT_EQ(r.scheduled_time, expected);
    EXPECT_EQ(r.created_at, expected);
    EXPECT_EQ(r.trigger, TriggerType::Scheduled);
    EXPECT_EQ(r.status, PipelineStatus::Completed);
    EXPECT_EQ(r.finished_at, expected + Duration::seconds(600));
  }
  EXPECT_EQ(w.jobs.submissions(), 3u);
  EXPECT_EQ(w.clock.now(), at("2026-01-01T03:30:00Z"));
  EXPECT_EQ(w.orch->next_wakeup(), at("2026-01-01T04:00:00Z"));
}

TEST(OrchestratorCronTest, TimeZoneShiftsFireTimes) {
  World w;
  w.add(job_pipeline(R"("id": "ny", "trigger_type": "SCHEDULED", "cron_expression": "0 9 * * *",
                        "time_zone": "America/New_York")", 60));
  w.run_until("2026-01-03T00:00:00Z");
  ASSERT_EQ(w.orch->runs().size(), 2u);
  EXPECT_EQ(w.orch->runs()[0].scheduled_time, at("2026-01-01T14:00:00Z"));  // 09:00 EST
  EXPECT_EQ(w.orch->runs()[1].scheduled_time, at("2026-01-02T14:00:00Z"));
  auto preview = w.orch->preview("ny", at("2026-03-07T00:00:00Z"), at("2026-03-10T00:00:00Z"));
  ASSERT_TRUE(preview.has_value());
  // DST starts on 2026-03-08: 09:00 EDT is 13:00Z.
  EXPECT_EQ(*preview, (std::vector<Timestamp>{at("2026-03-07T14:00:00Z"), at("2026-03-08T13:00:00Z"),
                                              at("2026-03-09T13:00:00Z")}));
}

TEST(OrchestratorCronTest, MissedRunsStartOnlyTheMostRecentWithinTheDeadline) {
  World w;
  w.add(job_pipeline(R"("id": "p", "trigger_type": "SCHEDULED", "cron_expression": "0 * * * *",
                        "starting_deadline_seconds": 300)", 60));
  // The process was down: the clock jumps past three schedule times.
  w.clock.set(at("2026-01-01T03:02:00Z"));
  ASSERT_TRUE(w.orch->pump().has_value());
  ASSERT_EQ(w.orch->runs().size(), 1u);
  EXPECT_EQ(w.orch->runs()[0].scheduled_time, at("2026-01-01T03:00:00Z"));
  EXPECT_EQ(w.orch->runs()[0].created_at, at("2026-01-01T03:02:00Z"));
  auto missed = w.firings(FiringAction::Skip);
  ASSERT_EQ(missed.size(), 1u);  // 01:00 and 02:00, logged once
  EXPECT_EQ(missed[0]->scheduled_time, at("2026-01-01T02:00:00Z"));
  EXPECT_NE(missed[0]->message.find("2 schedule time(s)"), std::string::npos) << missed[0]->message;
  // Too late for 04:00 (10 minutes after it, deadline 5): skipped, logged once.
  w.clock.set(at("2026-01-01T04:10:00Z"));
  ASSERT_TRUE(w.orch->pump().has_value());
  ASSERT_TRUE(w.orch->pump().has_value());
  EXPECT_EQ(w.orch->runs().size(), 1u);
  auto skips = w.firings(FiringAction::Skip);
  ASSERT_EQ(skips.size(), 2u);
  EXPECT_EQ(skips[1]->scheduled_time, at("2026-01-01T04:00:00Z"));
  EXPECT_NE(skips[1]->message.find("starting deadline"), std::string::npos) << skips[1]->message;
  w.run_until("2026-01-01T05:01:00Z");
  EXPECT_EQ(w.orch->runs().size(), 2u);
}

TEST(OrchestratorCronTest, ForbidSkipsWhileActiveThenStartsTheSameTime) {
  World w;
  w.add(job_pipeline(R"("id": "f", "trigger_type": "SCHEDULED", "cron_expression": "0 * * * *",
                        "concurrency_policy": "Forbid")", 5400));
  w.run_until("2026-01-01T02:40:00Z");
  // 01:00 runs until 02:30; 02:00 is skipped, then starts once 01:00's run has finished.
  ASSERT_EQ(w.orch->runs().size(), 2u);
  EXPECT_EQ(w.orch->runs()[0].status, PipelineStatus::Completed);
  EXPECT_EQ(w.orch->runs()[1].scheduled_time, at("2026-01-01T02:00:00Z"));
  EXPECT_EQ(w.orch->runs()[1].created_at, at("2026-01-01T02:30:00Z"));
  auto skips = w.firings(FiringAction::Skip);
  ASSERT_EQ(skips.size(), 1u);
  EXPECT_EQ(skips[0]->time, at("2026-01-01T02:00:00Z"));
  EXPECT_NE(skips[0]->message.find("Forbid"), std::string::npos);
  EXPECT_EQ(w.orch->active_runs(), 1u);
}

TEST(OrchestratorCronTest, ForbidWithDeadlineDropsTheSkippedTime) {
  World w;
  w.add(job_pipeline(R"("id": "f", "trigger_type": "SCHEDULED", "cron_expression": "0 * * * *",
                        "concurrency_policy": "forbid", "starting_deadline_seconds": 600)", 5400));
  w.run_until("2026-01-01T02:50:00Z");
  ASSERT_EQ(w.orch->runs().size(), 1u);  // 02:00 could not start before 02:10
  auto skips = w.firings(FiringAction::Skip);
  ASSERT_EQ(skips.size(), 2u);  // Forbid at 02:00, then the deadline once the run finished
  EXPECT_NE(skips[1]->message.find("starting deadline"), std::string::npos);
  w.run_until("2026-01-01T03:01:00Z");
  EXPECT_EQ(w.orch->runs().size(), 2u);
}

TEST(OrchestratorCronTest, ReplaceCancelsTheActiveRunAndItsJob) {
  World w;
  w.add(job_pipeline(R"("id": "r", "trigger_type": "SCHEDULED", "cron_expression": "0 * * * *",
                        "concurrency_policy": "Replace")", 5400));
  w.run_until("2026-01-01T02:10:00Z");
  ASSERT_EQ(w.run_ids(), (std::vector<std::string>{"r-1", "r-2"}));
  EXPECT_EQ(w.orch->runs()[0].status, PipelineStatus::Cancelled);
  EXPECT_EQ(w.orch->runs()[0].finished_at, at("2026-01-01T02:00:00Z"));
  EXPECT_EQ(w.orch->runs()[1].status, PipelineStatus::Running);
  EXPECT_EQ(w.jobs.cancellations(), 1u);
  auto replaced = w.firings(FiringAction::Replace);
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_EQ(replaced[0]->run_id, "r-1");
  EXPECT_EQ(w.orch->active_runs(), 1u);
}

TEST(OrchestratorCronTest, AllowOverlapsRuns) {
  World w;
  w.add(job_pipeline(R"("id": "a", "trigger_type": "SCHEDULED", "cron_expression": "0 * * * *")", 5400));
  w.run_until("2026-01-01T02:10:00Z");
  EXPECT_EQ(w.orch->runs().size(), 2u);
  EXPECT_EQ(w.orch->active_runs(), 2u);
  EXPECT_EQ(w.jobs.cancellations(), 0u);
  EXPECT_TRUE(w.firings(FiringAction::Skip).empty());
}

TEST(OrchestratorCronTest, SuspendedScheduleNeverFires) {
  World w;
  w.add(job_pipeline(R"("id": "s", "trigger_type": "SCHEDULED", "cron_expression": "*/5 * * * *", "suspend": true)", 60));
  EXPECT_FALSE(w.orch->next_wakeup().has_value());
  w.run_until("2026-01-01T05:00:00Z");
  EXPECT_TRUE(w.orch->runs().empty());
  EXPECT_TRUE(w.orch->firings().empty());
  // A person may still start it.
  auto id = w.orch->start_run("s");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(*id, "s-1");
}

// ---- events ----

const char* kDeploy = R"({"pipeline": {"id": "deploy", "trigger_type": "EVENT", "parameters": {"region": "eu"},
  "event_config": {"event": "model.*", "condition": "{{ event.payload.size_gb < 100 }}",
                   "parameters": {"model": "{{ event.payload.name }}", "gpus": "{{ event.payload.gpus * 2 }}",
                                  "fixed": 7}}},
  "steps": [{"id": "echo", "step_type": "TRANSFORM",
             "config": {"outputs": {"model": "{{ params.model }}", "gpus": "{{ params.gpus }}",
                                    "region": "{{ params.region }}", "fixed": "{{ params.fixed }}"}}}]})";

TEST(OrchestratorEventTest, MatchingEventStartsARunWithRenderedParameters) {
  World w;
  w.add(doc(kDeploy));
  auto started = w.orch->post_event(Event{"model.uploaded", doc(R"({"name": "llama", "size_gb": 10, "gpus": 2})"), {}, "hub"});
  ASSERT_TRUE(started.has_value()) << started.error().describe();
  ASSERT_EQ(*started, (std::vector<std::string>{"deploy-1"}));
  ASSERT_TRUE(w.orch->pump().has_value());
  const RunRecord* r = w.orch->find_run("deploy-1");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->trigger, TriggerType::Event);
  EXPECT_EQ(r->cause, "event model.uploaded");
  EXPECT_EQ(r->status, PipelineStatus::Completed);
  EXPECT_EQ(r->params.find("gpus")->as_int(), 4);
  const StepRun* echo = w.orch->engine("deploy-1")->state().find("echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->outputs.find("model")->as_string(), "llama");
  EXPECT_EQ(echo->outputs.find("gpus")->as_int(), 4);
  EXPECT_EQ(echo->outputs.find("region")->as_string(), "eu");  // pipeline.parameters default kept
  EXPECT_EQ(echo->outputs.find("fixed")->as_int(), 7);

  // Condition false, other prefix: nothing starts.
  auto big = w.orch->post_event(Event{"model.uploaded", doc(R"({"name": "huge", "size_gb": 500, "gpus": 8})"), {}, {}});
  ASSERT_TRUE(big.has_value());
  EXPECT_TRUE(big->empty());
  auto other = w.orch->post_event(Event{"dataset.uploaded", doc(R"({"name": "x", "size_gb": 1, "gpus": 1})"), {}, {}});
  ASSERT_TRUE(other.has_value());
  EXPECT_TRUE(other->empty());
  EXPECT_EQ(w.orch->runs().size(), 1u);
  EXPECT_FALSE(w.orch->post_event(Event{}).has_value());  // no name
}

TEST(OrchestratorEventTest, TemplateFailureIsRecordedNotFatal) {
  World w;
  w.add(doc(kDeploy));
  // size_gb missing: the condition compares undefined with a number.
  auto started = w.orch->post_event(Event{"model.uploaded", doc(R"({"name": "x", "gpus": "two"})"), {}, {}});
  ASSERT_TRUE(started.has_value());
  EXPECT_TRUE(started->empty());
  auto errors = w.firings(FiringAction::Error);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]->pipeline, "deploy");
  EXPECT_TRUE(errors[0]->field.starts_with("pipeline.event_config")) << errors[0]->field;
  // As JSON the location is `path`, the key every JSON document uses for it.
  core::Value v = errors[0]->to_value();
  EXPECT_EQ(v.find("path")->as_string(), errors[0]->field);
  EXPECT_EQ(v.find("field"), nullptr);
}

TEST(OrchestratorEventTest, EventReachesARunningWaitStep) {
  World w;
  w.add(doc(R"({"pipeline": {"id": "gate"}, "steps": [
    {"id": "w", "step_type": "WAIT", "config": {"wait_for_event": "approved", "timeout_seconds": 3600}},
    {"id": "after", "step_type": "TRANSFORM", "depends_on": ["w"],
     "config": {"outputs": {"by": "{{ steps.w.outputs.payload.by }}"}}}]})"));
  auto id = w.orch->start_run("gate");
  ASSERT_TRUE(id.has_value());
  w.run_until("2026-01-01T00:10:00Z");
  EXPECT_EQ(w.orch->find_run(*id)->status, PipelineStatus::Running);
  ASSERT_TRUE(w.orch->post_event(Event{"approved", doc(R"({"by": "alice"})"), {}, {}}).has_value());
  ASSERT_TRUE(w.orch->pump().has_value());
  EXPECT_EQ(w.orch->find_run(*id)->status, PipelineStatus::Completed);
  EXPECT_EQ(w.orch->engine(*id)->state().find("after")->outputs.find("by")->as_string(), "alice");
}

// ---- pipeline completion ----

TEST(OrchestratorCompletionTest, ChainWithStatusFilter) {
  World w;
  w.add(doc(R"({"pipeline": {"id": "train"}, "steps": [
    {"id": "fit", "step_type": "TRANSFORM", "config": {"outputs": {"ckpt": "s3://ckpt/{{ params.epochs }}"}}}]})"));
  w.add(doc(R"({"pipeline": {"id": "eval", "trigger_type": "PIPELINE", "triggered_by_pipeline_id": "train",
    "trigger_parameters": {"checkpoint": "{{ pipeline.outputs.fit.ckpt }}", "source": "{{ pipeline.run_id }}"}},
    "steps": [{"id": "score", "step_type": "TRANSFORM", "config": {"outputs": {"of": "{{ params.checkpoint }}"}}}]})"));
  w.add(doc(R"({"pipeline": {"id": "alert", "trigger_type": "PIPELINE", "triggered_by_pipeline_id": "eval",
    "trigger_statuses": ["failed", "cancelled"]},
    "steps": [{"id": "n", "step_type": "TRANSFORM", "config": {"outputs": {}}}]})"));
  w.add(doc(R"({"pipeline": {"id": "publish", "trigger_type": "PIPELINE", "triggered_by_pipeline_id": "eval",
    "trigger_condition": "{{ pipeline.parameters.source == 'train-1' }}"},
    "steps": [{"id": "n", "step_type": "TRANSFORM", "config": {"outputs": {}}}]})"));
  ASSERT_TRUE(w.orch->start_run("train", doc(R"({"epochs": 3})")).has_value());
  ASSERT_TRUE(w.orch->pump().has_value());
  ASSERT_EQ(w.run_ids(), (std::vector<std::string>{"train-1", "eval-1", "publish-1"}));
  const RunRecord& eval = w.orch->runs()[1];
  EXPECT_EQ(eval.trigger, TriggerType::Pipeline);
  EXPECT_EQ(eval.triggered_by_run_id, "train-1");
  EXPECT_EQ(eval.chain_depth, 1);
  EXPECT_EQ(eval.cause, "pipeline train run train-1 completed");
  EXPECT_EQ(w.orch->engine("eval-1")->state().find("score")->outputs.find("of")->as_string(), "s3://ckpt/3");
  EXPECT_EQ(w.orch->runs()[2].chain_depth, 2);
  EXPECT_EQ(w.orch->runs()[2].triggered_by_run_id, "eval-1");
  for (const auto& r : w.orch->runs()) EXPECT_EQ(r.status, PipelineStatus::Completed) << r.run_id;
}

TEST(OrchestratorCompletionTest, FailedStatusStartsTheFailureBranch) {
  World w;
  w.add(doc(R"({"pipeline": {"id": "gate"}, "steps": [
    {"id": "w", "step_type": "WAIT", "config": {"wait_for_event": "never", "timeout_seconds": 60}}]})"));
  w.add(doc(R"({"pipeline": {"id": "alert", "trigger_type": "PIPELINE", "triggered_by_pipeline_id": "gate",
    "trigger_statuses": ["failed"]}, "steps": [{"id": "n", "step_type": "TRANSFORM", "config": {"outputs": {}}}]})"));
  ASSERT_TRUE(w.orch->start_run("gate").has_value());
  ASSERT_TRUE(w.orch->start_run("gate").has_value());
  ASSERT_TRUE(w.orch->cancel_run("gate-2").has_value());
  w.run_until("2026-01-01T00:05:00Z");
  ASSERT_EQ(w.run_ids(), (std::vector<std::string>{"gate-1", "gate-2", "alert-1"}));
  EXPECT_EQ(w.orch->runs()[0].status, PipelineStatus::Failed);  // timed out
  EXPECT_EQ(w.orch->runs()[1].status, PipelineStatus::Cancelled);
  EXPECT_EQ(w.orch->runs()[2].triggered_by_run_id, "gate-1");
  EXPECT_EQ(w.orch->cancel_run("gate-2").error().code, core::ErrorCode::Conflict);
  EXPECT_EQ(w.orch->cancel_run("nope").error().code, core::ErrorCode::NotFound);
}

TEST(OrchestratorCompletionTest, SelfTriggerStopsAtTheChainDepthLimit) {
  World w(3);
  w.add(doc(R"({"pipeline": {"id": "loop", "trigger_type": "PIPELINE", "triggered_by_pipeline_id": "loop"},
    "steps": [{"id": "j", "step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER",
               "estimated_duration_seconds": 30}}]})"));
  ASSERT_TRUE(w.orch->start_run("loop").has_value());
  w.run_until("2026-01-01T01:00:00Z");
  ASSERT_EQ(w.run_ids(), (std::vector<std::string>{"loop-1", "loop-2", "loop-3", "loop-4"}));
  EXPECT_EQ(w.orch->runs().back().chain_depth, 3);
  EXPECT_EQ(w.orch->runs().back().created_at, at("2026-01-01T00:01:30Z"));
  auto errors = w.firings(FiringAction::Error);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]->time, at("2026-01-01T00:02:00Z"));
  EXPECT_EQ(errors[0]->triggered_by_run_id, "loop-4");
  EXPECT_EQ(errors[0]->field, "pipeline.triggered_by_pipeline_id");
  EXPECT_NE(errors[0]->message.find("chain depth 4"), std::string::npos) << errors[0]->message;
  EXPECT_EQ(w.orch->active_runs(), 0u);
  EXPECT_FALSE(w.orch->next_wakeup().has_value());
}

// ---- registration ----

struct BadCase {
  std::string pipeline_keys;
  std::string field;
};

TEST(OrchestratorConfigTest, BadTriggerConfigNamesTheField) {
  const std::vector<BadCase> cases = {
      {R"("id": "x", "trigger_type": "SCHEDULED")", "pipeline.cron_expression"},
      {R"("id": "x", "trigger_type": "SCHEDULED", "cron_expression": "61 * * * *")", "pipeline.cron_expression"},
      {R"("id": "x", "trigger_type": "SCHEDULED", "cron_expression": "@hourly", "time_zone": "Mars/Olympus")",
       "pipeline.time_zone"},
      {R"("id": "x", "trigger_type": "SCHEDULED", "cron_expression": "@hourly", "concurrency_policy": "Sometimes")",
       "pipeline.concurrency_policy"},
      {R"("id": "x", "trigger_type": "SCHEDULED", "cron_expression": "@hourly", "starting_deadline_seconds": -5)",
       "pipeline.starting_deadline_seconds"},
      {R"("id": "x", "trigger_type": "SCHEDULED", "cron_expression": "@hourly", "suspend": "yes")", "pipeline.suspend"},
      {R"("id": "x", "trigger_type": "EVENT")", "pipeline.event_config"},
      {R"("id": "x", "trigger_type": "EVENT", "event_config": {"condition": "{{ true }}"})",
       "pipeline.event_config.event"},
      {R"("id": "x", "trigger_type": "EVENT", "event_config": {"event": "e", "parameters": {"m": "{{ event.payload. }}"}})",
       "pipeline.event_config.parameters.m"},
      {R"("id": "x", "trigger_type": "EVENT", "event_config": {"event": "e", "parameters": [1]})",
       "pipeline.event_config.parameters"},
      {R"("id": "x", "trigger_type": "EVENT", "event_config": {"event": "e", "condition": 3})",
       "pipeline.event_config.condition"},
      {R"("id": "x", "trigger_type": "PIPELINE")", "pipeline.triggered_by_pipeline_id"},
      {R"("id": "x", "trigger_type": "PIPELINE", "triggered_by_pipeline_id": "a", "trigger_statuses": ["completed", "running"])",
       "pipeline.trigger_statuses[1]"},
      {R"("id": "x", "trigger_type": "PIPELINE", "triggered_by_pipeline_id": "a", "trigger_condition": "{{ (")",
       "pipeline.trigger_condition"},
      {R"("name": "no id")", "pipeline.id"},
  };
  for (const auto& c : cases) {
    World w;
    auto st = w.orch->add_pipeline(job_pipeline(c.pipeline_keys, 60));
    ASSERT_FALSE(st.has_value()) << c.pipeline_keys;
    EXPECT_EQ(st.error().code, core::ErrorCode::Invalid) << c.pipeline_keys;
    EXPECT_EQ(st.error().field, c.field) << c.pipeline_keys << ": " << st.error().describe();
    EXPECT_FALSE(w.orch->has_pipeline("x"));
    EXPECT_FALSE(w.orch->next_wakeup().has_value());  // nothing half-registered
  }
}

TEST(OrchestratorConfigTest, DuplicateIdsAndUnknownPipelines) {
  World w;
  w.add(job_pipeline(R"("id": "p")", 60));
  auto dup = w.orch->add_pipeline(job_pipeline(R"("id": "p", "trigger_type": "SCHEDULED", "cron_expression": "@daily")", 60));
  ASSERT_FALSE(dup.has_value());
  EXPECT_EQ(dup.error().code, core::ErrorCode::AlreadyExists);
  EXPECT_EQ(dup.error().field, "pipeline.id");
  EXPECT_FALSE(w.orch->next_wakeup().has_value());  // the duplicate's schedule was not kept
  EXPECT_EQ(w.orch->start_run("missing").error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(w.orch->start_run("p", Value(3)).error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(w.orch->preview("p", w.clock.now(), w.clock.now()).error().code, core::ErrorCode::Invalid);
  // The engine's own validation runs at registration too.
  auto broken = w.orch->add_pipeline(doc(R"({"pipeline": {"id": "b"}, "steps": [{"id": "s", "step_type": "NOPE"}]})"));
  EXPECT_FALSE(broken.has_value());
  EXPECT_FALSE(w.orch->has_pipeline("b"));
}

// ---- determinism ----

std::vector<std::string> orchestrate_a_day() {
  World w(4);
  w.add(job_pipeline(R"("id": "nightly", "trigger_type": "SCHEDULED", "cron_expression": "0 */6 * * *",
                        "concurrency_policy": "Replace")", 7 * 3600));
  w.add(doc(R"({"pipeline": {"id": "after", "trigger_type": "PIPELINE", "triggered_by_pipeline_id": "nightly",
    "trigger_statuses": []}, "steps": [{"id": "t", "step_type": "TRANSFORM", "config": {"outputs": {}}}]})"));
  w.add(doc(kDeploy));
  w.run_until("2026-01-01T07:00:00Z");
  EXPECT_TRUE(w.orch->post_event(Event{"model.new", doc(R"({"name": "m", "size_gb": 1, "gpus": 1})"), {}, {}}).has_value());
  w.run_until("2026-01-02T00:00:00Z");
  std::vector<std::string> log;
  for (const auto& f : w.orch->firings()) log.push_back(core::to_json(f.to_value()));
  for (const auto& r : w.orch->runs()) log.push_back(core::to_json(r.to_value()));
  log.insert(log.end(), w.transitions.begin(), w.transitions.end());
  return log;
}

TEST(OrchestratorTest, IdenticalOrchestrationsGiveIdenticalLogs) {
  auto first = orchestrate_a_day();
  auto second = orchestrate_a_day();
  EXPECT_GT(first.size(), 20u);
  EXPECT_EQ(first, second);
}

TEST(OrchestratorTest, ObserverSeesFiringsAndTaggedTransitions) {
  core::VirtualClock clock;
  SimJobRunner jobs(clock);
  testing::RecordingSink shared;
  std::vector<std::string> seen;
  OrchestratorOptions o;
  o.on_firing = [&](const FiringRecord& f) { seen.push_back("fire " + f.pipeline + " " + f.run_id); };
  o.on_transition = [&](const RunTransition& t) {
    seen.push_back("step " + t.pipeline + " " + t.run_id + " " + t.transition->step + ":" + t.transition->to);
  };
  Orchestrator orch(EngineDeps{&clock, &jobs, nullptr, nullptr, nullptr, &shared}, o);
  ASSERT_TRUE(orch.add_pipeline(doc(R"({"pipeline": {"id": "p"}, "steps": [
    {"id": "t", "step_type": "TRANSFORM", "config": {"outputs": {}}}]})")).has_value());
  ASSERT_TRUE(orch.start_run("p").has_value());
  ASSERT_TRUE(orch.pump().has_value());
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[0], "fire p p-1");
  EXPECT_EQ(seen[1], "step p p-1 :running");
  EXPECT_TRUE(std::find(seen.begin(), seen.end(), "step p p-1 t:succeeded") != seen.end());
  EXPECT_EQ(shared.transitions.size(), seen.size() - 1);  // the shared sink sees every transition too
  core::VirtualClock other;
  EXPECT_FALSE(orch.run_virtual(other, other.now()).has_value());  // must drive its own clock
}

}  // namespace
}  // namespace budcore::pipeline
