// Triggers: the Kubernetes CronJob decision (missed runs, starting deadline, concurrency
// policy), named events with templated parameters, and pipeline-completion triggers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "budcore/core/clock.hpp"
#include "budcore/pipeline/trigger.hpp"

namespace {

using budcore::core::Duration;
using budcore::core::ErrorCode;
using budcore::core::Map;
using budcore::core::Timestamp;
using budcore::core::Value;
using namespace budcore::pipeline;

Timestamp ts(const std::string& text) { return Timestamp::parse(text).value(); }
CronSchedule cron(const std::string& expr, const std::string& zone = "") { return CronSchedule::parse(expr, zone).value(); }

// ---- cron decisions ----

TEST(CronDecisionTest, NothingDueBeforeFirstScheduleTime) {
  auto d = decide_cron_run(cron("0 * * * *"), {}, {.created = ts("2026-01-01T10:05:00Z")}, ts("2026-01-01T10:59:00Z"));
  EXPECT_EQ(d.action, CronAction::None);
  EXPECT_FALSE(d.scheduled_time);
  EXPECT_EQ(d.next_schedule_time, ts("2026-01-01T11:00:00Z"));
}

TEST(CronDecisionTest, StartsDueRunAndRecordsIt) {
  CronState st{.created = ts("2026-01-01T10:05:00Z")};
  auto d = decide_cron_run(cron("0 * * * *"), {}, st, ts("2026-01-01T11:00:30Z"));
  EXPECT_EQ(d.action, CronAction::Start);
  EXPECT_EQ(d.scheduled_time, ts("2026-01-01T11:00:00Z"));
  EXPECT_EQ(d.new_last_schedule_time, ts("2026-01-01T11:00:00Z"));
  EXPECT_EQ(d.missed, 1);
  EXPECT_EQ(d.next_schedule_time, ts("2026-01-01T12:00:00Z"));
  // Asked again within the same minute after recording it: nothing new.
  st.last_schedule_time = d.new_last_schedule_time;
  auto again = decide_cron_run(cron("0 * * * *"), {}, st, ts("2026-01-01T11:00:45Z"));
  EXPECT_EQ(again.action, CronAction::None);
}

TEST(CronDecisionTest, MissedRunsStartOnlyTheMostRecent) {
  CronState st{.created = ts("2026-01-01T00:00:00Z"), .last_schedule_time = ts("2026-01-01T10:00:00Z")};
  auto d = decide_cron_run(cron("0 * * * *"), {}, st, ts("2026-01-01T15:20:00Z"));
  EXPECT_EQ(d.action, CronAction::Start);
  EXPECT_EQ(d.scheduled_time, ts("2026-01-01T15:00:00Z"));
  EXPECT_EQ(d.missed, 5);  // 11, 12, 13, 14, 15
  EXPECT_FALSE(d.too_many_missed);
  EXPECT_NE(d.reason.find("4 earlier schedule times were missed"), std::string::npos) << d.reason;
}

TEST(CronDecisionTest, TooManyMissedStillFindsTheMostRecent) {
  CronState st{.created = ts("2026-01-01T00:00:00Z")};
  auto d = decide_cron_run(cron("* * * * *"), {}, st, ts("2026-03-01T12:34:56Z"));
  EXPECT_EQ(d.action, CronAction::Start);
  EXPECT_TRUE(d.too_many_missed);
  EXPECT_EQ(d.missed, 100);
  EXPECT_EQ(d.scheduled_time, ts("2026-03-01T12:34:00Z"));
  auto weekly = decide_cron_run(cron("0 9 * * MON"), {}, {.created = ts("2020-01-01T00:00:00Z")}, ts("2026-03-04T00:00:00Z"));
  EXPECT_TRUE(weekly.too_many_missed);
  EXPECT_EQ(weekly.scheduled_time, ts("2026-03-02T09:00:00Z"));
}

TEST(CronDecisionTest, StartingDeadlineLimitsHowLateARunMayStart) {
  CronPolicy p{.starting_deadline = Duration::seconds(200)};
  CronState st{.created = ts("2026-01-01T00:00:00Z"), .last_schedule_time = ts("2026-01-01T10:00:00Z")};
  // 11:00 was missed by more than 200 s: nothing in the window, skip it.
  auto late = decide_cron_run(cron("0 * * * *"), p, st, ts("2026-01-01T11:05:00Z"));
  EXPECT_EQ(late.action, CronAction::None);
  EXPECT_FALSE(late.scheduled_time);
  // Within the deadline: start; only schedule times inside the window count as missed.
  auto ok = decide_cron_run(cron("0 * * * *"), p, st, ts("2026-01-01T11:03:00Z"));
  EXPECT_EQ(ok.action, CronAction::Start);
  EXPECT_EQ(ok.scheduled_time, ts("2026-01-01T11:00:00Z"));
  EXPECT_EQ(ok.missed, 1);
  // As in Kubernetes, the window (now - deadline, now] excludes its start: a run exactly
  // `deadline` late no longer starts; one second earlier it does.
  auto edge = decide_cron_run(cron("0 * * * *"), p, st, ts("2026-01-01T11:03:20Z"));
  EXPECT_EQ(edge.action, CronAction::None);
  auto just = decide_cron_run(cron("0 * * * *"), p, st, ts("2026-01-01T11:03:19Z"));
  EXPECT_EQ(just.action, CronAction::Start);
}

TEST(CronDecisionTest, ForbidSkipsWhileARunIsActive) {
  CronPolicy p{.concurrency = ConcurrencyPolicy::Forbid};
  CronState st{.created = ts("2026-01-01T00:00:00Z"),
               .last_schedule_time = ts("2026-01-01T10:00:00Z"),
               .active = {{"run-10", ts("2026-01-01T10:00:00Z")}}};
  auto d = decide_cron_run(cron("0 * * * *"), p, st, ts("2026-01-01T11:00:10Z"));
  EXPECT_EQ(d.action, CronAction::Skip);
  EXPECT_EQ(d.scheduled_time, ts("2026-01-01T11:00:00Z"));
  EXPECT_FALSE(d.new_last_schedule_time);
  EXPECT_NE(d.reason.find("run-10"), std::string::npos);
  // The skipped time is retried: once the run ends, the same 11:00 run starts (no deadline).
  st.active.clear();
  auto later = decide_cron_run(cron("0 * * * *"), p, st, ts("2026-01-01T11:40:00Z"));
  EXPECT_EQ(later.action, CronAction::Start);
  EXPECT_EQ(later.scheduled_time, ts("2026-01-01T11:00:00Z"));
}

TEST(CronDecisionTest, AllowAndReplaceWithActiveRuns) {
  CronState st{.created = ts("2026-01-01T00:00:00Z"),
               .last_schedule_time = ts("2026-01-01T10:00:00Z"),
               .active = {{"run-9", ts("2026-01-01T09:00:00Z")}, {"run-10", ts("2026-01-01T10:00:00Z")}}};
  auto allow = decide_cron_run(cron("0 * * * *"), {}, st, ts("2026-01-01T11:00:00Z"));
  EXPECT_EQ(allow.action, CronAction::Start);
  EXPECT_TRUE(allow.replace.empty());
  auto replace = decide_cron_run(cron("0 * * * *"), {.concurrency = ConcurrencyPolicy::Replace}, st,
                                 ts("2026-01-01T11:00:00Z"));
  EXPECT_EQ(replace.action, CronAction::Start);
  EXPECT_EQ(replace.replace, (std::vector<std::string>{"run-9", "run-10"}));
}

TEST(CronDecisionTest, SuspendAndAlreadyActiveScheduleTime) {
  CronState st{.created = ts("2026-01-01T00:00:00Z")};
  auto s = decide_cron_run(cron("0 * * * *"), {.suspend = true}, st, ts("2026-01-01T11:00:00Z"));
  EXPECT_EQ(s.action, CronAction::None);
  EXPECT_EQ(s.reason, "suspended");
  st.active = {{"run-11", ts("2026-01-01T11:00:00Z")}};
  auto dup = decide_cron_run(cron("0 * * * *"), {}, st, ts("2026-01-01T11:00:05Z"));
  EXPECT_EQ(dup.action, CronAction::None);
}

TEST(CronDecisionTest, VirtualClockDrivesADayOfSchedulesInNewYork) {
  budcore::core::VirtualClock clock(ts("2026-03-07T12:00:00Z"));
  auto sched = cron("30 2 * * *", "America/New_York");
  CronState st{.created = clock.now()};
  std::vector<std::string> started;
  for (int minute = 0; minute < 4 * 24 * 60; minute += 10) {
    clock.advance(Duration::minutes(10));
    auto d = decide_cron_run(sched, {.starting_deadline = Duration::minutes(30)}, st, clock.now());
    if (d.action == CronAction::Start) {
      started.push_back(d.scheduled_time->to_string());
      st.last_schedule_time = d.new_last_schedule_time;
    }
  }
  // March 8 2026 is the spring-forward day: 02:30 does not exist there.
  EXPECT_EQ(started, (std::vector<std::string>{"2026-03-09T06:30:00Z",
                                               "2026-03-10T06:30:00Z", "2026-03-11T06:30:00Z"}));
  EXPECT_EQ(to_string(ConcurrencyPolicy::Replace), "Replace");
  EXPECT_EQ(parse_concurrency_policy("forbid").value(), ConcurrencyPolicy::Forbid);
  auto bad = parse_concurrency_policy("Sometimes");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "concurrency_policy");
}

