// MultiKueue end to end: the test bed's control plane is the manager, a second control plane
// on the same machine the worker (`k8s-testbed.sh start-multi DIR 1`, or BUDCORE_K8S_WORKERS=1
// for the ctest fixture). budcore applies the MultiKueue objects and the same queues to both,
// submits to the manager, and reads the manager's objects only; the test plays the worker's job
// controller. Without a worker the tests skip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "budcore/companion/companion.hpp"
#include "budcore/kubernetes/cluster.hpp"
#include "budcore/kubernetes/jobs.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/quota/kueue_yaml.hpp"
#include "kubernetes/testbed/testbed.hpp"

namespace budcore::kubernetes {
namespace {

using core::ErrorCode;
using core::Map;
using core::Value;
using job::JobStatus;
using testing::Testbed;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The test bed's directory (its kubeconfig's).
std::string state_dir(const Testbed& tb) { return tb.kubeconfig().substr(0, tb.kubeconfig().rfind('/')); }

// k8s-testbed.sh worker-kueue|worker-apiserver STATE_DIR 1 kill|start.
bool worker_process(const Testbed& tb, const std::string& process, const std::string& what) {
  std::string cmd = "bash " BUDCORE_SOURCE_DIR "/scripts/k8s-testbed.sh worker-" + process + " '" + state_dir(tb) + "' 1 " + what;
  return std::system(cmd.c_str()) == 0;
}
bool worker_kueue(const Testbed& tb, const std::string& what) { return worker_process(tb, "kueue", what); }

// Starts what a test stopped of the worker when it ends, whatever failed: the other tests need it.
struct WorkerRestart {
  const Testbed& tb;
  bool done = false;
  void operator()() {
    if (done) return;
    done = true;
    EXPECT_TRUE(worker_process(tb, "apiserver", "start"));
    EXPECT_TRUE(worker_kueue(tb, "start"));
  }
  ~WorkerRestart() { (*this)(); }
};

class MultiKueueTestbedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BUDCORE_NEED_TESTBED();
    this->tb = tb;
    std::string worker_kc = state_dir(*tb) + "/worker-1/kubeconfig";
    if (!std::ifstream(worker_kc)) GTEST_SKIP() << "no MultiKueue worker (start the test bed with start-multi or BUDCORE_K8S_WORKERS=1)";
    worker_kubeconfig = read_text(worker_kc);
    manager = tb->client();
    auto wc = Client::open(*load_kubeconfig(worker_kc));
    ASSERT_TRUE(wc) << wc.error().describe();
    worker = std::move(*wc);
    sfx = Testbed::unique("m").substr(2);
    tenant = core::Id::generate();
    opts.layout.cluster_queue_by_type = {{job::JobType::Batch, "batch-" + sfx}, {job::JobType::Service, "batch-" + sfx}};
    opts.layout.usecase_cluster_queue = "batch-" + sfx;
    opts.layout.tenant_namespace_prefix = "t" + sfx + "-";
    setup_clusters();
  }

  // One flavor, one ClusterQueue with 2 GPUs, the tenant's LocalQueue: the same on both.
  quota::QuotaConfig config() {
    std::string y = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: a100-" + sfx +
                    "}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: batch-" + sfx +
                    "}\nspec:\n  resourceGroups:\n  - coveredResources: [cpu, memory, nvidia.com/gpu]\n    flavors:\n"
                    "    - name: a100-" + sfx + "\n      resources: [{name: cpu, nominalQuota: 64}, {name: memory, nominalQuota: 256Gi},"
                    " {name: nvidia.com/gpu, nominalQuota: 2}]\n";
    auto imp = quota::import_kueue_yaml(y);
    EXPECT_TRUE(imp) << imp.error().describe();
    quota::QuotaConfig cfg = imp->config;
    quota::add_tenant_local_queues(cfg, tenant.to_string(), opts.layout);
    opts.flavors = cfg.resource_flavors;
    return cfg;
  }

  // The manager's ClusterQueue passes MultiKueue's check (its own MultiKueueCluster and config
  // for this worker); Kueue holds it inactive until the worker is connected.
  void setup_clusters() {
    MultiKueueSetup mk;
    mk.name = "mk-" + sfx;
    mk.workers.push_back({"w-" + sfx, worker_kubeconfig});
    auto check = apply_multikueue(*manager, mk);
    ASSERT_TRUE(check) << check.error().describe();
    check_name = *check;
    ApplyOptions ao;
    ao.admission_checks["batch-" + sfx] = {*check};
    auto cfg = config();
    for (Client* c : {worker.get(), manager.get()}) {
      auto r = apply_quota(*c, cfg, c == manager.get() ? ao : ApplyOptions{});
      ASSERT_TRUE(r) << r.error().describe();
      auto active = wait_quota_active(*c, cfg, std::chrono::seconds(60));
      ASSERT_TRUE(active) << active.error().describe();
    }
    opts.multikueue_cluster_queues = {"batch-" + sfx};
  }

  job::Job gpu_job(const std::string& name) {
    job::Job j = testing::busybox_job(name, 1);
    j.id = core::Id::generate();
    j.tenant_id = tenant;
    return j;
  }

  RenderedJob submit(const job::Job& j) {
    auto r = submit_job(*manager, j, opts);
    EXPECT_TRUE(r) << r.error().describe();
    return r ? r->rendered : RenderedJob{};
  }

  // budcore's view of the run, from the manager's objects, once `pred` holds (or the last one).
  ObservedJob wait_observed(const RenderedJob& rj, const std::function<bool(const ObservedJob&)>& pred,
                            std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    ObservedJob last;
    Testbed::wait_until(
        [&] {
          auto o = observe(*manager, rj);
          if (o) last = *o;
          return o && pred(*o);
        },
        timeout);
    return last;
  }
  ObservedJob wait_status(const RenderedJob& rj, JobStatus want) {
    return wait_observed(rj, [&](const ObservedJob& o) { return o.status == want; });
  }

  // The Workload of a Job on `c` (Kueue names it job-<name>-<hash>), or null.
  std::optional<Value> workload_of(Client& c, const RenderedJob& rj) {
    auto list = c.list(resources::workloads(), rj.namespace_);
    if (!list) return std::nullopt;
    for (const Value& w : list->items) {
      const Value* owners = w.find_path("metadata.ownerReferences");
      if (owners != nullptr && owners->is_list())
        for (const Value& o : owners->as_list())
          if (o.find("name") != nullptr && o.find("name")->as_string() == rj.name) return w;
    }
    return std::nullopt;
  }

  // The worker's copy of the manager's Workload: same name (MultiKueue creates it before the
  // worker's Job exists, so it has no owner to look it up by).
  std::optional<Value> remote_workload(const RenderedJob& rj) {
    auto local = workload_of(*manager, rj);
    if (!local) return std::nullopt;
    auto w = worker->get(resources::workloads(), rj.namespace_, local->find_path("metadata.name")->as_string());
    return w ? std::optional(*w) : std::nullopt;
  }

  bool worker_admitted(const RenderedJob& rj) {
    auto w = remote_workload(rj);
    if (!w) return false;
    auto c = find_condition(*w, "Admitted");
    return c && c->status == "True";
  }

  bool gone_from_worker(const RenderedJob& rj) {
    return Testbed::wait_until([&] {
      auto g = worker->get(resources::jobs(), rj.namespace_, rj.name);
      return !g && g.error().code == ErrorCode::NotFound && !remote_workload(rj);
    });
  }

  testing::Testbed* tb = nullptr;
  std::string worker_kubeconfig;
  std::unique_ptr<Client> manager, worker;
  std::string sfx, check_name;
  core::Id tenant;
  RenderOptions opts;
};

