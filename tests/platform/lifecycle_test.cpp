// A job's life through the Platform on embedded defaults: submission, admission by the quota
// engine, running on the virtual clock, completion, and every operation around it.
#include <gtest/gtest.h>

#include <algorithm>

#include "budcore/core/json.hpp"
#include "budcore/job/state_machine.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using job::JobStatus;

std::vector<JobStatus> statuses_of(const job::Job& j) {
  std::vector<JobStatus> out;
  if (!j.status_history.empty()) out.push_back(j.status_history.front().from);
  for (const auto& t : j.status_history) out.push_back(t.to);
  return out;
}

TEST(PlatformLifecycleTest, AJobGoesFromSubmissionToCompletion) {
  PlatformTarget t;
  auto p = t.open();
  ASSERT_TRUE(p);
  const core::Timestamp start = p->now();
  auto r = p->submit(ctx_a(), gpu_job("train-a", 2, 600), "key-1");
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_TRUE(r->created);
  EXPECT_EQ(r->record.job.status, JobStatus::Queued);
  EXPECT_EQ(r->record.job.tenant_id, tenant_a());
  auto end = p->run_until_idle();
  ASSERT_TRUE(end) << end.error().describe();
  auto got = p->get_job(ctx_a(), r->record.job.id);
  ASSERT_TRUE(got);
  const job::Job& j = got->job;
  EXPECT_EQ(j.status, JobStatus::Completed);
  EXPECT_EQ(statuses_of(j), (std::vector<JobStatus>{JobStatus::Pending, JobStatus::Queued, JobStatus::Scheduled,
                                                     JobStatus::Running, JobStatus::Completed}));
  ASSERT_TRUE(j.actual_start && j.actual_end);
  EXPECT_EQ(*j.actual_start, start);
  EXPECT_EQ(*j.actual_end - *j.actual_start, core::Duration::seconds(600));
  ASSERT_TRUE(j.outputs.find("url"));
  EXPECT_EQ(j.outputs.find("job_id")->as_string(), j.id.to_string());
  EXPECT_NE(j.outputs.find("node")->as_string().find("a100-"), std::string::npos);
  EXPECT_NE(j.status_history[1].message.find("batch-jobs"), std::string::npos);  // admitted by the job-type queue

  // The event stream: every transition, with increasing sequence numbers, resumable.
  auto page = p->watch(ctx_a(), 0, 1000);
  ASSERT_TRUE(page);
  std::vector<std::string> tos;
  std::int64_t last = 0;
  for (const auto& e : page->events) {
    EXPECT_GT(e.seq, last);
    last = e.seq;
    if (e.type == "job.transition") tos.push_back(e.data.find("to")->as_string());
  }
  EXPECT_EQ(tos, (std::vector<std::string>{"queued", "scheduled", "running", "completed"}));
  EXPECT_EQ(page->events.front().data.find("idempotency_key")->as_string(), "key-1");
  EXPECT_EQ(page->events.front().data.find("principal")->as_string(), "user:alice");
  auto rest = p->watch(ctx_a(), page->events[1].seq, 1000);
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->events.size(), page->events.size() - 2);
  EXPECT_TRUE(p->watch(ctx_b(), 0, 1000)->events.empty());  // tenant B sees none of it
  EXPECT_TRUE(p->check_invariants()) << p->check_invariants().error().describe();
}

TEST(PlatformLifecycleTest, IdempotentSubmitReturnsTheFirstJob) {
  PlatformTarget t;
  auto p = t.open();
  auto a = p->submit(ctx_a(), gpu_job("same"), "req-77");
  auto b = p->submit(ctx_a(), gpu_job("same"), "req-77");
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->created);
  EXPECT_FALSE(b->created);
  EXPECT_EQ(a->record.job.id, b->record.job.id);
  auto other = p->submit(ctx_b(), gpu_job("same"), "req-77");  // keys are per tenant
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->created);
  ASSERT_TRUE(p->run_until_idle());
  auto list = p->list_jobs(ctx_a(), {});
  ASSERT_TRUE(list);
  EXPECT_EQ(list->items.size(), 1u);
  EXPECT_EQ(p->cluster().workloads.size(), 0u);
}

