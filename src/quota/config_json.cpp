// QuotaConfig -> the configuration keys of the `quota simulate` contract (docs/cli.md contract 2).
#include "budcore/core/json.hpp"
#include "budcore/quota/kueue_yaml.hpp"
#include "quota/kueue_names.hpp"

namespace budcore::quota {
namespace {

using core::Value;

std::string weight_text(double w) {
  auto q = core::Quantity::parse(std::to_string(w));
  return q ? q->to_string() : std::to_string(w);
}

Value text_or_null(const std::optional<std::string>& s) { return s ? Value(*s) : Value(); }

Value groups_value(const std::vector<ResourceGroup>& groups) {
  core::List out;
  for (const auto& g : groups) {
    core::List flavors;
    for (const auto& f : g.flavors) {
      core::List res;
      for (const auto& r : f.resources)
        res.push_back(Value::map({{"name", r.name},
                                  {"nominal", r.nominal.to_string()},
                                  {"borrowing_limit", r.borrowing_limit ? Value(r.borrowing_limit->to_string()) : Value()},
                                  {"lending_limit", r.lending_limit ? Value(r.lending_limit->to_string()) : Value()}}));
      flavors.push_back(Value::map({{"name", f.name}, {"resources", Value(std::move(res))}}));
    }
    out.push_back(Value::map({{"covered_resources", Value(core::List(g.covered_resources.begin(), g.covered_resources.end()))},
                              {"flavors", Value(std::move(flavors))}}));
  }
  return Value(std::move(out));
}

using detail::name_of;

}  // namespace

std::string config_to_json(const QuotaConfig& config, int indent) {
  core::List flavors;
  for (const auto& f : config.resource_flavors) {
    core::Map labels;
    for (const auto& [k, v] : f.node_labels) labels.set(k, v);
    core::Map j{{"name", f.name}, {"node_labels", Value(std::move(labels))}};
    if (!f.node_taints.empty()) {
      core::List taints;
      for (const auto& t : f.node_taints) taints.push_back(Value::map({{"key", t.key}, {"value", t.value}, {"effect", t.effect}}));
      j.set("node_taints", Value(std::move(taints)));
    }
    flavors.push_back(Value(std::move(j)));
  }
  core::List cohorts;
  for (const auto& c : config.cohorts)
    cohorts.push_back(Value::map({{"name", c.name},
                                  {"parent", text_or_null(c.parent)},
                                  {"fair_weight", weight_text(c.fair_weight)},
                                  {"resource_groups", groups_value(c.resource_groups)}}));
  core::List cqs;
  for (const auto& q : config.cluster_queues) {
    const auto& p = q.preemption;
    const auto& threshold = p.borrow_within_cohort.max_priority_threshold;
    Value bwc = Value::map({{"policy", name_of(p.borrow_within_cohort.policy)},
                            {"max_priority_threshold", threshold ? Value(static_cast<std::int64_t>(*threshold)) : Value()}});
    core::Map ff{{"when_can_borrow", name_of(q.flavor_fungibility.when_can_borrow)},
                 {"when_can_preempt", name_of(q.flavor_fungibility.when_can_preempt)}};
    if (q.flavor_fungibility.preference)
      ff.set("preference", name_of(*q.flavor_fungibility.preference));
    cqs.push_back(Value::map({{"name", q.name},
                              {"cohort", text_or_null(q.cohort)},
                              {"queueing_strategy", name_of(q.queueing_strategy)},
                              {"preemption", Value::map({{"within_cluster_queue", name_of(p.within_cluster_queue)},
                                                         {"reclaim_within_cohort", name_of(p.reclaim_within_cohort)},
                                                         {"borrow_within_cohort", std::move(bwc)}})},
                              {"flavor_fungibility", Value(std::move(ff))},
                              {"fair_weight", weight_text(q.fair_weight)},
                              {"stop_policy", name_of(q.stop_policy)},
                              {"resource_groups", groups_value(q.resource_groups)}}));
  }
  core::List lqs;
  for (const auto& lq : config.local_queues)
    lqs.push_back(Value::map({{"namespace", lq.namespace_}, {"name", lq.name}, {"cluster_queue", lq.cluster_queue}}));
  core::List pcs;
  for (const auto& pc : config.priority_classes)
    pcs.push_back(Value::map({{"name", pc.name}, {"value", static_cast<std::int64_t>(pc.value)}, {"description", pc.description}}));
  Value root = Value::map({{"resource_flavors", Value(std::move(flavors))},
                           {"cohorts", Value(std::move(cohorts))},
                           {"cluster_queues", Value(std::move(cqs))},
                           {"local_queues", Value(std::move(lqs))},
                           {"priority_classes", Value(std::move(pcs))}});
  // Names built in code may hold malformed UTF-8: to_json writes it as U+FFFD.
  return core::to_json(root, core::JsonOptions{indent});
}

}  // namespace budcore::quota
