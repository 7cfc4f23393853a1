// Metering: an interval priced into a Usage record, and actual costs summed back up.
#include "budcore/cost/metering.hpp"

#include <algorithm>

#include "budcore/cost/estimator.hpp"
#include "cost/document.hpp"
#include "cost/exact.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::Money;
using core::Quantity;
using core::Result;
using core::Status;

Quantity seconds_of(core::Timestamp start, core::Timestamp end) {
  // Nanoseconds are nano-units of a second.
  return Quantity::from_nano(static_cast<core::int128>(end.unix_nanos()) - start.unix_nanos());
}

// The gpu_hour entry an interval is priced at, and the field to blame when it is missing.
std::pair<std::string, std::string> gpu_price_key(const UsageInterval& u, const PriceBook& book) {
  if (u.sharing_mode == SharingMode::Mig && u.mig_profile) {
    const std::string& p = *u.mig_profile;
    if (book.gpu_hour.contains(p) || p.starts_with("mig-")) return {p, "mig_profile"};
    return {"mig-" + p, "mig_profile"};
  }
  return {u.gpu_type.value_or(""), "gpu_type"};
}

Result<Price> resource_price(const std::optional<TierPrices>& section, std::string_view name, Tier tier,
                             const char* field) {
  if (section && section->at(tier)) return *section->at(tier);
  return Error{core::ErrorCode::NotFound,
               "the price book has no " + std::string(to_string(tier)) + " price in " + std::string(name), field, {}};
}

Money zero(const std::string& currency) { return Money::from_units(0, currency); }

// A job's MIG slice: "mig-1g.5gb", "nvidia-mig-1g.5gb" or "nvidia.com/mig-1g.5gb".
std::optional<std::string> mig_profile_of(std::string_view gpu_type) {
  for (std::string_view prefix : {"nvidia.com/mig-", "nvidia-mig-", "mig-"}) {
    if (gpu_type.starts_with(prefix)) return std::string(gpu_type.substr(prefix.size()));
  }
  return std::nullopt;
}

}  // namespace

UsageInterval interval_of(const job::Job& j, core::Timestamp start, core::Timestamp end) {
  UsageInterval u;
  u.tenant_id = j.tenant_id;
  u.project_id = j.project_id;
  u.job_id = j.id;
  u.pipeline_id = j.source == job::JobSource::Pipeline && j.source_id ? j.source_id : j.pipeline_id;
  u.cluster_id = j.cluster_id;
  u.job_type = j.job_type;
  if (j.gpu_count > 0 && j.gpu_type) {
    u.gpu_type = j.gpu_type;
    if (auto mig = mig_profile_of(*j.gpu_type)) {
      u.sharing_mode = SharingMode::Mig;
      u.mig_profile = std::move(mig);
    }
  }
  u.gpu_count = j.gpu_count;
  u.tier = j.priority == job::JobPriority::Spot ? Tier::Spot : Tier::OnDemand;
  u.cpu_cores = j.cpu_cores;
  u.memory_gib = j.memory_gb;
  u.storage_gib = j.storage_gb.value_or(0);
  u.start = start;
  u.end = end;
  return u;
}

