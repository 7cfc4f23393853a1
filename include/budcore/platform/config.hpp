// budcore::platform::PlatformConfig — everything a Platform is opened from, as one YAML/JSON
// document (docs/platform.md "Configuration"):
//
//   schema_version: 1
//   store: "sqlite:///var/lib/budcore/platform.db"   # or {uri: ..., durable: true}
//   clock: virtual                                    # or system, or {kind: virtual, start: RFC 3339}
//   cluster:                                          # the simulated cluster (backend: sim)
//     backend: sim                                    # or kubernetes (then `kubernetes` below)
//     kubernetes: {kubeconfig: path, context: name, apply_quota: true, create_tenant_queues: true,
//                  model_image: image}
//     admission_window: 64
//     start_latency_seconds: 0
//     default_duration_seconds: 3600
//     duration_spread: 0.0
//     failure_rate: 0.0
//     seed: 1
//     placement_policy: fgd            # a gpu:: policy name; absent: first node with free devices
//     inventory: [{name, flavor, nodes, gpu_type, gpu_model, gpus_per_node,
//                  sharing: full|mig|time_slice|fractional, mig_profile, mig_instances_per_gpu,
//                  time_slice_replicas, cpu_per_node, memory_per_node}]
//   quota: {resource_flavors, cohorts, cluster_queues, local_queues, fair_sharing}   # docs/cli.md contract 2
//   queues: {service, batch, training, usecase, serverless, tenant_namespace_prefix, gpu_type_label}
//   retry: {base_seconds, factor, cap_seconds, jitter, failure_threshold,
//           immediate_failure_window_seconds, cool_down_seconds}
//   pipelines: {http: sim|curl, notifier: sim|none}
//   cost: {prices: <price book> | path, budgets: [<budget>, ...] | path,
//          alerts: {webhook: URL, timeout_seconds}}   # docs/cost.md
//   security: {rbac: true, platform_admins: [user:root],          # docs/security.md
//              secrets: [env | {env: PREFIX} | {file: DIR}],       # default [env]
//              tenants: {"*" | <tenant id>: {allowed_registries, denied_registries,
//                        max_gpus_per_job, gpu_types, priorities, submits_per_second,
//                        submit_burst, max_queued_jobs}}}
//
// Every key is optional; an absent `quota` / `cluster.inventory` gives the embedded defaults
// (embedded_quota(), embedded_inventory()). Unknown keys are Invalid with a "did you mean" hint;
// errors name the path ("cluster.inventory[2].gpus_per_node").
#pragma once

#include <cstddef>
#include <map>
#include <vector>
#include <optional>
#include <string>
#include <string_view>

#include "budcore/backend/sim_cluster.hpp"
#include "budcore/backend/store.hpp"
#include "budcore/core/result.hpp"
#include "budcore/core/time.hpp"
#include "budcore/core/value.hpp"
#include "budcore/backend/notifier.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/price_book.hpp"
#include "budcore/export.h"
#include "budcore/core/id.hpp"
#include "budcore/job/priority.hpp"
#include "budcore/job/retry_policy.hpp"
#include "budcore/quota/config.hpp"