TEST(PlatformLifecycleTest, AKeySentAgainWithAnotherDocumentIsRefusedAndCreatesNothing) {
  PlatformTarget t;
  auto p = t.open();
  auto first = p->submit(ctx_a(), gpu_job("train", 2, 600), "req-9");
  ASSERT_TRUE(first) << first.error().describe();
  // One GPU more under the same key: the caller's mistake, said, not answered with the first job.
  auto reused = p->submit(ctx_a(), gpu_job("train", 3, 600), "req-9");
  ASSERT_FALSE(reused);
  EXPECT_EQ(reused.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(reused.error().field, "idempotency_key");
  EXPECT_NE(reused.error().message.find(first->record.job.id.to_string()), std::string::npos);
  // The same document still replays, also as a document.
  auto replay = p->submit(ctx_a(), gpu_job("train", 2, 600), "req-9");
  ASSERT_TRUE(replay) << replay.error().describe();
  EXPECT_FALSE(replay->created);
  // A batch under one key replays whole; one changed job refuses the whole batch, by index.
  auto batch_of = [](int gpus) {
    core::List jobs;
    jobs.emplace_back(gpu_job("b0", 1, 60).to_value());
    jobs.emplace_back(gpu_job("b1", gpus, 60).to_value());
    return core::Value(core::Map{{"jobs", core::Value(std::move(jobs))}});
  };
  auto b1 = p->submit_batch_document(ctx_a(), batch_of(1), "batch-5");
  ASSERT_TRUE(b1) << b1.error().describe();
  auto b2 = p->submit_batch_document(ctx_a(), batch_of(1), "batch-5");
  ASSERT_TRUE(b2) << b2.error().describe();
  EXPECT_FALSE((*b2)[1].created);
  auto b3 = p->submit_batch_document(ctx_a(), batch_of(2), "batch-5");
  ASSERT_FALSE(b3);
  EXPECT_EQ(b3.error().field, "jobs[1].idempotency_key");
  // An explicit key that happens to equal a batch's derived one is held to the same rule.
  auto clash = p->submit(ctx_a(), gpu_job("other", 1, 60), "batch-5/0");
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().field, "idempotency_key");
  auto list = p->list_jobs(ctx_a(), {});
  ASSERT_TRUE(list);
  EXPECT_EQ(list->items.size(), 3u);
  // Keys stay per tenant: another tenant's document under the key is its own job.
  auto other = p->submit(ctx_b(), gpu_job("train", 3, 600), "req-9");
  ASSERT_TRUE(other) << other.error().describe();
  EXPECT_TRUE(other->created);
}

