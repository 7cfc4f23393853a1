// Estimated start and end of pending Workloads from the live Kueue objects, without a cluster:
// a FIFO queue behind a running Workload, a cohort that lends, Workloads that can never be
// admitted, and the annotation patch written only on change.
#include <gtest/gtest.h>

#include "budcore/companion/estimates.hpp"
#include "budcore/quota/kueue_yaml.hpp"

namespace budcore::companion::estimates_test {

using core::Map;
using core::Timestamp;
using core::Value;

const Timestamp kNow = *Timestamp::parse("2026-11-29T12:00:00Z");

Timestamp at(std::int64_t seconds_from_now) { return kNow + core::Duration::seconds(seconds_from_now); }

CompanionConfig est_config(const std::string& extra = "") {
  auto c = CompanionConfig::from_text("schema_version: 1\ncontrollers: [{name: budcore.io/window, checks: [window]}]\n" + extra);
  EXPECT_TRUE(c) << c.error().describe();
  return c ? *c : CompanionConfig{};
}

// A FIFO ClusterQueue of 1 cpu, and two queues of 2 cpu each in cohort "pool" (lending all).
quota::QuotaConfig est_quota() {
  auto q = quota::import_kueue_yaml(R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: fifo}
spec:
  queueingStrategy: StrictFIFO
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 1}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  cohortName: pool
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 2}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  cohortName: pool
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: default, resources: [{name: cpu, nominalQuota: 2}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-fifo, namespace: team}
spec: {clusterQueue: fifo}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-a, namespace: team}
spec: {clusterQueue: cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-b, namespace: team}
spec: {clusterQueue: cq-b}
)");
  EXPECT_TRUE(q) << q.error().describe();
  return q ? q->config : quota::QuotaConfig{};
}

struct Spec {
  std::string name;
  std::string queue;           // LocalQueue in namespace "team"
  std::int64_t created = -600;  // seconds from now
  std::string cpu = "1";
  std::string duration;        // budcore.io/expected-duration, "" for none
  std::string admitted_by;     // ClusterQueue holding its quota, "" while pending
  std::int64_t reserved = 0;   // seconds from now, when admitted_by is set
};

Value est_workload(const Spec& s) {
  Map annotations;
  if (!s.duration.empty()) annotations.set(std::string(kDurationAnnotation), s.duration);
  Value container = Map{{"name", "c"}, {"resources", Map{{"requests", Map{{"cpu", s.cpu}}}}}};
  Map wl{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
         {"kind", "Workload"},
         {"metadata", Map{{"name", s.name},
                          {"namespace", "team"},
                          {"uid", "uid-" + s.name},
                          {"creationTimestamp", at(s.created).to_string()},
                          {"annotations", annotations}}},
         {"spec", Map{{"queueName", s.queue},
                      {"podSets", core::List{Map{{"name", "main"},
                                                 {"count", 1},
                                                 {"template", Map{{"spec", Map{{"containers", core::List{container}}}}}}}}}}}};
  if (!s.admitted_by.empty()) {
    std::string t = at(s.reserved).to_string();
    wl.set("status", Map{{"admission", Map{{"clusterQueue", s.admitted_by},
                                          {"podSetAssignments", core::List{Map{{"name", "main"},
                                                                               {"count", 1},
                                                                               {"flavors", Map{{"cpu", "default"}}}}}}}},
                         {"conditions", core::List{Map{{"type", "QuotaReserved"}, {"status", "True"}, {"lastTransitionTime", t}},
                                                   Map{{"type", "Admitted"}, {"status", "True"}, {"lastTransitionTime", t}}}}});
  }
  return wl;
}

EstimatesResult run_estimates(const std::vector<Spec>& specs, const std::string& extra = "") {
  std::vector<Value> wls;
  for (const auto& s : specs) wls.push_back(est_workload(s));
  auto r = estimate_workloads(est_config(extra), est_quota(), wls, kNow);
  EXPECT_TRUE(r) << r.error().describe();
  return r ? *r : EstimatesResult{};
}

const WorkloadEstimate& named(const EstimatesResult& r, const std::string& name) {
  for (const auto& e : r.estimates)
    if (e.name == name) return e;
  static const WorkloadEstimate none;
  ADD_FAILURE() << "no estimate for " << name;
  return none;
}

TEST(CompanionEstimatesTest, FifoQueueWaitsForTheRunningWorkloadThenInCreationOrder) {
  auto r = run_estimates({{"running", "lq-fifo", -900, "1", "5m", "fifo", -60},
                          {"second", "lq-fifo", -100, "1", "1m"},
                          {"first", "lq-fifo", -200, "1", "2m"}});
  ASSERT_EQ(r.estimates.size(), 2u);  // the running Workload is not estimated
  const auto& first = named(r, "first");
  EXPECT_EQ(first.start, at(240));  // the running one reserved 60 s ago for 5 min
  EXPECT_EQ(first.end, at(360));
  EXPECT_EQ(first.reason, "");
  const auto& second = named(r, "second");
  EXPECT_EQ(second.start, at(360));
  EXPECT_EQ(second.end, at(420));
  EXPECT_EQ(r.valid_until, at(240));
}

