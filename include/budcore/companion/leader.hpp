// budcore::companion leader election on a coordination.k8s.io/v1 Lease, the way client-go's
// tools/leaderelection does it, so that of several companion replicas exactly one writes.
//
// Acquire: the Lease is created when absent; an existing one is taken only when it has no
// holder or has expired (spec.renewTime + spec.leaseDurationSeconds in the past, and no change
// to it seen for leaseDurationSeconds), by a PUT carrying the resourceVersion read: a 409
// Conflict means another replica won. The holder renews every retry period; it leads only while
// its last successful renewal is younger than the renew deadline, so it stops writing before
// the Lease can expire for the others. Release (graceful stop) empties holderIdentity and sets
// leaseDurationSeconds to 1, as client-go's ReleaseOnCancel does, so a successor takes over at
// its next retry. Times are written in RFC 3339 with microseconds (metav1.MicroTime).
//
// Thread-safety: one thread drives try_acquire_or_renew()/run()/release(); is_leader() and
// term() may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "budcore/core/clock.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/export.h"
#include "budcore/kubernetes/client.hpp"

namespace budcore::companion {

// The companion config's `leader_election` section. Defaults are Kubernetes' (client-go's and
// the kube-controller-manager's): lease 15 s, renew deadline 10 s, retry period 2 s.
struct LeaderElectionConfig {
  std::string lease_name = "budcore-kueue-companion";
  std::string namespace_;  // "" = the kubeconfig context's namespace
  std::string identity;    // "" = hostname_<random>, unique per process
  core::Duration lease_duration = core::Duration::seconds(15);
  core::Duration renew_deadline = core::Duration::seconds(10);
  core::Duration retry_period = core::Duration::seconds(2);
};

// Invalid naming the field ("leader_election.renew_deadline"), the value and why: a lease name
// or namespace that is not a DNS name, a lease duration that is not whole seconds,
// renew_deadline >= lease_duration, renew_deadline <= 1.2 x retry_period (client-go's rules).
BUDCORE_API core::Status validate(const LeaderElectionConfig& config);

// A Lease's spec, as read.
struct LeaseRecord {
  std::string holder;  // spec.holderIdentity ("" = free)
  std::int64_t lease_duration_seconds = 0;
  std::optional<core::Timestamp> acquire_time, renew_time;
  std::int64_t transitions = 0;  // spec.leaseTransitions
};
BUDCORE_API LeaseRecord read_lease(const core::Value& lease);

// "2026-11-29T01:35:36.123456Z": metav1.MicroTime, always six fractional digits.
BUDCORE_API std::string micro_time(core::Timestamp t);

// hostname_<8 hex>: client-go's usual identity, unique per process.
BUDCORE_API std::string default_identity();

class BUDCORE_API LeaderElector {
 public:
  // `client` must outlive the elector. An empty namespace is the client's context namespace; an
  // empty identity is default_identity(). Call validate() on the config first.
  LeaderElector(LeaderElectionConfig config, kubernetes::Client& client, std::shared_ptr<core::Clock> clock = {});
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // One attempt to acquire the Lease, or to renew it when held. true when this replica holds it
  // afterwards; false when another does (or won a race). Errors are transport/RBAC failures.
  core::Result<bool> try_acquire_or_renew();
  // Gives the Lease up when this replica holds it (holderIdentity "", leaseDurationSeconds 1).
  core::Status release();
  // Holds the Lease and renewed it less than renew_deadline ago: the one gate before a write.
  bool is_leader() const;
  // Counts the terms this replica has begun (acquisitions); a caller that sees it change
  // resynchronises, since another replica may have written meanwhile.
  std::uint64_t term() const noexcept { return term_.load(); }
  // try_acquire_or_renew() every retry period until *stop, then release(). Errors go to
  // `on_error` (may be empty) and are retried.
  void run(const std::atomic<bool>& stop, const std::function<void(const core::Error&)>& on_error = {});

  const LeaderElectionConfig& config() const noexcept { return config_; }
  const std::string& identity() const noexcept { return config_.identity; }

 private:
  core::Result<bool> acquire_existing(core::Value lease, core::Timestamp now);
  bool held_by_another(const LeaseRecord& r, const core::Value& spec, core::Timestamp now);
  core::Value spec_for(const LeaseRecord& prior, core::Timestamp now) const;
  void became(bool held, core::Timestamp now);

  LeaderElectionConfig config_;
  kubernetes::Client& client_;
  std::shared_ptr<core::Clock> clock_;
  mutable std::mutex mu_;
  bool held_ = false;
  core::Timestamp renewed_at_;
  std::atomic<std::uint64_t> term_{0};
  // The last spec seen and when it was first seen (client-go's observedRecord/observedTime):
  // a Lease still changing is held, whatever the clocks say.
  std::string observed_spec_;
  core::Timestamp observed_at_;
};

}  // namespace budcore::companion
