// budcore::companion — budcore beside an existing Kueue: an AdmissionCheck controller that
// answers Kueue's admission checks for budgets and time windows on every Workload, whoever
// created it (docs/kueue-companion.md).
//
// Kueue reserves quota for a Workload, lists the AdmissionChecks of its ClusterQueue in
// status.admissionChecks as Pending, and admits it only when every one is Ready. The companion
// owns the AdmissionChecks whose spec.controllerName is one of its controller names: it marks
// them Active (Kueue holds a ClusterQueue inactive until then) and writes the state of its
// checks on each Workload through the status subresource:
//   budget  Ready within the tenant's budgets; Retry when the Workload's price would pass a
//           budget's soft limit (held, checked again after retry_after_seconds); Rejected
//           (Kueue deactivates the Workload for good) when it would pass a hard limit.
//   window  Ready inside the Workload's window; outside it Retry, held until the next opening,
//           which the message names.
// Holding releases quota. Kueue 0.19 keeps a Workload's quota reserved while a Retry with
// requeueAfterSeconds waits, and reserves again at once after a Retry without it; so the
// companion deactivates a held Workload (spec.active=false, annotation budcore.io/held-until),
// which makes Kueue evict it and keep it out of the queue, and when the hold ends sets its check
// back to Pending and reactivates it. It never reactivates a Workload it did not hold.
// A Workload whose annotations cannot be read (a malformed window or duration) is Rejected with
// a message naming the annotation, the value and why.
//
// The decision functions (read_workload, price_workload, decide_budget, decide_window) are pure;
// Companion does the I/O: list + watch of Workloads (relist on 410), the owner Job's
// annotations, decisions kept in a Store so that a restart neither counts a Workload's price
// twice nor changes a decision it made.
//
// Several replicas elect one writer on a coordination.k8s.io Lease when the config has a
// leader_election section (companion/leader.hpp): every write passes one gate that only the
// Lease's holder passes.
//
// Thread-safety: a Companion is driven by one thread (run() renews the Lease on a second one);
// stop() may be called from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/companion/leader.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/core/id.hpp"
#include "budcore/core/money.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/export.h"
#include "budcore/kubernetes/client.hpp"
#include "budcore/schedule/timeline.hpp"