TEST_F(MultiKueueTestbedTest, ADispatchedJobRunsOnTheWorkerAndFinishesOnTheManager) {
  auto rj = submit(gpu_job("dispatched"));
  // Admitted on the worker first, then on the manager (the check turns Ready).
  auto o = wait_status(rj, JobStatus::Scheduled);
  ASSERT_EQ(o.status, JobStatus::Scheduled) << o.message;
  // "; starting" or, just before Kueue unsuspends the manager's Job, "; waiting for ...".
  EXPECT_EQ(o.message.rfind("admitted by ClusterQueue batch-" + sfx + " on worker cluster w-" + sfx + "; ", 0), 0u) << o.message;
  EXPECT_EQ(o.flavors.at("nvidia.com/gpu"), "a100-" + sfx);
  EXPECT_TRUE(worker_admitted(rj));
  auto remote = worker->get(resources::jobs(), rj.namespace_, rj.name);
  ASSERT_TRUE(remote) << remote.error().describe();
  EXPECT_EQ(remote->find_path("spec.managedBy"), nullptr);  // the worker's job controller runs it
  EXPECT_FALSE(remote->find_path("spec.suspend")->as_bool());
  auto mwl = workload_of(*manager, rj);
  ASSERT_TRUE(mwl);
  EXPECT_EQ(mwl->find_path("status.clusterName")->as_string(), "w-" + sfx);

  // The worker's job controller starts its pod, then finishes it; MultiKueue copies each
  // status back to the manager's Job.
  Value started = Map{{"status", Map{{"startTime", "2026-01-01T00:00:00Z"}, {"active", 1}, {"ready", 1}}}};
  ASSERT_TRUE(worker->patch(resources::jobs(), rj.namespace_, rj.name, started, PatchType::Merge, "status"));
  o = wait_status(rj, JobStatus::Running);
  EXPECT_EQ(o.status, JobStatus::Running) << o.message;
  EXPECT_EQ(o.message, "running; admitted by ClusterQueue batch-" + sfx + " on worker cluster w-" + sfx);
  auto st = testing::mark_job_complete(*worker, rj.namespace_, rj.name);
  ASSERT_TRUE(st) << st.error().describe();
  o = wait_status(rj, JobStatus::Completed);
  ASSERT_EQ(o.status, JobStatus::Completed) << o.message;
  EXPECT_TRUE(o.started_at && o.finished_at);  // the worker Job's startTime and completionTime
  ASSERT_TRUE(Testbed::wait_until([&] {
    mwl = workload_of(*manager, rj);
    auto f = mwl ? find_condition(*mwl, "Finished") : std::nullopt;
    return f && f->status == "True";
  }));
  EXPECT_EQ(find_condition(*mwl, "Finished")->reason, "Succeeded");
  EXPECT_TRUE(gone_from_worker(rj));  // MultiKueue deletes the worker's copies

  // The companion meters the manager's Workload: admitted (on the worker's word) to finished.
  auto facts = companion::read_workload(*mwl);
  ASSERT_TRUE(facts) << facts.error().describe();
  auto seg = companion::admission_state(*mwl);
  ASSERT_TRUE(seg.admitted_at && seg.ended_at);
  EXPECT_LE(*seg.admitted_at, *seg.ended_at);
  companion::CompanionConfig cc;
  auto usage = companion::segment_intervals(cc, *facts, tenant, companion::segment_key(facts->uid, *seg.admitted_at),
                                            *seg.admitted_at, *seg.ended_at);
  ASSERT_TRUE(usage) << usage.error().describe();
  ASSERT_EQ(usage->size(), 1u);
  EXPECT_EQ((*usage)[0].gpu_count, 1);
  EXPECT_EQ((*usage)[0].labels.at("kueue.x-k8s.io/cluster-queue"), "batch-" + sfx);
}

