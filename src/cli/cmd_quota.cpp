// `budcore quota simulate FILE` (CONTRACTS.md section 2).
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "budcore/quota/scenario.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

core::Result<std::string> read_input(const std::string& file) {
  if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(file, std::ios::binary);
  if (!in) return core::Error::invalid("FILE", file, "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run_simulate(const std::string& file) {
  auto text = read_input(file);
  if (!text) return report_error(text.error());
  auto scenario = quota::parse_scenario(*text);
  if (!scenario) return report_error(scenario.error());
  auto result = quota::simulate(*scenario);
  if (!result) return report_error(result.error());
  std::cout << quota::to_json(*result) << "\n";
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* quota = root.add_subcommand("quota", "Kueue-semantics quota and admission");
  quota->require_subcommand(1);
  auto* sim = quota->add_subcommand("simulate", "Run admission cycles on a scenario (JSON) and report decisions");
  auto file = std::make_shared<std::string>();
  sim->add_option("FILE", *file, "scenario JSON file, or - for stdin")->required();
  sim->callback([file] { exit_code() = run_simulate(*file); });
});

}  // namespace
}  // namespace budcore::cli
