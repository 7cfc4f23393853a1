// `budcore cost meter|report|serverless|forecast|budget check|budget status`: usage from a file (a list
// of usage records or intervals, or JSON Lines) or from a store, reports as JSON or CSV.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/core/json.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/chargeback.hpp"
#include "budcore/cost/estimator.hpp"
#include "budcore/cost/forecast.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/rollup.hpp"
#include "cli/command.hpp"
#include "cli/cost_common.hpp"

namespace budcore::cli {
namespace {

using core::Error;
using core::Result;
using core::Timestamp;

// Where usage comes from, and the options every usage command shares.
struct UsageArgs {
  std::string usage_file;
  std::string store_uri;
  std::string tenant;
  std::string prices;
  std::string now;
  std::string from;
  std::string to;
};

void add_usage_options(CLI::App* cmd, UsageArgs& a, bool prices_required = false) {
  cmd->add_option("--usage", a.usage_file, "usage records or intervals (JSON/YAML list, or JSON Lines; - for stdin)");
  cmd->add_option("--store", a.store_uri, "read usage from this store (sqlite:///path.db, postgresql://...)");
  cmd->add_option("--tenant", a.tenant, "the tenant (UUID) whose usage a --store holds");
  auto* p = cmd->add_option("--prices", a.prices, "price book (prices intervals, converts currencies)");
  if (prices_required) p->required();
  cmd->add_option("--from", a.from, "only usage at or after this RFC 3339 time");
  cmd->add_option("--to", a.to, "only usage before this RFC 3339 time");
}

Result<std::optional<Timestamp>> optional_time(const std::string& text, const char* flag) {
  if (text.empty()) return std::optional<Timestamp>();
  auto t = Timestamp::parse(text);
  if (!t) return Error::invalid(flag, text, "must be an RFC 3339 time such as 2026-05-01T00:00:00Z");
  return std::optional<Timestamp>(*t);
}

Result<Timestamp> now_of(const std::string& text) {
  BUDCORE_TRY_ASSIGN(auto t, optional_time(text, "--now"));
  return t ? *t : core::system_clock()->now();
}

Result<std::optional<cost::PriceBook>> optional_book(const std::string& path) {
  if (path.empty()) return std::optional<cost::PriceBook>();
  BUDCORE_TRY_ASSIGN(cost::PriceBook b, load_price_book(path));
  return std::optional<cost::PriceBook>(std::move(b));
}

Result<std::unique_ptr<backend::Store>> open(const std::string& uri) { return backend::open_store(uri); }

Result<core::Id> tenant_of(const std::string& text) {
  if (text.empty()) return Error::invalid("--tenant", {}, "required with --store");
  auto id = core::Id::parse(text);
  if (!id) return Error::invalid("--tenant", text, "must be a UUID");
  return *id;
}

Result<std::vector<cost::Usage>> load(const UsageArgs& a, const cost::PriceBook* book) {
  if (a.usage_file.empty() == a.store_uri.empty()) {
    return Error::invalid("--usage", {}, "give exactly one of --usage FILE and --store URI");
  }
  if (!a.usage_file.empty()) {
    BUDCORE_TRY_ASSIGN(std::string text, read_file_arg(a.usage_file, "--usage", cost::kMaxUsageBytes));
    return cost::parse_usage_text(text, book);
  }
  BUDCORE_TRY_ASSIGN(core::Id tenant, tenant_of(a.tenant));
  BUDCORE_TRY_ASSIGN(auto store, open(a.store_uri));
  backend::UsageQuery q;
  BUDCORE_TRY_ASSIGN(q.from, optional_time(a.from, "--from"));
  if (q.from) q.from = Timestamp::from_unix_nanos(q.from->unix_nanos() - 86'400LL * 1'000'000'000);  // crossing records
  BUDCORE_TRY_ASSIGN(q.to, optional_time(a.to, "--to"));
  return cost::load_usage(*store, tenant, q);
}

int run_meter(const std::string& prices, const std::string& file, const std::string& store_uri) {
  auto book = load_price_book(prices);
  if (!book) return report_cost_error(book.error());
  auto doc = load_document_arg(file, "INTERVAL", cost::kMaxDocumentBytes);
  if (!doc) return report_cost_error(doc.error());
  auto interval = cost::read_interval(*doc);
  if (!interval) return report_cost_error(interval.error());
  if (store_uri.empty()) {
    auto u = cost::meter(*book, *interval);
    return u ? print_json(u->to_value()) : report_cost_error(u.error());
  }
  auto store = open(store_uri);
  if (!store) return report_cost_error(store.error());
  auto u = cost::record_usage(**store, *book, *interval);
  return u ? print_json(u->to_value()) : report_cost_error(u.error());
}

struct ReportArgs {
  UsageArgs usage;
  std::string query_file;
  std::string by;
  std::string granularity;
  std::vector<std::string> shared;
  std::string format = "json";
};

// --shared NAME=AMOUNT[ CUR]
Result<cost::SharedCost> shared_of(const std::string& text, const std::string& currency) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return Error::invalid("--shared", text, "expected NAME=AMOUNT, e.g. monitoring=120.00");
  const std::string amount = text.substr(eq + 1);
  auto m = amount.find(' ') == std::string::npos ? core::Money::parse(amount, currency) : core::Money::parse(amount);
  if (!m) return Error::invalid("--shared", text, "the amount must be a decimal such as 120.00 (or \"120.00 EUR\")");
  return cost::SharedCost{text.substr(0, eq), *m};
}

int run_report(const ReportArgs& a) {
  auto book = optional_book(a.usage.prices);
  if (!book) return report_cost_error(book.error());
  const cost::PriceBook* bp = *book ? &**book : nullptr;
  const std::string currency = bp ? bp->currency : "USD";
  cost::ReportQuery q;
  if (!a.query_file.empty()) {
    auto doc = load_document_arg(a.query_file, "--query", cost::kMaxDocumentBytes);
    if (!doc) return report_cost_error(doc.error());
    auto parsed = cost::read_report_query(*doc, currency);
    if (!parsed) return report_cost_error(parsed.error());
    q = std::move(*parsed);
  }
  if (!a.by.empty()) {
    auto by = cost::parse_group_by_list(a.by);
    if (!by) return report_cost_error(by.error().at("--by"));
    q.by = std::move(*by);
  }
  if (!a.granularity.empty()) {
    auto g = cost::parse_granularity(a.granularity);
    if (!g) return report_cost_error(g.error().at("--granularity"));
    q.granularity = *g;
  }
  for (const auto& s : a.shared) {
    auto sc = shared_of(s, currency);
    if (!sc) return report_cost_error(sc.error());
    q.shared.push_back(std::move(*sc));
  }
  auto from = optional_time(a.usage.from, "--from");
  auto to = optional_time(a.usage.to, "--to");
  if (!from || !to) return report_cost_error(!from ? from.error() : to.error());
  if (*from) q.from = *from;
  if (*to) q.to = *to;
  if (a.format != "json" && a.format != "csv") {
    return report_cost_error(Error::invalid("--format", a.format, "expected json or csv"));
  }
  auto usage = load(a.usage, bp);
  if (!usage) return report_cost_error(usage.error());
  if (q.granularity == cost::Granularity::Total) {
    auto r = cost::chargeback(*usage, q, bp);
    if (!r) return report_cost_error(r.error());
    if (a.format == "csv") {
      std::cout << cost::to_csv(*r);
      return kExitOk;
    }
    return print_json(cost::to_value(*r));
  }
  if (!q.shared.empty()) {
    return report_cost_error(Error::invalid("--shared", {}, "shared costs are allocated in a total report (--granularity total)"));
  }
  auto r = cost::rollup(*usage, cost::RollupQuery{q.granularity, q.by, q.from, q.to});
  if (!r) return report_cost_error(r.error());
  if (a.format == "csv") {
    std::cout << cost::to_csv(*r);
    return kExitOk;
  }
  return print_json(cost::to_value(*r));
}

struct ServerlessReportArgs {
  UsageArgs usage;
  std::string endpoint;
  bool endpoint_given = false;
  std::string granularity;
  std::string format = "json";
};

int run_serverless_report(const ServerlessReportArgs& a) {
  auto book = optional_book(a.usage.prices);
  if (!book) return report_cost_error(book.error());
  cost::ServerlessRollupQuery q;
  if (a.endpoint_given && a.endpoint.empty()) {
    return report_cost_error(Error::invalid("--endpoint", "", "must be an endpoint's name (leave it out for every endpoint)"));
  }
  q.endpoint = a.endpoint;
  if (!a.granularity.empty()) {
    auto g = cost::parse_granularity(a.granularity);
    if (!g) return report_cost_error(g.error().at("--granularity"));
    q.granularity = *g;
  }
  auto from = optional_time(a.usage.from, "--from");
  auto to = optional_time(a.usage.to, "--to");
  if (!from || !to) return report_cost_error(!from ? from.error() : to.error());
  q.from = *from;
  q.to = *to;
  if (q.from && q.to && !(*q.from < *q.to)) return report_cost_error(Error::invalid("--to", a.usage.to, "must be after --from"));
  if (a.format != "json" && a.format != "csv") {
    return report_cost_error(Error::invalid("--format", a.format, "expected json or csv"));
  }
  auto usage = load(a.usage, *book ? &**book : nullptr);
  if (!usage) return report_cost_error(usage.error());
  auto r = cost::serverless_rollup(*usage, q);
  if (!r) return report_cost_error(r.error());
  if (a.format == "csv") {
    std::cout << cost::to_csv(*r);
    return kExitOk;
  }
  return print_json(cost::to_value(*r));
}

int run_forecast(const UsageArgs& a) {
  auto book = optional_book(a.prices);
  if (!book) return report_cost_error(book.error());
  auto now = now_of(a.now);
  if (!now) return report_cost_error(now.error());
  auto usage = load(a, *book ? &**book : nullptr);
  if (!usage) return report_cost_error(usage.error());
  // The month so far for the forecast; the 30 days before it as the anomalies' baseline.
  const Timestamp month = cost::bucket_start(cost::Granularity::Month, *now);
  const Timestamp since = Timestamp::from_unix_nanos(month.unix_nanos() - 30LL * 86'400 * 1'000'000'000);
  auto days = cost::daily_totals(*usage, since, cost::bucket_end(cost::Granularity::Day, cost::bucket_start(cost::Granularity::Day, *now)));
  if (!days) return report_cost_error(days.error());
  auto f = cost::forecast_month_end(*days, *now);
  if (!f) return report_cost_error(f.error());
  core::Map out;
  out.set("forecast", cost::to_value(*f));
  core::List anomalies;
  for (const auto& x : cost::detect_anomalies(*days)) anomalies.push_back(cost::to_value(x));
  out.set("anomalies", core::Value(std::move(anomalies)));
  return print_json(core::Value(std::move(out)));
}

struct BudgetArgs {
  UsageArgs usage;
  std::string budgets;
  std::string job;
  std::string project;
  std::string estimate;
};

int run_budget(const BudgetArgs& a, bool check) {
  auto book = load_price_book(a.usage.prices);
  if (!book) return report_cost_error(book.error());
  auto set = cost::BudgetSet::load_file(a.budgets, book->currency);
  if (!set) return report_cost_error(set.error());
  auto now = now_of(a.usage.now);
  if (!now) return report_cost_error(now.error());
  auto usage = load(a.usage, &*book);
  if (!usage) return report_cost_error(usage.error());
  auto spend = cost::usage_spend(*usage, *book);
  if (!check) {
    auto statuses = cost::budget_status(*set, *spend, *now);
    if (!statuses) return report_cost_error(statuses.error());
    core::List list;
    for (const auto& s : *statuses) list.push_back(cost::to_value(s));
    return print_json(core::Value(core::Map{{"budgets", core::Value(std::move(list))}}));
  }
  cost::AdmissionRequest req;
  if (!a.job.empty()) {
    auto text = read_file_arg(a.job, "--job", cost::kMaxDocumentBytes);
    if (!text) return report_cost_error(text.error());
    auto job = job::Job::from_json(*text);
    if (!job) return report_cost_error(job.error().at("--job"));
    auto e = cost::estimate_job(*book, *job);
    if (!e) return report_cost_error(e.error().at("--job"));
    req = {job->tenant_id, job->project_id.is_nil() ? std::nullopt : std::optional(job->project_id), e->total, job->name};
  } else {
    auto tenant = tenant_of(a.usage.tenant);
    if (!tenant) return report_cost_error(tenant.error());
    req.tenant_id = *tenant;
    if (!a.project.empty()) {
      auto p = core::Id::parse(a.project);
      if (!p) return report_cost_error(Error::invalid("--project", a.project, "must be a UUID"));
      req.project_id = *p;
    }
    auto m = a.estimate.find(' ') == std::string::npos ? core::Money::parse(a.estimate, book->currency)
                                                       : core::Money::parse(a.estimate);
    if (!m) return report_cost_error(Error::invalid("--estimate", a.estimate, "a decimal amount such as 12.50 (give --job or --estimate)"));
    req.estimate = *m;
  }
  auto d = cost::check_admission(*set, *spend, req, *now, *book);
  if (!d) return report_cost_error(d.error());
  return print_json(cost::to_value(*d));
}

}  // namespace

