// The tenant boundary, attack class by attack class (docs/security.md "The tenant boundary"), on
// SQLite and on a real PostgreSQL server. Tenant B is a legitimate user of its own tenant; for
// every way an identifier enters the platform (a document's fields, an idempotency key, the
// platform's internal keys, a secret reference) B tries to collide with, pre-claim, resolve or
// infer tenant A's. The attacks are generated from tables of ways in and of A's identifiers,
// not listed one by one; every refusal is the refusal an unknown identifier gets.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "backends/loopback_http_server.hpp"
#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/platform/platform_json.hpp"
#include "platform/platform_fixture.hpp"
#include "usecase/usecase_fixture.hpp"

namespace budcore::testing {
namespace {

using core::ErrorCode;
using core::Value;
using job::JobStatus;

class TenantBoundary : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = std::make_unique<PlatformTarget>(GetParam());
    BUDCORE_SKIP_UNLESS_READY(*target_);
  }
  std::unique_ptr<PlatformTarget> target_;
};

// A JOB step's config for a small batch job.
Value job_step(const std::string& id, std::vector<std::string> deps, Value extra = Value(core::Map{}),
               std::int64_t seconds = 600) {
  core::Map config{{"job_type", "BATCH"},      {"deployment_type", "DOCKER"}, {"gpu_type", "nvidia-a100-80gb"},
                   {"gpu_count", 1},           {"estimated_duration_seconds", seconds}};
  for (const auto& [k, v] : extra.as_map()) config.set(k, v);
  core::List d(deps.begin(), deps.end());
  return Value::map({{"id", id}, {"name", id}, {"step_type", "JOB"}, {"depends_on", Value(std::move(d))},
                     {"config", Value(std::move(config))}});
}

Value pipeline_of(std::vector<Value> steps, const std::string& name = "p") {
  return Value::map({{"pipeline", Value::map({{"id", name}, {"name", name}})}, {"steps", Value(core::List(steps.begin(), steps.end()))}});
}

// The message of a step that failed (the run state's).
std::string step_message(const platform::PipelineRun& run, std::string_view id) {
  for (const auto& s : run.state.find("steps")->as_list())
    if (s.find("id")->as_string() == id) return core::to_json(s);
  return {};
}

std::string without(std::string text, const std::vector<std::string>& ids) {
  for (const auto& id : ids)
    for (auto at = text.find(id); at != std::string::npos; at = text.find(id)) text.replace(at, id.size(), "<id>");
  return text;
}

