// The audit log's hash chain and the role bindings, over a SqlConnection (both dialects).
// SqlStore calls these inside its transactions; they keep no state of their own.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "backends/store_common.hpp"

#pragma GCC visibility push(hidden)

namespace budcore::backends {

// The chain's head: (last seq, last hash). Reading it locks the head row until the transaction
// ends, so appends from several connections (PostgreSQL) are chained one after another.
struct ChainHead {
  std::int64_t seq = 0;
  std::string hash;
};
core::Result<ChainHead> lock_chain_head(SqlConnection& db);
// Inserts one entry chained after `head` and moves `head` to it (the row is not written: a
// transaction of many appends writes the head once, with write_chain_head, before it commits).
core::Result<backend::AuditEntry> insert_chained_audit(SqlConnection& db, const core::Id& tenant,
                                                       backend::AuditEntry entry, ChainHead& head);
core::Status write_chain_head(SqlConnection& db, const ChainHead& head);

// The hash of an entry: SHA-256 over its fields (length-prefixed, so no two field lists encode
// alike) and the previous hash.
std::string audit_entry_hash(const core::Id& tenant, const backend::AuditEntry& entry, std::string_view detail_json);

// The audit_log columns in the order audit_row reads them (detail, column 7, is left to the
// caller: a list parses it, the chain check hashes its text as stored).
inline constexpr std::string_view kAuditColumns =
    "seq, at_ns, actor, action, object_type, object_id, request_id, detail, prev_hash, hash";
backend::AuditEntry audit_row(const SqlRow& row);

core::Result<backend::AuditChainReport> verify_audit_chain(SqlConnection& db);

core::Result<backend::RoleBindingRecord> put_role_binding(SqlConnection& db, const core::Id& tenant,
                                                          backend::RoleBindingRecord binding);
core::Status delete_role_binding(SqlConnection& db, const core::Id& tenant, std::string_view principal,
                                 std::string_view role, const std::optional<core::Id>& project_id);
core::Result<std::vector<backend::RoleBindingRecord>> list_role_bindings(SqlConnection& db, const core::Id& tenant,
                                                                         std::optional<std::string_view> principal);

}  // namespace budcore::backends

#pragma GCC visibility pop
