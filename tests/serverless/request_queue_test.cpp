#include "budcore/serverless/request_queue.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace budcore::serverless {
namespace {

using core::Duration;

class RequestQueueTest : public ::testing::Test {
 protected:
  EndpointConfig config(const std::string& extra = {}) {
    auto c = EndpointConfig::from_text("name: e\nmodel: m\n" + extra);
    EXPECT_TRUE(c) << c.error().describe();
    return *c;
  }
  static Submission sub(std::string tenant, Priority p = Priority::Standard, std::string hash = {},
                        Duration compute = Duration::seconds(1)) {
    Submission s;
    s.tenant = std::move(tenant);
    s.priority = p;
    s.payload_hash = std::move(hash);
    s.payload_size_bytes = 10;
    s.estimated_compute = compute;
    return s;
  }
  std::shared_ptr<core::VirtualClock> clock = std::make_shared<core::VirtualClock>();
};

TEST_F(RequestQueueTest, OrdersByTheDesignsScore) {
  RequestQueue q(config(), clock);
  const RequestId batch = q.enqueue(sub("a", Priority::Batch)).id;
  const RequestId premium = q.enqueue(sub("a", Priority::Premium)).id;
  const RequestId standard = q.enqueue(sub("a", Priority::Standard)).id;
  // weight 4 x 1000 + fairness (1 - 2 other active / limit 1000) x 100 + 0 s waited x 10
  EXPECT_DOUBLE_EQ(q.score(premium), 4000 + 100 * (1 - 2 / 1000.0));
  EXPECT_EQ(q.peek(), premium);
  ASSERT_TRUE(q.assign(premium, 1));
  EXPECT_EQ(q.peek(), standard);
  ASSERT_TRUE(q.assign(standard, 1));
  EXPECT_EQ(q.peek(), batch);
  clock->advance(Duration::seconds(10));
  EXPECT_DOUBLE_EQ(q.score(batch), 1000 + 100 * (1 - 2 / 1000.0) + 10 * 10);
}

TEST_F(RequestQueueTest, WaitingLongEnoughOvertakesAHigherClass) {
  RequestQueue q(config(), clock);
  const RequestId batch = q.enqueue(sub("a", Priority::Batch)).id;
  clock->advance(Duration::seconds(250));  // 2,500 points of waiting against a 2,000-point class gap
  const RequestId standard = q.enqueue(sub("a", Priority::Standard)).id;
  EXPECT_GT(q.score(batch), q.score(standard));
  EXPECT_EQ(q.peek(), batch);
}

TEST_F(RequestQueueTest, AFloodFromOneTenantDoesNotStarveAnother) {
  RequestQueue q(config("tenants: {default_concurrency: 100}\n"), clock);
  q.set_capacity({100, Duration()});
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(q.enqueue(sub("flood")).ok());
  const RequestId calm = q.enqueue(sub("calm")).id;
  // flood: 3000 + (1 - 49/100) x 100 = 3051; calm: 3000 + 100.
  EXPECT_EQ(q.peek(), calm);
  ASSERT_TRUE(q.assign(calm, 1));
  EXPECT_EQ(q.get(*q.peek())->tenant, "flood");
}

TEST_F(RequestQueueTest, DeduplicatesByPayloadHashWithinTheWindow) {
  RequestQueue q(config("queue: {dedup_window_seconds: 60}\n"), clock);
  const EnqueueResult first = q.enqueue(sub("a", Priority::Standard, "h1"));
  clock->advance(Duration::seconds(59));
  const EnqueueResult again = q.enqueue(sub("a", Priority::Standard, "h1"));
  EXPECT_TRUE(again.deduplicated);
  EXPECT_EQ(again.id, first.id);
  EXPECT_EQ(q.depth(), 1);
  clock->advance(Duration::seconds(1));
  const EnqueueResult later = q.enqueue(sub("a", Priority::Standard, "h1"));
  EXPECT_FALSE(later.deduplicated);
  EXPECT_NE(later.id, first.id);
  EXPECT_EQ(q.depth(), 2);
}

TEST_F(RequestQueueTest, RefusesAPayloadOverTheLimit) {
  RequestQueue q(config("queue: {max_payload_bytes: 100}\n"), clock);
  Submission s = sub("a");
  s.payload_size_bytes = 101;
  const EnqueueResult r = q.enqueue(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(*r.refusal, Refusal::PayloadTooLarge);
  EXPECT_EQ(r.error.field, "payload_size_bytes");
  EXPECT_EQ(r.error.value, "101");
  EXPECT_EQ(q.depth(), 0);
}

TEST_F(RequestQueueTest, RefusesWhenTheQueueIsFull) {
  RequestQueue q(config("queue: {max_queue_size: 2}\n"), clock);
  ASSERT_TRUE(q.enqueue(sub("a")).ok());
  ASSERT_TRUE(q.enqueue(sub("b")).ok());
  const EnqueueResult r = q.enqueue(sub("c"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(*r.refusal, Refusal::QueueFull);
  EXPECT_EQ(r.error.code, core::ErrorCode::QuotaExceeded);
  EXPECT_EQ(r.error.field, "queue.max_queue_size");
  EXPECT_EQ(to_string(*r.refusal), "queue_full");
}

TEST_F(RequestQueueTest, RefusesATenantOverItsConcurrency) {
  RequestQueue q(config("tenants: {concurrency: {acme: 1}}\n"), clock);
  const RequestId id = q.enqueue(sub("acme")).id;
  ASSERT_TRUE(q.assign(id, 1));  // in flight still counts
  const EnqueueResult r = q.enqueue(sub("acme"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(*r.refusal, Refusal::TenantConcurrency);
  EXPECT_EQ(r.error.field, "tenants.concurrency.acme");
  EXPECT_EQ(r.error.value, "1");
  EXPECT_TRUE(q.enqueue(sub("other")).ok());
  ASSERT_TRUE(q.complete(id));
  EXPECT_TRUE(q.enqueue(sub("acme")).ok());
}

TEST_F(RequestQueueTest, RefusesAnEstimatedWaitOverTheSla) {
  RequestQueue q(config("sla: {max_wait_seconds: 30}\n"), clock);
  q.set_capacity({2, Duration()});
  // 20 s of work each over 2 slots: waits of 0, 10, 20, 30 s are admitted; 40 s is not.
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(q.enqueue(sub("a", Priority::Standard, {}, Duration::seconds(20))).ok()) << i;
  const EnqueueResult r = q.enqueue(sub("a", Priority::Standard, {}, Duration::seconds(20)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(*r.refusal, Refusal::EstimatedWaitOverSla);
  EXPECT_EQ(r.error.field, "sla.max_wait_seconds");
  EXPECT_EQ(r.error.value, "40.0");
  // Premium work only queues behind premium work.
  EXPECT_TRUE(q.enqueue(sub("a", Priority::Premium, {}, Duration::seconds(20))).ok());
}

TEST_F(RequestQueueTest, AColdPoolAddsItsStartToTheEstimate) {
  RequestQueue q(config("sla: {max_wait_seconds: 30}\n"), clock);
  q.set_capacity({0, Duration::seconds(31)});
  const EnqueueResult r = q.enqueue(sub("a"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(*r.refusal, Refusal::EstimatedWaitOverSla);
}

TEST_F(RequestQueueTest, RateLimitsATenantWithATokenBucket) {
  RequestQueue q(config("tenants: {rate_per_second: 2, burst: 2}\n"), clock);
  ASSERT_TRUE(q.enqueue(sub("a")).ok());
  ASSERT_TRUE(q.enqueue(sub("a")).ok());
  const EnqueueResult r = q.enqueue(sub("a"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(*r.refusal, Refusal::RateLimited);
  EXPECT_EQ(r.error.code, core::ErrorCode::RateLimited);
  EXPECT_EQ(r.error.retry_after_ms, 500);
  EXPECT_TRUE(q.enqueue(sub("b")).ok());  // buckets are per tenant
  clock->advance(Duration::milliseconds(500));
  EXPECT_TRUE(q.enqueue(sub("a")).ok());
}

TEST_F(RequestQueueTest, APendingRequestTimesOutIntoTheDeadLetters) {
  RequestQueue q(config("sla: {max_wait_seconds: 30}\n"), clock);
  const RequestId id = q.enqueue(sub("a")).id;
  clock->advance(Duration::seconds(29));
  EXPECT_TRUE(q.expire().empty());
  clock->advance(Duration::seconds(1));
  EXPECT_EQ(q.expire(), std::vector<RequestId>{id});
  EXPECT_EQ(q.get(id)->status, QueueStatus::Timeout);
  ASSERT_EQ(q.dead_letters().size(), 1u);
  EXPECT_EQ(q.dead_letters()[0].status, QueueStatus::Timeout);
  EXPECT_EQ(q.depth(), 0);
  EXPECT_EQ(q.tenant_active("a"), 0);
  EXPECT_FALSE(q.peek());
}

TEST_F(RequestQueueTest, RetriesAreBoundedThenDeadLettered) {
  RequestQueue q(config("queue: {max_retries: 1}\n"), clock);
  const RequestId id = q.enqueue(sub("a")).id;
  ASSERT_TRUE(q.assign(id, 7));
  ASSERT_TRUE(q.start(id));
  EXPECT_EQ(*q.fail(id, "worker lost"), QueueStatus::Pending);
  EXPECT_EQ(q.get(id)->attempts, 1);
  EXPECT_EQ(q.peek(), id);
  ASSERT_TRUE(q.assign(id, 8));
  ASSERT_TRUE(q.start(id));
  EXPECT_EQ(*q.fail(id, "worker lost"), QueueStatus::Failed);
  ASSERT_EQ(q.dead_letters().size(), 1u);
  EXPECT_EQ(q.dead_letters()[0].reason, "worker lost (attempt 2 of 2)");
  EXPECT_EQ(q.in_flight(), 0);
}

TEST_F(RequestQueueTest, ProcessingPastMaxProcessIsAFailedAttempt) {
  RequestQueue q(config("sla: {max_process_seconds: 10}\nqueue: {max_retries: 2}\n"), clock);
  const RequestId id = q.enqueue(sub("a")).id;
  ASSERT_TRUE(q.assign(id, 1));
  ASSERT_TRUE(q.start(id));
  clock->advance(Duration::seconds(10));
  EXPECT_EQ(q.expire(), std::vector<RequestId>{id});
  EXPECT_EQ(q.get(id)->status, QueueStatus::Pending);
  EXPECT_EQ(q.get(id)->attempts, 1);
  EXPECT_NE(q.get(id)->last_error.find("max_process_seconds"), std::string::npos);
}

TEST_F(RequestQueueTest, RequeueDoesNotCountAnAttempt) {
  RequestQueue q(config(), clock);
  const RequestId id = q.enqueue(sub("a")).id;
  ASSERT_TRUE(q.assign(id, 1));
  ASSERT_TRUE(q.requeue(id));
  EXPECT_EQ(q.get(id)->status, QueueStatus::Pending);
  EXPECT_EQ(q.get(id)->attempts, 0);
  EXPECT_EQ(q.get(id)->assigned_worker, 0u);
}

TEST_F(RequestQueueTest, IllegalTransitionsAreConflicts) {
  RequestQueue q(config(), clock);
  const RequestId id = q.enqueue(sub("a")).id;
  auto st = q.complete(id);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, core::ErrorCode::Conflict);
  EXPECT_FALSE(q.start(id));
  ASSERT_TRUE(q.assign(id, 1));
  EXPECT_EQ(q.assign(id, 1).error().code, core::ErrorCode::Conflict);
  EXPECT_EQ(q.complete(99).error().code, core::ErrorCode::NotFound);
}

TEST_F(RequestQueueTest, AssigningARequestBehindTheHeadKeepsTheOthers) {
  RequestQueue q(config(), clock);
  const RequestId a = q.enqueue(sub("a")).id;
  const RequestId b = q.enqueue(sub("a")).id;
  const RequestId c = q.enqueue(sub("a")).id;
  ASSERT_TRUE(q.assign(b, 1));
  EXPECT_EQ(q.peek(), a);
  ASSERT_TRUE(q.assign(a, 1));
  EXPECT_EQ(q.peek(), c);
  EXPECT_EQ(q.depth(), 1);
}

}  // namespace
}  // namespace budcore::serverless
