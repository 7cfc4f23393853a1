// The companion's configuration and its pure decisions: a Workload read, priced, and judged
// against budgets (Ready, Retry at the soft limit, Rejected past the hard limit) and windows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "budcore/companion/companion.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"

namespace budcore::companion {
namespace {

using core::Map;
using core::Value;

const char* kTenantA = "0190e6f4-0000-7000-8000-00000000000a";
const char* kTenantB = "0190e6f4-0000-7000-8000-00000000000b";

std::string config_text(const std::string& extra = "") {
  return std::string(R"(schema_version: 1
controllers:
  - {name: budcore.io/budget, checks: [budget]}
  - {name: budcore.io/window, checks: [window]}
cluster_queues: [cq-a]
tenants:
  - {namespace: team-a, tenant_id: )") + kTenantA + R"(}
  - {label: "budcore.io/tenant=b", tenant_id: )" + kTenantB + R"(}
price_book:
  currency: USD
  gpu_hour:
    nvidia-a100-80gb: {on_demand: "2.00"}
    h100: {on_demand: "4.00"}
  cpu_core_hour: {on_demand: "0.01"}
budgets:
  budgets:
    - {name: team-a-monthly, tenant_id: )" + kTenantA + R"(, period: monthly, amount: "100.00", hard_limit: true}
    - {name: team-b-monthly, tenant_id: )" + kTenantB + R"(, period: monthly, amount: "50.00"}
soft_limit_percent: 80
retry_after_seconds: 120
flavor_gpu_types: {a100: nvidia-a100-80gb}
queues:
  cq-a: {default_duration: 2h, window: {start: "22:00", end: "06:00", zone: UTC}}
)" + extra;
}

CompanionConfig config(const std::string& extra = "") {
  auto c = CompanionConfig::from_text(config_text(extra));
  EXPECT_TRUE(c) << c.error().describe();
  return c ? *c : CompanionConfig{};
}

// A Workload of `pods` pods with `gpus` GPUs and 1 CPU each, quota reserved in cq-a on `flavor`.
Value workload(const std::string& ns, int pods, int gpus, const std::string& flavor = "a100",
               Map annotations = {}, Map labels = {}) {
  Value container = Map{{"name", "c"},
                        {"image", "busybox"},
                        {"resources", Map{{"requests", Map{{"cpu", "1"}, {"nvidia.com/gpu", std::to_string(gpus)}}}}}};
  return Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
             {"kind", "Workload"},
             {"metadata", Map{{"name", "wl-1"}, {"namespace", ns}, {"uid", "u-1"}, {"annotations", annotations}, {"labels", labels}}},
             {"spec", Map{{"queueName", "lq"},
                          {"podSets", core::List{Map{{"name", "main"},
                                                     {"count", pods},
                                                     {"template", Map{{"spec", Map{{"containers", core::List{container}}}}}}}}}}},
             {"status", Map{{"admission", Map{{"clusterQueue", "cq-a"},
                                              {"podSetAssignments",
                                               core::List{Map{{"name", "main"},
                                                              {"count", pods},
                                                              {"flavors", Map{{"cpu", flavor}, {"nvidia.com/gpu", flavor}}}}}}}},
                            {"conditions", core::List{Map{{"type", "QuotaReserved"}, {"status", "True"}}}},
                            {"admissionChecks", core::List{Map{{"name", "budget-check"}, {"state", "Pending"}}}}}}};
}

WorkloadFacts facts(const Value& wl) {
  auto f = read_workload(wl);
  EXPECT_TRUE(f) << f.error().describe();
  return f ? *f : WorkloadFacts{};
}

core::Money usd(const char* amount) { return *core::Money::parse(amount, "USD"); }

TEST(CompanionConfigTest, ReadsEveryField) {
  auto c = config();
  ASSERT_EQ(c.controllers.size(), 2u);
  EXPECT_EQ(c.checks_of("budcore.io/budget"), std::vector<CheckKind>{CheckKind::Budget});
  EXPECT_EQ(c.checks_of("budcore.io/window"), std::vector<CheckKind>{CheckKind::Window});
  EXPECT_TRUE(c.checks_of("kueue.x-k8s.io/multikueue").empty());
  EXPECT_EQ(c.cluster_queues, std::set<std::string>{"cq-a"});
  ASSERT_EQ(c.tenants.size(), 2u);
  EXPECT_EQ(c.tenants[0].namespace_, "team-a");
  EXPECT_EQ(c.tenants[1].label_key, "budcore.io/tenant");
  EXPECT_EQ(c.tenants[1].label_value, "b");
  EXPECT_EQ(c.budgets.budgets.size(), 2u);
  EXPECT_EQ(c.soft_limit_percent, 80);
  EXPECT_EQ(c.retry_after_seconds, 120);
  ASSERT_TRUE(c.queues.at("cq-a").window);
  EXPECT_EQ(c.queues.at("cq-a").window->start.to_string(), "22:00");
  EXPECT_EQ(*c.queues.at("cq-a").default_duration, core::Duration::hours(2));
  EXPECT_EQ(c.flavor_gpu_types.at("a100"), "nvidia-a100-80gb");
}

// Each bad input is refused with the field, the value and why.
TEST(CompanionConfigTest, ErrorsNameFieldValueAndWhy) {
  struct Case {
    std::string text;
    std::string field, value, why;
  } cases[] = {
      {"controllers: []\n", "controllers", "[]", "non-empty"},
      {"controllers: [{name: x, checks: [budgte]}]\n", "controllers[0].checks[0]", "budgte", "budget or window"},
      {"controllers: [{name: x, checks: [window]}]\nqueues: {cq: {window: \"25:00-06:00\"}}\n", "queues.cq.window",
       "25:00-06:00", "start"},
      {"controllers: [{name: x, checks: [window]}]\nqueues: {cq: {window: \"22:00-06:00 Mars/Olympus\"}}\n",
       "queues.cq.window", "22:00-06:00 Mars/Olympus", "unknown time zone"},
      {"controllers: [{name: x, checks: [budget]}]\n", "price_book", "", "required"},
      {"controllers: [{name: x, checks: [window]}]\ntenants: [{namespace: a, tenant_id: nope}]\n", "tenants[0].tenant_id",
       "nope", ""},
      {"controllers: [{name: x, checks: [window]}]\ndefault_duration: 0s\n", "default_duration", "0s", "positive"},
      {"controllers: [{name: x, checks: [window]}]\nsoft_limit_percent: 150\n", "soft_limit_percent", "150", "1..100"},
      {"controllers: [{name: x, checks: [window]}]\ncontrolers: []\n", "controlers", "", "did you mean 'controllers'"},
  };
  for (const auto& c : cases) {
    auto r = CompanionConfig::from_text(c.text);
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().field, c.field) << c.text << " -> " << r.error().describe();
    if (!c.value.empty()) EXPECT_EQ(r.error().value, c.value) << r.error().describe();
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << r.error().describe();
  }
}

