// Spot vs on-demand, and the cheapest GPU type that meets a memory and count requirement.
#include <algorithm>
#include <array>
#include <cctype>

#include "budcore/cost/estimator.hpp"
#include "cost/exact.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::Map;
using core::Money;
using core::Quantity;
using core::Result;
using core::Value;

constexpr std::array<std::string_view, 4> kRequirementKeys{"memory_gib", "gpu_count", "seconds", "tier"};

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// The N of the last "<N>gb" in a name that stands alone ("a100-80gb", "mig-3g.40gb").
std::optional<std::int64_t> memory_in_name(std::string_view name) {
  std::optional<std::int64_t> found;
  for (std::size_t i = 0; i + 2 <= name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(name[i])) != 'g' ||
        std::tolower(static_cast<unsigned char>(name[i + 1])) != 'b') {
      continue;
    }
    if (i + 2 < name.size() && is_alnum(name[i + 2])) continue;
    std::size_t begin = i;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1])) != 0) --begin;
    if (begin == i || i - begin > 6) continue;
    if (begin > 0 && std::isalpha(static_cast<unsigned char>(name[begin - 1])) != 0) continue;
    found = std::stoll(std::string(name.substr(begin, i - begin)));
  }
  return found;
}

Result<std::int64_t> bounded(const core::detail::Reader& r, std::string_view key, std::int64_t fallback, std::int64_t min,
                             std::int64_t max) {
  BUDCORE_TRY_ASSIGN(auto v, r.integer(key));
  if (!v) return fallback;
  if (*v < min || *v > max) {
    return Error::invalid(std::string(key), std::to_string(*v),
                          "must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return *v;
}

}  // namespace

std::optional<std::int64_t> gpu_memory_gib(const PriceBook& book, std::string_view gpu_type) {
  if (auto it = book.gpu_hour.find(gpu_type); it != book.gpu_hour.end() && it->second.memory_gib) {
    return it->second.memory_gib;
  }
  return memory_in_name(gpu_type);
}

Result<TierComparison> compare_tiers(const PriceBook& book, const Value& spec) {
  BUDCORE_TRY_ASSIGN(Estimate on_demand, estimate_document(book, spec, EstimateOptions{Tier::OnDemand}));
  BUDCORE_TRY_ASSIGN(Estimate spot, estimate_document(book, spec, EstimateOptions{Tier::Spot}));
  BUDCORE_TRY_ASSIGN(Money savings, on_demand.total().checked_sub(spot.total()));
  std::string percent = detail::percent_text(savings, on_demand.total());
  return TierComparison{std::move(on_demand), std::move(spot), std::move(savings), std::move(percent)};
}

Value to_value(const TierComparison& c) {
  Map m;
  m.set("currency", Value(c.on_demand.currency()));
  m.set("on_demand", to_value(c.on_demand));
  m.set("spot", to_value(c.spot));
  m.set("savings", Value(c.savings.amount_string(kEstimateDecimals)));
  m.set("savings_percent", Value(c.savings_percent));
  return Value(std::move(m));
}

Result<GpuRequirement> read_gpu_requirement(const Value& document) {
  if (!document.is_map()) return Error::invalid({}, core::detail::value_text(document), "a GPU requirement must be a map");
  core::detail::Reader r(document.as_map());
  BUDCORE_TRY(r.reject_unknown(kRequirementKeys));
  GpuRequirement g;
  BUDCORE_TRY_ASSIGN(auto mem, r.integer("memory_gib"));
  if (!mem) return Error::invalid("memory_gib", {}, "required field is missing");
  if (*mem < 0 || *mem > 1'000'000) return Error::invalid("memory_gib", std::to_string(*mem), "must be between 0 and 1000000");
  g.memory_gib = *mem;
  BUDCORE_TRY_ASSIGN(g.gpu_count, bounded(r, "gpu_count", 1, 1, kMaxGpuCount));
  BUDCORE_TRY_ASSIGN(g.seconds, bounded(r, "seconds", kSecondsPerHour, 1, kMaxEstimateSeconds));
  BUDCORE_TRY_ASSIGN(auto tier, r.enumeration<Tier>("tier", parse_tier));
  if (tier) g.tier = *tier;
  return g;
}

Result<GpuSearch> cheapest_gpu(const PriceBook& book, const GpuRequirement& req) {
  GpuSearch out;
  BUDCORE_TRY_ASSIGN(Quantity device_seconds,
                     detail::multiply(Quantity::from_int(req.gpu_count), Quantity::from_int(req.seconds)));
  for (const auto& [name, price] : book.gpu_hour) {
    const auto mem = gpu_memory_gib(book, name);
    if (!mem) {
      out.unknown_memory.push_back(name);
      continue;
    }
    const auto& p = price.hour.at(req.tier);
    if (*mem < req.memory_gib || !p) continue;
    BUDCORE_TRY_ASSIGN(Money cost, detail::prorate(p->amount, device_seconds, kSecondsPerHour, kEstimateDecimals));
    out.options.push_back(GpuOption{name, *mem, *p, std::move(cost)});
  }
  std::sort(out.options.begin(), out.options.end(), [](const GpuOption& a, const GpuOption& b) {
    if (a.cost.units() != b.cost.units()) return a.cost.units() < b.cost.units();
    return a.gpu_type < b.gpu_type;
  });
  if (out.options.empty()) {
    return Error{core::ErrorCode::NotFound,
                 "no GPU type in the price book has at least " + std::to_string(req.memory_gib) + " GiB and a " +
                     std::string(to_string(req.tier)) + " price",
                 "memory_gib", std::to_string(req.memory_gib)};
  }
  return out;
}

Value to_value(const GpuSearch& s) {
  core::List options;
  for (const auto& o : s.options) {
    Map m;
    m.set("gpu_type", Value(o.gpu_type));
    m.set("memory_gib", Value(static_cast<long long>(o.memory_gib)));
    m.set("unit_price", Value(o.unit_price.text));
    m.set("cost", Value(o.cost.amount_string(kEstimateDecimals)));
    options.push_back(Value(std::move(m)));
  }
  Map m;
  m.set("cheapest", s.options.empty() ? Value() : options.front());
  m.set("options", Value(std::move(options)));
  m.set("unknown_memory", Value(core::List(s.unknown_memory.begin(), s.unknown_memory.end())));
  return Value(std::move(m));
}

}  // namespace budcore::cost
