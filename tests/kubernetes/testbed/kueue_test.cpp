// budcore jobs admitted by the real Kueue controller: admission and unsuspension with the
// flavor's node selector, Kueue's Pending message, completion freeing quota, preemption by
// priority, cohort borrowing, service jobs, cancel, resubmission and hand-edited objects.
// With no kube-controller-manager or kubelet, a test completes a Job by patching its status,
// as Kueue's own integration tests do.
#include <gtest/gtest.h>

#include "budcore/kubernetes/jobs.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/quota/kueue_yaml.hpp"
#include "kubernetes/testbed/testbed.hpp"

#include <fstream>
#include <set>
#include <iostream>
#include <sstream>

namespace budcore::kubernetes {
namespace {

using core::ErrorCode;
using core::Map;
using core::Value;
using job::JobStatus;
using testing::Testbed;

void complete(Client& c, const std::string& ns, const std::string& name) {
  auto st = testing::mark_job_complete(c, ns, name);
  ASSERT_TRUE(st) << st.error().describe();
}

class KueueTestbedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BUDCORE_NEED_TESTBED();
    this->tb = tb;
    client = tb->client();
    sfx = Testbed::unique("k").substr(2);
    tenant = core::Id::generate();
    // One ClusterQueue per job type, each test with its own names.
    opts.layout.cluster_queue_by_type = {{job::JobType::Batch, "batch-" + sfx},
                                         {job::JobType::Training, "batch-" + sfx},
                                         {job::JobType::Service, "serve-" + sfx}};
    opts.layout.usecase_cluster_queue = "batch-" + sfx;
    opts.layout.tenant_namespace_prefix = "t" + sfx + "-";
  }

  // a100 (2 GPUs) then h100 (2 GPUs) for batch; serve has 2 a100; optional cohort.
  quota::QuotaConfig config(const std::string& extra_batch_spec = "", const std::string& cohort = "", int h100 = 2) {
    std::string y = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: a100-" + sfx +
                    "}\nspec: {nodeLabels: {gpu.type: a100-" + sfx + "}}\n---\n"
                    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: h100-" + sfx +
                    "}\nspec: {nodeLabels: {gpu.type: h100-" + sfx + "}}\n---\n"
                    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: batch-" + sfx + "}\nspec:\n" +
                    (cohort.empty() ? "" : "  cohortName: " + cohort + "\n") + extra_batch_spec +
                    "  resourceGroups:\n  - coveredResources: [cpu, memory, nvidia.com/gpu]\n    flavors:\n"
                    "    - name: a100-" + sfx + "\n      resources: [{name: cpu, nominalQuota: 64}, {name: memory, nominalQuota: 256Gi},"
                    " {name: nvidia.com/gpu, nominalQuota: 2}]\n"
                    "    - name: h100-" + sfx + "\n      resources: [{name: cpu, nominalQuota: 64}, {name: memory, nominalQuota: 256Gi},"
                    " {name: nvidia.com/gpu, nominalQuota: " + std::to_string(h100) + "}]\n---\n"
                    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: serve-" + sfx + "}\nspec:\n" +
                    (cohort.empty() ? "" : "  cohortName: " + cohort + "\n") +
                    "  resourceGroups:\n  - coveredResources: [cpu, memory, nvidia.com/gpu]\n    flavors:\n"
                    "    - name: a100-" + sfx + "\n      resources: [{name: cpu, nominalQuota: 64}, {name: memory, nominalQuota: 256Gi},"
                    " {name: nvidia.com/gpu, nominalQuota: 2}]\n";
    auto imp = quota::import_kueue_yaml(y);
    EXPECT_TRUE(imp) << imp.error().describe();
    quota::QuotaConfig cfg = imp->config;
    quota::add_tenant_local_queues(cfg, tenant.to_string(), opts.layout);
    opts.flavors = cfg.resource_flavors;
    return cfg;
  }

  void apply(const quota::QuotaConfig& cfg) {
    auto r = apply_quota(*client, cfg);
    ASSERT_TRUE(r) << r.error().describe();
    // Jobs submitted before Kueue has every queue of a cohort would be judged without it.
    auto active = wait_quota_active(*client, cfg, std::chrono::seconds(60));
    ASSERT_TRUE(active) << active.error().describe();
  }

  job::Job gpu_job(const std::string& name, int gpus, job::JobPriority prio = job::JobPriority::Normal,
                   job::JobType type = job::JobType::Batch) {
    job::Job j = testing::busybox_job(name, gpus);
    j.id = core::Id::generate();
    j.tenant_id = tenant;
    j.job_type = type;
    j.priority = prio;
    j.preemptible = true;
    return j;
  }

  RenderedJob submit(const job::Job& j) {
    auto r = submit_job(*client, j, opts);
    EXPECT_TRUE(r) << r.error().describe();
    return r ? r->rendered : RenderedJob{};
  }

  // Deleted objects linger while Kueue's finalizer is on them.
  bool gone(const Resource& r, const std::string& ns, const std::string& name) {
    return Testbed::wait_until([&] {
      auto g = client->get(r, ns, name);
      return !g && g.error().code == ErrorCode::NotFound;
    });
  }

  ObservedJob wait_status(const RenderedJob& rj, JobStatus want, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    ObservedJob last;
    Testbed::wait_until(
        [&] {
          auto o = observe(*client, rj);
          if (o) last = *o;
          return o && o->status == want;
        },
        timeout);
    return last;
  }

  testing::Testbed* tb = nullptr;
  std::unique_ptr<Client> client;
  std::string sfx;
  core::Id tenant;
  RenderOptions opts;
};

