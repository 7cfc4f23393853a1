// The platform's view of its simulated cluster's GPU pools under a placement policy: the
// schedule says a job waits for placement (not quota), the GPU report and the budcore_gpu_*
// gauges give FGD's fragmentation per node and per flavor, the unallocated share and the
// largest gang per GPU model, checked against hand-worked figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

#include "budcore/core/json.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/platform/platform_json.hpp"
#include "budcore/platform/rbac.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

// Two A100 nodes of 4 GPUs under worst_fit: A (1 GPU) and B (1 GPU) go one per node, so C (4
// GPUs), which the quota admits (6 of batch-jobs' 8), finds at most 3 free on one node.
struct Spread {
  PlatformTarget t;
  std::unique_ptr<platform::Platform> p;
  core::Id a, b, c;
  explicit Spread(job::JobPriority pa = job::JobPriority::Normal, job::JobPriority pb = job::JobPriority::Normal) {
    t.config.cluster.inventory[0].gpus_per_node = 4;
    t.config.cluster.placement_policy = "worst_fit";
    p = t.open();
    auto ja = gpu_job("a", 1, 300), jb = gpu_job("b", 1, 600);
    ja.priority = pa;
    jb.priority = pb;
    a = p->submit(ctx_a(), ja).value().record.job.id;
    b = p->submit(ctx_a(), jb).value().record.job.id;
    EXPECT_TRUE(p->pump());  // A and B placed before C (a queue would admit C before a lower B)
    c = p->submit(ctx_a(), gpu_job("c", 4, 600)).value().record.job.id;
    EXPECT_TRUE(p->pump());
  }
};

TEST(PlatformGpuViewTest, TheScheduleSaysAGangWaitsForPlacementNotQuota) {
  Spread s;
  auto sched = s.p->schedule(ctx_a());
  ASSERT_TRUE(sched) << sched.error().describe();
  bool seen = false;
  for (const auto& e : sched->jobs) {
    if (e.name != s.c.to_string()) {
      EXPECT_NE(e.wait, schedule::WaitReason::Placement) << e.name;
      continue;
    }
    seen = true;
    EXPECT_EQ(e.wait, schedule::WaitReason::Placement);
    EXPECT_EQ(to_string(e.wait), "placement");
    EXPECT_NE(e.wait_detail.find("admitted by quota; waiting for placement"), std::string::npos) << e.wait_detail;
    EXPECT_FALSE(e.running);
    EXPECT_EQ(e.start, sched->now);
    EXPECT_EQ((e.end - e.start).count_ns(), core::Duration::seconds(600).count_ns());
  }
  EXPECT_TRUE(seen);
  auto snap = s.p->cluster();
  bool listed = false;
  for (const auto& w : snap.workloads)
    if (w.job_id == s.c) {
      listed = true;
      EXPECT_EQ(w.phase, backend::WorkloadInfo::Phase::Admitted);
      EXPECT_NE(w.message.find("the most free GPUs on one node: 3"), std::string::npos) << w.message;
    }
  EXPECT_TRUE(listed);
}

