// Private state of AdmissionEngine: the resource tree (Kueue's resource_node.go math over dense
// per-(flavor, resource) arrays), queues, workloads, flavor assignment and classical preemption.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <boost/container/flat_map.hpp>
#include <boost/container/small_vector.hpp>

#include "budcore/quota/admission.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::quota {

using Amount = std::int64_t;  // milli-units, saturating
inline constexpr Amount kMaxAmount = std::numeric_limits<Amount>::max();
inline constexpr Amount kNoLimit = -1;

inline Amount sat_add(Amount a, Amount b) {
  Amount r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kMaxAmount : std::numeric_limits<Amount>::min();
  return r;
}
inline Amount sat_sub(Amount a, Amount b) {
  Amount r;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? kMaxAmount : std::numeric_limits<Amount>::min();
  return r;
}

// One ClusterQueue or Cohort. Arrays are indexed by fr = flavor * resource_count + resource.
struct Node {
  std::string name;
  bool is_cq = false;
  int parent = -1;
  std::vector<int> child_cqs, child_cohorts;
  std::vector<Amount> nominal, borrowing_limit, lending_limit, subtree, usage;
  double weight = 1.0;
};

// Kueue's DRS (pkg/cache/scheduler/fair_sharing.go): the largest share, over resources, of what
// a node borrows relative to what its parent could lend; divided by the fair weight.
struct Drs {
  double weight = 1.0;
  double ratio = 0.0;  // unweighted, per mille
  bool borrowing = false;
  std::vector<int> borrowed_frs;
  static Drs negative() {
    Drs d;
    d.ratio = -1;
    return d;
  }
};
int compare_drs(const Drs& a, const Drs& b);  // -1, 0, 1 (CompareDRS)

// The mode of one resource in one flavor (flavorassigner's preemptionMode), worst to best.
enum class PMode { NoFit = 0, NoCandidates, Preempt, Reclaim, Fit };
// A whole assignment's mode (FlavorAssignmentMode).
enum class AMode { NoFit = 0, Preempt, DeferredFit, Fit };

struct ResAssign {
  int flavor = -1;
  PMode mode = PMode::NoFit;
  int borrow = 0;
};

// resource -> assignment. Flat, in place for up to two resources: a fresh nomination builds
// one per pod set and flavor tried, and a node map allocated for each.
using ResAssignMap =
    boost::container::flat_map<int, ResAssign, std::less<int>, boost::container::small_vector<std::pair<int, ResAssign>, 2>>;

struct PodSetAssign {
  std::int32_t count = 0;
  ResAssignMap flavors;
  bool failed = false;
};

struct Assignment {
  boost::container::small_vector<PodSetAssign, 1> pod_sets;
  std::vector<std::pair<int, Amount>> usage;  // fr -> total, sorted by fr
  int borrowing = 0;
  AMode mode = AMode::NoFit;
  std::string reasons;  // why flavors did not fit, joined by "; " (one text: no vector of strings to build)
  boost::container::small_vector<std::int32_t, 2> counts;  // per pod set
  const std::string* failure = nullptr;  // a failed nomination's pending reason (interned by nominate)
  // (fr, amount) pairs for which get_targets found no victims while choosing a flavor: the same
  // question asked again for the whole assignment has the same answer.
  std::vector<std::pair<int, Amount>> no_victims;
  // The reasons of a head skipped in its cycle ([0] no longer fits, [1] overlapping targets),
  // interned on first use: a memoized assignment is skipped again and again.
  mutable std::array<const std::string*, 2> skipped = {nullptr, nullptr};
};

using FlavorOfResource =
    boost::container::flat_map<int, int, std::less<int>, boost::container::small_vector<std::pair<int, int>, 2>>;

