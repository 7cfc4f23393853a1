// The Platform driving a real Kueue through KueueCluster: a job goes from submission through
// Kueue's admission to completion; a platform that stops and reopens on the same Store adopts
// its runs (and resubmits one whose objects were deleted while it was down); cancel deletes
// the objects; a retry runs as a new set of objects.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "budcore/cost/price_book.hpp"
#include "budcore/kubernetes/cluster.hpp"
#include "budcore/kubernetes/jobs.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/platform/cost_controls.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/quota/kueue_yaml.hpp"
#include "kubernetes/testbed/testbed.hpp"

namespace budcore::kubernetes {
namespace {

using job::JobStatus;
using platform::CallContext;
using platform::Platform;
using testing::Testbed;

class KueuePlatformTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BUDCORE_NEED_TESTBED();
    this->tb = tb;
    client = tb->client();
    sfx = Testbed::unique("p").substr(2);
    tenant = core::Id::generate();
    render.layout.cluster_queue_by_type = {{job::JobType::Batch, "pbatch-" + sfx},
                                           {job::JobType::Training, "pbatch-" + sfx},
                                           {job::JobType::Service, "pbatch-" + sfx}};
    render.layout.usecase_cluster_queue = "pbatch-" + sfx;
    render.layout.tenant_namespace_prefix = "p" + sfx + "-";
    std::string y = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: pa100-" + sfx +
                    "}\nspec: {nodeLabels: {gpu.type: pa100-" + sfx + "}}\n---\n"
                    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: pbatch-" + sfx +
                    "}\nspec:\n  resourceGroups:\n  - coveredResources: [cpu, memory, nvidia.com/gpu]\n    flavors:\n"
                    "    - name: pa100-" + sfx + "\n      resources: [{name: cpu, nominalQuota: 64}, {name: memory, nominalQuota: 256Gi},"
                    " {name: nvidia.com/gpu, nominalQuota: 2}]\n";
    auto imp = quota::import_kueue_yaml(y);
    ASSERT_TRUE(imp) << imp.error().describe();
    quota = imp->config;
    quota::add_tenant_local_queues(quota, tenant.to_string(), render.layout);
    render.flavors = quota.resource_flavors;
    auto applied = apply_quota(*client, quota);
    ASSERT_TRUE(applied) << applied.error().describe();
    auto active = wait_quota_active(*client, quota, std::chrono::seconds(60));
    ASSERT_TRUE(active) << active.error().describe();
    dir = std::filesystem::temp_directory_path() / ("budcore_kueue_platform_" + sfx);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override {
    platform.reset();
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }

  // A platform on the test bed's Kueue, on the SQLite file of this test.
  void open() {
    platform::PlatformConfig cfg = platform::PlatformConfig::embedded(dir.string());
    cfg.clock = platform::ClockKind::System;
    cfg.cluster.quota = quota;
    cfg.cluster.inventory.clear();
    cfg.cluster.layout = render.layout;
    cfg.retry.backoff.base = core::Duration::seconds(1);
    cfg.retry.backoff.cap = core::Duration::seconds(2);
    cfg.prices = prices;
    auto kc = KueueCluster::create(tb->client(), KueueClusterOptions{render}, *core::system_clock());
    ASSERT_TRUE(kc) << kc.error().describe();
    auto p = Platform::open(std::move(cfg), std::move(*kc));
    ASSERT_TRUE(p) << p.error().describe();
    platform = std::move(*p);
  }

  job::Job gpu_job(const std::string& name, int gpus) { return testing::busybox_job(name, gpus); }

  // Waits until the platform reports `want` for the job; returns the last record.
  backend::JobRecord wait_for(const core::Id& id, JobStatus want, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    backend::JobRecord last;
    Testbed::wait_until(
        [&] {
          auto r = platform->get_job(ctx(), id);
          if (r) last = *r;
          return r && r->job.status == want;
        },
        timeout);
    return last;
  }

  CallContext ctx() const { return CallContext::for_tenant(tenant); }
  RenderedJob rendered(const core::Id& id, std::int64_t run = 1) {
    job::Job j = gpu_job("x", 1);
    j.id = id;
    j.tenant_id = tenant;
    auto r = render_job(j, render, run);
    EXPECT_TRUE(r) << r.error().describe();
    return r ? *r : RenderedJob{};
  }

