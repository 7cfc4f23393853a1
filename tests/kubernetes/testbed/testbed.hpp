// Access to the ctest fixture's test bed (tests/kubernetes/k8s_fixture.sh): its kubeconfig and
// env file, a Client, unique names, and helpers that stand in for the missing controllers.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "budcore/core/json.hpp"
#include "budcore/job/job.hpp"
#include "budcore/kubernetes/client.hpp"
#include "budcore/kubernetes/config.hpp"

namespace budcore::testing {

class Testbed {
 public:
  // nullptr (and the test skips) when no test bed runs.
  static Testbed* get() {
    static Testbed* tb = [] {
      const char* dir = std::getenv("BUDCORE_K8S_STATE_DIR");
      if (dir == nullptr) return static_cast<Testbed*>(nullptr);
      auto* t = new Testbed(dir);
      return t->ok_ ? t : static_cast<Testbed*>(nullptr);
    }();
    return tb;
  }

  const std::string& kubeconfig() const { return kubeconfig_; }
  std::string env(const std::string& key) const {
    auto it = env_.find(key);
    return it == env_.end() ? std::string() : it->second;
  }
  kubernetes::ClusterConfig config() const { return *kubernetes::load_kubeconfig(kubeconfig_); }

  std::unique_ptr<kubernetes::Client> client(kubernetes::ClientOptions o = {}) const {
    auto c = kubernetes::Client::open(config(), o);
    if (!c) throw std::runtime_error(c.error().describe());
    return std::move(*c);
  }

  // A name no other test (or earlier run against the same test bed) uses: prefix-<8 hex>.
  static std::string unique(const std::string& prefix) {
    static std::atomic<unsigned> counter{0};
    static const unsigned seed = std::random_device{}();
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x", seed * 2654435761u + counter.fetch_add(1) * 40503u);
    return prefix + "-" + buf;
  }

  // Polls until pred() or the timeout; returns pred()'s last answer.
  static bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return pred();
  }

 private:
  explicit Testbed(const std::string& dir) {
    kubeconfig_ = dir + "/kubeconfig";
    std::ifstream envf(dir + "/env");
    if (!envf || !std::ifstream(kubeconfig_)) return;
    std::string line;
    while (std::getline(envf, line)) {
      auto eq = line.find('=');
      if (eq != std::string::npos) env_[line.substr(0, eq)] = line.substr(eq + 1);
    }
    ok_ = true;
  }
  bool ok_ = false;
  std::string kubeconfig_;
  std::map<std::string, std::string> env_;
};

// Marks a batch/v1 Job finished the way the job controller would (the test bed runs no
// kube-controller-manager or kubelet), as Kueue's own integration tests do.
// The job the test-bed tests submit: a batch job of `gpus` GPUs, 1 core and 1 GiB running
// busybox (no kubelet runs it; the tests complete it).
inline job::Job busybox_job(const std::string& name, std::int64_t gpus) {
  job::Job j;
  j.name = name;
  j.job_type = job::JobType::Batch;
  j.deployment_type = job::DeploymentType::Docker;
  j.gpu_count = gpus;
  j.cpu_cores = core::Quantity::from_int(1);
  j.memory_gb = core::Quantity::from_int(1);
  j.spec = core::Value(core::Map{{"image", "busybox:1.36"}});
  return j;
}

inline core::Status mark_job_complete(kubernetes::Client& c, const std::string& ns, const std::string& name) {
  std::string now = "2026-01-01T00:00:00Z";
  auto cond = [&](const char* type) {
    return core::Map{{"type", type}, {"status", "True"}, {"lastProbeTime", now}, {"lastTransitionTime", now}};
  };
  // active and ready back to 0: a finished Job may not count running pods.
  core::Value patch =
      core::Map{{"status", core::Map{{"startTime", now}, {"completionTime", now}, {"succeeded", 1}, {"active", 0}, {"ready", 0},
                                     {"conditions", core::List{cond("SuccessCriteriaMet"), cond("Complete")}}}}};
  auto r = c.patch(kubernetes::resources::jobs(), ns, name, patch, kubernetes::PatchType::Merge, "status");
  if (!r) return std::move(r).error();
  return {};
}

// Marks a batch/v1 Job failed (backoff limit reached) the way the job controller would.
inline core::Status mark_job_failed(kubernetes::Client& c, const std::string& ns, const std::string& name) {
  std::string now = "2026-01-01T00:00:00Z";
  auto cond = [&](const char* type) {
    return core::Map{{"type", type},
                     {"status", "True"},
                     {"reason", "BackoffLimitExceeded"},
                     {"message", "Job has reached the specified backoff limit"},
                     {"lastProbeTime", now},
                     {"lastTransitionTime", now}};
  };
  core::Value patch = core::Map{
      {"status", core::Map{{"startTime", now}, {"failed", 1}, {"conditions", core::List{cond("FailureTarget"), cond("Failed")}}}}};
  auto r = c.patch(kubernetes::resources::jobs(), ns, name, patch, kubernetes::PatchType::Merge, "status");
  if (!r) return std::move(r).error();
  return {};
}

#define BUDCORE_NEED_TESTBED()                                                               \
  auto* tb = ::budcore::testing::Testbed::get();                                             \
  if (tb == nullptr) GTEST_SKIP() << "no Kubernetes test bed (BUDCORE_K8S_TESTS=0 or not started by ctest)"

}  // namespace budcore::testing
