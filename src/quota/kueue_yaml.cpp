// Kueue objects (kueue.x-k8s.io v1beta1/v1beta2) <-> QuotaConfig. Field names and defaults
// follow apis/kueue/v1beta{1,2}/*_types.go of kubernetes-sigs/kueue.
#include "budcore/quota/kueue_yaml.hpp"
#include "quota/kueue_names.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <filesystem>
#include <map>
#include <set>

#include "budcore/core/keys.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"

namespace budcore::quota {
namespace {

using core::Error;
using core::Value;
template <class T>
using R = core::Result<T>;

constexpr std::string_view kGroup = "kueue.x-k8s.io/";

std::string at(const std::string& base, std::string_view key) { return base + "." + std::string(key); }
std::string at(const std::string& base, std::size_t i) { return base + "[" + std::to_string(i) + "]"; }

R<std::string> str(const Value& obj, std::string_view key, const std::string& path, bool required, std::string fallback = {}) {
  const Value* v = obj.find(key);
  if (!v || v->is_null()) {
    if (required) return Error::invalid(at(path, key), "", "required field is missing");
    return fallback;
  }
  if (!v->is_string()) return Error::invalid(at(path, key), "", "expected a string");
  return v->as_string();
}

R<core::Quantity> quantity(const Value& v, const std::string& path) {
  std::string text;
  if (v.is_int()) {
    text = std::to_string(v.as_int());
  } else if (v.is_float()) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v.as_float());
    text.assign(buf, res.ptr);
  } else if (v.is_string()) {
    text = v.as_string();
  } else {
    return Error::invalid(path, "", "expected a quantity such as 10, \"500m\" or \"2Gi\"");
  }
  auto q = core::Quantity::parse(text);
  if (!q) return Error::invalid(path, text, q.error().message);
  return *q;
}

template <class E>
R<E> enumeration(const Value& obj, std::string_view key, const std::string& path, E fallback,
                 std::type_identity_t<detail::Names<E>> names) {
  const Value* v = obj.find(key);
  if (!v || v->is_null()) return fallback;
  if (v->is_string())
    if (auto e = detail::value_named(names, v->as_string())) return *e;
  return Error::invalid(at(path, key), v->is_string() ? v->as_string() : "", detail::expected_one_of(names));
}

R<double> weight(const Value& spec, const std::string& path) {
  const Value* fs = spec.find("fairSharing");
  if (!fs || !fs->is_map()) return 1.0;
  const Value* w = fs->find("weight");
  if (!w || w->is_null()) return 1.0;
  core::Quantity q;
  BUDCORE_TRY_ASSIGN(q, quantity(*w, at(at(path, "fairSharing"), "weight")));
  if (q.sign() < 0) return Error::invalid(at(at(path, "fairSharing"), "weight"), q.to_string(), "weight must not be negative");
  return static_cast<double>(q.nano()) / 1e9;
}

const Value* list_at(const Value& obj, std::string_view key, const std::string& path, core::Status& st) {
  const Value* v = obj.find(key);
  if (!v || v->is_null()) return nullptr;
  if (!v->is_list()) {
    st = Error::invalid(at(path, key), "", "expected a list");
    return nullptr;
  }
  return v;
}

// The quota part of a ClusterQueue/Cohort spec is closed (Kueue's strict decoding refuses
// anything else): a typo like "borowingLimit" is an error with a hint, never a dropped limit.
constexpr std::string_view kGroupKeys[] = {"coveredResources", "flavors"};
constexpr std::string_view kFlavorQuotaKeys[] = {"name", "resources"};
constexpr std::string_view kResourceKeys[] = {"name", "nominalQuota", "borrowingLimit", "lendingLimit"};

