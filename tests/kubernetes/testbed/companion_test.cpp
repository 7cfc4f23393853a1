// The companion controller against the real Kueue: AdmissionChecks of budcore's controller
// names on a ClusterQueue, plain batch/v1 Jobs created with API calls (not through budcore), and
// the states Kueue acts on: Ready -> admitted; Retry -> held (deactivated by the companion, so
// Kueue evicts it and its quota is free) and reactivated when the hold ends; Rejected ->
// deactivated by Kueue. A window holds a Workload until it opens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "budcore/backend/store.hpp"
#include "budcore/companion/companion.hpp"
#include "budcore/core/json.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/kubernetes/status.hpp"
#include "kubernetes/testbed/testbed.hpp"

namespace budcore::companion {
namespace {

using core::List;
using core::Map;
using core::Value;
using kubernetes::Client;
using testing::Testbed;
namespace res = kubernetes::resources;

const char* kTenant = "0190e6f4-0000-7000-8000-0000000000c1";

class CompanionTestbedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BUDCORE_NEED_TESTBED();
    this->tb = tb;
    client = tb->client();
    sfx = Testbed::unique("c").substr(2);
    ns = "cmp-" + sfx;
    flavor = "cf-" + sfx;
    cq = "cq-" + sfx;
    budget_check = "budget-" + sfx;
    window_check = "window-" + sfx;
    ASSERT_TRUE(kubernetes::ensure_namespace(*client, ns));
    create(res::resource_flavors(), "", Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                            {"kind", "ResourceFlavor"},
                                            {"metadata", Map{{"name", flavor}}},
                                            {"spec", Map{}}});
    for (const auto& [name, ctl] : {std::pair{budget_check, "budcore.io/budget-" + sfx},
                                    std::pair{window_check, "budcore.io/window-" + sfx}}) {
      create(res::admission_checks(), "", Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                              {"kind", "AdmissionCheck"},
                                              {"metadata", Map{{"name", name}}},
                                              {"spec", Map{{"controllerName", ctl}}}});
    }
    std::filesystem::create_directories(BUDCORE_BINARY_DIR "/companion_testbed");
    store_uri = "sqlite:" BUDCORE_BINARY_DIR "/companion_testbed/" + sfx + ".db";
  }

  void TearDown() override {
    if (companion) companion->stop();
    if (runner.joinable()) runner.join();
  }

  void create(const kubernetes::Resource& r, const std::string& in_ns, const Value& obj) {
    auto c = client->create(r, in_ns, obj);
    ASSERT_TRUE(c) << c.error().describe();
  }

  // A ClusterQueue of `gpus` GPUs on our flavor whose workloads need both checks, and a LocalQueue.
  void queues(int gpus) {
    List rules{Map{{"name", budget_check}}, Map{{"name", window_check}}};
    create(res::cluster_queues(), "",
           Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
               {"kind", "ClusterQueue"},
               {"metadata", Map{{"name", cq}}},
               {"spec", Map{{"namespaceSelector", Map{}},
                            {"admissionChecksStrategy", Map{{"admissionChecks", rules}}},
                            {"resourceGroups",
                             List{Map{{"coveredResources", List{"cpu", "memory", "nvidia.com/gpu"}},
                                      {"flavors", List{Map{{"name", flavor},
                                                           {"resources", List{Map{{"name", "cpu"}, {"nominalQuota", 64}},
                                                                              Map{{"name", "memory"}, {"nominalQuota", "256Gi"}},
                                                                              Map{{"name", "nvidia.com/gpu"}, {"nominalQuota", gpus}}}}}}}}}}}}});
    create(res::local_queues(), ns, Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                        {"kind", "LocalQueue"},
                                        {"metadata", Map{{"name", "lq"}, {"namespace", ns}}},
                                        {"spec", Map{{"clusterQueue", cq}}}});
  }

  // Budget 100 USD (hard limit), soft limit 80%, a GPU-hour of our flavor at 10 USD.
  CompanionConfig config() {
    auto c = CompanionConfig::from_text(config_text());
    EXPECT_TRUE(c) << c.error().describe();
    return *c;
  }

  std::string config_text() {
    return "controllers:\n"
                       "  - {name: budcore.io/budget-" + sfx + ", checks: [budget]}\n"
                       "  - {name: budcore.io/window-" + sfx + ", checks: [window]}\n"
                       "cluster_queues: [" + cq + "]\n"
                       "tenants: [{namespace: " + ns + ", tenant_id: " + kTenant + "}]\n"
                       "price_book: {currency: USD, gpu_hour: {gpu-x: {on_demand: \"10.00\"}}}\n"
                       "budgets: {budgets: [{name: team, tenant_id: " + kTenant + ", amount: \"100.00\", hard_limit: true}]}\n"
                       "soft_limit_percent: 80\n"
                       "retry_after_seconds: 600\n"
                       "flavor_gpu_types: {" + flavor + ": gpu-x}\n"
                       "default_duration: 1h\n";
  }

  // `budcore kueue companion --once` with this test's configuration: exit code and stdout.
  std::pair<int, std::string> cli_once() {
    std::string dir = BUDCORE_BINARY_DIR "/companion_testbed";
    std::string cfg = dir + "/" + sfx + ".yaml";
    std::ofstream(cfg) << config_text();
    std::string cmd = std::string(BUDCORE_BINARY_DIR) + "/bin/budcore kueue companion --once --config " + cfg +
                      " --kubeconfig " + tb->kubeconfig() + " --store " + store_uri + " 2>&1";
    std::string out;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (pipe == nullptr) return {-1, out};
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    int rc = pclose(pipe);
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
  }

  void start(CompanionConfig cfg) {
    auto s = backend::open_store(store_uri);
    ASSERT_TRUE(s) << s.error().describe();
    store = std::move(*s);
    auto c = Companion::open(std::move(cfg), *client, *store);
    ASSERT_TRUE(c) << c.error().describe();
    companion = std::move(*c);
    auto names = companion->activate_checks();
    ASSERT_TRUE(names) << names.error().describe();
    runner = std::thread([this] {
      companion->run({}, [](const core::Error& e) { std::cerr << "companion: " << e.describe() << "\n"; });
    });
  }

  void restart() {
    companion->stop();
    runner.join();
    companion.reset();
    store.reset();
    start(config());
  }

  // A plain suspended batch/v1 Job on the LocalQueue asking for one GPU.
  std::string job(const std::string& name, Map annotations) {
    Value container = Map{{"name", "c"},
                          {"image", "busybox:1.36"},
                          {"resources", Map{{"requests", Map{{"cpu", "1"}, {"nvidia.com/gpu", "1"}}},
                                            {"limits", Map{{"nvidia.com/gpu", "1"}}}}}};
    Value j = Map{{"apiVersion", "batch/v1"},
                  {"kind", "Job"},
                  {"metadata", Map{{"name", name}, {"namespace", ns}, {"labels", Map{{"kueue.x-k8s.io/queue-name", "lq"}}},
                                   {"annotations", annotations}}},
                  {"spec", Map{{"suspend", true},
                               {"template", Map{{"spec", Map{{"restartPolicy", "Never"}, {"containers", List{container}}}}}}}}};
    create(res::jobs(), ns, j);
    return name;
  }

  std::optional<Value> workload_of(const std::string& job_name) {
    auto l = client->list(res::workloads(), ns);
    if (!l) return std::nullopt;
    for (const auto& w : l->items) {
      const Value* owners = w.find_path("metadata.ownerReferences");
      if (owners == nullptr || !owners->is_list()) continue;
      for (const auto& o : owners->as_list())
        if (o.find("name") && o.find("name")->as_string() == job_name) return w;
    }
    return std::nullopt;
  }

  bool admitted(const Value& wl) {
    auto c = kubernetes::find_condition(wl, "Admitted");
    return c && c->status == "True";
  }

  // Waits until the Job's Workload satisfies pred; returns its last version.
  Value wait_workload(const std::string& job_name, const std::function<bool(const Value&)>& pred,
                      std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    Value last;
    Testbed::wait_until(
        [&] {
          auto w = workload_of(job_name);
          if (w) last = *w;
          return w && pred(*w);
        },
        timeout);
    return last;
  }

  static bool active(const Value& wl) {
    const Value* a = wl.find_path("spec.active");
    return a == nullptr || a->as_bool();
  }

  static bool held(const Value& wl) {
    const Value* a = wl.find_path("metadata.annotations");
    return a != nullptr && a->is_map() && a->find("budcore.io/held-until") != nullptr;
  }

  static bool says(const Value& wl, const std::string& text) { return core::to_json(wl).find(text) != std::string::npos; }

  bool suspended(const std::string& job_name) {
    auto j = client->get(res::jobs(), ns, job_name);
    return j && j->find_path("spec.suspend") && j->find_path("spec.suspend")->as_bool();
  }

  std::int64_t reserved_gpus() {
    auto c = client->get(res::cluster_queues(), "", cq);
    if (!c) return -1;
    const Value* fr = c->find_path("status.flavorsReservation");
    if (fr == nullptr || !fr->is_list()) return 0;
    for (const auto& f : fr->as_list())
      for (const auto& r : f.find("resources")->as_list())
        if (r.find("name")->as_string() == "nvidia.com/gpu") {
          auto q = core::Quantity::parse(r.find("total")->is_string() ? r.find("total")->as_string() : std::to_string(r.find("total")->as_int()));
          return q ? q->value().value_or(-1) : -1;
        }
    return 0;
  }

  testing::Testbed* tb = nullptr;
  std::unique_ptr<Client> client;
  std::string sfx, ns, flavor, cq, budget_check, window_check, store_uri;
  std::unique_ptr<backend::Store> store;
  std::unique_ptr<Companion> companion;
  std::thread runner;
};

