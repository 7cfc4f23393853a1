#include "budcore/serverless/replay.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "budcore/core/yaml.hpp"

namespace budcore::serverless {
namespace {

EndpointConfig endpoint(const std::string& extra = {}) {
  auto c = EndpointConfig::load_file(std::string(BUDCORE_TEST_DATA_DIR) + "/serverless/endpoint.yaml");
  EXPECT_TRUE(c) << c.error().describe();
  if (extra.empty()) return *c;
  core::Value doc = c->to_value();
  auto patch = core::parse_document(extra);
  EXPECT_TRUE(patch);
  for (const auto& [k, v] : patch->as_map()) {
    core::Map section = doc.as_map().find(k)->as_map();
    for (const auto& [kk, vv] : v.as_map()) section.set(kk, vv);
    doc.mutable_map().set(k, core::Value(std::move(section)));
  }
  auto patched = EndpointConfig::from_value(doc);
  EXPECT_TRUE(patched) << patched.error().describe();
  return *patched;
}

std::vector<TraceRequest> trace() {
  auto t = load_azure_trace(std::string(BUDCORE_TEST_DATA_DIR) + "/serverless/trace_small.csv");
  EXPECT_TRUE(t) << t.error().describe();
  return *t;
}

// The queue-depth run worked out by hand (22 s cold starts, 4 slots per worker, 1 spare,
// 60 s idle timeout). t=0: the first request asks for 1 + 1 spare: 2 cold starts, ready at 22;
// requests at 0, 0.5, 1 and 10 s start at 22 on worker 1. Requests at 30..34 s wait 0; at 34 the
// load of 5 asks for 2 + 1: a third worker (ready at 56). The 2 needed at 34 are held until 94
// (one worker goes), the traffic of 38 until 98 (the rest go). The request at 120 s finds no
// worker: 2 cold starts, served from 142 to 155 on worker 4.
TEST(ReplayTest, QueueDepthMatchesTheRunWorkedOutByHand) {
  const EndpointConfig c = endpoint();
  QueueDepthPolicy policy(c);
  auto r = replay(c, trace(), policy);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->requests, 10);
  EXPECT_EQ(r->completed, 10);
  EXPECT_EQ(r->timeouts, 0);
  EXPECT_EQ(r->dead_letters, 0);
  // Waits: 22, 21.5, 21, 12, 0 x 5, 22.
  EXPECT_DOUBLE_EQ(r->wait.p50, 0);
  EXPECT_DOUBLE_EQ(r->wait.p95, 22);
  EXPECT_DOUBLE_EQ(r->wait.max, 22);
  EXPECT_DOUBLE_EQ(r->wait.mean, 9.85);
  // End to end: 24, 25.5, 23, 13, 5 x 5, 35.
  EXPECT_DOUBLE_EQ(r->end_to_end.p50, 5);
  EXPECT_DOUBLE_EQ(r->end_to_end.p99, 35);
  EXPECT_DOUBLE_EQ(r->end_to_end.mean, 14.55);
  EXPECT_EQ(r->metering.cold_starts, 5);
  EXPECT_EQ(r->metering.peak_workers, 3);
  // Busy: worker 1 22-26 and 30-38, worker 2 34-39, worker 4 142-155.
  EXPECT_DOUBLE_EQ(r->metering.busy_gpu_seconds, 30);
  EXPECT_DOUBLE_EQ(r->metering.starting_gpu_seconds, 5 * 22);
  // Lifetimes 94 + 98 + 64 + 35 + 35 = 326 s at $0.001 per GPU-second.
  EXPECT_EQ(r->metering.billed_gpu_seconds, 326);
  EXPECT_DOUBLE_EQ(r->metering.idle_gpu_seconds, 326 - 110 - 30);
  EXPECT_EQ(r->metering.cost.to_string(), "0.326 USD");
  EXPECT_DOUBLE_EQ(r->virtual_seconds, 155);
}

// A warm-up timeout shorter than the cold start (22 s): every worker is given up at 10 s as a
// failed start and replaced while requests wait; none is served, and every admitted request
// times out at its 60 s max_wait. The report and its table show the failed starts.
TEST(ReplayTest, ColdStartsPastTheWarmupTimeoutFailAndTheirRequestsTimeOut) {
  const EndpointConfig c = endpoint("warm_pool: {warmup_timeout_seconds: 10}\n");
  QueueDepthPolicy policy(c);
  auto r = replay(c, trace(), policy);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->completed, 0);
  EXPECT_EQ(r->timeouts, r->admitted);
  EXPECT_GT(r->admitted, 0);
  EXPECT_GE(r->metering.failed_starts, 2);
  // Not one warmed up: every cold start failed but those still starting when the replay ended.
  EXPECT_GE(r->metering.failed_starts, r->metering.cold_starts - c.warm_pool.max_warm_workers);
  EXPECT_DOUBLE_EQ(r->metering.busy_gpu_seconds, 0);
  EXPECT_DOUBLE_EQ(r->metering.idle_gpu_seconds, 0);
  // Each failed start held its GPU for the 10 s of warm-up it was given; the rest less.
  EXPECT_GE(r->metering.starting_gpu_seconds, 10.0 * static_cast<double>(r->metering.failed_starts));
  EXPECT_LT(r->metering.starting_gpu_seconds, 10.0 * static_cast<double>(r->metering.cold_starts));
  EXPECT_EQ(to_value(*r).as_map().find("failed_starts")->as_int(), r->metering.failed_starts);
  const std::string table = to_table({*r});
  EXPECT_NE(table.find("failed"), std::string::npos) << table;
}

