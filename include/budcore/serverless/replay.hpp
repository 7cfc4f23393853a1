// budcore::serverless::replay — runs a request trace through an endpoint's RequestQueue,
// WorkerPool, Dispatcher and an autoscaling policy on a virtual clock, and reports what the
// requests and the GPUs went through. Service time comes from the tokens through the
// endpoint's ServiceModel; cold starts from its ColdStartModel. The policy is asked once per
// tick (default 1 s of virtual time). The run ends when every admitted request has ended.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/money.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/serverless/autoscaler.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/trace.hpp"
#include "budcore/serverless/worker_pool.hpp"

namespace budcore::serverless {

struct ReplayOptions {
  core::Duration tick = core::Duration::seconds(1);
  std::string tenant = "default";
  Priority priority = Priority::Standard;
  // After the last request has ended, run on until the policy has scaled the pool down to
  // warm_pool.min_warm_workers (at most a day of virtual time more): the idle tail is metered
  // and billed, and `scaling` shows the way back down (to zero when the minimum is zero).
  bool until_scaled_down = false;
};

// The pool after a change of its size: seconds since the first arrival, workers (starting and
// ready), ready, busy, and requests waiting.
struct ScalePoint {
  double at_seconds = 0;
  std::int64_t workers = 0, ready = 0, busy = 0, pending = 0;
  friend bool operator==(const ScalePoint&, const ScalePoint&) = default;
};

// Seconds; nearest-rank percentiles over the completed requests.
struct LatencySummary {
  double p50 = 0, p95 = 0, p99 = 0, max = 0, mean = 0;
};

struct ReplayReport {
  std::string endpoint;
  std::string policy;
  std::int64_t requests = 0;   // trace lines
  std::int64_t admitted = 0;
  std::int64_t completed = 0;
  std::int64_t timeouts = 0;   // waited past sla.max_wait_seconds
  std::int64_t failed = 0;     // failed past queue.max_retries
  std::int64_t dead_letters = 0;
  std::int64_t sla_misses = 0;  // timeouts + refusals for an estimated wait over the SLA
  std::map<std::string, std::int64_t> refusals;  // by Refusal name
  std::int64_t preemptions = 0;
  LatencySummary wait;
  LatencySummary end_to_end;
  Metering metering;
  std::int64_t max_idle_workers = 0;  // idle ready workers after any scaling decision
  double virtual_seconds = 0;          // first arrival to the end of the run
  std::vector<ScalePoint> scaling;     // from 0 workers before the first arrival, each change
};

BUDCORE_API core::Result<ReplayReport> replay(const EndpointConfig& endpoint, const std::vector<TraceRequest>& trace,
                                              AutoscalePolicy& policy, const ReplayOptions& options = {});

// One replay per policy, in order, with the same options.
BUDCORE_API core::Result<std::vector<ReplayReport>> replay_all(const EndpointConfig& endpoint,
                                                              const std::vector<TraceRequest>& trace,
                                                              std::vector<std::unique_ptr<AutoscalePolicy>>& policies,
                                                              const ReplayOptions& options = {});
BUDCORE_API core::Value to_value(const ReplayReport& r);
// {"reports": [to_value(report), ...]}: the document `budcore serverless simulate --format json`
// prints.
BUDCORE_API core::Value reports_document(const std::vector<ReplayReport>& reports);
// The policies named by "all" (kPolicyNames order), one name, or names separated by commas, in
// the order given, each made by make_policy (an unknown name is an error naming `field`).
BUDCORE_API core::Result<std::vector<std::unique_ptr<AutoscalePolicy>>> make_policies(std::string_view text,
                                                                                       const EndpointConfig& c,
                                                                                       std::string_view field = "policy");
// Several reports side by side, one row per policy (aligned columns).
BUDCORE_API std::string to_table(const std::vector<ReplayReport>& reports);

}  // namespace budcore::serverless
