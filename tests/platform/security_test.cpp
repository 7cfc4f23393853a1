// Security on the Platform (docs/security.md), on SQLite and on a real PostgreSQL server: RBAC
// by role and scope, denials that name what is missing and are audited, the audit trail of
// every mutation, tenant admission policy, and submit backpressure.
#include <gtest/gtest.h>

#include "budcore/platform/rate_limiter.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using core::ErrorCode;
using platform::CallContext;
using platform::Role;
using platform::RoleBinding;

const core::Id kProjectP = core::Id::parse("00000000-0000-4000-8000-0000000000e1").value();
const core::Id kProjectQ = core::Id::parse("00000000-0000-4000-8000-0000000000e2").value();

CallContext as(const core::Id& tenant, std::string principal) {
  return CallContext::for_tenant(tenant, std::move(principal), "req-" + std::to_string(std::rand()));
}

job::Job job_in(const core::Id& project, std::string name, std::int64_t gpus = 1) {
  job::Job j = gpu_job(std::move(name), gpus);
  j.project_id = project;
  return j;
}

class PlatformSecurity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = std::make_unique<PlatformTarget>(GetParam());
    BUDCORE_SKIP_UNLESS_READY(*target_);
    target_->config.security.rbac = true;
    target_->config.security.platform_admins = {"user:root"};
  }
  std::unique_ptr<platform::Platform> open() { return target_->open(); }
  // root grants the tenant's roles.
  void bind(platform::Platform& p, const core::Id& tenant, std::string principal, Role role,
            std::optional<core::Id> project = std::nullopt) {
    auto r = p.bind_role(as(tenant, "user:root"), RoleBinding{std::move(principal), role, project});
    ASSERT_TRUE(r) << r.error().describe();
  }
  std::unique_ptr<PlatformTarget> target_;
};

TEST_P(PlatformSecurity, EveryCallNeedsAWellFormedPrincipal) {
  auto p = open();
  ASSERT_TRUE(p);
  auto none = p->submit(as(tenant_a(), ""), job_in(kProjectP, "a"));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::Security);
  EXPECT_EQ(none.error().field, "principal");
  auto forged = p->list_jobs(as(tenant_a(), "root"), {});
  ASSERT_FALSE(forged);
  EXPECT_EQ(forged.error().code, ErrorCode::Invalid);
  EXPECT_NE(forged.error().message.find("user:<name>"), std::string::npos);
  auto nul = p->list_jobs(as(tenant_a(), std::string("user:al\0ice", 11)), {});
  ASSERT_FALSE(nul);
  EXPECT_EQ(nul.error().code, ErrorCode::Invalid);
  // Someone unknown holds no role.
  auto stranger = p->list_jobs(as(tenant_a(), "user:mallory"), {});
  ASSERT_FALSE(stranger);
  EXPECT_EQ(stranger.error().code, ErrorCode::Security);
  EXPECT_NE(stranger.error().message.find("needs role viewer"), std::string::npos) << stranger.error().message;
  EXPECT_NE(stranger.error().message.find("holds no role"), std::string::npos);
}

