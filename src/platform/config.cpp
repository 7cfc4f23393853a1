// PlatformConfig: the config document (YAML/JSON) and the embedded defaults (job-type
// quotas over a small GPU inventory).
#include "budcore/platform/config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/quota/scenario.hpp"
#include "core/field_reader.hpp"
#include "platform/config_section.hpp"

namespace budcore::platform {

using core::Error;
using core::Value;

namespace {

using detail::kMaxSeconds;
using detail::Section;

core::Status read_pool(const Value& v, const std::string& path, backend::NodePool& p) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, path));
  BUDCORE_TRY(s.known({"name", "flavor", "nodes", "gpu_type", "gpu_model", "gpus_per_node", "sharing", "mig_profile",
                       "mig_instances_per_gpu", "time_slice_replicas", "cpu_per_node", "memory_per_node"}));
  BUDCORE_TRY(s.string("name", p.name));
  BUDCORE_TRY(s.string("flavor", p.flavor));
  BUDCORE_TRY(s.integer("nodes", p.nodes, 0, 100'000));
  BUDCORE_TRY(s.string("gpu_type", p.gpu_type));
  BUDCORE_TRY(s.string("gpu_model", p.gpu_model));
  BUDCORE_TRY(s.integer("gpus_per_node", p.gpus_per_node, 0, 1024));
  std::string sharing = "full";
  BUDCORE_TRY(s.string("sharing", sharing));
  if (sharing == "full") p.sharing = backend::GpuSharing::Full;
  else if (sharing == "mig") p.sharing = backend::GpuSharing::Mig;
  else if (sharing == "time_slice") p.sharing = backend::GpuSharing::TimeSlice;
  else if (sharing == "fractional") p.sharing = backend::GpuSharing::Fractional;
  else return Error::invalid(s.path("sharing"), sharing, "must be full, mig, time_slice or fractional");
  BUDCORE_TRY(s.string("mig_profile", p.mig_profile));
  BUDCORE_TRY(s.integer("mig_instances_per_gpu", p.mig_instances_per_gpu, 0, 7));
  BUDCORE_TRY(s.integer("time_slice_replicas", p.time_slice_replicas, 1, 64));
  BUDCORE_TRY(s.quantity("cpu_per_node", p.cpu_per_node));
  BUDCORE_TRY(s.quantity("memory_per_node", p.memory_per_node));
  return {};
}

core::Status read_cluster(const Value& v, PlatformConfig& c) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, "cluster"));
  BUDCORE_TRY(s.known({"backend", "admission_window", "start_latency_seconds", "default_duration_seconds",
                       "duration_spread", "failure_rate", "seed", "inventory", "placement_policy", "kubernetes"}));
  BUDCORE_TRY(s.string("backend", c.cluster_backend));
  if (c.cluster_backend != "sim" && c.cluster_backend != "kubernetes")
    return Error::invalid("cluster.backend", c.cluster_backend, "must be sim or kubernetes");
  if (const Value* k = s.get("kubernetes")) {
    if (c.cluster_backend != "kubernetes")
      return Error::invalid("cluster.kubernetes", "", "only with backend: kubernetes");
    BUDCORE_TRY_ASSIGN(Section ks, Section::of(*k, "cluster.kubernetes"));
    BUDCORE_TRY(ks.known({"kubeconfig", "context", "apply_quota", "create_tenant_queues", "model_image"}));
    BUDCORE_TRY(ks.string("kubeconfig", c.kubernetes.kubeconfig));
    BUDCORE_TRY(ks.string("context", c.kubernetes.context));
    BUDCORE_TRY(ks.boolean("apply_quota", c.kubernetes.apply_quota));
    BUDCORE_TRY(ks.boolean("create_tenant_queues", c.kubernetes.create_tenant_queues));
    BUDCORE_TRY(ks.string("model_image", c.kubernetes.model_image));
  }
  std::int64_t window = static_cast<std::int64_t>(c.cluster.admission_window);
  BUDCORE_TRY(s.integer("admission_window", window, 1, 1'000'000));
  c.cluster.admission_window = static_cast<std::size_t>(window);
  BUDCORE_TRY(s.seconds("start_latency_seconds", c.cluster.start_latency, 0));
  BUDCORE_TRY(s.seconds("default_duration_seconds", c.cluster.outcomes.default_duration, 0));
  if (c.cluster.outcomes.default_duration.count_ns() <= 0)
    return Error::invalid("cluster.default_duration_seconds", "0", "must be positive");
  BUDCORE_TRY(s.number("duration_spread", c.cluster.outcomes.duration_spread, 0, 1));
  BUDCORE_TRY(s.number("failure_rate", c.cluster.outcomes.failure_rate, 0, 1));
  std::int64_t seed = static_cast<std::int64_t>(c.cluster.outcomes.seed);
  BUDCORE_TRY(s.integer("seed", seed, 0, INT64_MAX));
  c.cluster.outcomes.seed = static_cast<std::uint64_t>(seed);
  BUDCORE_TRY(s.string("placement_policy", c.cluster.placement_policy));
  if (const Value* inv = s.get("inventory")) {
    if (!inv->is_list()) return Error::invalid("cluster.inventory", core::to_json(*inv), "must be a list of node pools");
    if (inv->as_list().size() > 1000) return Error::invalid("cluster.inventory", "", "at most 1000 node pools");
    c.cluster.inventory.clear();
    for (std::size_t i = 0; i < inv->as_list().size(); ++i) {
      backend::NodePool p;
      BUDCORE_TRY(read_pool(inv->as_list()[i], "cluster.inventory[" + std::to_string(i) + "]", p));
      c.cluster.inventory.push_back(std::move(p));
    }
  }
  return {};
}

