// Whole-document validation of a pipeline: every problem at once, each with a contract-3 code
// and a path ("steps[3].depends_on[0]").
//
// Codes (docs/cli.md contract 3): cycle, unknown_dependency, duplicate_id, unknown_step_type,
// template_syntax, reference_not_upstream, missing_field; budcore adds invalid_value (a field of
// the wrong JSON type or out of range) and invalid_document (not a map / no steps list).
//
// Reference rule: a template reading steps.X... must have X as an ancestor of the referring
// step (depends_on and CONDITION branch edges). A *soft* reference — the path piped into the
// `default`/`d` filter or tested with `is defined` / `is undefined` / `is none` — may also
// name a step that is neither upstream nor downstream (e.g. an optional CONDITION branch such
// as the RAG example's step-6); it must still exist and must not be the referring step or
// one of its descendants. Soft references are listed as warnings.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::pipeline {

namespace issue_code {
inline constexpr std::string_view kCycle = "cycle";
inline constexpr std::string_view kUnknownDependency = "unknown_dependency";
inline constexpr std::string_view kDuplicateId = "duplicate_id";
inline constexpr std::string_view kUnknownStepType = "unknown_step_type";
inline constexpr std::string_view kTemplateSyntax = "template_syntax";
inline constexpr std::string_view kReferenceNotUpstream = "reference_not_upstream";
inline constexpr std::string_view kMissingField = "missing_field";
inline constexpr std::string_view kInvalidValue = "invalid_value";
inline constexpr std::string_view kInvalidDocument = "invalid_document";
inline constexpr std::string_view kSoftReference = "soft_reference";  // warning only
}  // namespace issue_code

struct Issue {
  std::string code;
  std::string message;
  std::string path;
  friend bool operator==(const Issue&, const Issue&) = default;
};

struct ValidationReport {
  std::vector<Issue> errors;    // ordered by step, then by field; cycles last
  std::vector<Issue> warnings;  // soft references
  bool valid() const noexcept { return errors.empty(); }
};

// Validates a parsed pipeline document.
BUDCORE_API ValidationReport validate_document(const core::Value& document);

}  // namespace budcore::pipeline