namespace budcore::companion {

// Annotations a Workload (or the Job that owns it) may carry.
inline constexpr std::string_view kDurationAnnotation = "budcore.io/expected-duration";  // "2h", "90m", "PT1H"
inline constexpr std::string_view kWindowAnnotation = "budcore.io/window";  // "22:00-06:00" or "22:00-06:00 Europe/Berlin"
// Set by the companion on a Workload it holds (deactivated) until that instant.
inline constexpr std::string_view kHeldUntilAnnotation = "budcore.io/held-until";

enum class CheckKind : std::uint8_t { Budget, Window };
BUDCORE_API std::string_view to_string(CheckKind k) noexcept;  // "budget", "window"

// Kueue's AdmissionCheckState.state.
enum class CheckState : std::uint8_t { Pending, Ready, Retry, Rejected };
BUDCORE_API std::string_view to_string(CheckState s) noexcept;  // "Pending", "Ready", "Retry", "Rejected"
BUDCORE_API core::Result<CheckState> parse_check_state(std::string_view text);

// One controller name and the checks its AdmissionChecks run (both, when one AdmissionCheck
// should do both).
struct Controller {
  std::string name;  // spec.controllerName, e.g. "budcore.io/budget"
  std::vector<CheckKind> checks;
};

// Which tenant a Workload belongs to: by its namespace, or by a label on the Workload.
struct TenantRule {
  std::string namespace_;                // exact namespace, or
  std::string label_key, label_value;    // label key=value on the Workload
  core::Id tenant_id;
};

struct QueueSettings {
  std::optional<core::Duration> default_duration;  // for Workloads that say nothing of their duration
  std::optional<schedule::Window> window;          // for Workloads without a window annotation
};

// Estimated start and end annotations on pending Workloads (companion/estimates.hpp).
struct EstimatesConfig {
  bool enabled = false;
  std::int32_t refresh_seconds = 5;  // at most one refresh (and one patch per Workload) per this many seconds
  std::int32_t writers = 8;          // patches (and owner reads) sent at once, one connection each
};

// The companion's configuration (YAML or JSON):
//   schema_version: 1
//   controllers:                              # required, at least one
//     - {name: budcore.io/budget, checks: [budget]}
//     - {name: budcore.io/window, checks: [window]}
//   cluster_queues: [team-a, team-b]          # ClusterQueues judged (absent: every one using the checks)
//   tenants:                                  # first match wins
//     - {namespace: team-a, tenant_id: 0190e6f4-...}
//     - {label: "budcore.io/tenant=b", tenant_id: 0190e6f5-...}
//   price_book: prices.yaml                   # a file (relative to this file) or the book inline
//   budgets: budgets.yaml                     # a file or inline {budgets: [...]} (cost/budget.hpp)
//   soft_limit_percent: 90                    # Retry once a budget's spend would pass this share (default 100)
//   retry_after_seconds: 300                  # requeueAfterSeconds of a budget Retry (default 300)
//   unmapped_tenant: ready                    # ready | reject: a Workload no tenant rule matches
//   gpu_resources: [nvidia.com/gpu]           # resources priced as GPUs (default)
//   flavor_gpu_types: {a100: nvidia-a100-80gb}  # flavor -> price book GPU type (default: the flavor's name)
//   default_duration: 1h                      # for every queue (else a Workload without one is Rejected)
//   queues:
//     team-a: {default_duration: 2h, window: {start: "22:00", end: "06:00", zone: UTC}}
//   store: sqlite:///var/lib/budcore/companion.db   # the CLI's default: sqlite:budcore-companion.db
//   kubeconfig: /etc/budcore/kubeconfig       # default: $KUBECONFIG, ~/.kube/config, in-cluster
//   leader_election:                          # present: replicas elect one writer on a Lease
//     lease_name: budcore-kueue-companion     # (default)
//     namespace: budcore-system               # default: the kubeconfig context's namespace
//     identity: companion-0                   # unique per replica (default: hostname_<random>)
//     lease_duration: 15s                     # whole seconds (default 15s)
//     renew_deadline: 10s                     # < lease_duration (default 10s)
//     retry_period: 2s                        # renew_deadline > 1.2 x retry_period (default 2s)
//   estimates: {enabled: true, refresh_seconds: 5, writers: 8}  # estimated start/end annotations (default off)
// Unknown keys are errors; every error names the field path, the value and why.
struct BUDCORE_API CompanionConfig {
  static constexpr int kSchemaVersion = 1;
  std::vector<Controller> controllers;
  std::set<std::string> cluster_queues;
  std::vector<TenantRule> tenants;
  cost::PriceBook price_book;
  cost::BudgetSet budgets;
  std::int64_t soft_limit_percent = 100;
  std::int32_t retry_after_seconds = 300;
  bool reject_unmapped_tenant = false;
  std::vector<std::string> gpu_resources{"nvidia.com/gpu"};
  std::map<std::string, std::string> flavor_gpu_types;
  std::optional<core::Duration> default_duration;
  std::map<std::string, QueueSettings> queues;
  std::string store;
  std::string kubeconfig;  // the CLI's --kubeconfig wins over it
  std::optional<LeaderElectionConfig> leader_election;  // absent: a single replica, no Lease
  EstimatesConfig estimates;

  // `base_dir` resolves the price book and budget file names.
  static core::Result<CompanionConfig> from_value(const core::Value& document, const std::string& base_dir = ".");
  static core::Result<CompanionConfig> from_text(std::string_view text, const std::string& base_dir = ".");
  static core::Result<CompanionConfig> load_file(const std::string& path);

