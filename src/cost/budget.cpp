// Budgets: the document, spend per period, admission decisions and threshold alerts.
#include "budcore/cost/budget.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "budcore/core/limits.hpp"
#include "budcore/cost/estimator.hpp"
#include "budcore/cost/rollup.hpp"
#include "core/enum_lookup.hpp"
#include "cost/document.hpp"
#include "cost/exact.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::Map;
using core::Money;
using core::Result;
using core::Status;
using core::Timestamp;
using core::Value;
using core::detail::Reader;

constexpr core::detail::EnumNames<BudgetPeriod, 2> kPeriodNames{{{BudgetPeriod::Monthly, "monthly"},
                                                                 {BudgetPeriod::Quarterly, "quarterly"}}};
constexpr std::array<std::string_view, 2> kSetKeys{"schema_version", "budgets"};
constexpr std::array<std::string_view, 10> kBudgetKeys{"name",      "tenant_id", "project_id", "period",
                                                       "amount",    "currency",  "thresholds", "hard_limit",
                                                       "stop_running", "notify"};
constexpr std::array<std::string_view, 2> kNotifyKeys{"channel", "recipients"};
constexpr std::size_t kMaxThresholds = 20;
constexpr std::int64_t kLookBehindNanos = 86'400LL * 1'000'000'000;

Result<std::vector<std::int64_t>> read_thresholds(const Reader& r) {
  BUDCORE_TRY_ASSIGN(auto list, r.list("thresholds"));
  if (!list) return std::vector<std::int64_t>{50, 80, 100};
  if (list->size() > kMaxThresholds) {
    return Error::invalid("thresholds", std::to_string(list->size()) + " thresholds",
                          "at most " + std::to_string(kMaxThresholds) + " thresholds");
  }
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Value& v = (*list)[i];
    const std::string path = "thresholds[" + std::to_string(i) + "]";
    if (!v.is_int() || v.as_int() < 1 || v.as_int() > 1000) {
      return Error::invalid(path, core::detail::value_text(v), "a threshold is a whole percent between 1 and 1000");
    }
    if (!out.empty() && v.as_int() <= out.back()) {
      return Error::invalid(path, core::detail::value_text(v), "thresholds must be in ascending order");
    }
    out.push_back(v.as_int());
  }
  return out;
}

Result<std::optional<NotifyTarget>> read_notify(const Reader& r) {
  BUDCORE_TRY_ASSIGN(auto v, r.map("notify"));
  if (!v) return std::optional<NotifyTarget>();
  Reader n(v->as_map());
  if (auto st = n.reject_unknown(kNotifyKeys); !st) return detail::under("notify", std::move(st).error());
  NotifyTarget t;
  auto channel = n.string("channel");
  if (!channel) return detail::under("notify", std::move(channel).error());
  if (*channel) t.channel = **channel;
  auto recipients = n.list("recipients");
  if (!recipients) return detail::under("notify", std::move(recipients).error());
  if (*recipients) {
    for (const auto& item : **recipients) {
      if (!item.is_string()) {
        return Error::invalid("notify.recipients", core::detail::value_text(item), "recipients are strings");
      }
      t.recipients.push_back(item.as_string());
    }
  }
  return std::optional<NotifyTarget>(std::move(t));
}

