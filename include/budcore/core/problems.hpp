// A list of problems as one error: the form every check that lists them hands its callers.
#pragma once

#include <vector>

#include "budcore/core/error.hpp"
#include "budcore/export.h"

namespace budcore::core {

// The first of `problems` carrying the rest, in order, as its `others` (what it carried before
// is replaced); the inverse of Error::all_problems(). An empty list is a caller's bug: Internal.
BUDCORE_API Error first_with_others(std::vector<Error> problems);

}  // namespace budcore::core
