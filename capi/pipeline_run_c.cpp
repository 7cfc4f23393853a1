// C ABI over budcore::pipeline::rehearse: a registry of C callbacks for FUNCTION steps and a
// rehearsed run, JSON in and out.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/pipeline/rehearsal.hpp"
#include "capi_internal.hpp"

struct budcore_pipeline_function_registry {
  budcore::pipeline::FunctionRegistry registry;
};

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace pipeline = budcore::pipeline;

// A callback that returned BUDCORE_EUSER stops the whole run: what budcore_pipeline_run on this
// thread learns of it (callbacks run synchronously on the caller's thread).
struct RunAbort {
  bool aborted = false;
  std::string message, step;
};
thread_local RunAbort* current_abort = nullptr;

// Halts the engine at its next state change once a callback has aborted the run.
class AbortSink final : public pipeline::StateSink {
 public:
  explicit AbortSink(const RunAbort& abort) : abort_(abort) {}
  core::Status save(const pipeline::Transition&, const pipeline::RunState&) override {
    if (abort_.aborted) return core::Error::make(core::ErrorCode::Internal, abort_.message, abort_.step);
    return {};
  }

 private:
  const RunAbort& abort_;
};

// Adapts a C callback to a StepFunction: JSON text across, its `out` buf back. The payload is
// shared by the registry's copies and released (free_payload) with the last of them.
class CallbackFunction {
 public:
  CallbackFunction(std::string name, budcore_step_function callback, std::shared_ptr<void> payload)
      : name_(std::move(name)), callback_(callback), payload_(std::move(payload)) {}

  core::Result<core::Value> operator()(const core::Value& args, const pipeline::FunctionCall& call) const {
    std::string args_json = core::to_json(args.is_null() ? core::Value(core::Map{}) : args);
    std::string step_id(call.step_id);
    budcore_buf out = BUDCORE_BUF_INIT;
    int rc = callback_(args_json.c_str(), args_json.size(), call.attempt, step_id.c_str(), &out, payload_.get());
    std::string text = out.ptr != nullptr ? std::string(out.ptr, out.size) : std::string();
    budcore_buf_dispose(&out);
    std::string_view checked;
    bool utf8 = capi::input_text(text.data(), text.size(), "out", checked);
    if (rc == BUDCORE_EUSER && current_abort != nullptr) {
      current_abort->aborted = true;
      current_abort->step = step_id;
      current_abort->message = utf8 && !text.empty() ? text : "function '" + name_ + "' aborted the run at step " + step_id;
      return core::Error::make(core::ErrorCode::Invalid, current_abort->message);
    }
    if (rc != 0) {
      if (!utf8) return core::Error::make(core::ErrorCode::Invalid, "function '" + name_ + "' failed with a message that is not UTF-8");
      if (text.empty()) text = "function '" + name_ + "' failed with code " + std::to_string(rc);
      return core::Error::make(core::ErrorCode::Invalid, std::move(text));
    }
    if (!utf8) return core::Error::make(core::ErrorCode::Invalid, "function '" + name_ + "' returned text that is not UTF-8");
    if (text.empty()) return core::Value(core::Map{});
    auto parsed = core::parse_json(text);
    if (!parsed) return core::Error::make(core::ErrorCode::Invalid, "function '" + name_ + "' returned invalid JSON: " + parsed.error().message);
    return std::move(*parsed);
  }

 private:
  std::string name_;
  budcore_step_function callback_;
  std::shared_ptr<void> payload_;
};

}  // namespace

extern "C" int budcore_buf_set(budcore_buf* buf, const char* text, size_t len) {
  return capi::guard([&]() -> int {
    if (buf == nullptr) return capi::set_error(BUDCORE_EINVALID, "buffer is NULL", "buf");
    if (text == nullptr && len != 0) return capi::set_error(BUDCORE_EINVALID, "text pointer is NULL but its length is not 0", "text");
    budcore_buf copy = BUDCORE_BUF_INIT;
    int rc = capi::fill_buf(&copy, std::string_view(text == nullptr ? "" : text, len));
    if (rc != BUDCORE_OK) return rc;
    budcore_buf_dispose(buf);
    *buf = copy;
    return BUDCORE_OK;
  });
}

