// C ABI over budcore::usecase: a registry handle (components + templates) and resolution.
#include "budcore/c/usecase.h"

#include <optional>
#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/usecase/registry.hpp"
#include "budcore/usecase/resolver.hpp"
#include "capi_internal.hpp"
#include "core/field_reader.hpp"

struct budcore_usecase_registry {
  budcore::usecase::UsecaseRegistry registry;
};

namespace {

namespace capi = budcore::capi;
namespace core = budcore::core;
namespace usecase = budcore::usecase;
using core::Value;

constexpr std::string_view kRequestKeys[] = {"parameters", "overrides", "name"};

// A buf the library may fill: not NULL and not still holding text (which would leak).
bool empty_buf(budcore_buf* buf, std::string_view field, bool optional) {
  return (optional && buf == nullptr) || capi::empty_out(buf, field);
}

bool registry_arg(const budcore_usecase_registry* r) {
  if (r != nullptr) return true;
  capi::set_error(BUDCORE_EINVALID, "registry handle is NULL", "registry");
  return false;
}

// A YAML/JSON document argument; sets the error and returns nullopt when it is not one.
std::optional<Value> document(const char* s, std::size_t len) {
  std::string_view text;
  if (!capi::input_text(s, len, "document", text)) return std::nullopt;
  auto v = usecase::parse_usecase_document(text);
  if (!v) {
    capi::set_error(v.error());
    return std::nullopt;
  }
  return std::move(*v);
}

}  // namespace

extern "C" int budcore_usecase_registry_new(budcore_usecase_registry** out, int with_builtin) {
  return capi::guard([&]() -> int {
    if (out == nullptr) return capi::set_error(BUDCORE_EINVALID, "output handle pointer is NULL", "out");
    *out = new budcore_usecase_registry{with_builtin != 0 ? usecase::UsecaseRegistry::builtin()
                                                          : usecase::UsecaseRegistry{}};
    return BUDCORE_OK;
  });
}

extern "C" void budcore_usecase_registry_free(budcore_usecase_registry* registry) { delete registry; }

extern "C" int budcore_usecase_registry_add_components(budcore_usecase_registry* registry, const char* doc,
                                                       size_t len) {
  return capi::guard([&]() -> int {
    if (!registry_arg(registry)) return BUDCORE_EINVALID;
    auto v = document(doc, len);
    if (!v) return budcore_error_last()->code;
    if (auto st = registry->registry.components.add_document(*v); !st) return capi::set_error(st.error());
    return BUDCORE_OK;
  });
}

extern "C" int budcore_usecase_registry_add_template(budcore_usecase_registry* registry, const char* doc, size_t len) {
  return capi::guard([&]() -> int {
    if (!registry_arg(registry)) return BUDCORE_EINVALID;
    auto v = document(doc, len);
    if (!v) return budcore_error_last()->code;
    auto t = usecase::UseCaseTemplate::from_value(*v);
    if (!t) return capi::set_error(t.error());
    registry->registry.put_template(usecase::TemplateFile{std::move(*t), {}});
    return BUDCORE_OK;
  });
}

extern "C" int budcore_usecase_registry_load(budcore_usecase_registry* registry, const char* components_path,
                                             size_t components_len, const char* templates_path, size_t templates_len) {
  return capi::guard([&]() -> int {
    if (!registry_arg(registry)) return BUDCORE_EINVALID;
    std::string_view cpath, tpath;
    if (!capi::input_text(components_path, components_len, "components_path", cpath)) return BUDCORE_EINVALID;
    if (!capi::input_text(templates_path, templates_len, "templates_path", tpath)) return BUDCORE_EINVALID;
    if (auto st = registry->registry.load(std::string(cpath), std::string(tpath)); !st)
      return capi::set_error(st.error());
    return BUDCORE_OK;
  });
}