TEST(PlatformLifecycleTest, AReplayIsAnsweredEvenWhenTheFirstJobFillsTheQueueCapOrThePolicyTightened) {
  PlatformTarget t;
  t.config.security.rbac = false;
  platform::TenantPolicy capped;
  capped.max_queued_jobs = 1;
  t.config.security.default_policy = capped;
  auto p = t.open();
  auto first = p->submit(ctx_a(), gpu_job("only", 0, 86'400), "cap-1");
  ASSERT_TRUE(first) << first.error().describe();
  // The retry of a submit whose answer was lost creates nothing: the cap the first fills is no reason.
  auto retry = p->submit(ctx_a(), gpu_job("only", 0, 86'400), "cap-1");
  ASSERT_TRUE(retry) << retry.error().describe();
  EXPECT_FALSE(retry->created);
  EXPECT_EQ(retry->record.job.id, first->record.job.id);
  EXPECT_FALSE(p->submit(ctx_a(), gpu_job("second", 0), "cap-2"));  // a new job still meets the cap
  // A batch replayed whole beside one new job: the cap counts the new one only.
  p.reset();
  t.config.security.default_policy->max_queued_jobs = 2;
  p = t.open();
  std::vector<platform::SubmitRequest> batch{{gpu_job("only", 0, 86'400), "cap-1"}, {gpu_job("new", 0), "cap-3"}};
  auto mixed = p->submit_batch(ctx_a(), batch);
  ASSERT_TRUE(mixed) << mixed.error().describe();
  EXPECT_FALSE((*mixed)[0].created);
  EXPECT_TRUE((*mixed)[1].created);
}

TEST(PlatformLifecycleTest, TwoJobsOfOneBatchUnderOneKeyAreRefusedNamingBothAndCreateNothing) {
  PlatformTarget t;
  auto p = t.open();
  std::vector<platform::SubmitRequest> batch{{gpu_job("a", 1, 60), "dup"}, {gpu_job("b", 1, 60), ""},
                                             {gpu_job("c", 1, 60), "dup"}};
  auto r = p->submit_batch(ctx_a(), batch);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "jobs[2].idempotency_key");
  EXPECT_NE(r.error().message.find("jobs[0]"), std::string::npos) << r.error().message;
  // A derived key met by an explicit one in the same batch is the same mistake.
  core::List entries;
  entries.emplace_back(gpu_job("d0", 1, 60).to_value());
  entries.emplace_back(core::Map{{"job", gpu_job("d1", 1, 60).to_value()}, {"idempotency_key", "k/0"}});
  auto derived = p->submit_batch_document(ctx_a(), core::Value(core::Map{{"jobs", core::Value(std::move(entries))}}), "k");
  ASSERT_FALSE(derived);
  EXPECT_EQ(derived.error().field, "jobs[1].idempotency_key");
  EXPECT_TRUE(p->list_jobs(ctx_a(), {})->items.empty());
  // Nothing was created under the key: a single submit under it is a new job.
  auto single = p->submit(ctx_a(), gpu_job("a", 1, 60), "dup");
  ASSERT_TRUE(single);
  EXPECT_TRUE(single->created);
}

TEST(PlatformLifecycleTest, OneRequestWrittenTwoWaysReplays) {
  PlatformTarget t;
  auto p = t.open();
  auto doc = [](std::string_view text) { return core::parse_json(text).value(); };
  auto first = p->submit_document(ctx_a(), doc(R"({"name": "w", "job_type": "batch", "deployment_type": "docker",
      "spec": {"image": "x/y", "a": 1, "b": {"c": 2.0, "d": [1, 2]}}})"), "w-1");
  ASSERT_TRUE(first) << first.error().describe();
  // Members in another order, a number written 1.0, the caller's own tenant, a status message.
  auto again = p->submit_document(ctx_a(), doc(R"({"spec": {"b": {"d": [1.0, 2], "c": 2}, "a": 1.0, "image": "x/y"},
      "tenant_id": ")" + tenant_a().to_string() + R"(", "status_message": "hi", "deployment_type": "docker",
      "job_type": "batch", "name": "w"})"), "w-1");
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_FALSE(again->created);
  // Another tenant's id is another request, refused as a new job naming it would be.
  auto foreign = p->submit_document(ctx_a(), doc(R"({"name": "w", "job_type": "batch", "deployment_type": "docker",
      "tenant_id": ")" + tenant_b().to_string() + R"(", "spec": {"image": "x/y", "a": 1, "b": {"c": 2.0, "d": [1, 2]}}})"), "w-1");
  ASSERT_FALSE(foreign);
  EXPECT_EQ(foreign.error().field, "tenant_id");
  // What differs in meaning does not: the order of a list.
  auto other = p->submit_document(ctx_a(), doc(R"({"name": "w", "job_type": "batch", "deployment_type": "docker",
      "spec": {"image": "x/y", "a": 1, "b": {"c": 2.0, "d": [2, 1]}}})"), "w-1");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().field, "idempotency_key");
}

TEST(PlatformLifecycleTest, QuotaMakesTheSecondJobWaitForTheFirst) {
  PlatformTarget t;
  auto p = t.open();
  // batch-jobs: 4 A100 nominal + 4 borrowed from the cohort = 8 at most.
  std::vector<platform::SubmitRequest> batch;
  batch.push_back({gpu_job("first", 8, 1000), ""});
  batch.push_back({gpu_job("second", 8, 500), ""});
  auto r = p->submit_batch(ctx_a(), std::move(batch));
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  auto first = p->get_job(ctx_a(), (*r)[0].record.job.id)->job;
  auto second = p->get_job(ctx_a(), (*r)[1].record.job.id)->job;
  EXPECT_EQ(first.status, JobStatus::Completed);
  EXPECT_EQ(second.status, JobStatus::Completed);
  EXPECT_EQ(*second.actual_start, *first.actual_end);
  auto metrics = p->metrics();
  EXPECT_NE(metrics.find("job_queue_wait_seconds_bucket{job_type=\"batch\",priority=\"normal\",cluster_queue=\"batch-jobs\",le=\"1800\"} 2"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("job_state_transitions_total{job_type=\"batch\",from_state=\"running\",to_state=\"completed\"} 2"),
            std::string::npos);
}

// 9 A100s is more than batch-jobs can ever hold (8 with borrowing): Kueue would keep it pending,
// and so does the platform, saying why instead of "waiting for admission".
TEST(PlatformLifecycleTest, AJobTheQuotaCanNeverAdmitStaysQueuedSayingWhy) {
  PlatformTarget t;
  auto p = t.open();
  auto big = p->submit(ctx_a(), gpu_job("too-big", 9, 600));
  auto fits = p->submit(ctx_a(), gpu_job("fits", 8, 600));
  ASSERT_TRUE(big && fits);
  ASSERT_TRUE(p->run_until_idle());
  job::Job j = p->get_job(ctx_a(), big->record.job.id)->job;
  EXPECT_EQ(j.status, JobStatus::Queued);
  ASSERT_TRUE(j.status_message);
  EXPECT_EQ(*j.status_message,
            "can never be admitted as the quota is configured: requests 9 nvidia.com/gpu but batch-jobs can never "
            "provide more than 8");
  EXPECT_EQ(p->get_job(ctx_a(), fits->record.job.id)->job.status, JobStatus::Completed);
  bool listed = false;
  for (const auto& w : p->cluster().workloads)
    if (w.job_id == big->record.job.id) {
      listed = true;
      EXPECT_EQ(w.message, *j.status_message);
    }
  EXPECT_TRUE(listed);
  EXPECT_TRUE(p->check_invariants());
}

TEST(PlatformLifecycleTest, ABatchIsCheckedWholeBeforeAnythingIsCreated) {
  PlatformTarget t;
  auto p = t.open();
  std::vector<platform::SubmitRequest> batch;
  batch.push_back({gpu_job("good"), ""});
  auto bad = gpu_job("bad");
  bad.gpu_count = -1;
  batch.push_back({bad, ""});
  auto r = p->submit_batch(ctx_a(), std::move(batch));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "jobs[1].gpu_count");
  EXPECT_TRUE(p->list_jobs(ctx_a(), {})->items.empty());
  EXPECT_TRUE(p->watch(ctx_a(), 0)->events.empty());
}

TEST(PlatformLifecycleTest, BadInputAndIllegalMovesAreRefusedNamingTheField) {
  PlatformTarget t;
  auto p = t.open();
  auto j = gpu_job("x");
  j.tenant_id = tenant_b();
  auto wrong = p->submit(ctx_a(), j);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().field, "tenant_id");
  auto running = gpu_job("running-doc");
  running.status = JobStatus::Running;
  EXPECT_EQ(p->submit(ctx_a(), running).error().field, "status");
  auto nil = p->submit(platform::CallContext{}, gpu_job("y"));
  EXPECT_EQ(nil.error().field, "tenant");

  auto r = p->submit(ctx_a(), gpu_job("z", 1, 60));
  ASSERT_TRUE(r);
  const core::Id id = r->record.job.id;
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(10)));
  EXPECT_EQ(p->get_job(ctx_a(), id)->job.status, JobStatus::Running);
  auto retry_running = p->retry_job(ctx_a(), id);
  ASSERT_FALSE(retry_running);
  EXPECT_EQ(retry_running.error().code, core::ErrorCode::Conflict);
  EXPECT_EQ(retry_running.error().field, "status");
  EXPECT_EQ(p->get_job(ctx_b(), id).error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(p->cancel_job(ctx_b(), id).error().code, core::ErrorCode::NotFound);
  ASSERT_TRUE(p->run_until_idle());
  auto cancel_done = p->cancel_job(ctx_a(), id);
  ASSERT_FALSE(cancel_done);
  EXPECT_EQ(cancel_done.error().code, core::ErrorCode::Conflict);
  EXPECT_EQ(p->get_job(ctx_a(), id)->job.status, JobStatus::Completed);  // nothing changed
  EXPECT_EQ(p->get_job(ctx_a(), core::Id::generate()).error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(p->watch(ctx_a(), 0, 0).error().field, "limit");
}

TEST(PlatformLifecycleTest, AFailedRunIsRetriedWithBackoffAndThenCompletes) {
  PlatformTarget t;
  auto p = t.open();
  auto j = gpu_job("flaky", 1, 300);
  set_sim(j, core::Value::map({{"fail_attempts", 2}, {"fail_after_seconds", 120}, {"fail_message", "CUDA error"}}));
  auto r = p->submit(ctx_a(), j);
  ASSERT_TRUE(r);
  ASSERT_TRUE(p->run_until_idle());
  auto got = p->get_job(ctx_a(), r->record.job.id)->job;
  EXPECT_EQ(got.status, JobStatus::Completed);
  EXPECT_EQ(got.retry_count, 2);
  int failures = 0;
  for (const auto& h : got.status_history)
    if (h.to == JobStatus::Failed) {
      ++failures;
      EXPECT_NE(h.message.find("CUDA error"), std::string::npos);
    }
  EXPECT_EQ(failures, 2);
  // Backoff: 10 s before the first retry, 20 s before the second (defaults, no jitter).
  auto end = *got.actual_end;
  EXPECT_EQ(end - *got.created_at, core::Duration::seconds(120 + 10 + 120 + 20 + 300));
  EXPECT_NE(p->metrics().find("job_retries_total{job_type=\"batch\"} 2"), std::string::npos);
}

TEST(PlatformLifecycleTest, ARunPastMaxDurationFailsAsATimeoutAndIsNotRetriedBeyondTheBudget) {
  PlatformTarget t;
  auto p = t.open();
  auto j = gpu_job("slow", 1, 600);
  j.max_duration_seconds = 900;
  j.max_retries = 0;
  set_sim(j, core::Value::map({{"duration_seconds", 5000}}));
  auto r = p->submit(ctx_a(), j);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  auto got = p->get_job(ctx_a(), r->record.job.id)->job;
  EXPECT_EQ(got.status, JobStatus::Failed);
  EXPECT_EQ(*got.actual_end - *got.actual_start, core::Duration::seconds(900));
  EXPECT_NE(got.status_message->find("Timeout"), std::string::npos);
  EXPECT_NE(got.status_message->find("no retry"), std::string::npos);
  auto again = p->retry_job(ctx_a(), got.id);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().field, "retry_count");
}

TEST(PlatformLifecycleTest, AHigherPriorityJobPreemptsAndTheVictimIsRequeued) {
  PlatformTarget t;
  auto p = t.open();
  auto low = gpu_job("low", 8, 3600);
  low.priority = job::JobPriority::Low;
  low.preemptible = true;
  auto lr = p->submit(ctx_a(), low);
  ASSERT_TRUE(lr);
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(60)));
  auto high = gpu_job("high", 4, 600);  // fits batch-jobs' nominal quota once the borrower is gone
  high.priority = job::JobPriority::High;
  high.preempts_others = true;
  auto hr = p->submit(ctx_a(), high);
  ASSERT_TRUE(hr);
  ASSERT_TRUE(p->run_until_idle());
  auto l = p->get_job(ctx_a(), lr->record.job.id)->job;
  auto h = p->get_job(ctx_a(), hr->record.job.id)->job;
  EXPECT_EQ(h.status, JobStatus::Completed);
  EXPECT_EQ(l.status, JobStatus::Completed);
  auto seq = statuses_of(l);
  EXPECT_NE(std::find(seq.begin(), seq.end(), JobStatus::Preempted), seq.end());
  EXPECT_EQ(l.retry_count, 0);  // a requeue is not a retry
  EXPECT_GE(*l.actual_start, *h.actual_end);  // restarted after the high one finished
  EXPECT_NE(p->metrics().find("job_preemptions_total{job_type=\"batch\",preemption_reason=\"Preempted\"} 1"), std::string::npos);
}

TEST(PlatformLifecycleTest, AnAdministratorPreemptsAndTheJobRunsAgainLater) {
  PlatformTarget t;
  auto p = t.open();
  auto r = p->submit(ctx_a(), gpu_job("victim", 1, 600));
  ASSERT_TRUE(r);
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(100)));
  auto pre = p->preempt_job(ctx_a(), r->record.job.id, "maintenance");
  ASSERT_TRUE(pre) << pre.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  auto got = p->get_job(ctx_a(), r->record.job.id)->job;
  EXPECT_EQ(got.status, JobStatus::Completed);
  auto seq = statuses_of(got);
  EXPECT_NE(std::find(seq.begin(), seq.end(), JobStatus::Preempted), seq.end());
  EXPECT_EQ(p->preempt_job(ctx_a(), r->record.job.id).error().code, core::ErrorCode::Conflict);
}