// Class 1: identity chosen by the caller. Every way a document could carry an id is refused,
// with the same error for A's id as for any other: nothing of A's is touched or revealed.
TEST_P(TenantBoundary, NoCallerChoosesAnIdOnAnyPath) {
  auto p = target_->open();
  ASSERT_TRUE(p);
  auto a_job = p->submit(ctx_a(), gpu_job("a-running", 1, 7200));
  ASSERT_TRUE(a_job) << a_job.error().describe();
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(30)));
  const core::Id a_id = a_job->record.job.id, fresh = core::Id::generate();
  ASSERT_EQ(p->get_job(ctx_a(), a_id)->job.status, JobStatus::Running);

  for (const core::Id& chosen : {a_id, fresh}) {
    SCOPED_TRACE(chosen == a_id ? "A's id" : "a fresh id");
    job::Job j = gpu_job("b-claims", 1, 60);
    j.id = chosen;
    auto one = p->submit(ctx_b(), j);
    ASSERT_FALSE(one);
    EXPECT_EQ(one.error().code, ErrorCode::Invalid);
    EXPECT_EQ(one.error().field, "id");
    EXPECT_EQ(without(one.error().describe(), {chosen.to_string()}),
              "id: is assigned by the platform: submit without an id (an idempotency key makes a submit safe to "
              "repeat) (value: '<id>')");
    std::vector<platform::SubmitRequest> batch;
    for (int i = 0; i < 3; ++i) batch.push_back({gpu_job("b-" + std::to_string(i), 0, 60), ""});
    batch.push_back({j, "k"});
    auto many = p->submit_batch(ctx_b(), batch);
    ASSERT_FALSE(many);
    EXPECT_EQ(many.error().field, "jobs[3].id");
    // A tenant's own user cannot choose one either (ids are the platform's, for everyone).
    EXPECT_EQ(p->submit(ctx_a(), j).error().field, "id");
    // Nor a pipeline's JOB step: an `id` in a step's config is the component's configuration
    // (it lands in spec), never the job's identity.
    auto run = p->run_pipeline(ctx_b(), pipeline_of({job_step("s", {}, Value::map({{"id", chosen.to_string()}}))}));
    ASSERT_TRUE(run) << run.error().describe();
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(30)));
    backend::JobFilter f;
    f.pipeline_id = run->id;
    auto step_jobs = p->list_jobs(ctx_b(), f);
    ASSERT_EQ(step_jobs->items.size(), 1u);
    EXPECT_NE(step_jobs->items[0].id, chosen);
    EXPECT_EQ(p->get_job(ctx_b(), step_jobs->items[0].id)->job.spec.find("id")->as_string(), chosen.to_string());
  }
  EXPECT_EQ(p->list_jobs(ctx_b(), {})->items.size(), 2u);  // the two steps' jobs, nothing else
  // A's run is untouched: still running, in the cluster, and every invariant holds.
  auto a_now = p->get_job(ctx_a(), a_id);
  ASSERT_TRUE(a_now);
  EXPECT_EQ(a_now->job.status, JobStatus::Running);
  std::size_t a_held = 0;
  for (const auto& w : p->cluster().workloads)
    if (w.job_id == a_id) {
      ++a_held;
      EXPECT_EQ(w.tenant, tenant_a());
    }
  EXPECT_EQ(a_held, 1u);
  EXPECT_TRUE(p->check_invariants());
  ASSERT_TRUE(p->run_until_idle());
  EXPECT_EQ(p->get_job(ctx_a(), a_id)->job.status, JobStatus::Completed);
}

