// budcore::cost forecasts and anomalies — month-end spend from the month's daily totals
// (least squares, Eigen), spikes against the recent baseline (z-score) and runaway jobs.
//
// Forecasts are estimates: the fit runs in double precision and its result is rounded
// half-to-even to 6 decimals into Money. Observed spend (month_to_date) stays exact.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "budcore/core/notifier.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"

namespace budcore::cost {

struct DailyCost {
  core::Timestamp day;  // midnight UTC
  core::Money cost;
};

// Total metered cost per UTC day in [from, to) (days without usage are 0), records split
// across midnight in proportion to time.
BUDCORE_API core::Result<std::vector<DailyCost>> daily_totals(std::span<const Usage> usage, core::Timestamp from,
                                                              core::Timestamp to);

struct SpendForecast {
  std::string currency;
  core::Timestamp period_start;  // the month of `now`
  core::Timestamp period_end;
  std::int64_t days_observed = 0;  // complete days before today that the fit used
  core::Money month_to_date;       // exact: every day of the month up to now
  core::Money forecast_total;      // observed complete days + the fitted rest of the month
  core::Money slope_per_day;       // the fitted trend (6 decimals)
  core::Money intercept;           // the fitted first day's spend (6 decimals)
};

// Fits cost = a + b x day over the month's complete days before `now` and extends it to the
// month's end (negative predictions count as 0). With one observed day the trend is flat; with
// none the forecast is the month-to-date. `days` may hold any days; those outside the month
// are ignored. Invalid when days mix currencies.
BUDCORE_API core::Result<SpendForecast> forecast_month_end(std::span<const DailyCost> days, core::Timestamp now);
BUDCORE_API core::Value to_value(const SpendForecast& f);

struct AnomalyOptions {
  std::size_t window = 14;        // baseline days before the day judged
  std::size_t min_baseline = 5;   // fewer baseline days: not judged
  double z_threshold = 3.0;       // spikes at or above this z-score are anomalies
};

struct Anomaly {
  core::Timestamp day;
  core::Money cost;
  double baseline_mean = 0;  // currency units
  double baseline_stddev = 0;
  double z_score = 0;  // +inf when the baseline is flat and the day is above it
};

// Days whose cost is a spike against the preceding window (sample standard deviation).
BUDCORE_API std::vector<Anomaly> detect_anomalies(std::span<const DailyCost> days, const AnomalyOptions& options = {});
BUDCORE_API core::Value to_value(const Anomaly& a);

// ---- runaway jobs --------------------------------------------------------------------------

struct RunawayCheck {
  core::Id job_id;
  std::string name;
  std::optional<core::Money> estimated_cost;
  core::Money actual_cost;
  std::optional<std::int64_t> estimated_duration_seconds;
  std::int64_t elapsed_seconds = 0;
};

struct RunawayOptions {
  // Runaway when actual > estimate x cost_factor, or elapsed > estimated duration x
  // duration_factor (factors as exact decimals).
  core::Quantity cost_factor = core::Quantity::from_milli(1'500);
  core::Quantity duration_factor = core::Quantity::from_int(2);
};

struct RunawayAlert {
  core::Id job_id;
  std::string name;
  std::string reason;
};

// The check of a running job from its record and metered cost so far.
BUDCORE_API RunawayCheck runaway_check_of(const job::Job& job, const CostSummary& actual, core::Timestamp now);
BUDCORE_API core::Result<std::vector<RunawayAlert>> detect_runaway(std::span<const RunawayCheck> jobs,
                                                                   const RunawayOptions& options = {});
// Sends one "error" notification per alert on `channel`; stops at the first failed delivery.
BUDCORE_API core::Status notify_runaway(core::Notifier& notifier, std::span<const RunawayAlert> alerts,
                                        const std::string& channel = "webhook",
                                        const std::vector<std::string>& recipients = {});

}  // namespace budcore::cost