namespace budcore::platform {

enum class ClockKind : std::uint8_t {
  Virtual,  // time moves only when the Platform is driven (run_until / run_until_idle); persisted
  System,   // wall-clock time; a background thread drives the Platform
};

enum class HttpKind : std::uint8_t { Sim, Curl };
enum class NotifierKind : std::uint8_t { Sim, None };

// cluster.backend: kubernetes — jobs run on a real cluster whose Kueue admits them
// (kubernetes::KueueCluster, docs/kubernetes.md). The layout (`queues`) and `quota` describe the
// cluster's Kueue objects.
struct KubernetesClusterConfig {
  std::string kubeconfig;  // path; "" = $KUBECONFIG, ~/.kube/config or the pod's service account
  std::string context;     // "" = the kubeconfig's current context
  // Apply `quota` as Kueue objects when the platform opens, and wait until Kueue has them.
  bool apply_quota = true;
  // Create a tenant's namespace and LocalQueue on its first job.
  bool create_tenant_queues = true;
  std::string model_image;  // image of MODEL jobs that name none
};

// What one tenant may submit (docs/security.md "Admission policy"); a refusal is a Security
// error naming the job's field. Limits: a token bucket of submits and a cap on the tenant's
// jobs that have not ended, refused with RateLimited carrying a retry-after.
struct TenantPolicy {
  std::vector<std::string> allowed_registries;  // spec.image prefixes ("registry.corp/"); empty = any
  std::vector<std::string> denied_registries;   // checked first
  std::optional<std::int64_t> max_gpus_per_job;
  std::vector<std::string> gpu_types;           // allowed gpu_type values; empty = any
  std::vector<job::JobPriority> priorities;     // allowed priorities; empty = any
  double submits_per_second = 0;                // refill rate; 0 = no rate limit
  std::int64_t submit_burst = 0;                // bucket size; 0 = max(1, ceil(rate))
  std::int64_t max_queued_jobs = 0;             // jobs not yet ended; 0 = no limit
  friend bool operator==(const TenantPolicy&, const TenantPolicy&) = default;
};

// `security`: rbac installs RbacAuthorizer (rbac.hpp) with platform_admins as its bootstrap
// admins; tenants["*"] is every tenant's policy unless the tenant has its own.
struct SecretProviderConfig {
  std::string kind = "env";  // "env", "file", or "rehearsal" (what-if runs: platform::Scenario)
  std::string arg = "BUDCORE_SECRET_";  // env: the variable prefix; file: the directory
  friend bool operator==(const SecretProviderConfig&, const SecretProviderConfig&) = default;
};

// `security.audit_anchor`: the platform publishes every tenant's audit chain head through a
// webhook at this interval, so that a copy lives where the database's writers cannot change it
// (verify later with `budcore audit verify URI --expect-head HASH`).
struct AuditAnchorConfig {
  backend::WebhookNotifierOptions webhook;
  core::Duration every = core::Duration::hours(1);
};

struct SecurityConfig {
  bool rbac = false;
  // Where secret://name references are resolved (backend/secret_provider.hpp), in order: always
  // in the caller tenant's namespace.
  std::vector<SecretProviderConfig> secret_providers{SecretProviderConfig{}};
  // Names every tenant may reference, resolved in the platform's namespace when the tenant has
  // no secret of that name (a shared registry token, say). No other name leaves a tenant's.
  std::vector<std::string> shared_secrets;
  std::optional<AuditAnchorConfig> audit_anchor;
  std::vector<std::string> platform_admins;
  std::optional<TenantPolicy> default_policy;  // tenants."*"
  std::map<core::Id, TenantPolicy> tenants;
  // The policy of a tenant (its own, else the default); nullptr when none applies.
  const TenantPolicy* policy_for(const core::Id& tenant) const {
    auto it = tenants.find(tenant);
    if (it != tenants.end()) return &it->second;
    return default_policy ? &*default_policy : nullptr;
  }
};

// `ha` (docs/ha.md): the platform is one replica of several on one store. One replica leads
// (holds the store's lease, drives admission, retries, pipelines and metering, every write of
// its fenced by the lease's epoch); the others serve reads and take requests for the leader.
// The periods default to Kueue's leader election.
struct HaConfig {
  std::string replica;  // this replica's id: 1-63 of [a-z0-9-], starting and ending alphanumeric
  core::Duration lease = core::Duration::seconds(15);  // how long a lease lasts unrenewed
  core::Duration renew = core::Duration::seconds(10);  // the leader renews this often
  core::Duration retry = core::Duration::seconds(2);   // followers try to take it this often
  bool lead = true;  // false: never leads (a short-lived client process: a CLI call)
  friend bool operator==(const HaConfig&, const HaConfig&) = default;
};

// `retention` (docs/store.md "Retention"): what the leader compacts, every `interval` of the
// platform's clock (Platform::compact does it on demand). Absent: every log is kept whole.
struct RetentionConfig {
  backend::RetentionPolicy policy;
  core::Duration interval = core::Duration::hours(1);
  // Usage records feed budgets (a quarter at most) and chargeback: younger ones are never removed.
  static constexpr std::int64_t kMinUsageDays = 92;
  friend bool operator==(const RetentionConfig&, const RetentionConfig&) = default;
};

struct BUDCORE_API PlatformConfig {
  static constexpr int kSchemaVersion = 1;
  static constexpr std::size_t kMaxDocumentBytes = 4u << 20;

