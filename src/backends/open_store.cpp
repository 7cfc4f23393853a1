// open_store(): picks the backend from the URI scheme, connects, migrates the schema and
// wraps the connection in the shared SqlStore. Also check_store() for `budcore store check`.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "backends/store_common.hpp"
#include "budcore/core/json.hpp"
#include "core/digest.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/utf8.hpp"

namespace budcore::backend {

Store::~Store() = default;

core::Result<std::vector<std::optional<JobRecord>>> Store::get_jobs(std::span<const JobKey> keys) {
  std::vector<std::optional<JobRecord>> out;
  out.reserve(keys.size());
  for (const JobKey& k : keys) {
    auto rec = get_job(k.tenant, k.id);
    if (!rec && rec.error().code != core::ErrorCode::NotFound) return rec.error();
    out.push_back(rec ? std::optional<JobRecord>(std::move(*rec)) : std::nullopt);
  }
  return out;
}

core::Result<std::vector<std::optional<JobRecord>>> Store::get_jobs_by_keys(const core::Id& tenant,
                                                                            std::span<const std::string> keys) {
  std::vector<std::optional<JobRecord>> out;
  out.reserve(keys.size());
  for (const std::string& k : keys) {
    BUDCORE_TRY_ASSIGN(auto rec, get_job_by_key(tenant, k));
    out.push_back(std::move(rec));
  }
  return out;
}

core::Result<CreateJobResult> Store::create_job_with_new_key(const core::Id& tenant, job::Job job,
                                                             std::string_view idempotency_key,
                                                             std::string_view request_digest) {
  // Looked up first, so that create_job neither returns that job nor refuses its document.
  if (!idempotency_key.empty()) {
    BUDCORE_TRY_ASSIGN(auto found, get_job_by_key(tenant, idempotency_key));
    if (found) return backends::idempotency_key_taken(idempotency_key);
  }
  auto created = create_job(tenant, std::move(job), idempotency_key, request_digest);
  if (created && !created->created) return backends::idempotency_key_taken(idempotency_key);
  return created;
}

core::Result<std::vector<std::optional<PlatformRecord>>> Store::get_platform_records(std::string_view kind,
                                                                                    std::span<const std::string> keys) {
  std::vector<std::optional<PlatformRecord>> out;
  out.reserve(keys.size());
  for (const std::string& k : keys) {
    BUDCORE_TRY_ASSIGN(auto rec, get_platform_record(kind, k));
    out.push_back(std::move(rec));
  }
  return out;
}

core::Status Store::catalog_transact(const std::function<core::Status(usecase::CatalogStore& tx)>& fn) {
  return transact([&fn](Store& tx) { return fn(tx); });
}

int latest_schema_version() noexcept { return backends::kLatestSchemaVersion; }

namespace {

// One request written two ways digests the same: members in name order, a number by its value
// (1.0 is 1), at every depth of the document.
core::Value canonical(const core::Value& v) {
  if (v.is_float()) {
    const double d = v.as_float();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.0e15) return core::Value(static_cast<std::int64_t>(d));
    return v;
  }
  if (v.is_list()) {
    core::List out;
    out.reserve(v.as_list().size());
    for (const core::Value& e : v.as_list()) out.push_back(canonical(e));
    return core::Value(std::move(out));
  }
  if (!v.is_map()) return v;
  std::vector<const core::Map::Entry*> entries;
  for (const auto& e : v.as_map()) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  core::Map out;
  for (const auto* e : entries) out.set(e->first, canonical(e->second));
  return core::Value(std::move(out));
}

}  // namespace

std::string job_request_digest(const job::Job& job, const core::Id& tenant) {
  // What a submit sets or ignores (times, the status message) is not part of the request, and a
  // tenant left out is the sender's: sending it or not is the same request. Another tenant's id
  // is a different one (and refused wherever a new job would be).
  job::Job request = job;
  if (request.tenant_id.is_nil()) request.tenant_id = tenant;
  request.created_at.reset();
  request.updated_at.reset();
  request.estimated_start.reset();
  request.estimated_end.reset();
  request.actual_start.reset();
  request.actual_end.reset();
  request.status_message.reset();
  return core::sha256_hex(core::to_json(canonical(request.to_value())));
}

core::Status check_request_digest(const JobRecord& existing, std::string_view request_digest) {
  if (request_digest.empty() || existing.request_digest.empty() || existing.request_digest == request_digest) return {};
  // A key names one request: the same key with another document is the caller's mistake (a
  // reused counter, two clients sharing keys), and answering with the first job would hide it.
  return core::Error::invalid("idempotency_key", existing.idempotency_key,
                              "the key was first sent with another job document (it created job " +
                                  existing.job.id.to_string() + "); a new job needs a new key");
}

