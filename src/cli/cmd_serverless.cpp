// `budcore serverless simulate`: replay a request trace through an endpoint under one or more
// autoscaling policies on a virtual clock.
#include <iostream>
#include <memory>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/serverless/autoscaler.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/replay.hpp"
#include "budcore/serverless/trace.hpp"
#include "cli/command.hpp"

namespace budcore::cli {

// cmd_serverless_queue.cpp
void add_serverless_queue_commands(CLI::App& group);

namespace {

struct SimulateArgs {
  std::string endpoint;
  std::string trace;
  std::string policy = "queue_depth";
  std::string format = "table";
  bool until_scaled_down = false;
};

int run_simulate(const SimulateArgs& a) {
  if (a.format != "table" && a.format != "json") {
    return report_error(core::Error::invalid("--format", a.format, "expected table or json"));
  }
  auto doc = load_document_arg(a.endpoint, "--endpoint");
  if (!doc) return report_error(doc.error());
  auto endpoint = serverless::EndpointConfig::from_value(*doc);
  if (!endpoint) return report_error(endpoint.error());
  auto text = read_file_arg(a.trace, "--trace");
  if (!text) return report_error(text.error());
  auto trace = serverless::parse_azure_trace(*text, a.trace);
  if (!trace) return report_error(trace.error());

  auto policies = serverless::make_policies(a.policy, *endpoint, "--policy");
  if (!policies) return report_error(policies.error());
  serverless::ReplayOptions options;
  options.until_scaled_down = a.until_scaled_down;
  auto reports = serverless::replay_all(*endpoint, *trace, *policies, options);
  if (!reports) return report_error(reports.error());
  if (a.format == "table") {
    std::cout << serverless::to_table(*reports);
    return kExitOk;
  }
  std::cout << core::to_json(serverless::reports_document(*reports), {2, false}) << "\n";
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("serverless", "Serverless endpoints: request queue, warm pool, autoscaling");
  group->require_subcommand(1);
  auto* sim = group->add_subcommand("simulate", "Replay a request trace through an endpoint on a virtual clock");
  auto a = std::make_shared<SimulateArgs>();
  sim->add_option("--endpoint", a->endpoint, "endpoint (JSON or YAML; - for stdin)")->required();
  sim->add_option("--trace", a->trace, "trace in the Azure LLM inference format (CSV)")->required();
  sim->add_option("--policy", a->policy, "queue_depth (default), kpa, ray_serve, predictive, budget; a comma list or all");
  sim->add_option("--format", a->format, "table (default) or json");
  sim->add_flag("--until-scaled-down", a->until_scaled_down,
                "after the last request, run on until the pool is down to its minimum (the idle tail billed)");
  sim->callback([a] { exit_code() = run_simulate(*a); });
  add_serverless_queue_commands(*group);
});

}  // namespace
}  // namespace budcore::cli