TEST(PlatformGpuViewTest, FragmentationPerNodeAndFlavorAndTheLargestGang) {
  Spread s;
  auto reports = s.p->gpu_report();
  const gpu::PoolReport* a100 = nullptr;
  for (const auto& r : reports)
    if (r.flavor == "a100-80gb") a100 = &r.report;
  ASSERT_NE(a100, nullptr);
  // The task mix is the two requests placed so far, 1 GPU and 4 GPUs, half each. On each node
  // (3 of 4 GPUs free): a 1-GPU task uses every free GPU (0 fragmented), a 4-GPU task fits
  // nowhere (all 3000 milli-GPU fragmented): 1500 expected per node, 3000 for the flavor.
  ASSERT_EQ(a100->nodes.size(), 2u);
  for (const auto& n : a100->nodes) {
    EXPECT_DOUBLE_EQ(n.fragmentation_milli, 1500) << n.name;
    EXPECT_EQ(n.free_whole_gpus, 3);
    EXPECT_EQ(n.capacity.allocated, 1000);
  }
  EXPECT_DOUBLE_EQ(a100->cluster.fragmentation_milli, 3000);
  EXPECT_DOUBLE_EQ(a100->cluster.fragmentation_share, 0.5);
  EXPECT_DOUBLE_EQ(a100->cluster.unallocated_share, 0.75);
  EXPECT_EQ(a100->largest_gang_by_model.at("A100-80GB"), 3);
  EXPECT_EQ(a100->cluster.largest_gang_cluster, 6);

  const std::string m = s.p->metrics();
  EXPECT_NE(m.find("budcore_gpu_largest_gang{flavor=\"a100-80gb\",model=\"A100-80GB\"} 3\n"), std::string::npos) << m;
  EXPECT_NE(m.find("budcore_gpu_waiting_for_placement 1\n"), std::string::npos);
  EXPECT_NE(m.find("budcore_gpu_node_fragmentation_milli{flavor=\"a100-80gb\",node=\"a100-0\",model=\"A100-80GB\"} 1500\n"),
            std::string::npos);
  EXPECT_NE(m.find("budcore_gpu_unallocated_share{flavor=\"a100-80gb\"} 0.75\n"), std::string::npos);
  EXPECT_NE(m.find("budcore_gpu_capacity_milli{flavor=\"a100-80gb\",state=\"free\"} 6000\n"), std::string::npos);

  auto v = platform::to_value(reports);
  ASSERT_NE(v.find("a100-80gb"), nullptr);
  EXPECT_EQ(v.find("a100-80gb")->find("largest_gang_by_model")->find("A100-80GB")->as_int(), 3);

  // A ends at 300 s: C takes a100-0 and nothing waits.
  ASSERT_TRUE(s.p->run_until(s.p->now() + core::Duration::seconds(301)));
  EXPECT_EQ(s.p->get_job(ctx_a(), s.c).value().job.status, job::JobStatus::Running);
  EXPECT_NE(s.p->metrics().find("budcore_gpu_waiting_for_placement 0\n"), std::string::npos);
}

TEST(PlatformGpuViewTest, ThePlanThatFreesTheWaitingGang) {
  Spread s;
  // a (a100-0) ends in 300 s, b (a100-1) in 600 s: waiting for a costs 4 GPUs x 300 s = 1200;
  // moving a (it has run 0 s) costs 1 GPU x (0 + 60) = 60, and a100-1 takes it.
  auto doc = s.p->gpu_defrag(ctx_a(), s.c);
  ASSERT_TRUE(doc) << doc.error().describe();
  const core::Value* plan = doc->find("plan");
  ASSERT_TRUE(plan != nullptr && plan->is_map()) << core::to_json(*doc);
  EXPECT_EQ(plan->find("kind")->as_string(), "move");
  EXPECT_EQ(plan->find("node")->as_string(), "a100-0");
  EXPECT_DOUBLE_EQ(plan->find("cost_gpu_seconds")->as_float(), 60);
  const auto& moves = plan->find("moves")->as_list();
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].find("workload")->as_string(), s.a.to_string());
  EXPECT_EQ(moves[0].find("to")->as_string(), "a100-1");
  EXPECT_FALSE(doc->find("applied")->as_bool());
  // Another tenant sees nothing of it; a job that does not wait for placement is refused.
  EXPECT_EQ(s.p->gpu_defrag(ctx_b(), s.c).error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(s.p->gpu_defrag(ctx_a(), s.a).error().field, "job");
}

bool was_preempted(const job::Job& j) {
  return std::any_of(j.status_history.begin(), j.status_history.end(),
                     [](const job::StatusTransition& t) { return t.to == job::JobStatus::Preempted; });
}

