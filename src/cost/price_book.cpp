// PriceBook: parsing (every error names its path), writing back, lookups and conversions.
#include "budcore/cost/price_book.hpp"

#include <array>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "core/enum_lookup.hpp"
#include "cost/document.hpp"
#include "cost/exact.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::Map;
using core::Quantity;
using core::Result;
using core::Value;

constexpr core::detail::EnumNames<Tier, 3> kTierNames{{
    {Tier::OnDemand, "on_demand"}, {Tier::Spot, "spot"}, {Tier::Reserved, "reserved"}}};
constexpr core::detail::EnumNames<SharingMode, 3> kSharingNames{{
    {SharingMode::Full, "full"}, {SharingMode::Mig, "mig"}, {SharingMode::TimeSlice, "time_slice"}}};

constexpr std::array<std::string_view, 11> kBookKeys{
    "schema_version", "provider", "description", "currency", "gpu_hour", "cpu_core_hour", "memory_gib_hour",
    "storage_gib_month", "minimum_billable_seconds", "sharing_multipliers", "conversions"};
constexpr std::array<std::string_view, 4> kGpuKeys{"on_demand", "spot", "reserved", "memory_gib"};
constexpr std::array<std::string_view, 3> kTierKeys{"on_demand", "spot", "reserved"};

Result<Price> read_price(const Value& v, const std::string& path, const std::string& currency) {
  BUDCORE_TRY_ASSIGN(std::string text, detail::decimal_text_of(v, path));
  BUDCORE_TRY_ASSIGN(core::Money amount, detail::parse_price(text, currency, path, PriceBook::kMaxPriceUnits));
  return Price{std::move(amount), std::move(text)};
}

Result<std::optional<Price>> read_optional_price(const Map& m, std::string_view key, const std::string& path,
                                                 const std::string& currency) {
  const Value* v = m.find(key);
  if (v == nullptr || v->is_null()) return std::optional<Price>();
  BUDCORE_TRY_ASSIGN(Price p, read_price(*v, core::join_path(path, key), currency));
  return std::optional<Price>(std::move(p));
}

// {on_demand, spot, reserved} (plus the extra keys a caller allows) at `path`.
Result<TierPrices> read_tiers(const Map& m, const std::string& path, const std::string& currency) {
  TierPrices t;
  BUDCORE_TRY_ASSIGN(t.on_demand, read_optional_price(m, "on_demand", path, currency));
  BUDCORE_TRY_ASSIGN(t.spot, read_optional_price(m, "spot", path, currency));
  BUDCORE_TRY_ASSIGN(t.reserved, read_optional_price(m, "reserved", path, currency));
  if (!t.on_demand && !t.spot && !t.reserved) {
    return Error::invalid(path, {}, "names no price; give at least one of on_demand, spot, reserved");
  }
  return t;
}

Result<const Map*> map_at(const Value& v, const std::string& path) {
  if (!v.is_map()) {
    return Error::invalid(path, core::detail::value_text(v),
                          "must be a map, not " + std::string(core::to_string(v.kind())));
  }
  return &v.as_map();
}

Result<TierPrices> read_tier_section(const Value& v, const std::string& path, const std::string& currency) {
  BUDCORE_TRY_ASSIGN(const Map* m, map_at(v, path));
  if (auto st = core::detail::Reader(*m).reject_unknown(kTierKeys); !st) return detail::under(path, std::move(st).error());
  return read_tiers(*m, path, currency);
}

Result<GpuPrice> read_gpu(const Value& v, const std::string& path, const std::string& currency) {
  BUDCORE_TRY_ASSIGN(const Map* m, map_at(v, path));
  core::detail::Reader r(*m);
  if (auto st = r.reject_unknown(kGpuKeys); !st) return detail::under(path, std::move(st).error());
  GpuPrice g;
  BUDCORE_TRY_ASSIGN(g.hour, read_tiers(*m, path, currency));
  auto mem = r.integer("memory_gib");
  if (!mem) return detail::under(path, std::move(mem).error());
  if (*mem && (**mem <= 0 || **mem > 1'000'000)) {
    return Error::invalid(core::join_path(path, "memory_gib"), std::to_string(**mem), "must be between 1 and 1000000");
  }
  g.memory_gib = *mem;
  return g;
}

core::Status check_gpu_type_name(std::string_view name, const std::string& path) {
  if (name.empty() || name.size() > 253) return Error::invalid(path, std::string(name), "a GPU type name has 1 to 253 characters");
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f) {
      return Error::invalid(path, std::string(name), "a GPU type name has no spaces or control characters");
    }
  }
  return {};
}

Value price_value(const std::optional<Price>& p) { return p ? Value(p->text) : Value(); }

