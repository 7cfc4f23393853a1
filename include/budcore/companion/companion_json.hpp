// The Kueue companion's decisions as documents (docs/kueue-companion.md): what the C ABI, the
// Python module and the Rust and Go wrappers hand across, decided by one implementation.
#pragma once

#include "budcore/companion/companion.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::companion {

// {"controllers": [{"name", "checks"}], "cluster_queues", "tenants" (how many rules),
//  "budgets" (names), "currency", "estimates" ({"enabled", "refresh_seconds", "writers"}), "leader_election"? ({"lease_name", "namespace", "identity",
//  "lease_duration_seconds", "renew_deadline_seconds", "retry_period_seconds"}, when configured)}.
BUDCORE_API core::Value config_summary(const CompanionConfig& config);

// The budget and window checks for one Workload. request: {"workload": <Workload object>,
// "owner_annotations": {...} (optional), "spent": {"<budget>": "12.00 USD"} (optional), "now":
// RFC 3339}. Returns {"tenant_id"?, "price": {"total", "duration_seconds", "duration_source",
// "lines"} or "price_error": {"code", "message", "path", "value"}, "budget": <decision>,
// "window": <decision>}. Errors name the request's field ("workload.spec.podSets", "now").
BUDCORE_API core::Result<core::Value> decide_request(const CompanionConfig& config, const core::Value& request);

}  // namespace budcore::companion