// A is high priority, so the plan moves B (low) off a100-1 to a100-0. Applied: B is evicted
// and placed where the plan says (in its status history as a preemption), C runs on a100-1, A
// never moved, the audit log records the request, and memory, store and cluster agree.
TEST(PlatformGpuViewTest, ApplyingThePlanStartsTheGangAndMovesNothingOfHigherPriority) {
  Spread s(job::JobPriority::High, job::JobPriority::Low);
  auto doc = s.p->gpu_defrag(ctx_a(), s.c);
  ASSERT_TRUE(doc) << doc.error().describe();
  const core::Value* moves = doc->find("plan")->find("moves");
  ASSERT_EQ(moves->as_list().size(), 1u) << core::to_json(*doc);
  ASSERT_EQ(moves->as_list()[0].find("workload")->as_string(), s.b.to_string());

  auto applied = s.p->gpu_defrag_apply(ctx_a(), s.c, *doc);
  ASSERT_TRUE(applied) << applied.error().describe();
  EXPECT_TRUE(applied->find("applied")->as_bool());
  EXPECT_EQ(applied->find("plan")->find("kind")->as_string(), "move");

  auto c = s.p->get_job(ctx_a(), s.c).value().job;
  auto a = s.p->get_job(ctx_a(), s.a).value().job;
  auto b = s.p->get_job(ctx_a(), s.b).value().job;
  EXPECT_EQ(c.status, job::JobStatus::Running);
  EXPECT_EQ(a.status, job::JobStatus::Running);
  EXPECT_EQ(b.status, job::JobStatus::Running);
  EXPECT_FALSE(was_preempted(a)) << "A, of higher priority than the gang, moved";
  EXPECT_FALSE(was_preempted(c));
  ASSERT_TRUE(was_preempted(b));
  bool told = false;
  for (const auto& t : b.status_history) told = told || (t.to == job::JobStatus::Preempted && t.message.find("moved to a100-0") != std::string::npos);
  EXPECT_TRUE(told);
  std::map<core::Id, std::string> on;
  for (const auto& w : s.p->cluster().workloads)
    if (w.placement && !w.placement->nodes.empty()) on[w.job_id] = w.placement->nodes[0];
  EXPECT_EQ(on[s.a], "a100-0");
  EXPECT_EQ(on[s.b], "a100-0");
  EXPECT_EQ(on[s.c], "a100-1");
  EXPECT_NE(s.p->metrics().find("budcore_gpu_waiting_for_placement 0\n"), std::string::npos);
  EXPECT_TRUE(s.p->check_invariants()) << s.p->check_invariants().error().describe();
  backend::AuditQuery q;
  q.object_id = s.c.to_string();
  auto audit = s.p->list_audit(ctx_a(), q).value();
  EXPECT_TRUE(std::any_of(audit.items.begin(), audit.items.end(), [](const auto& e) { return e.action == "jobs.defrag"; }));
  // Everything runs to its end.
  ASSERT_TRUE(s.p->run_until_idle());
  EXPECT_EQ(s.p->get_job(ctx_a(), s.c).value().job.status, job::JobStatus::Completed);
  EXPECT_EQ(s.p->get_job(ctx_a(), s.b).value().job.status, job::JobStatus::Completed);
}

// The plan moves A; then A's priority goes up, so the cluster's plan now moves B. The old plan
// is stale: refused with a Conflict naming the first difference, and nothing moves.
TEST(PlatformGpuViewTest, AStalePlanIsRefusedNamingWhatChanged) {
  Spread s;
  auto doc = s.p->gpu_defrag(ctx_a(), s.c).value();
  ASSERT_EQ(doc.find("plan")->find("moves")->as_list()[0].find("workload")->as_string(), s.a.to_string());
  ASSERT_TRUE(s.p->set_priority(ctx_a(), s.a, job::JobPriority::Critical));
  auto stale = s.p->gpu_defrag_apply(ctx_a(), s.c, doc);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, core::ErrorCode::Conflict);
  EXPECT_EQ(stale.error().field.rfind("plan.", 0), 0u) << stale.error().field;
  EXPECT_NE(stale.error().message.find("stale plan: the cluster changed since it was made"), std::string::npos)
      << stale.error().message;
  EXPECT_EQ(s.p->get_job(ctx_a(), s.c).value().job.status, job::JobStatus::Scheduled);
  EXPECT_FALSE(was_preempted(s.p->get_job(ctx_a(), s.a).value().job));
  EXPECT_FALSE(was_preempted(s.p->get_job(ctx_a(), s.b).value().job));
  // The plan made now applies (null: the current plan), and moves B, not A.
  auto now = s.p->gpu_defrag_apply(ctx_a(), s.c, core::Value());
  ASSERT_TRUE(now) << now.error().describe();
  EXPECT_EQ(now->find("plan")->find("moves")->as_list()[0].find("workload")->as_string(), s.b.to_string());
  EXPECT_EQ(s.p->get_job(ctx_a(), s.c).value().job.status, job::JobStatus::Running);
  EXPECT_FALSE(was_preempted(s.p->get_job(ctx_a(), s.a).value().job));
  // Once the gang runs, a plan for it is stale too.
  auto again = s.p->gpu_defrag_apply(ctx_a(), s.c, *now);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, core::ErrorCode::Conflict);
}