TEST_F(CompanionTestbedTest, ChecksAreActivatedAndOtherControllersLeftAlone) {
  create(res::admission_checks(), "", Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                          {"kind", "AdmissionCheck"},
                                          {"metadata", Map{{"name", "other-" + sfx}}},
                                          {"spec", Map{{"controllerName", "example.com/other-" + sfx}}}});
  queues(4);
  start(config());
  EXPECT_EQ(companion->admission_checks().size(), 2u);
  EXPECT_TRUE(companion->admission_checks().contains(budget_check));
  for (const auto& name : {budget_check, window_check}) {
    auto ac = client->get(res::admission_checks(), "", name);
    ASSERT_TRUE(ac);
    auto active = kubernetes::find_condition(*ac, "Active");
    ASSERT_TRUE(active) << name;
    EXPECT_EQ(active->status, "True");
  }
  auto other = client->get(res::admission_checks(), "", "other-" + sfx);
  ASSERT_TRUE(other);
  EXPECT_FALSE(kubernetes::find_condition(*other, "Active")) << core::to_json(*other);
  // With both checks active Kueue activates the ClusterQueue.
  EXPECT_TRUE(Testbed::wait_until([&] {
    auto c = client->get(res::cluster_queues(), "", cq);
    auto a = c ? kubernetes::find_condition(*c, "Active") : std::nullopt;
    return a && a->status == "True";
  }));
}