extern "C" int budcore_usecase_list(budcore_buf* out, const budcore_usecase_registry* registry) {
  return capi::guard([&]() -> int {
    if (!empty_buf(out, "out", false) || !registry_arg(registry)) return BUDCORE_EINVALID;
    core::List items;
    for (const auto& f : registry->registry.templates) items.push_back(usecase::template_summary(f));
    return capi::fill_buf(out, core::to_json(Value::map({{"templates", Value(std::move(items))}})));
  });
}

extern "C" int budcore_usecase_show(budcore_buf* out, const budcore_usecase_registry* registry, const char* id,
                                    size_t id_len) {
  return capi::guard([&]() -> int {
    if (!empty_buf(out, "out", false) || !registry_arg(registry)) return BUDCORE_EINVALID;
    std::string_view text;
    if (!capi::input_text(id, id_len, "id", text)) return BUDCORE_EINVALID;
    const auto* t = registry->registry.find_template(text);
    if (t == nullptr) {
      return capi::set_error(
          core::Error{core::ErrorCode::NotFound, "no template '" + std::string(text) + "'", "id", std::string(text)});
    }
    return capi::fill_buf(out, core::to_json(t->to_value()));
  });
}

extern "C" int budcore_usecase_components(budcore_buf* out, const budcore_usecase_registry* registry) {
  return capi::guard([&]() -> int {
    if (!empty_buf(out, "out", false) || !registry_arg(registry)) return BUDCORE_EINVALID;
    core::List items;
    for (const auto* c : registry->registry.components.all()) items.push_back(c->to_value());
    return capi::fill_buf(out, core::to_json(Value::map({{"components", Value(std::move(items))}})));
  });
}

extern "C" int budcore_usecase_render(budcore_buf* out, budcore_buf* errors_out,
                                      const budcore_usecase_registry* registry, const char* template_id,
                                      size_t template_id_len, const char* request_json, size_t request_len) {
  return capi::guard([&]() -> int {
    if (!empty_buf(out, "out", false) || !empty_buf(errors_out, "errors_out", true) || !registry_arg(registry)) {
      return BUDCORE_EINVALID;
    }
    std::string_view id, req_text;
    if (!capi::input_text(template_id, template_id_len, "template_id", id)) return BUDCORE_EINVALID;
    if (!capi::input_text(request_json, request_len, "request_json", req_text)) return BUDCORE_EINVALID;
    const auto* t = registry->registry.find_template(id);
    if (t == nullptr) {
      return capi::set_error(core::Error{core::ErrorCode::NotFound, "no template '" + std::string(id) + "'",
                                         "template_id", std::string(id)});
    }
    Value params;
    usecase::ResolveOptions options;
    if (!req_text.empty()) {
      auto req = core::parse_json(req_text);
      if (!req) return capi::set_error(std::move(req.error().at("request_json")));
      if (!req->is_map()) return capi::set_error(core::Error::invalid("request_json", {}, "must be a JSON object"));
      budcore::core::detail::Reader r(req->as_map());
      if (auto st = r.reject_unknown(kRequestKeys); !st) {
        core::Error e = st.error();
        return capi::set_error(e.at("request_json"));
      }
      if (const Value* p = req->find("parameters")) params = *p;
      if (const Value* o = req->find("overrides")) options.overrides = *o;
      auto name = r.string("name");
      if (!name) return capi::set_error(std::move(name.error().at("request_json")));
      options.name = name->value_or("");
    }
    auto result = usecase::resolve(*t, registry->registry.components, params, options);
    if (!result.valid()) {
      const auto& first = result.errors.front();
      if (errors_out != nullptr) {
        if (int rc = capi::fill_buf(errors_out, core::to_json(result.to_value()), "errors_out"); rc != BUDCORE_OK) return rc;
      }
      return capi::set_error(core::Error::invalid(first.path, {}, first.code + ": " + first.message));
    }
    return capi::fill_buf(out, core::to_json(result.to_value()));
  });
}
