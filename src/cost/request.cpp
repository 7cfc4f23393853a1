// Reading what a job asks for (its priced fields) from a job document, a pipeline JOB step's
// config or a use-case component, with error paths into the document.
#include "cost/request.hpp"

#include <array>

#include "budcore/core/json.hpp"
#include "budcore/templates/template.hpp"
#include "core/enum_lookup.hpp"
#include "cost/document.hpp"
#include "cost/exact.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost::detail {
namespace {

using core::Error;
using core::Map;
using core::Quantity;
using core::Result;
using core::Value;
using core::Status;

constexpr std::array<std::string_view, 8> kPricedKeys{"job_type",  "gpu_type",   "gpu_count", "cpu_cores",
                                                      "memory_gb", "storage_gb", "estimated_duration_seconds",
                                                      "priority"};

bool is_template(const Value& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.as_string();
  return s.find("{{") != std::string::npos || s.find("{%") != std::string::npos;
}

// A templated value rendered natively against the pipeline's parameters.
Result<Value> resolve(const Value& v, const Value* params, const std::string& path) {
  if (params == nullptr) {
    return Error::invalid(path, v.as_string(), "is a template; a job document's fields must be literal values");
  }
  auto t = templates::Template::compile(v.as_string());
  if (!t) return Error::invalid(path, v.as_string(), "does not parse as a template: " + t.error().message);
  Map ctx;
  ctx.set("params", *params);
  ctx.set("parameters", *params);
  auto r = t->render_native(Value(std::move(ctx)));
  if (!r) {
    return Error::invalid(path, v.as_string(),
                          "cannot be resolved from the pipeline's parameters before the run: " + r.error().message);
  }
  return std::move(*r);
}

Status check_range(std::int64_t v, std::int64_t max, const std::string& path) {
  if (v < 0) return Error::invalid(path, std::to_string(v), "must not be negative");
  if (v > max) return Error::invalid(path, std::to_string(v), "must be at most " + std::to_string(max));
  return {};
}

Status check_quantity(const Quantity& q, std::int64_t max, const std::string& path) {
  const std::string text = core::detail::decimal_string(q);
  if (q.sign() < 0) return Error::invalid(path, text, "must not be negative");
  if (q.nano() > static_cast<core::int128>(max) * Quantity::kNanoPerUnit) {
    return Error::invalid(path, text, "must be at most " + std::to_string(max));
  }
  return {};
}

}  // namespace

