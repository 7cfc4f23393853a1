// C ABI over budcore::quota: the simulate contract, and an admission engine handle for callers
// that feed workloads and finishes over time. JSON in, JSON out (quota/engine_json.hpp).
#include <optional>

#include "budcore/core/json.hpp"
#include "budcore/quota/admission.hpp"
#include "budcore/quota/engine_json.hpp"
#include "budcore/quota/scenario.hpp"
#include "capi_internal.hpp"

namespace capi = budcore::capi;
namespace quota = budcore::quota;

struct budcore_quota_engine {
  quota::QuotaConfig config;  // resolves workloads' priority classes
  std::optional<quota::AdmissionEngine> engine;
};

namespace {

bool engine_arg(const budcore_quota_engine* e) {
  if (e != nullptr) return true;
  capi::set_error(BUDCORE_EINVALID, "engine handle is NULL", "engine");
  return false;
}

}  // namespace

extern "C" int budcore_quota_simulate(budcore_buf* out, const char* scenario_json, size_t len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(scenario_json, len, "scenario_json", text)) return budcore_error_last()->code;
    auto scenario = quota::parse_scenario(text);
    if (!scenario) return capi::set_error(scenario.error());
    auto result = quota::simulate(*scenario);
    if (!result) return capi::set_error(result.error());
    return capi::fill_buf(out, quota::to_json(*result));
  });
}

extern "C" int budcore_quota_engine_new(budcore_quota_engine** out, const char* scenario_json, size_t scenario_json_len) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    *out = nullptr;
    std::string_view text;
    if (!capi::input_text(scenario_json, scenario_json_len, "scenario_json", text)) return budcore_error_last()->code;
    auto scenario = quota::parse_scenario(text);
    if (!scenario) return capi::set_error(scenario.error());
    if (auto st = quota::validate(scenario->config); !st) return capi::set_error(st.error());
    quota::EngineOptions options;
    options.fair_sharing = scenario->fair_sharing;
    options.fair_sharing_strategies = scenario->fair_sharing_strategies;
    auto engine = quota::AdmissionEngine::create(scenario->config, options);
    if (!engine) return capi::set_error(engine.error());
    for (std::size_t i = 0; i < scenario->workloads.size(); ++i)
      if (auto st = engine->add_workload(scenario->workloads[i]); !st)
        return capi::set_error(budcore::core::Error(st.error()).at("workloads[" + std::to_string(i) + "]"));
    auto handle = std::make_unique<budcore_quota_engine>();
    handle->config = std::move(scenario->config);
    handle->engine.emplace(std::move(*engine));
    *out = handle.release();
    return BUDCORE_OK;
  });
}

extern "C" void budcore_quota_engine_free(budcore_quota_engine* engine) { delete engine; }

extern "C" int budcore_quota_engine_add(budcore_quota_engine* engine, const char* workload_json, size_t workload_json_len) {
  return capi::guard([&]() -> int {
    if (!engine_arg(engine)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(workload_json, workload_json_len, "workload_json", text)) return budcore_error_last()->code;
    auto w = quota::parse_workload(text, engine->config);
    if (!w) return capi::set_error(w.error());
    if (auto st = engine->engine->add_workload(*w); !st) return capi::set_error(st.error());
    return BUDCORE_OK;
  });
}

extern "C" int budcore_quota_engine_finish(budcore_quota_engine* engine, const char* key, size_t key_len) {
  return capi::guard([&]() -> int {
    if (!engine_arg(engine)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(key, key_len, "key", text)) return budcore_error_last()->code;
    if (auto st = engine->engine->finish(text); !st) return capi::set_error(st.error());
    return BUDCORE_OK;
  });
}

extern "C" int budcore_quota_engine_cycle(budcore_buf* out, budcore_quota_engine* engine) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out) || !engine_arg(engine)) return budcore_error_last()->code;
    return capi::fill_buf(out, budcore::core::to_json(quota::to_value(engine->engine->run_cycle())));
  });
}

extern "C" int budcore_quota_engine_run(int64_t* out_cycles, budcore_quota_engine* engine, int64_t max_cycles) {
  return capi::guard([&]() -> int {
    if (out_cycles == nullptr) return capi::set_error(BUDCORE_EINVALID, "output pointer is NULL", "out_cycles");
    if (!engine_arg(engine)) return budcore_error_last()->code;
    if (max_cycles < 0 || max_cycles > 1'000'000'000)
      return capi::set_error(budcore::core::Error::invalid("max_cycles", std::to_string(max_cycles), "must be 0..1000000000"));
    *out_cycles = engine->engine->run_until_quiescent(static_cast<int>(max_cycles));
    return BUDCORE_OK;
  });
}

extern "C" int budcore_quota_engine_status(budcore_buf* out, const budcore_quota_engine* engine, const char* key,
                                          size_t key_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out) || !engine_arg(engine)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(key, key_len, "key", text)) return budcore_error_last()->code;
    auto s = engine->engine->status(text);
    if (!s)
      return capi::set_error(budcore::core::Error::make(budcore::core::ErrorCode::NotFound, "unknown workload " + std::string(text), "key"));
    return capi::fill_buf(out, budcore::core::to_json(quota::to_value(*s)));
  });
}

extern "C" int budcore_quota_engine_statuses(budcore_buf* out, const budcore_quota_engine* engine) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out) || !engine_arg(engine)) return budcore_error_last()->code;
    budcore::core::List list;
    for (const auto& s : engine->engine->statuses()) list.push_back(quota::to_value(s));
    return capi::fill_buf(out, budcore::core::to_json(budcore::core::Value(std::move(list))));
  });
}
