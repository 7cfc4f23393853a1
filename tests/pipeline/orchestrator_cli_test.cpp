// `budcore pipeline schedule` as a process: registers documents, fires cron/event/completion
// triggers on a virtual clock and prints JSON lines (firings, events, transitions, summary).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::test::detail::quote;

struct Lines {
  int status = -1;
  std::vector<nlohmann::json> lines;
  std::vector<nlohmann::json> of(const std::string& kind) const {
    std::vector<nlohmann::json> out;
    for (const auto& l : lines)
      if (l["kind"] == kind) out.push_back(l);
    return out;
  }
};

class ScheduleCliTest : public budcore::test::detail::CliFixture {
 protected:
  ScheduleCliTest() : CliFixture("budcore_schedule_") {}

  std::string write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return quote(p.string());
  }
  static Lines run(const std::string& args) {
    auto raw = budcore::test::detail::run_cli("pipeline schedule " + args);
    Lines r;
    r.status = raw.exit_code;
    std::istringstream in(raw.out);
    for (std::string line; std::getline(in, line);) r.lines.push_back(nlohmann::json::parse(line));
    return r;
  }
  std::string files() {
    return write("nightly.yaml", R"(pipeline:
  id: nightly
  trigger_type: SCHEDULED
  cron_expression: "0 */6 * * *"
  concurrency_policy: Forbid
steps:
  - id: train
    step_type: JOB
    config: {job_type: BATCH, deployment_type: DOCKER, estimated_duration_seconds: 3600}
)") + " " + write("eval.json", R"({"pipeline": {"id": "eval", "trigger_type": "PIPELINE",
      "triggered_by_pipeline_id": "nightly", "trigger_parameters": {"url": "{{ pipeline.outputs.train.url }}"}},
      "steps": [{"id": "e", "step_type": "TRANSFORM", "config": {"outputs": {"u": "{{ params.url }}"}}}]})") +
           " " + write("deploy.json", R"({"pipeline": {"id": "deploy", "trigger_type": "EVENT",
      "event_config": {"event": "model.*", "parameters": {"model": "{{ event.payload.name }}"}}},
      "steps": [{"id": "d", "step_type": "TRANSFORM", "config": {"outputs": {"m": "{{ params.model }}"}}}]})");
  }
};

TEST_F(ScheduleCliTest, FiresCronCompletionAndEventTriggers) {
  std::string args = files() + " --until 12h30m --event 'model.uploaded={\"name\": \"llama\"}@2h30m' --run nightly@1h";
  Lines r = run(args);
  ASSERT_EQ(r.status, 0);
  auto firings = r.of("firing");
  std::vector<std::string> started;
  for (const auto& f : firings)
    if (f["action"] == "start") started.push_back(f["run_id"].get<std::string>() + "@" + f["time"].get<std::string>());
  EXPECT_EQ(started, (std::vector<std::string>{
                         "nightly-1@2026-01-01T01:00:00Z",  // --run
                         "eval-1@2026-01-01T02:00:00Z",
                         "deploy-1@2026-01-01T02:30:00Z",
                         "nightly-2@2026-01-01T06:00:00Z", "eval-2@2026-01-01T07:00:00Z",
                         "nightly-3@2026-01-01T12:00:00Z"}));
  EXPECT_EQ(r.of("event").size(), 1u);
  auto transitions = r.of("transition");
  ASSERT_FALSE(transitions.empty());
  for (const auto& t : transitions) {
    EXPECT_TRUE(t.contains("run_id") && t.contains("pipeline") && t.contains("time")) << t;
  }
  const auto& summary = r.lines.back();
  EXPECT_EQ(summary["kind"], "summary");
  EXPECT_EQ(summary["runs"].size(), 6u);
  EXPECT_EQ(summary["by_status"]["completed"], 5);
  EXPECT_EQ(summary["by_status"]["running"], 1);  // nightly-3 runs past --until
  EXPECT_EQ(run(args).lines, r.lines);            // deterministic
}

TEST_F(ScheduleCliTest, InvalidInputExitsTwo) {
  std::string f = files();
  EXPECT_EQ(run(f).status, 2);  // --until is required
  EXPECT_EQ(run(f + " --until soon").status, 2);
  EXPECT_EQ(run(f + " --until 1h --event nope").status, 2);
  EXPECT_EQ(run(f + " --until 1h --event 'x={bad@10m'").status, 2);
  EXPECT_EQ(run(f + " --until 1h --event x@2h").status, 2);  // after --until
  EXPECT_EQ(run(f + " --until 1h --run missing@10m").status, 2);
  std::string bad = write("bad.json", R"({"pipeline": {"id": "b", "trigger_type": "EVENT", "event_config": {}},
      "steps": [{"id": "s", "step_type": "TRANSFORM", "config": {"outputs": {}}}]})");
  auto raw = budcore::test::detail::run_cli("pipeline schedule " + bad + " --until 1h", dir_ / "err.txt");
  EXPECT_EQ(raw.exit_code, 2);
  EXPECT_NE(raw.err.find("pipeline.event_config.event"), std::string::npos) << raw.err;
  EXPECT_EQ(run("/nonexistent.json --until 1h").status, 2);
}

}  // namespace