// Both small jobs outrank the gang: the only plan is to wait, and a wait has nothing to apply.
TEST(PlatformGpuViewTest, AWaitPlanHasNothingToApply) {
  Spread s(job::JobPriority::High, job::JobPriority::High);
  auto doc = s.p->gpu_defrag(ctx_a(), s.c).value();
  ASSERT_EQ(doc.find("plan")->find("kind")->as_string(), "wait");
  auto r = s.p->gpu_defrag_apply(ctx_a(), s.c, doc);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "plan.kind");
  EXPECT_EQ(s.p->get_job(ctx_a(), s.c).value().job.status, job::JobStatus::Scheduled);
  // Another tenant's job is not found.
  EXPECT_EQ(s.p->gpu_defrag_apply(ctx_b(), s.c, core::Value()).error().code, core::ErrorCode::NotFound);
}

// B's run belongs to another tenant: an apply says nothing of it to tenant A beyond "[hidden <token>]",
// and B's own record of the move does not name A's job or A's plan.
TEST(PlatformGpuViewTest, AnotherTenantsRunIsNeverNamedAcrossTheBoundary) {
  for (const auto pb : {job::JobPriority::High, job::JobPriority::Low}) {
    PlatformTarget t;
    t.config.cluster.inventory[0].gpus_per_node = 4;
    t.config.cluster.placement_policy = "worst_fit";
    auto p = t.open();
    auto ja = gpu_job("a", 1, 300), jb = gpu_job("b", 1, 600);
    ja.priority = job::JobPriority::High;
    jb.priority = pb;
    const core::Id a = p->submit(ctx_a(), ja).value().record.job.id;
    const core::Id b = p->submit(ctx_b(), jb).value().record.job.id;
    ASSERT_TRUE(p->pump());
    const core::Id c = p->submit(ctx_a(), gpu_job("c", 4, 600)).value().record.job.id;
    ASSERT_TRUE(p->pump());
    // A's run outranks the gang and B's run is another tenant's, whatever its priority: A's
    // plan may wait for it but not move it. The wait is refused in A's names, and B's run stays.
    auto applied = p->gpu_defrag_apply(ctx_a(), c, core::Value());
    ASSERT_FALSE(applied);
    EXPECT_EQ(applied.error().field, "plan.kind");
    EXPECT_EQ(applied.error().message.find(b.to_string()), std::string::npos) << applied.error().message;
    EXPECT_FALSE(was_preempted(p->get_job(ctx_b(), b).value().job));
    EXPECT_EQ(p->get_job(ctx_b(), b).value().job.status, job::JobStatus::Running);
  }
}

// A platform admin's plan may move any tenant's run; a tenant's own plan for the same job may not.
TEST(PlatformGpuViewTest, OnlyAPlatformAdminsPlanMovesAnotherTenantsRun) {
  PlatformTarget t;
  t.config.cluster.inventory[0].gpus_per_node = 4;
  t.config.cluster.placement_policy = "worst_fit";
  t.config.security.rbac = true;
  t.config.security.platform_admins = {"user:root"};
  auto p = t.open();
  const auto root_a = platform::CallContext::for_tenant(tenant_a(), "user:root");
  const auto root_b = platform::CallContext::for_tenant(tenant_b(), "user:root");
  auto ja = gpu_job("a", 1, 300), jb = gpu_job("b", 1, 600);
  ja.priority = job::JobPriority::High;
  jb.priority = job::JobPriority::Low;
  ASSERT_TRUE(p->submit(root_a, ja));
  const core::Id b = p->submit(root_b, jb).value().record.job.id;
  ASSERT_TRUE(p->pump());
  const core::Id c = p->submit(root_a, gpu_job("c", 4, 600)).value().record.job.id;
  ASSERT_TRUE(p->pump());
  ASSERT_TRUE(p->bind_role(root_a, platform::RoleBinding{"user:alice", platform::Role::Admin, std::nullopt}));
  const auto alice = platform::CallContext::for_tenant(tenant_a(), "user:alice");
  EXPECT_EQ(p->gpu_defrag(alice, c).value().find("plan")->find("kind")->as_string(), "wait");
  EXPECT_EQ(p->gpu_defrag_apply(alice, c, core::Value()).error().field, "plan.kind");
  const core::Value plan = p->gpu_defrag(root_a, c).value();
  ASSERT_EQ(plan.find("plan")->find("kind")->as_string(), "move") << core::to_json(plan);
  auto applied = p->gpu_defrag_apply(root_a, c, plan);
  ASSERT_TRUE(applied) << applied.error().describe();
  EXPECT_TRUE(was_preempted(p->get_job(root_b, b).value().job));
  EXPECT_EQ(p->get_job(root_a, c).value().job.status, job::JobStatus::Running);
}

