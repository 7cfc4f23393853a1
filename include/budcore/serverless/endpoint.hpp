// budcore::serverless::EndpointConfig — one serverless endpoint: the model its workers serve,
// the GPU they hold, how long a worker takes to start and to serve a request, its warm pool,
// its SLA, its queue limits, its tenants' limits and its priority weights.
//
// Document (YAML or JSON; every key but `name` and `model` is optional):
//   schema_version: 1
//   name: chat                     # DNS-1123 label
//   model: llama-3-8b
//   gpu_type: nvidia-a100-80gb     # the flavor or GPU type a worker runs on
//   gpus_per_worker: 1
//   concurrency_per_worker: 4      # requests one worker serves at once
//   price_per_gpu_hour: "2.49"     # exact decimal, in `currency`
//   currency: USD
//   cold_start: {container_seconds: 8, model_gib: 16, load_gib_per_second: 1.0, warmup_seconds: 2}
//   service:    {prefill_tokens_per_second: 8000, decode_tokens_per_second: 50, overhead_seconds: 0.05}
//   warm_pool:  {min_warm_workers: 0, max_warm_workers: 8, target_warm_workers: 1,
//                idle_timeout_seconds: 300, warmup_timeout_seconds: 120,
//                max_idle_cost_per_hour: "5.00", enable_predictive_scaling: false,
//                traffic_history_hours: 24}
//   sla:        {max_wait_seconds: 30, max_process_seconds: 600}
//   queue:      {max_queue_size: 10000, dedup_window_seconds: 60, max_retries: 2,
//                max_payload_bytes: 1048576}
//   tenants:    {default_concurrency: 1000, concurrency: {acme: 10},
//                rate_per_second: 0, burst: 0}          # rate 0: no rate limit
//   priority_weights: {premium: 4, standard: 3, spot: 2, batch: 1}
//
// Errors are Invalid and name the field by its path ("warm_pool.min_warm_workers"), the value
// as written and why; unknown keys are errors with a "did you mean" hint.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "budcore/core/money.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::serverless {

// The request classes, highest first (P0..P3).
enum class Priority : std::uint8_t { Premium, Standard, Spot, Batch };
inline constexpr Priority kAllPriorities[] = {Priority::Premium, Priority::Standard, Priority::Spot, Priority::Batch};
BUDCORE_API std::string_view to_string(Priority p) noexcept;  // "premium", ...
BUDCORE_API core::Result<Priority> parse_priority(std::string_view text);  // any letter case

// Time to bring a worker from nothing to serving: pull and start the container, load the
// weights, warm the CUDA context (the layers of a cold start).
struct BUDCORE_API ColdStartModel {
  double container_seconds = 8.0;
  double model_gib = 16.0;
  double load_gib_per_second = 1.0;
  double warmup_seconds = 2.0;
  core::Duration duration() const;
  friend bool operator==(const ColdStartModel&, const ColdStartModel&) = default;
};

// Time one request holds a worker slot: prompt tokens at the prefill rate, generated tokens
// at the decode rate, plus a fixed overhead.
struct BUDCORE_API ServiceModel {
  double prefill_tokens_per_second = 8000.0;
  double decode_tokens_per_second = 50.0;
  double overhead_seconds = 0.05;
  core::Duration duration(std::int64_t context_tokens, std::int64_t generated_tokens) const;
  friend bool operator==(const ServiceModel&, const ServiceModel&) = default;
};

// An endpoint's warm pool: its sizes, timeouts, idle-cost cap and predictive scaling.
struct WarmPoolConfig {
  int min_warm_workers = 0;
  int max_warm_workers = 5;
  int target_warm_workers = 1;  // spare ready workers kept while traffic is recent
  core::Duration idle_timeout = core::Duration::seconds(300);
  core::Duration warmup_timeout = core::Duration::seconds(120);
  core::Money max_idle_cost_per_hour;  // zero amount: no cap
  bool enable_predictive_scaling = false;
  int traffic_history_hours = 24;
  friend bool operator==(const WarmPoolConfig&, const WarmPoolConfig&) = default;
};

struct SlaConfig {
  core::Duration max_wait = core::Duration::seconds(30);      // queue wait before TIMEOUT
  core::Duration max_process = core::Duration::seconds(600);  // processing before a failed attempt
  friend bool operator==(const SlaConfig&, const SlaConfig&) = default;
};

struct QueueLimits {
  std::int64_t max_queue_size = 10'000;
  core::Duration dedup_window = core::Duration::seconds(60);
  int max_retries = 2;
  std::int64_t max_payload_bytes = 1 << 20;
  friend bool operator==(const QueueLimits&, const QueueLimits&) = default;
};

struct BUDCORE_API TenantLimits {
  std::int64_t default_concurrency = 1000;              // pending + in flight per tenant
  std::map<std::string, std::int64_t, std::less<>> concurrency;  // per-tenant overrides
  double rate_per_second = 0;  // token bucket refill; 0 turns rate limiting off
  double burst = 0;            // bucket size (default: one second of rate)
  std::int64_t concurrency_of(std::string_view tenant) const;
  friend bool operator==(const TenantLimits&, const TenantLimits&) = default;
};

struct BUDCORE_API EndpointConfig {
  static constexpr int kSchemaVersion = 1;
  static constexpr int kMaxWorkers = 100'000;

  std::string name;
  std::string model;
  std::string gpu_type = "nvidia-a100-80gb";
  int gpus_per_worker = 1;
  int concurrency_per_worker = 4;
  core::Money price_per_gpu_hour;  // "0 USD" by default
  ColdStartModel cold_start;
  ServiceModel service;
  WarmPoolConfig warm_pool;
  SlaConfig sla;
  QueueLimits queue;
  TenantLimits tenants;
  std::array<int, 4> priority_weights = {4, 3, 2, 1};  // by Priority

  int weight(Priority p) const noexcept { return priority_weights[static_cast<std::size_t>(p)]; }

  static core::Result<EndpointConfig> from_value(const core::Value& document);
  static core::Result<EndpointConfig> from_text(std::string_view text);  // JSON or YAML
  static core::Result<EndpointConfig> load_file(const std::string& path);
  core::Value to_value() const;
};

}  // namespace budcore::serverless