Result<Usage> meter(const PriceBook& book, const UsageInterval& u) {
  if (u.job_id.is_nil()) return Error::invalid("job_id", "", std::string(detail::kMissingField) + ": a usage record names its job");
  if (!(u.start < u.end)) {
    return Error::invalid("end", u.end.to_string(), "must be after start (" + u.start.to_string() + ")");
  }
  Usage r;
  r.interval = u;
  r.currency = book.currency;
  r.seconds = seconds_of(u.start, u.end);
  if (r.seconds.nano() > static_cast<core::int128>(kMaxIntervalSeconds) * Quantity::kNanoPerUnit) {
    return Error::invalid("end", u.end.to_string(), "an interval spans at most 366 days; report usage more often");
  }
  r.gpu_cost = r.idle_cost = r.cpu_cost = r.memory_cost = r.storage_cost = zero(book.currency);

  if (u.gpu_count > 0) {
    if (!u.gpu_type && !(u.sharing_mode == SharingMode::Mig && u.mig_profile)) {
      return Error::invalid("gpu_type", {}, std::string(detail::kMissingField) + ": gpu_count is " +
                                                std::to_string(u.gpu_count) + " and the price depends on the GPU type");
    }
    auto [key, field] = gpu_price_key(u, book);
    BUDCORE_TRY_ASSIGN(Price price, book.gpu_price(key, u.tier, field));
    const Quantity factor = book.sharing_multiplier(u.sharing_mode);
    BUDCORE_TRY_ASSIGN(r.gpu_seconds, detail::multiply(Quantity::from_int(u.gpu_count), r.seconds));
    BUDCORE_TRY_ASSIGN(r.gpu_cost, detail::prorate(price.amount, r.gpu_seconds, kSecondsPerHour, kMeteringDecimals,
                                                   factor, "gpu_cost"));
    if (u.gpu_utilization) {
      BUDCORE_TRY_ASSIGN(Quantity idle_share,
                         Quantity::from_int(1).checked_sub(*u.gpu_utilization));
      BUDCORE_TRY_ASSIGN(r.idle_gpu_seconds, detail::multiply(r.gpu_seconds, idle_share));
      BUDCORE_TRY_ASSIGN(r.idle_cost, detail::prorate(price.amount, r.idle_gpu_seconds, kSecondsPerHour,
                                                      kMeteringDecimals, factor, "idle_cost"));
    }
    std::optional<Quantity> mem = u.gpu_memory_gib;
    if (!mem) {
      if (auto m = gpu_memory_gib(book, key)) mem = Quantity::from_int(*m);
    }
    if (mem) {
      BUDCORE_TRY_ASSIGN(r.gpu_memory_gb_seconds, detail::multiply(*mem, r.gpu_seconds));
    }
  }
  if (!u.cpu_cores.is_zero()) {
    BUDCORE_TRY_ASSIGN(Price p, resource_price(book.cpu_core_hour, "cpu_core_hour", u.tier, "cpu_cores"));
    BUDCORE_TRY_ASSIGN(r.cpu_core_seconds, detail::multiply(u.cpu_cores, r.seconds));
    BUDCORE_TRY_ASSIGN(r.cpu_cost, detail::prorate(p.amount, r.cpu_core_seconds, kSecondsPerHour, kMeteringDecimals,
                                                   std::nullopt, "cpu_cost"));
  }
  if (!u.memory_gib.is_zero()) {
    BUDCORE_TRY_ASSIGN(Price p, resource_price(book.memory_gib_hour, "memory_gib_hour", u.tier, "memory_gib"));
    BUDCORE_TRY_ASSIGN(r.memory_gib_seconds, detail::multiply(u.memory_gib, r.seconds));
    BUDCORE_TRY_ASSIGN(r.memory_cost, detail::prorate(p.amount, r.memory_gib_seconds, kSecondsPerHour,
                                                      kMeteringDecimals, std::nullopt, "memory_cost"));
  }
  if (u.storage_gib > 0) {
    if (!book.storage_gib_month) {
      return Error{core::ErrorCode::NotFound, "the price book has no storage_gib_month", "storage_gib", {}};
    }
    BUDCORE_TRY_ASSIGN(r.storage_gib_seconds, detail::multiply(Quantity::from_int(u.storage_gib), r.seconds));
    BUDCORE_TRY_ASSIGN(r.storage_cost, detail::prorate(book.storage_gib_month->amount, r.storage_gib_seconds,
                                                       kSecondsPerStorageMonth, kMeteringDecimals, std::nullopt,
                                                       "storage_cost"));
  }
  Money total = r.gpu_cost;
  for (const Money* m : {&r.cpu_cost, &r.memory_cost, &r.storage_cost}) {
    BUDCORE_TRY_ASSIGN(total, total.checked_add(*m));
  }
  r.computed_cost = std::move(total);
  return r;
}

UsageRecord to_record(const Usage& u) {
  UsageRecord rec;
  rec.seq = u.seq;
  rec.job_id = u.interval.job_id;
  rec.start = u.interval.start;
  rec.end = u.interval.end;
  rec.data = u.to_value();
  return rec;
}

Result<Usage> from_record(const UsageRecord& rec) {
  BUDCORE_TRY_ASSIGN(Usage u, Usage::from_value(rec.data));
  if (u.interval.job_id != rec.job_id || u.interval.start != rec.start || u.interval.end != rec.end) {
    return Error::invalid("usage_records[" + std::to_string(rec.seq) + "]", {},
                          "the record's job_id/start/end columns disagree with its document");
  }
  u.seq = rec.seq;
  return u;
}

Result<Usage> record_usage(UsageLedger& store, const PriceBook& book, const UsageInterval& interval) {
  BUDCORE_TRY_ASSIGN(Usage u, meter(book, interval));
  BUDCORE_TRY_ASSIGN(UsageRecord stored, store.append_usage(interval.tenant_id, to_record(u)));
  u.seq = stored.seq;
  return u;
}

Result<std::vector<Usage>> load_usage(UsageLedger& store, const core::Id& tenant, const UsageQuery& query,
                                      std::size_t max_records) {
  std::vector<Usage> out;
  core::PageRequest page;
  page.limit = core::PageRequest::kMaxPageSize;
  while (true) {
    BUDCORE_TRY_ASSIGN(auto p, store.list_usage(tenant, query, page));
    for (const auto& rec : p.items) {
      if (out.size() >= max_records) {
        return Error::invalid("usage", std::to_string(max_records) + " records",
                              "more usage records than can be loaded at once; narrow the time range");
      }
      BUDCORE_TRY_ASSIGN(Usage u, from_record(rec));
      out.push_back(std::move(u));
    }
    if (p.next_cursor.empty()) break;
    page.after = std::move(p.next_cursor);
  }
  return out;
}

