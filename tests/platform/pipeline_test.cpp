// Pipelines through the Platform: JOB steps become platform jobs (source PIPELINE, with the
// run's pipeline_id and a pipeline_step_id), step outputs are the jobs' outputs, services
// count as deployed once they serve, and cancelling a run cancels its jobs.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "budcore/core/json.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using job::JobStatus;

core::Value rag_pipeline() {
  std::ifstream in(std::string(BUDCORE_SOURCE_DIR) + "/examples/specs/rag-pipeline.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return core::parse_json(ss.str()).value();
}

const core::Value* step_state(const platform::PipelineRun& run, std::string_view id) {
  for (const auto& s : run.state.find("steps")->as_list())
    if (s.find("id")->as_string() == id) return &s;
  return nullptr;
}

TEST(PlatformPipelineTest, TheRagPipelineDeploysItsServicesAsPlatformJobs) {
  PlatformTarget t;
  auto p = t.open();
  auto run = p->run_pipeline(ctx_a(), rag_pipeline());
  ASSERT_TRUE(run) << run.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  auto done = p->get_pipeline_run(ctx_a(), run->id);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, pipeline::PipelineStatus::Completed) << core::to_json(done->state);
  backend::JobFilter f;
  f.pipeline_id = run->id;
  auto jobs = p->list_jobs(ctx_a(), f);
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->items.size(), 5u);  // step-2, 3, 4, 6, 7
  for (const auto& s : jobs->items) {
    EXPECT_EQ(s.source, job::JobSource::Pipeline);
    EXPECT_EQ(s.status, JobStatus::Running) << s.name;  // services keep serving
    auto full = p->get_job(ctx_a(), s.id)->job;
    ASSERT_TRUE(full.pipeline_step_id);
    EXPECT_EQ(*full.pipeline_id, run->id);
  }
  // The orchestrator's env reads the other steps' outputs: the jobs' URLs.
  const core::Value* s2 = step_state(*done, "step-2");
  ASSERT_TRUE(s2);
  std::string qdrant_url = s2->find("outputs")->find("url")->as_string();
  EXPECT_NE(qdrant_url.find(".svc.sim.local"), std::string::npos);
  bool found = false;
  for (const auto& s : jobs->items) {
    if (s.name != "step-7") continue;
    auto j = p->get_job(ctx_a(), s.id)->job;
    EXPECT_EQ(j.spec.find("env")->find("VECTOR_DB_URL")->as_string(), qdrant_url);
    EXPECT_EQ(j.spec.find("component_ref")->as_string(), "rag-orchestrator");
    found = true;
  }
  EXPECT_TRUE(found);
  // LLM step: 2 A100 for a HIGH-priority service in model-endpoints.
  auto snap = p->cluster();
  EXPECT_GE(snap.usage["model-endpoints"]["a100-80gb"]["nvidia.com/gpu"].used, 2000);
  auto metrics = p->metrics();
  EXPECT_NE(metrics.find("pipeline_executions_total{status=\"completed\"} 1"), std::string::npos);
  EXPECT_NE(metrics.find("jobs_created_from_steps_total{step_type=\"job\"} 5"), std::string::npos);
  EXPECT_NE(metrics.find("step_executions_total{step_type=\"api_call\",status=\"succeeded\"} 1"), std::string::npos);
}

core::Value two_batch_steps() {
  auto step = [](const char* id, const char* dep, std::int64_t seconds) {
    core::List deps;
    if (dep) deps.emplace_back(dep);
    return core::Value::map({{"id", id},
                             {"name", id},
                             {"step_type", "JOB"},
                             {"depends_on", core::Value(std::move(deps))},
                             {"config", core::Value::map({{"job_type", "BATCH"},
                                                          {"deployment_type", "DOCKER"},
                                                          {"gpu_type", "nvidia-a100-80gb"},
                                                          {"gpu_count", 2},
                                                          {"estimated_duration_seconds", seconds}})}});
  };
  return core::Value::map({{"pipeline", core::Value::map({{"id", "p"}, {"name", "two-steps"}})},
                           {"steps", core::Value::list({step("train", nullptr, 600), step("eval", "train", 60)})}});
}

