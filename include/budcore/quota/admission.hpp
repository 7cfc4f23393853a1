// budcore::quota::AdmissionEngine — Kueue's scheduler in-process: one call to run_cycle() is one
// Kueue scheduling cycle (one head per ClusterQueue, flavor assignment, borrowing and lending in
// the cohort tree, classical preemption, partial admission). Quota amounts are milli-units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/result.hpp"
#include "budcore/export.h"
#include "budcore/quota/config.hpp"
#include "budcore/quota/workload.hpp"

namespace budcore::quota {

// Kueue's fairSharing.preemptionStrategies (S2-a, S2-b).
enum class FairSharingStrategy { LessThanOrEqualToFinalShare, LessThanInitialShare };

struct EngineOptions {
  // Kueue's fairSharing config: entries of a cohort tree are admitted in the order of a DRS
  // tournament and preemption across queues follows the fair-sharing strategies.
  bool fair_sharing = false;
  // Empty: Kueue's default [LessThanOrEqualToFinalShare, LessThanInitialShare].
  std::vector<FairSharingStrategy> fair_sharing_strategies;
  // Reuse a failed nomination for a workload of the same shape while the quota state has not
  // changed (same decisions, fewer flavor searches). Off only to check that it changes nothing.
  bool memoize_nominations = true;
};

enum class WorkloadState {
  Pending,   // queued (active heap or inadmissible)
  Admitted,  // holds quota
  Evicting,  // chosen as a preemption victim; holds quota until the next cycle starts
};

struct WorkloadStatus {
  std::string key;  // namespace/name
  WorkloadState state = WorkloadState::Pending;
  std::optional<Admission> admission;  // set while Admitted/Evicting
  bool borrowing = false;              // admitted above nominal on some flavor/resource
  bool admitted_by_engine = false;     // admitted during this engine's life (not given as input)
  bool preempted = false;              // was evicted by preemption at least once
  std::string pending_reason;          // why it is still waiting, with numbers
};

struct CycleReport {
  std::vector<std::string> admitted;   // keys admitted in this cycle
  std::vector<std::string> preempted;  // victims whose eviction was issued in this cycle
  std::vector<std::string> released;   // victims whose quota was released at the start
  bool changed = false;                // anything happened besides heads returning unchanged
};

// Quota per (cluster queue or cohort, flavor, resource), milli-units.
struct UsageCell {
  std::int64_t nominal = 0;    // own quota (a cohort: its own, not its members')
  std::int64_t used = 0;       // a cohort: what its members use beyond what they keep
  std::int64_t borrowed = 0;   // used above nominal (a cohort: above its subtree quota)
  // Unused lendable quota of this node that its siblings borrow, attributed to the lenders of
  // one parent in proportion to what each leaves idle.
  std::int64_t lent = 0;
  std::int64_t available = 0;  // what one more workload could get now, borrowing included
};
using UsageView = std::map<std::string, std::map<std::string, std::map<std::string, UsageCell>>>;

// Thread-safety: every member function may be called from any thread; calls are serialized by
// one internal lock.
class BUDCORE_API AdmissionEngine {
 public:
  // Validates the configuration (see validate()).
  static core::Result<AdmissionEngine> create(const QuotaConfig& config, EngineOptions options = {});
  AdmissionEngine(AdmissionEngine&&) noexcept;
  AdmissionEngine& operator=(AdmissionEngine&&) noexcept;
  ~AdmissionEngine();