struct Wl {
  // Fields a walk over a queue reads and writes come first (one cache line; a cohort tree's
  // workloads are walked after every finish).
  int cq = -1;                 // cluster queue index (via the local queue), -1 unknown
  int shape = -1;              // workloads of one shape get the same nomination in the same state
  // spec.priority and spec.creation_seq, here beside the fields a walk reads: queue order and
  // every cycle's entry order compare them.
  std::int32_t priority = 0;
  std::int64_t creation_seq = 0;
  WorkloadState state = WorkloadState::Pending;
  // Queue membership (CqState::order). A member is parked -- in Kueue's inadmissible list --
  // while parked_gen equals its cohort tree's generation; taken while it is a cycle's head.
  bool member = false, taken = false;
  bool taken_ahead = false;  // taken at or after its queue's cursor
  bool withdrawn = false;    // left its queue by withdraw(); the key may be added again
  bool removed = false;      // a free slot (AdmissionEngine::remove); reused by the next add
  std::uint64_t parked_gen = 0;
  // The pending reason: its own text, or a failed nomination's shared text (a head that fails
  // again as before gets a pointer, not a copy).
  const std::string* reason_shared = nullptr;
  Workload spec;
  std::string key;
  std::string queue_error;     // why it has no cluster queue
  // per pod set: (resource, per-pod milli); in place for one pod set of up to two resources
  using PerPod = boost::container::small_vector<std::pair<int, Amount>, 2>;
  boost::container::small_vector<PerPod, 1> per_pod;
  int adm_cq = -1;
  std::vector<std::pair<int, Amount>> usage;  // admitted fr usage
  // Per pod set: admitted count, and resource -> flavor. In place for the common one pod set of
  // one or two resources: every admission writes them.
  boost::container::small_vector<std::int32_t, 1> adm_counts;
  boost::container::small_vector<FlavorOfResource, 1> adm_ps_flavor;
  bool borrowing = false;
  std::int64_t reservation_seq = 0;
  bool admitted_by_engine = false;
  bool preempted = false;
  std::string reason_own;
  void set_reason(std::string r) {
    reason_own = std::move(r);
    reason_shared = nullptr;
  }
  const std::string& reason() const { return reason_shared != nullptr ? *reason_shared : reason_own; }

  // Moves cannot throw (boost's small_vector does not say so): the workload array grows by
  // moving, not copying, every workload.
  Wl() = default;
  Wl(const Wl&) = default;
  Wl(Wl&&) noexcept = default;
  Wl& operator=(const Wl&) = default;
  Wl& operator=(Wl&&) noexcept = default;
  ~Wl() = default;
};
static_assert(std::is_nothrow_move_constructible_v<Wl>);

// The pending reason of a head that failed (no fit, or no workloads to preempt); `scratch` holds
// it when it is not the assignment's own text.
std::string_view failure_reason(const Assignment& a, std::string& scratch);

// SatisfiesPreemptionPolicy (preemption/common).
bool satisfies_policy(const Wl& preemptor, const Wl& cand, PreemptionPolicy policy);

// Preemption candidates of one queue in Kueue's CandidatesOrdering (lower priority first, then
// the most recently reserved), so a preemptor reads them in order and stops at the first set
// of victims that makes room instead of sorting every admitted workload on every decision.
struct ByCandidateOrder {
  const AdmissionEngine::Impl* m = nullptr;
  bool operator()(int a, int b) const;
};

// Queue order: higher priority, earlier creation, then key.
struct HeapOrder {
  const AdmissionEngine::Impl* m = nullptr;
  bool operator()(int a, int b) const;
};

