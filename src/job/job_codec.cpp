// Job <-> Value / JSON. The key order of to_value is the schema's (budcore/job/job.hpp).
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/job/job.hpp"
#include "job/codec_util.hpp"
#include "job/job_json.hpp"

namespace budcore::job {
namespace {

using core::Error;
using core::Map;
using core::Result;
using core::Value;
using detail::Reader;

constexpr std::array<std::string_view, 43> kJobKeys{
    "schema_version", "id", "name", "tenant_id", "project_id", "cluster_id", "pipeline_id",
    "pipeline_step_id", "usecase_deployment_id", "source", "source_id", "job_type", "deployment_type",
    "spec", "gpu_type", "gpu_count", "cpu_cores", "memory_gb", "storage_gb",
    "estimated_duration_seconds", "max_duration_seconds", "deadline", "time_window_start",
    "time_window_end", "priority", "preemptible", "preempts_others", "estimated_start",
    "estimated_end", "actual_start", "actual_end", "status", "status_message", "retry_count",
    "max_retries", "status_history", "currency", "estimated_cost", "actual_cost", "budget_limit",
    "outputs", "created_at", "updated_at"};

constexpr std::array<std::string_view, 4> kTransitionKeys{"from", "to", "at", "message"};

Value id_value(const core::Id& id) { return id.is_nil() ? Value() : Value(id.to_string()); }
Value opt_id_value(const std::optional<core::Id>& id) { return id ? Value(id->to_string()) : Value(); }
Value opt_ts_value(const std::optional<core::Timestamp>& t) { return t ? Value(t->to_string()) : Value(); }
Value opt_int_value(const std::optional<std::int64_t>& i) { return i ? Value(static_cast<long long>(*i)) : Value(); }
Value opt_money_value(const std::optional<core::Money>& m) { return m ? Value(m->amount_string(2)) : Value(); }

Result<StatusTransition> transition_from_value(const Value& v) {
  if (!v.is_map()) return Error::invalid({}, detail::value_text(v), "must be an object {from, to, at, message}");
  Reader r(v.as_map());
  BUDCORE_TRY(r.reject_unknown(kTransitionKeys));
  StatusTransition t;
  BUDCORE_TRY_ASSIGN(auto from, r.required_enum<JobStatus>("from", parse_job_status));
  BUDCORE_TRY_ASSIGN(auto to, r.required_enum<JobStatus>("to", parse_job_status));
  BUDCORE_TRY_ASSIGN(auto at, r.timestamp("at"));
  if (!at) return Error::invalid("at", {}, "required field is missing");
  BUDCORE_TRY_ASSIGN(auto msg, r.string("message"));
  t.from = from;
  t.to = to;
  t.at = *at;
  t.message = msg.value_or(std::string());
  return t;
}

Result<JobSource> infer_source(const Job& j) {
  if (j.usecase_deployment_id) return JobSource::Usecase;
  if (j.pipeline_id) return JobSource::Pipeline;
  return JobSource::Direct;
}

// Reads every field; no semantic checks beyond what the types themselves demand.
core::Status read_job(const Map& m, Job& j) {
  Reader r(m);
  BUDCORE_TRY(r.reject_unknown(kJobKeys));

  BUDCORE_TRY_ASSIGN(auto version, r.integer("schema_version"));
  if (version && *version != Job::kSchemaVersion) {
    return Error{core::ErrorCode::Unsupported,
                 "unsupported schema version; this library reads version " + std::to_string(Job::kSchemaVersion),
                 "schema_version", std::to_string(*version)};
  }

  BUDCORE_TRY_ASSIGN(auto id, r.id("id"));
  j.id = id.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto name, r.string("name"));
  if (!name) return Error::invalid("name", {}, "required field is missing");
  j.name = std::move(*name);
  BUDCORE_TRY_ASSIGN(auto tenant, r.id("tenant_id"));
  j.tenant_id = tenant.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto project, r.id("project_id"));
  j.project_id = project.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto cluster, r.id("cluster_id"));
  j.cluster_id = cluster.value_or(core::Id());

  BUDCORE_TRY_ASSIGN(j.pipeline_id, r.id("pipeline_id"));
  BUDCORE_TRY_ASSIGN(j.pipeline_step_id, r.id("pipeline_step_id"));
  BUDCORE_TRY_ASSIGN(j.usecase_deployment_id, r.id("usecase_deployment_id"));
  BUDCORE_TRY_ASSIGN(auto source, r.enumeration<JobSource>("source", parse_job_source));
  if (source) {
    j.source = *source;
  } else {
    BUDCORE_TRY_ASSIGN(j.source, infer_source(j));
  }
  BUDCORE_TRY_ASSIGN(j.source_id, r.id("source_id"));

  BUDCORE_TRY_ASSIGN(j.job_type, r.required_enum<JobType>("job_type", parse_job_type));
  BUDCORE_TRY_ASSIGN(j.deployment_type, r.required_enum<DeploymentType>("deployment_type", parse_deployment_type));
  BUDCORE_TRY_ASSIGN(auto spec, r.map("spec"));
  if (spec) j.spec = std::move(*spec);

  BUDCORE_TRY_ASSIGN(j.gpu_type, r.string("gpu_type"));
  BUDCORE_TRY_ASSIGN(auto gpu_count, r.integer("gpu_count"));
  if (gpu_count) j.gpu_count = *gpu_count;
  BUDCORE_TRY_ASSIGN(auto cpu, r.quantity("cpu_cores", false));
  if (cpu) j.cpu_cores = *cpu;
  BUDCORE_TRY_ASSIGN(auto mem, r.quantity("memory_gb", true));
  if (mem) j.memory_gb = *mem;
  BUDCORE_TRY_ASSIGN(j.storage_gb, r.integer("storage_gb"));

  BUDCORE_TRY_ASSIGN(j.estimated_duration_seconds, r.integer("estimated_duration_seconds"));
  BUDCORE_TRY_ASSIGN(j.max_duration_seconds, r.integer("max_duration_seconds"));
  BUDCORE_TRY_ASSIGN(j.deadline, r.timestamp("deadline"));
  BUDCORE_TRY_ASSIGN(auto tw_start, r.time_of_day("time_window_start"));
  BUDCORE_TRY_ASSIGN(auto tw_end, r.time_of_day("time_window_end"));
  if (tw_start.has_value() != tw_end.has_value()) {
    const char* missing = tw_start ? "time_window_end" : "time_window_start";
    const char* given = tw_start ? "time_window_start" : "time_window_end";
    return Error::invalid(missing, {}, std::string("required when ") + given +
                                           " is set: a time window needs both ends (or neither)");
  }
  if (tw_start) j.time_window = core::TimeWindow{*tw_start, *tw_end};

  BUDCORE_TRY_ASSIGN(auto priority, r.enumeration<JobPriority>("priority", parse_job_priority));
  if (priority) j.priority = *priority;
  BUDCORE_TRY_ASSIGN(auto preemptible, r.boolean("preemptible"));
  if (preemptible) j.preemptible = *preemptible;
  BUDCORE_TRY_ASSIGN(auto preempts, r.boolean("preempts_others"));
  if (preempts) j.preempts_others = *preempts;

  BUDCORE_TRY_ASSIGN(j.estimated_start, r.timestamp("estimated_start"));
  BUDCORE_TRY_ASSIGN(j.estimated_end, r.timestamp("estimated_end"));
  BUDCORE_TRY_ASSIGN(j.actual_start, r.timestamp("actual_start"));
  BUDCORE_TRY_ASSIGN(j.actual_end, r.timestamp("actual_end"));

  BUDCORE_TRY_ASSIGN(auto status, r.enumeration<JobStatus>("status", parse_job_status));
  if (status) j.status = *status;
  BUDCORE_TRY_ASSIGN(j.status_message, r.string("status_message"));
  BUDCORE_TRY_ASSIGN(auto retry_count, r.integer("retry_count"));
  if (retry_count) j.retry_count = *retry_count;
  BUDCORE_TRY_ASSIGN(auto max_retries, r.integer("max_retries"));
  if (max_retries) j.max_retries = *max_retries;
  BUDCORE_TRY_ASSIGN(auto history, r.list("status_history"));
  if (history) {
    for (std::size_t i = 0; i < history->size(); ++i) {
      auto t = transition_from_value((*history)[i]);
      if (!t) return std::move(t.error().at("[" + std::to_string(i) + "]").at("status_history"));
      j.status_history.push_back(std::move(*t));
    }
  }

  BUDCORE_TRY_ASSIGN(auto currency, r.currency("currency"));
  if (currency) j.currency = std::move(*currency);
  BUDCORE_TRY_ASSIGN(j.estimated_cost, r.money("estimated_cost", j.currency));
  BUDCORE_TRY_ASSIGN(j.actual_cost, r.money("actual_cost", j.currency));
  BUDCORE_TRY_ASSIGN(j.budget_limit, r.money("budget_limit", j.currency));

  BUDCORE_TRY_ASSIGN(auto outputs, r.map("outputs"));
  if (outputs) j.outputs = std::move(*outputs);
  BUDCORE_TRY_ASSIGN(j.created_at, r.timestamp("created_at"));
  BUDCORE_TRY_ASSIGN(j.updated_at, r.timestamp("updated_at"));
  return {};
}

}  // namespace

