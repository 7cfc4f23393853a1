// The Store conformance suite: every test runs unchanged against SQLite in memory, SQLite on a
// file and a real PostgreSQL server started by the test process (pg_server.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <cctype>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/store_fixture.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/job/job.hpp"

namespace budcore::backend {
namespace {

using core::Duration;
using core::ErrorCode;
using core::Id;
using core::Value;
using job::JobStatus;

class StoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = testing::make_target(GetParam());
    if (!target_.skip.empty()) GTEST_SKIP() << target_.skip;
    ASSERT_TRUE(target_.error.empty()) << target_.error;
    clock_ = std::make_shared<core::VirtualClock>();
    options_.clock = clock_;
    auto s = open_store(target_.uri, options_);
    ASSERT_TRUE(s) << s.error().describe();
    store_ = std::move(*s);
  }

  Store& store() { return *store_; }

  static job::Job make_job(const std::string& name, JobStatus status = JobStatus::Pending) {
    job::Job j;
    j.name = name;
    j.status = status;
    j.spec = Value::map({{"image", "vllm:0.6"}, {"args", Value::list({1, "two", 3.5})}});
    return j;
  }

  JobRecord create(const Id& tenant, job::Job j, const std::string& key = {}) {
    auto r = store().create_job(tenant, std::move(j), key);
    EXPECT_TRUE(r) << r.error().describe();
    return r ? r->record : JobRecord{};
  }

  std::vector<JobRecord> all_jobs(const Id& tenant, const JobFilter& f = {}, std::size_t limit = 1000) {
    std::vector<JobRecord> out;
    PageRequest page{limit, ""};
    for (int guard = 0; guard < 1000; ++guard) {
      auto r = store().list_jobs(tenant, f, page);
      EXPECT_TRUE(r) << r.error().describe();
      if (!r) break;
      for (auto& j : r->items) out.push_back(std::move(j));
      if (r->next_cursor.empty()) break;
      page.after = r->next_cursor;
    }
    return out;
  }

  testing::BackendTarget target_;
  std::shared_ptr<core::VirtualClock> clock_;
  StoreOptions options_;
  std::unique_ptr<Store> store_;
  const Id tenant_a_ = Id::generate();
  const Id tenant_b_ = Id::generate();
};

// ---- schema and jobs --------------------------------------------------------------------------

TEST_P(StoreConformance, OpensAtTheLatestSchemaVersion) {
  auto v = store().schema_version();
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(*v, latest_schema_version());
  EXPECT_EQ(store().backend_name(), GetParam() == "postgres" ? "postgres" : "sqlite");
  // Opening again is a no-op migration.
  auto again = open_store(target_.uri, options_);
  if (GetParam() != "sqlite_memory") ASSERT_TRUE(again) << again.error().describe();
}

TEST_P(StoreConformance, CreateAssignsIdentityAndTimesAndRoundTrips) {
  auto j = make_job("train-llama");
  j.gpu_count = 2;
  j.gpu_type = "nvidia-a100-80gb";
  auto r = store().create_job(tenant_a_, j);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_TRUE(r->created);
  EXPECT_EQ(r->record.version, 1);
  EXPECT_FALSE(r->record.job.id.is_nil());
  EXPECT_EQ(r->record.job.tenant_id, tenant_a_);
  EXPECT_EQ(r->record.job.created_at, clock_->now());
  auto got = store().get_job(tenant_a_, r->record.job.id);
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_EQ(got->job, r->record.job);
  EXPECT_EQ(got->version, 1);
  EXPECT_EQ(got->job.spec, j.spec);
}

TEST_P(StoreConformance, CreateValidatesTheJobAndStoresNothingOnError) {
  auto bad = make_job("Not_A_DNS_Label");
  auto r = store().create_job(tenant_a_, bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "name");
  EXPECT_TRUE(all_jobs(tenant_a_).empty());
}

TEST_P(StoreConformance, CreateRejectsAJobOfAnotherTenantAndTheSystemTenant) {
  auto j = make_job("x");
  j.tenant_id = tenant_b_;
  auto r = store().create_job(tenant_a_, j);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "tenant_id");
  auto sys = store().create_job(system_tenant(), make_job("y"));
  ASSERT_FALSE(sys);
  EXPECT_EQ(sys.error().field, "tenant");
}

TEST_P(StoreConformance, IdempotencyKeyMakesARetriedSubmitReturnTheFirstJob) {
  auto first = store().create_job(tenant_a_, make_job("a"), "submit-42");
  ASSERT_TRUE(first) << first.error().describe();
  ASSERT_TRUE(first->created);
  clock_->advance(Duration::seconds(5));
  auto retry = store().create_job(tenant_a_, make_job("a-retried"), "submit-42");
  ASSERT_TRUE(retry) << retry.error().describe();
  EXPECT_FALSE(retry->created);
  EXPECT_EQ(retry->record.job.id, first->record.job.id);
  EXPECT_EQ(retry->record.job.name, "a");
  EXPECT_EQ(retry->record.idempotency_key, "submit-42");
  EXPECT_EQ(all_jobs(tenant_a_).size(), 1u);
  // Keys are per tenant.
  auto other = store().create_job(tenant_b_, make_job("a"), "submit-42");
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->created);
  EXPECT_NE(other->record.job.id, first->record.job.id);
  // Jobs without a key never collide.
  create(tenant_a_, make_job("b"));
  create(tenant_a_, make_job("c"));
  EXPECT_EQ(all_jobs(tenant_a_).size(), 3u);
}

TEST_P(StoreConformance, AKeySentAgainWithAnotherDocumentDigestIsRefusedNamingTheFirstJob) {
  const job::Job sent = make_job("a");
  const std::string digest = job_request_digest(sent, tenant_a_);
  auto first = store().create_job(tenant_a_, sent, "submit-7", digest);
  ASSERT_TRUE(first) << first.error().describe();
  ASSERT_TRUE(first->created);
  // The same request again: the first job, nothing new.
  auto again = store().create_job(tenant_a_, sent, "submit-7", digest);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->record.job.id, first->record.job.id);
  // Another document under the key: refused, naming the key and the job it made.
  const job::Job other = make_job("a-changed");
  auto reused = store().create_job(tenant_a_, other, "submit-7", job_request_digest(other, tenant_a_));
  ASSERT_FALSE(reused);
  EXPECT_EQ(reused.error().code, ErrorCode::Invalid);
  EXPECT_EQ(reused.error().field, "idempotency_key");
  EXPECT_NE(reused.error().message.find(first->record.job.id.to_string()), std::string::npos)
      << reused.error().message;
  EXPECT_EQ(all_jobs(tenant_a_).size(), 1u);
  // Without a digest the key is not checked (a caller that sends none, as before).
  auto unchecked = store().create_job(tenant_a_, other, "submit-7");
  ASSERT_TRUE(unchecked);
  EXPECT_FALSE(unchecked->created);
  // A job created without a digest is not checked later either.
  create(tenant_a_, make_job("old"), "old-key");
  auto legacy = store().create_job(tenant_a_, other, "old-key", job_request_digest(other, tenant_a_));
  ASSERT_TRUE(legacy) << legacy.error().describe();
  EXPECT_FALSE(legacy->created);
  // The digest ignores what the store fills in: one request, one digest.
  job::Job filled = sent;
  filled.id = first->record.job.id;
  EXPECT_NE(job_request_digest(filled, tenant_a_), digest);
  EXPECT_EQ(job_request_digest(make_job("a"), tenant_a_), digest);
  // The sender's own tenant written out is the same request; another tenant's is not.
  job::Job own = make_job("a");
  own.tenant_id = tenant_a_;
  EXPECT_EQ(job_request_digest(own, tenant_a_), digest);
  EXPECT_NE(job_request_digest(own, tenant_b_), job_request_digest(make_job("a"), tenant_b_));
}

TEST_P(StoreConformance, CreatingAnExistingIdIsAlreadyExists) {
  auto rec = create(tenant_a_, make_job("a"));
  auto again = make_job("b");
  again.id = rec.job.id;
  auto r = store().create_job(tenant_a_, again);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::AlreadyExists);
  EXPECT_EQ(r.error().field, "id");
}

TEST_P(StoreConformance, OverlongIdempotencyKeyIsInvalid) {
  auto r = store().create_job(tenant_a_, make_job("a"), std::string(300, 'k'));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "idempotency_key");
}

TEST_P(StoreConformance, IdempotencyKeysMustBeUtf8WithoutNul) {
  for (std::string key : {std::string("k\xff\xfe"), std::string("k\0x", 3), std::string("\xc3")}) {
    auto r = store().create_job(tenant_a_, make_job("a"), key);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::Invalid);
    EXPECT_EQ(r.error().field, "idempotency_key");
  }
  // Nothing was stored, and the tenant's list still reads (it broke Python's list_jobs).
  EXPECT_TRUE(all_jobs(tenant_a_).empty());
  EXPECT_TRUE(store().create_job(tenant_a_, make_job("a"), "clé-été"));
}

