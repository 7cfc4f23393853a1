// The `quota simulate` contract (docs/cli.md contract 2): JSON in, engine run, JSON out.
#include "budcore/quota/scenario.hpp"

#include <algorithm>
#include <set>
#include <span>

#include "budcore/core/json.hpp"
#include "budcore/core/keys.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/quota/engine_json.hpp"
#include "core/json_pointer.hpp"
#include "quota/kueue_names.hpp"

namespace budcore::quota {
namespace {

using core::Error;
using core::Value;
using Json = core::Value;  // the parsed scenario document
template <class T>
using R = core::Result<T>;

std::string at(const std::string& base, std::string_view key) { return base.empty() ? std::string(key) : base + "." + std::string(key); }
std::string at(const std::string& base, std::size_t i) { return base + "[" + std::to_string(i) + "]"; }

const Json* member(const Json& obj, const char* key) {
  const Json* v = obj.is_map() ? obj.find(key) : nullptr;
  return v == nullptr || v->is_null() ? nullptr : v;
}

std::string dump(const Json& v) { return core::to_json(v); }

// One element of a list the caller checked is a list.
const Json& item(const Json& list, std::size_t i) { return list.as_list()[i]; }

// The keys each object of the contract may hold (docs/cli.md contracts 2 and 6, plus the
// aliases Kueue's field names give). Anything else is a typo or a setting budcore would
// silently drop ("reqests" admitted a workload requesting nothing): an error with a hint.
constexpr std::string_view kRootKeys[] = {"cycles", "fair_sharing", "resource_flavors", "cohorts", "cluster_queues",
                                          "local_queues", "priority_classes", "workloads", "now", "horizon_seconds",
                                          "source", "description"};  // the last two: free text about the scenario
constexpr std::string_view kFairSharingKeys[] = {"enable", "preemption_strategies"};
constexpr std::string_view kFlavorKeys[] = {"name", "node_labels", "node_taints"};
constexpr std::string_view kTaintKeys[] = {"key", "value", "effect", "operator"};
constexpr std::string_view kCohortKeys[] = {"name", "parent", "fair_weight", "fair_sharing", "resource_groups"};
constexpr std::string_view kWeightKeys[] = {"weight"};
constexpr std::string_view kQueueKeys[] = {"name", "cohort", "queueing_strategy", "preemption", "flavor_fungibility",
                                           "fair_weight", "fair_sharing", "stop_policy", "resource_groups"};
constexpr std::string_view kPreemptionKeys[] = {"within_cluster_queue", "reclaim_within_cohort", "borrow_within_cohort"};
constexpr std::string_view kBorrowKeys[] = {"policy", "max_priority_threshold"};
constexpr std::string_view kFungibilityKeys[] = {"when_can_borrow", "when_can_preempt", "preference"};
constexpr std::string_view kGroupKeys[] = {"covered_resources", "flavors"};
constexpr std::string_view kFlavorQuotaKeys[] = {"name", "resources"};
constexpr std::string_view kResourceKeys[] = {"name", "nominal", "nominal_quota", "borrowing_limit", "lending_limit"};
constexpr std::string_view kLocalQueueKeys[] = {"namespace", "name", "cluster_queue"};
constexpr std::string_view kPriorityClassKeys[] = {"name", "value", "description"};
constexpr std::string_view kWorkloadKeys[] = {"name", "namespace", "queue", "priority", "priority_class", "creation_seq",
                                              "pod_sets", "admitted",
                                              // contract 6 (schedule estimate) reads these from the same document
                                              "duration_seconds", "submit_at", "depends_on", "started_at", "window",
                                              "deadline"};
constexpr std::string_view kPodSetKeys[] = {"name", "count", "min_count", "requests", "node_selector", "tolerations"};
constexpr std::string_view kAdmittedKeys[] = {"cluster_queue", "flavors", "count", "reservation_seq"};

// An object with only known keys; the first unknown one is the error.
core::Status known_keys(const Json& obj, const std::string& path, std::span<const std::string_view> keys) {
  if (!obj.is_map()) return Error::invalid(path, core::truncate_text(dump(obj)), "expected an object");
  for (const auto& [k, v] : obj.as_map()) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) return core::unknown_key(path, k, keys);
  }
  return {};
}

