// The component registry and the use-case templates kept in a CatalogStore (a backend::Store,
// SQLite or PostgreSQL): versioned components, and templates shipped with the system beside
// each tenant's own.
//
// - ComponentCatalog: create, update (a new default version), versions with a default, soft
//   delete / restore, search by category and tags, and the registry a Resolver reads.
// - TemplateCatalog: a tenant's user templates (create, update, versions, fork of a system
//   template into the tenant, soft delete) and the templates the tenant sees.
// - sync_system_catalog: the startup load of the system files: a new id is
//   inserted, the same version is skipped, another version is stored and made the default.
//
// Every write validates first (the schema; for templates also the checks a Resolver makes
// without parameters, against the components the tenant sees) and writes nothing when
// invalid. A catalog object is a view: the tenant's own items plus the system items; the
// system tenant (core::system_tenant()) writes the system ones. Thread-safety: as the CatalogStore.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/tenant.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/usecase/catalog_store.hpp"
#include "budcore/usecase/component.hpp"
#include "budcore/usecase/registry.hpp"
#include "budcore/usecase/resolver.hpp"
#include "budcore/usecase/usecase_template.hpp"

namespace budcore::usecase {

struct ComponentSearch {
  std::optional<ComponentCategory> category;
  std::vector<std::string> tags;  // every one of them
  bool include_inactive = false;
};

class BUDCORE_API ComponentCatalog {
 public:
  ComponentCatalog(CatalogStore& store, core::Id tenant) : store_(store), tenant_(tenant) {}

  // The first version of a new component (AlreadyExists when the tenant has this id).
  core::Result<ComponentVersion> create(const ComponentDefinition& component);
  // A new version that becomes the default (NotFound for an id the tenant does not have).
  core::Result<ComponentVersion> update(const ComponentDefinition& component);
  // A new version, made the default only when asked.
  core::Result<ComponentVersion> add_version(const ComponentDefinition& component, bool make_default = false);
  core::Result<ComponentVersion> set_default_version(std::string_view id, std::string_view version);
  // Soft delete (is_active = false) and its undo.
  core::Status remove(std::string_view id);
  core::Status restore(std::string_view id);

  // The default version (else the newest), or the one named.
  core::Result<ComponentDefinition> get(std::string_view id, std::string_view version = {});
  core::Result<std::vector<ComponentVersion>> versions(std::string_view id);
  // Per id the version get() returns; by id.
  core::Result<std::vector<ComponentDefinition>> search(const ComponentSearch& query = {});
  // Every active component the tenant sees, at its default version.
  core::Result<ComponentRegistry> registry();

 private:
  core::Result<ComponentVersion> put(const ComponentDefinition& component, bool make_default);
  CatalogStore& store_;
  core::Id tenant_;
};

// A stored template version.
struct BUDCORE_API TemplateRecord {
  UseCaseTemplate tmpl;
  core::Id id;  // of this stored version
  bool is_system = false;
  bool is_default = false;
  bool is_active = true;
  std::string source_file;  // system templates: the file it was loaded from
  std::string forked_from;  // forks: "<id>@<version>" of the template copied
  core::Timestamp created_at;

  // {"id", "is_system", "is_default", "is_active", "source_file", "forked_from", "created_at",
  //  "template": {...}}
  core::Value to_value() const;
};

struct TemplateSearch {
  std::optional<std::string> category;
  std::vector<std::string> tags;
  bool include_inactive = false;
  bool system_only = false;
  bool user_only = false;
};

class BUDCORE_API TemplateCatalog {
 public:
  TemplateCatalog(CatalogStore& store, core::Id tenant) : store_(store), tenant_(tenant) {}

  // A user template (AlreadyExists when the tenant has this id; a system template of the same
  // id is shadowed for this tenant). Invalid naming the first problem when it does not
  // validate against the components the tenant sees.
  core::Result<TemplateRecord> create(const UseCaseTemplate& tmpl);
  core::Result<TemplateRecord> update(const UseCaseTemplate& tmpl);
  core::Result<TemplateRecord> add_version(const UseCaseTemplate& tmpl, bool make_default = false);
  // Copies the template `source_id` the tenant sees (a system one, or its own) into the
  // tenant as `new_id` (empty: the same id, shadowing the original for this tenant).
  core::Result<TemplateRecord> fork(std::string_view source_id, std::string_view new_id = {},
                                    std::string_view source_version = {});
  core::Result<TemplateRecord> set_default_version(std::string_view id, std::string_view version);
  core::Status remove(std::string_view id);
  core::Status restore(std::string_view id);

  core::Result<TemplateRecord> get(std::string_view id, std::string_view version = {});
  core::Result<std::vector<TemplateRecord>> versions(std::string_view id);
  core::Result<std::vector<TemplateRecord>> search(const TemplateSearch& query = {});

  // Resolves the template `id` against the components the tenant sees.
  core::Result<ResolveResult> resolve(std::string_view id, const core::Value& parameters,
                                      const ResolveOptions& options = {}, std::string_view version = {});

 private:
  core::Result<TemplateRecord> put(const UseCaseTemplate& tmpl, bool make_default, std::string source);
  CatalogStore& store_;
  core::Id tenant_;
};

// Every problem of a template that does not depend on parameter values (a Resolver's
// static_issues), with a schema round trip first: [] when the template can be stored.
BUDCORE_API std::vector<Issue> validate_template(const UseCaseTemplate& tmpl, const ComponentRegistry& components);

struct BUDCORE_API SyncReport {
  std::vector<std::string> inserted;  // "component qdrant@1.0.0", "template simple-rag-v1@1.0.0"
  std::vector<std::string> updated;
  std::vector<std::string> unchanged;
  core::Value to_value() const;
};

// Loads the system components and templates into the store in one unit of work (the
// startup rule per item: new id -> insert; same version -> skip; another version -> store it (or
// reuse it when stored before) and make it the default). Templates are validated against
// `components` first; on any problem nothing is written.
BUDCORE_API core::Result<SyncReport> sync_system_catalog(CatalogStore& store, const ComponentRegistry& components,
                                                         const std::vector<TemplateFile>& templates);

}  // namespace budcore::usecase
