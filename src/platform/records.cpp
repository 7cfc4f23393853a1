// Small conversions the platform shares: a JOB step's config as a job, placements as JSON,
// derived ids, a pipeline run as a document.
#include <algorithm>
#include <array>

#include "budcore/core/json.hpp"
#include "budcore/pipeline/run_state.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::Value;

namespace {

// The Job schema's keys a JOB step config may carry as they are; the rest of the config
// (component_ref, optimize_with_budsim, ...) describes how to build the job and goes into spec.
bool is_job_key(std::string_view key) {
  static constexpr std::string_view kKeys[] = {
      "job_type",  "deployment_type", "spec",       "cluster_id",  "project_id",
      "gpu_type",  "gpu_count",       "cpu_cores",  "memory_gb",   "storage_gb",
      "estimated_duration_seconds",   "max_duration_seconds",      "deadline",
      "time_window_start",            "time_window_end",           "priority",
      "preemptible", "preempts_others", "max_retries", "budget_limit", "currency", "estimated_cost",
      "usecase_deployment_id"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// A DNS-1123 label from a step id or name: lower case, [a-z0-9-], at most 63 characters.
std::string dns_label(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (out.size() == 63) break;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "step" : out;
}

}  // namespace

core::Result<job::Job> job_from_step_config(std::string_view step_id, std::string_view step_name,
                                            const Value& config) {
  if (!config.is_map()) return Error::invalid("config", core::to_json(config), "a JOB step's config is a map");
  core::Map doc;
  core::Map extra;
  for (const auto& [k, v] : config.as_map()) {
    if (is_job_key(k)) doc.set(k, v);
    else extra.set(k, v);
  }
  if (!extra.empty()) {
    const Value* spec = doc.find("spec");
    core::Map merged = spec != nullptr && spec->is_map() ? spec->as_map() : core::Map{};
    if (spec != nullptr && !spec->is_null() && !spec->is_map())
      return Error::invalid("config.spec", core::to_json(*spec), "must be a map");
    for (const auto& [k, v] : extra)
      if (!merged.contains(k)) merged.set(k, v);
    doc.set("spec", Value(std::move(merged)));
  }
  doc.set("name", dns_label(step_name.empty() ? step_id : step_name));
  auto job = job::Job::from_value(Value(std::move(doc)));
  if (!job) return Error(job.error()).at("config");
  return std::move(*job);
}

core::Value placement_value(const backend::Placement& p) {
  core::Map flavors;
  for (const auto& [ps, m] : p.admission.flavors) {
    core::Map res;
    for (const auto& [r, f] : m) res.set(r, f);
    flavors.set(ps, Value(std::move(res)));
  }
  core::Map count;
  for (const auto& [ps, n] : p.admission.count) count.set(ps, n);
  core::List nodes(p.nodes.begin(), p.nodes.end());
  core::List devices(p.devices.begin(), p.devices.end());
  return Value::map({{"cluster_queue", p.admission.cluster_queue},
                     {"flavors", Value(std::move(flavors))},
                     {"count", Value(std::move(count))},
                     {"nodes", Value(std::move(nodes))},
                     {"devices", Value(std::move(devices))}});
}

core::Result<backend::Placement> placement_from(const Value& v) {
  backend::Placement p;
  auto bad = [&](std::string_view what) {
    return Error::make(core::ErrorCode::Io, "stored placement is malformed: " + std::string(what), "placement");
  };
  if (!v.is_map()) return bad("not a map");
  const Value* cq = v.find("cluster_queue");
  if (cq == nullptr || !cq->is_string()) return bad("cluster_queue");
  p.admission.cluster_queue = cq->as_string();
  if (const Value* f = v.find("flavors"); f != nullptr && f->is_map()) {
    for (const auto& [ps, m] : f->as_map()) {
      if (!m.is_map()) return bad("flavors");
      for (const auto& [r, fl] : m.as_map()) {
        if (!fl.is_string()) return bad("flavors");
        p.admission.flavors[ps][r] = fl.as_string();
      }
    }
  }
  if (const Value* c = v.find("count"); c != nullptr && c->is_map()) {
    for (const auto& [ps, n] : c->as_map()) {
      if (!n.is_int() || n.as_int() < 0 || n.as_int() > INT32_MAX) return bad("count");
      p.admission.count[ps] = static_cast<std::int32_t>(n.as_int());
    }
  }
  for (auto [key, dst] : {std::pair{"nodes", &p.nodes}, std::pair{"devices", &p.devices}}) {
    if (const Value* l = v.find(key); l != nullptr && l->is_list())
      for (const auto& x : l->as_list())
        if (x.is_string()) dst->push_back(x.as_string());
  }
  return p;
}

core::Id derived_id(std::string_view text) {
  // Two FNV-1a/splitmix streams over the text fill 16 bytes; version 8, RFC 9562 variant.
  std::array<std::uint8_t, 16> b{};
  std::uint64_t h1 = 1469598103934665603ull, h2 = 0x9e3779b97f4a7c15ull;
  for (unsigned char c : text) {
    h1 = (h1 ^ c) * 1099511628211ull;
    h2 = (h2 ^ c) * 0xbf58476d1ce4e5b9ull + 0x94d049bb133111ebull;
  }
  for (int i = 0; i < 8; ++i) {
    b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(h1 >> (8 * i));
    b[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(h2 >> (8 * i));
  }
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x80);
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);
  return core::Id::from_bytes(b);
}

core::Value PipelineRun::to_value() const {
  return Value::map({{"id", id.to_string()},
                     {"pipeline", pipeline},
                     {"status", std::string(pipeline::to_string(status))},
                     {"created_at", created_at.to_string()},
                     {"updated_at", updated_at.to_string()},
                     {"version", version},
                     {"state", state}});
}

}  // namespace budcore::platform
