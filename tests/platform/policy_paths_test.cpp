// One policy on every path (docs/security.md "One policy, every path"), on SQLite and on a real
// PostgreSQL server: every way a job is created or changed (submit, submit_batch, a pipeline's
// JOB step, a priority change) reaches the same decision for the same job and the same role as
// a reference model of the tenant policy and the roles does; limits hold across processes and
// for pipelines; refusals of what a caller may not see read like refusals of what does not
// exist; and the smaller holes: duplicate config keys, scenario file references, audit anchors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <stdlib.h>
#include <sys/stat.h>

#include "backends/loopback_http_server.hpp"
#include "budcore/core/json.hpp"
#include "budcore/platform/scenario.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using core::ErrorCode;
using core::Value;
using platform::CallContext;
using platform::Role;

const core::Id kProject = core::Id::parse("00000000-0000-4000-8000-0000000000e1").value();
const core::Id kOtherProject = core::Id::parse("00000000-0000-4000-8000-0000000000e2").value();

CallContext as(std::string principal) { return CallContext::for_tenant(tenant_a(), std::move(principal), "req"); }

// The policy under test and the reference model of what it allows.
platform::TenantPolicy policy() {
  platform::TenantPolicy p;
  p.allowed_registries = {"registry.corp/team", "ghcr.io"};
  p.denied_registries = {"registry.corp/team/untrusted"};
  p.max_gpus_per_job = 4;
  p.gpu_types = {"nvidia-a100-80gb"};
  p.priorities = {job::JobPriority::Low, job::JobPriority::Normal, job::JobPriority::High, job::JobPriority::Critical};
  return p;
}

struct Variant {
  std::string what;
  std::string image;
  std::int64_t gpus = 1;
  std::int64_t replicas = 0;  // > 0: a service with this many replicas
  job::JobPriority priority = job::JobPriority::Normal;
  bool policy_allows = true;  // the reference answer of the tenant policy
};

// Every spelling of a registry a runtime reads as the same one, and the limits around them.
std::vector<Variant> variants() {
  using P = job::JobPriority;
  return {
      {"allowed", "registry.corp/team/app:1.0", 1, 0, P::Normal, true},
      {"host in capitals", "REGISTRY.CORP/team/app", 1, 0, P::Normal, true},
      {"default port", "registry.corp:443/team/app", 1, 0, P::Normal, true},
      {"digest", "ghcr.io/org/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 1, 0, P::Normal, true},
      {"denied namespace", "registry.corp/team/untrusted/x", 1, 0, P::Normal, false},
      {"denied repository itself", "registry.corp/team/untrusted:latest", 1, 0, P::Normal, false},
      {"denied, host in capitals", "Registry.Corp/team/untrusted/x", 1, 0, P::Normal, false},
      {"denied, default port", "registry.corp:443/team/untrusted/x", 1, 0, P::Normal, false},
      {"prefix is not a component", "registry.corp/teamwork/app", 1, 0, P::Normal, false},
      {"implicit registry", "nginx", 1, 0, P::Normal, false},
      {"docker hub spelled out", "docker.io/library/nginx", 1, 0, P::Normal, false},
      {"docker hub index", "index.docker.io/library/nginx", 1, 0, P::Normal, false},
      {"path in capitals", "registry.corp/Team/app", 1, 0, P::Normal, false},
      {"dot-dot path", "registry.corp/team/../untrusted/x", 1, 0, P::Normal, false},
      {"four GPUs", "registry.corp/team/app", 4, 0, P::Normal, true},
      {"five GPUs", "registry.corp/team/app", 5, 0, P::Normal, false},
      {"replicas multiply", "registry.corp/team/app", 2, 3, P::Normal, false},
      {"replicas within", "registry.corp/team/app", 2, 2, P::Normal, true},
      {"spot is not listed", "registry.corp/team/app", 1, 0, P::Spot, false},
      {"critical", "registry.corp/team/app", 1, 0, P::Critical, true},
  };
}

job::Job job_of(const Variant& v, const std::string& name) {
  job::Job j = gpu_job(name, v.gpus, 600);
  j.project_id = kProject;
  j.priority = v.priority;
  core::Map spec{{"image", v.image}};
  if (v.replicas > 0) {
    j.job_type = job::JobType::Service;
    spec.set("replicas", v.replicas);
  }
  j.spec = Value(std::move(spec));
  return j;
}

Value step_config(const Variant& v) {
  core::Map spec{{"image", v.image}};
  if (v.replicas > 0) spec.set("replicas", v.replicas);
  return Value::map({{"job_type", v.replicas > 0 ? "SERVICE" : "BATCH"},
                     {"deployment_type", "DOCKER"},
                     {"gpu_type", "nvidia-a100-80gb"},
                     {"gpu_count", v.gpus},
                     {"project_id", kProject.to_string()},
                     {"priority", std::string(job::to_string(v.priority))},
                     {"estimated_duration_seconds", 600},
                     {"spec", Value(std::move(spec))}});
}

class PolicyPaths : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = std::make_unique<PlatformTarget>(GetParam());
    BUDCORE_SKIP_UNLESS_READY(*target_);
    target_->config.security.rbac = true;
    target_->config.security.platform_admins = {"user:root"};
    target_->config.security.tenants[tenant_a()] = policy();
  }
  // erin is an editor and ada an admin, in kProject (or tenant-wide: pipelines are the tenant's).
  std::unique_ptr<platform::Platform> open_with_roles(bool tenant_wide = false) {
    auto p = target_->open();
    for (auto [who, role] : {std::pair{"user:erin", Role::Editor}, std::pair{"user:ada", Role::Admin}}) {
      auto scope = tenant_wide ? std::nullopt : std::optional<core::Id>(kProject);
      auto r = p->bind_role(CallContext::for_tenant(tenant_a(), "user:root", "r"), platform::RoleBinding{who, role, scope});
      EXPECT_TRUE(r) << r.error().describe();
    }
    return p;
  }
  std::unique_ptr<PlatformTarget> target_;
};

