// Rollups of Usage records per time bucket and dimension, and the billing period.
#include "budcore/cost/rollup.hpp"

#include <array>
#include <chrono>
#include <limits>
#include <map>
#include <sstream>

#include "core/civil.hpp"
#include "core/enum_lookup.hpp"
#include "cost/csv.hpp"
#include "cost/document.hpp"
#include "cost/exact.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::Map;
using core::Money;
using core::Quantity;
using core::Result;
using core::Timestamp;
using core::Value;

constexpr std::int64_t kNanosPerSecond = 1'000'000'000;

constexpr core::detail::EnumNames<Granularity, 5> kGranularityNames{{{Granularity::Minute, "minute"},
                                                                     {Granularity::Hour, "hour"},
                                                                     {Granularity::Day, "day"},
                                                                     {Granularity::Month, "month"},
                                                                     {Granularity::Total, "total"}}};
constexpr core::detail::EnumNames<Dimension, 11> kDimensionNames{{{Dimension::Tenant, "tenant"},
                                                                  {Dimension::Project, "project"},
                                                                  {Dimension::Job, "job"},
                                                                  {Dimension::Pipeline, "pipeline"},
                                                                  {Dimension::Cluster, "cluster"},
                                                                  {Dimension::Node, "node"},
                                                                  {Dimension::GpuType, "gpu_type"},
                                                                  {Dimension::SharingMode, "sharing_mode"},
                                                                  {Dimension::Tier, "tier"},
                                                                  {Dimension::JobType, "job_type"},
                                                                  {Dimension::Label, "label"}}};
constexpr core::detail::EnumNames<BillingStatus, 4> kBillingNames{{{BillingStatus::Open, "open"},
                                                                   {BillingStatus::Closed, "closed"},
                                                                   {BillingStatus::Invoiced, "invoiced"},
                                                                   {BillingStatus::Paid, "paid"}}};

using core::detail::floor_div;

std::int64_t width_nanos(Granularity g) {
  switch (g) {
    case Granularity::Minute: return 60 * kNanosPerSecond;
    case Granularity::Hour: return 3'600 * kNanosPerSecond;
    case Granularity::Day: return 86'400 * kNanosPerSecond;
    default: return 0;
  }
}

