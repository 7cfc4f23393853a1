// A serverless endpoint on a Platform: its warm workers are SERVICE jobs admitted by the
// serverless ClusterQueue (waiting for quota, reclaiming quota lent to lower-priority batch
// work), requests are placed in the assignment order, and the workers' busy and idle GPU time
// becomes usage rows that budgets read.
#include <gtest/gtest.h>

#include "budcore/cost/metering.hpp"
#include "budcore/platform/cost_controls.hpp"
#include "budcore/platform/serverless_endpoint.hpp"
#include "budcore/quota/job_workload.hpp"
#include "backends/loopback_http_server.hpp"
#include "platform/platform_fixture.hpp"

namespace budcore {
namespace {

using namespace budcore::testing;
using platform::WorkerState;

// 4 A100s; the serverless and batch ClusterQueues hold 2 each in one cohort and may lend them
// to each other; a ClusterQueue takes its quota back from lower-priority borrowers.
std::string config_yaml(std::string_view cost = "") {
  return std::string(R"(
store: {uri: "sqlite::memory:", durable: false}
clock: {kind: virtual, start: "2026-01-01T00:00:00Z"}
cluster:
  inventory:
    - {name: a100, flavor: a100, nodes: 1, gpu_type: nvidia-a100-80gb, gpus_per_node: 4, cpu_per_node: 64, memory_per_node: 512Gi}
quota:
  resource_flavors: [{name: a100, node_labels: {budcore.io/gpu-type: nvidia-a100-80gb}}]
  cohorts: [{name: pool}]
  cluster_queues:
    - name: serverless-endpoints
      cohort: pool
      preemption: {within_cluster_queue: LowerPriority, reclaim_within_cohort: LowerPriority}
      resource_groups:
        - covered_resources: [cpu, memory, nvidia.com/gpu]
          flavors: [{name: a100, resources: [{name: cpu, nominal: "32"}, {name: memory, nominal: "256Gi"}, {name: nvidia.com/gpu, nominal: "2", borrowing_limit: "2"}]}]
    - name: batch-jobs
      cohort: pool
      preemption: {within_cluster_queue: LowerPriority, reclaim_within_cohort: LowerPriority}
      resource_groups:
        - covered_resources: [cpu, memory, nvidia.com/gpu]
          flavors: [{name: a100, resources: [{name: cpu, nominal: "32"}, {name: memory, nominal: "256Gi"}, {name: nvidia.com/gpu, nominal: "2", borrowing_limit: "2"}]}]
queues: {batch: batch-jobs, serverless: serverless-endpoints}
)") + std::string(cost);
}

// $3.60 per GPU-hour: a GPU-second costs $0.001.
constexpr std::string_view kCost = R"(
cost:
  prices: {currency: USD, gpu_hour: {nvidia-a100-80gb: {on_demand: "3.60"}}, cpu_core_hour: {on_demand: "0"}, memory_gib_hour: {on_demand: "0"}}
)";

// `warm_pool`: more keys of the warm pool (", warmup_timeout_seconds: 2").
serverless::EndpointConfig endpoint(int max_workers = 4, int concurrency = 1, std::string_view warm_pool = "") {
  auto c = serverless::EndpointConfig::from_text(
      "name: chat\nmodel: llama-3-8b\ngpu_type: nvidia-a100-80gb\nconcurrency_per_worker: " +
      std::to_string(concurrency) +
      "\ncold_start: {container_seconds: 2, model_gib: 1, load_gib_per_second: 1, warmup_seconds: 0}\n"
      "warm_pool: {min_warm_workers: 0, max_warm_workers: " +
      std::to_string(max_workers) + ", target_warm_workers: 0" + std::string(warm_pool) + "}\n");
  EXPECT_TRUE(c) << (c ? "" : c.error().describe());
  return *c;
}

struct Fixture {
  std::unique_ptr<platform::Platform> p;
  std::unique_ptr<platform::ServerlessEndpoint> ep;

