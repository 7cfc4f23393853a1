// The durable serverless request queue on every store (SQLite in memory, on a file, PostgreSQL):
// ordering by score, deduplication, leases returning to PENDING, bounded retries and dead
// letters, timeouts, claim tokens that fence stale workers, batch atomicity on bad input, and
// DurableQueue's typed refusals in front of it.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/store_fixture.hpp"
#include "budcore/backend/queue_backend.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/serverless/durable_queue.hpp"

namespace budcore::backend {
namespace {

using core::Duration;
using core::ErrorCode;
using core::Id;
using serverless::DurableEnqueue;
using serverless::DurableFinish;
using serverless::DurableOutcome;
using serverless::Priority;
using serverless::QueueStatus;

class StoreQueue : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    target_ = testing::make_target(GetParam());
    if (!target_.skip.empty()) GTEST_SKIP() << target_.skip;
    ASSERT_TRUE(target_.error.empty()) << target_.error;
    clock_ = std::make_shared<core::VirtualClock>();
    StoreOptions o;
    o.clock = clock_;
    auto s = open_store(target_.uri, o);
    ASSERT_TRUE(s) << s.error().describe();
    store_ = std::shared_ptr<Store>(std::move(*s));
  }

  DurableEnqueue req(double score, std::string hash = {}, int retries = 1) {
    DurableEnqueue r;
    r.endpoint = "chat";
    r.tenant = "acme";
    r.payload_hash = std::move(hash);
    r.score = score;
    r.estimated_compute = Duration::seconds(1);
    r.max_wait = Duration::seconds(60);
    r.max_process = Duration::seconds(600);
    r.max_retries = retries;
    r.dedup_window = Duration::seconds(30);
    return r;
  }

  std::vector<std::int64_t> enqueue(std::vector<DurableEnqueue> rs) {
    auto out = store_->enqueue_serverless_requests(tenant_, rs);
    EXPECT_TRUE(out) << out.error().describe();
    std::vector<std::int64_t> ids;
    if (out) for (auto& e : *out) ids.push_back(e.id);
    return ids;
  }

  std::vector<serverless::DurableRequest> claim(std::int64_t n, Duration lease = Duration::seconds(10),
                                                const std::string& worker = "w1") {
    auto c = store_->claim_serverless_requests(tenant_, "chat", worker, n, lease);
    EXPECT_TRUE(c) << c.error().describe();
    return c ? *c : std::vector<serverless::DurableRequest>{};
  }

  serverless::DurableFinished report(std::int64_t id, std::int64_t token, DurableOutcome o, std::string why = {}) {
    DurableFinish f{id, token, o, std::move(why), Duration::seconds(10)};
    auto r = store_->finish_serverless_requests(tenant_, std::span<const DurableFinish>(&f, 1));
    EXPECT_TRUE(r) << r.error().describe();
    return r ? r->front() : serverless::DurableFinished{};
  }

  serverless::DurableCounts counts() {
    auto c = store_->count_serverless_requests(tenant_, "chat");
    EXPECT_TRUE(c) << c.error().describe();
    return c ? *c : serverless::DurableCounts{};
  }

  testing::BackendTarget target_;
  std::shared_ptr<core::VirtualClock> clock_;
  std::shared_ptr<Store> store_;
  const Id tenant_ = Id::generate();
};

TEST_P(StoreQueue, ClaimsByScoreThenAge) {
  auto ids = enqueue({req(1), req(5), req(3), req(5)});
  ASSERT_EQ(ids.size(), 4u);
  auto c = claim(3);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].id, ids[1]);
  EXPECT_EQ(c[1].id, ids[3]);
  EXPECT_EQ(c[2].id, ids[2]);
  for (auto& r : c) {
    EXPECT_EQ(r.status, QueueStatus::Assigned);
    EXPECT_EQ(r.claim, 1);
    EXPECT_EQ(r.worker, "w1");
  }
  EXPECT_EQ(claim(5).size(), 1u);
  EXPECT_TRUE(claim(5).empty());
}

TEST_P(StoreQueue, DeduplicatesWithinTheWindow) {
  auto a = enqueue({req(1, "h1"), req(1, "h1"), req(1, "h2")});
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0], a[1]);
  EXPECT_NE(a[0], a[2]);
  clock_->advance(Duration::seconds(31));
  auto b = enqueue({req(1, "h1")});
  EXPECT_NE(b[0], a[0]);
  EXPECT_EQ(counts().pending, 3);
}

