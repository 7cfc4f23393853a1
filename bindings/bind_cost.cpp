// The cost layer for Python (budcore.cost wraps these into typed results): PriceBook, the
// contract-5 estimator, metering, reports, forecasts, budgets, the store-backed calls, and the
// columnar rollup over numpy arrays (zero-copy). Amounts cross as decimal strings, never floats;
// long calls release the GIL.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/chargeback.hpp"
#include "budcore/cost/estimator.hpp"
#include "budcore/cost/forecast.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/rollup.hpp"
#include "casters.hpp"
#include "errors.hpp"
#include "pytypes.hpp"
#include "store_handle.hpp"

namespace budcore::bindings {
namespace {

using core::Result;
using core::Value;

// A time: a datetime (naive: UTC) or RFC 3339 text; None is now.
using TimeArg = Hinted<"datetime.datetime | str | None">;
// Usage records or intervals as dicts, or their text (JSON, YAML, JSON Lines).
using UsageArg = Hinted<"list[dict[str, builtins.object]] | str">;

// An optional price book: the stubs say PriceBook | None, which a pointer argument would not.
using OptionalPrices = std::optional<std::reference_wrapper<const cost::PriceBook>>;

const cost::PriceBook* book_of(const OptionalPrices& prices) { return prices ? &prices->get() : nullptr; }

// Runs fn without the GIL and unwraps its Result.
template <class F>
auto nogil(F&& f) {
  auto r = [&] {
    py::gil_scoped_release release;
    return f();
  }();
  return unwrap(std::move(r));
}

// A dict/list argument, or JSON/YAML text.
Value doc_of(const py::handle& obj, const char* what) {
  if (py::isinstance<py::str>(obj)) {
    std::string text = obj.cast<std::string>();
    return nogil([&] { return core::parse_document(text); });
  }
  return to_value(obj, what);
}

core::Timestamp time_of(const TimeArg& obj, const char* what) {
  if (obj.is_none()) return core::system_clock()->now();
  if (py::hasattr(obj, "isoformat")) {
    // A datetime: naive ones are read as UTC.
    py::object dt = obj;
    if (obj.attr("tzinfo").is_none()) {
      dt = obj.attr("replace")(py::arg("tzinfo") = py::module_::import("datetime").attr("timezone").attr("utc"));
    }
    std::string text = dt.attr("isoformat")().cast<std::string>();
    return unwrap(core::Timestamp::parse(text));
  }
  std::string text = py::str(obj).cast<std::string>();
  auto t = core::Timestamp::parse(text);
  if (!t) throw PyError(core::Error::invalid(what, text, "must be an RFC 3339 time or a datetime"));
  return *t;
}

// Usage from a list of dicts (records or intervals) or text (JSON, YAML, JSON Lines).
std::vector<cost::Usage> usage_of(const py::handle& obj, const cost::PriceBook* book) {
  if (py::isinstance<py::str>(obj)) {
    std::string text = obj.cast<std::string>();
    return nogil([&] { return cost::parse_usage_text(text, book); });
  }
  Value v = to_value(obj, "usage");
  return nogil([&] { return cost::read_usage_list(v, book); });
}

Value usage_list(const std::vector<cost::Usage>& usage) {
  core::List out;
  out.reserve(usage.size());
  for (const auto& u : usage) out.push_back(u.to_value());
  return Value(std::move(out));
}

JsonDict report(const UsageArg& usage, const OptionalJsonDocArg& query, const OptionalPrices& prices) {
  const cost::PriceBook* book = book_of(prices);
  const std::string currency = book ? book->currency : "USD";
  Value q = query.is_none() ? Value() : doc_of(query, "query");
  cost::ReportQuery rq = unwrap(cost::read_report_query(q, currency));
  std::vector<cost::Usage> records = usage_of(usage, book);
  Value out = nogil([&]() -> Result<Value> {
    if (rq.granularity == cost::Granularity::Total) {
      BUDCORE_TRY_ASSIGN(auto r, cost::chargeback(records, rq, book));
      return cost::to_value(r);
    }
    if (!rq.shared.empty()) return core::Error::invalid("shared", {}, "shared costs are allocated in a total report");
    BUDCORE_TRY_ASSIGN(auto r, cost::rollup(records, cost::RollupQuery{rq.granularity, rq.by, rq.from, rq.to}));
    return cost::to_value(r);
  });
  return hinted<JsonDict>(to_python(out));
}

JsonDict serverless_report(const UsageArg& usage, const OptionalJsonDocArg& query, const OptionalPrices& prices) {
  const cost::PriceBook* book = book_of(prices);
  Value q = query.is_none() ? Value() : doc_of(query, "query");
  cost::ServerlessRollupQuery sq = unwrap(cost::read_serverless_rollup_query(q));
  std::vector<cost::Usage> records = usage_of(usage, book);
  Value out = nogil([&]() -> Result<Value> {
    BUDCORE_TRY_ASSIGN(auto r, cost::serverless_rollup(records, sq));
    return cost::to_value(r);
  });
  return hinted<JsonDict>(to_python(out));
}

using RollupColumns = py::typing::Dict<py::str, py::array>;

// int128 sums as int64 numpy arrays, or as Python ints (object arrays) when one does not fit.
py::array int128_column(const std::vector<cost::ColumnRollupRow>& rows, core::int128 cost::ColumnRollupRow::*field) {
  bool fits = true;
  for (const auto& r : rows) {
    const core::int128 v = r.*field;
    if (v > INT64_MAX || v < INT64_MIN) {
      fits = false;
      break;
    }
  }
  if (fits) {
    py::array_t<std::int64_t> a(static_cast<py::ssize_t>(rows.size()));
    auto m = a.mutable_unchecked<1>();
    for (std::size_t i = 0; i < rows.size(); ++i) m(static_cast<py::ssize_t>(i)) = static_cast<std::int64_t>(rows[i].*field);
    return a;
  }
  py::list values;
  for (const auto& r : rows) values.append(py::int_(py::str(core::to_decimal_string(r.*field))));
  return py::module_::import("numpy").attr("array")(values, py::arg("dtype") = "object");
}

RollupColumns rollup_arrays(const py::array_t<std::int64_t, py::array::c_style>& start,
                       const py::array_t<std::int32_t, py::array::c_style>& tenant,
                       const py::array_t<std::int32_t, py::array::c_style>& gpu_type,
                       const py::array_t<std::int64_t, py::array::c_style>& gpu_nanos,
                       const py::array_t<std::int64_t, py::array::c_style>& cost_pico, const std::string& granularity,
                       unsigned threads) {
  const cost::Granularity g = unwrap(cost::parse_granularity(granularity));
  for (const py::array* a : {static_cast<const py::array*>(&start), static_cast<const py::array*>(&tenant),
                             static_cast<const py::array*>(&gpu_type), static_cast<const py::array*>(&gpu_nanos),
                             static_cast<const py::array*>(&cost_pico)}) {
    if (a->ndim() != 1) throw PyError(core::Error::invalid("columns", std::to_string(a->ndim()), "columns are 1-dimensional"));
  }
  const auto span64 = [](const py::array_t<std::int64_t, py::array::c_style>& a) {
    return std::span<const std::int64_t>(a.data(), static_cast<std::size_t>(a.size()));
  };
  const auto span32 = [](const py::array_t<std::int32_t, py::array::c_style>& a) {
    return std::span<const std::int32_t>(a.data(), static_cast<std::size_t>(a.size()));
  };
  cost::UsageColumns c{span64(start), span32(tenant), span32(gpu_type), span64(gpu_nanos), span64(cost_pico)};
  std::vector<cost::ColumnRollupRow> rows = nogil([&] { return cost::rollup_columns(c, g, threads); });
  const auto n = static_cast<py::ssize_t>(rows.size());
  py::array_t<std::int64_t> bucket(n), records(n);
  py::array_t<std::int32_t> t(n), gt(n);
  auto bm = bucket.mutable_unchecked<1>();
  auto rm = records.mutable_unchecked<1>();
  auto tm = t.mutable_unchecked<1>();
  auto gm = gt.mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const auto& r = rows[static_cast<std::size_t>(i)];
    bm(i) = r.bucket_start;
    tm(i) = r.tenant;
    gm(i) = r.gpu_type;
    rm(i) = r.records;
  }
  RollupColumns out;
  out["bucket_start"] = bucket;
  out["tenant"] = t;
  out["gpu_type"] = gt;
  out["records"] = records;
  out["gpu_nanos"] = int128_column(rows, &cost::ColumnRollupRow::gpu_nanos);
  out["cost_pico"] = int128_column(rows, &cost::ColumnRollupRow::cost_pico);
  return out;
}

}  // namespace

