// budcore::pipeline::PipelineSpec — a pipeline document {"pipeline": {...}, "steps": [...]}
// (docs/pipelines.md, docs/cli.md contract 3), JSON or YAML in, JSON out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/pipeline/step.hpp"

namespace budcore::pipeline {

struct PipelineInfo {
  std::string id;
  std::string name;
  TriggerType trigger_type = TriggerType::Manual;
  std::optional<std::string> cron_expression;  // SCHEDULED
  core::Value event_config;                    // EVENT
  std::optional<std::string> triggered_by_pipeline_id;  // PIPELINE
  std::optional<std::int64_t> timeout_seconds;
  std::optional<std::string> deadline;  // RFC 3339
  std::optional<std::string> template_id;
  core::Value parameters = core::Value(core::Map{});
};

struct BUDCORE_API PipelineSpec {
  PipelineInfo pipeline;
  std::vector<Step> steps;

  // Parses and validates (validation.hpp). An invalid document gives the first problem as
  // an Error whose field is its path; validate_document() lists all of them.
  static core::Result<PipelineSpec> from_value(const core::Value& document);
  // JSON or YAML text.
  static core::Result<PipelineSpec> from_text(std::string_view text);
  core::Value to_value() const;
  std::string to_json() const;
};

}  // namespace budcore::pipeline
