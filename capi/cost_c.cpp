// C ABI over budcore::cost: estimates, metering, reports, forecasts and budgets; JSON in and out.
#include <optional>
#include <string>

#include "budcore/core/clock.hpp"
#include "budcore/core/json.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/chargeback.hpp"
#include "budcore/cost/estimator.hpp"
#include "budcore/cost/forecast.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/rollup.hpp"
#include "capi_internal.hpp"
#include "cost/document.hpp"
#include "store_handle.hpp"

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace cost = budcore::cost;
using core::Result;

using capi::empty_out;

// An estimator error with its contract-5 code in front of the message.
int estimator_error(core::Error e) {
  e.message = std::string(cost::contract_error_code(e)) + ": " + e.message;
  return capi::set_error(e);
}

int last() { return budcore_error_last()->code; }

bool text(const char* s, size_t len, const char* field, std::string_view& view) {
  return capi::input_text(s, len, field, view);
}

Result<core::Value> document(std::string_view t, const char* field) { return cost::detail::parse_bounded_document(t, field); }

// The price book text; false (error set) when it is not UTF-8.
bool prices_text(const char* prices, size_t len, std::string_view& t) { return text(prices, len, "prices", t); }

bool store_ok(const budcore_store* store) {
  if (store == nullptr || !store->store) {
    capi::set_error(BUDCORE_EINVALID, "store handle is NULL", "store");
    return false;
  }
  return true;
}

// The common shape: prices + one document -> JSON, through `fn(book, doc)`.
template <class Fn>
int priced(budcore_buf* out, const char* prices, size_t prices_len, const char* doc, size_t doc_len,
           const char* doc_field, Fn fn) {
  if (!empty_out(out)) return last();
  std::string_view t, p;
  if (!text(doc, doc_len, doc_field, t) || !prices_text(prices, prices_len, p)) return last();
  auto book = cost::PriceBook::from_text(p);
  if (!book) return estimator_error(book.error());
  auto d = document(t, doc_field);
  if (!d) return estimator_error(d.error());
  Result<core::Value> r = fn(*book, *d);
  if (!r) return estimator_error(r.error());
  return capi::fill_buf(out, core::to_json(*r));
}

Result<core::Timestamp> time_of(std::string_view t, const char* field) {
  if (t.empty()) return core::system_clock()->now();
  auto ts = core::Timestamp::parse(t);
  if (!ts) return core::Error::invalid(field, std::string(t), "must be an RFC 3339 time such as 2026-05-01T00:00:00Z");
  return *ts;
}

}  // namespace

extern "C" int budcore_cost_estimate(budcore_buf* out, const char* prices, size_t prices_len, const char* spec,
                                     size_t spec_len) {
  return capi::guard([&] {
    return priced(out, prices, prices_len, spec, spec_len, "spec",
                  [](const cost::PriceBook& b, const core::Value& d) -> Result<core::Value> {
                    BUDCORE_TRY_ASSIGN(cost::Estimate e, cost::estimate_document(b, d));
                    return cost::to_value(e);
                  });
  });
}

extern "C" int budcore_cost_compare_tiers(budcore_buf* out, const char* prices, size_t prices_len, const char* spec,
                                          size_t spec_len) {
  return capi::guard([&] {
    return priced(out, prices, prices_len, spec, spec_len, "spec",
                  [](const cost::PriceBook& b, const core::Value& d) -> Result<core::Value> {
                    BUDCORE_TRY_ASSIGN(cost::TierComparison c, cost::compare_tiers(b, d));
                    return cost::to_value(c);
                  });
  });
}

extern "C" int budcore_cost_cheapest_gpu(budcore_buf* out, const char* prices, size_t prices_len,
                                         const char* requirement_json, size_t requirement_len) {
  return capi::guard([&] {
    return priced(out, prices, prices_len, requirement_json, requirement_len, "requirement_json",
                  [](const cost::PriceBook& b, const core::Value& d) -> Result<core::Value> {
                    BUDCORE_TRY_ASSIGN(cost::GpuRequirement req, cost::read_gpu_requirement(d));
                    BUDCORE_TRY_ASSIGN(cost::GpuSearch s, cost::cheapest_gpu(b, req));
                    return cost::to_value(s);
                  });
  });
}

