// The JSON wire forms of the store's job calls, shared by the C ABI (budcore_store_job_*), the
// CLI (`budcore job submit/get/list --store`) and any other binding, so they cannot drift apart.
//
// Record:  {"version": 2, "idempotency_key": "req-1" | null, "job": {<job::Job::to_value>}}
// Submit:  the record plus "created": true | false (false: the key named an existing job)
// Summary: {"id", "name", "status", "job_type", "source", "priority", "project_id", "cluster_id",
//           "pipeline_id" | null, "gpu_type" | null, "gpu_count", "created_at", "updated_at",
//           "version", "idempotency_key" | null}   (timestamps RFC 3339, enums lower-case)
// Page:    {"items": [...], "next_cursor": "..." | ""}
// Query:   {"status": "running" | ["queued", "running"], "project_id", "cluster_id", "pipeline_id",
//           "job_type", "source", "created_from", "created_to" (RFC 3339), "limit": 1..1000,
//           "after": "<next_cursor>", "view": "summary" (default) | "full"}; every key optional,
//           an unknown key is Invalid naming it.
// Audit:   {"seq", "at", "actor", "action", "object_type", "object_id", "request_id", "detail",
//           "prev_hash", "hash"}   (one line each in `budcore audit export`)
// Chain:   {"ok", "entries", "unchained", "head_seq", "head_hash", "heads": [{"tenant", "seq", "hash"}], "problems": [...]}
// Binding: {"principal", "role", "project_id" | null, "created_at", "created_by"}
#pragma once

#include "budcore/backend/store.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::backend {

BUDCORE_API core::Value to_value(const JobRecord& record);
BUDCORE_API core::Value to_value(const CreateJobResult& result);
BUDCORE_API core::Value to_value(const JobSummary& summary);
BUDCORE_API core::Value to_value(const Page<JobRecord>& page);
BUDCORE_API core::Value to_value(const Page<JobSummary>& page);
BUDCORE_API core::Value to_value(const AuditEntry& entry);
BUDCORE_API core::Value to_value(const Page<AuditEntry>& page);
BUDCORE_API core::Value to_value(const AuditChainReport& report);
// {"tenant", "log", "seq", "hash" (audit; else null), "at"}
BUDCORE_API core::Value to_value(const RetentionCheckpoint& checkpoint);
// {"events_removed", "audit_removed", "usage_removed", "checkpoints": [...]}
BUDCORE_API core::Value to_value(const CompactionReport& report);
BUDCORE_API core::Value to_value(const RoleBindingRecord& binding);

enum class JobView : std::uint8_t { Summary, Full };

struct JobQuery {
  JobFilter filter;
  PageRequest page;
  JobView view = JobView::Summary;
};

// Parses a query document (a map; null = all defaults). Errors name the key ("status[1]").
BUDCORE_API core::Result<JobQuery> parse_job_query(const core::Value& query);

// Runs a query: list_job_summaries or list_jobs by view, as the page document above.
BUDCORE_API core::Result<core::Value> run_job_query(Store& store, const core::Id& tenant, const JobQuery& query);

}  // namespace budcore::backend