// Class 2: fields and keys only the platform writes. A caller cannot say its job came from a
// pipeline run or a deployment (A's or its own), nor take a key of the platform's namespace.
TEST_P(TenantBoundary, ProvenanceAndInternalKeysAreThePlatformsOwn) {
  auto p = target_->open();
  ASSERT_TRUE(p);
  // A's run: a WAIT step, then a JOB step whose key B would like to pre-claim.
  auto a_run = p->run_pipeline(
      ctx_a(), pipeline_of({Value::map({{"id", "wait"}, {"name", "wait"}, {"step_type", "WAIT"}, {"depends_on", Value::list({})},
                                        {"config", Value::map({{"duration_seconds", 600}})}}),
                            job_step("train", {"wait"}, Value::map({{"sim", Value::map({{"outputs", Value::map({{"model_url", "s3://a/model"}})}})}}))}));
  ASSERT_TRUE(a_run) << a_run.error().describe();
  core::Value chat = shipped_template_parameters("simple-chatbot-v1");
  chat.mutable_map().set("gpu_type", "nvidia-a100-80gb");
  auto a_dep = p->deploy_usecase(ctx_a(), "simple-chatbot-v1", chat);
  ASSERT_TRUE(a_dep) << a_dep.error().describe();
  const std::string run = a_run->id.to_string(), dep = a_dep->id.to_string();

  // Every provenance field, with A's ids and with fresh ones: refused, naming the field.
  struct Claim {
    std::string field;
    std::function<void(job::Job&, const core::Id&)> set;
  };
  const std::vector<Claim> claims = {
      {"pipeline_id", [](job::Job& j, const core::Id& id) { j.pipeline_id = id; }},
      {"pipeline_step_id", [](job::Job& j, const core::Id& id) { j.pipeline_step_id = id; }},
      {"usecase_deployment_id", [](job::Job& j, const core::Id& id) { j.usecase_deployment_id = id; }},
      {"source_id", [](job::Job& j, const core::Id& id) { j.source_id = id; }},
      {"source", [](job::Job& j, const core::Id&) { j.source = job::JobSource::Pipeline; }},
      {"source", [](job::Job& j, const core::Id&) { j.source = job::JobSource::Usecase; }},
  };
  for (const auto& c : claims)
    for (const core::Id& id : {a_run->id, a_dep->id, core::Id::generate()}) {
      SCOPED_TRACE(c.field);
      job::Job j = gpu_job("b-claims", 1, 60);
      c.set(j, id);
      auto r = p->submit(ctx_b(), j);
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().code, ErrorCode::Invalid);
      EXPECT_EQ(r.error().field, c.field);
    }
  job::Job with_outputs = gpu_job("b-outputs", 0, 60);
  with_outputs.outputs = Value::map({{"model_url", "https://b.example/steal"}});
  EXPECT_EQ(p->submit(ctx_b(), with_outputs).error().field, "outputs");

  // Every spelling of A's future step key: the platform's namespace is refused; anything else is
  // B's own key in B's own tenant and changes nothing of A's.
  const std::vector<std::string> keys = {run + "/train/1", "budcore:pipeline/" + run + "/train/1", "budcore:" + run + "/train/1",
                                         "BUDCORE:pipeline/" + run + "/train/1", " budcore:pipeline/" + run + "/train/1",
                                         "budcore:"};
  for (const auto& key : keys) {
    SCOPED_TRACE(key);
    auto r = p->submit(ctx_b(), gpu_job("b-preclaim", 0, 60), key);
    if (key.starts_with("budcore:")) {
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().field, "idempotency_key");
      EXPECT_EQ(p->submit(ctx_a(), gpu_job("a-preclaim", 0, 60), key).error().field, "idempotency_key");
    } else {
      ASSERT_TRUE(r) << r.error().describe();
      EXPECT_TRUE(r->created);
      EXPECT_EQ(r->record.job.tenant_id, tenant_b());
    }
  }
  ASSERT_TRUE(p->run_until_idle(core::Duration::hours(3)));
  // A's step ran A's own job, with A's outputs.
  auto done = p->get_pipeline_run(ctx_a(), a_run->id);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, pipeline::PipelineStatus::Completed) << core::to_json(done->state);
  EXPECT_NE(step_message(*done, "train").find("s3://a/model"), std::string::npos);
  backend::JobFilter f;
  f.pipeline_id = a_run->id;
  auto a_jobs = p->list_jobs(ctx_a(), f);
  ASSERT_EQ(a_jobs->items.size(), 1u);
  EXPECT_EQ(a_jobs->items[0].idempotency_key, "budcore:pipeline/" + run + "/train/1");
  EXPECT_TRUE(p->list_jobs(ctx_b(), f)->items.empty());
  // The deployment's components are A's jobs and nothing else.
  auto dep_now = p->get_deployment(ctx_a(), a_dep->id);
  ASSERT_TRUE(dep_now);
  for (const auto& c : dep_now->components) {
    ASSERT_TRUE(c.job_id) << c.instance_id;
    EXPECT_EQ(p->get_job(ctx_a(), *c.job_id)->job.tenant_id, tenant_a());
  }
  EXPECT_TRUE(p->check_invariants());
}

