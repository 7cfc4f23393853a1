// Platform::deploy_usecase and its deployment records: deploy a shipped template, read the
// record back (also after reopening the store, on SQLite and PostgreSQL), tear it down in
// reverse dependency order (checked against the event log), and refuse bad templates and
// parameters without writing anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "budcore/core/json.hpp"
#include "budcore/usecase/deployment.hpp"
#include "budcore/usecase/registry.hpp"
#include "platform/platform_fixture.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::testing {
namespace {

using usecase::DeploymentStatus;

// simple-rag on the embedded cluster (it has A100-80GB, not the template's default A100-40GB).
core::Value rag_params() {
  core::Value v = shipped_template_parameters("simple-rag-v1");
  v.mutable_map().set("gpu_type", "nvidia-a100-80gb");
  return v;
}

std::size_t job_count(platform::Platform& p) {
  auto jobs = p.list_jobs(ctx_a(), backend::JobFilter{});
  EXPECT_TRUE(jobs) << jobs.error().describe();
  return jobs ? jobs->items.size() : 0;
}

void deploys_survives_reopen_and_tears_down(const std::string& backend) {
  PlatformTarget t(backend);
  BUDCORE_SKIP_UNLESS_READY(t);
  core::Id id;
  std::size_t components = 0;
  {
    auto p = t.open();
    ASSERT_TRUE(p);
    auto d = p->deploy_usecase(ctx_a(), "simple-rag-v1", rag_params());
    ASSERT_TRUE(d) << d.error().describe();
    id = d->id;
    components = d->components.size();
    EXPECT_GE(components, 3u);
    EXPECT_EQ(d->template_id, "simple-rag-v1");
    EXPECT_FALSE(d->template_version.empty());
    EXPECT_EQ(d->tenant_id, tenant_a());
    ASSERT_TRUE(d->pipeline_run_id.has_value());
    ASSERT_TRUE(d->created_at.has_value());
    EXPECT_EQ(d->parameters.find("gpu_type")->as_string(), "nvidia-a100-80gb");
    ASSERT_TRUE(p->run_until_idle());

    auto up = p->get_deployment(ctx_a(), id);
    ASSERT_TRUE(up) << up.error().describe();
    EXPECT_EQ(up->status, DeploymentStatus::Running) << core::to_json(up->to_value());
    for (const auto& c : up->components) {
      SCOPED_TRACE(c.instance_id);
      ASSERT_TRUE(c.job_id.has_value());
      auto job = p->get_job(ctx_a(), *c.job_id);
      ASSERT_TRUE(job) << job.error().describe();
      EXPECT_EQ(job->job.usecase_deployment_id, id);
      EXPECT_EQ(job->job.status, job::JobStatus::Running);
    }
    // Another tenant sees nothing of it.
    EXPECT_EQ(p->get_deployment(ctx_b(), id).error().code, core::ErrorCode::NotFound);
    auto theirs = p->list_deployments(ctx_b());
    ASSERT_TRUE(theirs);
    EXPECT_TRUE(theirs->empty());
  }

  auto p = t.open();  // the record and its jobs are read back from the store
  ASSERT_TRUE(p);
  auto mine = p->list_deployments(ctx_a());
  ASSERT_TRUE(mine) << mine.error().describe();
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_EQ(mine->front().id, id);
  EXPECT_EQ(mine->front().status, DeploymentStatus::Running);
  ASSERT_EQ(mine->front().components.size(), components);

  auto events_before = p->watch(ctx_a(), 0, 10000);
  ASSERT_TRUE(events_before);
  auto down = p->teardown_deployment(ctx_a(), id);
  ASSERT_TRUE(down) << down.error().describe();
  EXPECT_EQ(down->status, DeploymentStatus::Deleted);
  EXPECT_TRUE(down->teardown_requested);

  // The cancellations, in the order the event log recorded them: every job before the jobs
  // it depends on.
  auto events = p->watch(ctx_a(), events_before->last_seq, 10000);
  ASSERT_TRUE(events);
  std::map<std::string, std::string> instance_of_job;
  for (const auto& c : down->components) instance_of_job[c.job_id->to_string()] = c.instance_id;
  std::vector<std::string> cancelled;
  for (const auto& e : events->events) {
    if (e.type != "job.transition") continue;
    const core::Value* to = e.data.find("to");
    if (to && to->is_string() && to->as_string() == "cancelled") cancelled.push_back(instance_of_job[e.object_id.to_string()]);
  }
  ASSERT_EQ(cancelled.size(), components);
  for (const auto& c : down->components) {
    auto me = std::find(cancelled.begin(), cancelled.end(), c.instance_id);
    ASSERT_NE(me, cancelled.end()) << c.instance_id;
    for (const auto& dep : c.depends_on) {
      auto theirs_at = std::find(cancelled.begin(), cancelled.end(), dep);
      EXPECT_LT(me - cancelled.begin(), theirs_at - cancelled.begin()) << c.instance_id << " depends on " << dep;
    }
  }
  for (const auto& c : down->components) {
    auto job = p->get_job(ctx_a(), *c.job_id);
    ASSERT_TRUE(job);
    EXPECT_EQ(job->job.status, job::JobStatus::Cancelled) << c.instance_id;
  }

  // A second teardown is not an error: the same torn-down record, nothing cancelled again.
  auto again = p->teardown_deployment(ctx_a(), id);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->status, DeploymentStatus::Deleted);
  auto after = p->watch(ctx_a(), events->last_seq, 10000);
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->events.empty());
  EXPECT_TRUE(p->check_invariants());
}

