// budcore::core::AuditEntry / AuditQuery — one row of a tenant's append-only audit log and the
// filter that lists them. In core because several layers append to the log (budget alerts,
// the platform's mutations) through the interfaces they own; backend::Store keeps it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"

namespace budcore::core {

// Who did what to which object, when, from which request. Append-only.
struct AuditEntry {
  std::int64_t seq = 0;  // assigned by append_audit: the tenant's own sequence, 1, 2, ... without gaps
  Timestamp at;          // epoch: the store stamps its clock's now()
  std::string actor;
  std::string action;
  std::string object_type;
  std::string object_id;
  std::string request_id;
  Value detail = Value(Map{});
  // Set by append_audit: every entry's hash covers its fields and the hash of the tenant's entry
  // before it (each tenant has a chain of its own, in seq order), so that an edited, deleted or
  // inserted row breaks the chain (backend::Store::verify_audit_chain).
  std::string prev_hash;  // 64 hex digits; a tenant's first entry's is 64 zeros
  std::string hash;
};

// Entries oldest first; set fields must match, `at` in [from, to).
struct AuditQuery {
  std::optional<std::string> actor;
  std::optional<std::string> object_type;
  std::optional<std::string> object_id;
  std::optional<Timestamp> from;
  std::optional<Timestamp> to;
};

}  // namespace budcore::core