TEST(PlatformLifecycleTest, ATimeWindowHoldsAdmissionUntilItOpens) {
  PlatformTarget t;
  auto p = t.open();  // the virtual clock starts at 2026-01-01T00:00:00Z
  auto j = gpu_job("nightly", 4, 3600, "nvidia-h100-sxm");
  j.job_type = job::JobType::Training;
  j.time_window = core::TimeWindow{core::TimeOfDay::parse("02:00").value(), core::TimeOfDay::parse("06:00").value()};
  auto r = p->submit(ctx_a(), j);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_TRUE(p->run_until_idle());
  auto got = p->get_job(ctx_a(), r->record.job.id)->job;
  EXPECT_EQ(got.status, JobStatus::Completed);
  EXPECT_EQ(got.actual_start->to_string(), "2026-01-01T02:00:00Z");
  EXPECT_NE(got.outputs.find("node")->as_string().find("h100"), std::string::npos);
}

TEST(PlatformLifecycleTest, CancelFreesQuotaForTheNextJob) {
  PlatformTarget t;
  auto p = t.open();
  auto a = p->submit(ctx_a(), gpu_job("hog", 8, 100000));
  auto b = p->submit(ctx_a(), gpu_job("waiter", 8, 60));
  auto c = p->submit(ctx_a(), gpu_job("queued-then-cancelled", 8, 60));
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(30)));
  EXPECT_EQ(p->get_job(ctx_a(), b->record.job.id)->job.status, JobStatus::Queued);
  auto cq = p->cancel_job(ctx_a(), c->record.job.id, "not needed");
  ASSERT_TRUE(cq) << cq.error().describe();
  EXPECT_EQ(cq->job.status, JobStatus::Cancelled);
  auto ca = p->cancel_job(ctx_a(), a->record.job.id, "too long");
  ASSERT_TRUE(ca);
  EXPECT_NE(ca->job.status_message->find("user:alice"), std::string::npos);
  const core::Timestamp cancelled_at = p->now();
  ASSERT_TRUE(p->run_until_idle());
  auto got = p->get_job(ctx_a(), b->record.job.id)->job;
  EXPECT_EQ(got.status, JobStatus::Completed);
  EXPECT_EQ(*got.actual_start, cancelled_at);
  EXPECT_TRUE(p->check_invariants());
}

