// C ABI over budcore::platform::Platform: an opaque, thread-safe handle; JSON in and out.
#include <cmath>
#include <memory>

#include "budcore/backend/store_json.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/platform/platform_json.hpp"
#include "budcore/platform/scenario.hpp"
#include "budcore/schedule/estimate.hpp"
#include "capi_internal.hpp"
#include "platform_handle.hpp"

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace platform = budcore::platform;
using core::Id;

// The handle's Platform (const handles still lock inside: every member is thread-safe).
platform::Platform* handle(const budcore_platform* p) {
  if (p == nullptr || !p->platform) {
    capi::set_error(BUDCORE_EINVALID, "platform handle is NULL", "platform");
    return nullptr;
  }
  return p->platform.get();
}

using capi::empty_out;

bool text(const char* s, std::size_t len, std::string_view field, std::string_view& view) {
  return capi::input_text(s, len, field, view);
}

using capi::caller_of;

bool uuid(const char* s, std::size_t len, std::string_view field, Id& out) {
  std::string_view v;
  if (!text(s, len, field, v)) return false;
  auto id = Id::parse_field(v, field);
  if (!id) {
    capi::set_error(id.error());
    return false;
  }
  out = *id;
  return true;
}

bool document(const char* s, std::size_t len, std::string_view field, core::Value& out, bool optional = false) {
  std::string_view v;
  if (!text(s, len, field, v)) return false;
  if (v.empty() && optional) return true;
  // Every byte of the document is read: a NUL would hide what follows it from one reader and
  // not another; and a key given twice is refused, not silently replaced.
  if (auto nul = v.find('\0'); nul != std::string_view::npos) {
    capi::set_error(core::Error::invalid(std::string(field), "byte " + std::to_string(nul), "a document holds no NUL byte"));
    return false;
  }
  auto doc = core::parse_document(v, core::ParseOptions{.unique_keys = true});
  if (!doc) {
    core::Error e = doc.error();
    if (e.field.empty()) e.field = std::string(field);
    capi::set_error(e);
    return false;
  }
  out = std::move(*doc);
  return true;
}

int last_code() { return budcore_error_last()->code; }

int put(budcore_buf* out, const core::Result<core::Value>& r) {
  if (!r) return capi::set_error(r.error());
  return capi::fill_buf(out, core::to_json(*r));
}

// The common prologue of a call that names its caller: out, handle, caller.
template <class Fn>
int on_caller(budcore_buf* out, const budcore_platform* p, const budcore_caller* c, Fn&& fn) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    platform::CallContext ctx;
    if (!caller_of(c, ctx)) return last_code();
    return put(out, fn(*pl, ctx));
  });
}

// The common prologue of a call on a job: out, handle, caller, job id.
template <class Fn>
int on_job(budcore_buf* out, const budcore_platform* p, const budcore_caller* c, const char* id, std::size_t id_len,
           Fn&& fn) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    platform::CallContext ctx;
    Id job;
    if (!caller_of(c, ctx) || !uuid(id, id_len, "id", job)) return last_code();
    return put(out, fn(*pl, ctx, job));
  });
}

core::Result<core::Value> record(const core::Result<budcore::backend::JobRecord>& r) {
  if (!r) return r.error();
  return budcore::backend::to_value(*r);
}

}  // namespace

namespace budcore::capi {
bool caller_of(const budcore_caller* c, platform::CallContext& ctx) {
  if (c == nullptr) {
    set_error(BUDCORE_EINVALID, "caller is NULL", "caller");
    return false;
  }
  if (!known_version(c->version, BUDCORE_CALLER_VERSION, "caller.version")) return false;
  std::string_view tenant, principal, request;
  if (!input_text(c->tenant, c->tenant_len, "caller.tenant", tenant) ||
      !input_text(c->principal, c->principal_len, "caller.principal", principal) ||
      !input_text(c->request_id, c->request_id_len, "caller.request_id", request))
    return false;
  auto id = core::Id::parse_field(tenant, "caller.tenant");
  if (!id) {
    set_error(id.error());
    return false;
  }
  ctx = platform::CallContext::for_tenant(*id, std::string(principal), std::string(request));
  return true;
}
}  // namespace budcore::capi