// A JSON integer within [lo, hi]: counts, priorities and sequence numbers are narrower than the
// JSON number that carries them, and a value that does not fit is an error, never wrapped.
R<std::int64_t> get_int_in(const Json& obj, const char* key, const std::string& path, std::int64_t fallback,
                           std::int64_t lo, std::int64_t hi);

R<std::string> get_string(const Json& obj, const char* key, const std::string& path, bool required = true,
                          std::string fallback = {}) {
  const Json* v = member(obj, key);
  if (!v) {
    if (required) return Error::invalid(at(path, key), "", "required field is missing");
    return fallback;
  }
  if (!v->is_string()) return Error::invalid(at(path, key), dump(*v), "expected a string");
  return v->as_string();
}

R<std::int64_t> get_int(const Json& obj, const char* key, const std::string& path, std::int64_t fallback) {
  const Json* v = member(obj, key);
  if (!v) return fallback;
  // (An integer outside int64 never gets here: parse_json refuses it, naming its path.)
  if (!v->is_int()) return Error::invalid(at(path, key), core::truncate_text(dump(*v)), "expected an integer");
  return v->as_int();
}

R<std::int64_t> get_int_in(const Json& obj, const char* key, const std::string& path, std::int64_t fallback,
                           std::int64_t lo, std::int64_t hi) {
  std::int64_t v;
  BUDCORE_TRY_ASSIGN(v, get_int(obj, key, path, fallback));
  BUDCORE_TRY(core::check_range(v, lo, hi, at(path, key)));
  return v;
}

constexpr std::int64_t kInt32Max = INT32_MAX;
constexpr std::int64_t kInt32Min = INT32_MIN;

R<core::Quantity> get_quantity(const Json& v, const std::string& path) {
  if (v.is_int()) return core::Quantity::from_int(v.as_int());
  std::string text;
  if (v.is_string()) text = v.as_string();
  else if (v.is_float()) text = dump(v);
  else return Error::invalid(path, dump(v), "expected a quantity such as \"500m\" or \"2Gi\"");
  auto q = core::Quantity::parse(text);
  if (!q) return Error::invalid(path, text, q.error().message);
  return *q;
}

R<double> get_weight(const Json& obj, const std::string& path) {
  const Json* v = member(obj, "fair_weight");
  if (!v) {
    if (const Json* fs = member(obj, "fair_sharing")) {
      BUDCORE_TRY(known_keys(*fs, at(path, "fair_sharing"), kWeightKeys));
      v = member(*fs, "weight");
    }
  }
  if (!v) return 1.0;
  core::Quantity q;
  BUDCORE_TRY_ASSIGN(q, get_quantity(*v, at(path, "fair_weight")));
  return static_cast<double>(q.nano()) / 1e9;
}

template <class E>
R<E> get_enum(const Json& obj, const char* key, const std::string& path, E fallback,
              std::type_identity_t<detail::Names<E>> names) {
  const Json* v = member(obj, key);
  if (!v) return fallback;
  if (v->is_string())
    if (auto e = detail::value_named(names, v->as_string())) return *e;
  return Error::invalid(at(path, key), v->is_string() ? v->as_string() : dump(*v), detail::expected_one_of(names));
}

R<std::vector<Taint>> taints_of(const Json& list, const std::string& path) {
  if (!list.is_list()) return Error::invalid(path, "", "expected a list");
  std::vector<Taint> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& t = item(list, i);
    BUDCORE_TRY(known_keys(t, at(path, i), kTaintKeys));
    auto text = [&](const char* k) -> R<std::string> { return get_string(t, k, at(path, i), false); };
    Taint taint;
    BUDCORE_TRY_ASSIGN(taint.key, text("key"));
    BUDCORE_TRY_ASSIGN(taint.value, text("value"));
    BUDCORE_TRY_ASSIGN(taint.effect, text("effect"));
    out.push_back(std::move(taint));
  }
  return out;
}

