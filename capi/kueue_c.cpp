// C ABI over budcore::companion: the Kueue companion's configuration check and its pure
// budget and window decisions.
#include <string>
#include <string_view>

#include "budcore/companion/companion.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "capi_internal.hpp"

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace companion = budcore::companion;

core::Result<companion::CompanionConfig> read_config(std::string_view text) {
  auto doc = core::parse_document(text);
  if (!doc) return std::move(doc).error();
  return companion::CompanionConfig::from_value(*doc, ".");
}

core::Value error_value(const core::Error& e) {
  return core::Map{{"code", std::string(core::to_string(e.code))}, {"message", e.message}, {"path", e.field}, {"value", e.value}};
}

}  // namespace

extern "C" int budcore_kueue_companion_check_config(budcore_buf* out, const char* config_doc, size_t config_doc_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(config_doc, config_doc_len, "config_doc", text)) return budcore_error_last()->code;
    auto cfg = read_config(text);
    if (!cfg) return capi::set_error(cfg.error());
    core::List controllers, queues, budgets;
    for (const auto& c : cfg->controllers) {
      core::List checks;
      for (auto k : c.checks) checks.emplace_back(std::string(companion::to_string(k)));
      controllers.emplace_back(core::Map{{"name", c.name}, {"checks", std::move(checks)}});
    }
    for (const auto& q : cfg->cluster_queues) queues.emplace_back(q);
    for (const auto& b : cfg->budgets.budgets) budgets.emplace_back(b.name);
    core::Value summary = core::Map{{"controllers", std::move(controllers)},
                                    {"cluster_queues", std::move(queues)},
                                    {"tenants", static_cast<std::int64_t>(cfg->tenants.size())},
                                    {"budgets", std::move(budgets)},
                                    {"currency", cfg->price_book.currency}};
    return capi::fill_buf(out, core::to_json(summary));
  });
}

extern "C" int budcore_kueue_companion_decide(budcore_buf* out, const char* config_doc, size_t config_doc_len,
                                              const char* request_json, size_t request_json_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view config_text, request_text;
    if (!capi::input_text(config_doc, config_doc_len, "config_doc", config_text)) return budcore_error_last()->code;
    if (!capi::input_text(request_json, request_json_len, "request_json", request_text)) return budcore_error_last()->code;
    auto cfg = read_config(config_text);
    if (!cfg) return capi::set_error(cfg.error());
    auto req = core::parse_document(request_text);
    if (!req) return capi::set_error(req.error());
    if (!req->is_map()) return capi::set_error(core::Error::invalid("request_json", "", "expected {workload, spent, now}"));
    const core::Value* wl = req->find("workload");
    if (wl == nullptr) return capi::set_error(core::Error::invalid("request_json.workload", "", "required: a Workload object"));
    std::map<std::string, std::string> owner;
    if (const core::Value* o = req->find("owner_annotations"); o != nullptr) {
      if (!o->is_map()) return capi::set_error(core::Error::invalid("request_json.owner_annotations", core::to_json(*o), "expected a map"));
      for (const auto& [k, v] : o->as_map())
        if (v.is_string()) owner[k] = v.as_string();
    }
    companion::SpendByBudget spent;
    if (const core::Value* s = req->find("spent"); s != nullptr) {
      if (!s->is_map()) return capi::set_error(core::Error::invalid("request_json.spent", core::to_json(*s), "expected {budget: \"12.00 USD\"}"));
      for (const auto& [name, amount] : s->as_map()) {
        std::string path = "request_json.spent." + name;
        if (!amount.is_string()) return capi::set_error(core::Error::invalid(path, core::to_json(amount), "expected \"12.00 USD\""));
        auto m = core::Money::parse(amount.as_string());
        if (!m) return capi::set_error(core::Error::invalid(path, amount.as_string(), m.error().message));
        spent[name] = *m;
      }
    }
    const core::Value* now_v = req->find("now");
    if (now_v == nullptr || !now_v->is_string())
      return capi::set_error(core::Error::invalid("request_json.now", now_v ? core::to_json(*now_v) : "", "required: an RFC 3339 time"));
    auto now = core::Timestamp::parse(now_v->as_string());
    if (!now) return capi::set_error(core::Error::invalid("request_json.now", now_v->as_string(), now.error().message));
    auto facts = companion::read_workload(*wl, owner);
    if (!facts) return capi::set_error(std::move(facts).error().at("request_json.workload"));
    auto price = companion::price_workload(*cfg, *facts);
    core::Map doc;
    if (auto t = companion::tenant_of(*cfg, *facts)) doc.set("tenant_id", t->to_string());
    if (price) {
      core::List lines;
      for (const auto& l : price->lines) lines.emplace_back(l);
      doc.set("price", core::Map{{"total", price->total.to_string()},
                                 {"duration_seconds", price->duration.duration.count_ns() / 1'000'000'000},
                                 {"duration_source", price->duration.source},
                                 {"lines", std::move(lines)}});
    } else {
      doc.set("price_error", error_value(price.error()));
    }
    doc.set("budget", companion::to_value(companion::decide_budget(*cfg, *facts, price, spent)));
    doc.set("window", companion::to_value(companion::decide_window(*cfg, *facts, *now)));
    return capi::fill_buf(out, core::to_json(core::Value(std::move(doc))));
  });
}