  // The checks a controller name runs (empty when it is not one of ours).
  std::vector<CheckKind> checks_of(std::string_view controller_name) const;
};

// What the decisions read from a Workload.
struct PodSetFacts {
  std::string name;
  std::int64_t count = 1;
  std::map<std::string, core::Quantity> requests;  // per pod
  std::map<std::string, std::string> flavors;      // resource -> flavor (status.admission)
};

struct WorkloadFacts {
  std::string namespace_, name, uid;
  std::string cluster_queue;  // status.admission.clusterQueue ("" before quota is reserved)
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;  // the Workload's, over its owner's
  std::vector<PodSetFacts> pod_sets;
  std::optional<std::int64_t> maximum_execution_time_seconds;
  bool quota_reserved = false;
  bool finished = false;
  // status.admissionChecks: name -> state.
  std::map<std::string, CheckState> checks;
};

// Reads a kueue.x-k8s.io Workload. `owner_annotations` (the owning Job's) fill in annotations
// the Workload lacks. Invalid naming the field for a malformed Workload.
BUDCORE_API core::Result<WorkloadFacts> read_workload(const core::Value& workload,
                                                      const std::map<std::string, std::string>& owner_annotations = {});

// The tenant of a Workload (nullopt when no rule matches).
BUDCORE_API std::optional<core::Id> tenant_of(const CompanionConfig& config, const WorkloadFacts& w);

// How long the Workload is expected to run, and where that came from ("annotation
// budcore.io/expected-duration", "maximumExecutionTimeSeconds", "queue team-a", "default").
struct ExpectedDuration {
  core::Duration duration;
  std::string source;
};
// Invalid (field "metadata.annotations[budcore.io/expected-duration]") for a malformed or
// non-positive annotation; NotFound when nothing gives a duration.
BUDCORE_API core::Result<ExpectedDuration> expected_duration(const CompanionConfig& config, const WorkloadFacts& w);

struct WorkloadPrice {
  core::Money total;  // in the price book's currency
  ExpectedDuration duration;
  std::vector<std::string> lines;  // "main: 2 x 1 nvidia.com/gpu on a100 (nvidia-a100-80gb) for 2h"
};
// The price of the Workload at on-demand prices: every pod set's pods x their requests
// (GPUs at the price of their flavor's GPU type, CPU cores, memory GiB) for the expected
// duration. NotFound (field "gpu_type") for a GPU type the book does not price.
BUDCORE_API core::Result<WorkloadPrice> price_workload(const CompanionConfig& config, const WorkloadFacts& w);

struct Decision {
  CheckKind check = CheckKind::Budget;
  CheckState state = CheckState::Pending;
  std::string message;
  std::optional<std::int32_t> requeue_after_seconds;  // with Retry: how long the Workload is held
  std::optional<core::Money> estimate;                // budget: the Workload's price
  std::optional<core::Id> tenant;
  std::string budget;                                 // budget: the budget that decided
  friend bool operator==(const Decision&, const Decision&) = default;
};
BUDCORE_API core::Value to_value(const Decision& d);
BUDCORE_API core::Result<Decision> decision_from_value(const core::Value& v);

// A budget's spend so far in its current period (metered and committed by earlier Ready
// decisions), in the budget's currency.
using SpendByBudget = std::map<std::string, core::Money>;

// The budget check for a Workload whose price is `price` (or whose pricing failed). Budgets
// covering its tenant are taken in document order; the first whose hard limit the Workload
// would pass rejects it, else the first whose soft limit it would pass holds it (Retry).
BUDCORE_API Decision decide_budget(const CompanionConfig& config, const WorkloadFacts& w,
                                   const core::Result<WorkloadPrice>& price, const SpendByBudget& spent);

// The window check at `now`: the window annotation, else the queue's window, else none (Ready).
BUDCORE_API Decision decide_window(const CompanionConfig& config, const WorkloadFacts& w, core::Timestamp now);

// ---- metering ------------------------------------------------------------------------------
// Every Workload the cluster runs is metered, whoever created it: one segment from its
// admission (the Admitted=True condition's time) to its end (Finished=True, Evicted=True, the
// loss of its admission, or its deletion), priced with the price book and tenant rules of the
// budget check and written to the Store as usage rows (cost/metering.hpp), one per pod set,
// job_id the Workload's uid. A segment is keyed "<uid>/<admission unix seconds>"; its rows carry
// the key in the label below, so writing a segment twice finds its rows and adds none.
inline constexpr std::string_view kSegmentLabel = "budcore.io/kueue-segment";
inline constexpr std::string_view kPodSetLabel = "kueue.x-k8s.io/pod-set";

// When the Workload's current (or last) run began and ended, as its conditions tell.
struct AdmissionState {
  std::optional<core::Timestamp> admitted_at;  // Admitted=True since (nullopt: not admitted now)
  std::optional<core::Timestamp> ended_at;     // Finished/Evicted (after admitted_at), or Admitted=False since
};
BUDCORE_API AdmissionState admission_state(const core::Value& workload);
BUDCORE_API std::string segment_key(std::string_view uid, core::Timestamp admitted_at);
// The usage intervals of a segment [start, end): one per pod set, its pods' GPUs (of the GPU
// type of the flavor Kueue assigned), and CPU cores and memory when the book prices them.
// Invalid naming the field for a uid that is not a UUID or GPUs without a flavor.
BUDCORE_API core::Result<std::vector<cost::UsageInterval>> segment_intervals(const CompanionConfig& config,
                                                                             const WorkloadFacts& w,
                                                                             const core::Id& tenant,
                                                                             const std::string& key,
                                                                             core::Timestamp start, core::Timestamp end);

// ---- the controller ------------------------------------------------------------------------

struct CompanionOptions {
  std::shared_ptr<core::Clock> clock;  // default: the system clock
  // How long one watch request runs before the Workloads it reported are reconciled: the
  // longest a decision waits for its event.
  std::int64_t watch_timeout_seconds = 2;
};

// One decision written to a Workload.
struct Written {
  std::string workload;  // "namespace/name"
  std::string admission_check;
  Decision decision;
};

class BUDCORE_API Companion {
 public:
  // `client` and `store` must outlive the Companion.
  static core::Result<std::unique_ptr<Companion>> open(CompanionConfig config, kubernetes::Client& client,
                                                       backend::Store& store, CompanionOptions options = {});
  ~Companion();
  Companion(const Companion&) = delete;
  Companion& operator=(const Companion&) = delete;

