// C ABI over budcore::companion: the Kueue companion's configuration check and its pure
// budget and window decisions.
#include <string>
#include <string_view>

#include "budcore/companion/companion_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "capi_internal.hpp"

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace companion = budcore::companion;

core::Result<companion::CompanionConfig> read_config(std::string_view text) {
  auto doc = core::parse_document(text);
  if (!doc) return std::move(doc).error();
  return companion::CompanionConfig::from_value(*doc, ".");
}

}  // namespace

extern "C" int budcore_kueue_companion_check_config(budcore_buf* out, const char* config_doc, size_t config_doc_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(config_doc, config_doc_len, "config_doc", text)) return budcore_error_last()->code;
    auto cfg = read_config(text);
    if (!cfg) return capi::set_error(cfg.error());
    return capi::fill_buf(out, core::to_json(companion::config_summary(*cfg)));
  });
}

extern "C" int budcore_kueue_companion_decide(budcore_buf* out, const char* config_doc, size_t config_doc_len,
                                              const char* request_json, size_t request_json_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view config_text, request_text;
    if (!capi::input_text(config_doc, config_doc_len, "config_doc", config_text)) return budcore_error_last()->code;
    if (!capi::input_text(request_json, request_json_len, "request_json", request_text)) return budcore_error_last()->code;
    auto cfg = read_config(config_text);
    if (!cfg) return capi::set_error(cfg.error());
    auto req = core::parse_document(request_text);
    if (!req) return capi::set_error(req.error());
    auto doc = companion::decide_request(*cfg, *req);
    if (!doc) return capi::set_error(std::move(doc).error().at("request_json"));
    return capi::fill_buf(out, core::to_json(*doc));
  });
}