TEST_P(StoreConformance, JobDocumentsOverTheSizeLimitAreRefused) {
  job::Job j = make_job("big");
  j.spec = Value::map({{"blob", std::string(job::kMaxDocumentBytes, 'x')}});
  auto r = store().create_job(tenant_a_, j);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Invalid);
  EXPECT_NE(r.error().message.find("over the limit of 1572864 bytes"), std::string::npos) << r.error().message;
  EXPECT_TRUE(all_jobs(tenant_a_).empty());
}

TEST_P(StoreConformance, ForgedCursorsAreInvalid) {
  for (int i = 0; i < 3; ++i) {
    clock_->advance(Duration::seconds(1));
    create(tenant_a_, make_job("j" + std::to_string(i)));
  }
  auto first = store().list_jobs(tenant_a_, {}, PageRequest{1, ""});
  ASSERT_TRUE(first);
  const std::string real = first->next_cursor;
  ASSERT_FALSE(real.empty());
  ASSERT_TRUE(store().list_jobs(tenant_a_, {}, PageRequest{1, real}));
  const std::string ns = real.substr(0, real.find('_')), id = real.substr(real.find('_') + 1);
  std::string upper = id;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const std::string& forged : {std::string("1_x"), std::string("-5_zz"), "0" + real, "+" + real, ns + "_" + upper,
                                    real + "x", ns + "_" + id.substr(0, 8), "99999999999999999999_" + id,
                                    std::string(100000, '7') + "_" + id}) {
    auto jobs = store().list_jobs(tenant_a_, {}, PageRequest{1, forged});
    ASSERT_FALSE(jobs) << forged.substr(0, 60);
    EXPECT_EQ(jobs.error().code, ErrorCode::Invalid);
    EXPECT_EQ(jobs.error().field, "page.after");
    EXPECT_LE(jobs.error().value.size(), core::kMaxQuotedBytes + 32);
    auto summaries = store().list_job_summaries(tenant_a_, {}, PageRequest{1, forged});
    EXPECT_FALSE(summaries) << forged.substr(0, 60);
    EXPECT_FALSE(store().list_pipelines(tenant_a_, PageRequest{1, forged})) << forged.substr(0, 60);
  }
  EXPECT_FALSE(store().list_usage(tenant_a_, {}, PageRequest{1, "1_x"}));
  EXPECT_FALSE(store().list_usage(tenant_a_, {}, PageRequest{1, "1_07"}));
  EXPECT_FALSE(store().list_audit(tenant_a_, {}, PageRequest{1, "007"}));
  EXPECT_TRUE(store().list_audit(tenant_a_, {}, PageRequest{1, "7"}));
}

TEST_P(StoreConformance, TransitionIsACompareAndSetOnTheVersion) {
  auto rec = create(tenant_a_, make_job("a"));
  clock_->advance(Duration::seconds(1));
  auto q = store().transition_job(tenant_a_, rec.job.id, 1, JobStatus::Queued, "enqueued");
  ASSERT_TRUE(q) << q.error().describe();
  EXPECT_EQ(q->version, 2);
  EXPECT_EQ(q->job.status, JobStatus::Queued);
  // A writer that read version 1 loses.
  auto stale = store().transition_job(tenant_a_, rec.job.id, 1, JobStatus::Cancelled);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::Conflict);
  // An illegal move is a Conflict and changes nothing.
  auto illegal = store().transition_job(tenant_a_, rec.job.id, 2, JobStatus::Completed);
  ASSERT_FALSE(illegal);
  EXPECT_EQ(illegal.error().code, ErrorCode::Conflict);
  auto got = store().get_job(tenant_a_, rec.job.id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->version, 2);
  EXPECT_EQ(got->job.status, JobStatus::Queued);
  ASSERT_EQ(got->job.status_history.size(), 1u);
  EXPECT_EQ(got->job.status_history[0].message, "enqueued");
  EXPECT_EQ(got->job.updated_at, clock_->now());
  auto missing = store().transition_job(tenant_a_, Id::generate(), 1, JobStatus::Queued);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
}

TEST_P(StoreConformance, UpdateJobIsACompareAndSetAndKeepsCreationTime) {
  auto rec = create(tenant_a_, make_job("a"));
  auto changed = rec.job;
  changed.cluster_id = Id::generate();
  changed.created_at = changed.created_at.value() + Duration::hours(1);
  clock_->advance(Duration::seconds(3));
  auto u = store().update_job(tenant_a_, changed, 1);
  ASSERT_TRUE(u) << u.error().describe();
  EXPECT_EQ(u->version, 2);
  EXPECT_EQ(u->job.created_at, rec.job.created_at);
  EXPECT_EQ(u->job.updated_at, clock_->now());
  auto stale = store().update_job(tenant_a_, changed, 1);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::Conflict);
  JobFilter by_cluster;
  by_cluster.cluster_id = changed.cluster_id;
  EXPECT_EQ(all_jobs(tenant_a_, by_cluster).size(), 1u);
}