TEST(PlatformLifecycleTest, PriorityChangesReorderTheQueue) {
  PlatformTarget t;
  auto p = t.open();
  auto hog = p->submit(ctx_a(), gpu_job("hog", 8, 1000));
  auto first = p->submit(ctx_a(), gpu_job("first-in-line", 8, 100));
  auto second = p->submit(ctx_a(), gpu_job("second-in-line", 8, 100));
  ASSERT_TRUE(hog && first && second);
  auto bumped = p->set_priority(ctx_a(), second->record.job.id, job::JobPriority::High);
  ASSERT_TRUE(bumped) << bumped.error().describe();
  EXPECT_EQ(bumped->job.priority, job::JobPriority::High);
  ASSERT_TRUE(p->run_until_idle());
  auto f = p->get_job(ctx_a(), first->record.job.id)->job;
  auto s = p->get_job(ctx_a(), second->record.job.id)->job;
  EXPECT_LT(*s.actual_start, *f.actual_start);
  // Admission wrote the document as changed, not the one the platform kept from the submission.
  EXPECT_EQ(s.priority, job::JobPriority::High);
  EXPECT_EQ(s.status, JobStatus::Completed);
  EXPECT_EQ(p->set_priority(ctx_a(), s.id, job::JobPriority::Low).error().code, core::ErrorCode::Conflict);
}

