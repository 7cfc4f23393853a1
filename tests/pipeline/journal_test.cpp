// JournalSink / load_journal: the state rebuilt from the journal equals the engine's state at
// every transition (with and without compaction), a crash at any transition resumes through
// the journal to the same end without repeating work, torn tails are ignored, corruption is
// reported by line, and the engine hands the sink only the step records that changed.
#include "budcore/pipeline/journal.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "pipeline/engine_fixture.hpp"

namespace budcore::pipeline {
namespace {

namespace fs = std::filesystem;
using core::Value;

// Every step type, a LOOP with retried iterations, a retried FUNCTION, an approval gate, a
// CONDITION with an untaken branch, a PARALLEL group, WAIT for a duration and for an event,
// hooks, and compensations: `deploy` fails its first attempt, so the first run ends failed and
// compensates; retry_from_failed then completes it.
constexpr const char* kSample = R"({
  "pipeline": {"parameters": {"big": true},
    "on_failure": [{"step_type": "NOTIFICATION", "config": {"channel": "slack", "recipients": ["#ops"], "message": "failed: {{ pipeline.failure_reason }}"}}],
    "finally": [{"id": "cleanup", "step_type": "TRANSFORM", "config": {"outputs": {"s": "{{ pipeline.status }}"}}}]},
  "steps": [
    {"id": "cfg", "step_type": "API_CALL", "config": {"url": "http://sim/cfg", "method": "GET"}},
    {"id": "prep", "step_type": "FUNCTION", "retry": {"limit": 2, "backoff": {"base_seconds": 5}}, "config": {"function": "count"},
     "compensation": {"step_type": "TRANSFORM", "config": {"outputs": {"undo": "prep"}}}},
    {"id": "check", "step_type": "CONDITION", "config": {"expression": "{{ params.big }}", "then_steps": ["big"], "else_steps": ["small"]}},
    {"id": "big", "step_type": "JOB", "depends_on": ["check"], "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 100},
     "compensation": {"step_type": "TRANSFORM", "config": {"outputs": {"undo": "big"}}}},
    {"id": "small", "step_type": "TRANSFORM", "depends_on": ["check"], "config": {"outputs": {}}},
    {"id": "gate", "step_type": "TRANSFORM", "approval": true, "depends_on": ["prep"], "config": {"outputs": {"by": "gate"}}},
    {"id": "fan", "step_type": "PARALLEL", "config": {"steps": ["m1", "m2"]}},
    {"id": "m1", "step_type": "JOB", "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 50}},
    {"id": "m2", "step_type": "WAIT", "config": {"duration_seconds": 30}},
    {"id": "ev", "step_type": "WAIT", "depends_on": ["gate"], "config": {"wait_for_event": "go", "timeout_seconds": 600}},
    {"id": "loop", "step_type": "LOOP", "depends_on": ["gate"], "config": {"items": "{{ [1, 2, 3] }}", "max_concurrency": 2,
     "body": {"step_type": "JOB", "retry": 1, "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": "{{ item * 10 }}"}}}},
    {"id": "notify", "step_type": "NOTIFICATION", "depends_on": ["loop", "fan", "big", "ev"],
     "config": {"channel": "slack", "recipients": ["#ops"], "message": "{{ steps.loop.outputs.succeeded }} iterations"}},
    {"id": "deploy", "step_type": "JOB", "depends_on": ["notify", "cfg"], "config": {"job_type": "SERVICE", "deployment_type": "HELM", "estimated_duration_seconds": 20}}
  ]})";

