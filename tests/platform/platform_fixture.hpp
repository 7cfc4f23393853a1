// Helpers for the platform tests: a Platform on a fresh store (SQLite file or the test
// PostgreSQL server), jobs to submit, and shortcuts for reading results.
#pragma once

#include <cctype>
#include <string_view>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/store_fixture.hpp"
#include "budcore/core/id.hpp"
#include "budcore/job/job.hpp"
#include "budcore/platform/platform.hpp"

namespace budcore::testing {

inline core::Id tenant_a() { return core::Id::parse("00000000-0000-4000-8000-00000000000a").value(); }
inline core::Id tenant_b() { return core::Id::parse("00000000-0000-4000-8000-00000000000b").value(); }
inline platform::CallContext ctx_a() { return platform::CallContext::for_tenant(tenant_a(), "user:alice", "req-1"); }
inline platform::CallContext ctx_b() { return platform::CallContext::for_tenant(tenant_b(), "user:bob", "req-2"); }

// The environment variable the env secret provider reads for a tenant's secret `name`:
// prefix + the tenant's 32 hex digits (upper case) + "_" + the name upper-cased, . and - as _.
inline std::string tenant_secret_var(const core::Id& tenant, std::string_view name,
                                     std::string prefix = "BUDCORE_SECRET_") {
  for (char c : tenant.to_string())
    if (c != '-') prefix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  prefix += '_';
  for (char c : name) prefix += (c == '-' || c == '.') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return prefix;
}

// A batch job of `gpus` GPUs of `gpu_type` that runs `seconds`.
inline job::Job gpu_job(std::string name, std::int64_t gpus = 1, std::int64_t seconds = 600,
                        std::string gpu_type = "nvidia-a100-80gb") {
  job::Job j;
  j.name = std::move(name);
  j.job_type = job::JobType::Batch;
  j.deployment_type = job::DeploymentType::Docker;
  j.gpu_count = gpus;
  if (gpus > 0) j.gpu_type = std::move(gpu_type);
  j.estimated_duration_seconds = seconds;
  return j;
}

inline void set_sim(job::Job& j, core::Value sim) {
  core::Map spec = j.spec.is_map() ? j.spec.as_map() : core::Map{};
  spec.set("sim", std::move(sim));
  j.spec = core::Value(std::move(spec));
}

// A platform config (JSON) on a SQLite file with an A100 price book, one budget of $4.00 for
// tenant A with thresholds at 50% and 100%, and its alerts POSTed to `webhook`.
inline std::string budget_alert_config(const std::string& db, const std::string& webhook) {
  return R"({"store": "sqlite://)" + db + R"(", "cost": {"prices": {"currency": "USD",
        "gpu_hour": {"nvidia-a100-80gb": {"on_demand": "2.00"}}, "cpu_core_hour": {"on_demand": "0"},
        "memory_gib_hour": {"on_demand": "0"}},
      "budgets": [{"name": "watch", "tenant_id": "00000000-0000-4000-8000-00000000000a", "amount": "4.00",
                   "thresholds": [50, 100], "notify": {"channel": "slack", "recipients": ["#finops"]}}],
      "alerts": {"webhook": ")" + webhook + R"(", "timeout_seconds": 5}}})";
}

// A platform with the embedded cluster on a store of the named backend.
struct PlatformTarget {
  BackendTarget store;
  std::unique_ptr<TempDir> dir;
  platform::PlatformConfig config;

  explicit PlatformTarget(const std::string& backend = "sqlite_file") : store(make_target(backend)) {
    dir = std::make_unique<TempDir>();
    config = platform::PlatformConfig::embedded(dir->path.string());
    if (!store.uri.empty() && backend != "sqlite_file") config.store_uri = store.uri;
    if (backend == "sqlite_file") config.store_uri = "sqlite://" + (dir->path / "budcore.db").string();
    config.store_durable = false;  // the tests kill processes, not machines
  }
  std::unique_ptr<platform::Platform> open() const {
    auto p = platform::Platform::open(config);
    EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().describe());
    return p ? std::move(*p) : nullptr;
  }
};

#define BUDCORE_SKIP_UNLESS_READY(target)                          \
  do {                                                             \
    if (!(target).store.skip.empty()) GTEST_SKIP() << (target).store.skip; \
    ASSERT_TRUE((target).store.error.empty()) << (target).store.error;     \
  } while (0)

}  // namespace budcore::testing