extern "C" int budcore_platform_open(budcore_platform** out, const char* config, size_t config_len) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    std::string_view v;
    if (!text(config, config_len, "config", v)) return last_code();
    auto cfg = platform::PlatformConfig::parse(v);
    if (!cfg) return capi::set_error(cfg.error());
    auto p = platform::Platform::open(std::move(*cfg));
    if (!p) return capi::set_error(p.error());
    *out = new budcore_platform{std::move(*p)};
    return BUDCORE_OK;
  });
}

extern "C" int budcore_platform_open_embedded(budcore_platform** out, const char* dir, size_t dir_len) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    std::string_view v;
    if (!text(dir, dir_len, "dir", v)) return last_code();
    if (v.empty()) return capi::set_error(BUDCORE_EINVALID, "a directory is needed", "dir");
    auto p = platform::Platform::open_embedded(std::string(v));
    if (!p) return capi::set_error(p.error());
    *out = new budcore_platform{std::move(*p)};
    return BUDCORE_OK;
  });
}

extern "C" void budcore_platform_free(budcore_platform* p) { delete p; }

extern "C" int budcore_platform_submit(budcore_buf* out, budcore_platform* p, const budcore_caller* c, const char* job_json,
                                       size_t job_len, const char* key, size_t key_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    platform::CallContext ctx;
    core::Value doc;
    std::string_view k;
    if (!caller_of(c, ctx) || !document(job_json, job_len, "job_json", doc) || !text(key, key_len, "idempotency_key", k))
      return last_code();
    if (doc.is_list() || (doc.is_map() && doc.find("jobs"))) {
      auto r = pl->submit_batch_document(ctx, doc, k);
      if (!r) return capi::set_error(r.error());
      return capi::fill_buf(out, core::to_json(platform::to_value(*r)));
    }
    auto r = pl->submit_document(ctx, doc, k);
    if (!r) return capi::set_error(r.error());
    return capi::fill_buf(out, core::to_json(platform::to_value(*r)));
  });
}

extern "C" int budcore_platform_get(budcore_buf* out, const budcore_platform* p, const budcore_caller* c, const char* id,
                                    size_t id_len) {
  return on_job(out, p, c, id, id_len, [](auto& pl, auto& ctx, auto& job) { return record(pl.get_job(ctx, job)); });
}

extern "C" int budcore_platform_list(budcore_buf* out, const budcore_platform* p, const budcore_caller* c,
                                     const char* query_json, size_t query_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    platform::CallContext ctx;
    core::Value doc;
    if (!caller_of(c, ctx) || !document(query_json, query_len, "query_json", doc, true)) return last_code();
    auto q = budcore::backend::parse_job_query(doc);
    if (!q) return capi::set_error(q.error());
    auto page = pl->list_jobs(ctx, q->filter, q->page);
    if (!page) return capi::set_error(page.error());
    return capi::fill_buf(out, core::to_json(budcore::backend::to_value(*page)));
  });
}

extern "C" int budcore_platform_schedule(budcore_buf* out, const budcore_platform* p, const budcore_caller* c) {
  return on_caller(out, p, c, [](auto& pl, auto& ctx) -> core::Result<core::Value> {
    BUDCORE_TRY_ASSIGN(auto timeline, pl.schedule(ctx));
    return budcore::schedule::to_value(timeline, {-1, true});
  });
}

extern "C" int budcore_platform_gpu_defrag(budcore_buf* out, budcore_platform* p, const budcore_caller* c, const char* id,
                                          size_t id_len) {
  return on_job(out, p, c, id, id_len, [](auto& pl, auto& ctx, auto& job) { return pl.gpu_defrag(ctx, job); });
}

