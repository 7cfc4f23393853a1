// pipeline::rehearse: a whole run on a virtual clock with FUNCTION callables, what-if faults
// and approval answers; the options document shared by the C ABI and Python.
#include "budcore/pipeline/rehearsal.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <filesystem>
#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"

namespace {

namespace fs = std::filesystem;
using budcore::core::ErrorCode;
using budcore::core::Value;
namespace pl = budcore::pipeline;

Value doc(const std::string& json) {
  auto v = budcore::core::parse_json(json);
  EXPECT_TRUE(v.has_value()) << json;
  return v ? *v : Value();
}

// prep (TRANSFORM) -> score (FUNCTION) -> report (TRANSFORM reading score's outputs).
const char* kScored = R"({
  "pipeline": {"id": "p", "name": "scored", "parameters": {"base": 10}},
  "steps": [
    {"id": "prep", "name": "prep", "step_type": "TRANSFORM", "depends_on": [],
     "config": {"outputs": {"n": "{{ params.base }}"}}},
    {"id": "score", "name": "score", "step_type": "FUNCTION", "depends_on": ["prep"], "retry": 1,
     "config": {"function": "score", "args": {"n": "{{ steps.prep.outputs.n }}", "label": "x"}}},
    {"id": "report", "name": "report", "step_type": "TRANSFORM", "depends_on": ["score"],
     "config": {"outputs": {"total": "{{ steps.score.outputs.total }}"}}}
  ]})";

struct Calls {
  std::vector<std::string> steps;
  std::vector<int> attempts;
  std::vector<Value> args;
};

pl::FunctionRegistry scoring(Calls& calls, int fail_first = 0) {
  pl::FunctionRegistry r;
  auto st = r.add("score", [&calls, fail_first](const Value& args, const pl::FunctionCall& call) -> budcore::core::Result<Value> {
    calls.steps.emplace_back(call.step_id);
    calls.attempts.push_back(call.attempt);
    calls.args.push_back(args);
    if (call.attempt <= fail_first) return budcore::core::Error::make(ErrorCode::Invalid, "model not ready");
    return Value::map({{"total", args.find("n")->as_int() * 2}});
  });
  EXPECT_TRUE(st.has_value());
  return r;
}

TEST(Rehearsal, FunctionOutputFeedsDownstreamTransform) {
  Calls calls;
  auto functions = scoring(calls);
  auto r = pl::rehearse(doc(kScored), {}, &functions);
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  EXPECT_EQ(r->status, pl::PipelineStatus::Completed);
  EXPECT_TRUE(r->done);
  ASSERT_EQ(calls.steps, std::vector<std::string>{"score"});
  EXPECT_EQ(calls.attempts, std::vector<int>{1});
  EXPECT_EQ(calls.args[0], Value::map({{"n", 10}, {"label", "x"}}));
  const auto* report = r->state.find("report");
  ASSERT_NE(report, nullptr);
  EXPECT_EQ(report->outputs, Value::map({{"total", 20}}));

  Value v = r->to_value();
  EXPECT_EQ(*v.find_path("steps.score"), Value("succeeded"));
  EXPECT_EQ(*v.find_path("outputs.score.total"), Value(20));
  EXPECT_EQ(*v.find_path("outputs.report.total"), Value(20));
  EXPECT_EQ(v.find("status")->as_string(), "completed");
  ASSERT_TRUE(v.find("transitions")->is_list());
  EXPECT_EQ(v.find("transitions")->size(), r->transitions.size());
  // Transitions are numbered from 1 and carry their offset from the start.
  for (std::size_t i = 0; i < r->transitions.size(); ++i) EXPECT_EQ(r->transitions[i].seq, static_cast<std::int64_t>(i + 1));
  EXPECT_TRUE(v.find("transitions")->as_list().front().find("elapsed_seconds")->is_number());
}

TEST(Rehearsal, ParamsOverrideDocumentParameters) {
  Calls calls;
  auto functions = scoring(calls);
  pl::RehearsalOptions o;
  o.params = Value::map({{"base", 21}});
  auto r = pl::rehearse(doc(kScored), o, &functions);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->state.find("report")->outputs, Value::map({{"total", 42}}));
}

TEST(Rehearsal, FunctionErrorRetriesThenFailsWithItsMessage) {
  Calls calls;
  auto once = scoring(calls, 1);
  auto r = pl::rehearse(doc(kScored), {}, &once);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, pl::PipelineStatus::Completed);  // retry: 1 absorbs one failure
  EXPECT_EQ(calls.attempts, (std::vector<int>{1, 2}));

  Calls always;
  auto broken = scoring(always, INT_MAX);
  r = pl::rehearse(doc(kScored), {}, &broken);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, pl::PipelineStatus::Failed);
  EXPECT_EQ(r->state.find("score")->state, pl::StepState::Failed);
  EXPECT_EQ(r->state.find("score")->message, "model not ready");
  EXPECT_EQ(r->state.find("report")->state, pl::StepState::Omitted);
  EXPECT_NE(r->failure_reason.find("model not ready"), std::string::npos);
  Value v = r->to_value();
  EXPECT_EQ(*v.find_path("messages.score"), Value("model not ready"));
  EXPECT_EQ(v.find("outputs")->find("report"), nullptr);
}

