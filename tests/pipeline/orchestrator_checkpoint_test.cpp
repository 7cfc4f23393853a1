// Orchestrator checkpoints: a scheduler that stops and starts again carries on where it was
// (cron bookkeeping, run ids, runs in flight), and a bad checkpoint changes nothing.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/orchestrator.hpp"
#include "budcore/pipeline/simulation.hpp"
#include "pipeline/engine_fixture.hpp"

namespace budcore::pipeline {
namespace {

using core::Timestamp;
using core::Value;
using testing::doc;

Timestamp at(std::string_view rfc3339) { return *Timestamp::parse(rfc3339); }

// The outside world survives a restart: the clock and the cluster running the jobs.
struct Cluster {
  core::VirtualClock clock;  // 2026-01-01T00:00:00Z
  SimJobRunner jobs{clock};
};

// One process of the embedding service: its own orchestrator over the shared cluster.
struct Process {
  std::unique_ptr<Orchestrator> orch;
  std::vector<std::string> log;  // "run step:from->to"

  explicit Process(Cluster& c) {
    OrchestratorOptions o;
    o.on_transition = [this](const RunTransition& t) {
      log.push_back(t.run_id + " " + t.transition->step + ":" + t.transition->from + "->" + t.transition->to);
    };
    orch = std::make_unique<Orchestrator>(EngineDeps{&c.clock, &c.jobs, nullptr, nullptr, nullptr, nullptr}, o);
    for (const auto& d : documents()) {
      auto st = orch->add_pipeline(d);
      EXPECT_TRUE(st.has_value()) << st.error().describe();
    }
  }
  static std::vector<Value> documents() {
    return {doc(R"({"pipeline": {"id": "nightly", "trigger_type": "SCHEDULED", "cron_expression": "0 * * * *",
                                 "starting_deadline_seconds": 7200, "concurrency_policy": "Allow"},
                    "steps": [{"id": "train", "step_type": "JOB", "config": {"job_type": "BATCH",
                               "deployment_type": "DOCKER", "estimated_duration_seconds": 2400}},
                              {"id": "report", "step_type": "TRANSFORM", "depends_on": ["train"],
                               "config": {"outputs": {"done": true}}}]})"),
            doc(R"({"pipeline": {"id": "manual"}, "steps": [{"id": "w", "step_type": "WAIT",
                    "config": {"duration_seconds": 60}}]})")};
  }
  bool saw(const std::string& line) const { return std::find(log.begin(), log.end(), line) != log.end(); }
};

TEST(OrchestratorCheckpointTest, ARestartedSchedulerCatchesUpAndResumesRunsInFlight) {
  Cluster cluster;
  Value saved;
  {
    Process first(cluster);
    ASSERT_TRUE(first.orch->run_virtual(cluster.clock, at("2026-01-01T02:10:00Z")).has_value());
    // nightly-1 (01:00) is done; nightly-2 (02:00) is training.
    ASSERT_EQ(first.orch->runs().size(), 2u);
    EXPECT_EQ(first.orch->runs()[1].status, PipelineStatus::Running);
    saved = first.orch->checkpoint();
  }  // the process dies here
  EXPECT_EQ(cluster.jobs.submissions(), 2u);
  // Round trip through JSON, as a service would store it.
  saved = *core::parse_json(core::to_json(saved));

  cluster.clock.set(at("2026-01-01T04:30:00Z"));  // down over 03:00 and 04:00
  Process second(cluster);
  ASSERT_TRUE(second.orch->restore(saved).has_value());
  ASSERT_EQ(second.orch->runs().size(), 2u);
  EXPECT_EQ(second.orch->next_wakeup(), at("2026-01-01T03:00:00Z"));  // a missed time: due now
  ASSERT_TRUE(second.orch->pump().has_value());

  // As a CronJob with startingDeadlineSeconds: the most recent missed time (04:00) starts,
  // 03:00 is logged as skipped; run ids go on from the checkpoint.
  ASSERT_EQ(second.orch->runs().size(), 3u);
  const RunRecord& caught_up = second.orch->runs()[2];
  EXPECT_EQ(caught_up.run_id, "nightly-3");
  EXPECT_EQ(caught_up.scheduled_time, at("2026-01-01T04:00:00Z"));
  // nightly-2's job finished at 02:40 while nobody watched: the resumed engine takes its result
  // from the cluster and goes on, without submitting the job again.
  EXPECT_EQ(second.orch->runs()[1].status, PipelineStatus::Completed);
  EXPECT_TRUE(second.saw("nightly-2 train:running->succeeded"));
  EXPECT_TRUE(second.saw("nightly-2 report:running->succeeded"));
  EXPECT_FALSE(second.saw("nightly-2 train:pending->running"));
  EXPECT_EQ(cluster.jobs.submissions(), 3u);  // nightly-1, nightly-2, nightly-3

  // The finished run came back with its outputs, and its completion is not fed again.
  const Engine* first_run = second.orch->engine("nightly-1");
  ASSERT_NE(first_run, nullptr);
  EXPECT_EQ(first_run->status(), PipelineStatus::Completed);
  EXPECT_EQ(first_run->state().find("report")->outputs, doc(R"({"done": true})"));

  ASSERT_TRUE(second.orch->run_virtual(cluster.clock, at("2026-01-01T05:50:00Z")).has_value());
  EXPECT_EQ(second.orch->runs().size(), 4u);
  EXPECT_EQ(second.orch->runs()[3].run_id, "nightly-4");
  EXPECT_EQ(second.orch->runs()[3].scheduled_time, at("2026-01-01T05:00:00Z"));
}

