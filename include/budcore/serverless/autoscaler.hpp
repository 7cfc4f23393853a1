// budcore::serverless autoscaling policies. A policy sees one Observation per control-loop
// tick and answers how many workers the endpoint should have; the WorkerPool clamps that to
// [min_warm_workers, max_warm_workers] and scales. A new policy is one class deriving from
// AutoscalePolicy (and a name in make_policy). Sources and parameters: docs/serverless.md.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/serverless/endpoint.hpp"

namespace budcore::serverless {

struct Observation {
  core::Timestamp now;
  int workers = 0;       // starting + ready
  int ready = 0;
  int starting = 0;
  int busy = 0;          // ready workers with at least one request in flight
  std::int64_t pending = 0;
  std::int64_t in_flight = 0;
  std::int64_t arrivals = 0;   // requests admitted since the previous observation
  core::Duration arrived_work;  // their estimated compute
};

class BUDCORE_API AutoscalePolicy {
 public:
  virtual ~AutoscalePolicy() = default;
  virtual std::string_view name() const = 0;
  virtual int desired(const Observation& o) = 0;
};

// The largest value seen within a trailing window (a monotone deque).
class BUDCORE_API SlidingMax {
 public:
  explicit SlidingMax(core::Duration window) : window_(window) {}
  int push(core::Timestamp t, int v);

 private:
  core::Duration window_;
  std::deque<std::pair<core::Timestamp, int>> q_;
};

// The mean of samples within a trailing window.
class BUDCORE_API WindowAverage {
 public:
  explicit WindowAverage(core::Duration window) : window_(window) {}
  double push(core::Timestamp t, double v);

 private:
  core::Duration window_;
  std::deque<std::pair<core::Timestamp, double>> q_;
  double sum_ = 0;
};

// The platform's rule: enough workers for the queue depth against a target per worker, plus
// target_warm_workers spare while traffic is recent; a worker needed within the last
// idle_timeout stays; after idle_timeout without traffic, min_warm_workers remain.
class BUDCORE_API QueueDepthPolicy final : public AutoscalePolicy {
 public:
  explicit QueueDepthPolicy(const EndpointConfig& c, double target_per_worker = 0);
  std::string_view name() const override { return "queue_depth"; }
  int desired(const Observation& o) override;

 private:
  double target_;
  int spare_;
  int min_;
  core::Duration idle_timeout_;
  SlidingMax recent_;
  core::Timestamp last_traffic_;
  bool seen_traffic_ = false;
};

// Knative Serving's KPA (knative.dev/docs/serving/autoscaling/kpa-specific,
// .../autoscaling/autoscale-concurrency, config-autoscaler defaults).
struct KpaParams {
  double target_concurrency = 0;  // per worker; 0: concurrency_per_worker x target_utilization
  double target_utilization = 0.7;                              // container-concurrency-target-percentage 70
  core::Duration stable_window = core::Duration::seconds(60);   // stable-window
  double panic_window_percentage = 10.0;                        // 10% of the stable window: 6 s
  double panic_threshold_percentage = 200.0;                    // panic at 200% of target
  core::Duration scale_to_zero_grace = core::Duration::seconds(30);  // scale-to-zero-grace-period
  double max_scale_up_rate = 1000.0;
  double max_scale_down_rate = 2.0;
};

class BUDCORE_API KpaPolicy final : public AutoscalePolicy {
 public:
  KpaPolicy(const EndpointConfig& c, KpaParams p = {});
  std::string_view name() const override { return "kpa"; }
  int desired(const Observation& o) override;
  bool in_panic() const noexcept { return in_panic_; }

