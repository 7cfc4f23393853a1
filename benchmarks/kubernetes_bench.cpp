// Jobs through the Kubernetes backend into the real Kueue, against a running test bed:
// submissions per second and submit-to-admitted latency (p50/p99) for 1,000 jobs, through
// budcore's client (1 and 4 submitting threads) and through a `kubectl apply` loop doing the same.
//
//   scripts/k8s-testbed.sh start /tmp/kb
//   BUDCORE_K8S_KUBECONFIG=/tmp/kb/kubeconfig [BUDCORE_KUBECTL=kubectl] [BUDCORE_BENCH_JOBS=1000] \
//     build/release/benchmarks/kubernetes_bench
//
// Admission time is when a watch on the namespace's Workloads first shows QuotaReserved and
// Admitted (the client's clock); each case has its own ClusterQueue and namespace, with quota
// for every job, so the numbers are the API server's and Kueue's, not queueing for quota.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "budcore/core/yaml.hpp"
#include "budcore/kubernetes/jobs.hpp"
#include "budcore/kubernetes/kueue.hpp"
#include "budcore/kubernetes/status.hpp"

namespace {

using namespace budcore;
using Clock = std::chrono::steady_clock;

int job_count() {
  const char* n = std::getenv("BUDCORE_BENCH_JOBS");
  return n != nullptr ? std::max(1, std::atoi(n)) : 1000;
}

std::unique_ptr<kubernetes::Client> open_client(double qps) {
  const char* kc = std::getenv("BUDCORE_K8S_KUBECONFIG");
  if (kc == nullptr) return nullptr;
  auto cfg = kubernetes::load_kubeconfig(kc);
  if (!cfg) return nullptr;
  kubernetes::ClientOptions o;
  o.qps = qps;
  o.burst = 1000;
  auto c = kubernetes::Client::open(*cfg, o);
  return c ? std::move(*c) : nullptr;
}

struct Case {
  std::string sfx;
  core::Id tenant = core::Id::generate();
  kubernetes::RenderOptions opts;
  std::vector<job::Job> jobs;
};

Case make_case(kubernetes::Client& c, int n, const std::string& tag) {
  Case k;
  k.sfx = tag + "-" + k.tenant.to_string().substr(0, 8);
  k.opts.layout.cluster_queue_by_type = {{job::JobType::Batch, "perf-" + k.sfx}};
  k.opts.layout.tenant_namespace_prefix = "perf-";
  quota::QuotaConfig cfg;
  cfg.resource_flavors.push_back({"perf-" + k.sfx, {}, {}});
  quota::ClusterQueue cq;
  cq.name = "perf-" + k.sfx;
  quota::ResourceGroup g;
  g.covered_resources = {"cpu", "memory"};
  quota::FlavorQuotas fq;
  fq.name = cfg.resource_flavors[0].name;
  fq.resources.push_back({"cpu", core::Quantity::from_int(n), {}, {}});
  fq.resources.push_back({"memory", *core::Quantity::parse(std::to_string(n) + "Gi"), {}, {}});
  g.flavors.push_back(fq);
  cq.resource_groups.push_back(g);
  cfg.cluster_queues.push_back(cq);
  quota::add_tenant_local_queues(cfg, k.tenant.to_string(), k.opts.layout);
  auto applied = kubernetes::apply_quota(c, cfg);
  if (!applied) throw std::runtime_error(applied.error().describe());
  for (int i = 0; i < n; ++i) {
    job::Job j;
    j.id = core::Id::generate();
    j.name = "perf-" + std::to_string(i);
    j.tenant_id = k.tenant;
    j.job_type = job::JobType::Batch;
    j.deployment_type = job::DeploymentType::Docker;
    j.cpu_cores = core::Quantity::from_int(1);
    j.memory_gb = core::Quantity::from_int(1);
    j.spec = core::Value(core::Map{{"image", "busybox:1.36"}});
    k.jobs.push_back(std::move(j));
  }
  return k;
}

// Watches the namespace's Workloads and stamps each Job's first admission.
class AdmissionWatch {
 public:
  AdmissionWatch(kubernetes::Client& c, std::string ns) : c_(c), ns_(std::move(ns)) {
    auto l = c_.list(kubernetes::resources::workloads(), ns_);
    rv_ = l ? l->resource_version : "";
    thread_ = std::thread([this] { run(); });
  }
  ~AdmissionWatch() {
    stop_ = true;
    thread_.join();
  }
  std::size_t admitted() {
    std::lock_guard lock(mu_);
    return at_.size();
  }
  std::map<std::string, Clock::time_point> times() {
    std::lock_guard lock(mu_);
    return at_;
  }