  Testbed* tb = nullptr;
  std::unique_ptr<Client> client;
  std::string sfx;
  core::Id tenant;
  RenderOptions render;
  quota::QuotaConfig quota;
  std::optional<cost::PriceBook> prices;  // set before open(): cost controls on the platform
  std::filesystem::path dir;
  std::unique_ptr<Platform> platform;
};

TEST_F(KueuePlatformTest, AJobIsAdmittedByKueueAndCompletes) {
  open();
  auto sub = platform->submit(ctx(), gpu_job("train", 2));
  ASSERT_TRUE(sub) << sub.error().describe();
  core::Id id = sub->record.job.id;
  auto admitted = wait_for(id, JobStatus::Scheduled);
  ASSERT_EQ(admitted.job.status, JobStatus::Scheduled) << admitted.job.status_message.value_or("");
  // The Job exists under budcore's name, admitted by the ClusterQueue, unsuspended by Kueue.
  RenderedJob rj = rendered(id);
  auto live = client->get(resources::jobs(), rj.namespace_, rj.name);
  ASSERT_TRUE(live) << live.error().describe();
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto j = client->get(resources::jobs(), rj.namespace_, rj.name);
    return j && !j->find_path("spec.suspend")->as_bool();
  }));
  // A second job does not fit (2 GPUs in all): it waits with Kueue's reason.
  auto second = platform->submit(ctx(), gpu_job("waits", 1));
  ASSERT_TRUE(second) << second.error().describe();
  auto snap = platform->cluster();
  bool found = false;
  for (const auto& w : snap.workloads)
    if (w.job_id == second->record.job.id) found = true;
  EXPECT_TRUE(found);
  // Raising its priority moves its Job to the budcore-high class; Kueue updates the Workload.
  auto raised = platform->set_priority(ctx(), second->record.job.id, job::JobPriority::High);
  ASSERT_TRUE(raised) << raised.error().describe();
  std::int64_t high = 0;
  for (const auto& pc : budcore_priority_classes())
    if (pc.name == "budcore-high") high = pc.value;
  RenderedJob r2 = rendered(second->record.job.id);
  std::int64_t seen = -1;
  EXPECT_TRUE(Testbed::wait_until([&] {
    auto objs = fetch_job_objects(*client, r2);
    if (!objs || !objs->workload) return false;
    const core::Value* p = objs->workload->find_path("spec.priority");
    seen = p != nullptr && p->is_int() ? p->as_int() : -1;
    return seen == high;
  })) << "Workload spec.priority is " << seen << ", want " << high;
  ASSERT_TRUE(testing::mark_job_complete(*client, rj.namespace_, rj.name));
  auto done = wait_for(id, JobStatus::Completed);
  EXPECT_EQ(done.job.status, JobStatus::Completed) << done.job.status_message.value_or("");
  EXPECT_TRUE(done.job.actual_end.has_value());
  // Its quota is free again: the second job is admitted.
  EXPECT_EQ(wait_for(second->record.job.id, JobStatus::Scheduled).job.status, JobStatus::Scheduled);
}

TEST_F(KueuePlatformTest, AReopenedPlatformAdoptsItsRunsAndResubmitsLostOnes) {
  open();
  auto a = platform->submit(ctx(), gpu_job("kept", 1));
  auto b = platform->submit(ctx(), gpu_job("lost", 1));
  ASSERT_TRUE(a && b);
  core::Id ida = a->record.job.id, idb = b->record.job.id;
  ASSERT_EQ(wait_for(ida, JobStatus::Scheduled).job.status, JobStatus::Scheduled);
  ASSERT_EQ(wait_for(idb, JobStatus::Scheduled).job.status, JobStatus::Scheduled);
  platform.reset();  // the platform stops
  // While it is down: one job completes, the other's objects are deleted behind its back.
  RenderedJob ra = rendered(ida), rb = rendered(idb);
  ASSERT_TRUE(testing::mark_job_complete(*client, ra.namespace_, ra.name));
  ASSERT_TRUE(cancel_job(*client, rb));
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto g = client->get(resources::jobs(), rb.namespace_, rb.name);
    return !g && g.error().code == core::ErrorCode::NotFound;
  }));
  open();  // reopen on the same Store
  EXPECT_EQ(wait_for(ida, JobStatus::Completed).job.status, JobStatus::Completed);
  // The lost run was submitted again: it lost its admission (Preempted, "Lost"), went back to
  // the queue, and Kueue admits the new Job.
  EXPECT_TRUE(client->get(resources::jobs(), rb.namespace_, rb.name));
  backend::JobRecord again;
  EXPECT_TRUE(Testbed::wait_until(
      [&] {
        auto r = platform->get_job(ctx(), idb);
        if (!r) return false;
        again = *r;
        bool lost = false;
        for (const auto& t : r->job.status_history) lost |= t.to == JobStatus::Preempted;
        return lost && r->job.status == JobStatus::Scheduled;
      },
      std::chrono::seconds(60)))
      << again.job.status_message.value_or("");
}

