// budcore::cost::UsageLedger — what metering and budgets need of a durable store: a tenant's
// usage records and audit log, both append-only. Owned by cost so that cost depends on no
// backend; backend::Store implements it (every call scoped to a tenant, each write one unit of
// work, as the Store's rules say).
#pragma once

#include <cstdint>
#include <optional>

#include "budcore/core/audit.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/page.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::cost {

// One metered interval of one job; `data` is the metering layer's document (Usage::to_value).
struct UsageRecord {
  std::int64_t seq = 0;  // assigned by append_usage, increasing
  core::Id job_id;
  core::Timestamp start;
  core::Timestamp end;
  core::Value data = core::Value(core::Map{});
};

// Usage whose start lies in [from, to), oldest first; with after_seq, only the records appended
// after that one, in the order they were appended (seq). A tenant's records become visible in the order of their seq (a Store
// serializes a tenant's appends), so a reader that remembers the last seq it saw and reads only
// what follows misses none.
struct UsageQuery {
  std::optional<core::Id> job_id;
  std::optional<core::Timestamp> from;
  std::optional<core::Timestamp> to;
  std::optional<std::int64_t> after_seq;
};

class BUDCORE_API UsageLedger {
 public:
  virtual ~UsageLedger();
  UsageLedger() = default;
  UsageLedger(const UsageLedger&) = delete;
  UsageLedger& operator=(const UsageLedger&) = delete;

  // append_* assign seq (and the store's time and hash chain for audit entries) and return
  // what was stored; list_* page through the tenant's rows oldest first.
  virtual core::Result<UsageRecord> append_usage(const core::Id& tenant, UsageRecord record) = 0;
  virtual core::Result<core::Page<UsageRecord>> list_usage(const core::Id& tenant, const UsageQuery& query,
                                                           const core::PageRequest& page = {}) = 0;
  virtual core::Result<core::AuditEntry> append_audit(const core::Id& tenant, core::AuditEntry entry) = 0;
  virtual core::Result<core::Page<core::AuditEntry>> list_audit(const core::Id& tenant, const core::AuditQuery& query,
                                                                const core::PageRequest& page = {}) = 0;
};

}  // namespace budcore::cost
