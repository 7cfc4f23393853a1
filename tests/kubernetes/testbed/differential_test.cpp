// The differential test: the same scenario through budcore's admission engine (what `budcore
// quota simulate` runs) and through the real Kueue controller must give the same admissions
// (cluster queue and flavors per pod set, partial-admission counts) and the same preemptions.
//
// Driving Kueue deterministically (research/KUBERNETES-TESTBED.md): every name gets a suffix so
// scenarios never meet; workloads the scenario says are admitted are created first and waited
// for; then every ClusterQueue is held inactive by a resource group whose flavor does not exist
// yet, the pending workloads are created in queue order >1 s apart (Kueue orders by creation
// time at second granularity), and creating that flavor opens every queue at once, so Kueue's
// first scheduling cycle sees all of them, as budcore's does. The run ends when nothing has
// changed for 3 s; budcore runs until quiescent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "budcore/core/json.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/kubernetes/status.hpp"
#include "budcore/quota/scenario.hpp"
#include "kubernetes/testbed/testbed.hpp"

namespace budcore::kubernetes {
namespace {

using core::List;
using core::Map;
using core::Value;
using testing::Testbed;

constexpr const char* kGateResource = "budcore.io/gate";

struct Outcome {
  // workload -> "cq | podset:res=flavor,... | podset:count" (count only when reduced)
  std::map<std::string, std::string> admitted;
  std::set<std::string> preempted;
};

std::string describe(const Outcome& o) {
  std::string s = "admitted:\n";
  for (const auto& [w, a] : o.admitted) s += "  " + w + " -> " + a + "\n";
  s += "preempted:";
  for (const auto& w : o.preempted) s += " " + w;
  return s + "\n";
}

std::string admission_text(const std::string& cq, const std::map<std::string, std::map<std::string, std::string>>& flavors,
                           const std::map<std::string, std::int32_t>& counts) {
  std::string s = cq + " |";
  for (const auto& [ps, res] : flavors)
    for (const auto& [r, f] : res) s += " " + ps + ":" + r + "=" + f;
  s += " |";
  for (const auto& [ps, c] : counts) s += " " + ps + ":" + std::to_string(c);
  return s;
}

// Kubernetes names for the scenario's (scenario names may hold '_' or capitals).
class Renamer {
 public:
  explicit Renamer(std::string sfx) : sfx_(std::move(sfx)) {}
  std::string operator()(const std::string& name) {
    auto it = map_.find(name);
    if (it != map_.end()) return it->second;
    std::string out;
    for (char c : name) out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out = out.substr(0, 50) + "-" + sfx_;
    map_[name] = out;
    back_[out] = name;
    return out;
  }
  // Resource names: scenario-only names ("gpu") become extended resources a Pod may request.
  static std::string resource(const std::string& r) {
    static const std::set<std::string> standard = {"cpu", "memory", "ephemeral-storage", "pods"};
    return standard.count(r) || r.find('/') != std::string::npos ? r : "example.com/" + r;
  }
  static std::string original_resource(const std::string& r) {
    return r.rfind("example.com/", 0) == 0 ? r.substr(12) : r;
  }
  std::string original(const std::string& k8s) const {
    auto it = back_.find(k8s);
    return it == back_.end() ? k8s : it->second;
  }

