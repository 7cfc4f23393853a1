// Job <-> Value / JSON. The key order of to_value is the schema's (budcore/job/job.hpp).
#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/core/json_string.hpp"
#include "budcore/core/keys.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/problems.hpp"
#include "budcore/job/job.hpp"
#include "core/field_reader.hpp"
#include "job/job_json.hpp"
#include "job/job_rules.hpp"

namespace budcore::job {
namespace {

using core::Error;
using core::Map;
using core::Result;
using core::Value;
using core::detail::Reader;

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

constexpr std::size_t kMaxListed = JobCheck::kMaxListed;

Value id_value(const core::Id& id) { return id.is_nil() ? Value() : Value(id.to_string()); }
Value opt_id_value(const std::optional<core::Id>& id) { return id ? Value(id->to_string()) : Value(); }
Value opt_ts_value(const std::optional<core::Timestamp>& t) { return t ? Value(t->to_string()) : Value(); }
Value opt_int_value(const std::optional<std::int64_t>& i) { return i ? Value(static_cast<long long>(*i)) : Value(); }
Value opt_money_value(const std::optional<core::Money>& m) { return m ? Value(m->amount_string(2)) : Value(); }

// Collects what goes wrong while reading one document: a field that does not decode keeps its
// default and its problem is recorded, so reading goes on and every problem is counted. Only the
// first `listed` are kept: a 1.5 MiB list of bad entries must not become a million errors.
class Decoder {
 public:
  explicit Decoder(std::size_t listed) : listed_(listed) {}

  // The value read, or nullopt with its problem recorded.
  template <class T>
  std::optional<T> get(Result<T> r) {
    if (r) return std::move(r).value();
    fail(std::move(r).error());
    return std::nullopt;
  }
  // An optional field, as read (absent stays absent).
  template <class T>
  void set(T& field, Result<T> r) {
    if (auto v = get(std::move(r))) field = std::move(*v);
  }
  // A field with a default, replaced only by a value the document gives.
  template <class T>
  void fill(T& field, Result<std::optional<T>> r) {
    if (auto v = get(std::move(r)); v && *v) field = std::move(**v);
  }
  // A field that did not decode: no rule may read it.
  void fail(Error e) {
    distrust(core::detail::top_level_key(e.field));
    note(std::move(e));
  }
  // A problem that leaves every field readable (an unknown key).
  void note(Error e) {
    if (errors_.size() < listed_) errors_.push_back(std::move(e));
    ++count_;
  }
  // Room for more problems: past the cap, what would be listed need not be built.
  std::size_t room() const { return listed_ - errors_.size(); }
  void count_unlisted(std::size_t n) { count_ += n; }
  // The problems of a part of field `key` (a history entry), under its path (`key` + `index`).
  void adopt(Decoder& part, std::string_view key, const std::string& index) {
    if (part.ok()) return;
    distrust(key);
    for (auto& e : part.errors_) note(std::move(e.at(index).at(key)));
    count_ += part.count_ - part.errors_.size();  // those the part counted but did not keep
    part.errors_.clear();
  }
  // A field that did not decode, or is derived from one: no rule may read it.
  void distrust(std::string_view key) {
    if (!undecoded_.contains(key)) undecoded_.emplace(key);
  }
  bool decoded(std::string_view key) const { return !undecoded_.contains(key); }
  bool ok() const { return count_ == 0; }
  std::size_t count() const { return count_; }
  const std::set<std::string, std::less<>>& undecoded() const { return undecoded_; }
  std::vector<Error> take_errors() { return std::move(errors_); }

