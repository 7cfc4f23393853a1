// The companion's decisions as documents, shared by the C ABI and the language bindings.
#include <map>
#include <string>

#include "budcore/companion/companion_json.hpp"
#include "budcore/companion/leader.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/money.hpp"

namespace budcore::companion {
namespace {

using core::Error;
using core::Value;

Value error_value(const Error& e) {
  return core::Map{{"code", std::string(core::to_string(e.code))}, {"message", e.message}, {"path", e.field}, {"value", e.value}};
}

core::Result<std::map<std::string, std::string>> read_owner_annotations(const Value& request) {
  std::map<std::string, std::string> owner;
  const Value* o = request.find("owner_annotations");
  if (o == nullptr || o->is_null()) return owner;
  if (!o->is_map()) return Error::invalid("owner_annotations", core::to_json(*o), "expected a map");
  for (const auto& [k, v] : o->as_map())
    if (v.is_string()) owner[k] = v.as_string();
  return owner;
}

core::Result<SpendByBudget> read_spent(const Value& request) {
  SpendByBudget spent;
  const Value* s = request.find("spent");
  if (s == nullptr || s->is_null()) return spent;
  if (!s->is_map()) return Error::invalid("spent", core::to_json(*s), "expected {budget: \"12.00 USD\"}");
  for (const auto& [name, amount] : s->as_map()) {
    const std::string path = "spent." + name;
    if (!amount.is_string()) return Error::invalid(path, core::to_json(amount), "expected \"12.00 USD\"");
    auto m = core::Money::parse(amount.as_string());
    if (!m) return Error::invalid(path, amount.as_string(), m.error().message);
    spent[name] = *m;
  }
  return spent;
}

core::Result<core::Timestamp> read_now(const Value& request) {
  const Value* now = request.find("now");
  if (now == nullptr || !now->is_string())
    return Error::invalid("now", now ? core::to_json(*now) : "", "required: an RFC 3339 time");
  auto t = core::Timestamp::parse(now->as_string());
  if (!t) return Error::invalid("now", now->as_string(), t.error().message);
  return *t;
}

Value price_value(const WorkloadPrice& price) {
  core::List lines;
  for (const auto& l : price.lines) lines.emplace_back(l);
  return core::Map{{"total", price.total.to_string()},
                   {"duration_seconds", price.duration.duration.count_ns() / 1'000'000'000},
                   {"duration_source", price.duration.source},
                   {"lines", std::move(lines)}};
}

}  // namespace

Value config_summary(const CompanionConfig& config) {
  core::List controllers, queues, budgets;
  for (const auto& c : config.controllers) {
    core::List checks;
    for (auto k : c.checks) checks.emplace_back(std::string(to_string(k)));
    controllers.emplace_back(core::Map{{"name", c.name}, {"checks", std::move(checks)}});
  }
  for (const auto& q : config.cluster_queues) queues.emplace_back(q);
  for (const auto& b : config.budgets.budgets) budgets.emplace_back(b.name);
  core::Map out{{"controllers", std::move(controllers)},
                {"cluster_queues", std::move(queues)},
                {"tenants", static_cast<std::int64_t>(config.tenants.size())},
                {"budgets", std::move(budgets)},
                {"currency", config.price_book.currency},
                {"estimates", core::Map{{"enabled", config.estimates.enabled},
                                        {"refresh_seconds", static_cast<std::int64_t>(config.estimates.refresh_seconds)},
                                        {"writers", static_cast<std::int64_t>(config.estimates.writers)}}}};
  if (const auto& le = config.leader_election) {
    auto secs = [](core::Duration d) { return d.count_ns() / 1'000'000'000; };
    out.set("leader_election", core::Map{{"lease_name", le->lease_name},
                                         {"namespace", le->namespace_},
                                         {"identity", le->identity},
                                         {"lease_duration_seconds", secs(le->lease_duration)},
                                         {"renew_deadline_seconds", secs(le->renew_deadline)},
                                         {"retry_period_seconds", secs(le->retry_period)}});
  }
  return Value(std::move(out));
}

core::Result<Value> decide_request(const CompanionConfig& config, const Value& request) {
  if (!request.is_map()) return Error::invalid("", "", "expected {workload, spent, now}");
  const Value* wl = request.find("workload");
  if (wl == nullptr) return Error::invalid("workload", "", "required: a Workload object");
  BUDCORE_TRY_ASSIGN(auto owner, read_owner_annotations(request));
  BUDCORE_TRY_ASSIGN(auto spent, read_spent(request));
  BUDCORE_TRY_ASSIGN(auto now, read_now(request));
  auto facts = read_workload(*wl, owner);
  if (!facts) return std::move(facts).error().at("workload");
  auto price = price_workload(config, *facts);
  core::Map doc;
  if (auto t = tenant_of(config, *facts)) doc.set("tenant_id", t->to_string());
  if (price) doc.set("price", price_value(*price));
  else doc.set("price_error", error_value(price.error()));
  doc.set("budget", to_value(decide_budget(config, *facts, price, spent)));
  doc.set("window", to_value(decide_window(config, *facts, now)));
  return Value(std::move(doc));
}

}  // namespace budcore::companion