struct CqState {
  ClusterQueue spec;
  int node = -1;
  struct Group {
    std::vector<int> resources;  // covered resource ids
    std::vector<int> flavors;    // flavor ids in order
  };
  std::vector<Group> groups;
  std::unordered_map<int, int> group_of;  // resource -> group index
  int root = -1;  // its cohort tree's root node (tree generations live there)
  // What a nomination in this queue reads of the quota state when it can only preempt inside
  // the queue (no reclaim, no fair sharing): the usage of `memo_frs` (its flavors x resources)
  // on `memo_path` (its node up to the root) and the queue's own admitted workloads, counted by
  // `admitted_version`. A memoized nomination stays valid while all of them are unchanged.
  bool value_memo = false;
  // Its workloads' shapes include their creation order (a policy or fair sharing compares it),
  // so each shape is one workload: a fit is not memoized (it is admitted or skipped).
  bool shape_per_workload = false;
  std::vector<int> memo_path, memo_frs;
  std::uint64_t admitted_version = 0;
  // Every queued workload in queue order, parked or not, and each one's shape beside it (a run
  // of failing heads reads only these). Requeueing a cohort tree bumps the tree's generation
  // instead of moving workloads: parked members become active at once. Members before the
  // cursor were passed this generation (parked or taken), except those listed in `early`
  // (active members that joined or came back behind the cursor); they precede the cursor's.
  // order_shape ends with -1, one past the last member: a walk's scan stops there (and at a
  // stop written in place) without a bounds check per member.
  std::vector<int> order, order_shape = {-1};
  // The reason a walk of failing heads (skip_failing_cycles) gave each member, else null. A walk
  // writes here, not to every workload it passes (most are walked again before anyone reads
  // them); a member's reason is this entry while it is set (reason_of). Taking a head clears
  // its entry: every other reason is written to a head, or to a workload outside the queue.
  std::vector<const std::string*> order_reason;
  std::size_t cursor = 0;
  std::uint64_t cursor_gen = 0;
  std::vector<int> early;  // in queue order (few: a flat set)
  int parked_ahead = 0;  // parked members at or after the cursor (a sticky head taken out of turn)
  int sticky = -1;                 // preemptor workload kept first (BestEffortFIFO)
  const std::string* waiting_reason = nullptr;  // of a workload that joined it (interned)
  std::set<int, ByCandidateOrder> workloads;  // admitted + evicting workloads holding quota here
};

struct Entry {
  int wl = -1;
  std::shared_ptr<const Assignment> assignment;  // shared with the nomination memo
  std::vector<int> targets;
  enum class Outcome { None, Admitted, Preempting, Deferred, NoFit, NoCandidates, Skipped } outcome = Outcome::None;
};

