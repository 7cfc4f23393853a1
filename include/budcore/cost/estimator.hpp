// budcore::cost estimator — "what will this cost?" before submission (docs/cli.md contract 5).
//
// A job is priced line by line: gpu (gpu_count x seconds at gpu_hour[gpu_type][tier]), cpu
// (cpu_cores x seconds at cpu_core_hour[tier]), memory (memory_gb x seconds at
// memory_gib_hour[tier]) and storage (storage_gb x seconds at storage_gib_month), each line
// omitted when its quantity is 0. seconds = max(estimated_duration_seconds,
// minimum_billable_seconds); a SERVICE job without an estimate is priced for one month of 730
// hours (2,628,000 s, period "month"). The tier is spot for a spot-priority job, else
// on_demand. amount = quantity x unit_price / 3600 (storage: / 2,592,000), formed exactly and
// rounded once, half-to-even, to 6 decimals; total = the sum of the amounts. Nothing passes
// through a double (docs/cost.md).
//
// A pipeline ({"pipeline", "steps"}) is the sum of its JOB steps; steps that may not run (a
// `condition`, or a then/else branch of a CONDITION step) count in `total` but not in
// `total_min`. A use-case render (contract-4 output) is estimated through its `pipeline`, a
// step's missing resources taken from its component entry; services are priced per month.
//
// Errors name the path of the offending field (steps[2].config.gpu_type) and map to the
// contract's codes with contract_error_code(): unknown_price (ErrorCode::NotFound: a GPU type,
// tier or resource price the book lacks), missing_field, invalid_value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"

