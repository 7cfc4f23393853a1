// Quota configuration <-> the cluster's Kueue objects, through quota::export_kueue/import_kueue.
#include <chrono>
#include <set>
#include <thread>

#include "budcore/kubernetes/kueue.hpp"
#include "backends/kubernetes/util.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/kubernetes/render.hpp"

namespace budcore::kubernetes {
namespace {

using core::Error;
using core::Value;

std::string label_of(const Value& v) {
  std::string kind = v.find("kind") != nullptr ? v.find("kind")->as_string() : "object";
  std::string ns = meta_str(v, "namespace");
  return kind + " " + (ns.empty() ? "" : ns + "/") + meta_str(v, "name");
}

const Resource* resource_of(const Value& v) {
  const Value* api = v.find("apiVersion");
  const Value* kind = v.find("kind");
  if (api == nullptr || kind == nullptr || !api->is_string() || !kind->is_string()) return nullptr;
  return resources::by_kind(api->as_string(), kind->as_string());
}

const std::vector<const Resource*>& quota_resources() {
  static const std::vector<const Resource*> r = {&resources::resource_flavors(), &resources::cohorts(),
                                                 &resources::cluster_queues(), &resources::local_queues(),
                                                 &resources::workload_priority_classes()};
  return r;
}

}  // namespace

std::vector<Value> kueue_objects(const quota::QuotaConfig& config, bool budcore_priorities) {
  quota::QuotaConfig c = config;
  if (budcore_priorities) {
    std::set<std::string> have;
    for (const auto& pc : c.priority_classes) have.insert(pc.name);
    for (auto& pc : budcore_priority_classes())
      if (!have.count(pc.name)) c.priority_classes.push_back(std::move(pc));
  }
  std::vector<Value> out = quota::export_kueue(c, quota::KueueApiVersion::V1beta2);
  for (auto& obj : out) {
    auto& meta = obj.mutable_map()["metadata"].mutable_map();
    core::Map labels;
    if (const Value* l = meta.find("labels"); l != nullptr && l->is_map()) labels = l->as_map();
    labels.set(kLabelManagedBy, kManagedByValue);
    meta.set("labels", std::move(labels));
  }
  return out;
}

core::Result<bool> ensure_namespace(Client& client, const std::string& name) {
  auto got = client.get(resources::namespaces(), {}, name);
  if (got) return false;
  if (got.error().code != core::ErrorCode::NotFound) return std::move(got).error();
  auto made = client.create(resources::namespaces(), {},
                            core::Map{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", core::Map{{"name", name}}}});
  if (made) return true;
  if (made.error().code == core::ErrorCode::AlreadyExists) return false;  // another writer won the race
  return std::move(made).error();
}

core::Result<ApplyReport> apply_quota(Client& client, const quota::QuotaConfig& config, const ApplyOptions& options) {
  BUDCORE_TRY(quota::validate(config));
  ApplyReport report;
  std::vector<Value> objects = kueue_objects(config, options.budcore_priorities);
  for (const auto& [cq, checks] : options.admission_checks) {
    bool found = false;
    for (auto& obj : objects) {
      if (obj.find("kind")->as_string() != "ClusterQueue" || meta_str(obj, "name") != cq) continue;
      core::List rules;
      for (const auto& c : checks) rules.emplace_back(core::Map{{"name", c}});
      obj.mutable_map()["spec"].mutable_map().set("admissionChecksStrategy", core::Map{{"admissionChecks", std::move(rules)}});
      found = true;
    }
    if (!found) return Error::invalid("admission_checks", cq, "no ClusterQueue of that name in the configuration");
  }
  std::set<std::string> wanted;
  std::set<std::string> namespaces_done;
  for (const auto& obj : objects) {
    const Resource* r = resource_of(obj);
    if (r == nullptr) return Error::make(core::ErrorCode::Internal, "no API resource for " + label_of(obj));
    std::string ns = meta_str(obj, "namespace");
    if (r->namespaced && namespaces_done.insert(ns).second) {
      bool created;
      BUDCORE_TRY_ASSIGN(created, ensure_namespace(client, ns));
      if (created) report.created_namespaces.push_back(ns);
    }
    auto applied = client.apply(*r, ns, obj, options.force);
    if (!applied) {
      Error e = std::move(applied).error();
      e.message = "applying " + label_of(obj) + " failed: " + e.message;
      return e;
    }
    report.applied.push_back(label_of(obj));
    wanted.insert(r->plural + "/" + ns + "/" + meta_str(obj, "name"));
  }
  if (options.prune) {
    ListOptions lo;
    lo.label_selector = std::string(kLabelManagedBy) + "=" + kManagedByValue;
    // Dependents first: priority classes and local queues, then queues, cohorts, flavors.
    auto order = quota_resources();
    std::reverse(order.begin(), order.end());
    for (const Resource* r : order) {
      ObjectList list;
      BUDCORE_TRY_ASSIGN(list, client.list(*r, {}, lo));
      for (const auto& item : list.items) {
        std::string ns = meta_str(item, "namespace");
        if (wanted.count(r->plural + "/" + ns + "/" + meta_str(item, "name"))) continue;
        auto st = client.remove(*r, ns, meta_str(item, "name"));
        if (!st && st.error().code != core::ErrorCode::NotFound) return st.error();
        report.pruned.push_back(label_of(item));
      }
    }
  }
  return report;
}

namespace {

// "" when `obj` has condition Active=True, else "reason: message" (or "no status yet").
std::string inactive_reason(const Value& obj) {
  const Value* conds = obj.find_path("status.conditions");
  if (conds == nullptr || !conds->is_list()) return "no status yet";
  for (const auto& c : conds->as_list()) {
    const Value* type = c.find("type");
    if (type == nullptr || !type->is_string() || type->as_string() != "Active") continue;
    const Value* status = c.find("status");
    if (status != nullptr && status->is_string() && status->as_string() == "True") return {};
    const Value* reason = c.find("reason");
    const Value* message = c.find("message");
    return (reason != nullptr && reason->is_string() ? reason->as_string() : std::string("Inactive")) + ": " +
           (message != nullptr && message->is_string() ? message->as_string() : std::string());
  }
  return "no Active condition yet";
}

}  // namespace

core::Result<void> wait_quota_active(Client& client, const quota::QuotaConfig& config,
                                     std::chrono::milliseconds timeout) {
  struct Queue {
    const Resource* resource;
    std::string ns, name;
  };
  std::vector<Queue> pending;
  for (const auto& cq : config.cluster_queues) pending.push_back({&resources::cluster_queues(), {}, cq.name});
  for (const auto& lq : config.local_queues)
    pending.push_back({&resources::local_queues(), lq.namespace_, lq.name});
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string why;
  while (true) {
    while (!pending.empty()) {
      const Queue& q = pending.front();
      auto got = client.get(*q.resource, q.ns, q.name);
      if (!got && got.error().code != core::ErrorCode::NotFound) return std::move(got).error();
      why = got ? inactive_reason(*got) : "not found";
      if (!why.empty()) break;
      pending.erase(pending.begin());
    }
    if (pending.empty()) return {};
    if (std::chrono::steady_clock::now() >= deadline) {
      const Queue& q = pending.front();
      return Error::make(core::ErrorCode::Conflict,
                         q.resource->kind + " " + (q.ns.empty() ? "" : q.ns + "/") + q.name + " is not active after " +
                             std::to_string(timeout.count()) + " ms: " + why,
                         q.ns.empty() ? q.name : q.ns + "/" + q.name);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

core::Result<std::vector<Value>> multikueue_objects(const MultiKueueSetup& setup) {
  if (setup.workers.empty()) return Error::invalid("workers", {}, "MultiKueue needs at least one worker cluster");
  std::vector<Value> secrets, clusters;
  core::List names;
  core::Map labels{{kLabelManagedBy, kManagedByValue}};
  for (std::size_t i = 0; i < setup.workers.size(); ++i) {
    const auto& w = setup.workers[i];
    std::string path = "workers[" + std::to_string(i) + "]";
    if (w.name.empty()) return Error::invalid(path + ".name", {}, "required field is missing");
    // Kueue reads the kubeconfig itself; check now that it is self-contained.
    auto parsed = core::parse_yaml(w.kubeconfig);
    if (!parsed || !parsed->is_map()) return Error::invalid(path + ".kubeconfig", {}, "not a kubeconfig document");
    for (const char* file_key : {"certificate-authority:", "client-certificate:", "client-key:", "tokenFile:"})
      if (w.kubeconfig.find(file_key) != std::string::npos)
        return Error::invalid(path + ".kubeconfig", file_key, "MultiKueue kubeconfigs must inline their data (no file paths)");
    std::string secret = setup.name + "-" + w.name;
    secrets.push_back(core::Map{{"apiVersion", "v1"},
                                {"kind", "Secret"},
                                {"metadata", core::Map{{"name", secret}, {"namespace", setup.kueue_namespace}, {"labels", labels}}},
                                {"data", core::Map{{"kubeconfig", encode_base64(w.kubeconfig)}}}});
    clusters.push_back(core::Map{
        {"apiVersion", resources::multikueue_clusters().api_version()},
        {"kind", "MultiKueueCluster"},
        {"metadata", core::Map{{"name", w.name}, {"labels", labels}}},
        {"spec", core::Map{{"clusterSource", core::Map{{"kubeConfig", core::Map{{"location", secret}, {"locationType", "Secret"}}}}}}}});
    names.emplace_back(w.name);
  }
  std::vector<Value> out = std::move(secrets);
  for (auto& c : clusters) out.push_back(std::move(c));
  out.push_back(core::Map{{"apiVersion", resources::multikueue_configs().api_version()},
                          {"kind", "MultiKueueConfig"},
                          {"metadata", core::Map{{"name", setup.name}, {"labels", labels}}},
                          {"spec", core::Map{{"clusters", std::move(names)}}}});
  out.push_back(core::Map{
      {"apiVersion", resources::admission_checks().api_version()},
      {"kind", "AdmissionCheck"},
      {"metadata", core::Map{{"name", setup.name}, {"labels", labels}}},
      {"spec", core::Map{{"controllerName", kMultiKueueController},
                         {"parameters", core::Map{{"apiGroup", "kueue.x-k8s.io"}, {"kind", "MultiKueueConfig"}, {"name", setup.name}}}}}});
  return out;
}

core::Result<std::string> apply_multikueue(Client& client, const MultiKueueSetup& setup) {
  std::vector<Value> objs;
  BUDCORE_TRY_ASSIGN(objs, multikueue_objects(setup));
  bool made;
  BUDCORE_TRY_ASSIGN(made, ensure_namespace(client, setup.kueue_namespace));
  (void)made;
  for (const auto& obj : objs) {
    const Resource* r = resource_of(obj);
    if (r == nullptr) return Error::make(core::ErrorCode::Internal, "no API resource for " + label_of(obj));
    auto a = client.apply(*r, meta_str(obj, "namespace"), obj, true);
    if (!a) {
      Error e = std::move(a).error();
      e.message = "applying " + label_of(obj) + " failed: " + e.message;
      return e;
    }
  }
  return setup.name;
}

core::Result<std::set<std::string, std::less<>>> multikueue_cluster_queues(Client& client) {
  ObjectList checks, queues;
  BUDCORE_TRY_ASSIGN(checks, client.list(resources::admission_checks(), {}));
  std::set<std::string, std::less<>> mk_checks, out;
  for (const Value& c : checks.items)
    if (const Value* ctl = c.find_path("spec.controllerName"); ctl != nullptr && ctl->is_string() && ctl->as_string() == kMultiKueueController)
      mk_checks.insert(meta_str(c, "name"));
  if (mk_checks.empty()) return out;
  BUDCORE_TRY_ASSIGN(queues, client.list(resources::cluster_queues(), {}));
  for (const Value& q : queues.items) {
    const Value* list = q.find_path("spec.admissionChecksStrategy.admissionChecks");
    if (list == nullptr || !list->is_list()) continue;
    for (const Value& ac : list->as_list())
      if (const Value* n = ac.find("name"); n != nullptr && n->is_string() && mk_checks.contains(n->as_string()))
        out.insert(meta_str(q, "name"));
  }
  return out;
}

core::Result<quota::KueueImport> read_quota(Client& client) {
  std::vector<Value> docs;
  for (const Resource* r : quota_resources()) {
    ObjectList list;
    BUDCORE_TRY_ASSIGN(list, client.list(*r, {}));
    for (auto& item : list.items) docs.push_back(std::move(item));
  }
  // A live cluster may hold a LocalQueue whose ClusterQueue does not exist (not created yet,
  // deleted, or misspelled by whoever may create LocalQueues in their namespace): Kueue keeps it
  // inactive, and so does this read, rather than refusing the whole cluster's quota.
  std::set<std::string> cluster_queues;
  for (const Value& d : docs)
    if (kind_of(d) == "ClusterQueue") cluster_queues.insert(meta_str(d, "name"));
  std::vector<std::string> skipped;
  std::erase_if(docs, [&](const Value& d) {
    if (kind_of(d) != "LocalQueue") return false;
    const Value* cq = d.find_path("spec.clusterQueue");
    if (cq != nullptr && cq->is_string() && cluster_queues.contains(cq->as_string())) return false;
    skipped.push_back(label_of(d) + " names ClusterQueue '" + (cq != nullptr && cq->is_string() ? cq->as_string() : "") +
                      "', which does not exist: left out (inactive, as Kueue keeps it)");
    return true;
  });
  BUDCORE_TRY_ASSIGN(quota::KueueImport out, quota::import_kueue(docs));
  out.warnings.insert(out.warnings.end(), skipped.begin(), skipped.end());
  return out;
}

}  // namespace budcore::kubernetes