// Kueue orders a Workload evicted by an admission check (or the PodsReady timeout) by its
// eviction; one evicted by preemption keeps its creation time.
TEST(CompanionEstimatesTest, AWorkloadEvictedByACheckQueuesFromItsEviction) {
  auto evicted = [](const char* name, std::int64_t created, const char* reason, std::int64_t at_s) {
    Value wl = est_workload({name, "lq-fifo", created, "1", "1m"});
    wl.mutable_map().set("status", Map{{"conditions", core::List{Map{{"type", "Evicted"},
                                                                     {"status", "True"},
                                                                     {"reason", reason},
                                                                     {"lastTransitionTime", at(at_s).to_string()}}}}});
    return wl;
  };
  std::vector<Value> wls{est_workload({"running", "lq-fifo", -900, "1", "5m", "fifo", -60}),
                         evicted("by-check", -500, "AdmissionCheck", -50),
                         evicted("by-timeout", -400, "PodsReadyTimeout", -40),
                         evicted("preempted", -300, "Preempted", -30),
                         est_workload({"later", "lq-fifo", -100, "1", "1m"})};
  auto r = estimate_workloads(est_config(), est_quota(), wls, kNow);
  ASSERT_TRUE(r) << r.error().describe();
  // Created -300 and not moved by its preemption; then -100; then the evictions at -50 and -40.
  EXPECT_EQ(named(*r, "preempted").start, at(240));
  EXPECT_EQ(named(*r, "later").start, at(300));
  EXPECT_EQ(named(*r, "by-check").start, at(360));
  EXPECT_EQ(named(*r, "by-timeout").start, at(420));
}

TEST(CompanionEstimatesTest, CohortLendsIdleQuotaAndWaitsForTheLendersWorkload) {
  // cq-b's Workload uses its 2 cpu for 100 s more; 3 cpu in cq-a need 1 of them.
  auto r = run_estimates({{"b-running", "lq-b", -500, "2", "200s", "cq-b", -100},
                          {"borrower", "lq-a", -50, "3", "10m"},
                          {"small", "lq-a", -40, "500m", "1m"}});
  EXPECT_EQ(named(r, "borrower").start, at(100));
  EXPECT_EQ(named(r, "borrower").end, at(700));
  // BestEffortFIFO: the small one fits in cq-a's nominal quota at once.
  EXPECT_EQ(named(r, "small").start, kNow);
  EXPECT_EQ(named(r, "small").end, at(60));
}

TEST(CompanionEstimatesTest, NeverAdmittedGetsTheReasonAndNoTimes) {
  auto r = run_estimates({{"huge", "lq-a", -50, "5", "1m"}, {"lost", "missing-lq", -40, "1", "1m"}});
  const auto& huge = named(r, "huge");
  EXPECT_FALSE(huge.start);
  EXPECT_FALSE(huge.end);
  EXPECT_NE(huge.reason.find("can never provide more than 4"), std::string::npos) << huge.reason;
  const auto& lost = named(r, "lost");
  EXPECT_FALSE(lost.start);
  EXPECT_NE(lost.reason.find("LocalQueue team/missing-lq"), std::string::npos) << lost.reason;
}

// A StrictFIFO queue shared by two namespaces: a Workload waiting behind another namespace's
// head that can never be admitted is told so without that Workload's name; behind its own
// namespace's, with it.
TEST(CompanionEstimatesTest, AReasonNamesNoWorkloadOfAnotherNamespace) {
  quota::QuotaConfig q = est_quota();
  q.local_queues.push_back({"rival", "lq-fifo", "fifo"});
  Value secret = est_workload({"project-nightingale", "lq-fifo", -300, "2", "1m"});  // 2 cpu of 1: never
  secret.mutable_map().find("metadata")->mutable_map().set("namespace", "rival");
  std::vector<Value> wls{secret, est_workload({"mine", "lq-fifo", -100, "1", "1m"})};
  auto r = estimate_workloads(est_config(), q, wls, kNow);
  ASSERT_TRUE(r) << r.error().describe();
  const auto& mine = named(*r, "mine");
  EXPECT_EQ(mine.reason.find("nightingale"), std::string::npos) << mine.reason;
  EXPECT_NE(mine.reason.find("blocked behind a Workload of another namespace in StrictFIFO ClusterQueue fifo"),
            std::string::npos)
      << mine.reason;
  secret.mutable_map().find("metadata")->mutable_map().set("namespace", "team");
  r = estimate_workloads(est_config(), q, {secret, wls[1]}, kNow);
  ASSERT_TRUE(r);
  EXPECT_NE(named(*r, "mine").reason.find("blocked behind project-nightingale"), std::string::npos)
      << named(*r, "mine").reason;
}