R<std::vector<ResourceGroup>> groups(const Value& spec, const std::string& path) {
  std::vector<ResourceGroup> out;
  core::Status st;
  const Value* rgs = list_at(spec, "resourceGroups", path, st);
  BUDCORE_TRY(st);
  if (!rgs) return out;
  for (std::size_t g = 0; g < rgs->size(); ++g) {
    const Value& gv = rgs->as_list()[g];
    std::string gp = at(at(path, "resourceGroups"), g);
    if (!gv.is_map()) return Error::invalid(gp, "", "expected a resource group");
    BUDCORE_TRY(core::check_keys(gv.as_map(), kGroupKeys, gp));
    ResourceGroup group;
    const Value* cov = list_at(gv, "coveredResources", gp, st);
    BUDCORE_TRY(st);
    if (!cov) return Error::invalid(at(gp, "coveredResources"), "", "required field is missing");
    for (std::size_t i = 0; i < cov->size(); ++i) {
      const Value& c = cov->as_list()[i];
      if (!c.is_string()) return Error::invalid(at(at(gp, "coveredResources"), i), "", "expected a resource name");
      group.covered_resources.push_back(c.as_string());
    }
    const Value* fls = list_at(gv, "flavors", gp, st);
    BUDCORE_TRY(st);
    if (!fls) return Error::invalid(at(gp, "flavors"), "", "required field is missing");
    for (std::size_t f = 0; f < fls->size(); ++f) {
      const Value& fv = fls->as_list()[f];
      std::string fp = at(at(gp, "flavors"), f);
      if (!fv.is_map()) return Error::invalid(fp, "", "expected a flavor quota");
      BUDCORE_TRY(core::check_keys(fv.as_map(), kFlavorQuotaKeys, fp));
      FlavorQuotas fq;
      BUDCORE_TRY_ASSIGN(fq.name, str(fv, "name", fp, true));
      const Value* res = list_at(fv, "resources", fp, st);
      BUDCORE_TRY(st);
      if (!res) return Error::invalid(at(fp, "resources"), "", "required field is missing");
      for (std::size_t r = 0; r < res->size(); ++r) {
        const Value& rv = res->as_list()[r];
        std::string rp = at(at(fp, "resources"), r);
        if (!rv.is_map()) return Error::invalid(rp, "", "expected a resource quota");
        BUDCORE_TRY(core::check_keys(rv.as_map(), kResourceKeys, rp));
        ResourceQuota rq;
        BUDCORE_TRY_ASSIGN(rq.name, str(rv, "name", rp, true));
        const Value* nominal = rv.find("nominalQuota");
        if (!nominal || nominal->is_null()) return Error::invalid(at(rp, "nominalQuota"), "", "required field is missing");
        BUDCORE_TRY_ASSIGN(rq.nominal, quantity(*nominal, at(rp, "nominalQuota")));
        if (const Value* b = rv.find("borrowingLimit"); b && !b->is_null()) {
          core::Quantity q;
          BUDCORE_TRY_ASSIGN(q, quantity(*b, at(rp, "borrowingLimit")));
          rq.borrowing_limit = q;
        }
        if (const Value* l = rv.find("lendingLimit"); l && !l->is_null()) {
          core::Quantity q;
          BUDCORE_TRY_ASSIGN(q, quantity(*l, at(rp, "lendingLimit")));
          rq.lending_limit = q;
        }
        fq.resources.push_back(std::move(rq));
      }
      group.flavors.push_back(std::move(fq));
    }
    out.push_back(std::move(group));
  }
  return out;
}

