// Role-based access control of Platform calls (docs/security.md "Roles"), modelled on
// Kubernetes RBAC: a rule is a verb on a resource within a scope, and a role binding grants a
// principal a role in one project of a tenant, a whole tenant, or the whole platform.
//
//   role             scope              may
//   viewer           project | tenant   get, list, watch (jobs, pipeline runs, deployments, events)
//   editor           project | tenant   + create, cancel, retry, update jobs; run and cancel
//                                         pipeline runs; deploy and tear down use cases
//   admin            project | tenant   + preempt jobs, submit `critical` jobs, read costs
//   tenant-admin     tenant             + bind and unbind roles, read the audit log
//   platform-admin   platform           everything in every tenant, + verify the audit chain
//
// Each role includes the ones above it. Jobs carry a project (project_id), so a project role
// covers that project's jobs and their costs (a job read by someone below admin there has its
// cost fields cleared); pipeline runs, deployments, events, costs, role bindings and
// the audit log belong to the tenant and need a tenant-wide role. Principals are named
// "user:<name>" or "sa:<name>"; the embedding service authenticates them, budcore authorizes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/platform/hooks.hpp"

namespace budcore::platform {

enum class Role : std::uint8_t { Viewer, Editor, Admin, TenantAdmin, PlatformAdmin };

BUDCORE_API std::string_view to_string(Role role) noexcept;
// "viewer", "editor", "admin", "tenant-admin", "platform-admin"; Invalid naming `field` otherwise.
BUDCORE_API core::Result<Role> parse_role(std::string_view text, std::string_view field = "role");

// A principal is "user:<name>" or "sa:<name>", the name 1..200 bytes of letters, digits and
// . _ - @ +. Invalid naming `field` (and why) otherwise.
BUDCORE_API core::Status check_principal(std::string_view principal, std::string_view field = "principal");

// The least role that may do `verb` on `resource` (the table above); nullopt for a pair no
// role grants (denied).
BUDCORE_API std::optional<Role> required_role(std::string_view verb, std::string_view resource) noexcept;
// Whether the resource's objects carry a project, so that project roles apply to them (jobs,
// and the costs of jobs).
BUDCORE_API bool project_scoped(std::string_view resource) noexcept;

// A role granted to a principal: within the caller's tenant, on one project or (nullopt) all
// of them. PlatformAdmin bindings live in the system tenant; TenantAdmin and PlatformAdmin
// take no project.
struct RoleBinding {
  std::string principal;
  Role role = Role::Viewer;
  std::optional<core::Id> project;
};

// The Authorizer a platform installs when its config says `security.rbac: true`: it reads the
// principal's bindings from the Store on every call (a binding or unbinding applies at once,
// in every process), and treats `platform_admins` from the config as platform admins (the
// bootstrap: someone must grant the first roles). Denials are Security errors naming the
// principal, the verb, the resource, the scope and the role that is missing.
class BUDCORE_API RbacAuthorizer final : public Authorizer {
 public:
  RbacAuthorizer(backend::Store& store, std::vector<std::string> platform_admins);
  core::Status authorize(const CallContext& caller, const AccessRequest& request) override;
  // The highest role the principal holds in the tenant's project (nullopt: tenant-wide only),
  // nullopt when none applies.
  core::Result<std::optional<Role>> effective_role(const core::Id& tenant, std::string_view principal,
                                                   const std::optional<core::Id>& project);

 private:
  backend::Store& store_;
  std::vector<std::string> platform_admins_;
};

}  // namespace budcore::platform
