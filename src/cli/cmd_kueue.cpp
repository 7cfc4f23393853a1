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

#include "budcore/companion/companion.hpp"
#include "budcore/companion/runner.hpp"
#include "budcore/core/json.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

using core::Value;

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
  Value v = companion::to_value(w);
  v.mutable_map().set("event", "decision");
  return v;
}

void print_line(const Value& v) { std::cout << core::to_json(v) << std::endl; }

void print_retrying(const core::Error& e) { print_error_json(core::Map{{"event", "retrying"}, {"error", error_json(e)}}); }

// Runs until SIGTERM or SIGINT. With leader election, run() activates the checks once it holds
// the Lease.
int run_loop(companion::Runner& r) {
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  std::thread runner([&r] { r.run([](const companion::Written& w) { print_line(written_json(w)); }, print_retrying); });
  while (g_stop == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  r.stop();
  runner.join();
  print_line(core::Map{{"event", "stopped"}});
  return kExitOk;
}

// One pass (--once): the decisions written, or not_leader when another replica holds the Lease.
int run_once(companion::Runner& r) {
  auto pass = r.sync_once();
  if (!pass) return report_error(pass.error());
  if (!pass->leader) {
    print_line(core::Map{{"event", "not_leader"}, {"identity", pass->identity}});
    return kExitOk;
  }
  core::List names(pass->admission_checks.begin(), pass->admission_checks.end());
  print_line(core::Map{{"event", "started"}, {"admission_checks", std::move(names)}, {"store", r.store_uri()}});
  for (const auto& x : pass->written) print_line(written_json(x));
  for (const auto& e : pass->retrying) print_retrying(e);
  return kExitOk;
}

int run(const Args& a) {
  auto cfg = companion::CompanionConfig::load_file(a.config);
  if (!cfg) return report_error(input_file_error(std::move(cfg).error(), "--config"));
  companion::RunnerOptions o;
  o.kubeconfig = a.kubeconfig;
  o.context = a.context;
  o.store = a.store;
  o.kubeconfig_field = "--kubeconfig";
  o.store_field = "--store";
  auto runner = companion::Runner::open(std::move(*cfg), o);
  if (!runner) return report_error(runner.error());
  if (a.once) return run_once(**runner);
  companion::LeaderElector* leader = (*runner)->companion().leader();
  if (leader != nullptr) {
    print_line(core::Map{{"event", "electing"},
                         {"identity", leader->identity()},
                         {"lease", leader->config().namespace_ + "/" + leader->config().lease_name}});
    return run_loop(**runner);
  }
  auto checks = (*runner)->companion().activate_checks();
  if (!checks) return report_error(checks.error());
  core::List names(checks->begin(), checks->end());
  print_line(core::Map{{"event", "started"}, {"admission_checks", std::move(names)}, {"store", (*runner)->store_uri()}});
  return run_loop(**runner);
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
  cmd->add_option("--store", args->store, "store URI (default: the config's store, else " + std::string(companion::kDefaultStore) + ")");
  cmd->add_flag("--once", args->once, "answer the pending checks once and exit");
  cmd->callback([args] { exit_code() = run(*args); });
});

}  // namespace
}  // namespace budcore::cli