R<ClusterQueue> cluster_queue(const Value& doc, const std::string& name, const std::string& path) {
  ClusterQueue cq;
  cq.name = name;
  const Value* spec_v = doc.find("spec");
  Value empty = Value(core::Map{});
  const Value& spec = spec_v && spec_v->is_map() ? *spec_v : empty;
  std::string sp = at(path, "spec");
  for (const char* key : {"cohortName", "cohort"}) {
    std::string c;
    BUDCORE_TRY_ASSIGN(c, str(spec, key, sp, false));
    if (!c.empty()) cq.cohort = c;
  }
  BUDCORE_TRY_ASSIGN(cq.queueing_strategy, enumeration(spec, "queueingStrategy", sp, QueueingStrategy::BestEffortFIFO,
                                                       detail::kQueueingStrategies));
  if (const Value* pre = spec.find("preemption"); pre && pre->is_map()) {
    std::string pp = at(sp, "preemption");
    BUDCORE_TRY_ASSIGN(cq.preemption.within_cluster_queue,
                       enumeration(*pre, "withinClusterQueue", pp, PreemptionPolicy::Never,
                                   detail::kWithinClusterQueue));
    BUDCORE_TRY_ASSIGN(cq.preemption.reclaim_within_cohort,
                       enumeration(*pre, "reclaimWithinCohort", pp, PreemptionPolicy::Never,
                                   detail::kReclaimWithinCohort));
    if (const Value* bwc = pre->find("borrowWithinCohort"); bwc && bwc->is_map()) {
      std::string bp = at(pp, "borrowWithinCohort");
      BUDCORE_TRY_ASSIGN(cq.preemption.borrow_within_cohort.policy,
                         enumeration(*bwc, "policy", bp, BorrowWithinCohortPolicy::Never,
                                     detail::kBorrowWithinCohort));
      if (const Value* t = bwc->find("maxPriorityThreshold"); t && !t->is_null()) {
        if (!t->is_int()) return Error::invalid(at(bp, "maxPriorityThreshold"), "", "expected an integer");
        auto v = core::checked_cast<std::int32_t>(t->as_int());
        if (!v) return Error::invalid(at(bp, "maxPriorityThreshold"), std::to_string(t->as_int()), "must fit in 32 bits (Kueue's int32)");
        cq.preemption.borrow_within_cohort.max_priority_threshold = *v;
      }
    }
  }
  if (const Value* ff = spec.find("flavorFungibility"); ff && ff->is_map()) {
    std::string fp = at(sp, "flavorFungibility");
    BUDCORE_TRY_ASSIGN(cq.flavor_fungibility.when_can_borrow,
                       enumeration(*ff, "whenCanBorrow", fp, FungibilityPolicy::MayStopSearch,
                                   detail::kWhenCanBorrow));
    BUDCORE_TRY_ASSIGN(cq.flavor_fungibility.when_can_preempt,
                       enumeration(*ff, "whenCanPreempt", fp, FungibilityPolicy::TryNextFlavor,
                                   detail::kWhenCanPreempt));
    if (const Value* p = ff->find("preference"); p && !p->is_null()) {
      FungibilityPreference pref;
      BUDCORE_TRY_ASSIGN(pref, enumeration(*ff, "preference", fp, FungibilityPreference::BorrowingOverPreemption,
                                           detail::kFungibilityPreferences));
      cq.flavor_fungibility.preference = pref;
    }
  }
  BUDCORE_TRY_ASSIGN(cq.fair_weight, weight(spec, sp));
  BUDCORE_TRY_ASSIGN(cq.stop_policy, enumeration(spec, "stopPolicy", sp, StopPolicy::None,
                                                 detail::kStopPolicies));
  BUDCORE_TRY_ASSIGN(cq.resource_groups, groups(spec, sp));
  return cq;
}