std::span<const std::string_view> job_document_keys() noexcept { return kJobKeys; }

Result<Job> Job::decode(const Value& value) {
  if (!value.is_map()) {
    return Error::invalid({}, detail::value_text(value),
                          std::string("a job document must be a JSON object, not ") +
                              std::string(core::to_string(value.kind())));
  }
  Job j;
  BUDCORE_TRY(read_job(value.as_map(), j));
  return j;
}

Result<Job> Job::from_value(const Value& value) {
  BUDCORE_TRY_ASSIGN(Job j, decode(value));
  BUDCORE_TRY(j.validate());
  return j;
}

Result<Job> Job::decode_json(std::string_view json) {
  BUDCORE_TRY(core::check_input_size(json.size(), {}, kMaxDocumentBytes));
  BUDCORE_TRY_ASSIGN(auto value, core::parse_json(json));
  return decode(value);
}

Result<Job> Job::from_json(std::string_view json) {
  BUDCORE_TRY_ASSIGN(Job j, decode_json(json));
  BUDCORE_TRY(j.validate());
  return j;
}

Value Job::to_value() const {
  Map m;
  m.set("schema_version", Value(schema_version));
  m.set("id", id_value(id));
  m.set("name", Value(name));
  m.set("tenant_id", id_value(tenant_id));
  m.set("project_id", id_value(project_id));
  m.set("cluster_id", id_value(cluster_id));
  m.set("pipeline_id", opt_id_value(pipeline_id));
  m.set("pipeline_step_id", opt_id_value(pipeline_step_id));
  m.set("usecase_deployment_id", opt_id_value(usecase_deployment_id));
  m.set("source", Value(to_string(source)));
  m.set("source_id", opt_id_value(source_id));
  m.set("job_type", Value(to_string(job_type)));
  m.set("deployment_type", Value(to_string(deployment_type)));
  m.set("spec", spec);
  m.set("gpu_type", gpu_type ? Value(*gpu_type) : Value());
  m.set("gpu_count", Value(static_cast<long long>(gpu_count)));
  m.set("cpu_cores", detail::quantity_value(cpu_cores));
  m.set("memory_gb", detail::quantity_value(memory_gb));
  m.set("storage_gb", opt_int_value(storage_gb));
  m.set("estimated_duration_seconds", opt_int_value(estimated_duration_seconds));
  m.set("max_duration_seconds", opt_int_value(max_duration_seconds));
  m.set("deadline", opt_ts_value(deadline));
  m.set("time_window_start", time_window ? Value(time_window->start.to_string()) : Value());
  m.set("time_window_end", time_window ? Value(time_window->end.to_string()) : Value());
  m.set("priority", Value(to_string(priority)));
  m.set("preemptible", Value(preemptible));
  m.set("preempts_others", Value(preempts_others));
  m.set("estimated_start", opt_ts_value(estimated_start));
  m.set("estimated_end", opt_ts_value(estimated_end));
  m.set("actual_start", opt_ts_value(actual_start));
  m.set("actual_end", opt_ts_value(actual_end));
  m.set("status", Value(to_string(status)));
  m.set("status_message", status_message ? Value(*status_message) : Value());
  m.set("retry_count", Value(static_cast<long long>(retry_count)));
  m.set("max_retries", Value(static_cast<long long>(max_retries)));
  core::List history;
  history.reserve(status_history.size());
  for (const auto& t : status_history) {
    history.push_back(Value::map({{"from", Value(to_string(t.from))},
                                  {"to", Value(to_string(t.to))},
                                  {"at", Value(t.at.to_string())},
                                  {"message", Value(t.message)}}));
  }
  m.set("status_history", Value(std::move(history)));
  m.set("currency", Value(currency));
  m.set("estimated_cost", opt_money_value(estimated_cost));
  m.set("actual_cost", opt_money_value(actual_cost));
  m.set("budget_limit", opt_money_value(budget_limit));
  m.set("outputs", outputs);
  m.set("created_at", opt_ts_value(created_at));
  m.set("updated_at", opt_ts_value(updated_at));
  return Value(std::move(m));
}