TEST_F(KueueTestbedTest, AdmittedJobIsUnsuspendedOnItsFlavor) {
  apply(config());
  auto rj = submit(gpu_job("first", 2));
  auto o = wait_status(rj, JobStatus::Scheduled);
  ASSERT_EQ(o.status, JobStatus::Scheduled) << o.message;
  EXPECT_EQ(o.cluster_queue, "batch-" + sfx);
  EXPECT_EQ(o.flavors.at("nvidia.com/gpu"), "a100-" + sfx);
  // Kueue unsuspends the Job and injects the flavor's node labels.
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto j = client->get(resources::jobs(), rj.namespace_, rj.name);
    return j && !j->find_path("spec.suspend")->as_bool();
  }));
  auto j = client->get(resources::jobs(), rj.namespace_, rj.name);
  EXPECT_EQ(j->find_path("spec.template.spec.nodeSelector")->find("gpu.type")->as_string(), "a100-" + sfx);
  // A second job lands on the next flavor.
  auto rj2 = submit(gpu_job("second", 2));
  auto o2 = wait_status(rj2, JobStatus::Scheduled);
  ASSERT_EQ(o2.status, JobStatus::Scheduled) << o2.message;
  EXPECT_EQ(o2.flavors.at("nvidia.com/gpu"), "h100-" + sfx);
}

TEST_F(KueueTestbedTest, JobThatDoesNotFitWaitsUntilCompletionFreesQuota) {
  apply(config());
  auto a = submit(gpu_job("a", 2));
  auto b = submit(gpu_job("b", 2));
  // Created in one second, the two may be admitted in either order: a holds a100 or h100.
  auto oa = wait_status(a, JobStatus::Scheduled);
  ASSERT_EQ(oa.status, JobStatus::Scheduled);
  ASSERT_EQ(wait_status(b, JobStatus::Scheduled).status, JobStatus::Scheduled);
  auto c = submit(gpu_job("c", 1));
  ObservedJob oc;
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto o = observe(*client, c);
    if (o) oc = *o;
    return o && o->reason == "Pending";
  })) << oc.message;
  EXPECT_EQ(oc.status, JobStatus::Queued);
  EXPECT_NE(oc.message.find("insufficient unused quota for nvidia.com/gpu"), std::string::npos) << oc.message;
  auto cj = client->get(resources::jobs(), c.namespace_, c.name);
  EXPECT_TRUE(cj->find_path("spec.suspend")->as_bool());  // stays suspended
  // The job controller would do this when the pods finish.
  complete(*client, a.namespace_, a.name);
  EXPECT_EQ(wait_status(a, JobStatus::Completed).status, JobStatus::Completed);
  auto ocs = wait_status(c, JobStatus::Scheduled);
  EXPECT_EQ(ocs.status, JobStatus::Scheduled) << ocs.message;
  EXPECT_EQ(ocs.flavors.at("nvidia.com/gpu"), oa.flavors.at("nvidia.com/gpu")) << "the flavor a freed";
}

