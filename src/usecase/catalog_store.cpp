// The CatalogStore's out-of-line members: its destructor (so its vtable has one home) and the
// names of the catalog enums, as stored and shown.
#include "budcore/usecase/catalog_store.hpp"

namespace budcore::usecase {

CatalogStore::~CatalogStore() = default;

std::string_view to_string(CatalogKind k) noexcept {
  return k == CatalogKind::UsecaseTemplate ? "usecase_template" : "component";
}

std::string_view to_string(CatalogScope s) noexcept { return s == CatalogScope::System ? "system" : "user"; }

}  // namespace budcore::usecase