  // Queues a workload, or charges its quota when `admitted` is set. Errors name the field:
  // unknown local queue or cluster queue in `admitted`, unknown flavor, duplicate key,
  // count < 1, min_count > count, negative requests.
  core::Status add_workload(const Workload& workload);
  // Room for this many workloads in all, so that adding them moves none already added (a hint:
  // more may still be added).
  void reserve(std::size_t workloads);
  // The workload finished or was deleted: releases its quota and requeues what waits in its
  // cohort tree. NotFound for an unknown key.
  core::Status finish(std::string_view key);
  // A pending workload leaves its queue and is forgotten, so the same key may be added again
  // later (a schedule window closed; a job was cancelled before admission). NotFound for an
  // unknown key, Conflict for a workload that holds quota (finish() releases those).
  core::Status withdraw(std::string_view key);
  // Forgets the workload entirely, whatever its state: a pending one leaves its queue, an
  // admitted or evicting one releases its quota (as finish() does); its key may be added again
  // and its memory is reused. A long-lived engine (the simulated cluster) removes every
  // workload that ended, so its size follows the live workloads. NotFound for an unknown key.
  core::Status remove(std::string_view key);
  // Adds a LocalQueue ("namespace/name" -> cluster queue) to a running engine (idempotent);
  // Invalid for an unknown cluster queue or a queue that points elsewhere.
  core::Status add_local_queue(const LocalQueue& queue);
  bool has_local_queue(std::string_view key) const;

  // Reserves quota for `workload` at once when it fits now without preemption (flavor assignment
  // as in a cycle, borrowing allowed). Atomic with respect to every other call on this engine:
  // concurrent submitters can never over-commit a queue or cohort. On success the workload is
  // Admitted and its Admission returned. Otherwise the workload is not kept: QuotaExceeded with
  // the reason ("insufficient unused quota for cpu in flavor default, 2 more needed"), NotFound
  // for an unknown local queue, Invalid for a malformed workload or duplicate key.
  core::Result<Admission> try_reserve(const Workload& workload);

  CycleReport run_cycle();
  // Runs cycles until one admits, preempts or releases something, or one changes nothing, and
  // reports what they did together (`cycles`, if given, counts them). The outcome is that of
  // calling run_cycle() as often, but a run of cycles in which every queue's head fails again
  // as one of its shape already did at this quota state is done in one step: after a finish,
  // Kueue retries everything pending in the cohort tree, and most of it fails the same way.
  CycleReport run_until_decision(std::int64_t* cycles = nullptr);
  // Runs cycles until one changes nothing (or max_cycles); returns how many ran.
  int run_until_quiescent(int max_cycles = 1'000'000);
  // How many flavor assignments were computed afresh so far; every other nomination came from
  // the nomination memo. A diagnostic: it shows the memo at work (and its cost when it misses).
  std::uint64_t fresh_nominations() const;

  std::optional<WorkloadStatus> status(std::string_view key) const;  // nullopt: unknown key
  std::vector<WorkloadStatus> statuses() const;  // in the order workloads were added
  UsageView cluster_queue_usage() const;
  UsageView cohort_usage() const;
  // Per LocalQueue ("namespace/name"): what its admitted workloads use (used, borrowed = the
  // part of it admitted while the queue's ClusterQueue was above nominal); nominal, lent and
  // available stay 0.
  UsageView local_queue_usage() const;
  // The most of `resource` in `flavor` that a workload of `cluster_queue` could ever hold with
  // nothing else admitted: nominal quota plus everything it may borrow up the cohort tree
  // (milli-units). nullopt for an unknown queue, flavor or resource.
  std::optional<std::int64_t> max_capacity(std::string_view cluster_queue, std::string_view flavor,
                                           std::string_view resource) const;
  // A resource's quantity format as the configuration wrote it (for printing).
  core::QuantityFormat format_of(std::string_view resource) const;
  // Why `workload` can never be admitted by `cluster_queue` whatever else runs: the first
  // resource one of its pod sets (at min_count when it has one) needs more of than any flavor
  // of the queue can ever give ("requests 16 nvidia.com/gpu but training-jobs can never
  // provide more than 8"). Empty when every resource fits some flavor's max_capacity; that
  // does not promise admission (flavors are chosen per resource group, node labels apply).
  std::string capacity_shortfall(const ClusterQueue& cluster_queue, const Workload& workload) const;

  struct Impl;  // opaque; public only so src/quota helpers can name it

 private:
  explicit AdmissionEngine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace budcore::quota
