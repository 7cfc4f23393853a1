// budcore::usecase::ComponentDefinition — a component registry entry: HOW
// to deploy one kind of service (a vector database, a model endpoint, a UI). Templates name
// components by id; the Resolver merges a component's defaults with a template's overrides.
//
// Wire format (from_value / to_value; YAML or JSON files): the snake_case keys below
// plus an optional "schema_version" ("1.0"). Unknown keys are rejected with a "did you mean"
// hint; errors name the path ("default_env.LOG_LEVEL"). Rules beyond the types:
// - id: a DNS-1123 label ("qdrant", "rag-orchestrator"); version: 1-64 printable characters.
// - deployment_type helm needs helm_chart, docker needs image, model needs model_engine; the
//   fields of another deployment type are rejected (a docker component has no helm_chart).
// - default_env: a map of scalars (written as strings); default_values, default_resources:
//   maps; required_inputs, outputs, tags: lists of distinct strings. Outputs are identifiers
//   ([A-Za-z_][A-Za-z0-9_]*) other than "outputs" and "enabled" (names the Resolver reserves).
// - default_gpu_count, readiness_timeout_seconds: integers in range (0..1024, 1..86400).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"

namespace budcore::usecase {

enum class ComponentCategory : std::uint8_t {
  ModelEndpoint,  // LLM, embedding, reranker
  Database,       // vector databases, PostgreSQL
  Service,        // orchestrators, custom services
  Application,    // UIs, gateways
  Storage,        // MinIO, S3
  Cache,          // Redis, Valkey
};

BUDCORE_API std::string_view to_string(ComponentCategory c) noexcept;
// "model_endpoint", "database", ... in any letter case.
BUDCORE_API core::Result<ComponentCategory> parse_component_category(std::string_view text);

struct BUDCORE_API ComponentDefinition {
  static constexpr std::int64_t kMaxGpuCount = 1024;
  static constexpr std::int64_t kMaxReadinessTimeoutSeconds = 86'400;

  std::string id;    // "qdrant"
  std::string name;  // human-readable
  std::string description;
  ComponentCategory category = ComponentCategory::Service;
  std::string version;  // of this definition ("1.0.0")
  job::DeploymentType deployment_type = job::DeploymentType::Docker;

  // helm
  std::optional<std::string> helm_repo;                   // "https://qdrant.github.io/qdrant-helm"
  std::optional<std::string> helm_chart;                  // "qdrant/qdrant"
  std::optional<std::string> helm_version;                // "1.12.x"
  core::Value default_values = core::Value(core::Map{});  // Helm values (or container config)

  // docker
  std::optional<std::string> image;      // "ghcr.io/budecosystem/rag-orchestrator"
  std::optional<std::string> image_tag;  // "latest"
  std::optional<std::vector<std::string>> default_command;
  std::optional<std::vector<std::string>> default_args;

  // model
  std::optional<std::string> model_engine;      // "vllm", "latentbud", "tgi"
  std::optional<std::string> default_gpu_type;  // "nvidia-a100-80gb"
  std::optional<std::int64_t> default_gpu_count;

  // common
  core::Value default_env = core::Value(core::Map{});        // name -> string
  core::Value default_resources = core::Value(core::Map{});  // {"requests": {...}, "limits": {...}}
  std::vector<std::string> required_inputs;                  // env names, config keys or "model_id"
  std::vector<std::string> outputs;                          // "url", "api_key", ...

  std::optional<std::string> health_check_path;  // "/health"
  std::int64_t readiness_timeout_seconds = 300;

  std::vector<std::string> tags;
  std::optional<std::string> documentation_url;
  bool is_active = true;

  // Parses and validates a component document; the first problem, with its path.
  static core::Result<ComponentDefinition> from_value(const core::Value& value);
  // Every key of the schema (absent optionals as null) plus "schema_version".
  core::Value to_value() const;

  bool has_output(std::string_view name) const noexcept;

  friend BUDCORE_API bool operator==(const ComponentDefinition& a, const ComponentDefinition& b);
};

// One stored version of a component (a ComponentVersion): the definition
// as JSON plus when it was stored and whether it is the version a lookup without a version
// gets.
struct BUDCORE_API ComponentVersion {
  core::Id id;  // assigned by the store
  std::string component_id;
  std::string version;
  core::Value definition = core::Value(core::Map{});
  core::Timestamp created_at;
  bool is_default = false;

  core::Value to_value() const;
};

}  // namespace budcore::usecase
