// The PostgreSQL connection behind a shared store: libpq, every value sent as a separate
// parameter of a prepared statement (never spliced into SQL text, so injection is impossible),
// statements prepared once per connection and cached by their text.
#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

#include "backends/store_common.hpp"

namespace budcore::backends {
namespace {

// Every session's settings. Timestamps are integers and ids text, so only the encoding matters.
constexpr const char* kSessionSettings = "SET client_encoding = 'UTF8'";

// A prepared statement is prepared again after this many runs. The plan a server keeps for a
// statement is made once, with the sizes of its tables then: made while a table was small (a
// fresh deployment's first jobs) it scans the whole table for every job once the table has
// grown, where a plan made now reads the job by its key. Planning at every run instead
// (plan_cache_mode = force_custom_plan) costs a quarter of the single-submit rate; this costs
// two round trips per thousand runs.
constexpr std::int64_t kReplanAfterRuns = 1000;

struct ResultDeleter {
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

core::Error pg_error(PGconn* conn, const PGresult* res, std::string_view doing) {
  std::string msg(res != nullptr ? PQresultErrorMessage(res) : PQerrorMessage(conn));
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  const char* state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  std::string_view code = state != nullptr ? state : "";
  std::string text = std::string(doing) + ": " + msg;
  if (code == "23505") return core::Error::make(core::ErrorCode::AlreadyExists, text);
  if (code == "40001" || code == "40P01") return core::Error::make(core::ErrorCode::Conflict, text);
  return core::Error::make(core::ErrorCode::Io, text);
}

// "a = ? AND b = ?" -> "a = $1 AND b = $2". The store's SQL never has '?' inside literals.
std::string number_placeholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  for (char c : sql) {
    if (c == '?') {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

class PgRow final : public SqlRow {
 public:
  PgRow(const PGresult* r, int row) : r_(r), row_(row) {}
  bool is_null(int col) const override { return PQgetisnull(r_, row_, col) != 0; }
  std::int64_t int64(int col) const override {
    const char* p = PQgetvalue(r_, row_, col);
    std::int64_t v = 0;
    std::from_chars(p, p + PQgetlength(r_, row_, col), v);
    return v;
  }
  std::string_view text(int col) const override {
    return {PQgetvalue(r_, row_, col), static_cast<std::size_t>(PQgetlength(r_, row_, col))};
  }

 private:
  const PGresult* r_;
  int row_;
};

// Text-format parameters: libpq needs NUL-terminated strings, so each is copied once; the
// copies live as long as the statement is queued.
struct PgParams {
  std::vector<std::string> texts;
  std::vector<char> is_null;

  explicit PgParams(std::span<const SqlParam> params) : texts(params.size()), is_null(params.size(), 0) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::int64_t>) texts[i] = std::to_string(v);
            else if constexpr (std::is_same_v<T, std::string_view>) texts[i].assign(v);
            else is_null[i] = 1;
          },
          params[i]);
    }
  }
  std::vector<const char*> values() const {
    std::vector<const char*> out(texts.size(), nullptr);
    for (std::size_t i = 0; i < texts.size(); ++i)
      if (!is_null[i]) out[i] = texts[i].c_str();
    return out;
  }
};

// One statement of a pipeline: a prepared one (name) with its parameters, or plain SQL text.
struct PgStatement {
  std::string name_or_sql;
  bool prepared = true;
  PgParams params{{}};
  LaterCheck check;  // for a statement sent with execute_later
};

class PgConnection final : public SqlConnection {
 public:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  ~PgConnection() override { PQfinish(conn_); }

  Dialect dialect() const noexcept override { return Dialect::Postgres; }

  core::Status exec_script(std::string_view sql) override {
    BUDCORE_TRY(usable());
    BUDCORE_TRY(flush());  // a script inside a transaction comes after what is queued
    return exec_text(sql);
  }

  core::Result<std::int64_t> execute(std::string_view sql, std::span<const SqlParam> params) override {
    BUDCORE_TRY_ASSIGN(PgResult r, run(sql, params));
    return changed_rows(r.get());
  }

  core::Status execute_later(std::string_view sql, std::span<const SqlParam> params, LaterCheck check) override {
    if (!in_tx_) return check_later(execute(sql, params), check);
    BUDCORE_TRY(usable());
    BUDCORE_TRY_ASSIGN(const std::string* name, prepared(sql, static_cast<int>(params.size())));
    later_.push_back(PgStatement{*name, true, PgParams(params), std::move(check)});
    // Bounded so that the server's answers to one pipeline always fit in the socket's buffers
    // (libpq reads them only after sending the whole pipeline).
    if (later_.size() >= kMaxLater) return flush();
    return {};
  }

