// budcore::core::system_tenant — the tenant that owns what every tenant may read but none may
// change: the system templates and components, platform-wide role bindings. In core so that
// each layer that keeps tenant-scoped rows names it the same way.
#pragma once

#include "budcore/core/id.hpp"

namespace budcore::core {

// The nil UUID.
inline Id system_tenant() noexcept { return Id(); }

}  // namespace budcore::core