// ---- event triggers ----

TEST(EventTriggerTest, PayloadBecomesParametersThroughTemplates) {
  EventTriggerSpec spec{.name = "on-upload",
                        .event = "model.uploaded",
                        .pipeline = "deploy-model",
                        .condition = "{{ event.payload.size_gb < 100 }}",
                        .parameters = Map{{"model", "{{ event.payload.name }}"},
                                          {"gpus", "{{ event.payload.gpus * 2 }}"},
                                          {"tags", "{{ event.payload.tags }}"},
                                          {"label", "uploaded-{{ event.payload.name | lower }}"},
                                          {"fixed", 42}}};
  auto set = TriggerSet::compile({spec}, {}).value();
  Event ev{.name = "model.uploaded",
           .payload = Value::map({{"name", "Llama-3"}, {"gpus", 4}, {"size_gb", 16},
                                  {"tags", Value::list({"a", "b"})}}),
           .time = ts("2026-01-01T00:00:00Z")};
  auto out = set.on_event(ev);
  ASSERT_TRUE(out.errors.empty());
  ASSERT_EQ(out.firings.size(), 1u);
  const auto& f = out.firings[0];
  EXPECT_EQ(f.trigger, "on-upload");
  EXPECT_EQ(f.type, TriggerType::Event);
  EXPECT_EQ(f.pipeline, "deploy-model");
  EXPECT_EQ(*f.parameters.find("model"), Value("Llama-3"));
  EXPECT_EQ(*f.parameters.find("gpus"), Value(8));  // native: keeps the int type
  EXPECT_EQ(*f.parameters.find("tags"), Value::list({"a", "b"}));
  EXPECT_EQ(*f.parameters.find("label"), Value("uploaded-llama-3"));
  EXPECT_EQ(*f.parameters.find("fixed"), Value(42));
  EXPECT_EQ(f.cause, "event model.uploaded");

  ev.payload = Value::map({{"name", "huge"}, {"gpus", 1}, {"size_gb", 500}, {"tags", Value::list({})}});
  EXPECT_TRUE(set.on_event(ev).firings.empty());  // condition false
  ev.name = "model.deleted";
  EXPECT_TRUE(set.on_event(ev).firings.empty());  // another event
}