JobSummary summarize(const JobRecord& record) {
  const job::Job& j = record.job;
  JobSummary s;
  s.id = j.id;
  s.name = j.name;
  s.status = j.status;
  s.job_type = j.job_type;
  s.source = j.source;
  s.priority = j.priority;
  s.project_id = j.project_id;
  s.cluster_id = j.cluster_id;
  s.pipeline_id = j.pipeline_id;
  s.gpu_type = j.gpu_type;
  s.gpu_count = j.gpu_count;
  s.created_at = j.created_at.value_or(core::Timestamp());
  s.updated_at = j.updated_at.value_or(s.created_at);
  s.version = record.version;
  s.idempotency_key = record.idempotency_key;
  return s;
}

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string_view scheme_name(std::string_view uri) {
  if (starts_with(uri, "sqlite:")) return "sqlite";
  return "postgres";
}

}  // namespace

core::Result<std::unique_ptr<Store>> open_store(std::string_view uri, const StoreOptions& options) {
  BUDCORE_TRY_ASSIGN(auto conn, backends::open_connection(uri, options));
  BUDCORE_TRY(backends::migrate_schema(*conn, options.migrate));
  return backends::make_sql_store(std::move(conn), std::string(scheme_name(uri)), options.clock);
}

core::Result<MigrationReport> migrate_store(std::string_view uri) {
  BUDCORE_TRY(backends::check_uri(uri));
  BUDCORE_TRY_ASSIGN(auto conn, backends::open_connection(uri, StoreOptions{}));
  BUDCORE_TRY_ASSIGN(auto outcome, backends::migrate_schema(*conn, true));
  return MigrationReport{outcome.from, outcome.to};
}

core::Result<StoreCheckReport> check_store(std::string_view uri) {
  BUDCORE_TRY(backends::check_uri(uri));
  StoreCheckReport report;
  report.library_schema_version = backends::kLatestSchemaVersion;
  // Checking must not create the file it was asked to check.
  if (starts_with(uri, "sqlite:") && uri != "sqlite::memory:") {
    std::string_view path = uri.substr(7);
    if (starts_with(path, "//")) path.remove_prefix(2);
    std::error_code ec;
    if (!path.empty() && !std::filesystem::exists(std::filesystem::path(path), ec)) {
      return core::Error::make(core::ErrorCode::NotFound, "no database file at '" + std::string(path) + "'", "uri");
    }
  }
  BUDCORE_TRY_ASSIGN(auto conn, backends::open_connection(uri, StoreOptions{}));
  BUDCORE_TRY(conn->integrity_check(report.problems));
  BUDCORE_TRY_ASSIGN(report.schema_version, backends::read_schema_version(*conn));
  if (report.schema_version == 0) {
    report.problems.push_back("the database holds no budcore schema (run `budcore store migrate URI`)");
  } else if (report.schema_version > report.library_schema_version) {
    report.problems.push_back("schema version " + std::to_string(report.schema_version) +
                              " is newer than this library's " + std::to_string(report.library_schema_version));
  } else {
    if (report.schema_version < report.library_schema_version) {
      report.problems.push_back("schema version " + std::to_string(report.schema_version) +
                                " is older than this library's " +
                                std::to_string(report.library_schema_version) + " (run `budcore store migrate URI`)");
    }
    BUDCORE_TRY_ASSIGN(report.rows_checked, backends::check_documents(*conn, report.problems, report.schema_version));
  }
  report.ok = report.problems.empty();
  return report;
}

}  // namespace budcore::backend

namespace budcore::backends {

core::Status check_uri(std::string_view uri) {
  // The drivers take C strings: "sqlite:///a.db\0/b.db" would silently open /a.db.
  if (auto nul = uri.find('\0'); nul != std::string_view::npos) {
    return core::Error::invalid("uri", core::truncate_text(uri.substr(0, nul)),
                                "contains a NUL byte at offset " + std::to_string(nul));
  }
  if (auto bad = core::find_invalid_utf8(uri)) {
    return core::Error::invalid("uri", {}, "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  }
  return {};
}

core::Result<std::unique_ptr<SqlConnection>> open_connection(std::string_view uri,
                                                             const backend::StoreOptions& options) {
  using backend::starts_with;
  BUDCORE_TRY(check_uri(uri));
  if (starts_with(uri, "sqlite:")) {
    std::string_view rest = uri.substr(7);
    if (rest == ":memory:") return open_sqlite_connection(":memory:", options);
    if (starts_with(rest, "//")) rest.remove_prefix(2);
    if (rest.empty()) return core::Error::invalid("uri", std::string(uri), "names no database file");
    return open_sqlite_connection(std::string(rest), options);
  }
  if (starts_with(uri, "postgresql://") || starts_with(uri, "postgres://")) {
    return open_postgres_connection(std::string(uri));
  }
  return core::Error::invalid("uri", std::string(uri),
                              "unknown store scheme; use sqlite:///path.db, sqlite::memory: or postgresql://...");
}

}  // namespace budcore::backends
