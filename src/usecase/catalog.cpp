// ComponentCatalog, TemplateCatalog and the startup sync, over a CatalogStore's items.
#include "budcore/usecase/catalog.hpp"

#include <algorithm>

namespace budcore::usecase {
namespace {

using core::Error;
using core::ErrorCode;
using core::Value;

constexpr std::string_view kFilePrefix = "file:", kForkPrefix = "fork:";

CatalogScope scope_of(const core::Id& tenant) { return tenant.is_nil() ? CatalogScope::System : CatalogScope::User; }

// A definition as its document would load: what a caller built in code gets the same checks.
core::Result<ComponentDefinition> checked(const ComponentDefinition& c) {
  return ComponentDefinition::from_value(c.to_value());
}

CatalogItem component_item(const core::Id& tenant, const ComponentDefinition& c, bool make_default) {
  CatalogItem item;
  item.kind = CatalogKind::Component;
  item.scope = scope_of(tenant);
  item.name = c.id;
  item.version = c.version;
  item.document = c.to_value();
  item.category = std::string(to_string(c.category));
  item.tags = c.tags;
  item.is_active = c.is_active;
  item.is_default = make_default;
  return item;
}

ComponentVersion version_of(const CatalogItem& item) {
  return ComponentVersion{item.id, item.name, item.version, item.document, item.created_at, item.is_default};
}

// A stored document that no longer loads is damage, not the caller's input.
Error damaged(const CatalogItem& item, Error e) {
  e.code = ErrorCode::Io;
  e.message = "stored " + std::string(item.kind == CatalogKind::Component ? "component " : "template ") + item.name +
              "@" + item.version + " does not load: " + e.message;
  return e;
}

core::Result<ComponentDefinition> definition_of(const CatalogItem& item) {
  auto c = ComponentDefinition::from_value(item.document);
  if (!c) return damaged(item, std::move(c).error());
  c->is_active = item.is_active;
  return c;
}

core::Result<TemplateRecord> record_of(const CatalogItem& item) {
  auto t = UseCaseTemplate::from_value(item.document);
  if (!t) return damaged(item, std::move(t).error());
  TemplateRecord r;
  r.tmpl = std::move(*t);
  r.tmpl.is_active = item.is_active;
  r.id = item.id;
  r.is_system = item.scope == CatalogScope::System;
  r.is_default = item.is_default;
  r.is_active = item.is_active;
  r.created_at = item.created_at;
  std::string_view src = item.source;
  if (src.substr(0, kFilePrefix.size()) == kFilePrefix) r.source_file = src.substr(kFilePrefix.size());
  if (src.substr(0, kForkPrefix.size()) == kForkPrefix) r.forked_from = src.substr(kForkPrefix.size());
  return r;
}

// The first problem as an error: Invalid, the issue's path as field, "<code>: <message>".
Error first_issue(const std::vector<Issue>& issues) {
  std::string msg = issues.front().code + ": " + issues.front().message;
  if (issues.size() > 1) msg += " (and " + std::to_string(issues.size() - 1) + " more problems)";
  return Error::invalid(issues.front().path, {}, std::move(msg));
}

CatalogItem template_item(const core::Id& tenant, const UseCaseTemplate& t, bool make_default, std::string source) {
  CatalogItem item;
  item.kind = CatalogKind::UsecaseTemplate;
  item.scope = scope_of(tenant);
  item.name = t.id;
  item.version = t.version;
  item.document = t.to_value();
  item.category = t.category;
  item.tags = t.tags;
  item.is_active = t.is_active;
  item.is_default = make_default;
  item.source = std::move(source);
  return item;
}

// Does the tenant itself (not the system) have an item of this name, deleted or not?
core::Result<bool> owns(CatalogStore& store, const core::Id& tenant, CatalogKind kind, std::string_view name) {
  CatalogQuery q;
  q.name = std::string(name);
  q.scope = scope_of(tenant);
  q.include_inactive = true;
  BUDCORE_TRY_ASSIGN(auto items, store.search_catalog_items(tenant, kind, q));
  return !items.empty();
}

core::Status require_new(CatalogStore& store, const core::Id& tenant, CatalogKind kind, const std::string& name) {
  BUDCORE_TRY_ASSIGN(bool exists, owns(store, tenant, kind, name));
  if (exists) {
    return Error{ErrorCode::AlreadyExists,
                 std::string(kind == CatalogKind::Component ? "component " : "template ") + name +
                     " already exists; update it or add a version",
                 "id", name};
  }
  return {};
}

core::Status require_existing(CatalogStore& store, const core::Id& tenant, CatalogKind kind,
                              const std::string& name) {
  BUDCORE_TRY_ASSIGN(bool exists, owns(store, tenant, kind, name));
  if (!exists) {
    return Error{ErrorCode::NotFound,
                 std::string(kind == CatalogKind::Component ? "component " : "template ") + name +
                     " does not exist for this tenant; create it first",
                 "id", name};
  }
  return {};
}

// Every stored version of `name` the tenant sees: its own when it has any (they shadow the
// system's), else the system's; NotFound when there are none.
core::Result<std::vector<CatalogItem>> visible_versions(CatalogStore& store, const core::Id& tenant, CatalogKind kind,
                                                        std::string_view name) {
  CatalogQuery q;
  q.name = std::string(name);
  q.all_versions = true;
  q.include_inactive = true;
  BUDCORE_TRY_ASSIGN(auto items, store.search_catalog_items(tenant, kind, q));
  bool own =
      std::any_of(items.begin(), items.end(), [](const CatalogItem& i) { return i.scope == CatalogScope::User; });
  if (own) std::erase_if(items, [](const CatalogItem& i) { return i.scope != CatalogScope::User; });
  if (items.empty()) {
    return Error{
        ErrorCode::NotFound,
        std::string(kind == CatalogKind::Component ? "component " : "template ") + std::string(name) + " not found",
        "id", std::string(name)};
  }
  return items;
}

// The startup rule for one system item, inside the sync's unit of work.
core::Status sync_item(CatalogStore& tx, CatalogItem item, SyncReport& report) {
  const std::string what =
      std::string(item.kind == CatalogKind::Component ? "component " : "template ") + item.name + "@" + item.version;
  CatalogQuery q;
  q.name = item.name;
  q.scope = CatalogScope::System;
  q.include_inactive = true;
  q.all_versions = true;
  BUDCORE_TRY_ASSIGN(auto stored, tx.search_catalog_items(core::system_tenant(), item.kind, q));
  if (stored.empty()) {
    item.is_default = true;
    BUDCORE_TRY(tx.put_catalog_item(core::system_tenant(), std::move(item)));
    report.inserted.push_back(what);
    return {};
  }
  BUDCORE_TRY_ASSIGN(auto current, tx.get_catalog_item(core::system_tenant(), item.kind, item.name));
  if (current.version == item.version) {
    report.unchanged.push_back(what);
    return {};
  }
  bool seen =
      std::any_of(stored.begin(), stored.end(), [&](const CatalogItem& s) { return s.version == item.version; });
  if (seen) {
    // A version stored before (a revert): make it the default again.
    BUDCORE_TRY(tx.set_default_catalog_version(core::system_tenant(), item.kind, item.name, item.version));
  } else {
    item.is_default = true;
    BUDCORE_TRY(tx.put_catalog_item(core::system_tenant(), std::move(item)));
  }
  report.updated.push_back(what);
  return {};
}

}  // namespace

// ---- components ------------------------------------------------------------------------------

core::Result<ComponentVersion> ComponentCatalog::put(const ComponentDefinition& component, bool make_default) {
  BUDCORE_TRY_ASSIGN(auto c, checked(component));
  BUDCORE_TRY_ASSIGN(auto item, store_.put_catalog_item(tenant_, component_item(tenant_, c, make_default)));
  return version_of(item);
}

core::Result<ComponentVersion> ComponentCatalog::create(const ComponentDefinition& component) {
  BUDCORE_TRY(checked(component));
  BUDCORE_TRY(require_new(store_, tenant_, CatalogKind::Component, component.id));
  return put(component, true);
}

core::Result<ComponentVersion> ComponentCatalog::update(const ComponentDefinition& component) {
  BUDCORE_TRY(checked(component));
  BUDCORE_TRY(require_existing(store_, tenant_, CatalogKind::Component, component.id));
  return put(component, true);
}

core::Result<ComponentVersion> ComponentCatalog::add_version(const ComponentDefinition& component, bool make_default) {
  BUDCORE_TRY(checked(component));
  BUDCORE_TRY(require_existing(store_, tenant_, CatalogKind::Component, component.id));
  return put(component, make_default);
}

core::Result<ComponentVersion> ComponentCatalog::set_default_version(std::string_view id, std::string_view version) {
  BUDCORE_TRY_ASSIGN(auto item, store_.set_default_catalog_version(tenant_, CatalogKind::Component, id, version));
  return version_of(item);
}

core::Status ComponentCatalog::remove(std::string_view id) {
  return store_.set_catalog_item_active(tenant_, CatalogKind::Component, id, false);
}

core::Status ComponentCatalog::restore(std::string_view id) {
  return store_.set_catalog_item_active(tenant_, CatalogKind::Component, id, true);
}

core::Result<ComponentDefinition> ComponentCatalog::get(std::string_view id, std::string_view version) {
  BUDCORE_TRY_ASSIGN(auto item, store_.get_catalog_item(tenant_, CatalogKind::Component, id, version));
  return definition_of(item);
}

core::Result<std::vector<ComponentVersion>> ComponentCatalog::versions(std::string_view id) {
  BUDCORE_TRY_ASSIGN(auto items, visible_versions(store_, tenant_, CatalogKind::Component, id));
  std::vector<ComponentVersion> out;
  out.reserve(items.size());
  for (const auto& i : items) out.push_back(version_of(i));
  return out;
}

core::Result<std::vector<ComponentDefinition>> ComponentCatalog::search(const ComponentSearch& query) {
  CatalogQuery q;
  if (query.category) q.category = std::string(to_string(*query.category));
  q.tags = query.tags;
  q.include_inactive = query.include_inactive;
  BUDCORE_TRY_ASSIGN(auto items, store_.search_catalog_items(tenant_, CatalogKind::Component, q));
  std::vector<ComponentDefinition> out;
  out.reserve(items.size());
  for (const auto& i : items) {
    BUDCORE_TRY_ASSIGN(auto c, definition_of(i));
    out.push_back(std::move(c));
  }
  return out;
}

core::Result<ComponentRegistry> ComponentCatalog::registry() {
  BUDCORE_TRY_ASSIGN(auto all, search());
  ComponentRegistry r;
  for (auto& c : all) r.put(std::move(c));
  return r;
}

// ---- templates -------------------------------------------------------------------------------

std::vector<Issue> validate_template(const UseCaseTemplate& tmpl, const ComponentRegistry& components) {
  auto again = UseCaseTemplate::from_value(tmpl.to_value());
  if (!again) {
    return {Issue{std::string(issue_code::kInvalidTemplate), again.error().message, again.error().field}};
  }
  return Resolver(*again, components).static_issues();
}

core::Value TemplateRecord::to_value() const {
  core::Map m;
  m.set("id", id.is_nil() ? Value() : Value(id.to_string()));
  m.set("is_system", Value(is_system));
  m.set("is_default", Value(is_default));
  m.set("is_active", Value(is_active));
  m.set("source_file", source_file.empty() ? Value() : Value(source_file));
  m.set("forked_from", forked_from.empty() ? Value() : Value(forked_from));
  m.set("created_at", Value(created_at.to_string()));
  m.set("template", tmpl.to_value());
  return Value(std::move(m));
}

core::Result<TemplateRecord> TemplateCatalog::put(const UseCaseTemplate& tmpl, bool make_default, std::string source) {
  BUDCORE_TRY_ASSIGN(auto components, ComponentCatalog(store_, tenant_).registry());
  auto issues = validate_template(tmpl, components);
  if (!issues.empty()) return first_issue(issues);
  BUDCORE_TRY_ASSIGN(auto item,
                     store_.put_catalog_item(tenant_, template_item(tenant_, tmpl, make_default, std::move(source))));
  return record_of(item);
}

core::Result<TemplateRecord> TemplateCatalog::create(const UseCaseTemplate& tmpl) {
  BUDCORE_TRY(require_new(store_, tenant_, CatalogKind::UsecaseTemplate, tmpl.id));
  return put(tmpl, true, {});
}

core::Result<TemplateRecord> TemplateCatalog::update(const UseCaseTemplate& tmpl) {
  BUDCORE_TRY(require_existing(store_, tenant_, CatalogKind::UsecaseTemplate, tmpl.id));
  return put(tmpl, true, {});
}

core::Result<TemplateRecord> TemplateCatalog::add_version(const UseCaseTemplate& tmpl, bool make_default) {
  BUDCORE_TRY(require_existing(store_, tenant_, CatalogKind::UsecaseTemplate, tmpl.id));
  return put(tmpl, make_default, {});
}

core::Result<TemplateRecord> TemplateCatalog::fork(std::string_view source_id, std::string_view new_id,
                                                   std::string_view source_version) {
  if (tenant_.is_nil()) return Error::invalid("tenant", {}, "forks belong to a tenant, not the system tenant");
  BUDCORE_TRY_ASSIGN(auto original, get(source_id, source_version));
  UseCaseTemplate copy = original.tmpl;
  if (!new_id.empty()) copy.id = std::string(new_id);
  BUDCORE_TRY(require_new(store_, tenant_, CatalogKind::UsecaseTemplate, copy.id));
  return put(copy, true, std::string(kForkPrefix) + original.tmpl.id + "@" + original.tmpl.version);
}

core::Result<TemplateRecord> TemplateCatalog::set_default_version(std::string_view id, std::string_view version) {
  BUDCORE_TRY_ASSIGN(auto item, store_.set_default_catalog_version(tenant_, CatalogKind::UsecaseTemplate, id, version));
  return record_of(item);
}

core::Status TemplateCatalog::remove(std::string_view id) {
  return store_.set_catalog_item_active(tenant_, CatalogKind::UsecaseTemplate, id, false);
}

core::Status TemplateCatalog::restore(std::string_view id) {
  return store_.set_catalog_item_active(tenant_, CatalogKind::UsecaseTemplate, id, true);
}

core::Result<TemplateRecord> TemplateCatalog::get(std::string_view id, std::string_view version) {
  BUDCORE_TRY_ASSIGN(auto item, store_.get_catalog_item(tenant_, CatalogKind::UsecaseTemplate, id, version));
  return record_of(item);
}

core::Result<std::vector<TemplateRecord>> TemplateCatalog::versions(std::string_view id) {
  BUDCORE_TRY_ASSIGN(auto items, visible_versions(store_, tenant_, CatalogKind::UsecaseTemplate, id));
  std::vector<TemplateRecord> out;
  out.reserve(items.size());
  for (const auto& i : items) {
    BUDCORE_TRY_ASSIGN(auto r, record_of(i));
    out.push_back(std::move(r));
  }
  return out;
}

core::Result<std::vector<TemplateRecord>> TemplateCatalog::search(const TemplateSearch& query) {
  CatalogQuery q;
  q.category = query.category;
  q.tags = query.tags;
  q.include_inactive = query.include_inactive;
  if (query.system_only) q.scope = CatalogScope::System;
  if (query.user_only) q.scope = CatalogScope::User;
  BUDCORE_TRY_ASSIGN(auto items, store_.search_catalog_items(tenant_, CatalogKind::UsecaseTemplate, q));
  std::vector<TemplateRecord> out;
  out.reserve(items.size());
  for (const auto& i : items) {
    BUDCORE_TRY_ASSIGN(auto r, record_of(i));
    out.push_back(std::move(r));
  }
  return out;
}

core::Result<ResolveResult> TemplateCatalog::resolve(std::string_view id, const Value& parameters,
                                                     const ResolveOptions& options, std::string_view version) {
  BUDCORE_TRY_ASSIGN(auto record, get(id, version));
  BUDCORE_TRY_ASSIGN(auto components, ComponentCatalog(store_, tenant_).registry());
  return usecase::resolve(record.tmpl, components, parameters, options);
}

// ---- startup sync ------------------------------------------------------------------------------

core::Value SyncReport::to_value() const {
  auto list = [](const std::vector<std::string>& v) { return Value(core::List(v.begin(), v.end())); };
  return Value::map({{"inserted", list(inserted)}, {"updated", list(updated)}, {"unchanged", list(unchanged)}});
}

core::Result<SyncReport> sync_system_catalog(CatalogStore& store, const ComponentRegistry& components,
                                             const std::vector<TemplateFile>& templates) {
  // Everything is checked before anything is written.
  std::vector<CatalogItem> items;
  for (const auto* c : components.all()) {
    auto ok = checked(*c);
    if (!ok) return std::move(ok.error().at("components." + c->id));
    items.push_back(component_item(core::system_tenant(), *c, true));
  }
  for (const auto& f : templates) {
    auto issues = validate_template(f.tmpl, components);
    if (!issues.empty()) {
      Error e = first_issue(issues);
      e.message = (f.source_file.empty() ? f.tmpl.id : f.source_file) + ": " + e.message;
      return e;
    }
    items.push_back(template_item(core::system_tenant(), f.tmpl, true, std::string(kFilePrefix) + f.source_file));
  }
  SyncReport report;
  BUDCORE_TRY(store.catalog_transact([&](CatalogStore& tx) -> core::Status {
    report = {};
    for (auto& item : items) BUDCORE_TRY(sync_item(tx, item, report));
    return {};
  }));
  return report;
}

}  // namespace budcore::usecase
