// The cross-tenant matrix (docs/security.md "Tenant isolation"), on SQLite and on a real
// PostgreSQL server: tenant A owns a job, a pipeline run and a use-case deployment; tenant B
// guesses their ids, replays A's cursor and idempotency key, and reads its own lists, events and
// audit log. B can neither read, list, infer (the error for A's id is the error for an id that
// does not exist, and never quotes A's data) nor change anything of A's; SQL metacharacters in
// every string field are data.
#include <gtest/gtest.h>

#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/platform/platform_json.hpp"
#include "platform/platform_fixture.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::testing {
namespace {

using core::ErrorCode;

class TenantIsolation : public ::testing::TestWithParam<std::string> {};

// What an error says, with the one id the caller sent replaced: A's other data must not appear.
std::string said(const core::Error& e, const core::Id& asked, const core::Id& unknown) {
  std::string text = e.describe();
  for (const std::string& id : {asked.to_string(), unknown.to_string()})
    for (auto at = text.find(id); at != std::string::npos; at = text.find(id)) text.replace(at, id.size(), "<id>");
  return text;
}

TEST_P(TenantIsolation, TenantBCanNeitherSeeNorInferNorChangeAnythingOfTenantA) {
  PlatformTarget t(GetParam());
  BUDCORE_SKIP_UNLESS_READY(t);
  auto p = t.open();
  ASSERT_TRUE(p);
  const std::string evil = "x'); DROP TABLE jobs; -- \" OR 1=1 --";
  const auto a = platform::CallContext::for_tenant(tenant_a(), "user:alice", "req " + evil), b = ctx_b();

  // Tenant A: jobs (one keyed, one with SQL metacharacters everywhere), a pipeline run, a deployment.
  job::Job ja = gpu_job("a-train", 1, 3600);
  ja.spec = core::Value::map({{"note", evil}, {evil, "a key too"}});
  auto a_job = p->submit(a, ja, "shared-key");
  ASSERT_TRUE(a_job) << a_job.error().describe();
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(p->submit(a, gpu_job("a-" + std::to_string(i), 0, 3600)));
  ASSERT_TRUE(p->submit(a, gpu_job("a-evil-key", 0, 3600), evil));
  auto a_run = p->run_pipeline(a, core::parse_json(R"({"pipeline": {"id": "p", "name": "a-pipe"}, "steps": [
      {"id": "s", "name": "s", "step_type": "WAIT", "depends_on": [], "config": {"duration_seconds": 3600}}]})").value());
  ASSERT_TRUE(a_run) << a_run.error().describe();
  core::Value chat = shipped_template_parameters("simple-chatbot-v1");
  chat.mutable_map().set("gpu_type", "nvidia-a100-80gb");
  auto a_dep = p->deploy_usecase(a, "simple-chatbot-v1", chat);
  ASSERT_TRUE(a_dep) << a_dep.error().describe();
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(60)));
  const core::Id job_id = a_job->record.job.id, run_id = a_run->id, dep_id = a_dep->id;
  const core::Id unknown = core::Id::generate();
  auto a_before = core::to_json(backend::to_value(p->get_job(a, job_id).value()));

  // Every call on A's ids by B: the same error as for an id that exists nowhere.
  struct Probe {
    const char* what;
    std::function<core::Status(const core::Id&)> call;
  };
  auto status = [](auto r) -> core::Status {
    if (!r) return r.error();
    return {};
  };
  std::vector<std::pair<Probe, core::Id>> probes = {
      {{"get_job", [&](const core::Id& id) { return status(p->get_job(b, id)); }}, job_id},
      {{"cancel_job", [&](const core::Id& id) { return status(p->cancel_job(b, id)); }}, job_id},
      {{"retry_job", [&](const core::Id& id) { return status(p->retry_job(b, id)); }}, job_id},
      {{"set_priority", [&](const core::Id& id) { return status(p->set_priority(b, id, job::JobPriority::Critical)); }}, job_id},
      {{"preempt_job", [&](const core::Id& id) { return status(p->preempt_job(b, id)); }}, job_id},
      {{"get_pipeline_run", [&](const core::Id& id) { return status(p->get_pipeline_run(b, id)); }}, run_id},
      {{"cancel_pipeline_run", [&](const core::Id& id) { return status(p->cancel_pipeline_run(b, id)); }}, run_id},
      {{"get_deployment", [&](const core::Id& id) { return status(p->get_deployment(b, id)); }}, dep_id},
      {{"teardown_deployment", [&](const core::Id& id) { return status(p->teardown_deployment(b, id)); }}, dep_id},
  };
  for (const auto& [probe, id] : probes) {
    SCOPED_TRACE(probe.what);
    auto on_a = probe.call(id);
    auto on_none = probe.call(unknown);
    ASSERT_FALSE(on_a);
    ASSERT_FALSE(on_none);
    EXPECT_EQ(on_a.error().code, ErrorCode::NotFound);
    EXPECT_EQ(on_a.error().code, on_none.error().code);
    EXPECT_EQ(said(on_a.error(), id, unknown), said(on_none.error(), id, unknown));
    EXPECT_EQ(said(on_a.error(), id, unknown).find("a-"), std::string::npos);
  }

  // B's lists, events, audit and deployments hold nothing of A's; A's cursor lists B's jobs.
  ASSERT_TRUE(p->submit(b, gpu_job("b-0", 0, 60)));
  ASSERT_TRUE(p->submit(b, gpu_job("b-1", 0, 60)));
  auto a_page = p->list_jobs(a, {}, backend::PageRequest{2, ""});
  ASSERT_TRUE(a_page);
  ASSERT_FALSE(a_page->next_cursor.empty());
  auto b_with_a_cursor = p->list_jobs(b, {}, backend::PageRequest{100, a_page->next_cursor});
  if (b_with_a_cursor) {
    for (const auto& s : b_with_a_cursor->items) EXPECT_EQ(s.name.rfind("b-", 0), 0u) << s.name;
  } else {
    EXPECT_EQ(b_with_a_cursor.error().code, ErrorCode::Invalid);
  }
  std::string b_sees = core::to_json(backend::to_value(p->list_jobs(b, {}).value())) +
                       core::to_json(platform::to_value(p->watch(b, 0, 10000).value())) +
                       core::to_json(backend::to_value(p->list_audit(b, {}).value()));
  const auto b_deployments = p->list_deployments(b).value();  // named: a range-for over a temporary's value() dangles
  for (const auto& d : b_deployments) b_sees += d.id.to_string();
  for (const std::string& secret_of_a : {job_id.to_string(), run_id.to_string(), dep_id.to_string(), std::string("a-train"),
                                         std::string("a-pipe"), tenant_a().to_string()})
    EXPECT_EQ(b_sees.find(secret_of_a), std::string::npos) << secret_of_a;
  EXPECT_EQ(p->list_jobs(b, {})->items.size(), 2u);

  // A's idempotency key replayed by B makes B a job of its own.
  auto replay = p->submit(b, gpu_job("b-keyed", 0, 60), "shared-key");
  ASSERT_TRUE(replay) << replay.error().describe();
  EXPECT_TRUE(replay->created);
  EXPECT_NE(replay->record.job.id, job_id);
  EXPECT_EQ(replay->record.job.tenant_id, tenant_b());

  // B claiming A's tenant in a document is refused; A's data is as it was, metacharacters and all.
  job::Job forged = gpu_job("forged", 0, 60);
  forged.tenant_id = tenant_a();
  auto f = p->submit(b, forged);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().field, "tenant_id");
  auto a_after = p->get_job(a, job_id);
  ASSERT_TRUE(a_after);
  EXPECT_EQ(a_after->job.spec.find(evil)->as_string(), "a key too");
  EXPECT_EQ(a_after->job.spec.find("note")->as_string(), evil);
  EXPECT_EQ(p->list_audit(a, {})->items.front().request_id, "req " + evil);
  EXPECT_EQ(a_after->job.priority, job::JobPriority::Normal);
  EXPECT_EQ(a_after->job.status, job::JobStatus::Running);
  EXPECT_EQ(core::to_json(backend::to_value(*a_after)), a_before);
  EXPECT_EQ(p->get_pipeline_run(a, run_id)->status, pipeline::PipelineStatus::Running);
  EXPECT_EQ(p->list_jobs(a, {})->items.size(), 4u + a_dep->components.size());
  EXPECT_TRUE(p->check_invariants());
}