R<std::vector<ResourceGroup>> parse_groups(const Json& obj, const std::string& path) {
  std::vector<ResourceGroup> out;
  const Json* groups = member(obj, "resource_groups");
  if (!groups) return out;
  std::string gpath = at(path, "resource_groups");
  if (!groups->is_list()) return Error::invalid(gpath, "", "expected a list");
  for (std::size_t g = 0; g < groups->size(); ++g) {
    const Json& gj = item(*groups, g);
    std::string p = at(gpath, g);
    if (!gj.is_map()) return Error::invalid(p, "", "expected an object");
    BUDCORE_TRY(known_keys(gj, p, kGroupKeys));
    ResourceGroup rg;
    if (const Json* cr = member(gj, "covered_resources")) {
      if (!cr->is_list()) return Error::invalid(at(p, "covered_resources"), "", "expected a list of resource names");
      for (std::size_t i = 0; i < cr->size(); ++i) {
        if (!item(*cr, i).is_string()) return Error::invalid(at(at(p, "covered_resources"), i), dump(item(*cr, i)), "expected a string");
        rg.covered_resources.push_back(item(*cr, i).as_string());
      }
    }
    if (const Json* fl = member(gj, "flavors")) {
      if (!fl->is_list()) return Error::invalid(at(p, "flavors"), "", "expected a list");
      for (std::size_t f = 0; f < fl->size(); ++f) {
        const Json& fj = item(*fl, f);
        std::string fp = at(at(p, "flavors"), f);
        BUDCORE_TRY(known_keys(fj, fp, kFlavorQuotaKeys));
        FlavorQuotas fq;
        BUDCORE_TRY_ASSIGN(fq.name, get_string(fj, "name", fp));
        if (const Json* rs = member(fj, "resources")) {
          if (!rs->is_list()) return Error::invalid(at(fp, "resources"), "", "expected a list");
          for (std::size_t r = 0; r < rs->size(); ++r) {
            const Json& rj = item(*rs, r);
            std::string rp = at(at(fp, "resources"), r);
            BUDCORE_TRY(known_keys(rj, rp, kResourceKeys));
            ResourceQuota rq;
            BUDCORE_TRY_ASSIGN(rq.name, get_string(rj, "name", rp));
            const Json* nominal = member(rj, "nominal");
            if (!nominal) nominal = member(rj, "nominal_quota");
            if (!nominal) return Error::invalid(at(rp, "nominal"), "", "required field is missing");
            BUDCORE_TRY_ASSIGN(rq.nominal, get_quantity(*nominal, at(rp, "nominal")));
            if (const Json* b = member(rj, "borrowing_limit")) {
            BUDCORE_TRY_ASSIGN(rq.borrowing_limit, get_quantity(*b, at(rp, "borrowing_limit")));
          }
            if (const Json* l = member(rj, "lending_limit")) {
            BUDCORE_TRY_ASSIGN(rq.lending_limit, get_quantity(*l, at(rp, "lending_limit")));
          }
            fq.resources.push_back(std::move(rq));
          }
        }
        rg.flavors.push_back(std::move(fq));
      }
    }
    out.push_back(std::move(rg));
  }
  return out;
}

const Json* list_of(const Json& root, const char* key, const std::string& path, core::Status& st) {
  const Json* v = member(root, key);
  if (v && !v->is_list()) st = Error::invalid(at(path, key), "", "expected a list");
  return v;
}