// A Workload that cannot be read (a quantity out of range) says so; the others are estimated.
TEST(CompanionEstimatesTest, AnUnreadableWorkloadIsLeftOutAndTheOthersEstimated) {
  auto r = run_estimates({{"broken", "lq-a", -50, "9999999999999999999999999", "1m"}, {"fine", "lq-a", -40, "1", "1m"}});
  EXPECT_EQ(named(r, "fine").start, kNow);
  const auto& broken = named(r, "broken");
  EXPECT_FALSE(broken.start);
  EXPECT_NE(broken.reason.find("cannot be estimated"), std::string::npos) << broken.reason;
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("team/broken"), std::string::npos) << r.warnings[0];
}

TEST(CompanionEstimatesTest, DurationFromTheQueueDefaultThroughTheLocalQueue) {
  auto r = run_estimates({{"w", "lq-a", -50, "1", ""}}, "queues: {cq-a: {default_duration: 10m}}\n");
  EXPECT_EQ(named(r, "w").start, kNow);
  EXPECT_EQ(named(r, "w").end, at(600));
}

TEST(CompanionEstimatesTest, DurationFromTheOwningJobsAnnotation) {
  OwnerAnnotations owners{{"uid-w", {{std::string(kDurationAnnotation), "90s"}}}};
  auto r = estimate_workloads(est_config("default_duration: 1h\n"), est_quota(), {est_workload({"w", "lq-a"})}, kNow, owners);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(named(*r, "w").end, at(90));
}

TEST(CompanionEstimatesTest, UnknownDurationGivesAStartButNoEnd) {
  auto r = run_estimates({{"w", "lq-a", -50, "1", ""}});
  const auto& w = named(r, "w");
  EXPECT_EQ(w.start, kNow);
  EXPECT_FALSE(w.end);
  EXPECT_NE(w.reason.find("no expected duration"), std::string::npos) << w.reason;
}

TEST(CompanionEstimatesTest, DeactivatedWorkloadsAreNotQueuedUnlessHeldUntilAnInstant) {
  Value off = est_workload({"off", "lq-a", -50, "1", "1m"});
  off.mutable_map().find("spec")->mutable_map().set("active", false);
  Value held = est_workload({"held", "lq-a", -40, "1", "1m"});
  held.mutable_map().find("spec")->mutable_map().set("active", false);
  held.mutable_map().find("metadata")->mutable_map().find("annotations")->mutable_map().set(
      std::string(kHeldUntilAnnotation), at(300).to_string());
  auto r = estimate_workloads(est_config(), est_quota(), {off, held}, kNow);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_FALSE(named(*r, "off").start);
  EXPECT_NE(named(*r, "off").reason.find("spec.active"), std::string::npos);
  EXPECT_EQ(named(*r, "held").start, at(300));
  EXPECT_EQ(named(*r, "held").end, at(360));
}

// One Workload that cannot be read does not stop the others' estimates: it is named in the
// warnings, and gets no estimate when it has not even a name to patch.
TEST(CompanionEstimatesTest, AWorkloadThatCannotBeReadIsNamedInTheWarnings) {
  Value bad = est_workload({"bad", "lq-a", -50, "1", "1m"});
  bad.mutable_map().find("metadata")->mutable_map().set("name", "");
  auto r = estimate_workloads(est_config(), est_quota(), {est_workload({"ok", "lq-a"}), bad}, kNow);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(named(*r, "ok").start, kNow);
  EXPECT_EQ(r->estimates.size(), 1u);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("metadata.name"), std::string::npos) << r->warnings[0];
}

