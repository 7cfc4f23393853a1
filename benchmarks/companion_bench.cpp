// The Kueue companion's estimates on a real test bed with many pending Workloads: the first
// full pass (list the Workloads and the quota objects, run the timeline, patch every estimate),
// the update after one running Workload finishes, and the API requests per minute of a steady
// state with nothing changing.
//
//   scripts/k8s-testbed.sh start /tmp/kb
//   BUDCORE_K8S_KUBECONFIG=/tmp/kb/kubeconfig BUDCORE_BENCH_WORKLOADS=10000 BUDCORE_BENCH_QPS=0
//     build/release/benchmarks/companion_bench
//
// The Workloads are created directly (kueue.x-k8s.io Workloads with a queue name and an
// expected duration), 1 cpu each, in a StrictFIFO ClusterQueue of 8 cpu: Kueue admits 8 and
// the rest wait. Workloads that belong to Jobs cost one more GET each on the first pass (the
// Job's annotations, read once per Workload). The companion's client runs at BUDCORE_BENCH_QPS
// requests per second (0: unthrottled; the companion's default is 50, burst 100) and sends its
// patches on BUDCORE_BENCH_WRITERS connections at once (default 8, as the companion's).
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "budcore/backend/store.hpp"
#include "budcore/companion/companion.hpp"
#include "budcore/companion/estimates.hpp"
#include "budcore/core/clock.hpp"
#include "budcore/kubernetes/client.hpp"
#include "budcore/kubernetes/config.hpp"
#include "budcore/kubernetes/status.hpp"

namespace {

using namespace budcore;
using core::List;
using core::Map;
using core::Value;
using Clock = std::chrono::steady_clock;
namespace res = kubernetes::resources;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoi(v) : fallback;
}

std::unique_ptr<kubernetes::Client> open_client(double qps, int burst, const std::string& manager) {
  const char* kc = std::getenv("BUDCORE_K8S_KUBECONFIG");
  if (kc == nullptr) return nullptr;
  auto cfg = kubernetes::load_kubeconfig(kc);
  if (!cfg) return nullptr;
  kubernetes::ClientOptions o;
  o.qps = qps;
  o.burst = burst;
  o.field_manager = manager;
  auto c = kubernetes::Client::open(*cfg, o);
  return c ? std::move(*c) : nullptr;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A namespace, a flavor, a StrictFIFO ClusterQueue of 8 cpu and its LocalQueue, then `n`
// Workloads of 1 cpu created from 4 threads.
struct Cluster {
  std::string sfx, ns, cq;

  Cluster(kubernetes::Client& c, int n) {
    sfx = std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 100000000);
    ns = "cbench-" + sfx;
    cq = "cbench-" + sfx;
    must(c.create(res::namespaces(), "", Map{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Map{{"name", ns}}}}));
    must(c.create(res::resource_flavors(), "",
                  Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"}, {"kind", "ResourceFlavor"}, {"metadata", Map{{"name", cq}}}}));
    Value quota = List{Map{{"name", "cpu"}, {"nominalQuota", 8}}};
    must(c.create(res::cluster_queues(), "",
                  Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                      {"kind", "ClusterQueue"},
                      {"metadata", Map{{"name", cq}}},
                      {"spec", Map{{"namespaceSelector", Map{}},
                                   {"queueingStrategy", "StrictFIFO"},
                                   {"resourceGroups", List{Map{{"coveredResources", List{"cpu"}},
                                                               {"flavors", List{Map{{"name", cq}, {"resources", quota}}}}}}}}}}));
    must(c.create(res::local_queues(), ns,
                  Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                      {"kind", "LocalQueue"},
                      {"metadata", Map{{"name", "lq"}, {"namespace", ns}}},
                      {"spec", Map{{"clusterQueue", cq}}}}));
    std::atomic<int> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int i = next++; i < n; i = next++) must(c.create(res::workloads(), ns, workload(i)));
      });
    for (auto& t : threads) t.join();
  }

  Value workload(int i) const {
    Value container = Map{{"name", "c"}, {"image", "busybox"}, {"resources", Map{{"requests", Map{{"cpu", "1"}}}}}};
    return Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
               {"kind", "Workload"},
               {"metadata", Map{{"name", "w-" + std::to_string(100000 + i)},
                                {"namespace", ns},
                                {"annotations", Map{{"budcore.io/expected-duration", "10m"}}}}},
               {"spec", Map{{"queueName", "lq"},
                            {"podSets", List{Map{{"name", "main"},
                                                 {"count", 1},
                                                 {"template", Map{{"spec", Map{{"restartPolicy", "Never"},
                                                                               {"containers", List{container}}}}}}}}}}}};
  }

  static void must(const core::Result<Value>& r) {
    if (!r) throw std::runtime_error(r.error().describe());
  }
};