// A run whose objects are missing at adoption goes back to its tenant's LocalQueue, which the
// adopting process makes sure of as a submit does (another replica may have created it, or
// nobody yet: its leader died before handing the run to the cluster).
TEST_F(KueuePlatformTest, ARunResubmittedAtAdoptionGetsItsTenantsLocalQueue) {
  open();
  const core::Id other = core::Id::generate();  // no LocalQueue in the quota: made on demand
  const CallContext octx = CallContext::for_tenant(other);
  auto sub = platform->submit(octx, gpu_job("requeued", 1));
  ASSERT_TRUE(sub) << sub.error().describe();
  const core::Id id = sub->record.job.id;
  auto status = [&] {
    auto r = platform->get_job(octx, id);
    return r ? r->job.status : JobStatus::Pending;
  };
  ASSERT_TRUE(Testbed::wait_until([&] { return status() == JobStatus::Scheduled; }, std::chrono::seconds(30)));
  platform.reset();
  // While it is down its objects go, and so does the tenant's LocalQueue.
  job::Job j = gpu_job("requeued", 1);
  j.id = id;
  j.tenant_id = other;
  auto r = render_job(j, render, 1);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_TRUE(cancel_job(*client, *r));
  const quota::LocalQueue lq = quota::local_queue_for(j, render.layout);
  ASSERT_TRUE(client->remove(resources::local_queues(), lq.namespace_, lq.name));
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto g = client->get(resources::local_queues(), lq.namespace_, lq.name);
    return !g && g.error().code == core::ErrorCode::NotFound;
  }));
  open();
  // Lost (its admission went with its objects), back in the queue, and admitted again.
  EXPECT_TRUE(Testbed::wait_until(
      [&] {
        auto rec = platform->get_job(octx, id);
        if (!rec) return false;
        bool lost = false;
        for (const auto& t : rec->job.status_history) lost |= t.to == JobStatus::Preempted;
        return lost && rec->job.status == JobStatus::Scheduled;
      },
      std::chrono::seconds(30)))
      << job::to_string(status());
  EXPECT_TRUE(client->get(resources::local_queues(), lq.namespace_, lq.name));
}

TEST_F(KueuePlatformTest, CancelDeletesTheObjectsAndAFailedRunIsRetriedAsANewRun) {
  open();
  auto a = platform->submit(ctx(), gpu_job("cancel-me", 1));
  ASSERT_TRUE(a);
  core::Id id = a->record.job.id;
  ASSERT_EQ(wait_for(id, JobStatus::Scheduled).job.status, JobStatus::Scheduled);
  auto c = platform->cancel_job(ctx(), id, "not needed");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ(c->job.status, JobStatus::Cancelled);
  RenderedJob r1 = rendered(id);
  EXPECT_TRUE(Testbed::wait_until([&] {
    auto g = client->get(resources::jobs(), r1.namespace_, r1.name);
    return !g && g.error().code == core::ErrorCode::NotFound;
  }));
  // A run that fails is retried (max_retries 1, backoff 1 s) as run 2, under its own name.
  job::Job flaky = gpu_job("flaky", 1);
  flaky.max_retries = 1;
  auto f = platform->submit(ctx(), flaky);
  ASSERT_TRUE(f) << f.error().describe();
  core::Id fid = f->record.job.id;
  ASSERT_EQ(wait_for(fid, JobStatus::Scheduled).job.status, JobStatus::Scheduled);
  RenderedJob f1 = rendered(fid), f2 = rendered(fid, 2);
  EXPECT_NE(f2.name, f1.name);
  ASSERT_TRUE(testing::mark_job_failed(*client, f1.namespace_, f1.name));
  ASSERT_TRUE(Testbed::wait_until([&] { return client->get(resources::jobs(), f2.namespace_, f2.name).has_value(); },
                                  std::chrono::seconds(60)));
  auto second = wait_for(fid, JobStatus::Scheduled);
  EXPECT_EQ(second.job.status, JobStatus::Scheduled) << second.job.status_message.value_or("");
  EXPECT_EQ(second.job.retry_count, 1);
}

