// The Platform's security calls: role bindings and the audit log (docs/security.md).
#include "budcore/platform/platform.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;

namespace {

core::Status check_binding(const RoleBinding& b) {
  BUDCORE_TRY(check_principal(b.principal, "binding.principal"));
  if (b.project && (b.role == Role::TenantAdmin || b.role == Role::PlatformAdmin))
    return Error::invalid("binding.project", b.project->to_string(),
                          std::string(to_string(b.role)) + " is bound to a whole " +
                              (b.role == Role::TenantAdmin ? "tenant" : "platform") + ", not to one project");
  if (b.project && b.project->is_nil())
    return Error::invalid("binding.project", b.project->to_string(), "the nil id is no project; omit it for the whole tenant");
  return {};
}

std::string binding_key(const core::Id& tenant, const RoleBinding& b) {
  return tenant.to_string() + "/" + b.principal + "/" + std::string(to_string(b.role)) + "/" +
         (b.project ? b.project->to_string() : "*");
}

// The tenant a binding is kept under (the system tenant for platform-admin), once the caller may
// `verb` it and the binding is well formed.
core::Result<core::Id> binding_tenant(Platform::Impl& m, const CallContext& caller, const RoleBinding& b,
                                      std::string_view verb) {
  const bool platform_wide = b.role == Role::PlatformAdmin;
  BUDCORE_TRY(m.guard(caller, platform_wide ? "bind_platform" : verb, "role_bindings"));
  BUDCORE_TRY(check_binding(b));
  return platform_wide ? backend::system_tenant() : caller.tenant;
}

}  // namespace

core::Result<backend::RoleBindingRecord> Platform::bind_role(const CallContext& caller, const RoleBinding& binding) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY_ASSIGN(const core::Id tenant, binding_tenant(m, caller, binding, "bind"));
  backend::RoleBindingRecord rec;
  rec.principal = binding.principal;
  rec.role = std::string(to_string(binding.role));
  rec.project_id = binding.project;
  rec.created_by = actor_of(caller);
  rec.created_at = m.clock->now();
  backend::RoleBindingRecord out;
  BUDCORE_TRY(m.store->transact([&](backend::Store& tx) -> core::Status {
    BUDCORE_TRY_ASSIGN(out, tx.put_role_binding(tenant, rec));
    return m.audit(tx, caller, "role_bindings.bind", "role_binding", binding_key(tenant, binding), {}, {},
                   core::Map{{"principal", rec.principal}, {"role", rec.role}});
  }));
  return out;
}

core::Status Platform::unbind_role(const CallContext& caller, const RoleBinding& binding) {
  std::lock_guard lock(impl_->mu);
  Impl& m = *impl_;
  BUDCORE_TRY_ASSIGN(const core::Id tenant, binding_tenant(m, caller, binding, "unbind"));
  return m.store->transact([&](backend::Store& tx) -> core::Status {
    BUDCORE_TRY(tx.delete_role_binding(tenant, binding.principal, to_string(binding.role), binding.project));
    return m.audit(tx, caller, "role_bindings.unbind", "role_binding", binding_key(tenant, binding), {}, {},
                   core::Map{{"principal", binding.principal}, {"role", std::string(to_string(binding.role))}});
  });
}

core::Result<std::vector<backend::RoleBindingRecord>> Platform::list_role_bindings(const CallContext& caller,
                                                                                   std::optional<std::string> principal) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "list", "role_bindings"));
  if (principal) return impl_->store->list_role_bindings(caller.tenant, std::string_view(*principal));
  return impl_->store->list_role_bindings(caller.tenant);
}

core::Result<backend::Page<backend::AuditEntry>> Platform::list_audit(const CallContext& caller,
                                                                      const backend::AuditQuery& query,
                                                                      const backend::PageRequest& page) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "list", "audit"));
  return impl_->store->list_audit(caller.tenant, query, page);
}

core::Result<backend::AuditChainReport> Platform::verify_audit(const CallContext& caller,
                                                               const std::vector<std::string>& anchors) {
  std::lock_guard lock(impl_->mu);
  BUDCORE_TRY(impl_->guard(caller, "verify", "audit"));
  // Without RBAC there are no platform admins: a caller verifies its own tenant's chain (the
  // others' heads would tell it how much they do). With RBAC only a platform admin gets here.
  if (!impl_->authorizer) return impl_->store->verify_audit_chain(anchors, caller.tenant);
  return impl_->store->verify_audit_chain(anchors);
}

core::Status Platform::Impl::publish_audit_anchor() {
  if (!anchor_notifier || !config.security.audit_anchor) return {};
  const std::int64_t now = clock->now().unix_nanos();
  if (now < next_anchor_ns) return {};
  const core::Duration every = config.security.audit_anchor->every;
  auto heads = store->audit_heads();
  core::Status st = heads ? core::Status() : core::Status(heads.error());
  if (heads) {
    core::List list;
    for (const auto& h : *heads)
      list.emplace_back(core::Map{{"tenant", h.tenant.to_string()}, {"seq", h.seq}, {"hash", h.hash}});
    core::Notification n;
    n.channel = "webhook";
    n.severity = "info";
    n.message = "budcore audit chain heads at " + clock->now().to_string() + ": " + std::to_string(heads->size()) +
                " tenants, digest " + backend::audit_heads_digest(*heads);
    n.context = core::Value::map({{"kind", "audit.anchor"},
                                  {"at", clock->now().to_string()},
                                  {"digest", backend::audit_heads_digest(*heads)},
                                  {"heads", core::Value(std::move(list))}});
    st = anchor_notifier->notify(n);
  }
  // A failed publication is tried again in a minute (sooner than the interval), and counted.
  metrics.count("budcore_audit_anchors_total", {{"outcome", st ? "published" : "failed"}});
  next_anchor_ns = now + (st ? every : std::min(every, core::Duration::seconds(60))).count_ns();
  return {};
}

}  // namespace budcore::platform
