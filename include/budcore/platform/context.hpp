// budcore::platform::CallContext — who is calling. Every Platform call takes one: the tenant
// scopes what the call may see and change (another tenant's job is NotFound), and the
// principal and request id are there for authorization and audit (an Authorizer, hooks.hpp,
// sees all three before anything is read or written).
#pragma once

#include <string>

#include "budcore/core/id.hpp"

namespace budcore::platform {

struct CallContext {
  core::Id tenant;         // required: the nil id is refused (it is the system tenant)
  std::string principal;   // "user:alice", "sa:ci-bot"; empty = not authenticated
  std::string request_id;  // the caller's correlation id (recorded with the events it causes)

  static CallContext for_tenant(const core::Id& tenant, std::string principal = {}, std::string request_id = {}) {
    return CallContext{tenant, std::move(principal), std::move(request_id)};
  }
};

}  // namespace budcore::platform