// An administrator's preemption: the Workload is deactivated, Kueue evicts it and suspends the
// Job, the platform reports PREEMPTED and reactivates it, and Kueue admits it again.
TEST_F(KueuePlatformTest, AnAdministratorEvictsARunAndKueueAdmitsItAgain) {
  open();
  auto a = platform->submit(ctx(), gpu_job("evict-me", 1));
  ASSERT_TRUE(a) << a.error().describe();
  core::Id id = a->record.job.id;
  ASSERT_EQ(wait_for(id, JobStatus::Scheduled).job.status, JobStatus::Scheduled);
  auto ev = platform->preempt_job(ctx(), id, "make room for maintenance");
  ASSERT_TRUE(ev) << ev.error().describe();
  backend::JobRecord again;
  EXPECT_TRUE(Testbed::wait_until(
      [&] {
        auto r = platform->get_job(ctx(), id);
        if (!r) return false;
        again = *r;
        int preempted = 0;
        for (const auto& t : r->job.status_history) preempted += t.to == JobStatus::Preempted ? 1 : 0;
        return preempted == 1 && r->job.status == JobStatus::Scheduled;
      },
      std::chrono::seconds(60)))
      << job::to_string(again.job.status) << ": " << again.job.status_message.value_or("");
  bool named = false;
  for (const auto& t : again.job.status_history)
    if (t.to == JobStatus::Preempted) named = t.message.find("make room for maintenance") != std::string::npos;
  EXPECT_TRUE(named);
  // The Workload is active again (Kueue admitted it), and the run is still run 1.
  RenderedJob r1 = rendered(id);
  auto objs = fetch_job_objects(*client, r1);
  ASSERT_TRUE(objs && objs->workload);
  const core::Value* active = objs->workload->find_path("spec.active");
  EXPECT_TRUE(active == nullptr || (active->is_bool() && active->as_bool()));
  EXPECT_EQ(again.job.retry_count, 0);
  // A queued job has nothing to evict.
  auto big = platform->submit(ctx(), gpu_job("too-big-for-now", 2));
  ASSERT_TRUE(big);
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto r = platform->get_job(ctx(), big->record.job.id);
    return r && r->job.status == JobStatus::Queued;
  }));
  auto refused = platform->preempt_job(ctx(), big->record.job.id, "nothing to do");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::Conflict) << refused.error().describe();
}

// With a price book, a run on Kubernetes is metered like one on the simulated cluster: the
// Job's startTime..completionTime, priced into actual_cost when it completes.
TEST_F(KueuePlatformTest, ACompletedRunIsMeteredIntoActualCost) {
  auto book = cost::PriceBook::from_text(R"(currency: USD
gpu_hour: {nvidia-a100-80gb: {on_demand: "2.00"}}
cpu_core_hour: {on_demand: "0"}
memory_gib_hour: {on_demand: "0"}
)");
  ASSERT_TRUE(book) << book.error().describe();
  prices = *book;
  open();
  job::Job j = gpu_job("metered", 1);
  j.gpu_type = "nvidia-a100-80gb";
  auto a = platform->submit(ctx(), j);
  ASSERT_TRUE(a) << a.error().describe();
  core::Id id = a->record.job.id;
  ASSERT_EQ(wait_for(id, JobStatus::Scheduled).job.status, JobStatus::Scheduled);
  // The job controller's report: 90 minutes from start to completion.
  RenderedJob r1 = rendered(id);
  auto cond = [](const char* type) {
    return core::Map{{"type", type}, {"status", "True"}, {"lastProbeTime", "2026-01-01T01:30:00Z"},
                     {"lastTransitionTime", "2026-01-01T01:30:00Z"}};
  };
  core::Value patch = core::Map{{"status", core::Map{{"startTime", "2026-01-01T00:00:00Z"},
                                                     {"completionTime", "2026-01-01T01:30:00Z"},
                                                     {"succeeded", 1},
                                                     {"conditions", core::List{cond("SuccessCriteriaMet"), cond("Complete")}}}}};
  ASSERT_TRUE(client->patch(resources::jobs(), r1.namespace_, r1.name, patch, PatchType::Merge, "status"));
  auto done = wait_for(id, JobStatus::Completed);
  ASSERT_EQ(done.job.status, JobStatus::Completed) << done.job.status_message.value_or("");
  // actual_cost is written right after the job ended: wait for it.
  backend::JobRecord priced = done;
  EXPECT_TRUE(Testbed::wait_until([&] {
    auto r = platform->get_job(ctx(), id);
    if (r) priced = *r;
    return r && r->job.actual_cost.has_value();
  }));
  ASSERT_TRUE(priced.job.actual_cost);
  EXPECT_EQ(priced.job.actual_cost->to_string(), "3.00 USD");  // 1.5 h of one A100 at $2/h
  ASSERT_TRUE(platform->cost_controls());
  EXPECT_EQ(platform->cost_controls()->metered(), 1);
  EXPECT_EQ(platform->cost_controls()->metering_errors(), 0);
}

