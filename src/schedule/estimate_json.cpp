// Contract 6 (`budcore schedule estimate`): the schedule fields are read and removed here, and
// what is left is a contract-2 scenario read by quota::parse_scenario, so both contracts share
// one reader (and its paths) for the quota part.
#include "budcore/schedule/estimate.hpp"

#include <array>
#include <cmath>

#include "budcore/core/json.hpp"
#include "budcore/core/quantity.hpp"
#include "budcore/quota/scenario.hpp"
#include "core/field_reader.hpp"

namespace budcore::schedule {

using core::Error;
using core::Value;

namespace {

// Times and durations are bounded so every sum of them stays inside Timestamp's range.
constexpr double kMaxSeconds = 4e9;

constexpr std::array<std::string_view, 7> kJobKeys{"duration_seconds", "submit_at", "depends_on", "started_at",
                                                   "window", "deadline", "pipeline"};
constexpr std::array<std::string_view, 3> kWindowKeys{"start", "end", "zone"};

core::Result<std::optional<core::Duration>> seconds(const core::Map& m, std::string_view key, const std::string& path) {
  const Value* v = m.find(key);
  if (v == nullptr || v->is_null()) return std::optional<core::Duration>();
  std::string field = path.empty() ? std::string(key) : path + "." + std::string(key);
  if (!v->is_number()) return Error::invalid(field, core::detail::value_text(*v), "expected a number of seconds");
  double s = v->as_float();
  if (!std::isfinite(s)) return Error::invalid(field, core::detail::value_text(*v), "expected a finite number of seconds");
  if (s < 0) return Error::invalid(field, core::detail::value_text(*v), "must not be negative");
  if (s > kMaxSeconds) return Error::invalid(field, core::detail::value_text(*v), "must be at most 4e9 seconds");
  return std::optional<core::Duration>(core::Duration::microseconds(std::llround(s * 1e6)));
}

core::Timestamp at_epoch(core::Duration d) { return core::Timestamp::from_unix_nanos(d.count_ns()); }

core::Result<Window> parse_window(const Value& v, const std::string& path) {
  if (!v.is_map()) return Error::invalid(path, core::detail::value_text(v), "expected {\"start\": \"22:00\", \"end\": \"06:00\", \"zone\": \"UTC\"}");
  core::detail::Reader r(v.as_map());
  if (auto st = r.reject_unknown(kWindowKeys); !st) return std::move(st).error().at(path);
  Window w;
  for (const char* key : {"start", "end"}) {
    auto t = r.time_of_day(key);
    if (!t) return std::move(t).error().at(path);
    if (!*t) return Error::invalid(path + "." + key, "", "required field is missing");
    (std::string_view(key) == "start" ? w.start : w.end) = **t;
  }
  auto zone = r.string("zone");
  if (!zone) return std::move(zone).error().at(path);
  if (*zone) w.zone = **zone;
  return w;
}

// Reads and removes the schedule fields of one workload.
core::Status take_job_fields(core::Map& m, const std::string& path, JobInput& job, bool& has_duration) {
  std::optional<core::Duration> d;
  BUDCORE_TRY_ASSIGN(d, seconds(m, "duration_seconds", path));
  has_duration = d.has_value();
  if (d) job.duration = *d;
  BUDCORE_TRY_ASSIGN(d, seconds(m, "submit_at", path));
  if (d) job.submit_at = at_epoch(*d);
  BUDCORE_TRY_ASSIGN(d, seconds(m, "started_at", path));
  if (d) job.started_at = at_epoch(*d);
  BUDCORE_TRY_ASSIGN(d, seconds(m, "deadline", path));
  if (d) job.deadline = at_epoch(*d);
  if (const Value* deps = m.find("depends_on"); deps && !deps->is_null()) {
    std::string field = path + ".depends_on";
    if (!deps->is_list()) return Error::invalid(field, core::detail::value_text(*deps), "expected a list of workload names");
    for (std::size_t i = 0; i < deps->as_list().size(); ++i) {
      const Value& name = deps->as_list()[i];
      if (!name.is_string()) return Error::invalid(field + "[" + std::to_string(i) + "]", core::detail::value_text(name), "expected a workload name");
      job.depends_on.push_back(name.as_string());
    }
  }
  if (const Value* w = m.find("window"); w && !w->is_null()) {
    BUDCORE_TRY_ASSIGN(job.window, parse_window(*w, path + ".window"));
  }
  if (const Value* p = m.find("pipeline"); p && !p->is_null()) {
    if (!p->is_string()) return Error::invalid(path + ".pipeline", core::detail::value_text(*p), "expected a string");
    job.pipeline = p->as_string();
  }
  for (auto key : kJobKeys) m.erase(key);
  return {};
}

}  // namespace

core::Result<TimelineInput> parse_estimate_document(const Value& document) {
  if (!document.is_map()) return Error::invalid("", "", "a schedule scenario must be a JSON object");
  Value doc = document;
  core::Map& root = doc.mutable_map();
  TimelineInput in;
  std::optional<core::Duration> d;
  BUDCORE_TRY_ASSIGN(d, seconds(root, "now", ""));
  if (d) in.now = at_epoch(*d);
  BUDCORE_TRY_ASSIGN(d, seconds(root, "horizon_seconds", ""));
  if (d) in.horizon = *d;
  root.erase("now");
  root.erase("horizon_seconds");
  root.erase("cycles");  // ignored by contract 6
  std::vector<JobInput> jobs;
  if (Value* wl = root.find("workloads"); wl && wl->is_list()) {
    core::List& list = wl->mutable_list();
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_map()) continue;  // parse_scenario names the bad element
      std::string path = "workloads[" + std::to_string(i) + "]";
      JobInput job;
      bool has_duration = false;
      BUDCORE_TRY(take_job_fields(list[i].mutable_map(), path, job, has_duration));
      if (!has_duration)
        return Error::invalid(path + ".duration_seconds", "", "required field is missing (every pending and admitted workload needs one)");
      jobs.push_back(std::move(job));
    }
  }
  quota::Scenario s;
  BUDCORE_TRY_ASSIGN(s, quota::parse_scenario(core::to_json(doc)));
  if (s.workloads.size() != jobs.size()) return Error::invalid("workloads", "", "expected a list of workload objects");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].workload = std::move(s.workloads[i]);
    if (!jobs[i].workload.admitted && jobs[i].started_at != core::Timestamp())
      return Error::invalid("workloads[" + std::to_string(i) + "].started_at", "", "only an admitted workload has a start");
  }
  in.config = std::move(s.config);
  in.engine_options = quota::EngineOptions{s.fair_sharing, s.fair_sharing_strategies};
  in.jobs = std::move(jobs);
  return in;
}

