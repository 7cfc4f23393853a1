// RBAC: the role matrix (rbac.hpp, docs/security.md "Roles") and the authorizer that checks a
// call against the principal's role bindings in the Store.
#include "budcore/platform/rbac.hpp"

#include <algorithm>
#include <array>

namespace budcore::platform {

using core::Error;
using core::ErrorCode;

namespace {

struct Rule {
  std::string_view verb;
  std::string_view resource;
  Role role;
};

// One row per verb and resource a Platform call asks for; anything else is denied.
constexpr std::array kRules{
    Rule{"get", "jobs", Role::Viewer},
    Rule{"list", "jobs", Role::Viewer},
    Rule{"create", "jobs", Role::Editor},
    Rule{"cancel", "jobs", Role::Editor},
    Rule{"retry", "jobs", Role::Editor},
    Rule{"update", "jobs", Role::Editor},
    Rule{"preempt", "jobs", Role::Admin},
    Rule{"create_critical", "jobs", Role::Admin},
    Rule{"get", "pipeline_runs", Role::Viewer},
    Rule{"run", "pipeline_runs", Role::Editor},
    Rule{"cancel", "pipeline_runs", Role::Editor},
    Rule{"get", "usecase_deployments", Role::Viewer},
    Rule{"list", "usecase_deployments", Role::Viewer},
    Rule{"deploy", "usecase_deployments", Role::Editor},
    Rule{"teardown", "usecase_deployments", Role::Editor},
    Rule{"watch", "events", Role::Viewer},
    Rule{"get", "costs", Role::Admin},
    Rule{"list", "role_bindings", Role::TenantAdmin},
    Rule{"bind", "role_bindings", Role::TenantAdmin},
    Rule{"unbind", "role_bindings", Role::TenantAdmin},
    Rule{"bind_platform", "role_bindings", Role::PlatformAdmin},
    Rule{"list", "audit", Role::TenantAdmin},
    Rule{"verify", "audit", Role::PlatformAdmin},
    Rule{"compact", "store", Role::PlatformAdmin},
    Rule{"list", "cluster", Role::PlatformAdmin},     // every tenant's runs by id
    Rule{"preempt", "cluster", Role::PlatformAdmin},  // a defragmentation plan may move any tenant's run
};

constexpr std::array<std::string_view, 5> kRoleNames{"viewer", "editor", "admin", "tenant-admin", "platform-admin"};

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-' || c == '@' || c == '+';
}

std::string scope_text(const CallContext& caller, std::string_view resource, const core::Id* project) {
  std::string t = "tenant " + caller.tenant.to_string();
  if (project != nullptr && project_scoped(resource)) return "project " + project->to_string() + " of " + t;
  return t;
}

}  // namespace

std::string_view to_string(Role role) noexcept { return kRoleNames[static_cast<std::size_t>(role)]; }

core::Result<Role> parse_role(std::string_view text, std::string_view field) {
  for (std::size_t i = 0; i < kRoleNames.size(); ++i)
    if (kRoleNames[i] == text) return static_cast<Role>(i);
  return Error::invalid(std::string(field), std::string(text.substr(0, 64)),
                        "is not a role (viewer, editor, admin, tenant-admin, platform-admin)");
}

core::Status check_principal(std::string_view principal, std::string_view field) {
  const std::string f(field);
  std::string_view name;
  if (principal.starts_with("user:")) name = principal.substr(5);
  else if (principal.starts_with("sa:")) name = principal.substr(3);
  else
    return Error::invalid(f, std::string(principal.substr(0, 64)),
                          "a principal is user:<name> or sa:<name> (a user or a service account)");
  if (name.empty() || name.size() > 200)
    return Error::invalid(f, std::string(principal.substr(0, 64)), "the name after the kind must be 1 to 200 bytes");
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i]))
      return Error::invalid(f, std::string(principal.substr(0, 64)),
                            "byte " + std::to_string(i + (principal.size() - name.size())) +
                                " is not a letter, digit or one of . _ - @ +");
  return {};
}

std::optional<Role> required_role(std::string_view verb, std::string_view resource) noexcept {
  for (const Rule& r : kRules)
    if (r.verb == verb && r.resource == resource) return r.role;
  return std::nullopt;
}

bool project_scoped(std::string_view resource) noexcept { return resource == "jobs" || resource == "costs"; }

RbacAuthorizer::RbacAuthorizer(backend::Store& store, std::vector<std::string> platform_admins)
    : store_(store), platform_admins_(std::move(platform_admins)) {}

core::Result<std::optional<Role>> RbacAuthorizer::effective_role(const core::Id& tenant, std::string_view principal,
                                                                 const std::optional<core::Id>& project) {
  if (std::find(platform_admins_.begin(), platform_admins_.end(), principal) != platform_admins_.end())
    return std::optional<Role>(Role::PlatformAdmin);
  std::optional<Role> best;
  auto consider = [&](Role r) {
    if (!best || r > *best) best = r;
  };
  BUDCORE_TRY_ASSIGN(auto platform, store_.list_role_bindings(backend::system_tenant(), principal));
  for (const auto& b : platform)
    if (b.role == to_string(Role::PlatformAdmin)) consider(Role::PlatformAdmin);
  if (!tenant.is_nil()) {
    BUDCORE_TRY_ASSIGN(auto own, store_.list_role_bindings(tenant, principal));
    for (const auto& b : own) {
      auto role = parse_role(b.role);
      if (!role) continue;  // a role this library does not know grants nothing
      if (!b.project_id || (project && *b.project_id == *project)) consider(*role);
    }
  }
  return best;
}

core::Status RbacAuthorizer::authorize(const CallContext& caller, const AccessRequest& request) {
  auto deny = [&](std::string why) {
    return Error{ErrorCode::Security, std::move(why), "principal", caller.principal};
  };
  if (caller.principal.empty())
    return deny("the call names no principal: with security.rbac every call must say who makes it");
  BUDCORE_TRY(check_principal(caller.principal));
  const auto needed = required_role(request.verb, request.resource);
  if (!needed)
    return deny("no role may " + std::string(request.verb) + " " + std::string(request.resource));
  std::optional<core::Id> project;
  if (request.project != nullptr && project_scoped(request.resource)) project = *request.project;
  BUDCORE_TRY_ASSIGN(auto held, effective_role(caller.tenant, caller.principal, project));
  if (held && *held >= *needed) return {};
  std::string why = caller.principal + " may not " + std::string(request.verb) + " " + std::string(request.resource) +
                    " in " + scope_text(caller, request.resource, request.project) + ": that needs role " +
                    std::string(to_string(*needed)) + " or higher there";
  why += held ? ", and it holds " + std::string(to_string(*held)) : ", and it holds no role there";
  if (project_scoped(request.resource) && request.project == nullptr && request.verb == "list")
    why += " (a project role lists that project's jobs: filter by project_id)";
  return deny(std::move(why));
}

}  // namespace budcore::platform
