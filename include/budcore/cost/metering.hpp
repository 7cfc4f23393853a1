// budcore::cost metering — what running jobs actually cost, per second.
//
// The platform reports a running interval of a job on its allocation (UsageInterval: job,
// start, end, GPU type and count, sharing mode, MIG profile, tier, ...). meter() prices it
// against a PriceBook into a Usage record (a UsageRecord: gpu-seconds, GPU
// memory GB-seconds, tokens, computed cost) and record_usage() appends it to a UsageLedger
// (a backend::Store; the record's `data` is Usage::to_value()). job_actual_cost() and
// pipeline_actual_cost() add a job's or a pipeline run's records back up.
//
// Pricing per record: gpu = gpu_count x seconds at gpu_hour[type][tier] x the sharing mode's
// multiplier (a MIG slice is priced as the GPU type its profile names); cpu, memory and storage
// as in the estimator; amounts rounded once, half-to-even, to 12 decimals (Money's own
// precision), so sums over millions of records stay exact. Idle cost is the part of the GPU
// cost the job did not use (1 - gpu_utilization of the allocated GPU-seconds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/cost/usage_ledger.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"

namespace budcore::cost {

inline constexpr int kMeteringDecimals = 12;
// One interval may span at most this long (a metering loop reports far more often).
inline constexpr std::int64_t kMaxIntervalSeconds = 366LL * 86'400;

// A running interval of a job, as the platform (or a cluster's metrics) reports it.
struct UsageInterval {
  core::Id tenant_id;
  core::Id project_id;
  core::Id job_id;  // required
  std::optional<core::Id> pipeline_id;  // the pipeline run that created the job
  core::Id cluster_id;
  std::string node_name;
  job::JobType job_type = job::JobType::Batch;
  std::map<std::string, std::string> labels;  // chargeback labels: team, experiment, ...

  std::optional<std::string> gpu_type;  // required when gpu_count > 0
  std::int64_t gpu_count = 0;
  std::optional<std::int64_t> gpu_index;  // the device, when one record is one GPU
  SharingMode sharing_mode = SharingMode::Full;
  std::optional<std::string> mig_profile;  // "1g.5gb"; priced as gpu_hour["mig-1g.5gb"] (or as written)
  Tier tier = Tier::OnDemand;

  core::Quantity cpu_cores;   // 0 unless given
  core::Quantity memory_gib;  // 0 unless given
  std::int64_t storage_gib = 0;

  core::Timestamp start;
  core::Timestamp end;  // after start

  // Busy share (0..1) of the allocated GPU time; absent = fully used (no idle cost).
  std::optional<core::Quantity> gpu_utilization;
  // GPU memory in use per device (GiB); absent = the type's memory_gib when known.
  std::optional<core::Quantity> gpu_memory_gib;
  std::int64_t tokens_in = 0;
  std::int64_t tokens_out = 0;
  std::int64_t requests = 0;
};

// The interval a job ran on its allocation, as the platform knows it from the job.
BUDCORE_API UsageInterval interval_of(const job::Job& job, core::Timestamp start, core::Timestamp end);

// A priced usage record.
struct BUDCORE_API Usage {
  std::int64_t seq = 0;  // the store's sequence number (0 until stored)
  UsageInterval interval;
  std::string currency;
  core::Quantity seconds;               // end - start, to the nanosecond
  core::Quantity gpu_seconds;           // allocated device-seconds
  core::Quantity idle_gpu_seconds;      // allocated but unused
  core::Quantity gpu_memory_gb_seconds;
  core::Quantity cpu_core_seconds;
  core::Quantity memory_gib_seconds;
  core::Quantity storage_gib_seconds;
  core::Money gpu_cost;
  core::Money idle_cost;  // part of gpu_cost
  core::Money cpu_cost;
  core::Money memory_cost;
  core::Money storage_cost;
  core::Money computed_cost;  // gpu + cpu + memory + storage