core::Result<TimelineInput> parse_estimate(std::string_view json) {
  Value doc;
  BUDCORE_TRY_ASSIGN(doc, core::parse_json(json));
  return parse_estimate_document(doc);
}

Value seconds_value(core::Duration d) {
  std::int64_t ns = d.count_ns();
  std::int64_t us = ns / 1000 + ((ns % 1000) * 2 >= 1000 ? 1 : 0);
  if (us % 1'000'000 == 0) return Value(us / 1'000'000);
  return Value(static_cast<double>(us) / 1e6);
}
Value seconds_value(core::Timestamp t) { return seconds_value(core::Duration::nanoseconds(t.unix_nanos())); }

namespace {

Value flavors_value(const std::map<std::string, std::map<std::string, std::string>>& flavors) {
  core::Map out;
  for (const auto& [ps, res] : flavors) {
    core::Map m;
    for (const auto& [r, f] : res) m.set(r, Value(f));
    out.set(ps, Value(std::move(m)));
  }
  return Value(std::move(out));
}

}  // namespace

Value to_value(const TimelineResult& r, const EstimateJsonOptions& options) {
  core::List jobs;
  jobs.reserve(r.jobs.size());
  for (const auto& e : r.jobs) {
    core::Map j;
    j.set("name", Value(e.name));
    j.set("cluster_queue", Value(e.cluster_queue));
    j.set("flavors", flavors_value(e.flavors));
    j.set("estimated_start", seconds_value(e.start));
    j.set("estimated_end", seconds_value(e.end));
    j.set("deadline_met", e.deadline_met ? Value(*e.deadline_met) : Value());
    core::List pre;
    for (auto t : e.preempted_at) pre.push_back(seconds_value(t));
    j.set("preempted_at", Value(std::move(pre)));
    if (options.details) {
      j.set("wait", e.wait == WaitReason::None ? Value()
                                               : Value(core::Map{{"reason", Value(std::string(to_string(e.wait)))},
                                                                 {"detail", Value(e.wait_detail)}}));
      j.set("running", Value(e.running));
      j.set("finished", Value(e.finished));
      j.set("pipeline", e.pipeline.empty() ? Value() : Value(e.pipeline));
      j.set("label", Value(e.label));
      core::Map gpus;
      for (const auto& [res, n] : e.gpus) gpus.set(res, Value(n));
      j.set("gpus", Value(std::move(gpus)));
    }
    jobs.emplace_back(std::move(j));
  }
  core::Map never;
  for (const auto& [name, why] : r.never) never.set(name, Value(why));
  core::Map out;
  out.set("jobs", Value(std::move(jobs)));
  out.set("never", Value(std::move(never)));
  out.set("makespan", seconds_value(r.makespan));
  if (options.details) {
    out.set("now", seconds_value(r.now));
    out.set("warnings", Value(core::List(r.warnings.begin(), r.warnings.end())));
    core::List usage;
    for (const auto& u : r.usage)
      usage.emplace_back(core::Map{{"at", seconds_value(u.at)},
                                   {"cluster_queue", Value(u.cluster_queue)},
                                   {"flavor", Value(u.flavor)},
                                   {"resource", Value(u.resource)},
                                   {"used", Value(core::Quantity::from_nano(static_cast<core::int128>(u.used) * 1'000'000,
                                                                            core::QuantityFormat::DecimalSI)
                                                      .to_string())}});
    out.set("utilization", Value(std::move(usage)));
  }
  return Value(std::move(out));
}

std::string to_json(const TimelineResult& r, const EstimateJsonOptions& options) {
  core::JsonOptions jo;
  jo.indent = options.indent;
  return core::to_json(to_value(r, options), jo);
}

}  // namespace budcore::schedule