struct BUDCORE_HIDDEN AdmissionEngine::Impl {
  mutable std::mutex mu;  // every public call holds it: reservations are atomic
  EngineOptions options;
  std::vector<ResourceFlavor> flavors;
  std::unordered_map<std::string, int> flavor_id, resource_id;
  std::vector<std::string> resource_names;
  std::vector<core::QuantityFormat> resource_format;
  int nres = 0;
  int pods_resource = -1;  // the id of "pods" (counted per pod when a queue covers it), -1 none
  std::vector<Node> nodes;  // cluster queues first, then cohorts
  std::vector<CqState> cqs;
  std::unordered_map<std::string, int> cq_id, cohort_node;
  std::unordered_map<std::string, int> lq_to_cq;  // "ns/name" -> cq
  std::unordered_map<std::string, std::int32_t> priority_class;
  std::vector<Wl> wls;
  std::unordered_map<std::string, int> wl_id;
  std::vector<int> free_slots;  // removed workloads' slots, reused so that wls stays bounded
  std::vector<int> evicting;  // victims to release at the next cycle start
  std::int64_t cycle = 0;
  std::int64_t reservation_clock = 0;
  // Nomination memo: a queue re-nominates every inadmissible workload after each finish in its
  // cohort tree (Kueue's requeue), and most of them fail again against the same state. A
  // nomination without preemption targets (a fit; no fit; no preemption candidates) is kept
  // per workload shape and reused while the quota state has not changed. `state_version` moves
  // on every lasting change: admission, eviction, release, finish, an admitted workload added.
  // In a queue with value_memo, a nomination made at another state version is still valid when
  // the state it read is unchanged (memoized_nomination), so a failure outlives changes elsewhere.
  struct Nomination {
    std::shared_ptr<const Assignment> assignment;
    int cq = -1;
    std::uint64_t admitted_version = 0;
    // memo_path x memo_frs of its queue, when it has value_memo: in place (read on every lookup)
    boost::container::small_vector<Amount, 4> usage;
  };
  void quota_changed(int cq);  // a lasting change of cq's usage or admitted workloads
  std::uint64_t state_version = 1;
  std::unordered_map<std::string, int> shape_ids;
  std::string shape_key_;  // shape_of's scratch
  // By shape: fits and failures, the last few states of each (a cohort often returns to a state
  // it was in, e.g. full again after a finish and an admission).
  struct ShapeMemo {
    std::vector<Nomination> ways;  // 4 in a queue with value_memo (else only this state's is valid)
    std::size_t next = 0;          // the way the next store replaces
    // The way last stored or found valid, and at which state version: checked first.
    std::uint64_t valid_version = 0;
    std::size_t valid_way = 0;
  };
  std::vector<ShapeMemo> nominations;
  // Derived-state memo. In a queue with value_memo, a nomination of a shape with one pod set and
  // no partial admission that reads no admitted workload (no preemption candidate can exist:
  // admitted_set_unread) reads the quota state only through, for each (flavor, resource) it may
  // use, the queue's available quota and the lowest subtree it fits in. Keyed by those values,
  // it stays valid across state versions: a cohort's usage moves on every admission, but the
  // few values these take repeat (a full cohort has nothing free for any of its queues).
  struct DerivedMemo {
    bool ready = false, usable = false;
    std::vector<std::pair<int, Amount>> inputs;  // (fr, request) pairs assign reads
    // Keys in place (two values per input; one or two inputs are common) and compared inline:
    // a lookup compares against up to kDerivedWays keys.
    using Key = boost::container::small_vector<Amount, 4>;
    struct Way {
      Key key;
      std::shared_ptr<const Assignment> assignment;
    };
    std::vector<Way> ways;
    std::size_t next = 0;
  };
  std::vector<DerivedMemo> derived_;  // by shape
  std::uint64_t fresh_nominations = 0;
  DerivedMemo::Key derived_key_;      // scratch
  bool admitted_set_unread(int w) const;
  DerivedMemo* derived_memo(int w, int shape);  // with derived_key_ filled, else null
  struct WithTargets {
    int w = -1;
    std::uint64_t version = 0;
    std::shared_ptr<const Assignment> assignment;
    std::vector<int> targets;
  } with_targets_;  // the last nomination that found victims (nominate)
  const Nomination* memoized_nomination(int shape);
  // The pending reason of a failed nomination of `shape` at this state (w: a workload of that
  // shape), else null. A shape not yet nominated at this state is nominated here, as the cycle
  // that takes the head would (a nomination reads the quota state, not the queues), so a run of
  // failing heads goes on through shapes met for the first time instead of stopping for a full
  // cycle. The answer is kept per shape for this state version: a walk asks once per member.
  const std::string* failure_now(int shape, int w);
  const std::string* failure_at(int shape, int w) {  // failure_now, its common case inline
    if (static_cast<std::size_t>(shape) < failure_now_.size()) {
      const auto& known = failure_now_[static_cast<std::size_t>(shape)];
      if (known.first == state_version) return known.second;
    }
    return failure_now(shape, w);
  }
  // Reason texts shared by many workloads (failures, skips, a queue's waiting text), each kept
  // once: a workload holds a pointer, and pointer equality is text equality.
  struct TextHash {
    using is_transparent = void;  // looked up by view: a text already kept costs no copy
    std::size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
  };
  std::unordered_map<std::string, std::unique_ptr<const std::string>, TextHash, std::equal_to<>> interned_texts;
  const std::string* intern_text(std::string_view text);
  std::string text_scratch_;  // a failure text being built (nominate)
  // Runs of cycles in which every head fails again as before, done in one step (pending_queue.cpp).
  // What the walk saw where it stopped: a queue's plain head that does not fail, or no head in
  // any queue (every queue in its plain state): then the next cycle is an empty one.
  enum class WalkEnd { Other, HeadOpen, NoHeads };
  std::int64_t skip_failing_cycles(CycleReport& report, WalkEnd& end);
  int shape_of(const Wl& wl);
  std::pair<std::shared_ptr<const Assignment>, std::vector<int>> nominate(int w);
  // nominate() after its shape memo missed (shape: -1 without the memo).
  std::pair<std::shared_ptr<const Assignment>, std::vector<int>> nominate_unmemoized(int w, int shape);
  bool trivial_cycle(CycleReport& report);
  std::vector<std::pair<int, const std::string*>> trivial_heads_;  // trivial_cycle's scratch
  struct SkipRun {
    CqState* q;
    bool strict;                     // StrictFIFO: its head fails forever, the others walk on
    const std::string* failure;      // of its head in the cycle being walked
  };
  std::vector<SkipRun> skip_runs_;  // skip_failing_cycles' scratch
  std::vector<SkipRun*> skip_walking_;
  std::vector<std::pair<std::uint64_t, const std::string*>> failure_now_;  // failure_now's, by shape
  // By shape + 1: the state version at which it is known to fail (0 for shape -1, the end of a
  // queue's order_shape), and by shape the failure text then. failure_now_ holds the same, but
  // a walk reads these dense arrays once per member passed. Sized with shape_ids.
  std::vector<std::uint64_t> failing_version_ = {0};
  std::vector<const std::string*> failing_text_;
  // The last full cycle, when it admitted and preempted nothing: its entries in processing
  // order. A later cycle at the same state whose heads match it slot by slot (repeat_cycle) has
  // the same outcome, e.g. a fitting head skipped behind another queue's reservation again
  // while that queue walks heads of one shape.
  struct CycleSlot {
    int cq, shape, wl;  // wl: -1 unless the entry had victims (chosen for that workload)
    int borrowing;
    Entry::Outcome outcome;
    const std::string* reason;
  };
  struct {
    std::uint64_t version = 0;  // 0: nothing recorded
    std::vector<CycleSlot> slots;
    std::vector<int> slot_of_cq;   // cq -> slot, -1 none
    std::vector<int> heads;        // repeat_cycle's scratch, by slot
  } last_cycle_;
  void record_cycle(const std::vector<Entry>& entries, const CycleReport& report);
  bool repeat_cycle(CycleReport& report);
  // Repeats of the last full cycle in a row (repeat_cycle each): how many; `unchanged` is set
  // when the last one changed nothing (the run of cycles ends there).
  std::int64_t repeat_cycles(CycleReport& report, bool& unchanged);
  std::int64_t repeat_rows(CycleReport& report);  // further repeats at once (repeat_cycles)
  std::vector<char> repeat_walking_;                // repeat_rows' scratch, by slot
  std::vector<int> repeat_row_;
  void early_insert(CqState& q, int w);
  bool early_erase(CqState& q, int w);

