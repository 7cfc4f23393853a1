// Every shipped use-case template deploys on an embedded platform: the resolved stack's
// pipeline runs through Platform::run_pipeline, each component becomes a platform job created
// by that run, and the services come up in dependency order on the simulated cluster.
#include <gtest/gtest.h>

#include "budcore/usecase/deployment.hpp"
#include "budcore/usecase/registry.hpp"
#include "budcore/usecase/resolver.hpp"
#include "platform/platform_fixture.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::testing {
namespace {

// The shipped templates' parameters; the embedded cluster has A100-80GB, H100, T4 and MIG
// nodes, so templates whose default GPU is an A100-40GB are deployed on A100-80GB, as a user of
// that cluster would choose.
core::Value parameters_for(std::string_view id) {
  core::Value v = shipped_template_parameters(id);
  if (id == "simple-rag-v1" || id == "simple-chatbot-v1") v.mutable_map().set("gpu_type", "nvidia-a100-80gb");
  return v;
}

TEST(PlatformUsecaseDeployTest, EveryShippedTemplateDeploysOnEmbeddedDefaults) {
  for (const auto& f : usecase::builtin_templates()) {
    SCOPED_TRACE(f.tmpl.id);
    PlatformTarget t;
    auto p = t.open();
    ASSERT_TRUE(p);
    usecase::Resolver r(f.tmpl, usecase::builtin_components());
    auto res = r.resolve(parameters_for(f.tmpl.id));
    ASSERT_TRUE(res.valid());
    auto plan = usecase::plan_deployment(*res.stack);
    ASSERT_TRUE(plan) << plan.error().describe();

    auto run = p->run_pipeline(ctx_a(), plan->pipeline);
    ASSERT_TRUE(run) << run.error().describe();
    ASSERT_TRUE(p->run_until_idle());
    auto done = p->get_pipeline_run(ctx_a(), run->id);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->status, pipeline::PipelineStatus::Completed);

    backend::JobFilter mine;
    mine.pipeline_id = run->id;
    auto jobs = p->list_jobs(ctx_a(), mine);
    ASSERT_TRUE(jobs) << jobs.error().describe();
    EXPECT_EQ(jobs->items.size(), res.stack->components.size());
    for (const auto& j : jobs->items) {
      SCOPED_TRACE(j.name);
      // Services serve until torn down; anything else has run to completion.
      EXPECT_TRUE(j.status == job::JobStatus::Running || j.status == job::JobStatus::Completed)
          << job::to_string(j.status);
    }
    EXPECT_TRUE(p->check_invariants());
  }
}

}  // namespace
}  // namespace budcore::testing