TEST_F(CompanionTestbedTest, BudgetAdmitsHoldsAtTheSoftLimitAndRejectsPastTheHardLimit) {
  queues(8);
  start(config());
  // 5 h x 10 USD = 50: within budget, admitted; the duration comes from the Job's annotation.
  job("a", Map{{"budcore.io/expected-duration", "5h"}});
  Value a = wait_workload("a", [&](const Value& w) { return admitted(w); });
  ASSERT_TRUE(admitted(a)) << core::to_json(a);
  EXPECT_TRUE(says(a, "within budget (team); estimate 50.00 USD")) << core::to_json(a);
  EXPECT_TRUE(Testbed::wait_until([&] { return !suspended("a"); }));
  // 2 h = 20: 70 <= 80, admitted.
  job("b", Map{{"budcore.io/expected-duration", "2h"}});
  ASSERT_TRUE(admitted(wait_workload("b", [&](const Value& w) { return admitted(w); })));

  // The companion restarted: what it let through stays counted (from its Store).
  restart();

  // 2 h = 20: 70 + 20 passes the soft limit (80): held with the message, quota released.
  job("c", Map{{"budcore.io/expected-duration", "2h"}});
  Value c = wait_workload("c", [&](const Value& w) { return says(w, "passes the soft limit") && !active(w); });
  ASSERT_TRUE(says(c, "passes the soft limit")) << core::to_json(c);
  EXPECT_TRUE(says(c, "spent 70.00 USD + this Workload 20.00 USD")) << core::to_json(c);
  EXPECT_FALSE(active(c));
  EXPECT_TRUE(held(c)) << core::to_json(c);
  EXPECT_FALSE(admitted(c));
  EXPECT_TRUE(suspended("c"));
  // Kueue evicted it and released its quota: only a and b hold GPUs.
  EXPECT_TRUE(Testbed::wait_until([&] { return reserved_gpus() == 2; })) << reserved_gpus();

  // 4 h = 40: 70 + 40 passes the hard limit (100): Rejected, and Kueue deactivates it.
  job("d", Map{{"budcore.io/expected-duration", "4h"}});
  Value d = wait_workload("d", [&](const Value& w) { return !active(w) && says(w, "DeactivatedDueToAdmissionCheck"); });
  ASSERT_FALSE(active(d)) << core::to_json(d);
  EXPECT_TRUE(says(d, "passes the hard limit")) << core::to_json(d);
  EXPECT_TRUE(says(d, "deactivated due to AdmissionCheck in Rejected state")) << core::to_json(d);
  // Rejected is Kueue's deactivation, not a hold of the companion's.
  EXPECT_FALSE(held(d)) << core::to_json(d);
  EXPECT_FALSE(admitted(d));
  EXPECT_TRUE(suspended("d"));
  EXPECT_TRUE(Testbed::wait_until([&] { return reserved_gpus() == 2; })) << reserved_gpus();

  // A malformed duration annotation: Rejected naming it.
  job("e", Map{{"budcore.io/expected-duration", "a while"}});
  Value e = wait_workload("e", [&](const Value& w) { return says(w, "budcore.io/expected-duration"); });
  EXPECT_TRUE(says(e, "a while")) << core::to_json(e);
  EXPECT_FALSE(admitted(e));
}