core::Status read_queues(const Value& v, quota::JobQueueLayout& layout) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, "queues"));
  BUDCORE_TRY(s.known({"service", "batch", "training", "usecase", "serverless", "tenant_namespace_prefix", "gpu_type_label"}));
  BUDCORE_TRY(s.string("service", layout.cluster_queue_by_type[job::JobType::Service]));
  BUDCORE_TRY(s.string("batch", layout.cluster_queue_by_type[job::JobType::Batch]));
  BUDCORE_TRY(s.string("training", layout.cluster_queue_by_type[job::JobType::Training]));
  BUDCORE_TRY(s.string("usecase", layout.usecase_cluster_queue));
  BUDCORE_TRY(s.string("serverless", layout.serverless_cluster_queue));
  BUDCORE_TRY(s.string("tenant_namespace_prefix", layout.tenant_namespace_prefix));
  BUDCORE_TRY(s.string("gpu_type_label", layout.gpu_type_label));
  return {};
}

core::Status read_retry(const Value& v, job::RetryPolicy& r) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, "retry"));
  BUDCORE_TRY(s.known({"base_seconds", "factor", "cap_seconds", "jitter", "failure_threshold",
                       "immediate_failure_window_seconds", "cool_down_seconds"}));
  BUDCORE_TRY(s.seconds("base_seconds", r.backoff.base, 0));
  BUDCORE_TRY(s.number("factor", r.backoff.factor, 1, 1000));
  BUDCORE_TRY(s.seconds("cap_seconds", r.backoff.cap, 0));
  BUDCORE_TRY(s.number("jitter", r.backoff.jitter, 0, 1));
  std::int64_t threshold = r.breaker.failure_threshold;
  BUDCORE_TRY(s.integer("failure_threshold", threshold, 1, 1'000'000));
  r.breaker.failure_threshold = static_cast<int>(threshold);
  BUDCORE_TRY(s.seconds("immediate_failure_window_seconds", r.breaker.immediate_failure_window, 0));
  BUDCORE_TRY(s.seconds("cool_down_seconds", r.breaker.cool_down, 0));
  if (auto st = r.validate(); !st) return Error(st.error()).at("retry");
  return {};
}

