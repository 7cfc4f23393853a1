// Usage and capacity views (cluster queue, cohort, local queue) and the Job -> Workload mapping.
#include <gtest/gtest.h>

#include "budcore/quota/admission.hpp"
#include "budcore/quota/job_workload.hpp"
#include "budcore/quota/kueue_yaml.hpp"

namespace budcore::quota {
namespace {

ClusterQueue cpu_queue(const std::string& name, int nominal, std::optional<int> lending = std::nullopt) {
  ClusterQueue q;
  q.name = name;
  q.cohort = "pool";
  ResourceQuota rq{"cpu", core::Quantity::from_int(nominal), std::nullopt,
                   lending ? std::optional(core::Quantity::from_int(*lending)) : std::nullopt};
  q.resource_groups.push_back({{"cpu"}, {{"default", {rq}}}});
  return q;
}

Workload cpu_job(const std::string& name, const std::string& ns, const std::string& queue, int cpu) {
  Workload w;
  w.name = name;
  w.namespace_ = ns;
  w.queue = queue;
  PodSet ps;
  EXPECT_TRUE(ps.requests.set("cpu", core::Quantity::from_int(cpu)));
  w.pod_sets.push_back(ps);
  return w;
}

TEST(QuotaUsageTest, NominalUsedBorrowedLentAvailable) {
  QuotaConfig c;
  c.resource_flavors.push_back({"default", {}, {}});
  c.cluster_queues = {cpu_queue("a", 10), cpu_queue("b", 10), cpu_queue("c", 10, 0)};
  c.local_queues = {{"t1", "q", "a"}, {"t2", "q", "a"}, {"t3", "q", "b"}};
  auto e = AdmissionEngine::create(c);
  ASSERT_TRUE(e);
  ASSERT_TRUE(e->add_workload(cpu_job("w1", "t1", "q", 8)));
  ASSERT_TRUE(e->add_workload(cpu_job("w3", "t3", "q", 2)));
  e->run_until_quiescent();
  ASSERT_TRUE(e->add_workload(cpu_job("w2", "t2", "q", 6)));  // a borrows 4 from b
  e->run_until_quiescent();
  auto cq = e->cluster_queue_usage();
  const UsageCell& a = cq["a"]["default"]["cpu"];
  EXPECT_EQ(a.nominal, 10'000);
  EXPECT_EQ(a.used, 14'000);
  EXPECT_EQ(a.borrowed, 4'000);
  EXPECT_EQ(a.lent, 0);
  EXPECT_EQ(a.available, 4'000);  // b has 8 idle, of which a borrowed 4; c lends nothing
  const UsageCell& b = cq["b"]["default"]["cpu"];
  EXPECT_EQ(b.used, 2'000);
  EXPECT_EQ(b.lent, 4'000);  // the only lender
  EXPECT_EQ(b.available, 4'000);
  const UsageCell& cc = cq["c"]["default"]["cpu"];
  EXPECT_EQ(cc.lent, 0);
  EXPECT_EQ(cc.available, 14'000);  // its own 10 (lent to nobody) + b's last 4 idle units
  auto cohorts = e->cohort_usage();
  // Kueue's cohort usage: members' usage beyond what they keep (a and b keep nothing: no lending limit).
  EXPECT_EQ(cohorts["pool"]["default"]["cpu"].used, 16'000);
  EXPECT_EQ(cohorts["pool"]["default"]["cpu"].nominal, 0);
  auto lq = e->local_queue_usage();
  EXPECT_EQ(lq["t1/q"]["default"]["cpu"].used, 8'000);
  EXPECT_EQ(lq["t1/q"]["default"]["cpu"].borrowed, 0);
  EXPECT_EQ(lq["t2/q"]["default"]["cpu"].used, 6'000);
  EXPECT_EQ(lq["t2/q"]["default"]["cpu"].borrowed, 6'000);
  EXPECT_EQ(lq["t3/q"]["default"]["cpu"].used, 2'000);
  ASSERT_TRUE(e->finish("t2/w2"));
  EXPECT_EQ(e->local_queue_usage()["t2/q"].size(), 0u);
  EXPECT_EQ(e->cluster_queue_usage()["b"]["default"]["cpu"].lent, 0);
}

job::Job make_job(job::JobType type, job::JobPriority prio) {
  job::Job j;
  j.name = "llama-endpoint";
  j.tenant_id = core::Id::parse("0190f0b2-7c1e-7a3b-9c1d-2e3f4a5b6c7d").value();
  j.job_type = type;
  j.priority = prio;
  j.gpu_type = "a100-80gb";
  j.gpu_count = 2;
  j.cpu_cores = core::Quantity::from_int(4);
  return j;
}

TEST(JobWorkloadTest, JobTypeChoosesClusterQueueAndTenantChoosesLocalQueue) {
  auto j = make_job(job::JobType::Service, job::JobPriority::High);
  EXPECT_EQ(cluster_queue_for(j), "model-endpoints");
  LocalQueue lq = local_queue_for(j);
  EXPECT_EQ(lq.namespace_, "tenant-0190f0b2-7c1e-7a3b-9c1d-2e3f4a5b6c7d");
  EXPECT_EQ(lq.name, "model-endpoints");
  EXPECT_EQ(lq.cluster_queue, "model-endpoints");
  EXPECT_EQ(cluster_queue_for(make_job(job::JobType::Training, job::JobPriority::Low)), "training-jobs");
  auto uc = make_job(job::JobType::Service, job::JobPriority::Normal);
  uc.source = job::JobSource::Usecase;
  EXPECT_EQ(cluster_queue_for(uc), "usecase-deployments");

  auto w = workload_for(j, 7);
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ(w->name, "llama-endpoint");
  EXPECT_EQ(w->namespace_, lq.namespace_);
  EXPECT_EQ(w->queue, "model-endpoints");
  EXPECT_EQ(w->priority, job::kueue_priority_value(job::JobPriority::High));
  EXPECT_EQ(w->creation_seq, 7);
  ASSERT_EQ(w->pod_sets.size(), 1u);
  EXPECT_EQ(w->pod_sets[0].requests.get("nvidia.com/gpu").to_string(), "2");
  EXPECT_EQ(w->pod_sets[0].requests.get("cpu").to_string(), "4");
}

TEST(JobWorkloadTest, JobsAreAdmittedThroughTheSourceDesignQueues) {
  auto imported = import_kueue_yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: model-endpoints}
spec:
  cohort: platform-gpu-pool
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu", cpu, memory]
    flavors:
    - name: a100-80gb
      resources:
      - {name: "nvidia.com/gpu", nominalQuota: 2}
      - {name: cpu, nominalQuota: 64}
      - {name: memory, nominalQuota: 512Gi}
)");
  ASSERT_TRUE(imported) << imported.error().message;
  QuotaConfig config = imported->config;
  add_tenant_local_queues(config, "0190f0b2-7c1e-7a3b-9c1d-2e3f4a5b6c7d");
  add_tenant_local_queues(config, "0190f0b2-7c1e-7a3b-9c1d-2e3f4a5b6c7d");  // idempotent
  ASSERT_EQ(config.local_queues.size(), 1u);  // only model-endpoints exists here
  auto engine = AdmissionEngine::create(config);
  ASSERT_TRUE(engine) << engine.error().message;
  auto high = workload_for(make_job(job::JobType::Service, job::JobPriority::High), 1);
  ASSERT_TRUE(high);
  auto admitted = engine->try_reserve(*high);
  ASSERT_TRUE(admitted) << admitted.error().message;
  EXPECT_EQ(admitted->flavors["main"]["nvidia.com/gpu"], "a100-80gb");
  auto second = make_job(job::JobType::Service, job::JobPriority::Normal);
  second.name = "second";
  auto w2 = workload_for(second, 2);
  ASSERT_TRUE(w2);
  auto refused = engine->try_reserve(*w2);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::QuotaExceeded);
  EXPECT_NE(refused.error().message.find("nvidia.com/gpu"), std::string::npos) << refused.error().message;
}

}  // namespace
}  // namespace budcore::quota