TEST(OrchestratorCheckpointTest, WithoutACheckpointTheDowntimeIsLost) {
  Cluster cluster;
  cluster.clock.set(at("2026-01-01T04:30:00Z"));
  Process fresh(cluster);
  ASSERT_TRUE(fresh.orch->pump().has_value());
  EXPECT_TRUE(fresh.orch->runs().empty());  // its window starts now: 04:00 is not its to catch up
}

TEST(OrchestratorCheckpointTest, NewerStatesFromAJournalWin) {
  Cluster cluster;
  Value saved;
  Value later;
  {
    Process first(cluster);
    auto id = first.orch->start_run("manual");
    ASSERT_TRUE(id.has_value());
    saved = first.orch->checkpoint();  // w is waiting
    ASSERT_TRUE(first.orch->run_virtual(cluster.clock, at("2026-01-01T00:02:00Z")).has_value());
    later = first.orch->engine(*id)->state().to_value();  // what a journal would hold
  }
  Process second(cluster);
  ASSERT_TRUE(second.orch->restore(saved, {{"manual-1", later}}).has_value());
  EXPECT_EQ(second.orch->find_run("manual-1")->status, PipelineStatus::Completed);
  ASSERT_TRUE(second.orch->pump().has_value());
  EXPECT_TRUE(second.log.empty());  // nothing was done twice
}