TEST_F(CompanionTestbedTest, WindowHoldsAWorkloadWithoutItsQuotaUntilItOpens) {
  queues(1);
  start(config());
  // A window that opens 20 s from now (UTC, to the second) and stays open an hour.
  auto now = core::Timestamp::from_unix_seconds(std::chrono::duration_cast<std::chrono::seconds>(
                                                    std::chrono::system_clock::now().time_since_epoch())
                                                    .count());
  auto hhmmss = [](core::Timestamp t) { return t.to_string().substr(11, 8); };
  core::Timestamp opens = now + core::Duration::seconds(20);
  std::string window = hhmmss(opens) + "-" + hhmmss(opens + core::Duration::hours(1));
  job("w", Map{{"budcore.io/window", window}, {"budcore.io/expected-duration", "10m"}});
  Value w = wait_workload("w", [&](const Value& x) { return says(x, "next opening"); });
  ASSERT_TRUE(says(w, "outside the window " + window.substr(0, 8))) << core::to_json(w);
  EXPECT_TRUE(says(w, "next opening " + opens.to_string())) << core::to_json(w);
  EXPECT_FALSE(admitted(w));
  EXPECT_FALSE(active(w));
  // The held Workload keeps no quota: a Job without a window takes the only GPU before the
  // window opens.
  job("x", Map{{"budcore.io/expected-duration", "10m"}});
  Value x = wait_workload("x", [&](const Value& v) { return admitted(v); });
  ASSERT_TRUE(admitted(x)) << core::to_json(x);
  auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  EXPECT_LT(now_ms(), opens.unix_seconds() * 1000) << "x was admitted only after the window opened";
  EXPECT_FALSE(admitted(*workload_of("w")));
  EXPECT_TRUE(Testbed::wait_until([&] { return reserved_gpus() == 1; })) << reserved_gpus();
  // x finishes before the opening; w still waits for its window, then is admitted within a few
  // seconds of it.
  auto done = testing::mark_job_complete(*client, ns, "x");
  ASSERT_TRUE(done) << done.error().describe();
  Value admitted_w = wait_workload("w", [&](const Value& v) { return admitted(v); }, std::chrono::seconds(60));
  ASSERT_TRUE(admitted(admitted_w)) << core::to_json(admitted_w);
  auto late = now_ms() - opens.unix_seconds() * 1000;
  EXPECT_GE(late, 0);
  EXPECT_LE(late, 5000) << "admitted " << late << " ms after the opening";
  EXPECT_TRUE(active(admitted_w));
  EXPECT_FALSE(held(admitted_w)) << core::to_json(admitted_w);
  std::cerr << "window opened at " << opens.to_string() << ", admitted " << late << " ms later\n";
}