TEST_P(StoreQueue, CompletionIsRecordedOnceAndOnlyForTheCurrentClaim) {
  auto ids = enqueue({req(1)});
  auto c = claim(1, Duration::seconds(5), "w1");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(report(ids[0], c[0].claim, DurableOutcome::Start).ok);
  // The lease (renewed for 10 s by the start) ends: the request goes back to PENDING with an
  // attempt counted, and w2 takes it.
  clock_->advance(Duration::seconds(11));
  auto c2 = claim(1, Duration::seconds(5), "w2");
  ASSERT_EQ(c2.size(), 1u);
  EXPECT_EQ(c2[0].attempts, 1);
  EXPECT_EQ(c2[0].claim, 2);
  // w1's late completion does not count; w2's does, once.
  auto stale = report(ids[0], c[0].claim, DurableOutcome::Complete);
  EXPECT_FALSE(stale.ok);
  EXPECT_EQ(stale.status, QueueStatus::Assigned);
  auto done = report(ids[0], c2[0].claim, DurableOutcome::Complete);
  EXPECT_TRUE(done.ok);
  EXPECT_EQ(done.status, QueueStatus::Completed);
  auto again = report(ids[0], c2[0].claim, DurableOutcome::Complete);
  EXPECT_FALSE(again.ok);
  EXPECT_EQ(again.status, QueueStatus::Completed);
  // A terminal request never returns, whatever the clock does.
  clock_->advance(Duration::seconds(600));
  EXPECT_TRUE(claim(5).empty());
  EXPECT_EQ(counts().completed, 1);
}

TEST_P(StoreQueue, FailuresRetryThenDeadLetter) {
  auto ids = enqueue({req(1, {}, /*retries=*/1)});
  auto c = claim(1);
  auto f1 = report(ids[0], c[0].claim, DurableOutcome::Fail, "oom");
  EXPECT_TRUE(f1.ok);
  EXPECT_EQ(f1.status, QueueStatus::Pending);
  c = claim(1);
  ASSERT_EQ(c.size(), 1u);
  auto f2 = report(ids[0], c[0].claim, DurableOutcome::Fail, "oom again");
  EXPECT_EQ(f2.status, QueueStatus::Failed);
  QueueStatus dead[] = {QueueStatus::Failed, QueueStatus::Timeout};
  auto dl = store_->list_serverless_requests(tenant_, "chat", dead, 0, 100);
  ASSERT_TRUE(dl);
  ASSERT_EQ(dl->size(), 1u);
  EXPECT_EQ((*dl)[0].attempts, 2);
  EXPECT_EQ((*dl)[0].last_error, "oom again");
}

TEST_P(StoreQueue, ExpiredLeasesPastTheRetriesDeadLetter) {
  auto ids = enqueue({req(1, {}, 0)});
  ASSERT_EQ(claim(1, Duration::seconds(1)).size(), 1u);
  clock_->advance(Duration::seconds(2));
  auto n = store_->expire_serverless_requests(tenant_, "chat");
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 1);
  auto c = counts();
  EXPECT_EQ(c.failed, 1);
  EXPECT_EQ(c.pending + c.in_flight, 0);
}

TEST_P(StoreQueue, PendingPastItsWaitTimesOut) {
  enqueue({req(1)});
  clock_->advance(Duration::seconds(61));
  EXPECT_TRUE(claim(1).empty());
  EXPECT_EQ(counts().timed_out, 1);
}

TEST_P(StoreQueue, ABatchWithBadInputStoresNothing) {
  auto bad = req(1);
  bad.tenant = "";
  std::vector<DurableEnqueue> rs{req(1), bad};
  auto out = store_->enqueue_serverless_requests(tenant_, rs);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::Invalid);
  EXPECT_EQ(out.error().field, "requests[1].tenant");
  auto neg = req(1);
  neg.max_wait = Duration::seconds(-1);
  rs = {neg};
  out = store_->enqueue_serverless_requests(tenant_, rs);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().field, "requests[0].max_wait");
  EXPECT_EQ(counts().pending, 0);
  DurableFinish f{0, 1, DurableOutcome::Complete, {}, {}};
  auto r = store_->finish_serverless_requests(tenant_, std::span<const DurableFinish>(&f, 1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "reports[0].id");
}

TEST_P(StoreQueue, OtherTenantsSeeNothing) {
  auto ids = enqueue({req(1)});
  auto c = store_->claim_serverless_requests(Id::generate(), "chat", "w", 5, Duration::seconds(5));
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->empty());
  DurableFinish f{ids[0], 1, DurableOutcome::Complete, {}, {}};
  auto r = store_->finish_serverless_requests(Id::generate(), std::span<const DurableFinish>(&f, 1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::NotFound);
}