// Class 3: a secret reference resolves only inside the caller's tenant. B names A's secret in
// every spelling a provider could read as A's; the answer is the not-found any name gets, which
// names no variable and no directory. Redaction is per tenant: B cannot learn that a value it
// sends is someone's secret.
TEST_P(TenantBoundary, SecretReferencesResolveOnlyInTheCallersTenant) {
  TempDir files;
  const std::string a_value = "a-secret-" + core::Id::generate().to_string();
  const std::string hex = [] {
    std::string h;
    for (char c : tenant_a().to_string())
      if (c != '-') h += c;
    return h;
  }();
  std::filesystem::create_directories(files.path / tenant_a().to_string());
  std::ofstream(files.path / tenant_a().to_string() / "db-pass") << a_value;
  const std::string var = tenant_secret_var(tenant_a(), "api-token");
  ::setenv(var.c_str(), a_value.c_str(), 1);
  target_->config.security.secret_providers = {platform::SecretProviderConfig{},
                                               platform::SecretProviderConfig{"file", files.path.string()}};
  target_->config.http = platform::HttpKind::Curl;
  auto p = target_->open();
  ASSERT_TRUE(p);
  auto uses = [&](const platform::CallContext& who, const std::string& ref) {
    job::Job j = gpu_job("uses", 0, 60);
    j.spec = Value::map({{"env", Value::map({{"TOKEN", "secret://" + ref}})}});
    return p->submit(who, j);
  };
  ASSERT_TRUE(uses(ctx_a(), "api-token")) << uses(ctx_a(), "api-token").error().describe();
  ASSERT_TRUE(uses(ctx_a(), "db-pass"));
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::vector<std::string> spellings = {
      "api-token", "db-pass", hex + "_api-token", hex + "_API_TOKEN", upper + "_api_token", upper + ".api.token",
      upper + "-api-token", tenant_a().to_string() + "_api-token", tenant_a().to_string(), "..", ".",
      "BUDCORE_SECRET_" + upper + "_API_TOKEN"};
  auto unknown = uses(ctx_b(), "no-such-secret");
  ASSERT_FALSE(unknown);
  for (const auto& ref : spellings) {
    SCOPED_TRACE(ref);
    auto r = uses(ctx_b(), ref);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, unknown.error().code);
    EXPECT_EQ(r.error().field, "spec.env.TOKEN");
    EXPECT_EQ(without(r.error().message, {ref}), without(unknown.error().message, {"no-such-secret"}));
    EXPECT_EQ(r.error().message.find(files.path.string()), std::string::npos);
    if (ref.find("BUDCORE_SECRET") == std::string::npos) EXPECT_EQ(r.error().message.find("BUDCORE_SECRET"), std::string::npos);
  }

  // The redaction oracle: A's value is redacted in A's runs; in B's it is just text B sent.
  LoopbackHttpServer echo;
  echo.set_handler([](const RecordedRequest& r) {
    ScriptedResponse resp;
    resp.headers = {{"Content-Type", "application/json"}};
    resp.body = core::to_json(Value::map({{"echo", r.body}}));
    return resp;
  });
  auto call = [&](const std::string& body) {
    return pipeline_of({Value::map({{"id", "call"}, {"name", "call"}, {"step_type", "API_CALL"}, {"depends_on", Value::list({})},
                                    {"config", Value::map({{"url", echo.url("/echo")}, {"method", "POST"}, {"body", Value::map({{"t", body}})}})}})});
  };
  auto a_run = p->run_pipeline(ctx_a(), call("secret://api-token"));
  ASSERT_TRUE(a_run) << a_run.error().describe();
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(30)));
  const std::string a_state = core::to_json(p->get_pipeline_run(ctx_a(), a_run->id)->state);
  EXPECT_EQ(a_state.find(a_value), std::string::npos);
  EXPECT_NE(a_state.find("[redacted secret://api-token]"), std::string::npos) << a_state;
  auto b_run = p->run_pipeline(ctx_b(), call(a_value));
  ASSERT_TRUE(b_run) << b_run.error().describe();
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(30)));
  const std::string b_state = core::to_json(p->get_pipeline_run(ctx_b(), b_run->id)->state);
  EXPECT_EQ(b_state.find("redacted"), std::string::npos) << b_state;
  EXPECT_NE(b_state.find(a_value), std::string::npos) << b_state;  // its own text, echoed as it was
  ::unsetenv(var.c_str());
}

