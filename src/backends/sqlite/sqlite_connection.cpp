// The SQLite connection behind the default store: one file in WAL mode, statements prepared
// once and cached by their text, a busy timeout so several processes can share the file.
// Uses the sqlite3 C API (the library SQLiteCpp wraps) directly: the store needs the extended
// result codes (constraint vs. busy vs. corrupt) and no exceptions on expected failures.
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include "backends/store_common.hpp"

namespace budcore::backends {
namespace {

core::Error sqlite_error(sqlite3* db, int rc, std::string_view doing) {
  int ext = db ? sqlite3_extended_errcode(db) : rc;
  std::string msg = std::string(doing) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  if (ext == SQLITE_CONSTRAINT_UNIQUE || ext == SQLITE_CONSTRAINT_PRIMARYKEY) {
    return core::Error::make(core::ErrorCode::AlreadyExists, msg);
  }
  if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
    msg += " (the file is damaged or is not a budcore store)";
  } else if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
    msg += " (another connection held the lock past the busy timeout)";
  }
  return core::Error::make(core::ErrorCode::Io, msg);
}

class StmtRow final : public SqlRow {
 public:
  explicit StmtRow(sqlite3_stmt* s) : s_(s) {}
  bool is_null(int col) const override { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  std::int64_t int64(int col) const override { return sqlite3_column_int64(s_, col); }
  std::string_view text(int col) const override {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
    if (p == nullptr) return {};
    return {p, static_cast<std::size_t>(sqlite3_column_bytes(s_, col))};
  }

 private:
  sqlite3_stmt* s_;
};

// Resets a statement (and clears its bindings) on every exit path so the cache stays usable.
struct ResetGuard {
  sqlite3_stmt* s;
  ~ResetGuard() {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
};

class SqliteConnection final : public SqlConnection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }

  Dialect dialect() const noexcept override { return Dialect::Sqlite; }

  core::Status exec_script(std::string_view sql) override {
    std::string text(sql);
    char* err = nullptr;
    int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
    if (err != nullptr) sqlite3_free(err);
    if (rc != SQLITE_OK) return sqlite_error(db_, rc, "executing schema SQL");
    return {};
  }

  core::Result<std::int64_t> execute(std::string_view sql, std::span<const SqlParam> params) override {
    BUDCORE_TRY_ASSIGN(sqlite3_stmt * s, prepare(sql, params));
    ResetGuard guard{s};
    int rc = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    }
    if (rc != SQLITE_DONE) return sqlite_error(db_, rc, "executing a statement");
    return static_cast<std::int64_t>(sqlite3_changes(db_));
  }

  core::Status query(std::string_view sql, std::span<const SqlParam> params, const RowFn& fn) override {
    BUDCORE_TRY_ASSIGN(sqlite3_stmt * s, prepare(sql, params));
    ResetGuard guard{s};
    StmtRow row(s);
    int rc = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      BUDCORE_TRY(fn(row));
    }
    if (rc != SQLITE_DONE) return sqlite_error(db_, rc, "reading rows");
    return {};
  }

  core::Status begin() override { return simple("BEGIN IMMEDIATE"); }
  core::Status commit() override { return simple("COMMIT"); }
  void rollback() noexcept override {
    if (!sqlite3_get_autocommit(db_)) (void)simple("ROLLBACK");
  }

  core::Status integrity_check(std::vector<std::string>& problems) override {
    return query("PRAGMA quick_check", {}, [&](const SqlRow& row) -> core::Status {
      if (row.text(0) != "ok") problems.push_back("sqlite integrity: " + std::string(row.text(0)));
      return {};
    });
  }

 private:
  core::Status simple(std::string_view sql) {
    auto r = execute(sql, {});
    if (!r) return std::move(r).error();
    return {};
  }

  core::Result<sqlite3_stmt*> prepare(std::string_view sql, std::span<const SqlParam> params) {
    auto it = cache_.find(sql);
    sqlite3_stmt* s = nullptr;
    if (it != cache_.end()) {
      s = it->second;
    } else {
      int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                  &s, nullptr);
      if (rc != SQLITE_OK) return sqlite_error(db_, rc, "preparing a statement");
      cache_.emplace(std::string(sql), s);
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      int idx = static_cast<int>(i) + 1;
      int rc = std::visit(
          [&](const auto& v) -> int {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::nullptr_t>) {
              return sqlite3_bind_null(s, idx);
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
              return sqlite3_bind_int64(s, idx, v);
            } else {
              // The text outlives the statement's use (reset before the call returns).
              return sqlite3_bind_text(s, idx, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
            }
          },
          params[i]);
      if (rc != SQLITE_OK) {
        sqlite3_clear_bindings(s);
        return sqlite_error(db_, rc, "binding a parameter");
      }
    }
    return s;
  }

  sqlite3* db_;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, sqlite3_stmt*, Hash, std::equal_to<>> cache_;
};

}  // namespace

core::Result<std::unique_ptr<SqlConnection>> open_sqlite_connection(const std::string& path,
                                                                    const backend::StoreOptions& options) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    core::Error e = sqlite_error(db, rc, "opening SQLite database '" + path + "'");
    sqlite3_close_v2(db);
    return e;
  }
  sqlite3_extended_result_codes(db, 1);
  auto conn = std::make_unique<SqliteConnection>(db);
  auto ms = options.busy_timeout.count_ns() / 1'000'000;
  sqlite3_busy_timeout(db, static_cast<int>(std::clamp<std::int64_t>(ms, 0, INT32_MAX)));
  // journal_mode=WAL is the first statement that reads the file, so a damaged file or one that
  // is not SQLite at all fails here with a clear message.
  std::string pragmas = std::string(path == ":memory:" ? "" : "PRAGMA journal_mode = WAL;") +
                        "PRAGMA foreign_keys = ON; PRAGMA synchronous = " +
                        (options.durable ? "FULL" : "NORMAL") + ";";
  if (auto st = conn->exec_script(pragmas); !st) {
    core::Error e = st.error();
    e.message = "opening SQLite database '" + path + "': " + e.message;
    return e;
  }
  return std::unique_ptr<SqlConnection>(std::move(conn));
}

}  // namespace budcore::backends
