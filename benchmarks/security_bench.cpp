// Security hot paths: the submit rate limiter's decisions (target: 10 million a
// second on one core), RBAC's check of a call against the Store's bindings, and appending to
// the hash-chained audit log.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/platform/rate_limiter.hpp"
#include "budcore/platform/rbac.hpp"

namespace {

using namespace budcore;

// Decisions over `tenants` tenants in turn, each allowed or denied by its own bucket; the clock
// advances 1 us per decision, so buckets both refill and run dry.
void limiter_decisions(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<core::Id> tenants;
  for (std::size_t i = 0; i < n; ++i) tenants.push_back(core::Id::generate());
  platform::SubmitRateLimiter limiter;
  const platform::SubmitRateLimiter::Limit limit{500'000, 100};
  std::int64_t now = 1'767'225'600'000'000'000;
  std::size_t i = 0, allowed = 0;
  for (auto _ : state) {
    auto d = limiter.acquire(tenants[i], limit, 1, now);
    allowed += d.allowed;
    benchmark::DoNotOptimize(d);
    if (++i == n) i = 0;
    now += 1000;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["allowed_share"] = static_cast<double>(allowed) / static_cast<double>(state.iterations());
}
BENCHMARK(limiter_decisions)->Arg(1)->Arg(1000)->Arg(100'000);

std::unique_ptr<backend::Store> temp_store(const char* name) {
  auto path = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove(path);
  backend::StoreOptions o;
  o.durable = false;
  return std::move(backend::open_store("sqlite://" + path.string(), o).value());
}

// An editor on one project asks to create a job there: two indexed reads of role_bindings.
void rbac_authorize(benchmark::State& state) {
  auto store = temp_store("budcore-rbac-bench.db");
  const core::Id tenant = core::Id::generate(), project = core::Id::generate();
  for (int i = 0; i < 1000; ++i) {
    backend::RoleBindingRecord b{"user:u" + std::to_string(i), "editor", project, {}, "user:root"};
    (void)store->put_role_binding(tenant, b);
  }
  platform::RbacAuthorizer rbac(*store, {});
  const auto caller = platform::CallContext::for_tenant(tenant, "user:u500");
  for (auto _ : state) {
    auto st = rbac.authorize(caller, platform::AccessRequest{"create", "jobs", nullptr, &project});
    if (!st) state.SkipWithError(st.error().message.c_str());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(rbac_authorize);

// Audit entries appended 1,000 per transaction (as a batch submit writes them).
void audit_append_chained(benchmark::State& state) {
  auto store = temp_store("budcore-audit-bench.db");
  const core::Id tenant = core::Id::generate();
  backend::AuditEntry e;
  e.actor = "user:alice";
  e.action = "jobs.create";
  e.object_type = "job";
  e.object_id = core::Id::generate().to_string();
  e.detail = core::Value::map({{"outcome", "ok"}, {"after", std::string(64, 'a')}});
  for (auto _ : state) {
    auto st = store->transact([&](backend::Store& tx) -> core::Status {
      for (int i = 0; i < 1000; ++i) {
        auto r = tx.append_audit(tenant, e);
        if (!r) return r.error();
      }
      return {};
    });
    if (!st) state.SkipWithError(st.error().message.c_str());
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(audit_append_chained)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
