// Argo-style `depends` expressions over upstream results:
//   (step-a.Succeeded || step-a.Skipped) && !step-b.Failed
// Results: Succeeded, Failed, Errored, Skipped, Omitted, and for LOOP/PARALLEL steps
// AnySucceeded / AllFailed over their iterations or members. A bare name means
// Succeeded || Skipped (Argo's rule).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/pipeline/run_state.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::pipeline::detail {

struct UpstreamResult {
  StepState state = StepState::Pending;
  int children = 0;            // LOOP iterations / PARALLEL members
  int children_succeeded = 0;
  int children_failed = 0;     // Failed or Errored
};

class DependsExpr {
 public:
  static core::Result<DependsExpr> parse(std::string_view text);
  // Step names the expression reads, in first-use order.
  const std::vector<std::string>& names() const noexcept { return names_; }
  // True when a name is read with a result other than Succeeded/Skipped (or bare), i.e. the
  // expression handles that step's failure.
  bool handles_failure_of(std::string_view name) const;
  bool evaluate(const std::function<UpstreamResult(std::string_view)>& lookup) const;

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::vector<std::string> names_;
  std::vector<std::string> failure_names_;
};

// Airflow trigger rules as depends sugar over all direct upstream steps.
enum class TriggerRule : std::uint8_t { AllSuccess, AllDone, OneSuccess, OneFailed, NoneFailed };
core::Result<TriggerRule> parse_trigger_rule(std::string_view text);

}  // namespace budcore::pipeline::detail

#pragma GCC visibility pop
