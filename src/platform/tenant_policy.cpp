// Per-tenant admission policy (a built-in AdmissionGate) and submit limits (token bucket and
// queue depth) from the config's `security.tenants` (docs/security.md "Admission policy").
#include <algorithm>

#include "budcore/platform/platform.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;

namespace {

Error refuse(std::string field, std::string value, std::string why) {
  return Error{ErrorCode::Security, std::move(why), std::move(field), std::move(value)};
}

std::string where(const core::Id& tenant) { return "the policy of tenant " + tenant.to_string(); }

}  // namespace

TenantPolicyGate::TenantPolicyGate(SecurityConfig security) : security_(std::move(security)) {}

std::string_view TenantPolicyGate::name() const noexcept { return "tenant-policy"; }

core::Status TenantPolicyGate::admit(const CallContext& caller, const job::Job& job, GateStage) {
  const TenantPolicy* p = security_.policy_for(caller.tenant);
  if (p == nullptr) return {};
  if (const core::Value* image = job.spec.find("image"); image != nullptr && image->is_string()) {
    const std::string& img = image->as_string();
    auto prefixed = [&](const std::string& prefix) { return img.starts_with(prefix); };
    if (auto it = std::find_if(p->denied_registries.begin(), p->denied_registries.end(), prefixed);
        it != p->denied_registries.end())
      return refuse("spec.image", img, "images from " + *it + " are denied by " + where(caller.tenant));
    if (!p->allowed_registries.empty() &&
        std::none_of(p->allowed_registries.begin(), p->allowed_registries.end(), prefixed))
      return refuse("spec.image", img, "the image is from none of the registries " + where(caller.tenant) + " allows");
  }
  if (p->max_gpus_per_job && job.gpu_count > *p->max_gpus_per_job)
    return refuse("gpu_count", std::to_string(job.gpu_count),
                  "is over the " + std::to_string(*p->max_gpus_per_job) + " GPUs per job " + where(caller.tenant) +
                      " allows");
  if (!p->gpu_types.empty() && job.gpu_count > 0) {
    const std::string type = job.gpu_type.value_or("");
    if (std::find(p->gpu_types.begin(), p->gpu_types.end(), type) == p->gpu_types.end())
      return refuse("gpu_type", type, "is not a GPU type " + where(caller.tenant) + " allows");
  }
  if (!p->priorities.empty() && std::find(p->priorities.begin(), p->priorities.end(), job.priority) == p->priorities.end())
    return refuse("priority", std::string(job::to_string(job.priority)),
                  "is not a priority " + where(caller.tenant) + " allows");
  return {};
}

core::Status Platform::Impl::check_submit_limits(const CallContext& caller, std::size_t n) {
  const TenantPolicy* p = config.security.policy_for(caller.tenant);
  if (p == nullptr || n == 0) return {};
  const std::string path = "security.tenants." + (config.security.tenants.count(caller.tenant) ? caller.tenant.to_string() : std::string("*"));
  if (p->max_queued_jobs > 0) {
    const auto open_jobs = static_cast<std::int64_t>(
        std::count_if(live.begin(), live.end(), [&](const auto& kv) { return kv.second.tenant == caller.tenant; }));
    if (open_jobs + static_cast<std::int64_t>(n) > p->max_queued_jobs) {
      Error e = Error::make(ErrorCode::RateLimited,
                            "tenant " + caller.tenant.to_string() + " has " + std::to_string(open_jobs) +
                                " jobs that have not ended; " + std::to_string(n) + " more would pass " + path +
                                ".max_queued_jobs = " + std::to_string(p->max_queued_jobs),
                            "jobs");
      e.retry_after_ms = 1000;  // a hint: the queue drains as jobs end
      return e;
    }
  }
  if (p->submits_per_second > 0) {
    auto d = limiter.acquire(caller.tenant, {p->submits_per_second, p->submit_burst}, static_cast<std::int64_t>(n),
                             clock->now().unix_nanos());
    if (!d.allowed) {
      if (d.retry_after_ns < 0)
        return Error::make(ErrorCode::RateLimited,
                           "a batch of " + std::to_string(n) + " jobs is larger than " + path +
                               ".submit_burst allows at once: submit it in smaller batches",
                           "jobs");
      Error e = Error::make(ErrorCode::RateLimited,
                            "tenant " + caller.tenant.to_string() + " is over its submit rate (" + path +
                                ".submits_per_second)",
                            "jobs");
      e.retry_after_ms = (d.retry_after_ns + 999'999) / 1'000'000;
      e.message += ": retry after " + std::to_string(e.retry_after_ms) + " ms";
      return e;
    }
  }
  return {};
}

}  // namespace budcore::platform
