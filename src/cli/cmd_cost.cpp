// `budcore cost estimate --prices FILE SPEC` (docs/cli.md contract 5), with --compare (spot vs
// on-demand) and `budcore cost cheapest` (the cheapest GPU type that fits). `cost report` and
// `cost budget` live in cmd_cost_report.cpp.
#include <iostream>
#include <memory>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/cost/estimator.hpp"
#include "budcore/cost/metering.hpp"
#include "cli/cost_common.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

int run_estimate(const std::string& prices, const std::string& spec_file, const std::string& tier, bool compare) {
  auto book = load_price_book(prices);
  if (!book) return report_cost_error(book.error());
  auto spec = load_document_arg(spec_file, "SPEC", cost::kMaxDocumentBytes);
  if (!spec) return report_cost_error(spec.error());
  if (compare) {
    auto c = cost::compare_tiers(*book, *spec);
    if (!c) return report_cost_error(c.error());
    return print_json(cost::to_value(*c));
  }
  cost::EstimateOptions options;
  if (!tier.empty()) {
    auto t = cost::parse_tier(tier);
    if (!t) return report_cost_error(t.error().at("--tier"));
    options.tier = *t;
  }
  auto e = cost::estimate_document(*book, *spec, options);
  if (!e) return report_cost_error(e.error());
  return print_json(cost::to_value(*e));
}

int run_cheapest(const std::string& prices, const cost::GpuRequirement& req) {
  auto book = load_price_book(prices);
  if (!book) return report_cost_error(book.error());
  auto s = cost::cheapest_gpu(*book, req);
  if (!s) return report_cost_error(s.error());
  return print_json(cost::to_value(*s));
}

const bool registered = register_commands([](CLI::App& root) {
  auto* cost = root.add_subcommand("cost", "Prices, estimates, usage reports and budgets");
  cost->require_subcommand(1);

  auto* est = cost->add_subcommand("estimate", "What a job, pipeline or use-case render will cost (contract 5)");
  auto prices = std::make_shared<std::string>();
  auto spec = std::make_shared<std::string>();
  auto tier = std::make_shared<std::string>();
  auto compare = std::make_shared<bool>(false);
  est->add_option("--prices", *prices, "price book (YAML or JSON)")->required();
  est->add_option("SPEC", *spec, "job document, pipeline document or use-case render (JSON/YAML, - for stdin)")
      ->required();
  est->add_option("--tier", *tier, "price every job at this tier (on_demand, spot, reserved)");
  est->add_flag("--compare", *compare, "spot vs on-demand side by side, with the savings");
  est->callback([=] { exit_code() = run_estimate(*prices, *spec, *tier, *compare); });

  auto* cheap = cost->add_subcommand("cheapest", "The cheapest GPU type with enough memory, ranked");
  auto cprices = std::make_shared<std::string>();
  auto req = std::make_shared<cost::GpuRequirement>();
  auto ctier = std::make_shared<std::string>("on_demand");
  cheap->add_option("--prices", *cprices, "price book (YAML or JSON)")->required();
  cheap->add_option("--gpu-memory-gib", req->memory_gib, "device memory each GPU needs (GiB)")->required();
  cheap->add_option("--gpu-count", req->gpu_count, "GPUs (default 1)");
  cheap->add_option("--seconds", req->seconds, "how long (default 3600)");
  cheap->add_option("--tier", *ctier, "on_demand (default), spot or reserved");
  cheap->callback([=] {
    core::Map doc;
    doc.set("memory_gib", core::Value(static_cast<long long>(req->memory_gib)));
    doc.set("gpu_count", core::Value(static_cast<long long>(req->gpu_count)));
    doc.set("seconds", core::Value(static_cast<long long>(req->seconds)));
    doc.set("tier", core::Value(*ctier));
    auto checked = cost::read_gpu_requirement(core::Value(std::move(doc)));  // the library's bounds
    exit_code() = checked ? run_cheapest(*cprices, *checked) : report_cost_error(checked.error());
  });

  register_cost_report_commands(*cost);
});

}  // namespace
}  // namespace budcore::cli