TEST(PlatformPipelineTest, CancellingARunCancelsItsRunningJob) {
  PlatformTarget t;
  auto p = t.open();
  auto run = p->run_pipeline(ctx_a(), two_batch_steps());
  ASSERT_TRUE(run) << run.error().describe();
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(100)));
  auto cancelled = p->cancel_pipeline_run(ctx_a(), run->id, "changed my mind");
  ASSERT_TRUE(cancelled) << cancelled.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  auto done = p->get_pipeline_run(ctx_a(), run->id);
  EXPECT_EQ(done->status, pipeline::PipelineStatus::Cancelled);
  backend::JobFilter f;
  f.pipeline_id = run->id;
  auto jobs = p->list_jobs(ctx_a(), f);
  ASSERT_EQ(jobs->items.size(), 1u);  // eval never started
  EXPECT_EQ(jobs->items[0].status, JobStatus::Cancelled);
  EXPECT_EQ(p->cluster().workloads.size(), 0u);
  EXPECT_EQ(p->cancel_pipeline_run(ctx_a(), run->id).error().code, core::ErrorCode::Conflict);
  EXPECT_EQ(p->get_pipeline_run(ctx_b(), run->id).error().code, core::ErrorCode::NotFound);
}

TEST(PlatformPipelineTest, ARunResumesAfterTheProcessReopensTheStore) {
  PlatformTarget t;
  core::Id id;
  {
    auto p = t.open();
    auto run = p->run_pipeline(ctx_a(), two_batch_steps());
    ASSERT_TRUE(run);
    id = run->id;
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(300)));
  }
  auto p = t.open();
  ASSERT_TRUE(p->run_until_idle());
  auto done = p->get_pipeline_run(ctx_a(), id);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, pipeline::PipelineStatus::Completed) << core::to_json(done->state);
  backend::JobFilter f;
  f.pipeline_id = id;
  EXPECT_EQ(p->list_jobs(ctx_a(), f)->items.size(), 2u);
}

// A run's state is saved as its run-level fields plus one record per step, and a transition
// writes only the steps it changed: what the run writes per transition does not grow with the
// number of its steps (saving the whole state at every transition made it grow linearly).
struct Written {
  std::int64_t transitions = 0;
  std::int64_t step_writes = 0;  // every write of every step record
  double bytes_per_transition = 0;
  std::size_t run_record_bytes = 0;
};

// From the store: the run record is written once per transition (its version counts them) and
// each step record once per change of its step (its version); each write is counted at the
// record's final size.
Written written_by(platform::Platform& p, const core::Id& id) {
  Written w;
  auto rec = p.store().get_pipeline(tenant_a(), id);
  auto rows = p.store().list_steps(tenant_a(), id);
  EXPECT_TRUE(rec && rows);
  if (!rec || !rows) return w;
  w.transitions = rec->version - 1;
  w.run_record_bytes = core::to_json(rec->state).size();
  double bytes = static_cast<double>(w.transitions) * static_cast<double>(w.run_record_bytes);
  for (const auto& r : *rows) {
    w.step_writes += r.version;
    bytes += static_cast<double>(r.version) * static_cast<double>(core::to_json(r.state).size());
  }
  w.bytes_per_transition = bytes / static_cast<double>(std::max<std::int64_t>(1, w.transitions));
  return w;
}

core::Value transforms(int n) {
  core::List steps;
  for (int i = 0; i < n; ++i) {
    const std::string id = "t" + std::to_string(i);
    steps.push_back(core::Value::map({{"id", id}, {"name", id}, {"step_type", "TRANSFORM"}, {"depends_on", core::Value::list({})},
                                      {"config", core::Value::map({{"outputs", core::Value::map({{"v", std::to_string(i)}})}})}}));
  }
  return core::Value::map({{"pipeline", core::Value::map({{"id", "wide"}, {"name", "wide"}})}, {"steps", core::Value(std::move(steps))}});
}

TEST(PlatformPipelineTest, ATransitionWritesOnlyTheStepsItChanged) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  std::map<int, Written> by_size;
  for (int n : {50, 500}) {
    auto run = p->run_pipeline(ctx_a(), transforms(n));
    ASSERT_TRUE(run) << run.error().describe();
    ASSERT_TRUE(p->run_until_idle());
    auto done = p->get_pipeline_run(ctx_a(), run->id);
    ASSERT_TRUE(done) << done.error().describe();
    ASSERT_EQ(done->status, pipeline::PipelineStatus::Completed);
    ASSERT_EQ(done->state.find("steps")->as_list().size(), static_cast<std::size_t>(n));
    by_size[n] = written_by(*p, run->id);
    // The run record holds the run's fields only.
    auto raw = p->store().get_pipeline(tenant_a(), run->id);
    ASSERT_TRUE(raw);
    EXPECT_EQ(raw->state.find("steps"), nullptr);
    EXPECT_LT(by_size[n].run_record_bytes, 1024u) << core::to_json(raw->state);
  }
  const Written& small = by_size[50];
  const Written& large = by_size[500];
  EXPECT_GE(large.transitions, 2 * 500);
  // Each step record is written a few times (its own changes), not once per transition.
  EXPECT_LE(large.step_writes, 5 * 500) << large.step_writes;
  // Ten times the steps: about the same bytes per transition (whole states: ten times as many).
  EXPECT_LT(large.bytes_per_transition, 1.5 * small.bytes_per_transition)
      << large.bytes_per_transition << " bytes per transition at 500 steps, " << small.bytes_per_transition << " at 50";
}

