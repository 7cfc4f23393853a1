// budcore::companion::Runner — the companion controller with a Kubernetes client and a Store of
// its own, opened from a configuration: what `budcore kueue companion`, the C ABI
// (budcore/c/kueue.h) and the Python, Rust and Go wrappers run (docs/kueue-companion.md).
//
// sync_once() is one pass (the command's --once): with leader election one attempt at the
// Lease, then the AdmissionChecks marked Active, every Workload listed, its runs metered and its
// pending checks answered, and the Lease released. run() answers checks as Workloads change
// until stop().
//
// Thread-safety: one thread drives sync_once()/run(); stop() may be called from any thread and
// from a signal handler (it only stores to lock-free atomics).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/companion/companion.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/kubernetes/client.hpp"

namespace budcore::companion {

// The Store when neither the caller nor the configuration names one.
inline constexpr std::string_view kDefaultStore = "sqlite:budcore-companion.db";

struct RunnerOptions {
  // Wins over the configuration's kubeconfig; neither: $KUBECONFIG, ~/.kube/config, in-cluster.
  std::string kubeconfig;
  std::string context;  // kubeconfig context (empty: its current-context)
  // Wins over the configuration's store; neither: kDefaultStore.
  std::string store;
  // How errors name the two inputs above ("--kubeconfig" for the command, "kubeconfig_path" in C).
  std::string kubeconfig_field = "kubeconfig";
  std::string store_field = "store";
  CompanionOptions companion;
};

// What one pass did.
struct Pass {
  bool leader = true;  // false: another replica holds the Lease, and the pass wrote nothing
  std::string identity;  // with leader election: this replica's
  std::vector<std::string> admission_checks;  // ours, marked Active
  std::vector<Written> written;
  std::vector<core::Error> retrying;  // background work tried again on a later pass (Companion::take_retrying)
};

// {"workload", "admission_check", "check", "state", "message", ...}: the decision's fields too.
BUDCORE_API core::Value to_value(const Written& w);
// {"leader", "identity"?, "admission_checks", "written": [...], "retrying": [{"code", "message", "field", "value"}]}.
BUDCORE_API core::Value to_value(const Pass& p);

class BUDCORE_API Runner {
 public:
  // Connects to the cluster and opens (and migrates) the Store. Errors name the kubeconfig or
  // store input (options' *_field) with the value and why; the configuration's own errors name
  // its fields.
  static core::Result<std::unique_ptr<Runner>> open(CompanionConfig config, RunnerOptions options = {});
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  core::Result<Pass> sync_once();
  // Until stop(): with leader election it renews the Lease, writes only while holding it and
  // releases it at the end. `on_error` gets the errors it retries (a second later).
  void run(const std::function<void(const Written&)>& on_written = {},
           const std::function<void(const core::Error&)>& on_error = {});
  void stop() noexcept;

  Companion& companion() noexcept;
  const std::string& store_uri() const noexcept;

 private:
  Runner() = default;
  std::unique_ptr<kubernetes::Client> client_;
  std::unique_ptr<backend::Store> store_;
  std::unique_ptr<Companion> companion_;
  std::string store_uri_;
};

}  // namespace budcore::companion
