#include "budcore/platform/cost_controls.hpp"

#include <string>
#include <vector>

#include "budcore/backend/http_client.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/platform/hooks.hpp"
#include "budcore/quota/job_workload.hpp"

namespace budcore::platform {
namespace {

class BudgetGate : public AdmissionGate {
 public:
  explicit BudgetGate(std::shared_ptr<CostControls> c) : c_(std::move(c)) {}
  std::string_view name() const noexcept override { return "budget"; }
  // A priority change spends nothing: budgets are asked when a run is about to start.
  core::Status admit(const CallContext&, const job::Job& job, GateStage stage) override {
    return stage == GateStage::Priority ? core::Status() : c_->admit(job);
  }

 private:
  std::shared_ptr<CostControls> c_;
};

class JobCost : public JobCostMeter {
 public:
  explicit JobCost(std::shared_ptr<CostControls> c) : c_(std::move(c)) {}
  core::Status record_usage(backend::Store& tx, const core::Id&, const job::Job& job,
                            const backend::UsageInterval& usage) override {
    return c_->meter(tx, job, usage);
  }
  std::optional<core::Money> actual_cost(backend::Store& tx, const core::Id& tenant, const job::Job& job) override {
    return c_->actual_cost(tx, tenant, job);
  }
  std::optional<core::Timestamp> budget_deadline(const core::Id& tenant, const job::Job& job,
                                                 core::Timestamp started) override {
    return c_->budget_deadline(tenant, job, started);
  }
  core::Status check_budget(const core::Id& tenant, const job::Job& job, core::Timestamp started,
                            core::Timestamp now) override {
    return c_->check_budget(tenant, job, started, now);
  }
  bool refresh_stops(core::Timestamp now) override { return c_->refresh_stops(now); }
  std::optional<std::string> stop_reason(const core::Id& tenant, const job::Job& job) override {
    return c_->stop_reason(tenant, job);
  }