// A run of 500 steps stopped midway (250 JOB steps of different lengths, each followed by a
// TRANSFORM) is rebuilt from its step records by the next process: the records say what the
// logged transitions say, and the run finishes with exactly one job per JOB step.
TEST(PlatformPipelineTest, ALargeRunIsRebuiltFromItsStepRecords) {
  PlatformTarget t;
  core::List steps;
  for (int i = 0; i < 250; ++i) {
    const std::string job = "j" + std::to_string(i), after = "a" + std::to_string(i);
    steps.push_back(core::Value::map({{"id", job}, {"name", job}, {"step_type", "JOB"}, {"depends_on", core::Value::list({})},
                                      {"config", core::Value::map({{"job_type", "BATCH"},
                                                                   {"deployment_type", "DOCKER"},
                                                                   {"gpu_count", 0},
                                                                   {"estimated_duration_seconds", 10 + i}})}}));
    steps.push_back(core::Value::map({{"id", after}, {"name", after}, {"step_type", "TRANSFORM"}, {"depends_on", core::Value::list({job})},
                                      {"config", core::Value::map({{"outputs", core::Value::map({{"v", job}})}})}}));
  }
  const core::Value doc =
      core::Value::map({{"pipeline", core::Value::map({{"id", "half"}, {"name", "half"}})}, {"steps", core::Value(std::move(steps))}});
  core::Id id;
  std::string saved;
  {
    auto p = t.open();
    ASSERT_TRUE(p);
    auto run = p->run_pipeline(ctx_a(), doc);
    ASSERT_TRUE(run) << run.error().describe();
    id = run->id;
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(130)));
    auto mid = p->get_pipeline_run(ctx_a(), id);
    ASSERT_TRUE(mid) << mid.error().describe();
    ASSERT_EQ(mid->status, pipeline::PipelineStatus::Running) << core::to_json(mid->state).substr(0, 3000);
    // What the step records say is what the transitions logged: the last change of every step,
    // and as many transitions as the run's seq.
    std::map<std::string, std::string> last;
    std::int64_t transitions = 0, since = 0;
    for (;;) {
      auto page = p->watch(ctx_a(), since, 1000);
      ASSERT_TRUE(page) << page.error().describe();
      for (const auto& e : page->events) {
        if (e.type != "pipeline.transition" || e.object_id != id) continue;
        ++transitions;
        const std::string step = e.data.find("step")->as_string();
        if (!step.empty()) last[step] = e.data.find("to")->as_string();
      }
      if (page->events.empty()) break;
      since = page->last_seq;
    }
    EXPECT_EQ(transitions, mid->state.find("seq")->as_int());
    std::size_t done = 0, checked = 0;
    for (const auto& s : mid->state.find("steps")->as_list()) {
      const std::string sid = s.find("id")->as_string();
      const std::string state = s.find("state")->as_string();
      if (auto it = last.find(sid); it != last.end()) {
        EXPECT_EQ(state, it->second) << sid;
        ++checked;
      }
      done += state == "succeeded";
    }
    EXPECT_GT(checked, 250u);
    EXPECT_GT(done, 100u);
    EXPECT_LT(done, 400u);
    saved = core::to_json(mid->state);
  }
  auto p = t.open();
  ASSERT_TRUE(p);
  auto rebuilt = p->get_pipeline_run(ctx_a(), id);
  ASSERT_TRUE(rebuilt);
  EXPECT_EQ(core::to_json(rebuilt->state), saved);
  ASSERT_TRUE(p->run_until_idle());
  auto done = p->get_pipeline_run(ctx_a(), id);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, pipeline::PipelineStatus::Completed) << core::to_json(done->state).substr(0, 2000);
  for (const auto& s : done->state.find("steps")->as_list()) EXPECT_EQ(s.find("state")->as_string(), "succeeded") << core::to_json(s);
  backend::JobFilter f;
  f.pipeline_id = id;
  backend::PageRequest page;
  page.limit = 1000;
  auto jobs = p->list_jobs(ctx_a(), f, page);
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->items.size(), 250u);
}

