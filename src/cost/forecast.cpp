// Daily totals, the month-end forecast (Eigen least squares), z-score anomalies and runaway jobs.
#include "budcore/cost/forecast.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <limits>
#include <map>

#include "budcore/cost/rollup.hpp"
#include "cost/document.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::Map;
using core::Money;
using core::Result;
using core::Timestamp;
using core::Value;

constexpr std::int64_t kDayNanos = 86'400LL * 1'000'000'000;

// A double amount rounded half-to-even to 6 decimals (an estimate, never an observed amount).
Money money_of(double v, const std::string& currency) {
  if (!std::isfinite(v)) return Money::from_units(0, currency);
  const double micro = std::nearbyint(v * 1e6);  // default rounding mode: to nearest, ties to even
  constexpr double kMax = 9.2e18;
  const double clamped = micro > kMax ? kMax : (micro < -kMax ? -kMax : micro);
  return Money::from_units(static_cast<core::int128>(static_cast<std::int64_t>(clamped)) * 1'000'000, currency);
}

double units_of(const Money& m) { return static_cast<double>(m.units()) / 1e12; }

}  // namespace

Result<std::vector<DailyCost>> daily_totals(std::span<const Usage> usage, Timestamp from, Timestamp to) {
  if (!(from < to)) return Error::invalid("to", to.to_string(), "must be after from (" + from.to_string() + ")");
  if ((to.unix_nanos() - from.unix_nanos()) / kDayNanos > 100'000) {
    return Error::invalid("to", to.to_string(), "daily totals span at most 100000 days");
  }
  RollupQuery q;
  q.granularity = Granularity::Day;
  q.from = from;
  q.to = to;
  BUDCORE_TRY_ASSIGN(Rollup r, rollup(usage, q));
  std::map<std::int64_t, Money> by_day;
  for (const auto& row : r.rows) by_day.emplace(row.bucket.unix_nanos(), row.cost);
  std::vector<DailyCost> out;
  for (Timestamp d = bucket_start(Granularity::Day, from); d < to; d = bucket_end(Granularity::Day, d)) {
    auto it = by_day.find(d.unix_nanos());
    out.push_back(DailyCost{d, it == by_day.end() ? Money::from_units(0, r.currency) : it->second});
  }
  return out;
}

Result<SpendForecast> forecast_month_end(std::span<const DailyCost> days, Timestamp now) {
  SpendForecast f;
  f.period_start = bucket_start(Granularity::Month, now);
  f.period_end = bucket_end(Granularity::Month, f.period_start);
  const Timestamp today = bucket_start(Granularity::Day, now);
  for (const auto& d : days) {
    if (f.currency.empty() && !d.cost.currency().empty()) f.currency = d.cost.currency();
    if (!d.cost.currency().empty() && d.cost.currency() != f.currency) {
      return Error::invalid("currency", f.currency + " + " + d.cost.currency(), "daily totals mix currencies");
    }
  }
  f.month_to_date = Money::from_units(0, f.currency);
  Money observed = f.month_to_date;
  std::map<std::int64_t, Money> complete;  // day index in the month -> cost
  for (const auto& d : days) {
    if (d.day < f.period_start || !(d.day < now)) continue;
    BUDCORE_TRY_ASSIGN(f.month_to_date, f.month_to_date.checked_add(d.cost));
    if (d.day < today) {
      BUDCORE_TRY_ASSIGN(observed, observed.checked_add(d.cost));
      auto [it, fresh] = complete.try_emplace((d.day.unix_nanos() - f.period_start.unix_nanos()) / kDayNanos, d.cost);
      if (!fresh) {
        BUDCORE_TRY_ASSIGN(it->second, it->second.checked_add(d.cost));
      }
    }
  }
  f.days_observed = static_cast<std::int64_t>(complete.size());
  double a = 0, b = 0;
  if (complete.size() == 1) {
    a = units_of(complete.begin()->second);
  } else if (complete.size() >= 2) {
    Eigen::MatrixXd x(static_cast<Eigen::Index>(complete.size()), 2);
    Eigen::VectorXd y(static_cast<Eigen::Index>(complete.size()));
    Eigen::Index row = 0;
    for (const auto& [index, cost] : complete) {
      x(row, 0) = 1.0;
      x(row, 1) = static_cast<double>(index);
      y(row) = units_of(cost);
      ++row;
    }
    const Eigen::Vector2d coef = x.colPivHouseholderQr().solve(y);
    a = coef(0);
    b = coef(1);
  }
  f.intercept = money_of(a, f.currency);
  f.slope_per_day = money_of(b, f.currency);
  if (complete.empty()) {
    f.forecast_total = f.month_to_date;
    return f;
  }
  const std::int64_t days_in_month = (f.period_end.unix_nanos() - f.period_start.unix_nanos()) / kDayNanos;
  const std::int64_t today_index = (today.unix_nanos() - f.period_start.unix_nanos()) / kDayNanos;
  double rest = 0;
  for (std::int64_t i = today_index; i < days_in_month; ++i) rest += std::max(0.0, a + b * static_cast<double>(i));
  BUDCORE_TRY_ASSIGN(f.forecast_total, observed.checked_add(money_of(rest, f.currency)));
  return f;
}