Result<ResourceRequest> read_request(const Map& fields, const std::string& path, const Value* params,
                                     ResourceRequest defaults) {
  // Templated priced fields are rendered first; the typed readers then see literal values.
  Map resolved;
  for (std::string_view key : kPricedKeys) {
    const Value* v = fields.find(key);
    if (v == nullptr) continue;
    if (is_template(*v)) {
      BUDCORE_TRY_ASSIGN(Value r, resolve(*v, params, core::join_path(path, key)));
      resolved.set(std::string(key), std::move(r));
    } else {
      resolved.set(std::string(key), *v);
    }
  }
  core::detail::Reader r(resolved);
  ResourceRequest q = std::move(defaults);
  q.path = path;
  const auto at = [&](Error e) { return under(path, std::move(e)); };
  const auto sub = [&](std::string_view key) { return core::join_path(path, key); };

  auto job_type = r.enumeration<job::JobType>("job_type", job::parse_job_type);
  if (!job_type) return at(std::move(job_type).error());
  if (*job_type) q.job_type = **job_type;
  // spec.serverless_endpoint: a serverless endpoint's worker, open-ended (priced per hour).
  if (const Value* spec = fields.find("spec"); spec != nullptr && spec->is_map()) {
    if (const Value* ep = spec->as_map().find("serverless_endpoint"); ep != nullptr && !ep->is_null()) {
      if (!ep->is_string() || ep->as_string().empty())
        return Error::invalid(sub("spec.serverless_endpoint"), core::detail::value_text(*ep),
                              "must be the name of the serverless endpoint the worker serves");
      q.open_ended = q.job_type == job::JobType::Service;
    }
  }

  auto gpu_type = r.string("gpu_type");
  if (!gpu_type) return at(std::move(gpu_type).error());
  if (*gpu_type) {
    if ((*gpu_type)->empty()) return Error::invalid(sub("gpu_type"), "", "must not be empty");
    q.gpu_type = **gpu_type;
  }
  auto gpu_count = r.integer("gpu_count");
  if (!gpu_count) return at(std::move(gpu_count).error());
  if (*gpu_count) {
    BUDCORE_TRY(check_range(**gpu_count, kMaxGpuCount, sub("gpu_count")));
    q.gpu_count = **gpu_count;
  }
  auto cpu = r.quantity("cpu_cores", false);
  if (!cpu) return at(std::move(cpu).error());
  if (*cpu) {
    BUDCORE_TRY(check_quantity(**cpu, kMaxGpuCount, sub("cpu_cores")));
    q.cpu_cores = **cpu;
  }
  auto mem = r.quantity("memory_gb", true);
  if (!mem) return at(std::move(mem).error());
  if (*mem) {
    BUDCORE_TRY(check_quantity(**mem, job::Job::kMaxGigabytes, sub("memory_gb")));
    q.memory_gb = **mem;
  }
  auto storage = r.integer("storage_gb");
  if (!storage) return at(std::move(storage).error());
  if (*storage) {
    BUDCORE_TRY(check_range(**storage, job::Job::kMaxGigabytes, sub("storage_gb")));
    q.storage_gb = **storage;
  }
  auto seconds = r.integer("estimated_duration_seconds");
  if (!seconds) return at(std::move(seconds).error());
  if (*seconds) {
    BUDCORE_TRY(check_range(**seconds, kMaxEstimateSeconds, sub("estimated_duration_seconds")));
    q.estimated_duration_seconds = **seconds;
  }
  auto priority = r.enumeration<job::JobPriority>("priority", job::parse_job_priority);
  if (!priority) return at(std::move(priority).error());
  if (*priority) q.priority = **priority;
  return q;
}

Result<ResourceRequest> component_defaults(const Value& component, const std::string& path, ResourceRequest base) {
  if (!component.is_map()) return base;
  const Map& c = component.as_map();
  if (const Value* t = c.find("gpu_type"); t != nullptr && t->is_string() && !t->as_string().empty()) {
    base.gpu_type = t->as_string();
  }
  if (const Value* n = c.find("gpu_count"); n != nullptr && n->is_int()) {
    BUDCORE_TRY(check_range(n->as_int(), kMaxGpuCount, core::join_path(path, "gpu_count")));
    base.gpu_count = n->as_int();
  }
  const Value* res = c.find("resources");
  if (res == nullptr || !res->is_map()) return base;
  // Kubernetes-style resources: {"requests": {"cpu": "2", "memory": "4Gi"}} or {"cpu", "memory"}.
  std::string res_path = core::join_path(path, "resources");
  const Value* requests = res->find("requests");
  if (requests != nullptr && requests->is_map()) {
    res = requests;
    res_path = core::join_path(res_path, "requests");
  }
  if (const Value* cpu = res->find("cpu"); cpu != nullptr && !cpu->is_null()) {
    BUDCORE_TRY_ASSIGN(std::string text, decimal_text_of(*cpu, core::join_path(res_path, "cpu")));
    auto q = Quantity::parse(text);
    if (!q) return Error::invalid(core::join_path(res_path, "cpu"), text, "must be a CPU quantity such as \"2\" or \"500m\"");
    BUDCORE_TRY(check_quantity(*q, kMaxGpuCount, core::join_path(res_path, "cpu")));
    base.cpu_cores = *q;
  }
  if (const Value* mem = res->find("memory"); mem != nullptr && !mem->is_null()) {
    BUDCORE_TRY_ASSIGN(std::string text, decimal_text_of(*mem, core::join_path(res_path, "memory")));
    auto q = Quantity::parse(text);
    if (!q) return Error::invalid(core::join_path(res_path, "memory"), text, "must be a memory quantity such as \"4Gi\"");
    // Bytes -> GiB, to the nano-GiB.
    base.memory_gb = divide(*q, std::int64_t{1} << 30);
    BUDCORE_TRY(check_quantity(base.memory_gb, job::Job::kMaxGigabytes, core::join_path(res_path, "memory")));
  }
  return base;
}

}  // namespace budcore::cost::detail