// Every LOOP iteration is a step of the run's stored state: a LOOP over more items than
// pipelines.max_loop_items fails its step, naming the limit, instead of growing without end.
TEST(PlatformPipelineTest, ALoopOverMoreItemsThanTheLimitFails) {
  PlatformTarget t;
  t.config.max_loop_items = 20;
  auto p = t.open();
  auto loop = [](int n) {
    return core::parse_json(R"({"pipeline": {"id": "wide", "name": "wide"}, "steps": [{"id": "l", "step_type": "LOOP",
        "config": {"items": "{{ range()" + std::to_string(n) + R"() | list }}",
                   "body": {"step_type": "TRANSFORM", "config": {"outputs": {"v": "{{ item }}"}}}}}]})").value();
  };
  auto ok = p->run_pipeline(ctx_a(), loop(20));
  auto over = p->run_pipeline(ctx_a(), loop(21));
  ASSERT_TRUE(ok) << ok.error().describe();
  ASSERT_TRUE(over) << over.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  EXPECT_EQ(p->get_pipeline_run(ctx_a(), ok->id)->status, pipeline::PipelineStatus::Completed);
  auto failed = p->get_pipeline_run(ctx_a(), over->id);
  EXPECT_EQ(failed->status, pipeline::PipelineStatus::Failed);
  const core::Value* l = step_state(*failed, "l");
  ASSERT_NE(l, nullptr);
  EXPECT_NE(core::to_json(*l).find("21 items would make 21 LOOP iterations in this run, over the limit of 20"), std::string::npos)
      << core::to_json(*l);
  // All LOOPs of a run count together: nested LOOPs multiply (5 x 5 > 20).
  auto nested = p->run_pipeline(ctx_a(), core::parse_json(R"({"pipeline": {"id": "nest", "name": "nest"}, "steps": [
      {"id": "outer", "step_type": "LOOP", "config": {"items": "{{ range(5) | list }}",
       "body": {"step_type": "LOOP", "config": {"items": "{{ range(5) | list }}",
                "body": {"step_type": "TRANSFORM", "config": {"outputs": {"v": "{{ item }}"}}}}}}}]})").value());
  ASSERT_TRUE(nested) << nested.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  auto nest_done = p->get_pipeline_run(ctx_a(), nested->id);
  EXPECT_EQ(nest_done->status, pipeline::PipelineStatus::Failed);
  EXPECT_NE(core::to_json(nest_done->state).find("over the limit of 20"), std::string::npos);
  EXPECT_FALSE(platform::PlatformConfig::parse("store: 'sqlite::memory:'\npipelines: {max_loop_items: 0}"));
}

TEST(PlatformPipelineTest, AnInvalidPipelineIsRefusedAndNothingIsStored) {
  PlatformTarget t;
  auto p = t.open();
  auto doc = two_batch_steps();
  doc.mutable_map()["steps"].mutable_list()[1].mutable_map().set("depends_on", core::Value::list({"nope"}));
  auto run = p->run_pipeline(ctx_a(), doc);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, core::ErrorCode::Invalid);
  EXPECT_TRUE(p->watch(ctx_a(), 0)->events.empty());
  EXPECT_EQ(p->run_pipeline(ctx_a(), two_batch_steps(), core::Value("x")).error().field, "params");
}

TEST(PlatformPipelineTest, JobFromStepConfigMovesNonJobKeysIntoSpec) {
  auto j = platform::job_from_step_config("Step_3", "", core::Value::map({{"job_type", "SERVICE"},
                                                                         {"deployment_type", "HELM"},
                                                                         {"component_ref", "qdrant"},
                                                                         {"cpu_cores", 2}}));
  ASSERT_TRUE(j) << j.error().describe();
  EXPECT_EQ(j->name, "step-3");
  EXPECT_EQ(j->spec.find("component_ref")->as_string(), "qdrant");
  auto bad = platform::job_from_step_config("s", "", core::Value::map({{"job_type", "SERVICE"},
                                                                      {"deployment_type", "HELM"},
                                                                      {"gpu_count", -2}}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "config.gpu_count");
}

}  // namespace
}  // namespace budcore::testing
