// C ABI over budcore::job::Job: JSON in, normalized JSON out.
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
