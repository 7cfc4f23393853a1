// C ABI over the durable serverless request queue (budcore::serverless::DurableQueue over a
// store handle): JSON in, JSON out.
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "budcore/backend/queue_backend.hpp"
#include "budcore/c/serverless.h"
#include "budcore/core/clock.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/serverless/durable_queue.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "capi_internal.hpp"
#include "replay_options.hpp"
#include "store_handle.hpp"

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace serverless = budcore::serverless;
using core::Id;

// A Store the handle owns, seen through a shared_ptr that does not own it.
std::shared_ptr<budcore::backend::Store> borrowed(budcore_store* store) {
  return std::shared_ptr<budcore::backend::Store>(std::shared_ptr<budcore::backend::Store>(), store->store.get());
}

core::Value requests_doc(const std::vector<serverless::DurableRequest>& rows) {
  core::List list;
  for (const auto& r : rows) list.push_back(serverless::to_value(r));
  return core::Value::map({{"requests", core::Value(std::move(list))}});
}

}  // namespace

extern "C" int budcore_serverless_queue_enqueue(budcore_buf* out, budcore_store* store, const char* tenant,
                                                size_t tenant_len, const char* endpoint_doc, size_t endpoint_len,
                                                const char* submissions_json, size_t submissions_len) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view endpoint_text, subs_text;
    if (!capi::input_text(endpoint_doc, endpoint_len, "endpoint_doc", endpoint_text)) return budcore_error_last()->code;
    if (!capi::input_text(submissions_json, submissions_len, "submissions_json", subs_text)) {
      return budcore_error_last()->code;
    }
    auto doc = core::parse_document(endpoint_text);
    if (!doc) return capi::set_error(doc.error());
    auto endpoint = serverless::EndpointConfig::from_value(*doc);
    if (!endpoint) return capi::set_error(endpoint.error());
    auto subs_doc = core::parse_json(subs_text);
    if (!subs_doc) return capi::set_error(core::Error::invalid("submissions_json", {}, subs_doc.error().message));
    auto subs = serverless::submissions_from_value(*subs_doc, "submissions");
    if (!subs) return capi::set_error(subs.error());
    budcore::backend::StoreQueueBackend backend(borrowed(store), tid);
    serverless::DurableQueue q(std::move(*endpoint), backend, core::system_clock());
    auto results = q.enqueue(*subs);
    if (!results) return capi::set_error(results.error());
    core::List list;
    for (const auto& r : *results) list.push_back(serverless::to_value(r));
    return capi::fill_buf(out, core::to_json(core::Value::map({{"results", core::Value(std::move(list))}})));
  });
}

extern "C" int budcore_serverless_queue_claim(budcore_buf* out, budcore_store* store, const char* tenant,
                                              size_t tenant_len, const char* endpoint, size_t endpoint_len,
                                              const char* worker, size_t worker_len, int64_t max,
                                              double lease_seconds) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view ep, w;
    if (!capi::input_text(endpoint, endpoint_len, "endpoint", ep)) return budcore_error_last()->code;
    if (!capi::input_text(worker, worker_len, "worker", w)) return budcore_error_last()->code;
    auto lease = core::Duration::from_seconds(lease_seconds);
    if (!lease || *lease <= core::Duration()) {
      return capi::set_error(core::Error::invalid("lease_seconds", core::format_json_float(lease_seconds), "must be a positive number of seconds"));
    }
    auto rows = store->store->claim_serverless_requests(tid, ep, w, max, *lease);
    if (!rows) return capi::set_error(rows.error());
    return capi::fill_buf(out, core::to_json(requests_doc(*rows)));
  });
}

extern "C" int budcore_serverless_queue_finish(budcore_buf* out, budcore_store* store, const char* tenant,
                                               size_t tenant_len, const char* reports_json, size_t reports_len) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(reports_json, reports_len, "reports_json", text)) return budcore_error_last()->code;
    auto doc = core::parse_json(text);
    if (!doc) return capi::set_error(core::Error::invalid("reports_json", {}, doc.error().message));
    auto reports = serverless::reports_from_value(*doc, "reports");
    if (!reports) return capi::set_error(reports.error());
    auto done = store->store->finish_serverless_requests(tid, *reports);
    if (!done) return capi::set_error(done.error());
    core::List list;
    for (const auto& f : *done) {
      list.push_back(core::Value::map(
          {{"id", f.id}, {"ok", f.ok}, {"status", std::string(serverless::to_string(f.status))}}));
    }
    return capi::fill_buf(out, core::to_json(core::Value::map({{"results", core::Value(std::move(list))}})));
  });
}

extern "C" int budcore_serverless_queue_status(budcore_buf* out, budcore_store* store, const char* tenant,
                                               size_t tenant_len, const char* endpoint, size_t endpoint_len) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view ep;
    if (!capi::input_text(endpoint, endpoint_len, "endpoint", ep)) return budcore_error_last()->code;
    auto c = store->store->count_serverless_requests(tid, ep);
    if (!c) return capi::set_error(c.error());
    return capi::fill_buf(out, core::to_json(serverless::to_value(*c)));
  });
}

extern "C" int budcore_serverless_queue_list(budcore_buf* out, budcore_store* store, const char* tenant,
                                             size_t tenant_len, const char* endpoint, size_t endpoint_len,
                                             const char* options_json, size_t options_len) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view ep, opts;
    if (!capi::input_text(endpoint, endpoint_len, "endpoint", ep)) return budcore_error_last()->code;
    if (!capi::input_text(options_json, options_len, "options_json", opts)) return budcore_error_last()->code;
    std::vector<serverless::QueueStatus> statuses;
    std::int64_t after = 0, limit = 1000;
    if (!opts.empty()) {
      static constexpr std::array<std::string_view, 3> kKeys = {"statuses", "after", "limit"};
      auto doc = capi::options_object(opts, kKeys);
      if (!doc) return capi::set_error(doc.error());
      if (const core::Value* s = doc->find("statuses")) {
        if (!s->is_list()) return capi::set_error(core::Error::invalid("options.statuses", core::to_json(*s), "must be a list"));
        for (std::size_t i = 0; i < s->as_list().size(); ++i) {
          const core::Value& v = s->as_list()[i];
          const std::string f = "options.statuses[" + std::to_string(i) + "]";
          if (!v.is_string()) return capi::set_error(core::Error::invalid(f, core::to_json(v), "must be a string"));
          auto st = serverless::parse_queue_status(v.as_string());
          if (!st) {
            core::Error e = st.error();
            e.field = f;
            return capi::set_error(e);
          }
          statuses.push_back(*st);
        }
      }
      for (auto [key, target] : {std::pair<const char*, std::int64_t*>{"after", &after}, {"limit", &limit}}) {
        if (const core::Value* v = doc->find(key)) {
          if (!v->is_int()) {
            return capi::set_error(core::Error::invalid(std::string("options.") + key, core::to_json(*v), "must be an integer"));
          }
          *target = v->as_int();
        }
      }
      if (limit < 1 || limit > 10'000) {
        return capi::set_error(core::Error::invalid("options.limit", std::to_string(limit), "must be in [1, 10000]"));
      }
    }
    auto rows = store->store->list_serverless_requests(tid, ep, statuses, after, limit);
    if (!rows) return capi::set_error(rows.error());
    return capi::fill_buf(out, core::to_json(requests_doc(*rows)));
  });
}