std::string Job::to_json() const { return core::to_json(to_value()); }

namespace {
bool same_window(const std::optional<core::TimeWindow>& a, const std::optional<core::TimeWindow>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->start == b->start && a->end == b->end);
}
}  // namespace

bool operator==(const Job& a, const Job& b) {
  return a.schema_version == b.schema_version && a.id == b.id && a.name == b.name &&
         a.tenant_id == b.tenant_id && a.project_id == b.project_id && a.cluster_id == b.cluster_id &&
         a.pipeline_id == b.pipeline_id && a.pipeline_step_id == b.pipeline_step_id &&
         a.usecase_deployment_id == b.usecase_deployment_id && a.source == b.source &&
         a.source_id == b.source_id && a.job_type == b.job_type && a.deployment_type == b.deployment_type &&
         a.spec == b.spec && a.gpu_type == b.gpu_type && a.gpu_count == b.gpu_count &&
         a.cpu_cores == b.cpu_cores && a.memory_gb == b.memory_gb && a.storage_gb == b.storage_gb &&
         a.estimated_duration_seconds == b.estimated_duration_seconds &&
         a.max_duration_seconds == b.max_duration_seconds && a.deadline == b.deadline &&
         same_window(a.time_window, b.time_window) && a.priority == b.priority &&
         a.preemptible == b.preemptible && a.preempts_others == b.preempts_others &&
         a.estimated_start == b.estimated_start && a.estimated_end == b.estimated_end &&
         a.actual_start == b.actual_start && a.actual_end == b.actual_end && a.status == b.status &&
         a.status_message == b.status_message && a.retry_count == b.retry_count &&
         a.max_retries == b.max_retries && a.status_history == b.status_history && a.currency == b.currency &&
         a.estimated_cost == b.estimated_cost && a.actual_cost == b.actual_cost &&
         a.budget_limit == b.budget_limit && a.outputs == b.outputs && a.created_at == b.created_at &&
         a.updated_at == b.updated_at;
}

}  // namespace budcore::job

