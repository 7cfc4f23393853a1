// The audit log's hash chain and the role bindings, over a SqlConnection (both dialects).
// SqlStore calls these inside its transactions; they keep no state of their own.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "backends/store_common.hpp"

#pragma GCC visibility push(hidden)

namespace budcore::backends {

// Appends one entry chained to the store's head and moves the head, in the caller's
// transaction. The head row is locked by the first statement, so appends from several
// connections (PostgreSQL) are chained one after another in seq order.
core::Result<backend::AuditEntry> append_chained_audit(SqlConnection& db, const core::Id& tenant,
                                                       backend::AuditEntry entry);

// The hash of an entry: SHA-256 over its fields (length-prefixed, so no two field lists encode
// alike) and the previous hash.
std::string audit_entry_hash(const core::Id& tenant, const backend::AuditEntry& entry, std::string_view detail_json);

core::Result<backend::AuditChainReport> verify_audit_chain(SqlConnection& db);

core::Result<backend::RoleBindingRecord> put_role_binding(SqlConnection& db, const core::Id& tenant,
                                                          backend::RoleBindingRecord binding);
core::Status delete_role_binding(SqlConnection& db, const core::Id& tenant, std::string_view principal,
                                 std::string_view role, const std::optional<core::Id>& project_id);
core::Result<std::vector<backend::RoleBindingRecord>> list_role_bindings(SqlConnection& db, const core::Id& tenant,
                                                                         std::optional<std::string_view> principal);

}  // namespace budcore::backends

#pragma GCC visibility pop
