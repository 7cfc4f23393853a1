// core::Error on its way to Python: binding code throws PyError (or unwraps a Result), and the
// one translator registered in errors.cpp raises the budcore.Error subclass for its code, with
// .code, .field, .value and .message set.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "budcore/core/error.hpp"
#include "budcore/core/result.hpp"

namespace budcore::bindings {

class PyError : public std::exception {
 public:
  explicit PyError(core::Error e) : error_(std::move(e)), what_(error_.describe()) {}
  const char* what() const noexcept override { return what_.c_str(); }
  const core::Error& error() const noexcept { return error_; }

 private:
  core::Error error_;
  std::string what_;
};

// Each problem as a dict {"code", "message", "path", "value"} (value None when unknown).
std::vector<pybind11::dict> error_dicts(const std::vector<core::Error>& problems);

// The budcore.Error subclass instance for `e`, not raised (for lists of problems). Its .errors
// lists every problem (e.all_problems()) and its message names each, one a line.
pybind11::object make_exception(const core::Error& e);

// Raises the exception of `first` with .errors = `errors` (every problem, as dicts).
[[noreturn]] void raise_with_errors(const core::Error& first, pybind11::list errors);

template <class T>
T unwrap(core::Result<T> r) {
  if (!r.has_value()) throw PyError(std::move(r).error());
  return std::move(r).value();
}

inline void unwrap(core::Status s) {
  if (!s.has_value()) throw PyError(std::move(s).error());
}

// An idempotency key as Python gave it: None is no key; an empty string is refused rather than
// taken as none (its retries would each make a new job).
inline std::string idempotency_key_of(const std::optional<std::string>& key, std::string field = "idempotency_key") {
  if (key && key->empty()) throw PyError(core::Error::invalid(std::move(field), "", "must not be empty (None is no key)"));
  return key.value_or("");
}

}  // namespace budcore::bindings
