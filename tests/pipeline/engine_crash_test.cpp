// Crash safety: the RAG example is crashed right after the sink saved each transition (before
// the engine acted on it), a new engine resumes from that saved state, and the result must
// equal an uncrashed run: no completed step repeated, no output lost, no duplicate job.
#include <fstream>
#include <set>
#include <sstream>

#include "pipeline/engine_fixture.hpp"

namespace budcore::pipeline {
namespace {

using testing::Harness;

core::Value rag_document() {
  std::ifstream in(std::string(BUDCORE_SOURCE_DIR) + "/tests/pipeline/data/rag.json");
  std::stringstream ss;
  ss << in.rdbuf();
  core::Value d = testing::doc(ss.str());
  // Timers too: step-3 fails once and retries after a backoff; JOBs take time.
  auto& steps = d.mutable_map()["steps"].mutable_list();
  steps[2].mutable_map().set("retry", core::Value::map({{"limit", 2}, {"backoff", core::Value::map({{"base_seconds", 30}})}}));
  for (std::size_t i : {1u, 2u, 3u, 5u, 6u}) {
    steps[i].mutable_map()["config"].mutable_map().set("estimated_duration_seconds", static_cast<int>(100 * (i + 1)));
  }
  return d;
}

// Saves every transition; at transition `crash_at` it saves and then reports a crash.
struct CrashSink final : StateSink {
  std::int64_t crash_at = -1;
  std::int64_t seen = 0;
  core::Value saved;
  std::vector<Transition> transitions;
  core::Status save(const Transition& t, const RunState& state) override {
    ++seen;
    saved = state.to_value();
    transitions.push_back(t);
    if (seen == crash_at) return core::Error::make(core::ErrorCode::Io, "crash");
    return {};
  }
};

struct World {
  core::VirtualClock clock;
  SimJobOptions options;
  std::unique_ptr<SimJobRunner> jobs;
  testing::FakeHttp http;
  testing::FakeNotifier notifier;
  FunctionRegistry functions;
  World() {
    options.faults["step-3"].fail_attempts = 1;
    jobs = std::make_unique<SimJobRunner>(clock, options);
    http.script = {{200, {}, R"({"config": {"tensor_parallel": 2}})"}};
  }
  EngineDeps deps(StateSink* sink) { return EngineDeps{&clock, jobs.get(), &http, &notifier, &functions, sink}; }
};

struct Outcome {
  std::map<std::string, std::string> states;
  std::map<std::string, std::string> outputs;
  PipelineStatus status{};
};

Outcome outcome_of(const Engine& e) {
  Outcome o;
  o.status = e.status();
  for (const auto& s : e.state().steps) {
    o.states[s.id] = std::string(to_string(s.state));
    o.outputs[s.id] = core::to_json(s.outputs);
  }
  return o;
}

TEST(EngineCrashTest, ResumesFromEveryTransitionOfTheRagPipeline) {
  const core::Value document = rag_document();
  World ref;
  CrashSink ref_sink;
  auto ref_engine = Engine::create(document, ref.deps(&ref_sink));
  ASSERT_TRUE(ref_engine.has_value()) << ref_engine.error().describe();
  ASSERT_EQ(*ref_engine->run_virtual(ref.clock), PipelineStatus::Completed);
  const Outcome expected = outcome_of(*ref_engine);
  const auto total = static_cast<std::int64_t>(ref_sink.transitions.size());
  ASSERT_GT(total, 20);
  EXPECT_EQ(expected.states.at("step-6"), "succeeded");
  EXPECT_NE(expected.outputs.at("step-7").find("step-7"), std::string::npos);
  EXPECT_EQ(ref.jobs->submissions(), 6u);  // 5 JOB steps + step-3's retry
  EXPECT_EQ(ref.http.requests.size(), 1u);
  EXPECT_EQ(ref.notifier.sent.size(), 1u);

  for (std::int64_t k = 1; k <= total; ++k) {
    SCOPED_TRACE("crash at transition " + std::to_string(k));
    World w;
    CrashSink first;
    first.crash_at = k;
    auto e1 = Engine::create(document, w.deps(&first));
    ASSERT_TRUE(e1.has_value());
    auto r1 = e1->run_virtual(w.clock);
    ASSERT_FALSE(r1.has_value());  // the crash halts the engine
    EXPECT_TRUE(e1->halted());
    EXPECT_FALSE(e1->pump().has_value());
    auto crashed = RunState::from_value(first.saved);
    ASSERT_TRUE(crashed.has_value()) << crashed.error().describe();
    // Round-trip through JSON text, as a store would.
    auto reparsed = core::parse_json(crashed->to_json());
    ASSERT_TRUE(reparsed.has_value());
    std::set<std::string> done_before;
    for (const auto& s : crashed->steps)
      if (s.state == StepState::Succeeded) done_before.insert(s.id);
    std::size_t http_before = w.http.requests.size();
    std::size_t notes_before = w.notifier.sent.size();

    CrashSink second;
    auto e2 = Engine::restore(document, w.deps(&second), *reparsed);
    ASSERT_TRUE(e2.has_value()) << e2.error().describe();
    auto r2 = e2->run_virtual(w.clock);
    ASSERT_TRUE(r2.has_value()) << r2.error().describe();
    const Outcome got = outcome_of(*e2);
    EXPECT_EQ(got.status, expected.status);
    EXPECT_EQ(got.states, expected.states);
    EXPECT_EQ(got.outputs, expected.outputs);
    EXPECT_EQ(w.jobs->submissions(), 6u);  // resubmits find the existing job
    // A step that had succeeded before the crash never runs again.
    for (const auto& t : second.transitions) {
      if (!t.step.empty() && t.to == "running") EXPECT_EQ(done_before.count(t.step), 0u) << t.step;
    }
    if (done_before.count("step-1")) EXPECT_EQ(w.http.requests.size(), http_before);
    if (done_before.count("step-8")) EXPECT_EQ(w.notifier.sent.size(), notes_before);
    EXPECT_LE(w.http.requests.size(), 2u);
    EXPECT_EQ(w.clock.now(), ref.clock.now());  // same virtual end time
  }
}

TEST(EngineCrashTest, RejectsAStateThatDoesNotMatchTheDocument) {
  World w;
  auto e = Engine::create(rag_document(), w.deps(nullptr));
  ASSERT_TRUE(e.has_value());
  core::Value st = e->state().to_value();
  st.mutable_map()["steps"].mutable_list()[0].mutable_map().set("id", "other");
  auto bad = Engine::restore(rag_document(), w.deps(nullptr), st);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().field, "steps[0].id");
  st = e->state().to_value();
  st.mutable_map().set("version", 9);
  EXPECT_FALSE(Engine::restore(rag_document(), w.deps(nullptr), st).has_value());
  EXPECT_FALSE(RunState::from_json("{").has_value());
}

TEST(EngineCrashTest, RunStateRoundTripsThroughJson) {
  World w;
  CrashSink sink;
  auto e = Engine::create(rag_document(), w.deps(&sink));
  ASSERT_TRUE(e.has_value());
  ASSERT_TRUE(e->run_virtual(w.clock).has_value());
  auto again = RunState::from_json(e->state().to_json());
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->to_json(), e->state().to_json());
  EXPECT_EQ(again->find("step-3")->attempts, 2);
}

}  // namespace
}  // namespace budcore::pipeline