TEST_P(StoreQueue, DurableQueueRefusesWithTypedReasons) {
  serverless::EndpointConfig cfg;
  cfg.name = "chat";
  cfg.model = "m";
  cfg.queue.max_queue_size = 3;
  cfg.queue.max_payload_bytes = 100;
  cfg.tenants.concurrency["small"] = 1;
  StoreQueueBackend backend(store_, tenant_);
  serverless::DurableQueue q(cfg, backend, clock_);
  std::vector<serverless::Submission> subs(5);
  for (auto& s : subs) s.tenant = "acme";
  subs[1].payload_size_bytes = 101;
  subs[2].tenant = "small";
  subs[3].tenant = "small";
  auto out = q.enqueue(subs);
  ASSERT_TRUE(out) << out.error().describe();
  EXPECT_TRUE((*out)[0].ok());
  EXPECT_EQ((*out)[1].refusal, serverless::Refusal::PayloadTooLarge);
  EXPECT_TRUE((*out)[2].ok());
  EXPECT_EQ((*out)[3].refusal, serverless::Refusal::TenantConcurrency);
  EXPECT_EQ((*out)[3].error.field, "tenants.concurrency.small");
  EXPECT_TRUE((*out)[4].ok());
  auto full = q.enqueue(subs[0]);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->refusal, serverless::Refusal::QueueFull);
  // Bad input fails the batch and stores nothing.
  std::vector<serverless::Submission> bad(2);
  bad[0].tenant = "acme";
  auto b = q.enqueue(bad);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().field, "submissions[1].tenant");
  EXPECT_EQ(q.counts()->pending, 3);
  // Premium outranks standard; the live score adds the wait bonus.
  serverless::Submission premium;
  premium.tenant = "other";
  premium.priority = Priority::Premium;
  cfg.queue.max_queue_size = 100;
  serverless::DurableQueue q2(cfg, backend, clock_);
  auto p = q2.enqueue(premium);
  ASSERT_TRUE(p && p->ok());
  auto c = q2.claim("w", 1, Duration::seconds(5));
  ASSERT_TRUE(c);
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ(static_cast<serverless::RequestId>((*c)[0].id), p->id);
  EXPECT_NEAR(q2.live_score((*c)[0]), 4 * 1000 + 100, 1e-6);
}

// Enqueuers on connections of their own, at once, with a queue of 40 and a tenant limit of 25:
// together they store exactly the limits' worth, never more, and every other request is
// refused with its reason.
TEST_P(StoreQueue, EnqueuersAtOnceNeverPassTheLimitsTogether) {
  if (GetParam() == "sqlite_memory") GTEST_SKIP() << "an in-memory database has one connection";
  serverless::EndpointConfig cfg;
  cfg.name = "chat";
  cfg.model = "m";
  cfg.queue.max_queue_size = 40;
  cfg.tenants.concurrency["small"] = 25;
  constexpr int kEnqueuers = 4, kBatches = 5, kBatch = 6;  // 120 offered: 60 per tenant
  std::atomic<int> stored_small{0}, stored_all{0}, unexpected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kEnqueuers; ++t) {
    threads.emplace_back([&] {
      StoreOptions o;
      o.clock = clock_;
      auto s = open_store(target_.uri, o);
      if (!s) {
        ++unexpected;
        return;
      }
      StoreQueueBackend backend(std::shared_ptr<Store>(std::move(*s)), tenant_);
      serverless::DurableQueue q(cfg, backend, clock_);
      for (int b = 0; b < kBatches; ++b) {
        std::vector<serverless::Submission> subs(kBatch);
        for (int i = 0; i < kBatch; ++i) subs[i].tenant = i % 2 == 0 ? "small" : "acme";
        auto out = q.enqueue(subs);
        if (!out) {
          ADD_FAILURE() << out.error().describe();
          ++unexpected;
          continue;
        }
        for (int i = 0; i < kBatch; ++i) {
          const auto& r = (*out)[i];
          if (r.ok()) {
            ++stored_all;
            if (i % 2 == 0) ++stored_small;
          } else if (r.refusal != serverless::Refusal::QueueFull && r.refusal != serverless::Refusal::TenantConcurrency) {
            ++unexpected;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(stored_all.load(), 40);
  EXPECT_LE(stored_small.load(), 25);
  auto c = counts();
  EXPECT_EQ(c.pending, 40);
  EXPECT_LE(c.tenant_active["small"], 25);
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreQueue, ::testing::Values("sqlite_memory", "sqlite_file", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace budcore::backend
