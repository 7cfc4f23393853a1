// SqlStore: the catalog (use-case templates and components, versions and defaults) and quota
// configurations.
#include "backends/sql_store_impl.hpp"

namespace budcore::backends::sql {

Result<CatalogItem> SqlStore::put_catalog_item(const core::Id& tenant, CatalogItem item) {
  if (item.scope == CatalogScope::System && !tenant.is_nil()) {
    return Error::invalid("scope", "system", "system items are written by the system tenant only");
  }
  if (item.scope == CatalogScope::User && tenant.is_nil()) {
    return Error::invalid("scope", "user", "user items belong to a tenant, not the system tenant");
  }
  BUDCORE_TRY(check_key("name", item.name));
  BUDCORE_TRY(check_key("version", item.version));
  if (item.category.size() > kMaxKeyLength) return Error::invalid("category", item.category.substr(0, 32), "is too long");
  item.created_at = s_->clock->now();
  item.id = core::Id::generate(*s_->clock);
  return write([&]() -> Result<CatalogItem> {
    const std::string_view kind = backend::to_string(item.kind);
    std::string tid = tenant.to_string(), id = item.id.to_string(), doc = core::to_json(item.document);
    std::string tags = core::to_json(Value(core::List(item.tags.begin(), item.tags.end())));
    if (item.is_default) {
      SqlParam c[] = {tid, kind, std::string_view(item.name)};
      BUDCORE_TRY(db().execute("UPDATE catalog_items SET is_default = 0 WHERE tenant_id = ? AND kind = ? AND name = ?", c));
    }
    SqlParam p[] = {tid, kind, std::string_view(item.name), std::string_view(item.version), backend::to_string(item.scope),
                    doc, item.created_at.unix_nanos(), id, std::string_view(item.category), tags,
                    std::int64_t{item.is_active}, std::int64_t{item.is_default}, std::string_view(item.source)};
    auto rows = db().execute("INSERT INTO catalog_items (tenant_id, kind, name, version, scope, doc, created_ns, id, "
                             "category, tags, is_active, is_default, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             p);
    if (!rows) {
      return already_exists(rows.error(),
                            std::string(catalog_noun(item.kind)) + " " + item.name + "@" + item.version +
                                " already exists (versions are immutable)",
                            "version");
    }
    return std::move(item);
  });
}

Result<CatalogItem> SqlStore::get_catalog_item(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                     std::string_view version) {
  Query q;
  q.sql(kCatalogColumns);
  q.where("tenant_id IN (?, ?)").bind(tenant.to_string()).bind(backend::system_tenant().to_string());
  q.where("kind = ?").bind(std::string(backend::to_string(kind)));
  q.where("name = ?").bind(std::string(name));
  if (!version.empty()) q.where("version = ?").bind(std::string(version));
  q.where("is_active = 1");
  // The tenant's own item shadows a system item of the same name; then the default version,
  // then the newest.
  q.sql(" ORDER BY (tenant_id = ?) DESC, is_default DESC, seq DESC LIMIT 1").bind(tenant.to_string());
  return read([&]() -> Result<CatalogItem> {
    std::optional<CatalogItem> found;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      BUDCORE_TRY_ASSIGN(auto item, catalog_from_row(row, kind));
      found = std::move(item);
      return {};
    }));
    if (!found) {
      std::string what = std::string(name) + (version.empty() ? "" : "@" + std::string(version));
      return Error::make(ErrorCode::NotFound, std::string(catalog_noun(kind)) + " " + what + " not found", "name");
    }
    return std::move(*found);
  });
}

Result<std::vector<CatalogItem>> SqlStore::list_catalog_items(const core::Id& tenant, CatalogKind kind) {
  return search_catalog_items(tenant, kind, backend::CatalogQuery{.all_versions = true});
}

Result<std::vector<CatalogItem>> SqlStore::search_catalog_items(const core::Id& tenant, CatalogKind kind,
                                                      const backend::CatalogQuery& query) {
  Query q;
  q.sql(kCatalogColumns);
  q.where("tenant_id IN (?, ?)").bind(tenant.to_string()).bind(backend::system_tenant().to_string());
  q.where("kind = ?").bind(std::string(backend::to_string(kind)));
  if (query.name) q.where("name = ?").bind(*query.name);
  if (!query.include_inactive) q.where("is_active = 1");
  // All versions: by name, then age (the list order). Otherwise the first row of each name is
  // the one get_catalog_item returns.
  if (query.all_versions) {
    q.sql(" ORDER BY name, seq");
  } else {
    q.sql(" ORDER BY name, is_active DESC, (tenant_id = ?) DESC, is_default DESC, seq DESC").bind(tenant.to_string());
  }
  return read([&]() -> Result<std::vector<CatalogItem>> {
    std::vector<CatalogItem> out;
    BUDCORE_TRY(db().query(q.text(), q.params(), [&](const SqlRow& row) -> Status {
      if (!query.all_versions && !out.empty() && out.back().name == row.text(1)) return {};
      BUDCORE_TRY_ASSIGN(auto item, catalog_from_row(row, kind));
      out.push_back(std::move(item));
      return {};
    }));
    // Category, tags and scope are matched on the chosen version, so a name is found by what
    // its default version says, not by an older version's tags.
    std::erase_if(out, [&](const CatalogItem& item) {
      if (query.category && item.category != *query.category) return true;
      if (query.scope && item.scope != *query.scope) return true;
      return !std::all_of(query.tags.begin(), query.tags.end(), [&](const std::string& t) {
        return std::find(item.tags.begin(), item.tags.end(), t) != item.tags.end();
      });
    });
    return out;
  });
}