extern "C" int budcore_platform_gpu_defrag_apply(budcore_buf* out, budcore_platform* p, const budcore_caller* c, const char* id,
                                                size_t id_len, const char* plan_json, size_t plan_json_len) {
  return capi::guard([&]() -> int {
    core::Value plan;
    if (!document(plan_json, plan_json_len, "plan_json", plan, true)) return last_code();
    return on_job(out, p, c, id, id_len, [&](auto& pl, auto& ctx, auto& job) { return pl.gpu_defrag_apply(ctx, job, plan); });
  });
}

extern "C" int budcore_platform_cancel(budcore_buf* out, budcore_platform* p, const budcore_caller* c, const char* id,
                                       size_t id_len, const char* reason, size_t reason_len) {
  std::string_view why;
  return on_job(out, p, c, id, id_len, [&](auto& pl, auto& ctx, auto& job) -> core::Result<core::Value> {
    if (!text(reason, reason_len, "reason", why)) return core::Error::invalid("reason", "", budcore_error_last()->message);
    return record(pl.cancel_job(ctx, job, why));
  });
}

extern "C" int budcore_platform_retry(budcore_buf* out, budcore_platform* p, const budcore_caller* c, const char* id,
                                      size_t id_len) {
  return on_job(out, p, c, id, id_len, [](auto& pl, auto& ctx, auto& job) { return record(pl.retry_job(ctx, job)); });
}

extern "C" int budcore_platform_set_priority(budcore_buf* out, budcore_platform* p, const budcore_caller* c,
                                             const char* id, size_t id_len, const char* priority, size_t priority_len) {
  return on_job(out, p, c, id, id_len, [&](auto& pl, auto& ctx, auto& job) -> core::Result<core::Value> {
    std::string_view v;
    if (!text(priority, priority_len, "priority", v)) return core::Error::invalid("priority", "", "is not valid UTF-8");
    auto pr = budcore::job::parse_job_priority(v);
    if (!pr) return core::Error(pr.error()).at("priority");
    return record(pl.set_priority(ctx, job, *pr));
  });
}

extern "C" int budcore_platform_preempt(budcore_buf* out, budcore_platform* p, const budcore_caller* c, const char* id,
                                        size_t id_len, const char* reason, size_t reason_len) {
  return on_job(out, p, c, id, id_len, [&](auto& pl, auto& ctx, auto& job) -> core::Result<core::Value> {
    std::string_view why;
    if (!text(reason, reason_len, "reason", why)) return core::Error::invalid("reason", "", "is not valid UTF-8");
    return record(pl.preempt_job(ctx, job, why));
  });
}

extern "C" int budcore_platform_events(budcore_buf* out, const budcore_platform* p, const budcore_caller* c,
                                       int64_t since, size_t limit) {
  return on_caller(out, p, c, [&](auto& pl, auto& ctx) -> core::Result<core::Value> {
    BUDCORE_TRY_ASSIGN(auto page, pl.watch(ctx, since, limit));
    return platform::to_value(page);
  });
}

extern "C" int budcore_platform_watch(int64_t* out_last_seq, const budcore_platform* p, const budcore_caller* c,
                                      int64_t since, size_t limit, budcore_platform_event_cb callback, void* payload) {
  return capi::guard([&]() -> int {
    if (out_last_seq == nullptr) return capi::set_error(BUDCORE_EINVALID, "last-seq pointer is NULL", "out_last_seq");
    if (callback == nullptr) return capi::set_error(BUDCORE_EINVALID, "callback is NULL", "callback");
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    platform::CallContext ctx;
    if (!caller_of(c, ctx)) return last_code();
    auto page = pl->watch(ctx, since, limit);
    if (!page) return capi::set_error(page.error());
    std::int64_t last = since;
    for (const auto& e : page->events) {
      std::string json = core::to_json(platform::to_value(e));
      if (callback(json.c_str(), json.size(), payload) != 0) {
        *out_last_seq = last;
        return capi::set_error(BUDCORE_EUSER, "the event callback stopped the watch at seq " + std::to_string(e.seq),
                               "callback");
      }
      last = e.seq;
    }
    *out_last_seq = last;
    return BUDCORE_OK;
  });
}

