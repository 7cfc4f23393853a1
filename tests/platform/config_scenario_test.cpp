// The platform config document and what-if scenarios: parsing (every error names its path),
// the embedded defaults, and scenarios run to completion.
#include <gtest/gtest.h>

#include "budcore/core/json.hpp"
#include "budcore/platform/scenario.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

TEST(PlatformConfigTest, TheEmbeddedDefaultsValidate) {
  auto c = platform::PlatformConfig::embedded("/tmp/x");
  EXPECT_EQ(c.store_uri, "sqlite:///tmp/x/budcore.db");
  EXPECT_TRUE(c.validate()) << c.validate().error().describe();
  EXPECT_EQ(c.cluster.quota.cluster_queues.size(), 5u);
  EXPECT_EQ(c.cluster.inventory.size(), 5u);
  EXPECT_EQ(platform::PlatformConfig::embedded("rel/dir").store_uri, "sqlite:rel/dir/budcore.db");
}

TEST(PlatformConfigTest, ADocumentConfiguresStoreClockClusterQuotaAndRetries) {
  auto c = platform::PlatformConfig::parse(R"(
store: {uri: "sqlite::memory:", durable: false}
clock: {kind: virtual, start: "2026-03-01T00:00:00Z"}
cluster:
  admission_window: 8
  failure_rate: 0.1
  seed: 7
  inventory:
    - {name: gpu, flavor: gpu, nodes: 2, gpu_type: nvidia-l4, gpus_per_node: 4, cpu_per_node: 32}
quota:
  resource_flavors: [{name: gpu}]
  cluster_queues:
    - name: batch-jobs
      resource_groups:
        - covered_resources: [cpu, memory, nvidia.com/gpu]
          flavors: [{name: gpu, resources: [{name: cpu, nominal: "64"}, {name: memory, nominal: "256Gi"}, {name: nvidia.com/gpu, nominal: "8"}]}]
queues: {batch: batch-jobs}
retry: {base_seconds: 5, factor: 3, failure_threshold: 2}
)");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->store_uri, "sqlite::memory:");
  EXPECT_FALSE(c->store_durable);
  EXPECT_EQ(c->virtual_start.to_string(), "2026-03-01T00:00:00Z");
  EXPECT_EQ(c->cluster.admission_window, 8u);
  EXPECT_DOUBLE_EQ(c->cluster.outcomes.failure_rate, 0.1);
  EXPECT_EQ(c->cluster.inventory[0].slots_per_node(), 4);
  EXPECT_EQ(c->retry.backoff.base, core::Duration::seconds(5));
  EXPECT_EQ(c->retry.breaker.failure_threshold, 2);
  auto p = platform::Platform::open(*c);
  ASSERT_TRUE(p) << p.error().describe();
  auto j = gpu_job("l4", 2, 100, "nvidia-l4");
  auto r = (*p)->submit(ctx_a(), j);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_TRUE((*p)->run_until_idle());
  EXPECT_EQ((*p)->get_job(ctx_a(), r->record.job.id)->job.status, job::JobStatus::Completed);
}

TEST(PlatformConfigTest, ErrorsNameThePathAndUnknownKeysGetAHint) {
  auto typo = platform::PlatformConfig::parse("store: \"sqlite::memory:\"\ncluster: {inventroy: []}\n");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().field, "cluster.inventroy");
  EXPECT_NE(typo.error().message.find("inventory"), std::string::npos);
  auto bad = platform::PlatformConfig::parse(
      "store: \"sqlite::memory:\"\ncluster: {inventory: [{name: a, flavor: t4, gpus_per_node: 5000}]}\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "cluster.inventory[0].gpus_per_node");
  auto flavor = platform::PlatformConfig::parse(
      "store: \"sqlite::memory:\"\ncluster: {inventory: [{name: a, flavor: nope, gpus_per_node: 1, gpu_type: x}]}\n");
  ASSERT_FALSE(flavor);
  EXPECT_EQ(flavor.error().field, "cluster.inventory[0].flavor");
  EXPECT_EQ(platform::PlatformConfig::parse("store: s\nclock: sundial\n").error().field, "clock");
  // The kubernetes section: only with that backend, and its keys are checked like any other.
  auto k8s = platform::PlatformConfig::parse(
      "store: s\ncluster: {backend: kubernetes, kubernetes: {kubeconfig: /k, context: c, apply_quota: false}}\n");
  ASSERT_TRUE(k8s) << k8s.error().describe();
  EXPECT_EQ(k8s->kubernetes.kubeconfig, "/k");
  EXPECT_EQ(k8s->kubernetes.context, "c");
  EXPECT_FALSE(k8s->kubernetes.apply_quota);
  EXPECT_TRUE(k8s->kubernetes.create_tenant_queues);
  EXPECT_EQ(platform::PlatformConfig::parse("store: s\ncluster: {kubernetes: {kubeconfig: /k}}\n").error().field,
            "cluster.kubernetes");
  EXPECT_EQ(platform::PlatformConfig::parse("store: s\ncluster: {backend: nomad}\n").error().field, "cluster.backend");
  EXPECT_EQ(platform::PlatformConfig::parse("schema_version: 2\nstore: s\n").error().code, core::ErrorCode::Unsupported);
  EXPECT_EQ(platform::PlatformConfig::parse("clock: virtual\n").error().field, "store");
  EXPECT_EQ(platform::PlatformConfig::parse("store: s\nquota: {cluster_queues: [{name: q, cohort: 5}]}\n").error().code,
            core::ErrorCode::Invalid);
  EXPECT_EQ(platform::PlatformConfig::parse("store: s\nretry: {factor: 0.5}\n").error().field, "retry.factor");
  EXPECT_EQ(platform::PlatformConfig::parse("[1, 2]").error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(platform::PlatformConfig::parse(std::string(5u << 20, ' ')).error().code, core::ErrorCode::Invalid);
}

constexpr std::string_view kScenario = R"(
start: "2026-01-01T00:00:00Z"
jobs:
  - at: 0
    tenant: research
    job: {name: pretrain, job_type: TRAINING, deployment_type: DOCKER, gpu_type: nvidia-a100-80gb, gpu_count: 8,
          estimated_duration_seconds: 7200, priority: LOW, preemptible: true}
  - at: 600
    tenant: research
    count: 2
    every_seconds: 60
    job: {name: sweep, job_type: TRAINING, deployment_type: DOCKER, gpu_type: nvidia-a100-80gb, gpu_count: 4,
          estimated_duration_seconds: 1800}
  - at: 900
    tenant: prod
    job: {name: hotfix-eval, job_type: TRAINING, deployment_type: DOCKER, gpu_type: nvidia-a100-80gb, gpu_count: 4,
          estimated_duration_seconds: 600, priority: HIGH, preempts_others: true}
  - at: 0
    tenant: prod
    sim: {fail_attempts: 1, fail_after_seconds: 30, fail_message: "OOMKilled"}
    job: {name: flaky-batch, job_type: BATCH, deployment_type: DOCKER, gpu_type: nvidia-t4, gpu_count: 1,
          estimated_duration_seconds: 300}
  - at: 0
    tenant: prod
    job: {name: doomed, job_type: BATCH, deployment_type: DOCKER, estimated_duration_seconds: 99999}
actions:
  - {at: 100, cancel: doomed}
)";