core::Status read_pipelines(const Value& v, PlatformConfig& c) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, "pipelines"));
  BUDCORE_TRY(s.known({"http", "notifier", "max_loop_items"}));
  std::int64_t loop_items = static_cast<std::int64_t>(c.max_loop_items);
  BUDCORE_TRY(s.integer("max_loop_items", loop_items, 1, 100'000));
  c.max_loop_items = static_cast<std::size_t>(loop_items);
  std::string http = "sim", notifier = "sim";
  BUDCORE_TRY(s.string("http", http));
  BUDCORE_TRY(s.string("notifier", notifier));
  if (http == "sim") c.http = HttpKind::Sim;
  else if (http == "curl") c.http = HttpKind::Curl;
  else return Error::invalid("pipelines.http", http, "must be sim or curl");
  if (notifier == "sim") c.notifier = NotifierKind::Sim;
  else if (notifier == "none") c.notifier = NotifierKind::None;
  else return Error::invalid("pipelines.notifier", notifier, "must be sim or none");
  return {};
}

// cost: {prices, budgets}: documents inline, or paths of YAML/JSON files (read now, so a bad
// file is an error of the config). Budgets without prices have nothing to price against.
core::Status read_cost(const Value& v, PlatformConfig& c) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, "cost"));
  BUDCORE_TRY(s.known({"prices", "budgets", "alerts"}));
  const Value* prices = s.get("prices");
  const Value* budgets = s.get("budgets");
  if (prices == nullptr) {
    if (budgets != nullptr) return Error::invalid("cost.prices", "", "budgets need a price book to price jobs against");
    if (s.get("alerts") != nullptr) return Error::invalid("cost.prices", "", "alerts need budgets and a price book");
    return {};
  }
  if (const Value* alerts = s.get("alerts")) {
    BUDCORE_TRY_ASSIGN(Section a, Section::of(*alerts, "cost.alerts"));
    BUDCORE_TRY(a.known({"webhook", "timeout_seconds"}));
    backend::WebhookNotifierOptions o;
    BUDCORE_TRY(a.string("webhook", o.url));
    if (!o.url.starts_with("http://") && !o.url.starts_with("https://") && !o.url.starts_with("secret://"))
      return Error::invalid("cost.alerts.webhook", o.url, "must be an http:// or https:// URL (or a secret:// reference to one)");
    BUDCORE_TRY(detail::check_platform_secret_refs(o.url, "cost.alerts.webhook"));
    BUDCORE_TRY(a.seconds("timeout_seconds", o.timeout, 1));
    c.budget_alerts = std::move(o);
  }
  for (const auto& [key, v] : {std::pair{"prices", prices}, std::pair{"budgets", budgets}})
    if (v != nullptr && v->is_string() && (v->as_string().empty() || v->as_string() == "-"))
      return Error::invalid(std::string("cost.") + key, v->as_string(), "must be a file path (stdin is not read here)");
  auto book = prices->is_string() ? cost::PriceBook::load_file(prices->as_string()) : cost::PriceBook::from_value(*prices);
  if (!book) return Error(book.error()).at("cost.prices");
  if (budgets != nullptr) {
    if (!budgets->is_string() && !budgets->is_list())
      return Error::invalid("cost.budgets", core::to_json(*budgets), "must be a list of budgets or the path of a budgets file");
    // A list is read as the budgets document's `budgets`, so its errors name cost.budgets[i].
    auto set = budgets->is_string() ? cost::BudgetSet::load_file(budgets->as_string(), book->currency)
                                    : cost::BudgetSet::from_value(Value::map({{"budgets", *budgets}}), book->currency);
    if (!set) return Error(set.error()).at(budgets->is_string() ? "cost.budgets" : "cost");
    c.budgets = std::move(*set);
  }
  c.prices = std::move(*book);
  return {};
}

