// Validation rules and planning over extracted Facts (shared by every input path).
#pragma once

#include "budcore/pipeline/planner.hpp"
#include "pipeline/facts.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::pipeline::detail {

// Checks every rule; fills result.plan when the pipeline is valid and want_plan is set.
PlanResult analyze(Facts facts, bool want_plan);

// plan_text with a promise about the buffer: `padded` = at least kJsonPadding readable bytes
// follow text (the CLI reads files that way, so 17 MB is not copied once more).
PlanResult plan_text(std::string_view text, bool padded);

}  // namespace budcore::pipeline::detail

#pragma GCC visibility pop