TEST(Rehearsal, WithoutFunctionsAFunctionStepErrors) {
  auto r = pl::rehearse(doc(kScored), {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, pl::PipelineStatus::Failed);
  EXPECT_EQ(r->state.find("score")->state, pl::StepState::Errored);
  EXPECT_NE(r->state.find("score")->message.find("no function registered as 'score'"), std::string::npos);
}

TEST(Rehearsal, InjectedFaultsApplyToInProcessSteps) {
  Calls calls;
  auto functions = scoring(calls);
  pl::RehearsalOptions o;
  o.faults["score"].fail_attempts = 1;  // first attempt fails before the callable runs
  auto r = pl::rehearse(doc(kScored), o, &functions);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, pl::PipelineStatus::Completed);
  EXPECT_EQ(calls.attempts, std::vector<int>{2});

  pl::RehearsalOptions hang;
  hang.faults["score"].hang = true;
  r = pl::rehearse(doc(kScored), hang, &functions);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->done);  // no timeout: nothing ends the hanging step
  EXPECT_EQ(r->status, pl::PipelineStatus::Running);
  EXPECT_EQ(r->state.find("score")->state, pl::StepState::Running);
}

// A JOB, then two approval gates; a FUNCTION after the first gate.
const char* kGates = R"({
  "pipeline": {"id": "g", "name": "gates"},
  "steps": [
    {"id": "train", "name": "train", "step_type": "JOB", "depends_on": [],
     "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 30}},
    {"id": "gate", "name": "gate", "step_type": "TRANSFORM", "depends_on": ["train"], "approval": true,
     "config": {"outputs": {"ok": true}}},
    {"id": "ship", "name": "ship", "step_type": "FUNCTION", "depends_on": ["gate"], "timeout_seconds": 40,
     "config": {"function": "ship"}}
  ]})";

pl::FunctionRegistry shipping() {
  pl::FunctionRegistry r;
  EXPECT_TRUE(r.add("ship", [](const Value&, const pl::FunctionCall&) -> budcore::core::Result<Value> { return Value("done"); }).has_value());
  return r;
}

TEST(Rehearsal, ApprovalGatesAreApprovedUnlessRejected) {
  auto functions = shipping();
  auto r = pl::rehearse(doc(kGates), {}, &functions);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, pl::PipelineStatus::Completed);
  EXPECT_EQ(r->state.find("gate")->approved_by, "rehearsal");
  EXPECT_EQ(r->state.find("ship")->outputs, Value::map({{"result", "done"}}));  // a non-map is wrapped
  EXPECT_EQ(r->elapsed.count_ns(), budcore::core::Duration::seconds(30).count_ns());

  pl::RehearsalOptions o;
  o.reject = {"gate"};
  o.reject_reason = "not today";
  r = pl::rehearse(doc(kGates), o, &functions);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, pl::PipelineStatus::Failed);
  EXPECT_EQ(r->state.find("gate")->state, pl::StepState::Failed);
  EXPECT_NE(r->state.find("gate")->message.find("not today"), std::string::npos);
  EXPECT_EQ(r->state.find("ship")->state, pl::StepState::Omitted);
}

TEST(Rehearsal, SlowAndTimedOutJobs) {
  auto functions = shipping();
  pl::RehearsalOptions slow;
  slow.faults["train"].slow_factor = 3.0;
  auto r = pl::rehearse(doc(kGates), slow, &functions);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->elapsed.count_ns(), budcore::core::Duration::seconds(90).count_ns());

  pl::RehearsalOptions hang;
  hang.faults["ship"].hang = true;  // its 40 s timeout fails it
  r = pl::rehearse(doc(kGates), hang, &functions);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->done);
  EXPECT_EQ(r->state.find("ship")->state, pl::StepState::Failed);
  EXPECT_EQ(r->elapsed.count_ns(), budcore::core::Duration::seconds(70).count_ns());
}

// Records transitions as they happen; fails the nth save when asked.
class Observer final : public pl::StateSink {
 public:
  explicit Observer(int fail_at = 0) : fail_at_(fail_at) {}
  budcore::core::Status save(const pl::Transition& t, const pl::RunState&) override {
    seen.push_back(t.seq);
    if (static_cast<int>(seen.size()) == fail_at_) return budcore::core::Error::make(ErrorCode::Io, "disk full");
    return {};
  }
  std::vector<std::int64_t> seen;

 private:
  int fail_at_;
};