namespace budcore::job::detail {
namespace {

// Appends a JSON string; text that needs no escaping (printable ASCII without quotes or
// backslashes) is copied, anything else goes through the JSON writer (escapes, U+FFFD).
void put_string(std::string& out, std::string_view s) {
  bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    out += '"';
    out += s;
    out += '"';
  } else {
    out += core::to_json(Value(std::string(s)));
  }
}

class CompactWriter {
 public:
  void key(std::string_view k) {
    out_ += first_ ? "{\"" : ",\"";
    first_ = false;
    out_ += k;
    out_ += "\":";
  }
  void str(std::string_view k, std::string_view v) { key(k), put_string(out_, v); }
  void raw(std::string_view k, std::string_view v) { key(k), out_ += v; }
  void num(std::string_view k, std::int64_t v) { key(k), out_ += std::to_string(v); }
  void boolean(std::string_view k, bool v) { key(k), out_ += v ? "true" : "false"; }
  void value(std::string_view k, const Value& v) {
    if (!v.is_null()) key(k), out_ += core::to_json(v);
  }
  void id(std::string_view k, const core::Id& v) {
    if (!v.is_nil()) key(k), out_ += '"' + v.to_string() + '"';
  }
  void id(std::string_view k, const std::optional<core::Id>& v) {
    if (v) key(k), out_ += '"' + v->to_string() + '"';
  }
  void ts(std::string_view k, const std::optional<core::Timestamp>& v) {
    if (v) key(k), out_ += '"' + v->to_string() + '"';
  }
  void num(std::string_view k, const std::optional<std::int64_t>& v) {
    if (v) num(k, *v);
  }
  void money(std::string_view k, const std::optional<core::Money>& v) {
    if (v) str(k, v->amount_string(2));
  }
  std::string& out() { return out_; }
  std::string finish() {
    out_ += first_ ? "{}" : "}";
    return std::move(out_);
  }