// A scheduler that runs for months keeps a bounded history: the newest finished runs, every
// active one, and counters that go on; its checkpoints stay as small.
TEST(OrchestratorCheckpointTest, RetentionKeepsTheNewestFinishedRuns) {
  Cluster cluster;
  OrchestratorOptions o;
  o.keep_finished_runs = 2;
  std::vector<std::string> finished_seen;
  o.on_transition = [&](const RunTransition& t) {
    if (t.transition->step.empty() && t.transition->to == "completed") finished_seen.push_back(t.run_id);
  };
  Orchestrator orch(EngineDeps{&cluster.clock, &cluster.jobs, nullptr, nullptr, nullptr, nullptr}, o);
  for (const auto& d : Process::documents()) ASSERT_TRUE(orch.add_pipeline(d).has_value());
  ASSERT_TRUE(orch.run_virtual(cluster.clock, at("2026-01-01T06:10:00Z")).has_value());
  // Six hourly runs, 40 minutes each: nightly-1..5 finished, nightly-6 is training.
  EXPECT_EQ(finished_seen.size(), 5u);
  std::vector<std::string> kept;
  for (const auto& r : orch.runs()) kept.push_back(r.run_id);
  EXPECT_EQ(kept, (std::vector<std::string>{"nightly-4", "nightly-5", "nightly-6"}));
  EXPECT_EQ(orch.engine("nightly-1"), nullptr);
  ASSERT_NE(orch.engine("nightly-6"), nullptr);
  EXPECT_FALSE(orch.engine("nightly-6")->done());
  EXPECT_EQ(orch.active_runs(), 1u);

  // The kept runs still report their transitions under the right ids after the move.
  ASSERT_TRUE(orch.run_virtual(cluster.clock, at("2026-01-01T06:50:00Z")).has_value());
  EXPECT_EQ(finished_seen.back(), "nightly-6");
  kept.clear();
  for (const auto& r : orch.runs()) kept.push_back(r.run_id);
  EXPECT_EQ(kept, (std::vector<std::string>{"nightly-5", "nightly-6"}));
  EXPECT_EQ(orch.find_run("nightly-6")->status, PipelineStatus::Completed);

  Value saved = orch.checkpoint();
  EXPECT_EQ(saved.find("runs")->as_list().size(), 2u);
  Process next(cluster);
  ASSERT_TRUE(next.orch->restore(saved).has_value());
  ASSERT_TRUE(next.orch->run_virtual(cluster.clock, at("2026-01-01T07:05:00Z")).has_value());
  EXPECT_EQ(next.orch->runs().back().run_id, "nightly-7");
}

TEST(OrchestratorCheckpointTest, BadCheckpointsNameTheFieldAndChangeNothing) {
  Cluster cluster;
  Value good;
  {
    Process first(cluster);
    ASSERT_TRUE(first.orch->start_run("manual").has_value());
    good = first.orch->checkpoint();
  }
  auto broken = [&](const std::string& pointer_key, const Value& value) {
    Value v = good;
    if (pointer_key == "version") {
      v.mutable_map().set("version", value);
    } else if (pointer_key == "status") {
      v.mutable_map()["runs"].mutable_list()[0].mutable_map().set("status", value);
    } else if (pointer_key == "runs_started") {
      v.mutable_map()["pipelines"].mutable_map()["manual"].mutable_map().set("runs_started", value);
    } else if (pointer_key == "state") {
      v.mutable_map()["runs"].mutable_list()[0].mutable_map().set("state", value);
    }
    return v;
  };
  struct Case {
    Value checkpoint;
    std::string field;
    core::ErrorCode code = core::ErrorCode::Invalid;
  };
  Value unknown = good;
  unknown.mutable_map()["pipelines"].mutable_map().set("ghost", Value(core::Map{}));
  std::vector<Case> cases = {
      {broken("version", Value(2)), "checkpoint.version"},
      {broken("status", Value("sleeping")), "checkpoint.runs[0].status"},
      {broken("runs_started", Value(-1)), "checkpoint.pipelines.manual.runs_started"},
      {broken("runs_started", Value(0)), "checkpoint.pipelines.manual.runs_started"},  // manual-1 exists
      {broken("state", Value::map({{"steps", "none"}})), "checkpoint.runs[0].state"},
      {unknown, "checkpoint.pipelines.ghost", core::ErrorCode::NotFound},
      {Value("nope"), "checkpoint"},
  };
  for (const auto& c : cases) {
    Process p(cluster);
    auto st = p.orch->restore(c.checkpoint);
    ASSERT_FALSE(st.has_value()) << c.field;
    EXPECT_EQ(st.error().code, c.code) << c.field << ": " << st.error().describe();
    EXPECT_EQ(st.error().field.substr(0, c.field.size()), c.field) << st.error().describe();
    EXPECT_TRUE(p.orch->runs().empty()) << c.field;  // nothing applied
    auto id = p.orch->start_run("manual");
    ASSERT_TRUE(id.has_value());
    EXPECT_EQ(*id, "manual-1") << c.field;  // counters untouched
  }
  Process twice(cluster);
  ASSERT_TRUE(twice.orch->restore(good).has_value());
  auto again = twice.orch->restore(good);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, core::ErrorCode::Conflict);
}

}  // namespace
}  // namespace budcore::pipeline