Result<CostSummary> summarize(std::span<const Usage> usage) {
  CostSummary s;
  for (const Usage& u : usage) {
    if (s.currency.empty()) {
      s.currency = u.currency;
      s.gpu_cost = s.idle_cost = s.cpu_cost = s.memory_cost = s.storage_cost = s.total = zero(u.currency);
    }
    if (u.currency != s.currency) {
      return Error::invalid("currency", s.currency + " + " + u.currency,
                            "usage records in different currencies cannot be summed; convert them first");
    }
    ++s.records;
    BUDCORE_TRY_ASSIGN(s.seconds, s.seconds.checked_add(u.seconds));
    BUDCORE_TRY_ASSIGN(s.gpu_seconds, s.gpu_seconds.checked_add(u.gpu_seconds));
    BUDCORE_TRY_ASSIGN(s.idle_gpu_seconds, s.idle_gpu_seconds.checked_add(u.idle_gpu_seconds));
    BUDCORE_TRY_ASSIGN(s.gpu_cost, s.gpu_cost.checked_add(u.gpu_cost));
    BUDCORE_TRY_ASSIGN(s.idle_cost, s.idle_cost.checked_add(u.idle_cost));
    BUDCORE_TRY_ASSIGN(s.cpu_cost, s.cpu_cost.checked_add(u.cpu_cost));
    BUDCORE_TRY_ASSIGN(s.memory_cost, s.memory_cost.checked_add(u.memory_cost));
    BUDCORE_TRY_ASSIGN(s.storage_cost, s.storage_cost.checked_add(u.storage_cost));
    BUDCORE_TRY_ASSIGN(s.total, s.total.checked_add(u.computed_cost));
    if (!s.first_start || u.interval.start < *s.first_start) s.first_start = u.interval.start;
    if (!s.last_end || *s.last_end < u.interval.end) s.last_end = u.interval.end;
  }
  return s;
}

core::Value to_value(const CostSummary& s) {
  core::Map out;
  out.set("currency", core::Value(s.currency));
  out.set("records", core::Value(static_cast<long long>(s.records)));
  out.set("seconds", detail::quantity_value(s.seconds));
  out.set("gpu_seconds", detail::quantity_value(s.gpu_seconds));
  out.set("idle_gpu_seconds", detail::quantity_value(s.idle_gpu_seconds));
  out.set("gpu_cost", detail::amount_value(s.gpu_cost));
  out.set("idle_cost", detail::amount_value(s.idle_cost));
  out.set("cpu_cost", detail::amount_value(s.cpu_cost));
  out.set("memory_cost", detail::amount_value(s.memory_cost));
  out.set("storage_cost", detail::amount_value(s.storage_cost));
  out.set("total", detail::amount_value(s.total));
  out.set("first_start", s.first_start ? core::Value(s.first_start->to_string()) : core::Value());
  out.set("last_end", s.last_end ? core::Value(s.last_end->to_string()) : core::Value());
  return core::Value(std::move(out));
}

Result<CostSummary> job_actual_cost(UsageLedger& store, const core::Id& tenant, const core::Id& job_id) {
  UsageQuery q;
  q.job_id = job_id;
  BUDCORE_TRY_ASSIGN(auto usage, load_usage(store, tenant, q));
  return summarize(usage);
}

Result<CostSummary> pipeline_actual_cost(UsageLedger& store, const core::Id& tenant, const core::Id& pipeline_id,
                                         const UsageQuery& range) {
  UsageQuery q = range;
  q.job_id.reset();
  BUDCORE_TRY_ASSIGN(auto usage, load_usage(store, tenant, q));
  std::erase_if(usage, [&](const Usage& u) { return u.interval.pipeline_id != pipeline_id; });
  return summarize(usage);
}

Status check_job_budget_limit(const job::Job& j, const Money& actual, const PriceBook& book) {
  if (!j.budget_limit) return {};
  BUDCORE_TRY_ASSIGN(Money in_job_currency, book.convert(actual, j.budget_limit->currency()));
  if (in_job_currency <= *j.budget_limit) return {};
  return Error{core::ErrorCode::BudgetExceeded,
               "job " + (j.name.empty() ? j.id.to_string() : j.name) + " has cost " + in_job_currency.to_string() +
                   ", more than its budget_limit of " + j.budget_limit->to_string(),
               "budget_limit", in_job_currency.amount_string(2)};
}

}  // namespace budcore::cost
