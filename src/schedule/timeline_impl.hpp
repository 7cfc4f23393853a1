// Private state of schedule::Timeline: jobs with their live facts, the cohort-tree partition,
// and the discrete-event simulation (simulate.cpp) that fills the estimates.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "budcore/pipeline/cron.hpp"
#include "budcore/schedule/timeline.hpp"

#pragma GCC visibility push(hidden)  // private to the library: not exported

namespace budcore::schedule {

// A window in its zone: open now? when does it next open / close?
class WindowClock {
 public:
  WindowClock(Window w, pipeline::TimeZone zone) : window_(std::move(w)), zone_(std::move(zone)) {}
  bool open(core::Timestamp t) const;
  core::Timestamp next_open(core::Timestamp t) const;
  std::optional<core::Timestamp> next_close(core::Timestamp t) const;  // nullopt: open all day
  const Window& window() const { return window_; }

 private:
  Window window_;
  pipeline::TimeZone zone_;
};

// What the platform reported about a job (the simulation starts from these at `now`).
enum class Fact { Pending, Running, Finished, Failed, Cancelled };
inline bool ended(Fact f) { return f == Fact::Finished || f == Fact::Failed || f == Fact::Cancelled; }

// Quota one admitted job holds: (cluster queue, flavor, resource) -> milli-units.
using UsageKey = std::tuple<std::string, std::string, std::string>;

struct Job {
  // Fields the simulation reads and writes at every event come first (a tree's jobs are walked
  // on every update; the rest of a job is cold).
  int tree = -1;                 // cohort tree, -1 when its LocalQueue does not exist
  Fact fact = Fact::Pending;
  enum class State { Waiting, Queued, Running, Done, Never } state = State::Waiting;
  bool submitted = false;     // scratch of one simulation
  bool needs_reason = false;  // entered the engine at this instant: read its pending reason
  int deps_left = 0;
  WaitReason wait = WaitReason::None;
  WaitReason enter_cause = WaitReason::None;
  core::Timestamp start, end;
  std::uint64_t end_gen = 0, close_gen = 0, open_gen = 0;

  JobInput in;
  std::string name, key;
  std::string no_tree_reason;
  std::vector<int> deps, dependents;
  std::optional<WindowClock> clock;
  core::Timestamp actual_end;                 // Finished / Failed / Cancelled
  std::vector<core::Timestamp> actual_preemptions;

  // ---- simulation output (kept between simulations of other trees)
  struct Run {
    core::Timestamp start, end;
    std::vector<std::pair<UsageKey, std::int64_t>> usage;
  };
  std::vector<Run> runs;  // each admission until its end or preemption
  std::vector<core::Timestamp> preempted_at;
  std::string cluster_queue;
  std::map<std::string, std::map<std::string, std::string>> flavors;
  std::string wait_detail;
  std::string never_reason;
  QueueBlocker blocked_behind;  // the StrictFIFO head it never passes (head "" otherwise)
  std::string enter_detail;  // scratch of one simulation
};

struct Tree {
  quota::QuotaConfig config;   // only this tree's cohorts, queues and local queues
  std::vector<int> jobs;
  // Its jobs by workload key (namespace/name): the engine names the jobs it admits and preempts
  // by key, and a tree's own index is small enough to stay in cache while it is simulated.
  std::unordered_map<std::string, int> job_of_key;
  std::set<int> dependent_trees;  // trees with jobs that depend on jobs here
  std::vector<std::string> warnings;  // from its last simulation
  std::optional<core::Timestamp> last_end;  // of its jobs shown in the result
};

struct BUDCORE_HIDDEN Timeline::Impl {
  quota::QuotaConfig config;
  quota::EngineOptions options;
  core::Timestamp now;
  core::Duration horizon;
  std::vector<Job> jobs;
  std::unordered_map<std::string, int> by_name;  // output name and namespace/name -> job
  std::vector<Tree> trees;
  std::unordered_map<std::string, int> tree_of_cq;
  TimelineResult result;
  std::vector<int> result_job_tree, result_usage_tree;  // the tree of each result.jobs / .usage entry
  std::vector<JobEstimate> spare_jobs;  // collect's merge buffers (emptied, capacity kept)
  std::vector<UsageStep> spare_usage;
  std::vector<int> treeless;       // jobs whose LocalQueue does not exist (never run)
  std::vector<int> with_deadline;  // jobs that have a deadline, in job order
  int last_trees = 0;
  std::map<int, quota::AdmissionEngine> probes;  // per tree: checks a workload before it is kept

  core::Status build(TimelineInput input);
  core::Status add_job(JobInput in, const std::string& path);
  core::Status link(const std::vector<int>& new_jobs, const std::vector<std::string>& paths);
  // Re-simulates these trees from `now`; other trees' estimates stay as they are.
  core::Status simulate(const std::set<int>& trees);
  std::set<int> affected(int job) const;  // its tree plus every tree depending on it
  // The result after these trees were simulated (collect.cpp): their entries are replaced.
  void collect(const std::set<int>& trees);
  static bool shown(const Job& j);  // has an entry in result.jobs
  core::Result<int> job_of(std::string_view name) const;
  core::Status move_now(core::Timestamp at);
  core::Status fact(std::string_view name, core::Timestamp at, std::initializer_list<Fact> allowed, const char* conflict,
                    const std::function<core::Status(Job&)>& apply);
};

}  // namespace budcore::schedule

#pragma GCC visibility pop
