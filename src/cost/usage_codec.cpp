// UsageInterval and Usage <-> documents (the Store's usage `data`, the C ABI and Python).
#include <algorithm>
#include <array>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/cost/metering.hpp"
#include "cost/document.hpp"
#include "core/field_reader.hpp"

namespace budcore::cost {
namespace {

using core::Error;
using core::Map;
using core::Money;
using core::Quantity;
using core::Result;
using core::Status;
using core::Value;
using core::detail::Reader;

constexpr std::size_t kMaxLabels = 64;

constexpr std::array<std::string_view, 24> kIntervalKeys{
    "tenant_id", "project_id", "job_id",     "pipeline_id", "cluster_id",  "node_name",       "job_type",
    "labels",    "gpu_type",   "gpu_count",  "gpu_index",   "sharing_mode", "mig_profile",    "tier",
    "cpu_cores", "memory_gib", "storage_gib", "start",      "end",          "gpu_utilization", "gpu_memory_gib",
    "tokens_in", "tokens_out", "requests"};
constexpr std::array<std::string_view, 16> kUsageExtraKeys{
    "schema_version", "currency", "seconds", "gpu_seconds", "idle_gpu_seconds", "gpu_memory_gb_seconds",
    "cpu_core_seconds", "memory_gib_seconds", "storage_gib_seconds", "gpu_cost", "idle_cost", "cpu_cost",
    "memory_cost", "storage_cost", "computed_cost", "seq"};

Value id_value(const core::Id& id) { return id.is_nil() ? Value() : Value(id.to_string()); }

Status in_range(const std::optional<std::int64_t>& v, std::string_view key, std::int64_t max) {
  if (v && (*v < 0 || *v > max)) {
    return Error::invalid(std::string(key), std::to_string(*v), "must be between 0 and " + std::to_string(max));
  }
  return {};
}

Result<Quantity> bounded_quantity(const Reader& r, std::string_view key, bool plain, std::int64_t max) {
  BUDCORE_TRY_ASSIGN(auto q, r.quantity(key, plain));
  if (!q) return Quantity();
  if (q->sign() < 0 || q->nano() > static_cast<core::int128>(max) * Quantity::kNanoPerUnit) {
    return Error::invalid(std::string(key), core::detail::decimal_string(*q),
                          "must be between 0 and " + std::to_string(max));
  }
  return *q;
}

Result<std::int64_t> count(const Reader& r, std::string_view key, std::int64_t max) {
  BUDCORE_TRY_ASSIGN(auto v, r.integer(key));
  BUDCORE_TRY(in_range(v, key, max));
  return v.value_or(0);
}

Result<std::map<std::string, std::string>> read_labels(const Reader& r) {
  std::map<std::string, std::string> out;
  BUDCORE_TRY_ASSIGN(auto labels, r.map("labels"));
  if (!labels) return out;
  if (labels->as_map().size() > kMaxLabels) {
    return Error::invalid("labels", std::to_string(labels->as_map().size()) + " labels",
                          "at most " + std::to_string(kMaxLabels) + " labels");
  }
  for (const auto& [k, v] : labels->as_map()) {
    const std::string path = "labels." + k;
    if (k.empty() || k.size() > 63) return Error::invalid(path, k, "a label key has 1 to 63 characters");
    if (!v.is_string()) return Error::invalid(path, core::detail::value_text(v), "a label value must be a string");
    if (v.as_string().size() > 256) return Error::invalid(path, v.as_string(), "a label value has at most 256 characters");
    out.emplace(k, v.as_string());
  }
  return out;
}

Result<UsageInterval> read_interval_fields(const Reader& r) {
  UsageInterval u;
  BUDCORE_TRY_ASSIGN(auto tenant, r.id("tenant_id"));
  u.tenant_id = tenant.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto project, r.id("project_id"));
  u.project_id = project.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto job_id, r.id("job_id"));
  if (!job_id) return Error::invalid("job_id", {}, std::string(detail::kMissingField));
  u.job_id = *job_id;
  BUDCORE_TRY_ASSIGN(u.pipeline_id, r.id("pipeline_id"));
  BUDCORE_TRY_ASSIGN(auto cluster, r.id("cluster_id"));
  u.cluster_id = cluster.value_or(core::Id());
  BUDCORE_TRY_ASSIGN(auto node, r.string("node_name"));
  u.node_name = node.value_or("");
  if (u.node_name.size() > 253) return Error::invalid("node_name", u.node_name, "has more than 253 characters");
  BUDCORE_TRY_ASSIGN(auto job_type, r.enumeration<job::JobType>("job_type", job::parse_job_type));
  if (job_type) u.job_type = *job_type;
  BUDCORE_TRY_ASSIGN(u.labels, read_labels(r));