extern "C" int budcore_pipeline_function_registry_new(budcore_pipeline_function_registry** out) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    *out = nullptr;
    *out = new budcore_pipeline_function_registry{};
    return BUDCORE_OK;
  });
}

extern "C" void budcore_pipeline_function_registry_free(budcore_pipeline_function_registry* registry) { delete registry; }

extern "C" int budcore_pipeline_function_registry_add(budcore_pipeline_function_registry* registry, const char* name,
                                                      size_t name_len, budcore_step_function callback, void* user_data,
                                                      budcore_free_payload free_user_data) {
  return capi::guard([&]() -> int {
    if (registry == nullptr) return capi::set_error(BUDCORE_EINVALID, "registry handle is NULL", "registry");
    std::string_view text;
    if (!capi::input_text(name, name_len, "name", text)) return budcore_error_last()->code;
    if (text.empty()) return capi::set_error(BUDCORE_EINVALID, "a function name must not be empty", "name");
    if (callback == nullptr) return capi::set_error(BUDCORE_EINVALID, "callback is NULL", "callback");
    std::string key(text);
    // Checked first: on failure the payload stays the caller's, so nothing may free it.
    if (registry->registry.find(key) != nullptr)
      return capi::set_error(core::Error{core::ErrorCode::AlreadyExists, "function '" + key + "' is already registered", "name", key});
    std::shared_ptr<void> payload(user_data, [free_user_data](void* p) {
      if (free_user_data != nullptr) free_user_data(p);
    });
    auto st = registry->registry.add(key, CallbackFunction(key, callback, std::move(payload)));
    if (!st) return capi::set_error(st.error());
    return BUDCORE_OK;
  });
}

extern "C" size_t budcore_pipeline_function_registry_size(const budcore_pipeline_function_registry* registry) {
  return registry == nullptr ? 0 : registry->registry.size();
}

extern "C" int budcore_pipeline_run(budcore_buf* out, const char* document, size_t document_len,
                                    const char* options_json, size_t options_len,
                                    const budcore_pipeline_function_registry* functions) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return budcore_error_last()->code;
    std::string_view doc_text, options_text;
    if (!capi::input_text(document, document_len, "document", doc_text)) return budcore_error_last()->code;
    if (!capi::input_text(options_json, options_len, "options_json", options_text)) return budcore_error_last()->code;
    auto doc = core::parse_document(doc_text);
    if (!doc) return capi::set_error(doc.error());
    core::Value options_value;
    if (!options_text.empty()) {
      auto parsed = core::parse_json(options_text);
      if (!parsed) return capi::set_error(parsed.error().at("options"));
      options_value = std::move(*parsed);
    }
    auto options = pipeline::rehearsal_options_from_value(options_value, "options");
    if (!options) return capi::set_error(options.error());
    RunAbort abort;
    AbortSink abort_sink(abort);
    struct Scope {  // restores the outer run's state (a callback may run a pipeline too), even on throw
      RunAbort* outer;
      ~Scope() { current_abort = outer; }
    } scope{std::exchange(current_abort, &abort)};
    auto result = pipeline::rehearse(*doc, *options, functions != nullptr ? &functions->registry : nullptr, &abort_sink);
    // Callbacks may have left an error on this thread; only this call's outcome counts.
    capi::clear_error();
    if (abort.aborted) return capi::set_error(BUDCORE_EUSER, abort.message, abort.step);
    if (!result) return capi::set_error(result.error());
    return capi::fill_buf(out, core::to_json(result->to_value()));
  });
}

// The names before the layer prefix: released symbols, kept as aliases.
extern "C" int budcore_function_registry_new(budcore_function_registry** out) {
  return budcore_pipeline_function_registry_new(out);
}

extern "C" void budcore_function_registry_free(budcore_function_registry* registry) {
  budcore_pipeline_function_registry_free(registry);
}

extern "C" int budcore_function_registry_add(budcore_function_registry* registry, const char* name, size_t name_len,
                                             budcore_step_function callback, void* user_data,
                                             budcore_free_payload free_user_data) {
  return budcore_pipeline_function_registry_add(registry, name, name_len, callback, user_data, free_user_data);
}

extern "C" size_t budcore_function_registry_size(const budcore_function_registry* registry) {
  return budcore_pipeline_function_registry_size(registry);
}
