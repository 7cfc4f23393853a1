// Rendering budcore jobs as Kubernetes objects, and Kueue/Job conditions as budcore statuses.
#include <gtest/gtest.h>

#include "budcore/core/json.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/kubernetes/render.hpp"
#include "budcore/kubernetes/status.hpp"

namespace budcore::kubernetes {
namespace {

using core::ErrorCode;
using core::Value;
using job::JobStatus;

job::Job base_job() {
  auto j = job::Job::from_json(R"({
    "id": "0b8f6d2e-3c1a-4f7e-9a55-1d2c3b4a5e6f", "name": "embed-batch",
    "tenant_id": "11111111-2222-4333-8444-555555555555", "project_id": "66666666-7777-4888-9999-aaaaaaaaaaaa",
    "pipeline_id": "bbbbbbbb-cccc-4ddd-8eee-ffffffffffff", "pipeline_step_id": "12345678-1234-4234-8234-123456789abc",
    "job_type": "batch", "deployment_type": "docker", "priority": "high",
    "gpu_type": "a100", "gpu_count": 2, "cpu_cores": 4, "memory_gb": 16, "max_duration_seconds": 3600,
    "spec": {"image": "ghcr.io/acme/embed:1.2", "args": ["--batch", "64"],
             "env": {"MODEL": "bge", "WORKERS": 4},
             "secret_env": {"HF_TOKEN": {"secret": "hf", "key": "token"}},
             "env_from_secrets": ["common-env"],
             "node_selector": {"zone": "a"},
             "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}})");
  if (!j) throw std::runtime_error(j.error().describe());
  return *j;
}

RenderOptions options() {
  RenderOptions o;
  o.flavors.push_back(quota::ResourceFlavor{"a100", {{"gpu.type", "a100"}}, {}});
  return o;
}

TEST(RenderTest, BatchJobIsASuspendedKueueJob) {
  auto r = render_job(base_job(), options());
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->objects.size(), 1u);
  const Value& j = r->objects[0];
  EXPECT_EQ(r->name, "bc-0b8f6d2e-3c1a-4f7e-9a55-1d2c3b4a5e6f");
  EXPECT_EQ(r->namespace_, "tenant-11111111-2222-4333-8444-555555555555");
  EXPECT_EQ(r->local_queue, "batch-jobs");
  EXPECT_EQ(j.find("kind")->as_string(), "Job");
  EXPECT_TRUE(j.find_path("spec.suspend")->as_bool());
  EXPECT_EQ(j.find_path("spec.backoffLimit")->as_int(), 0);
  EXPECT_EQ(j.find_path("spec.activeDeadlineSeconds")->as_int(), 3600);
  const Value* labels = j.find_path("metadata.labels");
  EXPECT_EQ(labels->find("kueue.x-k8s.io/queue-name")->as_string(), "batch-jobs");
  EXPECT_EQ(labels->find("kueue.x-k8s.io/priority-class")->as_string(), "budcore-high");
  EXPECT_EQ(labels->find(kLabelJobId)->as_string(), "0b8f6d2e-3c1a-4f7e-9a55-1d2c3b4a5e6f");
  EXPECT_EQ(labels->find(kLabelTenant)->as_string(), "11111111-2222-4333-8444-555555555555");
  EXPECT_EQ(labels->find(kLabelProject)->as_string(), "66666666-7777-4888-9999-aaaaaaaaaaaa");
  EXPECT_EQ(labels->find(kLabelPipeline)->as_string(), "bbbbbbbb-cccc-4ddd-8eee-ffffffffffff");
  EXPECT_EQ(labels->find(kLabelStep)->as_string(), "12345678-1234-4234-8234-123456789abc");
  EXPECT_EQ(j.find_path("metadata.annotations")->find(kAnnotationJobName)->as_string(), "embed-batch");
  EXPECT_FALSE(j.find_path("metadata.annotations")->find(kAnnotationRenderHash)->as_string().empty());
  const Value* pod = j.find_path("spec.template.spec");
  EXPECT_EQ(pod->find("restartPolicy")->as_string(), "Never");
  // The flavor's node labels pin Kueue's choice; the spec's own selector stays.
  EXPECT_EQ(pod->find_path("nodeSelector")->find("gpu.type")->as_string(), "a100");
  EXPECT_EQ(pod->find_path("nodeSelector.zone")->as_string(), "a");
  EXPECT_EQ(pod->find("tolerations")->as_list()[0].find("key")->as_string(), "nvidia.com/gpu");
  const Value& c = pod->find("containers")->as_list()[0];
  EXPECT_EQ(c.find("image")->as_string(), "ghcr.io/acme/embed:1.2");
  EXPECT_EQ(c.find_path("resources.requests.cpu")->as_string(), "4");
  EXPECT_EQ(c.find_path("resources.requests.memory")->as_string(), "16Gi");
  EXPECT_EQ(c.find_path("resources.requests")->find("nvidia.com/gpu")->as_string(), "2");
  EXPECT_EQ(c.find_path("resources.limits")->find("nvidia.com/gpu")->as_string(), "2");
  EXPECT_EQ(c.find_path("resources.limits.cpu"), nullptr);
  std::string env = core::to_json(*c.find("env"));
  EXPECT_NE(env.find(R"({"name":"MODEL","value":"bge"})"), std::string::npos) << env;
  EXPECT_NE(env.find(R"({"name":"WORKERS","value":"4"})"), std::string::npos) << env;
  EXPECT_NE(env.find(R"("secretKeyRef":{"name":"hf","key":"token"})"), std::string::npos) << env;
  EXPECT_EQ(c.find("envFrom")->as_list()[0].find_path("secretRef.name")->as_string(), "common-env");
  EXPECT_EQ(labels->find(kLabelRun)->as_string(), "1");
  auto retry = render_job(base_job(), options(), 2);
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->name, r->name + "-r2");
  EXPECT_EQ(retry->objects[0].find_path("metadata.labels")->find(kLabelRun)->as_string(), "2");
  EXPECT_EQ(render_job(base_job(), options(), 0).error().field, "run");
  // Idempotent: the same job renders the same objects.
  EXPECT_EQ(core::to_json(render_job(base_job(), options())->objects[0]), core::to_json(j));
}

// The labels flavors are told apart by are the platform's: a job's own node selector naming one
// (to land on another GPU model than its gpu_type and its tenant's policy allow) is refused.
TEST(RenderTest, AJobCannotSelectAFlavorsNodesItself) {
  job::Job j = base_job();
  j.spec.mutable_map()["node_selector"] = core::Value::map({{"gpu.type", "h100"}});
  auto r = render_job(j, options());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "spec.node_selector.gpu.type");
  j.spec.mutable_map()["node_selector"] = core::Value::map({{"zone", "a"}});
  auto ok = render_job(j, options());
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_NE(core::to_json(ok->objects[0]).find(R"("gpu.type":"a100")"), std::string::npos);
}