// The embedded quota (job-type ClusterQueues sharing one cohort) in the
// contract-2 shape.
constexpr std::string_view kEmbeddedQuota = R"json({
  "resource_flavors": [
    {"name": "a100-80gb", "node_labels": {"budcore.io/gpu-type": "nvidia-a100-80gb"}},
    {"name": "h100-sxm", "node_labels": {"budcore.io/gpu-type": "nvidia-h100-sxm"}},
    {"name": "t4", "node_labels": {"budcore.io/gpu-type": "nvidia-t4"}},
    {"name": "a100-mig-1g10gb", "node_labels": {}},
    {"name": "default-cpu", "node_labels": {}}
  ],
  "cluster_queues": [
    {"name": "model-endpoints", "cohort": "platform-gpu-pool",
     "GROUPS": [["a100-80gb", "8", "4"], ["h100-sxm", "4", "2"], ["t4", "4", "2"], ["a100-mig-1g10gb", "14", "7"], ["default-cpu", "128", "1Ti", "10Ti"]]},
    {"name": "batch-jobs", "cohort": "platform-gpu-pool",
     "GROUPS": [["a100-80gb", "4", "4"], ["h100-sxm", "2", "2"], ["t4", "4", "2"], ["a100-mig-1g10gb", "14", "7"], ["default-cpu", "96", "512Gi", "10Ti"]]},
    {"name": "training-jobs", "cohort": "platform-gpu-pool",
     "GROUPS": [["a100-80gb", "4", "4"], ["h100-sxm", "2", "2"], ["t4", "0", "0"], ["a100-mig-1g10gb", "0", "0"], ["default-cpu", "64", "512Gi", "10Ti"]]},
    {"name": "usecase-deployments", "cohort": "platform-gpu-pool",
     "GROUPS": [["a100-80gb", "0", "4"], ["h100-sxm", "0", "2"], ["t4", "0", "2"], ["a100-mig-1g10gb", "0", "7"], ["default-cpu", "32", "256Gi", "2Ti"]]},
    {"name": "serverless-endpoints", "cohort": "platform-gpu-pool",
     "GROUPS": [["a100-80gb", "0", "4"], ["h100-sxm", "0", "2"], ["t4", "0", "2"], ["a100-mig-1g10gb", "0", "7"], ["default-cpu", "32", "256Gi", "2Ti"]]}
  ]
})json";

Value cluster_queue(const Value& short_form) {
  // Expands the compact rows above: [flavor, nominal, borrowing limit] per GPU flavor, and
  // [default-cpu, cpu, memory, ephemeral-storage] for the CPU group. A job's storage_gb is an
  // ephemeral-storage request, and Kueue never admits a request no resource group covers.
  core::Map cq;
  cq.set("name", *short_form.find("name"));
  cq.set("cohort", *short_form.find("cohort"));
  cq.set("queueing_strategy", "BestEffortFIFO");
  cq.set("preemption", Value::map({{"within_cluster_queue", "LowerPriority"},
                                   {"reclaim_within_cohort", "Any"},
                                   {"borrow_within_cohort", Value::map({{"policy", "Never"}})}}));
  core::List gpu_flavors, mig_flavors, cpu_flavors;
  for (const auto& row : short_form.find("GROUPS")->as_list()) {
    const auto& r = row.as_list();
    const std::string& flavor = r[0].as_string();
    if (flavor == "default-cpu") {
      cpu_flavors.push_back(Value::map({{"name", flavor},
                                        {"resources", Value::list({Value::map({{"name", "cpu"}, {"nominal", r[1]}}),
                                                                   Value::map({{"name", "memory"}, {"nominal", r[2]}}),
                                                                   Value::map({{"name", "ephemeral-storage"}, {"nominal", r[3]}})})}}));
      continue;
    }
    std::string resource = flavor == "a100-mig-1g10gb" ? "nvidia.com/mig-1g.10gb" : "nvidia.com/gpu";
    Value entry = Value::map(
        {{"name", flavor},
         {"resources", Value::list({Value::map({{"name", resource}, {"nominal", r[1]}, {"borrowing_limit", r[2]}})})}});
    (flavor == "a100-mig-1g10gb" ? mig_flavors : gpu_flavors).push_back(std::move(entry));
  }
  cq.set("resource_groups",
         Value::list({Value::map({{"covered_resources", Value::list({"cpu", "memory", "ephemeral-storage"})}, {"flavors", Value(cpu_flavors)}}),
                      Value::map({{"covered_resources", Value::list({"nvidia.com/gpu"})}, {"flavors", Value(gpu_flavors)}}),
                      Value::map({{"covered_resources", Value::list({"nvidia.com/mig-1g.10gb"})},
                                  {"flavors", Value(mig_flavors)}})}));
  return Value(std::move(cq));
}

}  // namespace