extern "C" int budcore_cost_meter(budcore_buf* out, const char* prices, size_t prices_len, const char* interval_json,
                                  size_t interval_len) {
  return capi::guard([&] {
    return priced(out, prices, prices_len, interval_json, interval_len, "interval_json",
                  [](const cost::PriceBook& b, const core::Value& d) -> Result<core::Value> {
                    BUDCORE_TRY_ASSIGN(cost::UsageInterval i, cost::read_interval(d));
                    BUDCORE_TRY_ASSIGN(cost::Usage u, cost::meter(b, i));
                    return u.to_value();
                  });
  });
}

namespace {

// What a usage report reads: the usage and query texts and the price book, when one is given.
struct ReportInput {
  std::string_view usage_text, query_text;
  std::optional<cost::PriceBook> book;
};

// False with the error set when an argument is not text or the price book does not load.
bool read_report_input(const char* usage_json, size_t usage_len, const char* query_json, size_t query_len,
                       const char* prices, size_t prices_len, ReportInput& in) {
  std::string_view prices_text;
  if (!text(usage_json, usage_len, "usage_json", in.usage_text) ||
      !text(query_json, query_len, "query_json", in.query_text) || !text(prices, prices_len, "prices", prices_text))
    return false;
  if (prices_text.empty()) return true;
  auto b = cost::PriceBook::from_text(prices_text);
  if (!b) {
    capi::set_error(b.error());
    return false;
  }
  in.book = std::move(*b);
  return true;
}

}  // namespace

extern "C" int budcore_cost_report(budcore_buf* out, const char* usage_json, size_t usage_len, const char* query_json,
                                   size_t query_len, const char* prices, size_t prices_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last();
    ReportInput in;
    if (!read_report_input(usage_json, usage_len, query_json, query_len, prices, prices_len, in)) return last();
    const std::string_view usage_text = in.usage_text, query_text = in.query_text;
    const cost::PriceBook* bp = in.book ? &*in.book : nullptr;
    cost::ReportQuery q;
    if (!query_text.empty()) {
      auto d = document(query_text, "query_json");
      if (!d) return capi::set_error(d.error());
      auto parsed = cost::read_report_query(*d, bp ? bp->currency : "USD");
      if (!parsed) return capi::set_error(parsed.error());
      q = std::move(*parsed);
    }
    auto usage = cost::parse_usage_text(usage_text, bp);
    if (!usage) return capi::set_error(usage.error());
    if (q.granularity == cost::Granularity::Total) {
      auto r = cost::chargeback(*usage, q, bp);
      if (!r) return capi::set_error(r.error());
      return capi::fill_buf(out, core::to_json(cost::to_value(*r)));
    }
    if (!q.shared.empty()) {
      return capi::set_error(core::Error::invalid("shared", {}, "shared costs are allocated in a total report"));
    }
    auto r = cost::rollup(*usage, cost::RollupQuery{q.granularity, q.by, q.from, q.to});
    if (!r) return capi::set_error(r.error());
    return capi::fill_buf(out, core::to_json(cost::to_value(*r)));
  });
}

extern "C" int budcore_cost_serverless_report(budcore_buf* out, const char* usage_json, size_t usage_len,
                                              const char* query_json, size_t query_len, const char* prices,
                                              size_t prices_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last();
    ReportInput in;
    if (!read_report_input(usage_json, usage_len, query_json, query_len, prices, prices_len, in)) return last();
    const std::string_view usage_text = in.usage_text, query_text = in.query_text;
    cost::ServerlessRollupQuery q;
    if (!query_text.empty()) {
      auto d = document(query_text, "query_json");
      if (!d) return capi::set_error(d.error());
      auto parsed = cost::read_serverless_rollup_query(*d);
      if (!parsed) return capi::set_error(parsed.error());
      q = std::move(*parsed);
    }
    auto usage = cost::parse_usage_text(usage_text, in.book ? &*in.book : nullptr);
    if (!usage) return capi::set_error(usage.error());
    auto r = cost::serverless_rollup(*usage, q);
    if (!r) return capi::set_error(r.error());
    return capi::fill_buf(out, core::to_json(cost::to_value(*r)));
  });
}

