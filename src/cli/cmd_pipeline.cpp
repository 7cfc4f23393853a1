// `budcore pipeline plan FILE` (CONTRACTS.md section 3): validates a pipeline document (JSON or
// YAML, "-" = stdin) and prints its plan, or {"valid": false, "errors": [...]} with exit 2.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>

#include "budcore/pipeline/planner.hpp"
#include "pipeline/analyze.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

// Reads the whole file, leaving kJsonPadding readable bytes after the text (see plan_text).
bool read_all(const std::string& file, std::string& out) {
  if (file == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    out = std::move(ss).str();
    out.reserve(out.size() + pipeline::detail::kJsonPadding);
    return true;
  }
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) return false;
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  std::size_t want = size > 0 ? static_cast<std::size_t>(size) : 0;
  out.resize(want + pipeline::detail::kJsonPadding);
  std::size_t got = want == 0 ? 0 : std::fread(out.data(), 1, want, f);
  std::fclose(f);
  out.resize(got);  // shrinking keeps the capacity: the padding stays readable
  return true;
}

int plan_file(const std::string& file) {
  std::string text;
  if (!read_all(file, text)) {
    return report_error(core::Error::invalid(file, file, "cannot read the pipeline file"));
  }
  pipeline::PlanResult result = pipeline::detail::plan_text(text, true);
  std::string out = pipeline::to_json(result);
  out += '\n';
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  if (result.valid()) return kExitOk;
  const auto& first = result.report.errors.front();
  if (first.code == pipeline::issue_code::kInvalidDocument) {
    report_error(core::Error::invalid(first.path, "", first.message));
  }
  return kExitInvalid;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("pipeline", "Pipeline DAGs (the source design's Pipeline/Step schema)");
  group->require_subcommand(1);
  auto* plan = group->add_subcommand(
      "plan", "Validate a pipeline document and print its topological order, levels, critical path and JOB steps");
  auto file = std::make_shared<std::string>();
  plan->add_option("FILE", *file, "Pipeline document (JSON or YAML); '-' reads standard input")->required();
  plan->callback([file] { exit_code() = plan_file(*file); });
});

}  // namespace
}  // namespace budcore::cli
