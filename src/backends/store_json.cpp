// JSON wire forms of job records, summaries, pages and list queries (store_json.hpp).
#include "budcore/backend/store_json.hpp"

#include <string>
#include <string_view>
#include <utility>

#include "budcore/core/keys.hpp"

namespace budcore::backend {
namespace {

using core::Error;
using core::Map;
using core::Value;

Value opt_text(const std::string& s) { return s.empty() ? Value() : Value(s); }

Value items_page(core::List items, const std::string& next_cursor) {
  return Value(Map{{"items", Value(std::move(items))}, {"next_cursor", next_cursor}});
}

core::Result<core::Id> query_id(const Value& v, const std::string& field) {
  if (!v.is_string()) return Error::invalid(field, "", "must be a UUID string");
  auto id = core::Id::parse(v.as_string());
  if (!id) return Error::invalid(field, v.as_string(), "is not a UUID");
  return *id;
}

core::Result<core::Timestamp> query_time(const Value& v, const std::string& field) {
  if (!v.is_string()) return Error::invalid(field, "", "must be an RFC 3339 timestamp string");
  auto t = core::Timestamp::parse(v.as_string());
  if (!t) return Error::invalid(field, v.as_string(), "is not an RFC 3339 timestamp: " + t.error().message);
  return *t;
}

template <class T>
core::Result<T> query_enum(core::Result<T> (*parse)(std::string_view), const Value& v, const std::string& field) {
  if (!v.is_string()) return Error::invalid(field, "", "must be a string");
  auto e = parse(v.as_string());
  if (!e) return Error::invalid(field, v.as_string(), e.error().message);
  return *e;
}

}  // namespace

Value to_value(const JobRecord& record) {
  return Value(Map{{"version", record.version},
                   {"idempotency_key", opt_text(record.idempotency_key)},
                   {"job", record.job.to_value()}});
}

Value to_value(const CreateJobResult& result) {
  Value v = to_value(result.record);
  v.mutable_map().set("created", result.created);
  return v;
}

Value to_value(const JobSummary& s) {
  return Value(Map{{"id", s.id.to_string()},
                   {"name", s.name},
                   {"status", job::to_string(s.status)},
                   {"job_type", job::to_string(s.job_type)},
                   {"source", job::to_string(s.source)},
                   {"priority", job::to_string(s.priority)},
                   {"project_id", s.project_id.to_string()},
                   {"cluster_id", s.cluster_id.to_string()},
                   {"pipeline_id", s.pipeline_id ? Value(s.pipeline_id->to_string()) : Value()},
                   {"gpu_type", s.gpu_type ? Value(*s.gpu_type) : Value()},
                   {"gpu_count", s.gpu_count},
                   {"created_at", s.created_at.to_string()},
                   {"updated_at", s.updated_at.to_string()},
                   {"version", s.version},
                   {"idempotency_key", opt_text(s.idempotency_key)}});
}

Value to_value(const Page<JobRecord>& page) {
  core::List items;
  items.reserve(page.items.size());
  for (const auto& r : page.items) items.push_back(to_value(r));
  return items_page(std::move(items), page.next_cursor);
}

Value to_value(const Page<JobSummary>& page) {
  core::List items;
  items.reserve(page.items.size());
  for (const auto& s : page.items) items.push_back(to_value(s));
  return items_page(std::move(items), page.next_cursor);
}

core::Result<JobQuery> parse_job_query(const Value& query) {
  JobQuery q;
  if (query.is_null()) return q;
  if (!query.is_map()) return Error::invalid("query", "", "must be a JSON object");
  for (const auto& [key, v] : query.as_map()) {
    if (key == "status") {
      if (v.is_list()) {
        for (std::size_t i = 0; i < v.as_list().size(); ++i) {
          BUDCORE_TRY_ASSIGN(auto st, query_enum(job::parse_job_status, v.as_list()[i],
                                                 "status[" + std::to_string(i) + "]"));
          q.filter.statuses.push_back(st);
        }
      } else {
        BUDCORE_TRY_ASSIGN(auto st, query_enum(job::parse_job_status, v, "status"));
        q.filter.statuses.push_back(st);
      }
    } else if (key == "project_id") {
      BUDCORE_TRY_ASSIGN(q.filter.project_id, query_id(v, key));
    } else if (key == "cluster_id") {
      BUDCORE_TRY_ASSIGN(q.filter.cluster_id, query_id(v, key));
    } else if (key == "pipeline_id") {
      BUDCORE_TRY_ASSIGN(q.filter.pipeline_id, query_id(v, key));
    } else if (key == "job_type") {
      BUDCORE_TRY_ASSIGN(q.filter.job_type, query_enum(job::parse_job_type, v, key));
    } else if (key == "source") {
      BUDCORE_TRY_ASSIGN(q.filter.source, query_enum(job::parse_job_source, v, key));
    } else if (key == "created_from") {
      BUDCORE_TRY_ASSIGN(q.filter.created_from, query_time(v, key));
    } else if (key == "created_to") {
      BUDCORE_TRY_ASSIGN(q.filter.created_to, query_time(v, key));
    } else if (key == "limit") {
      if (!v.is_int() || v.as_int() < 1 || v.as_int() > static_cast<std::int64_t>(PageRequest::kMaxPageSize)) {
        return Error::invalid("limit", v.is_int() ? std::to_string(v.as_int()) : std::string(),
                              "must be an integer from 1 to " + std::to_string(PageRequest::kMaxPageSize));
      }
      q.page.limit = static_cast<std::size_t>(v.as_int());
    } else if (key == "after") {
      if (!v.is_string()) return Error::invalid("after", "", "must be the next_cursor string of a previous page");
      q.page.after = v.as_string();
    } else if (key == "view") {
      if (v.is_string() && v.as_string() == "summary") {
        q.view = JobView::Summary;
      } else if (v.is_string() && v.as_string() == "full") {
        q.view = JobView::Full;
      } else {
        return Error::invalid("view", v.is_string() ? v.as_string() : std::string(), "must be \"summary\" or \"full\"");
      }
    } else {
      static constexpr std::string_view kKeys[] = {"status", "project_id", "cluster_id", "pipeline_id", "job_type", "source",
                                                   "created_from", "created_to", "limit", "after", "view"};
      return core::unknown_key({}, key, kKeys);
    }
  }
  return q;
}

core::Result<Value> run_job_query(Store& store, const core::Id& tenant, const JobQuery& query) {
  if (query.view == JobView::Full) {
    BUDCORE_TRY_ASSIGN(auto page, store.list_jobs(tenant, query.filter, query.page));
    return to_value(page);
  }
  BUDCORE_TRY_ASSIGN(auto page, store.list_job_summaries(tenant, query.filter, query.page));
  return to_value(page);
}

Value to_value(const AuditEntry& e) {
  return Value(Map{{"seq", e.seq},
                   {"at", e.at.to_string()},
                   {"actor", e.actor},
                   {"action", e.action},
                   {"object_type", e.object_type},
                   {"object_id", e.object_id},
                   {"request_id", e.request_id},
                   {"detail", e.detail},
                   {"prev_hash", opt_text(e.prev_hash)},
                   {"hash", opt_text(e.hash)}});
}

Value to_value(const Page<AuditEntry>& page) {
  core::List items;
  items.reserve(page.items.size());
  for (const auto& e : page.items) items.push_back(to_value(e));
  return Value(Map{{"items", Value(std::move(items))}, {"next_cursor", page.next_cursor}});
}

Value to_value(const AuditChainReport& r) {
  core::List problems(r.problems.begin(), r.problems.end());
  core::List heads;
  for (const auto& h : r.heads)
    heads.emplace_back(Map{{"tenant", h.tenant.to_string()}, {"seq", h.seq}, {"hash", h.hash}});
  return Value(Map{{"ok", r.ok},
                   {"entries", r.entries},
                   {"unchained", r.unchained},
                   {"head_seq", r.head_seq},
                   {"compacted", r.compacted},
                   {"head_hash", r.head_hash},
                   {"heads", Value(std::move(heads))},
                   {"problems", Value(std::move(problems))}});
}

Value to_value(const RetentionCheckpoint& c) {
  return Value(Map{{"tenant", c.tenant.to_string()},
                   {"log", c.log},
                   {"seq", c.seq},
                   {"hash", c.hash.empty() ? Value() : Value(c.hash)},
                   {"at", c.at.to_string()}});
}

Value to_value(const CompactionReport& r) {
  core::List checkpoints;
  for (const auto& c : r.checkpoints) checkpoints.push_back(to_value(c));
  return Value(Map{{"events_removed", r.events_removed},
                   {"audit_removed", r.audit_removed},
                   {"usage_removed", r.usage_removed},
                   {"checkpoints", Value(std::move(checkpoints))}});
}

Value to_value(const RoleBindingRecord& b) {
  return Value(Map{{"principal", b.principal},
                   {"role", b.role},
                   {"project_id", b.project_id ? Value(b.project_id->to_string()) : Value()},
                   {"created_at", b.created_at.to_string()},
                   {"created_by", b.created_by}});
}

}  // namespace budcore::backend