TEST(RenderTest, MigResourcesAndModelJobs) {
  auto j = base_job();
  j.gpu_type = "nvidia.com/mig-1g.10gb";
  j.gpu_count = 1;
  j.deployment_type = job::DeploymentType::Model;
  j.spec = Value(core::Map{{"model_id", "meta-llama/Llama-3-8B"}});
  RenderOptions o;
  o.model_image = "vllm/vllm-openai:v0.6";
  auto r = render_job(j, o);
  ASSERT_TRUE(r) << r.error().describe();
  const Value& c = r->objects[0].find_path("spec.template.spec.containers")->as_list()[0];
  EXPECT_EQ(c.find("image")->as_string(), "vllm/vllm-openai:v0.6");
  EXPECT_EQ(core::to_json(*c.find("args")), R"(["--model","meta-llama/Llama-3-8B"])");
  EXPECT_EQ(c.find_path("resources.limits")->find("nvidia.com/mig-1g.10gb")->as_string(), "1");
}

TEST(RenderTest, ServiceJobIsAWorkloadADeploymentAndAService) {
  auto j = base_job();
  j.job_type = job::JobType::Service;
  j.max_duration_seconds.reset();
  j.spec.mutable_map().set("ports", core::List{Value(8000), Value(core::Map{{"name", "metrics"}, {"port", 9090}})});
  j.spec.mutable_map().set("replicas", 3);
  auto r = render_job(j, options());
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->objects.size(), 3u);
  EXPECT_EQ(r->local_queue, "model-endpoints");
  const Value& wl = r->objects[0];
  EXPECT_EQ(wl.find("kind")->as_string(), "Workload");
  EXPECT_EQ(wl.find("apiVersion")->as_string(), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(wl.find_path("spec.queueName")->as_string(), "model-endpoints");
  EXPECT_EQ(wl.find_path("spec.priority")->as_int(), 100);
  EXPECT_EQ(wl.find_path("spec.priorityClassRef.name")->as_string(), "budcore-high");
  EXPECT_EQ(wl.find_path("spec.podSets")->as_list()[0].find("count")->as_int(), 3);
  const Value& dep = r->objects[1];
  EXPECT_EQ(dep.find("kind")->as_string(), "Deployment");
  EXPECT_EQ(dep.find_path("spec.replicas")->as_int(), 0);  // until Kueue admits the Workload
  EXPECT_EQ(dep.find_path("metadata.annotations")->find(kAnnotationReplicas)->as_string(), "3");
  EXPECT_EQ(dep.find_path("metadata.labels")->find(kLabelQueueName), nullptr);  // Kueue must not manage it twice
  const Value& svc = r->objects[2];
  EXPECT_EQ(svc.find("kind")->as_string(), "Service");
  EXPECT_EQ(core::to_json(*svc.find_path("spec.ports")),
            R"([{"name":"port-8000","port":8000,"targetPort":8000,"protocol":"TCP"},{"name":"metrics","port":9090,"targetPort":9090,"protocol":"TCP"}])");
}

