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
// Records a template failure: the error as set_error(e.to_error()) plus its kind, line and
// column (budcore_error's, and the deprecated budcore_template_error_last()'s).
int set_template_error(int status, std::string_view message, std::string_view field, std::string_view kind, int line,
                       int column) noexcept;

// The version rule of caller-filled structs (budcore_caller): 0 (never initialised) and a
// version newer than `newest` (a program built against a later header) are refused, so the
// library never reads fields the caller did not fill. Sets the error (field `field`) and
// returns false for either.
bool known_version(unsigned int version, unsigned int newest, std::string_view field) noexcept;

// The one buffer rule: every output is an empty buf (BUDCORE_BUF_INIT or disposed) and a failed
// call leaves it untouched. Sets the error (field `field`) and returns false for a NULL buf or
// one that still holds text (filling it would leak that text). Checked before any work, so a
// call that would change state changes nothing when its output cannot take the answer.
bool empty_out(const budcore_buf* out, std::string_view field = "out") noexcept;

// Copies text into an empty caller-owned buf (malloc'd, NUL-terminated); a non-empty buf is
// refused as by empty_out and left as it was.
int fill_buf(budcore_buf* out, std::string_view text, std::string_view field = "out") noexcept;

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