 private:
  std::string sfx_;
  std::map<std::string, std::string> map_, back_;
};

quota::Scenario renamed(const quota::Scenario& in, Renamer& rn) {
  quota::Scenario s = in;
  auto groups = [&](std::vector<quota::ResourceGroup>& gs) {
    for (auto& g : gs) {
      for (auto& r : g.covered_resources) r = Renamer::resource(r);
      for (auto& f : g.flavors) {
        f.name = rn(f.name);
        for (auto& r : f.resources) r.name = Renamer::resource(r.name);
      }
    }
  };
  for (auto& f : s.config.resource_flavors) f.name = rn(f.name);
  for (auto& c : s.config.cohorts) {
    c.name = rn(c.name);
    if (c.parent) c.parent = rn(*c.parent);
    groups(c.resource_groups);
  }
  for (auto& q : s.config.cluster_queues) {
    q.name = rn(q.name);
    if (q.cohort) q.cohort = rn(*q.cohort);
    groups(q.resource_groups);
  }
  for (auto& l : s.config.local_queues) {
    l.namespace_ = rn(l.namespace_);
    l.name = rn(l.name);
    l.cluster_queue = rn(l.cluster_queue);
  }
  for (auto& w : s.workloads) {
    w.name = rn(w.name);
    w.namespace_ = rn(w.namespace_);
    w.queue = rn(w.queue);
    for (auto& ps : w.pod_sets) {
      core::ResourceList req;
      for (const auto& [name, q] : ps.requests.items()) (void)req.set(Renamer::resource(name), q);
      ps.requests = req;
    }
    if (w.admitted) {
      w.admitted->cluster_queue = rn(w.admitted->cluster_queue);
      for (auto& [ps, res] : w.admitted->flavors) {
        std::map<std::string, std::string> renamed_res;
        for (auto& [r, f] : res) renamed_res[Renamer::resource(r)] = rn(f);
        res = renamed_res;
      }
    }
  }
  return s;
}

std::string priority_class(std::int32_t p, const std::string& sfx) {
  return (p < 0 ? "pm" + std::to_string(-static_cast<std::int64_t>(p)) : "p" + std::to_string(p)) + "-" + sfx;
}

// A workload as a suspended batch/v1 Job Kueue manages: Kueue's job integration is what carries
// out evictions (it suspends the Job and releases the quota), so preemption completes as it
// would in a cluster. One pod set ("main"), count = parallelism = completions, minCount through
// kueue.x-k8s.io/job-min-parallelism, priority through a WorkloadPriorityClass.
Value job_object(const quota::Workload& w, const quota::QuotaConfig& cfg, const std::string& sfx) {
  const quota::PodSet& ps = w.pod_sets.at(0);
  Map requests, limits;  // extended resources need limits equal to requests
  for (const auto& [name, q] : ps.requests.items()) {
    requests.set(name, q.to_string());
    if (name.find('/') != std::string::npos) limits.set(name, q.to_string());
  }
  Map resources{{"requests", requests}};
  if (!limits.empty()) resources.set("limits", limits);
  Map pod{{"restartPolicy", "Never"},
          {"containers", List{Map{{"name", "c"}, {"image", "busybox"}, {"resources", resources}}}}};
  Map selector;
  for (const auto& [k, v] : ps.node_selector) selector.set(k, v);
  // A workload the scenario says is admitted on given flavors is pinned to them when they
  // have node labels (Kueue might otherwise choose differently on its own).
  if (w.admitted)
    if (auto it = w.admitted->flavors.find(ps.name); it != w.admitted->flavors.end())
      for (const auto& [res, flavor] : it->second)
        for (const auto& f : cfg.resource_flavors)
          if (f.name == flavor)
            for (const auto& [k, v] : f.node_labels) selector.set(k, v);
  if (!selector.empty()) pod.set("nodeSelector", selector);
  List tolerations;
  for (const auto& t : ps.tolerations) {
    Map tm{{"key", t.key}, {"operator", t.value.empty() ? "Exists" : "Equal"}};
    if (!t.value.empty()) tm.set("value", t.value);
    if (!t.effect.empty()) tm.set("effect", t.effect);
    tolerations.emplace_back(std::move(tm));
  }
  if (!tolerations.empty()) pod.set("tolerations", tolerations);
  Map labels{{"kueue.x-k8s.io/queue-name", w.queue}};
  if (w.priority != 0) labels.set("kueue.x-k8s.io/priority-class", priority_class(w.priority, sfx));
  Map meta{{"name", w.name}, {"namespace", w.namespace_}, {"labels", labels}};
  if (ps.min_count) meta.set("annotations", Map{{"kueue.x-k8s.io/job-min-parallelism", std::to_string(*ps.min_count)}});
  return Map{{"apiVersion", "batch/v1"},
             {"kind", "Job"},
             {"metadata", meta},
             {"spec", Map{{"suspend", true},
                          {"parallelism", ps.count},
                          {"completions", ps.count},
                          {"backoffLimit", 0},
                          {"template", Map{{"spec", pod}}}}}};
}

// The Job a Workload belongs to.
std::string owner(const Value& wl) {
  const Value* o = wl.find_path("metadata.ownerReferences");
  return o && o->is_list() && o->size() > 0 ? o->as_list()[0].find("name")->as_string() : std::string();
}

bool reserved(const Value& wl) {
  auto c = find_condition(wl, "QuotaReserved");
  return c && c->status == "True";
}

std::string fingerprint(const std::vector<Value>& wls) {
  std::string s;
  for (const auto& w : wls) {
    s += owner(w) + ":" + (reserved(w) ? "R" : "-");
    if (const Value* a = w.find_path("status.admission")) s += core::to_json(*a);
    if (auto e = find_condition(w, "Evicted"); e && e->status == "True") s += "E" + e->reason;
    s += ";";
  }
  return s;
}

class DifferentialTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DifferentialTest, BudcoreAndKueueAgree) {
  BUDCORE_NEED_TESTBED();
  std::ifstream in(std::string(BUDCORE_SOURCE_DIR) + "/tests/quota/data/" + GetParam() + ".json");
  ASSERT_TRUE(in) << GetParam();
  std::stringstream ss;
  ss << in.rdbuf();
  auto doc = core::parse_json(ss.str());
  ASSERT_TRUE(doc);
  const Value* sv = doc->find("scenario");
  auto scenario = quota::parse_scenario(core::to_json(sv ? *sv : *doc));
  ASSERT_TRUE(scenario) << scenario.error().describe();
  ASSERT_FALSE(scenario->fair_sharing) << "the test bed's Kueue runs without fair sharing";
  scenario->cycles = std::nullopt;  // Kueue keeps scheduling until nothing changes