// The same run's pool, change by change (workers, ready), and with until_scaled_down the way
// back to zero after the last request: the idle tail is billed.
TEST(ReplayTest, ThePoolScalesFromZeroAndBackDown) {
  constexpr std::int64_t kDownAt = 214;  // the last tick with a request in flight (154) + the 60 s hold
  const EndpointConfig c = endpoint();
  QueueDepthPolicy policy(c);
  auto r = replay(c, trace(), policy);
  ASSERT_TRUE(r) << r.error().describe();
  auto shape = [](const std::vector<ScalePoint>& points) {
    std::vector<std::tuple<double, std::int64_t, std::int64_t>> out;
    for (const auto& p : points) out.emplace_back(p.at_seconds, p.workers, p.ready);
    return out;
  };
  using P = std::tuple<double, std::int64_t, std::int64_t>;
  const std::vector<P> served = {{0, 0, 0},  {0, 2, 0},  {22, 2, 2},   {34, 3, 2},  {56, 3, 3},
                                 {94, 2, 2}, {98, 0, 0}, {120, 2, 0}, {142, 2, 2}};
  EXPECT_EQ(shape(r->scaling), served);
  ReplayOptions o;
  o.until_scaled_down = true;
  QueueDepthPolicy again(c);
  auto down = replay(c, trace(), again, o);
  ASSERT_TRUE(down) << down.error().describe();
  std::vector<P> expected = served;
  expected.emplace_back(kDownAt, 0, 0);
  EXPECT_EQ(shape(down->scaling), expected);
  EXPECT_DOUBLE_EQ(down->virtual_seconds, kDownAt);
  EXPECT_EQ(down->completed, 10);
  // Workers 4 and 5 live from 120 to kDownAt instead of to 155.
  EXPECT_EQ(down->metering.billed_gpu_seconds, 326 - 2 * 35 + 2 * (kDownAt - 120));
}

TEST(ReplayTest, RequestsOverMaxProcessEndAsDeadLettersAfterTheirRetries) {
  // 3 s of processing at most, one retry: only the requests of 2 s and 1 s complete.
  const EndpointConfig c = endpoint("sla: {max_process_seconds: 3}\n");
  QueueDepthPolicy policy(c);
  auto r = replay(c, trace(), policy);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->completed, 3);
  EXPECT_EQ(r->failed, 7);
  EXPECT_EQ(r->dead_letters, 7);
}

TEST(ReplayTest, ABudgetCapIsNeverExceeded) {
  // $3.60 per hour: one idle worker at most.
  const EndpointConfig c = endpoint("warm_pool: {target_warm_workers: 3}\n");
  auto policy = make_policy("budget", c);
  ASSERT_TRUE(policy);
  auto r = replay(c, trace(), **policy);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->completed, 10);
  EXPECT_LE(r->max_idle_workers, 1);
  QueueDepthPolicy uncapped(c);
  auto u = replay(c, trace(), uncapped);
  ASSERT_TRUE(u);
  EXPECT_GT(u->max_idle_workers, 1);  // the same endpoint without the cap keeps more idle
}

TEST(ReplayTest, EveryPolicyServesTheTraceAndEndsEveryRequest) {
  const EndpointConfig c = endpoint();
  for (std::string_view name : kPolicyNames) {
    auto policy = make_policy(name, c);
    ASSERT_TRUE(policy) << name;
    auto r = replay(c, trace(), **policy);
    ASSERT_TRUE(r) << r.error().describe();
    EXPECT_EQ(r->completed + r->timeouts + r->failed, r->admitted) << name;
    EXPECT_EQ(r->completed, 10) << name;
    EXPECT_GE(r->metering.cold_starts, 1) << name;
    EXPECT_EQ(to_value(*r).find("policy")->as_string(), name);
  }
}

TEST(ReplayTest, TheTableHasOneRowPerPolicy) {
  const EndpointConfig c = endpoint();
  std::vector<ReplayReport> reports;
  for (std::string_view name : {"queue_depth", "kpa"}) {
    auto policy = make_policy(name, c);
    reports.push_back(*replay(c, trace(), **policy));
  }
  const std::string table = to_table(reports);
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 4);
  EXPECT_EQ(table.rfind("policy", 0), 0u);
  EXPECT_NE(table.find("\nkpa "), std::string::npos) << table;
  EXPECT_NE(table.find("0.33 USD"), std::string::npos) << table;  // 0.326 to the cent
}

TEST(ReplayTest, PolicyListsAndTheReportsDocument) {
  EndpointConfig c = endpoint();
  auto all = make_policies("all", c);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), std::size(kPolicyNames));
  auto two = make_policies("budget,kpa", c);
  ASSERT_TRUE(two);
  ASSERT_EQ(two->size(), 2u);
  auto bad = make_policies("kpa,nope", c, "--policy");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "--policy");

  std::vector<ReplayReport> reports;
  for (auto& p : *two) reports.push_back(*replay(c, trace(), *p));
  EXPECT_EQ(reports[0].policy, "budget");
  EXPECT_EQ(reports[1].policy, "kpa");
  core::Value doc = reports_document(reports);
  ASSERT_EQ(doc.find("reports")->size(), 2u);
  EXPECT_EQ(doc.find("reports")->as_list()[0], to_value(reports[0]));
  EXPECT_EQ(doc.find("reports")->as_list()[1], to_value(reports[1]));
}

}  // namespace
}  // namespace budcore::serverless
