// The opaque budcore_store handle, shared by the C ABI files that take a store (store_c.cpp,
// cost_c.cpp).
#pragma once

#include <memory>

#include "budcore/backend/store.hpp"

struct budcore_store {
  std::unique_ptr<budcore::backend::Store> store;
};