TEST(CompanionConfigTest, BudgetOfAnUnmappedTenantIsRefused) {
  std::string text = config_text();
  // Team b's rule removed: its budget can never apply.
  auto pos = text.find("  - {label:");
  text.erase(pos, text.find('\n', pos) - pos + 1);
  auto r = CompanionConfig::from_text(text);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "budgets.budgets[1].tenant_id");
  EXPECT_EQ(r.error().value, kTenantB);
  EXPECT_NE(r.error().message.find("no entry of tenants"), std::string::npos);
}

TEST(CompanionConfigTest, FilesAreResolvedBesideTheConfig) {
  std::string dir = ::testing::TempDir() + "companion_cfg";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir + "/prices.yaml") << "currency: USD\ngpu_hour: {h100: {on_demand: \"4.00\"}}\n";
    std::ofstream(dir + "/budgets.yaml") << "budgets: [{name: b, tenant_id: " << kTenantA << ", amount: \"10\"}]\n";
    std::ofstream(dir + "/companion.yaml") << "controllers: [{name: x, checks: [budget]}]\ntenants: [{namespace: a, tenant_id: "
                                           << kTenantA << "}]\nprice_book: prices.yaml\nbudgets: budgets.yaml\n";
  }
  auto c = CompanionConfig::load_file(dir + "/companion.yaml");
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_TRUE(c->price_book.gpu_hour.contains("h100"));
  EXPECT_EQ(c->budgets.budgets.at(0).name, "b");
  std::ofstream(dir + "/companion.yaml") << "controllers: [{name: x, checks: [budget]}]\nprice_book: missing.yaml\n";
  auto missing = CompanionConfig::load_file(dir + "/companion.yaml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().field, "price_book");
  EXPECT_EQ(missing.error().value, "missing.yaml");
}