R<ClusterQueue> parse_cq(const Json& j, const std::string& p) {
  BUDCORE_TRY(known_keys(j, p, kQueueKeys));
  ClusterQueue cq;
  BUDCORE_TRY_ASSIGN(cq.name, get_string(j, "name", p));
  if (const Json* c = member(j, "cohort")) {
    if (!c->is_string()) return Error::invalid(at(p, "cohort"), dump(*c), "expected a string or null");
    cq.cohort = c->as_string();
  }
  BUDCORE_TRY_ASSIGN(cq.queueing_strategy, get_enum(j, "queueing_strategy", p, QueueingStrategy::BestEffortFIFO,
                                                    detail::kQueueingStrategies));
  if (const Json* pr = member(j, "preemption")) {
    std::string pp = at(p, "preemption");
    BUDCORE_TRY(known_keys(*pr, pp, kPreemptionKeys));
    BUDCORE_TRY_ASSIGN(cq.preemption.within_cluster_queue,
                       get_enum(*pr, "within_cluster_queue", pp, PreemptionPolicy::Never,
                                detail::kWithinClusterQueue));
    BUDCORE_TRY_ASSIGN(cq.preemption.reclaim_within_cohort,
                       get_enum(*pr, "reclaim_within_cohort", pp, PreemptionPolicy::Never,
                                detail::kReclaimWithinCohort));
    if (const Json* b = member(*pr, "borrow_within_cohort")) {
      std::string bp = at(pp, "borrow_within_cohort");
      BUDCORE_TRY(known_keys(*b, bp, kBorrowKeys));
      BUDCORE_TRY_ASSIGN(cq.preemption.borrow_within_cohort.policy,
                         get_enum(*b, "policy", bp, BorrowWithinCohortPolicy::Never,
                                  detail::kBorrowWithinCohort));
      if (member(*b, "max_priority_threshold")) {
        std::int64_t t;
        BUDCORE_TRY_ASSIGN(t, get_int_in(*b, "max_priority_threshold", bp, 0, kInt32Min, kInt32Max));
        cq.preemption.borrow_within_cohort.max_priority_threshold = static_cast<std::int32_t>(t);
      }
    }
  }
  if (const Json* ff = member(j, "flavor_fungibility")) {
    std::string fp = at(p, "flavor_fungibility");
    BUDCORE_TRY(known_keys(*ff, fp, kFungibilityKeys));
    BUDCORE_TRY_ASSIGN(cq.flavor_fungibility.when_can_borrow,
                       get_enum(*ff, "when_can_borrow", fp, FungibilityPolicy::MayStopSearch,
                                detail::kWhenCanBorrow));
    BUDCORE_TRY_ASSIGN(cq.flavor_fungibility.when_can_preempt,
                       get_enum(*ff, "when_can_preempt", fp, FungibilityPolicy::TryNextFlavor,
                                detail::kWhenCanPreempt));
    if (member(*ff, "preference")) {
      FungibilityPreference pref;
      BUDCORE_TRY_ASSIGN(pref, get_enum(*ff, "preference", fp, FungibilityPreference::BorrowingOverPreemption,
                                        detail::kFungibilityPreferences));
      cq.flavor_fungibility.preference = pref;
    }
  }
  BUDCORE_TRY_ASSIGN(cq.fair_weight, get_weight(j, p));
  BUDCORE_TRY_ASSIGN(cq.stop_policy, get_enum(j, "stop_policy", p, StopPolicy::None,
                                              detail::kStopPolicies));
  BUDCORE_TRY_ASSIGN(cq.resource_groups, parse_groups(j, p));
  return cq;
}