TEST_F(KueuePlatformTest, AConfigFileOpensAPlatformOnKueueAndANewTenantNeedsNoSetup) {
  // What every surface opens (CLI --config, Python, C): the config names the cluster; the
  // platform applies the quota to Kueue, waits for it, and creates a new tenant's LocalQueue
  // on its first job.
  std::string q = "cq" + sfx;
  std::string yaml = "store: sqlite://" + (dir / "cfg.db").string() + "\n"
                     "clock: system\n"
                     "cluster:\n  backend: kubernetes\n  kubernetes: {kubeconfig: " + tb->kubeconfig() + "}\n"
                     "queues: {service: " + q + ", batch: " + q + ", training: " + q + ", usecase: " + q +
                     ", tenant_namespace_prefix: c" + sfx + "-}\n"
                     "quota:\n  resource_flavors: [{name: f" + sfx + ", node_labels: {gpu.type: f" + sfx + "}}]\n"
                     "  cluster_queues:\n  - name: " + q + "\n    resource_groups:\n"
                     "    - covered_resources: [cpu, memory, nvidia.com/gpu]\n      flavors:\n"
                     "      - name: f" + sfx + "\n        resources: [{name: cpu, nominal: '8'}, {name: memory, nominal: 64Gi},"
                     " {name: nvidia.com/gpu, nominal: '1'}]\n";
  auto cfg = platform::PlatformConfig::parse(yaml);
  ASSERT_TRUE(cfg) << cfg.error().describe();
  EXPECT_EQ(cfg->cluster_backend, "kubernetes");
  auto p = Platform::open(std::move(*cfg));
  ASSERT_TRUE(p) << p.error().describe();
  platform = std::move(*p);
  // The quota is on the cluster, active.
  auto cq = client->get(resources::cluster_queues(), {}, q);
  ASSERT_TRUE(cq) << cq.error().describe();
  // A tenant nobody set up submits: its namespace and LocalQueue are created, Kueue admits.
  core::Id newcomer = core::Id::generate();
  auto sub = platform->submit(CallContext::for_tenant(newcomer), gpu_job("first-job", 1));
  ASSERT_TRUE(sub) << sub.error().describe();
  auto lq = client->get(resources::local_queues(), "c" + sfx + "-" + newcomer.to_string(), q);
  EXPECT_TRUE(lq) << lq.error().describe();
  backend::JobRecord last;
  EXPECT_TRUE(Testbed::wait_until(
      [&] {
        auto r = platform->get_job(CallContext::for_tenant(newcomer), sub->record.job.id);
        if (r) last = *r;
        return r && r->job.status == JobStatus::Scheduled;
      },
      std::chrono::seconds(60)))
      << job::to_string(last.job.status) << ": " << last.job.status_message.value_or("");
}

