#include "budcore/serverless/endpoint.hpp"

#include <cmath>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/keys.hpp"
#include "budcore/core/yaml.hpp"
#include "core/enum_lookup.hpp"
#include "core/field_reader.hpp"

namespace budcore::serverless {

using core::Error;
using core::Result;
using core::Status;
using core::Value;

namespace {

constexpr core::detail::EnumNames<Priority, 4> kPriorityNames{{
    {Priority::Premium, "premium"}, {Priority::Standard, "standard"}, {Priority::Spot, "spot"}, {Priority::Batch, "batch"}}};

std::string text_of(const Value& v) { return core::detail::value_text(v); }

// Typed readers over one mapping; each error names `parent.key`.
class Section {
 public:
  Section(const core::Map& m, std::string parent) : m_(m), parent_(std::move(parent)) {}
  std::string path(std::string_view key) const { return core::join_path(parent_, key); }

  Status keys(std::span<const std::string_view> known) const { return core::check_keys(m_, known, parent_); }

  // A number in [lo, hi]; `positive` refuses 0.
  Status number(std::string_view key, double& out, double lo, double hi, bool positive = false) const {
    const Value* v = get(key);
    if (v == nullptr) return {};
    if (!v->is_number()) return Error::invalid(path(key), text_of(*v), "must be a number");
    const double d = v->as_float();
    if (!std::isfinite(d) || d < lo || d > hi || (positive && d <= 0)) {
      return Error::invalid(path(key), text_of(*v), range_text(lo, hi, positive));
    }
    out = d;
    return {};
  }
  template <class I>
  Status integer(std::string_view key, I& out, std::int64_t lo, std::int64_t hi) const {
    const Value* v = get(key);
    if (v == nullptr) return {};
    if (!v->is_int()) return Error::invalid(path(key), text_of(*v), "must be an integer");
    if (v->as_int() < lo || v->as_int() > hi) {
      return Error::invalid(path(key), text_of(*v),
                            "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    }
    out = static_cast<I>(v->as_int());
    return {};
  }
  // Whole or fractional seconds as a Duration.
  Status seconds(std::string_view key, core::Duration& out, double hi, bool positive) const {
    double s = -1;
    BUDCORE_TRY(number(key, s, 0, hi, positive));
    if (s >= 0) out = core::Duration::nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9)));
    return {};
  }
  Status boolean(std::string_view key, bool& out) const {
    const Value* v = get(key);
    if (v == nullptr) return {};
    if (!v->is_bool()) return Error::invalid(path(key), text_of(*v), "must be true or false");
    out = v->as_bool();
    return {};
  }
  Status string(std::string_view key, std::string& out) const {
    const Value* v = get(key);
    if (v == nullptr) return {};
    if (!v->is_string() || v->as_string().empty()) return Error::invalid(path(key), text_of(*v), "must be a non-empty string");
    out = v->as_string();
    return {};
  }
  Status money(std::string_view key, core::Money& out, const std::string& currency) const {
    const Value* v = get(key);
    if (v == nullptr) return {};
    std::string amount = v->is_string() ? v->as_string() : v->is_number() ? core::format_json_float(v->as_float()) : "";
    if (v->is_int()) amount = std::to_string(v->as_int());
    auto m = core::Money::parse(amount, currency);
    if (!m || m->units() < 0) return Error::invalid(path(key), text_of(*v), "must be a non-negative decimal amount such as \"2.49\"");
    out = *m;
    return {};
  }
  Result<const core::Map*> section(std::string_view key) const {
    const Value* v = get(key);
    if (v == nullptr) return static_cast<const core::Map*>(nullptr);
    if (!v->is_map()) return Error::invalid(path(key), text_of(*v), "must be a mapping");
    return &v->as_map();
  }

