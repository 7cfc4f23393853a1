// budcore::cost::PriceBook — what a GPU-hour, a core-hour, a GiB-hour of memory and a GiB-month
// of storage cost, per pricing tier, in one currency (docs/cli.md contract 5).
//
// Document (YAML or JSON):
//   schema_version: 1                 # optional
//   provider: "RunPod-like"           # optional, free text (also "description")
//   currency: USD                     # required, ISO 4217
//   gpu_hour:                         # per device-hour; a MIG profile is a type of its own
//     nvidia-a100-80gb: {on_demand: "2.49", spot: "1.19", reserved: "1.64", memory_gib: 80}
//   cpu_core_hour:   {on_demand: "0.04", spot: "0.02"}
//   memory_gib_hour: {on_demand: "0.005", spot: "0.0025"}
//   storage_gib_month: "0.10"         # a month is 30 days = 2,592,000 s
//   minimum_billable_seconds: 60
//   sharing_multipliers: {time_slice: "0.5"}   # GPU price factor per sharing mode (default 1)
//   conversions: {EUR: "0.92"}        # 1 unit of `currency` = 0.92 EUR (exact decimals)
//
// Prices are exact decimals (Money: at most 12 fractional digits; more is an error, never a
// rounding). A price is kept as written ("2.490" stays "2.490" in estimate output). A YAML or
// JSON number is read through its shortest decimal form (2.49 -> "2.49"). Unknown keys are
// errors with a "did you mean" hint; every error names its path ("gpu_hour.nvidia-t4.spot").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::cost {

// Pricing tier. A job's priority selects it for estimates (spot -> Spot, else OnDemand); usage
// records carry the tier they ran on (Reserved: committed capacity).
enum class Tier : std::uint8_t { OnDemand, Spot, Reserved };
inline constexpr Tier kAllTiers[] = {Tier::OnDemand, Tier::Spot, Tier::Reserved};

// How a GPU is shared (GPUSharingMode). A MIG slice is priced as a GPU type of
// its own (its profile names it in gpu_hour); TIME_SLICE applies the book's multiplier.
enum class SharingMode : std::uint8_t { Full, Mig, TimeSlice };

BUDCORE_API std::string_view to_string(Tier t) noexcept;        // "on_demand", "spot", "reserved"
BUDCORE_API std::string_view to_string(SharingMode m) noexcept;  // "full", "mig", "time_slice"
BUDCORE_API core::Result<Tier> parse_tier(std::string_view text);  // any letter case
BUDCORE_API core::Result<SharingMode> parse_sharing_mode(std::string_view text);

// One price: the exact amount and its text as the book wrote it.
struct Price {
  core::Money amount;
  std::string text;
  friend bool operator==(const Price&, const Price&) = default;
};

// A price per tier; an absent tier is not offered (pricing it is an unknown_price error).
struct TierPrices {
  std::optional<Price> on_demand;
  std::optional<Price> spot;
  std::optional<Price> reserved;
  const std::optional<Price>& at(Tier t) const noexcept;
  friend bool operator==(const TierPrices&, const TierPrices&) = default;
};

struct GpuPrice {
  TierPrices hour;                        // per device-hour
  std::optional<std::int64_t> memory_gib;  // device memory, for the cheapest-GPU search
  friend bool operator==(const GpuPrice&, const GpuPrice&) = default;
};

struct BUDCORE_API PriceBook {
  static constexpr int kSchemaVersion = 1;
  static constexpr std::size_t kMaxGpuTypes = 10'000;
  static constexpr std::int64_t kMaxMinimumBillableSeconds = 366LL * 86'400;
  // Bounds that keep every product exact: prices up to 10^9 currency units, multipliers and
  // conversion rates up to 10^6.
  static constexpr std::int64_t kMaxPriceUnits = 1'000'000'000;
  static constexpr std::int64_t kMaxFactor = 1'000'000;

  std::string provider;
  std::string description;
  std::string currency = "USD";
  std::map<std::string, GpuPrice, std::less<>> gpu_hour;
  std::optional<TierPrices> cpu_core_hour;
  std::optional<TierPrices> memory_gib_hour;
  std::optional<Price> storage_gib_month;
  std::int64_t minimum_billable_seconds = 0;
  // GPU price factor per sharing mode; a mode that is absent costs 1x.
  std::map<SharingMode, core::Quantity> sharing_multipliers;
  // Currency code -> how many units of it one unit of `currency` buys.
  std::map<std::string, core::Quantity, std::less<>> conversions;

  static core::Result<PriceBook> from_value(const core::Value& document);
  // JSON or YAML text (core::parse_document).
  static core::Result<PriceBook> from_text(std::string_view text);
  // A JSON or YAML file; "-" reads standard input.
  static core::Result<PriceBook> load_file(const std::string& path);
  core::Value to_value() const;

  // gpu_hour[gpu_type][tier]. NotFound naming `field` (default "gpu_type") when the type or the
  // tier is not in the book.
  core::Result<Price> gpu_price(std::string_view gpu_type, Tier tier, std::string_view field = "gpu_type") const;
  // The GPU price factor of a sharing mode (1 when the book names none).
  core::Quantity sharing_multiplier(SharingMode mode) const;

  // `amount` (in `currency` or in a currency of the conversion table) expressed in `to`,
  // rounded half-even to 12 decimals. Invalid (field "currency") when no conversion links them.
  core::Result<core::Money> convert(const core::Money& amount, std::string_view to) const;

  friend bool operator==(const PriceBook&, const PriceBook&) = default;
};

}  // namespace budcore::cost