TEST_P(PolicyPaths, EveryPathReachesTheSameDecisionAsTheModel) {
  auto p = open_with_roles(true);
  ASSERT_TRUE(p);
  int n = 0;
  for (const std::string who : {"user:erin", "user:ada"}) {
    for (const Variant& v : variants()) {
      SCOPED_TRACE(who + ": " + v.what);
      // The model: the tenant policy, and a critical job needs an admin.
      const bool expect = v.policy_allows && (v.priority != job::JobPriority::Critical || who == "user:ada");
      const std::string name = "j" + std::to_string(n++);
      auto single = p->submit(as(who), job_of(v, name));
      EXPECT_EQ(single.has_value(), expect) << (single ? "" : single.error().describe());
      if (!single) EXPECT_EQ(single.error().code, ErrorCode::Security);
      std::vector<platform::SubmitRequest> batch{{gpu_job(name + "-ok", 0, 60), ""}, {job_of(v, name + "-b"), ""}};
      batch[0].job.project_id = kProject;
      auto many = p->submit_batch(as(who), batch);
      EXPECT_EQ(many.has_value(), expect) << (many ? "" : many.error().describe());
      if (!many && v.policy_allows) EXPECT_EQ(many.error().field, "principal");
      if (!many && !v.policy_allows) EXPECT_EQ(many.error().field.rfind("jobs[1].", 0), 0u) << many.error().field;
      // A pipeline's JOB step, run by the same principal: the step's job exists exactly when the
      // model allows it.
      auto run = p->run_pipeline(as(who), Value::map({{"pipeline", Value::map({{"id", name}, {"name", name}})},
                                                      {"steps", Value::list({Value::map({{"id", "s"}, {"name", "s"}, {"step_type", "JOB"},
                                                                                         {"depends_on", Value::list({})},
                                                                                         {"config", step_config(v)}})})}}));
      ASSERT_TRUE(run) << run.error().describe();
      backend::JobFilter f;
      f.pipeline_id = run->id;
      EXPECT_EQ(p->list_jobs(as("user:root"), f)->items.size(), expect ? 1u : 0u);
    }
  }
  // Priorities: raising a job is asking for a job of that priority.
  auto base = p->submit(as("user:ada"), job_of(variants().front(), "base"));
  ASSERT_TRUE(base) << base.error().describe();
  for (const std::string who : {"user:erin", "user:ada"})
    for (auto pr : job::kAllJobPriorities) {
      SCOPED_TRACE(who + " -> " + std::string(job::to_string(pr)));
      const auto& allowed = policy().priorities;
      const bool expect = std::find(allowed.begin(), allowed.end(), pr) != allowed.end() &&
                          (pr != job::JobPriority::Critical || who == "user:ada");
      auto r = p->set_priority(as(who), base->record.job.id, pr);
      EXPECT_EQ(r.has_value(), expect) << (r ? "" : r.error().describe());
      if (!r) EXPECT_EQ(r.error().code, ErrorCode::Security);
    }
  EXPECT_TRUE(p->check_invariants());
}

