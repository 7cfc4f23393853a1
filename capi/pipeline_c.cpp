#include "budcore/pipeline/planner.hpp"
#include "capi_internal.hpp"

extern "C" int budcore_pipeline_plan(budcore_buf* out, const char* document, size_t document_len) {
  return budcore::capi::guard([&] {
    std::string_view text;
    if (!budcore::capi::input_text(document, document_len, "document", text)) return budcore_error_last()->code;
    if (out == nullptr) return budcore::capi::set_error(BUDCORE_EINVALID, "output buffer is NULL", "out");
    budcore::pipeline::PlanResult result = budcore::pipeline::plan_text(text);
    int rc = budcore::capi::fill_buf(out, budcore::pipeline::to_json(result));
    if (rc != BUDCORE_OK || result.valid()) return rc;
    const auto& first = result.report.errors.front();
    return budcore::capi::set_error(BUDCORE_EINVALID, first.code + ": " + first.message, first.path);
  });
}