TEST_P(PlatformSecurity, RolesGrantVerbsWithinTheirProject) {
  auto p = open();
  ASSERT_TRUE(p);
  bind(*p, tenant_a(), "user:erin", Role::Editor, kProjectP);
  bind(*p, tenant_a(), "user:vic", Role::Viewer);
  bind(*p, tenant_a(), "user:ada", Role::Admin);

  auto mine = p->submit(as(tenant_a(), "user:erin"), job_in(kProjectP, "p-job"));
  ASSERT_TRUE(mine) << mine.error().describe();
  const core::Id id = mine->record.job.id;
  // Not in another project, and a viewer submits nothing; each denial names verb, resource, role.
  auto elsewhere = p->submit(as(tenant_a(), "user:erin"), job_in(kProjectQ, "q-job"));
  ASSERT_FALSE(elsewhere);
  EXPECT_EQ(elsewhere.error().code, ErrorCode::Security);
  EXPECT_NE(elsewhere.error().message.find("may not create jobs in project " + kProjectQ.to_string()), std::string::npos)
      << elsewhere.error().message;
  auto viewer = p->submit(as(tenant_a(), "user:vic"), job_in(kProjectP, "v-job"));
  ASSERT_FALSE(viewer);
  EXPECT_NE(viewer.error().message.find("needs role editor or higher"), std::string::npos) << viewer.error().message;
  EXPECT_NE(viewer.error().message.find("holds viewer"), std::string::npos);

  // The viewer reads; the project editor reads its project's job but lists only with the filter.
  EXPECT_TRUE(p->get_job(as(tenant_a(), "user:vic"), id));
  EXPECT_TRUE(p->list_jobs(as(tenant_a(), "user:vic"), {}));
  EXPECT_TRUE(p->get_job(as(tenant_a(), "user:erin"), id));
  backend::JobFilter in_p;
  in_p.project_id = kProjectP;
  EXPECT_TRUE(p->list_jobs(as(tenant_a(), "user:erin"), in_p));
  auto unfiltered = p->list_jobs(as(tenant_a(), "user:erin"), {});
  ASSERT_FALSE(unfiltered);
  EXPECT_NE(unfiltered.error().message.find("filter by project_id"), std::string::npos);

  // Costs are for admins: the viewer reads the job without them, the admin with them.
  job::Job priced = job_in(kProjectP, "priced");
  priced.estimated_cost = core::Money::parse("12.50", "USD").value();
  auto pj = p->submit(as(tenant_a(), "user:erin"), priced);
  ASSERT_TRUE(pj) << pj.error().describe();
  EXPECT_FALSE(p->get_job(as(tenant_a(), "user:vic"), pj->record.job.id)->job.estimated_cost);
  EXPECT_FALSE(p->get_job(as(tenant_a(), "user:erin"), pj->record.job.id)->job.estimated_cost);
  ASSERT_TRUE(p->get_job(as(tenant_a(), "user:ada"), pj->record.job.id)->job.estimated_cost);
  EXPECT_EQ(p->get_job(as(tenant_a(), "user:ada"), pj->record.job.id)->job.estimated_cost->to_string(), "12.50 USD");

  // Critical jobs and preemption need an admin.
  job::Job critical = job_in(kProjectP, "urgent");
  critical.priority = job::JobPriority::Critical;
  auto c1 = p->submit(as(tenant_a(), "user:erin"), critical);
  ASSERT_FALSE(c1);
  EXPECT_NE(c1.error().message.find("create_critical"), std::string::npos) << c1.error().message;
  EXPECT_TRUE(p->submit(as(tenant_a(), "user:ada"), critical));
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(1)));
  auto pre = p->preempt_job(as(tenant_a(), "user:erin"), id);
  ASSERT_FALSE(pre);
  EXPECT_NE(pre.error().message.find("needs role admin"), std::string::npos) << pre.error().message;
  EXPECT_TRUE(p->preempt_job(as(tenant_a(), "user:ada"), id));
  EXPECT_TRUE(p->cancel_job(as(tenant_a(), "user:erin"), id));
}

