// The one place where pipeline validation talks to the template engine: does a template
// parse, and which steps.X... paths does it read (hard) or read with a guard (soft).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::pipeline::detail {

struct TemplateCheck {
  bool ok = true;
  std::string error;                      // syntax error message when !ok
  std::vector<std::string> step_paths;    // "step-1.outputs.config" for steps.step-1.outputs.config
  std::vector<std::string> soft_heads;    // first segments X of guarded steps.X occurrences
};

TemplateCheck check_template(std::string_view text);

// Whether `id` (a step id) matches the first segment(s) of `path` ("a.b.outputs" matches
// "a" and "a.b"); a longer id wins so ids with dots resolve.
bool path_names_step(std::string_view path, std::string_view id) noexcept;

}  // namespace budcore::pipeline::detail

#pragma GCC visibility pop
