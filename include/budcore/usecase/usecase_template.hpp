// budcore::usecase::UseCaseTemplate — WHAT to deploy and how components connect:
// user-facing parameters, component instances with their overrides and wiring, routing
// and observability.
//
// Wire format (from_value / to_value; YAML or JSON): the snake_case keys below plus an
// optional "schema_version" ("1.0"). The versioned envelope {"schema_version": "1.0",
// "template": {...}} is read too. Unknown keys are rejected with a "did you mean" hint; errors name the
// path ("components[3].env.LLM_URL", "parameters[1].default"). from_value checks the document
// on its own (types, ranges, names, defaults against their parameter, template syntax, which
// parameters and instances templates read, depends_on, cycles); what needs the component
// registry (component_ref, outputs) is checked by the Resolver.
//
// Limits: at most kMaxComponents instances and kMaxParameters parameters; strings are bounded
// by the template engine's limits (4 MiB per template).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::usecase {

enum class ParameterType : std::uint8_t { String, Integer, Boolean, Enum, ModelRef, ClusterRef };

BUDCORE_API std::string_view to_string(ParameterType t) noexcept;
// "string", "integer", "boolean", "enum", "model_ref", "cluster_ref" in any letter case.
BUDCORE_API core::Result<ParameterType> parse_parameter_type(std::string_view text);

// A user input of a template. `required` defaults to true; a
// required parameter with a default is satisfied by the default.
struct BUDCORE_API TemplateParameter {
  std::string name;  // an identifier: [A-Za-z_][A-Za-z0-9_]*
  ParameterType type = ParameterType::String;
  std::string label;
  std::optional<std::string> description;
  bool required = true;
  core::Value default_value;          // null: none ("default" on the wire)
  std::optional<core::List> options;  // allowed values (enum needs them; any type may have them)
  std::optional<std::int64_t> min;    // integer parameters only
  std::optional<std::int64_t> max;

  // Checks a value of this parameter (not null): type, options, min/max. The error's field is
  // empty; its message says what is wrong.
  core::Status check(const core::Value& value) const;
};

// One instance of a component within a template. String values anywhere below are templates
// rendered at resolution (docs/usecases.md).
struct BUDCORE_API TemplateComponent {
  std::string id;                                    // instance id, a DNS-1123 label ("vector-db"); the JOB step id
  std::string component_ref;                         // ComponentDefinition.id
  std::optional<std::string> condition;              // "{{ params.enable_reranker }}"; absent: always
  core::Value config = core::Value(core::Map{});     // deep-merged over default_values
  core::Value env = core::Value(core::Map{});        // merged over default_env
  core::Value resources = core::Value(core::Map{});  // deep-merged over default_resources
  std::optional<std::string> model_id;
  std::optional<std::string> gpu_type;
  core::Value gpu_count;                                   // null, an integer or a template yielding one
  core::Value optimize_with_budsim = core::Value(false);   // a bool or a template yielding one
  std::vector<std::string> depends_on;                     // other instance ids
  core::Value output_mappings = core::Value(core::Map{});  // component output -> extra name
};

enum class Complexity : std::uint8_t { Simple, Intermediate, Advanced };
BUDCORE_API std::string_view to_string(Complexity c) noexcept;
BUDCORE_API core::Result<Complexity> parse_complexity(std::string_view text);

struct BUDCORE_API UseCaseTemplate {
  static constexpr std::size_t kMaxComponents = 2000;
  static constexpr std::size_t kMaxParameters = 500;

  std::string id;  // "simple-rag-v1"
  std::string name;
  std::string description;
  std::string category;  // "rag", "chatbot", "agent"
  std::string version;   // "1.0.0"
  std::vector<TemplateParameter> parameters;
  std::vector<TemplateComponent> components;
  core::Value routing;        // null or a map (strings rendered at resolution)
  core::Value observability;  // null or a map
  std::optional<std::string> estimated_monthly_cost_usd;
  Complexity complexity = Complexity::Simple;
  std::vector<std::string> tags;
  std::optional<std::string> documentation_url;
  bool is_active = true;

  static core::Result<UseCaseTemplate> from_value(const core::Value& value);
  core::Value to_value() const;

  const TemplateParameter* parameter(std::string_view name) const noexcept;
  // Index of the instance `id`, or -1.
  std::ptrdiff_t component_index(std::string_view id) const noexcept;
};

}  // namespace budcore::usecase
