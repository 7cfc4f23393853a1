// `budcore gpu replay`: the Alibaba GPU trace replayed with one or more placement policies.
// `budcore gpu defrag`: the cheapest plan that makes a pending request fit (docs/cli.md).
// `budcore gpu place-mig`: where one instance of a MIG profile goes (docs/cli.md).
#include <iostream>
#include <memory>

#include "budcore/core/json.hpp"
#include "budcore/gpu/defrag.hpp"
#include "budcore/gpu/policy.hpp"
#include "budcore/gpu/trace.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

struct ReplayArgs {
  std::string nodes, pods, policy = "all", format = "json";
  std::uint64_t seed = 1;
  double max_load = 1.3;
  double step = 0.05;
};

int run_replay(const ReplayArgs& a) {
  auto node_text = read_file_arg(a.nodes, "--nodes");
  if (!node_text) return report_error(node_text.error());
  auto pool = gpu::parse_nodes_csv(*node_text, a.nodes);
  if (!pool) return report_error(pool.error());
  auto pod_text = read_file_arg(a.pods, "--pods");
  if (!pod_text) return report_error(pod_text.error());
  auto tasks = gpu::parse_pods_csv(*pod_text, a.pods);
  if (!tasks) return report_error(tasks.error());
  auto names = gpu::parse_policy_list(a.policy, "--policy");
  if (!names) return report_error(names.error());
  gpu::ReplayOptions o;
  o.seed = a.seed;
  o.max_load = a.max_load;
  o.step = a.step;
  std::vector<gpu::ReplayResult> results;
  for (const auto& n : *names) {
    auto r = gpu::replay(*pool, *tasks, n, o);
    if (!r) return report_error(r.error());
    results.push_back(std::move(*r));
  }
  if (a.format == "table") {
    std::cout << gpu::to_table(results);
    return kExitOk;
  }
  core::Value doc = gpu::replay_document(*pool, tasks->size(), a.seed, results);
  std::cout << core::to_json(doc) << "\n";
  return kExitOk;
}

struct DefragArgs {
  std::string problem, format = "json";
  bool apply = false;
};

int run_defrag(const DefragArgs& a) {
  auto text = read_file_arg(a.problem, "--problem");
  if (!text) return report_error(text.error());
  auto problem = gpu::parse_defrag_problem(*text);
  if (!problem) return report_error(problem.error().at(a.problem));
  if (a.apply) problem->apply = true;
  auto doc = gpu::defrag_document(*problem);
  if (!doc) return report_error(doc.error());
  if (a.format == "text") {
    const core::Value* plan = doc->find("plan");
    std::cout << (plan->is_null() ? std::string("no plan: nothing that may move or end makes room")
                                  : plan->find("summary")->as_string())
              << (doc->find("applied")->as_bool() ? " [applied]" : "") << "\n";
    return kExitOk;
  }
  std::cout << core::to_json(*doc) << "\n";
  return kExitOk;
}

int run_place_mig(const DefragArgs& a) {
  auto text = read_file_arg(a.problem, "--problem");
  if (!text) return report_error(text.error());
  auto problem = gpu::parse_defrag_problem(*text);
  if (!problem) return report_error(problem.error().at(a.problem));
  if (a.apply) problem->apply = true;
  auto doc = gpu::place_mig_document(*problem);
  if (!doc) return report_error(doc.error());
  std::cout << core::to_json(*doc) << "\n";
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* gpu = root.add_subcommand("gpu", "GPU placement: policies, fragmentation, trace replay");
  gpu->require_subcommand(1);
  auto* rep = gpu->add_subcommand("replay", "Replay the Alibaba GPU trace (openb CSV files) with placement policies");
  auto a = std::make_shared<ReplayArgs>();
  rep->add_option("--nodes", a->nodes, "node list (sn,cpu_milli,memory_mib,gpu,model)")->required();
  rep->add_option("--pods", a->pods, "pod list (name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,...)")->required();
  rep->add_option("--policy", a->policy, "a policy, several separated by commas, or all (default)");
  rep->add_option("--seed", a->seed, "seed of the task draws (default 1)");
  rep->add_option("--max-load", a->max_load, "stop at this arrived GPU demand / capacity (default 1.3)");
  rep->add_option("--step", a->step, "record a point every step of arrived load (default 0.05)");
  rep->add_option("--format", a->format, "json (default) or table")->check(CLI::IsMember({"json", "table"}));
  rep->callback([a] { exit_code() = run_replay(*a); });

  auto* defrag = gpu->add_subcommand("defrag", "The cheapest plan (moves, waits, a MIG re-partition) that makes a pending request fit");
  auto d = std::make_shared<DefragArgs>();
  defrag->add_option("--problem", d->problem, "the nodes, their workloads and the request (JSON; - reads stdin)")->required();
  defrag->add_flag("--apply", d->apply, "apply the plan and print the workloads after it");
  defrag->add_option("--format", d->format, "json (default) or text")->check(CLI::IsMember({"json", "text"}));
  defrag->callback([d] { exit_code() = run_defrag(*d); });

  auto* mig = gpu->add_subcommand("place-mig", "Where one instance of a MIG profile goes (re-partitioning a GPU when that lets it fit)");
  auto pm = std::make_shared<DefragArgs>();
  mig->add_option("--problem", pm->problem, "the nodes, their workloads and the request with its mig_profile (JSON; - reads stdin)")
      ->required();
  mig->add_flag("--apply", pm->apply, "allocate the instance and print the workloads after it");
  mig->callback([pm] { exit_code() = run_place_mig(*pm); });
});

}  // namespace
}  // namespace budcore::cli