  BUDCORE_TRY_ASSIGN(u.gpu_type, r.string("gpu_type"));
  BUDCORE_TRY_ASSIGN(u.gpu_count, count(r, "gpu_count", 1'000'000));
  BUDCORE_TRY_ASSIGN(u.gpu_index, r.integer("gpu_index"));
  BUDCORE_TRY(in_range(u.gpu_index, "gpu_index", 1'000'000));
  BUDCORE_TRY_ASSIGN(auto sharing, r.enumeration<SharingMode>("sharing_mode", parse_sharing_mode));
  if (sharing) u.sharing_mode = *sharing;
  BUDCORE_TRY_ASSIGN(u.mig_profile, r.string("mig_profile"));
  BUDCORE_TRY_ASSIGN(auto tier, r.enumeration<Tier>("tier", parse_tier));
  if (tier) u.tier = *tier;
  BUDCORE_TRY_ASSIGN(u.cpu_cores, bounded_quantity(r, "cpu_cores", false, 1'000'000));
  BUDCORE_TRY_ASSIGN(u.memory_gib, bounded_quantity(r, "memory_gib", true, job::Job::kMaxGigabytes));
  BUDCORE_TRY_ASSIGN(u.storage_gib, count(r, "storage_gib", job::Job::kMaxGigabytes));

  BUDCORE_TRY_ASSIGN(auto start, r.timestamp("start"));
  if (!start) return Error::invalid("start", {}, std::string(detail::kMissingField));
  BUDCORE_TRY_ASSIGN(auto end, r.timestamp("end"));
  if (!end) return Error::invalid("end", {}, std::string(detail::kMissingField));
  u.start = *start;
  u.end = *end;

  BUDCORE_TRY_ASSIGN(auto util, r.quantity("gpu_utilization", true));
  if (util) {
    BUDCORE_TRY_ASSIGN(u.gpu_utilization, bounded_quantity(r, "gpu_utilization", true, 1));
  }
  BUDCORE_TRY_ASSIGN(auto gpu_mem, r.quantity("gpu_memory_gib", true));
  if (gpu_mem) {
    BUDCORE_TRY_ASSIGN(u.gpu_memory_gib, bounded_quantity(r, "gpu_memory_gib", true, 1'000'000));
  }
  constexpr std::int64_t kMaxCount = std::int64_t{1} << 53;
  BUDCORE_TRY_ASSIGN(u.tokens_in, count(r, "tokens_in", kMaxCount));
  BUDCORE_TRY_ASSIGN(u.tokens_out, count(r, "tokens_out", kMaxCount));
  BUDCORE_TRY_ASSIGN(u.requests, count(r, "requests", kMaxCount));
  return u;
}