// A manager cluster's MultiKueue queues: Kueue dispatches a Job only when it is managed by
// MultiKueue, and a service's own Workload has no Job to dispatch.
TEST(RenderTest, JobsOfAMultiKueueQueueAreManagedByMultiKueue) {
  auto o = options();
  EXPECT_EQ(render_job(base_job(), o)->objects[0].find_path("spec.managedBy"), nullptr);
  o.multikueue_cluster_queues = {"batch-jobs"};
  auto r = render_job(base_job(), o);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->objects[0].find_path("spec.managedBy")->as_string(), "kueue.x-k8s.io/multikueue");
  auto svc = base_job();
  svc.job_type = job::JobType::Service;
  svc.max_duration_seconds.reset();
  EXPECT_TRUE(render_job(svc, o));  // model-endpoints is not a MultiKueue queue
  o.multikueue_cluster_queues.insert("model-endpoints");
  auto refused = render_job(svc, o);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Unsupported);
  EXPECT_EQ(refused.error().field, "job_type");
}

TEST(RenderTest, BadSpecsNameTheField) {
  struct Case {
    const char* key;
    Value value;
    std::string field;
    std::string in_message;
  } cases[] = {
      {"node_selecter", Value(core::Map{}), "spec.node_selecter", "did you mean 'node_selector'"},
      {"image", Value(5), "spec.image", "string"},
      {"env", Value(core::Map{{"1BAD", "x"}}), "spec.env", "environment variable name"},
      {"secret_env", Value(core::Map{{"T", core::Map{{"secret", "hf"}}}}), "spec.secret_env.T.key", "required"},
      {"secret_env", Value(core::Map{{"T", core::Map{{"secret", "hf"}, {"key", "k"}, {"optional", true}}}}),
       "spec.secret_env.T.optional", "unknown field"},
      {"ports", Value(core::List{Value(70000)}), "spec.ports[0].port", "1-65535"},
      {"tolerations", Value(core::List{Value(core::Map{{"key", "a"}, {"effect", "Sometimes"}})}), "spec.tolerations[0].effect",
       "NoSchedule"},
      {"replicas", Value(2), "spec.replicas", "only service jobs"},
      {"command", Value(core::List{Value(1)}), "spec.command[0]", "string"},
  };
  for (const auto& c : cases) {
    auto j = base_job();
    j.spec.mutable_map().set(c.key, c.value);
    auto r = render_job(j, options());
    ASSERT_FALSE(r) << c.key;
    EXPECT_EQ(r.error().field, c.field) << r.error().describe();
    EXPECT_NE(r.error().message.find(c.in_message), std::string::npos) << r.error().describe();
  }
  auto j = base_job();
  j.deployment_type = job::DeploymentType::Helm;
  EXPECT_EQ(render_job(j).error().code, ErrorCode::Unsupported);
  j = base_job();
  j.spec.mutable_map().erase("image");
  EXPECT_EQ(render_job(j).error().field, "spec.image");
  j = base_job();
  j.id = core::Id();
  EXPECT_EQ(render_job(j).error().field, "id");
}