// A Workload that appeared while the companion was not watching is answered when its watch
// resumes from the version it had seen.
TEST_F(CompanionTestbedTest, AResumedWatchAnswersWorkloadsThatAppearedMeanwhile) {
  queues(2);
  auto s = backend::open_store(store_uri);
  ASSERT_TRUE(s) << s.error().describe();
  store = std::move(*s);
  auto c = Companion::open(config(), *client, *store);
  ASSERT_TRUE(c) << c.error().describe();
  companion = std::move(*c);
  ASSERT_TRUE(companion->activate_checks());
  auto first = companion->sync(1);
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(companion->relists(), 1u);
  job("late", Map{{"budcore.io/expected-duration", "1h"}});
  Value w = wait_workload("late", [&](const Value& v) { return says(v, "\"state\":\"Pending\"") && says(v, window_check); });
  ASSERT_TRUE(says(w, window_check)) << core::to_json(w);
  std::vector<Written> written;
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto r = companion->sync(1);
    EXPECT_TRUE(r) << r.error().describe();
    if (r) written.insert(written.end(), r->begin(), r->end());
    return written.size() >= 2;
  }));
  EXPECT_EQ(companion->relists(), 1u);
  for (const auto& x : written) {
    EXPECT_EQ(x.workload, ns + "/" + w.find_path("metadata.name")->as_string());
    EXPECT_EQ(x.decision.state, CheckState::Ready) << x.decision.message;
  }
  Value a = wait_workload("late", [&](const Value& v) { return admitted(v); });
  EXPECT_TRUE(admitted(a)) << core::to_json(a);
}

TEST_F(CompanionTestbedTest, TheCommandLineAnswersPendingChecks) {
  queues(2);
  // The first run marks the checks Active, so Kueue activates the ClusterQueue.
  auto [rc, out] = cli_once();
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("{\"event\":\"started\",\"admission_checks\":[\"" + budget_check + "\",\"" + window_check + "\"]"),
            std::string::npos) << out;
  job("cli", Map{{"budcore.io/expected-duration", "1h"}});
  // Kueue reserves quota and lists both checks as Pending; the second run answers them.
  Value w = wait_workload("cli", [&](const Value& v) { return says(v, "\"state\":\"Pending\"") && says(v, window_check); });
  ASSERT_TRUE(says(w, window_check)) << core::to_json(w);
  std::tie(rc, out) = cli_once();
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"state\":\"Ready\",\"message\":\"within budget (team); estimate 10.00 USD\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"admission_check\":\"" + budget_check + "\""), std::string::npos) << out;
  Value a = wait_workload("cli", [&](const Value& v) { return admitted(v); });
  EXPECT_TRUE(admitted(a)) << core::to_json(a);
}

}  // namespace
}  // namespace budcore::companion