  explicit Fixture(std::string_view cost = "", int max_workers = 4, int concurrency = 1, std::string_view warm_pool = "") {
    auto c = platform::PlatformConfig::parse(config_yaml(cost));
    EXPECT_TRUE(c) << (c ? "" : c.error().describe());
    auto opened = platform::Platform::open(*c);
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().describe());
    p = std::move(*opened);
    auto e = platform::ServerlessEndpoint::open(*p, ctx_a(), endpoint(max_workers, concurrency, warm_pool));
    EXPECT_TRUE(e) << (e ? "" : e.error().describe());
    ep = std::move(*e);
  }
  // Moves the platform's clock by `seconds` and lets the endpoint see its workers' jobs.
  void advance(std::int64_t seconds) {
    ASSERT_TRUE(p->run_until(p->now() + core::Duration::seconds(seconds)));
    ASSERT_TRUE(ep->sync());
  }
  core::Id batch(std::string name, job::JobPriority priority) {
    auto j = gpu_job(std::move(name), 1, 100'000);
    j.priority = priority;
    auto r = p->submit(ctx_a(), j);
    EXPECT_TRUE(r) << (r ? "" : r.error().describe());
    return r->record.job.id;
  }
  job::JobStatus status_of(const core::Id& id) { return p->get_job(ctx_a(), id)->job.status; }
};

TEST(ServerlessEndpointTest, WorkersAreServiceJobsInTheServerlessClusterQueue) {
  Fixture f;
  ASSERT_EQ(f.ep->scale_to(2).value(), 2);
  f.advance(1);
  auto s = f.ep->status();
  ASSERT_EQ(s.workers.size(), 2u);
  for (const auto& w : s.workers) {
    auto rec = f.p->get_job(ctx_a(), w.job).value();
    EXPECT_EQ(rec.job.job_type, job::JobType::Service);
    EXPECT_EQ(quota::serverless_endpoint_of(rec.job), "chat");
    EXPECT_EQ(quota::cluster_queue_for(rec.job, f.p->config().cluster.layout), "serverless-endpoints");
    EXPECT_EQ(rec.job.status, job::JobStatus::Running);
  }
  EXPECT_EQ(s.starting, 2);  // the 3 s cold start is not over
  f.advance(3);
  EXPECT_EQ(f.ep->status().ready, 2);
  // The ClusterQueue charges them: 2 GPUs used in serverless-endpoints.
  EXPECT_EQ(f.p->cluster().usage["serverless-endpoints"]["a100"]["nvidia.com/gpu"].used, 2000);
}

TEST(ServerlessEndpointTest, GrowingThePoolWaitsForQuota) {
  Fixture f;
  // Batch work fills its own 2 GPUs; the endpoint has 2 of its own and nothing to borrow.
  const core::Id b1 = f.batch("b1", job::JobPriority::Normal);
  f.batch("b2", job::JobPriority::Normal);
  f.advance(1);
  ASSERT_EQ(f.ep->scale_to(3).value(), 3);
  f.advance(10);
  auto s = f.ep->status();
  EXPECT_EQ(s.ready, 2);
  EXPECT_EQ(s.queued, 1);  // the third worker waits: batch-jobs is within its nominal quota
  EXPECT_EQ(f.status_of(b1), job::JobStatus::Running);
  // Quota frees up: the waiting worker is admitted and warms up.
  ASSERT_TRUE(f.p->cancel_job(ctx_a(), b1));
  f.advance(1);
  EXPECT_EQ(f.ep->status().queued, 0);
  f.advance(3);
  EXPECT_EQ(f.ep->status().ready, 3);
}

TEST(ServerlessEndpointTest, GrowingThePoolPreemptsLowerPriorityBatchWork) {
  Fixture f;
  // Low-priority batch work borrows the endpoint's idle quota: all 4 GPUs.
  std::vector<core::Id> batch;
  for (int i = 0; i < 4; ++i) batch.push_back(f.batch("b" + std::to_string(i), job::JobPriority::Low));
  f.advance(1);
  for (const auto& id : batch) ASSERT_EQ(f.status_of(id), job::JobStatus::Running);
  // The endpoint grows: Kueue takes the lent quota back from the borrowers.
  ASSERT_EQ(f.ep->scale_to(2).value(), 2);
  f.advance(1);
  int running = 0;
  for (const auto& id : batch) running += f.status_of(id) == job::JobStatus::Running;
  EXPECT_EQ(running, 2);
  auto s = f.ep->status();
  EXPECT_EQ(s.queued, 0);
  EXPECT_EQ(s.starting, 2);
  // Shrinking cancels the worker jobs and gives the quota back to the batch work.
  ASSERT_EQ(f.ep->scale_to(0).value(), 0);
  EXPECT_EQ(f.ep->status().stopped, 2);
  f.advance(1);
  for (const auto& w : s.workers) EXPECT_EQ(f.status_of(w.job), job::JobStatus::Cancelled);
  running = 0;
  for (const auto& id : batch) running += f.status_of(id) == job::JobStatus::Running;
  EXPECT_EQ(running, 4);
}

TEST(ServerlessEndpointTest, AssignmentOrderWarmThenColdThenPreemptThenWait) {
  Fixture f("", /*max_workers=*/1, /*concurrency=*/1);
  serverless::Submission batch_req{"acme", "h1", 10, core::Duration::seconds(5), serverless::Priority::Batch};
  auto r1 = f.ep->enqueue(batch_req);
  ASSERT_TRUE(r1.ok()) << r1.error.describe();
  // No worker: a cold start (a worker job), and the request waits for it.
  EXPECT_TRUE(f.ep->dispatch().value().empty());
  EXPECT_EQ(f.ep->status().cold_starts, 1);
  f.advance(4);
  auto a = f.ep->dispatch().value();  // warm
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].placement, serverless::Placement::Warm);
  // At max_warm_workers, a premium request takes the batch request's slot.
  serverless::Submission premium{"acme", "h2", 10, core::Duration::seconds(5), serverless::Priority::Premium};
  auto r2 = f.ep->enqueue(premium);
  ASSERT_TRUE(r2.ok());
  a = f.ep->dispatch().value();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].placement, serverless::Placement::Preempted);
  EXPECT_EQ(a[0].preempted, r1.id);
  EXPECT_EQ(f.ep->queue().get(r1.id)->status, serverless::QueueStatus::Pending);
  // Nothing lower to preempt: the batch request waits, and its SLA times it out.
  EXPECT_TRUE(f.ep->dispatch().value().empty());
  EXPECT_EQ(f.ep->status().cold_starts, 1);
  f.advance(31);
  (void)f.ep->dispatch();
  EXPECT_EQ(f.ep->queue().get(r1.id)->status, serverless::QueueStatus::Timeout);
  ASSERT_TRUE(f.ep->complete(r2.id));
  EXPECT_EQ(f.ep->queue().get(r2.id)->status, serverless::QueueStatus::Completed);
}

