// The companion's configuration document (companion/companion.hpp): strict keys, every error
// naming the field path, the value and why.
#include <array>
#include <filesystem>

#include "budcore/companion/companion.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/keys.hpp"
#include "budcore/core/yaml.hpp"
#include "companion/companion_impl.hpp"

namespace budcore::companion {
namespace {

using core::Error;
using core::Value;

std::string text_of(const Value& v) { return v.is_string() ? v.as_string() : core::to_json(v); }

core::Result<std::string> string_at(const Value& v, const std::string& path) {
  if (!v.is_string() || v.as_string().empty()) return Error::invalid(path, text_of(v), "expected a non-empty string");
  return v.as_string();
}

core::Result<std::int64_t> int_at(const Value& v, const std::string& path, std::int64_t lo, std::int64_t hi) {
  if (!v.is_int()) return Error::invalid(path, text_of(v), "expected an integer");
  if (v.as_int() < lo || v.as_int() > hi)
    return Error::invalid(path, text_of(v), "expected " + std::to_string(lo) + ".." + std::to_string(hi));
  return v.as_int();
}

core::Result<core::Duration> duration_at(const Value& v, const std::string& path) {
  std::string text = v.is_int() ? std::to_string(v.as_int()) + "s" : v.is_string() ? v.as_string() : "";
  if (text.empty()) return Error::invalid(path, text_of(v), "expected a duration (\"2h\", \"90m\", \"PT1H\") or seconds");
  auto d = core::Duration::parse(text);
  if (!d) return Error::invalid(path, text, d.error().message);
  if (*d <= core::Duration::seconds(0)) return Error::invalid(path, text, "a duration must be positive");
  return *d;
}

core::Result<CheckKind> check_kind_at(const Value& v, const std::string& path) {
  if (v.is_string() && v.as_string() == "budget") return CheckKind::Budget;
  if (v.is_string() && v.as_string() == "window") return CheckKind::Window;
  return Error::invalid(path, text_of(v), "expected budget or window");
}

}  // namespace

// A window "22:00-06:00" or "22:00-06:00 Europe/Berlin" (also used for the annotation).
core::Result<schedule::Window> parse_window_text(std::string_view text) {
  schedule::Window w;
  std::string_view times = text;
  if (auto sp = text.find(' '); sp != std::string_view::npos) {
    times = text.substr(0, sp);
    w.zone = std::string(text.substr(sp + 1));
    if (w.zone.empty() || w.zone.find(' ') != std::string::npos)
      return Error::invalid("", std::string(text), "expected \"HH:MM-HH:MM\" or \"HH:MM-HH:MM ZONE\"");
  }
  auto dash = times.find('-');
  if (dash == std::string_view::npos)
    return Error::invalid("", std::string(text), "expected \"HH:MM-HH:MM\" or \"HH:MM-HH:MM ZONE\"");
  auto start = core::TimeOfDay::parse(times.substr(0, dash));
  if (!start) return Error::invalid("", std::string(text), "start: " + start.error().message);
  auto end = core::TimeOfDay::parse(times.substr(dash + 1));
  if (!end) return Error::invalid("", std::string(text), "end: " + end.error().message);
  w.start = *start;
  w.end = *end;
  // An unknown zone is an error now, not at the first decision.
  auto probe = schedule::next_window_open(w, core::Timestamp::from_unix_seconds(0));
  if (!probe) return Error::invalid("", std::string(text), "unknown time zone " + w.zone);
  return w;
}

namespace {

core::Result<schedule::Window> window_at(const Value& v, const std::string& path) {
  if (v.is_string()) {
    auto w = parse_window_text(v.as_string());
    if (!w) return std::move(w).error().at(path);
    return w;
  }
  if (!v.is_map()) return Error::invalid(path, text_of(v), "expected {start: \"22:00\", end: \"06:00\", zone: UTC}");
  static constexpr std::array<std::string_view, 3> kKeys{"start", "end", "zone"};
  BUDCORE_TRY(core::check_keys(v.as_map(), kKeys, path));
  std::string text;
  for (const char* k : {"start", "end"}) {
    const Value* f = v.find(k);
    if (f == nullptr) return Error::invalid(core::join_path(path, k), "", "required");
    if (!f->is_string()) return Error::invalid(core::join_path(path, k), text_of(*f), "expected \"HH:MM\"");
    text += (text.empty() ? "" : "-") + f->as_string();
  }
  if (const Value* z = v.find("zone")) {
    std::string zone;
    BUDCORE_TRY_ASSIGN(zone, string_at(*z, core::join_path(path, "zone")));
    text += " " + zone;
  }
  auto w = parse_window_text(text);
  if (!w) {
    Error e = std::move(w).error();
    e.field = path;
    return e;
  }
  return w;
}

core::Result<LeaderElectionConfig> leader_election_at(const Value& v) {
  const std::string path = "leader_election";
  if (!v.is_map())
    return Error::invalid(path, text_of(v), "expected {lease_name, namespace, identity, lease_duration, renew_deadline, retry_period}");
  static constexpr std::array<std::string_view, 6> kKeys{"lease_name", "namespace", "identity",
                                                         "lease_duration", "renew_deadline", "retry_period"};
  BUDCORE_TRY(core::check_keys(v.as_map(), kKeys, path));
  LeaderElectionConfig le;
  if (const Value* f = v.find("lease_name")) {
    BUDCORE_TRY_ASSIGN(le.lease_name, string_at(*f, path + ".lease_name"));
  }
  if (const Value* f = v.find("namespace")) {
    BUDCORE_TRY_ASSIGN(le.namespace_, string_at(*f, path + ".namespace"));
  }
  if (const Value* f = v.find("identity")) {
    BUDCORE_TRY_ASSIGN(le.identity, string_at(*f, path + ".identity"));
  }
  if (const Value* f = v.find("lease_duration")) {
    BUDCORE_TRY_ASSIGN(le.lease_duration, duration_at(*f, path + ".lease_duration"));
  }
  if (const Value* f = v.find("renew_deadline")) {
    BUDCORE_TRY_ASSIGN(le.renew_deadline, duration_at(*f, path + ".renew_deadline"));
  }
  if (const Value* f = v.find("retry_period")) {
    BUDCORE_TRY_ASSIGN(le.retry_period, duration_at(*f, path + ".retry_period"));
  }
  BUDCORE_TRY(validate(le));
  return le;
}

core::Result<EstimatesConfig> estimates_at(const Value& v) {
  const std::string path = "estimates";
  if (!v.is_map()) return Error::invalid(path, text_of(v), "expected {enabled: true, refresh_seconds: 5, writers: 8}");
  static constexpr std::array<std::string_view, 3> kKeys{"enabled", "refresh_seconds", "writers"};
  BUDCORE_TRY(core::check_keys(v.as_map(), kKeys, path));
  EstimatesConfig e;
  if (const Value* f = v.find("enabled")) {
    if (!f->is_bool()) return Error::invalid(path + ".enabled", text_of(*f), "expected true or false");
    e.enabled = f->as_bool();
  }
  if (const Value* f = v.find("refresh_seconds")) {
    // Under a second would patch every Workload on every event; over an hour, estimates rot.
    std::int64_t s = 0;
    BUDCORE_TRY_ASSIGN(s, int_at(*f, path + ".refresh_seconds", 1, 3600));
    e.refresh_seconds = static_cast<std::int32_t>(s);
  }
  if (const Value* f = v.find("writers")) {
    // Each writer is a connection to the API server; the client's rate limit applies to all.
    std::int64_t n = 0;
    BUDCORE_TRY_ASSIGN(n, int_at(*f, path + ".writers", 1, 64));
    e.writers = static_cast<std::int32_t>(n);
  }
  return e;
}

std::string resolve(const std::string& base_dir, const std::string& file) {
  std::filesystem::path p(file);
  if (p.is_absolute() || file == "-") return file;
  return (std::filesystem::path(base_dir) / p).string();
}

}  // namespace

core::Result<CompanionConfig> CompanionConfig::from_value(const Value& doc, const std::string& base_dir) {
  if (!doc.is_map()) return Error::invalid("", text_of(doc), "expected a mapping (the companion configuration)");
  static constexpr std::array<std::string_view, 17> kKeys{
      "schema_version", "controllers", "cluster_queues", "tenants", "price_book", "budgets", "soft_limit_percent",
      "retry_after_seconds", "unmapped_tenant", "gpu_resources", "flavor_gpu_types", "default_duration", "queues",
      "store", "kubeconfig", "leader_election", "estimates"};
  BUDCORE_TRY(core::check_keys(doc.as_map(), kKeys));
  CompanionConfig c;
  if (const Value* v = doc.find("schema_version")) {
    if (!v->is_int() || v->as_int() != kSchemaVersion)
      return Error::invalid("schema_version", text_of(*v), "this library reads schema_version 1");
  }
  // controllers
  const Value* ctrls = doc.find("controllers");
  if (ctrls == nullptr) return Error::invalid("controllers", "", "required: at least one {name, checks}");
  if (!ctrls->is_list() || ctrls->as_list().empty())
    return Error::invalid("controllers", text_of(*ctrls), "expected a non-empty list of {name, checks}");
  std::set<std::string> names;
  for (std::size_t i = 0; i < ctrls->as_list().size(); ++i) {
    const Value& e = ctrls->as_list()[i];
    std::string path = "controllers[" + std::to_string(i) + "]";
    if (!e.is_map()) return Error::invalid(path, text_of(e), "expected {name, checks}");
    static constexpr std::array<std::string_view, 2> kCtrlKeys{"name", "checks"};
    BUDCORE_TRY(core::check_keys(e.as_map(), kCtrlKeys, path));
    Controller ctl;
    const Value* n = e.find("name");
    if (n == nullptr) return Error::invalid(path + ".name", "", "required: the AdmissionChecks' spec.controllerName");
    BUDCORE_TRY_ASSIGN(ctl.name, string_at(*n, path + ".name"));
    if (!names.insert(ctl.name).second) return Error::invalid(path + ".name", ctl.name, "named twice");
    const Value* ch = e.find("checks");
    if (ch == nullptr || !ch->is_list() || ch->as_list().empty())
      return Error::invalid(path + ".checks", ch ? text_of(*ch) : "", "expected a non-empty list of budget, window");
    for (std::size_t j = 0; j < ch->as_list().size(); ++j) {
      CheckKind k;
      BUDCORE_TRY_ASSIGN(k, check_kind_at(ch->as_list()[j], path + ".checks[" + std::to_string(j) + "]"));
      if (std::find(ctl.checks.begin(), ctl.checks.end(), k) == ctl.checks.end()) ctl.checks.push_back(k);
    }
    c.controllers.push_back(std::move(ctl));
  }
  if (const Value* v = doc.find("cluster_queues")) {
    if (!v->is_list()) return Error::invalid("cluster_queues", text_of(*v), "expected a list of ClusterQueue names");
    for (std::size_t i = 0; i < v->as_list().size(); ++i) {
      std::string q;
      BUDCORE_TRY_ASSIGN(q, string_at(v->as_list()[i], "cluster_queues[" + std::to_string(i) + "]"));
      c.cluster_queues.insert(q);
    }
  }
  if (const Value* v = doc.find("tenants")) {
    if (!v->is_list()) return Error::invalid("tenants", text_of(*v), "expected a list of {namespace | label, tenant_id}");
    for (std::size_t i = 0; i < v->as_list().size(); ++i) {
      const Value& e = v->as_list()[i];
      std::string path = "tenants[" + std::to_string(i) + "]";
      if (!e.is_map()) return Error::invalid(path, text_of(e), "expected {namespace | label, tenant_id}");
      static constexpr std::array<std::string_view, 3> kTenantKeys{"namespace", "label", "tenant_id"};
      BUDCORE_TRY(core::check_keys(e.as_map(), kTenantKeys, path));
      TenantRule r;
      const Value* ns = e.find("namespace");
      const Value* label = e.find("label");
      if ((ns == nullptr) == (label == nullptr))
        return Error::invalid(path, text_of(e), "expected exactly one of namespace and label");
      if (ns != nullptr) {
        BUDCORE_TRY_ASSIGN(r.namespace_, string_at(*ns, path + ".namespace"));
      } else {
        std::string kv;
        BUDCORE_TRY_ASSIGN(kv, string_at(*label, path + ".label"));
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
          return Error::invalid(path + ".label", kv, "expected key=value (a label on the Workload)");
        r.label_key = kv.substr(0, eq);
        r.label_value = kv.substr(eq + 1);
      }
      const Value* id = e.find("tenant_id");
      if (id == nullptr) return Error::invalid(path + ".tenant_id", "", "required: the tenant's UUID");
      if (!id->is_string()) return Error::invalid(path + ".tenant_id", text_of(*id), "expected a UUID");
      BUDCORE_TRY_ASSIGN(r.tenant_id, core::Id::parse_field(id->as_string(), path + ".tenant_id"));
      c.tenants.push_back(std::move(r));
    }
  }
  bool budget_check = false;
  for (const auto& ctl : c.controllers)
    for (auto k : ctl.checks) budget_check = budget_check || k == CheckKind::Budget;
  // price book
  if (const Value* v = doc.find("price_book")) {
    core::Result<cost::PriceBook> book = v->is_string() ? cost::PriceBook::load_file(resolve(base_dir, v->as_string()))
                                                        : cost::PriceBook::from_value(*v);
    if (!book) {
      Error e = std::move(book).error();
      if (v->is_string() && e.code == core::ErrorCode::Io) {
        e = Error::invalid("price_book", v->as_string(), e.message);
      } else {
        e.at("price_book");
      }
      return e;
    }
    c.price_book = std::move(*book);
  } else if (budget_check) {
    return Error::invalid("price_book", "", "required by the budget check: a price book file or the book inline");
  }
  if (const Value* v = doc.find("budgets")) {
    core::Result<cost::BudgetSet> set =
        v->is_string() ? cost::BudgetSet::load_file(resolve(base_dir, v->as_string()), c.price_book.currency)
                       : cost::BudgetSet::from_value(*v, c.price_book.currency);
    if (!set) {
      Error e = std::move(set).error();
      if (v->is_string() && e.code == core::ErrorCode::Io) {
        e = Error::invalid("budgets", v->as_string(), e.message);
      } else {
        e.at("budgets");
      }
      return e;
    }
    c.budgets = std::move(*set);
    // A budget for a tenant no rule maps to can never apply: a typo, most likely.
    for (std::size_t i = 0; i < c.budgets.budgets.size(); ++i) {
      const auto& b = c.budgets.budgets[i];
      bool mapped = std::any_of(c.tenants.begin(), c.tenants.end(), [&](const TenantRule& r) { return r.tenant_id == b.tenant_id; });
      if (!mapped)
        return Error::invalid("budgets.budgets[" + std::to_string(i) + "].tenant_id", b.tenant_id.to_string(),
                              "no entry of tenants maps a namespace or label to this tenant");
      if (b.amount.currency() != c.price_book.currency && !c.price_book.convert(core::Money::from_units(0, c.price_book.currency), b.amount.currency()))
        return Error::invalid("budgets.budgets[" + std::to_string(i) + "].currency", b.amount.currency(),
                              "the price book (" + c.price_book.currency + ") has no conversion to it");
    }
  } else if (budget_check) {
    return Error::invalid("budgets", "", "required by the budget check: a budgets file or {budgets: [...]} inline");
  }
  if (const Value* v = doc.find("soft_limit_percent")) {
    BUDCORE_TRY_ASSIGN(c.soft_limit_percent, int_at(*v, "soft_limit_percent", 1, 100));
  }
  if (const Value* v = doc.find("retry_after_seconds")) {
    std::int64_t s = 0;
    BUDCORE_TRY_ASSIGN(s, int_at(*v, "retry_after_seconds", 0, 86'400 * 31));
    c.retry_after_seconds = static_cast<std::int32_t>(s);
  }
  if (const Value* v = doc.find("unmapped_tenant")) {
    if (!v->is_string() || (v->as_string() != "ready" && v->as_string() != "reject"))
      return Error::invalid("unmapped_tenant", text_of(*v), "expected ready or reject");
    c.reject_unmapped_tenant = v->as_string() == "reject";
  }
  if (const Value* v = doc.find("gpu_resources")) {
    if (!v->is_list()) return Error::invalid("gpu_resources", text_of(*v), "expected a list of resource names");
    c.gpu_resources.clear();
    for (std::size_t i = 0; i < v->as_list().size(); ++i) {
      std::string r;
      BUDCORE_TRY_ASSIGN(r, string_at(v->as_list()[i], "gpu_resources[" + std::to_string(i) + "]"));
      c.gpu_resources.push_back(r);
    }
  }
  if (const Value* v = doc.find("flavor_gpu_types")) {
    if (!v->is_map()) return Error::invalid("flavor_gpu_types", text_of(*v), "expected {flavor: gpu_type}");
    for (const auto& [flavor, type] : v->as_map()) {
      std::string path = "flavor_gpu_types." + flavor;
      std::string t;
      BUDCORE_TRY_ASSIGN(t, string_at(type, path));
      if (!c.price_book.gpu_hour.empty() && !c.price_book.gpu_hour.contains(t))
        return Error::invalid(path, t, "the price book has no gpu_hour entry for this GPU type");
      c.flavor_gpu_types[flavor] = t;
    }
  }
  if (const Value* v = doc.find("default_duration")) {
    core::Duration d;
    BUDCORE_TRY_ASSIGN(d, duration_at(*v, "default_duration"));
    c.default_duration = d;
  }
  if (const Value* v = doc.find("queues")) {
    if (!v->is_map()) return Error::invalid("queues", text_of(*v), "expected {ClusterQueue: {default_duration, window}}");
    for (const auto& [name, q] : v->as_map()) {
      std::string path = "queues." + name;
      if (!q.is_map()) return Error::invalid(path, text_of(q), "expected {default_duration, window}");
      static constexpr std::array<std::string_view, 2> kQueueKeys{"default_duration", "window"};
      BUDCORE_TRY(core::check_keys(q.as_map(), kQueueKeys, path));
      QueueSettings s;
      if (const Value* d = q.find("default_duration")) {
        core::Duration dd;
        BUDCORE_TRY_ASSIGN(dd, duration_at(*d, path + ".default_duration"));
        s.default_duration = dd;
      }
      if (const Value* w = q.find("window")) {
        schedule::Window ww;
        BUDCORE_TRY_ASSIGN(ww, window_at(*w, path + ".window"));
        s.window = ww;
      }
      c.queues[name] = std::move(s);
    }
  }
  if (const Value* v = doc.find("store")) {
    BUDCORE_TRY_ASSIGN(c.store, string_at(*v, "store"));
  }
  if (const Value* v = doc.find("kubeconfig")) {
    std::string k;
    BUDCORE_TRY_ASSIGN(k, string_at(*v, "kubeconfig"));
    c.kubeconfig = resolve(base_dir, k);
  }
  if (const Value* v = doc.find("leader_election")) {
    BUDCORE_TRY_ASSIGN(c.leader_election, leader_election_at(*v));
  }
  if (const Value* v = doc.find("estimates")) {
    BUDCORE_TRY_ASSIGN(c.estimates, estimates_at(*v));
  }
  return c;
}

core::Result<CompanionConfig> CompanionConfig::from_text(std::string_view text, const std::string& base_dir) {
  Value doc;
  BUDCORE_TRY_ASSIGN(doc, core::parse_document(text));
  return from_value(doc, base_dir);
}

core::Result<CompanionConfig> CompanionConfig::load_file(const std::string& path) {
  Value doc;
  BUDCORE_TRY_ASSIGN(doc, core::load_document_file(path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  return from_value(doc, dir.empty() ? "." : dir);
}

std::vector<CheckKind> CompanionConfig::checks_of(std::string_view controller_name) const {
  for (const auto& c : controllers)
    if (c.name == controller_name) return c.checks;
  return {};
}

}  // namespace budcore::companion