Result<Budget> read_budget(const Value& v, std::string_view default_currency) {
  if (!v.is_map()) return Error::invalid({}, core::detail::value_text(v), "a budget must be a map");
  Reader r(v.as_map());
  BUDCORE_TRY(r.reject_unknown(kBudgetKeys));
  Budget b;
  BUDCORE_TRY_ASSIGN(auto name, r.string("name"));
  if (!name) return Error::invalid("name", {}, std::string(detail::kMissingField));
  if (name->empty() || name->size() > 128) return Error::invalid("name", *name, "a budget name has 1 to 128 characters");
  b.name = *name;
  BUDCORE_TRY_ASSIGN(auto tenant, r.id("tenant_id"));
  if (!tenant) return Error::invalid("tenant_id", {}, std::string(detail::kMissingField));
  b.tenant_id = *tenant;
  BUDCORE_TRY_ASSIGN(b.project_id, r.id("project_id"));
  BUDCORE_TRY_ASSIGN(auto period, r.enumeration<BudgetPeriod>("period", parse_budget_period));
  if (period) b.period = *period;
  BUDCORE_TRY_ASSIGN(auto currency, r.currency("currency"));
  const std::string cur = currency.value_or(std::string(default_currency));
  const Value* amount = v.find("amount");
  if (amount == nullptr || amount->is_null()) return Error::invalid("amount", {}, std::string(detail::kMissingField));
  BUDCORE_TRY_ASSIGN(std::string text, detail::decimal_text_of(*amount, "amount"));
  BUDCORE_TRY_ASSIGN(b.amount, detail::parse_price(text, cur, "amount", 1'000'000'000'000LL));
  if (b.amount.is_zero()) return Error::invalid("amount", text, "must be greater than 0");
  BUDCORE_TRY_ASSIGN(b.thresholds_percent, read_thresholds(r));
  BUDCORE_TRY_ASSIGN(auto hard, r.boolean("hard_limit"));
  b.hard_limit = hard.value_or(false);
  BUDCORE_TRY_ASSIGN(auto stop, r.boolean("stop_running"));
  b.stop_running = stop.value_or(false);
  BUDCORE_TRY_ASSIGN(b.notify, read_notify(r));
  return b;
}

std::optional<core::Id> project_of(const Usage& u) {
  if (u.interval.project_id.is_nil()) return std::nullopt;
  return u.interval.project_id;
}

// The budget's share of `usage` in [from, to), in the budget's currency.
Result<Money> spent_in(std::span<const Usage> usage, const Budget& b, Timestamp from, Timestamp to, const PriceBook& book) {
  std::vector<Usage> mine;
  for (const Usage& u : usage) {
    if (b.covers(u.interval.tenant_id, project_of(u))) mine.push_back(u);
  }
  RollupQuery q;
  q.granularity = Granularity::Total;
  q.from = from;
  q.to = to;
  BUDCORE_TRY_ASSIGN(Rollup r, rollup(mine, q));
  Money total = Money::from_units(0, b.amount.currency());
  for (const auto& row : r.rows) {
    BUDCORE_TRY_ASSIGN(Money converted, book.convert(row.cost, b.amount.currency()));
    BUDCORE_TRY_ASSIGN(total, total.checked_add(converted));
  }
  return total;
}

class MemorySpend final : public SpendSource {
 public:
  MemorySpend(std::span<const Usage> usage, const PriceBook& book) : usage_(usage), book_(book) {}
  Result<Money> spent(const Budget& b, Timestamp from, Timestamp to) override {
    return spent_in(usage_, b, from, to, book_);
  }

 private:
  std::span<const Usage> usage_;
  const PriceBook& book_;
};

class StoreSpend final : public SpendSource {
 public:
  StoreSpend(UsageLedger& store, const PriceBook& book) : store_(store), book_(book) {}
  Result<Money> spent(const Budget& b, Timestamp from, Timestamp to) override {
    UsageQuery q;
    q.from = Timestamp::from_unix_nanos(from.unix_nanos() - kLookBehindNanos);
    q.to = to;
    BUDCORE_TRY_ASSIGN(auto usage, load_usage(store_, b.tenant_id, q));
    return spent_in(usage, b, from, to, book_);
  }

 private:
  UsageLedger& store_;
  const PriceBook& book_;
};

// Spend from a ledger, kept per budget scope and period and brought up to date by reading only
// the records appended since (UsageQuery::after_seq). A record's share of a period never
// changes once it is stored, so the sums per currency only grow; they are converted to the
// budget's currency when asked, as the full read converts its totals.
class IncrementalSpend final : public SpendSource {
 public:
  IncrementalSpend(UsageLedger& store, const PriceBook& book) : store_(store), book_(book) {}

  Result<Money> spent(const Budget& b, Timestamp from, Timestamp to) override {
    std::lock_guard lock(mu_);
    Sums& s = sums_for(scope_key(b), from);
    BUDCORE_TRY(catch_up(b, s));
    // A record ending at or after `to` (a period already over) is cut at `to`: read it all.
    if (!(s.max_end < to)) return StoreSpend(store_, book_).spent(b, from, to);
    Money total = Money::from_units(0, b.amount.currency());
    for (const auto& [currency, sum] : s.by_currency) {
      BUDCORE_TRY_ASSIGN(Money converted, book_.convert(sum, b.amount.currency()));
      BUDCORE_TRY_ASSIGN(total, total.checked_add(converted));
    }
    return total;
  }