TEST(PlatformLifecycleTest, MigAndTimeSlicedJobsLandOnTheirDevices) {
  PlatformTarget t;
  auto p = t.open();
  auto mig = gpu_job("mig", 2, 100, "nvidia-mig-1g.10gb");
  auto t4 = gpu_job("t4", 1, 100, "nvidia-t4");
  auto mr = p->submit(ctx_a(), mig);
  auto tr = p->submit(ctx_a(), t4);
  ASSERT_TRUE(mr && tr) << (mr ? tr.error().describe() : mr.error().describe());
  ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(1)));
  auto snap = p->cluster();
  int seen = 0;
  for (const auto& w : snap.workloads) {
    ASSERT_TRUE(w.placement);
    if (w.job_id == mr->record.job.id) {
      ++seen;
      ASSERT_EQ(w.placement->devices.size(), 2u);
      EXPECT_NE(w.placement->devices[0].find("/mig"), std::string::npos);
    } else {
      ++seen;
      ASSERT_EQ(w.placement->devices.size(), 1u);
      EXPECT_NE(w.placement->devices[0].find("/slice"), std::string::npos);
    }
  }
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(snap.usage["batch-jobs"]["a100-mig-1g10gb"]["nvidia.com/mig-1g.10gb"].used, 2000);
}

