// Chargeback: direct cost per group plus shared costs allocated by usage share.
#include "budcore/cost/chargeback.hpp"

#include <algorithm>
#include <array>

#include "cost/csv.hpp"
#include "cost/document.hpp"
#include "cost/exact.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::int128;
using core::Map;
using core::Money;
using core::Result;
using core::Value;
using core::detail::Reader;

constexpr std::array<std::string_view, 5> kQueryKeys{"by", "granularity", "from", "to", "shared"};
constexpr std::array<std::string_view, 3> kSharedKeys{"name", "amount", "currency"};
constexpr std::size_t kMaxShared = 1'000;

Result<SharedCost> read_shared(const Value& v, std::string_view default_currency) {
  if (!v.is_map()) return Error::invalid({}, core::detail::value_text(v), "a shared cost is a map {name, amount, currency}");
  Reader r(v.as_map());
  BUDCORE_TRY(r.reject_unknown(kSharedKeys));
  BUDCORE_TRY_ASSIGN(auto name, r.string("name"));
  if (!name) return Error::invalid("name", {}, std::string(detail::kMissingField));
  BUDCORE_TRY_ASSIGN(auto currency, r.currency("currency"));
  const Value* amount = v.find("amount");
  if (amount == nullptr || amount->is_null()) return Error::invalid("amount", {}, std::string(detail::kMissingField));
  BUDCORE_TRY_ASSIGN(std::string text, detail::decimal_text_of(*amount, "amount"));
  BUDCORE_TRY_ASSIGN(Money m, detail::parse_price(text, currency.value_or(std::string(default_currency)), "amount",
                                                  1'000'000'000'000LL));
  return SharedCost{*name, std::move(m)};
}


}  // namespace

Result<ReportQuery> read_report_query(const Value& document, std::string_view default_currency) {
  ReportQuery q;
  if (document.is_null()) return q;
  if (!document.is_map()) return Error::invalid({}, core::detail::value_text(document), "a report query is a map");
  Reader r(document.as_map());
  BUDCORE_TRY(r.reject_unknown(kQueryKeys));
  if (const Value* by = document.find("by"); by != nullptr && !by->is_null()) {
    if (by->is_string()) {
      BUDCORE_TRY_ASSIGN(q.by, parse_group_by_list(by->as_string()));
    } else if (by->is_list()) {
      q.by.clear();
      for (std::size_t i = 0; i < by->as_list().size(); ++i) {
        const Value& item = by->as_list()[i];
        const std::string path = "by[" + std::to_string(i) + "]";
        if (!item.is_string()) return Error::invalid(path, core::detail::value_text(item), "must be a dimension name");
        auto g = parse_group_by(item.as_string());
        if (!g) {
          Error e = std::move(g).error();
          e.field = path;
          return e;
        }
        q.by.push_back(std::move(*g));
      }
      if (q.by.size() > 16) return Error::invalid("by", std::to_string(q.by.size()), "at most 16 dimensions");
    } else {
      return Error::invalid("by", core::detail::value_text(*by), "must be a list of dimensions or \"a,b\"");
    }
  }
  BUDCORE_TRY_ASSIGN(auto g, r.enumeration<Granularity>("granularity", parse_granularity));
  if (g) q.granularity = *g;
  BUDCORE_TRY_ASSIGN(q.from, r.timestamp("from"));
  BUDCORE_TRY_ASSIGN(q.to, r.timestamp("to"));
  if (q.from && q.to && !(*q.from < *q.to)) return Error::invalid("to", q.to->to_string(), "must be after from");
  BUDCORE_TRY_ASSIGN(auto shared, r.list("shared"));
  if (shared) {
    if (shared->size() > kMaxShared) return Error::invalid("shared", std::to_string(shared->size()), "at most 1000 shared costs");
    for (std::size_t i = 0; i < shared->size(); ++i) {
      auto s = read_shared((*shared)[i], default_currency);
      if (!s) return detail::under("shared[" + std::to_string(i) + "]", std::move(s).error());
      q.shared.push_back(std::move(*s));
    }
  }
  return q;
}