TEST_P(PlatformSecurity, NoCallerCanTellAnotherProjectsJobFromNoJob) {
  auto p = open();
  ASSERT_TRUE(p);
  bind(*p, tenant_a(), "user:erin", Role::Editor, kProjectP);
  bind(*p, tenant_a(), "user:quinn", Role::Editor, kProjectQ);
  auto q = p->submit(as(tenant_a(), "user:quinn"), job_in(kProjectQ, "q-job"));
  ASSERT_TRUE(q);
  auto other = p->cancel_job(as(tenant_a(), "user:erin"), q->record.job.id);
  auto missing = p->cancel_job(as(tenant_a(), "user:erin"), core::Id::generate());
  ASSERT_FALSE(other);
  ASSERT_FALSE(missing);
  EXPECT_EQ(other.error().code, ErrorCode::Security);
  EXPECT_EQ(missing.error().code, ErrorCode::Security);
  // Another tenant's principal, even with a role in its own tenant, sees nothing of tenant A.
  bind(*p, tenant_b(), "user:bob", Role::Admin);
  auto cross = p->get_job(as(tenant_b(), "user:bob"), q->record.job.id);
  ASSERT_FALSE(cross);
  EXPECT_EQ(cross.error().code, ErrorCode::NotFound);
  auto cross_in_a = p->get_job(as(tenant_a(), "user:bob"), q->record.job.id);
  ASSERT_FALSE(cross_in_a);
  EXPECT_EQ(cross_in_a.error().code, ErrorCode::Security);
  EXPECT_TRUE(p->list_jobs(as(tenant_b(), "user:bob"), {})->items.empty());
}

TEST_P(PlatformSecurity, BindingsAreManagedByTenantAdminsAndAudited) {
  auto p = open();
  ASSERT_TRUE(p);
  bind(*p, tenant_a(), "user:tara", Role::TenantAdmin);
  bind(*p, tenant_a(), "user:erin", Role::Editor);
  auto by_editor = p->bind_role(as(tenant_a(), "user:erin"), RoleBinding{"user:eve", Role::Admin, std::nullopt});
  ASSERT_FALSE(by_editor);
  EXPECT_NE(by_editor.error().message.find("bind role_bindings"), std::string::npos) << by_editor.error().message;
  EXPECT_TRUE(p->bind_role(as(tenant_a(), "user:tara"), RoleBinding{"user:eve", Role::Viewer, kProjectP}));
  auto project_admin = p->bind_role(as(tenant_a(), "user:tara"), RoleBinding{"user:eve", Role::TenantAdmin, kProjectP});
  ASSERT_FALSE(project_admin);
  EXPECT_EQ(project_admin.error().field, "binding.project");
  // Only a platform admin makes platform admins.
  auto escalate = p->bind_role(as(tenant_a(), "user:tara"), RoleBinding{"user:tara", Role::PlatformAdmin, std::nullopt});
  ASSERT_FALSE(escalate);
  EXPECT_EQ(escalate.error().code, ErrorCode::Security);
  auto listed = p->list_role_bindings(as(tenant_a(), "user:tara"));
  ASSERT_TRUE(listed) << listed.error().describe();
  EXPECT_EQ(listed->size(), 3u);
  EXPECT_TRUE(p->unbind_role(as(tenant_a(), "user:tara"), RoleBinding{"user:eve", Role::Viewer, kProjectP}));
  EXPECT_EQ(p->unbind_role(as(tenant_a(), "user:tara"), RoleBinding{"user:eve", Role::Viewer, kProjectP}).error().code,
            ErrorCode::NotFound);

  // The tenant admin reads the audit log: the bindings, the unbinding and the refusals.
  auto log = p->list_audit(as(tenant_a(), "user:tara"), {});
  ASSERT_TRUE(log) << log.error().describe();
  std::vector<std::string> actions;
  for (const auto& e : log->items)
    actions.push_back(e.action + ":" + e.detail.find("outcome")->as_string() + ":" + e.actor);
  EXPECT_NE(std::find(actions.begin(), actions.end(), "role_bindings.bind:denied:user:erin"), actions.end());
  EXPECT_NE(std::find(actions.begin(), actions.end(), "role_bindings.bind_platform:denied:user:tara"), actions.end());
  EXPECT_NE(std::find(actions.begin(), actions.end(), "role_bindings.unbind:ok:user:tara"), actions.end());
  EXPECT_EQ(p->list_audit(as(tenant_a(), "user:erin"), {}).error().code, ErrorCode::Security);
  auto verified = p->verify_audit(as(tenant_a(), "user:root"));
  ASSERT_TRUE(verified) << verified.error().describe();
  EXPECT_TRUE(verified->ok);
  EXPECT_EQ(p->verify_audit(as(tenant_a(), "user:tara")).error().code, ErrorCode::Security);
}