TEST_F(KueueTestbedTest, HigherPriorityJobPreemptsALowerOne) {
  apply(config("  preemption: {withinClusterQueue: LowerPriority}\n", "", 0));  // 2 GPUs in all
  auto low = submit(gpu_job("low", 1, job::JobPriority::Low));
  auto spot = submit(gpu_job("spot", 1, job::JobPriority::Spot));
  ASSERT_EQ(wait_status(low, JobStatus::Scheduled).status, JobStatus::Scheduled);
  ASSERT_EQ(wait_status(spot, JobStatus::Scheduled).status, JobStatus::Scheduled);
  auto high = submit(gpu_job("high", 1, job::JobPriority::High));
  // The lowest priority (spot) is the victim; the high one takes its place.
  auto victim = wait_status(spot, JobStatus::Preempted);
  ASSERT_EQ(victim.status, JobStatus::Preempted) << victim.message;
  EXPECT_EQ(victim.preemption_reason, "InClusterQueue");
  EXPECT_NE(victim.message.find("Preempted to accommodate a workload"), std::string::npos) << victim.message;
  EXPECT_EQ(wait_status(high, JobStatus::Scheduled).status, JobStatus::Scheduled);
  EXPECT_EQ(observe(*client, low)->status, JobStatus::Scheduled);
  // The victim's Job is suspended again by Kueue, and it waits in the queue.
  auto j = client->get(resources::jobs(), spot.namespace_, spot.name);
  EXPECT_TRUE(j->find_path("spec.suspend")->as_bool());
}

TEST_F(KueueTestbedTest, CohortLetsAQueueBorrow) {
  auto cfg = config("", "pool-" + sfx);
  apply(cfg);
  // The serve queue lends its idle a100s: batch holds 2 + 2 of its own and borrows 2 more.
  std::vector<RenderedJob> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(submit(gpu_job("b" + std::to_string(i), 2)));
  for (auto& rj : jobs) {
    auto o = wait_status(rj, JobStatus::Scheduled);
    ASSERT_EQ(o.status, JobStatus::Scheduled) << rj.name << ": " << o.reason << ": " << o.message;
  }
  core::Result<Value> cq = client->get(resources::cluster_queues(), {}, "batch-" + sfx);
  ASSERT_TRUE(cq);
  EXPECT_TRUE(Testbed::wait_until(
      [&] {
        cq = client->get(resources::cluster_queues(), {}, "batch-" + sfx);
        std::string s = core::to_json(*cq->find_path("status"));
        return s.find(R"("borrowed":"2")") != std::string::npos;
      },
      std::chrono::seconds(60)))
      << core::to_json(*cq->find_path("status"));
  // Read back what the cluster has: budcore's queues are there, with the cohort.
  auto back = read_quota(*client);
  ASSERT_TRUE(back) << back.error().describe();
  bool found = false;
  for (const auto& q : back->config.cluster_queues)
    if (q.name == "batch-" + sfx) {
      found = true;
      EXPECT_EQ(q.cohort.value_or(""), "pool-" + sfx);
    }
  EXPECT_TRUE(found);
}