// Class 6: what counts leak. B's event and audit numbers count B's activity only (1, 2, ...
// without gaps however busy A is), B's audit chain starts at zeros and links only B's entries.
TEST_P(TenantBoundary, SequencesAndChainsArePerTenant) {
  auto p = target_->open();
  ASSERT_TRUE(p);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(p->submit(ctx_a(), gpu_job("a-" + std::to_string(round * 4 + i), 0, 60)));
    ASSERT_TRUE(p->submit(ctx_b(), gpu_job("b-" + std::to_string(round), 0, 60)));
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(120)));
  }
  for (const auto& who : {ctx_a(), ctx_b()}) {
    auto events = p->watch(who, 0, 10000);
    ASSERT_TRUE(events);
    ASSERT_FALSE(events->events.empty());
    for (std::size_t i = 0; i < events->events.size(); ++i) EXPECT_EQ(events->events[i].seq, static_cast<std::int64_t>(i + 1));
    auto audit = p->list_audit(who, {});
    ASSERT_TRUE(audit);
    ASSERT_EQ(audit->items.size(), who.tenant == tenant_a() ? 12u : 3u);
    EXPECT_EQ(audit->items.front().prev_hash, std::string(64, '0'));
    for (std::size_t i = 0; i < audit->items.size(); ++i) {
      EXPECT_EQ(audit->items[i].seq, static_cast<std::int64_t>(i + 1));
      if (i > 0) EXPECT_EQ(audit->items[i].prev_hash, audit->items[i - 1].hash);
    }
  }
  // Resuming after the last seq seen gives exactly what came after it.
  auto first = p->watch(ctx_b(), 0, 2);
  ASSERT_TRUE(first);
  auto rest = p->watch(ctx_b(), first->last_seq, 10000);
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->events.front().seq, 3);
}