 private:
  KpaParams p_;
  double target_;
  WindowAverage stable_;
  WindowAverage panic_;
  bool in_panic_ = false;
  core::Timestamp panic_since_;
  int max_panic_pods_ = 0;
  bool zero_pending_ = false;
  core::Timestamp zero_since_;
};

// Ray Serve's replica-queue-length policy (docs.ray.io ray.serve.config.AutoscalingConfig and
// "Advanced Ray Serve Autoscaling"): desired = ceil(ongoing requests averaged over
// look_back_period / target_ongoing_requests), applied only after it has held for
// upscale_delay (downscale_delay, or downscale_to_zero_delay for the last replica); a
// deployment at zero with requests starts one replica at once.
struct RayServeParams {
  double target_ongoing_requests = 2.0;
  core::Duration look_back_period = core::Duration::seconds(30);
  core::Duration upscale_delay = core::Duration::seconds(30);
  core::Duration downscale_delay = core::Duration::seconds(600);
  core::Duration downscale_to_zero_delay = core::Duration::seconds(600);
};

class BUDCORE_API RayServePolicy final : public AutoscalePolicy {
 public:
  RayServePolicy(const EndpointConfig& c, RayServeParams p = {});
  std::string_view name() const override { return "ray_serve"; }
  int desired(const Observation& o) override;

 private:
  RayServeParams p_;
  WindowAverage ongoing_;
  int target_replicas_ = -1;  // the decision in force; -1 until the first observation
  int direction_ = 0;         // +1 wanting more, -1 wanting fewer, 0 neither
  core::Timestamp since_;
};

// Pre-warming from traffic history: the arrived work (compute-seconds per second, which by
// Little's law is the number of busy slots needed) is bucketed, smoothed with Holt's linear
// method and forecast one cold start ahead; when the history reaches back a day, the same time
// yesterday is taken into account too. Workers = ceil(max(forecast, current load) x headroom /
// concurrency) + target_warm_workers while traffic is recent; held for `hold` before shrinking.
struct PredictiveParams {
  core::Duration bucket = core::Duration::seconds(10);
  double alpha = 0.5;     // level smoothing
  double beta = 0.3;      // trend smoothing
  double headroom = 1.2;  // slots per unit of forecast work
  core::Duration hold = core::Duration::seconds(60);
};

class BUDCORE_API PredictivePolicy final : public AutoscalePolicy {
 public:
  PredictivePolicy(const EndpointConfig& c, PredictiveParams p = {});
  std::string_view name() const override { return "predictive"; }
  int desired(const Observation& o) override;
  double forecast() const noexcept { return forecast_; }  // work rate one cold start ahead

 private:
  void close_bucket();
  PredictiveParams p_;
  int concurrency_;
  int spare_;
  double horizon_buckets_;
  core::Duration idle_timeout_;
  std::size_t history_buckets_;
  std::deque<double> history_;  // work rate per closed bucket, oldest first (bounded)
  double level_ = 0, trend_ = 0, forecast_ = 0;
  bool started_ = false;
  core::Timestamp bucket_start_;
  double bucket_work_s_ = 0;
  SlidingMax held_;
  core::Timestamp last_traffic_;
  bool seen_traffic_ = false;
};

// A budget cap around another policy: idle ready workers cost at most
// warm_pool.max_idle_cost_per_hour, so at most floor(cap / (price_per_gpu_hour x gpus)) of
// them are kept beyond the busy and starting ones.
class BUDCORE_API BudgetCapPolicy final : public AutoscalePolicy {
 public:
  BudgetCapPolicy(const EndpointConfig& c, std::unique_ptr<AutoscalePolicy> inner);
  std::string_view name() const override { return "budget"; }
  int desired(const Observation& o) override;
  std::int64_t max_idle_workers() const noexcept { return max_idle_; }

 private:
  std::unique_ptr<AutoscalePolicy> inner_;
  std::int64_t max_idle_;
};

// The policies by name, with default parameters: queue_depth, kpa, ray_serve, predictive,
// budget (a budget cap over queue_depth). Invalid naming `field` for another name, and for
// budget when the endpoint sets no max_idle_cost_per_hour.
inline constexpr std::string_view kPolicyNames[] = {"queue_depth", "kpa", "ray_serve", "predictive", "budget"};
BUDCORE_API core::Result<std::unique_ptr<AutoscalePolicy>> make_policy(std::string_view name, const EndpointConfig& c,
                                                                        std::string_view field = "policy");

}  // namespace budcore::serverless