// Refusing a job the caller may not see reads exactly like refusing one that does not exist.
TEST_P(PolicyPaths, RefusalsOfInvisibleJobsReadLikeUnknownIds) {
  auto p = open_with_roles();
  ASSERT_TRUE(p);
  job::Job other = gpu_job("elsewhere", 0, 600);
  other.project_id = kOtherProject;
  auto hidden = p->submit(as("user:root"), other);
  ASSERT_TRUE(hidden) << hidden.error().describe();
  const core::Id id = hidden->record.job.id, unknown = core::Id::generate();
  using Call = std::function<core::Status(const core::Id&)>;
  auto st = [](auto r) -> core::Status {
    if (!r) return r.error();
    return {};
  };
  const std::vector<std::pair<std::string, Call>> calls = {
      {"get", [&](const core::Id& i) { return st(p->get_job(as("user:erin"), i)); }},
      {"cancel", [&](const core::Id& i) { return st(p->cancel_job(as("user:erin"), i)); }},
      {"retry", [&](const core::Id& i) { return st(p->retry_job(as("user:erin"), i)); }},
      {"priority", [&](const core::Id& i) { return st(p->set_priority(as("user:erin"), i, job::JobPriority::High)); }},
      {"preempt", [&](const core::Id& i) { return st(p->preempt_job(as("user:ada"), i)); }},
  };
  for (const auto& [what, call] : calls) {
    SCOPED_TRACE(what);
    auto on_hidden = call(id), on_unknown = call(unknown);
    ASSERT_FALSE(on_hidden);
    ASSERT_FALSE(on_unknown);
    auto text = [&](const core::Error& e, const core::Id& asked) {
      std::string d = e.describe();
      for (auto at = d.find(asked.to_string()); at != std::string::npos; at = d.find(asked.to_string())) d.replace(at, 36, "<id>");
      return d;
    };
    EXPECT_EQ(text(on_hidden.error(), id), text(on_unknown.error(), unknown));
    EXPECT_EQ(on_hidden.error().describe().find(kOtherProject.to_string()), std::string::npos);
  }
}

// Limits a tenant could escape by opening a new process are kept in the store: four processes
// one after another, each submitting once against a burst of three.
TEST_P(PolicyPaths, TheSubmitRateHoldsAcrossProcesses) {
  target_->config.security.rbac = false;
  platform::TenantPolicy limited;
  limited.submits_per_second = 0.01;
  limited.submit_burst = 3;
  target_->config.security.tenants[tenant_a()] = limited;
  for (int i = 0; i < 3; ++i) {
    auto p = target_->open();
    ASSERT_TRUE(p);
    // A refused document takes its token too (the first process sends one).
    if (i == 0) {
      job::Job bad = gpu_job("bad", -1, 60);
      ASSERT_FALSE(p->submit(ctx_a(), bad));
      continue;
    }
    auto r = p->submit(ctx_a(), gpu_job("ok-" + std::to_string(i), 0, 60));
    ASSERT_TRUE(r) << r.error().describe();
  }
  auto p = target_->open();
  auto fourth = p->submit(ctx_a(), gpu_job("fourth", 0, 60));
  ASSERT_FALSE(fourth);
  EXPECT_EQ(fourth.error().code, ErrorCode::RateLimited);
  EXPECT_GT(fourth.error().retry_after_ms, 0);
  // Another tenant's bucket is its own.
  EXPECT_TRUE(p->submit(ctx_b(), gpu_job("b", 0, 60)));
}