// The CLI on a real Kueue: one-shot commands on the same config; `run --for` follows the
// cluster for that long (a system clock), so the next command sees Kueue's admission.
TEST_F(KueuePlatformTest, TheCliDrivesAPlatformOnKueue) {
  std::string q = "cli" + sfx;
  std::filesystem::path config = dir / "cli.yaml";
  {
    std::ofstream f(config);
    f << "store: sqlite://" << (dir / "cli.db").string() << "\nclock: system\n"
      << "cluster: {backend: kubernetes, kubernetes: {kubeconfig: " << tb->kubeconfig() << "}}\n"
      << "queues: {service: " << q << ", batch: " << q << ", training: " << q << ", usecase: " << q
      << ", tenant_namespace_prefix: l" << sfx << "-}\n"
      << "quota:\n  resource_flavors: [{name: l" << sfx << ", node_labels: {gpu.type: l" << sfx << "}}]\n"
      << "  cluster_queues:\n  - name: " << q << "\n    resource_groups:\n"
      << "    - covered_resources: [cpu, memory, nvidia.com/gpu]\n      flavors:\n"
      << "      - name: l" << sfx << "\n        resources: [{name: cpu, nominal: '8'}, {name: memory, nominal: 64Gi},"
      << " {name: nvidia.com/gpu, nominal: '1'}]\n";
    std::ofstream j(dir / "job.json");
    j << R"({"name": "from-cli", "job_type": "BATCH", "deployment_type": "DOCKER", "gpu_count": 1,)"
      << R"( "cpu_cores": "1", "memory_gb": 1, "spec": {"image": "busybox:1.36"}})";
  }
  auto cli = [&](const std::string& args, bool with_tenant = true) {
    std::string cmd = std::string(BUDCORE_BINARY_DIR) + "/bin/budcore platform " + args + " --config " + config.string() +
                      (with_tenant ? " --tenant " + tenant.to_string() : std::string()) + " 2>&1";
    std::string out;
    FILE* pipe = popen(cmd.c_str(), "r");
    EXPECT_NE(pipe, nullptr);
    if (pipe == nullptr) return std::pair{-1, out};
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    int rc = pclose(pipe);
    return std::pair{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
  };
  auto [rc, out] = cli("submit " + (dir / "job.json").string());
  ASSERT_EQ(rc, 0) << out;
  auto id_at = out.find("\"id\":\"");
  ASSERT_NE(id_at, std::string::npos) << out;
  const std::string id = out.substr(id_at + 6, 36);
  std::string got;
  EXPECT_TRUE(Testbed::wait_until(
      [&] {
        auto ran = cli("run --for 2", false);
        EXPECT_EQ(ran.first, 0) << ran.second;
        auto g = cli("get " + id);
        got = g.second;
        return g.first == 0 && got.find("\"status\":\"scheduled\"") != std::string::npos;
      },
      std::chrono::seconds(60)))
      << got;
  auto [crc, cancelled] = cli("cancel " + id + " --reason done");
  EXPECT_EQ(crc, 0) << cancelled;
  EXPECT_NE(cancelled.find("\"status\":\"cancelled\""), std::string::npos) << cancelled;
  RenderedJob r = rendered(core::Id::parse(id).value());
  EXPECT_TRUE(Testbed::wait_until([&] {
    auto g = client->get(resources::jobs(), "l" + sfx + "-" + tenant.to_string(), r.name);
    return !g && g.error().code == core::ErrorCode::NotFound;
  }));
}

TEST_F(KueuePlatformTest, AConfigThatCannotReachItsClusterIsAClearError) {
  auto cfg = platform::PlatformConfig::parse("store: sqlite://" + (dir / "bad.db").string() +
                                             "\ncluster: {backend: kubernetes, kubernetes: {kubeconfig: " +
                                             (dir / "missing-kubeconfig").string() + "}}\n");
  ASSERT_TRUE(cfg) << cfg.error().describe();
  auto p = Platform::open(std::move(*cfg));
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("opening the Kubernetes cluster failed"), std::string::npos) << p.error().describe();
  auto typo = platform::PlatformConfig::parse("store: sqlite:///x.db\ncluster: {backend: kubernetes, kubernetes: {kubeconfg: x}}\n");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().field, "cluster.kubernetes.kubeconfg") << typo.error().describe();
  auto wrong = platform::PlatformConfig::parse("store: sqlite:///x.db\ncluster: {backend: k8s}\n");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().field, "cluster.backend");
}

}  // namespace
}  // namespace budcore::kubernetes