Value sample() { return testing::doc(kSample); }
std::string js(const Value& v) { return core::to_json(v); }
std::string js(const core::Result<Value>& v) { return v ? core::to_json(*v) : "error: " + v.error().describe(); }
// The fields and step records where two RunState values differ, for readable failures.
std::string diff(const Value& a, const Value& b) {
  std::string out;
  for (const auto& [k, v] : a.as_map()) {
    const Value* w = b.find(k);
    if (k == "steps" && w && w->is_list() && v.as_list().size() == w->as_list().size()) {
      for (std::size_t i = 0; i < v.as_list().size(); ++i) {
        if (v.as_list()[i] != w->as_list()[i]) out += "\n  " + js(v.as_list()[i]) + "\n  " + js(w->as_list()[i]);
      }
    } else if (!w || *w != v) {
      out += "\n  " + k + ": " + js(v) + " vs " + (w ? js(*w) : "-");
    }
  }
  return out;
}
// Hooks and compensations rerun after retry_from_failed; main steps and iterations never do.
bool is_main(const std::string& id) { return id.find('.') == std::string::npos && id != "cleanup" && id.rfind("on_failure", 0) != 0; }

// A scratch directory per test.
struct TempDir {
  fs::path dir;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() /
          ("budcore_journal_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() { fs::remove_all(dir); }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

// The executors of one "machine": they outlive a crashed engine, as a real cluster would.
struct World {
  core::VirtualClock clock;
  SimJobOptions sim;
  std::unique_ptr<SimJobRunner> jobs;
  testing::FakeHttp http;
  testing::FakeNotifier notifier;
  FunctionRegistry functions;
  int calls = 0;
  EngineOptions options;
  World() {
    sim.faults["deploy"].fail_attempts = 1;  // the first run fails here, its retry succeeds
    sim.faults["loop"].fail_attempts = 1;    // every iteration fails once and retries
    jobs = std::make_unique<SimJobRunner>(clock, sim);
    http.script = {{200, {}, R"({"replicas": 2})"}};
    options.faults["prep"].fail_attempts = 1;  // the FUNCTION fails once and retries
    (void)functions.add("count", [this](const Value&, const FunctionCall&) -> core::Result<Value> {
      ++calls;
      return Value::map({{"n", 7}});
    });
  }
  EngineDeps deps(StateSink* sink) { return EngineDeps{&clock, jobs.get(), &http, &notifier, &functions, sink}; }
};

// What an operator does when the run waits only for them: send the event `ev` waits for (it is
// remembered until ev starts), then approve the gates. Returns whether it did anything.
core::Result<bool> operate(Engine& e) {
  std::vector<std::string> awaiting;
  for (const auto& s : e.state().steps) {
    if (s.state == StepState::AwaitingApproval) awaiting.push_back(s.id);
  }
  if (awaiting.empty()) return false;
  if (!e.state().events.find("go")) BUDCORE_TRY(e.signal("go", Value::map({{"from", "test"}})));
  for (const auto& id : awaiting) BUDCORE_TRY(e.approve(id, "alice"));
  return true;
}

// Drives a run to its end: run the virtual clock, operate when it waits, and retry the run once
// if it fails. Stops at the first error (a crash). A resumed engine is driven the same way, so
// it sees the operator at the same virtual times.
core::Status drive(Engine& e, core::VirtualClock& clock) {
  for (int round = 0; round < 20; ++round) {
    BUDCORE_TRY(e.run_virtual(clock));
    if (e.done()) {
      if (e.status() != PipelineStatus::Failed) return {};
      BUDCORE_TRY(e.retry_from_failed());
      continue;
    }
    BUDCORE_TRY_ASSIGN(bool acted, operate(e));
    if (!acted) return core::Error::make(core::ErrorCode::Internal, "the run is stuck");
  }
  return core::Error::make(core::ErrorCode::Internal, "too many rounds");
}

// Forwards to a JournalSink, then checks that the journal on disk rebuilds exactly the state
// the engine handed over; optionally reports a crash after transition `crash_at` was saved.
struct CheckedJournal final : StateSink {
  JournalSink journal;
  std::int64_t crash_at = -1;
  std::int64_t seen = 0;
  std::int64_t mismatches = 0;
  bool verify_each = true;  // rebuild from the file at every transition (O(journal) each)
  std::vector<std::size_t> changed_counts;
  std::vector<Transition> transitions;
  Value last_saved;
  explicit CheckedJournal(std::string path, JournalOptions o = fast()) : journal(std::move(path), o) {}
  static JournalOptions fast() {
    JournalOptions o;
    o.fsync = false;
    return o;
  }
  core::Status save(const Transition&, const RunState&) override {
    ADD_FAILURE() << "the engine must call save_changes";
    return core::Error::make(core::ErrorCode::Internal, "save called");
  }
  core::Status save_changes(const Transition& t, const RunState& state, std::span<const std::size_t> changed) override {
    ++seen;
    transitions.push_back(t);
    changed_counts.push_back(changed.size());
    BUDCORE_TRY(journal.save_changes(t, state, changed));
    if (verify_each || crash_at >= 0) last_saved = state.to_value();  // O(steps): only when checked
    auto rebuilt = verify_each ? load_journal(journal.path()) : core::Result<Value>(last_saved);
    EXPECT_TRUE(rebuilt.has_value()) << (rebuilt ? "" : rebuilt.error().describe());
    if (!rebuilt || *rebuilt != last_saved) {
      ++mismatches;
      ADD_FAILURE() << "journal differs from the state at transition " << t.seq << " (" << t.step << ": " << t.from
                    << " -> " << t.to << ")\njournal: " << (rebuilt ? core::to_json(*rebuilt) : "-")
                    << "\nstate:   " << core::to_json(last_saved);
    }
    if (seen == crash_at) return core::Error::make(core::ErrorCode::Io, "crash");
    return {};
  }
};

std::size_t count_transitions_to(const std::vector<Transition>& ts, std::string_view to, std::string_view step_part) {
  std::size_t n = 0;
  for (const auto& t : ts) n += t.to == to && t.step.find(step_part) != std::string::npos;
  return n;
}

TEST(JournalTest, SampleRunCoversEveryFeatureAndTheJournalMatchesAtEveryTransition) {
  TempDir tmp;
  World w;
  CheckedJournal sink(tmp.file("run.journal"));
  auto e = Engine::create(sample(), w.deps(&sink), w.options);
  ASSERT_TRUE(e.has_value()) << e.error().describe();
  auto st = drive(*e, w.clock);
  ASSERT_TRUE(st.has_value()) << st.error().describe();
  EXPECT_EQ(e->status(), PipelineStatus::Completed);
  EXPECT_EQ(sink.mismatches, 0);
  EXPECT_GT(sink.seen, 60);
  // The sample really exercises what it claims to.
  EXPECT_EQ(count_transitions_to(sink.transitions, "succeeded", ".compensation"), 2u);
  EXPECT_GE(count_transitions_to(sink.transitions, "retrying", "loop["), 3u);
  EXPECT_EQ(count_transitions_to(sink.transitions, "retrying", "prep"), 1u);
  EXPECT_EQ(count_transitions_to(sink.transitions, "awaiting_approval", "gate"), 1u);
  EXPECT_EQ(count_transitions_to(sink.transitions, "skipped", "small"), 2u);  // once per run
  EXPECT_EQ(count_transitions_to(sink.transitions, "pending", "deploy"), 1u);  // retry_from_failed
  EXPECT_EQ(e->state().find("loop[2]")->state, StepState::Succeeded);
  EXPECT_EQ(e->state().find("cleanup")->outputs.find("s")->as_string(), "succeeded");
  EXPECT_EQ(w.notifier.sent.size(), 2u);  // notify, the on_failure hook (notify is kept by the retry)
  // The first save lists every record; later ones only a few.
  ASSERT_FALSE(sink.changed_counts.empty());
  EXPECT_EQ(sink.changed_counts.front(), e->state().steps.size() - 3);  // before the LOOP made its iterations
  std::size_t most = 0;
  for (std::size_t i = 1; i < sink.changed_counts.size(); ++i) most = std::max(most, sink.changed_counts[i]);
  EXPECT_LE(most, 8u);
  // One snapshot, then records: no compaction at this size with the default thresholds.
  EXPECT_EQ(sink.journal.snapshots_written(), 1);
  EXPECT_EQ(static_cast<std::int64_t>(lines_of(read_text(sink.journal.path())).size()), sink.seen);
}

TEST(JournalTest, CompactionIsTransparent) {
  TempDir tmp;
  World w;
  JournalOptions o = CheckedJournal::fast();
  o.compact_min_bytes = 0;
  o.compact_ratio = 0.5;  // compact often
  CheckedJournal sink(tmp.file("run.journal"), o);
  auto e = Engine::create(sample(), w.deps(&sink), w.options);
  ASSERT_TRUE(e.has_value());
  ASSERT_TRUE(drive(*e, w.clock).has_value());
  EXPECT_EQ(e->status(), PipelineStatus::Completed);
  EXPECT_EQ(sink.mismatches, 0);
  EXPECT_GT(sink.journal.snapshots_written(), 5);
  auto lines = lines_of(read_text(sink.journal.path()));
  EXPECT_LT(static_cast<std::int64_t>(lines.size()), sink.seen);
  EXPECT_NE(lines.front().find(R"("kind":"snapshot")"), std::string::npos);
  EXPECT_FALSE(fs::exists(sink.journal.path() + ".tmp"));

  // By record count as well.
  World w2;
  JournalOptions by_count = CheckedJournal::fast();
  by_count.compact_every_records = 4;
  CheckedJournal sink2(tmp.file("count.journal"), by_count);
  auto e2 = Engine::create(sample(), w2.deps(&sink2), w2.options);
  ASSERT_TRUE(e2.has_value());
  ASSERT_TRUE(drive(*e2, w2.clock).has_value());
  EXPECT_EQ(sink2.mismatches, 0);
  EXPECT_EQ(sink2.journal.snapshots_written(), (sink2.seen + 4) / 5);  // a snapshot, then 4 records, ...
  EXPECT_LE(lines_of(read_text(sink2.journal.path())).size(), 5u);
  EXPECT_EQ(js(e2->state().to_value()), js(load_journal(sink2.journal.path())));
}

TEST(JournalTest, CrashAtEveryTransitionResumesThroughTheJournalWithoutRepeatingWork) {
  TempDir tmp;
  const Value document = sample();
  World ref;
  CheckedJournal ref_sink(tmp.file("ref.journal"));
  auto ref_engine = Engine::create(document, ref.deps(&ref_sink), ref.options);
  ASSERT_TRUE(ref_engine.has_value());
  ASSERT_TRUE(drive(*ref_engine, ref.clock).has_value());
  const Value expected = ref_engine->state().to_value();
  const std::size_t ref_jobs = ref.jobs->submissions();
  const std::int64_t total = ref_sink.seen;
  ASSERT_GT(total, 60);

  for (std::int64_t k = 1; k <= total; ++k) {
    SCOPED_TRACE("crash at transition " + std::to_string(k));
    const std::string path = tmp.file("crash.journal");
    World w;
    {
      CheckedJournal first(path);
      first.verify_each = false;  // the other tests check every transition; here the end state
      first.crash_at = k;
      auto e1 = Engine::create(document, w.deps(&first), w.options);
      ASSERT_TRUE(e1.has_value());
      ASSERT_FALSE(drive(*e1, w.clock).has_value());  // the crash halts the engine
      EXPECT_TRUE(e1->halted());
      EXPECT_EQ(js(load_journal(path)), js(first.last_saved));
    }  // the process is gone; only the file remains
    auto saved = load_journal(path);
    ASSERT_TRUE(saved.has_value()) << saved.error().describe();
    auto crashed = RunState::from_value(*saved);
    ASSERT_TRUE(crashed.has_value());
    EXPECT_EQ(crashed->seq, k);
    std::set<std::string> done_before;
    std::size_t running_jobs = 0;
    for (const auto& s : crashed->steps) {
      if (s.state == StepState::Succeeded && is_main(s.id)) done_before.insert(s.id);
      if (s.state == StepState::Running && (s.id == "big" || s.id == "m1" || s.id == "deploy" || s.id.rfind("loop[", 0) == 0)) {
        ++running_jobs;
      }
    }
    std::size_t jobs_before = w.jobs->submissions();

    CheckedJournal second(path);
    second.verify_each = false;
    auto e2 = Engine::restore(document, w.deps(&second), *saved, w.options);
    ASSERT_TRUE(e2.has_value()) << e2.error().describe();
    auto st = drive(*e2, w.clock);
    ASSERT_TRUE(st.has_value()) << st.error().describe() << " (crashed at " << js(ref_sink.transitions[static_cast<std::size_t>(k - 1)].to_value())
                                << ")\nresumed: " << js(e2->state().to_value());
    EXPECT_EQ(second.mismatches, 0);
    // The same end state. Only the transition counter may be lower: a crash inside a batch of
    // transitions whose state was saved whole up front (retry_from_failed's resets) skips the
    // rest of that batch's log entries, not their effects.
    Value got = e2->state().to_value();
    EXPECT_LE(got.find("seq")->as_int(), expected.find("seq")->as_int());
    got.mutable_map().set("seq", *expected.find("seq"));
    EXPECT_TRUE(got == expected) << diff(got, expected);
    EXPECT_EQ(js(load_journal(path)), js(e2->state().to_value()));
    // No JOB ran twice: resubmits of running jobs found them by key.
    EXPECT_EQ(w.jobs->submissions(), ref_jobs);
    EXPECT_LE(w.jobs->duplicate_submits(), running_jobs);
    EXPECT_GE(w.jobs->submissions(), jobs_before);
    // A main step that had succeeded before the crash never starts again.
    for (const auto& t : second.transitions) {
      if (!t.step.empty() && t.to == "running") EXPECT_EQ(done_before.count(t.step), 0u) << t.step;
    }
    EXPECT_EQ(w.clock.now(), ref.clock.now());
  }
}

// The journal of the sample run's first pump, for tests that then damage the file.
struct PumpedJournal {
  TempDir tmp;
  World w;
  CheckedJournal sink{tmp.file("run.journal")};
  std::string path;
  PumpedJournal() {
    auto e = Engine::create(sample(), w.deps(&sink), w.options);
    EXPECT_TRUE(e.has_value());
    if (!e) return;
    EXPECT_TRUE(e->start().has_value());
    EXPECT_TRUE(e->pump().has_value());
    path = sink.journal.path();
  }
};

TEST(JournalTest, TornLastLineIsIgnored) {
  PumpedJournal pumped;
  auto& sink = pumped.sink;
  const std::string path = pumped.path;
  ASSERT_FALSE(path.empty());
  const std::string whole = read_text(path);
  auto lines = lines_of(whole);
  ASSERT_GE(lines.size(), 3u);
  // Cut the last record anywhere short of its newline: the state is the one before it.
  const Value before_last = [&] {
    std::string upto;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) upto += lines[i] + "\n";
    write_text(path, upto);
    return *load_journal(path);
  }();
  EXPECT_EQ(RunState::from_value(before_last)->seq, sink.seen - 1);
  for (std::size_t cut : {std::size_t{1}, lines.back().size() / 2, lines.back().size()}) {
    write_text(path, whole.substr(0, whole.size() - 1 - lines.back().size() + cut));
    auto got = load_journal(path);
    ASSERT_TRUE(got.has_value()) << got.error().describe();
    EXPECT_EQ(js(*got), js(before_last)) << "cut at " << cut;
  }
  write_text(path, whole);
  EXPECT_EQ(js(load_journal(path)), js(sink.last_saved));
  // A torn first line means no complete snapshot.
  write_text(path, lines.front().substr(0, 40));
  auto none = load_journal(path);
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.error().message.find("no complete snapshot"), std::string::npos);
}