  // Flat snake_case document: the interval's fields, the quantities (exact decimal strings) and
  // the amounts (decimal strings, 12 places at most). from_value reads it back (strictly).
  core::Value to_value() const;
  static core::Result<Usage> from_value(const core::Value& document);
};

// Reads a UsageInterval document (the same keys as Usage::to_value's interval part:
// tenant_id, project_id, job_id, pipeline_id, cluster_id, node_name, job_type, labels,
// gpu_type, gpu_count, gpu_index, sharing_mode, mig_profile, tier, cpu_cores, memory_gib,
// storage_gib, start, end, gpu_utilization, gpu_memory_gib, tokens_in, tokens_out, requests).
BUDCORE_API core::Result<UsageInterval> read_interval(const core::Value& document);
BUDCORE_API core::Value to_value(const UsageInterval& interval);

// Prices an interval. Errors: Invalid naming the field (end not after start, gpu_count without
// gpu_type, ...); NotFound (unknown_price) when the book lacks a price it needs.
BUDCORE_API core::Result<Usage> meter(const PriceBook& book, const UsageInterval& interval);

// Usage from a document: a list (or {"usage": [...]}) whose items are Usage documents (they
// carry computed_cost) or intervals, which are priced with `book` (Invalid without one).
// Errors name the item ("usage[3].end").
BUDCORE_API core::Result<std::vector<Usage>> read_usage_list(const core::Value& document, const PriceBook* book);
// The same from text: one JSON/YAML document, or JSON Lines (one record per line), of at most
// kMaxUsageBytes.
BUDCORE_API core::Result<std::vector<Usage>> parse_usage_text(std::string_view text, const PriceBook* book);

// Input size caps: a document a person writes (price book, budgets, query, spec), and a usage
// file (many records).
inline constexpr std::size_t kMaxDocumentBytes = 16u << 20;
inline constexpr std::size_t kMaxUsageBytes = 1u << 30;

// The ledger's form: job_id, start and end as columns, the rest in data.
BUDCORE_API UsageRecord to_record(const Usage& usage);
BUDCORE_API core::Result<Usage> from_record(const UsageRecord& record);

// meter() + UsageLedger::append_usage for interval.tenant_id; returns the stored record (seq set).
BUDCORE_API core::Result<Usage> record_usage(UsageLedger& store, const PriceBook& book, const UsageInterval& interval);

// Every usage record of `tenant` matching the query, oldest first (all pages). At most
// max_records (Invalid beyond it: narrow the time range).
BUDCORE_API core::Result<std::vector<Usage>> load_usage(UsageLedger& store, const core::Id& tenant,
                                                        const UsageQuery& query = {},
                                                        std::size_t max_records = 10'000'000);

// What a set of records adds up to.
struct CostSummary {
  std::string currency;
  std::int64_t records = 0;
  core::Quantity seconds;  // sum of the records' durations
  core::Quantity gpu_seconds;
  core::Quantity idle_gpu_seconds;
  core::Money gpu_cost;
  core::Money idle_cost;
  core::Money cpu_cost;
  core::Money memory_cost;
  core::Money storage_cost;
  core::Money total;
  std::optional<core::Timestamp> first_start;
  std::optional<core::Timestamp> last_end;
};
// Sums records; Invalid (field "currency") when they mix currencies.
BUDCORE_API core::Result<CostSummary> summarize(std::span<const Usage> usage);
BUDCORE_API core::Value to_value(const CostSummary& summary);

// Actual cost of a job from its usage records (job_id index of the store).
BUDCORE_API core::Result<CostSummary> job_actual_cost(UsageLedger& store, const core::Id& tenant,
                                                      const core::Id& job_id);
// Actual cost of a pipeline run: every record whose pipeline_id is the run's, optionally
// within [from, to) to bound the scan.
BUDCORE_API core::Result<CostSummary> pipeline_actual_cost(UsageLedger& store, const core::Id& tenant,
                                                           const core::Id& pipeline_id,
                                                           const UsageQuery& range = {});

// The job-level budget_limit (the job fails when its cost exceeds it): BudgetExceeded
// naming "budget_limit" when `actual` (converted to the job's currency through `book`) is above
// it; OK when the job has no limit.
BUDCORE_API core::Status check_job_budget_limit(const job::Job& job, const core::Money& actual, const PriceBook& book);

}  // namespace budcore::cost