 private:
  std::size_t listed_;
  std::size_t count_ = 0;
  std::vector<Error> errors_;
  std::set<std::string, std::less<>> undecoded_;  // top-level keys
};

void reject_unknown(const Reader& r, std::span<const std::string_view> known, Decoder& d) {
  // The "did you mean" hint costs an edit distance per known key: only for those listed.
  for (std::string_view key : r.unknown_keys(known)) {
    if (d.room() > 0) d.note(core::unknown_key({}, key, known));
    else d.count_unlisted(1);
  }
}

// One status_history entry; nullopt when any of its fields did not decode (each recorded).
std::optional<StatusTransition> read_transition(const Value& v, Decoder& d) {
  if (!v.is_map()) {
    d.fail(Error::invalid({}, core::detail::value_text(v), "must be an object {from, to, at, message}"));
    return std::nullopt;
  }
  Reader r(v.as_map());
  reject_unknown(r, kTransitionKeys, d);
  StatusTransition t;
  d.set(t.from, r.required_enum<JobStatus>("from", parse_job_status));
  d.set(t.to, r.required_enum<JobStatus>("to", parse_job_status));
  if (auto at = d.get(r.timestamp("at"))) {
    if (*at) t.at = **at;
    else d.fail(Error::invalid("at", {}, "required field is missing"));
  }
  d.fill(t.message, r.string("message"));
  if (!d.ok()) return std::nullopt;
  return t;
}

// The whole history, or none of it when an entry did not decode: the rules about its order
// must not see a list with entries missing.
void read_history(const core::List& list, Job& j, Decoder& d) {
  std::vector<StatusTransition> history;
  history.reserve(list.size());
  bool complete = true;
  for (std::size_t i = 0; i < list.size(); ++i) {
    Decoder entry(d.room());
    auto t = read_transition(list[i], entry);
    d.adopt(entry, "status_history", "[" + std::to_string(i) + "]");
    if (t) history.push_back(std::move(*t));
    complete = complete && t.has_value();
  }
  if (complete) j.status_history = std::move(history);
}

JobSource infer_source(const Job& j) {
  if (j.usecase_deployment_id) return JobSource::Usecase;
  if (j.pipeline_id) return JobSource::Pipeline;
  return JobSource::Direct;
}

void read_identity(const Reader& r, Job& j, Decoder& d) {
  if (auto version = d.get(r.integer("schema_version")); version && *version && **version != Job::kSchemaVersion) {
    d.fail(Error{core::ErrorCode::Unsupported,
                 "unsupported schema version; this library reads version " + std::to_string(Job::kSchemaVersion),
                 "schema_version", std::to_string(**version)});
  }
  d.fill(j.id, r.id("id"));
  if (auto name = d.get(r.string("name"))) {
    if (*name) j.name = std::move(**name);
    else d.fail(Error::invalid("name", {}, "required field is missing"));
  }
  d.fill(j.tenant_id, r.id("tenant_id"));
  d.fill(j.project_id, r.id("project_id"));
  d.fill(j.cluster_id, r.id("cluster_id"));

  d.set(j.pipeline_id, r.id("pipeline_id"));
  d.set(j.pipeline_step_id, r.id("pipeline_step_id"));
  d.set(j.usecase_deployment_id, r.id("usecase_deployment_id"));
  auto source = d.get(r.enumeration<JobSource>("source", parse_job_source));
  if (source && *source) {
    j.source = **source;
  } else {
    j.source = infer_source(j);
    if (!d.decoded("pipeline_id") || !d.decoded("usecase_deployment_id")) d.distrust("source");
  }
  d.set(j.source_id, r.id("source_id"));
}

void read_workload(const Reader& r, Job& j, Decoder& d) {
  d.set(j.job_type, r.required_enum<JobType>("job_type", parse_job_type));
  d.set(j.deployment_type, r.required_enum<DeploymentType>("deployment_type", parse_deployment_type));
  d.fill(j.spec, r.map("spec"));

  d.set(j.gpu_type, r.string("gpu_type"));
  d.fill(j.gpu_count, r.integer("gpu_count"));
  d.fill(j.cpu_cores, r.quantity("cpu_cores", false));
  d.fill(j.memory_gb, r.quantity("memory_gb", true));
  d.set(j.storage_gb, r.integer("storage_gb"));
}

void read_time(const Reader& r, Job& j, Decoder& d) {
  d.set(j.estimated_duration_seconds, r.integer("estimated_duration_seconds"));
  d.set(j.max_duration_seconds, r.integer("max_duration_seconds"));
  d.set(j.deadline, r.timestamp("deadline"));
  auto tw_start = d.get(r.time_of_day("time_window_start"));
  auto tw_end = d.get(r.time_of_day("time_window_end"));
  if (!tw_start || !tw_end) return;  // an end that did not decode says nothing about the pair
  if (tw_start->has_value() != tw_end->has_value()) {
    const char* missing = *tw_start ? "time_window_end" : "time_window_start";
    const char* given = *tw_start ? "time_window_start" : "time_window_end";
    d.fail(Error::invalid(missing, {}, std::string("required when ") + given +
                                           " is set: a time window needs both ends (or neither)"));
  } else if (*tw_start) {
    j.time_window = core::TimeWindow{**tw_start, **tw_end};
  }
}

void read_status(const Reader& r, Job& j, Decoder& d) {
  d.fill(j.priority, r.enumeration<JobPriority>("priority", parse_job_priority));
  d.fill(j.preemptible, r.boolean("preemptible"));
  d.fill(j.preempts_others, r.boolean("preempts_others"));

  d.set(j.estimated_start, r.timestamp("estimated_start"));
  d.set(j.estimated_end, r.timestamp("estimated_end"));
  d.set(j.actual_start, r.timestamp("actual_start"));
  d.set(j.actual_end, r.timestamp("actual_end"));

  d.fill(j.status, r.enumeration<JobStatus>("status", parse_job_status));
  d.set(j.status_message, r.string("status_message"));
  d.fill(j.retry_count, r.integer("retry_count"));
  d.fill(j.max_retries, r.integer("max_retries"));
  if (auto history = d.get(r.list("status_history")); history && *history) read_history(**history, j, d);
}

void read_cost(const Reader& r, Job& j, Decoder& d) {
  d.fill(j.currency, r.currency("currency"));
  d.set(j.estimated_cost, r.money("estimated_cost", j.currency));
  d.set(j.actual_cost, r.money("actual_cost", j.currency));
  d.set(j.budget_limit, r.money("budget_limit", j.currency));

  d.fill(j.outputs, r.map("outputs"));
  d.set(j.created_at, r.timestamp("created_at"));
  d.set(j.updated_at, r.timestamp("updated_at"));
}

// Reads every field, in schema order, unknown keys first; no semantic checks beyond what the
// types themselves demand.
void read_job(const Map& m, Job& j, Decoder& d) {
  Reader r(m);
  reject_unknown(r, kJobKeys, d);
  read_identity(r, j, d);
  read_workload(r, j, d);
  read_time(r, j, d);
  read_status(r, j, d);
  read_cost(r, j, d);
}

Error more_problems(std::size_t unlisted) {
  return Error::invalid({}, {}, std::to_string(unlisted) + " more problems are not listed (a check lists the first " +
                                    std::to_string(kMaxListed) + ")");
}

Error not_an_object(const Value& value) {
  return Error::invalid({}, core::detail::value_text(value),
                        std::string("a job document must be a JSON object, not ") +
                            std::string(core::to_string(value.kind())));
}

}  // namespace

std::span<const std::string_view> job_document_keys() noexcept { return kJobKeys; }

Result<Job> Job::decode(const Value& value) {
  if (!value.is_map()) return not_an_object(value);
  Job j;
  Decoder d(1);
  read_job(value.as_map(), j, d);
  if (!d.ok()) return std::move(d.take_errors().front());
  return j;
}

// check_value accepts exactly what decode and validate accept, and lists their first problem
// first: one pass gives the job, or that problem with every other one (capped) as its others.
Result<Job> Job::from_value(const Value& value) {
  JobCheck check = check_value(value);
  if (!check.ok()) return core::first_with_others(std::move(check.errors));
  return std::move(*check.job);
}

Result<Job> Job::decode_json(std::string_view json) {
  BUDCORE_TRY(core::check_input_size(json.size(), {}, kMaxDocumentBytes));
  BUDCORE_TRY_ASSIGN(auto value, core::parse_json(json));
  return decode(value);
}

Result<Job> Job::from_json(std::string_view json) {
  BUDCORE_TRY(core::check_input_size(json.size(), {}, kMaxDocumentBytes));
  BUDCORE_TRY_ASSIGN(auto value, core::parse_json(json));
  return from_value(value);
}

JobCheck Job::check_value(const Value& value) {
  if (!value.is_map()) return {std::nullopt, {not_an_object(value)}};
  Job j;
  Decoder d(kMaxListed);
  read_job(value.as_map(), j, d);
  std::vector<Error> errors = d.take_errors();
  std::vector<Error> rules = detail::rule_violations(j, d.undecoded());
  std::size_t total = d.count() + rules.size();
  for (auto& e : rules) {
    if (errors.size() == kMaxListed) break;
    errors.push_back(std::move(e));
  }
  if (total > errors.size()) errors.push_back(more_problems(total - errors.size()));
  if (!errors.empty()) return {std::nullopt, std::move(errors)};
  return {std::move(j), {}};
}

JobCheck Job::check_json(std::string_view json) {
  if (auto st = core::check_input_size(json.size(), {}, kMaxDocumentBytes); !st) return {std::nullopt, {st.error()}};
  auto value = core::parse_json(json);
  if (!value) return {std::nullopt, {std::move(value).error()}};
  return check_value(*value);
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
  m.set("cpu_cores", core::detail::quantity_value(cpu_cores));
  m.set("memory_gb", core::detail::quantity_value(memory_gb));
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

class CompactWriter {
 public:
  void key(std::string_view k) {
    out_ += first_ ? "{\"" : ",\"";
    first_ = false;
    out_ += k;
    out_ += "\":";
  }
  void str(std::string_view k, std::string_view v) { key(k), core::append_json_string(out_, v); }
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
  w.value("cpu_cores", core::detail::quantity_value(j.cpu_cores));
  w.value("memory_gb", core::detail::quantity_value(j.memory_gb));
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
    core::append_json_string(out, t.message);
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