 private:
  std::shared_ptr<CostControls> c_;
};

}  // namespace

CostControls::CostControls(backend::Store& store, cost::PriceBook prices, cost::BudgetSet budgets,
                           std::shared_ptr<backend::Notifier> alerts)
    : store_(store),
      prices_(std::move(prices)),
      budgets_(std::move(budgets)),
      spend_(cost::incremental_store_spend(store_, prices_)),
      alerts_(std::move(alerts)) {}

std::shared_ptr<CostControls> CostControls::attach(Platform& platform, cost::PriceBook prices, cost::BudgetSet budgets,
                                                   std::shared_ptr<backend::Notifier> alerts) {
  auto c = std::make_shared<CostControls>(platform.store(), std::move(prices), std::move(budgets), std::move(alerts));
  platform.add_admission_gate(std::make_shared<BudgetGate>(c));
  platform.set_job_cost_meter(std::make_shared<JobCost>(c));
  return c;
}

core::Status CostControls::admit(const job::Job& job) {
  // The gate runs under the platform's lock and may not ask it the time: a submitted job's
  // created_at (a retried one's updated_at) is the platform's now.
  core::Timestamp now = job.updated_at.value_or(job.created_at.value_or(core::Timestamp{}));
  BUDCORE_TRY_ASSIGN(cost::BudgetDecision d, cost::admit_job(budgets_, *spend_, prices_, job, now));
  if (!d.allowed) return d.error();
  return {};
}

core::Status CostControls::meter(backend::Store& tx, const job::Job& job, const backend::UsageInterval& usage) {
  if (!(usage.start < usage.end)) return {};  // preempted the instant it started: nothing ran
  // A serverless worker's endpoint meters its GPU time itself, busy and idle apart
  // (ServerlessEndpoint::meter): metering the run too would count it twice.
  if (!quota::serverless_endpoint_of(job).empty()) return {};
  cost::UsageInterval u = cost::interval_of(job, usage.start, usage.end);
  if (usage.sharing_mode == "time_slice") u.sharing_mode = cost::SharingMode::TimeSlice;
  if (!usage.nodes.empty()) u.node_name = usage.nodes.front();
  auto priced = cost::meter(prices_, u);
  if (!priced) {
    note_error(priced.error());
    return {};
  }
  // A store failure is the batch's: it does not commit, the segment with it.
  BUDCORE_TRY(tx.append_usage(u.tenant_id, cost::to_record(*priced)));
  std::lock_guard lock(mu_);
  ++metered_;
  return {};
}

core::Result<cost::Usage> CostControls::record(const cost::UsageInterval& usage) {
  BUDCORE_TRY_ASSIGN(cost::Usage stored, cost::record_usage(store_, prices_, usage));
  std::lock_guard lock(mu_);
  ++metered_;
  return stored;
}

void CostControls::note_error(core::Error e) {
  std::lock_guard lock(mu_);
  ++errors_;
  last_error_ = std::move(e);
}

core::Result<core::Money> CostControls::metered_until(const core::Id& tenant, const job::Job& job,
                                                     core::Timestamp until) {
  backend::UsageQuery q;
  q.job_id = job.id;
  BUDCORE_TRY_ASSIGN(std::vector<cost::Usage> usage, cost::load_usage(store_, tenant, q));
  std::erase_if(usage, [&](const cost::Usage& u) { return until < u.interval.end; });
  BUDCORE_TRY_ASSIGN(cost::CostSummary sum, cost::summarize(usage));
  if (sum.records == 0) return core::Money::zero(prices_.currency);
  return sum.total;
}

core::Result<core::Money> CostControls::run_cost(const job::Job& job, core::Timestamp start, core::Timestamp end) const {
  BUDCORE_TRY_ASSIGN(cost::Usage u, cost::meter(prices_, cost::interval_of(job, start, end)));
  return u.computed_cost;
}

std::optional<core::Money> CostControls::actual_cost(backend::Store& tx, const core::Id& tenant, const job::Job& job) {
  // A job the book cannot price keeps no actual_cost: the sum of the segments that could be
  // priced would understate it. (Its segments were counted as metering errors.)
  const core::Timestamp probe = job.created_at.value_or(core::Timestamp{});
  if (!run_cost(job, probe, probe + core::Duration::seconds(1))) return std::nullopt;
  auto sum = cost::job_actual_cost(tx, tenant, job.id);
  if (!sum) {
    note_error(sum.error());
    return std::nullopt;
  }
  // A job that ran but has no metered segment: its cluster did not report usage (yet — a
  // stopped run's segment follows; the Kubernetes backend does not meter). Unknown, not 0.
  if (sum->records == 0 && job.actual_start) return std::nullopt;
  core::Money total = sum->total;
  if (sum->records == 0) {
    auto zero = core::Money::zero(prices_.currency);
    if (!zero) return std::nullopt;
    total = *zero;
  }
  auto in_job_currency = prices_.convert(total, job.currency);
  if (!in_job_currency) {
    note_error(in_job_currency.error());
    return std::nullopt;
  }
  return *in_job_currency;
}

std::optional<core::Timestamp> CostControls::budget_deadline(const core::Id& tenant, const job::Job& job,
                                                              core::Timestamp started) {
  if (!job.budget_limit) return std::nullopt;
  auto earlier = metered_until(tenant, job, started);
  if (!earlier) {
    note_error(earlier.error());
    return std::nullopt;
  }
  // Past the limit after `seconds` of this run? Priced exactly as the segment will be metered.
  auto over = [&](std::int64_t seconds) -> core::Result<bool> {
    core::Money total = *earlier;
    if (seconds > 0) {
      BUDCORE_TRY_ASSIGN(core::Money run, run_cost(job, started, started + core::Duration::seconds(seconds)));
      BUDCORE_TRY_ASSIGN(total, total.checked_add(run));
    }
    auto st = cost::check_job_budget_limit(job, total, prices_);
    if (st) return false;
    if (st.error().code == core::ErrorCode::BudgetExceeded) return true;
    return st.error();
  };
  // The cost only grows with the run's length: the first whole second past the limit, by
  // bisection (at most ~25 pricings); none within the longest meterable interval: no deadline.
  std::int64_t lo = 0;
  std::int64_t hi = cost::kMaxIntervalSeconds;
  for (std::int64_t probe : {lo, hi}) {
    auto o = over(probe);
    if (!o) {
      note_error(o.error());
      return std::nullopt;
    }
    if (probe == lo && *o) return started;  // the earlier runs already passed it
    if (probe == hi && !*o) return std::nullopt;
  }
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    auto o = over(mid);
    if (!o) {
      note_error(o.error());
      return std::nullopt;
    }
    (*o ? hi : lo) = mid;
  }
  return started + core::Duration::seconds(hi);
}