// Tenant A's high-priority a and a low-priority b on one node each; A's gang c waits. When b is
// A's own, the plan moves it to a100-0; when it is tenant B's, A's plan may not move it and waits
// for it (it ends before a), naming it hidden.
struct TwoTenants {
  PlatformTarget t;
  std::unique_ptr<platform::Platform> p;
  core::Id a, b, c;
  explicit TwoTenants(bool b_is_tenant_bs = true) {
    t.config.cluster.inventory[0].gpus_per_node = 4;
    t.config.cluster.placement_policy = "worst_fit";
    p = t.open();
    auto ja = gpu_job("a", 1, 900), jb = gpu_job("b", 1, 600);
    ja.priority = job::JobPriority::High;
    jb.priority = job::JobPriority::Low;
    a = p->submit(ctx_a(), ja).value().record.job.id;
    b = p->submit(b_is_tenant_bs ? ctx_b() : ctx_a(), jb).value().record.job.id;
    EXPECT_TRUE(p->pump());
    c = p->submit(ctx_a(), gpu_job("c", 4, 600)).value().record.job.id;
    EXPECT_TRUE(p->pump());
  }
};

std::size_t defrag_entries(platform::Platform& p, const core::Id& job) {
  backend::AuditQuery q;
  q.object_id = job.to_string();
  auto audit = p.list_audit(ctx_a(), q);
  EXPECT_TRUE(audit) << audit.error().describe();
  if (!audit) return 0;
  return static_cast<std::size_t>(std::count_if(audit->items.begin(), audit->items.end(), [](const backend::AuditEntry& e) {
    const core::Value* outcome = e.detail.find("outcome");
    return e.action == "jobs.defrag" && outcome != nullptr && outcome->as_string() == "ok";
  }));
}

// Two processes (two platforms on one SQLite file) apply one plan at once: one applies it, the
// other loses the race on the moved run. The loser's refusal names no run (a run a plan moves
// may be another tenant's when a platform admin applies it), and the log holds one applied entry.
TEST(PlatformGpuViewTest, TwoAppliesOfOnePlanRacingOnOneStoreAuditOnceAndNameNoRun) {
  TwoTenants s(false);
  const core::Value doc = s.p->gpu_defrag(ctx_a(), s.c).value();
  ASSERT_EQ(doc.find("plan")->find("kind")->as_string(), "move") << core::to_json(doc);
  s.p.reset();
  // Each opened and settled (a reopened platform places its waiting run in a pump) before
  // either applies: both hold the same state when they race.
  auto first = s.t.open();
  ASSERT_TRUE(first && first->pump());
  auto second = s.t.open();
  ASSERT_TRUE(second && second->pump());
  std::optional<core::Result<core::Value>> r1, r2;
  std::thread t1([&] { r1 = first->gpu_defrag_apply(ctx_a(), s.c, doc); });
  std::thread t2([&] { r2 = second->gpu_defrag_apply(ctx_a(), s.c, doc); });
  t1.join();
  t2.join();
  ASSERT_NE(r1->has_value(), r2->has_value()) << "exactly one apply wins";
  platform::Platform& loser = r1->has_value() ? *second : *first;
  const core::Error lost = r1->has_value() ? r2->error() : r1->error();
  EXPECT_EQ(lost.code, core::ErrorCode::Conflict) << lost.describe();
  EXPECT_EQ(lost.message.find(s.b.to_string()), std::string::npos) << lost.message;
  EXPECT_NE(lost.message.find("a run this plan moves was changed by another writer"), std::string::npos) << lost.message;
  auto later = loser.get_job(ctx_a(), s.a);
  if (!later) EXPECT_EQ(later.error().message.find(s.b.to_string()), std::string::npos) << later.error().message;
  first.reset();
  second.reset();
  auto fresh = s.t.open();
  ASSERT_TRUE(fresh && fresh->pump());
  EXPECT_EQ(defrag_entries(*fresh, s.c), 1u);
  EXPECT_EQ(fresh->get_job(ctx_a(), s.c).value().job.status, job::JobStatus::Running);
  EXPECT_TRUE(fresh->check_invariants()) << fresh->check_invariants().error().describe();
}