  core::Status query(std::string_view sql, std::span<const SqlParam> params, const RowFn& fn) override {
    BUDCORE_TRY_ASSIGN(PgResult r, run(sql, params));
    int rows = PQntuples(r.get());
    for (int i = 0; i < rows; ++i) BUDCORE_TRY(fn(PgRow(r.get(), i)));
    return {};
  }

  // BEGIN is sent with the transaction's first statement, and COMMIT with its queued writes:
  // a transaction of writes alone costs one round trip (two when a row count is checked).
  core::Status begin() override {
    BUDCORE_TRY(usable());
    begin_pending_ = true;
    in_tx_ = true;
    return {};
  }
  core::Status commit() override {
    if (begin_pending_ && later_.empty()) {  // nothing was sent: nothing to commit
      begin_pending_ = false;
      in_tx_ = false;
      return {};
    }
    PgStatement c{"COMMIT", false};
    BUDCORE_TRY(usable());
    // A row count is checked here, not by the server: a COMMIT sent behind a compare-and-set
    // would commit even when it changed nothing. Such writes are answered first.
    const bool counted = std::any_of(later_.begin(), later_.end(), [](const PgStatement& s) { return s.check.expect_rows >= 0; });
    if (counted) BUDCORE_TRY(flush());
    BUDCORE_TRY(pipeline(&c));
    in_tx_ = false;
    return {};
  }
  void rollback() noexcept override {
    in_tx_ = false;
    later_.clear();
    if (begin_pending_) {
      begin_pending_ = false;
      return;
    }
    if (PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_IDLE) (void)exec_text("ROLLBACK");
  }
  core::Status set_idle_transaction_limit_ms(std::int64_t ms) override {
    idle_limit_ms_ = ms;
    BUDCORE_TRY(usable());
    return apply_idle_limit();
  }
  core::Status lock_for_migration() override {
    // Any constant works; it only has to be the same for every budcore process.
    return exec_script("SELECT pg_advisory_xact_lock(7206113901)");
  }

 private:
  static constexpr std::size_t kMaxLater = 256;

  static std::int64_t changed_rows(const PGresult* r) {
    const char* n = PQcmdTuples(const_cast<PGresult*>(r));
    std::int64_t v = 0;
    std::from_chars(n, n + std::char_traits<char>::length(n), v);
    return v;
  }