TEST(ServerlessEndpointTest, MeteringWritesBusyAndIdleGpuSecondsAsUsageRows) {
  Fixture f(kCost);
  ASSERT_EQ(f.ep->scale_to(1).value(), 1);
  f.advance(10);  // started at 0, ready at 3
  auto r = f.ep->enqueue({"acme", "h1", 10, core::Duration::seconds(10), serverless::Priority::Standard});
  ASSERT_EQ(f.ep->dispatch().value().size(), 1u);
  f.advance(10);
  ASSERT_TRUE(f.ep->complete(r.id));
  f.advance(20);
  auto rows = f.ep->meter();
  ASSERT_TRUE(rows) << rows.error().describe();
  ASSERT_EQ(rows->size(), 1u);
  const cost::Usage& u = rows->front();
  EXPECT_EQ(u.gpu_seconds.to_string(), "40");
  EXPECT_EQ(u.idle_gpu_seconds.to_string(), "30");  // 10 of 40 seconds busy
  EXPECT_EQ(u.computed_cost.to_string(), "0.04 USD");
  EXPECT_EQ(u.idle_cost.to_string(), "0.03 USD");
  EXPECT_EQ(u.interval.tenant_id, tenant_a());
  EXPECT_EQ(u.interval.labels.at("serverless_endpoint"), "chat");
  EXPECT_EQ(u.interval.job_id, f.ep->status().workers.at(0).job);
  // Shrinking ends the worker's run; its last seconds are the next row, and the platform does
  // not meter the cancelled run again.
  f.advance(5);
  ASSERT_EQ(f.ep->scale_to(0).value(), 0);
  f.advance(1);
  rows = f.ep->meter();
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().gpu_seconds.to_string(), "5");
  auto stored = cost::load_usage(f.p->store(), tenant_a()).value();
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(cost::summarize(stored)->total.to_string(), "0.045 USD");
}