 private:
  struct Sums {
    Timestamp from;
    std::int64_t last_seq = 0;
    Timestamp max_end;
    std::map<std::string, Money> by_currency;
    std::uint64_t used = 0;  // when it was last asked for, to drop the periods no longer asked
  };
  // One scope may have a budget of each period (BudgetPeriod: monthly, quarterly) asked in turn.
  static constexpr std::size_t kPeriodsPerScope = 2;

  // The sums of a scope's period starting at `from`; a new period starts from nothing and pushes
  // out the scope's period asked for longest ago.
  Sums& sums_for(const std::string& scope, Timestamp from) {
    auto& periods = sums_[scope];
    auto it = std::find_if(periods.begin(), periods.end(), [&](const Sums& p) { return p.from == from; });
    if (it == periods.end()) {
      if (periods.size() == kPeriodsPerScope)
        periods.erase(std::min_element(periods.begin(), periods.end(),
                                       [](const Sums& a, const Sums& b) { return a.used < b.used; }));
      periods.push_back(Sums{from, 0, Timestamp{}, {}, 0});
      it = std::prev(periods.end());
    }
    it->used = ++asked_;
    return *it;
  }

  static std::string scope_key(const Budget& b) {
    return b.tenant_id.to_string() + "/" + (b.project_id ? b.project_id->to_string() : std::string());
  }

  // Adds the budget's share of the records appended since s.last_seq; s is unchanged on error.
  Status catch_up(const Budget& b, Sums& s) {
    UsageQuery q;
    q.from = Timestamp::from_unix_nanos(s.from.unix_nanos() - kLookBehindNanos);
    q.after_seq = s.last_seq;
    BUDCORE_TRY_ASSIGN(auto usage, load_usage(store_, b.tenant_id, q));
    if (usage.empty()) return {};
    Sums next = s;
    std::vector<Usage> mine;
    for (Usage& u : usage) {
      next.last_seq = std::max(next.last_seq, u.seq);
      if (next.max_end < u.interval.end) next.max_end = u.interval.end;
      if (b.covers(u.interval.tenant_id, project_of(u))) mine.push_back(std::move(u));
    }
    RollupQuery rq;
    rq.granularity = Granularity::Total;
    rq.from = s.from;
    rq.to = Timestamp::from_unix_nanos(next.max_end.unix_nanos() + 1);  // every record whole past `from`
    BUDCORE_TRY_ASSIGN(Rollup r, rollup(mine, rq));
    for (const auto& row : r.rows) {
      auto [it, fresh] = next.by_currency.try_emplace(row.cost.currency(), row.cost);
      if (!fresh) {
        BUDCORE_TRY_ASSIGN(it->second, it->second.checked_add(row.cost));
      }
    }
    s = std::move(next);
    return {};
  }

  UsageLedger& store_;
  const PriceBook& book_;
  std::mutex mu_;
  std::map<std::string, std::vector<Sums>> sums_;  // per budget scope (tenant/project)
  std::uint64_t asked_ = 0;
};

bool crossed(const Money& spent, const Money& amount, std::int64_t percent) {
  // spent x 100 >= amount x percent, in 128-bit pico-units (amounts are bounded on input).
  core::int128 lhs = 0, rhs = 0;
  if (!core::try_mul(spent.units(), 100, &lhs)) return spent.units() > 0;
  if (!core::try_mul(amount.units(), percent, &rhs)) return false;
  return lhs >= rhs;
}

std::string severity_of(std::int64_t percent) {
  if (percent >= 100) return "error";
  return percent >= 80 ? "warning" : "info";
}

}  // namespace

std::string_view to_string(BudgetPeriod p) noexcept { return core::detail::enum_name(p, kPeriodNames); }
Result<BudgetPeriod> parse_budget_period(std::string_view text) {
  return core::detail::parse_enum(text, kPeriodNames, "budget period");
}

