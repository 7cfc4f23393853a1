// `budcore quota simulate FILE` (docs/cli.md contract 2), `quota import`, `quota export --kueue`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/quota/kueue_yaml.hpp"
#include "budcore/quota/scenario.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

bool looks_like_json(const std::string& text) {
  auto p = text.find_first_not_of(" \t\r\n");
  return p != std::string::npos && text[p] == '{';
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
}

// Kueue objects (a directory or a multi-document YAML) plus a workloads file (JSON or YAML with
// "workloads", optional "cycles" and "fair_sharing") become one contract scenario.
core::Result<std::string> kueue_scenario(const std::string& file, const std::string& workloads) {
  auto read = quota::import_kueue_path(file);
  if (!read) return input_file_error(std::move(read).error(), "FILE");
  quota::KueueImport imported = std::move(*read);
  print_warnings(imported.warnings);
  core::Value scenario;
  BUDCORE_TRY_ASSIGN(scenario, core::parse_json(quota::config_to_json(imported.config, -1)));
  if (!workloads.empty()) {
    core::Value extra;
    BUDCORE_TRY_ASSIGN(extra, load_document_arg(workloads, "--workloads"));
    if (extra.is_list()) extra = core::Value(core::Map{{"workloads", extra}});
    if (!extra.is_map()) return core::Error::invalid("--workloads", workloads, "expected a list of workloads or a map with \"workloads\"");
    for (const auto& [k, v] : extra.as_map())
      if (k == "workloads" || k == "cycles" || k == "fair_sharing") scenario.mutable_map().set(k, v);
  }
  return core::to_json(scenario);
}

int run_simulate(const std::string& file, const std::string& workloads) {
  core::Result<std::string> text = std::string();
  if (std::filesystem::is_directory(file) || !workloads.empty()) {
    text = kueue_scenario(file, workloads);
  } else {
    text = read_file_arg(file, "FILE");
    if (text && !looks_like_json(*text)) {
      auto imported = quota::import_kueue_yaml(*text);
      if (!imported) return report_error(imported.error());
      print_warnings(imported->warnings);
      text = quota::config_to_json(imported->config, -1);
    }
  }
  if (!text) return report_error(text.error());
  auto scenario = quota::parse_scenario(*text);
  if (!scenario) return report_error(scenario.error());
  auto result = quota::simulate(*scenario);
  if (!result) return report_error(result.error());
  std::cout << quota::to_json(*result) << "\n";
  return kExitOk;
}

int run_import(const std::string& file) {
  auto imported = quota::import_kueue_path(file);
  if (!imported) return report_error(input_file_error(imported.error(), "FILE"));
  print_warnings(imported->warnings);
  std::cout << quota::config_to_json(imported->config) << "\n";
  return kExitOk;
}

int run_export(const std::string& file, const std::string& api_version) {
  quota::KueueApiVersion version;
  if (api_version == "v1beta2" || api_version == "kueue.x-k8s.io/v1beta2") version = quota::KueueApiVersion::V1beta2;
  else if (api_version == "v1beta1" || api_version == "kueue.x-k8s.io/v1beta1") version = quota::KueueApiVersion::V1beta1;
  else return report_error(core::Error::invalid("--api-version", api_version, "expected v1beta1 or v1beta2"));
  auto text = read_file_arg(file, "FILE");
  if (!text) return report_error(text.error());
  quota::QuotaConfig config;
  if (looks_like_json(*text)) {
    auto scenario = quota::parse_scenario(*text);
    if (!scenario) return report_error(scenario.error());
    if (auto st = quota::validate(scenario->config); !st) return report_error(st.error());
    config = scenario->config;
  } else {
    auto imported = quota::import_kueue_yaml(*text);
    if (!imported) return report_error(imported.error());
    config = imported->config;
  }
  std::cout << quota::export_kueue_yaml(config, version);
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* quota = root.add_subcommand("quota", "Kueue-semantics quota and admission");
  quota->require_subcommand(1);
  auto* sim = quota->add_subcommand("simulate", "Run admission cycles on a scenario and report decisions");
  auto file = std::make_shared<std::string>();
  auto workloads = std::make_shared<std::string>();
  sim->add_option("FILE", *file,
                  "scenario JSON file (- for stdin), or Kueue objects: a multi-document YAML file or a directory")
      ->required();
  sim->add_option("--workloads", *workloads, "workloads (JSON/YAML: a list, or a map with workloads, cycles, fair_sharing)");
  sim->callback([file, workloads] { exit_code() = run_simulate(*file, *workloads); });

  auto* imp = quota->add_subcommand("import", "Convert Kueue YAML (file or directory) to budcore quota configuration JSON");
  auto ifile = std::make_shared<std::string>();
  imp->add_option("FILE", *ifile, "Kueue YAML file or directory")->required();
  imp->callback([ifile] { exit_code() = run_import(*ifile); });

  auto* exp = quota->add_subcommand("export", "Write a budcore quota configuration as Kueue YAML");
  auto efile = std::make_shared<std::string>();
  auto api = std::make_shared<std::string>("v1beta2");
  auto kueue = std::make_shared<bool>(false);
  exp->add_flag("--kueue", *kueue, "Kueue YAML output (the only format)");
  exp->add_option("--api-version", *api, "v1beta2 (default) or v1beta1");
  exp->add_option("FILE", *efile, "budcore quota configuration JSON (or Kueue YAML), - for stdin")->required();
  // Every bound target is captured, so it lives as long as the parser that writes to it.
  exp->callback([efile, api, kueue] {
    (void)kueue;  // --kueue is the only output format; the flag is accepted for clarity
    exit_code() = run_export(*efile, *api);
  });
});

}  // namespace
}  // namespace budcore::cli