TEST(JournalTest, CorruptionIsAnErrorNamingTheFileAndLine) {
  PumpedJournal pumped;
  auto& sink = pumped.sink;
  const std::string path = pumped.path;
  ASSERT_FALSE(path.empty());
  const auto lines = lines_of(read_text(path));
  ASSERT_GE(lines.size(), 5u);
  auto with_line = [&](std::size_t i, const std::string& replacement) {
    std::string text;
    for (std::size_t j = 0; j < lines.size(); ++j) {
      if (j != i) text += lines[j] + "\n";
      else if (replacement != "<drop>") text += replacement + "\n";
    }
    write_text(path, text);
    return load_journal(path);
  };
  auto expect_error = [&](const core::Result<Value>& r, std::size_t line, const std::string& why) {
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, core::ErrorCode::Invalid);
    EXPECT_EQ(r.error().field, "line " + std::to_string(line));
    EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("line " + std::to_string(line) + ":"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
  };
  expect_error(with_line(2, lines[2].substr(0, lines[2].size() / 2)), 3, "not valid JSON");
  expect_error(with_line(2, "<drop>"), 3, "out of sequence");       // a lost record
  expect_error(with_line(1, lines[0]), 2, "expected a record");    // a snapshot in the middle
  expect_error(with_line(0, lines[1]), 1, "the first line must be a snapshot");
  std::string bad_state = lines[3];
  auto pos = bad_state.find(R"("state":")");
  ASSERT_NE(pos, std::string::npos);
  bad_state.replace(pos, 9, R"("state":"exploded-)");
  expect_error(with_line(3, bad_state), 4, "state");
  std::string bad_snapshot = lines[0];
  pos = bad_snapshot.find(R"("journal":1)");
  ASSERT_NE(pos, std::string::npos);
  expect_error(with_line(0, bad_snapshot.replace(pos, 11, R"("journal":7)")), 1, "unsupported journal format");
  // A corrupt last line that is complete (newline-terminated) is corruption, not a torn write.
  expect_error(with_line(lines.size() - 1, "{\"kind\": \"record\""), lines.size(), "not valid JSON");

  auto missing = load_journal(pumped.tmp.file("nope.journal"));
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, core::ErrorCode::Io);
  EXPECT_NE(missing.error().message.find("nope.journal"), std::string::npos);
  write_text(path, "");
  EXPECT_FALSE(load_journal(path).has_value());
}