TEST_P(PlatformSecurity, EveryMutationIsAuditedWithDigests) {
  auto p = open();
  ASSERT_TRUE(p);
  bind(*p, tenant_a(), "user:ada", Role::Admin);
  bind(*p, tenant_a(), "user:tara", Role::TenantAdmin);
  const CallContext ada = as(tenant_a(), "user:ada");
  auto a = p->submit(ada, job_in(kProjectP, "a"));
  ASSERT_TRUE(a);
  const core::Id id = a->record.job.id;
  ASSERT_TRUE(p->set_priority(ada, id, job::JobPriority::High));
  ASSERT_TRUE(p->cancel_job(ada, id, "no longer needed"));
  backend::AuditQuery about;
  about.object_id = id.to_string();
  auto log = p->list_audit(as(tenant_a(), "user:tara"), about);
  ASSERT_TRUE(log) << log.error().describe();
  ASSERT_EQ(log->items.size(), 3u);
  EXPECT_EQ(log->items[0].action, "jobs.create");
  EXPECT_EQ(log->items[1].action, "jobs.update");
  EXPECT_EQ(log->items[2].action, "jobs.cancel");
  EXPECT_TRUE(log->items[0].detail.find("before")->is_null());
  EXPECT_EQ(log->items[0].detail.find("after")->as_string().size(), 64u);
  // Each change starts from the state the one before it left.
  EXPECT_EQ(log->items[1].detail.find("before")->as_string(), log->items[0].detail.find("after")->as_string());
  EXPECT_EQ(log->items[2].detail.find("before")->as_string(), log->items[1].detail.find("after")->as_string());
  EXPECT_NE(log->items[2].detail.find("before")->as_string(), log->items[2].detail.find("after")->as_string());
  for (const auto& e : log->items) {
    EXPECT_EQ(e.actor, "user:ada");
    EXPECT_EQ(e.request_id, ada.request_id);
    EXPECT_EQ(e.hash.size(), 64u);
  }
  // A batch is one request and one entry, listing every job it created with its digest.
  std::vector<platform::SubmitRequest> three;
  for (int i = 0; i < 3; ++i) three.push_back({job_in(kProjectP, "b" + std::to_string(i)), ""});
  auto batch = p->submit_batch(ada, three);
  ASSERT_TRUE(batch) << batch.error().describe();
  backend::AuditQuery creates;
  creates.object_type = "job";
  auto all = p->list_audit(as(tenant_a(), "user:tara"), creates);
  ASSERT_TRUE(all);
  const backend::AuditEntry& last = all->items.back();
  EXPECT_EQ(last.action, "jobs.create");
  EXPECT_EQ(last.object_id, "");
  EXPECT_EQ(last.detail.find("count")->as_int(), 3);
  const auto& listed = last.detail.find("jobs")->as_list();
  ASSERT_EQ(listed.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(listed[i].find("id")->as_string(), (*batch)[i].record.job.id.to_string());
    EXPECT_EQ(listed[i].find("after")->as_string().size(), 64u);
  }
}

