// budcore::cost budgets — per tenant or project, monthly or quarterly, with thresholds that
// raise alerts through a Notifier and a hard limit that denies admission of new jobs.
//
// Document (YAML or JSON):
//   budgets:
//     - name: ml-team-monthly             # unique; names the budget in errors and alerts
//       tenant_id: 0190e6f4-...           # required
//       project_id: 0190e6f5-...          # optional: absent = the whole tenant
//       period: monthly                   # monthly | quarterly (calendar, UTC)
//       amount: "5000.00"
//       currency: USD                     # default: the price book's
//       thresholds: [50, 80, 100]         # percent of amount that raise an alert (default)
//       hard_limit: true                  # deny admission of a job whose estimate would pass it
//       stop_running: false               # once passed, running jobs in scope should stop
//       notify: {channel: slack, recipients: ["#finops"]}
//
// Spend is the metered cost (Usage::computed_cost) in the budget's period, converted to the
// budget's currency through the price book; a record that crosses the period's start counts
// in proportion to its time inside the period.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/notifier.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/cost/usage_ledger.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"

namespace budcore::cost {

enum class BudgetPeriod : std::uint8_t { Monthly, Quarterly };
BUDCORE_API std::string_view to_string(BudgetPeriod p) noexcept;
BUDCORE_API core::Result<BudgetPeriod> parse_budget_period(std::string_view text);
// The calendar period (UTC) that holds `at`: [start, end).
BUDCORE_API std::pair<core::Timestamp, core::Timestamp> period_bounds(BudgetPeriod p, core::Timestamp at) noexcept;

struct NotifyTarget {
  std::string channel = "webhook";
  std::vector<std::string> recipients;
};

struct Budget {
  std::string name;
  core::Id tenant_id;
  std::optional<core::Id> project_id;
  BudgetPeriod period = BudgetPeriod::Monthly;
  core::Money amount;
  std::vector<std::int64_t> thresholds_percent{50, 80, 100};  // ascending, 1..1000
  bool hard_limit = false;
  bool stop_running = false;
  std::optional<NotifyTarget> notify;
  // The budget covers a job of this tenant and project.
  bool covers(const core::Id& tenant, const std::optional<core::Id>& project) const noexcept;
};

struct BUDCORE_API BudgetSet {
  static constexpr std::size_t kMaxBudgets = 10'000;
  std::vector<Budget> budgets;

