// A job as the store holds it, with whether the submit created it: what Store.submit_job and
// Platform.submit return in Python (bound once, in bind_store.cpp).
#pragma once

#include "budcore/backend/store.hpp"

namespace budcore::bindings {

struct StoredJob {
  backend::JobRecord record;
  bool created = false;
};

}  // namespace budcore::bindings
