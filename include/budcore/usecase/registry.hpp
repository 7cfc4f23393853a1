// Component registries and template sets in memory, read from files or from what ships with
// budcore.
//
// Files: YAML or JSON (*.yaml and *.yml are YAML; other files are JSON when the text starts
// with '{' or '[', YAML otherwise). A component file holds one component or a list of them; a
// template file holds one template. A directory is read recursively (*.yaml, *.yml, *.json,
// in path order). Bounds: kMaxFileBytes per file, kMaxFiles per directory walk; errors name
// the file and the path inside it ("components/qdrant.yaml: outputs[1]: ...").
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/usecase/component.hpp"
#include "budcore/usecase/usecase_template.hpp"

namespace budcore::usecase {

inline constexpr std::size_t kMaxFileBytes = 8u << 20;
inline constexpr std::size_t kMaxFiles = 10'000;

// Components by id. Thread-safety: const methods may run concurrently.
class BUDCORE_API ComponentRegistry {
 public:
  // Adds a component; AlreadyExists (field "id") when its id is taken.
  core::Status add(ComponentDefinition component);
  // Adds or replaces.
  void put(ComponentDefinition component);
  const ComponentDefinition* find(std::string_view id) const noexcept;
  std::size_t size() const noexcept { return by_id_.size(); }
  // In id order.
  std::vector<const ComponentDefinition*> all() const;

  // One component (a map) or a list of them; errors name "[i].field" for lists.
  core::Status add_document(const core::Value& document);

 private:
  std::map<std::string, ComponentDefinition, std::less<>> by_id_;
};

// A template with the file it came from ("rag/simple-rag-v1.yaml", relative to the directory
// read; empty when it came from elsewhere).
struct TemplateFile {
  UseCaseTemplate tmpl;
  std::string source_file;
};

// Components and templates together (what the C ABI and Python hand around). Thread-safety:
// const methods may run concurrently.
struct BUDCORE_API UsecaseRegistry {
  ComponentRegistry components;
  std::vector<TemplateFile> templates;  // in the order added; ids distinct

  // The system components and templates that ship with budcore.
  static UsecaseRegistry builtin();
  const UseCaseTemplate* find_template(std::string_view id) const noexcept;
  // Adds, or replaces the template of the same id.
  void put_template(TemplateFile file);
  // Component files under `components_path`, then template files under `templates_path`
  // (either empty: none); all or nothing.
  core::Status load(const std::string& components_path, const std::string& templates_path);
};

// What `usecase list` shows of a template: {"id", "name", "version", "category", "complexity",
// "description", "tags", "parameters": [names], "components": [instance ids], "source_file"}.
BUDCORE_API core::Value template_summary(const TemplateFile& file);

// Reads a file or a directory of component files into `registry` (all or nothing: on error
// the registry is unchanged). Duplicate ids across files are AlreadyExists naming both files.
BUDCORE_API core::Status load_components(const std::string& path, ComponentRegistry& registry);

// One template file ("-": standard input).
BUDCORE_API core::Result<UseCaseTemplate> load_template_file(const std::string& path);
// Every template under a directory (or the one file `path` names), in path order; duplicate
// template ids are AlreadyExists naming both files.
BUDCORE_API core::Result<std::vector<TemplateFile>> load_templates(const std::string& path);

// A YAML/JSON text of at most kMaxFileBytes, parsed.
BUDCORE_API core::Result<core::Value> parse_usecase_document(std::string_view text);
// A YAML/JSON file of at most kMaxFileBytes ("-": standard input), parsed; errors name the file.
BUDCORE_API core::Result<core::Value> load_usecase_document(const std::string& path);

// What ships with budcore (the files under examples/usecases/, built into the library): the
// system components and the system templates (simple-rag-v1, enterprise-rag-v1,
// simple-chatbot-v1, chatbot-memory-v1, simple-agent-v1). Parsed once; thread-safe.
BUDCORE_API const ComponentRegistry& builtin_components();
BUDCORE_API const std::vector<TemplateFile>& builtin_templates();
// A shipped template by id, or nullptr.
BUDCORE_API const UseCaseTemplate* builtin_template(std::string_view id);

}  // namespace budcore::usecase