  // `default_currency` applies to budgets without a currency (usually the price book's).
  static core::Result<BudgetSet> from_value(const core::Value& document, std::string_view default_currency = "USD");
  static core::Result<BudgetSet> from_text(std::string_view text, std::string_view default_currency = "USD");
  static core::Result<BudgetSet> load_file(const std::string& path, std::string_view default_currency = "USD");
  core::Value to_value() const;
};

// Where spend comes from: a ledger's usage records (a Store's), or records in memory.
class BUDCORE_API SpendSource {
 public:
  virtual ~SpendSource() = default;
  // Metered cost of the budget's scope in [from, to), in the budget's currency.
  virtual core::Result<core::Money> spent(const Budget& budget, core::Timestamp from, core::Timestamp to) = 0;
};

// Spend from a ledger (records whose start is at most a day before `from` are looked at, so a
// record crossing the period's start counts in part). `book` converts currencies; both must
// outlive the source.
BUDCORE_API std::unique_ptr<SpendSource> store_spend(UsageLedger& store, const PriceBook& book);
// The same, kept up to date: the first question about a budget's period reads its records,
// later ones only the records appended since (UsageQuery::after_seq), so asking at every
// admission costs what was metered meanwhile, not the period's whole history. A question
// about a period some record ends after (one already over) is answered by a full read.
// Thread-safe.
BUDCORE_API std::unique_ptr<SpendSource> incremental_store_spend(UsageLedger& store, const PriceBook& book);
// Spend from records in memory (they must outlive the source).
BUDCORE_API std::unique_ptr<SpendSource> usage_spend(std::span<const Usage> usage, const PriceBook& book);

struct BudgetStatus {
  std::string budget;
  core::Timestamp period_start;
  core::Timestamp period_end;
  core::Money amount;
  core::Money spent;
  core::Money remaining;  // may be negative
  std::string percent_used;  // 2 decimals
  std::vector<std::int64_t> thresholds_crossed;
  bool exceeded = false;  // spent > amount
};
BUDCORE_API core::Result<std::vector<BudgetStatus>> budget_status(const BudgetSet& set, SpendSource& spend,
                                                                  core::Timestamp now);
BUDCORE_API core::Value to_value(const BudgetStatus& s);

// The budgets of `set` with stop_running whose spend has passed their amount at `now`, with
// their status; only those budgets' spend is read. The pointers are into `set`.
struct PassedBudget {
  const Budget* budget = nullptr;
  BudgetStatus status;
};
BUDCORE_API core::Result<std::vector<PassedBudget>> passed_stop_running(const BudgetSet& set, SpendSource& spend,
                                                                        core::Timestamp now);

// ---- admission ---------------------------------------------------------------------------

// "May this job be admitted given the spend of its tenant/project and its estimate?"
struct AdmissionRequest {
  core::Id tenant_id;
  std::optional<core::Id> project_id;
  core::Money estimate;  // the job's estimated cost (estimate_job()), any currency the book converts
  std::string job;       // the job's name or id, for the reason
};

struct BudgetDecision {
  bool allowed = true;
  std::string reason;  // why it was denied (empty when allowed)
  std::string budget;  // the denying budget's name
  core::Money amount;
  core::Money spent;
  core::Money estimate;  // in the budget's currency
  std::vector<std::string> checked;  // hard-limit budgets that cover the job
  // ErrorCode::BudgetExceeded with the reason, field "budgets.<name>" (for a denied decision).
  core::Error error() const;
};

// Denies when a covering hard-limit budget's spent + estimate would pass its amount (or it is
// already passed). The first such budget in document order decides.
BUDCORE_API core::Result<BudgetDecision> check_admission(const BudgetSet& set, SpendSource& spend,
                                                         const AdmissionRequest& request, core::Timestamp now,
                                                         const PriceBook& book);
BUDCORE_API core::Value to_value(const BudgetDecision& d);

// The admission gate's one call: estimates `job` (estimate_job; a job without an estimated
// duration is priced for its max_duration_seconds, else for the book's minimum billable
// seconds; a service without either for a month) and checks it against the budgets that
// cover its tenant and project, with spend read from `store`. The decision's estimate is the
// job's; deny with decision.error() (ErrorCode::BudgetExceeded).
BUDCORE_API core::Result<BudgetDecision> admit_job(const BudgetSet& set, UsageLedger& store, const PriceBook& book,
                                                   const job::Job& job, core::Timestamp now);
// The same with spend from `spend` (an incremental_store_spend kept across admissions).
BUDCORE_API core::Result<BudgetDecision> admit_job(const BudgetSet& set, SpendSource& spend, const PriceBook& book,
                                                   const job::Job& job, core::Timestamp now);

// ---- alerts ------------------------------------------------------------------------------

struct BudgetAlert {
  std::string budget;
  core::Id tenant_id;
  std::int64_t threshold_percent = 0;
  core::Timestamp period_start;
  core::Money spent;
  core::Money amount;
  std::string severity;  // info below 80%, warning below 100%, error at or above
  std::string message;
};
BUDCORE_API core::Value to_value(const BudgetAlert& a);

// Raises each threshold's alert once per budget and period: the alert is sent through the
// Notifier, then recorded in the tenant's audit log (object_type "budget_alert"), which is
// what later calls (and other processes) check first. Delivery is at-least-once: a crash
// between the two sends the alert again. A failed delivery is returned as the error, after
// the alerts before it were recorded.
class BUDCORE_API BudgetMonitor {
 public:
  BudgetMonitor(UsageLedger& store, core::Notifier& notifier, const PriceBook& book);
  // The alerts raised by this call.
  core::Result<std::vector<BudgetAlert>> evaluate(const BudgetSet& set, core::Timestamp now);
  // Budgets with stop_running whose spend has passed their amount: the scopes whose running
  // jobs the platform should stop (passed_stop_running with the ledger's spend).
  core::Result<std::vector<const Budget*>> stop_running_scopes(const BudgetSet& set, core::Timestamp now);

 private:
  UsageLedger& store_;
  core::Notifier& notifier_;
  const PriceBook& book_;
};

}  // namespace budcore::cost