core::Status CostControls::check_budget(const core::Id& tenant, const job::Job& job, core::Timestamp started,
                                        core::Timestamp now) {
  if (!job.budget_limit) return {};
  auto earlier = metered_until(tenant, job, started);
  if (!earlier) {
    note_error(earlier.error());
    return {};
  }
  core::Money total = *earlier;
  if (started < now) {
    auto run = run_cost(job, started, now);
    auto sum = run ? total.checked_add(*run) : core::Result<core::Money>(run.error());
    if (!sum) {
      note_error(sum.error());
      return {};
    }
    total = *sum;
  }
  auto st = cost::check_job_budget_limit(job, total, prices_);
  if (!st && st.error().code != core::ErrorCode::BudgetExceeded) {
    note_error(st.error());
    return {};
  }
  return st;
}

namespace {
// The notifier refers to its HTTP client: both live as long as the shared notifier does.
struct WebhookAlerts {
  std::unique_ptr<backend::HttpClient> http;
  std::unique_ptr<core::HttpClient> wire;  // http, expanding secret:// references (or null)
  std::unique_ptr<backend::Notifier> notifier;
};
}  // namespace

std::shared_ptr<backend::Notifier> CostControls::webhook_alerts(backend::WebhookNotifierOptions options,
                                                                std::shared_ptr<backend::SecretResolver> secrets) {
  auto owner = std::make_shared<WebhookAlerts>();
  owner->http = backend::make_curl_http_client();
  core::HttpClient* client = owner->http.get();
  if (secrets) {
    // Budget alerts belong to no tenant's request: the system tenant's secrets.
    owner->wire = backend::secret_expanding_http_client(*owner->http, std::move(secrets), backend::system_tenant());
    client = owner->wire.get();
  }
  owner->notifier = backend::make_webhook_notifier(*client, std::move(options));
  backend::Notifier* n = owner->notifier.get();
  return std::shared_ptr<backend::Notifier>(std::move(owner), n);
}

bool CostControls::refresh_stops(core::Timestamp now) {
  // Called after each batch of metered usage: the time to raise threshold alerts too.
  if (alerts_ && !budgets_.budgets.empty()) {
    cost::BudgetMonitor monitor(store_, *alerts_, prices_);
    auto raised = monitor.evaluate(budgets_, now);
    std::lock_guard lock(mu_);
    if (raised) {
      alerts_raised_ += static_cast<std::int64_t>(raised->size());
    } else {
      ++alert_errors_;
      last_alert_error_ = raised.error();
    }
  }
  passed_stops_.clear();
  auto passed = cost::passed_stop_running(budgets_, *spend_, now);
  if (!passed) {
    note_error(passed.error());
    return false;
  }
  for (const cost::PassedBudget& p : *passed) {
    const cost::Budget& b = *p.budget;
    passed_stops_.emplace_back(&b, "budget '" + b.name + "' (" + std::string(cost::to_string(b.period)) + ", " +
                                       b.amount.to_string() + ") has " + p.status.spent.to_string() + " spent since " +
                                       p.status.period_start.to_string() + ", past its amount; it stops running jobs");
  }
  return !passed_stops_.empty();
}

std::optional<std::string> CostControls::stop_reason(const core::Id& tenant, const job::Job& job) {
  const std::optional<core::Id> project = job.project_id.is_nil() ? std::nullopt : std::optional(job.project_id);
  for (const auto& [b, reason] : passed_stops_)
    if (b->covers(tenant, project)) return reason;
  return std::nullopt;
}

std::int64_t CostControls::alerts_raised() const {
  std::lock_guard lock(mu_);
  return alerts_raised_;
}
std::int64_t CostControls::alert_errors() const {
  std::lock_guard lock(mu_);
  return alert_errors_;
}
std::optional<core::Error> CostControls::last_alert_error() const {
  std::lock_guard lock(mu_);
  return last_alert_error_;
}

std::int64_t CostControls::metered() const {
  std::lock_guard lock(mu_);
  return metered_;
}
std::int64_t CostControls::metering_errors() const {
  std::lock_guard lock(mu_);
  return errors_;
}
std::optional<core::Error> CostControls::last_metering_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace budcore::platform