std::vector<Value> workloads_of(kubernetes::Client& c, const std::string& ns) {
  auto l = c.list(res::workloads(), ns);
  if (!l) throw std::runtime_error(l.error().describe());
  return l->items;
}

// Holds quota: reserved and not finished (a finished Workload keeps its QuotaReserved condition).
bool reserved(const Value& wl) {
  auto q = kubernetes::find_condition(wl, "QuotaReserved");
  auto f = kubernetes::find_condition(wl, "Finished");
  return q && q->status == "True" && !(f && f->status == "True");
}

std::size_t annotated(const std::vector<Value>& wls) {
  std::size_t n = 0;
  for (const auto& w : wls)
    if (w.find_path("metadata.annotations") != nullptr &&
        w.find_path("metadata.annotations")->find(companion::kEstimatedStartAnnotation) != nullptr)
      ++n;
  return n;
}

void BM_CompanionEstimates(benchmark::State& state) {
  const int n = env_int("BUDCORE_BENCH_WORKLOADS", 10000);
  const double qps = env_int("BUDCORE_BENCH_QPS", 0);
  const int writers = env_int("BUDCORE_BENCH_WRITERS", 8);
  auto admin = open_client(0, 1000, "bench");
  if (!admin) {
    state.SkipWithError("set BUDCORE_K8S_KUBECONFIG to a running test bed (scripts/k8s-testbed.sh start DIR)");
    return;
  }
  for (auto _ : state) {
    auto created_at = Clock::now();
    Cluster cluster(*admin, n);
    const double create_s = seconds_since(created_at);
    // Kueue has reserved quota for the first 8 once it has seen them all.
    while (true) {
      auto wls = workloads_of(*admin, cluster.ns);
      std::size_t r = 0;
      for (const auto& w : wls) r += reserved(w) ? 1 : 0;
      if (r == 8) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    auto client = open_client(qps, qps > 0 ? 100 : 1000, "budcore-bench");
    const std::string db = (std::filesystem::temp_directory_path() / ("companion-bench-" + cluster.sfx + ".db")).string();
    auto store = backend::open_store("sqlite:" + db);
    if (!store) throw std::runtime_error(store.error().describe());
    auto config = companion::CompanionConfig::from_text(
        "controllers: [{name: budcore.io/bench-" + cluster.sfx + ", checks: [window]}]\n"
        "cluster_queues: [" + cluster.cq + "]\n"
        "default_duration: 10m\n"
        "estimates: {enabled: true, refresh_seconds: 1, writers: " + std::to_string(writers) + "}\n");
    if (!config) throw std::runtime_error(config.error().describe());
    auto comp = companion::Companion::open(std::move(*config), *client, **store);
    if (!comp) throw std::runtime_error(comp.error().describe());

    // The first pass: list, estimate, patch every pending Workload.
    const std::uint64_t before_first = client->requests_sent();
    auto first_at = Clock::now();
    auto w = (*comp)->sync(1);
    const double first_s = seconds_since(first_at);
    if (!w) throw std::runtime_error(w.error().describe());
    const double first_requests = static_cast<double>(client->requests_sent() - before_first);
    const std::size_t pending_annotated = annotated(workloads_of(*admin, cluster.ns));

    // One running Workload finishes (early: every estimate moves), past the refresh limit.
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    for (const auto& wl : workloads_of(*admin, cluster.ns)) {
      if (!reserved(wl)) continue;
      std::string now = core::SystemClock().now().to_string();
      Value status = Map{{"apiVersion", "kueue.x-k8s.io/v1beta2"},
                         {"kind", "Workload"},
                         {"metadata", Map{{"name", wl.find_path("metadata.name")->as_string()}, {"namespace", cluster.ns}}},
                         {"status", Map{{"conditions", List{Map{{"type", "Finished"},
                                                                {"status", "True"},
                                                                {"reason", "Succeeded"},
                                                                {"message", "done"},
                                                                {"lastTransitionTime", now}}}}}}};
      Cluster::must(admin->apply(res::workloads(), cluster.ns, status, true, "status"));
      break;
    }
    auto update_at = Clock::now();
    const std::uint64_t before_update = client->requests_sent();
    // Passes until Kueue has admitted the next one and a refresh finds nothing left to write;
    // the time is to the end of the last pass that wrote (the bench's own listing between passes,
    // 10,000 Workloads each, is not the companion's).
    std::size_t passes = 0;
    double update_s = 0;
    auto wrote = [&, last = (*comp)->writes()]() mutable {
      if ((*comp)->writes() == last) return;
      last = (*comp)->writes();
      update_s = seconds_since(update_at);
    };
    while (seconds_since(update_at) < 60) {
      auto u = (*comp)->sync(1);
      if (!u) throw std::runtime_error(u.error().describe());
      ++passes;
      wrote();
      std::size_t reserved_now = 0;
      for (const auto& x : workloads_of(*admin, cluster.ns)) reserved_now += reserved(x) ? 1 : 0;
      if (reserved_now != 8) continue;
      auto refreshed = (*comp)->refresh_estimates();
      wrote();
      if (refreshed.value_or(1) == 0) break;
    }
    const double update_requests = static_cast<double>(client->requests_sent() - before_update);

    // Steady state: nothing changes for 60 s of passes (each a 2 s watch, as run() does).
    const std::uint64_t before_idle = client->requests_sent();
    auto idle_at = Clock::now();
    while (seconds_since(idle_at) < 60) {
      auto u = (*comp)->sync(2);
      if (!u) throw std::runtime_error(u.error().describe());
    }
    const double idle_per_min = static_cast<double>(client->requests_sent() - before_idle) * 60.0 / seconds_since(idle_at);

    state.counters["workloads"] = n;
    state.counters["create_s"] = create_s;
    state.counters["first_pass_s"] = first_s;
    state.counters["first_pass_requests"] = first_requests;
    state.counters["annotated"] = static_cast<double>(pending_annotated);
    state.counters["update_s"] = update_s;
    state.counters["update_passes"] = static_cast<double>(passes);
    state.counters["update_requests"] = update_requests;
    state.counters["idle_requests_per_min"] = idle_per_min;
    comp->reset();
    std::filesystem::remove(db);
    // The Workloads go first, while their queues exist, so that Kueue lets them go (a test bed
    // without a namespace controller never empties a deleted namespace); left behind, they would
    // be estimated by the next run's companion.
    (void)admin->request("DELETE", "/apis/kueue.x-k8s.io/v1beta2/namespaces/" + cluster.ns + "/workloads");
    auto gone_by = Clock::now() + std::chrono::minutes(3);
    while (Clock::now() < gone_by && !workloads_of(*admin, cluster.ns).empty())
      std::this_thread::sleep_for(std::chrono::seconds(1));
    (void)admin->remove(res::local_queues(), cluster.ns, "lq");
    (void)admin->remove(res::cluster_queues(), "", cluster.cq);
    (void)admin->remove(res::resource_flavors(), "", cluster.cq);
    (void)admin->remove(res::namespaces(), "", cluster.ns);
  }
}
BENCHMARK(BM_CompanionEstimates)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