TEST_P(StoreConformance, ListFiltersAndPagesNewestFirst) {
  const Id project = Id::generate(), cluster = Id::generate();
  const core::Timestamp t0 = clock_->now();
  std::vector<JobRecord> made;
  for (int i = 0; i < 23; ++i) {
    auto j = make_job("job-" + std::to_string(i), i % 3 == 0 ? JobStatus::Running : JobStatus::Queued);
    if (i % 2 == 0) j.project_id = project;
    if (i % 4 == 0) j.cluster_id = cluster;
    j.job_type = i % 5 == 0 ? job::JobType::Training : job::JobType::Batch;
    made.push_back(create(tenant_a_, j));
    if (i % 3 != 2) clock_->advance(Duration::seconds(1));  // some share a creation time
  }
  create(tenant_b_, make_job("other-tenant"));
  // Everything, in pages of 5: newest first, each job once.
  auto all = all_jobs(tenant_a_, {}, 5);
  ASSERT_EQ(all.size(), made.size());
  for (std::size_t i = 1; i < all.size(); ++i) {
    auto a = std::pair(*all[i - 1].job.created_at, all[i - 1].job.id);
    auto b = std::pair(*all[i].job.created_at, all[i].job.id);
    EXPECT_GT(a, b) << "at " << i;
  }
  auto expect_filter = [&](const JobFilter& f, auto pred) {
    std::size_t want = std::count_if(made.begin(), made.end(), pred);
    EXPECT_EQ(all_jobs(tenant_a_, f, 4).size(), want);
  };
  JobFilter f1;
  f1.project_id = project;
  expect_filter(f1, [&](const JobRecord& r) { return r.job.project_id == project; });
  JobFilter f2;
  f2.cluster_id = cluster;
  f2.statuses = {JobStatus::Running};
  expect_filter(f2, [&](const JobRecord& r) { return r.job.cluster_id == cluster && r.job.status == JobStatus::Running; });
  JobFilter f3;
  f3.statuses = {JobStatus::Running, JobStatus::Queued};
  f3.job_type = job::JobType::Training;
  expect_filter(f3, [&](const JobRecord& r) { return r.job.job_type == job::JobType::Training; });
  JobFilter f4;
  f4.created_from = t0 + Duration::seconds(3);
  f4.created_to = t0 + Duration::seconds(9);
  expect_filter(f4, [&](const JobRecord& r) {
    return *r.job.created_at >= *f4.created_from && *r.job.created_at < *f4.created_to;
  });
  JobFilter f5;
  f5.source = job::JobSource::Pipeline;
  expect_filter(f5, [](const JobRecord&) { return false; });
  // A forged cursor is an error naming the field.
  auto bad = store().list_jobs(tenant_a_, {}, PageRequest{10, "not-a-cursor"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "page.after");
}

TEST_P(StoreConformance, SummariesMatchTheFullListAndShareItsCursors) {
  const Id project = Id::generate(), pipeline = Id::generate();
  std::vector<JobRecord> made;
  for (int i = 0; i < 12; ++i) {
    auto j = make_job("sum-" + std::to_string(i));
    j.project_id = project;
    j.gpu_count = i % 3;
    if (i % 3 != 0) j.gpu_type = i % 2 == 0 ? "nvidia-a100-80gb" : "nvidia.com/mig-1g.5gb";
    j.priority = i % 4 == 0 ? job::JobPriority::High : job::JobPriority::Low;
    j.job_type = i % 5 == 0 ? job::JobType::Service : job::JobType::Batch;
    if (i % 6 == 0) {
      j.source = job::JobSource::Pipeline;
      j.pipeline_id = pipeline;
    }
    made.push_back(create(tenant_a_, j, i % 2 == 0 ? "key-" + std::to_string(i) : ""));
    if (i % 3 != 1) clock_->advance(Duration::seconds(1));  // some share a creation time
  }
  // Changes after creation show too (status, version, updated_at, a renamed job).
  clock_->advance(Duration::seconds(5));
  ASSERT_TRUE(store().transition_job(tenant_a_, made[3].job.id, 1, JobStatus::Queued));
  auto renamed = made[4].job;
  renamed.name = "renamed";
  renamed.gpu_type = std::nullopt;
  renamed.gpu_count = 0;
  ASSERT_TRUE(store().update_job(tenant_a_, renamed, 1));
  create(tenant_b_, make_job("other-tenant"));

  auto full = all_jobs(tenant_a_, {}, 1000);
  ASSERT_EQ(full.size(), made.size());
  // Paged by 5, each page's cursor taken alternately from the summary and the full list.
  std::vector<JobSummary> summaries;
  PageRequest page{5, ""};
  for (int round = 0; round < 10; ++round) {
    auto s = store().list_job_summaries(tenant_a_, {}, page);
    ASSERT_TRUE(s) << s.error().describe();
    auto f = store().list_jobs(tenant_a_, {}, page);
    ASSERT_TRUE(f) << f.error().describe();
    EXPECT_EQ(s->next_cursor, f->next_cursor);
    for (auto& x : s->items) summaries.push_back(std::move(x));
    if (s->next_cursor.empty()) break;
    page.after = round % 2 == 0 ? s->next_cursor : f->next_cursor;
  }
  ASSERT_EQ(summaries.size(), full.size());
  for (std::size_t i = 0; i < full.size(); ++i) EXPECT_EQ(summaries[i], summarize(full[i])) << "at " << i;
  auto renamed_summary = std::find_if(summaries.begin(), summaries.end(),
                                      [&](const JobSummary& x) { return x.id == made[4].job.id; });
  ASSERT_NE(renamed_summary, summaries.end());
  EXPECT_EQ(renamed_summary->name, "renamed");
  EXPECT_EQ(renamed_summary->version, 2);
  EXPECT_FALSE(renamed_summary->gpu_type);
  EXPECT_EQ(summaries.back().idempotency_key, "key-0");
  EXPECT_EQ(summaries.back().pipeline_id, pipeline);
  EXPECT_EQ(summaries.back().source, job::JobSource::Pipeline);

  // Filters apply as in list_jobs; another tenant sees none of it.
  JobFilter f;
  f.statuses = {JobStatus::Queued};
  auto queued = store().list_job_summaries(tenant_a_, f);
  ASSERT_TRUE(queued);
  ASSERT_EQ(queued->items.size(), 1u);
  EXPECT_EQ(queued->items[0].id, made[3].job.id);
  EXPECT_EQ(queued->items[0].status, JobStatus::Queued);
  JobFilter by_type;
  by_type.job_type = job::JobType::Service;
  auto services = store().list_job_summaries(tenant_a_, by_type);
  ASSERT_TRUE(services);
  EXPECT_EQ(services->items.size(), 3u);  // 0, 5, 10
  auto theirs = store().list_job_summaries(tenant_b_, {});
  ASSERT_TRUE(theirs);
  ASSERT_EQ(theirs->items.size(), 1u);
  EXPECT_EQ(theirs->items[0].name, "other-tenant");
  auto bad = store().list_job_summaries(tenant_a_, {}, PageRequest{10, "forged"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "page.after");
}

// ---- tenant isolation, one test per entity ---------------------------------------------------

TEST_P(StoreConformance, TenantIsolationJobs) {
  auto rec = create(tenant_a_, make_job("secret"), "key-1");
  auto get = store().get_job(tenant_b_, rec.job.id);
  ASSERT_FALSE(get);
  EXPECT_EQ(get.error().code, ErrorCode::NotFound);
  EXPECT_TRUE(all_jobs(tenant_b_).empty());
  auto tr = store().transition_job(tenant_b_, rec.job.id, 1, JobStatus::Cancelled);
  ASSERT_FALSE(tr);
  EXPECT_EQ(tr.error().code, ErrorCode::NotFound);
  auto stolen = rec.job;
  stolen.tenant_id = Id();
  auto up = store().update_job(tenant_b_, stolen, 1);
  ASSERT_FALSE(up);
  EXPECT_EQ(up.error().code, ErrorCode::NotFound);
  auto cross = store().update_job(tenant_b_, rec.job, 1);  // tenant_id says A
  ASSERT_FALSE(cross);
  EXPECT_EQ(cross.error().code, ErrorCode::Invalid);
  // B's use of A's idempotency key creates B's own job; A's job is untouched.
  auto b = store().create_job(tenant_b_, make_job("mine"), "key-1");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->created);
  auto a = store().get_job(tenant_a_, rec.job.id);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->version, 1);
  EXPECT_EQ(a->job.name, "secret");
}

TEST_P(StoreConformance, TenantIsolationPipelinesAndSteps) {
  PipelineRecord p;
  p.name = "etl";
  p.definition = Value::map({{"steps", Value::list({"a", "b"})}});
  auto made = store().create_pipeline(tenant_a_, p);
  ASSERT_TRUE(made) << made.error().describe();
  StepRecord s;
  s.pipeline_id = made->id;
  s.step_id = "a";
  s.status = "running";
  ASSERT_TRUE(store().put_step(tenant_a_, s));
  EXPECT_EQ(store().get_pipeline(tenant_b_, made->id).error().code, ErrorCode::NotFound);
  auto list = store().list_pipelines(tenant_b_);
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->items.empty());
  EXPECT_EQ(store().save_pipeline_state(tenant_b_, made->id, 1, Value::map({{"x", 1}})).error().code,
            ErrorCode::NotFound);
  EXPECT_EQ(store().put_step(tenant_b_, s).error().code, ErrorCode::NotFound);
  EXPECT_EQ(store().get_step(tenant_b_, made->id, "a").error().code, ErrorCode::NotFound);
  auto steps = store().list_steps(tenant_b_, made->id);
  ASSERT_TRUE(steps);
  EXPECT_TRUE(steps->empty());
  auto a = store().get_pipeline(tenant_a_, made->id);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->version, 1);
}

TEST_P(StoreConformance, TenantIsolationCatalog) {
  CatalogItem item;
  item.kind = CatalogKind::Component;
  item.name = "my-vllm";
  item.version = "1.0.0";
  item.document = Value::map({{"image", "private"}});
  ASSERT_TRUE(store().put_catalog_item(tenant_a_, item));
  EXPECT_EQ(store().get_catalog_item(tenant_b_, CatalogKind::Component, "my-vllm").error().code, ErrorCode::NotFound);
  auto list = store().list_catalog_items(tenant_b_, CatalogKind::Component);
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->empty());
  // B may publish the same name and version: its own row, A's is unchanged.
  item.document = Value::map({{"image", "b's"}});
  ASSERT_TRUE(store().put_catalog_item(tenant_b_, item));
  auto a = store().get_catalog_item(tenant_a_, CatalogKind::Component, "my-vllm", "1.0.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->document, Value::map({{"image", "private"}}));
  // A tenant cannot write a system item.
  CatalogItem sys = item;
  sys.scope = CatalogScope::System;
  auto forged = store().put_catalog_item(tenant_a_, sys);
  ASSERT_FALSE(forged);
  EXPECT_EQ(forged.error().field, "scope");
}

TEST_P(StoreConformance, TenantIsolationQuotaConfig) {
  ASSERT_TRUE(store().put_quota_config(tenant_a_, "default", Value::map({{"gpu", 8}})));
  EXPECT_EQ(store().get_quota_config(tenant_b_, "default").error().code, ErrorCode::NotFound);
  auto list = store().list_quota_configs(tenant_b_);
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->empty());
  EXPECT_EQ(store().put_quota_config(tenant_b_, "default", Value::map({{"gpu", 99}}), 1).error().code,
            ErrorCode::NotFound);
  ASSERT_TRUE(store().put_quota_config(tenant_b_, "default", Value::map({{"gpu", 99}})));
  auto a = store().get_quota_config(tenant_a_, "default");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->document, Value::map({{"gpu", 8}}));
  EXPECT_EQ(a->version, 1);
}

TEST_P(StoreConformance, TenantIsolationUsage) {
  const Id job = Id::generate();
  UsageRecord u;
  u.job_id = job;
  u.start = clock_->now();
  u.end = u.start + Duration::seconds(60);
  ASSERT_TRUE(store().append_usage(tenant_a_, u));
  UsageQuery q;
  q.job_id = job;
  auto b = store().list_usage(tenant_b_, q);
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->items.empty());
  auto a = store().list_usage(tenant_a_, q);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->items.size(), 1u);
}

TEST_P(StoreConformance, TenantIsolationAudit) {
  AuditEntry e;
  e.actor = "alice";
  e.action = "job.submit";
  e.object_type = "job";
  e.object_id = "j1";
  ASSERT_TRUE(store().append_audit(tenant_a_, e));
  auto b = store().list_audit(tenant_b_, {});
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->items.empty());
  AuditQuery by_object;
  by_object.object_id = "j1";
  auto b2 = store().list_audit(tenant_b_, by_object);
  ASSERT_TRUE(b2);
  EXPECT_TRUE(b2->items.empty());
}

