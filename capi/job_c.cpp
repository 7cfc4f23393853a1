#include "capi_internal.hpp"

// Filled in with the job model (budcore::job::Job): validate a job JSON, return it normalized.
extern "C" int budcore_job_validate(budcore_buf* out, const char* json, size_t json_len) {
  return budcore::capi::guard([&] {
    std::string_view text;
    if (!budcore::capi::input_text(json, json_len, "json", text)) return budcore_error_last()->code;
    return budcore::capi::set_error(BUDCORE_EUNSUPPORTED, "job validation is not built yet");
  });
}