TEST(ServerlessEndpointTest, ServerlessSpendReachesAHardBudget) {
  // $1 per GPU-hour; a worker (open-ended) is estimated at its hourly rate, 1 USD: the $2.50
  // budget admits the first one and, once the workers' metered time passes 1.50 USD, no other.
  Fixture f(R"(
cost:
  prices: {currency: USD, gpu_hour: {nvidia-a100-80gb: {on_demand: "1.00"}}, cpu_core_hour: {on_demand: "0"}, memory_gib_hour: {on_demand: "0"}}
  budgets: [{name: serverless-cap, tenant_id: 00000000-0000-4000-8000-00000000000a, amount: "2.50", hard_limit: true}]
)");
  ASSERT_EQ(f.ep->scale_to(1).value(), 1);
  f.advance(7200);
  ASSERT_TRUE(f.ep->meter());
  auto grown = f.ep->scale_to(2);
  ASSERT_FALSE(grown);
  EXPECT_EQ(grown.error().code, core::ErrorCode::BudgetExceeded) << grown.error().describe();
  EXPECT_NE(f.ep->status().last_refusal.find("serverless-cap"), std::string::npos);
  EXPECT_EQ(f.ep->status().workers.size(), 1u);
  EXPECT_EQ(cost::summarize(cost::load_usage(f.p->store(), tenant_a()).value())->total.to_string(), "2.00 USD");
}

// The cold start takes 3 s, the warm-up timeout is 2 s: a worker still warming up 2 s after its
// job started is cancelled and counted as a failed start; its GPU time is metered; the request
// waiting for it stays in the queue, gets a replacement worker, and times out at its max_wait.
TEST(ServerlessEndpointTest, AWorkerWarmingUpPastTheWarmupTimeoutIsCancelledAndReplaced) {
  Fixture f(kCost, 4, 1, ", warmup_timeout_seconds: 2");
  auto r = f.ep->enqueue({"acme", "h1", 10, core::Duration::seconds(5), serverless::Priority::Standard});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(f.ep->dispatch().value().empty());  // a cold start: the request waits for it
  const core::Id first = f.ep->status().workers.at(0).job;
  f.advance(1);
  EXPECT_EQ(f.ep->status().starting, 1);
  EXPECT_EQ(f.ep->status().failed_starts, 0);
  f.advance(1);  // 2 s since its start, its cold start not over
  auto s = f.ep->status();
  EXPECT_EQ(s.failed_starts, 1);
  EXPECT_EQ(s.stopped, 0);
  EXPECT_TRUE(s.workers.empty());
  EXPECT_EQ(f.ep->queue().get(r.id)->status, serverless::QueueStatus::Pending);
  EXPECT_EQ(s.to_value().as_map().find("failed_starts")->as_int(), 1);
  f.advance(1);
  auto rec = f.p->get_job(ctx_a(), first).value();
  EXPECT_EQ(rec.job.status, job::JobStatus::Cancelled);
  EXPECT_NE(rec.job.status_message.value_or("").find("warmup_timeout_seconds"), std::string::npos)
      << rec.job.status_message.value_or("");
  // The request still waits: the next dispatch starts a replacement.
  ASSERT_TRUE(f.ep->dispatch().value().empty());
  EXPECT_EQ(f.ep->status().cold_starts, 2);
  EXPECT_EQ(f.ep->status().workers.size(), 1u);
  // The failed warm-up's 2 s are metered as idle GPU time.
  auto rows = f.ep->meter();
  ASSERT_TRUE(rows) << rows.error().describe();
  ASSERT_FALSE(rows->empty());
  EXPECT_EQ(rows->front().interval.job_id, first);
  EXPECT_EQ(rows->front().gpu_seconds.to_string(), "2");
  EXPECT_EQ(rows->front().idle_gpu_seconds.to_string(), "2");
  // The replacement fails too; the request times out after its 30 s max_wait.
  f.advance(40);
  ASSERT_TRUE(f.ep->dispatch());
  EXPECT_EQ(f.ep->status().failed_starts, 2);
  EXPECT_EQ(f.ep->queue().get(r.id)->status, serverless::QueueStatus::Timeout);
}