// ---- pipelines, catalog, quota, usage, audit -------------------------------------------------

TEST_P(StoreConformance, PipelineStateIsSavedAsACompareAndSet) {
  PipelineRecord p;
  p.name = "train-and-serve";
  p.definition = Value::map({{"steps", Value::list({Value::map({{"id", "train"}})})}});
  auto made = store().create_pipeline(tenant_a_, p);
  ASSERT_TRUE(made) << made.error().describe();
  EXPECT_EQ(made->version, 1);
  clock_->advance(Duration::seconds(2));
  auto saved = store().save_pipeline_state(tenant_a_, made->id, 1, Value::map({{"cursor", 3}}));
  ASSERT_TRUE(saved) << saved.error().describe();
  EXPECT_EQ(saved->version, 2);
  auto stale = store().save_pipeline_state(tenant_a_, made->id, 1, Value::map({{"cursor", 4}}));
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::Conflict);
  auto got = store().get_pipeline(tenant_a_, made->id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->state, Value::map({{"cursor", 3}}));
  EXPECT_EQ(got->definition, p.definition);
  EXPECT_EQ(got->updated_at, clock_->now());
  EXPECT_EQ(got->created_at, made->created_at);
  auto dup = p;
  dup.id = made->id;
  EXPECT_EQ(store().create_pipeline(tenant_a_, dup).error().code, ErrorCode::AlreadyExists);
  PipelineRecord unnamed;
  EXPECT_EQ(store().create_pipeline(tenant_a_, unnamed).error().field, "name");
}

TEST_P(StoreConformance, PipelineListPagesNewestFirst) {
  for (int i = 0; i < 7; ++i) {
    PipelineRecord p;
    p.name = "p" + std::to_string(i);
    ASSERT_TRUE(store().create_pipeline(tenant_a_, p));
    clock_->advance(Duration::seconds(1));
  }
  std::vector<std::string> names;
  PageRequest page{3, ""};
  for (int guard = 0; guard < 10; ++guard) {
    auto r = store().list_pipelines(tenant_a_, page);
    ASSERT_TRUE(r) << r.error().describe();
    for (auto& p : r->items) names.push_back(p.name);
    if (r->next_cursor.empty()) break;
    page.after = r->next_cursor;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"p6", "p5", "p4", "p3", "p2", "p1", "p0"}));
}

TEST_P(StoreConformance, StepsUpsertAndCompareAndSet) {
  PipelineRecord p;
  p.name = "dag";
  auto made = store().create_pipeline(tenant_a_, p);
  ASSERT_TRUE(made);
  StepRecord s;
  s.pipeline_id = made->id;
  s.step_id = "train";
  s.status = "pending";
  auto first = store().put_step(tenant_a_, s, 0);
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->version, 1);
  EXPECT_EQ(store().put_step(tenant_a_, s, 0).error().code, ErrorCode::Conflict);  // exists already
  s.status = "running";
  s.state = Value::map({{"attempt", 1}});
  auto second = store().put_step(tenant_a_, s, 1);
  ASSERT_TRUE(second) << second.error().describe();
  EXPECT_EQ(second->version, 2);
  EXPECT_EQ(second->status, "running");
  EXPECT_EQ(store().put_step(tenant_a_, s, 1).error().code, ErrorCode::Conflict);
  s.status = "completed";
  auto blind = store().put_step(tenant_a_, s);
  ASSERT_TRUE(blind);
  EXPECT_EQ(blind->version, 3);
  StepRecord other = s;
  other.step_id = "eval";
  ASSERT_TRUE(store().put_step(tenant_a_, other));
  auto steps = store().list_steps(tenant_a_, made->id);
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].step_id, "eval");
  EXPECT_EQ((*steps)[1].step_id, "train");
  EXPECT_EQ((*steps)[1].state, Value::map({{"attempt", 1}}));
  StepRecord orphan = s;
  orphan.pipeline_id = Id::generate();
  EXPECT_EQ(store().put_step(tenant_a_, orphan).error().code, ErrorCode::NotFound);
  StepRecord absent = s;
  absent.step_id = "never";
  EXPECT_EQ(store().put_step(tenant_a_, absent, 4).error().code, ErrorCode::NotFound);
}

TEST_P(StoreConformance, CatalogSystemAndUserItemsWithVersions) {
  CatalogItem sys;
  sys.kind = CatalogKind::UsecaseTemplate;
  sys.scope = CatalogScope::System;
  sys.name = "rag";
  sys.version = "1.0.0";
  sys.document = Value::map({{"v", 1}});
  ASSERT_TRUE(store().put_catalog_item(system_tenant(), sys));
  clock_->advance(Duration::seconds(1));
  sys.version = "1.1.0";
  sys.document = Value::map({{"v", 2}});
  ASSERT_TRUE(store().put_catalog_item(system_tenant(), sys));
  // Versions are immutable.
  auto again = store().put_catalog_item(system_tenant(), sys);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::AlreadyExists);
  // Every tenant sees system items; newest version by default.
  auto latest = store().get_catalog_item(tenant_b_, CatalogKind::UsecaseTemplate, "rag");
  ASSERT_TRUE(latest) << latest.error().describe();
  EXPECT_EQ(latest->version, "1.1.0");
  EXPECT_EQ(latest->scope, CatalogScope::System);
  auto pinned = store().get_catalog_item(tenant_b_, CatalogKind::UsecaseTemplate, "rag", "1.0.0");
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->document, Value::map({{"v", 1}}));
  // A tenant's own item of the same name shadows the system one, for that tenant only.
  CatalogItem mine = sys;
  mine.scope = CatalogScope::User;
  mine.version = "0.1.0";
  mine.document = Value::map({{"v", "mine"}});
  ASSERT_TRUE(store().put_catalog_item(tenant_a_, mine));
  auto a = store().get_catalog_item(tenant_a_, CatalogKind::UsecaseTemplate, "rag");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->scope, CatalogScope::User);
  EXPECT_EQ(a->version, "0.1.0");
  auto b = store().get_catalog_item(tenant_b_, CatalogKind::UsecaseTemplate, "rag");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->scope, CatalogScope::System);
  auto list_a = store().list_catalog_items(tenant_a_, CatalogKind::UsecaseTemplate);
  ASSERT_TRUE(list_a);
  EXPECT_EQ(list_a->size(), 3u);
  // Kinds are separate.
  EXPECT_EQ(store().get_catalog_item(tenant_a_, CatalogKind::Component, "rag").error().code, ErrorCode::NotFound);
  // The system tenant cannot write user items.
  EXPECT_EQ(store().put_catalog_item(system_tenant(), mine).error().field, "scope");
  CatalogItem unversioned = mine;
  unversioned.version.clear();
  EXPECT_EQ(store().put_catalog_item(tenant_a_, unversioned).error().field, "version");
}

