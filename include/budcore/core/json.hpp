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

// Errors: ErrorCode::Invalid with the byte offset and line:column in the message; integers
// outside int64 are rejected (field names the JSON pointer of the number).
BUDCORE_API Result<Value> parse_json(std::string_view text);
// Non-finite floats (NaN, inf) have no JSON form and are written as null.
BUDCORE_API std::string to_json(const Value& value, const JsonOptions& options = {});

// Shortest round-trip decimal form of a double with a '.0' or exponent so it reads back as a
// float: 1.0 -> "1.0", 0.1 -> "0.1", 1e300 -> "1e+300".
BUDCORE_API std::string format_json_float(double d);

}  // namespace budcore::core