Value to_value(const SpendForecast& f) {
  Map m;
  m.set("currency", Value(f.currency));
  m.set("period_start", Value(f.period_start.to_string()));
  m.set("period_end", Value(f.period_end.to_string()));
  m.set("days_observed", Value(static_cast<long long>(f.days_observed)));
  m.set("month_to_date", detail::amount_value(f.month_to_date));
  m.set("forecast_total", detail::amount_value(f.forecast_total));
  m.set("slope_per_day", detail::amount_value(f.slope_per_day));
  m.set("intercept", detail::amount_value(f.intercept));
  m.set("method", Value("least_squares"));
  return Value(std::move(m));
}

std::vector<Anomaly> detect_anomalies(std::span<const DailyCost> days, const AnomalyOptions& o) {
  std::vector<Anomaly> out;
  const std::size_t window = std::max<std::size_t>(o.window, 2);
  for (std::size_t i = std::max<std::size_t>(o.min_baseline, 2); i < days.size(); ++i) {
    const std::size_t begin = i > window ? i - window : 0;
    const std::size_t n = i - begin;
    double mean = 0;
    for (std::size_t k = begin; k < i; ++k) mean += units_of(days[k].cost);
    mean /= static_cast<double>(n);
    double var = 0;
    for (std::size_t k = begin; k < i; ++k) var += (units_of(days[k].cost) - mean) * (units_of(days[k].cost) - mean);
    const double stddev = std::sqrt(var / static_cast<double>(n - 1));
    const double x = units_of(days[i].cost);
    double z = 0;
    if (stddev > 0) {
      z = (x - mean) / stddev;
    } else if (x > mean) {
      z = std::numeric_limits<double>::infinity();
    }
    if (z >= o.z_threshold) out.push_back(Anomaly{days[i].day, days[i].cost, mean, stddev, z});
  }
  return out;
}

Value to_value(const Anomaly& a) {
  Map m;
  m.set("day", Value(a.day.to_string()));
  m.set("cost", detail::amount_value(a.cost));
  m.set("baseline_mean", Value(a.baseline_mean));
  m.set("baseline_stddev", Value(a.baseline_stddev));
  m.set("z_score", std::isfinite(a.z_score) ? Value(a.z_score) : Value("inf"));
  return Value(std::move(m));
}

RunawayCheck runaway_check_of(const job::Job& j, const CostSummary& actual, Timestamp now) {
  RunawayCheck c;
  c.job_id = j.id;
  c.name = j.name;
  c.estimated_cost = j.estimated_cost;
  c.actual_cost = actual.total;
  c.estimated_duration_seconds = j.estimated_duration_seconds;
  if (j.actual_start && *j.actual_start < now) {
    c.elapsed_seconds = (now.unix_nanos() - j.actual_start->unix_nanos()) / 1'000'000'000;
  } else {
    c.elapsed_seconds = static_cast<std::int64_t>(actual.seconds.nano() / core::Quantity::kNanoPerUnit);
  }
  return c;
}

Result<std::vector<RunawayAlert>> detect_runaway(std::span<const RunawayCheck> jobs, const RunawayOptions& o) {
  std::vector<RunawayAlert> out;
  for (const auto& j : jobs) {
    const std::string who = j.name.empty() ? j.job_id.to_string() : j.name;
    if (j.estimated_cost && !j.estimated_cost->is_zero()) {
      BUDCORE_TRY_ASSIGN(Money limit, j.estimated_cost->checked_mul(o.cost_factor));
      if (!j.actual_cost.currency().empty() && j.actual_cost.currency() != limit.currency()) {
        return Error::invalid("currency", j.actual_cost.currency() + " vs " + limit.currency(),
                              "job " + who + ": actual and estimated cost are in different currencies");
      }
      if (limit.units() < j.actual_cost.units()) {
        out.push_back(RunawayAlert{j.job_id, j.name,
                                   "job " + who + " has cost " + j.actual_cost.to_string() + ", more than " +
                                       core::detail::decimal_string(o.cost_factor) + " x its estimate of " +
                                       j.estimated_cost->to_string()});
        continue;
      }
    }
    if (j.estimated_duration_seconds && *j.estimated_duration_seconds > 0) {
      const core::int128 limit = static_cast<core::int128>(*j.estimated_duration_seconds) * o.duration_factor.nano();
      if (limit < static_cast<core::int128>(j.elapsed_seconds) * core::Quantity::kNanoPerUnit) {
        out.push_back(RunawayAlert{j.job_id, j.name,
                                   "job " + who + " has run " + std::to_string(j.elapsed_seconds) + " s, more than " +
                                       core::detail::decimal_string(o.duration_factor) + " x its estimated " +
                                       std::to_string(*j.estimated_duration_seconds) + " s"});
      }
    }
  }
  return out;
}

core::Status notify_runaway(core::Notifier& notifier, std::span<const RunawayAlert> alerts,
                            const std::string& channel, const std::vector<std::string>& recipients) {
  for (const auto& a : alerts) {
    core::Notification n;
    n.channel = channel;
    n.recipients = recipients;
    n.message = "Runaway job: " + a.reason;
    n.severity = "error";
    Map ctx;
    ctx.set("job_id", Value(a.job_id.to_string()));
    ctx.set("name", Value(a.name));
    n.context = Value(std::move(ctx));
    BUDCORE_TRY(notifier.notify(n));
  }
  return {};
}

}  // namespace budcore::cost