TEST_P(StoreConformance, CatalogDefaultVersionsSoftDeleteAndSearch) {
  auto put = [&](const Id& tenant, const std::string& name, const std::string& version, const std::string& category,
                 std::vector<std::string> tags, bool is_default = false) {
    CatalogItem item;
    item.kind = CatalogKind::Component;
    item.scope = tenant.is_nil() ? CatalogScope::System : CatalogScope::User;
    item.name = name;
    item.version = version;
    item.category = category;
    item.tags = std::move(tags);
    item.is_default = is_default;
    item.source = "test";
    item.document = Value::map({{"v", version}});
    clock_->advance(Duration::seconds(1));
    auto r = store().put_catalog_item(tenant, item);
    EXPECT_TRUE(r) << r.error().describe();
    return r ? *r : CatalogItem{};
  };
  auto first = put(system_tenant(), "qdrant", "1.0.0", "database", {"vector-db", "qdrant"}, true);
  EXPECT_FALSE(first.id.is_nil());
  put(system_tenant(), "qdrant", "2.0.0", "database", {"vector-db", "qdrant", "beta"});
  put(system_tenant(), "redis", "1.0.0", "cache", {"memory"});
  put(tenant_a_, "my-db", "1", "database", {"vector-db"});
  put(tenant_b_, "their-db", "1", "database", {"vector-db"});

  // The default version wins over a newer one; naming a version still finds it.
  auto q = store().get_catalog_item(tenant_a_, CatalogKind::Component, "qdrant");
  ASSERT_TRUE(q) << q.error().describe();
  EXPECT_EQ(q->version, "1.0.0");
  EXPECT_TRUE(q->is_default);
  EXPECT_EQ(q->id, first.id);
  EXPECT_EQ(q->category, "database");
  EXPECT_EQ(q->tags, (std::vector<std::string>{"vector-db", "qdrant"}));
  EXPECT_EQ(q->source, "test");
  EXPECT_EQ(store().get_catalog_item(tenant_a_, CatalogKind::Component, "qdrant", "2.0.0")->version, "2.0.0");
  auto moved = store().set_default_catalog_version(system_tenant(), CatalogKind::Component, "qdrant", "2.0.0");
  ASSERT_TRUE(moved) << moved.error().describe();
  EXPECT_TRUE(moved->is_default);
  EXPECT_EQ(store().get_catalog_item(tenant_a_, CatalogKind::Component, "qdrant")->version, "2.0.0");
  EXPECT_EQ(store().set_default_catalog_version(system_tenant(), CatalogKind::Component, "qdrant", "9").error().code,
            ErrorCode::NotFound);
  EXPECT_EQ(store().set_default_catalog_version(tenant_a_, CatalogKind::Component, "qdrant", "1.0.0").error().code,
            ErrorCode::NotFound);  // a system item's default is not a tenant's to set
  EXPECT_EQ(store().get_catalog_item(tenant_a_, CatalogKind::Component, "qdrant")->version, "2.0.0");
  // A put with is_default takes the flag from the others.
  put(system_tenant(), "qdrant", "3.0.0", "database", {"vector-db"}, true);
  auto three = store().search_catalog_items(system_tenant(), CatalogKind::Component,
                                            {.name = "qdrant", .all_versions = true});
  ASSERT_TRUE(three);
  ASSERT_EQ(three->size(), 3u);
  EXPECT_FALSE((*three)[1].is_default);
  EXPECT_TRUE((*three)[2].is_default);

  // Search: per name the version get returns, filtered by category, tags and scope.
  auto names = [](const std::vector<CatalogItem>& items) {
    std::vector<std::string> out;
    for (const auto& i : items) out.push_back(i.name + "@" + i.version);
    return out;
  };
  auto dbs = store().search_catalog_items(tenant_a_, CatalogKind::Component, {.category = "database"});
  ASSERT_TRUE(dbs) << dbs.error().describe();
  EXPECT_EQ(names(*dbs), (std::vector<std::string>{"my-db@1", "qdrant@3.0.0"}));
  auto tagged = store().search_catalog_items(tenant_a_, CatalogKind::Component, {.tags = {"vector-db", "qdrant"}});
  EXPECT_TRUE(tagged->empty());  // 3.0.0, the default, dropped the "qdrant" tag
  auto mine = store().search_catalog_items(tenant_a_, CatalogKind::Component, {.scope = CatalogScope::User});
  EXPECT_EQ(names(*mine), std::vector<std::string>{"my-db@1"});
  EXPECT_EQ(names(*store().search_catalog_items(tenant_a_, CatalogKind::Component, {.tags = {"memory"}})),
            std::vector<std::string>{"redis@1.0.0"});

  // Soft delete: gone from reads and searches, kept for include_inactive, restorable.
  ASSERT_TRUE(store().set_catalog_item_active(tenant_a_, CatalogKind::Component, "my-db", false));
  EXPECT_EQ(store().get_catalog_item(tenant_a_, CatalogKind::Component, "my-db").error().code, ErrorCode::NotFound);
  EXPECT_EQ(store().get_catalog_item(tenant_a_, CatalogKind::Component, "my-db", "1").error().code,
            ErrorCode::NotFound);
  EXPECT_EQ(store().list_catalog_items(tenant_a_, CatalogKind::Component)->size(), 4u);
  auto deleted = store().search_catalog_items(tenant_a_, CatalogKind::Component,
                                              {.name = "my-db", .include_inactive = true});
  ASSERT_EQ(deleted->size(), 1u);
  EXPECT_FALSE((*deleted)[0].is_active);
  ASSERT_TRUE(store().set_catalog_item_active(tenant_a_, CatalogKind::Component, "my-db", true));
  EXPECT_TRUE(store().get_catalog_item(tenant_a_, CatalogKind::Component, "my-db"));
  // Tenants change only their own items.
  auto sys = store().set_catalog_item_active(tenant_a_, CatalogKind::Component, "qdrant", false);
  ASSERT_FALSE(sys);
  EXPECT_EQ(sys.error().code, ErrorCode::Invalid);
  EXPECT_EQ(store().set_catalog_item_active(tenant_a_, CatalogKind::Component, "their-db", false).error().code,
            ErrorCode::NotFound);
  EXPECT_EQ(store().set_catalog_item_active(tenant_a_, CatalogKind::UsecaseTemplate, "my-db", false).error().code,
            ErrorCode::NotFound);
  // A deleted own item uncovers the system item of the same name.
  put(tenant_a_, "redis", "9", "cache", {});
  EXPECT_EQ(store().get_catalog_item(tenant_a_, CatalogKind::Component, "redis")->version, "9");
  ASSERT_TRUE(store().set_catalog_item_active(tenant_a_, CatalogKind::Component, "redis", false));
  EXPECT_EQ(store().get_catalog_item(tenant_a_, CatalogKind::Component, "redis")->version, "1.0.0");
  ASSERT_TRUE(store().set_catalog_item_active(system_tenant(), CatalogKind::Component, "redis", false));
  EXPECT_EQ(store().get_catalog_item(tenant_b_, CatalogKind::Component, "redis").error().code, ErrorCode::NotFound);
}

TEST_P(StoreConformance, QuotaConfigVersions) {
  auto first = store().put_quota_config(tenant_a_, "gpu-pool", Value::map({{"nominal", 8}}), 0);
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->version, 1);
  EXPECT_EQ(store().put_quota_config(tenant_a_, "gpu-pool", Value::map({{"nominal", 9}}), 0).error().code,
            ErrorCode::Conflict);
  auto second = store().put_quota_config(tenant_a_, "gpu-pool", Value::map({{"nominal", 16}}), 1);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->version, 2);
  EXPECT_EQ(store().put_quota_config(tenant_a_, "gpu-pool", Value::map({{"nominal", 1}}), 1).error().code,
            ErrorCode::Conflict);
  ASSERT_TRUE(store().put_quota_config(tenant_a_, "cpu-pool", Value::map({{"nominal", 64}})));
  auto list = store().list_quota_configs(tenant_a_);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "cpu-pool");
  EXPECT_EQ((*list)[1].document, Value::map({{"nominal", 16}}));
  EXPECT_EQ(store().get_quota_config(tenant_a_, "nope").error().code, ErrorCode::NotFound);
}

TEST_P(StoreConformance, UsageRangeScansByTimeAndJob) {
  const Id j1 = Id::generate(), j2 = Id::generate();
  const core::Timestamp t0 = clock_->now();
  for (int i = 0; i < 10; ++i) {
    UsageRecord u;
    u.job_id = i % 2 == 0 ? j1 : j2;
    u.start = t0 + Duration::minutes(i);
    u.end = u.start + Duration::minutes(1);
    u.data = Value::map({{"gpu_seconds", 60 * (i + 1)}});
    auto r = store().append_usage(tenant_a_, u);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_GT(r->seq, 0);
  }
  UsageQuery window;
  window.from = t0 + Duration::minutes(2);
  window.to = t0 + Duration::minutes(7);
  std::vector<std::int64_t> seconds;
  PageRequest page{2, ""};
  for (int guard = 0; guard < 10; ++guard) {
    auto r = store().list_usage(tenant_a_, window, page);
    ASSERT_TRUE(r) << r.error().describe();
    for (auto& u : r->items) seconds.push_back(u.data.find("gpu_seconds")->as_int());
    if (r->next_cursor.empty()) break;
    page.after = r->next_cursor;
  }
  EXPECT_EQ(seconds, (std::vector<std::int64_t>{180, 240, 300, 360, 420}));
  UsageQuery by_job;
  by_job.job_id = j2;
  auto r = store().list_usage(tenant_a_, by_job);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->items.size(), 5u);
  UsageRecord backwards;
  backwards.job_id = j1;
  backwards.start = t0;
  backwards.end = t0 - Duration::seconds(1);
  EXPECT_EQ(store().append_usage(tenant_a_, backwards).error().field, "end");
}

// after_seq reads only what was appended since a record a reader saw, with the other filters.
TEST_P(StoreConformance, UsageAfterSeqReadsOnlyWhatWasAppendedSince) {
  const core::Timestamp t0 = clock_->now();
  std::vector<std::int64_t> seqs;
  for (int i = 0; i < 5; ++i) {
    UsageRecord u;
    u.job_id = Id::generate();
    u.start = t0 + Duration::minutes(4 - i);  // appended newest first: seq order is not start order
    u.end = u.start + Duration::minutes(1);
    auto r = store().append_usage(tenant_a_, u);
    ASSERT_TRUE(r) << r.error().describe();
    seqs.push_back(r->seq);
  }
  UsageQuery since;
  since.after_seq = seqs[1];
  auto r = store().list_usage(tenant_a_, since);
  ASSERT_TRUE(r) << r.error().describe();
  std::vector<std::int64_t> got;
  for (const auto& u : r->items) got.push_back(u.seq);
  EXPECT_EQ(got, (std::vector<std::int64_t>{seqs[2], seqs[3], seqs[4]}));  // in the order appended
  since.from = t0 + Duration::minutes(1);
  r = store().list_usage(tenant_a_, since);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->items.size(), 2u);
  EXPECT_EQ(r->items[0].seq, seqs[2]);
  // Paged, the cursor goes on from the last seq.
  since.from.reset();
  PageRequest one{1, ""};
  got.clear();
  for (int guard = 0; guard < 10; ++guard) {
    auto p = store().list_usage(tenant_a_, since, one);
    ASSERT_TRUE(p) << p.error().describe();
    for (const auto& u : p->items) got.push_back(u.seq);
    if (p->next_cursor.empty()) break;
    one.after = p->next_cursor;
  }
  EXPECT_EQ(got, (std::vector<std::int64_t>{seqs[2], seqs[3], seqs[4]}));
  since.after_seq = seqs[4];
  r = store().list_usage(tenant_a_, since);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->items.empty());
  EXPECT_TRUE(store().list_usage(tenant_b_, UsageQuery{.after_seq = 0})->items.empty());
}

