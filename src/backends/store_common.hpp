// What the SQLite and PostgreSQL stores share: a small SQL connection interface each backend
// implements, the schema and its migrations, and SqlStore — the one implementation of
// backend::Store written against that interface (row <-> model mapping, tenant scoping,
// compare-and-set, idempotency), so the two backends cannot drift apart.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "budcore/backend/store.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::backends {

enum class Dialect : std::uint8_t { Sqlite, Postgres };

// A bound parameter. Text is borrowed for the duration of the call.
using SqlParam = std::variant<std::nullptr_t, std::int64_t, std::string_view>;

class SqlRow {
 public:
  virtual ~SqlRow() = default;
  virtual bool is_null(int col) const = 0;
  virtual std::int64_t int64(int col) const = 0;
  virtual std::string_view text(int col) const = 0;  // valid until the callback returns
};

using RowFn = std::function<core::Status(const SqlRow&)>;

// What a write sent with execute_later must find when its answer arrives: a unique-key clash is
// AlreadyExists "<what> already exists" (field "id"), a row count other than expect_rows (when
// not negative) Conflict "<what> was changed by another writer" (field "version").
struct LaterCheck {
  std::int64_t expect_rows = -1;
  std::string what;
  // Returned instead of "<what> was changed by another writer" when the row count differs.
  std::optional<core::Error> miscount;
};
core::Status check_later(const core::Result<std::int64_t>& rows, const LaterCheck& check);

// create_job_with_new_key's answer for a key read as absent that another writer committed
// before the insert: a Conflict on idempotency_key naming neither that job nor its id.
core::Error idempotency_key_taken(std::string_view key);

// One database connection. SQL uses `?` placeholders (PostgreSQL connections rewrite them to
// $n) and is prepared once per distinct text. Errors: a unique-constraint violation is
// AlreadyExists, a serialization failure Conflict, anything else Io with the driver's message.
class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual Dialect dialect() const noexcept = 0;
  // Runs parameterless SQL, possibly several statements (DDL).
  virtual core::Status exec_script(std::string_view sql) = 0;
  // Returns the number of rows changed.
  virtual core::Result<std::int64_t> execute(std::string_view sql, std::span<const SqlParam> params) = 0;
  // Calls fn per result row; an error from fn stops the query and is returned.
  virtual core::Status query(std::string_view sql, std::span<const SqlParam> params, const RowFn& fn) = 0;
  // A write inside a transaction whose answer the caller does not need at once. PostgreSQL
  // queues it and sends it with the next statement that needs an answer (or the commit) in one
  // round trip (libpq's pipeline mode); its failure, or a row count other than the expected
  // one, then fails that statement and so the transaction whole. Outside a transaction, and on
  // SQLite (no round trips to save), it runs at once.
  virtual core::Status execute_later(std::string_view sql, std::span<const SqlParam> params, LaterCheck check) {
    return check_later(execute(sql, params), check);
  }
  // A write transaction (SQLite: BEGIN IMMEDIATE, so writers queue on the busy timeout instead
  // of deadlocking on a lock upgrade).
  virtual core::Status begin() = 0;
  virtual core::Status commit() = 0;
  virtual void rollback() noexcept = 0;
  // Serializes schema migration between processes (PostgreSQL: an advisory lock held until
  // the transaction ends; SQLite: BEGIN IMMEDIATE already does).
  virtual core::Status lock_for_migration() { return {}; }
  // Store::set_idle_transaction_limit; 0 removes it. Only a server can end another's transaction.
  virtual core::Status set_idle_transaction_limit_ms(std::int64_t) { return {}; }
  // Physical integrity of the database (SQLite: PRAGMA quick_check); appends problems.
  virtual core::Status integrity_check(std::vector<std::string>& problems) {
    (void)problems;
    return {};
  }
};

// Store-wide sequence numbers of a table's identity column taken ahead, so that a transaction's
// inserts need no RETURNING and can go with execute_later. On PostgreSQL the column's sequence
// steps by kSeqBlock (schema 14): one nextval reserves the block [n, n + kSeqBlock), which the
// pool hands out in order; a later block is greater, so a transaction that starts after another
// committed numbers its rows after that one's. Numbers taken and not used leave gaps, which the
// column's users allow (they order by it; the tenants' own sequences have no gaps).
inline constexpr std::int64_t kSeqBlock = 1024;
class SeqPool {
 public:
  explicit SeqPool(std::string_view table) : table_(table) {}
  core::Result<std::int64_t> next(SqlConnection& db);

 private:
  std::string_view table_;
  std::int64_t next_ = 0, end_ = 0;
};

// Opens a connection for a store URI (sqlite / postgresql), without touching the schema.
core::Result<std::unique_ptr<SqlConnection>> open_connection(std::string_view uri,
                                                             const backend::StoreOptions& options);

// Backend constructors (src/backends/sqlite, src/backends/postgres).
core::Result<std::unique_ptr<SqlConnection>> open_sqlite_connection(const std::string& path,
                                                                    const backend::StoreOptions& options);
core::Result<std::unique_ptr<SqlConnection>> open_postgres_connection(const std::string& conninfo);

// ---- schema ----------------------------------------------------------------------------------

inline constexpr int kLatestSchemaVersion = 14;
// A stored version above this is refused as it is read (never narrowed into an int).
inline constexpr std::int64_t kMaxReadableSchemaVersion = 1'000'000;

// The DDL that moves a schema from version - 1 to version, in the connection's dialect.
std::string migration_sql(Dialect dialect, int version);
// The part of the move to version 7 that SQL alone cannot do (store_common.cpp).
core::Status migrate_to_v7(SqlConnection& conn);

struct MigrationOutcome {
  int from = 0;  // 0: an empty database
  int to = 0;
};

// Reads the stored schema version (0 when the database holds no budcore schema) and applies
// the migrations up to target_version in one transaction. A stored version newer than
// kLatestSchemaVersion is Unsupported; an older one with migrate == false too.
core::Result<MigrationOutcome> migrate_schema(SqlConnection& conn, bool migrate,
                                              int target_version = kLatestSchemaVersion);

// Invalid when a store URI holds a NUL byte or bytes that are not UTF-8.
core::Status check_uri(std::string_view uri);

// The stored schema version without changing anything (0: none).
core::Result<int> read_schema_version(SqlConnection& conn);

// Parses every stored document back and checks the jobs' indexed columns (tenant, status, GPU
// count, ...) against their documents; appends problems. Returns the number of rows checked.
core::Result<std::int64_t> check_documents(SqlConnection& conn, std::vector<std::string>& problems, int schema_version);

// ---- the store over a connection ---------------------------------------------------------------

// Builds the Store on an already migrated connection.
std::unique_ptr<backend::Store> make_sql_store(std::unique_ptr<SqlConnection> conn,
                                               std::string backend_name,
                                               std::shared_ptr<core::Clock> clock);

}  // namespace budcore::backends

#pragma GCC visibility pop
