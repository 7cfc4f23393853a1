// The `budcore schedule estimate` contract (docs/cli.md contract 6): a contract-2 scenario plus
// per-workload times in, every job's estimated start/end out.
#pragma once

#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/schedule/timeline.hpp"

namespace budcore::schedule {

// Parses the contract JSON. Per workload: duration_seconds (required), submit_at, depends_on,
// started_at, window {start, end, zone}, deadline, and the extension `pipeline` (a name that
// groups jobs in pictures); top level: now, horizon_seconds. Times are seconds since the Unix
// epoch and may be fractional; they are kept to the microsecond. Unknown keys among these
// objects are rejected with a "did you mean" hint; the rest is `quota::parse_scenario`'s.
// Errors are Invalid with the JSON path ("workloads[2].duration_seconds").
BUDCORE_API core::Result<TimelineInput> parse_estimate(std::string_view json);
// The same from a document already parsed (a JSON or YAML map).
BUDCORE_API core::Result<TimelineInput> parse_estimate_document(const core::Value& document);

struct EstimateJsonOptions {
  int indent = -1;
  // Adds per job "wait" ({"reason", "detail"}), "running", "finished", "pipeline", "gpus", and
  // top-level "warnings" and "utilization" (optional fields beyond the contract).
  bool details = false;
};

// The contract output: {"jobs": [...], "never": {...}, "makespan": N}.
BUDCORE_API core::Value to_value(const TimelineResult& result, const EstimateJsonOptions& options = {});
BUDCORE_API std::string to_json(const TimelineResult& result, const EstimateJsonOptions& options = {});

// Applies one live event to a timeline (the JSON face of Timeline's event calls):
// {"type": "started" | "finished" | "failed" | "preempted" | "cancelled" | "submitted" | "advance",
//  "name": "w1", "at": seconds, "admission": {"cluster_queue", "flavors", "count"} (started),
//  "job": {a contract-6 workload} (submitted)}. Errors name the field ("event.at").
BUDCORE_API core::Status apply_event(Timeline& timeline, const core::Value& event);

// Seconds since the epoch as a JSON number: an integer when whole, else a decimal.
BUDCORE_API core::Value seconds_value(core::Timestamp t);
BUDCORE_API core::Value seconds_value(core::Duration d);

}  // namespace budcore::schedule
