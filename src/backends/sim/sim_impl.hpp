// Private state of the simulated cluster: compact run records (one per live job), the
// simulator's own queue per ClusterQueue (only the heads are in the admission engine), timers,
// the node inventory's free slots and the outbox of events.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "budcore/backend/sim_cluster.hpp"
#include "budcore/gpu/policy.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::backend {

namespace sim {

inline constexpr std::int64_t kNanos = 1'000'000'000;

enum class Phase : std::uint8_t {
  Free,        // an unused slot
  Waiting,     // its time window is closed
  Queued,      // in the simulator's queue (not yet among the engine's heads)
  Heads,       // pending in the admission engine
  Evicting,    // preempted: holds quota until the engine's next cycle releases it
  Admitted,    // holds quota, not yet placed on a node
  Starting,    // placed, pod starting (start_latency)
  Running,
};

// What a run's job said under spec.sim, and the outputs a success adds (rarely set: shared).
struct Extras {
  std::string fail_message;
  core::Value outputs;  // a map
};

// A run placed through the gpu layer (a placement policy is configured): its request as a
// gpu::Task, where it went, and why it waits when no node takes it.
struct GpuHold {
  int flavor = -1;  // index into Impl::gpu_flavors
  gpu::Task task;
  std::string mig_profile;  // a MIG pool: the profile, task.num_gpu instances of it
  gpu::Placement placement;
  std::vector<std::pair<int, std::size_t>> mig;  // (GPU, instance) held
  bool placed = false;
  bool never = false;   // its request can never be placed (the reason is in `waiting`)
  std::string waiting;  // why no node takes it (empty once placed)
};

// The gpu layer's view of one flavor's nodes, and the policy that places on them.
struct GpuFlavor {
  std::string flavor;
  gpu::Pool pool;
  std::unique_ptr<gpu::Policy> policy;
  std::vector<int> sim_nodes;   // pool node -> Impl::nodes
  std::vector<gpu::Task> seen;  // the distinct requests placed so far: FGD's task mix
  bool stale = true;            // the policy must be made again (a new request for FGD)
};

struct Run {
  core::Id tenant;
  core::Id job_id;
  std::int64_t run = 0;
  std::int64_t queue_seq = 0;
  std::int64_t duration_ns = 0;     // how long it runs once started
  std::int64_t fail_after_ns = -1;  // >= 0: fails after this long
  std::int64_t max_duration_ns = 0; // 0: no limit
  std::int64_t deadline_ns = 0;     // 0: none
  std::int64_t admitted_ns = 0;
  std::int64_t started_ns = 0;
  std::int32_t priority = 0;
  std::uint32_t shape = 0;  // index into Impl::shapes
  std::uint32_t lq = 0;     // index into Impl::lqs
  std::uint32_t gen = 0;    // bumped on every phase change: older timers are stale
  std::uint32_t epoch = 0;  // bumped when the slot is freed
  Phase phase = Phase::Free;
  bool deadline_reported = false;
  std::optional<core::TimeWindow> window;
  std::string name;  // the job's name (outputs)
  std::shared_ptr<const Extras> extras;
  std::unique_ptr<Placement> placement;  // Admitted and later
  std::int32_t node = -1;                // the node it occupies (placed), -1 none
  std::vector<std::int32_t> slots;       // GPU slots it occupies on that node
  std::int64_t node_cpu = 0;             // cpu (milli) and memory (bytes) it holds on that node
  std::int64_t node_memory = 0;
  std::unique_ptr<GpuHold> gpu;          // placed through the gpu layer (a placement policy)
};

// Queue order of Kueue's heap: higher priority, then earlier queue_seq.
struct QueueKey {
  std::int32_t neg_priority;
  std::int64_t queue_seq;
  std::uint32_t slot;
  friend bool operator<(const QueueKey& a, const QueueKey& b) {
    if (a.neg_priority != b.neg_priority) return a.neg_priority < b.neg_priority;
    if (a.queue_seq != b.queue_seq) return a.queue_seq < b.queue_seq;
    return a.slot < b.slot;
  }
};

enum class TimerKind : std::uint8_t { WindowOpen, WindowClose, Start, End, Deadline };

struct Timer {
  std::int64_t at;
  std::uint32_t slot;
  std::uint32_t gen;    // phase timers: valid while the run's gen is unchanged
  std::uint32_t epoch;  // every timer: valid while the slot holds the same run
  TimerKind kind;
  friend bool operator>(const Timer& a, const Timer& b) {
    if (a.at != b.at) return a.at > b.at;
    if (a.slot != b.slot) return a.slot > b.slot;
    return static_cast<int>(a.kind) > static_cast<int>(b.kind);
  }
};

struct LocalQueueRef {
  std::string ns;
  std::string name;
  int cq = -1;  // index into Impl::cq_names
};

struct Node {
  std::string name;
  int pool = -1;
  std::int64_t free_cpu_milli = -1;  // -1: not limited
  std::int64_t free_memory = -1;
  std::vector<char> used;  // per GPU slot
  std::int64_t free_slots = 0;
};

}  // namespace sim

struct BUDCORE_HIDDEN SimCluster::Impl {
  const core::Clock* clock = nullptr;
  SimClusterOptions options;
  std::unique_ptr<quota::AdmissionEngine> engine;