TEST(JournalTest, RetryFromFailedAfterRestoreKeepsSucceededStepsAndTheJournalExact) {
  TempDir tmp;
  World w;
  const std::string path = tmp.file("run.journal");
  {
    CheckedJournal sink(path);
    auto e = Engine::create(sample(), w.deps(&sink), w.options);
    ASSERT_TRUE(e.has_value());
    for (int i = 0; i < 10 && !e->done(); ++i) {
      ASSERT_TRUE(e->run_virtual(w.clock).has_value());
      ASSERT_TRUE(operate(*e).has_value());
    }
    ASSERT_EQ(e->status(), PipelineStatus::Failed);
  }
  auto saved = load_journal(path);
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(RunState::from_value(*saved)->status, PipelineStatus::Failed);
  std::size_t jobs_before = w.jobs->submissions();
  int calls_before = w.calls;

  CheckedJournal sink(path);
  auto e = Engine::restore(sample(), w.deps(&sink), *saved, w.options);
  ASSERT_TRUE(e.has_value()) << e.error().describe();
  ASSERT_TRUE(e->retry_from_failed().has_value());
  ASSERT_TRUE(e->run_virtual(w.clock).has_value());
  EXPECT_EQ(e->status(), PipelineStatus::Completed);
  EXPECT_EQ(sink.mismatches, 0);
  EXPECT_EQ(js(load_journal(path)), js(e->state().to_value()));
  for (const auto& t : sink.transitions) {
    if (t.to == "running" && !t.step.empty()) EXPECT_TRUE(t.step == "deploy" || t.step == "cleanup") << t.step;
  }
  EXPECT_EQ(e->state().find("deploy")->attempts, 2);
  EXPECT_EQ(e->state().find("deploy")->attempt_base, 1);
  EXPECT_EQ(w.calls, calls_before);                   // the FUNCTION did not run again
  EXPECT_EQ(w.jobs->submissions(), jobs_before + 1);  // only deploy's new attempt
  EXPECT_EQ(sink.journal.snapshots_written(), 1);     // the new sink started with a snapshot
}

