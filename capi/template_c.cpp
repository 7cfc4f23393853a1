// C ABI over budcore::templates: one-shot renders and compiled templates, with each failure's
// Jinja2 kind, line and column on the error (budcore_error_last).
#include "budcore/c/template.h"

#include "budcore/core/json.hpp"
#include "budcore/templates/template.hpp"
#include "capi_internal.hpp"

struct budcore_template {
  budcore::templates::Template compiled;  // immutable: renders from many threads at once
};

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace templates = budcore::templates;

int template_failure(const templates::TemplateError& e) {
  core::Error full = e.to_error();
  return capi::set_template_error(capi::status_of(full.code), full.message, full.field, templates::to_string(e.kind), e.line,
                                  e.column);
}

// The context: a JSON object, or empty text for {}.
bool context_of(const char* json, size_t len, core::Value& context) {
  std::string_view text;
  if (!capi::input_text(json, len, "context_json", text)) return false;
  context = core::Value(core::Map{});
  if (text.empty()) return true;
  auto parsed = core::parse_json(text);
  if (!parsed) {
    core::Error e = parsed.error();
    e.at("context");
    capi::set_error(e);
    return false;
  }
  if (!parsed->is_map()) {
    capi::set_error(BUDCORE_EINVALID, "context must be a JSON object", "context");
    return false;
  }
  context = std::move(*parsed);
  return true;
}

int render_into(budcore_buf* out, const templates::Template& t, const core::Value& context, int native) {
  templates::TemplateError error;
  if (native) {
    core::Value v;
    if (!t.render_native(context, v, error)) return template_failure(error);
    return capi::fill_buf(out, core::to_json(v));
  }
  std::string text;
  if (!t.render(context, text, error)) return template_failure(error);
  return capi::fill_buf(out, text);
}

}  // namespace

extern "C" int budcore_template_render(budcore_buf* out, const char* tmpl, size_t tmpl_len, const char* context_json,
                                       size_t context_json_len, int native) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(tmpl, tmpl_len, "template", text)) return budcore_error_last()->code;
    core::Value context;
    if (!context_of(context_json, context_json_len, context)) return budcore_error_last()->code;
    templates::Template compiled;
    templates::TemplateError error;
    if (!templates::Template::compile(text, compiled, error)) return template_failure(error);
    return render_into(out, compiled, context, native);
  });
}

extern "C" int budcore_template_compile(budcore_template** out, const char* text, size_t text_len) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    *out = nullptr;
    std::string_view view;
    if (!capi::input_text(text, text_len, "text", view)) return budcore_error_last()->code;
    auto handle = std::make_unique<budcore_template>();
    templates::TemplateError error;
    if (!templates::Template::compile(view, handle->compiled, error)) return template_failure(error);
    *out = handle.release();
    return BUDCORE_OK;
  });
}

extern "C" int budcore_template_render_compiled(budcore_buf* out, const budcore_template* tmpl, const char* context_json,
                                                size_t context_json_len, int native) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    if (tmpl == nullptr) return capi::set_error(BUDCORE_EINVALID, "template handle is NULL", "tmpl");
    core::Value context;
    if (!context_of(context_json, context_json_len, context)) return budcore_error_last()->code;
    return render_into(out, tmpl->compiled, context, native);
  });
}

extern "C" void budcore_template_free(budcore_template* tmpl) { delete tmpl; }