core::Result<quota::QuotaConfig> quota_config_from_value(const Value& doc, std::string_view path,
                                                         quota::EngineOptions* engine) {
  if (!doc.is_map()) return Error::invalid(std::string(path), core::to_json(doc), "must be a map");
  static constexpr std::string_view kKeys[] = {"resource_flavors", "cohorts", "cluster_queues", "local_queues",
                                               "fair_sharing", "priority_classes"};
  if (auto st = core::detail::Reader(doc.as_map()).reject_unknown(kKeys); !st) return Error(st.error()).at(path);
  core::Map scenario = doc.as_map();
  scenario.set("workloads", Value(core::List{}));
  auto parsed = quota::parse_scenario(core::to_json(Value(std::move(scenario))));
  if (!parsed) return Error(parsed.error()).at(path);
  if (engine) {
    engine->fair_sharing = parsed->fair_sharing;
    engine->fair_sharing_strategies = parsed->fair_sharing_strategies;
  }
  if (auto st = quota::validate(parsed->config); !st) return Error(st.error()).at(path);
  return std::move(parsed->config);
}

quota::QuotaConfig embedded_quota() {
  Value compact = core::parse_json(kEmbeddedQuota).value();
  core::Map doc;
  doc.set("resource_flavors", *compact.find("resource_flavors"));
  core::List cqs;
  for (const auto& cq : compact.find("cluster_queues")->as_list()) cqs.push_back(cluster_queue(cq));
  doc.set("cluster_queues", Value(std::move(cqs)));
  doc.set("cohorts", Value::list({Value::map({{"name", "platform-gpu-pool"}})}));
  return quota_config_from_value(Value(std::move(doc)), "quota").value();
}

std::vector<backend::NodePool> embedded_inventory() {
  auto gpu_pool = [](std::string name, std::string flavor, std::int64_t nodes, std::string type, std::int64_t gpus) {
    backend::NodePool p;
    p.name = std::move(name);
    p.flavor = std::move(flavor);
    p.nodes = nodes;
    p.gpu_type = std::move(type);
    p.gpus_per_node = gpus;
    p.cpu_per_node = core::Quantity::from_int(96);
    p.memory_per_node = core::Quantity::parse("1Ti").value();
    return p;
  };
  std::vector<backend::NodePool> out;
  out.push_back(gpu_pool("a100", "a100-80gb", 2, "nvidia-a100-80gb", 8));
  out.push_back(gpu_pool("h100", "h100-sxm", 1, "nvidia-h100-sxm", 8));
  out.back().gpu_model = "H100-80GB";
  auto t4 = gpu_pool("t4", "t4", 1, "nvidia-t4", 4);
  t4.sharing = backend::GpuSharing::TimeSlice;
  t4.time_slice_replicas = 2;
  out.push_back(std::move(t4));
  auto mig = gpu_pool("a100-mig", "a100-mig-1g10gb", 1, "nvidia-a100-80gb", 4);
  mig.sharing = backend::GpuSharing::Mig;
  mig.mig_profile = "1g.10gb";
  mig.mig_instances_per_gpu = 7;
  out.push_back(std::move(mig));
  backend::NodePool cpu;
  cpu.name = "cpu";
  cpu.flavor = "default-cpu";
  cpu.nodes = 4;
  cpu.cpu_per_node = core::Quantity::from_int(64);
  cpu.memory_per_node = core::Quantity::parse("256Gi").value();
  out.push_back(std::move(cpu));
  return out;
}