TEST_P(PlatformSecurity, TenantPolicyRefusesWhatTheTenantMayNotRun) {
  target_->config.security.rbac = false;
  platform::TenantPolicy strict;
  strict.allowed_registries = {"registry.corp/"};
  strict.denied_registries = {"registry.corp/untrusted/"};
  strict.max_gpus_per_job = 4;
  strict.gpu_types = {"nvidia-a100-80gb"};
  strict.priorities = {job::JobPriority::Normal, job::JobPriority::Low};
  target_->config.security.tenants[tenant_a()] = strict;
  auto p = open();
  ASSERT_TRUE(p);
  auto with_image = [](std::string image) {
    job::Job j = gpu_job("img", 1);
    j.spec = core::Value::map({{"image", std::move(image)}});
    return j;
  };
  EXPECT_TRUE(p->submit(ctx_a(), with_image("registry.corp/llm:1")));
  struct Case {
    job::Job job;
    std::string field;
  };
  job::Job big = gpu_job("big", 8);
  job::Job h100 = gpu_job("h100", 1, 600, "nvidia-h100-sxm");
  job::Job high = gpu_job("high", 1);
  high.priority = job::JobPriority::High;
  for (auto& [j, field] : std::vector<Case>{{with_image("docker.io/evil:1"), "spec.image"},
                                            {with_image("registry.corp/untrusted/x:1"), "spec.image"},
                                            {big, "gpu_count"},
                                            {h100, "gpu_type"},
                                            {high, "priority"}}) {
    auto r = p->submit(ctx_a(), j);
    ASSERT_FALSE(r) << field;
    EXPECT_EQ(r.error().code, ErrorCode::Security) << field;
    EXPECT_EQ(r.error().field, field);
    EXPECT_NE(r.error().message.find("tenant " + tenant_a().to_string()), std::string::npos) << r.error().message;
  }
  // Tenant B has no policy.
  EXPECT_TRUE(p->submit(ctx_b(), big));
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 1u);
}