struct DenyAbove : platform::AdmissionGate {
  std::string_view name() const noexcept override { return "max-gpus"; }
  core::Status admit(const platform::CallContext&, const job::Job& j, platform::GateStage) override {
    if (j.gpu_count > 4) return core::Error::make(core::ErrorCode::QuotaExceeded, "at most 4 GPUs per job", "gpu_count");
    return {};
  }
};

struct Recorder : platform::UsageObserver {
  std::vector<backend::UsageInterval> seen;
  void on_usage(const core::Id&, const core::Id&, std::int64_t, const backend::UsageInterval& u) override { seen.push_back(u); }
};

TEST(PlatformLifecycleTest, GatesDenyBeforeAnythingIsStoredAndObserversSeeUsage) {
  PlatformTarget t;
  auto p = t.open();
  p->add_admission_gate(std::make_shared<DenyAbove>());
  auto rec = std::make_shared<Recorder>();
  p->add_usage_observer(rec);
  auto denied = p->submit(ctx_a(), gpu_job("big", 8));
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, core::ErrorCode::QuotaExceeded);
  EXPECT_NE(denied.error().message.find("max-gpus"), std::string::npos);
  EXPECT_TRUE(p->list_jobs(ctx_a(), {})->items.empty());
  ASSERT_TRUE(p->submit(ctx_a(), gpu_job("small", 2, 120)));
  ASSERT_TRUE(p->run_until_idle());
  ASSERT_EQ(rec->seen.size(), 1u);
  EXPECT_EQ(rec->seen[0].gpu_count, 2);
  EXPECT_EQ(rec->seen[0].end - rec->seen[0].start, core::Duration::seconds(120));
  EXPECT_EQ(rec->seen[0].gpu_type, "nvidia-a100-80gb");
  EXPECT_EQ(rec->seen[0].cluster_queue, "batch-jobs");
}

TEST(PlatformLifecycleTest, AReopenedPlatformCarriesOnWhereItStopped) {
  PlatformTarget t;
  core::Id running, queued;
  core::Timestamp stopped;
  {
    auto p = t.open();
    auto a = p->submit(ctx_a(), gpu_job("long", 8, 1000));
    auto b = p->submit(ctx_a(), gpu_job("next", 8, 100));
    ASSERT_TRUE(a && b);
    running = a->record.job.id;
    queued = b->record.job.id;
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(400)));
    stopped = p->now();
  }
  auto p = t.open();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->now(), stopped);  // the virtual clock resumes
  EXPECT_TRUE(p->check_invariants()) << p->check_invariants().error().describe();
  EXPECT_EQ(p->get_job(ctx_a(), running)->job.status, JobStatus::Running);
  ASSERT_TRUE(p->run_until_idle());
  auto a = p->get_job(ctx_a(), running)->job;
  auto b = p->get_job(ctx_a(), queued)->job;
  EXPECT_EQ(a.status, JobStatus::Completed);
  EXPECT_EQ(*a.actual_end - *a.actual_start, core::Duration::seconds(1000));
  EXPECT_EQ(*b.actual_start, *a.actual_end);
}

}  // namespace
}  // namespace budcore::testing
