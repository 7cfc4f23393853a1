// Planning a pipeline (docs/cli.md contract 3): topological order, levels, critical path and
// JOB steps, after validation.
//
// - levels[i]: the steps whose longest dependency chain has i edges, in input order.
// - order: the levels concatenated (a topological order: every step comes after all of its
//   dependencies; deterministic).
// - critical_path: a path source -> sink with the largest total duration (JOB:
//   config.estimated_duration_seconds, WAIT: config.duration_seconds, otherwise 0). Ties go
//   to the path with more steps, then to the step earlier in input order (Dag::longest_path).
// - job_steps: JOB steps in input order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/pipeline/validation.hpp"

namespace budcore::pipeline {

struct Plan {
  std::vector<std::string> order;
  std::vector<std::vector<std::string>> levels;
  std::vector<std::string> critical_path;
  double critical_path_seconds = 0;
  std::vector<std::string> job_steps;
  friend bool operator==(const Plan&, const Plan&) = default;
};

struct PlanResult {
  ValidationReport report;
  Plan plan;  // empty when !report.valid()
  bool valid() const noexcept { return report.valid(); }
};

// Validates and plans a parsed document.
BUDCORE_API PlanResult plan_document(const core::Value& document);
// JSON or YAML text. JSON goes through a streaming simdjson reader that builds only what
// validation and planning need (the 100k-step path); anything else is parsed to a Value.
// Documents of 8192+ steps are read and checked on two threads (one started per call and
// joined before it returns); the result is the same as on one.
BUDCORE_API PlanResult plan_text(std::string_view text);
// plan_text for a buffer followed by at least kPlanTextPadding readable bytes (any values):
// JSON is parsed in place instead of copied first. `budcore pipeline plan` reads files so.
inline constexpr std::size_t kPlanTextPadding = 64;
BUDCORE_API PlanResult plan_text_padded(std::string_view text);

// The contract-3 output: {"valid": true, "order": ..., "levels": ..., "critical_path": ...,
// "critical_path_seconds": N, "job_steps": ...} or {"valid": false, "errors": [...]}.
BUDCORE_API std::string to_json(const PlanResult& result);

}  // namespace budcore::pipeline