// A tenant's usage records become visible in seq order: an append waits for a transaction that
// appended the tenant's usage and has not committed yet, and so takes a higher seq than it. A
// reader reading past the last seq it saw misses nothing.
TEST_P(StoreConformance, AUsageAppendWaitsForAnOpenAppendOfItsTenant) {
  if (GetParam() == "sqlite_memory") GTEST_SKIP() << "one connection: there is no other writer";
  auto other = open_store(target_.uri, options_);
  ASSERT_TRUE(other) << other.error().describe();
  const core::Timestamp t0 = clock_->now();
  auto record = [&] {
    UsageRecord u;
    u.job_id = Id::generate();
    u.start = t0;
    u.end = t0 + Duration::minutes(1);
    return u;
  };
  std::atomic<bool> done{false};
  std::int64_t first = 0, second = 0;
  std::thread late;
  auto st = store().transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY_ASSIGN(UsageRecord a, tx.append_usage(tenant_a_, record()));
    first = a.seq;
    late = std::thread([&] {
      auto b = (*other)->append_usage(tenant_a_, record());
      EXPECT_TRUE(b) << b.error().describe();
      if (b) second = b->seq;
      done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(done.load()) << "an append did not wait for the open transaction's append";
    return {};
  });
  late.join();
  ASSERT_TRUE(st) << st.error().describe();
  EXPECT_GT(second, first);
}

TEST_P(StoreConformance, AuditLogAppendsAndFilters) {
  for (int i = 0; i < 6; ++i) {
    AuditEntry e;
    e.actor = i % 2 == 0 ? "alice" : "bob";
    e.action = "job.transition";
    e.object_type = "job";
    e.object_id = "job-" + std::to_string(i % 3);
    e.request_id = "req-" + std::to_string(i);
    e.detail = Value::map({{"i", i}});
    auto r = store().append_audit(tenant_a_, e);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->at, clock_->now());
    clock_->advance(Duration::seconds(1));
  }
  AuditQuery by_actor;
  by_actor.actor = "alice";
  std::vector<std::string> reqs;
  PageRequest page{2, ""};
  for (int guard = 0; guard < 10; ++guard) {
    auto r = store().list_audit(tenant_a_, by_actor, page);
    ASSERT_TRUE(r) << r.error().describe();
    for (auto& e : r->items) reqs.push_back(e.request_id);
    if (r->next_cursor.empty()) break;
    page.after = r->next_cursor;
  }
  EXPECT_EQ(reqs, (std::vector<std::string>{"req-0", "req-2", "req-4"}));
  AuditQuery by_object;
  by_object.object_type = "job";
  by_object.object_id = "job-1";
  auto r = store().list_audit(tenant_a_, by_object);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->items.size(), 2u);
  EXPECT_EQ(r->items[1].detail, Value::map({{"i", 4}}));
  AuditEntry anonymous;
  anonymous.action = "x";
  EXPECT_EQ(store().append_audit(tenant_a_, anonymous).error().field, "actor");
}

// ---- units of work ---------------------------------------------------------------------------

TEST_P(StoreConformance, TransactCommitsAllOrNothing) {
  auto rec = create(tenant_a_, make_job("a"));
  // A failing unit of work leaves no trace, even of the calls that succeeded inside it.
  auto failed = store().transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY(tx.transition_job(tenant_a_, rec.job.id, 1, JobStatus::Queued));
    BUDCORE_TRY(tx.create_job(tenant_a_, make_job("b")));
    AuditEntry e;
    e.actor = "alice";
    e.action = "job.queue";
    BUDCORE_TRY(tx.append_audit(tenant_a_, e));
    return core::Error::make(ErrorCode::BudgetExceeded, "over budget");
  });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::BudgetExceeded);
  EXPECT_EQ(store().get_job(tenant_a_, rec.job.id)->version, 1);
  EXPECT_EQ(all_jobs(tenant_a_).size(), 1u);
  EXPECT_TRUE(store().list_audit(tenant_a_, {})->items.empty());
  // An exception rolls back too, and propagates.
  EXPECT_THROW((void)store().transact([&](Store& tx) -> core::Status {
    (void)tx.create_job(tenant_a_, make_job("c"));
    throw std::runtime_error("bug");
  }),
               std::runtime_error);
  EXPECT_EQ(all_jobs(tenant_a_).size(), 1u);
  // A successful one commits everything.
  auto ok = store().transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY(tx.transition_job(tenant_a_, rec.job.id, 1, JobStatus::Queued));
    BUDCORE_TRY(tx.create_job(tenant_a_, make_job("d")));
    EXPECT_EQ(tx.transact([](Store&) { return core::Status{}; }).error().code, ErrorCode::Unsupported);
    return {};
  });
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(store().get_job(tenant_a_, rec.job.id)->version, 2);
  EXPECT_EQ(all_jobs(tenant_a_).size(), 2u);
}

// ---- batched reads, and writes whose answers wait for the commit ------------------------------

// New jobs of a transaction may be sent together at its end (PostgreSQL: one statement): they are
// all there after the commit, a change on top of one made in the same transaction lands after it,
// and one id that exists already fails the whole transaction naming the id field.
TEST_P(StoreConformance, JobsCreatedTogetherInATransactionCommitOrFailTogether) {
  auto existing = create(tenant_a_, make_job("existing"));
  // Text that the array literals a batch is sent in must escape, and words they give meaning to.
  const std::string tricky = "say \"hi\" \\ back\\\\slash \\\"q\\\" {a,b} NULL \xc3\xa9";
  std::vector<Id> made;
  ASSERT_TRUE(store().transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 5; ++i) {
      auto j = make_job("n" + std::to_string(i));
      j.spec = Value::map({{"cmd", tricky}});
      BUDCORE_TRY_ASSIGN(auto r, tx.create_job(tenant_a_, j));
      made.push_back(r.record.job.id);
    }
    BUDCORE_TRY_ASSIGN(auto first, tx.get_job(tenant_a_, made.front()));  // read back inside
    EXPECT_EQ(first.job.name, "n0");
    BUDCORE_TRY(tx.transition_job(tenant_a_, made.back(), 1, JobStatus::Queued));
    return {};
  }));
  EXPECT_EQ(all_jobs(tenant_a_).size(), 6u);
  auto last = store().get_job(tenant_a_, made.back());
  ASSERT_TRUE(last) << last.error().describe();
  EXPECT_EQ(last->version, 2);
  EXPECT_EQ(last->job.status, JobStatus::Queued);
  for (const Id& id : made) EXPECT_EQ(store().get_job(tenant_a_, id)->job.spec.find("cmd")->as_string(), tricky);

  auto clash = store().transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY(tx.create_job(tenant_a_, make_job("x1")));
    auto dup = make_job("x2");
    dup.id = existing.job.id;
    BUDCORE_TRY(tx.create_job(tenant_a_, dup));
    BUDCORE_TRY(tx.create_job(tenant_a_, make_job("x3")));
    return {};
  });
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code, ErrorCode::AlreadyExists);
  EXPECT_EQ(clash.error().field, "id");
  EXPECT_EQ(all_jobs(tenant_a_).size(), 6u) << "nothing of the failed transaction is kept";
  EXPECT_EQ(store().get_job(tenant_a_, existing.job.id)->job.name, "existing");
}

