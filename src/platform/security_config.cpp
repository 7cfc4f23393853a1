// The `security` section of a platform config (docs/security.md).
#include "budcore/platform/config.hpp"
#include "budcore/backend/secret_provider.hpp"
#include "budcore/job/image_ref.hpp"
#include "budcore/platform/rate_limiter.hpp"
#include "budcore/platform/rbac.hpp"
#include "platform/config_section.hpp"

namespace budcore::platform::detail {

namespace {

core::Status string_list(const Section& s, std::string_view key, std::vector<std::string>& out) {
  const Value* v = s.get(key);
  if (v == nullptr) return {};
  if (!v->is_list()) return Error::invalid(s.path(key), core::to_json(*v), "must be a list of strings");
  const auto& items = v->as_list();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = s.path(key) + "[" + std::to_string(i) + "]";
    if (!items[i].is_string() || items[i].as_string().empty())
      return Error::invalid(at, core::to_json(items[i]), "must be a non-empty string");
    out.push_back(items[i].as_string());
  }
  return {};
}

// An allow-list given empty, or a limit given as 0, would read as "no rule" where the writer
// most likely meant "nothing" or "stop": refused, so that no rule is only ever an omitted key.
core::Status no_empty_allow_list(const Section& s, std::string_view key, std::string_view instead) {
  const Value* v = s.get(key);
  if (v == nullptr || !v->is_list() || !v->as_list().empty()) return {};
  return Error::invalid(s.path(key), "[]", "an empty list would allow anything; omit the key to allow any, " + std::string(instead));
}

core::Status no_zero_limit(const Section& s, std::string_view key) {
  const Value* v = s.get(key);
  if (v == nullptr || !v->is_number() || v->as_float() != 0) return {};
  return Error::invalid(s.path(key), core::to_json(*v), "0 would read as no limit; omit the key for no limit");
}

core::Result<TenantPolicy> read_policy(const Value& v, const std::string& path) {
  if (v.is_null()) return Error::invalid(path, "null", "a tenant's policy is a map of rules (an empty one is {})");
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, path));
  BUDCORE_TRY(s.no_nulls());
  BUDCORE_TRY(s.known({"allowed_registries", "denied_registries", "max_gpus_per_job", "gpu_types", "priorities",
                       "submits_per_second", "submit_burst", "max_queued_jobs"}));
  BUDCORE_TRY(no_empty_allow_list(s, "allowed_registries", "or list the registries allowed"));
  BUDCORE_TRY(no_empty_allow_list(s, "gpu_types", "or set max_gpus_per_job: 0 to allow no GPUs"));
  BUDCORE_TRY(no_empty_allow_list(s, "priorities", "or list the priorities allowed"));
  for (std::string_view key : {"submits_per_second", "submit_burst", "max_queued_jobs"}) BUDCORE_TRY(no_zero_limit(s, key));
  TenantPolicy p;
  BUDCORE_TRY(string_list(s, "allowed_registries", p.allowed_registries));
  BUDCORE_TRY(string_list(s, "denied_registries", p.denied_registries));
  for (std::string_view key : {"allowed_registries", "denied_registries"}) {
    const auto& list = key == "allowed_registries" ? p.allowed_registries : p.denied_registries;
    for (std::size_t i = 0; i < list.size(); ++i)
      BUDCORE_TRY(job::parse_image_pattern(list[i], s.path(key) + "[" + std::to_string(i) + "]"));
  }
  BUDCORE_TRY(string_list(s, "gpu_types", p.gpu_types));
  std::vector<std::string> priorities;
  BUDCORE_TRY(string_list(s, "priorities", priorities));
  for (std::size_t i = 0; i < priorities.size(); ++i) {
    auto pr = job::parse_job_priority(priorities[i]);
    if (!pr) return Error::invalid(s.path("priorities") + "[" + std::to_string(i) + "]", priorities[i],
                                   "is not a priority (critical, high, normal, low)");
    p.priorities.push_back(*pr);
  }
  if (s.get("max_gpus_per_job") != nullptr) {
    std::int64_t n = 0;
    BUDCORE_TRY(s.integer("max_gpus_per_job", n, 0, 1'000'000));
    p.max_gpus_per_job = n;
  }
  BUDCORE_TRY(s.number("submits_per_second", p.submits_per_second, 1e-3, 1e9));
  BUDCORE_TRY(s.integer("submit_burst", p.submit_burst, 1, SubmitRateLimiter::kMaxBurst));
  BUDCORE_TRY(s.integer("max_queued_jobs", p.max_queued_jobs, 1, 1'000'000'000));
  if (p.submit_burst > 0 && p.submits_per_second == 0)
    return Error::invalid(s.path("submit_burst"), std::to_string(p.submit_burst), "needs submits_per_second");
  return p;
}

core::Status read_audit_anchor(const Section& s, SecurityConfig& sec) {
  const Value* v = s.get("audit_anchor");
  if (v == nullptr) return {};
  BUDCORE_TRY_ASSIGN(Section a, Section::of(*v, "security.audit_anchor"));
  BUDCORE_TRY(a.known({"webhook", "every_seconds", "timeout_seconds"}));
  AuditAnchorConfig c;
  BUDCORE_TRY(a.string("webhook", c.webhook.url));
  const std::string& url = c.webhook.url;
  if (!url.starts_with("http://") && !url.starts_with("https://") && !url.starts_with("secret://"))
    return Error::invalid("security.audit_anchor.webhook", url,
                          "must be an http:// or https:// URL (or a secret:// reference to one)");
  BUDCORE_TRY(check_platform_secret_refs(url, "security.audit_anchor.webhook"));
  BUDCORE_TRY(a.seconds("every_seconds", c.every, 60));
  BUDCORE_TRY(a.seconds("timeout_seconds", c.webhook.timeout, 1));
  sec.audit_anchor = std::move(c);
  return {};
}

}  // namespace

