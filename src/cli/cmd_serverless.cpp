// `budcore serverless simulate`: replay a request trace through an endpoint under one or more
// autoscaling policies on a virtual clock.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "budcore/core/json.hpp"
#include "budcore/serverless/autoscaler.hpp"
#include "budcore/serverless/endpoint.hpp"
#include "budcore/serverless/replay.hpp"
#include "budcore/serverless/trace.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

struct SimulateArgs {
  std::string endpoint;
  std::string trace;
  std::string policy = "queue_depth";
  std::string format = "table";
};

// "all", one name, or a comma-separated list, in the order given.
std::vector<std::string> policy_names(const std::string& text) {
  std::vector<std::string> out;
  if (text == "all") {
    for (std::string_view n : serverless::kPolicyNames) out.emplace_back(n);
    return out;
  }
  std::stringstream in(text);
  for (std::string name; std::getline(in, name, ',');) out.push_back(name);
  return out;
}

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

  std::vector<std::unique_ptr<serverless::AutoscalePolicy>> policies;
  for (const std::string& name : policy_names(a.policy)) {
    auto p = serverless::make_policy(name, *endpoint, "--policy");
    if (!p) return report_error(p.error());
    policies.push_back(std::move(*p));
  }
  std::vector<serverless::ReplayReport> reports;
  for (auto& p : policies) {
    auto r = serverless::replay(*endpoint, *trace, *p);
    if (!r) return report_error(r.error());
    reports.push_back(std::move(*r));
  }
  if (a.format == "table") {
    std::cout << serverless::to_table(reports);
    return kExitOk;
  }
  core::List rows;
  for (const auto& r : reports) rows.push_back(serverless::to_value(r));
  std::cout << core::to_json(core::Value(core::Map{{"reports", core::Value(std::move(rows))}}), {2, false}) << "\n";
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
  sim->callback([a] { exit_code() = run_simulate(*a); });
});

}  // namespace
}  // namespace budcore::cli
