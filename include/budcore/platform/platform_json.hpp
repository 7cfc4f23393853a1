// The JSON forms of the Platform's results, shared by the C ABI (budcore_platform_*), the CLI
// (`budcore platform ...`) and Python, so they cannot drift apart. Job records, summaries and
// pages are budcore/backend/store_json.hpp's.
//
// Event:    {"seq", "at" (RFC 3339), "type", "object_id", "data": {...}}
// Events:   {"events": [<event>...], "last_seq"}
// Submit:   {"created", "version", "idempotency_key", "job"}   (as store_json's submit)
// Batch:    {"results": [<submit>...]}
// Cluster:  {"workloads": [{"job_id", "tenant", "run", "phase", "cluster_queue", "flavors",
//            "nodes", "devices", "started_at", "message"}], "usage": {cq: {flavor: {resource:
//            {"used", "nominal"}}}}}   (usage in the resource's units, as decimal strings)
// Pipeline run: PipelineRun::to_value()
// Binding (in): {"principal": "user:erin", "role": "editor", "project_id": "<uuid>" | null}
// Audit query:  {"actor", "object_type", "object_id", "from", "to" (RFC 3339), "limit": 1..1000,
//                "after": "<next_cursor>"}; every key optional
// Bindings:     {"items": [<binding record of store_json>...]}
#pragma once

#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/platform/platform.hpp"

namespace budcore::platform {

BUDCORE_API core::Value to_value(const backend::EventRecord& event);
BUDCORE_API core::Value to_value(const EventPage& page);
BUDCORE_API core::Value to_value(const SubmitResult& result);
BUDCORE_API core::Value to_value(const std::vector<SubmitResult>& results);
BUDCORE_API core::Value to_value(const ClusterSnapshot& snapshot);
// {flavor: gpu::to_value(report)} (docs/gpu.md "In the platform").
BUDCORE_API core::Value to_value(const std::vector<GpuFlavorReport>& reports);
// The cluster view: {"workloads", "usage"} and, with GPU reports, "gpu" (the form above).
BUDCORE_API core::Value to_value(const ClusterSnapshot& snapshot, const std::vector<GpuFlavorReport>& gpu);

// Parses a submit request document: a job document, or {"job": {...}, "idempotency_key": "..."}.
BUDCORE_API core::Result<SubmitRequest> parse_submit_request(const core::Value& doc);
// {"role", "replica", "epoch", "lease": {"holder", "epoch", "expires", "now"}, "replicas": [{"replica",
// "role", "epoch", "started", "seen", "renew_us"}]}
BUDCORE_API core::Value to_value(const HaStatus& s);
// A batch: {"jobs": [<submit request>...]} or a list of them. Errors name "jobs[i].<field>".
BUDCORE_API core::Result<std::vector<SubmitRequest>> parse_submit_batch(const core::Value& doc);

// A role binding document; errors name the key (unknown keys are Invalid).
BUDCORE_API core::Result<RoleBinding> parse_role_binding(const core::Value& doc);
struct AuditPageQuery {
  backend::AuditQuery query;
  backend::PageRequest page;
};
// An audit query document (null: everything, first page).
BUDCORE_API core::Result<AuditPageQuery> parse_audit_query(const core::Value& doc);
BUDCORE_API core::Value to_value(const std::vector<backend::RoleBindingRecord>& bindings);

}  // namespace budcore::platform