  // budcore, under the scenario's own names.
  auto sim = quota::simulate(*scenario);
  ASSERT_TRUE(sim) << sim.error().describe();
  // Outcomes are keyed namespace/name on both sides (the simulator's output uses the bare name
  // unless two namespaces share it).
  auto key_of = [&](const std::string& out_name) {
    if (out_name.find('/') != std::string::npos) return out_name;
    for (const auto& w : scenario->workloads)
      if (w.name == out_name) return w.key();
    return out_name;
  };
  Outcome want;
  std::set<std::string> victims;
  for (const auto& v : sim->preempted) victims.insert(key_of(v));
  for (const auto& w : scenario->workloads) {
    ASSERT_EQ(w.pod_sets.size(), 1u) << "the harness submits batch/v1 Jobs: one pod set per workload";
    if (w.admitted && !victims.count(w.key())) want.admitted[w.key()] = admission_text(w.admitted->cluster_queue, w.admitted->flavors, {});
  }
  for (const auto& [name, a] : sim->admitted) want.admitted[key_of(name)] = admission_text(a.cluster_queue, a.flavors, a.count);
  want.preempted = victims;

  // Kueue, under suffixed Kubernetes names.
  std::string sfx = Testbed::unique("d").substr(2);
  Renamer rn(sfx);
  quota::Scenario k8s = renamed(*scenario, rn);
  auto client = tb->client();
  std::vector<Value> objects = kueue_objects(k8s.config, false);
  std::set<std::string> namespaces;
  for (const auto& l : k8s.config.local_queues) namespaces.insert(l.namespace_);
  for (const auto& w : k8s.workloads) namespaces.insert(w.namespace_);
  for (const auto& ns : namespaces) ASSERT_TRUE(ensure_namespace(*client, ns));
  auto apply_all = [&](const std::vector<Value>& objs) {
    for (const auto& o : objs) {
      const Resource* r = resources::by_kind(o.find("apiVersion")->as_string(), o.find("kind")->as_string());
      ASSERT_NE(r, nullptr);
      std::string ns = o.find_path("metadata.namespace") ? o.find_path("metadata.namespace")->as_string() : "";
      auto a = client->apply(*r, ns, o, true);
      ASSERT_TRUE(a) << a.error().describe();
    }
  };
  apply_all(objects);
  std::set<std::int32_t> priorities;
  for (const auto& w : k8s.workloads)
    if (w.priority != 0) priorities.insert(w.priority);
  for (auto p : priorities) {
    Value pc = Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"}, {"kind", "WorkloadPriorityClass"},
                   {"metadata", Map{{"name", priority_class(p, sfx)}}}, {"value", p}};
    apply_all({pc});
  }
  // The Workload Kueue made for a Job.
  auto workload_of = [&](const quota::Workload& w) -> std::optional<Value> {
    auto l = client->list(resources::workloads(), w.namespace_);
    if (l)
      for (auto& wl : l->items)
        if (owner(wl) == w.name) return wl;
    return std::nullopt;
  };

