// C ABI over budcore::quota: the simulate contract, JSON in, JSON out.
#include "budcore/quota/scenario.hpp"
#include "capi_internal.hpp"

extern "C" int budcore_quota_simulate(budcore_buf* out, const char* scenario_json, size_t len) {
  namespace capi = budcore::capi;
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(scenario_json, len, "scenario_json", text)) return budcore_error_last()->code;
    auto scenario = budcore::quota::parse_scenario(text);
    if (!scenario) return capi::set_error(scenario.error());
    auto result = budcore::quota::simulate(*scenario);
    if (!result) return capi::set_error(result.error());
    return capi::fill_buf(out, budcore::quota::to_json(*result));
  });
}