TEST(Rehearsal, ObserverSeesEveryTransitionAndItsErrorStopsTheRun) {
  auto functions = shipping();
  Observer all;
  auto r = pl::rehearse(doc(kGates), {}, &functions, &all);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(all.seen.size(), r->transitions.size());
  for (std::size_t i = 0; i < all.seen.size(); ++i) EXPECT_EQ(all.seen[i], r->transitions[i].seq);

  Observer failing(3);
  r = pl::rehearse(doc(kGates), {}, &functions, &failing);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  EXPECT_EQ(r.error().message, "disk full");
  EXPECT_EQ(failing.seen.size(), 3u);
}

TEST(Rehearsal, IsDeterministic) {
  const fs::path rag = fs::path(BUDCORE_SOURCE_DIR) / "tests" / "pipeline" / "data" / "rag.json";
  auto d = budcore::core::load_document_file(rag.string());
  ASSERT_TRUE(d.has_value());
  pl::RehearsalOptions o;
  o.faults["step-2"].slow_factor = 2;
  auto a = pl::rehearse(*d, o);
  auto b = pl::rehearse(*d, o);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(budcore::core::to_json(a->to_value()), budcore::core::to_json(b->to_value()));
  EXPECT_EQ(a->status, pl::PipelineStatus::Completed);
  // step-2 takes 120 s instead of 60, then the step waiting on it 60 s more (unslowed: 120 s).
  EXPECT_EQ(a->elapsed.count_ns(), budcore::core::Duration::seconds(180).count_ns());
  auto plain = pl::rehearse(*d, {});
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->elapsed.count_ns(), budcore::core::Duration::seconds(120).count_ns());
}

TEST(Rehearsal, InvalidDocumentIsAnInvalidError) {
  auto r = pl::rehearse(doc(R"({"pipeline": {"id": "p", "name": "n"}, "steps": [
      {"id": "a", "name": "a", "step_type": "TRANSFORM", "depends_on": ["nope"], "config": {}}]})"),
                        {});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_NE(r.error().field.find("steps[0]"), std::string::npos) << r.error().describe();
}

TEST(RehearsalOptions, ParsesEveryKey) {
  auto o = pl::rehearsal_options_from_value(doc(R"({"run_id": "r7", "params": {"x": 1},
      "fail": {"a": 2, "b": true}, "slow": {"c": 2.5, "d": 3}, "timeout": ["e"], "reject": ["g1", "g2"]})"));
  ASSERT_TRUE(o.has_value()) << o.error().describe();
  EXPECT_EQ(o->run_id, "r7");
  EXPECT_EQ(o->params, Value::map({{"x", 1}}));
  EXPECT_EQ(o->faults.at("a").fail_attempts, 2);
  EXPECT_EQ(o->faults.at("b").fail_attempts, INT_MAX);
  EXPECT_DOUBLE_EQ(o->faults.at("c").slow_factor, 2.5);
  EXPECT_DOUBLE_EQ(o->faults.at("d").slow_factor, 3.0);
  EXPECT_TRUE(o->faults.at("e").hang);
  EXPECT_EQ(o->reject, (std::vector<std::string>{"g1", "g2"}));

  auto listed = pl::rehearsal_options_from_value(doc(R"({"fail": ["a"], "params": null})"));
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->faults.at("a").fail_attempts, INT_MAX);
  EXPECT_TRUE(pl::rehearsal_options_from_value(Value()).has_value());
  EXPECT_TRUE(pl::rehearsal_options_from_value(doc("{}")).has_value());
}

TEST(RehearsalOptions, ErrorsNameTheField) {
  struct Case {
    const char* json;
    const char* field;
  };
  const Case cases[] = {
      {R"({"bogus": 1})", "options.bogus"},
      {R"({"params": [1]})", "options.params"},
      {R"({"fail": {"step-3": -1}})", "options.fail.step-3"},
      {R"({"fail": {"step-3": "x"}})", "options.fail.step-3"},
      {R"({"fail": 3})", "options.fail"},
      {R"({"slow": {"step-4": 0}})", "options.slow.step-4"},
      {R"({"slow": ["step-4"]})", "options.slow"},
      {R"({"timeout": "step-5"})", "options.timeout"},
      {R"({"reject": ["ok", 7]})", "options.reject[1]"},
      {R"({"run_id": ""})", "options.run_id"},
      {R"([1])", "options"},
  };
  for (const auto& c : cases) {
    auto o = pl::rehearsal_options_from_value(doc(c.json));
    ASSERT_FALSE(o.has_value()) << c.json;
    EXPECT_EQ(o.error().code, ErrorCode::Invalid) << c.json;
    EXPECT_EQ(o.error().field, c.field) << c.json;
  }
  auto bare = pl::rehearsal_options_from_value(doc(R"({"bogus": 1})"), "");
  ASSERT_FALSE(bare.has_value());
  EXPECT_EQ(bare.error().field, "bogus");
}

}  // namespace
