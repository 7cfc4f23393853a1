#include "backends/sql_security.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "budcore/core/json.hpp"
#include "core/digest.hpp"
#include "budcore/core/limits.hpp"

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

core::Result<ChainHead> lock_chain_head(SqlConnection& db, const core::Id& tenant) {
  // An upsert that returns the head: in PostgreSQL it takes the head row's lock until commit.
  const std::string tid = tenant.to_string();
  SqlParam p[] = {std::string_view(tid), core::kZeroDigest};
  std::optional<ChainHead> head;
  BUDCORE_TRY(db.query("INSERT INTO audit_heads (tenant_id, last_seq, last_hash) VALUES (?, 0, ?) "
                       "ON CONFLICT (tenant_id) DO UPDATE SET last_seq = audit_heads.last_seq "
                       "RETURNING last_seq, last_hash",
                       p, [&](const SqlRow& row) -> core::Status {
                         head = ChainHead{row.int64(0), std::string(row.text(1))};
                         return {};
                       }));
  if (!head) return Error::make(ErrorCode::Io, "the store returned no audit chain head for tenant " + tid, "audit_heads");
  return *head;
}

core::Result<backend::AuditEntry> insert_chained_audit(SqlConnection& db, const core::Id& tenant,
                                                       backend::AuditEntry e, ChainHead& head) {
  e.prev_hash = head.hash;
  e.seq = head.seq + 1;
  const std::string tid = tenant.to_string(), detail = core::to_json(e.detail);
  e.hash = audit_entry_hash(tenant, e, detail);
  SqlParam p[] = {tid, e.at.unix_nanos(), e.actor, e.action, e.object_type, e.object_id, e.request_id, detail,
                  e.prev_hash, e.hash, e.seq};
  BUDCORE_TRY(db.execute_later("INSERT INTO audit_log (tenant_id, at_ns, actor, action, object_type, object_id, "
                               "request_id, detail, prev_hash, hash, tenant_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               p, {}));
  head = ChainHead{e.seq, e.hash};
  return e;
}

core::Status write_chain_head(SqlConnection& db, const core::Id& tenant, const ChainHead& head, bool insert) {
  const std::string tid = tenant.to_string();
  if (insert) {
    SqlParam p[] = {std::string_view(tid), head.seq, std::string_view(head.hash)};
    BUDCORE_TRY(db.execute_later("INSERT INTO audit_heads (tenant_id, last_seq, last_hash) VALUES (?, ?, ?)", p, {}));
    return {};
  }
  SqlParam p[] = {head.seq, std::string_view(head.hash), std::string_view(tid)};
  BUDCORE_TRY(db.execute_later("UPDATE audit_heads SET last_seq = ?, last_hash = ? WHERE tenant_id = ?", p, {}));
  return {};
}

namespace {
std::string_view tenant_table(TenantTable t) { return t == TenantTable::Counters ? "tenant_counters" : "tenant_limits"; }
}  // namespace

core::Result<std::int64_t> lock_tenant_value(SqlConnection& db, TenantTable table, const core::Id& tenant,
                                             std::string_view name) {
  const std::string tid = tenant.to_string(), t(tenant_table(table));
  SqlParam p[] = {std::string_view(tid), name};
  std::int64_t value = 0;
  BUDCORE_TRY(db.query("INSERT INTO " + t + " (tenant_id, name, value) VALUES (?, ?, 0) ON CONFLICT (tenant_id, name) "
                       "DO UPDATE SET value = " + t + ".value RETURNING value",
                       p, [&](const SqlRow& row) -> core::Status {
                         value = row.int64(0);
                         return {};
                       }));
  return value;
}

core::Result<std::int64_t> read_tenant_value(SqlConnection& db, TenantTable table, const core::Id& tenant,
                                             std::string_view name) {
  const std::string tid = tenant.to_string();
  SqlParam p[] = {std::string_view(tid), name};
  std::int64_t value = 0;
  BUDCORE_TRY(db.query("SELECT value FROM " + std::string(tenant_table(table)) + " WHERE tenant_id = ? AND name = ?", p,
                       [&](const SqlRow& row) -> core::Status {
                         value = row.int64(0);
                         return {};
                       }));
  return value;
}

core::Status write_tenant_value(SqlConnection& db, TenantTable table, const core::Id& tenant, std::string_view name,
                                std::int64_t value) {
  const std::string tid = tenant.to_string();
  SqlParam p[] = {value, std::string_view(tid), name};
  BUDCORE_TRY(db.execute_later("UPDATE " + std::string(tenant_table(table)) + " SET value = ? WHERE tenant_id = ? AND name = ?",
                               p, {}));
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

namespace {

// Every audit checkpoint must be the one the newest compaction recorded in the system tenant's
// chain (its store.compacted entry lists them all): a checkpoint moved, added or removed by hand
// is a problem. (Rewriting that entry too breaks the system chain, or needs an anchor to find.)
core::Status check_checkpoints_recorded(SqlConnection& db, const std::optional<core::Id>& only,
                                        const std::function<void(std::string)>& problem) {
  std::map<std::string, std::pair<std::int64_t, std::string>> stored;
  BUDCORE_TRY(db.query("SELECT tenant_id, seq, hash FROM retention_checkpoints WHERE log = 'audit'", {},
                       [&](const SqlRow& row) -> core::Status {
                         stored[std::string(row.text(0))] = {row.int64(1), std::string(row.text(2))};
                         return {};
                       }));
  std::optional<core::Value> recorded;
  const std::string system_tid = core::Id().to_string();
  SqlParam p[] = {std::string_view(system_tid)};
  BUDCORE_TRY(db.query("SELECT detail FROM audit_log WHERE tenant_id = ? AND action = 'store.compacted' "
                       "ORDER BY tenant_seq DESC LIMIT 1",
                       p, [&](const SqlRow& row) -> core::Status {
                         auto v = core::parse_json(row.text(0));
                         if (v) recorded = std::move(*v);
                         return {};
                       }));
  const core::Value* listed = recorded ? recorded->find("audit_checkpoints") : nullptr;
  if (stored.empty() && (listed == nullptr || !listed->is_map() || listed->as_map().empty())) return {};
  const std::string only_text = only ? only->to_string() : std::string();
  auto where = [](const std::string& tid) { return "retention_checkpoints[tenant " + core::truncate_text(tid, 64) + " audit]: "; };
  if (listed == nullptr || !listed->is_map()) {
    for (const auto& [tid, cp] : stored)
      if (!only || tid == only_text)
        problem(where(tid) + "no compaction recorded it in the system tenant's chain: entries before seq " +
                std::to_string(cp.first) + " were deleted by hand");
    return {};
  }
  for (const auto& [tid, cp] : stored) {
    if (only && tid != only_text) continue;
    const core::Value* entry = listed->find(tid);
    const core::Value* seq = entry ? entry->find("seq") : nullptr;
    const core::Value* hash = entry ? entry->find("hash") : nullptr;
    if (seq == nullptr || !seq->is_int() || seq->as_int() != cp.first || hash == nullptr || !hash->is_string() ||
        hash->as_string() != cp.second)
      problem(where(tid) + "seq " + std::to_string(cp.first) +
              " is not the checkpoint the last compaction recorded: it was moved by hand, hiding deleted entries");
  }
  for (const auto& [tid, v] : listed->as_map()) {
    if (only && tid != only_text) continue;
    if (!stored.count(tid)) problem(where(tid) + "the checkpoint the last compaction recorded is missing");
  }
  return {};
}

}  // namespace

core::Result<backend::AuditChainReport> verify_audit_chain(SqlConnection& db, const std::vector<std::string>& anchors,
                                                          std::optional<core::Id> only) {
  const std::string only_text = only ? only->to_string() : std::string();
  const std::string where_tenant = only ? " WHERE tenant_id = ?" : "";
  std::vector<SqlParam> params;
  if (only) params.emplace_back(std::string_view(only_text));
  backend::AuditChainReport r;
  auto problem = [&](std::string what) {
    r.ok = false;
    r.problems.push_back(std::move(what));
  };
  // Every tenant's chain in order: tenant_seq 1, 2, ... each linked to the one before.
  struct End {
    std::int64_t seq = 0;
    std::string hash = std::string(core::kZeroDigest);
  };
  std::map<std::string, End> ends;
  std::set<std::string> anchored(anchors.begin(), anchors.end());
  BUDCORE_TRY(check_checkpoints_recorded(db, only, problem));
  // A compacted chain continues from its checkpoint: the last removed entry's seq and hash.
  BUDCORE_TRY(db.query("SELECT tenant_id, seq, hash FROM retention_checkpoints WHERE log = 'audit'" +
                           std::string(only ? " AND tenant_id = ?" : ""),
                       params, [&](const SqlRow& row) -> core::Status {
                         if (only && row.text(0) != only_text) return {};
                         ends[std::string(row.text(0))] = End{row.int64(1), std::string(row.text(2))};
                         anchored.erase(std::string(row.text(2)));
                         r.compacted += row.int64(1);
                         return {};
                       }));
  BUDCORE_TRY(db.query(
      "SELECT " + std::string(kTenantAuditColumns) + ", tenant_id FROM audit_log" + where_tenant + " ORDER BY tenant_id, tenant_seq",
      params,
      [&](const SqlRow& row) -> core::Status {
        ++r.entries;
        const std::string tid(row.text(10));
        End& end = ends[tid];
        const std::string where = "audit_log[tenant " + core::truncate_text(tid, 64) + " seq " +
                                  (row.is_null(0) ? std::string("none") : std::to_string(row.int64(0))) + "]: ";
        if (row.is_null(0) || row.is_null(9)) {
          problem(where + "has no place in its tenant's chain (a row was inserted)");
          return {};
        }
        const backend::AuditEntry e = audit_row(row);
        if (e.seq != end.seq + 1)
          problem(where + "follows seq " + std::to_string(end.seq) + ": entries before it were deleted or inserted");
        else if (e.prev_hash != end.hash)
          problem(where + "prev_hash " + e.prev_hash.substr(0, 12) + "... is not the hash of the entry before it (" +
                  end.hash.substr(0, 12) + "...): an entry before it was deleted or inserted");
        auto tenant = core::Id::parse(tid);
        // Ids are stored in one spelling: another one (capitals, no dashes) is an edit that
        // would move the entry out of its tenant's reads while its hash still matches.
        if (tenant && tenant->to_string() != tid)
          problem(where + "its tenant id is not written as the store writes it: the entry was edited");
        if (!tenant || audit_entry_hash(*tenant, e, row.text(7)) != e.hash)
          problem(where + "its hash does not match its fields: the entry was edited");
        anchored.erase(e.hash);
        end = End{e.seq, e.hash};
        return {};
      }));
  // Each head must be where its chain ends: else entries at the end were deleted, or the head edited.
  BUDCORE_TRY(db.query("SELECT tenant_id, last_seq, last_hash FROM audit_heads" + where_tenant + " ORDER BY tenant_id",
                       params, [&](const SqlRow& row) -> core::Status {
                         backend::AuditHead h;
                         const std::string tid(row.text(0));
                         auto tenant = core::Id::parse(tid);
                         if (tenant) h.tenant = *tenant;
                         if (!tenant || tenant->to_string() != tid)
                           problem("audit_heads[tenant " + core::truncate_text(tid, 64) +
                                   "]: the tenant id is not written as the store writes it: the head was edited");
                         h.seq = row.int64(1);
                         h.hash = std::string(row.text(2));
                         const End end = ends.count(tid) ? ends[tid] : End{};
                         ends.erase(tid);
                         if (h.seq != end.seq || h.hash != end.hash)
                           problem("audit_heads[tenant " + core::truncate_text(tid, 64) + "]: the head records seq " +
                                   std::to_string(h.seq) + " (" + h.hash.substr(0, 12) + "...) but the chain ends at seq " +
                                   std::to_string(end.seq) + " (" + end.hash.substr(0, 12) +
                                   "...): entries at its end were deleted or the head was edited");
                         r.head_seq += h.seq;
                         r.heads.push_back(std::move(h));
                         return {};
                       }));
  for (const auto& [tid, end] : ends) {
    if (end.seq == 0) continue;
    problem("audit_heads[tenant " + core::truncate_text(tid, 64) + "]: missing, but the tenant's chain has " +
            std::to_string(end.seq) + " entries (the head row was deleted)");
  }
  r.head_hash = backend::audit_heads_digest(r.heads);
  for (const auto& a : anchored)
    problem("anchor " + core::truncate_text(a, 64) +
            " is not the hash of any chained entry or retention checkpoint: the entry it anchored was deleted or the "
            "chain rewritten (or it lies before a checkpoint: retention removed it)");
  return r;
}

core::Result<std::vector<backend::AuditHead>> read_audit_heads(SqlConnection& db) {
  std::vector<backend::AuditHead> out;
  BUDCORE_TRY(db.query("SELECT tenant_id, last_seq, last_hash FROM audit_heads ORDER BY tenant_id", {},
                       [&](const SqlRow& row) -> core::Status {
                         backend::AuditHead h;
                         BUDCORE_TRY_ASSIGN(h.tenant, core::Id::parse(row.text(0)));
                         h.seq = row.int64(1);
                         h.hash = std::string(row.text(2));
                         out.push_back(std::move(h));
                         return {};
                       }));
  return out;
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

namespace budcore::backend {

std::string audit_heads_digest(std::vector<AuditHead> heads) {
  std::sort(heads.begin(), heads.end(), [](const AuditHead& a, const AuditHead& b) { return a.tenant < b.tenant; });
  std::string text;
  for (const auto& h : heads) text += h.tenant.to_string() + ":" + std::to_string(h.seq) + ":" + h.hash + ";";
  return core::sha256_hex(text);
}

}  // namespace budcore::backend
