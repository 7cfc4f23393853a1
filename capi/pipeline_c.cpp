#include "budcore/pipeline/planner.hpp"
#include "capi_internal.hpp"

extern "C" int budcore_pipeline_plan(budcore_buf* out, budcore_buf* errors_out, const char* document,
                                     size_t document_len) {
  namespace capi = budcore::capi;
  return capi::guard([&] {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    if (errors_out != nullptr && !capi::empty_out(errors_out, "errors_out")) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(document, document_len, "document", text)) return budcore_error_last()->code;
    budcore::pipeline::PlanResult result = budcore::pipeline::plan_text(text);
    if (result.valid()) return capi::fill_buf(out, budcore::pipeline::to_json(result));
    // Invalid: `out` stays untouched (the one buffer rule); the report goes to errors_out.
    if (errors_out != nullptr)
      if (int rc = capi::fill_buf(errors_out, budcore::pipeline::to_json(result), "errors_out"); rc != BUDCORE_OK) return rc;
    const auto& first = result.report.errors.front();
    return capi::set_error(BUDCORE_EINVALID, first.code + ": " + first.message, first.path);
  });
}
