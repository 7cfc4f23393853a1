// The opaque budcore_store handle, shared by the C ABI files that take a store (store_c.cpp,
// cost_c.cpp, serverless_queue_c.cpp), and the check every store call starts with.
#pragma once

#include <memory>

#include "budcore/backend/store.hpp"
#include "budcore/c/common.h"
#include "budcore/core/id.hpp"

struct budcore_store {
  std::unique_ptr<budcore::backend::Store> store;
};

namespace budcore::capi {
// Checks the handle and the (empty) output buffer and parses the tenant; sets the error and
// returns false on failure.
bool store_call_args(budcore_buf* out, const budcore_store* store, const char* tenant, size_t tenant_len,
                     core::Id& tenant_id);
}  // namespace budcore::capi