void bind_cost(py::module_& m) {
  py::class_<cost::PriceBook>(m, "PriceBook",
                              "Prices per GPU type and tier, CPU core-hour, memory GiB-hour and storage GiB-month.")
      .def_static(
          "from_dict", [](const py::dict& d) { return unwrap(cost::PriceBook::from_value(to_value(d, "prices"))); },
          py::arg("document"), "A price book from a dict (currency, gpu_types with hourly prices per tier, ...).")
      .def_static(
          "from_text", [](const std::string& t) { return nogil([&] { return cost::PriceBook::from_text(t); }); },
          py::arg("text"), "A price book from YAML or JSON text.")
      .def_static(
          "load",
          [](const PathArg& path) {
            std::string p = py::module_::import("os").attr("fspath")(path).cast<std::string>();
            return nogil([&] { return cost::PriceBook::load_file(p); });
          },
          py::arg("path"), "A price book file (YAML or JSON).")
      .def("to_dict", [](const cost::PriceBook& b) { return hinted<JsonDict>(to_python(b.to_value())); }, "The price book as a dict (the document from_dict reads).")
      .def_property_readonly("currency", [](const cost::PriceBook& b) { return b.currency; }, "The currency of every price.")
      .def_property_readonly("minimum_billable_seconds", [](const cost::PriceBook& b) { return b.minimum_billable_seconds; }, "The least time a run is billed for.")
      .def_property_readonly("gpu_types",
                             [](const cost::PriceBook& b) {
                               std::vector<std::string> out;
                               for (const auto& [k, v] : b.gpu_hour) out.push_back(k);
                               return out;
                             }, "The GPU types priced.")
      .def("__eq__", [](const cost::PriceBook& a, const cost::PriceBook& b) { return a == b; })
      .def("__repr__", [](const cost::PriceBook& b) {
        return "PriceBook(currency='" + b.currency + "', gpu_types=" + std::to_string(b.gpu_hour.size()) + ")";
      });

  m.def(
      "cost_estimate",
      [](const cost::PriceBook& b, const JsonDocArg& spec, const std::optional<std::string>& tier) {
        Value s = doc_of(spec, "spec");
        cost::EstimateOptions o;
        if (tier) o.tier = unwrap(cost::parse_tier(*tier));
        return hinted<JsonDict>(to_python(nogil([&]() -> Result<Value> {
          BUDCORE_TRY_ASSIGN(auto e, cost::estimate_document(b, s, o));
          return cost::to_value(e);
        })));
      },
      py::arg("prices"), py::arg("spec"), py::arg("tier") = py::none(), "The estimated cost of a job spec at a tier (on_demand, spot, reserved).");
  m.def(
      "cost_compare_tiers",
      [](const cost::PriceBook& b, const JsonDocArg& spec) {
        Value s = doc_of(spec, "spec");
        return hinted<JsonDict>(to_python(nogil([&]() -> Result<Value> {
          BUDCORE_TRY_ASSIGN(auto c, cost::compare_tiers(b, s));
          return cost::to_value(c);
        })));
      },
      py::arg("prices"), py::arg("spec"), "A job spec's cost at every tier, cheapest first.");
  m.def(
      "cost_cheapest_gpu",
      [](const cost::PriceBook& b, const py::dict& requirement) {
        cost::GpuRequirement r = unwrap(cost::read_gpu_requirement(to_value(requirement, "requirement")));
        return hinted<JsonDict>(to_python(cost::to_value(nogil([&] { return cost::cheapest_gpu(b, r); }))));
      },
      py::arg("prices"), py::arg("requirement"), "The cheapest GPU type meeting a requirement (memory, count, tier).");
  m.def(
      "cost_meter",
      [](const cost::PriceBook& b, const JsonDocArg& interval) {
        cost::UsageInterval i = unwrap(cost::read_interval(doc_of(interval, "interval")));
        return hinted<JsonDict>(to_python(nogil([&] { return cost::meter(b, i); }).to_value()));
      },
      py::arg("prices"), py::arg("interval"), "The cost of one usage interval, with its line items.");
  m.def(
      "cost_usage",
      [](const UsageArg& usage, const OptionalPrices& prices) {
        return hinted<JsonDictList>(to_python(usage_list(usage_of(usage, book_of(prices)))));
      },
      py::arg("usage"), py::arg("prices") = py::none(), "Usage records as dicts (intervals priced with prices).");
  m.def("cost_serverless_report", &serverless_report, py::arg("usage"), py::arg("query") = py::none(), py::arg("prices") = py::none(), "Serverless spend per endpoint and time bucket (hour by default) over the usage records labelled serverless_endpoint.");
  m.def("cost_report", &report, py::arg("usage"), py::arg("query") = py::none(), py::arg("prices") = py::none(), "A cost report over usage records, grouped and filtered by `query`.");
  m.def("cost_rollup_arrays", &rollup_arrays, py::arg("start_seconds"), py::arg("tenant"), py::arg("gpu_type"),
        py::arg("gpu_nanos"), py::arg("cost_pico"), py::arg("granularity") = "hour", py::arg("threads") = 0u, "Sums costs by day and tenant over columnar arrays (numpy), without Python loops.");
  m.def(
      "cost_forecast",
      [](const UsageArg& usage, const TimeArg& now, const OptionalPrices& prices) {
        const cost::PriceBook* book = book_of(prices);
        std::vector<cost::Usage> records = usage_of(usage, book);
        const core::Timestamp at = time_of(now, "now");
        return hinted<JsonDict>(to_python(nogil([&]() -> Result<Value> {
          const core::Timestamp month = cost::bucket_start(cost::Granularity::Month, at);
          const core::Timestamp since = core::Timestamp::from_unix_nanos(month.unix_nanos() - 30LL * 86'400 * 1'000'000'000);
          const core::Timestamp until = cost::bucket_end(cost::Granularity::Day, cost::bucket_start(cost::Granularity::Day, at));
          BUDCORE_TRY_ASSIGN(auto days, cost::daily_totals(records, since, until));
          BUDCORE_TRY_ASSIGN(auto f, cost::forecast_month_end(days, at));
          core::List daily, anomalies;
          for (const auto& d : days) daily.push_back(Value(core::Map{{"day", Value(d.day.to_string())}, {"cost", Value(d.cost.amount_string(2))}}));
          for (const auto& a : cost::detect_anomalies(days)) anomalies.push_back(cost::to_value(a));
          core::Map out;
          out.set("forecast", cost::to_value(f));
          out.set("daily", Value(std::move(daily)));
          out.set("anomalies", Value(std::move(anomalies)));
          return Value(std::move(out));
        })));
      },
      py::arg("usage"), py::arg("now") = py::none(), py::arg("prices") = py::none(), "Projects month-end spend from usage so far.");
  m.def(
      "cost_budget_status",
      [](const JsonDocArg& budgets, const UsageArg& usage, const cost::PriceBook& b, const TimeArg& now) {
        cost::BudgetSet set = unwrap(cost::BudgetSet::from_value(doc_of(budgets, "budgets"), b.currency));
        std::vector<cost::Usage> records = usage_of(usage, &b);
        const core::Timestamp at = time_of(now, "now");
        return hinted<JsonDictList>(to_python(nogil([&]() -> Result<Value> {
          auto spend = cost::usage_spend(records, b);
          BUDCORE_TRY_ASSIGN(auto statuses, cost::budget_status(set, *spend, at));
          core::List out;
          for (const auto& s : statuses) out.push_back(cost::to_value(s));
          return Value(std::move(out));
        })));
      },
      py::arg("budgets"), py::arg("usage"), py::arg("prices"), py::arg("now") = py::none(), "Each budget's spend, remaining amount and alert levels reached.");
  m.def(
      "cost_check_admission",
      [](const JsonDocArg& budgets, const UsageArg& usage, const cost::PriceBook& b, const IdArg& tenant,
         const OptionalIdArg& project, const std::string& estimate, const std::string& job, const TimeArg& now) {
        cost::BudgetSet set = unwrap(cost::BudgetSet::from_value(doc_of(budgets, "budgets"), b.currency));
        std::vector<cost::Usage> records = usage_of(usage, &b);
        cost::AdmissionRequest req{id_of(tenant, "tenant"), std::nullopt, {}, job};
        if (!project.is_none()) req.project_id = id_of(project, "project");
        req.estimate = estimate.find(' ') == std::string::npos ? unwrap(core::Money::parse(estimate, b.currency))
                                                                : unwrap(core::Money::parse(estimate));
        const core::Timestamp at = time_of(now, "now");
        return hinted<JsonDict>(to_python(cost::to_value(nogil([&] {
          auto spend = cost::usage_spend(records, b);
          return cost::check_admission(set, *spend, req, at, b);
        }))));
      },
      py::arg("budgets"), py::arg("usage"), py::arg("prices"), py::arg("tenant"), py::arg("project"),
      py::arg("estimate"), py::arg("job") = "", py::arg("now") = py::none(), "Whether a job's estimate fits its tenant's and project's budgets (BudgetExceededError if not).");

  // ---- with a store ----
  m.def(
      "cost_record_usage",
      [](PyStore& s, const cost::PriceBook& b, const JsonDocArg& interval) {
        cost::UsageInterval i = unwrap(cost::read_interval(doc_of(interval, "interval")));
        auto st = s.store();
        return hinted<JsonDict>(to_python(nogil([&] { return cost::record_usage(*st, b, i); }).to_value()));
      },
      py::arg("store"), py::arg("prices"), py::arg("interval"), "Meters a usage interval and stores it.");
  m.def(
      "cost_load_usage",
      [](PyStore& s, const IdArg& tenant, const TimeArg& from, const TimeArg& to) {
        backend::UsageQuery q;
        if (!from.is_none()) q.from = time_of(from, "from");
        if (!to.is_none()) q.to = time_of(to, "to");
        const core::Id t = id_of(tenant, "tenant");
        auto st = s.store();
        return hinted<JsonDictList>(to_python(usage_list(nogil([&] { return cost::load_usage(*st, t, q); }))));
      },
      py::arg("store"), py::arg("tenant"), py::arg("from_") = py::none(), py::arg("to") = py::none(), "A tenant's stored usage records between `from_` and `to`.");
  m.def(
      "cost_job_cost",
      [](PyStore& s, const IdArg& tenant, const IdArg& job_id) {
        const core::Id t = id_of(tenant, "tenant");
        const core::Id j = id_of(job_id, "job_id");
        auto st = s.store();
        return hinted<JsonDict>(to_python(cost::to_value(nogil([&] { return cost::job_actual_cost(*st, t, j); }))));
      },
      py::arg("store"), py::arg("tenant"), py::arg("job_id"), "A job's metered cost from the store.");
  m.def(
      "cost_admit_job",
      [](PyStore& s, const JsonDocArg& budgets, const cost::PriceBook& b, const job::Job& j, const TimeArg& now) {
        cost::BudgetSet set = unwrap(cost::BudgetSet::from_value(doc_of(budgets, "budgets"), b.currency));
        const core::Timestamp at = time_of(now, "now");
        auto st = s.store();
        return hinted<JsonDict>(to_python(cost::to_value(nogil([&] { return cost::admit_job(set, *st, b, j, at); }))));
      },
      py::arg("store"), py::arg("budgets"), py::arg("prices"), py::arg("job"), py::arg("now") = py::none(), "Checks a job against the stored budgets and usage, as the platform's cost gate does.");
}

}  // namespace budcore::bindings