// Side paths go through the same rules: a replayed key answers only as a read would, a
// pipeline cannot label its jobs with a deployment, a function registered for a tenant is that
// tenant's, device visibility is the device plugin's, and ids count only the caller's own.
TEST_P(TenantBoundary, SidePathsKeepTheBoundary) {
  target_->config.security.rbac = true;
  target_->config.security.platform_admins = {"user:root"};
  auto p = target_->open();
  ASSERT_TRUE(p);
  const core::Id proj_x = core::Id::generate(), proj_y = core::Id::generate();
  auto root = platform::CallContext::for_tenant(tenant_a(), "user:root", "r");
  auto erin = platform::CallContext::for_tenant(tenant_a(), "user:erin", "r");
  ASSERT_TRUE(p->bind_role(root, platform::RoleBinding{"user:erin", platform::Role::Editor, proj_x}));
  job::Job secret_job = gpu_job("y-job", 0, 60);
  secret_job.project_id = proj_y;
  secret_job.budget_limit = core::Money::parse("123.45", "USD").value();
  ASSERT_TRUE(p->submit(root, secret_job, "y-key"));
  // Replaying project y's key from project x is refused as a read of an unknown id is.
  job::Job mine = gpu_job("x-job", 0, 60);
  mine.project_id = proj_x;
  auto replay = p->submit(erin, mine, "y-key");
  ASSERT_FALSE(replay);
  EXPECT_EQ(replay.error().code, ErrorCode::Security);
  auto unknown = p->get_job(erin, core::Id::generate());
  EXPECT_EQ(without(replay.error().message, {}), without(unknown.error().message, {}));
  // A key of erin's own project replays with the cost fields cleared, as a read shows them.
  mine.budget_limit = core::Money::parse("9.00", "USD").value();
  ASSERT_TRUE(p->submit(erin, mine, "x-key"));
  auto again = p->submit(erin, mine, "x-key");
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->created);
  EXPECT_FALSE(again->record.job.budget_limit);

  // Device visibility is the device plugin's.
  job::Job devices = gpu_job("all-gpus", 0, 60);
  devices.project_id = proj_x;
  devices.spec = Value::map({{"env", Value::map({{"NVIDIA_VISIBLE_DEVICES", "all"}})}});
  auto dev = p->submit(erin, devices);
  ASSERT_FALSE(dev);
  EXPECT_EQ(dev.error().field, "spec.env.NVIDIA_VISIBLE_DEVICES");

  // A tenant's function is that tenant's; a shared one sees who calls it.
  std::vector<std::string> called_by;
  ASSERT_TRUE(p->register_function("a-private", [&](const Value&, const pipeline::FunctionCall& c) -> core::Result<Value> {
    called_by.emplace_back(c.tenant);
    return Value::map({{"rows", "A-PRIVATE"}});
  }, tenant_a()));
  auto fn_pipeline = pipeline_of({Value::map({{"id", "f"}, {"name", "f"}, {"step_type", "FUNCTION"}, {"depends_on", Value::list({})},
                                              {"config", Value::map({{"function", "a-private"}, {"args", Value::map({})}})}})});
  auto b_admin = platform::CallContext::for_tenant(tenant_b(), "user:root", "r");
  auto b_run = p->run_pipeline(b_admin, fn_pipeline);
  if (b_run) {
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(5)));
    EXPECT_EQ(core::to_json(p->get_pipeline_run(b_admin, b_run->id)->state).find("A-PRIVATE"), std::string::npos);
  }
  auto a_run = p->run_pipeline(root, fn_pipeline);
  ASSERT_TRUE(a_run) << a_run.error().describe();
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(5)));
  EXPECT_EQ(called_by, std::vector<std::string>{tenant_a().to_string()});

  // Ids: the steps of a tenant's counter count its own ids only.
  auto counter = [](const core::Id& id) {
    const auto& b = id.bytes();
    std::uint64_t hi = (static_cast<std::uint64_t>(b[6] & 0x0F) << 8) | b[7];
    std::uint64_t lo = (static_cast<std::uint64_t>(b[8] & 0x3F) << 24) | (static_cast<std::uint64_t>(b[9]) << 16) |
                       (static_cast<std::uint64_t>(b[10]) << 8) | b[11];
    return (hi << 30) | lo;
  };
  auto b1 = p->submit(b_admin, gpu_job("b-1", 0, 60));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(p->submit(root, gpu_job("a-" + std::to_string(i), 0, 60)));
  auto b2 = p->submit(b_admin, gpu_job("b-2", 0, 60));
  ASSERT_TRUE(b1 && b2);
  EXPECT_EQ(counter(b2->record.job.id) - counter(b1->record.job.id), 1u);
}

// A pipeline run that deploys no use case cannot label its jobs with a deployment id.
TEST_P(TenantBoundary, OnlyADeploymentsRunLabelsJobsWithIt) {
  auto p = target_->open();
  ASSERT_TRUE(p);
  const core::Id claimed = core::Id::generate();
  auto run = p->run_pipeline(ctx_b(), pipeline_of({job_step("s", {}, Value::map({{"usecase_deployment_id", claimed.to_string()}}))}));
  ASSERT_TRUE(run) << run.error().describe();
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(30)));
  backend::JobFilter f;
  f.pipeline_id = run->id;
  auto jobs = p->list_jobs(ctx_b(), f);
  ASSERT_EQ(jobs->items.size(), 1u);
  EXPECT_FALSE(p->get_job(ctx_b(), jobs->items[0].id)->job.usecase_deployment_id);
}

// A schedule shows the caller's own use of the queues over time, never the queues' totals.
TEST_P(TenantBoundary, AScheduleShowsOnlyTheCallersOwnUsage) {
  auto p = target_->open();
  ASSERT_TRUE(p);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(p->submit(ctx_a(), gpu_job("a-" + std::to_string(i), 1, 3600)));
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(30)));
  auto b = p->schedule(ctx_b());
  ASSERT_TRUE(b) << b.error().describe();
  EXPECT_TRUE(b->usage.empty());
  auto a = p->schedule(ctx_a());
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->usage.empty());
}

INSTANTIATE_TEST_SUITE_P(Stores, TenantBoundary, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::testing
