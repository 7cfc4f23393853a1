// The Resolver's internals: what construction prepares (merged bases, compiled templates,
// the context of each instance) and what resolve() reads.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "budcore/templates/template.hpp"
#include "budcore/usecase/resolver.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::usecase {

namespace detail {

// A compiled template string and the context paths it reads.
struct Compiled {
  templates::Template tmpl;
  std::vector<std::string> refs;
};

void add_issue(std::vector<Issue>& issues, std::string_view code, std::string message, std::string path);

// The first dotted segment of `path`; *rest (when given) gets what follows it
// ("a.b.c" -> "a", "b.c").
std::string_view path_head(std::string_view path, std::string_view* rest);

// Maps merge key by key, recursively; lists and scalars replace; an explicit null in
// `overlay` deletes the key (Helm's rules).
core::Value deep_merge(const core::Value& base, const core::Value& overlay);

// "{{ steps.<id>.outputs.<name> }}": what a reference to an instance's output renders to.
std::string output_marker(std::string_view id, std::string_view output);

// The instance ids of every output marker in `text`, appended to `ids`. Returns false when the
// text holds any other template marker ({{, {%, {#), which the pipeline engine would evaluate.
bool scan_markers(std::string_view text, std::vector<std::string>& ids, std::string& bad);

// How a component is deployed (ResolvedComponent::deployment).
core::Value deployment_value(const ComponentDefinition& def);

// The contract-3 document deploying a resolved stack: one JOB step per component.
core::Value pipeline_document(const ResolvedStack& stack);

}  // namespace detail

struct BUDCORE_HIDDEN Resolver::Impl {
  struct Instance {
    const TemplateComponent* tc = nullptr;   // into tmpl
    std::optional<ComponentDefinition> def;  // nullopt: unknown component_ref
    core::Value values;                      // default_values <- config (unrendered)
    core::Value env;                         // default_env <- env
    core::Value resources;                   // default_resources <- resources
    core::Value context;                     // components.<id> when enabled: {"outputs", "enabled", <outputs>...}
    std::vector<std::string> outputs;        // the component's outputs, then mapped names
    core::Value deployment;                  // deployment_value(*def), shared by every resolution
    std::map<std::string, std::string, std::less<>> output_source;  // any output name -> component output
  };

  UseCaseTemplate tmpl;
  std::vector<Instance> instances;
  std::map<std::string, std::size_t, std::less<>> instance_index;
  std::map<std::string, std::size_t, std::less<>> parameter_index;
  std::unordered_map<std::string, detail::Compiled> compiled;  // by text
  // The same, by the address of a template string inside this Impl's own Values (tmpl and the
  // instances' merged bases, immutable after construction): cheaper than hashing the text.
  std::unordered_map<const std::string*, const detail::Compiled*> compiled_at;
  std::vector<Issue> static_issues;

  explicit Impl(const UseCaseTemplate& t, const ComponentRegistry& registry);

  // Compiles `text` (once) and checks what it reads. `in_condition`: conditions may read
  // parameters and usecase only. Issues go to `issues`; nullptr when it does not compile.
  const detail::Compiled* prepare(const std::string& text, const std::string& path, bool in_condition,
                                  std::vector<Issue>& issues);
  // Same for every template string inside `v`.
  void prepare_all(const core::Value& v, const std::string& path, bool in_condition, std::vector<Issue>& issues);
  // Checks the paths a template reads against the template's parameters and instances.
  void check_references(const std::vector<std::string>& refs, const std::string& path, bool in_condition,
                        std::vector<Issue>& issues) const;
  // The instance a "components.<id>..." path names, or nullptr.
  const Instance* referenced_instance(std::string_view path, std::string_view* rest) const;

  ResolveResult resolve(const core::Value& parameters, const ResolveOptions& options) const;
};

}  // namespace budcore::usecase

#pragma GCC visibility pop
