// Sinks that wrap the caller's sink (rehearse()'s observer, the Orchestrator's shared sink) pass
// the engine's change list on, so a journaling sink behind them stays O(changed steps).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/orchestrator.hpp"
#include "budcore/pipeline/rehearsal.hpp"
#include "budcore/pipeline/simulation.hpp"

namespace budcore::pipeline {
namespace {

struct ChangeCountingSink final : StateSink {
  std::vector<std::size_t> changed_per_save;
  int plain_saves = 0;
  core::Status save(const Transition&, const RunState&) override {
    ++plain_saves;
    return {};
  }
  core::Status save_changes(const Transition&, const RunState&, std::span<const std::size_t> changed) override {
    changed_per_save.push_back(changed.size());
    return {};
  }
};

core::Value chain(int n, const std::string& id) {
  std::string json = R"({"pipeline": {"id": ")" + id + R"("}, "steps": [)";
  for (int i = 0; i < n; ++i) {
    if (i) json += ',';
    json += R"({"id": "s)" + std::to_string(i) + R"(", "step_type": "TRANSFORM", "config": {"outputs": {"i": )" +
            std::to_string(i) + "}}";
    if (i) json += R"(, "depends_on": ["s)" + std::to_string(i - 1) + "\"]";
    json += '}';
  }
  return core::parse_json(json + "]}").value();
}

void expect_incremental(const ChangeCountingSink& sink, std::size_t steps) {
  EXPECT_EQ(sink.plain_saves, 0);
  ASSERT_GT(sink.changed_per_save.size(), steps);
  EXPECT_EQ(sink.changed_per_save.front(), steps);  // the first save carries every record
  for (std::size_t i = 1; i < sink.changed_per_save.size(); ++i) EXPECT_LE(sink.changed_per_save[i], 1u) << i;
}

TEST(SinkForwardingTest, RehearsalPassesChangeListsToItsObserver) {
  ChangeCountingSink sink;
  auto result = rehearse(chain(40, "p"), RehearsalOptions{}, nullptr, &sink);
  ASSERT_TRUE(result) << result.error().describe();
  EXPECT_EQ(result->status, PipelineStatus::Completed);
  expect_incremental(sink, 40);
}

TEST(SinkForwardingTest, OrchestratorPassesChangeListsToTheSharedSink) {
  core::VirtualClock clock;
  SimJobRunner jobs(clock);
  SimHttpClient http;
  SimNotifier notifier;
  ChangeCountingSink sink;
  Orchestrator orch(EngineDeps{&clock, &jobs, &http, &notifier, nullptr, &sink});
  ASSERT_TRUE(orch.add_pipeline(chain(40, "p")));
  auto run = orch.start_run("p");
  ASSERT_TRUE(run) << run.error().describe();
  ASSERT_TRUE(orch.run_virtual(clock, clock.now() + core::Duration::seconds(60)));
  EXPECT_EQ(orch.find_run(*run)->status, PipelineStatus::Completed);
  expect_incremental(sink, 40);
}

}  // namespace
}  // namespace budcore::pipeline
