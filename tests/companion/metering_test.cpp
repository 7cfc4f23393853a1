// The companion's metering, pure part: a Workload's run read from its conditions, and the run
// priced into usage intervals with the budget check's price book and tenant rules.
#include <gtest/gtest.h>

#include "budcore/companion/companion.hpp"
#include "budcore/core/json.hpp"

namespace budcore::companion {
namespace {

using core::List;
using core::Map;
using core::Value;

const char* kTenant = "0190e6f4-0000-7000-8000-00000000000a";
const char* kUid = "5b8f1a2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b";

CompanionConfig config() {
  auto c = CompanionConfig::from_text(std::string(R"(controllers: [{name: budcore.io/budget, checks: [budget]}]
tenants: [{namespace: team-a, tenant_id: )") + kTenant + R"(}]
price_book: {currency: USD, gpu_hour: {nvidia-a100-80gb: {on_demand: "3600.00"}}, cpu_core_hour: {on_demand: "36.00"}}
flavor_gpu_types: {a100: nvidia-a100-80gb}
budgets: {budgets: []}
)");
  EXPECT_TRUE(c) << c.error().describe();
  return c ? *c : CompanionConfig{};
}

Value condition(const char* type, const char* status, const char* at) {
  return Map{{"type", type}, {"status", status}, {"lastTransitionTime", at}};
}

// Two pods of 2 GPUs and 1 CPU each on flavor a100, with the given conditions.
Value workload(List conditions) {
  Value container = Map{{"name", "c"}, {"resources", Map{{"requests", Map{{"cpu", "1"}, {"nvidia.com/gpu", "2"}}}}}};
  return Map{{"metadata", Map{{"name", "wl"}, {"namespace", "team-a"}, {"uid", kUid}}},
             {"spec", Map{{"podSets", List{Map{{"name", "main"},
                                               {"count", 2},
                                               {"template", Map{{"spec", Map{{"containers", List{container}}}}}}}}}}},
             {"status", Map{{"admission", Map{{"clusterQueue", "cq"},
                                              {"podSetAssignments", List{Map{{"name", "main"},
                                                                             {"count", 2},
                                                                             {"flavors", Map{{"nvidia.com/gpu", "a100"}}}}}}}},
                            {"conditions", std::move(conditions)}}}};
}

core::Timestamp at(const char* text) { return *core::Timestamp::parse(text); }

TEST(CompanionSegmentTest, ARunBeginsAtItsAdmissionAndEndsWhenItFinishes) {
  auto running = admission_state(workload(List{condition("Admitted", "True", "2026-11-28T10:00:00Z")}));
  EXPECT_EQ(running.admitted_at, at("2026-11-28T10:00:00Z"));
  EXPECT_FALSE(running.ended_at);

  auto done = admission_state(workload(List{condition("Admitted", "True", "2026-11-28T10:00:00Z"),
                                            condition("Finished", "True", "2026-11-28T10:30:00Z")}));
  EXPECT_EQ(done.admitted_at, at("2026-11-28T10:00:00Z"));
  EXPECT_EQ(done.ended_at, at("2026-11-28T10:30:00Z"));
}

TEST(CompanionSegmentTest, AnEvictionBeforeTheAdmissionBelongsToAnEarlierRun) {
  auto again = admission_state(workload(List{condition("Evicted", "True", "2026-11-28T09:00:00Z"),
                                             condition("Admitted", "True", "2026-11-28T10:00:00Z")}));
  EXPECT_EQ(again.admitted_at, at("2026-11-28T10:00:00Z"));
  EXPECT_FALSE(again.ended_at);

  auto evicted = admission_state(workload(List{condition("Evicted", "True", "2026-11-28T10:20:00Z"),
                                               condition("Admitted", "False", "2026-11-28T10:20:01Z")}));
  EXPECT_FALSE(evicted.admitted_at);
  EXPECT_EQ(evicted.ended_at, at("2026-11-28T10:20:00Z"));

  auto never = admission_state(workload(List{condition("QuotaReserved", "False", "2026-11-28T10:00:00Z")}));
  EXPECT_FALSE(never.admitted_at);
  EXPECT_FALSE(never.ended_at);
}

TEST(CompanionSegmentTest, ARunIsPricedPerPodSetWithTheFlavorsGpuType) {
  auto cfg = config();
  auto f = read_workload(workload({}));
  ASSERT_TRUE(f) << f.error().describe();
  auto start = at("2026-11-28T10:00:00Z"), end = at("2026-11-28T10:00:10Z");
  std::string key = segment_key(kUid, start);
  EXPECT_EQ(key, std::string(kUid) + "/" + std::to_string(start.unix_seconds()));
  auto intervals = segment_intervals(cfg, *f, *core::Id::parse(kTenant), key, start, end);
  ASSERT_TRUE(intervals) << intervals.error().describe();
  ASSERT_EQ(intervals->size(), 1u);
  const auto& i = intervals->front();
  EXPECT_EQ(i.job_id.to_string(), kUid);
  EXPECT_EQ(i.gpu_count, 4);
  EXPECT_EQ(i.gpu_type, "nvidia-a100-80gb");
  EXPECT_EQ(i.cpu_cores.nano(), core::Quantity::from_int(2).nano());
  EXPECT_EQ(i.labels.at(std::string(kSegmentLabel)), key);
  EXPECT_EQ(i.labels.at(std::string(kPodSetLabel)), "main");
  // 4 GPUs x 10 s x 1 USD + 2 cores x 10 s x 0.01 USD.
  auto u = cost::meter(cfg.price_book, i);
  ASSERT_TRUE(u) << u.error().describe();
  EXPECT_EQ(u->computed_cost, *core::Money::parse("40.20 USD"));
}

TEST(CompanionSegmentTest, AUidThatIsNotAUuidIsNamed) {
  auto wl = workload({});
  wl.mutable_map()["metadata"].mutable_map().set("uid", "not-a-uid");
  auto f = read_workload(wl);
  ASSERT_TRUE(f);
  auto t = at("2026-11-28T10:00:00Z");
  auto intervals = segment_intervals(config(), *f, *core::Id::parse(kTenant), "k", t, t + core::Duration::seconds(1));
  ASSERT_FALSE(intervals);
  EXPECT_EQ(intervals.error().field, "metadata.uid");
  EXPECT_NE(intervals.error().describe().find("not-a-uid"), std::string::npos) << intervals.error().describe();
}

}  // namespace
}  // namespace budcore::companion