TEST(PlatformScenarioTest, AScenarioRunsToCompletionAndReportsEveryJob) {
  auto s = platform::Scenario::parse(kScenario);
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_EQ(s->jobs.size(), 5u);
  std::vector<double> seen;
  auto out = platform::simulate(*s, [&](double f) { seen.push_back(f); });
  ASSERT_TRUE(out) << out.error().describe();
  ASSERT_EQ(out->jobs.size(), 6u);
  std::map<std::string, platform::ScenarioJobOutcome> by;
  for (const auto& j : out->jobs) by[j.name] = j;
  EXPECT_EQ(by["pretrain"].status, "completed");
  EXPECT_EQ(by["sweep-0"].cluster_queue, "training-jobs");
  EXPECT_EQ(by["flaky-batch"].retries, 1);
  EXPECT_EQ(by["flaky-batch"].status, "completed");
  EXPECT_EQ(by["doomed"].status, "cancelled");
  EXPECT_EQ(by["doomed"].ended_at, 100.0);
  EXPECT_GT(by["sweep-1"].wait_seconds, 0);  // training-jobs is full: it waited
  EXPECT_EQ(by["hotfix-eval"].priority, "high");
  EXPECT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  std::string table = out->table();
  EXPECT_NE(table.find("hotfix-eval"), std::string::npos);
  EXPECT_NE(table.find("PREEMPT"), std::string::npos);
  bool admission_logged = false;
  for (const auto& l : out->log) admission_logged |= l.find("queued -> scheduled: admitted by ClusterQueue") != std::string::npos;
  EXPECT_TRUE(admission_logged);
  // Deterministic: the same scenario gives the same outcome.
  auto again = platform::simulate(*s);
  ASSERT_TRUE(again);
  EXPECT_EQ(core::to_json(again->to_value()), core::to_json(out->to_value()));
}

TEST(PlatformScenarioTest, ScenarioErrorsNameThePath) {
  auto e1 = platform::Scenario::parse("jobs: [{job: {name: x, job_type: BATCH, deployment_type: DOCKER, gpu_count: -1}}]");
  ASSERT_FALSE(e1);
  EXPECT_EQ(e1.error().field, "jobs[0].job.gpu_count");
  auto e2 = platform::Scenario::parse(
      "jobs: [{job: {name: x, job_type: BATCH, deployment_type: DOCKER}, sim: {fail_attempts: -2}}]");
  ASSERT_FALSE(e2);
  EXPECT_EQ(e2.error().field, "jobs[0].sim.fail_attempts");
  EXPECT_EQ(platform::Scenario::parse("actions: [{at: 1, cancle: x}]").error().field, "actions[0].cancle");
  EXPECT_EQ(platform::Scenario::parse("jobs: [{at: -5, job: {}}]").error().field, "jobs[0].at");
  EXPECT_EQ(platform::Scenario::parse("jobs: [{file: a.json}]").error().field, "jobs[0].file");
  EXPECT_EQ(platform::Scenario::parse("start: yesterday").error().field, "start");
  EXPECT_EQ(platform::Scenario::parse("jobz: []").error().field, "jobz");
  // A what-if never reaches a real cluster.
  auto k8s = platform::Scenario::parse("cluster: {backend: kubernetes, kubernetes: {kubeconfig: /nowhere}}");
  ASSERT_FALSE(k8s);
  EXPECT_EQ(k8s.error().field, "cluster.backend");
  auto act = platform::Scenario::parse("actions: [{at: 1, cancel: ghost}]");
  ASSERT_TRUE(act);
  auto run = platform::simulate(*act);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().field, "actions[0].job");
}

}  // namespace
}  // namespace budcore::testing
