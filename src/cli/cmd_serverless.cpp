// `budcore serverless simulate`: replay a request trace through an endpoint under one or more
// autoscaling policies on a virtual clock; `budcore serverless serve`: the same trace served by
// an endpoint whose workers are jobs on a platform (its quota, its cost controls).
#include <iostream>
#include <memory>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/id.hpp"
#include "budcore/platform/platform.hpp"
#include "budcore/platform/serverless_endpoint.hpp"
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

struct ServeArgs {
  std::string config;
  std::string endpoint;
  std::string trace;
  std::string tenant;
  std::string policy = "queue_depth";
  double tail_seconds = 0;
};

// Opens the platform of --config (a virtual clock: the trace runs in virtual time), serves the
// trace with the endpoint, prints the report as JSON.
int run_serve(const ServeArgs& a) {
  auto text = read_file_arg(a.config, "--config");
  if (!text) return report_error(text.error());
  auto config = platform::PlatformConfig::parse(*text);
  if (!config) return report_error(config.error());
  if (config->clock != platform::ClockKind::Virtual)
    return report_error(core::Error::invalid("--config", "clock", "serve runs the trace on the platform's virtual clock"));
  auto tenant = core::Id::parse_field(a.tenant, "--tenant");
  if (!tenant) return report_error(tenant.error());
  auto doc = load_document_arg(a.endpoint, "--endpoint");
  if (!doc) return report_error(doc.error());
  auto endpoint = serverless::EndpointConfig::from_value(*doc);
  if (!endpoint) return report_error(endpoint.error());
  auto trace_text = read_file_arg(a.trace, "--trace");
  if (!trace_text) return report_error(trace_text.error());
  auto trace = serverless::parse_azure_trace(*trace_text, a.trace);
  if (!trace) return report_error(trace.error());
  auto tail = core::Duration::from_seconds(a.tail_seconds);
  if (!tail || *tail < core::Duration() || *tail > core::Duration::hours(24))
    return report_error(core::Error::invalid("--tail-seconds", std::to_string(a.tail_seconds), "must be in [0, 86400]"));
  auto policy = serverless::make_policy(a.policy, *endpoint, "--policy");
  if (!policy) return report_error(policy.error());
  auto p = platform::Platform::open(std::move(*config));
  if (!p) return report_error(p.error());
  auto ep = platform::ServerlessEndpoint::open(**p, platform::CallContext::for_tenant(*tenant, "cli"), std::move(*endpoint));
  if (!ep) return report_error(ep.error());
  auto report = platform::serve_trace(**p, **ep, *trace, **policy, *tail);
  if (!report) return report_error(report.error());
  std::cout << core::to_json(report->to_value(), {2, false}) << "\n";
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
  auto* serve = group->add_subcommand("serve", "Serve a request trace with an endpoint whose workers are platform jobs");
  auto b = std::make_shared<ServeArgs>();
  serve->add_option("--config", b->config, "platform config (YAML/JSON) with a virtual clock and a cost section")->required();
  serve->add_option("--endpoint", b->endpoint, "endpoint (JSON or YAML; - for stdin)")->required();
  serve->add_option("--trace", b->trace, "trace in the Azure LLM inference format (CSV)")->required();
  serve->add_option("--tenant", b->tenant, "the endpoint's owner tenant (UUID)")->required();
  serve->add_option("--policy", b->policy, "queue_depth (default), kpa, ray_serve, predictive or budget");
  serve->add_option("--tail-seconds", b->tail_seconds, "after the last request, run on this long before scaling to zero");
  serve->callback([b] { exit_code() = run_serve(*b); });
  add_serverless_queue_commands(*group);
});

}  // namespace
}  // namespace budcore::cli