void put_interval(Map& m, const UsageInterval& u) {
  m.set("tenant_id", id_value(u.tenant_id));
  m.set("project_id", id_value(u.project_id));
  m.set("job_id", id_value(u.job_id));
  m.set("pipeline_id", u.pipeline_id ? Value(u.pipeline_id->to_string()) : Value());
  m.set("cluster_id", id_value(u.cluster_id));
  m.set("node_name", Value(u.node_name));
  m.set("job_type", Value(std::string(job::to_string(u.job_type))));
  Map labels;
  for (const auto& [k, v] : u.labels) labels.set(k, Value(v));
  m.set("labels", Value(std::move(labels)));
  m.set("gpu_type", u.gpu_type ? Value(*u.gpu_type) : Value());
  m.set("gpu_count", Value(static_cast<long long>(u.gpu_count)));
  m.set("gpu_index", u.gpu_index ? Value(static_cast<long long>(*u.gpu_index)) : Value());
  m.set("sharing_mode", Value(std::string(to_string(u.sharing_mode))));
  m.set("mig_profile", u.mig_profile ? Value(*u.mig_profile) : Value());
  m.set("tier", Value(std::string(to_string(u.tier))));
  m.set("cpu_cores", detail::quantity_value(u.cpu_cores));
  m.set("memory_gib", detail::quantity_value(u.memory_gib));
  m.set("storage_gib", Value(static_cast<long long>(u.storage_gib)));
  m.set("start", Value(u.start.to_string()));
  m.set("end", Value(u.end.to_string()));
  m.set("gpu_utilization", u.gpu_utilization ? detail::quantity_value(*u.gpu_utilization) : Value());
  m.set("gpu_memory_gib", u.gpu_memory_gib ? detail::quantity_value(*u.gpu_memory_gib) : Value());
  m.set("tokens_in", Value(static_cast<long long>(u.tokens_in)));
  m.set("tokens_out", Value(static_cast<long long>(u.tokens_out)));
  m.set("requests", Value(static_cast<long long>(u.requests)));
}

Result<Quantity> required_quantity(const Reader& r, std::string_view key) {
  BUDCORE_TRY_ASSIGN(auto q, r.quantity(key, true));
  if (!q) return Error::invalid(std::string(key), {}, std::string(detail::kMissingField));
  return *q;
}

Result<Money> required_money(const Reader& r, std::string_view key, const std::string& currency) {
  BUDCORE_TRY_ASSIGN(auto m, r.money(key, currency));
  if (!m) return Error::invalid(std::string(key), {}, std::string(detail::kMissingField));
  return *m;
}

}  // namespace

Result<UsageInterval> read_interval(const Value& document) {
  if (!document.is_map()) return Error::invalid({}, core::detail::value_text(document), "a usage interval must be a map");
  Reader r(document.as_map());
  BUDCORE_TRY(r.reject_unknown(kIntervalKeys));
  return read_interval_fields(r);
}

Value to_value(const UsageInterval& u) {
  Map m;
  put_interval(m, u);
  return Value(std::move(m));
}

Value Usage::to_value() const {
  Map m;
  m.set("schema_version", Value(1));
  if (seq != 0) m.set("seq", Value(static_cast<long long>(seq)));
  put_interval(m, interval);
  m.set("currency", Value(currency));
  m.set("seconds", detail::quantity_value(seconds));
  m.set("gpu_seconds", detail::quantity_value(gpu_seconds));
  m.set("idle_gpu_seconds", detail::quantity_value(idle_gpu_seconds));
  m.set("gpu_memory_gb_seconds", detail::quantity_value(gpu_memory_gb_seconds));
  m.set("cpu_core_seconds", detail::quantity_value(cpu_core_seconds));
  m.set("memory_gib_seconds", detail::quantity_value(memory_gib_seconds));
  m.set("storage_gib_seconds", detail::quantity_value(storage_gib_seconds));
  m.set("gpu_cost", detail::amount_value(gpu_cost));
  m.set("idle_cost", detail::amount_value(idle_cost));
  m.set("cpu_cost", detail::amount_value(cpu_cost));
  m.set("memory_cost", detail::amount_value(memory_cost));
  m.set("storage_cost", detail::amount_value(storage_cost));
  m.set("computed_cost", detail::amount_value(computed_cost));
  return Value(std::move(m));
}

