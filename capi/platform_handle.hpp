// The opaque budcore_platform handle, shared by the C ABI files that take a platform
// (platform_c.cpp, serverless_endpoint_c.cpp), and the caller conversion they start with.
#pragma once

#include <memory>

#include "budcore/c/platform.h"
#include "budcore/platform/context.hpp"
#include "budcore/platform/platform.hpp"

struct budcore_platform {
  std::unique_ptr<budcore::platform::Platform> platform;
};

namespace budcore::capi {
// The caller's tenant (a UUID), principal and request id; sets the error ("caller.tenant", ...)
// and returns false when one is not valid.
bool caller_of(const budcore_caller* c, platform::CallContext& ctx);
}  // namespace budcore::capi
