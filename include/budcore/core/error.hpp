// budcore::core::Error — what went wrong, where in the input, and with which value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/export.h"

namespace budcore::core {

// Error categories. The C ABI maps them one-to-one to negative BUDCORE_E* codes.
enum class ErrorCode : int {
  Invalid = 1,          // input does not satisfy the schema or grammar
  NotFound,             // a named object does not exist
  AlreadyExists,        // create of an object that exists
  Conflict,             // compare-and-set lost, illegal state transition
  QuotaExceeded,        // admission denied by quota
  BudgetExceeded,       // denied by a budget
  Overflow,             // arithmetic result does not fit the exact representation
  Unsupported,          // valid input the library does not handle
  Security,             // refused by a security rule: RBAC, tenant policy, a sandbox limit
  Io,                   // file, database or network failure
  Internal,             // a bug: an invariant did not hold
  RateLimited,          // too many requests now: retry after Error::retry_after_ms
  NotLeader,            // a write only the leader may make, by a replica that no longer leads (value: the current epoch)
  Gone,                 // what was asked for was removed by retention (a watch cursor before the log's start; value: the oldest seq to resume after)
};

BUDCORE_API std::string_view to_string(ErrorCode code) noexcept;

// An expected failure. `field` is the path of the offending input ("spec.resources.gpu_count",
// "steps[2].config.url"); empty when the error is not about one field. `value` is the
// offending value as the user wrote it (may be empty).
struct BUDCORE_API Error {
  ErrorCode code = ErrorCode::Internal;
  std::string message;
  std::string field;
  std::string value;
  // RateLimited: when a retry may succeed, in milliseconds from now (0 otherwise).
  std::int64_t retry_after_ms = 0;
  // The input's other problems when a check found more than one (a job document lists each
  // field it cannot accept), in order, each with its own path; this error is the first. Bounded
  // by the check that filled it (job::JobCheck::kMaxListed), so a huge input cannot make it huge.
  std::vector<Error> others{};

  static Error invalid(std::string field, std::string value, std::string why);
  static Error make(ErrorCode code, std::string message, std::string field = {});

  // Prefixes the field path with a parent ("resources" + "gpu_count" -> "resources.gpu_count",
  // "steps[1]" + "config" -> "steps[1].config", parent + "[2].x" -> "parent[2].x"), and the
  // others' paths likewise.
  Error& at(std::string_view parent);

  // Every problem: this error (without its list) first, then the others.
  std::vector<Error> all_problems() const;

  // "field: message (value: 'v')" — one line a person can act on.
  std::string describe() const;

  // The same problem: `others` is not compared, so the error from_json returns equals the first
  // problem check_json lists. Compare all_problems() to compare the lists.
  friend bool operator==(const Error& a, const Error& b) {
    return a.code == b.code && a.message == b.message && a.field == b.field && a.value == b.value &&
           a.retry_after_ms == b.retry_after_ms;
  }
};

// Joins path segments the way Error::at does.
BUDCORE_API std::string join_path(std::string_view parent, std::string_view child);

}  // namespace budcore::core
