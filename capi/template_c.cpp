#include "budcore/c/template.h"

#include "budcore/core/json.hpp"
#include "budcore/templates/template.hpp"
#include "capi_internal.hpp"

extern "C" int budcore_template_render(budcore_buf* out, const char* tmpl, size_t tmpl_len,
                                       const char* context_json, size_t ctx_len, int native) {
  namespace bc = budcore;
  return bc::capi::guard([&] {
    if (!bc::capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view text, ctx_text;
    if (!bc::capi::input_text(tmpl, tmpl_len, "template", text)) return budcore_error_last()->code;
    if (!bc::capi::input_text(context_json, ctx_len, "context", ctx_text)) return budcore_error_last()->code;
    bc::core::Value context{bc::core::Map{}};
    if (!ctx_text.empty()) {
      auto parsed = bc::core::parse_json(ctx_text);
      if (!parsed) {
        bc::core::Error e = parsed.error();
        e.at("context");
        return bc::capi::set_error(e);
      }
      if (!parsed->is_map()) return bc::capi::set_error(BUDCORE_EINVALID, "context must be a JSON object", "context");
      context = std::move(*parsed);
    }
    auto compiled = bc::templates::Template::compile(text);
    if (!compiled) return bc::capi::set_error(compiled.error());
    if (native) {
      auto v = compiled->render_native(context);
      if (!v) return bc::capi::set_error(v.error());
      return bc::capi::fill_buf(out, bc::core::to_json(*v));
    }
    auto s = compiled->render(context);
    if (!s) return bc::capi::set_error(s.error());
    return bc::capi::fill_buf(out, *s);
  });
}