// Whoever may create LocalQueues in a namespace can name a ClusterQueue that does not exist;
// Kueue keeps that queue inactive, and reading the cluster's quota leaves it out with a warning
// instead of failing for everyone (the companion reads the quota this way on every pass).
TEST_F(KueueTestbedTest, ALocalQueueOfAMissingClusterQueueDoesNotBreakTheQuotaRead) {
  apply(config());
  const std::string ns = "dangling-" + sfx;
  ASSERT_TRUE(kubernetes::ensure_namespace(*client, ns));
  auto lq = client->create(resources::local_queues(), ns,
                           Value::map({{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                       {"kind", "LocalQueue"},
                                       {"metadata", Value::map({{"name", "nowhere"}, {"namespace", ns}})},
                                       {"spec", Value::map({{"clusterQueue", "no-such-cq-" + sfx}})}}));
  ASSERT_TRUE(lq) << lq.error().describe();
  auto back = read_quota(*client);
  ASSERT_TRUE(back) << back.error().describe();
  bool batch = false;
  for (const auto& q : back->config.cluster_queues) batch = batch || q.name == "batch-" + sfx;
  EXPECT_TRUE(batch) << "the valid queues are still read";
  for (const auto& q : back->config.local_queues) EXPECT_NE(q.namespace_, ns) << "the dangling queue is left out";
  bool warned = false;
  for (const auto& w : back->warnings) warned = warned || w.find("no-such-cq-" + sfx) != std::string::npos;
  EXPECT_TRUE(warned) << "a warning names the missing ClusterQueue";
  ASSERT_TRUE(client->remove(resources::local_queues(), ns, "nowhere"));
}

TEST_F(KueueTestbedTest, WaitingForQueuesNamesTheOneThatIsNotActive) {
  auto cfg = config();
  auto never = wait_quota_active(*client, cfg, std::chrono::milliseconds(200));  // nothing applied yet
  ASSERT_FALSE(never);
  EXPECT_NE(never.error().message.find("ClusterQueue batch-" + sfx + " is not active after 200 ms: not found"),
            std::string::npos)
      << never.error().message;
  apply(cfg);  // waits until active
  EXPECT_TRUE(wait_quota_active(*client, cfg, std::chrono::milliseconds(200)));
}

TEST_F(KueueTestbedTest, ServiceJobIsAdmittedAndScaledUp) {
  apply(config());
  auto j = gpu_job("endpoint", 1, job::JobPriority::High, job::JobType::Service);
  j.spec.mutable_map().set("replicas", 2);
  j.spec.mutable_map().set("ports", core::List{Value(8000)});
  auto rj = submit(j);
  ASSERT_EQ(rj.objects.size(), 3u);
  auto o = wait_status(rj, JobStatus::Scheduled);
  ASSERT_EQ(o.status, JobStatus::Scheduled) << o.message;
  EXPECT_EQ(o.cluster_queue, "serve-" + sfx);
  auto dep = client->get(resources::deployments(), rj.namespace_, rj.name);
  ASSERT_TRUE(dep);
  EXPECT_EQ(dep->find_path("spec.replicas")->as_int(), 2);
  EXPECT_EQ(dep->find_path("spec.template.spec.nodeSelector")->find("gpu.type")->as_string(), "a100-" + sfx);
  ASSERT_TRUE(client->get(resources::services(), rj.namespace_, rj.name));
  // A second service needing 2 more GPUs waits (2 replicas x 1 GPU hold the quota).
  auto rj2 = submit(gpu_job("endpoint2", 1, job::JobPriority::High, job::JobType::Service));
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto o2 = observe(*client, rj2);
    return o2 && o2->reason == "Pending";
  }));
  auto dep2 = client->get(resources::deployments(), rj2.namespace_, rj2.name);
  EXPECT_EQ(dep2->find_path("spec.replicas")->as_int(), 0);
  // Cancelling the first frees its quota for the second.
  ASSERT_TRUE(cancel_job(*client, rj));
  EXPECT_TRUE(gone(resources::workloads(), rj.namespace_, rj.name));
  EXPECT_EQ(wait_status(rj2, JobStatus::Scheduled).status, JobStatus::Scheduled);
}

TEST_F(KueueTestbedTest, CancelFreesQuotaAndResubmitNeverDuplicates) {
  apply(config());
  auto j = gpu_job("once", 2);
  auto first = submit_job(*client, j, opts);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->created);
  auto again = submit_job(*client, j, opts);  // a retry after a lost answer, a restart...
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_FALSE(again->created);
  ListOptions lo;
  lo.label_selector = std::string(kLabelJobId) + "=" + j.id.to_string();
  EXPECT_EQ(client->list(resources::jobs(), first->rendered.namespace_, lo)->items.size(), 1u);
  ASSERT_EQ(wait_status(first->rendered, JobStatus::Scheduled).status, JobStatus::Scheduled);
  auto other = submit(gpu_job("waiting", 2));
  auto third = submit(gpu_job("waiting2", 2));
  ASSERT_EQ(wait_status(other, JobStatus::Scheduled).status, JobStatus::Scheduled);
  auto objs = fetch_job_objects(*client, first->rendered);
  ASSERT_TRUE(objs && objs->workload);
  std::string wl = objs->workload->find_path("metadata.name")->as_string();
  ASSERT_TRUE(cancel_job(*client, first->rendered));
  EXPECT_TRUE(gone(resources::jobs(), first->rendered.namespace_, first->rendered.name));
  EXPECT_TRUE(gone(resources::workloads(), first->rendered.namespace_, wl));
  EXPECT_EQ(wait_status(third, JobStatus::Scheduled).status, JobStatus::Scheduled);
  EXPECT_EQ(observe(*client, first->rendered)->status, JobStatus::Pending);  // nothing left
  ASSERT_TRUE(cancel_job(*client, first->rendered));                         // idempotent
}