PlatformConfig PlatformConfig::embedded(const std::string& dir) {
  PlatformConfig c;
  std::string d = dir.empty() ? "." : dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  c.store_uri = (d.front() == '/' ? "sqlite://" : "sqlite:") + d + "/budcore.db";
  c.cluster.quota = embedded_quota();
  c.cluster.inventory = embedded_inventory();
  return c;
}

namespace {

core::Status read_ha(const Value& v, PlatformConfig& c) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, "ha"));
  BUDCORE_TRY(s.known({"replica", "lease_seconds", "renew_seconds", "retry_seconds", "lead"}));
  HaConfig h;
  BUDCORE_TRY(s.string("replica", h.replica));
  // The same ranges as validate() checks on a config built in code.
  BUDCORE_TRY(s.seconds("lease_seconds", h.lease, 0.5, 3600));
  BUDCORE_TRY(s.seconds("renew_seconds", h.renew, 0.01, 3600));
  BUDCORE_TRY(s.seconds("retry_seconds", h.retry, 0.01, 3600));
  BUDCORE_TRY(s.boolean("lead", h.lead));
  // The defaults are Kueue's (15 s / 10 s / 2 s); with a shorter lease and no renew or retry
  // given, they keep Kueue's proportions instead of being refused for a value nobody wrote.
  if (s.get("renew_seconds") == nullptr && h.renew >= h.lease)
    h.renew = core::Duration::nanoseconds(h.lease.count_ns() * 2 / 3);
  if (s.get("retry_seconds") == nullptr && h.retry.count_ns() > h.lease.count_ns() / 3)
    h.retry = core::Duration::nanoseconds(h.lease.count_ns() / 3);
  c.ha = std::move(h);
  return {};
}