R<Workload> read_workload(const Json& j, const std::string& p, const QuotaConfig& config) {
  BUDCORE_TRY(known_keys(j, p, kWorkloadKeys));
  Workload w;
  BUDCORE_TRY_ASSIGN(w.name, get_string(j, "name", p));
  BUDCORE_TRY_ASSIGN(w.namespace_, get_string(j, "namespace", p, false, "default"));
  BUDCORE_TRY_ASSIGN(w.queue, get_string(j, "queue", p, false));
  std::int64_t prio;
  BUDCORE_TRY_ASSIGN(prio, get_int_in(j, "priority", p, 0, kInt32Min, kInt32Max));
  if (const Json* pc = member(j, "priority_class")) {
    bool found = false;
    for (const auto& c : config.priority_classes)
      if (pc->is_string() && c.name == pc->as_string()) {
        prio = c.value;
        found = true;
      }
    if (!found) return Error::invalid(at(p, "priority_class"), core::truncate_text(dump(*pc)), "unknown workload priority class");
  }
  w.priority = static_cast<std::int32_t>(prio);
  BUDCORE_TRY_ASSIGN(w.creation_seq, get_int(j, "creation_seq", p, 0));
  const Json* ps = member(j, "pod_sets");
  if (!ps || !ps->is_list()) return Error::invalid(at(p, "pod_sets"), "", "expected a list of pod sets");
  for (std::size_t i = 0; i < ps->size(); ++i) {
    const Json& pj = item(*ps, i);
    std::string pp = at(at(p, "pod_sets"), i);
    BUDCORE_TRY(known_keys(pj, pp, kPodSetKeys));
    PodSet s;
    BUDCORE_TRY_ASSIGN(s.name, get_string(pj, "name", pp, false, "main"));
    std::int64_t count;
    // 4,294,967,297 pods were admitted as 1 pod and 2^31 was rejected as negative: the engine
    // counts pods in 32 bits, so that is the range.
    BUDCORE_TRY_ASSIGN(count, get_int_in(pj, "count", pp, 1, 0, kInt32Max));
    s.count = static_cast<std::int32_t>(count);
    if (member(pj, "min_count")) {
      std::int64_t mc;
      BUDCORE_TRY_ASSIGN(mc, get_int_in(pj, "min_count", pp, 0, kInt32Min, kInt32Max));
      if (mc < 1 || mc > count) return Error::invalid(at(pp, "min_count"), std::to_string(mc), "min_count must be between 1 and count");
      s.min_count = static_cast<std::int32_t>(mc);
    }
    if (const Json* rq = member(pj, "requests")) {
      if (!rq->is_map()) return Error::invalid(at(pp, "requests"), "", "expected a map of resource to quantity");
      for (const auto& [name, v] : rq->as_map()) {
        core::Quantity q;
        BUDCORE_TRY_ASSIGN(q, get_quantity(v, at(at(pp, "requests"), name)));
        if (q.sign() < 0) return Error::invalid(at(at(pp, "requests"), name), q.to_string(), "request must not be negative");
        if (auto st = s.requests.set(name, q); !st) return Error::invalid(at(at(pp, "requests"), name), name, st.error().message);
      }
    }
    if (const Json* ns = member(pj, "node_selector")) {
      if (!ns->is_map()) return Error::invalid(at(pp, "node_selector"), "", "expected a map of label to value");
      for (const auto& [k, v] : ns->as_map()) s.node_selector[k] = v.is_string() ? v.as_string() : dump(v);
    }
    if (const Json* tl = member(pj, "tolerations")) {
      BUDCORE_TRY_ASSIGN(s.tolerations, taints_of(*tl, at(pp, "tolerations")));
    }
    w.pod_sets.push_back(std::move(s));
  }
  if (const Json* a = member(j, "admitted")) {
    std::string ap = at(p, "admitted");
    if (!a->is_map()) return Error::invalid(ap, "", "expected an object or null");
    BUDCORE_TRY(known_keys(*a, ap, kAdmittedKeys));
    Admission adm;
    BUDCORE_TRY_ASSIGN(adm.cluster_queue, get_string(*a, "cluster_queue", ap));
    if (const Json* f = member(*a, "flavors")) {
      if (!f->is_map()) return Error::invalid(at(ap, "flavors"), "", "expected a map of pod set to flavors");
      for (const auto& [psn, m] : f->as_map()) {
        if (!m.is_map()) return Error::invalid(at(at(ap, "flavors"), psn), "", "expected a map of resource to flavor");
        for (const auto& [res, fl] : m.as_map()) {
          if (!fl.is_string()) return Error::invalid(at(at(at(ap, "flavors"), psn), res), dump(fl), "expected a flavor name");
          adm.flavors[psn][res] = fl.as_string();
        }
      }
    }
    if (const Json* c = member(*a, "count")) {
      if (!c->is_map()) return Error::invalid(at(ap, "count"), "", "expected a map of pod set to count");
      for (const auto& [psn, n] : c->as_map()) {
        std::int64_t v;
        BUDCORE_TRY_ASSIGN(v, get_int_in(*c, psn.c_str(), at(ap, "count"), 0, 0, kInt32Max));
        adm.count[psn] = static_cast<std::int32_t>(v);
      }
    }
    if (const Json* rs = member(*a, "reservation_seq")) {
      if (!rs->is_int()) return Error::invalid(at(ap, "reservation_seq"), dump(*rs), "expected an integer");
      w.reservation_seq = rs->as_int();
    }
    w.admitted = std::move(adm);
  }
  return w;
}

}  // namespace

