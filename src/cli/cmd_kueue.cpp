// `budcore kueue companion --config FILE [--kubeconfig K] [--context C] [--store URI] [--once]`:
// budcore's AdmissionCheck controller for budgets and time windows beside an existing Kueue
// (docs/kueue-companion.md). It runs until SIGTERM or SIGINT, printing one JSON line when it
// starts and one per decision written; errors it retries go to stderr as JSON lines. --once
// lists the Workloads, answers the pending checks, and exits. With leader_election in the config
// only the replica holding the Lease writes; --once takes the Lease if free and releases it after.
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "budcore/backend/store.hpp"
#include "budcore/companion/companion.hpp"
#include "budcore/core/json.hpp"
#include "budcore/kubernetes/client.hpp"
#include "budcore/kubernetes/config.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

using core::Value;

constexpr const char* kDefaultStore = "sqlite:budcore-companion.db";

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

struct Args {
  std::string config;
  std::string kubeconfig;
  std::string context;
  std::string store;
  bool once = false;
};

Value written_json(const companion::Written& w) {
  Value v = companion::to_value(w.decision);
  auto& m = v.mutable_map();
  m.set("event", "decision");
  m.set("workload", w.workload);
  m.set("admission_check", w.admission_check);
  return v;
}

void print_line(const Value& v) { std::cout << core::to_json(v) << std::endl; }

// Runs until SIGTERM or SIGINT. With leader election, run() activates the checks once it holds
// the Lease.
int run_loop(companion::Companion& c) {
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  std::thread runner([&c] {
    c.run([](const companion::Written& w) { print_line(written_json(w)); },
          [](const core::Error& e) { print_error_json(core::Map{{"event", "retrying"}, {"error", error_json(e)}}); });
  });
  while (g_stop == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  c.stop();
  runner.join();
  print_line(core::Map{{"event", "stopped"}});
  return kExitOk;
}

int run(const Args& a) {
  auto cfg = companion::CompanionConfig::load_file(a.config);
  if (!cfg) return report_error(input_file_error(std::move(cfg).error(), "--config"));
  std::string kubeconfig = !a.kubeconfig.empty() ? a.kubeconfig : cfg->kubeconfig;
  auto cluster = kubeconfig.empty() ? kubernetes::default_config(a.context) : kubernetes::load_kubeconfig(kubeconfig, a.context);
  if (!cluster) return report_error(input_file_error(std::move(cluster).error(), "--kubeconfig"));
  auto client = kubernetes::Client::open(std::move(*cluster));
  if (!client) return report_error(client.error());
  std::string uri = !a.store.empty() ? a.store : !cfg->store.empty() ? cfg->store : kDefaultStore;
  auto store = backend::open_store(uri);
  if (!store) return report_error(store.error());
  auto comp = companion::Companion::open(std::move(*cfg), **client, **store);
  if (!comp) return report_error(comp.error());
  companion::LeaderElector* leader = (*comp)->leader();
  if (a.once && leader != nullptr) {
    // One attempt at the Lease: a replica that does not get it writes nothing.
    auto held = leader->try_acquire_or_renew();
    if (!held) return report_error(held.error());
    if (!*held) {
      print_line(core::Map{{"event", "not_leader"}, {"identity", leader->identity()}});
      return kExitOk;
    }
  }
  if (!a.once && leader != nullptr) {
    print_line(core::Map{{"event", "electing"},
                         {"identity", leader->identity()},
                         {"lease", leader->config().namespace_ + "/" + leader->config().lease_name}});
    return run_loop(**comp);
  }
  auto checks = (*comp)->activate_checks();
  if (!checks) return report_error(checks.error());
  core::List names;
  for (const auto& n : *checks) names.emplace_back(n);
  print_line(core::Map{{"event", "started"}, {"admission_checks", std::move(names)}, {"store", uri}});
  if (a.once) {
    auto w = (*comp)->sync(1);
    if (!w) return report_error(w.error());
    for (const auto& x : *w) print_line(written_json(x));
    for (const auto& e : (*comp)->take_metering_errors())
      print_error_json(core::Map{{"event", "retrying"}, {"error", error_json(e)}});
    if (leader != nullptr) {
      auto st = leader->release();
      if (!st) return report_error(st.error());
    }
    return kExitOk;
  }
  return run_loop(**comp);
}

const bool registered = register_commands([](CLI::App& root) {
  auto* k = root.add_subcommand("kueue", "budcore beside an existing Kueue");
  k->require_subcommand(1);
  auto args = std::make_shared<Args>();
  auto* cmd = k->add_subcommand("companion",
                                "Run the AdmissionCheck controller for budgets and time windows (docs/kueue-companion.md)");
  cmd->add_option("--config", args->config, "companion configuration (YAML or JSON)")->required();
  cmd->add_option("--kubeconfig", args->kubeconfig,
                  "kubeconfig file (default: the config's kubeconfig, $KUBECONFIG, ~/.kube/config, in-cluster)");
  cmd->add_option("--context", args->context, "kubeconfig context (default: current-context)");
  cmd->add_option("--store", args->store, std::string("store URI (default: the config's store, else ") + kDefaultStore + ")");
  cmd->add_flag("--once", args->once, "answer the pending checks once and exit");
  cmd->callback([args] { exit_code() = run(*args); });
});

}  // namespace
}  // namespace budcore::cli
