// Per-tenant admission policy (a built-in AdmissionGate) and submit limits (token bucket and
// queue depth) from the config's `security.tenants` (docs/security.md "Admission policy").
// The gate sees every job the platform creates or changes (submit, batch, pipeline steps,
// use-case deploys, retries, priority changes); images are compared as container runtimes
// read them, GPUs counted over every pod the job runs.
#include <algorithm>

#include "budcore/core/json.hpp"
#include "budcore/job/image_ref.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/quota/job_workload.hpp"
#include "platform/platform_impl.hpp"

namespace budcore::platform {

using core::Error;
using core::ErrorCode;

namespace {

Error refuse(std::string field, std::string value, std::string why) {
  return Error{ErrorCode::Security, std::move(why), std::move(field), std::move(value)};
}

std::string where(const core::Id& tenant) { return "the policy of tenant " + tenant.to_string(); }

std::vector<job::ImagePattern> patterns(const std::vector<std::string>& texts) {
  std::vector<job::ImagePattern> out;
  // The config was validated on load (read_security): every pattern parses.
  for (const auto& t : texts)
    if (auto p = job::parse_image_pattern(t)) out.push_back(std::move(*p));
  return out;
}

}  // namespace

TenantPolicyGate::TenantPolicyGate(SecurityConfig security) : security_(std::move(security)) {
  auto compile = [](const TenantPolicy& p) { return Compiled{patterns(p.allowed_registries), patterns(p.denied_registries)}; };
  if (security_.default_policy) default_ = compile(*security_.default_policy);
  for (const auto& [tenant, p] : security_.tenants) compiled_.emplace(tenant, compile(p));
}

std::string_view TenantPolicyGate::name() const noexcept { return "tenant-policy"; }

core::Status TenantPolicyGate::admit(const CallContext& caller, const job::Job& job, GateStage) {
  const TenantPolicy* p = security_.policy_for(caller.tenant);
  if (p == nullptr) return {};
  auto c = compiled_.find(caller.tenant);
  const Compiled& images = c != compiled_.end() ? c->second : default_;
  if (!images.allowed.empty() || !images.denied.empty()) {
    const core::Value* image = job.spec.find("image");
    if (image != nullptr && !image->is_null()) {
      if (!image->is_string()) return refuse("spec.image", core::to_json(*image), "must be an image reference (a string)");
      auto ref = job::parse_image_ref(image->as_string(), "spec.image");
      if (!ref) return refuse("spec.image", image->as_string(), "is not an image reference a runtime would pull: " + ref.error().message);
      auto hit = [&](const job::ImagePattern& pat) { return pat.matches(*ref); };
      if (auto it = std::find_if(images.denied.begin(), images.denied.end(), hit); it != images.denied.end())
        return refuse("spec.image", image->as_string(),
                      "images from " + it->to_string() + " are denied by " + where(caller.tenant) + " (read as " +
                          ref->to_string() + ")");
      if (!images.allowed.empty() && std::none_of(images.allowed.begin(), images.allowed.end(), hit))
        return refuse("spec.image", image->as_string(),
                      "the image (read as " + ref->to_string() + ") is from none of the registries " +
                          where(caller.tenant) + " allows");
    }
  }
  if (p->max_gpus_per_job) {
    // Every pod the job runs at once: a service's replicas each hold gpu_count GPUs.
    auto pods = quota::pods_of(job);
    if (!pods) return pods.error();
    const std::int64_t gpus = job.gpu_count * *pods;
    if (gpus > *p->max_gpus_per_job)
      return refuse(*pods > 1 ? "spec.replicas" : "gpu_count",
                    *pods > 1 ? std::to_string(*pods) + " replicas x " + std::to_string(job.gpu_count) + " GPUs"
                              : std::to_string(job.gpu_count),
                    std::to_string(gpus) + " GPUs is over the " + std::to_string(*p->max_gpus_per_job) +
                        " GPUs per job " + where(caller.tenant) + " allows");
  }
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

namespace {

Error rate_limited(std::string message, std::int64_t retry_after_ms) {
  Error e = Error::make(ErrorCode::RateLimited, std::move(message), "jobs");
  e.retry_after_ms = retry_after_ms;
  return e;
}

constexpr std::string_view kSubmitBucket = "submits";

}  // namespace

std::string Platform::Impl::policy_path(const core::Id& tenant) const {
  return "security.tenants." + (config.security.tenants.count(tenant) ? tenant.to_string() : std::string("*"));
}

core::Status Platform::Impl::check_open_jobs(backend::Store& tx, const CallContext& caller, std::size_t n) {
  const TenantPolicy* p = config.security.policy_for(caller.tenant);
  if (p == nullptr || p->max_queued_jobs <= 0) return {};
  // Serializes the tenant's submits across every handle and process on the store (replicas or
  // not), then counts what is open now.
  BUDCORE_TRY(tx.lock_limit(caller.tenant, "queue"));
  BUDCORE_TRY_ASSIGN(std::int64_t open, tx.count_open_jobs(caller.tenant));
  if (open + static_cast<std::int64_t>(n) <= p->max_queued_jobs) return {};
  return rate_limited("tenant " + caller.tenant.to_string() + " has " + std::to_string(open) + " jobs that have not ended; " +
                          std::to_string(n) + " more would pass " + policy_path(caller.tenant) +
                          ".max_queued_jobs = " + std::to_string(p->max_queued_jobs),
                      1000);  // a hint: the queue drains as jobs end
}

core::Result<Platform::Impl::SubmitTicket> Platform::Impl::check_submit_limits(const CallContext& caller, std::size_t n) {
  SubmitTicket t;
  const TenantPolicy* p = config.security.policy_for(caller.tenant);
  if (p == nullptr || n == 0) return t;
  t.path = policy_path(caller.tenant);
  // max_queued_jobs is decided in the submit's own transaction (check_open_jobs), where every
  // process's jobs are counted under the tenant's lock.
  if (p->submits_per_second <= 0) return t;
  t.limited = true;
  t.limit = {p->submits_per_second, p->submit_burst};
  t.n = static_cast<std::int64_t>(n);
  t.now_ns = clock->now().unix_nanos();
  // A read of the bucket kept in the store (every process on it shares the bucket); the tokens
  // are taken in the submit's own transaction (take_submit_tokens), deciding again under its lock.
  BUDCORE_TRY_ASSIGN(std::int64_t tat, store->get_limit(caller.tenant, kSubmitBucket));
  BUDCORE_TRY(decide_submit(t, tat));
  return t;
}

core::Status Platform::Impl::decide_submit(const SubmitTicket& t, std::int64_t& tat) const {
  auto d = SubmitRateLimiter::decide(tat, t.limit, t.n, t.now_ns);
  if (d.allowed) return {};
  if (d.retry_after_ns < 0)
    return rate_limited("a batch of " + std::to_string(t.n) + " jobs is larger than " + t.path +
                            ".submit_burst allows at once: submit it in smaller batches",
                        0);
  const std::int64_t ms = (d.retry_after_ns + 999'999) / 1'000'000;
  return rate_limited("the tenant is over its submit rate (" + t.path + ".submits_per_second): retry after " +
                          std::to_string(ms) + " ms",
                      ms);
}

core::Status Platform::Impl::take_submit_tokens(backend::Store& tx, const CallContext& caller, const SubmitTicket& t) {
  if (!t.limited) return {};
  BUDCORE_TRY_ASSIGN(std::int64_t tat, tx.lock_limit(caller.tenant, kSubmitBucket));
  BUDCORE_TRY(decide_submit(t, tat));
  return tx.put_limit(caller.tenant, kSubmitBucket, tat);
}

}  // namespace budcore::platform