std::pair<Timestamp, Timestamp> period_bounds(BudgetPeriod p, Timestamp at) noexcept {
  using namespace std::chrono;
  const Timestamp month = bucket_start(Granularity::Month, at);
  if (p == BudgetPeriod::Monthly) return {month, bucket_end(Granularity::Month, month)};
  // Quarters start in January, April, July and October.
  const year_month_day ymd{sys_days{days{month.unix_seconds() / 86'400}}};
  const unsigned first = (static_cast<unsigned>(ymd.month()) - 1) / 3 * 3 + 1;
  const year_month start = ymd.year() / std::chrono::month{first};
  const auto seconds_of = [](year_month ym) {
    return Timestamp::from_unix_seconds(sys_days{ym / 1d}.time_since_epoch().count() * 86'400LL);
  };
  return {seconds_of(start), seconds_of(start + months{3})};
}

bool Budget::covers(const core::Id& tenant, const std::optional<core::Id>& project) const noexcept {
  return tenant == tenant_id && (!project_id || project == project_id);
}

Result<BudgetSet> BudgetSet::from_value(const Value& document, std::string_view default_currency) {
  if (!document.is_map()) return Error::invalid({}, core::detail::value_text(document), "a budget document is a map with budgets");
  Reader r(document.as_map());
  BUDCORE_TRY(r.reject_unknown(kSetKeys));
  BUDCORE_TRY_ASSIGN(auto list, r.list("budgets"));
  if (!list) return Error::invalid("budgets", {}, std::string(detail::kMissingField));
  if (list->size() > kMaxBudgets) {
    return Error::invalid("budgets", std::to_string(list->size()) + " budgets", "at most " + std::to_string(kMaxBudgets));
  }
  BudgetSet set;
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string path = "budgets[" + std::to_string(i) + "]";
    auto b = read_budget((*list)[i], default_currency);
    if (!b) return detail::under(path, std::move(b).error());
    if (!names.insert(b->name).second) return Error::invalid(path + ".name", b->name, "another budget has this name");
    set.budgets.push_back(std::move(*b));
  }
  return set;
}

Result<BudgetSet> BudgetSet::from_text(std::string_view text, std::string_view default_currency) {
  BUDCORE_TRY_ASSIGN(Value v, detail::parse_bounded_document(text, "budgets"));
  return from_value(v, default_currency);
}

Result<BudgetSet> BudgetSet::load_file(const std::string& path, std::string_view default_currency) {
  BUDCORE_TRY_ASSIGN(std::string text, core::read_input(path, kMaxDocumentBytes, "budgets"));
  return from_text(text, default_currency);
}

Value BudgetSet::to_value() const {
  core::List list;
  for (const Budget& b : budgets) {
    Map m;
    m.set("name", Value(b.name));
    m.set("tenant_id", Value(b.tenant_id.to_string()));
    m.set("project_id", b.project_id ? Value(b.project_id->to_string()) : Value());
    m.set("period", Value(std::string(to_string(b.period))));
    m.set("amount", detail::amount_value(b.amount));
    m.set("currency", Value(b.amount.currency()));
    core::List thresholds;
    for (auto t : b.thresholds_percent) thresholds.push_back(Value(static_cast<long long>(t)));
    m.set("thresholds", Value(std::move(thresholds)));
    m.set("hard_limit", Value(b.hard_limit));
    m.set("stop_running", Value(b.stop_running));
    if (b.notify) {
      Map n;
      n.set("channel", Value(b.notify->channel));
      n.set("recipients", Value(core::List(b.notify->recipients.begin(), b.notify->recipients.end())));
      m.set("notify", Value(std::move(n)));
    }
    list.push_back(Value(std::move(m)));
  }
  Map m;
  m.set("schema_version", Value(1));
  m.set("budgets", Value(std::move(list)));
  return Value(std::move(m));
}

std::unique_ptr<SpendSource> store_spend(UsageLedger& store, const PriceBook& book) {
  return std::make_unique<StoreSpend>(store, book);
}

std::unique_ptr<SpendSource> incremental_store_spend(UsageLedger& store, const PriceBook& book) {
  return std::make_unique<IncrementalSpend>(store, book);
}

std::unique_ptr<SpendSource> usage_spend(std::span<const Usage> usage, const PriceBook& book) {
  return std::make_unique<MemorySpend>(usage, book);
}

namespace {
Result<BudgetStatus> status_of(const Budget& b, SpendSource& spend, Timestamp now) {
  BudgetStatus s;
  s.budget = b.name;
  std::tie(s.period_start, s.period_end) = period_bounds(b.period, now);
  s.amount = b.amount;
  BUDCORE_TRY_ASSIGN(s.spent, spend.spent(b, s.period_start, s.period_end));
  BUDCORE_TRY_ASSIGN(s.remaining, b.amount.checked_sub(s.spent));
  s.percent_used = detail::percent_text(s.spent, b.amount);
  for (auto t : b.thresholds_percent) {
    if (crossed(s.spent, b.amount, t)) s.thresholds_crossed.push_back(t);
  }
  s.exceeded = b.amount < s.spent;
  return s;
}
}  // namespace

Result<std::vector<BudgetStatus>> budget_status(const BudgetSet& set, SpendSource& spend, Timestamp now) {
  std::vector<BudgetStatus> out;
  for (const Budget& b : set.budgets) {
    BUDCORE_TRY_ASSIGN(BudgetStatus s, status_of(b, spend, now));
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<PassedBudget>> passed_stop_running(const BudgetSet& set, SpendSource& spend, Timestamp now) {
  std::vector<PassedBudget> out;
  for (const Budget& b : set.budgets) {
    if (!b.stop_running) continue;
    BUDCORE_TRY_ASSIGN(BudgetStatus s, status_of(b, spend, now));
    if (s.exceeded) out.push_back({&b, std::move(s)});
  }
  return out;
}

Value to_value(const BudgetStatus& s) {
  Map m;
  m.set("budget", Value(s.budget));
  m.set("period_start", Value(s.period_start.to_string()));
  m.set("period_end", Value(s.period_end.to_string()));
  m.set("currency", Value(s.amount.currency()));
  m.set("amount", detail::amount_value(s.amount));
  m.set("spent", detail::amount_value(s.spent));
  m.set("remaining", detail::amount_value(s.remaining));
  m.set("percent_used", Value(s.percent_used));
  core::List crossed_list;
  for (auto t : s.thresholds_crossed) crossed_list.push_back(Value(static_cast<long long>(t)));
  m.set("thresholds_crossed", Value(std::move(crossed_list)));
  m.set("exceeded", Value(s.exceeded));
  return Value(std::move(m));
}

core::Error BudgetDecision::error() const {
  return Error{core::ErrorCode::BudgetExceeded, reason, "budgets." + budget, estimate.to_string()};
}

Result<BudgetDecision> check_admission(const BudgetSet& set, SpendSource& spend, const AdmissionRequest& req,
                                       Timestamp now, const PriceBook& book) {
  BudgetDecision d;
  for (const Budget& b : set.budgets) {
    if (!b.hard_limit || !b.covers(req.tenant_id, req.project_id)) continue;
    d.checked.push_back(b.name);
    if (!d.allowed) continue;
    const auto [from, to] = period_bounds(b.period, now);
    BUDCORE_TRY_ASSIGN(Money spent, spend.spent(b, from, to));
    auto estimate = book.convert(req.estimate, b.amount.currency());
    if (!estimate) return detail::under("estimate", std::move(estimate).error());
    BUDCORE_TRY_ASSIGN(Money after, spent.checked_add(*estimate));
    if (!(b.amount < after)) continue;
    d.allowed = false;
    d.budget = b.name;
    d.amount = b.amount;
    d.spent = spent;
    d.estimate = *estimate;
    const std::string job = req.job.empty() ? std::string("the job") : "job " + req.job;
    d.reason = "budget '" + b.name + "' (" + std::string(to_string(b.period)) + ", " + b.amount.to_string() + ") has " +
               spent.to_string() + " spent since " + from.to_string() + "; " + job + " is estimated at " +
               estimate->to_string() + ", which would bring it to " + after.to_string() + ", past its hard limit";
  }
  return d;
}

Result<BudgetDecision> admit_job(const BudgetSet& set, UsageLedger& store, const PriceBook& book,
                                 const job::Job& job, Timestamp now) {
  StoreSpend spend(store, book);
  return admit_job(set, spend, book, job, now);
}

Result<BudgetDecision> admit_job(const BudgetSet& set, SpendSource& spend, const PriceBook& book,
                                 const job::Job& job, Timestamp now) {
  ResourceRequest request = request_of(job);
  if (!request.estimated_duration_seconds && request.job_type != job::JobType::Service) {
    request.estimated_duration_seconds = job.max_duration_seconds.value_or(0);
  }
  BUDCORE_TRY_ASSIGN(JobEstimate e, estimate(book, request));
  const std::optional<core::Id> project = job.project_id.is_nil() ? std::nullopt : std::optional(job.project_id);
  return check_admission(set, spend, AdmissionRequest{job.tenant_id, project, e.total, job.name}, now, book);
}

Value to_value(const BudgetDecision& d) {
  Map m;
  m.set("allowed", Value(d.allowed));
  m.set("reason", Value(d.reason));
  m.set("budget", d.budget.empty() ? Value() : Value(d.budget));
  if (!d.allowed) {
    m.set("currency", Value(d.amount.currency()));
    m.set("amount", detail::amount_value(d.amount));
    m.set("spent", detail::amount_value(d.spent));
    m.set("estimate", detail::amount_value(d.estimate));
  }
  m.set("checked", Value(core::List(d.checked.begin(), d.checked.end())));
  return Value(std::move(m));
}

Value to_value(const BudgetAlert& a) {
  Map m;
  m.set("budget", Value(a.budget));
  m.set("tenant_id", Value(a.tenant_id.to_string()));
  m.set("threshold_percent", Value(static_cast<long long>(a.threshold_percent)));
  m.set("period_start", Value(a.period_start.to_string()));
  m.set("currency", Value(a.amount.currency()));
  m.set("spent", detail::amount_value(a.spent));
  m.set("amount", detail::amount_value(a.amount));
  m.set("severity", Value(a.severity));
  m.set("message", Value(a.message));
  return Value(std::move(m));
}

BudgetMonitor::BudgetMonitor(UsageLedger& store, core::Notifier& notifier, const PriceBook& book)
    : store_(store), notifier_(notifier), book_(book) {}

Result<std::vector<BudgetAlert>> BudgetMonitor::evaluate(const BudgetSet& set, Timestamp now) {
  StoreSpend spend(store_, book_);
  BUDCORE_TRY_ASSIGN(auto statuses, budget_status(set, spend, now));
  std::vector<BudgetAlert> raised;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    const Budget& b = set.budgets[i];
    const BudgetStatus& s = statuses[i];
    for (auto t : s.thresholds_crossed) {
      const std::string object_id = b.name + "/" + s.period_start.to_string() + "/" + std::to_string(t);
      core::AuditQuery q;
      q.object_type = "budget_alert";
      q.object_id = object_id;
      core::PageRequest one;
      one.limit = 1;
      BUDCORE_TRY_ASSIGN(auto seen, store_.list_audit(b.tenant_id, q, one));
      if (!seen.items.empty()) continue;
      BudgetAlert a{b.name, b.tenant_id, t, s.period_start, s.spent, s.amount, severity_of(t), {}};
      a.message = "Budget '" + b.name + "' has reached " + std::to_string(t) + "% (" + s.spent.to_string() + " of " +
                  s.amount.to_string() + ", " + std::string(to_string(b.period)) + " period from " +
                  s.period_start.to_string() + ")";
      core::Notification n;
      n.channel = b.notify ? b.notify->channel : "webhook";
      if (b.notify) n.recipients = b.notify->recipients;
      n.message = a.message;
      n.severity = a.severity;
      n.context = to_value(a);
      BUDCORE_TRY(notifier_.notify(n));
      core::AuditEntry entry;
      entry.actor = "budcore.cost";
      entry.action = "budget.threshold_crossed";
      entry.object_type = "budget_alert";
      entry.object_id = object_id;
      entry.detail = to_value(a);
      BUDCORE_TRY(store_.append_audit(b.tenant_id, std::move(entry)));
      raised.push_back(std::move(a));
    }
  }
  return raised;
}

Result<std::vector<const Budget*>> BudgetMonitor::stop_running_scopes(const BudgetSet& set, Timestamp now) {
  StoreSpend spend(store_, book_);
  BUDCORE_TRY_ASSIGN(std::vector<PassedBudget> passed, passed_stop_running(set, spend, now));
  std::vector<const Budget*> out;
  for (const PassedBudget& p : passed) out.push_back(p.budget);
  return out;
}

}  // namespace budcore::cost
