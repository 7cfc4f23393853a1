#include "budcore/serverless/worker_pool.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace budcore::serverless {
namespace {

using core::Duration;

// Cold starts take 22 s (4 s container + 16 GiB at 1 GiB/s + 2 s warm-up); $3.60 per GPU-hour
// is $0.001 per GPU-second.
constexpr const char* kEndpoint =
    "name: e\nmodel: m\nprice_per_gpu_hour: \"3.60\"\n"
    "cold_start: {container_seconds: 4, model_gib: 16, load_gib_per_second: 1, warmup_seconds: 2}\n";

class WorkerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override { make(""); }
  void make(const std::string& extra) {
    auto c = EndpointConfig::from_text(std::string(kEndpoint) + extra);
    ASSERT_TRUE(c) << c.error().describe();
    queue = std::make_unique<RequestQueue>(*c, clock);
    pool = std::make_unique<WorkerPool>(*c, clock);
    dispatcher = std::make_unique<Dispatcher>(*queue, *pool);
    queue->set_capacity({1000, Duration()});
  }
  RequestId submit(Priority p = Priority::Standard) {
    Submission s;
    s.tenant = "t";
    s.priority = p;
    s.estimated_compute = Duration::seconds(1);
    EnqueueResult r = queue->enqueue(s);
    EXPECT_TRUE(r.ok()) << r.error.describe();
    return r.id;
  }
  void warm_up(int n) {
    pool->scale_to(n);
    clock->advance(Duration::seconds(22));
    pool->advance();
  }
  std::shared_ptr<core::VirtualClock> clock = std::make_shared<core::VirtualClock>();
  std::unique_ptr<RequestQueue> queue;
  std::unique_ptr<WorkerPool> pool;
  std::unique_ptr<Dispatcher> dispatcher;
};

TEST_F(WorkerPoolTest, AWarmWorkerIsUsedFirst) {
  warm_up(1);
  const RequestId id = submit();
  const auto a = dispatcher->dispatch();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].request, id);
  EXPECT_EQ(a[0].placement, Placement::Warm);
  EXPECT_EQ(queue->get(id)->status, QueueStatus::Processing);
  EXPECT_EQ(pool->meter().cold_starts, 1);
}

TEST_F(WorkerPoolTest, WithoutAWarmWorkerOneColdStartServesUpToItsConcurrency) {
  for (int i = 0; i < 4; ++i) submit();
  EXPECT_TRUE(dispatcher->dispatch().empty());
  EXPECT_EQ(pool->starting(), 1);  // 4 requests fit one worker's 4 slots
  submit();
  EXPECT_TRUE(dispatcher->dispatch().empty());
  EXPECT_EQ(pool->starting(), 2);
  clock->advance(Duration::seconds(21));
  EXPECT_TRUE(pool->advance().empty());
  clock->advance(Duration::seconds(1));
  EXPECT_EQ(pool->advance().size(), 2u);
  EXPECT_EQ(dispatcher->dispatch().size(), 5u);
  EXPECT_EQ(pool->meter().cold_starts, 2);
}

TEST_F(WorkerPoolTest, AtMaxWorkersAHigherClassPreemptsTheLowest) {
  make("concurrency_per_worker: 1\nwarm_pool: {max_warm_workers: 2}\n");
  warm_up(2);
  const RequestId spot = submit(Priority::Spot);
  const RequestId batch = submit(Priority::Batch);
  ASSERT_EQ(dispatcher->dispatch().size(), 2u);
  const RequestId premium = submit(Priority::Premium);
  const auto a = dispatcher->dispatch();
  ASSERT_GE(a.size(), 1u);
  EXPECT_EQ(a[0].request, premium);
  EXPECT_EQ(a[0].placement, Placement::Preempted);
  EXPECT_EQ(a[0].preempted, batch);  // the lowest class loses its slot
  EXPECT_EQ(queue->get(batch)->status, QueueStatus::Pending);
  EXPECT_EQ(queue->get(batch)->attempts, 0);
  EXPECT_EQ(queue->get(spot)->status, QueueStatus::Processing);
  EXPECT_EQ(a.size(), 1u);  // batch cannot preempt spot: it waits
}

TEST_F(WorkerPoolTest, AtMaxWorkersAnEqualClassWaits) {
  make("concurrency_per_worker: 1\nwarm_pool: {max_warm_workers: 1}\nsla: {max_wait_seconds: 30}\n");
  warm_up(1);
  submit();
  ASSERT_EQ(dispatcher->dispatch().size(), 1u);
  const RequestId second = submit();
  EXPECT_TRUE(dispatcher->dispatch().empty());
  EXPECT_EQ(queue->get(second)->status, QueueStatus::Pending);
  clock->advance(Duration::seconds(30));
  queue->expire();
  EXPECT_EQ(queue->get(second)->status, QueueStatus::Timeout);
}

TEST_F(WorkerPoolTest, MetersStartingIdleAndBusyTimeAndBillsWholeSeconds) {
  warm_up(1);  // 22 s starting
  clock->advance(Duration::seconds(8));  // 8 s idle
  const RequestId id = submit();
  const auto a = dispatcher->dispatch();
  ASSERT_EQ(a.size(), 1u);
  clock->advance(Duration::seconds(10));  // 10 s busy
  ASSERT_TRUE(queue->complete(id));
  pool->release(a[0].worker, id);
  clock->advance(Duration::milliseconds(4500));  // 4.5 s idle
  const Metering m = pool->meter();
  EXPECT_DOUBLE_EQ(m.starting_gpu_seconds, 22.0);
  EXPECT_DOUBLE_EQ(m.idle_gpu_seconds, 12.5);
  EXPECT_DOUBLE_EQ(m.busy_gpu_seconds, 10.0);
  EXPECT_EQ(m.billed_gpu_seconds, 45);  // 44.5 s rounded up
  EXPECT_EQ(m.cost.to_string(), "0.045 USD");
}

TEST_F(WorkerPoolTest, AColdStartPastTheWarmupTimeoutFails) {
  make("warm_pool: {warmup_timeout_seconds: 10}\n");
  pool->scale_to(1);
  clock->advance(Duration::seconds(10));
  EXPECT_TRUE(pool->advance().empty());
  EXPECT_EQ(pool->size(), 0);
  const Metering m = pool->meter();
  EXPECT_EQ(m.failed_starts, 1);
  EXPECT_DOUBLE_EQ(m.starting_gpu_seconds, 10.0);
}

TEST_F(WorkerPoolTest, ScalingDownRemovesTheLongestIdleAndKeepsBusyWorkers) {
  make("warm_pool: {max_warm_workers: 3}\n");
  warm_up(3);
  const RequestId id = submit();
  const auto a = dispatcher->dispatch();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(pool->scale_to(0), 1);  // the busy one stays
  EXPECT_EQ(pool->busy(), 1);
  ASSERT_TRUE(queue->complete(id));
  pool->release(a[0].worker, id);
  EXPECT_EQ(pool->scale_to(0), 0);
}

TEST_F(WorkerPoolTest, ScalingStaysWithinTheWarmPoolBounds) {
  make("warm_pool: {min_warm_workers: 1, max_warm_workers: 2}\n");
  EXPECT_EQ(pool->scale_to(5), 2);
  clock->advance(Duration::seconds(22));
  pool->advance();
  EXPECT_EQ(pool->scale_to(0), 1);
}

}  // namespace
}  // namespace budcore::serverless