void register_cost_report_commands(CLI::App& cost) {
  auto* meter = cost.add_subcommand("meter", "Price a usage interval (and append it to a store with --store)");
  auto mprices = std::make_shared<std::string>();
  auto mfile = std::make_shared<std::string>();
  auto mstore = std::make_shared<std::string>();
  meter->add_option("--prices", *mprices, "price book")->required();
  meter->add_option("INTERVAL", *mfile, "a usage interval (JSON/YAML, - for stdin)")->required();
  meter->add_option("--store", *mstore, "append the priced record to this store (tenant = the interval's tenant_id)");
  meter->callback([=] { exit_code() = run_meter(*mprices, *mfile, *mstore); });

  auto* report = cost.add_subcommand("report", "Chargeback/showback (--granularity total) or rollups per time bucket");
  auto ra = std::make_shared<ReportArgs>();
  add_usage_options(report, ra->usage);
  report->add_option("--query", ra->query_file, "a report query document {by, granularity, from, to, shared}");
  report->add_option("--by", ra->by, "dimensions: tenant,project,job,pipeline,cluster,node,gpu_type,sharing_mode,tier,job_type,label:KEY");
  report->add_option("--granularity", ra->granularity, "total (default: chargeback), minute, hour, day, month");
  report->add_option("--shared", ra->shared, "a shared cost NAME=AMOUNT allocated by usage share (repeatable)");
  report->add_option("--format", ra->format, "json (default) or csv");
  report->callback([=] { exit_code() = run_report(*ra); });

  auto* serverless = cost.add_subcommand("serverless", "Serverless spend per endpoint and hour (busy and idle worker time)");
  auto sa = std::make_shared<ServerlessReportArgs>();
  add_usage_options(serverless, sa->usage);
  auto* endpoint = serverless->add_option("--endpoint", sa->endpoint, "only this endpoint (default: every endpoint)");
  serverless->add_option("--granularity", sa->granularity, "hour (default), minute, day, month, total");
  serverless->add_option("--format", sa->format, "json (default) or csv");
  serverless->callback([=] {
    sa->endpoint_given = endpoint->count() > 0;
    exit_code() = run_serverless_report(*sa);
  });

  auto* forecast = cost.add_subcommand("forecast", "Month-end spend forecast and daily anomalies");
  auto fa = std::make_shared<UsageArgs>();
  add_usage_options(forecast, *fa);
  forecast->add_option("--now", fa->now, "the present (RFC 3339; default: the system clock)");
  forecast->callback([=] { exit_code() = run_forecast(*fa); });

  auto* budget = cost.add_subcommand("budget", "Budgets: admission checks and status");
  budget->require_subcommand(1);
  for (bool is_check : {true, false}) {
    auto* sub = is_check ? budget->add_subcommand("check", "May a job be admitted under its budgets?")
                         : budget->add_subcommand("status", "Spend, thresholds crossed and remaining per budget");
    auto ba = std::make_shared<BudgetArgs>();
    sub->add_option("--budgets", ba->budgets, "budgets (YAML or JSON)")->required();
    add_usage_options(sub, ba->usage, true);
    sub->add_option("--now", ba->usage.now, "the present (RFC 3339; default: the system clock)");
    if (is_check) {
      sub->add_option("--job", ba->job, "the job document to admit (estimated with --prices)");
      sub->add_option("--project", ba->project, "the project (UUID), with --tenant and --estimate");
      sub->add_option("--estimate", ba->estimate, "the job's estimated cost, instead of --job");
    }
    sub->callback([=] { exit_code() = run_budget(*ba, is_check); });
  }
}

}  // namespace budcore::cli
