// The companion controller against the real Kueue: AdmissionChecks of budcore's controller
// names on a ClusterQueue, plain batch/v1 Jobs created with API calls (not through budcore), and
// the states Kueue acts on: Ready -> admitted; Retry -> held (deactivated by the companion, so
// Kueue evicts it and its quota is free) and reactivated when the hold ends; Rejected ->
// deactivated by Kueue. A window holds a Workload until it opens.
#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "budcore/backend/store.hpp"
#include "budcore/companion/companion.hpp"
#include "budcore/companion/estimates.hpp"
#include "budcore/core/json.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/cost/budget.hpp"
#include "budcore/cost/metering.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/kubernetes/status.hpp"
#include "backends/store_fixture.hpp"
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

// One companion replica with leader election: its own client (field manager budcore-<id>, so
// the Workloads' managedFields show who wrote), its own store, its own thread.
struct Replica {
  std::string id;
  std::unique_ptr<Client> client;
  std::unique_ptr<backend::Store> store;
  std::unique_ptr<Companion> companion;
  std::thread runner;
  std::atomic<int> written{0};
  std::mutex mu;
  std::vector<core::Error> errors;

  bool leads() const { return companion->leader()->is_leader(); }
  void stop() {
    if (companion) companion->stop();
    if (runner.joinable()) runner.join();
  }
  ~Replica() { stop(); }
};

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
  std::pair<int, std::string> cli_once(const std::string& extra_config = {}) {
    return once_with(BUDCORE_BINARY_DIR "/companion_testbed/" + sfx + ".yaml", config_text() + extra_config);
  }

  // `budcore kueue companion --once` with the configuration text written to cfg: its exit code
  // and output (stdout and stderr), connected with the admin's kubeconfig unless given another.
  std::pair<int, std::string> once_with(const std::string& cfg, const std::string& text, std::string kubeconfig = {}) {
    std::ofstream(cfg) << text;
    if (kubeconfig.empty()) kubeconfig = tb->kubeconfig();
    std::string cmd = std::string(BUDCORE_BINARY_DIR) + "/bin/budcore kueue companion --once --config " + cfg +
                      " --kubeconfig " + kubeconfig + " --store " + store_uri + " 2>&1";
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
  std::string job(const std::string& name, Map annotations) { return job_in(ns, "lq", name, 1, std::move(annotations)); }

  // A plain suspended batch/v1 Job in `in_ns` on LocalQueue `queue`, one pod asking for `gpus` GPUs.
  std::string job_in(const std::string& in_ns, const std::string& queue, const std::string& name, int gpus, Map annotations) {
    Value container = Map{{"name", "c"},
                          {"image", "busybox:1.36"},
                          {"resources", Map{{"requests", Map{{"cpu", "1"}, {"nvidia.com/gpu", std::to_string(gpus)}}},
                                            {"limits", Map{{"nvidia.com/gpu", std::to_string(gpus)}}}}}};
    Value j = Map{{"apiVersion", "batch/v1"},
                  {"kind", "Job"},
                  {"metadata", Map{{"name", name}, {"namespace", in_ns}, {"labels", Map{{"kueue.x-k8s.io/queue-name", queue}}},
                                   {"annotations", annotations}}},
                  {"spec", Map{{"suspend", true},
                               {"template", Map{{"spec", Map{{"restartPolicy", "Never"}, {"containers", List{container}}}}}}}}};
    create(res::jobs(), in_ns, j);
    return name;
  }

  std::optional<Value> workload_of(const std::string& job_name) { return workload_in(ns, job_name); }

  std::optional<Value> workload_in(const std::string& in_ns, const std::string& job_name) {
    auto l = client->list(res::workloads(), in_ns);
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

  std::string lease_name() const { return "lease-" + sfx; }

  // A replica of this test's configuration electing on lease_name() in `lease_ns`, connected
  // with `cluster` (the test bed's admin credentials unless given others).
  std::unique_ptr<Replica> replica(const std::string& id, const std::string& lease_ns,
                                   std::optional<kubernetes::ClusterConfig> cluster = std::nullopt,
                                   const std::string& extra_config = "", const std::string& shared_store = "",
                                   const std::string& base_config = "") {
    auto r = std::make_unique<Replica>();
    r->id = id;
    kubernetes::ClientOptions o;
    o.field_manager = "budcore-" + id;
    auto c = Client::open(cluster ? *cluster : tb->config(), o);
    EXPECT_TRUE(c) << c.error().describe();
    r->client = std::move(*c);
    auto s = backend::open_store(!shared_store.empty() ? shared_store
                                                       : "sqlite:" BUDCORE_BINARY_DIR "/companion_testbed/" + sfx + "-" + id + ".db");
    EXPECT_TRUE(s) << s.error().describe();
    r->store = std::move(*s);
    auto cfg = CompanionConfig::from_text((base_config.empty() ? config_text() : base_config) +
                                          "leader_election: {lease_name: " + lease_name() +
                                          ", namespace: " + lease_ns + ", identity: " + id +
                                          ", lease_duration: 4s, renew_deadline: 3s, retry_period: 500ms}\n" +
                                          extra_config);
    EXPECT_TRUE(cfg) << cfg.error().describe();
    auto comp = Companion::open(std::move(*cfg), *r->client, *r->store);
    EXPECT_TRUE(comp) << comp.error().describe();
    r->companion = std::move(*comp);
    Replica* p = r.get();
    r->runner = std::thread([p] {
      p->companion->run([p](const Written&) { p->written.fetch_add(1); },
                        [p](const core::Error& e) {
                          std::lock_guard lock(p->mu);
                          p->errors.push_back(e);
                        });
    });
    return r;
  }

  // The field managers that wrote to an object.
  static std::set<std::string> managers(const Value& obj) {
    std::set<std::string> out;
    const Value* mf = obj.find_path("metadata.managedFields");
    if (mf != nullptr && mf->is_list())
      for (const auto& m : mf->as_list())
        if (const Value* n = m.find("manager"); n != nullptr && n->is_string()) out.insert(n->as_string());
    return out;
  }

  // Two `budcore kueue companion` processes on one Lease: only the holder answers; when it ends
  // by `sig` (SIGTERM: it releases the Lease; SIGKILL: it cannot) the other process takes the
  // Lease and answers the next Workload.
  void run_two_processes(int sig) {
    queues(4);
    std::string dir = BUDCORE_BINARY_DIR "/companion_testbed";
    std::string cfg = dir + "/" + sfx + "-replicas.yaml";
    std::ofstream(cfg) << config_text() << "leader_election: {lease_name: " << lease_name() << ", namespace: " << ns
                       << ", lease_duration: 4s, renew_deadline: 3s, retry_period: 500ms}\n";
    struct Process {
      int pid = 0;
      std::string out;
      std::string output() const {
        std::ifstream in(out);
        std::stringstream t;
        t << in.rdbuf();
        return t.str();
      }
      bool running() const { return pid > 0 && ::kill(pid, 0) == 0; }
    };
    auto spawn = [&](const std::string& name) {
      Process p;
      p.out = dir + "/" + sfx + "-" + name + ".out";
      std::string pidfile = dir + "/" + sfx + "-" + name + ".pid";
      std::string cmd = std::string(BUDCORE_BINARY_DIR) + "/bin/budcore kueue companion --config " + cfg + " --kubeconfig " +
                        tb->kubeconfig() + " --store sqlite:" + dir + "/" + sfx + "-" + name + ".db > " + p.out +
                        " 2>&1 & echo $! > " + pidfile;
      EXPECT_EQ(std::system(cmd.c_str()), 0);
      std::ifstream(pidfile) >> p.pid;
      return p;
    };
    Process one = spawn("one"), two = spawn("two");
    // A failed assertion must not leave the processes running.
    struct Reaper {
      std::vector<int> pids;
      ~Reaper() {
        for (int p : pids)
          if (p > 0) ::kill(p, SIGTERM);
      }
    } reaper{{one.pid, two.pid}};
    ASSERT_GT(one.pid, 0);
    ASSERT_GT(two.pid, 0);
    auto holder_id = [&] {
      auto l = client->get(res::leases(), ns, lease_name());
      return l ? read_lease(*l).holder : std::string();
    };
    ASSERT_TRUE(Testbed::wait_until([&] { return !holder_id().empty(); }, std::chrono::seconds(15)));
    std::string first = holder_id();
    Process* holder = one.output().find("\"identity\":\"" + first + "\"") != std::string::npos ? &one : &two;
    Process* other = holder == &one ? &two : &one;
    ASSERT_NE(holder->output().find("\"identity\":\"" + first + "\""), std::string::npos) << one.output() << two.output();
  
    job("first", Map{{"budcore.io/expected-duration", "1h"}});
    Value w = wait_workload("first", [&](const Value& v) { return admitted(v); });
    ASSERT_TRUE(admitted(w)) << core::to_json(w);
    // The holder prints its decision after the write returns, possibly after Kueue admitted.
    EXPECT_TRUE(Testbed::wait_until([&] { return holder->output().find("\"event\":\"decision\"") != std::string::npos; }))
        << holder->output();
    EXPECT_EQ(other->output().find("\"event\":\"decision\""), std::string::npos) << other->output();
  
    ::kill(holder->pid, sig);
    ASSERT_TRUE(Testbed::wait_until([&] { return !holder->running(); }, std::chrono::seconds(15)));
    std::optional<core::Timestamp> last_renew;  // the killed holder's, read once it is gone
    if (auto l = client->get(res::leases(), ns, lease_name())) last_renew = read_lease(*l).renew_time;
    reaper.pids[holder == &one ? 0 : 1] = 0;  // exited: its id may be reused
    if (sig == SIGTERM) {
      EXPECT_NE(holder->output().find("{\"event\":\"stopped\"}"), std::string::npos) << holder->output();
    }
    // Released: the other takes it at its next retry (500 ms). Killed: once the Lease (4 s) has
    // expired.
    auto takeover = sig == SIGTERM ? std::chrono::seconds(5) : std::chrono::seconds(12);
    ASSERT_TRUE(Testbed::wait_until([&] { auto h = holder_id(); return !h.empty() && h != first; }, takeover))
        << "the other process did not take the Lease";
    if (sig == SIGKILL) {
      // Not before the killed holder's last renewTime + leaseDurationSeconds.
      auto lease = client->get(res::leases(), ns, lease_name());
      ASSERT_TRUE(lease);
      LeaseRecord r = read_lease(*lease);
      ASSERT_TRUE(r.acquire_time && last_renew);
      EXPECT_GE(*r.acquire_time, *last_renew + core::Duration::seconds(4)) << core::to_json(*lease);
      EXPECT_EQ(r.transitions, 1);
    }
    job("second", Map{{"budcore.io/expected-duration", "1h"}});
    w = wait_workload("second", [&](const Value& v) { return admitted(v); });
    ASSERT_TRUE(admitted(w)) << core::to_json(w);
    EXPECT_TRUE(Testbed::wait_until([&] { return other->output().find("\"event\":\"decision\"") != std::string::npos; }))
        << other->output();
    ::kill(other->pid, SIGTERM);
    ASSERT_TRUE(Testbed::wait_until([&] { return !other->running(); }, std::chrono::seconds(15)));
    reaper.pids = {};
    EXPECT_EQ(holder_id(), "") << "released by the second process too";
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
  // Not on a whole minute: the companion writes such a window as "HH:MM", not "HH:MM:SS".
  if (opens.unix_seconds() % 60 == 0) opens = opens + core::Duration::seconds(1);
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

// Two replicas on one Lease: one holds it and writes, the other writes nothing; the holder's
// graceful stop releases the Lease and the other takes over and answers the next Workload.
TEST_F(CompanionTestbedTest, LeaseOneOfTwoReplicasWritesAndItsStopHandsTheLeaseOver) {
  queues(4);
  auto a = replica("a", ns);
  auto b = replica("b", ns);
  ASSERT_TRUE(Testbed::wait_until([&] { return a->leads() || b->leads(); }, std::chrono::seconds(15)));
  Replica* holder = a->leads() ? a.get() : b.get();
  Replica* other = holder == a.get() ? b.get() : a.get();
  for (int i = 0; i < 20; ++i) {
    EXPECT_FALSE(a->leads() && b->leads());
    EXPECT_TRUE(holder->leads());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto lease = client->get(res::leases(), ns, lease_name());
  ASSERT_TRUE(lease) << lease.error().describe();
  LeaseRecord r = read_lease(*lease);
  EXPECT_EQ(r.holder, holder->id);
  EXPECT_EQ(r.lease_duration_seconds, 4);
  EXPECT_EQ(r.transitions, 0);
  const std::regex micro(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)");
  for (const char* f : {"spec.renewTime", "spec.acquireTime"})
    EXPECT_TRUE(std::regex_match(lease->find_path(f)->as_string(), micro)) << core::to_json(*lease);

  job("first", Map{{"budcore.io/expected-duration", "1h"}});
  Value w = wait_workload("first", [&](const Value& v) { return admitted(v); });
  ASSERT_TRUE(admitted(w)) << core::to_json(w);
  EXPECT_TRUE(managers(w).contains("budcore-" + holder->id)) << core::to_json(w);
  EXPECT_FALSE(managers(w).contains("budcore-" + other->id)) << core::to_json(w);
  auto ac = client->get(res::admission_checks(), "", budget_check);
  ASSERT_TRUE(ac);
  EXPECT_FALSE(managers(*ac).contains("budcore-" + other->id)) << core::to_json(*ac);
  EXPECT_GT(holder->companion->writes(), 0u);
  EXPECT_EQ(other->companion->writes(), 0u);
  EXPECT_EQ(other->written.load(), 0);
  // A replica without the Lease refuses to sync at all.
  auto refused = other->companion->sync(0);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::NotLeader) << refused.error().describe();

  holder->stop();
  const auto stopped_writes = holder->companion->writes();
  lease = client->get(res::leases(), ns, lease_name());
  ASSERT_TRUE(lease);
  EXPECT_NE(read_lease(*lease).holder, holder->id) << "released on stop: " << core::to_json(*lease);
  // The other replica retries every 500 ms and finds the Lease free.
  ASSERT_TRUE(Testbed::wait_until([&] { return other->leads(); }, std::chrono::seconds(5)));
  lease = client->get(res::leases(), ns, lease_name());
  ASSERT_TRUE(lease);
  r = read_lease(*lease);
  EXPECT_EQ(r.holder, other->id);
  EXPECT_EQ(r.transitions, 1);
  EXPECT_EQ(r.lease_duration_seconds, 4);

  job("second", Map{{"budcore.io/expected-duration", "1h"}});
  w = wait_workload("second", [&](const Value& v) { return admitted(v); });
  ASSERT_TRUE(admitted(w)) << core::to_json(w);
  EXPECT_TRUE(managers(w).contains("budcore-" + other->id)) << core::to_json(w);
  EXPECT_EQ(holder->companion->writes(), stopped_writes);
  EXPECT_GT(other->written.load(), 0);
}

// The elector's rules on a Lease written by hand: a live holder keeps it, an expired one (past
// renewTime + leaseDurationSeconds, unchanged for that long) is taken with leaseTransitions + 1;
// two electors racing for an absent Lease: one creates it, the other gets false.
TEST_F(CompanionTestbedTest, LeaseIsTakenOnlyWhenExpiredAndARaceHasOneWinner) {
  auto now = core::system_clock()->now();
  LeaderElectionConfig le;
  le.lease_name = lease_name();
  le.namespace_ = ns;
  le.identity = "mine";
  le.lease_duration = core::Duration::seconds(2);
  le.renew_deadline = core::Duration::seconds(1);
  le.retry_period = core::Duration::milliseconds(200);
  Value ghost = Map{{"apiVersion", "coordination.k8s.io/v1"},
                    {"kind", "Lease"},
                    {"metadata", Map{{"name", lease_name()}, {"namespace", ns}}},
                    {"spec", Map{{"holderIdentity", "ghost"},
                                 {"leaseDurationSeconds", 30},
                                 {"acquireTime", micro_time(now)},
                                 {"renewTime", micro_time(now)},
                                 {"leaseTransitions", 5}}}};
  create(res::leases(), ns, ghost);
  LeaderElector mine(le, *client);
  auto got = mine.try_acquire_or_renew();
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_FALSE(*got);
  EXPECT_FALSE(mine.is_leader());
  // The ghost stopped renewing an hour ago, with a 1 s lease.
  auto cur = client->get(res::leases(), ns, lease_name());
  ASSERT_TRUE(cur);
  auto hour_ago = now - core::Duration::hours(1);
  cur->mutable_map().set("spec", Map{{"holderIdentity", "ghost"},
                                     {"leaseDurationSeconds", 1},
                                     {"acquireTime", micro_time(hour_ago)},
                                     {"renewTime", micro_time(hour_ago)},
                                     {"leaseTransitions", 5}});
  ASSERT_TRUE(client->replace(res::leases(), ns, *cur));
  // Not at first sight: the change was just seen.
  got = mine.try_acquire_or_renew();
  ASSERT_TRUE(got);
  EXPECT_FALSE(*got);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  got = mine.try_acquire_or_renew();
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_TRUE(*got);
  EXPECT_TRUE(mine.is_leader());
  EXPECT_EQ(mine.term(), 1u);
  cur = client->get(res::leases(), ns, lease_name());
  ASSERT_TRUE(cur);
  LeaseRecord r = read_lease(*cur);
  EXPECT_EQ(r.holder, "mine");
  EXPECT_EQ(r.transitions, 6);
  EXPECT_EQ(r.lease_duration_seconds, 2);
  // A renewal keeps acquireTime and leaseTransitions.
  auto acquired = r.acquire_time;
  ASSERT_TRUE(mine.try_acquire_or_renew().value_or(false));
  r = read_lease(*client->get(res::leases(), ns, lease_name()));
  EXPECT_EQ(r.acquire_time, acquired);
  EXPECT_EQ(r.transitions, 6);
  // Release: holder emptied, leaseDurationSeconds 1; no longer leading.
  ASSERT_TRUE(mine.release());
  EXPECT_FALSE(mine.is_leader());
  r = read_lease(*client->get(res::leases(), ns, lease_name()));
  EXPECT_EQ(r.holder, "");
  EXPECT_EQ(r.lease_duration_seconds, 1);

  // A race for an absent Lease.
  le.lease_name = lease_name() + "-race";
  LeaderElectionConfig l1 = le, l2 = le;
  l1.identity = "one";
  l2.identity = "two";
  auto c2 = tb->client();
  LeaderElector e1(l1, *client), e2(l2, *c2);
  core::Result<bool> r1 = false, r2 = false;
  std::thread t1([&] { r1 = e1.try_acquire_or_renew(); });
  std::thread t2([&] { r2 = e2.try_acquire_or_renew(); });
  t1.join();
  t2.join();
  ASSERT_TRUE(r1) << r1.error().describe();
  ASSERT_TRUE(r2) << r2.error().describe();
  EXPECT_NE(*r1, *r2) << "exactly one elector wins";
  r = read_lease(*client->get(res::leases(), ns, le.lease_name));
  EXPECT_EQ(r.holder, *r1 ? "one" : "two");
}

// The RBAC of deploy/companion/rbac.yaml, applied to the test bed, is all a replica needs: one
// connected as the ServiceAccount (a TokenRequest token, not the admin's) takes the Lease in
// budcore-system, answers a Workload's checks and holds another without a single refusal.
TEST_F(CompanionTestbedTest, TheDeployRbacIsEnoughForTheServiceAccount) {
  auto kind_resource = [](const std::string& kind) -> std::optional<kubernetes::Resource> {
    static const std::map<std::string, kubernetes::Resource> rbac{
        {"ServiceAccount", {"", "v1", "serviceaccounts", "ServiceAccount", true}},
        {"ClusterRole", {"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false}},
        {"ClusterRoleBinding", {"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false}},
        {"Role", {"rbac.authorization.k8s.io", "v1", "roles", "Role", true}},
        {"RoleBinding", {"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true}}};
    if (auto it = rbac.find(kind); it != rbac.end()) return it->second;
    for (const char* api : {"v1", "kueue.x-k8s.io/v1beta2"})
      if (const auto* r = res::by_kind(api, kind)) return *r;
    return std::nullopt;
  };
  for (const char* file : {"rbac.yaml", "queues.yaml"}) {
    std::ifstream in(std::string(BUDCORE_SOURCE_DIR "/deploy/companion/") + file);
    std::stringstream text;
    text << in.rdbuf();
    auto docs = core::parse_yaml_all(text.str());
    ASSERT_TRUE(docs) << file << ": " << docs.error().describe();
    for (const auto& d : *docs) {
      std::string kind = d.find("kind")->as_string();
      auto r = kind_resource(kind);
      ASSERT_TRUE(r) << kind;
      const Value* dns = d.find_path("metadata.namespace");
      auto applied = client->apply(*r, dns != nullptr ? dns->as_string() : "", d, true);
      ASSERT_TRUE(applied) << file << " " << kind << ": " << applied.error().describe();
    }
  }
  auto body = client->request("POST", "/api/v1/namespaces/budcore-system/serviceaccounts/budcore-kueue-companion/token",
                              R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}})");
  ASSERT_TRUE(body) << body.error().describe();
  auto tr = core::parse_json(*body);
  ASSERT_TRUE(tr);
  kubernetes::ClusterConfig sa = tb->config();
  sa.token = tr->find_path("status.token")->as_string();
  sa.token_file.clear();
  sa.client_cert_pem.clear();
  sa.client_key_pem.clear();
  // Not an admin: the ServiceAccount may not list Namespaces, nor write Leases elsewhere.
  auto probe = Client::open(sa);
  ASSERT_TRUE(probe);
  auto denied = (*probe)->list(res::namespaces(), "");
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().code, core::ErrorCode::Security) << denied.error().describe();
  auto denied_lease = (*probe)->get(res::leases(), ns, "anything");
  ASSERT_FALSE(denied_lease);
  EXPECT_EQ(denied_lease.error().code, core::ErrorCode::Security) << denied_lease.error().describe();

  queues(4);
  // With estimates, so that listing the Kueue quota objects is checked too (a refusal is an error).
  auto r = replica("sa", "budcore-system", sa, "estimates: {enabled: true, refresh_seconds: 1}\n");
  ASSERT_TRUE(Testbed::wait_until([&] { return r->leads(); }, std::chrono::seconds(15)));
  job("rbac", Map{{"budcore.io/expected-duration", "1h"}});
  Value w = wait_workload("rbac", [&](const Value& v) { return admitted(v); });
  EXPECT_TRUE(admitted(w)) << core::to_json(w);
  EXPECT_TRUE(managers(w).contains("budcore-sa")) << core::to_json(w);
  // Past the soft limit (10 + 90 of 100 USD, soft 80%): held, i.e. the Workload patched.
  job("held", Map{{"budcore.io/expected-duration", "9h"}});
  w = wait_workload("held", [&](const Value& v) { return held(v) && !active(v); });
  EXPECT_TRUE(held(w) && !active(w)) << core::to_json(w);
  auto lease = client->get(res::leases(), "budcore-system", lease_name());
  ASSERT_TRUE(lease) << lease.error().describe();
  EXPECT_EQ(read_lease(*lease).holder, "sa");
  r->stop();
  std::lock_guard lock(r->mu);
  for (const auto& e : r->errors) ADD_FAILURE() << "the ServiceAccount replica was refused: " << e.describe();
  lease = client->get(res::leases(), "budcore-system", lease_name());
  ASSERT_TRUE(lease);
  EXPECT_EQ(read_lease(*lease).holder, "") << "released with the ServiceAccount's rights";
}

// `--once` reports the background work it will retry, the estimates' refresh included: run as a
// ServiceAccount that may do everything the companion needs but list the Kueue quota objects,
// it answers the pending checks and prints the refused refresh as a `retrying` line.
TEST_F(CompanionTestbedTest, OncePrintsARefusedEstimatesRefreshAsRetrying) {
  const std::string sa = "no-quota-" + sfx;
  auto rules = core::parse_yaml(R"(
- {apiGroups: [kueue.x-k8s.io], resources: [workloads], verbs: [get, list, watch, patch]}
- {apiGroups: [kueue.x-k8s.io], resources: [workloads/status, admissionchecks/status], verbs: [patch]}
- {apiGroups: [kueue.x-k8s.io], resources: [admissionchecks], verbs: [list]}
- {apiGroups: [batch], resources: [jobs], verbs: [get]}
)");
  ASSERT_TRUE(rules) << rules.error().describe();
  const kubernetes::Resource sas{"", "v1", "serviceaccounts", "ServiceAccount", true};
  const kubernetes::Resource roles{"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false};
  const kubernetes::Resource bindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false};
  create(sas, ns, Map{{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", Map{{"name", sa}, {"namespace", ns}}}});
  create(roles, "", Map{{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
                        {"metadata", Map{{"name", sa}}}, {"rules", *rules}});
  create(bindings, "",
         Map{{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"}, {"metadata", Map{{"name", sa}}},
             {"roleRef", Map{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", sa}}},
             {"subjects", List{Map{{"kind", "ServiceAccount"}, {"name", sa}, {"namespace", ns}}}}});
  auto body = client->request("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts/" + sa + "/token",
                              R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}})");
  ASSERT_TRUE(body) << body.error().describe();
  auto tr = core::parse_json(*body);
  ASSERT_TRUE(tr);
  const std::string dir = BUDCORE_BINARY_DIR "/companion_testbed/";
  const std::string ca = dir + sa + "-ca.pem", kubeconfig = dir + sa + ".kubeconfig";
  std::ofstream(ca) << tb->config().ca_pem;
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: sa\n"
                            << "clusters: [{name: tb, cluster: {server: \"" << tb->config().server
                            << "\", certificate-authority: \"" << ca << "\"}}]\n"
                            << "users: [{name: sa, user: {token: \"" << tr->find_path("status.token")->as_string() << "\"}}]\n"
                            << "contexts: [{name: sa, context: {cluster: tb, user: sa}}]\n";

  queues(2);
  const std::string estimates = "estimates: {enabled: true, refresh_seconds: 1}\n";
  auto [rc, out] = once_with(dir + sfx + "-no-quota.yaml", config_text() + estimates, kubeconfig);
  ASSERT_EQ(rc, 0) << out;
  job("noq", Map{{"budcore.io/expected-duration", "1h"}});
  Value w = wait_workload("noq", [&](const Value& v) { return says(v, "\"state\":\"Pending\"") && says(v, window_check); });
  ASSERT_TRUE(says(w, window_check)) << core::to_json(w);
  std::tie(rc, out) = once_with(dir + sfx + "-no-quota.yaml", config_text() + estimates, kubeconfig);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"state\":\"Ready\""), std::string::npos) << "the checks are answered: " << out;
  EXPECT_NE(out.find("{\"event\":\"retrying\""), std::string::npos) << out;
  EXPECT_NE(out.find("refreshing the estimates: "), std::string::npos) << out;
  EXPECT_NE(out.find("\"code\":\"security\""), std::string::npos) << out;
}

// `--once` with leader election: while another replica holds the Lease it writes nothing (the
// checks stay inactive); with the Lease free it takes it, answers and releases it.
TEST_F(CompanionTestbedTest, TheCommandLineWritesOnlyWithTheLease) {
  queues(2);
  LeaderElectionConfig le;
  le.lease_name = lease_name();
  le.namespace_ = ns;
  le.identity = "elsewhere";
  LeaderElector other(le, *client);
  ASSERT_TRUE(other.try_acquire_or_renew().value_or(false));
  std::string section = "leader_election: {lease_name: " + lease_name() + ", namespace: " + ns + ", identity: cli}\n";
  auto [rc, out] = cli_once(section);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(R"({"event":"not_leader","identity":"cli"})"), std::string::npos) << out;
  EXPECT_EQ(out.find("started"), std::string::npos) << out;
  auto ac = client->get(res::admission_checks(), "", budget_check);
  ASSERT_TRUE(ac);
  EXPECT_FALSE(kubernetes::find_condition(*ac, "Active")) << core::to_json(*ac);

  ASSERT_TRUE(other.release());
  std::tie(rc, out) = cli_once(section);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("{\"event\":\"started\""), std::string::npos) << out;
  ac = client->get(res::admission_checks(), "", budget_check);
  ASSERT_TRUE(ac);
  auto active = kubernetes::find_condition(*ac, "Active");
  ASSERT_TRUE(active) << core::to_json(*ac);
  EXPECT_EQ(active->status, "True");
  auto lease = client->get(res::leases(), ns, lease_name());
  ASSERT_TRUE(lease);
  LeaseRecord r = read_lease(*lease);
  EXPECT_EQ(r.holder, "") << "released after --once: " << core::to_json(*lease);
  EXPECT_EQ(r.transitions, 1);
}

TEST_F(CompanionTestbedTest, TwoCommandLineReplicasHandTheLeaseOverOnSigterm) { run_two_processes(SIGTERM); }

TEST_F(CompanionTestbedTest, TwoCommandLineReplicasTakeOverALeaseWhoseHolderWasKilled) { run_two_processes(SIGKILL); }

// ---- metering ------------------------------------------------------------------------------

const char* kTenantB = "0190e6f4-0000-7000-8000-0000000000c2";

// Jobs created with plain API calls in two tenants' namespaces on a ClusterQueue without
// budcore's checks (Kueue admits them alone) and finished as the job controller would: the
// companion meters each run into usage rows of its Store.
class CompanionMeteringTest : public CompanionTestbedTest {
 protected:
  void SetUp() override {
    CompanionTestbedTest::SetUp();
    if (IsSkipped()) return;
    ns_b = "cmpb-" + sfx;
    plain_cq = "pq-" + sfx;
    ASSERT_TRUE(kubernetes::ensure_namespace(*client, ns_b));
    queues(4);
    create(res::cluster_queues(), "",
           Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
               {"kind", "ClusterQueue"},
               {"metadata", Map{{"name", plain_cq}}},
               {"spec", Map{{"namespaceSelector", Map{}},
                            {"resourceGroups",
                             List{Map{{"coveredResources", List{"cpu", "memory", "nvidia.com/gpu"}},
                                      {"flavors", List{Map{{"name", flavor},
                                                           {"resources", List{Map{{"name", "cpu"}, {"nominalQuota", 64}},
                                                                              Map{{"name", "memory"}, {"nominalQuota", "256Gi"}},
                                                                              Map{{"name", "nvidia.com/gpu"}, {"nominalQuota", 16}}}}}}}}}}}}});
    for (const auto& n : {ns, ns_b})
      create(res::local_queues(), n, Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                         {"kind", "LocalQueue"},
                                         {"metadata", Map{{"name", "plq"}, {"namespace", n}}},
                                         {"spec", Map{{"clusterQueue", plain_cq}}}});
  }

  // A GPU-second of our flavor costs 1 USD; tenant A has a hard budget of 1000 USD, tenant B none.
  std::string metering_config_text() {
    return "controllers:\n"
           "  - {name: budcore.io/budget-" + sfx + ", checks: [budget]}\n"
           "  - {name: budcore.io/window-" + sfx + ", checks: [window]}\n"
           "cluster_queues: [" + cq + "]\n"
           "tenants:\n"
           "  - {namespace: " + ns + ", tenant_id: " + kTenant + "}\n"
           "  - {namespace: " + ns_b + ", tenant_id: " + kTenantB + "}\n"
           "price_book: {currency: USD, gpu_hour: {gpu-x: {on_demand: \"3600.00\"}}}\n"
           "budgets: {budgets: [{name: team, tenant_id: " + kTenant + ", amount: \"1000.00\", hard_limit: true}]}\n"
           "flavor_gpu_types: {" + flavor + ": gpu-x}\n"
           "default_duration: 1h\n";
  }

  CompanionConfig metering_config() {
    auto c = CompanionConfig::from_text(metering_config_text());
    EXPECT_TRUE(c) << c.error().describe();
    return *c;
  }

  // A Store handle of this test's own, on the companion's SQLite file.
  std::unique_ptr<backend::Store> reader() {
    auto s = backend::open_store(store_uri);
    EXPECT_TRUE(s) << s.error().describe();
    return std::move(*s);
  }

  // `budcore kueue companion --once` with the metering configuration: one pass, then exit.
  std::pair<int, std::string> metering_once() {
    return once_with(BUDCORE_BINARY_DIR "/companion_testbed/" + sfx + "-metering.yaml", metering_config_text());
  }

  std::vector<cost::Usage> rows(const char* tenant) {
    auto r = reader();
    auto u = cost::load_usage(*r, *core::Id::parse(tenant));
    EXPECT_TRUE(u) << u.error().describe();
    return u ? *u : std::vector<cost::Usage>{};
  }

  Value wait_in(const std::string& in_ns, const std::string& job_name, const std::function<bool(const Value&)>& pred) {
    Value last;
    Testbed::wait_until(
        [&] {
          auto w = workload_in(in_ns, job_name);
          if (w) last = *w;
          return w && pred(*w);
        },
        std::chrono::seconds(30));
    return last;
  }

  static core::Timestamp since(const Value& wl, const char* condition) {
    auto c = kubernetes::find_condition(wl, condition);
    EXPECT_TRUE(c && c->status == "True") << condition << ": " << core::to_json(wl);
    return c ? *core::Timestamp::parse(c->last_transition_time) : core::Timestamp{};
  }

  static bool finished(const Value& wl) {
    auto c = kubernetes::find_condition(wl, "Finished");
    return c && c->status == "True";
  }

  // The row of a finished run: from its admission to its end, every GPU priced at 1 USD a second.
  void expect_row(const cost::Usage& u, const Value& wl, std::int64_t gpus) {
    std::string uid = wl.find_path("metadata.uid")->as_string();
    core::Timestamp start = since(wl, "Admitted"), end = since(wl, "Finished");
    EXPECT_EQ(u.interval.job_id.to_string(), uid);
    EXPECT_EQ(u.interval.start, start);
    EXPECT_EQ(u.interval.end, end);
    EXPECT_EQ(u.interval.gpu_count, gpus);
    EXPECT_EQ(u.interval.gpu_type, "gpu-x");
    EXPECT_EQ(u.interval.labels.at(std::string(kSegmentLabel)), segment_key(uid, start));
    std::int64_t seconds = end.unix_seconds() - start.unix_seconds();
    EXPECT_GE(seconds, 3);
    EXPECT_EQ(u.computed_cost, *core::Money::parse(std::to_string(seconds * gpus) + " USD"));
  }

  std::string ns_b, plain_cq;
};

TEST_F(CompanionMeteringTest, EveryRunIsMeteredIntoUsageRowsAndTheBudgetCheckCountsThem) {
  start(metering_config());
  job_in(ns, "plq", "a-run", 4, Map{});
  job_in(ns_b, "plq", "b-run", 1, Map{});
  ASSERT_TRUE(admitted(wait_in(ns, "a-run", [&](const Value& w) { return admitted(w); })));
  ASSERT_TRUE(admitted(wait_in(ns_b, "b-run", [&](const Value& w) { return admitted(w); })));
  // Both runs seen going on (kept open in the Store) before they end.
  ASSERT_TRUE(Testbed::wait_until([&] { return companion->open_segments() == 2; })) << companion->open_segments();
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  ASSERT_TRUE(testing::mark_job_complete(*client, ns, "a-run"));
  ASSERT_TRUE(testing::mark_job_complete(*client, ns_b, "b-run"));
  Value a = wait_in(ns, "a-run", finished), b = wait_in(ns_b, "b-run", finished);
  ASSERT_TRUE(finished(a) && finished(b)) << core::to_json(a) << core::to_json(b);

  ASSERT_TRUE(Testbed::wait_until([&] { return rows(kTenant).size() == 1 && rows(kTenantB).size() == 1; }));
  auto ra = rows(kTenant), rb = rows(kTenantB);
  expect_row(ra.at(0), a, 4);
  expect_row(rb.at(0), b, 1);
  EXPECT_EQ(companion->open_segments(), 0u);
  EXPECT_TRUE(companion->take_retrying().empty());

  // Cost reports read the same rows: the budget's status counts tenant A's run.
  auto r = reader();
  auto spend = cost::store_spend(*r, metering_config().price_book);
  auto status = cost::budget_status(metering_config().budgets, *spend, core::system_clock()->now());
  ASSERT_TRUE(status) << status.error().describe();
  EXPECT_EQ(status->at(0).spent, ra.at(0).computed_cost);

  // A Workload on the checked queue priced 1 USD above what the metered run left of the budget:
  // alone it fits (the run cost at least 12 USD), with the run's spend it passes the hard limit.
  std::int64_t left = 1000 - static_cast<std::int64_t>(ra.at(0).computed_cost.units() / 1'000'000'000'000);
  job("next", Map{{"budcore.io/expected-duration", std::to_string(left + 1) + "s"}});
  Value next = wait_workload("next", [&](const Value& w) { return !active(w) && says(w, "passes the hard limit"); });
  EXPECT_TRUE(says(next, "passes the hard limit")) << core::to_json(next);
  EXPECT_TRUE(says(next, "spent " + ra.at(0).computed_cost.to_string())) << core::to_json(next);
  EXPECT_FALSE(admitted(next));
}

// A run still going counts up to now: with nothing metered yet, its accrual makes the budget
// check reject a Workload that alone would fit.
TEST_F(CompanionMeteringTest, ARunningWorkloadAccruesForTheBudgetCheck) {
  start(metering_config());
  job_in(ns, "plq", "running", 4, Map{});
  ASSERT_TRUE(admitted(wait_in(ns, "running", [&](const Value& w) { return admitted(w); })));
  ASSERT_TRUE(Testbed::wait_until([&] { return companion->open_segments() == 1; }));
  // 4 GPUs for at least 3 s: at least 12 USD; 990 USD more passes the budget of 1000 USD.
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  job("next", Map{{"budcore.io/expected-duration", "990s"}});
  Value next = wait_workload("next", [&](const Value& w) { return !active(w) && says(w, "passes the hard limit"); });
  EXPECT_TRUE(says(next, "passes the hard limit")) << core::to_json(next);
  EXPECT_FALSE(admitted(next));
  EXPECT_TRUE(rows(kTenant).empty());
}

// A Workload the companion let through counts its estimate while it runs, and only its usage
// once it has finished: the estimate no longer holds budget it did not spend.
TEST_F(CompanionMeteringTest, AFinishedWorkloadCountsItsUsageInsteadOfItsEstimate) {
  start(metering_config());
  // 900 USD estimated (900 s of 1 GPU): within the budget of 1000 USD.
  job("big", Map{{"budcore.io/expected-duration", "900s"}});
  Value big = wait_workload("big", [&](const Value& w) { return admitted(w); });
  ASSERT_TRUE(admitted(big)) << core::to_json(big);
  // While it runs, 900 + 500 passes the budget.
  job("meanwhile", Map{{"budcore.io/expected-duration", "500s"}});
  Value meanwhile = wait_workload("meanwhile", [&](const Value& w) { return says(w, "passes the hard limit"); });
  EXPECT_TRUE(says(meanwhile, "passes the hard limit")) << core::to_json(meanwhile);
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  ASSERT_TRUE(testing::mark_job_complete(*client, ns, "big"));
  ASSERT_TRUE(finished(wait_workload("big", finished)));
  ASSERT_TRUE(Testbed::wait_until([&] { return rows(kTenant).size() == 1; }));
  auto used = rows(kTenant).at(0).computed_cost;
  EXPECT_LT(used, *core::Money::parse("100.00 USD"));
  // Finished after a few seconds: 500 more fits.
  job("after", Map{{"budcore.io/expected-duration", "500s"}});
  Value after = wait_workload("after", [&](const Value& w) { return admitted(w); });
  EXPECT_TRUE(admitted(after)) << core::to_json(after);
}

// An eviction ends a run (at the Evicted condition's time) and a new admission begins another:
// one row per admission, each keyed by its own admission.
TEST_F(CompanionMeteringTest, AnEvictedWorkloadIsMeteredOncePerAdmission) {
  start(metering_config());
  job_in(ns_b, "plq", "twice", 1, Map{});
  Value first = wait_in(ns_b, "twice", [&](const Value& w) { return admitted(w); });
  ASSERT_TRUE(admitted(first));
  ASSERT_TRUE(Testbed::wait_until([&] { return companion->open_segments() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  std::string name = first.find_path("metadata.name")->as_string();
  // Deactivated: Kueue evicts it and releases its quota.
  ASSERT_TRUE(client->patch(res::workloads(), ns_b, name, Map{{"spec", Map{{"active", false}}}}));
  Value evicted = wait_in(ns_b, "twice", [&](const Value& w) { return !admitted(w) && says(w, "\"Evicted\""); });
  ASSERT_FALSE(admitted(evicted)) << core::to_json(evicted);
  ASSERT_TRUE(Testbed::wait_until([&] { return rows(kTenantB).size() == 1; }));
  auto one = rows(kTenantB);
  EXPECT_EQ(one[0].interval.start, since(first, "Admitted"));
  EXPECT_EQ(one[0].interval.end, since(evicted, "Evicted"));

  ASSERT_TRUE(client->patch(res::workloads(), ns_b, name, Map{{"spec", Map{{"active", true}}}}));
  Value again = wait_in(ns_b, "twice", [&](const Value& w) {
    auto c = kubernetes::find_condition(w, "Admitted");
    return admitted(w) && c && *core::Timestamp::parse(c->last_transition_time) > since(first, "Admitted");
  });
  ASSERT_TRUE(admitted(again)) << core::to_json(again);
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  ASSERT_TRUE(testing::mark_job_complete(*client, ns_b, "twice"));
  Value done = wait_in(ns_b, "twice", finished);
  ASSERT_TRUE(finished(done));
  ASSERT_TRUE(Testbed::wait_until([&] { return rows(kTenantB).size() == 2; })) << rows(kTenantB).size();
  auto two = rows(kTenantB);
  expect_row(two[1], done, 1);
  EXPECT_NE(two[0].interval.labels.at(std::string(kSegmentLabel)), two[1].interval.labels.at(std::string(kSegmentLabel)));
  EXPECT_TRUE(companion->take_retrying().empty());
}

// Kueue's timestamps have whole seconds: a Workload admitted, evicted and admitted again
// within one second shows both admissions at the same instant. The first run (shorter than
// a second) writes nothing and must leave the key to the second, which is metered when it ends.
TEST_F(CompanionMeteringTest, ARunAdmittedAgainWithinItsFirstSecondIsMetered) {
  start(metering_config());
  // Polls one Workload every 10 ms, so that the eviction and the new admission follow the
  // first admission closely enough to share its second.
  auto poll = [&](const std::string& name, const std::function<bool(const Value&)>& pred) {
    Value last;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      if (auto w = client->get(res::workloads(), ns_b, name)) {
        last = *w;
        if (pred(last)) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return last;
  };
  auto evicted_true = [](const Value& w) {
    auto c = kubernetes::find_condition(w, "Evicted");
    return c && c->status == "True";
  };
  std::string job_name, name;
  Value again;
  for (int attempt = 0; attempt < 8 && name.empty(); ++attempt) {
    std::string j = "quick-" + std::to_string(attempt);
    job_in(ns_b, "plq", j, 1, Map{});
    Value first = wait_in(ns_b, j, [&](const Value& w) { return admitted(w); });
    ASSERT_TRUE(admitted(first)) << core::to_json(first);
    std::string wl = first.find_path("metadata.name")->as_string();
    ASSERT_TRUE(client->patch(res::workloads(), ns_b, wl, Map{{"spec", Map{{"active", false}}}}));
    ASSERT_FALSE(admitted(poll(wl, [&](const Value& w) { return !admitted(w); })));
    ASSERT_TRUE(client->patch(res::workloads(), ns_b, wl, Map{{"spec", Map{{"active", true}}}}));
    Value next = poll(wl, [&](const Value& w) { return admitted(w) && !evicted_true(w); });
    ASSERT_TRUE(admitted(next)) << core::to_json(next);
    if (since(next, "Admitted") == since(first, "Admitted")) {
      job_name = j;
      name = wl;
      again = next;
    }
  }
  if (name.empty()) GTEST_SKIP() << "no re-admission within the first admission's second in 8 attempts";
  std::string uid = again.find_path("metadata.uid")->as_string();
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  ASSERT_TRUE(testing::mark_job_complete(*client, ns_b, job_name));
  Value done = wait_in(ns_b, job_name, finished);
  ASSERT_TRUE(finished(done));
  auto of_uid = [&] {
    std::vector<cost::Usage> out;
    for (auto& u : rows(kTenantB))
      if (u.interval.job_id.to_string() == uid) out.push_back(u);
    return out;
  };
  ASSERT_TRUE(Testbed::wait_until([&] { return of_uid().size() == 1; })) << of_uid().size();
  expect_row(of_uid().at(0), done, 1);
  EXPECT_TRUE(companion->take_retrying().empty());
}

// A Workload created directly (kubectl, a controller of its own: no owning Job) is metered like
// any other: from its admission to the Finished condition its controller writes.
TEST_F(CompanionMeteringTest, AWorkloadWithoutAnOwnerIsMetered) {
  start(metering_config());
  Value container = Map{{"name", "c"},
                        {"image", "busybox:1.36"},
                        {"resources", Map{{"requests", Map{{"cpu", "1"}, {"nvidia.com/gpu", "2"}}},
                                          {"limits", Map{{"nvidia.com/gpu", "2"}}}}}};
  create(res::workloads(), ns_b,
         Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
             {"kind", "Workload"},
             {"metadata", Map{{"name", "bare"}, {"namespace", ns_b}}},
             {"spec", Map{{"queueName", "plq"},
                          {"podSets", List{Map{{"name", "main"},
                                               {"count", 1},
                                               {"template", Map{{"spec", Map{{"restartPolicy", "Never"},
                                                                             {"containers", List{container}}}}}}}}}}}});
  Value wl;
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto w = client->get(res::workloads(), ns_b, "bare");
    if (w) wl = *w;
    return w && admitted(*w);
  })) << core::to_json(wl);
  ASSERT_TRUE(Testbed::wait_until([&] { return companion->open_segments() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  // What the Workload's own controller would write when its pods end.
  std::string at = core::Timestamp::from_unix_seconds(core::system_clock()->now().unix_seconds()).to_string();
  ASSERT_TRUE(client->apply(res::workloads(), ns_b,
                            Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                {"kind", "Workload"},
                                {"metadata", Map{{"name", "bare"}, {"namespace", ns_b}}},
                                {"status", Map{{"conditions", List{Map{{"type", "Finished"},
                                                                       {"status", "True"},
                                                                       {"reason", "Succeeded"},
                                                                       {"message", "done"},
                                                                       {"lastTransitionTime", at}}}}}}},
                            true, "status"));
  ASSERT_TRUE(Testbed::wait_until([&] {
    auto w = client->get(res::workloads(), ns_b, "bare");
    if (w) wl = *w;
    return w && finished(*w);
  })) << core::to_json(wl);
  ASSERT_TRUE(Testbed::wait_until([&] { return rows(kTenantB).size() == 1; })) << rows(kTenantB).size();
  expect_row(rows(kTenantB).at(0), wl, 2);
  EXPECT_EQ(companion->open_segments(), 0u);
  EXPECT_TRUE(companion->take_retrying().empty());
}

// A companion that ends mid-run (each `--once` process exits with the run still going) meters
// the run once it has ended, exactly once however often it starts again; a leader that wrote
// the rows but died before closing the run (its open record still in the Store) adds none.
TEST_F(CompanionMeteringTest, ARunIsMeteredOnceAcrossRestarts) {
  job_in(ns, "plq", "long", 2, Map{});
  ASSERT_TRUE(admitted(wait_in(ns, "long", [&](const Value& w) { return admitted(w); })));
  auto [rc, out] = metering_once();
  ASSERT_EQ(rc, 0) << out;
  {
    auto r = reader();
    auto open = r->list_platform_records("kueue_companion.segment", {});
    ASSERT_TRUE(open) << open.error().describe();
    ASSERT_EQ(open->items.size(), 1u) << out;
  }
  EXPECT_TRUE(rows(kTenant).empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  // The run ends while no companion runs.
  ASSERT_TRUE(testing::mark_job_complete(*client, ns, "long"));
  Value done = wait_in(ns, "long", finished);
  ASSERT_TRUE(finished(done)) << core::to_json(done);

  std::tie(rc, out) = metering_once();
  ASSERT_EQ(rc, 0) << out;
  auto first = rows(kTenant);
  ASSERT_EQ(first.size(), 1u) << out;
  expect_row(first[0], done, 2);

  // The open record back, as a leader killed between writing the rows and closing the run
  // leaves it: the next pass finds the rows by the segment key and writes none.
  std::string uid = done.find_path("metadata.uid")->as_string();
  std::string key = segment_key(uid, since(done, "Admitted"));
  {
    auto r = reader();
    ASSERT_TRUE(r->put_platform_record("kueue_companion.segment", key,
                                       Map{{"tenant_id", kTenant},
                                           {"start", since(done, "Admitted").to_string()},
                                           {"workload", done}}));
  }
  for (int i = 0; i < 2; ++i) {
    std::tie(rc, out) = metering_once();
    ASSERT_EQ(rc, 0) << out;
  }
  auto after = rows(kTenant);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].computed_cost, first[0].computed_cost);
  auto r = reader();
  auto open = r->list_platform_records("kueue_companion.segment", {});
  ASSERT_TRUE(open);
  EXPECT_TRUE(open->items.empty());
}

// Replicas share what they meter through one PostgreSQL store: the leader opens a running
// Workload's segment, stops (handing its Lease over) while the run goes on, and the new leader
// closes that segment when the run ends: one usage row, the run metered once.
TEST_F(CompanionMeteringTest, TwoReplicasOnOnePostgresStoreMeterARunOnceAcrossAHandover) {
  auto target = testing::make_target("postgres");
  if (!target.skip.empty()) GTEST_SKIP() << target.skip;
  ASSERT_TRUE(target.error.empty()) << target.error;
  store_uri = target.uri;  // reader() and rows() read the shared store
  job_in(ns, "plq", "shared", 2, Map{});
  ASSERT_TRUE(admitted(wait_in(ns, "shared", [&](const Value& w) { return admitted(w); })));
  auto a = replica("a", ns, std::nullopt, "", store_uri, metering_config_text());
  auto b = replica("b", ns, std::nullopt, "", store_uri, metering_config_text());
  ASSERT_TRUE(Testbed::wait_until([&] { return a->leads() || b->leads(); }, std::chrono::seconds(15)));
  Replica* holder = a->leads() ? a.get() : b.get();
  Replica* other = holder == a.get() ? b.get() : a.get();
  auto open_segments = [&] {
    auto open = reader()->list_platform_records("kueue_companion.segment", {});
    EXPECT_TRUE(open) << open.error().describe();
    return open ? open->items.size() : 0;
  };
  auto errors_of = [](Replica& r) {
    std::lock_guard lock(r.mu);
    std::string out;
    for (const auto& e : r.errors) out += "replica " + r.id + ": " + e.describe() + "\n";
    return out;
  };
  ASSERT_TRUE(Testbed::wait_until([&] { return open_segments() == 1; }, std::chrono::seconds(30)))
      << errors_of(*a) << errors_of(*b) << "segments open in the leader: " << holder->companion->open_segments();
  holder->stop();
  ASSERT_TRUE(Testbed::wait_until([&] { return other->leads(); }, std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the run goes on under the new leader
  EXPECT_EQ(open_segments(), 1u) << "the new leader opened a second segment for the same run";
  ASSERT_TRUE(testing::mark_job_complete(*client, ns, "shared"));
  Value done = wait_in(ns, "shared", finished);
  ASSERT_TRUE(finished(done)) << core::to_json(done);
  ASSERT_TRUE(Testbed::wait_until([&] { return open_segments() == 0 && rows(kTenant).size() == 1; },
                                  std::chrono::seconds(15)));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // later passes of the leader add nothing
  auto r = rows(kTenant);
  ASSERT_EQ(r.size(), 1u);
  expect_row(r[0], done, 2);
  EXPECT_EQ(errors_of(*other), "");
}

// Estimated starts against the real Kueue: a StrictFIFO queue of one GPU and a cohort of two
// one-GPU queues where a two-GPU Workload borrows. Jobs of known durations (10 s) are finished by
// the test when their duration is up; each waiting Workload's estimated start, written while it
// waited, is its actual admission within 2 s.
class CompanionEstimatesTest : public CompanionTestbedTest {
 protected:
  void SetUp() override {
    CompanionTestbedTest::SetUp();
    if (IsSkipped()) return;
    fifo_cq = "ef-" + sfx;
    cohort = "eco-" + sfx;
    plain_queue(fifo_cq, "", "StrictFIFO", 1, "efq");
    plain_queue("ea-" + sfx, cohort, "BestEffortFIFO", 1, "eaq");
    plain_queue("eb-" + sfx, cohort, "BestEffortFIFO", 1, "ebq");
  }

  // A ClusterQueue without admission checks of `gpus` GPUs on our flavor, and its LocalQueue.
  void plain_queue(const std::string& name, const std::string& in_cohort, const std::string& strategy, int gpus,
                   const std::string& lq) {
    Map spec{{"namespaceSelector", Map{}},
             {"queueingStrategy", strategy},
             {"resourceGroups",
              List{Map{{"coveredResources", List{"cpu", "memory", "nvidia.com/gpu"}},
                       {"flavors", List{Map{{"name", flavor},
                                            {"resources", List{Map{{"name", "cpu"}, {"nominalQuota", 64}},
                                                               Map{{"name", "memory"}, {"nominalQuota", "256Gi"}},
                                                               Map{{"name", "nvidia.com/gpu"}, {"nominalQuota", gpus}}}}}}}}}}};
    if (!in_cohort.empty()) spec.set("cohortName", in_cohort);
    create(res::cluster_queues(), "", Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                          {"kind", "ClusterQueue"},
                                          {"metadata", Map{{"name", name}}},
                                          {"spec", spec}});
    create(res::local_queues(), ns, Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                                        {"kind", "LocalQueue"},
                                        {"metadata", Map{{"name", lq}, {"namespace", ns}}},
                                        {"spec", Map{{"clusterQueue", name}}}});
  }

  static std::optional<core::Timestamp> annotated(const Value& wl, std::string_view key) {
    const Value* a = wl.find_path("metadata.annotations");
    const Value* v = a != nullptr && a->is_map() ? a->find(key) : nullptr;
    if (v == nullptr || !v->is_string()) return std::nullopt;
    auto t = core::Timestamp::parse(v->as_string());
    return t ? std::optional<core::Timestamp>(*t) : std::nullopt;
  }

  static core::Timestamp admitted_at(const Value& wl) {
    auto c = kubernetes::find_condition(wl, "Admitted");
    return c && c->status == "True" ? *core::Timestamp::parse(c->last_transition_time) : core::Timestamp{};
  }

  static void sleep_until(core::Timestamp t) {
    auto now = core::system_clock()->now();
    if (t > now) std::this_thread::sleep_for(std::chrono::nanoseconds((t - now).count_ns()));
  }

  // The estimated start the Job's Workload shows now, while it still waits; then the Job
  // `blocker` is marked complete at `end`, as its pods would at the end of its duration.
  core::Timestamp estimate_before(const std::string& job_name, const std::string& blocker, core::Timestamp end) {
    sleep_until(end - core::Duration::milliseconds(300));
    auto w = workload_of(job_name);
    EXPECT_TRUE(w);
    std::optional<core::Timestamp> est = w ? annotated(*w, kEstimatedStartAnnotation) : std::nullopt;
    EXPECT_TRUE(est && !admitted(*w)) << (w ? core::to_json(*w) : job_name);
    sleep_until(end);
    EXPECT_TRUE(testing::mark_job_complete(*client, ns, blocker));
    return est.value_or(core::Timestamp{});
  }

  // |actual admission - estimated start| <= 2 s.
  void expect_close(const std::string& job_name, core::Timestamp est) {
    Value w = wait_workload(job_name, [&](const Value& v) { return admitted(v); });
    ASSERT_TRUE(admitted(w)) << core::to_json(w);
    auto off = (admitted_at(w) - est).count_ns();
    EXPECT_LE(std::abs(off), 2'000'000'000) << job_name << ": estimated " << est.to_string() << ", admitted "
                                              << admitted_at(w).to_string();
  }

  std::string fifo_cq, cohort;
};

// Right after a refresh wrote its estimates, another writes nothing more, although the
// informer has not taken in the watch events of those writes yet (compared with its copy, each
// would be sent again at every refresh until they arrive).
TEST_F(CompanionEstimatesTest, ARefreshRightAfterOneWritesNothingMore) {
  const Map ten{{"budcore.io/expected-duration", "10m"}};
  job_in(ns, "efq", "r1", 1, ten);
  Value r1 = wait_workload("r1", [&](const Value& v) { return admitted(v); });
  ASSERT_TRUE(admitted(r1)) << core::to_json(r1);
  job_in(ns, "efq", "r2", 1, ten);
  job_in(ns, "efq", "r3", 1, ten);
  for (const char* name : {"r2", "r3"}) wait_workload(name, [](const Value&) { return true; });
  auto s = backend::open_store("sqlite:" BUDCORE_BINARY_DIR "/companion_testbed/" + sfx + "-refresh.db");
  ASSERT_TRUE(s) << s.error().describe();
  auto cfg = CompanionConfig::from_text(config_text() + "estimates: {enabled: true, refresh_seconds: 1}\n");
  ASSERT_TRUE(cfg) << cfg.error().describe();
  auto c = Companion::open(std::move(*cfg), *client, **s);
  ASSERT_TRUE(c) << c.error().describe();
  ASSERT_TRUE((*c)->sync(1));  // lists the Workloads and writes every estimate
  Value r3 = wait_workload("r3", [&](const Value& v) { return annotated(v, kEstimatedStartAnnotation).has_value(); });
  ASSERT_TRUE(annotated(r3, kEstimatedStartAnnotation)) << core::to_json(r3);
  auto again = (*c)->refresh_estimates();
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(*again, 0u);
}

// Workload events within refresh_seconds of the last refresh wait for the next one: a new
// pending Workload shows no estimate until then, and a refresh asked for writes it.
TEST_F(CompanionEstimatesTest, EventsWithinTheRefreshPeriodWaitForTheNextRefresh) {
  const Map ten{{"budcore.io/expected-duration", "10m"}};
  job_in(ns, "efq", "l1", 1, ten);
  Value l1 = wait_workload("l1", [&](const Value& v) { return admitted(v); });
  ASSERT_TRUE(admitted(l1)) << core::to_json(l1);
  job_in(ns, "efq", "l2", 1, ten);
  wait_workload("l2", [](const Value&) { return true; });
  auto s = backend::open_store("sqlite:" BUDCORE_BINARY_DIR "/companion_testbed/" + sfx + "-limit.db");
  ASSERT_TRUE(s) << s.error().describe();
  auto cfg = CompanionConfig::from_text(config_text() + "estimates: {enabled: true, refresh_seconds: 600}\n");
  ASSERT_TRUE(cfg) << cfg.error().describe();
  auto c = Companion::open(std::move(*cfg), *client, **s);
  ASSERT_TRUE(c) << c.error().describe();
  ASSERT_TRUE((*c)->sync(1));  // the first refresh: l2 gets its estimate
  Value l2 = wait_workload("l2", [&](const Value& v) { return annotated(v, kEstimatedStartAnnotation).has_value(); });
  ASSERT_TRUE(annotated(l2, kEstimatedStartAnnotation)) << core::to_json(l2);
  job_in(ns, "efq", "l3", 1, ten);
  wait_workload("l3", [](const Value&) { return true; });
  const std::uint64_t writes = (*c)->writes();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*c)->sync(1));  // the events of l3 arrive
  EXPECT_EQ((*c)->writes(), writes) << "a refresh ran within refresh_seconds";
  auto l3 = workload_of("l3");
  ASSERT_TRUE(l3);
  EXPECT_FALSE(annotated(*l3, kEstimatedStartAnnotation)) << core::to_json(*l3);
  auto asked = (*c)->refresh_estimates();
  ASSERT_TRUE(asked) << asked.error().describe();
  EXPECT_GE(*asked, 1u);
  l3 = workload_of("l3");
  ASSERT_TRUE(l3);
  EXPECT_TRUE(annotated(*l3, kEstimatedStartAnnotation)) << core::to_json(*l3);
}

TEST_F(CompanionEstimatesTest, EstimatedStartsAreTheActualAdmissionsWithinTwoSeconds) {
  auto cfg = CompanionConfig::from_text(config_text() + "estimates: {enabled: true, refresh_seconds: 1}\n");
  ASSERT_TRUE(cfg) << cfg.error().describe();
  start(std::move(*cfg));
  const Map ten{{"budcore.io/expected-duration", "10s"}};
  // FIFO: f1 runs, f2 and f3 wait in creation order (a second apart: Kueue orders by seconds).
  job_in(ns, "efq", "f1", 1, ten);
  Value f1 = wait_workload("f1", [&](const Value& v) { return admitted(v); });
  ASSERT_TRUE(admitted(f1)) << core::to_json(f1);
  job_in(ns, "efq", "f2", 1, ten);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  job_in(ns, "efq", "f3", 1, ten);
  // Cohort: b1 runs in eb; a2 needs 2 GPUs, ea's own and one borrowed from eb once b1 ends.
  job_in(ns, "ebq", "b1", 1, ten);
  Value b1 = wait_workload("b1", [&](const Value& v) { return admitted(v); });
  ASSERT_TRUE(admitted(b1)) << core::to_json(b1);
  job_in(ns, "eaq", "a2", 2, ten);
  job_in(ns, "eaq", "huge", 3, ten);

  // Every waiting Workload shows an estimate; the one that can never be admitted, why.
  for (const char* name : {"f2", "f3", "a2"}) {
    Value w = wait_workload(name, [&](const Value& v) { return annotated(v, kEstimatedStartAnnotation).has_value(); });
    EXPECT_TRUE(annotated(w, kEstimatedEndAnnotation)) << core::to_json(w);
  }
  Value huge = wait_workload("huge", [&](const Value& v) { return says(v, "can never provide more than 2"); });
  EXPECT_TRUE(says(huge, "budcore.io/estimate-reason")) << core::to_json(huge);
  EXPECT_FALSE(annotated(huge, kEstimatedStartAnnotation));

  // In the order their blockers end: f1 was admitted before b1.
  const core::Timestamp f1_end = admitted_at(f1) + core::Duration::seconds(10);
  const core::Timestamp b1_end = admitted_at(b1) + core::Duration::seconds(10);
  core::Timestamp f2_est = estimate_before("f2", "f1", f1_end);
  core::Timestamp a2_est = estimate_before("a2", "b1", b1_end);
  EXPECT_EQ(f2_est, f1_end);
  EXPECT_EQ(a2_est, b1_end);
  expect_close("f2", f2_est);
  expect_close("a2", a2_est);
  Value f2 = wait_workload("f2", [&](const Value& v) { return admitted(v); });
  core::Timestamp f3_est = estimate_before("f3", "f2", admitted_at(f2) + core::Duration::seconds(10));
  expect_close("f3", f3_est);
}

}  // namespace
}  // namespace budcore::companion