core::Result<Scenario> parse_scenario(std::string_view text) {
  BUDCORE_TRY(core::check_input_size(text.size(), {}));
  auto parsed = core::parse_json(text);  // bounded nesting and size; int64 integers
  if (!parsed) {
    core::Error e = std::move(parsed).error();
    e.field = core::field_path_of_pointer(e.field);
    return e;
  }
  const Json& root = *parsed;
  if (!root.is_map()) return Error::invalid("", "", "a scenario must be a JSON object");
  BUDCORE_TRY(known_keys(root, "", kRootKeys));
  Scenario s;
  if (const Json* c = member(root, "cycles")) {
    if (c->is_string() && c->as_string() == "until_quiescent") s.cycles = std::nullopt;
    else if (c->is_int() && c->as_int() >= 0 && c->as_int() <= 1'000'000) s.cycles = static_cast<int>(c->as_int());
    else return Error::invalid("cycles", dump(*c), "expected a non-negative integer or \"until_quiescent\"");
  }
  if (const Json* f = member(root, "fair_sharing")) {
    if (f->is_bool()) s.fair_sharing = f->as_bool();
    else if (f->is_map()) {
      BUDCORE_TRY(known_keys(*f, "fair_sharing", kFairSharingKeys));
      const Json* enable = member(*f, "enable");
      if (enable && !enable->is_bool()) return Error::invalid("fair_sharing.enable", dump(*enable), "expected true or false");
      s.fair_sharing = enable ? enable->as_bool() : true;
    }
    else return Error::invalid("fair_sharing", dump(*f), "expected true or false");
    if (const Json* ps = f->is_map() ? member(*f, "preemption_strategies") : nullptr) {
      if (!ps->is_list()) return Error::invalid("fair_sharing.preemption_strategies", dump(*ps), "expected a list");
      for (std::size_t i = 0; i < ps->size(); ++i) {
        const Json& v = item(*ps, i);
        std::string name = v.is_string() ? v.as_string() : dump(v);
        if (name == "LessThanOrEqualToFinalShare") s.fair_sharing_strategies.push_back(FairSharingStrategy::LessThanOrEqualToFinalShare);
        else if (name == "LessThanInitialShare") s.fair_sharing_strategies.push_back(FairSharingStrategy::LessThanInitialShare);
        else return Error::invalid(at(std::string("fair_sharing.preemption_strategies"), i), name,
                                   "expected LessThanOrEqualToFinalShare or LessThanInitialShare");
      }
    }
  }
  core::Status st;
  if (const Json* l = list_of(root, "resource_flavors", "", st); l && st) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      std::string p = at(std::string("resource_flavors"), i);
      BUDCORE_TRY(known_keys(item(*l, i), p, kFlavorKeys));
      ResourceFlavor f;
      BUDCORE_TRY_ASSIGN(f.name, get_string(item(*l, i), "name", p));
      if (const Json* nl = member(item(*l, i), "node_labels")) {
        if (!nl->is_map()) return Error::invalid(at(p, "node_labels"), "", "expected a map of label to value");
        for (const auto& [k, v] : nl->as_map()) f.node_labels[k] = v.is_string() ? v.as_string() : dump(v);
      }
      if (const Json* nt = member(item(*l, i), "node_taints")) {
        BUDCORE_TRY_ASSIGN(f.node_taints, taints_of(*nt, at(p, "node_taints")));
      }
      s.config.resource_flavors.push_back(std::move(f));
    }
  }
  BUDCORE_TRY(st);
  if (const Json* l = list_of(root, "cohorts", "", st); l && st) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      std::string p = at(std::string("cohorts"), i);
      BUDCORE_TRY(known_keys(item(*l, i), p, kCohortKeys));
      Cohort c;
      BUDCORE_TRY_ASSIGN(c.name, get_string(item(*l, i), "name", p));
      if (const Json* par = member(item(*l, i), "parent")) {
        if (!par->is_string()) return Error::invalid(at(p, "parent"), dump(*par), "expected a string or null");
        c.parent = par->as_string();
      }
      BUDCORE_TRY_ASSIGN(c.fair_weight, get_weight(item(*l, i), p));
      BUDCORE_TRY_ASSIGN(c.resource_groups, parse_groups(item(*l, i), p));
      s.config.cohorts.push_back(std::move(c));
    }
  }
  BUDCORE_TRY(st);
  if (const Json* l = list_of(root, "cluster_queues", "", st); l && st) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      ClusterQueue cq;
      BUDCORE_TRY_ASSIGN(cq, parse_cq(item(*l, i), at(std::string("cluster_queues"), i)));
      s.config.cluster_queues.push_back(std::move(cq));
    }
  }
  BUDCORE_TRY(st);
  if (const Json* l = list_of(root, "local_queues", "", st); l && st) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      std::string p = at(std::string("local_queues"), i);
      BUDCORE_TRY(known_keys(item(*l, i), p, kLocalQueueKeys));
      LocalQueue lq;
      BUDCORE_TRY_ASSIGN(lq.namespace_, get_string(item(*l, i), "namespace", p, false, "default"));
      BUDCORE_TRY_ASSIGN(lq.name, get_string(item(*l, i), "name", p));
      BUDCORE_TRY_ASSIGN(lq.cluster_queue, get_string(item(*l, i), "cluster_queue", p));
      s.config.local_queues.push_back(std::move(lq));
    }
  }
  BUDCORE_TRY(st);
  if (const Json* l = list_of(root, "priority_classes", "", st); l && st) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      std::string p = at(std::string("priority_classes"), i);
      BUDCORE_TRY(known_keys(item(*l, i), p, kPriorityClassKeys));
      WorkloadPriorityClass pc;
      BUDCORE_TRY_ASSIGN(pc.name, get_string(item(*l, i), "name", p));
      std::int64_t v;
      BUDCORE_TRY_ASSIGN(v, get_int_in(item(*l, i), "value", p, 0, kInt32Min, kInt32Max));
      pc.value = static_cast<std::int32_t>(v);
      s.config.priority_classes.push_back(std::move(pc));
    }
  }
  BUDCORE_TRY(st);
  if (const Json* l = list_of(root, "workloads", "", st); l && st) {
    for (std::size_t i = 0; i < l->size(); ++i) {
      Workload w;
      BUDCORE_TRY_ASSIGN(w, read_workload(item(*l, i), at(std::string("workloads"), i), s.config));
      s.workloads.push_back(std::move(w));
    }
  }
  BUDCORE_TRY(st);
  return s;
}

