// budcore::core::Result<T> — a value or an Error. Shaped like std::expected so it can become an
// alias under C++23. Expected failures (validation, not-found, quota denied) travel in Results;
// exceptions are reserved for bugs and out-of-memory.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

#include "budcore/core/error.hpp"

namespace budcore::core {

// Thrown only when a caller reads the value of a Result that holds an error (a bug).
class BUDCORE_API BadResultAccess : public std::exception {
 public:
  explicit BadResultAccess(Error e) : error_(std::move(e)), what_(error_.describe()) {}
  const char* what() const noexcept override { return what_.c_str(); }
  const Error& error() const noexcept { return error_; }

 private:
  Error error_;
  std::string what_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { check(); return std::get<0>(v_); }
  const T& value() const& { check(); return std::get<0>(v_); }
  T&& value() && { check(); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  template <class U>
  T value_or(U&& fallback) const& { return has_value() ? std::get<0>(v_) : T(std::forward<U>(fallback)); }

  const Error& error() const& { return std::get<1>(v_); }
  Error& error() & { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  void check() const {
    if (!has_value()) throw BadResultAccess(std::get<1>(v_));
  }
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  void value() const {
    if (!ok_) throw BadResultAccess(error_);
  }
  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace budcore::core

// Propagates an error from an expression yielding a Result; binds the value otherwise.
#define BUDCORE_CONCAT_INNER(a, b) a##b
#define BUDCORE_CONCAT(a, b) BUDCORE_CONCAT_INNER(a, b)
#define BUDCORE_TRY_ASSIGN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                            \
  if (!tmp.has_value()) return std::move(tmp).error(); \
  lhs = std::move(tmp).value()
#define BUDCORE_TRY_ASSIGN(lhs, expr) BUDCORE_TRY_ASSIGN_IMPL(BUDCORE_CONCAT(_bc_try_, __LINE__), lhs, expr)
#define BUDCORE_TRY(expr)                                  \
  do {                                                     \
    auto _bc_st = (expr);                                  \
    if (!_bc_st.has_value()) return std::move(_bc_st).error(); \
  } while (0)