TEST(JournalTest, EngineListsOnlyChangedStepsSoSavesStayFlat) {
  // A 300-step chain: after the first save, no save lists more than a couple of records.
  std::string json = R"({"steps": [)";
  for (int i = 0; i < 300; ++i) {
    if (i) json += ',';
    json += R"({"id": "s)" + std::to_string(i) + R"(", "step_type": "TRANSFORM", "depends_on": [)" +
            (i ? "\"s" + std::to_string(i - 1) + "\"" : std::string()) + R"(], "config": {"outputs": {"i": )" +
            std::to_string(i) + "}}}";
  }
  json += "]}";
  TempDir tmp;
  World w;
  CheckedJournal sink(tmp.file("chain.journal"));
  sink.verify_each = false;
  auto e = Engine::create(testing::doc(json), w.deps(&sink));
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(*e->run_virtual(w.clock), PipelineStatus::Completed);
  EXPECT_EQ(js(load_journal(sink.journal.path())), js(e->state().to_value()));
  ASSERT_EQ(sink.changed_counts.size(), 603u);  // start, 2 per step, main -> finally -> done
  EXPECT_EQ(sink.changed_counts[0], 300u);
  for (std::size_t i = 1; i < sink.changed_counts.size(); ++i) EXPECT_LE(sink.changed_counts[i], 1u) << i;
}