// A pipeline's steps go through the tenant's queue cap and submit rate: twelve parallel steps
// against a cap of five never hold more than five live jobs, wait instead of failing, and all
// complete.
TEST_P(PolicyPaths, PipelineStepsWaitForTheLimitsInsteadOfPassingThem) {
  target_->config.security.rbac = false;
  platform::TenantPolicy capped;
  capped.max_queued_jobs = 5;
  capped.submits_per_second = 2;
  capped.submit_burst = 4;
  target_->config.security.tenants[tenant_a()] = capped;
  auto p = target_->open();
  ASSERT_TRUE(p);
  core::List steps;
  for (int i = 0; i < 12; ++i) {
    const std::string id = "s" + std::to_string(i);
    steps.emplace_back(Value::map({{"id", id}, {"name", id}, {"step_type", "JOB"}, {"depends_on", Value::list({})},
                                   {"config", Value::map({{"job_type", "BATCH"}, {"deployment_type", "DOCKER"},
                                                          {"estimated_duration_seconds", 120}})}}));
  }
  auto run = p->run_pipeline(ctx_a(), Value::map({{"pipeline", Value::map({{"id", "wide"}, {"name", "wide"}})},
                                                  {"steps", Value(std::move(steps))}}));
  ASSERT_TRUE(run) << run.error().describe();
  std::size_t most = 0;
  for (int t = 0; t < 200; ++t) {
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(5)));
    std::size_t live = 0;
    auto page = p->list_jobs(ctx_a(), {});  // kept: a range-for over a temporary's member dangles
    ASSERT_TRUE(page);
    for (const auto& j : page->items) live += job::is_final(j.status) ? 0 : 1;
    most = std::max(most, live);
    if (p->get_pipeline_run(ctx_a(), run->id)->status != pipeline::PipelineStatus::Running) break;
  }
  EXPECT_LE(most, 5u);
  EXPECT_EQ(most, 5u);
  auto done = p->get_pipeline_run(ctx_a(), run->id);
  EXPECT_EQ(done->status, pipeline::PipelineStatus::Completed) << core::to_json(done->state);
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 12u);
}

// A requested retry is a new run: it counts against the submit rate like a submit. (A failed
// job whose automatic retries were cancelled can be retried by hand while its budget lasts.)
TEST_P(PolicyPaths, ARequestedRetryCountsAgainstTheSubmitRate) {
  target_->config.security.rbac = false;
  target_->config.retry.backoff.base = core::Duration::seconds(600);
  target_->config.retry.backoff.cap = core::Duration::seconds(600);
  platform::TenantPolicy limited;
  limited.submits_per_second = 0.001;
  limited.submit_burst = 2;
  target_->config.security.tenants[tenant_a()] = limited;
  auto p = target_->open();
  ASSERT_TRUE(p);
  job::Job failing = gpu_job("fails", 0, 60);
  failing.max_retries = 5;
  set_sim(failing, Value::map({{"fail_attempts", 10}, {"fail_after_seconds", 1}}));
  auto f = p->submit(ctx_a(), failing);
  ASSERT_TRUE(f) << f.error().describe();
  const core::Id id = f->record.job.id;
  auto fail_and_stop_retries = [&] {
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(60)));
    ASSERT_EQ(p->get_job(ctx_a(), id)->job.status, job::JobStatus::Failed);
    ASSERT_TRUE(p->cancel_job(ctx_a(), id));  // stops the automatic retries
  };
  fail_and_stop_retries();
  auto first = p->retry_job(ctx_a(), id);  // the second token
  ASSERT_TRUE(first) << first.error().describe();
  fail_and_stop_retries();
  auto second = p->retry_job(ctx_a(), id);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::RateLimited);
}