  // --- setup (engine.cpp)
  core::Status build(const QuotaConfig& config);
  int intern_resource(const std::string& name, core::QuantityFormat fmt);
  int fr_of(int flavor, int res) const { return flavor * nres + res; }
  int fr_count() const { return static_cast<int>(flavors.size()) * nres; }

  // --- resource tree math (resource_tree.cpp), Kueue resource_node.go
  Amount local_quota(int n, int fr) const;
  Amount local_available(int n, int fr) const;
  Amount available(int n, int fr) const;
  Amount cq_available(int cq, int fr) const;  // clamped at 0
  Amount potential_available(int n, int fr) const;
  void add_usage(int n, int fr, Amount v);
  void remove_usage(int n, int fr, Amount v);
  void add_wl_usage(int w);
  void remove_wl_usage(int w);
  void add_usage_list(int cq, const std::vector<std::pair<int, Amount>>& u);
  void remove_usage_list(int cq, const std::vector<std::pair<int, Amount>>& u);
  bool cq_borrowing_with(int cq, int fr, Amount v) const;
  bool node_borrowing_with(int n, int fr, Amount v) const;
  int node_height(int cohort) const;
  std::pair<int, bool> lowest_subtree_that_fits(int cq, int fr, Amount v) const;
  bool within_nominal(int n, const std::vector<int>& frs) const;
  bool fits(int cq, const std::vector<std::pair<int, Amount>>& usage) const;
  int root_of(int n) const;
  void recompute_tree();