  // Reads the AdmissionChecks, keeps those of our controller names and marks each Active
  // (status condition Active=True). Returns their names.
  core::Result<std::vector<std::string>> activate_checks();
  // One list (first call) or one watch of Workloads up to `timeout_seconds`, reconciling every
  // Workload that changed, then ending the holds that are due. Relists on 410 Gone. Returns the
  // decisions written.
  core::Result<std::vector<Written>> sync(std::int64_t timeout_seconds = 5);
  // Decides the checks of our AdmissionChecks that are Pending on this Workload (quota
  // reserved) and writes them; a Retry holds the Workload (see above).
  core::Result<std::vector<Written>> reconcile(const core::Value& workload);
  // activate_checks() then sync() until stop(); transient errors are reported to `on_error`
  // (may be empty) and retried after a second.
  void run(const std::function<void(const Written&)>& on_written = {},
           const std::function<void(const core::Error&)>& on_error = {});
  void stop() noexcept;

  // Our AdmissionChecks and the checks each runs (after activate_checks()).
  const std::map<std::string, std::vector<CheckKind>>& admission_checks() const noexcept;
  std::size_t relists() const noexcept;
  // The Lease elector when the config has leader_election (nullptr otherwise). Without it every
  // call writes; with it only the holder does: sync() is NotLeader and every write refused
  // (NotLeader) on a replica that does not hold the Lease, and run() renews the Lease on a
  // thread of its own, writes only while holding it and releases it when stopped.
  LeaderElector* leader() noexcept;
  // Writes made (Workloads, AdmissionChecks, Store records): each passed the leadership gate.
  std::uint64_t writes() const noexcept;
  // Background work of sync() that failed since the last call and is tried again, without
  // stopping the decisions: a run that could not be metered (a GPU type missing from the price
  // book, a Store error; it stays open in the Store and is metered again on the next sync()),
  // and a refresh of the estimates that failed (its message says so; e.g. no RBAC rule to list
  // ClusterQueues; the next due refresh tries again).
  std::vector<core::Error> take_retrying();
  // Runs seen going on (or ended but not yet priced) whose usage rows are not written yet.
  std::size_t open_segments() const noexcept;
  // With estimates enabled: reads the Kueue quota objects, estimates every pending Workload
  // (companion/estimates.hpp) and patches the annotations of those whose estimate changed.
  // Returns how many it patched. sync() calls it after Workload events or when an expected
  // start or end has passed, at most once per refresh_seconds; a first sync() lists Workloads.
  core::Result<std::size_t> refresh_estimates();

 private:
  struct Impl;
  explicit Companion(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace budcore::companion
