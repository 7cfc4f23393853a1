// Cost on a Platform: budgets that stop admission and metering of every run (docs/cost.md,
// "On a platform"). The platform layer wires the cost layer's calls into its hooks.
#pragma once

#include "budcore/backend/secret_provider.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "budcore/backend/notifier.hpp"
#include "budcore/core/error.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/export.h"
#include "budcore/platform/platform.hpp"

namespace budcore::platform {

// Adds to a Platform, reading and writing the platform's own Store:
// - an admission gate "budget": every submitted or retried job is priced (cost::admit_job: its
//   estimate, spend so far from the metered usage) and denied with BudgetExceeded, naming the
//   budget, when a hard-limit budget covering its tenant or project would be overrun;
// - the job cost meter: every run segment the cluster reports is priced and stored as usage in
//   the transaction of the batch that records it (with the transition that ends the run), so
//   job_actual_cost, reports and later budget checks see it; an ended job's actual_cost is the
//   sum of its metered segments (every run), in the job's currency, written in the transaction
//   that ends the job; a job the price book cannot price keeps no actual_cost (its segments are
//   metering errors). A running job whose cost passes its budget_limit is stopped and FAILED
//   (BudgetExceeded), to the second;
// - budgets with stop_running: once a budget's metered spend has passed its amount, the running
//   jobs it covers are stopped and FAILED (BudgetExceeded, naming the budget);
// - budget threshold alerts (50/80/100%...) through a Notifier, as metered spend crosses them.
class BUDCORE_API CostControls {
 public:
  // `alerts`: where budget threshold alerts go (cost::BudgetMonitor: each threshold of each
  // budget once per period, recorded in the tenant's audit log). They are evaluated after each
  // batch of metered usage, under the platform's lock, so a slow notifier slows the platform;
  // a failed delivery is counted and retried with the next batch. Null: no alerts.
  static std::shared_ptr<CostControls> attach(Platform& platform, cost::PriceBook prices, cost::BudgetSet budgets,
                                              std::shared_ptr<backend::Notifier> alerts = nullptr);
  // A webhook notifier over its own libcurl client (the platform config's cost.alerts.webhook).
  // With `secrets`, secret:// references in the URL (`cost.alerts.webhook: secret://slack-hook`)
  // are expanded at the wire and their values redacted from delivery errors.
  static std::shared_ptr<backend::Notifier> webhook_alerts(backend::WebhookNotifierOptions options,
                                                           std::shared_ptr<backend::SecretResolver> secrets = nullptr);

  const cost::PriceBook& prices() const noexcept { return prices_; }
  const cost::BudgetSet& budgets() const noexcept { return budgets_; }
  // A segment that cannot be priced does not fail the platform: it is counted, its error kept.
  // metered() counts the segments appended in the platform's transactions, also those of a
  // batch that then failed to commit (after which the platform stops, or a leader steps down).
  std::int64_t metered() const;
  std::int64_t metering_errors() const;
  std::optional<core::Error> last_metering_error() const;
  std::int64_t alerts_raised() const;
  std::int64_t alert_errors() const;
  std::optional<core::Error> last_alert_error() const;

  CostControls(backend::Store& store, cost::PriceBook prices, cost::BudgetSet budgets,
               std::shared_ptr<backend::Notifier> alerts = nullptr);
  core::Status admit(const job::Job& job);
  // JobCostMeter (hooks.hpp): `tx` is the platform's transaction.
  core::Status meter(backend::Store& tx, const job::Job& job, const backend::UsageInterval& usage);
  // Usage measured outside the cluster's run segments (a serverless endpoint's workers, busy and
  // idle): priced with the book and appended to the platform's Store, outside its transactions.
  // Errors: the pricing's (Invalid, NotFound) or the Store's; nothing is appended then.
  core::Result<cost::Usage> record(const cost::UsageInterval& usage);
  std::optional<core::Money> actual_cost(backend::Store& tx, const core::Id& tenant, const job::Job& job);
  std::optional<core::Timestamp> budget_deadline(const core::Id& tenant, const job::Job& job, core::Timestamp started);
  core::Status check_budget(const core::Id& tenant, const job::Job& job, core::Timestamp started, core::Timestamp now);
  bool refresh_stops(core::Timestamp now);
  std::optional<std::string> stop_reason(const core::Id& tenant, const job::Job& job);

 private:
  void note_error(core::Error e);
  // In the book's currency: the job's metered segments that ended by `until`, and what a run
  // from `start` to `end` costs (priced as metering prices it).
  core::Result<core::Money> metered_until(const core::Id& tenant, const job::Job& job, core::Timestamp until);
  core::Result<core::Money> run_cost(const job::Job& job, core::Timestamp start, core::Timestamp end) const;

  backend::Store& store_;
  cost::PriceBook prices_;
  cost::BudgetSet budgets_;
  // The budgets' spend, read incrementally: each admission reads what was metered since the last.
  std::unique_ptr<cost::SpendSource> spend_;
  // Of budgets_, those with stop_running passed at the last refresh_stops, with their reasons
  // (platform lock held).
  std::vector<std::pair<const cost::Budget*, std::string>> passed_stops_;
  mutable std::mutex mu_;
  std::int64_t metered_ = 0;
  std::int64_t errors_ = 0;
  std::optional<core::Error> last_error_;
  std::shared_ptr<backend::Notifier> alerts_;
  std::int64_t alerts_raised_ = 0;
  std::int64_t alert_errors_ = 0;
  std::optional<core::Error> last_alert_error_;
};

}  // namespace budcore::platform