INSTANTIATE_TEST_SUITE_P(Stores, TenantIsolation, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::testing

namespace budcore::testing {
namespace {

// A use-case parameter is data: a value holding template syntax is refused before anything is
// stored, so no caller gets a template of its choosing evaluated (template injection, or a loop
// of 10^8 iterations as a denial of service).
TEST(UsecaseParameterInjection, TemplateSyntaxInAParameterIsDataNotTemplate) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  core::Value params = shipped_template_parameters("simple-chatbot-v1");
  params.mutable_map().set("gpu_type", "nvidia-a100-80gb");
  const std::string injection = "{{ 'INJ' ~ 'ECTED' }}{% for i in range(100000000) %}x{% endfor %}";
  params.mutable_map().set("model_id", injection);
  auto dep = p->deploy_usecase(ctx_a(), "simple-chatbot-v1", params);
  ASSERT_FALSE(dep);
  EXPECT_EQ(dep.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(dep.error().field, "parameters.model_id");
  EXPECT_NE(dep.error().message.find("must not contain template markers"), std::string::npos) << dep.error().describe();
  // Nothing was stored or started.
  EXPECT_TRUE(p->list_jobs(ctx_a(), {})->items.empty());
  EXPECT_TRUE(p->list_deployments(ctx_a())->empty());
}

}  // namespace
}  // namespace budcore::testing
