// C ABI over budcore::platform::ServerlessEndpoint: an endpoint whose workers are jobs on a
// platform handle. JSON in, JSON out.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/c/serverless.h"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/platform/serverless_endpoint.hpp"
#include "budcore/serverless/durable_queue.hpp"
#include "capi_internal.hpp"
#include "platform_handle.hpp"
#include "replay_options.hpp"

struct budcore_serverless_endpoint {
  std::unique_ptr<budcore::platform::ServerlessEndpoint> endpoint;
};

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace platform = budcore::platform;
namespace serverless = budcore::serverless;

int last_code() { return budcore_error_last()->code; }

platform::ServerlessEndpoint* handle(budcore_serverless_endpoint* e) {
  if (e == nullptr || !e->endpoint) {
    capi::set_error(BUDCORE_EINVALID, "endpoint handle is NULL", "endpoint");
    return nullptr;
  }
  return e->endpoint.get();
}

core::Result<platform::EndpointOptions> options_of(std::string_view text) {
  platform::EndpointOptions o;
  if (text.empty()) return o;
  static constexpr std::array<std::string_view, 2> kKeys = {"worker_priority", "image"};
  BUDCORE_TRY_ASSIGN(core::Value doc, capi::options_object(text, kKeys));
  if (const core::Value* p = doc.find("worker_priority")) {
    if (!p->is_string()) return core::Error::invalid("options.worker_priority", core::to_json(*p), "must be a string");
    auto prio = budcore::job::parse_job_priority(p->as_string());
    if (!prio) return core::Error(prio.error()).at("options.worker_priority");
    o.worker_priority = *prio;
  }
  if (const core::Value* i = doc.find("image")) {
    if (!i->is_string()) return core::Error::invalid("options.image", core::to_json(*i), "must be a string");
    o.image = i->as_string();
  }
  return o;
}

core::Value assignments_doc(const std::vector<serverless::Assignment>& as) {
  core::List list;
  for (const auto& a : as) {
    list.push_back(core::Value::map(
        {{"request", core::Value(static_cast<long long>(a.request))},
         {"worker", core::Value(static_cast<long long>(a.worker))},
         {"placement", core::Value(a.placement == serverless::Placement::Warm ? "warm" : "preempted")},
         {"preempted", core::Value(static_cast<long long>(a.preempted))}}));
  }
  return core::Value(std::move(list));
}

}  // namespace

extern "C" int budcore_serverless_endpoint_open(budcore_serverless_endpoint** out, budcore_platform* p,
                                                const budcore_caller* owner, const char* endpoint_doc,
                                                size_t endpoint_len, const char* options_json, size_t options_len) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "out is NULL", "out");
    *out = nullptr;
    if (p == nullptr || !p->platform) return capi::set_error(BUDCORE_EINVALID, "platform handle is NULL", "platform");
    platform::CallContext ctx;
    if (!capi::caller_of(owner, ctx)) return last_code();
    std::string_view ep_text, opts_text;
    if (!capi::input_text(endpoint_doc, endpoint_len, "endpoint_doc", ep_text) ||
        !capi::input_text(options_json, options_len, "options_json", opts_text))
      return last_code();
    auto config = serverless::EndpointConfig::from_text(ep_text);
    if (!config) return capi::set_error(config.error());
    auto options = options_of(opts_text);
    if (!options) return capi::set_error(options.error());
    auto ep = platform::ServerlessEndpoint::open(*p->platform, ctx, std::move(*config), std::move(*options));
    if (!ep) return capi::set_error(ep.error());
    *out = new budcore_serverless_endpoint{std::move(*ep)};
    return BUDCORE_OK;
  });
}

extern "C" void budcore_serverless_endpoint_free(budcore_serverless_endpoint* e) { delete e; }

extern "C" int budcore_serverless_endpoint_scale(budcore_buf* out, budcore_serverless_endpoint* e, int64_t desired) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return last_code();
    platform::ServerlessEndpoint* ep = handle(e);
    if (ep == nullptr) return last_code();
    if (auto st = ep->sync(); !st) return capi::set_error(st.error());
    if (desired >= 0) {
      auto n = ep->scale_to(static_cast<int>(std::min<int64_t>(desired, serverless::EndpointConfig::kMaxWorkers)));
      if (!n) return capi::set_error(n.error());
    }
    return capi::fill_buf(out, core::to_json(ep->status().to_value()));
  });
}

extern "C" int budcore_serverless_endpoint_enqueue(budcore_buf* out, budcore_serverless_endpoint* e,
                                                   const char* submissions_json, size_t submissions_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return last_code();
    platform::ServerlessEndpoint* ep = handle(e);
    if (ep == nullptr) return last_code();
    std::string_view text;
    if (!capi::input_text(submissions_json, submissions_len, "submissions_json", text)) return last_code();
    auto doc = core::parse_json(text);
    if (!doc) return capi::set_error(core::Error::invalid("submissions_json", {}, doc.error().message));
    auto subs = serverless::submissions_from_value(*doc, "submissions");
    if (!subs) return capi::set_error(subs.error());
    core::List results;
    for (const auto& s : *subs) results.push_back(serverless::to_value(ep->enqueue(s)));
    auto placed = ep->dispatch();
    if (!placed) return capi::set_error(placed.error());
    return capi::fill_buf(out, core::to_json(core::Value::map(
                                   {{"results", core::Value(std::move(results))}, {"assignments", assignments_doc(*placed)}})));
  });
}

extern "C" int budcore_serverless_endpoint_finish(budcore_buf* out, budcore_serverless_endpoint* e, uint64_t request,
                                                  const char* reason, size_t reason_len) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return last_code();
    platform::ServerlessEndpoint* ep = handle(e);
    if (ep == nullptr) return last_code();
    std::string_view why;
    if (!capi::input_text(reason, reason_len, "reason", why)) return last_code();
    auto st = why.empty() ? ep->complete(request) : ep->fail(request, std::string(why));
    if (!st) return capi::set_error(st.error());
    auto placed = ep->dispatch();
    if (!placed) return capi::set_error(placed.error());
    return capi::fill_buf(out, core::to_json(core::Value::map({{"assignments", assignments_doc(*placed)}})));
  });
}

extern "C" int budcore_serverless_endpoint_meter(budcore_buf* out, budcore_serverless_endpoint* e) {
  return capi::guard([&]() -> int {
    if (!capi::empty_out(out)) return last_code();
    platform::ServerlessEndpoint* ep = handle(e);
    if (ep == nullptr) return last_code();
    auto rows = ep->meter();
    if (!rows) return capi::set_error(rows.error());
    core::List list;
    for (const auto& u : *rows) list.push_back(u.to_value());
    return capi::fill_buf(out, core::to_json(core::Value::map({{"usage", core::Value(std::move(list))}})));
  });
}