 private:
  const Value* get(std::string_view key) const {
    const Value* v = m_.find(key);
    return (v == nullptr || v->is_null()) ? nullptr : v;
  }
  static std::string range_text(double lo, double hi, bool positive) {
    std::string s = positive ? "must be greater than 0" : "must be at least " + core::format_json_float(lo);
    return s + " and at most " + core::format_json_float(hi);
  }
  const core::Map& m_;
  std::string parent_;
};

constexpr double kMaxSeconds = 86'400.0 * 7;

Status read_cold_start(const Section& s, ColdStartModel& c) {
  static constexpr std::string_view kKeys[] = {"container_seconds", "model_gib", "load_gib_per_second", "warmup_seconds"};
  BUDCORE_TRY(s.keys(kKeys));
  BUDCORE_TRY(s.number("container_seconds", c.container_seconds, 0, 3600));
  BUDCORE_TRY(s.number("model_gib", c.model_gib, 0, 100'000));
  BUDCORE_TRY(s.number("load_gib_per_second", c.load_gib_per_second, 0, 1e6, true));
  return s.number("warmup_seconds", c.warmup_seconds, 0, 3600);
}

Status read_service(const Section& s, ServiceModel& m) {
  static constexpr std::string_view kKeys[] = {"prefill_tokens_per_second", "decode_tokens_per_second", "overhead_seconds"};
  BUDCORE_TRY(s.keys(kKeys));
  BUDCORE_TRY(s.number("prefill_tokens_per_second", m.prefill_tokens_per_second, 0, 1e9, true));
  BUDCORE_TRY(s.number("decode_tokens_per_second", m.decode_tokens_per_second, 0, 1e9, true));
  return s.number("overhead_seconds", m.overhead_seconds, 0, 3600);
}

Status read_warm_pool(const Section& s, WarmPoolConfig& w, const std::string& currency) {
  static constexpr std::string_view kKeys[] = {"min_warm_workers",     "max_warm_workers",       "target_warm_workers",
                                               "idle_timeout_seconds", "warmup_timeout_seconds", "max_idle_cost_per_hour",
                                               "enable_predictive_scaling", "traffic_history_hours"};
  BUDCORE_TRY(s.keys(kKeys));
  BUDCORE_TRY(s.integer("min_warm_workers", w.min_warm_workers, 0, EndpointConfig::kMaxWorkers));
  BUDCORE_TRY(s.integer("max_warm_workers", w.max_warm_workers, 1, EndpointConfig::kMaxWorkers));
  BUDCORE_TRY(s.integer("target_warm_workers", w.target_warm_workers, 0, EndpointConfig::kMaxWorkers));
  BUDCORE_TRY(s.seconds("idle_timeout_seconds", w.idle_timeout, kMaxSeconds, false));
  BUDCORE_TRY(s.seconds("warmup_timeout_seconds", w.warmup_timeout, kMaxSeconds, true));
  BUDCORE_TRY(s.money("max_idle_cost_per_hour", w.max_idle_cost_per_hour, currency));
  BUDCORE_TRY(s.boolean("enable_predictive_scaling", w.enable_predictive_scaling));
  BUDCORE_TRY(s.integer("traffic_history_hours", w.traffic_history_hours, 1, 24 * 90));
  if (w.min_warm_workers > w.max_warm_workers) {
    return Error::invalid(s.path("min_warm_workers"), std::to_string(w.min_warm_workers),
                          "must not exceed max_warm_workers (" + std::to_string(w.max_warm_workers) + ")");
  }
  if (w.target_warm_workers > w.max_warm_workers) {
    return Error::invalid(s.path("target_warm_workers"), std::to_string(w.target_warm_workers),
                          "must not exceed max_warm_workers (" + std::to_string(w.max_warm_workers) + ")");
  }
  return {};
}

Status read_sla(const Section& s, SlaConfig& sla) {
  static constexpr std::string_view kKeys[] = {"max_wait_seconds", "max_process_seconds"};
  BUDCORE_TRY(s.keys(kKeys));
  BUDCORE_TRY(s.seconds("max_wait_seconds", sla.max_wait, kMaxSeconds, true));
  return s.seconds("max_process_seconds", sla.max_process, kMaxSeconds, true);
}

Status read_queue(const Section& s, QueueLimits& q) {
  static constexpr std::string_view kKeys[] = {"max_queue_size", "dedup_window_seconds", "max_retries", "max_payload_bytes"};
  BUDCORE_TRY(s.keys(kKeys));
  BUDCORE_TRY(s.integer("max_queue_size", q.max_queue_size, 1, 100'000'000));
  BUDCORE_TRY(s.seconds("dedup_window_seconds", q.dedup_window, kMaxSeconds, false));
  BUDCORE_TRY(s.integer("max_retries", q.max_retries, 0, 100));
  return s.integer("max_payload_bytes", q.max_payload_bytes, 1, std::int64_t{1} << 40);
}

Status read_tenants(const Section& s, TenantLimits& t) {
  static constexpr std::string_view kKeys[] = {"default_concurrency", "concurrency", "rate_per_second", "burst"};
  BUDCORE_TRY(s.keys(kKeys));
  BUDCORE_TRY(s.integer("default_concurrency", t.default_concurrency, 1, 100'000'000));
  BUDCORE_TRY(s.number("rate_per_second", t.rate_per_second, 0, 1e9));
  BUDCORE_TRY(s.number("burst", t.burst, 0, 1e9));
  if (t.burst == 0) t.burst = t.rate_per_second;
  const core::Map* per = nullptr;
  BUDCORE_TRY_ASSIGN(per, s.section("concurrency"));
  if (per != nullptr) {
    Section limits(*per, s.path("concurrency"));
    for (const auto& [tenant, v] : *per) {
      std::int64_t n = 0;
      BUDCORE_TRY(limits.integer(tenant, n, 1, 100'000'000));
      t.concurrency[tenant] = n;
    }
  }
  return {};
}

Status read_weights(const Section& s, std::array<int, 4>& w) {
  static constexpr std::string_view kKeys[] = {"premium", "standard", "spot", "batch"};
  BUDCORE_TRY(s.keys(kKeys));
  for (Priority p : kAllPriorities) BUDCORE_TRY(s.integer(to_string(p), w[static_cast<std::size_t>(p)], 0, 1000));
  return {};
}

Status read_top(const Section& top, EndpointConfig& c) {
  static constexpr std::string_view kKeys[] = {
      "schema_version", "name", "model", "gpu_type", "gpus_per_worker", "concurrency_per_worker", "price_per_gpu_hour",
      "currency", "cold_start", "service", "warm_pool", "sla", "queue", "tenants", "priority_weights"};
  BUDCORE_TRY(top.keys(kKeys));
  int version = EndpointConfig::kSchemaVersion;
  BUDCORE_TRY(top.integer("schema_version", version, 1, EndpointConfig::kSchemaVersion));
  BUDCORE_TRY(top.string("name", c.name));
  if (c.name.empty()) return Error::invalid("name", {}, "required field is missing");
  if (!core::detail::is_dns1123_label(c.name)) {
    return Error::invalid("name", c.name, "must be a DNS-1123 label: 1-63 of a-z, 0-9 and '-', starting and ending alphanumeric");
  }
  BUDCORE_TRY(top.string("model", c.model));
  if (c.model.empty()) return Error::invalid("model", {}, "required field is missing");
  BUDCORE_TRY(top.string("gpu_type", c.gpu_type));
  BUDCORE_TRY(top.integer("gpus_per_worker", c.gpus_per_worker, 1, 64));
  BUDCORE_TRY(top.integer("concurrency_per_worker", c.concurrency_per_worker, 1, 100'000));
  std::string currency = "USD";
  BUDCORE_TRY(top.string("currency", currency));
  auto zero = core::Money::zero(currency);
  if (!zero) return Error::invalid("currency", currency, "must be an ISO 4217 code such as USD");
  c.price_per_gpu_hour = *zero;
  c.warm_pool.max_idle_cost_per_hour = c.price_per_gpu_hour;
  BUDCORE_TRY(top.money("price_per_gpu_hour", c.price_per_gpu_hour, currency));
  return {};
}

}  // namespace

std::string_view to_string(Priority p) noexcept { return core::detail::enum_name(p, kPriorityNames); }
Result<Priority> parse_priority(std::string_view text) { return core::detail::parse_enum(text, kPriorityNames, "priority"); }

core::Duration ColdStartModel::duration() const {
  const double s = container_seconds + model_gib / load_gib_per_second + warmup_seconds;
  return core::Duration::nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9)));
}

core::Duration ServiceModel::duration(std::int64_t context_tokens, std::int64_t generated_tokens) const {
  const double s = overhead_seconds + static_cast<double>(context_tokens) / prefill_tokens_per_second +
                   static_cast<double>(generated_tokens) / decode_tokens_per_second;
  return core::Duration::nanoseconds(static_cast<std::int64_t>(std::llround(s * 1e9)));
}

std::int64_t TenantLimits::concurrency_of(std::string_view tenant) const {
  auto it = concurrency.find(tenant);
  return it == concurrency.end() ? default_concurrency : it->second;
}

Result<EndpointConfig> EndpointConfig::from_value(const Value& document) {
  if (!document.is_map()) return Error::invalid({}, text_of(document), "an endpoint document must be a mapping");
  EndpointConfig c;
  const Section top(document.as_map(), {});
  BUDCORE_TRY(read_top(top, c));
  const std::string currency = c.price_per_gpu_hour.currency();
  const auto nested = [&](std::string_view key, auto read) -> Status {
    const core::Map* m = nullptr;
    BUDCORE_TRY_ASSIGN(m, top.section(key));
    if (m == nullptr) return {};
    return read(Section(*m, std::string(key)));
  };
  BUDCORE_TRY(nested("cold_start", [&](const Section& s) { return read_cold_start(s, c.cold_start); }));
  BUDCORE_TRY(nested("service", [&](const Section& s) { return read_service(s, c.service); }));
  BUDCORE_TRY(nested("warm_pool", [&](const Section& s) { return read_warm_pool(s, c.warm_pool, currency); }));
  BUDCORE_TRY(nested("sla", [&](const Section& s) { return read_sla(s, c.sla); }));
  BUDCORE_TRY(nested("queue", [&](const Section& s) { return read_queue(s, c.queue); }));
  BUDCORE_TRY(nested("tenants", [&](const Section& s) { return read_tenants(s, c.tenants); }));
  BUDCORE_TRY(nested("priority_weights", [&](const Section& s) { return read_weights(s, c.priority_weights); }));
  return c;
}

Result<EndpointConfig> EndpointConfig::from_text(std::string_view text) {
  Value doc;
  BUDCORE_TRY_ASSIGN(doc, core::parse_document(text));
  return from_value(doc);
}

Result<EndpointConfig> EndpointConfig::load_file(const std::string& path) {
  Value doc;
  BUDCORE_TRY_ASSIGN(doc, core::load_document_file(path));
  return from_value(doc);
}

Value EndpointConfig::to_value() const {
  const auto secs = [](core::Duration d) { return Value(static_cast<double>(d.count_ns()) / 1e9); };
  core::Map weights;
  for (Priority p : kAllPriorities) weights.set(std::string(to_string(p)), Value(weight(p)));
  core::Map per_tenant;
  for (const auto& [t, n] : tenants.concurrency) per_tenant.set(t, Value(static_cast<std::int64_t>(n)));
  return Value(core::Map{
      {"schema_version", Value(kSchemaVersion)},
      {"name", Value(name)},
      {"model", Value(model)},
      {"gpu_type", Value(gpu_type)},
      {"gpus_per_worker", Value(gpus_per_worker)},
      {"concurrency_per_worker", Value(concurrency_per_worker)},
      {"price_per_gpu_hour", Value(price_per_gpu_hour.amount_string(2))},
      {"currency", Value(price_per_gpu_hour.currency())},
      {"cold_start", Value(core::Map{{"container_seconds", Value(cold_start.container_seconds)},
                                     {"model_gib", Value(cold_start.model_gib)},
                                     {"load_gib_per_second", Value(cold_start.load_gib_per_second)},
                                     {"warmup_seconds", Value(cold_start.warmup_seconds)}})},
      {"service", Value(core::Map{{"prefill_tokens_per_second", Value(service.prefill_tokens_per_second)},
                                  {"decode_tokens_per_second", Value(service.decode_tokens_per_second)},
                                  {"overhead_seconds", Value(service.overhead_seconds)}})},
      {"warm_pool", Value(core::Map{{"min_warm_workers", Value(warm_pool.min_warm_workers)},
                                    {"max_warm_workers", Value(warm_pool.max_warm_workers)},
                                    {"target_warm_workers", Value(warm_pool.target_warm_workers)},
                                    {"idle_timeout_seconds", secs(warm_pool.idle_timeout)},
                                    {"warmup_timeout_seconds", secs(warm_pool.warmup_timeout)},
                                    {"max_idle_cost_per_hour", Value(warm_pool.max_idle_cost_per_hour.amount_string(2))},
                                    {"enable_predictive_scaling", Value(warm_pool.enable_predictive_scaling)},
                                    {"traffic_history_hours", Value(warm_pool.traffic_history_hours)}})},
      {"sla", Value(core::Map{{"max_wait_seconds", secs(sla.max_wait)}, {"max_process_seconds", secs(sla.max_process)}})},
      {"queue", Value(core::Map{{"max_queue_size", Value(static_cast<std::int64_t>(queue.max_queue_size))},
                                {"dedup_window_seconds", secs(queue.dedup_window)},
                                {"max_retries", Value(queue.max_retries)},
                                {"max_payload_bytes", Value(static_cast<std::int64_t>(queue.max_payload_bytes))}})},
      {"tenants", Value(core::Map{{"default_concurrency", Value(static_cast<std::int64_t>(tenants.default_concurrency))},
                                  {"concurrency", Value(std::move(per_tenant))},
                                  {"rate_per_second", Value(tenants.rate_per_second)},
                                  {"burst", Value(tenants.burst)}})},
      {"priority_weights", Value(std::move(weights))},
  });
}

}  // namespace budcore::serverless