  std::vector<sim::Run> runs;
  std::vector<std::uint32_t> free_runs;
  std::unordered_map<core::Id, std::uint32_t> by_job;

  std::vector<quota::PodSet> shapes;
  std::map<std::string, std::uint32_t> shape_ids;
  std::map<std::pair<std::uint32_t, int>, std::string> never_admitted_by;  // (shape, cq) -> never_admitted()
  std::vector<sim::LocalQueueRef> lqs;
  std::map<std::string, std::uint32_t> lq_ids;  // "ns/name"
  std::vector<std::string> cq_names;
  std::map<std::string, int, std::less<>> cq_index;
  std::vector<std::set<sim::QueueKey>> waiting_heads;  // per cq: queued, not in the engine
  std::vector<std::set<sim::QueueKey>> engine_heads;   // per cq: pending in the engine
  std::vector<char> dirty;                             // per cq: refill its heads
  std::deque<std::uint32_t> unplaced;                  // admitted, waiting for a node (FIFO)
  mutable std::priority_queue<sim::Timer, std::vector<sim::Timer>, std::greater<>> timers;  // stale ones dropped lazily

  std::vector<sim::Node> nodes;
  std::map<std::string, std::vector<int>, std::less<>> nodes_by_flavor;
  std::map<std::string, std::string, std::less<>> flavor_gpu_resource;
  std::vector<sim::GpuFlavor> gpu_flavors;               // with a placement policy
  std::map<std::string, int, std::less<>> gpu_flavor_of;  // flavor -> index into gpu_flavors

  std::deque<ClusterEvent> outbox;
  std::uint64_t event_seq = 0;
  std::size_t counts[8] = {};  // runs per phase

  // --- sim_cluster.cpp
  struct Ending {
    std::int64_t after;  // nanoseconds after the start
    ClusterEventKind kind;
    bool timeout;
  };
  static Ending ending(const sim::Run& r);
  std::uint32_t alloc_run();
  void free_run(std::uint32_t slot);
  void set_phase(std::uint32_t slot, sim::Phase p);
  sim::QueueKey key_of(std::uint32_t slot) const;
  std::string engine_key(std::uint32_t slot) const;
  quota::Workload workload_of(std::uint32_t slot) const;
  // "can never be admitted as the quota is configured: <why>" when the run's shape asks its
  // ClusterQueue for more than it can ever give (AdmissionEngine::capacity_shortfall), memoized
  // per (shape, ClusterQueue): the quota never changes. Empty: it can be admitted.
  const std::string& never_admitted(std::uint32_t slot);
  ClusterEvent& emit(ClusterEventKind kind, std::uint32_t slot, std::int64_t at);
  core::Result<std::uint32_t> add_run(const WorkloadRequest& r);
  void enqueue(std::uint32_t slot, std::int64_t now);  // Queued or Waiting by its window
  void withdraw(std::uint32_t slot);  // out of every queue / the engine / its node
  void refill(int cq);
  void refill_dirty();
  void admission(std::int64_t now);
  void on_admitted(std::uint32_t slot, std::int64_t now);
  void start(std::uint32_t slot, std::int64_t now);
  void end_run(std::uint32_t slot, std::int64_t now);
  core::Value outputs(std::uint32_t slot) const;  // job_id, url, node, spec.sim.outputs
  void fire(const sim::Timer& t);
  void usage(std::uint32_t slot, std::int64_t end);
  void schedule(std::uint32_t slot, sim::TimerKind kind, std::int64_t at);
  void advance(std::int64_t now);
  void mark_tree_dirty();

  // --- sim_inventory.cpp
  core::Status build_inventory();
  bool place(std::uint32_t slot);  // true when placed (or nothing constrains it)
  bool place_gpu(std::uint32_t slot, int flavor_index, const std::string& gpu_res, std::int64_t count,
                 std::int64_t need_cpu, std::int64_t need_mem);  // through the gpu layer's policy
  // MIG instances of the run's profile, each where gpu::place_mig puts it (re-partitioning a GPU
  // when that lets it fit), all on one node: true when placed.
  bool place_mig_run(sim::GpuFlavor& gf, sim::GpuHold& h);
  // h.task.num_gpu instances on pool node n (the run's CPU and memory with the first); the pool
  // changes only when all fit. Runs on a GPU it re-partitions keep their instances (remap_mig).
  bool place_mig_on(gpu::Pool& pool, std::size_t n, sim::GpuHold& h);
  // GPU g of pool node n of flavor f was re-partitioned from `before`: each run placed there
  // holds its instances at their index in the new layout, and its lanes say so.
  void remap_mig(int f, std::size_t n, int g, const std::vector<gpu::MigInstance>& before);
  // The run's node and device lanes from its GpuHold ("<node>/gpu<g>[/mig<i>|/slice<k>]").
  void set_gpu_lanes(std::uint32_t slot);
  // Why no node of the flavor takes the run (GpuHold::waiting).
  std::string placement_wait(const sim::GpuFlavor& gf, const sim::GpuHold& h) const;
  void release_node(std::uint32_t slot);
  void place_waiting(std::int64_t now);
  // A run a defragmentation plan moved (already re-placed in the pool): its segment so far is
  // metered and it starts over where it now is, keeping its quota.
  void relocate(std::uint32_t slot, std::int64_t now, const std::string& why);
};

}  // namespace budcore::backend

#pragma GCC visibility pop