  // 1. The workloads already admitted, in reservation order.
  std::vector<const quota::Workload*> setup, pending;
  for (const auto& w : k8s.workloads) (w.admitted ? setup : pending).push_back(&w);
  auto order = [](const quota::Workload* a, const quota::Workload* b) {
    auto ka = std::make_tuple(a->reservation_seq.value_or(a->creation_seq), a->creation_seq, a->key());
    auto kb = std::make_tuple(b->reservation_seq.value_or(b->creation_seq), b->creation_seq, b->key());
    return ka < kb;
  };
  std::sort(setup.begin(), setup.end(), order);
  for (const auto* w : setup) {
    auto made = client->create(resources::jobs(), w->namespace_, job_object(*w, k8s.config, sfx));
    ASSERT_TRUE(made) << made.error().describe();
    Value got;
    bool ok = Testbed::wait_until([&] {
      auto g = workload_of(*w);
      if (g) got = *g;
      return g && reserved(*g);
    });
    ASSERT_TRUE(ok) << "setup workload " << rn.original(w->name) << " was not admitted: " << core::to_json(got);
    ASSERT_EQ(got.find_path("status.admission.clusterQueue")->as_string(), w->admitted->cluster_queue);
    for (const auto& psa : got.find_path("status.admission.podSetAssignments")->as_list()) {
      auto it = w->admitted->flavors.find(w->pod_sets[0].name);  // the Job's pod set is "main"
      if (it == w->admitted->flavors.end()) continue;
      (void)psa;
      for (const auto& [res, flavor] : it->second)
        ASSERT_EQ(psa.find("flavors")->find(res)->as_string(), flavor)
            << "setup workload " << rn.original(w->name) << " landed on another flavor; the scenario cannot be reproduced";
    }
    if (setup.size() > 1) std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // distinct reservation times
  }