Value tiers_value(const TierPrices& t) {
  Map m;
  for (Tier tier : kAllTiers) {
    if (const auto& p = t.at(tier)) m.set(std::string(to_string(tier)), price_value(p));
  }
  return Value(std::move(m));
}

Result<PriceBook> read_book(const Map& m) {
  core::detail::Reader r(m);
  BUDCORE_TRY(r.reject_unknown(kBookKeys));
  PriceBook b;
  BUDCORE_TRY_ASSIGN(auto version, r.integer("schema_version"));
  if (version && *version != PriceBook::kSchemaVersion) {
    return Error{core::ErrorCode::Unsupported, "unsupported price book schema version; this library reads version 1",
                 "schema_version", std::to_string(*version)};
  }
  BUDCORE_TRY_ASSIGN(auto provider, r.string("provider"));
  b.provider = provider.value_or("");
  BUDCORE_TRY_ASSIGN(auto description, r.string("description"));
  b.description = description.value_or("");
  BUDCORE_TRY_ASSIGN(auto currency, r.currency("currency"));
  if (!currency) return Error::invalid("currency", {}, std::string(detail::kMissingField));
  b.currency = *currency;

  if (const Value* gpus = m.find("gpu_hour"); gpus != nullptr && !gpus->is_null()) {
    BUDCORE_TRY_ASSIGN(const Map* gm, map_at(*gpus, "gpu_hour"));
    if (gm->size() > PriceBook::kMaxGpuTypes) {
      return Error::invalid("gpu_hour", std::to_string(gm->size()) + " types",
                            "names more than " + std::to_string(PriceBook::kMaxGpuTypes) + " GPU types");
    }
    for (const auto& [name, v] : *gm) {
      const std::string path = "gpu_hour." + name;
      BUDCORE_TRY(check_gpu_type_name(name, path));
      BUDCORE_TRY_ASSIGN(GpuPrice g, read_gpu(v, path, b.currency));
      b.gpu_hour.insert_or_assign(name, std::move(g));
    }
  }
  for (auto [key, slot] : {std::pair{"cpu_core_hour", &b.cpu_core_hour}, std::pair{"memory_gib_hour", &b.memory_gib_hour}}) {
    if (const Value* v = m.find(key); v != nullptr && !v->is_null()) {
      BUDCORE_TRY_ASSIGN(*slot, read_tier_section(*v, key, b.currency));
    }
  }
  BUDCORE_TRY_ASSIGN(b.storage_gib_month, read_optional_price(m, "storage_gib_month", "", b.currency));

  BUDCORE_TRY_ASSIGN(auto min_seconds, r.integer("minimum_billable_seconds"));
  if (min_seconds) {
    if (*min_seconds < 0 || *min_seconds > PriceBook::kMaxMinimumBillableSeconds) {
      return Error::invalid("minimum_billable_seconds", std::to_string(*min_seconds),
                            "must be between 0 and " + std::to_string(PriceBook::kMaxMinimumBillableSeconds));
    }
    b.minimum_billable_seconds = *min_seconds;
  }

  if (const Value* v = m.find("sharing_multipliers"); v != nullptr && !v->is_null()) {
    BUDCORE_TRY_ASSIGN(const Map* sm, map_at(*v, "sharing_multipliers"));
    for (const auto& [name, factor] : *sm) {
      const std::string path = "sharing_multipliers." + name;
      auto mode = parse_sharing_mode(name);
      if (!mode) return detail::under(path, std::move(mode).error());
      BUDCORE_TRY_ASSIGN(Quantity q, detail::read_factor(factor, path, PriceBook::kMaxFactor));
      b.sharing_multipliers[*mode] = q;
    }
  }
  if (const Value* v = m.find("conversions"); v != nullptr && !v->is_null()) {
    BUDCORE_TRY_ASSIGN(const Map* cm, map_at(*v, "conversions"));
    for (const auto& [code, rate] : *cm) {
      const std::string path = "conversions." + code;
      if (auto z = core::Money::zero(code); !z) {
        return Error::invalid(path, code, "must be a three-letter upper-case ISO 4217 code such as EUR");
      }
      if (code == b.currency) return Error::invalid(path, code, "converts the book's own currency");
      BUDCORE_TRY_ASSIGN(Quantity q, detail::read_factor(rate, path, PriceBook::kMaxFactor));
      b.conversions.insert_or_assign(code, q);
    }
  }
  return b;
}

}  // namespace

std::string_view to_string(Tier t) noexcept { return core::detail::enum_name(t, kTierNames); }
std::string_view to_string(SharingMode m) noexcept { return core::detail::enum_name(m, kSharingNames); }

Result<Tier> parse_tier(std::string_view text) { return core::detail::parse_enum(text, kTierNames, "tier"); }

