// The Python Store object (budcore.Store), shared by the bindings that take a store
// (bind_store.cpp, bind_cost.cpp).
#pragma once

#include <memory>
#include <string>

#include "budcore/backend/store.hpp"
#include "budcore/core/error.hpp"
#include "errors.hpp"

namespace budcore::bindings {

class PyStore {
 public:
  explicit PyStore(std::unique_ptr<backend::Store> s, std::string uri) : store_(std::move(s)), uri_(std::move(uri)) {}

  // A reference for one call: a close() from another thread cannot pull the store from under it.
  std::shared_ptr<backend::Store> store() const {
    if (!store_) throw PyError(core::Error::make(core::ErrorCode::Invalid, "the store is closed", "store"));
    return store_;
  }
  void close() { store_.reset(); }
  bool closed() const { return !store_; }
  const std::string& uri() const { return uri_; }

 private:
  std::shared_ptr<backend::Store> store_;
  std::string uri_;
};

}  // namespace budcore::bindings