// The endpoint's counters and gauges are in the platform's metrics(), labelled with the endpoint
// and its owner tenant: a failed start is counted there as in status(). Once the endpoint is
// closed its gauges leave and its counters keep their totals.
TEST(ServerlessEndpointTest, ItsCountersAndGaugesAreInThePlatformsMetrics) {
  Fixture f(kCost, 4, 1, ", warmup_timeout_seconds: 2");
  ASSERT_TRUE(f.ep->enqueue({"acme", "h1", 10, core::Duration::seconds(5), serverless::Priority::Standard}).ok());
  ASSERT_TRUE(f.ep->dispatch().value().empty());
  // Its warm-up passes the timeout; meter() reads the workers first, and what it counts is published.
  ASSERT_TRUE(f.p->run_until(f.p->now() + core::Duration::seconds(2)));
  ASSERT_TRUE(f.ep->meter());
  ASSERT_EQ(f.ep->status().failed_starts, 1);
  const std::string series = "{endpoint=\"" + f.ep->config().name + "\",tenant=\"" + ctx_a().tenant.to_string() + "\"}";
  std::string text = f.p->metrics();
  EXPECT_NE(text.find("# TYPE budcore_serverless_failed_starts_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("budcore_serverless_failed_starts_total" + series + " 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("budcore_serverless_cold_starts_total" + series + " 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("budcore_serverless_queue_depth" + series + " 1\n"), std::string::npos) << text;
  const std::string ready = series.substr(0, series.size() - 1) + ",state=\"ready\"}";
  EXPECT_NE(text.find("budcore_serverless_workers" + ready + " 0\n"), std::string::npos) << text;
  f.ep.reset();
  text = f.p->metrics();
  EXPECT_NE(text.find("budcore_serverless_failed_starts_total" + series + " 1\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("budcore_serverless_queue_depth{"), std::string::npos) << text;
}

// Metered every second, the workers' spend reaches a stop_running budget while they run: the
// budget stops them at the meter() that passes it ($0.001 per GPU-second, two workers: $0.05
// after 25 s), not at some later run segment of the platform's own.
TEST(ServerlessEndpointTest, AStopRunningBudgetStopsTheWorkersAsTheirSpendIsMetered) {
  Fixture f(R"(
cost:
  prices: {currency: USD, gpu_hour: {nvidia-a100-80gb: {on_demand: "3.60"}}, cpu_core_hour: {on_demand: "0"}, memory_gib_hour: {on_demand: "0"}}
  budgets: [{name: serverless-stop, tenant_id: 00000000-0000-4000-8000-00000000000a, amount: "0.05", stop_running: true}]
)");
  ASSERT_EQ(f.ep->scale_to(2).value(), 2);
  const auto workers = f.ep->status().workers;
  int stopped_at = 0;
  for (int t = 1; t <= 40 && stopped_at == 0; ++t) {
    f.advance(1);
    auto rows = f.ep->meter();
    ASSERT_TRUE(rows) << rows.error().describe();
    if (f.ep->status().workers.empty()) stopped_at = t;
  }
  EXPECT_EQ(stopped_at, 26);  // $0.050 at 25 s is not past the amount; $0.052 at 26 s is
  EXPECT_EQ(f.ep->status().lost, 2);
  for (const auto& w : workers) {
    auto rec = f.p->get_job(ctx_a(), w.job).value();
    EXPECT_EQ(rec.job.status, job::JobStatus::Failed);
    EXPECT_NE(rec.job.status_message.value_or("").find("BudgetExceeded: budget 'serverless-stop'"), std::string::npos)
        << rec.job.status_message.value_or("");
  }
  // Nothing ran past the stop: the rows add up to the spend at the stop.
  f.advance(10);
  ASSERT_TRUE(f.ep->meter());
  auto total = cost::summarize(cost::load_usage(f.p->store(), tenant_a()).value())->total;
  EXPECT_EQ(total.to_string(), "0.052 USD");
}

// A budget's threshold alert is posted at the meter() whose rows cross it, while the workers
// run on (no stop_running): two workers at $0.001 per GPU-second pass 50% of $0.05 after 13 s.
TEST(ServerlessEndpointTest, ABudgetAlertIsRaisedAsTheWorkersSpendIsMetered) {
  LoopbackHttpServer receiver;
  Fixture f(R"(
cost:
  prices: {currency: USD, gpu_hour: {nvidia-a100-80gb: {on_demand: "3.60"}}, cpu_core_hour: {on_demand: "0"}, memory_gib_hour: {on_demand: "0"}}
  budgets: [{name: serverless-watch, tenant_id: 00000000-0000-4000-8000-00000000000a, amount: "0.05", thresholds: [50], notify: {channel: slack, recipients: ["#finops"]}}]
  alerts: {webhook: ")" + receiver.url("/alerts") + R"(", timeout_seconds: 5}
)");
  ASSERT_EQ(f.ep->scale_to(2).value(), 2);
  int alerted_at = 0;
  for (int t = 1; t <= 20 && alerted_at == 0; ++t) {
    f.advance(1);
    ASSERT_TRUE(f.ep->meter());
    if (!receiver.requests().empty()) alerted_at = t;
  }
  EXPECT_EQ(alerted_at, 13);  // $0.024 at 12 s is under half of $0.05; $0.026 at 13 s is over
  const auto sent = receiver.requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_NE(sent[0].body.find("serverless-watch"), std::string::npos) << sent[0].body;
  EXPECT_NE(sent[0].body.find("reached 50%"), std::string::npos) << sent[0].body;
  EXPECT_EQ(f.p->cost_controls()->alerts_raised(), 1);
  EXPECT_EQ(f.ep->status().ready, 2);  // the workers run on
}

TEST(ServerlessEndpointTest, AReopenedEndpointAdoptsTheWorkersLeftRunning) {
  Fixture f;
  ASSERT_EQ(f.ep->scale_to(2).value(), 2);
  f.advance(5);
  f.ep.reset();  // the process that drove it is gone; its worker jobs run on
  auto again = platform::ServerlessEndpoint::open(*f.p, ctx_a(), endpoint());
  ASSERT_TRUE(again) << again.error().describe();
  f.ep = std::move(*again);
  auto s = f.ep->status();
  EXPECT_EQ(s.ready, 2);
  EXPECT_EQ(f.ep->scale_to(3).value(), 3);  // a new worker, not a third start of the pool
  EXPECT_EQ(f.ep->status().workers.back().name, "chat-w3");
  EXPECT_EQ(f.ep->scale_to(0).value(), 0);
  f.advance(1);
  for (const auto& w : s.workers) EXPECT_EQ(f.status_of(w.job), job::JobStatus::Cancelled);
}

TEST(ServerlessEndpointTest, MeteringNeedsCostControls) {
  Fixture f;
  EXPECT_EQ(f.ep->meter().error().code, core::ErrorCode::Unsupported);
}

}  // namespace
}  // namespace budcore