// A document that is not a job still takes its submit tokens (from a caller who may submit).
TEST_P(PolicyPaths, MalformedDocumentsTakeTheirTokens) {
  target_->config.security.rbac = false;
  platform::TenantPolicy limited;
  limited.submits_per_second = 0.001;
  limited.submit_burst = 2;
  target_->config.security.tenants[tenant_a()] = limited;
  auto p = target_->open();
  ASSERT_TRUE(p);
  for (int i = 0; i < 2; ++i) ASSERT_FALSE(p->submit_document(ctx_a(), Value::map({{"name", "x"}, {"nonsense", 1}})));
  auto ok = p->submit_document(ctx_a(), Value::map({{"name", "ok"}, {"job_type", "batch"}, {"deployment_type", "docker"}}));
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().code, ErrorCode::RateLimited);
}

INSTANTIATE_TEST_SUITE_P(Stores, PolicyPaths, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

// A key given twice in a config, or one tenant under two spellings, is refused, not silently
// overridden by the last one.
TEST(PolicyConfig, DuplicateKeysAndTenantsAreRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"store: x\nsecurity:\n", "empty security section"},
      {"store: x\nsecurity: {tenants: ~}\n", "silently mean no rule"},
      {"store: x\nsecurity: {tenants: {'*': ~}}\n", "a tenant's policy is a map"},
      {"store: x\nsecurity: {tenants: {'*': {max_gpus_per_job: ~}}}\n", "silently mean no rule"},
      {"store: x\ncost: {prices: {currency: USD}, alerts: {webhook: 'http://x/?a=secret://0000000000004000800000000000000a_db'}}\n",
       "starts like a tenant's own"},
      {"store: x\nsecurity: {rbac: true}\nsecurity: {rbac: false}\n", "duplicate key \"security\""},
      {"store: x\nsecurity:\n  rbac: true\n  rbac: false\n", "duplicate key \"rbac\""},
      {R"({"store": "x", "security": {"rbac": true, "rbac": false}})", "duplicate key \"rbac\""},
      {"store: x\nsecurity:\n  tenants:\n    00000000-0000-4000-8000-00000000000a: {max_gpus_per_job: 1}\n"
       "    00000000-0000-4000-8000-00000000000A: {max_gpus_per_job: 8}\n",
       "listed twice"},
      {"store: x\nsecurity: {tenants: {'*': {denied_registries: [nginx]}}}\n", "starts with a registry host"},
      {"store: x\nsecurity: {shared_secrets: [0000000000004000800000000000000a_x]}\n", "starts like a tenant's own"},
  };
  for (const auto& [text, why] : cases) {
    SCOPED_TRACE(text);
    auto c = platform::PlatformConfig::parse(text);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, ErrorCode::Invalid);
    EXPECT_NE(c.error().describe().find(why), std::string::npos) << c.error().describe();
  }
}

