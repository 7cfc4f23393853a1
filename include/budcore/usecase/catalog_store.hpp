// budcore::usecase::CatalogStore — what the component and template catalogs need of a durable
// store: immutable versions of templates and components, per tenant beside the system ones.
// Owned by usecase so that usecase depends on no backend; backend::Store implements it (every
// call scoped to a tenant, each write one unit of work, as the Store's rules say).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"

namespace budcore::usecase {

enum class CatalogKind : std::uint8_t { UsecaseTemplate, Component };
enum class CatalogScope : std::uint8_t { System, User };

BUDCORE_API std::string_view to_string(CatalogKind k) noexcept;
BUDCORE_API std::string_view to_string(CatalogScope s) noexcept;

// One immutable version of a template or component. System items belong to
// core::system_tenant().
struct CatalogItem {
  CatalogKind kind = CatalogKind::Component;
  CatalogScope scope = CatalogScope::User;
  std::string name;
  std::string version;  // free-form ("1.2.0"); unique per (owner, kind, name)
  core::Value document = core::Value(core::Map{});
  core::Timestamp created_at;
  // Since schema version 4.
  core::Id id;                    // assigned on put (v7); nil for rows written before version 4
  std::string category;           // set by the caller (from the document), for search
  std::vector<std::string> tags;  // likewise
  bool is_active = true;          // false: soft-deleted (set_catalog_item_active)
  bool is_default = false;        // the version a lookup without a version gets
  std::string source;             // where it came from ("rag/simple-rag-v1.yaml", a fork's origin)
};

// What search_catalog_items returns; every set field must match.
struct CatalogQuery {
  std::optional<std::string> name;
  std::optional<std::string> category;
  std::vector<std::string> tags;         // items carrying every one of these
  std::optional<CatalogScope> scope;
  bool include_inactive = false;         // soft-deleted items too
  bool all_versions = false;             // false: per name, the version get_catalog_item returns
};

class BUDCORE_API CatalogStore {
 public:
  virtual ~CatalogStore();
  CatalogStore() = default;
  CatalogStore(const CatalogStore&) = delete;
  CatalogStore& operator=(const CatalogStore&) = delete;

  // Runs fn as one unit of work: every call fn makes on `tx` commits when fn returns OK and
  // none does otherwise. `tx` is valid only inside fn; calls do not nest.
  virtual core::Status catalog_transact(const std::function<core::Status(CatalogStore& tx)>& fn) = 0;

  // A tenant writes User items; System items are written with tenant = core::system_tenant()
  // only. Versions are immutable (AlreadyExists on a second put). Reads see the tenant's own
  // items and the system items, soft-deleted ones excepted; an empty version means the default
  // version (is_default), else the newest. When a user item and a system item share a name,
  // get returns the user item. put assigns id and created_at; an item put with is_default
  // becomes the only default version of its name.
  virtual core::Result<CatalogItem> put_catalog_item(const core::Id& tenant, CatalogItem item) = 0;
  virtual core::Result<CatalogItem> get_catalog_item(const core::Id& tenant, CatalogKind kind,
                                                     std::string_view name,
                                                     std::string_view version = {}) = 0;
  // Every version visible to the tenant, soft-deleted ones excepted, by name then age.
  virtual core::Result<std::vector<CatalogItem>> list_catalog_items(const core::Id& tenant,
                                                                    CatalogKind kind) = 0;
  // Items visible to the tenant matching the query, by name (then as get would rank them).
  virtual core::Result<std::vector<CatalogItem>> search_catalog_items(const core::Id& tenant, CatalogKind kind,
                                                                      const CatalogQuery& query) = 0;
  // Makes `version` of the tenant's own item `name` its default; NotFound when the tenant has
  // no such version (a system item's default is the system tenant's to set).
  virtual core::Result<CatalogItem> set_default_catalog_version(const core::Id& tenant, CatalogKind kind,
                                                                std::string_view name,
                                                                std::string_view version) = 0;
  // Soft delete (false) or restore (true) every version of the tenant's own item `name`;
  // NotFound when the tenant has none, Invalid for a system item asked by a tenant.
  virtual core::Status set_catalog_item_active(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                               bool active) = 0;
};

}  // namespace budcore::usecase
