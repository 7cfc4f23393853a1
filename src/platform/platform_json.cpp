// JSON forms of the Platform's results (budcore/platform/platform_json.hpp).
#include "budcore/platform/platform_json.hpp"

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
  for (const auto& w : snap.workloads) {
    std::string_view phase = w.phase == backend::WorkloadInfo::Phase::Running    ? "running"
                             : w.phase == backend::WorkloadInfo::Phase::Admitted ? "admitted"
                                                                                 : "queued";
    core::Map m{{"job_id", w.job_id.to_string()}, {"tenant", w.tenant.to_string()}, {"run", w.run}, {"phase", std::string(phase)}};
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

}  // namespace budcore::platform