  // 2. Gate every queue, create the pending workloads in queue order, open the gate.
  std::string gate = "gate-" + sfx;
  std::vector<Value> gated;
  for (const auto& o : objects) {
    if (o.find("kind")->as_string() != "ClusterQueue") continue;
    Value q = o;
    q.mutable_map()["spec"].mutable_map()["resourceGroups"].mutable_list().emplace_back(
        Map{{"coveredResources", List{kGateResource}},
            {"flavors", List{Map{{"name", gate}, {"resources", List{Map{{"name", kGateResource}, {"nominalQuota", "1"}}}}}}}});
    gated.push_back(std::move(q));
  }
  apply_all(gated);
  std::sort(pending.begin(), pending.end(), [](const quota::Workload* a, const quota::Workload* b) {
    return std::make_tuple(a->creation_seq, a->key()) < std::make_tuple(b->creation_seq, b->key());
  });
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    auto made = client->create(resources::jobs(), pending[i]->namespace_, job_object(*pending[i], k8s.config, sfx));
    ASSERT_TRUE(made) << made.error().describe();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let Kueue see the last one
  ASSERT_TRUE(client->create(resources::resource_flavors(), {},
                             Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"}, {"kind", "ResourceFlavor"}, {"metadata", Map{{"name", gate}}}}));

  // 3. Settle: no change for 3 s.
  std::vector<Value> wls;
  std::string last;
  auto stable_since = std::chrono::steady_clock::now();
  auto deadline = stable_since + std::chrono::seconds(40);
  while (std::chrono::steady_clock::now() < deadline) {
    wls.clear();
    for (const auto& ns : namespaces) {
      auto l = client->list(resources::workloads(), ns);
      ASSERT_TRUE(l);
      for (auto& w : l->items) wls.push_back(std::move(w));
    }
    std::string fp = fingerprint(wls);
    if (fp != last) {
      last = fp;
      stable_since = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - stable_since > std::chrono::seconds(3)) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }

  Outcome got;
  std::map<std::string, const quota::Workload*> by_key;
  for (const auto& w : k8s.workloads) by_key[w.key()] = &w;
  for (const auto& wl : wls) {
    const quota::Workload* w = by_key[wl.find_path("metadata.namespace")->as_string() + "/" + owner(wl)];
    ASSERT_NE(w, nullptr) << core::to_json(wl);
    std::string orig = rn.original(w->namespace_) + "/" + rn.original(w->name);
    auto pre = find_condition(wl, "Preempted");
    auto ev = find_condition(wl, "Evicted");
    if ((pre && pre->status == "True") || (ev && ev->status == "True" && ev->reason == "Preempted")) got.preempted.insert(orig);
    if (!reserved(wl)) continue;
    std::map<std::string, std::map<std::string, std::string>> flavors;
    std::map<std::string, std::int32_t> counts;
    for (const auto& psa : wl.find_path("status.admission.podSetAssignments")->as_list()) {
      std::string ps = w->pod_sets[0].name;  // Kueue names the Job's pod set "main"
      if (const Value* fl = psa.find("flavors"); fl && fl->is_map())
        for (const auto& [res, f] : fl->as_map())
          if (res != kGateResource) flavors[ps][Renamer::original_resource(res)] = rn.original(f.as_string());
      const Value* c = psa.find("count");
      for (const auto& p : w->pod_sets)
        if (p.name == ps && c && c->is_int() && c->as_int() != p.count && !w->admitted) counts[ps] = static_cast<std::int32_t>(c->as_int());
    }
    got.admitted[orig] = admission_text(rn.original(wl.find_path("status.admission.clusterQueue")->as_string()), flavors, counts);
  }
  EXPECT_EQ(describe(got), describe(want)) << "scenario " << GetParam() << " (Kueue first, budcore second)";
}

// Scenarios from tests/quota/data (taken from Kueue's own scheduler and preemption tests):
// admission across flavors (taints, limits) and cohorts, borrowing and lending limits, partial
// admission, preemption within a queue, reclaim across a cohort, borrowWithinCohort.
// Each workload becomes a batch/v1 Job, so scenarios have one pod set per workload.
INSTANTIATE_TEST_SUITE_P(
    Scenarios, DifferentialTest,
    ::testing::Values("cohort_borrowing", "preempt_lower_priority_two_cycles",
                      "kueue_sched_admit_in_same_cohort_with_no_borrowing",
                      "kueue_sched_flavors_with_mixed_taint_mismatch_and_exceeding_limits", "kueue_sched_not_enough_resources",
                      "kueue_sched_capacity_blocked_or_not_when_lending_clusterqueue_reclaim_policy_is_ne",
                      "kueue_sched_multiple_preemptions_without_borrowing", "kueue_hpreempt_preempt_in_cohort_and_own_cq",
                      "kueue_preempt_use_borrowwithincohort_allow_preempting_a_lower_priority_workload_from",
                      "kueue_sched_partial_admission_single_variable_pod_set",
                      "kueue_sched_hierarchical_cohort_allows_borrowing_up_to_lending_limit",
                      "kueue_preempt_preempt_lowest_priority", "kueue_preempt_reclaim_quota_from_borrower",
                      "kueue_hpreempt_respect_lending_limits"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string n = info.param;
      for (auto& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

}  // namespace
}  // namespace budcore::kubernetes
