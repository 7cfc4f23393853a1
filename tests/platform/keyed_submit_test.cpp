// Batches of jobs under idempotency keys, on SQLite and PostgreSQL: the keys of a batch are read
// together, existing ones are replayed as a single submit replays them, and a job created under
// a key by another writer while the batch was on its way is returned, not duplicated.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "platform/platform_fixture.hpp"

namespace budcore::testing {
namespace {

using platform::SubmitRequest;

class KeyedSubmit : public ::testing::TestWithParam<std::string> {
 protected:
  KeyedSubmit() : t_(GetParam()) {}
  PlatformTarget t_;
};

std::string key_of(int i) { return "batch-key/" + std::to_string(i); }

TEST_P(KeyedSubmit, ABatchReplaysTheKeysThatExistAndCreatesTheRest) {
  BUDCORE_SKIP_UNLESS_READY(t_);
  auto p = t_.open();
  ASSERT_TRUE(p);
  auto first = p->submit_batch(ctx_a(), {{gpu_job("j1", 1, 60), key_of(1)}, {gpu_job("j3", 1, 60), key_of(3)}});
  ASSERT_TRUE(first) << first.error().describe();
  // Keys 1 and 3 exist; 0, 2 and 4 are new; one job has no key.
  std::vector<SubmitRequest> batch;
  for (int i = 0; i < 5; ++i) batch.push_back({gpu_job("j" + std::to_string(i), 1, 60), key_of(i)});
  batch.push_back({gpu_job("unkeyed", 1, 60), ""});
  auto mixed = p->submit_batch(ctx_a(), batch);
  ASSERT_TRUE(mixed) << mixed.error().describe();
  ASSERT_EQ(mixed->size(), 6u);
  EXPECT_FALSE((*mixed)[1].created);
  EXPECT_EQ((*mixed)[1].record.job.id, (*first)[0].record.job.id);
  EXPECT_FALSE((*mixed)[3].created);
  EXPECT_EQ((*mixed)[3].record.job.id, (*first)[1].record.job.id);
  for (int i : {0, 2, 4, 5}) {
    EXPECT_TRUE((*mixed)[i].created) << i;
    EXPECT_EQ((*mixed)[i].record.job.status, job::JobStatus::Queued) << i;
  }
  EXPECT_EQ((*mixed)[4].record.idempotency_key, key_of(4));
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 6u);
  // The same batch again creates only its unkeyed job.
  auto again = p->submit_batch(ctx_a(), batch);
  ASSERT_TRUE(again) << again.error().describe();
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE((*again)[i].created) << i;
    EXPECT_EQ((*again)[i].record.job.id, (*mixed)[i].record.job.id) << i;
  }
  EXPECT_TRUE((*again)[5].created);
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 7u);
  // A single submit under a key of the batch replays too.
  auto one = p->submit(ctx_a(), gpu_job("j2", 1, 60), key_of(2));
  ASSERT_TRUE(one) << one.error().describe();
  EXPECT_FALSE(one->created);
  EXPECT_EQ(one->record.job.id, (*mixed)[2].record.job.id);
  EXPECT_TRUE(p->check_invariants()) << p->check_invariants().error().describe();
}

TEST_P(KeyedSubmit, AKeyReusedWithAnotherDocumentInsideABatchRefusesTheWholeBatchByIndex) {
  BUDCORE_SKIP_UNLESS_READY(t_);
  auto p = t_.open();
  ASSERT_TRUE(p);
  auto first = p->submit(ctx_a(), gpu_job("j1", 1, 60), key_of(1));
  ASSERT_TRUE(first) << first.error().describe();
  // Jobs 0 and 2 are new; job 1 sends key 1 with two GPUs instead of one.
  std::vector<SubmitRequest> batch{{gpu_job("j0", 1, 60), key_of(0)},
                                   {gpu_job("j1", 2, 60), key_of(1)},
                                   {gpu_job("j2", 1, 60), key_of(2)},
                                   {gpu_job("unkeyed", 1, 60), ""}};
  auto r = p->submit_batch(ctx_a(), batch);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(r.error().field, "jobs[1].idempotency_key");
  EXPECT_NE(r.error().message.find(first->record.job.id.to_string()), std::string::npos) << r.error().message;
  // Nothing of the batch was applied: the new keys are still free.
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 1u);
  auto free = p->submit(ctx_a(), gpu_job("j0", 1, 60), key_of(0));
  ASSERT_TRUE(free) << free.error().describe();
  EXPECT_TRUE(free->created);
  // A key no job can have is named by its index too.
  std::vector<SubmitRequest> overlong{{gpu_job("j5", 1, 60), key_of(5)}, {gpu_job("j6", 1, 60), std::string(300, 'k')}};
  auto bad = p->submit_batch(ctx_a(), overlong);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(bad.error().field, "jobs[1].idempotency_key");
  EXPECT_EQ(p->list_jobs(ctx_a(), {})->items.size(), 2u);
}

