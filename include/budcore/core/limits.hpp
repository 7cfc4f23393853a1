// budcore::core limits that every parser, evaluator and reader shares (docs/limits.md): one
// input reader with a size cap, one nesting guard that also watches the thread's real stack,
// truncated quoting of offending values in errors, and range-checked numeric conversions.
//
// Engines written later use these rather than their own: a parser bounds its recursion with
// DepthGuard, reads files with read_input, quotes values with quote_value and converts numbers
// with checked_cast / Duration::from_seconds.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "budcore/core/result.hpp"

namespace budcore::core {

// ---- Input size ------------------------------------------------------------------------------

// Default cap on one input document (file, standard input, or text given to parse_json /
// parse_yaml from C, Python or C++): 64 MiB, room for a 100k-step pipeline (18 MB) several times.
inline constexpr std::size_t kDefaultMaxInputBytes = std::size_t{64} << 20;

// The cap in force for this process: set_max_input_bytes(), else the environment variable
// BUDCORE_MAX_INPUT_BYTES (a positive integer, read once), else kDefaultMaxInputBytes.
BUDCORE_API std::size_t max_input_bytes() noexcept;
// Sets the process-wide cap; 0 goes back to the environment/default. Thread-safe.
BUDCORE_API void set_max_input_bytes(std::size_t bytes) noexcept;

// Invalid ("input is 52428800 bytes, over the limit of 1572864 bytes") when size > max; the
// error's field is `field`.
BUDCORE_API Status check_input_size(std::size_t size, std::string_view field, std::size_t max = max_input_bytes());

// Reads a whole file, or standard input for "-", reading at most max + 1 bytes (so /dev/zero
// or an endless pipe ends with an error instead of exhausting memory). Every file a caller
// names is read through here, so a file that cannot be read gives one error everywhere:
//   Io "cannot open file 'P': No such file or directory" (or "...: it is a directory"), and
//   Invalid "P is larger than the input limit of N bytes ...",
// each with field `field` (what named the file: a parameter, option or document key) and
// value P ("<stdin>" for "-").
BUDCORE_API Result<std::string> read_input(const std::string& path, std::size_t max = max_input_bytes(),
                                           std::string_view field = "path");

// ---- Quoting offending values ----------------------------------------------------------------

// Longest value an error quotes (Error::value, and values spliced into messages).
inline constexpr std::size_t kMaxQuotedBytes = 256;
// Longest message an error surface (CLI, C ABI, Python) passes on.
inline constexpr std::size_t kMaxMessageBytes = 4096;

// text itself when it fits, else its first bytes (cut at a UTF-8 boundary) and
// "... (52428800 bytes)".
BUDCORE_API std::string truncate_text(std::string_view text, std::size_t max = kMaxQuotedBytes);
// The error as a surface should show it: value and message truncated, its others likewise.
BUDCORE_API Error clamp_for_display(Error e);

// ---- Nesting and stack -----------------------------------------------------------------------

// Nesting accepted for documents and computed values (JSON and YAML parsers, template values,
// writers and comparisons of core::Value).
inline constexpr int kMaxValueDepth = 512;

// The lowest stack address this thread may use before a guard refuses to go deeper: the end of
// the thread's stack plus a reserve (a quarter of the stack, at most 256 KiB) left for the code
// between two checks and for unwinding. 0 when the stack bounds cannot be read (never refuses).
// Cached per thread; cheap after the first call.
BUDCORE_API std::uintptr_t stack_floor() noexcept;

// True when the calling frame is below the floor: recursion must stop here. Works on any
// thread (a 1 MiB service thread as well as main) and under sanitizers, whose frames are larger.
inline bool stack_exhausted(std::uintptr_t floor) noexcept {
  return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) < floor;
}
inline bool stack_exhausted() noexcept { return stack_exhausted(stack_floor()); }

// RAII nesting counter for a recursive walk: ok() is false once `depth` exceeds `limit` or the
// stack is nearly used up. The caller reports the error (each layer has its own error type).
class DepthGuard {
 public:
  DepthGuard(int& depth, int limit) noexcept : depth_(depth) { ok_ = ++depth_ <= limit && !stack_exhausted(); }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  ~DepthGuard() { --depth_; }
  bool ok() const noexcept { return ok_; }

 private:
  int& depth_;
  bool ok_;
};

// Thrown only by functions without an error channel (to_json, to_yaml, Value equality) when a
// Value built in code nests deeper than kMaxValueDepth or than the stack allows; no parser
// produces such a value. The C ABI and Python surfaces turn it into an error like any exception.
class BUDCORE_API DepthExceeded : public std::length_error {
 public:
  using std::length_error::length_error;
};

// ---- Range-checked conversions ---------------------------------------------------------------

// v converted to To when it fits exactly in To's range (integers), or, from a floating value,
// when it is finite and its integral part fits (truncated toward zero); nullopt otherwise.
// Never a silent narrowing, never undefined behaviour.
template <class To, class From>
constexpr std::optional<To> checked_cast(From v) noexcept {
  static_assert(std::is_integral_v<To> || std::is_floating_point_v<To>);
  if constexpr (std::is_integral_v<From> && std::is_integral_v<To>) {
    if (!std::in_range<To>(v)) return std::nullopt;
    return static_cast<To>(v);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (!(v == v)) return std::nullopt;  // NaN
    // 2^digits is exactly representable; [-2^d, 2^d) for signed, [0, 2^d) for unsigned.
    constexpr long double kLimit = static_cast<long double>(std::numeric_limits<To>::max()) + 1.0L;
    constexpr long double kLow = std::is_signed_v<To> ? -kLimit : 0.0L;
    long double t = std::trunc(static_cast<long double>(v));
    if (!(t >= kLow && t < kLimit)) return std::nullopt;
    return static_cast<To>(t);
  } else {
    return static_cast<To>(v);
  }
}

// Invalid naming `field` unless lo <= v <= hi: "must be between 1 and 2147483647".
BUDCORE_API Status check_range(std::int64_t v, std::int64_t lo, std::int64_t hi, std::string_view field);

}  // namespace budcore::core
