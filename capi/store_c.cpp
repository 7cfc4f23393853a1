// C ABI over budcore::backend::Store: an opaque handle owning the Store, JSON in and out.
#include <memory>

#include "budcore/backend/store.hpp"
#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/job/job.hpp"
#include "budcore/job/job_status.hpp"
#include "capi_internal.hpp"
#include "store_handle.hpp"

namespace {

namespace capi = budcore::capi;
using budcore::core::Id;


}  // namespace

bool budcore::capi::store_call_args(budcore_buf* out, const budcore_store* store, const char* tenant,
                                    size_t tenant_len, Id& tenant_id) {
  if (!capi::empty_out(out)) return false;
  if (store == nullptr || !store->store) {
    capi::set_error(BUDCORE_EINVALID, "store handle is NULL", "store");
    return false;
  }
  std::string_view text;
  if (!capi::input_text(tenant, tenant_len, "tenant", text)) return false;
  auto id = Id::parse_field(text, "tenant");
  if (!id) {
    capi::set_error(id.error());
    return false;
  }
  tenant_id = *id;
  return true;
}

extern "C" int budcore_store_open(budcore_store** out, const char* uri, size_t uri_len) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    *out = nullptr;
    std::string_view text;
    if (!capi::input_text(uri, uri_len, "uri", text)) return budcore_error_last()->code;
    auto store = budcore::backend::open_store(text);
    if (!store) return capi::set_error(store.error());
    *out = new budcore_store{std::move(*store)};
    return BUDCORE_OK;
  });
}

extern "C" void budcore_store_free(budcore_store* store) { delete store; }

extern "C" int budcore_store_job_submit(budcore_buf* out, budcore_store* store, const char* tenant, size_t tenant_len,
                                        const char* job_json, size_t job_len, const char* idempotency_key,
                                        size_t key_len) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view json, key;
    if (!capi::input_text(job_json, job_len, "job_json", json)) return budcore_error_last()->code;
    if (!capi::input_text(idempotency_key, key_len, "idempotency_key", key)) return budcore_error_last()->code;
    auto job = budcore::job::Job::from_json(json);
    if (!job) return capi::set_error(job.error());
    const std::string digest = key.empty() ? std::string() : budcore::backend::job_request_digest(*job, tid);
    auto r = store->store->create_job(tid, std::move(*job), key, digest);
    if (!r) return capi::set_error(r.error());
    return capi::fill_buf(out, budcore::core::to_json(budcore::backend::to_value(*r)));
  });
}

extern "C" int budcore_store_job_get(budcore_buf* out, const budcore_store* store, const char* tenant, size_t tenant_len,
                                     const char* id, size_t id_len) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(id, id_len, "id", text)) return budcore_error_last()->code;
    auto job_id = Id::parse_field(text, "id");
    if (!job_id) return capi::set_error(job_id.error());
    auto r = store->store->get_job(tid, *job_id);
    if (!r) return capi::set_error(r.error());
    return capi::fill_buf(out, budcore::core::to_json(budcore::backend::to_value(*r)));
  });
}

extern "C" int budcore_store_job_transition(budcore_buf* out, budcore_store* store, const char* tenant,
                                            size_t tenant_len, const char* id, size_t id_len, int64_t expected_version,
                                            const char* to, size_t to_len, const char* message, size_t message_len) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view id_text, to_text, message_text;
    if (!capi::input_text(id, id_len, "id", id_text) || !capi::input_text(to, to_len, "to", to_text) ||
        !capi::input_text(message, message_len, "message", message_text))
      return budcore_error_last()->code;
    auto job_id = Id::parse_field(id_text, "id");
    if (!job_id) return capi::set_error(job_id.error());
    auto status = budcore::job::parse_job_status(to_text);
    if (!status) return capi::set_error(budcore::core::Error(status.error()).at("to"));
    auto r = store->store->transition_job(tid, *job_id, expected_version, *status, message_text);
    if (!r) return capi::set_error(r.error());
    return capi::fill_buf(out, budcore::core::to_json(budcore::backend::to_value(*r)));
  });
}

extern "C" int budcore_store_job_list(budcore_buf* out, const budcore_store* store, const char* tenant, size_t tenant_len,
                                      const char* query_json, size_t query_len) {
  return capi::guard([&]() -> int {
    Id tid;
    if (!capi::store_call_args(out, store, tenant, tenant_len, tid)) return budcore_error_last()->code;
    std::string_view text;
    if (!capi::input_text(query_json, query_len, "query_json", text)) return budcore_error_last()->code;
    budcore::core::Value doc;
    if (!text.empty()) {
      auto parsed = budcore::core::parse_json(text);
      if (!parsed) {
        auto e = parsed.error();
        if (e.field.empty()) e.field = "query_json";
        return capi::set_error(e);
      }
      doc = std::move(*parsed);
    }
    auto query = budcore::backend::parse_job_query(doc);
    if (!query) return capi::set_error(query.error());
    auto page = budcore::backend::run_job_query(*store->store, tid, *query);
    if (!page) return capi::set_error(page.error());
    return capi::fill_buf(out, budcore::core::to_json(*page));
  });
}