// A scenario reads files inside its own directory only, and an error says why, never what a
// file holds.
TEST(PolicyConfig, AScenarioReadsOnlyFilesInsideItsDirectory) {
  TempDir root;
  std::filesystem::create_directories(root.path / "s" / "jobs");
  std::ofstream(root.path / "outside.txt") << "TOP-SECRET-CONTENT\n";
  std::ofstream(root.path / "s" / "notjson.txt") << "{TOP-SECRET-CONTENT\n";
  const std::string base = (root.path / "s").string();
  for (const std::string& ref : {std::string("../outside.txt"), (root.path / "outside.txt").string(),
                                 std::string("jobs/../../outside.txt"), std::string("notjson.txt")}) {
    SCOPED_TRACE(ref);
    auto s = platform::Scenario::parse("jobs: [{at: 0, tenant: t, file: '" + ref + "'}]\n", base);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().field, "jobs[0].file");
    EXPECT_EQ(s.error().describe().find("TOP-SECRET"), std::string::npos) << s.error().describe();
  }
  auto prices = platform::Scenario::parse("cost: {prices: ../outside.txt}\n", base);
  ASSERT_FALSE(prices);
  EXPECT_EQ(prices.error().field, "cost.prices");
  // Nor a pipe, nor a second name of a file outside.
  ASSERT_EQ(::mkfifo((root.path / "s" / "pipe").c_str(), 0600), 0);
  std::filesystem::create_hard_link(root.path / "outside.txt", root.path / "s" / "linked.txt");
  for (const std::string ref : {"pipe", "linked.txt"}) {
    auto s = platform::Scenario::parse("jobs: [{at: 0, tenant: t, file: '" + ref + "'}]\n", base);
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("regular file"), std::string::npos) << s.error().describe();
  }
  // A what-if sends nothing and reads no real secret.
  auto alerts = platform::Scenario::parse("cost: {prices: {currency: USD}, alerts: {webhook: 'http://127.0.0.1:1/x'}}\n", base);
  ASSERT_FALSE(alerts);
  EXPECT_EQ(alerts.error().field, "cost.alerts");
  ::setenv(tenant_secret_var(tenant_a(), "db-password").c_str(), "REAL-VALUE", 1);
  auto uses = platform::Scenario::parse("jobs: [{at: 0, tenant: 00000000-0000-4000-8000-00000000000a, job: {name: j, "
                                        "job_type: batch, deployment_type: docker, spec: {env: {A: 'secret://db-password'}, "
                                        "image: x/y}}}, {at: 0, tenant: 00000000-0000-4000-8000-00000000000a, job: {name: k, "
                                        "job_type: batch, deployment_type: docker, spec: {env: {A: 'secret://no-such'}}}}]\n", base);
  ASSERT_TRUE(uses) << uses.error().describe();
  auto ran = platform::simulate(*uses);
  ASSERT_TRUE(ran) << ran.error().describe();
  ::unsetenv(tenant_secret_var(tenant_a(), "db-password").c_str());
}

// The audit chain heads reach a webhook (where the database's writers cannot change them) and
// anchor a later verification: a truncated chain with a rewritten head is then found.
TEST(PolicyConfig, AuditHeadsArePublishedAndAnchorAVerification) {
  LoopbackHttpServer receiver;
  TempDir dir;
  auto config = platform::PlatformConfig::parse("store: 'sqlite://" + (dir.path / "a.db").string() +
                                                "'\nsecurity: {audit_anchor: {webhook: '" + receiver.url("/anchor") +
                                                "', every_seconds: 3600}}\n");
  ASSERT_TRUE(config) << config.error().describe();
  auto p = platform::Platform::open(*config);
  ASSERT_TRUE(p) << p.error().describe();
  ASSERT_TRUE((*p)->submit(ctx_a(), gpu_job("one", 0, 60)));
  ASSERT_TRUE((*p)->pump());
  auto sent = receiver.requests();
  ASSERT_EQ(sent.size(), 1u);
  auto body = core::parse_json(sent[0].body);
  ASSERT_TRUE(body) << sent[0].body;
  const Value* heads = body->find_path("context.heads");
  ASSERT_TRUE(heads && heads->is_list()) << sent[0].body;
  ASSERT_EQ(heads->as_list().size(), 1u);
  const std::string anchor = heads->as_list()[0].find("hash")->as_string();
  // Not again before the interval.
  ASSERT_TRUE((*p)->submit(ctx_a(), gpu_job("two", 0, 60)));
  ASSERT_TRUE((*p)->pump());
  EXPECT_EQ(receiver.requests().size(), 1u);
  ASSERT_TRUE((*p)->run_until((*p)->now() + core::Duration::hours(2)));
  EXPECT_EQ(receiver.requests().size(), 2u);
  auto root = platform::CallContext::for_tenant(tenant_a(), "", "");
  auto verified = (*p)->verify_audit(root, {anchor});
  ASSERT_TRUE(verified) << verified.error().describe();
  EXPECT_TRUE(verified->ok);
  auto forged = (*p)->verify_audit(root, {std::string(64, 'f')});
  ASSERT_TRUE(forged);
  EXPECT_FALSE(forged->ok);
  EXPECT_EQ(platform::PlatformConfig::parse("store: x\nsecurity: {audit_anchor: {webhook: 'ftp://x'}}").error().field,
            "security.audit_anchor.webhook");
}

}  // namespace
}  // namespace budcore::testing