namespace budcore::cost {

inline constexpr std::int64_t kSecondsPerHour = 3'600;
inline constexpr std::int64_t kSecondsPerStorageMonth = 2'592'000;  // 30 days
inline constexpr std::int64_t kSecondsPerServiceMonth = 2'628'000;  // 730 hours
inline constexpr int kEstimateDecimals = 6;
// Bounds on what an estimate reads (larger is an invalid_value error).
inline constexpr std::int64_t kMaxEstimateSeconds = 100LL * 365 * 86'400;
inline constexpr std::int64_t kMaxGpuCount = 1'000'000;
inline constexpr std::size_t kMaxPipelineSteps = 100'000;

// What a job asks for, as far as its price goes. `path` prefixes error paths ("" for a job
// document, "steps[2].config" for a pipeline step).
struct ResourceRequest {
  job::JobType job_type = job::JobType::Batch;
  std::optional<std::string> gpu_type;
  std::int64_t gpu_count = 0;
  core::Quantity cpu_cores = core::Quantity::from_int(1);
  core::Quantity memory_gb = core::Quantity::from_int(4);  // GiB
  std::int64_t storage_gb = 0;                             // GiB
  std::optional<std::int64_t> estimated_duration_seconds;
  job::JobPriority priority = job::JobPriority::Normal;
  // A serverless endpoint's worker (a service with spec.serverless_endpoint): it runs until its
  // endpoint scales it down, so without an estimate it is priced for one hour, at its hourly rate.
  bool open_ended = false;
  std::string path;
};

// The cost fields of a job document (job/job.hpp). Every key of the job schema is
// accepted (unknown keys are rejected with a hint) but only the priced ones are read, so a
// sketch without name or deployment_type can be priced.
BUDCORE_API core::Result<ResourceRequest> read_job_request(const core::Value& document);
BUDCORE_API ResourceRequest request_of(const job::Job& job);

struct EstimateLine {
  std::string item;      // "gpu", "cpu", "memory", "storage"
  std::string resource;  // the GPU type, "cpu", "memory", "storage"
  core::Quantity quantity;  // unit-seconds, exact
  std::string unit;      // "gpu-second", "core-second", "GiB-second"
  Price unit_price;      // per hour (storage: per month), as the book writes it
  core::Money amount;    // rounded half-even to 6 decimals
};

struct JobEstimate {
  std::string currency;
  std::int64_t seconds = 0;
  Tier tier = Tier::OnDemand;
  bool monthly = false;  // a service priced for a month ("period": "month")
  bool hourly = false;   // an open-ended serverless worker priced for one hour ("period": "hour")
  core::Money total;
  std::vector<EstimateLine> lines;
};

struct StepEstimate {
  std::string step;
  bool optional = false;  // behind a condition: not in total_min
  JobEstimate estimate;
};

struct PipelineEstimate {
  std::string currency;
  std::vector<StepEstimate> steps;  // JOB steps in document order
  core::Money total;
  core::Money total_min;
};

struct EstimateOptions {
  std::optional<Tier> tier;  // price every job at this tier instead of the priority's
};

BUDCORE_API core::Result<JobEstimate> estimate(const PriceBook& book, const ResourceRequest& request,
                                               const EstimateOptions& options = {});
BUDCORE_API core::Result<JobEstimate> estimate_job(const PriceBook& book, const job::Job& job,
                                                   const EstimateOptions& options = {});
// A pipeline document, or a contract-4 use-case render (its `pipeline` and `components`).
BUDCORE_API core::Result<PipelineEstimate> estimate_pipeline(const PriceBook& book, const core::Value& document,
                                                             const EstimateOptions& options = {});

// Contract 5's SPEC: a job document, a pipeline document or a contract-4 render.
struct Estimate {
  std::variant<JobEstimate, PipelineEstimate> result;
  bool is_pipeline() const noexcept { return result.index() == 1; }
  const core::Money& total() const noexcept;
  const std::string& currency() const noexcept;
};
BUDCORE_API core::Result<Estimate> estimate_document(const PriceBook& book, const core::Value& spec,
                                                     const EstimateOptions& options = {});

// The contract-5 JSON shapes.
BUDCORE_API core::Value to_value(const JobEstimate& e);
BUDCORE_API core::Value to_value(const PipelineEstimate& e);
BUDCORE_API core::Value to_value(const Estimate& e);

// "unknown_price", "missing_field" or "invalid_value" for an estimator error.
BUDCORE_API std::string_view contract_error_code(const core::Error& e) noexcept;

// ---- spot vs on-demand ---------------------------------------------------------------------

struct TierComparison {
  Estimate on_demand;
  Estimate spot;
  core::Money savings;          // on_demand.total - spot.total
  std::string savings_percent;  // of on_demand, 2 decimals, half-even ("52.21"); "0.00" when free
};
BUDCORE_API core::Result<TierComparison> compare_tiers(const PriceBook& book, const core::Value& spec);
BUDCORE_API core::Value to_value(const TierComparison& c);

// ---- cheapest GPU type ---------------------------------------------------------------------

struct GpuRequirement {
  std::int64_t memory_gib = 0;  // device memory each GPU must have
  std::int64_t gpu_count = 1;
  std::int64_t seconds = kSecondsPerHour;
  Tier tier = Tier::OnDemand;
};

struct GpuOption {
  std::string gpu_type;
  std::int64_t memory_gib = 0;
  Price unit_price;  // per device-hour
  core::Money cost;  // gpu_count x seconds, 6 decimals
};

struct GpuSearch {
  std::vector<GpuOption> options;  // every type that fits, cheapest first (then by name)
  std::vector<std::string> unknown_memory;  // types skipped: no memory_gib and none in the name
};

// Types whose device memory (gpu_hour.<type>.memory_gib, else the "<N>gb" its name ends in:
// nvidia-a100-80gb, mig-3g.40gb) is at least memory_gib and that have a price at the tier.
// NotFound when none fits.
BUDCORE_API core::Result<GpuSearch> cheapest_gpu(const PriceBook& book, const GpuRequirement& requirement);
BUDCORE_API core::Result<GpuRequirement> read_gpu_requirement(const core::Value& document);
BUDCORE_API core::Value to_value(const GpuSearch& s);
// The device memory of a GPU type as the book or its name tells it.
BUDCORE_API std::optional<std::int64_t> gpu_memory_gib(const PriceBook& book, std::string_view gpu_type);

}  // namespace budcore::cost