extern "C" int budcore_platform_run_pipeline(budcore_buf* out, budcore_platform* p, const budcore_caller* c,
                                             const char* document_json, size_t document_len, const char* params_json,
                                             size_t params_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    platform::CallContext ctx;
    core::Value doc, params;
    if (!caller_of(c, ctx) || !document(document_json, document_len, "document_json", doc) ||
        !document(params_json, params_len, "params_json", params, true))
      return last_code();
    auto run = pl->run_pipeline(ctx, doc, params);
    if (!run) return capi::set_error(run.error());
    return capi::fill_buf(out, core::to_json(run->to_value()));
  });
}

extern "C" int budcore_platform_pipeline_run(budcore_buf* out, const budcore_platform* p, const budcore_caller* c,
                                             const char* id, size_t id_len) {
  return on_job(out, p, c, id, id_len, [](auto& pl, auto& ctx, auto& run) -> core::Result<core::Value> {
    auto r = pl.get_pipeline_run(ctx, run);
    if (!r) return r.error();
    return r->to_value();
  });
}

extern "C" int budcore_platform_cancel_pipeline_run(budcore_buf* out, budcore_platform* p, const budcore_caller* c,
                                                    const char* id, size_t id_len, const char* reason, size_t reason_len) {
  return on_job(out, p, c, id, id_len, [&](auto& pl, auto& ctx, auto& run) -> core::Result<core::Value> {
    std::string_view why;
    if (!text(reason, reason_len, "reason", why)) return core::Error::invalid("reason", "", "is not valid UTF-8");
    auto r = pl.cancel_pipeline_run(ctx, run, why.empty() ? "cancelled" : why);
    if (!r) return r.error();
    return r->to_value();
  });
}

extern "C" int budcore_platform_pump(budcore_platform* p) {
  return capi::guard([&]() -> int {
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    auto st = pl->pump();
    return st ? BUDCORE_OK : capi::set_error(st.error());
  });
}

extern "C" int budcore_platform_run(budcore_buf* out, budcore_platform* p, double seconds) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    if (std::isnan(seconds) || seconds > 366.0 * 86400)
      return capi::set_error(core::Error::invalid("seconds", std::to_string(seconds), "must be at most a year (31622400)"));
    if (seconds < 0) {
      auto r = pl->run_until_idle();
      if (!r) return capi::set_error(r.error());
    } else {
      auto st = pl->run_until(pl->now() + core::Duration::nanoseconds(static_cast<std::int64_t>(seconds * 1e9)));
      if (!st) return capi::set_error(st.error());
    }
    return capi::fill_buf(out, core::to_json(core::Value::map({{"now", pl->now().to_string()}})));
  });
}

extern "C" int budcore_platform_metrics(budcore_buf* out, const budcore_platform* p) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    return capi::fill_buf(out, pl->metrics());
  });
}

extern "C" int budcore_platform_ha_status(budcore_buf* out, const budcore_platform* p) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    auto s = pl->ha_status();
    if (!s) return capi::set_error(s.error());
    return capi::fill_buf(out, core::to_json(platform::to_value(*s)));
  });
}

extern "C" int budcore_platform_cluster(budcore_buf* out, const budcore_platform* p) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    auto snapshot = pl->cluster();
    return capi::fill_buf(out, core::to_json(platform::to_value(snapshot, pl->gpu_report())));
  });
}

extern "C" int budcore_platform_cluster_view(budcore_buf* out, budcore_platform* p, const budcore_caller* c) {
  return on_caller(out, p, c, [](auto& pl, auto& ctx) -> core::Result<core::Value> {
    BUDCORE_TRY_ASSIGN(auto view, pl.cluster(ctx));
    return platform::to_value(view, pl.gpu_report());
  });
}