TEST(CompanionWorkloadTest, ReadsPodSetsFlavorsAndChecks) {
  Value wl = workload("team-a", 3, 2);
  wl.mutable_map()["spec"].mutable_map().set("maximumExecutionTimeSeconds", 600);
  auto f = facts(wl);
  EXPECT_EQ(f.namespace_, "team-a");
  EXPECT_EQ(f.uid, "u-1");
  EXPECT_EQ(f.cluster_queue, "cq-a");
  EXPECT_TRUE(f.quota_reserved);
  EXPECT_FALSE(f.finished);
  ASSERT_EQ(f.pod_sets.size(), 1u);
  EXPECT_EQ(f.pod_sets[0].count, 3);
  EXPECT_EQ(f.pod_sets[0].requests.at("nvidia.com/gpu"), core::Quantity::from_int(2));
  EXPECT_EQ(f.pod_sets[0].flavors.at("nvidia.com/gpu"), "a100");
  EXPECT_EQ(f.checks.at("budget-check"), CheckState::Pending);
  EXPECT_EQ(*f.maximum_execution_time_seconds, 600);
  // The owner's annotations fill in, the Workload's own win.
  auto g = read_workload(workload("team-a", 1, 1, "a100", Map{{"x", "own"}}), {{"x", "owner"}, {"y", "owner"}});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->annotations.at("x"), "own");
  EXPECT_EQ(g->annotations.at("y"), "owner");
  // A malformed quantity names its path.
  Value bad = workload("team-a", 1, 1);
  bad.mutable_map()["spec"].mutable_map()["podSets"].mutable_list()[0].mutable_map()["template"].mutable_map()["spec"]
      .mutable_map()["containers"].mutable_list()[0].mutable_map()["resources"].mutable_map()["requests"]
      .mutable_map().set("cpu", "lots");
  auto r = read_workload(bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "spec.podSets[0].template.spec.containers[0].resources.requests.cpu");
  EXPECT_EQ(r.error().value, "lots");
}

TEST(CompanionPriceTest, PodsTimesGpusTimesHoursAtTheFlavorsPrice) {
  auto c = config();
  // 2 pods x 2 GPUs x 2 h (the queue's default) x 2.00 + 2 cores x 2 h x 0.01 = 16.04
  auto p = price_workload(c, facts(workload("team-a", 2, 2)));
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_EQ(p->total, usd("16.04"));
  EXPECT_EQ(p->duration.source, "queue cq-a");
  ASSERT_EQ(p->lines.size(), 1u);
  EXPECT_NE(p->lines[0].find("nvidia-a100-80gb"), std::string::npos) << p->lines[0];
  // A flavor without a mapping is priced as the GPU type of its own name.
  auto h = price_workload(c, facts(workload("team-a", 1, 1, "h100", Map{{"budcore.io/expected-duration", "30m"}})));
  ASSERT_TRUE(h) << h.error().describe();
  EXPECT_EQ(h->total, usd("2.005"));
  EXPECT_EQ(h->duration.source, "annotation budcore.io/expected-duration");
}

TEST(CompanionPriceTest, DurationComesFromAnnotationThenMaxExecutionTimeThenQueueThenDefault) {
  auto c = config("default_duration: 10m\n");
  Value wl = workload("team-a", 1, 1);
  wl.mutable_map()["spec"].mutable_map().set("maximumExecutionTimeSeconds", 900);
  auto d = expected_duration(c, facts(wl));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->duration, core::Duration::seconds(900));
  EXPECT_EQ(d->source, "maximumExecutionTimeSeconds");
  auto f = facts(workload("team-a", 1, 1));
  f.cluster_queue = "other";
  d = expected_duration(c, f);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->duration, core::Duration::minutes(10));
  EXPECT_EQ(d->source, "default_duration");
  auto none = expected_duration(config(), f);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, core::ErrorCode::NotFound);
  auto bad = expected_duration(c, facts(workload("team-a", 1, 1, "a100", Map{{"budcore.io/expected-duration", "two hours"}})));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, core::ErrorCode::Invalid);
  EXPECT_EQ(bad.error().field, "metadata.annotations[budcore.io/expected-duration]");
  EXPECT_EQ(bad.error().value, "two hours");
}

