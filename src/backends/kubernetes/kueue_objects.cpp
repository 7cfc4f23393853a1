// Quota configuration <-> the cluster's Kueue objects, through quota::export_kueue/import_kueue.
#include <set>

#include "budcore/kubernetes/kueue.hpp"
#include "budcore/kubernetes/render.hpp"

namespace budcore::kubernetes {
namespace {

using core::Error;
using core::Value;

std::string meta_str(const Value& v, std::string_view key) {
  const Value* meta = v.find("metadata");
  const Value* f = meta != nullptr ? meta->find(key) : nullptr;
  return f != nullptr && f->is_string() ? f->as_string() : std::string();
}

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

core::Result<quota::KueueImport> read_quota(Client& client) {
  std::vector<Value> docs;
  for (const Resource* r : quota_resources()) {
    ObjectList list;
    BUDCORE_TRY_ASSIGN(list, client.list(*r, {}));
    for (auto& item : list.items) docs.push_back(std::move(item));
  }
  return quota::import_kueue(docs);
}

}  // namespace budcore::kubernetes