extern "C" int budcore_platform_check(budcore_platform* p) {
  return capi::guard([&]() -> int {
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    auto st = pl->check_invariants();
    return st ? BUDCORE_OK : capi::set_error(st.error());
  });
}

extern "C" int budcore_platform_simulate(budcore_buf* out, const char* scenario, size_t scenario_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    std::string_view v;
    if (!text(scenario, scenario_len, "scenario", v)) return last_code();
    auto s = platform::Scenario::parse(v);
    if (!s) return capi::set_error(s.error());
    auto outcome = platform::simulate(*s);
    if (!outcome) return capi::set_error(outcome.error());
    return capi::fill_buf(out, core::to_json(outcome->to_value()));
  });
}

// ---- use-case deployments (Platform::deploy_usecase and its records) ------------------------

namespace {

core::Result<core::Value> deployment(const core::Result<budcore::usecase::DeploymentRecord>& r) {
  if (!r) return r.error();
  return r->to_value();
}

}  // namespace

extern "C" int budcore_platform_deploy_usecase(budcore_buf* out, budcore_platform* p, const budcore_caller* c,
                                               const char* template_ref, size_t template_ref_len,
                                               const char* params_json, size_t params_len) {
  return capi::guard([&]() -> int {
    if (!empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    platform::CallContext ctx;
    std::string_view ref;
    core::Value params = core::Value(core::Map{});
    if (!caller_of(c, ctx) || !text(template_ref, template_ref_len, "template", ref) ||
        !document(params_json, params_len, "params_json", params, true))
      return last_code();
    if (ref.empty()) return capi::set_error(core::Error::invalid("template", "", "a template id is required"));
    return put(out, deployment(pl->deploy_usecase(ctx, ref, params)));
  });
}

extern "C" int budcore_platform_deployment(budcore_buf* out, const budcore_platform* p, const budcore_caller* c,
                                           const char* id, size_t id_len) {
  return on_job(out, p, c, id, id_len,
                [](auto& pl, auto& ctx, auto& d) { return deployment(pl.get_deployment(ctx, d)); });
}

extern "C" int budcore_platform_deployments(budcore_buf* out, const budcore_platform* p, const budcore_caller* c) {
  return on_caller(out, p, c, [](auto& pl, auto& ctx) -> core::Result<core::Value> {
    BUDCORE_TRY_ASSIGN(auto list, pl.list_deployments(ctx));
    core::List items;
    for (const auto& r : list) items.push_back(r.to_value());
    return core::Value(std::move(items));
  });
}

extern "C" int budcore_platform_teardown_deployment(budcore_buf* out, budcore_platform* p, const budcore_caller* c,
                                                    const char* id, size_t id_len) {
  return on_job(out, p, c, id, id_len,
                [](auto& pl, auto& ctx, auto& d) { return deployment(pl.teardown_deployment(ctx, d)); });
}

// ---- security ----

namespace {

// The common prologue of a call with a caller and an optional document.
template <class Fn>
int with_caller(budcore_buf* out, const budcore_platform* p, const budcore_caller* c, const char* doc, std::size_t len,
                std::string_view field, Fn&& fn) {
  return capi::guard([&]() -> int {
    if (out != nullptr && !empty_out(out)) return last_code();
    platform::Platform* pl = handle(p);
    if (pl == nullptr) return last_code();
    platform::CallContext ctx;
    core::Value v;
    if (!caller_of(c, ctx) || !document(doc, len, field, v, true)) return last_code();
    auto r = fn(*pl, ctx, v);
    if (!r) return capi::set_error(r.error());
    return out == nullptr ? BUDCORE_OK : capi::fill_buf(out, core::to_json(*r));
  });
}

}  // namespace

extern "C" int budcore_platform_bind_role(budcore_buf* out, budcore_platform* p, const budcore_caller* c,
                                          const char* binding_json, size_t binding_json_len) {
  if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "out is NULL", "out");
  return with_caller(out, p, c, binding_json, binding_json_len, "binding_json",
                     [](auto& pl, auto& ctx, const core::Value& doc) -> core::Result<core::Value> {
                       BUDCORE_TRY_ASSIGN(auto b, platform::parse_role_binding(doc));
                       BUDCORE_TRY_ASSIGN(auto rec, pl.bind_role(ctx, b));
                       return budcore::backend::to_value(rec);
                     });
}