Result<CatalogItem> SqlStore::set_default_catalog_version(const core::Id& tenant, CatalogKind kind, std::string_view name,
                                                std::string_view version) {
  return write([&]() -> Result<CatalogItem> {
    const std::string_view kind_key = backend::to_string(kind);
    std::string tid = tenant.to_string();
    std::optional<CatalogItem> found;
    SqlParam k[] = {tid, kind_key, name, version};
    BUDCORE_TRY(db().query(std::string(kCatalogColumns) + " WHERE tenant_id = ? AND kind = ? AND name = ? AND version = ?",
                           k, [&](const SqlRow& row) -> Status {
                             BUDCORE_TRY_ASSIGN(auto item, catalog_from_row(row, kind));
                             found = std::move(item);
                             return {};
                           }));
    if (!found) {
      return Error::make(ErrorCode::NotFound,
                         std::string(catalog_noun(kind)) + " " + std::string(name) + "@" + std::string(version) +
                             " is not one of this tenant's items",
                         "version");
    }
    SqlParam p[] = {version, tid, kind_key, name};
    BUDCORE_TRY(db().execute("UPDATE catalog_items SET is_default = CASE WHEN version = ? THEN 1 ELSE 0 END "
                             "WHERE tenant_id = ? AND kind = ? AND name = ?",
                             p));
    found->is_default = true;
    return std::move(*found);
  });
}

Status SqlStore::set_catalog_item_active(const core::Id& tenant, CatalogKind kind, std::string_view name,
                               bool active) {
  return write([&]() -> Status {
    const std::string_view kind_key = backend::to_string(kind);
    std::string tid = tenant.to_string();
    SqlParam p[] = {std::int64_t{active}, tid, kind_key, name};
    BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE catalog_items SET is_active = ? WHERE tenant_id = ? AND kind = ? "
                                               "AND name = ?",
                                               p));
    if (rows > 0) return {};
    std::string sys = backend::system_tenant().to_string();
    SqlParam s[] = {sys, kind_key, name};
    bool system_item = false;
    BUDCORE_TRY(db().query("SELECT 1 FROM catalog_items WHERE tenant_id = ? AND kind = ? AND name = ?", s,
                           [&](const SqlRow&) -> Status {
                             system_item = true;
                             return {};
                           }));
    std::string what = std::string(catalog_noun(kind)) + " " + std::string(name);
    if (system_item && !tenant.is_nil()) {
      return Error::invalid("name", std::string(name), what + " is a system item, which only the system tenant changes");
    }
    return Error::make(ErrorCode::NotFound, what + " not found", "name");
  });
}

Result<QuotaConfigRecord> SqlStore::put_quota_config(const core::Id& tenant, std::string_view name, core::Value document,
                                           std::optional<std::int64_t> expected_version) {
  BUDCORE_TRY(check_tenant(tenant));
  BUDCORE_TRY(check_key("name", name));
  return write([&]() -> Result<QuotaConfigRecord> {
    std::string tid = tenant.to_string(), doc = core::to_json(document);
    std::int64_t now = s_->clock->now().unix_nanos();
    const std::string what = "quota configuration " + std::string(name);
    if (!expected_version) {
      SqlParam p[] = {tid, name, doc, now};
      BUDCORE_TRY(db().execute("INSERT INTO quota_configs (tenant_id, name, doc, version, updated_ns) "
                               "VALUES (?, ?, ?, 1, ?) ON CONFLICT (tenant_id, name) DO UPDATE SET "
                               "doc = excluded.doc, version = quota_configs.version + 1, "
                               "updated_ns = excluded.updated_ns",
                               p));
    } else if (*expected_version == 0) {
      SqlParam p[] = {tid, name, doc, now};
      auto rows = db().execute(
          "INSERT INTO quota_configs (tenant_id, name, doc, version, updated_ns) VALUES (?, ?, ?, 1, ?)", p);
      if (!rows) {
        if (rows.error().code == ErrorCode::AlreadyExists) return lost_race(what + " (it exists already)");
        return std::move(rows).error();
      }
    } else {
      SqlParam p[] = {doc, now, tid, name, *expected_version};
      BUDCORE_TRY_ASSIGN(auto rows, db().execute("UPDATE quota_configs SET doc = ?, version = version + 1, "
                                                 "updated_ns = ? WHERE tenant_id = ? AND name = ? AND version = ?",
                                                 p));
      if (rows != 1) {
        BUDCORE_TRY(load_quota(tenant, name));
        return lost_race(what);
      }
    }
    return load_quota(tenant, name);
  });
}

Result<QuotaConfigRecord> SqlStore::get_quota_config(const core::Id& tenant, std::string_view name) {
  return read([&] { return load_quota(tenant, name); });
}

Result<std::vector<QuotaConfigRecord>> SqlStore::list_quota_configs(const core::Id& tenant) {
  return read([&]() -> Result<std::vector<QuotaConfigRecord>> {
    std::string tid = tenant.to_string();
    SqlParam p[] = {tid};
    std::vector<QuotaConfigRecord> out;
    BUDCORE_TRY(db().query("SELECT name, doc, version, updated_ns FROM quota_configs WHERE tenant_id = ? "
                           "ORDER BY name",
                           p, [&](const SqlRow& row) -> Status {
                             BUDCORE_TRY_ASSIGN(auto q, quota_from_row(row));
                             out.push_back(std::move(q));
                             return {};
                           }));
    return out;
  });
}

}  // namespace budcore::backends::sql