Result<SharingMode> parse_sharing_mode(std::string_view text) {
  // The canonical name is TIME_SLICE; "timeslice" is a common spelling too.
  if (core::detail::equals_ignoring_case(text, "timeslice")) return SharingMode::TimeSlice;
  return core::detail::parse_enum(text, kSharingNames, "sharing mode");
}

const std::optional<Price>& TierPrices::at(Tier t) const noexcept {
  switch (t) {
    case Tier::Spot: return spot;
    case Tier::Reserved: return reserved;
    case Tier::OnDemand: break;
  }
  return on_demand;
}

Result<PriceBook> PriceBook::from_value(const Value& document) {
  if (!document.is_map()) {
    return Error::invalid({}, core::detail::value_text(document),
                          "a price book must be a map with currency and gpu_hour, not " +
                              std::string(core::to_string(document.kind())));
  }
  return read_book(document.as_map());
}

Result<PriceBook> PriceBook::from_text(std::string_view text) {
  BUDCORE_TRY_ASSIGN(Value v, detail::parse_bounded_document(text, "prices"));
  return from_value(v);
}

Result<PriceBook> PriceBook::load_file(const std::string& path) {
  BUDCORE_TRY_ASSIGN(std::string text, core::read_input(path, kMaxDocumentBytes, "prices"));
  return from_text(text);
}

Value PriceBook::to_value() const {
  Map m;
  m.set("schema_version", Value(kSchemaVersion));
  if (!provider.empty()) m.set("provider", Value(provider));
  if (!description.empty()) m.set("description", Value(description));
  m.set("currency", Value(currency));
  Map gpus;
  for (const auto& [name, g] : gpu_hour) {
    Value v = tiers_value(g.hour);
    if (g.memory_gib) v.mutable_map().set("memory_gib", Value(static_cast<long long>(*g.memory_gib)));
    gpus.set(name, std::move(v));
  }
  m.set("gpu_hour", Value(std::move(gpus)));
  if (cpu_core_hour) m.set("cpu_core_hour", tiers_value(*cpu_core_hour));
  if (memory_gib_hour) m.set("memory_gib_hour", tiers_value(*memory_gib_hour));
  if (storage_gib_month) m.set("storage_gib_month", price_value(storage_gib_month));
  m.set("minimum_billable_seconds", Value(static_cast<long long>(minimum_billable_seconds)));
  if (!sharing_multipliers.empty()) {
    Map s;
    for (const auto& [mode, q] : sharing_multipliers) s.set(std::string(to_string(mode)), Value(core::detail::decimal_string(q)));
    m.set("sharing_multipliers", Value(std::move(s)));
  }
  if (!conversions.empty()) {
    Map c;
    for (const auto& [code, q] : conversions) c.set(code, Value(core::detail::decimal_string(q)));
    m.set("conversions", Value(std::move(c)));
  }
  return Value(std::move(m));
}

Result<Price> PriceBook::gpu_price(std::string_view gpu_type, Tier tier, std::string_view field) const {
  auto it = gpu_hour.find(gpu_type);
  if (it == gpu_hour.end()) {
    return Error{core::ErrorCode::NotFound, "GPU type is not in the price book's gpu_hour", std::string(field),
                 std::string(gpu_type)};
  }
  const auto& p = it->second.hour.at(tier);
  if (!p) {
    return Error{core::ErrorCode::NotFound,
                 "the price book has no " + std::string(to_string(tier)) + " price for GPU type " + std::string(gpu_type),
                 std::string(field), std::string(gpu_type)};
  }
  return *p;
}

Quantity PriceBook::sharing_multiplier(SharingMode mode) const {
  auto it = sharing_multipliers.find(mode);
  return it == sharing_multipliers.end() ? Quantity::from_int(1) : it->second;
}

Result<core::Money> PriceBook::convert(const core::Money& amount, std::string_view to) const {
  const std::string& from = amount.currency();
  if (from == to || (from.empty() && amount.is_zero())) {
    BUDCORE_TRY_ASSIGN(auto zero, core::Money::zero(to));
    return core::Money::from_units(amount.units(), zero.currency());
  }
  auto rate_of = [&](std::string_view code) -> std::optional<Quantity> {
    if (code == currency) return Quantity::from_int(1);
    auto it = conversions.find(code);
    if (it == conversions.end()) return std::nullopt;
    return it->second;
  };
  const auto from_rate = rate_of(from);
  const auto to_rate = rate_of(to);
  if (!from_rate || !to_rate) {
    return Error::invalid("currency", from + " -> " + std::string(to),
                          "no conversion between these currencies; add them to the price book's conversions "
                          "(relative to " + currency + ")");
  }
  BUDCORE_TRY_ASSIGN(core::Money scaled, detail::scale_money(amount, *to_rate, *from_rate));
  return core::Money::from_units(scaled.units(), std::string(to));
}

}  // namespace budcore::cost