TEST_F(MultiKueueTestbedTest, AJobWithoutMultiKueuesManagedByIsRejected) {
  // What happens without RenderOptions::multikueue_cluster_queues and without Kueue's Job
  // webhook (which would default spec.managedBy): Kueue rejects the dispatch.
  opts.multikueue_cluster_queues.clear();
  auto rj = submit(gpu_job("unmanaged"));
  // Kueue deactivates the Workload first ("Kueue deactivated the workload") and writes the
  // check's reason with its next update: wait for that one.
  auto o = wait_observed(rj, [](const ObservedJob& x) {
    return x.status == JobStatus::Failed && x.message.find("managedBy") != std::string::npos;
  });
  ASSERT_EQ(o.status, JobStatus::Failed) << o.message;
  std::cerr << "unmanaged Job: " << o.reason << ": " << o.message << "\n";
  EXPECT_NE(o.message.find("managedBy"), std::string::npos) << o.message;
  EXPECT_FALSE(remote_workload(rj));
}

TEST_F(MultiKueueTestbedTest, APlatformOnTheManagerFindsItsMultiKueueQueuesAndRunsOnTheWorker) {
  auto dir = std::filesystem::temp_directory_path() / ("budcore_multikueue_platform_" + sfx);
  std::filesystem::create_directories(dir);
  platform::PlatformConfig cfg = platform::PlatformConfig::embedded(dir.string());
  cfg.clock = platform::ClockKind::System;
  cfg.cluster.quota = config();
  cfg.cluster.inventory.clear();
  cfg.cluster.layout = opts.layout;
  RenderOptions render = opts;
  render.multikueue_cluster_queues.clear();  // KueueCluster reads them from the manager
  auto kc = KueueCluster::create(tb->client(), KueueClusterOptions{render}, *core::system_clock());
  ASSERT_TRUE(kc) << kc.error().describe();
  auto opened = platform::Platform::open(std::move(cfg), std::move(*kc));
  ASSERT_TRUE(opened) << opened.error().describe();
  std::unique_ptr<platform::Platform> p = std::move(*opened);
  auto ctx = platform::CallContext::for_tenant(tenant);
  job::Job j = gpu_job("platform");
  j.id = core::Id();
  auto sub = p->submit(ctx, j);
  ASSERT_TRUE(sub) << sub.error().describe();
  core::Id id = sub->record.job.id;
  auto wait_for = [&](JobStatus want) {
    backend::JobRecord last;
    Testbed::wait_until(
        [&] {
          auto r = p->get_job(ctx, id);
          if (r) last = *r;
          return r && r->job.status == want;
        },
        std::chrono::seconds(60));
    return last;
  };
  auto scheduled = wait_for(JobStatus::Scheduled);
  ASSERT_EQ(scheduled.job.status, JobStatus::Scheduled) << scheduled.job.status_message.value_or("");
  std::cerr << "platform: " << scheduled.job.status_message.value_or("") << "\n";
  j.id = id;
  auto rj = render_job(j, opts);
  ASSERT_TRUE(rj) << rj.error().describe();
  EXPECT_TRUE(worker_admitted(*rj));
  ASSERT_TRUE(testing::mark_job_complete(*worker, rj->namespace_, rj->name));
  auto done = wait_for(JobStatus::Completed);
  EXPECT_EQ(done.job.status, JobStatus::Completed) << done.job.status_message.value_or("");
  EXPECT_TRUE(done.job.actual_start && done.job.actual_end);  // the worker Job's times, synced back
  p.reset();
  std::filesystem::remove_all(dir);
}