 private:
  std::string out_;
  bool first_ = true;
};

}  // namespace

std::string compact_json(const Job& j) {
  CompactWriter w;
  w.out().reserve(1024);
  w.num("schema_version", j.schema_version);
  w.id("id", j.id);
  w.str("name", j.name);
  w.id("tenant_id", j.tenant_id);
  w.id("project_id", j.project_id);
  w.id("cluster_id", j.cluster_id);
  w.id("pipeline_id", j.pipeline_id);
  w.id("pipeline_step_id", j.pipeline_step_id);
  w.id("usecase_deployment_id", j.usecase_deployment_id);
  w.str("source", to_string(j.source));
  w.id("source_id", j.source_id);
  w.str("job_type", to_string(j.job_type));
  w.str("deployment_type", to_string(j.deployment_type));
  w.value("spec", j.spec);
  if (j.gpu_type) w.str("gpu_type", *j.gpu_type);
  w.num("gpu_count", j.gpu_count);
  w.value("cpu_cores", quantity_value(j.cpu_cores));
  w.value("memory_gb", quantity_value(j.memory_gb));
  w.num("storage_gb", j.storage_gb);
  w.num("estimated_duration_seconds", j.estimated_duration_seconds);
  w.num("max_duration_seconds", j.max_duration_seconds);
  w.ts("deadline", j.deadline);
  if (j.time_window) {
    w.str("time_window_start", j.time_window->start.to_string());
    w.str("time_window_end", j.time_window->end.to_string());
  }
  w.str("priority", to_string(j.priority));
  w.boolean("preemptible", j.preemptible);
  w.boolean("preempts_others", j.preempts_others);
  w.ts("estimated_start", j.estimated_start);
  w.ts("estimated_end", j.estimated_end);
  w.ts("actual_start", j.actual_start);
  w.ts("actual_end", j.actual_end);
  w.str("status", to_string(j.status));
  if (j.status_message) w.str("status_message", *j.status_message);
  w.num("retry_count", j.retry_count);
  w.num("max_retries", j.max_retries);
  w.key("status_history");
  std::string& out = w.out();
  out += '[';
  for (std::size_t i = 0; i < j.status_history.size(); ++i) {
    const auto& t = j.status_history[i];
    if (i) out += ',';
    out += "{\"from\":\"";
    out += to_string(t.from);
    out += "\",\"to\":\"";
    out += to_string(t.to);
    out += "\",\"at\":\"";
    out += t.at.to_string();
    out += "\",\"message\":";
    put_string(out, t.message);
    out += '}';
  }
  out += ']';
  w.str("currency", j.currency);
  w.money("estimated_cost", j.estimated_cost);
  w.money("actual_cost", j.actual_cost);
  w.money("budget_limit", j.budget_limit);
  w.value("outputs", j.outputs);
  w.ts("created_at", j.created_at);
  w.ts("updated_at", j.updated_at);
  return w.finish();
}

}  // namespace budcore::job::detail
