// budcore::cost chargeback / showback — who spent what: metered cost grouped by tenant,
// project, label, GPU type, job type (any GroupBy list), with shared costs (control plane,
// monitoring) allocated to the groups by their share of the direct cost.
//
// Allocation is exact: each shared amount is split in proportion to direct cost with the
// largest-remainder method at Money's precision (10^-12), so the allocated parts add up to
// the shared amount to the last unit. Without any direct cost a shared amount is split evenly.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "budcore/core/money.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/cost/rollup.hpp"
#include "budcore/export.h"

namespace budcore::cost {

struct SharedCost {
  std::string name;    // "control-plane", "monitoring"
  core::Money amount;  // converted to the usage currency through the price book when it differs
};

struct ReportQuery {
  Granularity granularity = Granularity::Total;  // Total: a chargeback report; else a rollup
  std::vector<GroupBy> by{GroupBy{Dimension::Tenant, {}}};
  std::optional<core::Timestamp> from;
  std::optional<core::Timestamp> to;
  std::vector<SharedCost> shared;  // chargeback only
};

// {"by": ["tenant", "label:team"], "granularity": "total", "from": RFC 3339, "to": ...,
//  "shared": [{"name": "control-plane", "amount": "120.00", "currency": "USD"}]}; unknown keys
// are rejected. A shared amount without a currency is in `default_currency`.
BUDCORE_API core::Result<ReportQuery> read_report_query(const core::Value& document,
                                                        std::string_view default_currency = "USD");

struct ChargebackRow {
  std::vector<std::string> keys;  // one per GroupBy
  std::int64_t records = 0;
  core::Quantity gpu_seconds;
  core::Quantity idle_gpu_seconds;
  core::Money direct;   // metered cost
  core::Money idle;     // part of direct
  core::Money shared;   // allocated shared cost
  core::Money total;    // direct + shared
  std::string share_percent;  // of all direct cost, 2 decimals
};

struct ChargebackReport {
  std::vector<GroupBy> by;
  std::string currency;
  std::optional<core::Timestamp> from;
  std::optional<core::Timestamp> to;
  std::vector<ChargebackRow> rows;  // by total, highest first, then keys
  std::vector<SharedCost> shared;
  core::Money total_direct;
  core::Money total_shared;
  core::Money total;
};

// `book` converts shared costs given in another currency (nullptr: they must match).
BUDCORE_API core::Result<ChargebackReport> chargeback(std::span<const Usage> usage, const ReportQuery& query,
                                                      const PriceBook* book = nullptr);
BUDCORE_API core::Value to_value(const ChargebackReport& r);
// CSV: <by...>,records,gpu_seconds,idle_gpu_seconds,direct,idle,shared,total,share_percent
BUDCORE_API std::string to_csv(const ChargebackReport& r);

}  // namespace budcore::cost