extern "C" int budcore_cost_forecast(budcore_buf* out, const char* usage_json, size_t usage_len, const char* now,
                                     size_t now_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last();
    std::string_view usage_text, now_text;
    if (!text(usage_json, usage_len, "usage_json", usage_text) || !text(now, now_len, "now", now_text)) return last();
    auto at = time_of(now_text, "now");
    if (!at) return capi::set_error(at.error());
    auto usage = cost::parse_usage_text(usage_text, nullptr);
    if (!usage) return capi::set_error(usage.error());
    const core::Timestamp month = cost::bucket_start(cost::Granularity::Month, *at);
    const core::Timestamp since = core::Timestamp::from_unix_nanos(month.unix_nanos() - 30LL * 86'400 * 1'000'000'000);
    const core::Timestamp until = cost::bucket_end(cost::Granularity::Day, cost::bucket_start(cost::Granularity::Day, *at));
    auto days = cost::daily_totals(*usage, since, until);
    if (!days) return capi::set_error(days.error());
    auto f = cost::forecast_month_end(*days, *at);
    if (!f) return capi::set_error(f.error());
    core::List anomalies;
    for (const auto& a : cost::detect_anomalies(*days)) anomalies.push_back(cost::to_value(a));
    core::Map m;
    m.set("forecast", cost::to_value(*f));
    m.set("anomalies", core::Value(std::move(anomalies)));
    return capi::fill_buf(out, core::to_json(core::Value(std::move(m))));
  });
}

extern "C" int budcore_cost_record_usage(budcore_buf* out, budcore_store* store, const char* prices, size_t prices_len,
                                         const char* interval_json, size_t interval_len) {
  return capi::guard([&]() -> int {
    if (!store_ok(store)) return last();
    return priced(out, prices, prices_len, interval_json, interval_len, "interval_json",
                  [&](const cost::PriceBook& b, const core::Value& d) -> Result<core::Value> {
                    BUDCORE_TRY_ASSIGN(cost::UsageInterval i, cost::read_interval(d));
                    BUDCORE_TRY_ASSIGN(cost::Usage u, cost::record_usage(*store->store, b, i));
                    return u.to_value();
                  });
  });
}

extern "C" int budcore_cost_job_cost(budcore_buf* out, const budcore_store* store, const char* tenant, size_t tenant_len,
                                     const char* job_id, size_t job_id_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out) || !store_ok(store)) return last();
    std::string_view tenant_text, job_text;
    if (!text(tenant, tenant_len, "tenant", tenant_text) || !text(job_id, job_id_len, "job_id", job_text)) return last();
    auto t = core::Id::parse_field(tenant_text, "tenant");
    if (!t) return capi::set_error(t.error());
    auto j = core::Id::parse_field(job_text, "job_id");
    if (!j) return capi::set_error(j.error());
    auto s = cost::job_actual_cost(*store->store, *t, *j);
    if (!s) return capi::set_error(s.error());
    return capi::fill_buf(out, core::to_json(cost::to_value(*s)));
  });
}

extern "C" int budcore_cost_admit_job(budcore_buf* out, budcore_store* store, const char* budgets, size_t budgets_len,
                                      const char* prices, size_t prices_len, const char* job_json, size_t job_len,
                                      const char* now, size_t now_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out) || !store_ok(store)) return last();
    std::string_view budgets_text, job_text, now_text, p;
    if (!text(budgets, budgets_len, "budgets", budgets_text) || !text(job_json, job_len, "job_json", job_text) ||
        !text(now, now_len, "now", now_text) || !prices_text(prices, prices_len, p)) {
      return last();
    }
    auto book = cost::PriceBook::from_text(p);
    if (!book) return capi::set_error(book.error());
    auto set = cost::BudgetSet::from_text(budgets_text, book->currency);
    if (!set) return capi::set_error(set.error());
    auto job = budcore::job::Job::from_json(job_text);
    if (!job) return capi::set_error(job.error());
    auto at = time_of(now_text, "now");
    if (!at) return capi::set_error(at.error());
    auto d = cost::admit_job(*set, *store->store, *book, *job, *at);
    if (!d) return capi::set_error(d.error());
    if (!d->allowed) return capi::set_error(d->error());
    return capi::fill_buf(out, core::to_json(cost::to_value(*d)));
  });
}