core::Status import_object(const Value& doc, const std::string& path, KueueImport& out) {
  if (!doc.is_map()) return Error::invalid(path, "", "expected a Kubernetes object");
  std::string api, kind;
  BUDCORE_TRY_ASSIGN(api, str(doc, "apiVersion", path, false));
  BUDCORE_TRY_ASSIGN(kind, str(doc, "kind", path, true));
  if (kind == "List") {
    core::Status st;
    const Value* items = list_at(doc, "items", path, st);
    BUDCORE_TRY(st);
    if (items)
      for (std::size_t i = 0; i < items->size(); ++i) BUDCORE_TRY(import_object(items->as_list()[i], at(at(path, "items"), i), out));
    return {};
  }
  static const std::set<std::string> kinds = {"ResourceFlavor", "ClusterQueue", "LocalQueue", "Cohort", "WorkloadPriorityClass"};
  if (!kinds.count(kind)) {
    out.warnings.push_back(path + ": skipped " + (api.empty() ? "" : api + " ") + kind);
    return {};
  }
  if (api != std::string(kGroup) + "v1beta1" && api != std::string(kGroup) + "v1beta2")
    return Error::invalid(at(path, "apiVersion"), api, "expected kueue.x-k8s.io/v1beta1 or kueue.x-k8s.io/v1beta2 for " + kind);
  const Value* meta = doc.find("metadata");
  if (!meta || !meta->is_map()) return Error::invalid(at(path, "metadata"), "", "required field is missing");
  std::string name;
  BUDCORE_TRY_ASSIGN(name, str(*meta, "name", at(path, "metadata"), true));
  const Value* spec_v = doc.find("spec");
  Value empty = Value(core::Map{});
  const Value& spec = spec_v && spec_v->is_map() ? *spec_v : empty;
  std::string sp = at(path, "spec");
  if (kind == "ResourceFlavor") {
    ResourceFlavor f;
    f.name = name;
    if (const Value* nl = spec.find("nodeLabels"); nl && nl->is_map())
      for (const auto& [k, v] : nl->as_map()) f.node_labels[k] = v.is_string() ? v.as_string() : "";
    core::Status st;
    if (const Value* nt = list_at(spec, "nodeTaints", sp, st)) {
      for (std::size_t i = 0; i < nt->size(); ++i) {
        const Value& t = nt->as_list()[i];
        std::string tp = at(at(sp, "nodeTaints"), i);
        Taint taint;
        BUDCORE_TRY_ASSIGN(taint.key, str(t, "key", tp, true));
        BUDCORE_TRY_ASSIGN(taint.value, str(t, "value", tp, false));
        BUDCORE_TRY_ASSIGN(taint.effect, str(t, "effect", tp, true));
        f.node_taints.push_back(std::move(taint));
      }
    }
    BUDCORE_TRY(st);
    out.config.resource_flavors.push_back(std::move(f));
  } else if (kind == "ClusterQueue") {
    ClusterQueue cq;
    BUDCORE_TRY_ASSIGN(cq, cluster_queue(doc, name, path));
    out.config.cluster_queues.push_back(std::move(cq));
  } else if (kind == "Cohort") {
    Cohort c;
    c.name = name;
    for (const char* key : {"parentName", "parent"}) {
      std::string p;
      BUDCORE_TRY_ASSIGN(p, str(spec, key, sp, false));
      if (!p.empty()) c.parent = p;
    }
    BUDCORE_TRY_ASSIGN(c.fair_weight, weight(spec, sp));
    BUDCORE_TRY_ASSIGN(c.resource_groups, groups(spec, sp));
    out.config.cohorts.push_back(std::move(c));
  } else if (kind == "LocalQueue") {
    LocalQueue lq;
    lq.name = name;
    BUDCORE_TRY_ASSIGN(lq.namespace_, str(*meta, "namespace", at(path, "metadata"), false, "default"));
    BUDCORE_TRY_ASSIGN(lq.cluster_queue, str(spec, "clusterQueue", sp, true));
    out.config.local_queues.push_back(std::move(lq));
  } else {
    WorkloadPriorityClass pc;
    pc.name = name;
    const Value* v = doc.find("value");
    if (!v || !v->is_int()) return Error::invalid(at(path, "value"), "", "a WorkloadPriorityClass needs an integer value");
    if (v->as_int() < std::numeric_limits<std::int32_t>::min() || v->as_int() > std::numeric_limits<std::int32_t>::max())
      return Error::invalid(at(path, "value"), std::to_string(v->as_int()), "value must fit in 32 bits");
    pc.value = static_cast<std::int32_t>(v->as_int());
    BUDCORE_TRY_ASSIGN(pc.description, str(doc, "description", path, false));
    out.config.priority_classes.push_back(std::move(pc));
  }
  return {};
}

// --- export

Value quantity_value(const core::Quantity& q) { return Value(q.to_string()); }