core::Result<SimulationResult> simulate(const Scenario& scenario) {
  auto engine = AdmissionEngine::create(scenario.config, EngineOptions{scenario.fair_sharing, scenario.fair_sharing_strategies});
  if (!engine) return std::move(engine).error();
  // Output names: plain names unless a name occurs in more than one namespace.
  std::map<std::string, std::set<std::string>> namespaces;
  for (const auto& w : scenario.workloads) namespaces[w.name].insert(w.namespace_);
  for (std::size_t i = 0; i < scenario.workloads.size(); ++i) {
    auto st = engine->add_workload(scenario.workloads[i]);
    if (!st) return std::move(st).error().at("workloads[" + std::to_string(i) + "]");
  }
  SimulationResult out;
  std::set<std::string> preempted;
  if (scenario.cycles) {
    for (int c = 0; c < *scenario.cycles; ++c) {
      auto rep = engine->run_cycle();
      ++out.cycles_run;
      for (auto& k : rep.preempted) preempted.insert(k);
    }
  } else {
    for (int c = 0; c < 1'000'000; ++c) {
      auto rep = engine->run_cycle();
      ++out.cycles_run;
      for (auto& k : rep.preempted) preempted.insert(k);
      if (!rep.changed) break;
    }
  }
  for (std::size_t i = 0; i < scenario.workloads.size(); ++i) {
    const Workload& w = scenario.workloads[i];
    std::string name = namespaces[w.name].size() > 1 ? w.key() : w.name;
    auto s = engine->status(w.key());
    if (preempted.count(w.key())) out.preempted.push_back(name);
    if (s->state == WorkloadState::Admitted && s->admitted_by_engine) {
      AdmittedOutcome a;
      a.cluster_queue = s->admission->cluster_queue;
      a.flavors = s->admission->flavors;
      a.borrowing = s->borrowing;
      for (const auto& ps : w.pod_sets) {
        auto c = s->admission->count.find(ps.name);
        if (c != s->admission->count.end() && c->second != ps.count) a.count[ps.name] = c->second;
      }
      out.admitted[name] = std::move(a);
    } else if (s->state == WorkloadState::Pending && !preempted.count(w.key()) && s->pending_reason != "finished") {
      out.pending[name] = s->pending_reason;
    }
  }
  for (const auto& [cq, flavors] : engine->cluster_queue_usage())
    for (const auto& [fl, res] : flavors)
      for (const auto& [r, cell] : res)
        out.usage[cq][fl][r] =
            core::Quantity::from_nano(static_cast<core::int128>(cell.used) * 1'000'000, engine->format_of(r)).to_string();
  return out;
}

core::Result<Workload> parse_workload(std::string_view json, const QuotaConfig& config) {
  auto parsed = core::parse_json(json);
  if (!parsed) {
    core::Error e = std::move(parsed).error();
    e.field = core::field_path_of_pointer(e.field, "workload");
    return e;
  }
  return read_workload(*parsed, "workload", config);
}

std::string to_json(const SimulationResult& r, int indent) {
  // Names built in code may hold malformed UTF-8: to_json writes it as U+FFFD.
  return core::to_json(to_value(r), core::JsonOptions{indent});
}

}  // namespace budcore::quota