// A thousand keys, new and then replayed: the keys are read together (one statement on
// PostgreSQL) and the new jobs' inserts are sent together, as for jobs without keys.
TEST_P(KeyedSubmit, AThousandKeyedJobsAreCreatedAndThenReplayedWhole) {
  BUDCORE_SKIP_UNLESS_READY(t_);
  t_.config.security.rbac = false;
  auto p = t_.open();
  ASSERT_TRUE(p);
  std::vector<SubmitRequest> batch;
  for (int i = 0; i < 1000; ++i) batch.push_back({gpu_job("j" + std::to_string(i), 0, 60), key_of(i)});
  auto made = p->submit_batch(ctx_a(), batch);
  ASSERT_TRUE(made) << made.error().describe();
  auto again = p->submit_batch(ctx_a(), batch);
  ASSERT_TRUE(again) << again.error().describe();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE((*made)[i].created) << i;
    ASSERT_FALSE((*again)[i].created) << i;
    ASSERT_EQ((*again)[i].record.job.id, (*made)[i].record.job.id) << i;
  }
}

// Another writer holds the batch's keys in an open transaction while the batch reads them (and
// finds none), then commits: the batch returns that writer's jobs as replays and creates the rest.
TEST_P(KeyedSubmit, KeysAnotherWriterCommitsWhileTheBatchIsOnItsWayAreReplayed) {
  BUDCORE_SKIP_UNLESS_READY(t_);
  auto p = t_.open();
  ASSERT_TRUE(p);
  auto other = backend::open_store(t_.config.store_uri);
  ASSERT_TRUE(other) << other.error().describe();
  constexpr int kJobs = 40;
  std::vector<SubmitRequest> batch;
  for (int i = 0; i < kJobs; ++i) batch.push_back({gpu_job("j" + std::to_string(i), 1, 60), key_of(i)});
  std::mutex mu;
  std::condition_variable cv;
  bool held = false, go = false;
  std::map<std::string, core::Id> theirs;
  core::Status their_st;
  std::thread writer([&] {
    their_st = (*other)->transact([&](backend::Store& tx) -> core::Status {
      for (int i = 0; i < kJobs; i += 2) {  // every other key
        const job::Job& sent = batch[i].job;
        BUDCORE_TRY_ASSIGN(auto r, tx.create_job(tenant_a(), sent, key_of(i), backend::job_request_digest(sent, tenant_a())));
        theirs[key_of(i)] = r.record.job.id;
      }
      std::unique_lock lock(mu);
      held = true;
      cv.notify_all();
      cv.wait(lock, [&] { return go; });
      return {};
    });
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return held; });
  }
  core::Result<std::vector<platform::SubmitResult>> mine = std::vector<platform::SubmitResult>{};
  std::thread submitter([&] { mine = p->submit_batch(ctx_a(), batch); });
  // Long enough for the batch to read its keys and wait on the writer's rows or lock.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  {
    std::lock_guard lock(mu);
    go = true;
  }
  cv.notify_all();
  writer.join();
  submitter.join();
  ASSERT_TRUE(their_st) << their_st.error().describe();
  ASSERT_TRUE(mine) << mine.error().describe();
  ASSERT_EQ(mine->size(), static_cast<std::size_t>(kJobs));
  for (int i = 0; i < kJobs; ++i) {
    const auto& r = (*mine)[i];
    if (i % 2 == 0) {
      EXPECT_FALSE(r.created) << i;
      EXPECT_EQ(r.record.job.id, theirs[key_of(i)]) << i;
    } else {
      EXPECT_TRUE(r.created) << i;
    }
    EXPECT_EQ(r.record.idempotency_key, key_of(i));
  }
  // One job per key.
  std::vector<std::string> keys;
  for (int i = 0; i < kJobs; ++i) keys.push_back(key_of(i));
  auto stored = (*other)->get_jobs_by_keys(tenant_a(), keys);
  ASSERT_TRUE(stored) << stored.error().describe();
  for (int i = 0; i < kJobs; ++i) {
    ASSERT_TRUE((*stored)[i]) << i;
    EXPECT_EQ((*stored)[i]->job.id, (*mine)[i].record.job.id) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, KeyedSubmit, ::testing::Values("sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::testing