std::string weight_text(double w) {
  auto q = core::Quantity::parse(std::to_string(w));
  return q ? q->to_string() : std::to_string(w);
}

Value groups_value(const std::vector<ResourceGroup>& groups) {
  core::List out;
  for (const auto& g : groups) {
    core::List covered, flavors;
    for (const auto& r : g.covered_resources) covered.emplace_back(r);
    for (const auto& f : g.flavors) {
      core::List res;
      for (const auto& r : f.resources) {
        core::Map m;
        m.set("name", r.name);
        m.set("nominalQuota", quantity_value(r.nominal));
        if (r.borrowing_limit) m.set("borrowingLimit", quantity_value(*r.borrowing_limit));
        if (r.lending_limit) m.set("lendingLimit", quantity_value(*r.lending_limit));
        res.emplace_back(std::move(m));
      }
      flavors.emplace_back(core::Map{{"name", f.name}, {"resources", std::move(res)}});
    }
    out.emplace_back(core::Map{{"coveredResources", std::move(covered)}, {"flavors", std::move(flavors)}});
  }
  return out;
}

using detail::name_of;

Value object(std::string_view api, const char* kind, core::Map meta, core::Map spec) {
  core::Map m;
  m.set("apiVersion", std::string(api));
  m.set("kind", kind);
  m.set("metadata", std::move(meta));
  if (!spec.empty()) m.set("spec", std::move(spec));
  return m;
}

}  // namespace

core::Result<KueueImport> import_kueue(const std::vector<Value>& documents) {
  KueueImport out;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    if (documents[i].is_null()) continue;
    BUDCORE_TRY(import_object(documents[i], "documents[" + std::to_string(i) + "]", out));
  }
  // Flavors a queue names without a ResourceFlavor object: Kueue keeps such a queue inactive
  // until the flavor exists; budcore creates a plain flavor and says so.
  std::set<std::string> known;
  for (const auto& f : out.config.resource_flavors) known.insert(f.name);
  auto add_missing = [&](const std::vector<ResourceGroup>& gs, const std::string& owner) {
    for (const auto& g : gs)
      for (const auto& f : g.flavors)
        if (known.insert(f.name).second) {
          out.config.resource_flavors.push_back(ResourceFlavor{f.name, {}, {}});
          out.warnings.push_back("ResourceFlavor " + f.name + " (named by " + owner + ") has no object; created without node labels");
        }
  };
  for (const auto& c : out.config.cohorts) add_missing(c.resource_groups, "Cohort " + c.name);
  for (const auto& q : out.config.cluster_queues) add_missing(q.resource_groups, "ClusterQueue " + q.name);
  BUDCORE_TRY(validate(out.config));
  return out;
}

core::Result<KueueImport> import_kueue_yaml(std::string_view text) {
  std::vector<Value> docs;
  BUDCORE_TRY_ASSIGN(docs, core::parse_yaml_all(text));
  return import_kueue(docs);
}

core::Result<KueueImport> import_kueue_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) {
      auto ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) return Error::invalid("path", path, "directory holds no .yaml, .yml or .json file");
  } else {
    files.emplace_back(path);
  }
  std::vector<Value> docs;
  for (const auto& f : files) {
    BUDCORE_TRY_ASSIGN(std::string text, core::read_input(f.string(), core::max_input_bytes(), "path"));
    auto parsed = core::parse_yaml_all(text);
    if (!parsed) {
      core::Error e = parsed.error();
      e.message = f.string() + ": " + e.message;
      return e;
    }
    for (auto& d : *parsed) docs.push_back(std::move(d));
  }
  return import_kueue(docs);
}