  // A connection the server dropped (a restart, a failover) is opened again before the next
  // statement, but never inside a transaction: its earlier statements are gone with the old
  // session, so the transaction fails and its caller rolls back.
  core::Status usable() {
    if (PQstatus(conn_) == CONNECTION_OK) return {};
    if (in_tx_ && !(begin_pending_ && later_.empty()))
      return core::Error::make(core::ErrorCode::Io, "the connection to PostgreSQL was lost mid-transaction");
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) return pg_error(conn_, nullptr, "reconnecting to PostgreSQL");
    cache_.clear();  // prepared statements belong to the old session
    BUDCORE_TRY(exec_text(kSessionSettings));
    return apply_idle_limit();  // settings belong to the old session too
  }

  core::Status apply_idle_limit() {
    return exec_text("SET idle_in_transaction_session_timeout = " + std::to_string(idle_limit_ms_));
  }

  core::Status exec_text(std::string_view sql) {
    std::string text(sql);
    PgResult r(PQexec(conn_, text.c_str()));
    auto st = PQresultStatus(r.get());
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return pg_error(conn_, r.get(), "executing SQL");
    return {};
  }

  core::Result<PgResult> run(std::string_view sql, std::span<const SqlParam> params) {
    BUDCORE_TRY(usable());
    BUDCORE_TRY_ASSIGN(const std::string* name, prepared(sql, static_cast<int>(params.size())));
    PgStatement now{*name, true, PgParams(params)};
    if (begin_pending_ || !later_.empty()) return pipeline(&now);
    const auto values = now.params.values();
    PgResult r(PQexecPrepared(conn_, name->c_str(), static_cast<int>(values.size()), values.data(), nullptr, nullptr, 0));
    auto st = PQresultStatus(r.get());
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return pg_error(conn_, r.get(), "executing a statement");
    return r;
  }

  // Sends what is queued (the pending BEGIN, the later writes) without a statement of its own.
  core::Status flush() {
    if (!begin_pending_ && later_.empty()) return {};
    BUDCORE_TRY(pipeline(nullptr));
    return {};
  }

  // One round trip: the pending BEGIN, the queued writes and `now` (if any) in a pipeline,
  // then every answer in order. The first failure is the result; statements after it were
  // skipped by the server (the transaction is aborted and its caller rolls back).
  core::Result<PgResult> pipeline(PgStatement* now) {
    std::vector<PgStatement> queued = std::move(later_);
    later_.clear();
    const bool with_begin = begin_pending_;
    begin_pending_ = false;
    if (PQenterPipelineMode(conn_) != 1) return pg_error(conn_, nullptr, "entering pipeline mode");
    bool sent = true;
    if (with_begin) sent = send(PgStatement{"BEGIN", false});
    for (const PgStatement& s : queued) sent = sent && send(s);
    if (now != nullptr) sent = sent && send(*now);
    sent = sent && PQpipelineSync(conn_) == 1;
    std::optional<core::Error> failed;
    if (!sent) failed = pg_error(conn_, nullptr, "sending a pipeline");
    auto answer = [&](const PgStatement& s) -> PgResult {
      PgResult r(PQgetResult(conn_));
      if (r == nullptr) {
        if (!failed) failed = pg_error(conn_, nullptr, "reading an answer");
        return r;
      }
      while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);  // up to the NULL that ends each answer
      if (failed) return r;
      auto st = PQresultStatus(r.get());
      if (st == PGRES_PIPELINE_ABORTED) {
        failed = core::Error::make(core::ErrorCode::Io, "PostgreSQL skipped a statement of the transaction");
        return r;
      }
      if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        auto e = check_later(pg_error(conn_, r.get(), "executing a statement"), s.check);
        failed = e.error();
      } else if (&s != now) {
        if (auto c = check_later(changed_rows(r.get()), s.check); !c) failed = c.error();
      }
      return r;
    };
    PgResult last;
    if (sent) {
      if (with_begin) answer(PgStatement{"BEGIN", false});
      for (const PgStatement& s : queued) answer(s);
      if (now != nullptr) last = answer(*now);
    }
    // The sync's own result ends the pipeline. After a failure to send or read, what is left
    // is drained (each statement answers at most a result and a NULL).
    for (std::size_t left = 2 * (queued.size() + 3); left > 0; --left) {
      PgResult r(PQgetResult(conn_));
      if (r == nullptr && PQstatus(conn_) != CONNECTION_OK) break;
      if (r != nullptr && PQresultStatus(r.get()) == PGRES_PIPELINE_SYNC) break;
    }
    PQexitPipelineMode(conn_);
    if (failed) return *failed;
    if (now != nullptr && last == nullptr) return pg_error(conn_, nullptr, "reading an answer");
    return last;
  }

  bool send(const PgStatement& s) {
    const auto values = s.params.values();
    const int n = static_cast<int>(values.size());
    if (s.prepared) return PQsendQueryPrepared(conn_, s.name_or_sql.c_str(), n, values.data(), nullptr, nullptr, 0) == 1;
    return PQsendQueryParams(conn_, s.name_or_sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
  }

  core::Result<const std::string*> prepared(std::string_view sql, int nparams) {
    auto it = cache_.find(sql);
    if (it != cache_.end()) {
      // Not while queued writes still name it.
      if (++it->second.runs < kReplanAfterRuns || !later_.empty()) return &it->second.name;
      const std::string old = it->second.name;
      cache_.erase(it);
      PgResult r(PQexec(conn_, ("DEALLOCATE " + old).c_str()));
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) return pg_error(conn_, r.get(), "preparing a statement again");
    }
    std::string name = "budcore_" + std::to_string(++prepared_count_);
    std::string text = number_placeholders(sql);
    PgResult r(PQprepare(conn_, name.c_str(), text.c_str(), nparams, nullptr));
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) return pg_error(conn_, r.get(), "preparing a statement");
    auto [pos, inserted] = cache_.emplace(std::string(sql), Prepared{std::move(name), 0});
    return &pos->second.name;
  }

  PGconn* conn_;
  bool in_tx_ = false;  // between begin() and commit() / rollback()
  bool begin_pending_ = false;  // begin() was called; BEGIN goes with the first statement
  std::vector<PgStatement> later_;  // execute_later writes not sent yet
  std::int64_t idle_limit_ms_ = 0;  // 0: the server's default (no limit)
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  struct Prepared {
    std::string name;
    std::int64_t runs;
  };
  std::unordered_map<std::string, Prepared, Hash, std::equal_to<>> cache_;
  std::int64_t prepared_count_ = 0;  // names are never reused within a session
};

void ignore_notice(void*, const char*) {}

}  // namespace

core::Result<std::unique_ptr<SqlConnection>> open_postgres_connection(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    std::string msg = conn != nullptr ? PQerrorMessage(conn) : "out of memory";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    PQfinish(conn);
    return core::Error::make(core::ErrorCode::Io, "connecting to PostgreSQL: " + msg);
  }
  PQsetNoticeProcessor(conn, ignore_notice, nullptr);
  auto out = std::make_unique<PgConnection>(conn);
  BUDCORE_TRY(out->exec_script(kSessionSettings));
  return std::unique_ptr<SqlConnection>(std::move(out));
}

}  // namespace budcore::backends