// Runs alone (tests/CMakeLists.txt: *WorkerKueue*, *WorkerApiserver*): it stops the worker's
// Kueue that every MultiKueue test relies on.
TEST_F(MultiKueueTestbedTest, AWorkerKueueKilledMidRunIsNotNoticedByTheManager) {
  auto running = submit(gpu_job("running"));
  auto o = wait_status(running, JobStatus::Scheduled);
  ASSERT_EQ(o.status, JobStatus::Scheduled) << o.message;
  ASSERT_TRUE(worker_kueue(*tb, "kill"));
  WorkerRestart restart{*tb};

  // The manager talks to the worker's apiserver, which still answers: the worker stays Active.
  auto mkc = manager->get(resources::multikueue_clusters(), {}, "w-" + sfx);
  ASSERT_TRUE(mkc) << mkc.error().describe();
  EXPECT_EQ(find_condition(*mkc, "Active")->status, "True");

  // A new job is dispatched (its Workload created on the worker) but nobody admits it there.
  auto waiting = submit(gpu_job("waiting"));
  o = wait_observed(waiting, [](const ObservedJob& x) { return x.message.find("dispatched to") != std::string::npos; });
  EXPECT_EQ(o.status, JobStatus::Queued);
  EXPECT_EQ(o.message, "quota reserved in ClusterQueue batch-" + sfx + "; waiting for admission checks: " + check_name +
                           " (Pending: dispatched to w-" + sfx + ")");
  EXPECT_TRUE(remote_workload(waiting));
  EXPECT_FALSE(worker_admitted(waiting));

  // The running job completes on the worker: without the worker's Kueue its Workload never
  // finishes there, yet the manager copies the Job's status and its own Job integration
  // finishes the manager's Workload, so budcore reports the run completed and meters it.
  auto st = testing::mark_job_complete(*worker, running.namespace_, running.name);
  ASSERT_TRUE(st) << st.error().describe();
  o = wait_status(running, JobStatus::Completed);
  EXPECT_EQ(o.status, JobStatus::Completed) << o.message;
  EXPECT_TRUE(o.started_at && o.finished_at);
  auto mwl = workload_of(*manager, running);
  ASSERT_TRUE(mwl);
  EXPECT_TRUE(Testbed::wait_until([&] {
    mwl = workload_of(*manager, running);
    auto f = mwl ? find_condition(*mwl, "Finished") : std::nullopt;
    return f && f->status == "True";
  }));
  auto seg = companion::admission_state(*mwl);
  EXPECT_TRUE(seg.admitted_at && seg.ended_at);
  EXPECT_TRUE(gone_from_worker(running));

  // Kueue back on the worker: the waiting job is admitted there and then on the manager.
  restart();
  o = wait_status(waiting, JobStatus::Scheduled);
  EXPECT_EQ(o.status, JobStatus::Scheduled) << o.message;
  EXPECT_TRUE(worker_admitted(waiting));
}