std::vector<Value> export_kueue(const QuotaConfig& config, KueueApiVersion version) {
  const std::string api = std::string(kGroup) + (version == KueueApiVersion::V1beta1 ? "v1beta1" : "v1beta2");
  std::vector<Value> out;
  for (const auto& f : config.resource_flavors) {
    core::Map spec;
    if (!f.node_labels.empty()) {
      core::Map labels;
      for (const auto& [k, v] : f.node_labels) labels.set(k, v);
      spec.set("nodeLabels", std::move(labels));
    }
    if (!f.node_taints.empty()) {
      core::List taints;
      for (const auto& t : f.node_taints) {
        core::Map m{{"key", t.key}};
        if (!t.value.empty()) m.set("value", t.value);
        m.set("effect", t.effect);
        taints.emplace_back(std::move(m));
      }
      spec.set("nodeTaints", std::move(taints));
    }
    out.push_back(object(api, "ResourceFlavor", core::Map{{"name", f.name}}, std::move(spec)));
  }
  for (const auto& c : config.cohorts) {
    core::Map spec;
    if (c.parent) spec.set("parentName", *c.parent);
    if (!c.resource_groups.empty()) spec.set("resourceGroups", groups_value(c.resource_groups));
    if (c.fair_weight != 1.0) spec.set("fairSharing", core::Map{{"weight", weight_text(c.fair_weight)}});
    out.push_back(object(api, "Cohort", core::Map{{"name", c.name}}, std::move(spec)));
  }
  for (const auto& q : config.cluster_queues) {
    core::Map spec;
    if (q.cohort) spec.set(version == KueueApiVersion::V1beta1 ? "cohort" : "cohortName", *q.cohort);
    spec.set("queueingStrategy", name_of(q.queueing_strategy));
    // Kueue reads a missing selector as "no namespace may submit"; budcore admits from every
    // namespace, so say so.
    spec.set("namespaceSelector", core::Map{});
    spec.set("resourceGroups", groups_value(q.resource_groups));
    const auto& p = q.preemption;
    core::Map pre{{"withinClusterQueue", name_of(p.within_cluster_queue)}, {"reclaimWithinCohort", name_of(p.reclaim_within_cohort)}};
    if (p.borrow_within_cohort.policy != BorrowWithinCohortPolicy::Never) {
      core::Map bwc{{"policy", "LowerPriority"}};
      if (p.borrow_within_cohort.max_priority_threshold) bwc.set("maxPriorityThreshold", *p.borrow_within_cohort.max_priority_threshold);
      pre.set("borrowWithinCohort", std::move(bwc));
    }
    spec.set("preemption", std::move(pre));
    const auto& ff = q.flavor_fungibility;
    core::Map fung{{"whenCanBorrow", name_of(ff.when_can_borrow)}, {"whenCanPreempt", name_of(ff.when_can_preempt)}};
    if (ff.preference)
      fung.set("preference", name_of(*ff.preference));
    spec.set("flavorFungibility", std::move(fung));
    if (q.fair_weight != 1.0) spec.set("fairSharing", core::Map{{"weight", weight_text(q.fair_weight)}});
    if (q.stop_policy != StopPolicy::None) spec.set("stopPolicy", name_of(q.stop_policy));
    out.push_back(object(api, "ClusterQueue", core::Map{{"name", q.name}}, std::move(spec)));
  }
  for (const auto& lq : config.local_queues)
    out.push_back(object(api, "LocalQueue", core::Map{{"namespace", lq.namespace_}, {"name", lq.name}},
                         core::Map{{"clusterQueue", lq.cluster_queue}}));
  for (const auto& pc : config.priority_classes) {
    Value v = object(api, "WorkloadPriorityClass", core::Map{{"name", pc.name}}, {});
    v.mutable_map().set("value", pc.value);
    if (!pc.description.empty()) v.mutable_map().set("description", pc.description);
    out.push_back(std::move(v));
  }
  return out;
}

std::string export_kueue_yaml(const QuotaConfig& config, KueueApiVersion version) {
  std::string out;
  for (const auto& doc : export_kueue(config, version)) {
    if (!out.empty()) out += "---\n";
    out += core::to_yaml(doc);
    if (!out.empty() && out.back() != '\n') out += '\n';
  }
  return out;
}

}  // namespace budcore::quota