 private:
  void run() {
    while (!stop_) {
      kubernetes::WatchOptions wo;
      wo.resource_version = rv_;
      wo.timeout_seconds = 30;
      auto end = c_.watch(kubernetes::resources::workloads(), ns_, wo,
                          [&](const kubernetes::WatchEvent& ev) {
                            auto now = Clock::now();
                            auto r = kubernetes::find_condition(ev.object, "QuotaReserved");
                            auto a = kubernetes::find_condition(ev.object, "Admitted");
                            const core::Value* owners = ev.object.find_path("metadata.ownerReferences");
                            if (r && r->status == "True" && a && a->status == "True" && owners && owners->is_list() && owners->size() > 0) {
                              std::lock_guard lock(mu_);
                              at_.emplace(owners->as_list()[0].find("name")->as_string(), now);
                            }
                            return true;
                          },
                          &stop_);
      if (end) rv_ = end->last_resource_version;
    }
  }
  kubernetes::Client& c_;
  std::string ns_;
  std::string rv_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::map<std::string, Clock::time_point> at_;
  std::thread thread_;
};

void report(benchmark::State& state, const std::map<std::string, Clock::time_point>& submitted,
            const std::map<std::string, Clock::time_point>& admitted, double submit_seconds) {
  std::vector<double> lat;
  for (const auto& [name, t] : submitted)
    if (auto it = admitted.find(name); it != admitted.end())
      lat.push_back(std::chrono::duration<double, std::milli>(it->second - t).count());
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double p) { return lat.empty() ? 0.0 : lat[std::min(lat.size() - 1, static_cast<std::size_t>(p * lat.size()))]; };
  state.counters["jobs"] = static_cast<double>(submitted.size());
  state.counters["admitted"] = static_cast<double>(lat.size());
  state.counters["submit_jobs_per_s"] = submitted.size() / submit_seconds;
  state.counters["p50_ms"] = pct(0.50);
  state.counters["p99_ms"] = pct(0.99);
}

void wait_all(AdmissionWatch& w, std::size_t n) {
  auto deadline = Clock::now() + std::chrono::minutes(5);
  while (w.admitted() < n && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

void BM_SubmitThroughClient(benchmark::State& state) {
  auto client = open_client(0);
  if (!client) {
    state.SkipWithError("set BUDCORE_K8S_KUBECONFIG to a running test bed (scripts/k8s-testbed.sh start DIR)");
    return;
  }
  const int n = job_count();
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Case k = make_case(*client, n, "c" + std::to_string(threads));
    std::string ns = k.opts.layout.tenant_namespace_prefix + k.tenant.to_string();
    AdmissionWatch watch(*client, ns);
    std::map<std::string, Clock::time_point> submitted;
    std::mutex mu;
    std::atomic<int> next{0};
    auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (int i = next++; i < n; i = next++) {
          auto at = Clock::now();
          auto r = kubernetes::submit_job(*client, k.jobs[static_cast<std::size_t>(i)], k.opts);
          if (!r) throw std::runtime_error(r.error().describe());
          std::lock_guard lock(mu);
          submitted.emplace(r->rendered.name, at);
        }
      });
    for (auto& t : pool) t.join();
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    wait_all(watch, submitted.size());
    report(state, submitted, watch.times(), secs);
  }
}
BENCHMARK(BM_SubmitThroughClient)->Arg(1)->Arg(4)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void BM_SubmitThroughKubectlApplyLoop(benchmark::State& state) {
  auto client = open_client(0);
  const char* kc = std::getenv("BUDCORE_K8S_KUBECONFIG");
  if (!client || kc == nullptr) {
    state.SkipWithError("set BUDCORE_K8S_KUBECONFIG to a running test bed (scripts/k8s-testbed.sh start DIR)");
    return;
  }
  const char* kubectl_env = std::getenv("BUDCORE_KUBECTL");
  std::string kubectl = kubectl_env != nullptr ? kubectl_env : "kubectl";
  const int n = job_count();
  for (auto _ : state) {
    Case k = make_case(*client, n, "kubectl");
    std::string ns = k.opts.layout.tenant_namespace_prefix + k.tenant.to_string();
    if (!kubernetes::ensure_namespace(*client, ns)) throw std::runtime_error("namespace");
    auto dir = std::filesystem::temp_directory_path() / ("budcore-kubectl-" + k.sfx);
    std::filesystem::create_directories(dir);
    std::vector<std::pair<std::string, std::string>> files;  // job name, file
    for (const auto& j : k.jobs) {
      auto r = kubernetes::render_job(j, k.opts);
      auto f = (dir / (r->name + ".yaml")).string();
      std::ofstream(f) << core::to_yaml(r->objects[0]);
      files.emplace_back(r->name, f);
    }
    AdmissionWatch watch(*client, ns);
    std::map<std::string, Clock::time_point> submitted;
    auto t0 = Clock::now();
    for (const auto& [name, file] : files) {
      submitted.emplace(name, Clock::now());
      pid_t pid = fork();
      if (pid == 0) {
        int null = ::open("/dev/null", 1);
        dup2(null, 1);
        dup2(null, 2);
        execlp(kubectl.c_str(), kubectl.c_str(), "--kubeconfig", kc, "apply", "-f", file.c_str(), nullptr);
        _exit(127);
      }
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        state.SkipWithError(("kubectl apply failed (exit " + std::to_string(WEXITSTATUS(status)) + "); set BUDCORE_KUBECTL").c_str());
        return;
      }
    }
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    wait_all(watch, submitted.size());
    report(state, submitted, watch.times(), secs);
    std::filesystem::remove_all(dir);
  }
}
BENCHMARK(BM_SubmitThroughKubectlApplyLoop)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