TEST_P(PlatformSecurity, SubmitsAreRateLimitedWithARetryAfter) {
  target_->config.security.rbac = false;
  platform::TenantPolicy limited;
  limited.submits_per_second = 1;
  limited.submit_burst = 3;
  limited.max_queued_jobs = 5;
  target_->config.security.default_policy = limited;
  auto p = open();
  ASSERT_TRUE(p);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(p->submit(ctx_a(), gpu_job("j" + std::to_string(i), 0, 86'400)));
  auto fourth = p->submit(ctx_a(), gpu_job("j3", 0));
  ASSERT_FALSE(fourth);
  EXPECT_EQ(fourth.error().code, ErrorCode::RateLimited);
  EXPECT_EQ(fourth.error().retry_after_ms, 1000);
  EXPECT_NE(fourth.error().message.find("security.tenants.*.submits_per_second"), std::string::npos);
  // Another tenant has its own bucket; a batch over the burst never fits.
  EXPECT_TRUE(p->submit(ctx_b(), gpu_job("b0", 0)));
  std::vector<platform::SubmitRequest> four(4, platform::SubmitRequest{gpu_job("x", 0), ""});
  auto batch = p->submit_batch(ctx_b(), four);
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error().code, ErrorCode::RateLimited);
  EXPECT_EQ(batch.error().retry_after_ms, 0);
  EXPECT_NE(batch.error().message.find("smaller batches"), std::string::npos);
  // Time refills the bucket; the queue-depth cap then holds at 5 jobs that have not ended.
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(2)));
  ASSERT_TRUE(p->submit(ctx_a(), gpu_job("j3", 0, 86'400)));
  ASSERT_TRUE(p->submit(ctx_a(), gpu_job("j4", 0, 86'400)));
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(2)));
  auto deep = p->submit(ctx_a(), gpu_job("j5", 0));
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code, ErrorCode::RateLimited);
  EXPECT_NE(deep.error().message.find("max_queued_jobs = 5"), std::string::npos) << deep.error().message;
  EXPECT_GT(deep.error().retry_after_ms, 0);
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 5u);
  // The cap counts the store, not one handle's memory: a second handle on the same store (or
  // another process) cannot add a sixth.
  auto second = open();
  ASSERT_TRUE(second);
  ASSERT_TRUE(second->run_until(second->now() + core::Duration::seconds(2)));
  auto elsewhere = second->submit(ctx_a(), gpu_job("j6", 0));
  ASSERT_FALSE(elsewhere);
  EXPECT_EQ(elsewhere.error().code, ErrorCode::RateLimited);
  EXPECT_NE(elsewhere.error().message.find("security.tenants.*.max_queued_jobs = 5"), std::string::npos)
      << elsewhere.error().message;
}

INSTANTIATE_TEST_SUITE_P(Stores, PlatformSecurity, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

TEST(PlatformSecurityConfig, TheSecuritySectionIsCheckedFieldByField) {
  auto ok = platform::PlatformConfig::parse(R"(
store: "sqlite::memory:"
security:
  rbac: true
  platform_admins: ["user:root", "sa:deployer"]
  tenants:
    "*": {max_gpus_per_job: 8, submits_per_second: 50, submit_burst: 100}
    "00000000-0000-4000-8000-00000000000a": {priorities: [normal, low], allowed_registries: ["registry.corp/"]}
)");
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_TRUE(ok->security.rbac);
  EXPECT_EQ(ok->security.platform_admins.size(), 2u);
  ASSERT_TRUE(ok->security.default_policy);
  EXPECT_EQ(ok->security.default_policy->submit_burst, 100);
  EXPECT_EQ(ok->security.policy_for(tenant_a())->priorities.size(), 2u);
  EXPECT_EQ(ok->security.policy_for(tenant_b())->max_gpus_per_job, 8);
  struct Bad {
    std::string yaml, field;
  };
  for (const auto& [yaml, field] : std::vector<Bad>{
           {"security: {platform_admins: [root]}", "security.platform_admins[0]"},
           {"security: {rbac: yes-please}", "security.rbac"},
           {"security: {roles: []}", "security.roles"},
           {"security: {tenants: {not-a-uuid: {}}}", "security.tenants"},
           {"security: {tenants: {'*': {priorities: [urgent]}}}", "security.tenants.*.priorities[0]"},
           {"security: {tenants: {'*': {submit_burst: 5}}}", "security.tenants.*.submit_burst"},
           {"security: {tenants: {'*': {submits_per_second: 0.0000001}}}", "security.tenants.*.submits_per_second"},
           {"security: {tenants: {'*': {max_gpus_per_job: -1}}}", "security.tenants.*.max_gpus_per_job"},
           // "Nothing" is never spelled as an empty list or a zero: those would read as no rule.
           {"security: {tenants: {'*': {allowed_registries: []}}}", "security.tenants.*.allowed_registries"},
           {"security: {tenants: {'*': {gpu_types: []}}}", "security.tenants.*.gpu_types"},
           {"security: {tenants: {'*': {priorities: []}}}", "security.tenants.*.priorities"},
           {"security: {tenants: {'*': {submits_per_second: 0}}}", "security.tenants.*.submits_per_second"},
           {"security: {tenants: {'*': {submits_per_second: 1, submit_burst: 0}}}", "security.tenants.*.submit_burst"},
           {"security: {tenants: {'*': {max_queued_jobs: 0}}}", "security.tenants.*.max_queued_jobs"}}) {
    auto r = platform::PlatformConfig::parse("store: 'sqlite::memory:'\n" + yaml);
    ASSERT_FALSE(r) << yaml;
    EXPECT_EQ(r.error().field, field) << yaml << " -> " << r.error().describe();
  }
}

TEST(SubmitRateLimiterTest, GcraIsATokenBucket) {
  platform::SubmitRateLimiter l;
  const core::Id t = tenant_a();
  const platform::SubmitRateLimiter::Limit lim{10, 5};  // 10/s, 5 at once
  const std::int64_t s = 1'000'000'000;
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(l.acquire(t, lim, 1, 100 * s).allowed) << i;
  auto d = l.acquire(t, lim, 1, 100 * s);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.retry_after_ns, s / 10);
  EXPECT_TRUE(l.acquire(t, lim, 1, 100 * s + s / 10).allowed);
  EXPECT_FALSE(l.acquire(t, lim, 2, 100 * s + s / 10).allowed);
  EXPECT_TRUE(l.acquire(t, lim, 5, 101 * s).allowed);  // a quiet second refills the whole burst
  EXPECT_EQ(l.acquire(t, lim, 6, 200 * s).retry_after_ns, -1);
  EXPECT_TRUE(l.acquire(tenant_b(), lim, 5, 101 * s).allowed);
  EXPECT_EQ(l.tenants(), 2u);
}

}  // namespace
}  // namespace budcore::testing
