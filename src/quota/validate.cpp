// Validation of a QuotaConfig: Kueue's webhook/CEL rules plus references between objects.
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/core/resource_list.hpp"
#include "budcore/quota/config.hpp"
#include "budcore/quota/workload.hpp"

namespace budcore::quota {
namespace {

using core::Error;
using core::Status;

std::string idx(std::string_view list, std::size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

Status check_quantity(const core::Quantity& q, const std::string& field) {
  if (q.sign() < 0) return Error::invalid(field, q.to_string(), "quota must not be negative");
  return {};
}

Status validate_groups(const std::vector<ResourceGroup>& groups, const std::set<std::string, std::less<>>& flavors,
                       bool has_parent, const std::string& base) {
  std::map<std::string, std::string, std::less<>> covered;  // resource -> field of first cover
  std::set<std::string, std::less<>> flavor_seen;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& group = groups[g];
    std::string gpath = base + "." + idx("resource_groups", g);
    if (group.covered_resources.empty())
      return Error::invalid(gpath + ".covered_resources", "", "a resource group must cover at least one resource");
    for (std::size_t r = 0; r < group.covered_resources.size(); ++r) {
      const auto& res = group.covered_resources[r];
      std::string rpath = gpath + "." + idx("covered_resources", r);
      if (auto st = core::validate_resource_name(res); !st) return Error::invalid(rpath, res, st.error().message);
      if (auto it = covered.find(res); it != covered.end())
        return Error::invalid(rpath, res, "resource is already covered by " + it->second);
      covered.emplace(res, rpath);
    }
    // Kueue's ResourceGroup requires 1..16 flavors: a group without one gives its resources no
    // quota anywhere (and nothing for the engine to assign them from).
    if (group.flavors.empty())
      return Error::invalid(gpath + ".flavors", "", "a resource group must list at least one flavor");
    for (std::size_t f = 0; f < group.flavors.size(); ++f) {
      const auto& fq = group.flavors[f];
      std::string fpath = gpath + "." + idx("flavors", f);
      if (!flavors.count(fq.name)) return Error::invalid(fpath + ".name", fq.name, "unknown resource flavor");
      if (!flavor_seen.insert(fq.name).second)
        return Error::invalid(fpath + ".name", fq.name, "flavor is listed twice in this queue's resource groups");
      if (fq.resources.size() != group.covered_resources.size()) {
        for (const auto& res : group.covered_resources) {
          bool found = false;
          for (const auto& rq : fq.resources) found = found || rq.name == res;
          if (!found) return Error::invalid(fpath + ".resources", res, "flavor does not list covered resource " + res);
        }
      }
      for (std::size_t r = 0; r < fq.resources.size(); ++r) {
        const auto& rq = fq.resources[r];
        std::string rpath = fpath + "." + idx("resources", r);
        bool is_covered = false;
        for (const auto& c : group.covered_resources) is_covered = is_covered || c == rq.name;
        if (!is_covered) return Error::invalid(rpath + ".name", rq.name, "resource is not in the group's covered_resources");
        if (r < group.covered_resources.size() && group.covered_resources[r] != rq.name)
          return Error::invalid(rpath + ".name", rq.name,
                                "resources must follow the order of covered_resources (expected " +
                                    group.covered_resources[r] + ")");
        BUDCORE_TRY(check_quantity(rq.nominal, rpath + ".nominal"));
        if (rq.borrowing_limit) {
          BUDCORE_TRY(check_quantity(*rq.borrowing_limit, rpath + ".borrowing_limit"));
          if (!has_parent)
            return Error::invalid(rpath + ".borrowing_limit", rq.borrowing_limit->to_string(),
                                  "borrowing_limit must be null without a cohort (parent)");
        }
        if (rq.lending_limit) {
          BUDCORE_TRY(check_quantity(*rq.lending_limit, rpath + ".lending_limit"));
          if (!has_parent)
            return Error::invalid(rpath + ".lending_limit", rq.lending_limit->to_string(),
                                  "lending_limit must be null without a cohort (parent)");
        }
      }
    }
  }
  return {};
}

}  // namespace

core::Status validate(const QuotaConfig& config) {
  std::set<std::string, std::less<>> flavors;
  for (std::size_t i = 0; i < config.resource_flavors.size(); ++i) {
    const auto& f = config.resource_flavors[i];
    std::string path = idx("resource_flavors", i) + ".name";
    if (f.name.empty()) return Error::invalid(path, "", "name must not be empty");
    if (!flavors.insert(f.name).second) return Error::invalid(path, f.name, "duplicate resource flavor");
  }
  std::map<std::string, const Cohort*, std::less<>> cohorts;
  for (std::size_t i = 0; i < config.cohorts.size(); ++i) {
    const auto& c = config.cohorts[i];
    std::string path = idx("cohorts", i);
    if (c.name.empty()) return Error::invalid(path + ".name", "", "name must not be empty");
    if (!cohorts.emplace(c.name, &c).second) return Error::invalid(path + ".name", c.name, "duplicate cohort");
    if (c.fair_weight < 0) return Error::invalid(path + ".fair_weight", std::to_string(c.fair_weight), "weight must not be negative");
  }
  // Depth of every cohort (a root is 1), each computed once: walking up from every cohort took
  // quadratic time (5 s for a 10k-deep chain), and the engine walks the chain recursively, so
  // its depth is bounded (kMaxCohortDepth) as well as acyclic.
  std::map<std::string_view, int, std::less<>> depth;  // 0 while on the current walk
  for (std::size_t i = 0; i < config.cohorts.size(); ++i) {
    const auto& c = config.cohorts[i];
    std::string path = idx("cohorts", i);
    if (c.parent && *c.parent == c.name) return Error::invalid(path + ".parent", *c.parent, "a cohort cannot be its own parent");
    BUDCORE_TRY(validate_groups(c.resource_groups, flavors, c.parent.has_value(), path));
    std::vector<std::string_view> walk;
    std::string_view cur = c.name;
    int base = 0;
    while (true) {
      if (auto d = depth.find(cur); d != depth.end()) {
        if (d->second == 0) return Error::invalid(path + ".parent", *c.parent, "cohort tree has a cycle through " + std::string(cur));
        base = d->second;
        break;
      }
      auto it = cohorts.find(cur);
      if (it == cohorts.end()) break;  // a parent named only as a parent is an implicit root
      depth.emplace(cur, 0);
      walk.push_back(cur);
      if (!it->second->parent) break;
      cur = *it->second->parent;
    }
    for (auto w = walk.rbegin(); w != walk.rend(); ++w) {
      depth[*w] = ++base;
      if (base > kMaxCohortDepth) {
        return Error::invalid(path + ".parent", c.parent.value_or(""),
                              "cohorts nest deeper than " + std::to_string(kMaxCohortDepth) + " levels");
      }
    }
  }
  std::set<std::string, std::less<>> cqs;
  for (std::size_t i = 0; i < config.cluster_queues.size(); ++i) {
    const auto& cq = config.cluster_queues[i];
    std::string path = idx("cluster_queues", i);
    if (cq.name.empty()) return Error::invalid(path + ".name", "", "name must not be empty");
    if (!cqs.insert(cq.name).second) return Error::invalid(path + ".name", cq.name, "duplicate cluster queue");
    if (cq.cohort && cq.cohort->empty()) return Error::invalid(path + ".cohort", "", "cohort name must not be empty");
    if (cq.fair_weight < 0) return Error::invalid(path + ".fair_weight", std::to_string(cq.fair_weight), "weight must not be negative");
    const auto& p = cq.preemption;
    if (p.within_cluster_queue == PreemptionPolicy::Any)
      return Error::invalid(path + ".preemption.within_cluster_queue", "Any", "expected Never, LowerPriority or LowerOrNewerEqualPriority");
    if (p.reclaim_within_cohort == PreemptionPolicy::LowerOrNewerEqualPriority)
      return Error::invalid(path + ".preemption.reclaim_within_cohort", "LowerOrNewerEqualPriority", "expected Never, LowerPriority or Any");
    if (p.reclaim_within_cohort == PreemptionPolicy::Never && p.borrow_within_cohort.policy != BorrowWithinCohortPolicy::Never)
      return Error::invalid(path + ".preemption.borrow_within_cohort.policy", "LowerPriority",
                            "reclaim_within_cohort=Never requires borrow_within_cohort.policy=Never");
    if (cq.flavor_fungibility.preference &&
        (cq.flavor_fungibility.when_can_borrow != FungibilityPolicy::TryNextFlavor ||
         cq.flavor_fungibility.when_can_preempt != FungibilityPolicy::TryNextFlavor))
      return Error::invalid(path + ".flavor_fungibility.preference", "",
                            "preference requires when_can_borrow and when_can_preempt to be TryNextFlavor");
    BUDCORE_TRY(validate_groups(cq.resource_groups, flavors, cq.cohort.has_value(), path));
  }
  std::set<std::string, std::less<>> lqs;
  for (std::size_t i = 0; i < config.local_queues.size(); ++i) {
    const auto& lq = config.local_queues[i];
    std::string path = idx("local_queues", i);
    if (lq.name.empty()) return Error::invalid(path + ".name", "", "name must not be empty");
    if (!lqs.insert(lq.key()).second) return Error::invalid(path + ".name", lq.key(), "duplicate local queue");
    if (!cqs.count(lq.cluster_queue)) return Error::invalid(path + ".cluster_queue", lq.cluster_queue, "unknown cluster queue");
  }
  std::set<std::string, std::less<>> pcs;
  for (std::size_t i = 0; i < config.priority_classes.size(); ++i) {
    const auto& pc = config.priority_classes[i];
    if (!pcs.insert(pc.name).second)
      return Error::invalid(idx("priority_classes", i) + ".name", pc.name, "duplicate workload priority class");
  }
  return {};
}

Status check_pod_sets(const Workload& w) {
  if (w.pod_sets.empty()) return Error::invalid("pod_sets", "", "a workload needs at least one pod set");
  for (std::size_t p = 0; p < w.pod_sets.size(); ++p) {
    const auto& ps = w.pod_sets[p];
    auto path = [p] { return idx("pod_sets", p); };  // built only for an error
    for (std::size_t earlier = 0; earlier < p; ++earlier)  // a few pod sets: no set needed
      if (w.pod_sets[earlier].name == ps.name) return Error::invalid(path() + ".name", ps.name, "duplicate pod set name");
    if (ps.count < 0) return Error::invalid(path() + ".count", std::to_string(ps.count), "count must not be negative");
    if (ps.min_count && (*ps.min_count < 1 || *ps.min_count > ps.count))
      return Error::invalid(path() + ".min_count", std::to_string(*ps.min_count), "min_count must be between 1 and count");
    for (const auto& [name, q] : ps.requests.items()) {
      if (q.sign() < 0) return Error::invalid(path() + ".requests." + name, q.to_string(), "request must not be negative");
      if (!q.milli_value()) return Error::invalid(path() + ".requests." + name, q.to_string(), "quantity out of range");
    }
  }
  return {};
}

}  // namespace budcore::quota