TEST(JournalTest, PlainSaveWritesSnapshotsAndDefaultOptionsSync) {
  TempDir tmp;
  JournalOptions defaults;
  EXPECT_TRUE(defaults.fsync);
  World w;
  JournalSink journal(tmp.file("plain.journal"));  // default options: fsync on
  // An engine whose sink forwards only save(): every save is a whole snapshot.
  struct SaveOnly final : StateSink {
    JournalSink* inner;
    explicit SaveOnly(JournalSink* j) : inner(j) {}
    core::Status save(const Transition& t, const RunState& s) override { return inner->save(t, s); }
  } forward(&journal);
  auto e = Engine::create(testing::doc(R"({"steps": [{"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {"x": 1}}},
      {"id": "b", "step_type": "JOB", "depends_on": ["a"], "config": {"job_type": "BATCH", "deployment_type": "DOCKER"}}]})"),
                          w.deps(&forward));
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(*e->run_virtual(w.clock), PipelineStatus::Completed);
  EXPECT_EQ(journal.snapshots_written(), e->state().seq);
  EXPECT_EQ(lines_of(read_text(journal.path())).size(), 1u);
  EXPECT_EQ(js(load_journal(journal.path())), js(e->state().to_value()));

  // A journal in a directory that does not exist: the save fails and halts the engine.
  World w2;
  JournalSink nowhere(tmp.file("missing-dir/run.journal"));
  auto e2 = Engine::create(testing::doc(R"({"steps": [{"id": "a", "step_type": "TRANSFORM", "config": {"outputs": {}}}]})"), w2.deps(&nowhere));
  ASSERT_TRUE(e2.has_value()) << e2.error().describe();
  auto r = e2->run_virtual(w2.clock);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, core::ErrorCode::Io);
  EXPECT_NE(r.error().message.find("missing-dir/run.journal.tmp"), std::string::npos) << r.error().message;
  EXPECT_TRUE(e2->halted());
}

}  // namespace
}  // namespace budcore::pipeline
