// Live events as JSON (C ABI, Python dicts): each names a job, a time and, where needed, the
// admission it got or the job that was submitted.
#include <array>
#include <cmath>

#include "budcore/core/json.hpp"
#include "budcore/quota/scenario.hpp"
#include "budcore/schedule/estimate.hpp"
#include "core/field_reader.hpp"

namespace budcore::schedule {

using core::Error;
using core::Value;

namespace {

constexpr std::array<std::string_view, 5> kEventKeys{"type", "name", "at", "admission", "job"};
constexpr std::array<std::string_view, 3> kAdmissionKeys{"cluster_queue", "flavors", "count"};

core::Result<quota::Admission> admission_of(const Value& v) {
  if (!v.is_map()) return Error::invalid("event.admission", core::detail::value_text(v), "expected {\"cluster_queue\", \"flavors\"}");
  core::detail::Reader r(v.as_map());
  if (auto st = r.reject_unknown(kAdmissionKeys); !st) return std::move(st).error().at("event.admission");
  // The contract-2 reader knows this shape: borrow it through a one-workload scenario.
  Value w(core::Map{{"name", Value("x")}, {"pod_sets", Value(core::List{})}, {"admitted", v}});
  auto s = quota::parse_scenario(core::to_json(Value(core::Map{{"workloads", Value(core::List{w})}})));
  if (!s) {
    core::Error e = std::move(s).error();
    if (e.field.rfind("workloads[0].admitted", 0) == 0) e.field = "event.admission" + e.field.substr(21);
    return e;
  }
  return *s->workloads[0].admitted;
}

}  // namespace

core::Status apply_event(Timeline& tl, const Value& event) {
  if (!event.is_map()) return Error::invalid("event", core::detail::value_text(event), "expected an object");
  core::detail::Reader r(event.as_map());
  if (auto st = r.reject_unknown(kEventKeys); !st) return std::move(st).error().at("event");
  auto type = r.string("type");
  if (!type) return std::move(type).error().at("event");
  if (!*type) return Error::invalid("event.type", "", "required field is missing");
  const Value* at_v = event.as_map().find("at");
  if (at_v == nullptr || !at_v->is_number() || !(at_v->as_float() >= 0) || at_v->as_float() > 4e9)
    return Error::invalid("event.at", at_v ? core::detail::value_text(*at_v) : "", "expected seconds since the epoch (0 to 4e9)");
  core::Timestamp at = core::Timestamp::from_unix_nanos(std::llround(at_v->as_float() * 1e6) * 1000);
  const std::string& t = **type;
  if (t == "advance") return tl.advance(at);
  if (t == "submitted") {
    const Value* job = event.as_map().find("job");
    if (job == nullptr || !job->is_map()) return Error::invalid("event.job", "", "a submitted event carries the job");
    // The scenario's priority classes travel with the job, so `priority_class` names resolve.
    core::List classes;
    for (const auto& pc : tl.config().priority_classes)
      classes.emplace_back(core::Map{{"name", pc.name}, {"value", static_cast<std::int64_t>(pc.value)}});
    auto in = parse_estimate_document(
        Value(core::Map{{"priority_classes", Value(std::move(classes))}, {"workloads", Value(core::List{*job})}}));
    if (!in) {
      core::Error e = std::move(in).error();
      if (e.field.rfind("workloads[0]", 0) == 0) e.field = "event.job" + e.field.substr(12);
      return e;
    }
    return tl.submitted(std::move(in->jobs[0]), at);
  }
  auto name = r.string("name");
  if (!name) return std::move(name).error().at("event");
  if (!*name) return Error::invalid("event.name", "", "required field is missing");
  if (t == "started") {
    const Value* a = event.as_map().find("admission");
    if (a == nullptr) return Error::invalid("event.admission", "", "a started event carries the admission");
    quota::Admission adm;
    BUDCORE_TRY_ASSIGN(adm, admission_of(*a));
    return tl.started(**name, at, adm);
  }
  if (t == "finished") return tl.finished(**name, at);
  if (t == "failed") return tl.failed(**name, at);
  if (t == "preempted") return tl.preempted(**name, at);
  if (t == "cancelled") return tl.cancelled(**name, at);
  return Error::invalid("event.type", t, "expected started, finished, failed, preempted, cancelled, submitted or advance");
}

}  // namespace budcore::schedule
