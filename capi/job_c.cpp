// C ABI over budcore::job::Job: JSON in, normalized JSON out.
#include "budcore/core/json.hpp"
#include "budcore/core/problems.hpp"
#include "budcore/job/job.hpp"
#include "capi_internal.hpp"

extern "C" int budcore_job_validate(budcore_buf* out, const char* json, size_t json_len) {
  namespace capi = budcore::capi;
  return capi::guard([&]() -> int {
    // Checked before parsing so a caller with no place for the result learns it at once.
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(json, json_len, "json", text)) return budcore_error_last()->code;
    auto job = budcore::job::Job::from_json(text);
    if (!job) return capi::set_error(job.error());
    if (auto st = job->validate(); !st) return capi::set_error(st.error());
    return capi::fill_buf(out, job->to_json());
  });
}

extern "C" int budcore_job_validate_all(budcore_buf* out, budcore_buf* errors_out, const char* json, size_t json_len) {
  namespace capi = budcore::capi;
  namespace core = budcore::core;
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    if (errors_out != nullptr && !capi::empty_out(errors_out, "errors_out")) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(json, json_len, "json", text)) return budcore_error_last()->code;
    auto checked = budcore::job::Job::check_json(text);
    if (checked.ok()) return capi::fill_buf(out, checked.job->to_json());
    if (errors_out != nullptr) {
      core::List list;
      for (const auto& e : checked.errors) list.push_back(core::to_value(e));
      core::Value report = core::Value::map({{"valid", false}, {"errors", core::Value(std::move(list))}});
      if (int rc = capi::fill_buf(errors_out, core::to_json(report), "errors_out"); rc != BUDCORE_OK) return rc;
    }
    return capi::set_error(core::first_with_others(std::move(checked.errors)));
  });
}