TEST(EventTriggerTest, PrefixPatternsAndPerTriggerErrors) {
  std::vector<EventTriggerSpec> specs = {
      {.name = "any-model", .event = "model.*", .pipeline = "audit", .parameters = Map{{"what", "{{ event.name }}"}}},
      {.name = "needs-field", .event = "model.*", .pipeline = "p2", .parameters = Map{{"x", "{{ event.payload.missing }}"}}},
  };
  auto set = TriggerSet::compile(specs, {}).value();
  auto out = set.on_event({.name = "model.deleted", .payload = Value::map({})});
  ASSERT_EQ(out.firings.size(), 1u);
  EXPECT_EQ(*out.firings[0].parameters.find("what"), Value("model.deleted"));
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0].field, "event_triggers[1].parameters.x");
  EXPECT_NE(out.errors[0].message.find("Undefined"), std::string::npos) << out.errors[0].message;
  EXPECT_TRUE(set.on_event({.name = "modelx"}).firings.empty());
}

TEST(EventTriggerTest, CompileErrorsNameTheSpec) {
  auto syntax = TriggerSet::compile({{.name = "t", .event = "e", .pipeline = "p", .parameters = Map{{"a", "{{ 1 + }}"}}}}, {});
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().field, "event_triggers[0].parameters.a");
  EXPECT_EQ(syntax.error().value, "{{ 1 + }}");
  auto dup = TriggerSet::compile({{.name = "t", .event = "e", .pipeline = "p"}, {.name = "t", .event = "f", .pipeline = "p"}}, {});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().field, "event_triggers[1].name");
  auto no_event = TriggerSet::compile({{.name = "t", .event = "", .pipeline = "p"}}, {});
  ASSERT_FALSE(no_event);
  EXPECT_EQ(no_event.error().field, "event_triggers[0].event");
  auto no_pipeline = TriggerSet::compile({{.name = "t", .event = "e"}}, {});
  ASSERT_FALSE(no_pipeline);
  EXPECT_EQ(no_pipeline.error().field, "event_triggers[0].pipeline");
  auto bad_cond = TriggerSet::compile({{.name = "t", .event = "e", .pipeline = "p", .condition = "{% if %}"}}, {});
  ASSERT_FALSE(bad_cond);
  EXPECT_EQ(bad_cond.error().field, "event_triggers[0].condition");
}