TEST_P(StoreConformance, GetJobsReadsEachTenantsOwnJobsInOneCall) {
  auto a = create(tenant_a_, make_job("a"));
  auto b = create(tenant_b_, make_job("b"));
  // More keys than one statement reads (the SQL stores read in chunks).
  std::vector<Id> many;
  ASSERT_TRUE(store().transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 1100; ++i) {
      BUDCORE_TRY_ASSIGN(auto r, tx.create_job(tenant_a_, make_job("m" + std::to_string(i))));
      many.push_back(r.record.job.id);
    }
    return {};
  }));
  std::vector<JobKey> keys = {{tenant_a_, a.job.id}, {tenant_a_, b.job.id}, {tenant_b_, b.job.id},
                              {tenant_a_, Id::generate()}, {tenant_a_, a.job.id}};
  for (const Id& id : many) keys.push_back({tenant_a_, id});
  auto got = store().get_jobs(keys);
  ASSERT_TRUE(got) << got.error().describe();
  ASSERT_EQ(got->size(), keys.size());
  ASSERT_TRUE((*got)[0]);
  EXPECT_EQ((*got)[0]->job.name, "a");
  EXPECT_FALSE((*got)[1]) << "another tenant's job under this tenant's name";
  ASSERT_TRUE((*got)[2]);
  EXPECT_EQ((*got)[2]->job.name, "b");
  EXPECT_FALSE((*got)[3]);
  ASSERT_TRUE((*got)[4]);
  EXPECT_EQ((*got)[4]->version, 1);
  for (std::size_t i = 0; i < many.size(); ++i) {
    ASSERT_TRUE((*got)[5 + i]) << i;
    EXPECT_EQ((*got)[5 + i]->job.name, "m" + std::to_string(i));
  }
  EXPECT_TRUE(store().get_jobs({})->empty());
}

TEST_P(StoreConformance, GetJobsByKeysReadsATenantsKeysInOneCall) {
  const job::Job sent = make_job("a");
  const std::string digest = job_request_digest(sent, tenant_a_);
  auto a = store().create_job(tenant_a_, sent, "k-a", digest);
  ASSERT_TRUE(a) << a.error().describe();
  create(tenant_b_, make_job("b"), "k-b");
  // More keys than one statement reads (the SQL stores read in chunks).
  ASSERT_TRUE(store().transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 1100; ++i)
      BUDCORE_TRY(tx.create_job(tenant_a_, make_job("m" + std::to_string(i)), "m/" + std::to_string(i)));
    return {};
  }));
  std::vector<std::string> keys = {"k-a", "k-b", "missing", "k-a", "quo\"te,{NULL}"};
  for (int i = 0; i < 1100; ++i) keys.push_back("m/" + std::to_string(i));
  auto got = store().get_jobs_by_keys(tenant_a_, keys);
  ASSERT_TRUE(got) << got.error().describe();
  ASSERT_EQ(got->size(), keys.size());
  ASSERT_TRUE((*got)[0]);
  EXPECT_EQ((*got)[0]->job.id, a->record.job.id);
  EXPECT_EQ((*got)[0]->idempotency_key, "k-a");
  EXPECT_EQ((*got)[0]->request_digest, digest) << "a replay is checked against it";
  EXPECT_FALSE((*got)[1]) << "another tenant's key";
  EXPECT_FALSE((*got)[2]);
  ASSERT_TRUE((*got)[3]);
  EXPECT_EQ((*got)[3]->job.id, a->record.job.id);
  EXPECT_FALSE((*got)[4]);
  for (int i = 0; i < 1100; ++i) {
    ASSERT_TRUE((*got)[5 + i]) << i;
    EXPECT_EQ((*got)[5 + i]->job.name, "m" + std::to_string(i));
  }
  EXPECT_TRUE(store().get_jobs_by_keys(tenant_a_, {})->empty());
  // A key no job can have is refused as get_job_by_key refuses it.
  const std::vector<std::string> bad = {"k-a", std::string(300, 'k')};
  auto refused = store().get_jobs_by_keys(tenant_a_, bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Invalid);
  EXPECT_EQ(refused.error().field, "idempotency_key");
}

TEST_P(StoreConformance, ANewKeyCreatesItsJobInsideAndOutsideATransaction) {
  const job::Job sent = make_job("n");
  const std::string digest = job_request_digest(sent, tenant_a_);
  auto alone = store().create_job_with_new_key(tenant_a_, sent, "new-1", digest);
  ASSERT_TRUE(alone) << alone.error().describe();
  EXPECT_TRUE(alone->created);
  std::vector<Id> made;
  ASSERT_TRUE(store().transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 300; ++i) {  // more than one pipeline of writes on PostgreSQL
      BUDCORE_TRY_ASSIGN(auto r, tx.create_job_with_new_key(tenant_a_, sent, "new/" + std::to_string(i), digest));
      if (!r.created) return core::Error::make(ErrorCode::Internal, "not created");
      made.push_back(r.record.job.id);
    }
    return {};
  }));
  for (int i = 0; i < 300; ++i) {
    auto got = store().get_job_by_key(tenant_a_, "new/" + std::to_string(i));
    ASSERT_TRUE(got && *got) << i;
    EXPECT_EQ((*got)->job.id, made[i]);
    EXPECT_EQ((*got)->request_digest, digest);
  }
  // Without a key it is create_job.
  auto unkeyed = store().create_job_with_new_key(tenant_a_, make_job("u"), "");
  ASSERT_TRUE(unkeyed);
  EXPECT_TRUE(unkeyed->created);
  EXPECT_EQ(all_jobs(tenant_a_).size(), 302u);
}

// Another writer commits the key between a reader's lookup and its insert: the reader gets a
// Conflict on the key, never that writer's job nor its id (the caller checks whether it may
// see it, as a read), and inside a transaction nothing of it is kept; a second read finds the job.
TEST_P(StoreConformance, ANewKeyTakenByAnotherWriterMeanwhileIsAConflictToReadAgain) {
  if (GetParam() == "sqlite_memory") GTEST_SKIP() << "one connection: there is no other writer";
  auto other = open_store(target_.uri, options_);
  ASSERT_TRUE(other) << other.error().describe();
  const job::Job sent = make_job("raced");
  const std::string digest = job_request_digest(sent, tenant_a_);
  const std::vector<std::string> keys = {"race-1", "race-2"};
  // Both keys read as absent, then the other writer takes them.
  auto before = store().get_jobs_by_keys(tenant_a_, keys);
  ASSERT_TRUE(before);
  ASSERT_FALSE((*before)[0] || (*before)[1]);
  auto theirs1 = (*other)->create_job(tenant_a_, sent, "race-1", digest);
  auto theirs2 = (*other)->create_job(tenant_a_, sent, "race-2", digest);
  ASSERT_TRUE(theirs1 && theirs2);
  auto expect_taken = [&](const core::Error& e) {
    EXPECT_EQ(e.code, ErrorCode::Conflict) << e.describe();
    EXPECT_EQ(e.field, "idempotency_key");
    EXPECT_EQ(e.describe().find(theirs1->record.job.id.to_string()), std::string::npos) << e.describe();
    EXPECT_EQ(e.describe().find(theirs2->record.job.id.to_string()), std::string::npos) << e.describe();
  };
  auto alone = store().create_job_with_new_key(tenant_a_, sent, "race-1", digest);
  ASSERT_FALSE(alone);
  expect_taken(alone.error());
  auto st = store().transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY(tx.create_job(tenant_a_, make_job("beside")));
    BUDCORE_TRY(tx.create_job_with_new_key(tenant_a_, sent, "race-2", digest));
    return tx.put_platform_record("state", "beside", Value::map({}));
  });
  ASSERT_FALSE(st);
  expect_taken(st.error());
  EXPECT_EQ(all_jobs(tenant_a_).size(), 2u) << "nothing of the transaction is kept";
  EXPECT_FALSE(*store().get_platform_record("state", "beside"));
  auto again = store().get_jobs_by_keys(tenant_a_, keys);
  ASSERT_TRUE(again && (*again)[1]);
  EXPECT_EQ((*again)[1]->job.id, theirs2->record.job.id);
  // With another document: the same Conflict, not the digest refusal that names the job.
  const job::Job changed = make_job("changed");
  auto mismatch = store().create_job_with_new_key(tenant_a_, changed, "race-1", job_request_digest(changed, tenant_a_));
  ASSERT_FALSE(mismatch);
  expect_taken(mismatch.error());
}

TEST_P(StoreConformance, GetPlatformRecordsReadsKeysOfAnySpelling) {
  const std::vector<std::string> keys = {"plain", "quo\"te", "com,ma", "back\\slash", "{brace}", "NULL", "sp ace"};
  for (const auto& k : keys) ASSERT_TRUE(store().put_platform_record("state", k, Value::map({{"k", k}})));
  ASSERT_TRUE(store().put_platform_record("other", "plain", Value::map({{"k", "other"}})));
  std::vector<std::string> asked = keys;
  asked.push_back("missing");
  asked.push_back("plain");
  auto got = store().get_platform_records("state", asked);
  ASSERT_TRUE(got) << got.error().describe();
  ASSERT_EQ(got->size(), asked.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE((*got)[i]) << keys[i];
    EXPECT_EQ((*got)[i]->key, keys[i]);
    EXPECT_EQ((*got)[i]->doc.find("k")->as_string(), keys[i]);
  }
  EXPECT_FALSE((*got)[keys.size()]);
  ASSERT_TRUE((*got)[keys.size() + 1]);
  EXPECT_EQ((*got)[keys.size() + 1]->doc.find("k")->as_string(), "plain") << "a record of another kind";
}

