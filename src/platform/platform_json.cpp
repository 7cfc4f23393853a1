// JSON forms of the Platform's results (budcore/platform/platform_json.hpp).
#include "budcore/platform/platform_json.hpp"

#include <algorithm>

#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/quantity.hpp"

namespace budcore::platform {

using core::Value;

Value to_value(const backend::EventRecord& e) {
  return Value::map({{"seq", e.seq},
                     {"at", e.at.to_string()},
                     {"type", e.type},
                     {"object_id", e.object_id.to_string()},
                     {"data", e.data}});
}

Value to_value(const EventPage& page) {
  core::List events;
  for (const auto& e : page.events) events.push_back(to_value(e));
  return Value::map({{"events", Value(std::move(events))}, {"last_seq", page.last_seq}});
}

Value to_value(const SubmitResult& r) {
  backend::CreateJobResult c{r.record, r.created};
  return backend::to_value(c);
}

Value to_value(const std::vector<SubmitResult>& results) {
  core::List l;
  for (const auto& r : results) l.push_back(to_value(r));
  return Value::map({{"results", Value(std::move(l))}});
}

Value to_value(const ClusterSnapshot& snap) {
  core::List workloads;
  for (std::size_t i = 0; i < snap.workloads.size(); ++i) {
    const backend::WorkloadInfo& w = snap.workloads[i];
    std::string_view phase = w.phase == backend::WorkloadInfo::Phase::Running    ? "running"
                             : w.phase == backend::WorkloadInfo::Phase::Admitted ? "admitted"
                                                                                 : "queued";
    // A caller's view names another tenant's run "[hidden <token>]" and leaves its tenant out.
    const bool hidden = i < snap.names.size() && w.job_id.is_nil();
    core::Map m{{"job_id", i < snap.names.size() ? snap.names[i] : w.job_id.to_string()},
                {"tenant", hidden ? Value() : Value(w.tenant.to_string())},
                {"run", w.run},
                {"phase", std::string(phase)}};
    if (w.placement) {
      m.set("cluster_queue", w.placement->admission.cluster_queue);
      core::Map flavors;
      for (const auto& [ps, res] : w.placement->admission.flavors)
        for (const auto& [r, f] : res) flavors.set(r, f);
      m.set("flavors", Value(std::move(flavors)));
      m.set("nodes", Value(core::List(w.placement->nodes.begin(), w.placement->nodes.end())));
      m.set("devices", Value(core::List(w.placement->devices.begin(), w.placement->devices.end())));
    } else {
      m.set("cluster_queue", Value());
    }
    m.set("started_at", w.started_at ? Value(w.started_at->to_string()) : Value());
    m.set("message", w.message);
    workloads.push_back(Value(std::move(m)));
  }
  core::Map usage;
  for (const auto& [cq, flavors] : snap.usage) {
    core::Map fm;
    for (const auto& [flavor, resources] : flavors) {
      core::Map rm;
      for (const auto& [res, cell] : resources)
        rm.set(res, Value::map({{"used", core::Quantity::from_milli(cell.used).to_string()},
                                {"nominal", core::Quantity::from_milli(cell.nominal).to_string()}}));
      fm.set(flavor, Value(std::move(rm)));
    }
    usage.set(cq, Value(std::move(fm)));
  }
  return Value::map({{"workloads", Value(std::move(workloads))}, {"usage", Value(std::move(usage))}});
}

core::Value to_value(const HaStatus& s) {
  core::List replicas;
  for (const auto& r : s.replicas)
    replicas.emplace_back(core::Map{{"replica", r.replica}, {"role", r.role}, {"epoch", r.epoch},
                                    {"started", r.started.to_string()}, {"seen", r.seen.to_string()},
                                    {"renew_us", r.renew_us}});
  Value lease = s.lease.holder.empty() ? Value()
                                       : Value::map({{"holder", s.lease.holder}, {"epoch", s.lease.epoch},
                                                     {"expires", s.lease.expires.to_string()}, {"now", s.lease.now.to_string()}});
  return Value::map({{"role", s.role}, {"replica", s.replica}, {"epoch", s.epoch}, {"lease", std::move(lease)},
                     {"replicas", Value(std::move(replicas))}});
}

core::Result<SubmitRequest> parse_submit_request(const Value& doc) {
  SubmitRequest req;
  const Value* inner = doc.is_map() ? doc.find("job") : nullptr;
  if (inner != nullptr && inner->is_map()) {
    for (const auto& [k, v] : doc.as_map()) {
      if (k != "job" && k != "idempotency_key")
        return core::Error::invalid(k, core::to_json(v), "unknown key of a submit request (known: job, idempotency_key)");
    }
    if (const Value* key = doc.find("idempotency_key"); key != nullptr && !key->is_null()) {
      if (!key->is_string()) return core::Error::invalid("idempotency_key", core::to_json(*key), "must be a string");
      if (key->as_string().empty())
        return core::Error::invalid("idempotency_key", "", "must not be empty (leave it out for no key)");
      req.idempotency_key = key->as_string();
    }
    auto job = job::Job::from_value(*inner);
    if (!job) return core::Error(job.error()).at("job");
    req.job = std::move(*job);
    return req;
  }
  auto job = job::Job::from_value(doc);
  if (!job) return job.error();
  req.job = std::move(*job);
  return req;
}

core::Result<std::vector<SubmitRequest>> parse_submit_batch(const Value& doc) {
  const Value* list = doc.is_list() ? &doc : (doc.is_map() ? doc.find("jobs") : nullptr);
  if (list == nullptr || !list->is_list())
    return core::Error::invalid("jobs", core::to_json(doc).substr(0, 64), "a batch is {\"jobs\": [...]} or a list");
  if (doc.is_map() && doc.as_map().size() != 1) return core::Error::invalid("", "", "a batch document has only \"jobs\"");
  std::vector<SubmitRequest> out;
  for (std::size_t i = 0; i < list->as_list().size(); ++i) {
    auto r = parse_submit_request(list->as_list()[i]);
    if (!r) return core::Error(r.error()).at("jobs[" + std::to_string(i) + "]");
    out.push_back(std::move(*r));
  }
  return out;
}

namespace {

core::Result<const core::Map*> known_map(const Value& doc, std::string_view what,
                                         std::initializer_list<std::string_view> keys) {
  static const core::Map kEmpty;
  if (doc.is_null()) return &kEmpty;
  if (!doc.is_map()) return core::Error::invalid("", core::to_json(doc), std::string(what) + " is a map");
  for (const auto& [k, v] : doc.as_map()) {
    (void)v;
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      return core::Error::invalid(k, "", "is not a key of " + std::string(what));
  }
  return &doc.as_map();
}

core::Result<std::optional<std::string>> opt_string(const core::Map& m, std::string_view key) {
  const Value* v = m.find(key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) return core::Error::invalid(std::string(key), core::to_json(*v), "must be a string");
  return std::optional<std::string>(v->as_string());
}

core::Result<std::optional<core::Timestamp>> opt_time(const core::Map& m, std::string_view key) {
  BUDCORE_TRY_ASSIGN(auto text, opt_string(m, key));
  if (!text) return std::optional<core::Timestamp>();
  auto t = core::Timestamp::parse(*text);
  if (!t) return core::Error::invalid(std::string(key), *text, t.error().message);
  return std::optional<core::Timestamp>(*t);
}

}  // namespace

core::Result<RoleBinding> parse_role_binding(const Value& doc) {
  if (!doc.is_map()) return core::Error::invalid("binding", core::to_json(doc), "a role binding is a map");
  BUDCORE_TRY_ASSIGN(const core::Map* m, known_map(doc, "a role binding", {"principal", "role", "project_id"}));
  RoleBinding b;
  BUDCORE_TRY_ASSIGN(auto principal, opt_string(*m, "principal"));
  BUDCORE_TRY_ASSIGN(auto role, opt_string(*m, "role"));
  if (!principal) return core::Error::invalid("principal", "", "required: user:<name> or sa:<name>");
  if (!role) return core::Error::invalid("role", "", "required: viewer, editor, admin, tenant-admin or platform-admin");
  b.principal = *principal;
  BUDCORE_TRY_ASSIGN(b.role, parse_role(*role));
  BUDCORE_TRY_ASSIGN(auto project, opt_string(*m, "project_id"));
  if (project) {
    auto id = core::Id::parse(*project);
    if (!id) return core::Error::invalid("project_id", *project, "is not a UUID");
    b.project = *id;
  }
  return b;
}

core::Result<AuditPageQuery> parse_audit_query(const Value& doc) {
  BUDCORE_TRY_ASSIGN(const core::Map* m, known_map(doc, "an audit query",
                                                   {"actor", "object_type", "object_id", "from", "to", "limit", "after"}));
  AuditPageQuery q;
  BUDCORE_TRY_ASSIGN(q.query.actor, opt_string(*m, "actor"));
  BUDCORE_TRY_ASSIGN(q.query.object_type, opt_string(*m, "object_type"));
  BUDCORE_TRY_ASSIGN(q.query.object_id, opt_string(*m, "object_id"));
  BUDCORE_TRY_ASSIGN(q.query.from, opt_time(*m, "from"));
  BUDCORE_TRY_ASSIGN(q.query.to, opt_time(*m, "to"));
  if (const Value* limit = m->find("limit"); limit != nullptr && !limit->is_null()) {
    if (!limit->is_int() || limit->as_int() < 1 || limit->as_int() > 1000)
      return core::Error::invalid("limit", core::to_json(*limit), "must be an integer between 1 and 1000");
    q.page.limit = static_cast<std::size_t>(limit->as_int());
  }
  BUDCORE_TRY_ASSIGN(auto after, opt_string(*m, "after"));
  if (after) q.page.after = *after;
  return q;
}

Value to_value(const std::vector<backend::RoleBindingRecord>& bindings) {
  core::List items;
  for (const auto& b : bindings) items.push_back(backend::to_value(b));
  return Value::map({{"items", Value(std::move(items))}});
}

}  // namespace budcore::platform
