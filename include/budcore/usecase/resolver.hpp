// budcore::usecase::Resolver — a template plus user parameters -> a deployable stack: the
// resolved components and the pipeline document (contract 3) that deploys them, one JOB step
// per enabled instance (docs/cli.md contract 4; docs/usecases.md).
//
// Steps: validate parameters (every problem, each naming the parameter) -> evaluate
// conditions -> merge component defaults <- template overrides <- user overrides (Helm's
// rules: maps merge recursively, lists and scalars replace, an explicit null deletes the key)
// -> render every string with the template engine -> turn references to other instances'
// outputs into `{{ steps.<id>.outputs.<name> }}` and into dependencies -> check
// required_inputs -> emit the pipeline.
//
// The Resolver compiles the template's strings once (construction); resolve() may then run
// any number of times, concurrently (it is const).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/job/job.hpp"
#include "budcore/pipeline/validation.hpp"
#include "budcore/usecase/registry.hpp"

namespace budcore::usecase {

// A problem: {code, message, path}, as contract 3's.
using Issue = pipeline::Issue;

// Contract 4's error codes, plus budcore's additions (last four).
namespace issue_code {
inline constexpr std::string_view kMissingParameter = "missing_parameter";
inline constexpr std::string_view kUnknownParameter = "unknown_parameter";
inline constexpr std::string_view kInvalidParameter = "invalid_parameter";
inline constexpr std::string_view kUnknownComponent = "unknown_component";
inline constexpr std::string_view kUnknownReference = "unknown_reference";
inline constexpr std::string_view kReferenceToDisabled = "reference_to_disabled";
inline constexpr std::string_view kMissingInput = "missing_input";
inline constexpr std::string_view kCycle = "cycle";
inline constexpr std::string_view kTemplateSyntax = "template_syntax";
// budcore's: a template or component document that does not follow its schema; a rendered
// value of the wrong type ("gpu_count": "two"); a render failure other than an undefined name
// (TypeError, ZeroDivisionError, a sandbox limit).
inline constexpr std::string_view kInvalidTemplate = "invalid_template";
inline constexpr std::string_view kInvalidComponent = "invalid_component";
inline constexpr std::string_view kInvalidValue = "invalid_value";
inline constexpr std::string_view kTemplateError = "template_error";
}  // namespace issue_code

struct ResolveOptions {
  // `usecase.name` in templates; empty: the template id.
  std::string name;
  // User overrides per instance, merged last: {"<instance id>": {"config": {...}, "env": {...},
  // "resources": {...}, "model_id": ..., "gpu_type": ..., "gpu_count": ...}}; null: none.
  core::Value overrides;
};

// An enabled instance after resolution (contract 4's "components" entry).
struct BUDCORE_API ResolvedComponent {
  std::string id;
  std::string component_ref;
  std::string component_version;
  job::DeploymentType deployment_type = job::DeploymentType::Docker;
  std::vector<std::string> depends_on;            // instance ids, in template order
  core::Value values = core::Value(core::Map{});  // default_values <- config <- overrides
  core::Value env = core::Value(core::Map{});     // name -> string
  core::Value resources = core::Value(core::Map{});
  std::optional<std::string> model_id;
  std::optional<std::string> gpu_type;
  std::int64_t gpu_count = 0;
  bool optimize_with_budsim = false;
  // What the JOB step asks for: whole milli-cores and MiB (from resources.requests, else
  // values.resources.requests, else the job defaults: 1 core, 4 GiB).
  std::int64_t cpu_millicores = 1000;
  std::int64_t memory_mib = 4096;
  std::vector<std::string> outputs;  // the component's outputs plus mapped names
  // How to deploy it, from the component: helm_repo/helm_chart/helm_version, or
  // image/image_tag/command/args, or model_engine; plus health_check_path and
  // readiness_timeout_seconds. Absent fields are left out.
  core::Value deployment = core::Value(core::Map{});

  core::Value to_value() const;  // contract 4's fields
};

struct BUDCORE_API ResolvedStack {
  std::string template_id;
  std::string template_version;
  std::string name;                                   // usecase.name
  core::Value parameters = core::Value(core::Map{});  // every declared parameter's value
  std::vector<ResolvedComponent> components;          // enabled, in template order
  std::vector<std::string> disabled;                  // condition false, in template order
  core::Value routing;                                // rendered; null when the template has none
  core::Value observability;                          // rendered
  core::Value pipeline;                               // the contract-3 document

  const ResolvedComponent* component(std::string_view id) const noexcept;
  // Contract 4's output: {"valid": true, "template", "parameters", "components", "disabled",
  // "pipeline"} plus "routing" and "observability" when the template has them.
  core::Value to_value() const;
};

struct BUDCORE_API ResolveResult {
  std::optional<ResolvedStack> stack;  // set when valid
  std::vector<Issue> errors;           // every problem, in template order
  bool valid() const noexcept { return errors.empty(); }
  // The stack's value, or {"valid": false, "errors": [{"code", "message", "path"}]}.
  core::Value to_value() const;
};

class BUDCORE_API Resolver {
 public:
  // Compiles the template's strings against the registry. Problems found here (unknown
  // components, template syntax, outputs no component declares) are reported by every
  // resolve(). The registry is not referenced after construction.
  Resolver(const UseCaseTemplate& tmpl, const ComponentRegistry& registry);
  ~Resolver();
  Resolver(Resolver&&) noexcept;
  Resolver& operator=(Resolver&&) noexcept;

  // Problems that do not depend on parameters (empty for a template that can resolve).
  const std::vector<Issue>& static_issues() const noexcept;

  // `parameters`: a map (null: none). Thread-safe.
  ResolveResult resolve(const core::Value& parameters, const ResolveOptions& options = {}) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// One-shot convenience.
BUDCORE_API ResolveResult resolve(const UseCaseTemplate& tmpl, const ComponentRegistry& registry,
                                  const core::Value& parameters, const ResolveOptions& options = {});

}  // namespace budcore::usecase
