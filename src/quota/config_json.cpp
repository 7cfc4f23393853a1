// QuotaConfig -> the configuration keys of the `quota simulate` contract (CONTRACTS.md section 2).
#include <nlohmann/json.hpp>

#include "budcore/quota/kueue_yaml.hpp"

namespace budcore::quota {
namespace {

using Json = nlohmann::ordered_json;

std::string weight_text(double w) {
  auto q = core::Quantity::parse(std::to_string(w));
  return q ? q->to_string() : std::to_string(w);
}

Json groups_json(const std::vector<ResourceGroup>& groups) {
  Json out = Json::array();
  for (const auto& g : groups) {
    Json flavors = Json::array();
    for (const auto& f : g.flavors) {
      Json res = Json::array();
      for (const auto& r : f.resources) {
        Json j{{"name", r.name}, {"nominal", r.nominal.to_string()}};
        j["borrowing_limit"] = r.borrowing_limit ? Json(r.borrowing_limit->to_string()) : Json(nullptr);
        j["lending_limit"] = r.lending_limit ? Json(r.lending_limit->to_string()) : Json(nullptr);
        res.push_back(std::move(j));
      }
      flavors.push_back(Json{{"name", f.name}, {"resources", std::move(res)}});
    }
    out.push_back(Json{{"covered_resources", g.covered_resources}, {"flavors", std::move(flavors)}});
  }
  return out;
}

const char* name_of(PreemptionPolicy p) {
  switch (p) {
    case PreemptionPolicy::Never: return "Never";
    case PreemptionPolicy::LowerPriority: return "LowerPriority";
    case PreemptionPolicy::LowerOrNewerEqualPriority: return "LowerOrNewerEqualPriority";
    case PreemptionPolicy::Any: return "Any";
  }
  return "Never";
}

}  // namespace

std::string config_to_json(const QuotaConfig& config, int indent) {
  Json root = Json::object();
  Json flavors = Json::array();
  for (const auto& f : config.resource_flavors) {
    Json j{{"name", f.name}, {"node_labels", Json::object()}};
    for (const auto& [k, v] : f.node_labels) j["node_labels"][k] = v;
    if (!f.node_taints.empty()) {
      j["node_taints"] = Json::array();
      for (const auto& t : f.node_taints) j["node_taints"].push_back(Json{{"key", t.key}, {"value", t.value}, {"effect", t.effect}});
    }
    flavors.push_back(std::move(j));
  }
  root["resource_flavors"] = std::move(flavors);
  Json cohorts = Json::array();
  for (const auto& c : config.cohorts)
    cohorts.push_back(Json{{"name", c.name}, {"parent", c.parent ? Json(*c.parent) : Json(nullptr)},
                           {"fair_weight", weight_text(c.fair_weight)}, {"resource_groups", groups_json(c.resource_groups)}});
  root["cohorts"] = std::move(cohorts);
  Json cqs = Json::array();
  for (const auto& q : config.cluster_queues) {
    const auto& p = q.preemption;
    Json bwc{{"policy", p.borrow_within_cohort.policy == BorrowWithinCohortPolicy::Never ? "Never" : "LowerPriority"},
             {"max_priority_threshold", p.borrow_within_cohort.max_priority_threshold
                                            ? Json(*p.borrow_within_cohort.max_priority_threshold)
                                            : Json(nullptr)}};
    Json ff{{"when_can_borrow", q.flavor_fungibility.when_can_borrow == FungibilityPolicy::MayStopSearch ? "MayStopSearch" : "TryNextFlavor"},
            {"when_can_preempt", q.flavor_fungibility.when_can_preempt == FungibilityPolicy::MayStopSearch ? "MayStopSearch" : "TryNextFlavor"}};
    if (q.flavor_fungibility.preference)
      ff["preference"] = *q.flavor_fungibility.preference == FungibilityPreference::BorrowingOverPreemption ? "BorrowingOverPreemption"
                                                                                                          : "PreemptionOverBorrowing";
    const char* stop = q.stop_policy == StopPolicy::None ? "None" : (q.stop_policy == StopPolicy::Hold ? "Hold" : "HoldAndDrain");
    cqs.push_back(Json{{"name", q.name},
                       {"cohort", q.cohort ? Json(*q.cohort) : Json(nullptr)},
                       {"queueing_strategy", q.queueing_strategy == QueueingStrategy::StrictFIFO ? "StrictFIFO" : "BestEffortFIFO"},
                       {"preemption", Json{{"within_cluster_queue", name_of(p.within_cluster_queue)},
                                           {"reclaim_within_cohort", name_of(p.reclaim_within_cohort)},
                                           {"borrow_within_cohort", std::move(bwc)}}},
                       {"flavor_fungibility", std::move(ff)},
                       {"fair_weight", weight_text(q.fair_weight)},
                       {"stop_policy", stop},
                       {"resource_groups", groups_json(q.resource_groups)}});
  }
  root["cluster_queues"] = std::move(cqs);
  Json lqs = Json::array();
  for (const auto& lq : config.local_queues)
    lqs.push_back(Json{{"namespace", lq.namespace_}, {"name", lq.name}, {"cluster_queue", lq.cluster_queue}});
  root["local_queues"] = std::move(lqs);
  Json pcs = Json::array();
  for (const auto& pc : config.priority_classes)
    pcs.push_back(Json{{"name", pc.name}, {"value", pc.value}, {"description", pc.description}});
  root["priority_classes"] = std::move(pcs);
  return root.dump(indent, ' ', false, Json::error_handler_t::replace);  // names built in code may hold bad UTF-8
}

}  // namespace budcore::quota