extern "C" int budcore_platform_unbind_role(budcore_platform* p, const budcore_caller* c, const char* binding_json,
                                            size_t binding_json_len) {
  return with_caller(nullptr, p, c, binding_json, binding_json_len, "binding_json",
                     [](auto& pl, auto& ctx, const core::Value& doc) -> core::Result<core::Value> {
                       BUDCORE_TRY_ASSIGN(auto b, platform::parse_role_binding(doc));
                       BUDCORE_TRY(pl.unbind_role(ctx, b));
                       return core::Value();
                     });
}

extern "C" int budcore_platform_role_bindings(budcore_buf* out, const budcore_platform* p, const budcore_caller* c,
                                              const char* principal, size_t principal_len) {
  if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "out is NULL", "out");
  std::string_view who;
  return capi::guard([&]() -> int {
    if (!text(principal, principal_len, "principal", who)) return last_code();
    return with_caller(out, p, c, nullptr, 0, "", [&](auto& pl, auto& ctx, const core::Value&) -> core::Result<core::Value> {
      std::optional<std::string> of;
      if (!who.empty()) of = std::string(who);
      BUDCORE_TRY_ASSIGN(auto list, pl.list_role_bindings(ctx, of));
      return platform::to_value(list);
    });
  });
}

extern "C" int budcore_platform_audit(budcore_buf* out, const budcore_platform* p, const budcore_caller* c,
                                      const char* query_json, size_t query_json_len) {
  if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "out is NULL", "out");
  return with_caller(out, p, c, query_json, query_json_len, "query_json",
                     [](auto& pl, auto& ctx, const core::Value& doc) -> core::Result<core::Value> {
                       BUDCORE_TRY_ASSIGN(auto q, platform::parse_audit_query(doc));
                       BUDCORE_TRY_ASSIGN(auto page, pl.list_audit(ctx, q.query, q.page));
                       return budcore::backend::to_value(page);
                     });
}

extern "C" int budcore_platform_compact(budcore_buf* out, budcore_platform* p, const budcore_caller* c) {
  if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "out is NULL", "out");
  return with_caller(out, p, c, nullptr, 0, "none", [](auto& pl, auto& ctx, const core::Value&) -> core::Result<core::Value> {
    BUDCORE_TRY_ASSIGN(auto report, pl.compact(ctx));
    return budcore::backend::to_value(report);
  });
}

extern "C" int budcore_platform_audit_verify(budcore_buf* out, const budcore_platform* p, const budcore_caller* c) {
  return budcore_platform_audit_verify_anchored(out, p, c, nullptr, 0);
}

extern "C" int budcore_platform_audit_verify_anchored(budcore_buf* out, const budcore_platform* p, const budcore_caller* c,
                                                      const char* anchors_json, size_t anchors_json_len) {
  if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "out is NULL", "out");
  return with_caller(out, p, c, anchors_json, anchors_json_len, "anchors_json",
                     [](auto& pl, auto& ctx, const core::Value& doc) -> core::Result<core::Value> {
                       std::vector<std::string> anchors;
                       if (!doc.is_null()) {
                         if (!doc.is_list()) return core::Error::invalid("anchors_json", core::to_json(doc), "must be a list of entry hashes");
                         for (std::size_t i = 0; i < doc.as_list().size(); ++i) {
                           const core::Value& a = doc.as_list()[i];
                           if (!a.is_string()) return core::Error::invalid("anchors_json[" + std::to_string(i) + "]", core::to_json(a), "must be a string");
                           anchors.push_back(a.as_string());
                         }
                       }
                       BUDCORE_TRY_ASSIGN(auto report, pl.verify_audit(ctx, anchors));
                       return budcore::backend::to_value(report);
                     });
}
