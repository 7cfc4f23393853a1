#include "budcore/serverless/autoscaler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "budcore/core/int128.hpp"
#include "serverless/seconds.hpp"

namespace budcore::serverless {

namespace {

int ceil_div(double load, double per) {
  if (load <= 0) return 0;
  const double n = std::ceil(load / per - 1e-9);  // 5.6 / 2.8 stays 2, not 3, on rounding noise
  return static_cast<int>(std::min(n, static_cast<double>(std::numeric_limits<int>::max() / 2)));
}

}  // namespace

int SlidingMax::push(core::Timestamp t, int v) {
  while (!q_.empty() && q_.back().second <= v) q_.pop_back();
  q_.emplace_back(t, v);
  while (t - q_.front().first >= window_) q_.pop_front();
  return q_.front().second;
}

double WindowAverage::push(core::Timestamp t, double v) {
  q_.emplace_back(t, v);
  sum_ += v;
  while (t - q_.front().first >= window_) {
    sum_ -= q_.front().second;
    q_.pop_front();
  }
  if (q_.size() == 1) sum_ = q_.front().second;  // drop accumulated rounding
  return sum_ / static_cast<double>(q_.size());
}

// ---- queue depth -------------------------------------------------------------------------

QueueDepthPolicy::QueueDepthPolicy(const EndpointConfig& c, double target_per_worker)
    : target_(target_per_worker > 0 ? target_per_worker : c.concurrency_per_worker),
      spare_(c.warm_pool.target_warm_workers),
      min_(c.warm_pool.min_warm_workers),
      idle_timeout_(c.warm_pool.idle_timeout),
      recent_(std::max(c.warm_pool.idle_timeout, core::Duration::nanoseconds(1))) {}

int QueueDepthPolicy::desired(const Observation& o) {
  const std::int64_t load = o.pending + o.in_flight;
  if (load > 0 || o.arrivals > 0) {
    last_traffic_ = o.now;
    seen_traffic_ = true;
  }
  const bool recent = seen_traffic_ && o.now - last_traffic_ < idle_timeout_;
  const int need = ceil_div(static_cast<double>(load), target_);
  const int held = recent_.push(o.now, need);
  return std::max(min_, held + (recent ? spare_ : 0));
}

// ---- Knative KPA ---------------------------------------------------------------------------

KpaPolicy::KpaPolicy(const EndpointConfig& c, KpaParams p)
    : p_(p),
      target_(p.target_concurrency > 0 ? p.target_concurrency : c.concurrency_per_worker * p.target_utilization),
      stable_(p.stable_window),
      panic_(core::Duration::nanoseconds(
          static_cast<std::int64_t>(static_cast<double>(p.stable_window.count_ns()) * p.panic_window_percentage / 100.0))) {}

int KpaPolicy::desired(const Observation& o) {
  // Knative counts every request in the system: queued at the activator or in a pod.
  const double concurrency = static_cast<double>(o.pending + o.in_flight);
  const double stable_avg = stable_.push(o.now, concurrency);
  const double panic_avg = panic_.push(o.now, concurrency);
  const double ready = std::max(1, o.ready);
  const int max_up = static_cast<int>(std::ceil(p_.max_scale_up_rate * ready));
  const int max_down = static_cast<int>(std::floor(ready / p_.max_scale_down_rate));
  const int stable_pods = std::clamp(ceil_div(stable_avg, target_), max_down, max_up);
  const int panic_pods = std::clamp(ceil_div(panic_avg, target_), max_down, max_up);

  // Panic when the panic window asks for at least 200% of the ready pods; leave it once a
  // whole stable window has passed without that.
  if (panic_avg / target_ / ready >= p_.panic_threshold_percentage / 100.0) {
    if (!in_panic_) max_panic_pods_ = o.workers;
    in_panic_ = true;
    panic_since_ = o.now;
  } else if (in_panic_ && o.now - panic_since_ >= p_.stable_window) {
    in_panic_ = false;
    max_panic_pods_ = 0;
  }
  int want = stable_pods;
  if (in_panic_) {
    want = std::max(panic_pods, max_panic_pods_);  // no scale-down while panicking
    max_panic_pods_ = want;
  }
  // The last worker goes only after the grace period past the stable window's reaching zero.
  if (want == 0) {
    if (!zero_pending_) {
      zero_pending_ = true;
      zero_since_ = o.now;
    }
    if (o.workers > 0 && o.now - zero_since_ < p_.scale_to_zero_grace) want = 1;
  } else {
    zero_pending_ = false;
  }
  return want;
}

// ---- Ray Serve -------------------------------------------------------------------------------

RayServePolicy::RayServePolicy(const EndpointConfig&, RayServeParams p) : p_(p), ongoing_(p.look_back_period) {}

int RayServePolicy::desired(const Observation& o) {
  const double ongoing = ongoing_.push(o.now, static_cast<double>(o.pending + o.in_flight));
  if (target_replicas_ < 0) target_replicas_ = o.workers;
  if (target_replicas_ == 0 && o.pending + o.in_flight > 0) {  // scale from zero at once
    target_replicas_ = 1;
    direction_ = 0;
    return target_replicas_;
  }
  const int want = ceil_div(ongoing, p_.target_ongoing_requests);
  const int dir = want > target_replicas_ ? 1 : want < target_replicas_ ? -1 : 0;
  if (dir != direction_) {
    direction_ = dir;
    since_ = o.now;
  }
  if (dir == 0) return target_replicas_;
  const core::Duration delay = dir > 0                                    ? p_.upscale_delay
                               : (want == 0 && target_replicas_ == 1) ? p_.downscale_to_zero_delay
                                                                        : p_.downscale_delay;
  if (o.now - since_ >= delay) {
    target_replicas_ = want;
    direction_ = 0;
  }
  return target_replicas_;
}

// ---- predictive ------------------------------------------------------------------------------

PredictivePolicy::PredictivePolicy(const EndpointConfig& c, PredictiveParams p)
    : p_(p),
      concurrency_(c.concurrency_per_worker),
      spare_(c.warm_pool.target_warm_workers),
      horizon_buckets_(seconds(c.cold_start.duration()) / seconds(p.bucket)),
      idle_timeout_(c.warm_pool.idle_timeout),
      history_buckets_(static_cast<std::size_t>(c.warm_pool.traffic_history_hours * 3600.0 / seconds(p.bucket))),
      held_(p.hold) {}

void PredictivePolicy::close_bucket() {
  const double rate = bucket_work_s_ / seconds(p_.bucket);
  if (history_.empty()) {
    level_ = rate;
    trend_ = 0;
  } else {
    const double prev = level_;
    level_ = p_.alpha * rate + (1 - p_.alpha) * (level_ + trend_);
    trend_ = p_.beta * (level_ - prev) + (1 - p_.beta) * trend_;
  }
  history_.push_back(rate);
  if (history_.size() > history_buckets_) history_.pop_front();
  double f = std::max(0.0, level_ + horizon_buckets_ * trend_);
  // Same time yesterday, one cold start ahead, when the history reaches that far.
  const auto per_day = static_cast<std::size_t>(86'400.0 / seconds(p_.bucket));
  const auto ahead = static_cast<std::size_t>(std::ceil(horizon_buckets_));
  if (history_.size() >= per_day && ahead < per_day) f = std::max(f, history_[history_.size() - per_day + ahead]);
  forecast_ = f;
  bucket_work_s_ = 0;
}

int PredictivePolicy::desired(const Observation& o) {
  if (!started_) {
    started_ = true;
    bucket_start_ = o.now;
  }
  while (o.now - bucket_start_ >= p_.bucket) {
    close_bucket();
    bucket_start_ = bucket_start_ + p_.bucket;
  }
  bucket_work_s_ += seconds(o.arrived_work);
  const std::int64_t load = o.pending + o.in_flight;
  if (load > 0 || o.arrivals > 0) {
    last_traffic_ = o.now;
    seen_traffic_ = true;
  }
  const bool recent = seen_traffic_ && o.now - last_traffic_ < idle_timeout_;
  const double slots = std::max(forecast_ * p_.headroom, static_cast<double>(load));
  const int want = ceil_div(slots, concurrency_) + (recent ? spare_ : 0);
  return held_.push(o.now, want);
}

// ---- budget cap ------------------------------------------------------------------------------

BudgetCapPolicy::BudgetCapPolicy(const EndpointConfig& c, std::unique_ptr<AutoscalePolicy> inner) : inner_(std::move(inner)) {
  const core::int128 per_worker = c.price_per_gpu_hour.units() * c.gpus_per_worker;
  const core::int128 cap = c.warm_pool.max_idle_cost_per_hour.units();
  max_idle_ = per_worker <= 0 ? std::numeric_limits<int>::max() / 2
                              : static_cast<std::int64_t>(std::min<core::int128>(cap / per_worker, EndpointConfig::kMaxWorkers));
}

int BudgetCapPolicy::desired(const Observation& o) {
  const int want = inner_->desired(o);
  const std::int64_t cap = std::int64_t{o.busy} + o.starting + max_idle_;
  return static_cast<int>(std::min<std::int64_t>(want, cap));
}

core::Result<std::unique_ptr<AutoscalePolicy>> make_policy(std::string_view name, const EndpointConfig& c,
                                                           std::string_view field) {
  if (name == "queue_depth") return std::unique_ptr<AutoscalePolicy>(std::make_unique<QueueDepthPolicy>(c));
  if (name == "kpa") return std::unique_ptr<AutoscalePolicy>(std::make_unique<KpaPolicy>(c));
  if (name == "ray_serve") return std::unique_ptr<AutoscalePolicy>(std::make_unique<RayServePolicy>(c));
  if (name == "predictive") return std::unique_ptr<AutoscalePolicy>(std::make_unique<PredictivePolicy>(c));
  if (name == "budget") {
    if (c.warm_pool.max_idle_cost_per_hour.is_zero()) {
      return core::Error::invalid("warm_pool.max_idle_cost_per_hour", "0",
                                  "the budget policy needs a positive max_idle_cost_per_hour in the endpoint");
    }
    return std::unique_ptr<AutoscalePolicy>(std::make_unique<BudgetCapPolicy>(c, std::make_unique<QueueDepthPolicy>(c)));
  }
  std::string why = "unknown policy; expected one of";
  for (std::size_t i = 0; i < std::size(kPolicyNames); ++i) why += (i ? ", " : " ") + std::string(kPolicyNames[i]);
  return core::Error::invalid(std::string(field), std::string(name), why);
}

}  // namespace budcore::serverless