// GPU nodes are the platform's to steer to: a job without GPUs tells the NVIDIA runtime so
// (NVIDIA_VISIBLE_DEVICES=void in env, which wins over a Secret's envFrom), may not select GPU
// nodes by NVIDIA's labels nor tolerate their taints, and no job may tolerate every taint or a
// flavor's taints.
TEST(RenderTest, OnlyTheGpuRequestReachesGpus) {
  auto cpu_job = [] {
    auto j = base_job();
    j.gpu_count = 0;
    j.gpu_type.reset();
    j.spec.mutable_map().erase("tolerations");
    return j;
  };
  auto r = render_job(cpu_job(), options());
  ASSERT_TRUE(r) << r.error().describe();
  const Value& c = r->objects[0].find_path("spec.template.spec")->find("containers")->as_list()[0];
  const std::string env = core::to_json(*c.find("env"));
  EXPECT_NE(env.find(R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"void"})"), std::string::npos) << env;
  auto gpu = render_job(base_job(), options());
  ASSERT_TRUE(gpu);
  EXPECT_EQ(core::to_json(gpu->objects[0]).find("NVIDIA_VISIBLE_DEVICES"), std::string::npos);

  RenderOptions tainted = options();
  tainted.flavors.push_back(quota::ResourceFlavor{"h100-reserved", {{"gpu.type", "h100"}}, {{"dedicated", "team-x", "NoSchedule"}}});
  struct Case {
    const char* why;
    Value tolerations;
    std::string field;
  } cases[] = {
      {"every taint", Value(core::List{Value(core::Map{{"operator", "Exists"}})}), "spec.tolerations[0]"},
      {"GPU taint, no GPU", Value(core::List{Value(core::Map{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}})}),
       "spec.tolerations[0].key"},
      {"a flavor's taint", Value(core::List{Value(core::Map{{"key", "zone"}}), Value(core::Map{{"key", "dedicated"}, {"value", "team-x"}})}),
       "spec.tolerations[1].key"},
  };
  for (const auto& k : cases) {
    auto j = cpu_job();
    j.spec.mutable_map().set("tolerations", k.tolerations);
    auto bad = render_job(j, tainted);
    ASSERT_FALSE(bad) << k.why;
    EXPECT_EQ(bad.error().code, ErrorCode::Security) << k.why;
    EXPECT_EQ(bad.error().field, k.field) << bad.error().describe();
  }
  for (std::string label : {"nvidia.com/gpu.present", "NVIDIA.COM/gpu.product", "amd.com/gpu.family",
                            "feature.node.kubernetes.io/pci-10de.present", "cloud.google.com/gke-accelerator"}) {
    auto j = cpu_job();
    j.spec.mutable_map().set("node_selector", Value(core::Map{{label, "true"}}));
    auto sel = render_job(j, options());
    ASSERT_FALSE(sel) << label;
    EXPECT_EQ(sel.error().field, "spec.node_selector." + label);
  }
}

TEST(RenderTest, DriftNamesTheEditedField) {
  auto r = render_job(base_job(), options());
  ASSERT_TRUE(r);
  Value live = r->objects[0];
  EXPECT_EQ(find_drift(r->objects[0], live), "");
  // The server normalizes quantities: not a drift.
  live.mutable_map()["spec"].mutable_map()["template"].mutable_map()["spec"].mutable_map()["containers"].mutable_list()[0]
      .mutable_map()["resources"].mutable_map()["requests"].mutable_map().set("memory", "16384Mi");
  EXPECT_EQ(find_drift(r->objects[0], live), "");
  Value edited = live;
  edited.mutable_map()["metadata"].mutable_map()["labels"].mutable_map().set("kueue.x-k8s.io/queue-name", "other");
  std::string d = find_drift(r->objects[0], edited);
  EXPECT_NE(d.find("Job " + r->namespace_ + "/" + r->name), std::string::npos) << d;
  EXPECT_NE(d.find("metadata.labels.kueue.x-k8s.io/queue-name is 'other', budcore set 'batch-jobs'"), std::string::npos) << d;
  edited = live;
  edited.mutable_map()["spec"].mutable_map()["template"].mutable_map()["spec"].mutable_map()["containers"].mutable_list()[0]
      .mutable_map().set("image", "evil:latest");
  EXPECT_NE(find_drift(r->objects[0], edited).find("containers[0].image is 'evil:latest'"), std::string::npos);
}

