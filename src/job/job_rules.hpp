// Private: the semantic rules of Job::validate_all, for the collecting decoder (Job::check_value).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "budcore/core/error.hpp"
#include "budcore/job/job.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::job::detail {

// validate_all()'s violations, less those of a rule that reads a field in `undecoded` (the
// document's top-level keys that failed to decode): such a field holds its default, and a rule
// reading it would report a problem the document does not have.
std::vector<core::Error> rule_violations(const Job& j, const std::set<std::string, std::less<>>& undecoded);

}  // namespace budcore::job::detail

#pragma GCC visibility pop
