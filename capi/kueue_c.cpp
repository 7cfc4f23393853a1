// C ABI over budcore::companion: the Kueue companion's configuration check, its pure budget and
// window decisions, and the controller (companion::Runner, the path the command runs).
#include <atomic>
#include <mutex>
#include <string>
#include <string_view>

#include "budcore/companion/companion_json.hpp"
#include "budcore/companion/runner.hpp"
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

struct budcore_kueue_companion {
  std::unique_ptr<companion::Runner> runner;
};

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

extern "C" int budcore_kueue_companion_open(budcore_kueue_companion** out, const char* config_doc, size_t config_doc_len,
                                            const char* kubeconfig_path, size_t kubeconfig_path_len,
                                            const char* store_uri, size_t store_uri_len) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    std::string_view config_text, kubeconfig, store;
    if (!capi::input_text(config_doc, config_doc_len, "config_doc", config_text) ||
        !capi::input_text(kubeconfig_path, kubeconfig_path_len, "kubeconfig_path", kubeconfig) ||
        !capi::input_text(store_uri, store_uri_len, "store_uri", store))
      return budcore_error_last()->code;
    auto cfg = read_config(config_text);
    if (!cfg) return capi::set_error(cfg.error());
    companion::RunnerOptions o;
    o.kubeconfig = std::string(kubeconfig);
    o.store = std::string(store);
    o.kubeconfig_field = "kubeconfig_path";
    o.store_field = "store_uri";
    auto runner = companion::Runner::open(std::move(*cfg), std::move(o));
    if (!runner) return capi::set_error(runner.error());
    *out = new budcore_kueue_companion{std::move(*runner)};
    return BUDCORE_OK;
  });
}

extern "C" int budcore_kueue_companion_sync_once(budcore_buf* out, budcore_kueue_companion* c) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    if (c == nullptr) return capi::set_error(BUDCORE_EINVALID, "companion handle is NULL", "companion");
    auto pass = c->runner->sync_once();
    if (!pass) return capi::set_error(pass.error());
    return capi::fill_buf(out, core::to_json(companion::to_value(*pass)));
  });
}

extern "C" int budcore_kueue_companion_run(budcore_kueue_companion* c, budcore_kueue_companion_event_cb callback,
                                           void* payload) {
  return capi::guard([&]() -> int {
    if (c == nullptr) return capi::set_error(BUDCORE_EINVALID, "companion handle is NULL", "companion");
    // The decisions arrive on this thread and retried errors also on the Lease renewer's: one
    // call at a time, and none after the callback asked to stop.
    std::mutex mu;
    std::atomic<bool> stopped_by_callback{false};
    auto deliver = [&](const core::Value& event) {
      if (callback == nullptr) return;
      std::lock_guard lock(mu);
      if (stopped_by_callback.load()) return;
      std::string json = core::to_json(event);
      if (callback(json.c_str(), json.size(), payload) != 0) {
        stopped_by_callback.store(true);
        c->runner->stop();
      }
    };
    c->runner->run(
        [&](const companion::Written& w) {
          core::Value v = companion::to_value(w);
          v.mutable_map().set("event", "decision");
          deliver(v);
        },
        [&](const core::Error& e) { deliver(core::Map{{"event", "retrying"}, {"error", core::to_value(e)}}); });
    if (stopped_by_callback.load())
      return capi::set_error(BUDCORE_EUSER, "the event callback stopped the companion", "callback");
    return BUDCORE_OK;
  });
}

extern "C" void budcore_kueue_companion_stop(budcore_kueue_companion* c) {
  if (c != nullptr) c->runner->stop();
}

extern "C" void budcore_kueue_companion_free(budcore_kueue_companion* c) { delete c; }