TEST(RenderTest, KueueObjectsAreLabelledAndCarryBudcorePriorities) {
  quota::QuotaConfig cfg;
  cfg.resource_flavors.push_back(quota::ResourceFlavor{"default", {}, {}});
  auto objs = kueue_objects(cfg);
  ASSERT_EQ(objs.size(), 6u);  // the flavor + five priority classes
  for (const auto& o : objs) EXPECT_EQ(o.find_path("metadata.labels")->find(kLabelManagedBy)->as_string(), "budcore");
  EXPECT_EQ(objs[1].find("kind")->as_string(), "WorkloadPriorityClass");
  EXPECT_EQ(objs[1].find_path("metadata.name")->as_string(), "budcore-critical");
  EXPECT_EQ(objs[1].find("value")->as_int(), 1000);
  EXPECT_EQ(objs[5].find_path("metadata.name")->as_string(), "budcore-spot");
  EXPECT_EQ(objs[5].find("value")->as_int(), -1000);
}

Value workload(std::initializer_list<std::tuple<const char*, const char*, const char*, const char*>> conds, bool with_admission = false) {
  core::List cl;
  for (auto [t, s, r, m] : conds) cl.emplace_back(core::Map{{"type", t}, {"status", s}, {"reason", r}, {"message", m}});
  core::Map status{{"conditions", std::move(cl)}};
  if (with_admission)
    status.set("admission", core::Map{{"clusterQueue", "cq"},
                                      {"podSetAssignments", core::List{core::Map{{"name", "main"}, {"flavors", core::Map{{"nvidia.com/gpu", "a100"}}}}}}});
  return core::Map{{"kind", "Workload"}, {"spec", core::Map{{"active", true}}}, {"status", std::move(status)}};
}

Value batch(bool suspend, std::initializer_list<std::tuple<const char*, const char*, const char*, const char*>> conds = {},
            std::int64_t active = 0) {
  core::List cl;
  for (auto [t, s, r, m] : conds) cl.emplace_back(core::Map{{"type", t}, {"status", s}, {"reason", r}, {"message", m}});
  return core::Map{{"kind", "Job"}, {"spec", core::Map{{"suspend", suspend}}},
                   {"status", core::Map{{"conditions", std::move(cl)}, {"active", active}}}};
}

TEST(StatusMapTest, KueueAndJobConditionsBecomeBudcoreStatuses) {
  Value pending = workload({{"QuotaReserved", "False", "Pending",
                             "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100, 1 more needed"}});
  auto o = observe_job(nullptr, nullptr);
  EXPECT_EQ(o.status, JobStatus::Pending);
  Value j = batch(true);
  o = observe_job(&j, nullptr);
  EXPECT_EQ(o.status, JobStatus::Queued);
  o = observe_job(&j, &pending);
  EXPECT_EQ(o.status, JobStatus::Queued);
  EXPECT_NE(o.message.find("1 more needed"), std::string::npos);
  Value admitted = workload({{"QuotaReserved", "True", "QuotaReserved", ""}, {"Admitted", "True", "Admitted", ""}}, true);
  o = observe_job(&j, &admitted);
  EXPECT_EQ(o.status, JobStatus::Scheduled);
  EXPECT_EQ(o.cluster_queue, "cq");
  EXPECT_EQ(o.flavors.at("nvidia.com/gpu"), "a100");
  Value running = batch(false, {}, 1);
  EXPECT_EQ(observe_job(&running, &admitted).status, JobStatus::Running);
  Value done = batch(false, {{"Complete", "True", "", ""}});
  EXPECT_EQ(observe_job(&done, &admitted).status, JobStatus::Completed);
  Value failed = batch(false, {{"Failed", "True", "DeadlineExceeded", "Job was active longer than specified deadline"}});
  o = observe_job(&failed, &admitted);
  EXPECT_EQ(o.status, JobStatus::Failed);
  EXPECT_EQ(o.message, "the Job failed: DeadlineExceeded: Job was active longer than specified deadline");
  Value preempted = workload({{"QuotaReserved", "False", "Pending", ""},
                              {"Evicted", "True", "Preempted", "Preempted to accommodate a workload (UID: x) due to prioritization in the ClusterQueue"},
                              {"Preempted", "True", "InClusterQueue", ""},
                              {"Requeued", "True", "Preempted", ""}});
  o = observe_job(&j, &preempted);
  EXPECT_EQ(o.status, JobStatus::Preempted);
  EXPECT_EQ(o.preemption_reason, "InClusterQueue");
  EXPECT_TRUE(o.requeued);
  EXPECT_NE(o.message.find("prioritization in the ClusterQueue (InClusterQueue)"), std::string::npos);
  Value finished = workload({{"Finished", "True", "OwnerNotFound", "the owner was deleted"}});
  o = observe_job(&j, &finished);
  EXPECT_EQ(o.status, JobStatus::Failed);
  EXPECT_NE(o.message.find("OwnerNotFound"), std::string::npos);
  Value inactive = pending;
  inactive.mutable_map()["spec"].mutable_map().set("active", false);
  EXPECT_EQ(observe_job(&j, &inactive).status, JobStatus::Failed);
  Value reserved = workload({{"QuotaReserved", "True", "QuotaReserved", ""}, {"Admitted", "False", "", ""}}, true);
  o = observe_job(&j, &reserved);
  EXPECT_EQ(o.status, JobStatus::Queued);
  EXPECT_NE(o.message.find("admission checks"), std::string::npos);
}