// Runs alone too. The worker's apiserver goes away mid-run: the manager notices when its
// connection fails, keeps the job admitted for the test bed's workerLostTimeout (30 s), then
// evicts and requeues it; once the worker is back the job is dispatched again.
TEST_F(MultiKueueTestbedTest, AWorkerApiserverLostMidRunRequeuesTheJob) {
  auto rj = submit(gpu_job("lost"));
  auto o = wait_status(rj, JobStatus::Scheduled);
  ASSERT_EQ(o.status, JobStatus::Scheduled) << o.message;
  ASSERT_TRUE(worker_process(*tb, "apiserver", "kill"));
  WorkerRestart restart{*tb};
  const auto t0 = std::chrono::steady_clock::now();
  o = wait_observed(rj, [](const ObservedJob& x) { return x.status != JobStatus::Scheduled; }, std::chrono::seconds(240));
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << "after " << secs << " s: " << o.reason << ": " << o.message << "\n";
  EXPECT_EQ(o.status, JobStatus::Queued);
  EXPECT_EQ(o.reason, "AdmissionCheck");
  EXPECT_NE(o.message.find("Admitting remote lost"), std::string::npos) << o.message;
  auto mkc = manager->get(resources::multikueue_clusters(), {}, "w-" + sfx);
  ASSERT_TRUE(mkc) << mkc.error().describe();
  EXPECT_EQ(find_condition(*mkc, "Active")->status, "False");

  // The worker comes back: Kueue reconnects and either dispatches the job there again or, when
  // it finds the worker's copy of the job gone, finishes the Workload (OwnerNotFound); both
  // happen on the test bed, and budcore reports either as it is.
  restart();
  o = wait_observed(
      rj,
      [](const ObservedJob& x) {
        return x.status == JobStatus::Scheduled || x.status == JobStatus::Running || x.status == JobStatus::Failed;
      },
      std::chrono::seconds(180));
  std::cerr << "worker back: " << o.message << "\n";
  if (o.status == JobStatus::Failed) {
    EXPECT_NE(o.message.find("OwnerNotFound"), std::string::npos) << o.message;
  } else {
    EXPECT_TRUE(o.status == JobStatus::Scheduled || o.status == JobStatus::Running) << o.message;
    EXPECT_TRUE(worker_admitted(rj));
  }
}

}  // namespace
}  // namespace budcore::kubernetes