TEST(CompanionEstimatesTest, PatchOnlyWhatChanged) {
  Value wl = est_workload({"w", "lq-a"});
  WorkloadEstimate e{"team", "w", "uid-w", at(60), at(120), ""};
  auto p = estimate_patch(wl, e, kNow);
  ASSERT_TRUE(p);
  const Value* a = p->find_path("metadata.annotations");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->find(kEstimatedStartAnnotation)->as_string(), "2026-11-29T12:01:00Z");
  EXPECT_EQ(a->find(kEstimatedEndAnnotation)->as_string(), "2026-11-29T12:02:00Z");
  EXPECT_EQ(a->find(kEstimateReasonAnnotation), nullptr);  // absent already: not in the patch
  // Applied: nothing more to write.
  auto& ann = wl.mutable_map().find("metadata")->mutable_map().find("annotations")->mutable_map();
  ann.set(std::string(kEstimatedStartAnnotation), "2026-11-29T12:01:00Z");
  ann.set(std::string(kEstimatedEndAnnotation), "2026-11-29T12:02:00Z");
  EXPECT_FALSE(estimate_patch(wl, e, kNow));
  // Never admitted now: the times are removed (null) and the reason written.
  auto never = estimate_patch(wl, WorkloadEstimate{"team", "w", "uid-w", std::nullopt, std::nullopt, "too big"}, kNow);
  ASSERT_TRUE(never);
  const Value* b = never->find_path("metadata.annotations");
  EXPECT_TRUE(b->find(kEstimatedStartAnnotation)->is_null());
  EXPECT_TRUE(b->find(kEstimatedEndAnnotation)->is_null());
  EXPECT_EQ(b->find(kEstimateReasonAnnotation)->as_string(), "too big");
}

// Everything queued behind a run past its expected end moves with the clock: a shown time is
// kept while the estimate stays within a twentieth of its lead (at least 1 s), so a Workload
// far back is not rewritten every refresh, and one about to start is kept to the second.
TEST(CompanionEstimatesTest, AShownTimeIsKeptWithinATwentiethOfItsLead) {
  Value wl = est_workload({"w", "lq-a"});
  auto& ann = wl.mutable_map().find("metadata")->mutable_map().find("annotations")->mutable_map();
  ann.set(std::string(kEstimatedStartAnnotation), at(2000).to_string());
  ann.set(std::string(kEstimatedEndAnnotation), at(2060).to_string());
  // 2,000 s ahead: 100 s of tolerance.
  EXPECT_EQ(estimate_tolerance(WorkloadEstimate{"team", "w", "uid-w", at(2000), at(2060), ""}, kNow), core::Duration::seconds(100));
  EXPECT_FALSE(estimate_patch(wl, WorkloadEstimate{"team", "w", "uid-w", at(2090), at(2150), ""}, kNow));
  auto moved = estimate_patch(wl, WorkloadEstimate{"team", "w", "uid-w", at(2110), at(2170), ""}, kNow);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->find_path("metadata.annotations")->find(kEstimatedStartAnnotation)->as_string(), at(2110).to_string());
  // Due now: 1 s.
  ann.set(std::string(kEstimatedStartAnnotation), at(-1).to_string());
  ann.set(std::string(kEstimatedEndAnnotation), at(59).to_string());
  EXPECT_FALSE(estimate_patch(wl, WorkloadEstimate{"team", "w", "uid-w", at(0), at(60), ""}, kNow));
  EXPECT_TRUE(estimate_patch(wl, WorkloadEstimate{"team", "w", "uid-w", at(1), at(61), ""}, kNow));
  // A reason is compared exactly.
  EXPECT_TRUE(estimate_patch(wl, WorkloadEstimate{"team", "w", "uid-w", at(0), std::nullopt, "no duration"}, kNow));
}

TEST(CompanionEstimatesTest, ConfigSwitchIsValidatedNamingTheField) {
  EXPECT_FALSE(est_config().estimates.enabled);
  auto on = est_config("estimates: {enabled: true, refresh_seconds: 3}\n");
  EXPECT_TRUE(on.estimates.enabled);
  EXPECT_EQ(on.estimates.refresh_seconds, 3);
  EXPECT_EQ(est_config("estimates: {enabled: true}\n").estimates.refresh_seconds, 5);
  EXPECT_EQ(est_config("estimates: {enabled: true}\n").estimates.writers, 8);
  EXPECT_EQ(est_config("estimates: {enabled: true, writers: 1}\n").estimates.writers, 1);
  auto base = std::string("schema_version: 1\ncontrollers: [{name: budcore.io/window, checks: [window]}]\n");
  struct Case {
    std::string text, field;
  };
  for (const auto& c : {Case{"estimates: {refresh_seconds: 0}", "estimates.refresh_seconds"},
                        Case{"estimates: {refresh_seconds: \"5s\"}", "estimates.refresh_seconds"},
                        Case{"estimates: {enabled: \"yes\"}", "estimates.enabled"},
                        Case{"estimates: {writers: 0}", "estimates.writers"},
                        Case{"estimates: {writers: 65}", "estimates.writers"},
                        Case{"estimates: true", "estimates"}}) {
    auto r = CompanionConfig::from_text(base + c.text + "\n");
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().field, c.field) << c.text << ": " << r.error().describe();
  }
  auto typo = CompanionConfig::from_text(base + "estimates: {enabled: true, refresh: 5}\n");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().describe().find("refresh"), std::string::npos) << typo.error().describe();
}

}  // namespace budcore::companion::estimates_test