Result<ChargebackReport> chargeback(std::span<const Usage> usage, const ReportQuery& query, const PriceBook* book) {
  RollupQuery rq;
  rq.granularity = Granularity::Total;
  rq.by = query.by;
  rq.from = query.from;
  rq.to = query.to;
  BUDCORE_TRY_ASSIGN(Rollup r, rollup(usage, rq));
  ChargebackReport out;
  out.by = query.by;
  out.from = query.from;
  out.to = query.to;
  out.currency = r.currency;
  if (out.currency.empty()) {
    // No usage: the report is in the shared costs' currency (or the book's).
    out.currency = !query.shared.empty() ? query.shared.front().amount.currency() : (book ? book->currency : "USD");
  }
  const Money zero = Money::from_units(0, out.currency);
  out.total_direct = out.total_shared = out.total = zero;
  std::vector<int128> weights;
  for (const auto& row : r.rows) {
    ChargebackRow c;
    c.keys = row.keys;
    c.records = row.records;
    c.gpu_seconds = row.gpu_seconds;
    c.idle_gpu_seconds = row.idle_gpu_seconds;
    c.direct = row.cost;
    c.idle = row.idle_cost;
    c.shared = zero;
    BUDCORE_TRY_ASSIGN(out.total_direct, out.total_direct.checked_add(c.direct));
    weights.push_back(std::max<int128>(0, c.direct.units()));
    out.rows.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < query.shared.size(); ++i) {
    SharedCost s = query.shared[i];
    if (s.amount.currency() != out.currency) {
      if (book == nullptr) {
        return Error::invalid("shared[" + std::to_string(i) + "].currency", s.amount.currency(),
                              "differs from the usage currency " + out.currency + " and no price book converts it");
      }
      auto converted = book->convert(s.amount, out.currency);
      if (!converted) return detail::under("shared[" + std::to_string(i) + "]", std::move(converted).error());
      s.amount = *converted;
    }
    BUDCORE_TRY_ASSIGN(out.total_shared, out.total_shared.checked_add(s.amount));
    const auto parts = detail::allocate(s.amount.units(), weights);
    for (std::size_t k = 0; k < out.rows.size(); ++k) {
      BUDCORE_TRY_ASSIGN(out.rows[k].shared, out.rows[k].shared.checked_add(Money::from_units(parts[k], out.currency)));
    }
    out.shared.push_back(std::move(s));
  }
  for (auto& row : out.rows) {
    BUDCORE_TRY_ASSIGN(row.total, row.direct.checked_add(row.shared));
    row.share_percent = detail::percent_text(row.direct, out.total_direct);
  }
  BUDCORE_TRY_ASSIGN(out.total, out.total_direct.checked_add(out.total_shared));
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const ChargebackRow& a, const ChargebackRow& b) {
    if (a.total.units() != b.total.units()) return a.total.units() > b.total.units();
    return a.keys < b.keys;
  });
  return out;
}

Value to_value(const ChargebackReport& r) {
  core::List rows;
  for (const auto& row : r.rows) {
    Map m;
    for (std::size_t i = 0; i < r.by.size(); ++i) m.set(r.by[i].name(), Value(row.keys[i]));
    m.set("records", Value(static_cast<long long>(row.records)));
    m.set("gpu_seconds", detail::quantity_value(row.gpu_seconds));
    m.set("idle_gpu_seconds", detail::quantity_value(row.idle_gpu_seconds));
    m.set("direct", detail::amount_value(row.direct));
    m.set("idle", detail::amount_value(row.idle));
    m.set("shared", detail::amount_value(row.shared));
    m.set("total", detail::amount_value(row.total));
    m.set("share_percent", Value(row.share_percent));
    rows.push_back(Value(std::move(m)));
  }
  core::List by;
  for (const auto& g : r.by) by.push_back(Value(g.name()));
  core::List shared;
  for (const auto& s : r.shared) {
    Map m;
    m.set("name", Value(s.name));
    m.set("amount", detail::amount_value(s.amount));
    shared.push_back(Value(std::move(m)));
  }
  Map m;
  m.set("by", Value(std::move(by)));
  m.set("currency", Value(r.currency));
  m.set("from", r.from ? Value(r.from->to_string()) : Value());
  m.set("to", r.to ? Value(r.to->to_string()) : Value());
  m.set("rows", Value(std::move(rows)));
  m.set("shared", Value(std::move(shared)));
  m.set("total_direct", detail::amount_value(r.total_direct));
  m.set("total_shared", detail::amount_value(r.total_shared));
  m.set("total", detail::amount_value(r.total));
  return Value(std::move(m));
}

std::string to_csv(const ChargebackReport& r) {
  std::vector<std::string> header;
  for (const auto& g : r.by) header.push_back(g.name());
  for (const char* c : {"records", "gpu_seconds", "idle_gpu_seconds", "direct", "idle", "shared", "total",
                        "share_percent", "currency"}) {
    header.emplace_back(c);
  }
  std::string out;
  detail::append_csv_row(out, header);
  for (const auto& row : r.rows) {
    std::vector<std::string> f = row.keys;
    f.push_back(std::to_string(row.records));
    f.push_back(core::detail::decimal_string(row.gpu_seconds));
    f.push_back(core::detail::decimal_string(row.idle_gpu_seconds));
    for (const Money* m : {&row.direct, &row.idle, &row.shared, &row.total}) f.push_back(m->amount_string(2));
    f.push_back(row.share_percent);
    f.push_back(r.currency);
    detail::append_csv_row(out, f);
  }
  return out;
}

}  // namespace budcore::cost