core::Status check_platform_secret_refs(std::string_view url, std::string_view field) {
  BUDCORE_TRY_ASSIGN(auto refs, backend::secret_refs(url, field));
  for (const auto& name : refs)
    if (backend::shadows_tenant_secret(name))
      return Error::invalid(std::string(field), "secret://" + name,
                            "names a secret that starts like a tenant's own (32 hex digits and a separator): the "
                            "platform's webhooks read only the platform's secrets");
  return {};
}

core::Status read_security(const Value& v, PlatformConfig& c) {
  if (v.is_null()) return Error::invalid("security", "null", "an empty security section sets nothing: omit it or give its keys");
  BUDCORE_TRY_ASSIGN(Section s, Section::of(v, "security"));
  BUDCORE_TRY(s.no_nulls());
  BUDCORE_TRY(s.known({"rbac", "platform_admins", "tenants", "secrets", "shared_secrets", "audit_anchor"}));
  SecurityConfig& sec = c.security;
  BUDCORE_TRY(s.boolean("rbac", sec.rbac));
  BUDCORE_TRY(string_list(s, "platform_admins", sec.platform_admins));
  for (std::size_t i = 0; i < sec.platform_admins.size(); ++i)
    BUDCORE_TRY(check_principal(sec.platform_admins[i], "security.platform_admins[" + std::to_string(i) + "]"));
  if (const Value* list = s.get("secrets")) {
    if (!list->is_list()) return Error::invalid("security.secrets", core::to_json(*list), "must be a list of providers");
    sec.secret_providers.clear();
    for (std::size_t i = 0; i < list->as_list().size(); ++i) {
      const Value& p = list->as_list()[i];
      const std::string at = "security.secrets[" + std::to_string(i) + "]";
      SecretProviderConfig c;
      if (p.is_string() && p.as_string() == "env") {
        sec.secret_providers.push_back(c);
        continue;
      }
      if (!p.is_map() || p.as_map().size() != 1)
        return Error::invalid(at, core::to_json(p), "a provider is env, {env: PREFIX} or {file: DIR}");
      const auto& [kind, arg] = *p.as_map().begin();
      if ((kind != "env" && kind != "file") || !arg.is_string() || arg.as_string().empty())
        return Error::invalid(at, core::to_json(p), "a provider is env, {env: PREFIX} or {file: DIR}");
      c.kind = kind;
      c.arg = arg.as_string();
      sec.secret_providers.push_back(std::move(c));
    }
  }
  BUDCORE_TRY(string_list(s, "shared_secrets", sec.shared_secrets));
  for (std::size_t i = 0; i < sec.shared_secrets.size(); ++i) {
    const std::string& name = sec.shared_secrets[i];
    const std::string at = "security.shared_secrets[" + std::to_string(i) + "]";
    auto refs = backend::secret_refs("secret://" + name, at);
    if (!refs || refs->size() != 1 || refs->front() != name)
      return Error::invalid(at, name, "a secret name is 1 to 128 letters, digits, '.', '_' or '-'");
    if (backend::shadows_tenant_secret(name))
      return Error::invalid(at, name, "starts like a tenant's own secret (32 hex digits and a separator): choose another name");
    for (std::size_t j = 0; j < i; ++j)
      if (sec.shared_secrets[j] == name) return Error::invalid(at, name, "is listed twice");
  }
  BUDCORE_TRY(read_audit_anchor(s, sec));
  if (const Value* t = s.get("tenants")) {
    if (!t->is_map()) return Error::invalid("security.tenants", core::to_json(*t), "must be a map of tenant id (or \"*\") to policy");
    for (const auto& [key, policy] : t->as_map()) {
      const std::string path = "security.tenants." + key;
      BUDCORE_TRY_ASSIGN(TenantPolicy p, read_policy(policy, path));
      if (key == "*") {
        sec.default_policy = std::move(p);
        continue;
      }
      auto id = core::Id::parse(key);
      if (!id || id->is_nil()) return Error::invalid("security.tenants", key, "a key is a tenant id (a UUID) or \"*\"");
      // Two spellings of one id (case, braces) would leave one policy silently unused.
      if (!sec.tenants.emplace(*id, std::move(p)).second)
        return Error::invalid(path, key, "names tenant " + id->to_string() + ", which is listed twice");
    }
  }
  return {};
}

}  // namespace budcore::platform::detail