TEST_F(KueueTestbedTest, HandEditedObjectsAreReportedNotDuplicated) {
  apply(config());
  auto j = gpu_job("edited", 1);
  auto rj = submit(j);
  // Someone moves the Job to another queue by hand.
  auto patched = client->patch(resources::jobs(), rj.namespace_, rj.name,
                               Map{{"metadata", Map{{"labels", Map{{"kueue.x-k8s.io/queue-name", "elsewhere"}}}}}});
  ASSERT_TRUE(patched);
  auto again = submit_job(*client, j, opts);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::Conflict);
  EXPECT_NE(again.error().message.find("Job " + rj.namespace_ + "/" + rj.name +
                                       ": metadata.labels.kueue.x-k8s.io/queue-name is 'elsewhere', budcore set 'batch-" + sfx + "'"),
            std::string::npos)
      << again.error().message;
  // A different job whose name collides (an object not labelled with its id).
  auto stranger = gpu_job("stranger", 1);
  stranger.id = j.id;
  stranger.tenant_id = tenant;
  auto cm = client->patch(resources::jobs(), rj.namespace_, rj.name,
                          Map{{"metadata", Map{{"labels", Map{{kLabelJobId, "someone-else"}}}}}});
  ASSERT_TRUE(cm);
  auto taken = submit_job(*client, stranger, opts);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().field, std::string("metadata.labels.") + kLabelJobId);
  EXPECT_NE(taken.error().message.find("belongs to job someone-else"), std::string::npos) << taken.error().message;
}

TEST_F(KueueTestbedTest, InvalidQuotaObjectsAreRefusedByKueuesSchema) {
  // budcore's own validation runs first...
  auto cfg = config();
  cfg.cluster_queues[0].resource_groups[0].flavors[0].resources[0].borrowing_limit = core::Quantity::from_int(1);
  auto r = apply_quota(*client, cfg);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_NE(r.error().field.find("borrowing_limit"), std::string::npos) << r.error().describe();
  // ...and what only the cluster knows comes back naming the object and field.
  Value bad = Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                  {"kind", "ClusterQueue"},
                  {"metadata", Map{{"name", "bad-" + sfx}}},
                  {"spec", Map{{"queueingStrategy", "LIFO"}}}};
  auto refused = client->apply(resources::cluster_queues(), {}, bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Invalid);
  EXPECT_EQ(refused.error().field, "spec.queueingStrategy");
  EXPECT_NE(refused.error().message.find("LIFO"), std::string::npos) << refused.error().message;
}