// The submitter's annotation cannot make a budget pay for less than the run Kueue lets go on.
TEST(CompanionPriceTest, ABudgetPaysForKueuesLimitWhenTheAnnotationIsShorter) {
  auto c = config();
  Value wl = workload("team-a", 1, 1, "h100", Map{{"budcore.io/expected-duration", "1s"}});
  wl.mutable_map()["spec"].mutable_map().set("maximumExecutionTimeSeconds", 1800);
  auto p = price_workload(c, facts(wl));
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_EQ(p->duration.duration, core::Duration::seconds(1800));
  EXPECT_EQ(p->duration.source, "maximumExecutionTimeSeconds");
  EXPECT_EQ(p->total, usd("2.005"));  // as the 30 minutes annotated above
  // A longer annotation is kept: it is the better guess, and within Kueue's limit.
  Value longer = workload("team-a", 1, 1, "h100", Map{{"budcore.io/expected-duration", "45m"}});
  longer.mutable_map()["spec"].mutable_map().set("maximumExecutionTimeSeconds", 1800);
  p = price_workload(c, facts(longer));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->duration.source, "annotation budcore.io/expected-duration");
}

TEST(CompanionBudgetTest, ReadyWithinRetryAtSoftLimitRejectedPastHardLimit) {
  auto c = config();
  auto f = facts(workload("team-a", 2, 2));  // 16.04 USD
  auto price = price_workload(c, f);
  ASSERT_TRUE(price);
  // 50 + 16.04 < 80 (the soft limit, 80% of 100): Ready.
  auto d = decide_budget(c, f, price, {{"team-a-monthly", usd("50")}});
  EXPECT_EQ(d.state, CheckState::Ready) << d.message;
  EXPECT_EQ(d.estimate, usd("16.04"));
  EXPECT_EQ(d.tenant->to_string(), kTenantA);
  EXPECT_NE(d.message.find("team-a-monthly"), std::string::npos);
  // 70 + 16.04 passes 80 but not 100: Retry with the message and the requeue delay.
  d = decide_budget(c, f, price, {{"team-a-monthly", usd("70")}});
  EXPECT_EQ(d.state, CheckState::Retry) << d.message;
  EXPECT_EQ(d.requeue_after_seconds, 120);
  EXPECT_EQ(d.budget, "team-a-monthly");
  EXPECT_NE(d.message.find("soft limit 80%"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("spent 70.00 USD + this Workload 16.04 USD"), std::string::npos) << d.message;
  // 90 + 16.04 passes the hard limit of 100: Rejected.
  d = decide_budget(c, f, price, {{"team-a-monthly", usd("90")}});
  EXPECT_EQ(d.state, CheckState::Rejected) << d.message;
  EXPECT_FALSE(d.requeue_after_seconds);
  EXPECT_NE(d.message.find("passes the hard limit"), std::string::npos) << d.message;
  // Team b's budget has no hard limit: past it the Workload is only held.
  auto fb = facts(workload("team-b", 1, 1, "a100", {}, Map{{"budcore.io/tenant", "b"}}));
  d = decide_budget(c, fb, price_workload(c, fb), {{"team-b-monthly", usd("49")}});
  EXPECT_EQ(d.state, CheckState::Retry) << d.message;
  EXPECT_EQ(d.tenant->to_string(), kTenantB);
}

TEST(CompanionBudgetTest, UnmappedTenantsAndUnpricedWorkloads) {
  auto c = config();
  auto f = facts(workload("elsewhere", 1, 1));
  auto d = decide_budget(c, f, price_workload(c, f), {});
  EXPECT_EQ(d.state, CheckState::Ready);
  EXPECT_NE(d.message.find("maps to no tenant"), std::string::npos);
  auto strict = config("unmapped_tenant: reject\n");
  EXPECT_EQ(decide_budget(strict, f, price_workload(strict, f), {}).state, CheckState::Rejected);
  // A malformed duration is the Workload's to fix: Rejected, naming the annotation.
  auto bad = facts(workload("team-a", 1, 1, "a100", Map{{"budcore.io/expected-duration", "soon"}}));
  d = decide_budget(c, bad, price_workload(c, bad), {});
  EXPECT_EQ(d.state, CheckState::Rejected);
  EXPECT_NE(d.message.find("budcore.io/expected-duration"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("soon"), std::string::npos) << d.message;
  // A GPU type the book does not price is the operator's to fix: held, not rejected.
  auto unpriced = facts(workload("team-a", 1, 1, "t4"));
  d = decide_budget(c, unpriced, price_workload(c, unpriced), {});
  EXPECT_EQ(d.state, CheckState::Retry) << d.message;
  EXPECT_NE(d.message.find("t4"), std::string::npos) << d.message;
}

TEST(CompanionWindowTest, OutsideTheWindowRetriesUntilTheNextOpening) {
  auto c = config();
  auto f = facts(workload("team-a", 1, 1));
  auto at = [](const char* t) { return *core::Timestamp::parse(t); };
  // The queue's window 22:00-06:00 UTC: open at 23:00 and 05:00, closed at 12:00.
  EXPECT_EQ(decide_window(c, f, at("2026-11-28T23:00:00Z")).state, CheckState::Ready);
  EXPECT_EQ(decide_window(c, f, at("2026-11-28T05:59:59Z")).state, CheckState::Ready);
  auto d = decide_window(c, f, at("2026-11-28T12:00:00Z"));
  EXPECT_EQ(d.state, CheckState::Retry);
  EXPECT_EQ(d.requeue_after_seconds, 10 * 3600);
  EXPECT_NE(d.message.find("next opening 2026-11-28T22:00:00Z"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("ClusterQueue cq-a"), std::string::npos) << d.message;
  // On a queue without a window the annotation applies alone, in its zone (Berlin is UTC+1 in
  // November).
  auto g = facts(workload("team-a", 1, 1, "a100", Map{{"budcore.io/window", "14:00-15:00 Europe/Berlin"}}));
  g.cluster_queue = "other";
  d = decide_window(c, g, at("2026-11-28T12:00:00Z"));
  EXPECT_EQ(d.state, CheckState::Retry);
  EXPECT_EQ(d.requeue_after_seconds, 3600);
  EXPECT_NE(d.message.find("next opening 2026-11-28T13:00:00Z"), std::string::npos) << d.message;
  EXPECT_EQ(decide_window(c, g, at("2026-11-28T13:30:00Z")).state, CheckState::Ready);
  // Sub-second waits round up, so Kueue never requeues before the opening.
  EXPECT_EQ(decide_window(c, g, at("2026-11-28T12:59:59.5Z")).requeue_after_seconds, 1);
  // On the queue's window the annotation narrows it and never widens it: both must be open.
  g.cluster_queue = f.cluster_queue;
  d = decide_window(c, g, at("2026-11-28T13:30:00Z"));
  EXPECT_EQ(d.state, CheckState::Rejected) << d.message;
  EXPECT_NE(d.message.find("never open at the same time"), std::string::npos) << d.message;
  auto everything = facts(workload("team-a", 1, 1, "a100", Map{{"budcore.io/window", "00:00-00:00"}}));
  d = decide_window(c, everything, at("2026-11-28T12:00:00Z"));
  EXPECT_EQ(d.state, CheckState::Retry) << d.message;  // not let through outside the queue's window
  EXPECT_NE(d.message.find("next opening 2026-11-28T22:00:00Z"), std::string::npos) << d.message;
  auto narrow = facts(workload("team-a", 1, 1, "a100", Map{{"budcore.io/window", "02:00-03:00 UTC"}}));
  d = decide_window(c, narrow, at("2026-11-28T23:00:00Z"));
  EXPECT_EQ(d.state, CheckState::Retry) << d.message;
  EXPECT_NE(d.message.find("next opening 2026-11-29T02:00:00Z"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("ClusterQueue cq-a"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("annotation budcore.io/window"), std::string::npos) << d.message;
  // A Workload in a queue without a window and without the annotation is never held.
  f.cluster_queue = "other";
  EXPECT_EQ(decide_window(c, f, at("2026-11-28T12:00:00Z")).state, CheckState::Ready);
}

TEST(CompanionWindowTest, MalformedWindowAnnotationIsRejectedNamingIt) {
  auto c = config();
  for (const char* text : {"22:00", "22:00-26:00", "22:00-06:00 Nowhere/City", "tonight"}) {
    auto f = facts(workload("team-a", 1, 1, "a100", Map{{"budcore.io/window", text}}));
    auto d = decide_window(c, f, *core::Timestamp::parse("2026-11-28T12:00:00Z"));
    EXPECT_EQ(d.state, CheckState::Rejected) << text;
    EXPECT_NE(d.message.find("metadata.annotations[budcore.io/window]"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find(text), std::string::npos) << d.message;
  }
}

TEST(CompanionDecisionTest, RoundTripsThroughItsDocument) {
  Decision d;
  d.check = CheckKind::Budget;
  d.state = CheckState::Retry;
  d.message = "held";
  d.requeue_after_seconds = 60;
  d.estimate = usd("16.04");
  d.tenant = *core::Id::parse_field(kTenantA, "t");
  d.budget = "team-a-monthly";
  auto back = decision_from_value(to_value(d));
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(*back, d);
  auto bad = decision_from_value(Value(Map{{"check", "budget"}, {"state", "Maybe"}}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "state");
}

}  // namespace
}  // namespace budcore::companion