// ---- pipeline completion triggers ----

TEST(CompletionTriggerTest, StatusSetSelectsAndParametersComeFromTheRun) {
  std::vector<CompletionTriggerSpec> specs = {
      {.name = "evaluate-after-train", .source_pipeline = "train", .pipeline = "evaluate",
       .parameters = Map{{"checkpoint", "{{ pipeline.outputs.checkpoint }}"},
                         {"lr", "{{ pipeline.parameters.lr }}"},
                         {"from_run", "{{ pipeline.run_id }}"}}},
      {.name = "alert-on-failure", .source_pipeline = "train",
       .statuses = {PipelineStatus::Failed, PipelineStatus::Cancelled}, .pipeline = "alert",
       .parameters = Map{{"status", "{{ pipeline.status }}"}}},
      {.name = "cleanup-always", .source_pipeline = "train", .statuses = {}, .pipeline = "cleanup"},
  };
  auto set = TriggerSet::compile({}, specs).value();
  PipelineFinished done{.pipeline = "train", .run_id = "r-17", .status = PipelineStatus::Completed,
                        .outputs = Value::map({{"checkpoint", "s3://ckpt/17"}}),
                        .parameters = Value::map({{"lr", 0.001}})};
  auto out = set.on_pipeline_finished(done);
  ASSERT_TRUE(out.errors.empty());
  ASSERT_EQ(out.firings.size(), 2u);
  EXPECT_EQ(out.firings[0].pipeline, "evaluate");
  EXPECT_EQ(out.firings[0].type, TriggerType::Pipeline);
  EXPECT_EQ(*out.firings[0].parameters.find("checkpoint"), Value("s3://ckpt/17"));
  EXPECT_EQ(*out.firings[0].parameters.find("lr"), Value(0.001));
  EXPECT_EQ(*out.firings[0].parameters.find("from_run"), Value("r-17"));
  EXPECT_EQ(out.firings[0].triggered_by_run_id, "r-17");
  EXPECT_EQ(out.firings[0].chain_depth, 1);
  EXPECT_EQ(out.firings[1].pipeline, "cleanup");

  done.status = PipelineStatus::Failed;
  out = set.on_pipeline_finished(done);
  ASSERT_EQ(out.firings.size(), 2u);
  EXPECT_EQ(out.firings[0].pipeline, "alert");
  EXPECT_EQ(*out.firings[0].parameters.find("status"), Value("failed"));
  EXPECT_EQ(out.firings[0].cause, "pipeline train run r-17 failed");

  done.status = PipelineStatus::Running;  // not terminal: nothing
  EXPECT_TRUE(set.on_pipeline_finished(done).firings.empty());
  done.pipeline = "other";
  done.status = PipelineStatus::Completed;
  EXPECT_TRUE(set.on_pipeline_finished(done).firings.empty());
}

TEST(CompletionTriggerTest, ChainDepthLimitStopsLoops) {
  auto set = TriggerSet::compile({}, {{.name = "again", .source_pipeline = "loop", .pipeline = "loop"}},
                                 {.max_chain_depth = 3})
                 .value();
  PipelineFinished done{.pipeline = "loop", .run_id = "r"};
  int depth = 0;
  for (;;) {
    done.chain_depth = depth;
    auto out = set.on_pipeline_finished(done);
    if (out.firings.empty()) {
      ASSERT_EQ(out.errors.size(), 1u);
      EXPECT_EQ(out.errors[0].code, ErrorCode::Conflict);
      EXPECT_EQ(out.errors[0].field, "completion_triggers[0]");
      break;
    }
    depth = out.firings[0].chain_depth;
  }
  EXPECT_EQ(depth, 3);
}

TEST(CompletionTriggerTest, CompileErrors) {
  auto bad_status = TriggerSet::compile({}, {{.name = "t", .source_pipeline = "a", .statuses = {PipelineStatus::Running},
                                              .pipeline = "b"}});
  ASSERT_FALSE(bad_status);
  EXPECT_EQ(bad_status.error().field, "completion_triggers[0].statuses[0]");
  EXPECT_EQ(bad_status.error().value, "running");
  auto no_source = TriggerSet::compile({}, {{.name = "t", .pipeline = "b"}});
  ASSERT_FALSE(no_source);
  EXPECT_EQ(no_source.error().field, "completion_triggers[0].source_pipeline");
  auto dup = TriggerSet::compile({{.name = "t", .event = "e", .pipeline = "p"}},
                                 {{.name = "t", .source_pipeline = "a", .pipeline = "b"}});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().field, "completion_triggers[0].name");
}

}  // namespace