TEST_F(KueueTestbedTest, MultiKueueManagerObjectsAreAcceptedAndHoldAdmission) {
  // One machine has one control plane, so the worker here is unreachable: what is tested is
  // that Kueue accepts budcore's manager-side objects, reports the worker's state, and holds
  // admission on the MultiKueue check (see docs/kubernetes.md for a real manager + workers).
  std::ifstream in(tb->kubeconfig());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string worker = ss.str();
  worker.replace(worker.find("server: ") + 8, worker.find('\n', worker.find("server: ")) - worker.find("server: ") - 8,
                 "https://127.0.0.1:1");
  MultiKueueSetup mk;
  mk.name = "mk-" + sfx;
  mk.workers.push_back({"worker-" + sfx, worker});
  auto check = apply_multikueue(*client, mk);
  ASSERT_TRUE(check) << check.error().describe();
  ApplyOptions ao;
  ao.admission_checks["batch-" + sfx] = {*check};
  auto applied = apply_quota(*client, config(), ao);
  ASSERT_TRUE(applied) << applied.error().describe();
  std::optional<Condition> active;
  EXPECT_TRUE(Testbed::wait_until([&] {
    auto c = client->get(resources::multikueue_clusters(), {}, "worker-" + sfx);
    if (c) active = find_condition(*c, "Active");
    return active.has_value();
  }));
  ASSERT_TRUE(active);
  EXPECT_EQ(active->status, "False");
  EXPECT_FALSE(active->message.empty());
  // Kueue holds the ClusterQueue inactive while its MultiKueue check has no active worker: a
  // job waits (suspended), and budcore says why.
  std::optional<Condition> ac_active;
  EXPECT_TRUE(Testbed::wait_until([&] {
    auto ac = client->get(resources::admission_checks(), {}, *check);
    if (ac) ac_active = find_condition(*ac, "Active");
    return ac_active.has_value();
  }));
  auto rj = submit(gpu_job("dispatched", 1));
  ObservedJob o;
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto r = observe(*client, rj);
    if (r) o = *r;
    return r && r->message.find("inactive") != std::string::npos;
  })) << o.message;
  EXPECT_EQ(o.status, JobStatus::Queued);
  EXPECT_NE(o.message.find("ClusterQueue batch-" + sfx + " is inactive"), std::string::npos) << o.message;
  auto j = client->get(resources::jobs(), rj.namespace_, rj.name);
  EXPECT_TRUE(j->find_path("spec.suspend")->as_bool());
  std::cerr << "MultiKueueCluster Active=" << active->status << " " << active->reason << ": " << active->message << "\n"
            << "AdmissionCheck Active=" << (ac_active ? ac_active->status + " " + ac_active->reason + ": " + ac_active->message : "?")
            << "\n";
  // Bad setups are refused before anything is applied.
  MultiKueueSetup bad = mk;
  bad.workers[0].kubeconfig = "apiVersion: v1\nclusters:\n- name: c\n  cluster: {server: https://a, certificate-authority: /etc/ca.crt}\n";
  auto refused = multikueue_objects(bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "workers[0].kubeconfig");
}

TEST_F(KueueTestbedTest, AReopenedClientFindsItsJobsByLabel) {
  // What a platform reopened against the cluster starts from: its objects, by label, with
  // what happened while it was down (one admitted and completed, one deleted behind its back).
  apply(config());
  auto a = gpu_job("a", 1);
  auto b = gpu_job("b", 1);
  auto c = gpu_job("c", 1);
  auto ra = submit(a);
  auto rb = submit(b);
  auto rc = submit(c);
  ASSERT_EQ(wait_status(ra, JobStatus::Scheduled).status, JobStatus::Scheduled);
  client.reset();  // "crash"
  {
    auto other = tb->client();
    complete(*other, ra.namespace_, ra.name);
    ASSERT_TRUE(other->remove(resources::jobs(), rb.namespace_, rb.name));
  }
  client = tb->client();  // "restart"
  std::vector<std::string> skipped;
  auto found = list_budcore_jobs(*client, ra.namespace_, &skipped);
  ASSERT_TRUE(found) << found.error().describe();
  ASSERT_EQ(found->size(), 2u);
  std::set<std::string> ids;
  for (const auto& j : *found) {
    ids.insert(j.job_id.to_string());
    EXPECT_EQ(j.run, 1);
    EXPECT_EQ(j.tenant, tenant.to_string());
    EXPECT_EQ(j.kind, "Job");
  }
  EXPECT_TRUE(ids.count(a.id.to_string()) && ids.count(c.id.to_string()));
  EXPECT_TRUE(skipped.empty());
  EXPECT_EQ(wait_status(ra, JobStatus::Completed).status, JobStatus::Completed);  // caught up
  EXPECT_EQ(observe(*client, rb)->status, JobStatus::Pending);                    // gone: "no objects"
  EXPECT_EQ(observe(*client, rb)->message, "no objects in the cluster");
  // Resubmitting what is there changes nothing; the deleted one comes back once.
  auto again = submit_job(*client, c, opts);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->created);
  auto back = submit_job(*client, b, opts);
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->created);
  EXPECT_EQ(list_budcore_jobs(*client, ra.namespace_)->size(), 3u);
  // A label edited by hand is reported, not adopted.
  ASSERT_TRUE(client->patch(resources::jobs(), rc.namespace_, rc.name, Map{{"metadata", Map{{"labels", Map{{kLabelJobId, "not-a-uuid"}}}}}}));
  skipped.clear();
  EXPECT_EQ(list_budcore_jobs(*client, ra.namespace_, &skipped)->size(), 2u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("Job " + rc.namespace_ + "/" + rc.name), std::string::npos) << skipped[0];
}

}  // namespace
}  // namespace budcore::kubernetes