Timestamp month_start(Timestamp t, int add_months) {
  using namespace std::chrono;
  const sys_days day{days{floor_div(t.unix_nanos(), 86'400 * kNanosPerSecond)}};
  year_month_day ymd{day};
  year_month first = ymd.year() / ymd.month();
  first += months{add_months};
  const sys_days start{first / 1d};
  return Timestamp::from_unix_seconds(start.time_since_epoch().count() * 86'400LL);
}

std::string id_text(const core::Id& id) { return id.is_nil() ? std::string() : id.to_string(); }

// Sums one piece of a record into a row.
struct Piece {
  std::int64_t t0 = 0, t1 = 0, whole = 0;  // nanoseconds from the record's start
  core::Quantity part(const Quantity& q) const { return Quantity::from_nano(detail::share(q.nano(), t0, t1, whole)); }
  core::Money part(const Money& m) const { return Money::from_units(detail::share(m.units(), t0, t1, whole), m.currency()); }
};

Result<Quantity> add(const Quantity& a, const Quantity& b) { return a.checked_add(b); }

// How many buckets [lo, hi) touches (months: at most 12 per year plus one).
std::size_t piece_count(Granularity g, Timestamp lo, Timestamp hi) {
  if (g == Granularity::Total) return 1;
  const std::int64_t span = hi.unix_nanos() - lo.unix_nanos();
  if (g == Granularity::Month) return static_cast<std::size_t>(span / (28LL * 86'400 * kNanosPerSecond)) + 2;
  return static_cast<std::size_t>(span / width_nanos(g)) + 2;
}

core::Status accumulate(RollupRow& row, const Usage& u, const Piece& p, bool counts_events) {
  ++row.records;
  BUDCORE_TRY_ASSIGN(row.seconds, add(row.seconds, p.part(u.seconds)));
  BUDCORE_TRY_ASSIGN(row.gpu_seconds, add(row.gpu_seconds, p.part(u.gpu_seconds)));
  BUDCORE_TRY_ASSIGN(row.idle_gpu_seconds, add(row.idle_gpu_seconds, p.part(u.idle_gpu_seconds)));
  BUDCORE_TRY_ASSIGN(row.cpu_core_seconds, add(row.cpu_core_seconds, p.part(u.cpu_core_seconds)));
  BUDCORE_TRY_ASSIGN(row.memory_gib_seconds, add(row.memory_gib_seconds, p.part(u.memory_gib_seconds)));
  BUDCORE_TRY_ASSIGN(row.cost, row.cost.checked_add(p.part(u.computed_cost)));
  BUDCORE_TRY_ASSIGN(row.idle_cost, row.idle_cost.checked_add(p.part(u.idle_cost)));
  if (counts_events) {
    row.tokens_in += u.interval.tokens_in;
    row.tokens_out += u.interval.tokens_out;
    row.requests += u.interval.requests;
  }
  return {};
}

}  // namespace

std::string_view to_string(Granularity g) noexcept { return core::detail::enum_name(g, kGranularityNames); }
Result<Granularity> parse_granularity(std::string_view text) {
  return core::detail::parse_enum(text, kGranularityNames, "granularity");
}
std::string_view to_string(BillingStatus s) noexcept { return core::detail::enum_name(s, kBillingNames); }

Timestamp bucket_start(Granularity g, Timestamp t) noexcept {
  if (g == Granularity::Total) return Timestamp::from_unix_nanos(0);
  if (g == Granularity::Month) return month_start(t, 0);
  const std::int64_t w = width_nanos(g);
  return Timestamp::from_unix_nanos(floor_div(t.unix_nanos(), w) * w);
}

Timestamp bucket_end(Granularity g, Timestamp bucket) noexcept {
  if (g == Granularity::Total) return Timestamp::from_unix_nanos(std::numeric_limits<std::int64_t>::max());
  if (g == Granularity::Month) return month_start(bucket, 1);
  return Timestamp::from_unix_nanos(bucket.unix_nanos() + width_nanos(g));
}

std::string GroupBy::name() const {
  if (dimension == Dimension::Label) return "label:" + label;
  return std::string(core::detail::enum_name(dimension, kDimensionNames));
}

Result<GroupBy> parse_group_by(std::string_view text) {
  if (text.starts_with("label:")) {
    std::string label(text.substr(6));
    if (label.empty() || label.size() > 63) return Error::invalid("by", std::string(text), "a label key has 1 to 63 characters");
    return GroupBy{Dimension::Label, std::move(label)};
  }
  auto d = core::detail::parse_enum(text, kDimensionNames, "dimension");
  if (!d) return std::move(d).error();
  if (*d == Dimension::Label) return Error::invalid("by", std::string(text), "name the label: label:<key>, e.g. label:team");
  return GroupBy{*d, {}};
}

Result<std::vector<GroupBy>> parse_group_by_list(std::string_view text) {
  std::vector<GroupBy> out;
  std::size_t pos = 0;
  while (pos <= text.size() && !text.empty()) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    auto g = parse_group_by(item);
    if (!g) {
      core::Error e = std::move(g).error();
      e.field = "by[" + std::to_string(out.size()) + "]";
      return e;
    }
    out.push_back(std::move(*g));
    if (out.size() > 16) return Error::invalid("by", std::string(text), "at most 16 dimensions");
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::string key_of(const Usage& u, const GroupBy& by) {
  const UsageInterval& i = u.interval;
  switch (by.dimension) {
    case Dimension::Tenant: return id_text(i.tenant_id);
    case Dimension::Project: return id_text(i.project_id);
    case Dimension::Job: return id_text(i.job_id);
    case Dimension::Pipeline: return i.pipeline_id ? i.pipeline_id->to_string() : std::string();
    case Dimension::Cluster: return id_text(i.cluster_id);
    case Dimension::Node: return i.node_name;
    case Dimension::GpuType:
      if (i.sharing_mode == SharingMode::Mig && i.mig_profile) {
        return i.mig_profile->starts_with("mig-") ? *i.mig_profile : "mig-" + *i.mig_profile;
      }
      return i.gpu_count > 0 ? i.gpu_type.value_or("") : std::string();
    case Dimension::SharingMode: return std::string(to_string(i.sharing_mode));
    case Dimension::Tier: return std::string(to_string(i.tier));
    case Dimension::JobType: return std::string(job::to_string(i.job_type));
    case Dimension::Label: {
      auto it = i.labels.find(by.label);
      return it == i.labels.end() ? std::string() : it->second;
    }
  }
  return {};
}

Result<Rollup> rollup(std::span<const Usage> usage, const RollupQuery& q) {
  Rollup out;
  out.granularity = q.granularity;
  out.by = q.by;
  // Count the pieces before making any, so an over-fine query fails at once.
  std::size_t pieces = 0;
  for (const Usage& u : usage) {
    const Timestamp lo = q.from && u.interval.start < *q.from ? *q.from : u.interval.start;
    const Timestamp hi = q.to && *q.to < u.interval.end ? *q.to : u.interval.end;
    if (lo < hi) pieces += piece_count(q.granularity, lo, hi);
    if (pieces > kMaxRollupPieces) {
      return Error::invalid("granularity", std::string(to_string(q.granularity)),
                            "splits the records into more than " + std::to_string(kMaxRollupPieces) +
                                " pieces; choose a coarser granularity or a narrower range");
    }
  }
  std::map<std::pair<std::int64_t, std::vector<std::string>>, RollupRow> rows;
  for (const Usage& u : usage) {
    if (out.currency.empty()) out.currency = u.currency;
    if (u.currency != out.currency) {
      return Error::invalid("currency", out.currency + " + " + u.currency,
                            "usage records in different currencies cannot be rolled up together");
    }
    const Timestamp start = u.interval.start;
    const Timestamp end = u.interval.end;
    const Timestamp lo = q.from && start < *q.from ? *q.from : start;
    const Timestamp hi = q.to && *q.to < end ? *q.to : end;
    if (!(lo < hi)) continue;
    std::vector<std::string> keys;
    keys.reserve(q.by.size());
    for (const auto& g : q.by) keys.push_back(key_of(u, g));
    const std::int64_t whole = end.unix_nanos() - start.unix_nanos();
    for (Timestamp b = bucket_start(q.granularity, lo); b < hi; b = bucket_end(q.granularity, b)) {
      const Timestamp piece_lo = lo < b ? b : lo;
      const Timestamp b_end = bucket_end(q.granularity, b);
      const Timestamp piece_hi = b_end < hi ? b_end : hi;
      Piece p{piece_lo.unix_nanos() - start.unix_nanos(), piece_hi.unix_nanos() - start.unix_nanos(), whole};
      auto [it, fresh] = rows.try_emplace({b.unix_nanos(), keys});
      RollupRow& row = it->second;
      if (fresh) {
        row.bucket = b;
        row.keys = keys;
        row.cost = row.idle_cost = Money::from_units(0, out.currency);
      }
      const bool counts_events = !(start < piece_lo) && start < piece_hi;
      BUDCORE_TRY(accumulate(row, u, p, counts_events));
      if (q.granularity == Granularity::Total) break;
    }
  }
  out.rows.reserve(rows.size());
  for (auto& [key, row] : rows) out.rows.push_back(std::move(row));
  return out;
}

Value to_value(const Rollup& r) {
  core::List rows;
  rows.reserve(r.rows.size());
  for (const auto& row : r.rows) {
    Map m;
    m.set("bucket", r.granularity == Granularity::Total ? Value() : Value(row.bucket.to_string()));
    for (std::size_t i = 0; i < r.by.size(); ++i) m.set(r.by[i].name(), Value(row.keys[i]));
    m.set("records", Value(static_cast<long long>(row.records)));
    m.set("seconds", detail::quantity_value(row.seconds));
    m.set("gpu_seconds", detail::quantity_value(row.gpu_seconds));
    m.set("idle_gpu_seconds", detail::quantity_value(row.idle_gpu_seconds));
    m.set("cpu_core_seconds", detail::quantity_value(row.cpu_core_seconds));
    m.set("memory_gib_seconds", detail::quantity_value(row.memory_gib_seconds));
    m.set("cost", detail::amount_value(row.cost));
    m.set("idle_cost", detail::amount_value(row.idle_cost));
    m.set("tokens_in", Value(static_cast<long long>(row.tokens_in)));
    m.set("tokens_out", Value(static_cast<long long>(row.tokens_out)));
    m.set("requests", Value(static_cast<long long>(row.requests)));
    rows.push_back(Value(std::move(m)));
  }
  Map m;
  m.set("granularity", Value(std::string(to_string(r.granularity))));
  core::List by;
  for (const auto& g : r.by) by.push_back(Value(g.name()));
  m.set("by", Value(std::move(by)));
  m.set("currency", Value(r.currency));
  m.set("rows", Value(std::move(rows)));
  return Value(std::move(m));
}

std::string to_csv(const Rollup& r) {
  std::vector<std::string> header{"bucket"};
  for (const auto& g : r.by) header.push_back(g.name());
  for (const char* c : {"records", "seconds", "gpu_seconds", "idle_gpu_seconds", "cpu_core_seconds",
                        "memory_gib_seconds", "cost", "idle_cost", "tokens_in", "tokens_out", "requests"}) {
    header.emplace_back(c);
  }
  std::string out;
  detail::append_csv_row(out, header);
  for (const auto& row : r.rows) {
    std::vector<std::string> f{r.granularity == Granularity::Total ? std::string() : row.bucket.to_string()};
    f.insert(f.end(), row.keys.begin(), row.keys.end());
    f.push_back(std::to_string(row.records));
    for (const Quantity* q : {&row.seconds, &row.gpu_seconds, &row.idle_gpu_seconds, &row.cpu_core_seconds,
                              &row.memory_gib_seconds}) {
      f.push_back(core::detail::decimal_string(*q));
    }
    f.push_back(row.cost.amount_string(2));
    f.push_back(row.idle_cost.amount_string(2));
    f.push_back(std::to_string(row.tokens_in));
    f.push_back(std::to_string(row.tokens_out));
    f.push_back(std::to_string(row.requests));
    detail::append_csv_row(out, f);
  }
  return out;
}

Result<ServerlessRollupQuery> read_serverless_rollup_query(const Value& document) {
  static constexpr std::array<std::string_view, 4> kKeys{"endpoint", "granularity", "from", "to"};
  ServerlessRollupQuery q;
  if (document.is_null()) return q;
  if (!document.is_map()) return Error::invalid({}, core::detail::value_text(document), "a serverless report query is a map");
  core::detail::Reader r(document.as_map());
  BUDCORE_TRY(r.reject_unknown(kKeys));
  BUDCORE_TRY_ASSIGN(auto endpoint, r.string("endpoint"));
  if (endpoint) {
    if (endpoint->empty()) return Error::invalid("endpoint", "", "must be an endpoint's name (leave it out for every endpoint)");
    q.endpoint = std::move(*endpoint);
  }
  BUDCORE_TRY_ASSIGN(auto g, r.enumeration<Granularity>("granularity", parse_granularity));
  if (g) q.granularity = *g;
  BUDCORE_TRY_ASSIGN(q.from, r.timestamp("from"));
  BUDCORE_TRY_ASSIGN(q.to, r.timestamp("to"));
  if (q.from && q.to && !(*q.from < *q.to)) return Error::invalid("to", q.to->to_string(), "must be after from");
  return q;
}

Result<ServerlessRollup> serverless_rollup(std::span<const Usage> usage, const ServerlessRollupQuery& q) {
  const std::string label(kServerlessEndpointLabel);
  std::vector<Usage> rows;
  for (const Usage& u : usage) {
    auto it = u.interval.labels.find(label);
    if (it == u.interval.labels.end() || it->second.empty()) continue;
    if (!q.endpoint.empty() && it->second != q.endpoint) continue;
    rows.push_back(u);
  }
  // Per bucket, endpoint and worker job; the workers of one bucket and endpoint are adjacent.
  RollupQuery per_worker{q.granularity, {GroupBy{Dimension::Label, label}, GroupBy{Dimension::Job, {}}}, q.from, q.to};
  BUDCORE_TRY_ASSIGN(Rollup r, rollup(rows, per_worker));
  ServerlessRollup out;
  out.granularity = q.granularity;
  out.endpoint = q.endpoint;
  out.currency = r.currency;
  for (const RollupRow& w : r.rows) {
    if (out.rows.empty() || out.rows.back().bucket != w.bucket || out.rows.back().endpoint != w.keys[0]) {
      ServerlessRollupRow row;
      row.bucket = w.bucket;
      row.endpoint = w.keys[0];
      row.cost = row.busy_cost = row.idle_cost = Money::from_units(0, out.currency);
      out.rows.push_back(std::move(row));
    }
    ServerlessRollupRow& row = out.rows.back();
    ++row.workers;
    row.records += w.records;
    BUDCORE_TRY_ASSIGN(row.gpu_seconds, row.gpu_seconds.checked_add(w.gpu_seconds));
    BUDCORE_TRY_ASSIGN(row.idle_gpu_seconds, row.idle_gpu_seconds.checked_add(w.idle_gpu_seconds));
    BUDCORE_TRY_ASSIGN(row.cost, row.cost.checked_add(w.cost));
    BUDCORE_TRY_ASSIGN(row.idle_cost, row.idle_cost.checked_add(w.idle_cost));
  }
  for (ServerlessRollupRow& row : out.rows) {
    BUDCORE_TRY_ASSIGN(row.busy_gpu_seconds, row.gpu_seconds.checked_sub(row.idle_gpu_seconds));
    BUDCORE_TRY_ASSIGN(row.busy_cost, row.cost.checked_sub(row.idle_cost));
  }
  return out;
}

Value to_value(const ServerlessRollup& r) {
  core::List rows;
  rows.reserve(r.rows.size());
  for (const auto& row : r.rows) {
    Map m;
    m.set("bucket", r.granularity == Granularity::Total ? Value() : Value(row.bucket.to_string()));
    m.set("endpoint", Value(row.endpoint));
    m.set("workers", Value(static_cast<long long>(row.workers)));
    m.set("records", Value(static_cast<long long>(row.records)));
    m.set("gpu_seconds", detail::quantity_value(row.gpu_seconds));
    m.set("busy_gpu_seconds", detail::quantity_value(row.busy_gpu_seconds));
    m.set("idle_gpu_seconds", detail::quantity_value(row.idle_gpu_seconds));
    m.set("cost", detail::amount_value(row.cost));
    m.set("busy_cost", detail::amount_value(row.busy_cost));
    m.set("idle_cost", detail::amount_value(row.idle_cost));
    rows.push_back(Value(std::move(m)));
  }
  Map m;
  m.set("granularity", Value(std::string(to_string(r.granularity))));
  m.set("endpoint", r.endpoint.empty() ? Value() : Value(r.endpoint));
  m.set("by", Value(core::List{Value("endpoint")}));  // the rows' key, as a rollup names its keys
  m.set("currency", Value(r.currency));
  m.set("rows", Value(std::move(rows)));
  return Value(std::move(m));
}

std::string to_csv(const ServerlessRollup& r) {
  std::string out;
  detail::append_csv_row(out, {"bucket", "endpoint", "workers", "records", "gpu_seconds", "busy_gpu_seconds",
                               "idle_gpu_seconds", "cost", "busy_cost", "idle_cost"});
  for (const auto& row : r.rows) {
    detail::append_csv_row(out, {r.granularity == Granularity::Total ? std::string() : row.bucket.to_string(),
                                 row.endpoint, std::to_string(row.workers), std::to_string(row.records),
                                 core::detail::decimal_string(row.gpu_seconds),
                                 core::detail::decimal_string(row.busy_gpu_seconds),
                                 core::detail::decimal_string(row.idle_gpu_seconds), row.cost.amount_string(2),
                                 row.busy_cost.amount_string(2), row.idle_cost.amount_string(2)});
  }
  return out;
}

Result<BillingPeriod> billing_period(std::span<const Usage> usage, const core::Id& tenant, Timestamp at, Timestamp now) {
  BillingPeriod p;
  p.tenant_id = tenant;
  p.period_start = bucket_start(Granularity::Month, at);
  p.period_end = bucket_end(Granularity::Month, p.period_start);
  std::vector<Usage> mine;
  for (const Usage& u : usage) {
    if (u.interval.tenant_id == tenant) mine.push_back(u);
  }
  RollupQuery q;
  q.granularity = Granularity::Total;
  q.by = {GroupBy{Dimension::GpuType, {}}};
  q.from = p.period_start;
  q.to = p.period_end;
  BUDCORE_TRY_ASSIGN(Rollup r, rollup(mine, q));
  p.total_cost = Money::from_units(0, r.currency);
  for (const auto& row : r.rows) {
    BUDCORE_TRY_ASSIGN(p.total_gpu_seconds, p.total_gpu_seconds.checked_add(row.gpu_seconds));
    BUDCORE_TRY_ASSIGN(p.total_cost, p.total_cost.checked_add(row.cost));
    p.total_requests += row.requests;
    if (!row.keys[0].empty()) p.usage_by_gpu_type.push_back(GpuTypeUsage{row.keys[0], row.gpu_seconds, row.cost});
  }
  p.status = now < p.period_end ? BillingStatus::Open : BillingStatus::Closed;
  return p;
}

Value to_value(const BillingPeriod& p) {
  Map by_type;
  for (const auto& g : p.usage_by_gpu_type) {
    Map e;
    e.set("seconds", detail::quantity_value(g.seconds));
    e.set("cost", detail::amount_value(g.cost));
    by_type.set(g.gpu_type, Value(std::move(e)));
  }
  Map m;
  m.set("tenant_id", Value(p.tenant_id.to_string()));
  m.set("period_start", Value(p.period_start.to_string()));
  m.set("period_end", Value(p.period_end.to_string()));
  m.set("total_gpu_seconds", detail::quantity_value(p.total_gpu_seconds));
  m.set("total_cost", detail::amount_value(p.total_cost));
  m.set("total_requests", Value(static_cast<long long>(p.total_requests)));
  m.set("usage_by_gpu_type", Value(std::move(by_type)));
  m.set("status", Value(std::string(to_string(p.status))));
  return Value(std::move(m));
}

}  // namespace budcore::cost
