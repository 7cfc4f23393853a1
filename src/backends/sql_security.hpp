// The audit log's hash chain and the role bindings, over a SqlConnection (both dialects).
// SqlStore calls these inside its transactions; they keep no state of their own.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "backends/store_common.hpp"

#pragma GCC visibility push(hidden)

namespace budcore::backends {

// A tenant's chain head: (last tenant_seq, last hash). Reading it locks the tenant's head row
// until the transaction ends (creating it at (0, zeros) for a tenant's first entry), so appends
// from several connections (PostgreSQL) chain one after another; tenants do not wait for each
// other.
struct ChainHead {
  std::int64_t seq = 0;
  std::string hash;
};
core::Result<ChainHead> lock_chain_head(SqlConnection& db, const core::Id& tenant);
// Inserts one entry chained after `head` (tenant_seq = head.seq + 1) and moves `head` to it
// (the head row is not written: a transaction of many appends writes each head once, with
// write_chain_head, before it commits).
core::Result<backend::AuditEntry> insert_chained_audit(SqlConnection& db, const core::Id& tenant,
                                                       backend::AuditEntry entry, ChainHead& head);
// insert: the row does not exist yet (the migration); else it was locked by lock_chain_head.
core::Status write_chain_head(SqlConnection& db, const core::Id& tenant, const ChainHead& head, bool insert = false);

// The per-tenant counters behind tenant_seq ("events") and the limits' state (tenant_limits):
// read-and-lock a row (created at 0), write it back.
enum class TenantTable : std::uint8_t { Counters, Limits };
core::Result<std::int64_t> lock_tenant_value(SqlConnection& db, TenantTable table, const core::Id& tenant,
                                             std::string_view name);
core::Result<std::int64_t> read_tenant_value(SqlConnection& db, TenantTable table, const core::Id& tenant,
                                             std::string_view name);
core::Status write_tenant_value(SqlConnection& db, TenantTable table, const core::Id& tenant, std::string_view name,
                                std::int64_t value);

// The hash of an entry: SHA-256 over its fields (length-prefixed, so no two field lists encode
// alike) and the previous hash.
std::string audit_entry_hash(const core::Id& tenant, const backend::AuditEntry& entry, std::string_view detail_json);

// The audit_log columns in the order audit_row reads them (detail, column 7, is left to the
// caller: a list parses it, the chain check hashes its text as stored).
// seq is the tenant's own sequence (tenant_seq) from schema version 7, the global one before.
inline constexpr std::string_view kAuditColumns =
    "seq, at_ns, actor, action, object_type, object_id, request_id, detail, prev_hash, hash";
inline constexpr std::string_view kTenantAuditColumns =
    "tenant_seq, at_ns, actor, action, object_type, object_id, request_id, detail, prev_hash, hash";
backend::AuditEntry audit_row(const SqlRow& row);

// Every tenant's chain, its head, and that each anchor (a hash kept outside the store) is still
// the hash of a chained entry.
core::Result<backend::AuditChainReport> verify_audit_chain(SqlConnection& db, const std::vector<std::string>& anchors,
                                                          std::optional<core::Id> tenant = std::nullopt);

core::Result<std::vector<backend::AuditHead>> read_audit_heads(SqlConnection& db);

core::Result<backend::RoleBindingRecord> put_role_binding(SqlConnection& db, const core::Id& tenant,
                                                          backend::RoleBindingRecord binding);
core::Status delete_role_binding(SqlConnection& db, const core::Id& tenant, std::string_view principal,
                                 std::string_view role, const std::optional<core::Id>& project_id);
core::Result<std::vector<backend::RoleBindingRecord>> list_role_bindings(SqlConnection& db, const core::Id& tenant,
                                                                         std::optional<std::string_view> principal);

}  // namespace budcore::backends

#pragma GCC visibility pop
