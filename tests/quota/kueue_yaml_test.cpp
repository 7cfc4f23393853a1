// Kueue YAML import/export: a platform's job-type ClusterQueues, both API versions, round trips
// and field-path errors.
#include "budcore/quota/kueue_yaml.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "budcore/core/yaml.hpp"
#include "budcore/quota/scenario.hpp"

namespace budcore::quota {
namespace {

std::string read(const std::string& rel) {
  std::ifstream in(std::string(BUDCORE_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* kFull = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
spec:
  nodeLabels: {instance: spot}
  nodeTaints: [{key: spot, value: "true", effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: org}
spec:
  fairSharing: {weight: "2"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: team}
spec:
  parentName: org
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: spot, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohortName: team
  queueingStrategy: StrictFIFO
  preemption:
    withinClusterQueue: LowerPriority
    reclaimWithinCohort: Any
    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}
  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: PreemptionOverBorrowing}
  fairSharing: {weight: 0.5}
  stopPolicy: Hold
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: spot
      resources:
      - {name: cpu, nominalQuota: 500m, borrowingLimit: "1", lendingLimit: 250m}
      - {name: memory, nominalQuota: 2Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
description: important
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
)";

TEST(KueueImportTest, SourceDesignClusterQueuesImportWithImplicitFlavors) {
  auto r = import_kueue_yaml(read("tests/quota/data_kueue/source_design_cqs.yaml"));
  ASSERT_TRUE(r) << r.error().message;
  const auto& c = r->config;
  ASSERT_EQ(c.cluster_queues.size(), 3u);
  EXPECT_EQ(c.cluster_queues[0].name, "model-endpoints");
  EXPECT_EQ(c.cluster_queues[0].cohort.value_or(""), "platform-gpu-pool");
  const auto& f = c.cluster_queues[0].resource_groups.at(0).flavors;
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].name, "h100-sxm");
  EXPECT_EQ(f[0].resources[0].name, "nvidia.com/gpu");
  EXPECT_EQ(f[0].resources[0].nominal.to_string(), "100");
  EXPECT_EQ(f[0].resources[0].borrowing_limit->to_string(), "20");
  EXPECT_FALSE(f[0].resources[0].lending_limit);
  ASSERT_EQ(c.resource_flavors.size(), 2u);  // a100-80gb and h100-sxm, named but not declared
  EXPECT_EQ(r->warnings.size(), 2u);
}

TEST(KueueImportTest, ReadsEveryKindAndField) {
  auto r = import_kueue_yaml(kFull);
  ASSERT_TRUE(r) << r.error().message << " at " << r.error().field;
  const auto& c = r->config;
  ASSERT_EQ(c.resource_flavors.size(), 1u);
  EXPECT_EQ(c.resource_flavors[0].node_labels.at("instance"), "spot");
  EXPECT_EQ(c.resource_flavors[0].node_taints.at(0).effect, "NoSchedule");
  ASSERT_EQ(c.cohorts.size(), 2u);
  EXPECT_DOUBLE_EQ(c.cohorts[0].fair_weight, 2.0);
  EXPECT_EQ(c.cohorts[1].parent.value_or(""), "org");
  EXPECT_EQ(c.cohorts[1].resource_groups.at(0).flavors.at(0).resources.at(0).nominal.to_string(), "4");
  const auto& q = c.cluster_queues.at(0);
  EXPECT_EQ(q.cohort.value_or(""), "team");
  EXPECT_EQ(q.queueing_strategy, QueueingStrategy::StrictFIFO);
  EXPECT_EQ(q.preemption.within_cluster_queue, PreemptionPolicy::LowerPriority);
  EXPECT_EQ(q.preemption.reclaim_within_cohort, PreemptionPolicy::Any);
  EXPECT_EQ(q.preemption.borrow_within_cohort.policy, BorrowWithinCohortPolicy::LowerPriority);
  EXPECT_EQ(q.preemption.borrow_within_cohort.max_priority_threshold.value_or(0), 100);
  EXPECT_EQ(q.flavor_fungibility.when_can_borrow, FungibilityPolicy::TryNextFlavor);
  EXPECT_EQ(q.flavor_fungibility.preference.value(), FungibilityPreference::PreemptionOverBorrowing);
  EXPECT_DOUBLE_EQ(q.fair_weight, 0.5);
  EXPECT_EQ(q.stop_policy, StopPolicy::Hold);
  const auto& cpu = q.resource_groups.at(0).flavors.at(0).resources.at(0);
  EXPECT_EQ(cpu.nominal.to_string(), "500m");
  EXPECT_EQ(cpu.borrowing_limit->to_string(), "1");
  EXPECT_EQ(cpu.lending_limit->to_string(), "250m");
  EXPECT_EQ(c.local_queues.at(0).key(), "team-a/lq");
  EXPECT_EQ(c.priority_classes.at(0).value, 1000);
  EXPECT_EQ(c.priority_classes.at(0).description, "important");
  ASSERT_EQ(r->warnings.size(), 1u);  // the Namespace
  EXPECT_NE(r->warnings[0].find("Namespace"), std::string::npos);
}

TEST(KueueExportTest, RoundTripsBothApiVersions) {
  for (auto text : {read("tests/quota/data_kueue/source_design_cqs.yaml"), std::string(kFull)}) {
    auto first = import_kueue_yaml(text);
    ASSERT_TRUE(first);
    for (auto v : {KueueApiVersion::V1beta2, KueueApiVersion::V1beta1}) {
      std::string yaml = export_kueue_yaml(first->config, v);
      auto second = import_kueue_yaml(yaml);
      ASSERT_TRUE(second) << second.error().message << "\n" << yaml;
      EXPECT_TRUE(second->warnings.empty());
      EXPECT_EQ(config_to_json(second->config), config_to_json(first->config)) << yaml;
    }
  }
}

TEST(KueueExportTest, UsesEachVersionsSpelling) {
  auto r = import_kueue_yaml(read("tests/quota/data_kueue/source_design_cqs.yaml"));
  ASSERT_TRUE(r);
  auto v2 = export_kueue(r->config);
  auto v1 = export_kueue(r->config, KueueApiVersion::V1beta1);
  ASSERT_EQ(v2.size(), 5u);  // 2 flavors + 3 cluster queues
  const auto& cq2 = v2[2];
  EXPECT_EQ(cq2.find("apiVersion")->as_string(), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(cq2.find("kind")->as_string(), "ClusterQueue");
  EXPECT_EQ(cq2.find_path("spec.cohortName")->as_string(), "platform-gpu-pool");
  EXPECT_EQ(cq2.find_path("spec.cohort"), nullptr);
  // Kueue reads a missing namespaceSelector as "no namespace"; budcore admits from all.
  ASSERT_NE(cq2.find_path("spec.namespaceSelector"), nullptr);
  EXPECT_TRUE(cq2.find_path("spec.namespaceSelector")->is_map());
  EXPECT_EQ(cq2.find_path("spec.namespaceSelector")->size(), 0u);
  EXPECT_EQ(v1[2].find("apiVersion")->as_string(), "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(v1[2].find_path("spec.cohort")->as_string(), "platform-gpu-pool");
  const auto* res = cq2.find_path("spec.resourceGroups")->as_list()[0].find("flavors")->as_list()[0].find("resources");
  EXPECT_EQ(res->as_list()[0].find("nominalQuota")->as_string(), "100");
  EXPECT_EQ(res->as_list()[0].find("borrowingLimit")->as_string(), "20");
}

TEST(KueueImportTest, ErrorsNameTheField) {
  struct Case {
    const char* yaml;
    const char* field;
  } cases[] = {
      {"apiVersion: kueue.x-k8s.io/v1alpha1\nkind: ClusterQueue\nmetadata: {name: a}\n", "documents[0].apiVersion"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {}\n", "documents[0].metadata.name"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec:\n  queueingStrategy: LIFO\n",
       "documents[0].spec.queueingStrategy"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec:\n  resourceGroups:\n"
       "  - coveredResources: [cpu]\n    flavors: [{name: f, resources: [{name: cpu, nominalQuota: lots}]}]\n",
       "documents[0].spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}\nspec: {}\n", "documents[0].spec.clusterQueue"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: p}\nvalue: high\n", "documents[0].value"},
      {"kind: ResourceFlavor\nmetadata: {name: a}\n---\nkind: List\napiVersion: v1\nitems: 3\n", "documents[0].apiVersion"},
      // A typo in the quota part is an error, not a dropped limit (issue #19).
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec:\n  resourceGroups:\n"
       "  - coveredResources: [cpu]\n    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, borowingLimit: 2}]}]\n",
       "documents[0].spec.resourceGroups[0].flavors[0].resources[0].borowingLimit"},
      {"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec:\n  preemption:\n"
       "    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 4294967297}\n",
       "documents[0].spec.preemption.borrowWithinCohort.maxPriorityThreshold"},
  };
  for (const auto& c : cases) {
    auto r = import_kueue_yaml(c.yaml);
    ASSERT_FALSE(r) << c.yaml;
    EXPECT_EQ(r.error().code, core::ErrorCode::Invalid);
    EXPECT_EQ(r.error().field, c.field) << r.error().message;
  }
  // References are validated like any configuration.
  auto r = import_kueue_yaml("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q}\nspec: {clusterQueue: nope}\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().field.find("local_queues[0]"), std::string::npos);
}

TEST(KueueImportTest, ImportedConfigurationSimulates) {
  auto r = import_kueue_yaml(read("tests/quota/data_kueue/source_design_cqs.yaml"));
  ASSERT_TRUE(r);
  Scenario s;
  s.config = r->config;
  s.config.local_queues.push_back({"tenant-a", "endpoints", "model-endpoints"});
  Workload w;
  w.name = "big";
  w.namespace_ = "tenant-a";
  w.queue = "endpoints";
  PodSet ps;
  ps.count = 1;
  ASSERT_TRUE(ps.requests.set("nvidia.com/gpu", core::Quantity::from_int(110)));
  w.pod_sets.push_back(ps);
  s.workloads.push_back(w);
  auto out = simulate(s);
  ASSERT_TRUE(out) << out.error().message;
  // 110 > 100 nominal in a100-80gb but within the borrowing limit of 20 (the cohort has idle quota).
  ASSERT_TRUE(out->admitted.count("big"));
  EXPECT_EQ(out->admitted["big"].flavors["main"]["nvidia.com/gpu"], "a100-80gb");
  EXPECT_TRUE(out->admitted["big"].borrowing);
}

}  // namespace
}  // namespace budcore::quota