// retention: {events: {max_age_days, max_count}, audit: {...}, usage: {max_age_days}, interval_seconds}
core::Status read_retention_log(const Section& parent, std::string_view key, std::optional<core::Duration>& age,
                                std::optional<std::int64_t>* count, double min_days) {
  const Value* v = parent.get(key);
  if (v == nullptr) return {};
  BUDCORE_TRY_ASSIGN(Section s, Section::of(*v, "retention." + std::string(key)));
  BUDCORE_TRY(count ? s.known({"max_age_days", "max_count"}) : s.known({"max_age_days"}));
  double days = -1;
  BUDCORE_TRY(s.number("max_age_days", days, min_days, 100'000));
  if (days >= 0) age = core::Duration::nanoseconds(static_cast<std::int64_t>(std::llround(days * 86'400e9)));
  if (count) {
    std::int64_t n = -1;
    BUDCORE_TRY(s.integer("max_count", n, 1, std::int64_t{1} << 50));
    if (n >= 1) *count = n;
  }
  if (!age && !(count && *count))
    return Error::invalid("retention." + std::string(key), core::to_json(*v),
                          count ? "names max_age_days or max_count (omit the key to keep the log whole)"
                                : "names max_age_days (omit the key to keep the log whole)");
  return {};
}

core::Status read_retention(const Value& v, PlatformConfig& c) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, "retention"));
  BUDCORE_TRY(s.known({"events", "audit", "usage", "interval_seconds"}));
  RetentionConfig r;
  auto& p = r.policy;
  BUDCORE_TRY(read_retention_log(s, "events", p.event_max_age, &p.event_max_count, 1e-6));
  BUDCORE_TRY(read_retention_log(s, "audit", p.audit_max_age, &p.audit_max_count, 1e-6));
  BUDCORE_TRY(read_retention_log(s, "usage", p.usage_max_age, nullptr, RetentionConfig::kMinUsageDays));
  BUDCORE_TRY(s.seconds("interval_seconds", r.interval, 1));
  c.retention = std::move(r);
  return {};
}

}  // namespace

core::Result<PlatformConfig> PlatformConfig::from_value(const Value& document) {
  BUDCORE_TRY_ASSIGN(Section s, Section::of(document, ""));
  if (!document.is_map()) return Error::invalid("", core::to_json(document), "a platform config is a map");
  BUDCORE_TRY(s.known({"schema_version", "store", "clock", "cluster", "quota", "queues", "retry", "pipelines",
                       "max_events_per_commit", "cost", "security", "ha", "retention"}));
  std::int64_t version = kSchemaVersion;
  BUDCORE_TRY(s.integer("schema_version", version, 1, 1'000'000));
  if (version != kSchemaVersion)
    return Error::make(core::ErrorCode::Unsupported,
                       "config schema_version " + std::to_string(version) + " is not supported (this library reads 1)",
                       "schema_version");
  PlatformConfig c;
  c.cluster.quota = embedded_quota();
  c.cluster.inventory = embedded_inventory();
  if (const Value* store = s.get("store")) {
    if (store->is_string()) {
      c.store_uri = store->as_string();
    } else {
      BUDCORE_TRY_ASSIGN(Section st, Section::of(*store, "store"));
      BUDCORE_TRY(st.known({"uri", "durable"}));
      BUDCORE_TRY(st.string("uri", c.store_uri));
      BUDCORE_TRY(st.boolean("durable", c.store_durable));
    }
  }
  if (const Value* clock = s.get("clock")) {
    std::string kind;
    if (clock->is_string()) {
      kind = clock->as_string();
    } else {
      BUDCORE_TRY_ASSIGN(Section cs, Section::of(*clock, "clock"));
      BUDCORE_TRY(cs.known({"kind", "start"}));
      BUDCORE_TRY(cs.string("kind", kind));
      if (const Value* start = cs.get("start")) {
        if (!start->is_string()) return Error::invalid("clock.start", core::to_json(*start), "must be an RFC 3339 time");
        auto t = core::Timestamp::parse(start->as_string());
        if (!t) return Error(t.error()).at("clock.start");
        c.virtual_start = *t;
      }
    }
    if (kind == "virtual" || kind.empty()) c.clock = ClockKind::Virtual;
    else if (kind == "system") c.clock = ClockKind::System;
    else return Error::invalid("clock", kind, "must be virtual or system");
  }
  if (const Value* v = s.get("cluster")) BUDCORE_TRY(read_cluster(*v, c));
  if (const Value* v = s.get("quota")) {
    BUDCORE_TRY_ASSIGN(c.cluster.quota, quota_config_from_value(*v, "quota", &c.cluster.engine));
    if (!s.get("cluster") || !s.get("cluster")->find("inventory")) c.cluster.inventory.clear();
  }
  if (const Value* v = s.get("queues")) BUDCORE_TRY(read_queues(*v, c.cluster.layout));
  if (const Value* v = s.get("retry")) BUDCORE_TRY(read_retry(*v, c.retry));
  if (const Value* v = s.get("pipelines")) BUDCORE_TRY(read_pipelines(*v, c));
  if (const Value* v = s.get("cost")) BUDCORE_TRY(read_cost(*v, c));
  if (const Value* v = document.find("security")) BUDCORE_TRY(detail::read_security(*v, c));
  if (const Value* v = s.get("ha")) BUDCORE_TRY(read_ha(*v, c));
  if (const Value* v = s.get("retention")) BUDCORE_TRY(read_retention(*v, c));
  std::int64_t per_commit = static_cast<std::int64_t>(c.max_events_per_commit);
  BUDCORE_TRY(s.integer("max_events_per_commit", per_commit, 1, 1'000'000));
  c.max_events_per_commit = static_cast<std::size_t>(per_commit);
  BUDCORE_TRY(c.validate());
  return c;
}

core::Result<PlatformConfig> PlatformConfig::parse(std::string_view text) {
  if (text.size() > kMaxDocumentBytes)
    return Error::invalid("", std::to_string(text.size()) + " bytes", "a platform config is at most 4 MiB");
  // A key given twice is refused: in a config the last one silently winning can turn RBAC off.
  BUDCORE_TRY_ASSIGN(Value doc, core::parse_document(text, core::ParseOptions{.unique_keys = true}));
  return from_value(doc);
}

namespace {

// An in-memory SQLite database belongs to the process that opened it: replicas "sharing" one
// would each lead their own and acknowledge requests the others never see.
bool is_private_memory_store(std::string_view uri) {
  if (uri.rfind("sqlite:", 0) != 0) return false;
  std::string_view rest = uri.substr(7);
  if (rest.rfind("//", 0) == 0) rest.remove_prefix(2);
  return rest.empty() || rest == ":memory:" || rest.find("mode=memory") != std::string_view::npos ||
         (rest.rfind("file:", 0) == 0 && rest.find(":memory:") != std::string_view::npos);
}

}  // namespace

core::Status PlatformConfig::validate() const {
  if (store_uri.empty()) return Error::invalid("store", "", "a platform needs a store URI (sqlite:///path.db, postgresql://...)");
  if (cluster_backend != "sim" && cluster_backend != "kubernetes")
    return Error::invalid("cluster.backend", cluster_backend, "must be sim or kubernetes");
  if (auto st = cluster.validate(); !st) {
    core::Error e = st.error();
    if (e.field.rfind("inventory", 0) == 0) e.at("cluster");
    else if (e.field.rfind("admission_window", 0) != 0 && e.field.rfind("outcomes", 0) != 0) e.at("quota");
    return e;
  }
  if (auto st = retry.validate(); !st) return Error(st.error()).at("retry");
  if (ha) {
    const std::string& id = ha->replica;
    const bool id_ok = !id.empty() && id.size() <= 63 && std::isalnum(static_cast<unsigned char>(id.front())) &&
                       std::isalnum(static_cast<unsigned char>(id.back())) &&
                       std::all_of(id.begin(), id.end(), [](char ch) {
                         return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
                       });
    if (!id_ok) return Error::invalid("ha.replica", id, "a replica id is 1 to 63 of a-z, 0-9 and '-', starting and ending alphanumeric");
    if (ha->lead && id.rfind("cli-", 0) == 0)
      return Error::invalid("ha.replica", id, "ids starting with 'cli-' name the CLI's one-shot commands, which never lead");
    auto secs = [](core::Duration d) { return d.to_string(); };
    // A lease shorter than a store round trip or two changes hands without anyone driving; one
    // longer than an hour leaves a dead leader's work undone for that long.
    if (ha->lease < core::Duration::milliseconds(500) || ha->lease > core::Duration::hours(1))
      return Error::invalid("ha.lease_seconds", secs(ha->lease), "must be between 0.5 and 3600 seconds");
    if (ha->renew < core::Duration::milliseconds(10))
      return Error::invalid("ha.renew_seconds", secs(ha->renew), "must be at least 0.01 seconds");
    if (ha->retry < core::Duration::milliseconds(10))
      return Error::invalid("ha.retry_seconds", secs(ha->retry), "must be at least 0.01 seconds");
    if (ha->renew >= ha->lease)
      return Error::invalid("ha.renew_seconds", secs(ha->renew),
                            "must be shorter than lease_seconds (" + secs(ha->lease) + "): a leader renews before its lease ends");
    if (ha->retry > ha->lease)
      return Error::invalid("ha.retry_seconds", secs(ha->retry), "must not be longer than lease_seconds (" + secs(ha->lease) + ")");
    if (clock != ClockKind::System)
      return Error::invalid("clock", "virtual", "replicas (ha) run on the system clock: a lease lasts real seconds");
    if (is_private_memory_store(store_uri))
      return Error::invalid("store", store_uri,
                            "replicas (ha) need a store they all share (a SQLite file or PostgreSQL); an in-memory "
                            "database belongs to one process");
  }
  return {};
}

}  // namespace budcore::platform