// A MultiKueue manager's Workload: waiting on the check names it and the nominated worker;
// admitted names the worker cluster that runs it.
TEST(StatusMapTest, MultiKueueDispatchIsNamed) {
  Value j = batch(true);
  Value dispatched = workload({{"QuotaReserved", "True", "QuotaReserved", ""}}, true);
  auto& st = dispatched.mutable_map()["status"].mutable_map();
  st.set("admissionChecks", core::List{core::Map{{"name", "mk"}, {"state", "Pending"}, {"message", ""}}});
  st.set("nominatedClusterNames", core::List{"worker-1"});
  auto o = observe_job(&j, &dispatched);
  EXPECT_EQ(o.status, JobStatus::Queued);
  EXPECT_EQ(o.message, "quota reserved in ClusterQueue cq; waiting for admission checks: mk (Pending: dispatched to worker-1)");
  Value admitted = workload({{"QuotaReserved", "True", "QuotaReserved", ""}, {"Admitted", "True", "Admitted", ""}}, true);
  admitted.mutable_map()["status"].mutable_map().set("clusterName", "worker-1");
  o = observe_job(&j, &admitted);
  EXPECT_EQ(o.status, JobStatus::Scheduled);
  EXPECT_EQ(o.message, "admitted by ClusterQueue cq on worker cluster worker-1; waiting for the Job to be unsuspended");
}

// The metered interval: the Job's startTime to its completionTime (or its Failed condition's
// transition); absent or unreadable times are absent, not the epoch.
TEST(StatusMapTest, AJobsStartAndEndTimesAreRead) {
  Value admitted = workload({{"QuotaReserved", "True", "QuotaReserved", ""}, {"Admitted", "True", "Admitted", ""}}, true);
  Value done = batch(false, {{"Complete", "True", "", ""}});
  done.mutable_map()["status"].mutable_map().set("startTime", "2026-01-01T00:00:00Z");
  done.mutable_map()["status"].mutable_map().set("completionTime", "2026-01-01T01:30:00Z");
  auto o = observe_job(&done, &admitted);
  ASSERT_TRUE(o.started_at && o.finished_at);
  EXPECT_EQ((*o.finished_at - *o.started_at).count_ns(), 5400LL * 1'000'000'000);
  Value failed = batch(false, {{"Failed", "True", "BackoffLimitExceeded", ""}});
  failed.mutable_map()["status"].mutable_map().set("startTime", "2026-01-01T00:00:00Z");
  core::List conds = failed.find_path("status.conditions")->as_list();
  conds[0].mutable_map().set("lastTransitionTime", "2026-01-01T00:10:00Z");
  failed.mutable_map()["status"].mutable_map().set("conditions", std::move(conds));
  o = observe_job(&failed, &admitted);
  EXPECT_EQ(o.status, JobStatus::Failed);
  ASSERT_TRUE(o.started_at && o.finished_at);
  EXPECT_EQ((*o.finished_at - *o.started_at).count_ns(), 600LL * 1'000'000'000);
  Value odd = batch(false, {}, 1);
  odd.mutable_map()["status"].mutable_map().set("startTime", "yesterday");
  o = observe_job(&odd, &admitted);
  EXPECT_EQ(o.status, JobStatus::Running);
  EXPECT_FALSE(o.started_at);
  EXPECT_FALSE(o.finished_at);
}

}  // namespace
}  // namespace budcore::kubernetes
