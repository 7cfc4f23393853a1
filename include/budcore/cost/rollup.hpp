// budcore::cost rollups — usage records summed per time bucket (minute, hour, day, calendar
// month = billing period) and per dimension (tenant, project, GPU type, label, ...).
//
// A record that spans several buckets is split across them in proportion to time: the share
// of bucket k is round(V x t_k / T) - round(V x t_(k-1) / T) (half-to-even, at the quantity's
// or amount's own precision), so the pieces of every quantity and amount add up to the
// record's exact value. Buckets are UTC.
//
// rollup_columns() is the fast path for millions of records already in columns (numpy arrays,
// Arrow, a metrics store): dictionary-coded tenants and GPU types, one bucket per record (the
// bucket of its start, as per-second/per-minute metering emits records that never cross one),
// summed on several threads into dense arrays.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/int128.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/export.h"

namespace budcore::cost {

enum class Granularity : std::uint8_t { Minute, Hour, Day, Month, Total };
BUDCORE_API std::string_view to_string(Granularity g) noexcept;  // "minute", ..., "month", "total"
BUDCORE_API core::Result<Granularity> parse_granularity(std::string_view text);

// The UTC bucket that holds `t` ([start, end)); Total is one bucket for all time.
BUDCORE_API core::Timestamp bucket_start(Granularity g, core::Timestamp t) noexcept;
BUDCORE_API core::Timestamp bucket_end(Granularity g, core::Timestamp bucket) noexcept;

enum class Dimension : std::uint8_t {
  Tenant, Project, Job, Pipeline, Cluster, Node, GpuType, SharingMode, Tier, JobType, Label
};

// One grouping key: a dimension, or a label's value ("label:team"; records without the label
// group under "").
struct GroupBy {
  Dimension dimension = Dimension::Tenant;
  std::string label;
  std::string name() const;  // "tenant", "gpu_type", "label:team"
  friend bool operator==(const GroupBy&, const GroupBy&) = default;
};
BUDCORE_API core::Result<GroupBy> parse_group_by(std::string_view text);
// "tenant,gpu_type,label:team" (field names the offending item: "by[2]").
BUDCORE_API core::Result<std::vector<GroupBy>> parse_group_by_list(std::string_view text);
// The record's key for a dimension ("" when it has none).
BUDCORE_API std::string key_of(const Usage& usage, const GroupBy& by);

struct RollupQuery {
  Granularity granularity = Granularity::Hour;
  std::vector<GroupBy> by;
  std::optional<core::Timestamp> from;  // only the parts of records inside [from, to)
  std::optional<core::Timestamp> to;
};

struct RollupRow {
  core::Timestamp bucket;  // start of the bucket (epoch for Total)
  std::vector<std::string> keys;  // one per GroupBy
  std::int64_t records = 0;  // records that touch the bucket
  core::Quantity seconds;
  core::Quantity gpu_seconds;
  core::Quantity idle_gpu_seconds;
  core::Quantity cpu_core_seconds;
  core::Quantity memory_gib_seconds;
  core::Money cost;
  core::Money idle_cost;
  std::int64_t tokens_in = 0;  // counted in the bucket of the record's start
  std::int64_t tokens_out = 0;
  std::int64_t requests = 0;
};

struct Rollup {
  Granularity granularity = Granularity::Hour;
  std::vector<GroupBy> by;
  std::string currency;
  std::vector<RollupRow> rows;  // by bucket, then keys
};

// Bounded: a record split into more than kMaxPieces buckets in total is an error (Invalid,
// field "granularity": choose a coarser one or a narrower range).
inline constexpr std::size_t kMaxRollupPieces = 50'000'000;
BUDCORE_API core::Result<Rollup> rollup(std::span<const Usage> usage, const RollupQuery& query);
BUDCORE_API core::Value to_value(const Rollup& r);
// CSV with a header: bucket,<by...>,records,seconds,gpu_seconds,...,cost,idle_cost,...
BUDCORE_API std::string to_csv(const Rollup& r);

// ---- serverless endpoints: spend per endpoint and time bucket -------------------------------

// The label a serverless endpoint's usage rows carry, valued with the endpoint's name
// (platform::ServerlessEndpoint::meter writes one row per worker and call).
inline constexpr std::string_view kServerlessEndpointLabel = "serverless_endpoint";

struct ServerlessRollupQuery {
  Granularity granularity = Granularity::Hour;
  std::string endpoint;  // "" = every endpoint
  std::optional<core::Timestamp> from;  // only the parts of rows inside [from, to)
  std::optional<core::Timestamp> to;
};

// {"endpoint": "chat", "granularity": "hour", "from": RFC 3339, "to": ...}; every key may be
// left out; unknown keys are rejected; the error names the key, the value and why.
BUDCORE_API core::Result<ServerlessRollupQuery> read_serverless_rollup_query(const core::Value& document);

struct ServerlessRollupRow {
  core::Timestamp bucket;  // start of the bucket (epoch for Total)
  std::string endpoint;
  std::int64_t workers = 0;  // worker jobs with time in the bucket
  std::int64_t records = 0;  // usage rows that touch the bucket
  core::Quantity gpu_seconds;
  core::Quantity busy_gpu_seconds;  // a request in flight
  core::Quantity idle_gpu_seconds;  // no request (cold starts included)
  core::Money cost;
  core::Money busy_cost;
  core::Money idle_cost;
};

struct ServerlessRollup {
  Granularity granularity = Granularity::Hour;
  std::string endpoint;  // the query's ("" = every endpoint)
  std::string currency;
  std::vector<ServerlessRollupRow> rows;  // by bucket, then endpoint
};

// The usage rows labelled serverless_endpoint (others are left out) summed per bucket and
// endpoint, split across buckets as rollup() splits them.
BUDCORE_API core::Result<ServerlessRollup> serverless_rollup(std::span<const Usage> usage,
                                                             const ServerlessRollupQuery& query);
// {"granularity", "endpoint" (null: every one), "by": ["endpoint"], "currency", "rows": [{"bucket", "endpoint",
//  "workers", "records", "gpu_seconds", "busy_gpu_seconds", "idle_gpu_seconds", "cost",
//  "busy_cost", "idle_cost"}]}
BUDCORE_API core::Value to_value(const ServerlessRollup& r);
// CSV: bucket,endpoint,workers,records,gpu_seconds,busy_gpu_seconds,idle_gpu_seconds,cost,busy_cost,idle_cost
BUDCORE_API std::string to_csv(const ServerlessRollup& r);

// ---- billing period (a tenant's calendar month) ---------------------------------------------

enum class BillingStatus : std::uint8_t { Open, Closed, Invoiced, Paid };
BUDCORE_API std::string_view to_string(BillingStatus s) noexcept;

struct GpuTypeUsage {
  std::string gpu_type;
  core::Quantity seconds;  // GPU-seconds
  core::Money cost;        // GPU cost of that type
};

struct BillingPeriod {
  core::Id tenant_id;
  core::Timestamp period_start;  // first instant of the calendar month (UTC)
  core::Timestamp period_end;
  core::Quantity total_gpu_seconds;
  core::Money total_cost;
  std::int64_t total_requests = 0;
  std::vector<GpuTypeUsage> usage_by_gpu_type;  // by type name
  BillingStatus status = BillingStatus::Open;  // Open until period_end has passed at `now`
};

// The month of `at` for `tenant`, from records of that tenant (others are ignored); parts of
// records outside the month are left out.
BUDCORE_API core::Result<BillingPeriod> billing_period(std::span<const Usage> usage, const core::Id& tenant,
                                                       core::Timestamp at, core::Timestamp now);
BUDCORE_API core::Value to_value(const BillingPeriod& p);

// ---- columns: the fast path ----------------------------------------------------------------

struct UsageColumns {
  std::span<const std::int64_t> start_seconds;  // Unix seconds of each record's start
  std::span<const std::int32_t> tenant;         // dictionary codes, >= 0
  std::span<const std::int32_t> gpu_type;       // dictionary codes, >= 0
  std::span<const std::int64_t> gpu_nanos;      // GPU-seconds in nano-units (exact)
  std::span<const std::int64_t> cost_pico;      // cost in pico-units of the currency (Money's unit)
};

struct ColumnRollupRow {
  std::int64_t bucket_start = 0;  // Unix seconds
  std::int32_t tenant = 0;
  std::int32_t gpu_type = 0;
  std::int64_t records = 0;
  core::int128 gpu_nanos = 0;
  core::int128 cost_pico = 0;
};

// bucket x tenant x gpu_type sums, ordered by bucket, tenant, gpu_type. threads 0 = the
// hardware's (at most 8). Invalid when the columns differ in length (field names the column)
// or a code is negative.
BUDCORE_API core::Result<std::vector<ColumnRollupRow>> rollup_columns(const UsageColumns& columns,
                                                                      Granularity granularity, unsigned threads = 0);

}  // namespace budcore::cost