// B cancels its run and a new run of B takes the same slot: A's old plan named the old run, so
// it is stale (the hidden names differ), refused naming the difference, and nothing moves. The
// name of a hidden run holds across reopening the store, so a plan made by one process applies
// in another.
TEST(PlatformGpuViewTest, APlanNamingAHiddenRunThatWasReplacedIsStale) {
  TwoTenants s;
  const core::Value doc = s.p->gpu_defrag(ctx_a(), s.c).value();
  const std::string hidden = doc.find("plan")->find("wait_for")->as_list()[0].as_string();
  ASSERT_EQ(hidden.rfind("[hidden ", 0), 0u) << core::to_json(doc);
  s.p.reset();
  s.p = s.t.open();
  ASSERT_TRUE(s.p->pump());
  EXPECT_EQ(s.p->gpu_defrag(ctx_a(), s.c).value(), doc) << "a hidden run is named alike after a reopen";
  ASSERT_TRUE(s.p->cancel_job(ctx_b(), s.b, "replaced"));
  auto jb2 = gpu_job("b2", 1, 600);
  jb2.priority = job::JobPriority::Low;
  const core::Id b2 = s.p->submit(ctx_b(), jb2).value().record.job.id;
  ASSERT_TRUE(s.p->pump());
  auto now = s.p->gpu_defrag(ctx_a(), s.c).value();
  const std::string hidden2 = now.find("plan")->find("wait_for")->as_list()[0].as_string();
  EXPECT_NE(hidden2, hidden);
  auto stale = s.p->gpu_defrag_apply(ctx_a(), s.c, doc);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, core::ErrorCode::Conflict);
  EXPECT_EQ(stale.error().field, "plan.wait_for[0]") << stale.error().describe();
  EXPECT_EQ(stale.error().message.find(b2.to_string()), std::string::npos) << stale.error().message;
  EXPECT_FALSE(was_preempted(s.p->get_job(ctx_b(), b2).value().job));
  EXPECT_EQ(s.p->get_job(ctx_a(), s.c).value().job.status, job::JobStatus::Scheduled);
}

// The cluster as a tenant's caller sees it: its runs by id, the other tenant's as the same
// hidden name a plan gives, with no tenant or message; a platform admin sees every id.
TEST(PlatformGpuViewTest, TheClusterShownToACallerHidesOtherTenantsRuns) {
  TwoTenants s;
  s.p.reset();
  s.t.config.security.rbac = true;
  s.t.config.security.platform_admins = {"user:root"};
  s.p = s.t.open();
  ASSERT_TRUE(s.p->pump());
  ASSERT_TRUE(s.p->bind_role(platform::CallContext::for_tenant(tenant_a(), "user:root"),
                             platform::RoleBinding{"user:alice", platform::Role::Viewer, std::nullopt}));
  const std::string plan_name = s.p->gpu_defrag(ctx_a(), s.c).value().find("plan")->find("wait_for")->as_list()[0].as_string();
  auto view = s.p->cluster(ctx_a());
  ASSERT_TRUE(view) << view.error().describe();
  const std::string json = core::to_json(platform::to_value(*view));
  EXPECT_EQ(json.find(s.b.to_string()), std::string::npos) << json;
  EXPECT_EQ(json.find(tenant_b().to_string()), std::string::npos) << json;
  EXPECT_NE(json.find(s.a.to_string()), std::string::npos) << json;
  EXPECT_NE(json.find(s.c.to_string()), std::string::npos) << json;
  EXPECT_NE(json.find("\"job_id\":\"" + plan_name + "\""), std::string::npos) << json;
  auto all = s.p->cluster(platform::CallContext::for_tenant(tenant_a(), "user:root"));
  ASSERT_TRUE(all) << all.error().describe();
  EXPECT_NE(core::to_json(platform::to_value(*all)).find(s.b.to_string()), std::string::npos);
  // A principal with no role in the tenant is refused.
  EXPECT_EQ(s.p->cluster(platform::CallContext::for_tenant(tenant_a(), "user:mallory")).error().code,
            core::ErrorCode::Security);
}

TEST(PlatformGpuViewTest, WithoutAPolicyThereIsNoGpuReport) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->gpu_report().empty());
  EXPECT_EQ(p->metrics().find("budcore_gpu_largest_gang{"), std::string::npos);
}

}  // namespace
}  // namespace budcore::testing