Result<Usage> Usage::from_value(const Value& document) {
  if (!document.is_map()) return Error::invalid({}, core::detail::value_text(document), "a usage record must be a map");
  static const std::vector<std::string_view> kKeys = [] {
    std::vector<std::string_view> k(kIntervalKeys.begin(), kIntervalKeys.end());
    k.insert(k.end(), kUsageExtraKeys.begin(), kUsageExtraKeys.end());
    return k;
  }();
  Reader r(document.as_map());
  BUDCORE_TRY(r.reject_unknown(kKeys));
  BUDCORE_TRY_ASSIGN(auto version, r.integer("schema_version"));
  if (version && *version != 1) {
    return Error{core::ErrorCode::Unsupported, "unsupported usage record schema version", "schema_version",
                 std::to_string(*version)};
  }
  Usage u;
  BUDCORE_TRY_ASSIGN(u.interval, read_interval_fields(r));
  BUDCORE_TRY_ASSIGN(auto currency, r.currency("currency"));
  if (!currency) return Error::invalid("currency", {}, std::string(detail::kMissingField));
  u.currency = *currency;
  BUDCORE_TRY_ASSIGN(auto seq, r.integer("seq"));
  u.seq = seq.value_or(0);
  for (auto [key, slot] : {std::pair{"seconds", &u.seconds}, std::pair{"gpu_seconds", &u.gpu_seconds},
                           std::pair{"idle_gpu_seconds", &u.idle_gpu_seconds},
                           std::pair{"gpu_memory_gb_seconds", &u.gpu_memory_gb_seconds},
                           std::pair{"cpu_core_seconds", &u.cpu_core_seconds},
                           std::pair{"memory_gib_seconds", &u.memory_gib_seconds},
                           std::pair{"storage_gib_seconds", &u.storage_gib_seconds}}) {
    BUDCORE_TRY_ASSIGN(*slot, required_quantity(r, key));
  }
  for (auto [key, slot] : {std::pair{"gpu_cost", &u.gpu_cost}, std::pair{"idle_cost", &u.idle_cost},
                           std::pair{"cpu_cost", &u.cpu_cost}, std::pair{"memory_cost", &u.memory_cost},
                           std::pair{"storage_cost", &u.storage_cost}, std::pair{"computed_cost", &u.computed_cost}}) {
    BUDCORE_TRY_ASSIGN(*slot, required_money(r, key, u.currency));
  }
  return u;
}

namespace {
constexpr std::size_t kMaxUsageItems = 10'000'000;

Result<Usage> usage_item(const Value& item, const PriceBook* book) {
  if (item.is_map() && item.as_map().contains("computed_cost")) return Usage::from_value(item);
  BUDCORE_TRY_ASSIGN(UsageInterval interval, read_interval(item));
  if (book == nullptr) {
    return Error::invalid("computed_cost", {}, "an unpriced interval needs a price book (--prices) to be metered");
  }
  return meter(*book, interval);
}
}  // namespace

Result<std::vector<Usage>> read_usage_list(const Value& document, const PriceBook* book) {
  const Value* list = &document;
  if (document.is_map() && document.as_map().contains("usage")) list = document.find("usage");
  if (!list->is_list()) {
    return Error::invalid("usage", core::detail::value_text(*list).substr(0, 80),
                          "must be a list of usage records or intervals");
  }
  if (list->as_list().size() > kMaxUsageItems) {
    return Error::invalid("usage", std::to_string(list->as_list().size()) + " records", "at most 10000000 records");
  }
  std::vector<Usage> out;
  out.reserve(list->as_list().size());
  for (std::size_t i = 0; i < list->as_list().size(); ++i) {
    auto u = usage_item(list->as_list()[i], book);
    if (!u) return detail::under("usage[" + std::to_string(i) + "]", std::move(u).error());
    out.push_back(std::move(*u));
  }
  return out;
}

Result<std::vector<Usage>> parse_usage_text(std::string_view text, const PriceBook* book) {
  if (text.size() > kMaxUsageBytes) return Error::invalid("usage", {}, "input is larger than 1024 MiB");
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::vector<Usage>{};
  // JSON Lines: an object on the first line and more after it.
  const std::size_t eol = text.find('\n', first);
  const bool lines = text[first] == '{' && eol != std::string_view::npos &&
                     text.find_first_not_of(" \t\r\n", eol) != std::string_view::npos &&
                     core::parse_json(text.substr(first, eol - first)).has_value();
  if (!lines) {
    BUDCORE_TRY_ASSIGN(Value doc, core::parse_document(text));
    return read_usage_list(doc, book);
  }
  std::vector<Usage> out;
  std::size_t pos = 0, line = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (l.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (out.size() >= kMaxUsageItems) return Error::invalid("usage", {}, "at most 10000000 records");
    auto v = core::parse_json(l);
    if (!v) return detail::under("line " + std::to_string(line), std::move(v).error());
    auto u = usage_item(*v, book);
    if (!u) return detail::under("line " + std::to_string(line), std::move(u).error());
    out.push_back(std::move(*u));
  }
  return out;
}

}  // namespace budcore::cost
