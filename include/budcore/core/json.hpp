// JSON <-> Value. Lossless: integers stay Int (int64), numbers with a fraction or exponent stay
// Float and print back in shortest round-trip form ("1.0", "0.1", "1e+300"); key order is kept.
#pragma once

#include <string>
#include <string_view>

#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"

namespace budcore::core {

struct JsonOptions {
  int indent = -1;          // -1: compact, one line; >= 0: pretty with this many spaces
  bool ensure_ascii = false;  // escape non-ASCII as \uXXXX
};

// Errors: ErrorCode::Invalid with line and column in the message ("invalid JSON at line 3,
// column 7: ..."); integers outside int64 are rejected (field is the JSON pointer of the
// number, value its text); nesting deeper than 512 arrays/objects (kMaxValueDepth) and text
// longer than max_input_bytes() (core/limits.hpp) are rejected. Duplicate keys: the last value
// wins, at the position of the first occurrence.
BUDCORE_API Result<Value> parse_json(std::string_view text);
// How a document is read. unique_keys: a key given twice in one object or mapping is an error
// (Invalid, naming the key and where) instead of the last value winning; configuration that
// decides security is read this way, so that `rbac: true ... rbac: false` is refused.
struct ParseOptions {
  bool unique_keys = false;
};
BUDCORE_API Result<Value> parse_json(std::string_view text, const ParseOptions& options);
// Non-finite floats (NaN, inf) have no JSON form and are written as null. Malformed UTF-8 in
// strings is written as U+FFFD so the output is always valid JSON. A Value built in code that
// nests deeper than kMaxValueDepth throws core::DepthExceeded (parsed values never do).
BUDCORE_API std::string to_json(const Value& value, const JsonOptions& options = {});

// Shortest round-trip decimal form of a double with a '.0' or exponent so it reads back as a
// float: 1.0 -> "1.0", 0.1 -> "0.1", 1e300 -> "1e+300".
BUDCORE_API std::string format_json_float(double d);

// The JSON form of an error every surface writes when it lists problems: {"code", "message",
// "path", "value" (only when known), "retry_after_ms" (only when positive)}.
BUDCORE_API Value to_value(const Error& error);

}  // namespace budcore::core