  std::string store_uri;  // required ("sqlite:///...", "postgresql://...")
  bool store_durable = true;
  ClockKind clock = ClockKind::Virtual;
  core::Timestamp virtual_start = core::Timestamp::from_unix_seconds(1'767'225'600);  // 2026-01-01T00:00:00Z
  std::string cluster_backend = "sim";  // "sim" or "kubernetes"
  KubernetesClusterConfig kubernetes;    // cluster_backend == "kubernetes"
  backend::SimClusterOptions cluster;  // quota, layout, inventory, outcomes, window, latency
  job::RetryPolicy retry;
  HttpKind http = HttpKind::Sim;
  NotifierKind notifier = NotifierKind::Sim;
  // `pipelines.max_loop_items`: LOOP iterations per run, all LOOPs together; a LOOP that would
  // pass it fails (the run's stored state grows with every iteration, and each transition
  // writes it).
  std::size_t max_loop_items = 250;
  // Cluster events applied per store transaction (group commit); bounds a commit's size.
  std::size_t max_events_per_commit = 4096;
  // `cost`: with a price book, the Platform attaches CostControls on open (budget gate,
  // metering, actual_cost, budget_limit; docs/cost.md "On a platform").
  std::optional<cost::PriceBook> prices;
  cost::BudgetSet budgets;
  // `cost.alerts.webhook`: budget threshold alerts are POSTed there (a Slack-compatible
  // webhook) as metered spend crosses them; without it they are only recorded in the audit log.
  std::optional<backend::WebhookNotifierOptions> budget_alerts;
  // `security` (docs/security.md).
  SecurityConfig security;
  // `ha` (docs/ha.md): absent, the platform is the only process writing its store.
  std::optional<HaConfig> ha;
  // `retention`: absent, nothing is ever removed.
  std::optional<RetentionConfig> retention;

  // Parses a config document (a map). Relative sqlite paths stay as written.
  static core::Result<PlatformConfig> from_value(const core::Value& document);
  // YAML or JSON text (at most kMaxDocumentBytes).
  static core::Result<PlatformConfig> parse(std::string_view text);
  // The embedded default: SQLite file `dir`/budcore.db, simulated cluster with
  // embedded_inventory() and embedded_quota(), virtual clock.
  static PlatformConfig embedded(const std::string& dir);

  core::Status validate() const;
};

// The job-type quotas (one ClusterQueue per job type) over the embedded inventory: ClusterQueues
// model-endpoints, batch-jobs, training-jobs, usecase-deployments and serverless-endpoints (no
// nominal GPU quota of its own: serverless workers borrow) in cohort platform-gpu-pool, flavors a100-80gb, h100-sxm, t4 (nvidia.com/gpu, told apart by the
// budcore.io/gpu-type node label), a100-mig-1g10gb (nvidia.com/mig-1g.10gb) and default-cpu.
BUDCORE_API quota::QuotaConfig embedded_quota();
// 2 nodes x 8 A100-80GB, 1 x 8 H100-SXM, 1 x 4 T4 time-sliced x 2, 1 x 4 A100 in MIG
// 1g.10gb x 7; 96 cpu / 1Ti per GPU node.
BUDCORE_API std::vector<backend::NodePool> embedded_inventory();

// Reads a quota configuration in the contract-2 shape (docs/cli.md contract 2, without
// workloads): errors name the path under `path`.
BUDCORE_API core::Result<quota::QuotaConfig> quota_config_from_value(const core::Value& doc, std::string_view path,
                                                                     quota::EngineOptions* engine = nullptr);

}  // namespace budcore::platform
