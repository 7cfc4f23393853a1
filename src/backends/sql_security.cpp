#include "backends/sql_security.hpp"

#include <optional>
#include <string>

#include "budcore/core/json.hpp"
#include "core/digest.hpp"

namespace budcore::backends {
namespace {

using core::Error;
using core::ErrorCode;

void put_field(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
  out += ';';
}

core::Timestamp ts(std::int64_t ns) { return core::Timestamp::from_unix_nanos(ns); }

std::string project_key(const std::optional<core::Id>& project) { return project ? project->to_string() : std::string(); }

}  // namespace

std::string audit_entry_hash(const core::Id& tenant, const backend::AuditEntry& e, std::string_view detail_json) {
  std::string text;
  text.reserve(256 + detail_json.size());
  put_field(text, e.prev_hash);
  put_field(text, tenant.to_string());
  put_field(text, std::to_string(e.at.unix_nanos()));
  put_field(text, e.actor);
  put_field(text, e.action);
  put_field(text, e.object_type);
  put_field(text, e.object_id);
  put_field(text, e.request_id);
  put_field(text, detail_json);
  return core::sha256_hex(text);
}

core::Result<ChainHead> lock_chain_head(SqlConnection& db) {
  // A no-op update that returns the head: in PostgreSQL it takes the head row's lock until commit.
  std::optional<ChainHead> head;
  BUDCORE_TRY(db.query("UPDATE audit_chain SET last_seq = last_seq WHERE id = 1 RETURNING last_seq, last_hash", {},
                       [&](const SqlRow& row) -> core::Status {
                         head = ChainHead{row.int64(0), std::string(row.text(1))};
                         return {};
                       }));
  if (!head) return Error::make(ErrorCode::Io, "the store has no audit chain head (audit_chain row 1 is missing)", "audit_chain");
  return *head;
}

core::Result<backend::AuditEntry> insert_chained_audit(SqlConnection& db, const core::Id& tenant,
                                                       backend::AuditEntry e, ChainHead& head) {
  e.prev_hash = head.hash;
  const std::string tid = tenant.to_string(), detail = core::to_json(e.detail);
  e.hash = audit_entry_hash(tenant, e, detail);
  SqlParam p[] = {tid, e.at.unix_nanos(), e.actor, e.action, e.object_type, e.object_id, e.request_id, detail,
                  e.prev_hash, e.hash};
  BUDCORE_TRY(db.query("INSERT INTO audit_log (tenant_id, at_ns, actor, action, object_type, object_id, "
                       "request_id, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq",
                       p, [&](const SqlRow& row) -> core::Status {
                         e.seq = row.int64(0);
                         return {};
                       }));
  head = ChainHead{e.seq, e.hash};
  return e;
}

core::Status write_chain_head(SqlConnection& db, const ChainHead& head) {
  SqlParam p[] = {head.seq, head.hash};
  BUDCORE_TRY(db.execute("UPDATE audit_chain SET last_seq = ?, last_hash = ? WHERE id = 1", p));
  return {};
}

backend::AuditEntry audit_row(const SqlRow& row) {
  backend::AuditEntry e;
  e.seq = row.int64(0);
  e.at = ts(row.int64(1));
  e.actor = row.text(2);
  e.action = row.text(3);
  e.object_type = row.text(4);
  e.object_id = row.text(5);
  e.request_id = row.text(6);
  if (!row.is_null(8)) e.prev_hash = row.text(8);
  if (!row.is_null(9)) e.hash = row.text(9);
  return e;
}

core::Result<backend::AuditChainReport> verify_audit_chain(SqlConnection& db) {
  backend::AuditChainReport r;
  std::string last_hash(core::kZeroDigest);
  std::int64_t last_seq = 0;
  bool chained = false;
  auto problem = [&](std::int64_t seq, std::string what) {
    r.ok = false;
    r.problems.push_back("audit_log[seq " + std::to_string(seq) + "]: " + std::move(what));
  };
  BUDCORE_TRY(db.query(
      "SELECT " + std::string(kAuditColumns) + ", tenant_id FROM audit_log ORDER BY seq", {},
      [&](const SqlRow& row) -> core::Status {
        ++r.entries;
        const std::int64_t seq = row.int64(0);
        if (row.is_null(9)) {
          // Written before schema version 6: only allowed before the chain starts.
          if (chained) problem(seq, "has no hash but follows chained entries (a row was inserted)");
          else ++r.unchained;
          return {};
        }
        chained = true;
        const backend::AuditEntry e = audit_row(row);
        auto tenant = core::Id::parse(row.text(10));
        const std::string& stored = e.hash;
        if (e.prev_hash != last_hash) {
          problem(seq, "prev_hash " + e.prev_hash.substr(0, 12) + "... is not the hash of the entry before it (" +
                           last_hash.substr(0, 12) + "...): an entry before it was deleted or inserted");
        }
        if (!tenant || audit_entry_hash(*tenant, e, row.text(7)) != stored) {
          problem(seq, "its hash does not match its fields: the entry was edited");
        }
        last_hash = stored;
        last_seq = seq;
        return {};
      }));
  bool head = false;
  BUDCORE_TRY(db.query("SELECT last_seq, last_hash FROM audit_chain WHERE id = 1", {},
                       [&](const SqlRow& row) -> core::Status {
                         head = true;
                         r.head_seq = row.int64(0);
                         r.head_hash = row.text(1);
                         return {};
                       }));
  if (!head) {
    r.ok = false;
    r.problems.push_back("audit_chain: the head row is missing");
  } else if (r.head_seq != last_seq || r.head_hash != last_hash) {
    r.ok = false;
    r.problems.push_back("audit_chain: the head records seq " + std::to_string(r.head_seq) + " (" +
                         r.head_hash.substr(0, 12) + "...) but the chain ends at seq " + std::to_string(last_seq) +
                         " (" + last_hash.substr(0, 12) + "...): entries at its end were deleted or the head was edited");
  }
  return r;
}

core::Result<backend::RoleBindingRecord> put_role_binding(SqlConnection& db, const core::Id& tenant,
                                                          backend::RoleBindingRecord b) {
  const std::string tid = tenant.to_string(), project = project_key(b.project_id);
  SqlParam p[] = {tid, b.principal, b.role, project, b.created_at.unix_nanos(), b.created_by};
  auto st = db.execute("INSERT INTO role_bindings (tenant_id, principal, role, project_id, created_ns, created_by) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       p);
  if (!st) {
    if (st.error().code != ErrorCode::AlreadyExists) return std::move(st).error();
    return Error::make(ErrorCode::AlreadyExists,
                       b.principal + " already has role " + b.role + " on " +
                           (b.project_id ? "project " + project : std::string("the whole tenant")),
                       "role");
  }
  return b;
}

core::Status delete_role_binding(SqlConnection& db, const core::Id& tenant, std::string_view principal,
                                 std::string_view role, const std::optional<core::Id>& project_id) {
  const std::string tid = tenant.to_string(), project = project_key(project_id);
  SqlParam p[] = {tid, principal, role, project};
  BUDCORE_TRY_ASSIGN(std::int64_t n, db.execute("DELETE FROM role_bindings WHERE tenant_id = ? AND principal = ? "
                                                "AND role = ? AND project_id = ?",
                                                p));
  if (n == 0) {
    return Error::make(ErrorCode::NotFound,
                       std::string(principal) + " has no role " + std::string(role) + " on " +
                           (project_id ? "project " + project : std::string("the whole tenant")),
                       "role");
  }
  return {};
}

core::Result<std::vector<backend::RoleBindingRecord>> list_role_bindings(SqlConnection& db, const core::Id& tenant,
                                                                         std::optional<std::string_view> principal) {
  std::vector<backend::RoleBindingRecord> out;
  const std::string tid = tenant.to_string();
  auto on_row = [&](const SqlRow& row) -> core::Status {
    backend::RoleBindingRecord b;
    b.principal = row.text(0);
    b.role = row.text(1);
    if (!row.text(2).empty()) {
      auto id = core::Id::parse(row.text(2));
      if (!id) return Error::make(ErrorCode::Io, "stored project id is not a UUID: '" + std::string(row.text(2)) + "'",
                                  "role_bindings.project_id");
      b.project_id = *id;
    }
    b.created_at = ts(row.int64(3));
    b.created_by = row.text(4);
    out.push_back(std::move(b));
    return {};
  };
  constexpr std::string_view kSelect = "SELECT principal, role, project_id, created_ns, created_by FROM role_bindings ";
  if (principal) {
    SqlParam p[] = {tid, *principal};
    BUDCORE_TRY(db.query(std::string(kSelect) + "WHERE tenant_id = ? AND principal = ? ORDER BY role, project_id", p,
                         on_row));
  } else {
    SqlParam p[] = {tid};
    BUDCORE_TRY(db.query(std::string(kSelect) + "WHERE tenant_id = ? ORDER BY principal, role, project_id", p,
                         on_row));
  }
  return out;
}

}  // namespace budcore::backends