  // --- flavor assignment and preemption (assign.cpp)
  Assignment assign(int w, std::span<const std::int32_t> counts, const Assignment* pinned);
  void pod_set_requests(const Wl& wl, std::size_t p, std::int32_t count, std::vector<std::pair<int, Amount>>& req) const;
  std::vector<std::pair<int, Amount>> assign_req_, assign_greq_, assign_one_;  // assign's scratch
  std::vector<int> assign_frs_;
  std::vector<int> get_targets(int w, const std::vector<int>& frs_need, const std::vector<std::pair<int, Amount>>& requests);
  struct TargetSource {  // a queue get_targets reads candidates from
    int cq;
    int lca;   // the lowest cohort it shares with the preemptor's queue (-1: the same queue)
    bool adv;  // hierarchical advantage
  };
  std::array<std::vector<TargetSource>, 3> target_sources_;  // get_targets' scratch
  std::array<std::vector<std::set<int, ByCandidateOrder>::const_iterator>, 3> target_pos_;
  std::vector<std::pair<int, Amount>> target_remaining_;
  std::pair<Assignment, std::vector<int>> initial_assignment(int w);
  const std::string& describe(Amount milli, int res);  // the amount as a quantity text (cached)
  std::vector<std::unordered_map<Amount, std::string>> describe_cache_;  // by resource
  std::vector<int> initial_frs_;  // initial_assignment's scratch
  bool candidate_less(int a, int b, int preemptor_cq) const;  // CandidatesOrdering
  bool uses_any(int w, const std::vector<int>& frs) const;
  void fill_back(std::vector<int>& targets, const std::function<bool()>& fits_now);

  // --- fair sharing (fair_sharing.cpp)
  Drs drs(int node) const;
  std::vector<int> fair_targets(int w, const std::vector<int>& frs_need, const std::vector<std::pair<int, Amount>>& requests);
  std::size_t fair_next(const std::vector<Entry>& entries, const std::vector<char>& done);

  // --- queues (pending_queue.cpp); the cycle is in cycle.cpp
  std::vector<std::uint64_t> tree_gen;  // per root node; requeue_tree bumps it
  bool heap_less(int a, int b) const;
  const std::string& reason_of(int w) const;  // the pending reason (a walk's, else its own)
  bool parked(const Wl& wl) const { return wl.parked_gen != 0 && wl.parked_gen == tree_gen[cqs[wl.cq].root]; }
  bool active(int w) const { return wls[w].member && !wls[w].taken && !parked(wls[w]); }
  void sync_queue(CqState& q);
  std::size_t index_of(const CqState& q, int w) const;
  int queue_head(CqState& q);   // first active member (the sticky preemptor first), -1 none
  void take_head(int w);        // the head leaves its queue for this cycle
  void push_heap(int w);        // joins (or returns to) its queue, active
  void make_inadmissible(int w);  // a taken head is parked until its tree is requeued
  // A pending workload leaves its ClusterQueue: members, early list and sticky head.
  void leave_queue(int w);
  void requeue_tree(int node);
  // walk_end: what a walk just saw of the heads (skip_failing_cycles): one that does not fail
  // (so the cycle cannot be trivial_cycle's), or none at all (an empty cycle).
  CycleReport run_cycle(WalkEnd walk_end = WalkEnd::Other);
  std::vector<Entry> cycle_entries_;  // run_cycle's, kept for its capacity
  // A cycle's temporary usage (reservations, preemptors' usage), undone at its end: (cq, fr,
  // amount) in order, and where each entry's list starts.
  struct TempUsage {
    int cq, fr;
    Amount v;
  };
  std::vector<TempUsage> temp_usage_;
  std::vector<std::size_t> temp_starts_;
  void requeue(int w, Entry::Outcome outcome, CycleReport& report);  // step 5, a head not admitted
  // Step 4's order of a cycle's entries (lower borrowing level, higher priority, earlier
  // creation, then key: a total order); repeat_cycle checks a repeat against the same order.
  bool entry_before(int borrowing_x, int x, int borrowing_y, int y) const {  // inline: every cycle sorts
    if (borrowing_x != borrowing_y) return borrowing_x < borrowing_y;
    const Wl& a = wls[x];
    const Wl& b = wls[y];
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.creation_seq != b.creation_seq) return a.creation_seq < b.creation_seq;
    return a.key < b.key;
  }
  void admit(int w, const Assignment& a);
  core::Status add_workload(const Workload& w, bool enqueue, int* index = nullptr);
  void remove_slot(int w);  // forgets workload w (its quota already released) and frees its slot
};

}  // namespace budcore::quota

#pragma GCC visibility pop
