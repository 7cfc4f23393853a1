// Internals shared by every capi/*_c.cpp: the thread-local last error, the exception guard
// and helpers to move text across the boundary.
#pragma once

#include <new>
#include <string>
#include <string_view>

#include "budcore/budcore.h"
#include "budcore/core/error.hpp"

namespace budcore::capi {

int status_of(core::ErrorCode code) noexcept;
// Records `e` as this thread's last error and returns its status code.
int set_error(const core::Error& e) noexcept;
int set_error(int status, std::string_view message, std::string_view field = {}) noexcept;
void clear_error() noexcept;

// Copies text into a caller-owned buf (malloc'd, NUL-terminated).
int fill_buf(budcore_buf* out, std::string_view text) noexcept;

// Validates that (s, len) is UTF-8 and returns it as a view; sets the error and returns false
// otherwise. A NULL pointer with len 0 is the empty string.
bool input_text(const char* s, std::size_t len, std::string_view field, std::string_view& view) noexcept;

// Runs fn (returning int status) and turns any escaping exception into a status: bad_alloc ->
// BUDCORE_ENOMEM, anything else -> BUDCORE_ERROR with the message kept. Clears the last error
// first so a success never leaves a stale message behind.
template <class Fn>
int guard(Fn&& fn) noexcept {
  clear_error();
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return set_error(BUDCORE_ENOMEM, "out of memory");
  } catch (const std::exception& e) {
    return set_error(BUDCORE_ERROR, e.what());
  } catch (...) {
    return set_error(BUDCORE_ERROR, "unknown internal error");
  }
}

}  // namespace budcore::capi