TEST(PlatformUsecaseDeploymentTest, DeploysSurvivesReopenAndTearsDownOnSqlite) {
  deploys_survives_reopen_and_tears_down("sqlite_file");
}
TEST(PlatformUsecaseDeploymentTest, DeploysSurvivesReopenAndTearsDownOnPostgres) {
  deploys_survives_reopen_and_tears_down("postgres");
}

TEST(PlatformUsecaseDeploymentTest, BadParametersNameThePathAndWriteNothing) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  core::Value bad = rag_params();
  bad.mutable_map().set("no_such_parameter", 3);
  auto d = p->deploy_usecase(ctx_a(), "simple-rag-v1", bad);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, core::ErrorCode::Invalid);
  EXPECT_NE(d.error().field.find("no_such_parameter"), std::string::npos) << d.error().describe();

  auto missing = p->deploy_usecase(ctx_a(), "simple-rag-v1", core::Value(core::Map{}));  // model_id is required
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, core::ErrorCode::Invalid);
  EXPECT_NE(missing.error().describe().find("model_id"), std::string::npos) << missing.error().describe();

  auto not_map = p->deploy_usecase(ctx_a(), "simple-rag-v1", core::Value(3));
  ASSERT_FALSE(not_map);
  EXPECT_EQ(not_map.error().field, "parameters");

  auto unknown = p->deploy_usecase(ctx_a(), "no-such-template", rag_params());
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(unknown.error().field, "template");

  // A template whose component does not exist.
  auto tmpl = make_template(R"(
id: broken
name: Broken
description: a component that does not exist
category: rag
version: "1"
complexity: simple
components:
  - id: db
    component_ref: no-such-component
)");
  auto broken = p->deploy_usecase(ctx_a(), tmpl, core::Value(core::Map{}));
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, core::ErrorCode::Invalid);
  EXPECT_NE(broken.error().field.find("components"), std::string::npos) << broken.error().describe();

  auto list = p->list_deployments(ctx_a());
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->empty());
  EXPECT_EQ(job_count(*p), 0u);
  auto rows = p->store().list_platform_records("usecase_deployment");
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->items.empty());
}

TEST(PlatformUsecaseDeploymentTest, TeardownWhileDeployingCancelsWhatStartedAndEndsTheRun) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  // The template's default GPU (A100-40GB) is one the embedded cluster does not have: the LLM
  // stays queued, and the deployment with it.
  auto d = p->deploy_usecase(ctx_a(), "simple-rag-v1", shipped_template_parameters("simple-rag-v1"));
  ASSERT_TRUE(d) << d.error().describe();
  EXPECT_EQ(d->status, DeploymentStatus::Deploying);
  auto down = p->teardown_deployment(ctx_a(), d->id);
  ASSERT_TRUE(down) << down.error().describe();
  EXPECT_EQ(down->status, DeploymentStatus::Deleted);
  ASSERT_TRUE(p->run_until_idle());
  auto run = p->get_pipeline_run(ctx_a(), *d->pipeline_run_id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, pipeline::PipelineStatus::Cancelled);
  auto jobs = p->list_jobs(ctx_a(), backend::JobFilter{});
  ASSERT_TRUE(jobs);
  for (const auto& j : jobs->items) EXPECT_TRUE(job::is_terminal(j.status)) << j.name;
  auto after = p->get_deployment(ctx_a(), d->id);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, DeploymentStatus::Deleted);
  EXPECT_TRUE(p->check_invariants());
}

}  // namespace
}  // namespace budcore::testing