TEST_P(StoreConformance, AWriteWhoseAnswerWaitsStillFailsItsTransactionWhole) {
  auto rec = create(tenant_a_, make_job("a"));
  backend::EventRecord ev;
  ev.type = "job.test";
  ev.object_id = rec.job.id;
  ev.data = Value::map({});
  // A compare-and-set on a stale version, among writes that would succeed.
  auto stale = store().transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY(tx.append_event(tenant_a_, ev));
    BUDCORE_TRY(tx.put_platform_record("state", "stale", Value::map({})));
    BUDCORE_TRY(tx.write_job(tenant_a_, rec.job, 7));
    BUDCORE_TRY(tx.create_job(tenant_a_, make_job("b")));
    return {};
  });
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::Conflict);
  EXPECT_EQ(stale.error().field, "version");
  // An id that exists, after other writes.
  auto again = make_job("c");
  again.id = rec.job.id;
  auto dup = store().transact([&](Store& tx) -> core::Status {
    BUDCORE_TRY(tx.append_event(tenant_a_, ev));
    BUDCORE_TRY(tx.create_job(tenant_a_, again));
    return {};
  });
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::AlreadyExists);
  EXPECT_EQ(dup.error().field, "id");
  // Nothing of either is stored; the tenant's event numbers have no gap after them.
  EXPECT_EQ(all_jobs(tenant_a_).size(), 1u);
  EXPECT_FALSE(*store().get_platform_record("state", "stale"));
  EXPECT_TRUE(store().list_events(tenant_a_, 0, 10)->empty());
  std::vector<std::int64_t> order;
  ASSERT_TRUE(store().transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 20; ++i) {
      BUDCORE_TRY_ASSIGN(std::int64_t at, tx.append_event(tenant_a_, ev));
      order.push_back(at);
    }
    BUDCORE_TRY(tx.write_job(tenant_a_, rec.job, 1));
    return {};
  }));
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_EQ(std::set<std::int64_t>(order.begin(), order.end()).size(), order.size());
  auto events = store().list_events(tenant_a_, 0, 100);
  ASSERT_EQ(events->size(), 20u);
  for (std::size_t i = 0; i < events->size(); ++i) EXPECT_EQ((*events)[i].seq, static_cast<std::int64_t>(i + 1));
  EXPECT_EQ(store().get_job(tenant_a_, rec.job.id)->version, 2);
}

// A job written again on top of its own write in one transaction (admitted, started and ended
// in one commit batch) keeps its last document and a version grown by every write, before and
// after a read in the transaction; a second write on the version the first one replaced is
// refused, and the transaction with it.
TEST_P(StoreConformance, AJobWrittenSeveralTimesInOneTransactionKeepsItsLastWriteAndEveryVersion) {
  auto rec = create(tenant_a_, make_job("a"));
  auto other = create(tenant_a_, make_job("b"));
  const std::int64_t v = rec.version;
  ASSERT_TRUE(store().transact([&](Store& tx) -> core::Status {
    for (int i = 0; i < 3; ++i) {
      rec.job.name = "w" + std::to_string(i);
      BUDCORE_TRY(tx.write_job(tenant_a_, rec.job, v + i));
    }
    other.job.name = "once";
    BUDCORE_TRY(tx.write_job(tenant_a_, other.job, other.version));
    BUDCORE_TRY_ASSIGN(auto seen, tx.get_job(tenant_a_, rec.job.id));
    EXPECT_EQ(seen.job.name, "w2");
    EXPECT_EQ(seen.version, v + 3);
    rec.job.name = "w3";
    BUDCORE_TRY(tx.write_job(tenant_a_, rec.job, v + 3));
    return {};
  }));
  auto got = store().get_job(tenant_a_, rec.job.id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->job.name, "w3");
  EXPECT_EQ(got->version, v + 4);
  EXPECT_EQ(store().get_job(tenant_a_, other.job.id)->version, other.version + 1);
  auto twice = store().transact([&](Store& tx) -> core::Status {
    rec.job.name = "first";
    BUDCORE_TRY(tx.write_job(tenant_a_, rec.job, v + 4));
    rec.job.name = "stale";
    BUDCORE_TRY(tx.write_job(tenant_a_, rec.job, v + 4));
    return {};
  });
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code, ErrorCode::Conflict);
  got = store().get_job(tenant_a_, rec.job.id);
  EXPECT_EQ(got->job.name, "w3");
  EXPECT_EQ(got->version, v + 4);
}

TEST_P(StoreConformance, ManyWritesOfJobsAndRecordsInOneTransactionAllApplyInOrder) {
  std::vector<JobRecord> recs;
  for (int i = 0; i < 30; ++i) recs.push_back(create(tenant_a_, make_job("j" + std::to_string(i))));
  ASSERT_TRUE(store().put_platform_record("job", "gone", Value::map({{"v", 0}})));
  ASSERT_TRUE(store().transact([&](Store& tx) -> core::Status {
    for (auto& r : recs) {
      r.job.name = "first";
      BUDCORE_TRY(tx.write_job(tenant_a_, r.job, r.version));
      BUDCORE_TRY(tx.put_platform_record("job", r.job.id.to_string(), Value::map({{"v", 1}})));
    }
    // The same job again in the same transaction, and a read that must see the first write.
    recs[0].job.name = "second";
    BUDCORE_TRY(tx.write_job(tenant_a_, recs[0].job, recs[0].version + 1));
    BUDCORE_TRY_ASSIGN(auto seen, tx.get_job(tenant_a_, recs[1].job.id));
    EXPECT_EQ(seen.job.name, "first");
    EXPECT_EQ(seen.version, recs[1].version + 1);
    // A record put then deleted, one deleted then put, one written twice: the last write wins.
    BUDCORE_TRY(tx.delete_platform_record("job", recs[2].job.id.to_string()));
    BUDCORE_TRY(tx.delete_platform_record("job", "gone"));
    BUDCORE_TRY(tx.put_platform_record("job", "gone", Value::map({{"v", 2}})));
    BUDCORE_TRY(tx.put_platform_record("job", recs[3].job.id.to_string(), Value::map({{"v", 3}})));
    BUDCORE_TRY_ASSIGN(auto read, tx.get_platform_record("job", recs[3].job.id.to_string()));
    EXPECT_TRUE(read && read->doc.find("v")->as_int() == 3) << "a read in the transaction sees its writes";
    return {};
  }));
  EXPECT_EQ(store().get_job(tenant_a_, recs[0].job.id)->job.name, "second");
  EXPECT_EQ(store().get_job(tenant_a_, recs[0].job.id)->version, recs[0].version + 2);
  for (std::size_t i = 1; i < recs.size(); ++i) {
    auto got = store().get_job(tenant_a_, recs[i].job.id);
    EXPECT_EQ(got->job.name, "first");
    EXPECT_EQ(got->version, recs[i].version + 1);
  }
  EXPECT_FALSE(*store().get_platform_record("job", recs[2].job.id.to_string()));
  EXPECT_EQ((*store().get_platform_record("job", "gone"))->doc.find("v")->as_int(), 2);
  EXPECT_EQ((*store().get_platform_record("job", recs[3].job.id.to_string()))->doc.find("v")->as_int(), 3);
  EXPECT_EQ((*store().get_platform_record("job", recs[4].job.id.to_string()))->doc.find("v")->as_int(), 1);
  // One stale compare-and-set among many fails the whole batch: no job and no record changed.
  auto stale = store().transact([&](Store& tx) -> core::Status {
    for (std::size_t i = 1; i < recs.size(); ++i) {
      recs[i].job.name = "third";
      const std::int64_t version = i == 7 ? recs[i].version : recs[i].version + 1;  // 7 is stale
      BUDCORE_TRY(tx.write_job(tenant_a_, recs[i].job, version));
      BUDCORE_TRY(tx.put_platform_record("job", recs[i].job.id.to_string(), Value::map({{"v", 9}})));
    }
    return {};
  });
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::Conflict);
  EXPECT_EQ(stale.error().field, "version");
  EXPECT_EQ(store().get_job(tenant_a_, recs[1].job.id)->job.name, "first");
  EXPECT_EQ((*store().get_platform_record("job", recs[4].job.id.to_string()))->doc.find("v")->as_int(), 1);
}

TEST_P(StoreConformance, DataSurvivesReopening) {
  if (GetParam() == "sqlite_memory") GTEST_SKIP() << "an in-memory database ends with its connection";
  auto rec = create(tenant_a_, make_job("durable"), "k");
  ASSERT_TRUE(store().transition_job(tenant_a_, rec.job.id, 1, JobStatus::Queued));
  store_.reset();
  auto reopened = open_store(target_.uri, options_);
  ASSERT_TRUE(reopened) << reopened.error().describe();
  auto got = (*reopened)->get_job(tenant_a_, rec.job.id);
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_EQ(got->version, 2);
  EXPECT_EQ(got->idempotency_key, "k");
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreConformance, ::testing::Values("sqlite_memory", "sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::backend
