// `budcore pipeline plan FILE` (docs/cli.md contract 3): validates a pipeline document (JSON or
// YAML, "-" = stdin) and prints its plan, or {"valid": false, "errors": [...]} with exit 2.
// `budcore pipeline run FILE` rehearses a run on a virtual clock with simulated executors and
// prints every transition as a JSON line; --fail/--slow/--timeout inject what-if faults.
#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>

#include "budcore/core/json.hpp"
#include "budcore/core/limits.hpp"
#include "budcore/core/yaml.hpp"
#include "budcore/pipeline/engine.hpp"
#include "budcore/pipeline/planner.hpp"
#include "budcore/pipeline/rehearsal.hpp"
#include "cli/command.hpp"
#include "cli/pipeline_schedule.hpp"

namespace budcore::cli {
namespace {

// A whole file ("-": stdin) followed by kPlanTextPadding readable bytes, as plan_text_padded's no-copy
// path needs. The buffer is left uninitialised before the read: zero-filling 17 MB first cost a
// tenth of a 100k-step plan.
struct PaddedText {
  std::unique_ptr<char[]> bytes;
  std::string copy;  // stdin
  std::string_view text;
};

// Regular files take the fast path; standard input, pipes and devices go through read_input.
// Either way no more than max_input_bytes() is read.
core::Status read_padded(const std::string& file, PaddedText& out) {
  std::error_code ec;
  bool regular = file != "-" && std::filesystem::is_regular_file(file, ec);
  if (!regular) {
    core::Result<std::string> text = read_file_arg(file, "FILE");
    if (!text) return std::move(text).error();
    out.copy = std::move(*text);
    out.copy.reserve(out.copy.size() + pipeline::kPlanTextPadding);  // capacity past size() is readable
    out.text = out.copy;
    return {};
  }
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) return core::Error{core::ErrorCode::Invalid, "cannot open file '" + core::truncate_text(file) + "'", {}, core::truncate_text(file)};
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  std::size_t want = size > 0 ? static_cast<std::size_t>(size) : 0;
  if (auto st = core::check_input_size(want, "input"); !st) {
    std::fclose(f);
    return st;
  }
  out.bytes.reset(new char[want + pipeline::kPlanTextPadding]);
  std::size_t got = want == 0 ? 0 : std::fread(out.bytes.get(), 1, want, f);
  bool ok = std::ferror(f) == 0;
  std::fclose(f);
  std::memset(out.bytes.get() + got, 0, pipeline::kPlanTextPadding);
  out.text = std::string_view(out.bytes.get(), got);
  if (!ok) return core::Error{core::ErrorCode::Invalid, "cannot read file '" + core::truncate_text(file) + "'", {}, core::truncate_text(file)};
  return {};
}

int plan_file(const std::string& file) {
  PaddedText input;
  if (auto st = read_padded(file, input); !st) return report_error(st.error());
  pipeline::PlanResult result = pipeline::plan_text_padded(input.text);
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

// ---- pipeline run ------------------------------------------------------------------------

struct RunArgs {
  std::string file;
  std::string params;
  std::vector<std::string> fail, slow, timeout, reject;
};

core::Result<core::Value> parse_document(const std::string& text) {
  auto v = core::parse_json(text);
  if (v) return v;
  return core::parse_yaml(text);
}

// Prints each transition as a JSON line the moment it happens.
class PrintSink final : public pipeline::StateSink {
 public:
  explicit PrintSink(core::Timestamp start) : start_(start) {}
  core::Status save(const pipeline::Transition& t, const pipeline::RunState&) override {
    std::string line = core::to_json(pipeline::RehearsalResult::transition_value(t, start_));
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stdout);
    return {};
  }

 private:
  core::Timestamp start_;
};

core::Status split_flag(const std::string& flag, const std::string& text, std::string& step, std::string& value) {
  auto eq = text.find('=');
  step = text.substr(0, eq);
  value = eq == std::string::npos ? "" : text.substr(eq + 1);
  if (step.empty()) return core::Error::invalid(flag, text, "expects STEP or STEP=VALUE");
  return {};
}

// The what-if flags as rehearsal options (--fail/--slow/--timeout/--reject).
core::Result<pipeline::RehearsalOptions> flag_options(const RunArgs& args) {
  pipeline::RehearsalOptions options;
  options.approver = "cli";
  options.reject_reason = "--reject";
  options.reject = args.reject;
  for (const auto& f : args.fail) {
    std::string step, n;
    BUDCORE_TRY(split_flag("--fail", f, step, n));
    int count = INT_MAX;
    if (!n.empty()) {
      try {
        count = std::stoi(n);
      } catch (...) {
        return core::Error::invalid("--fail", f, "STEP=N needs a whole number of attempts");
      }
    }
    options.faults[step].fail_attempts = count;
  }
  for (const auto& s : args.slow) {
    std::string step, factor;
    BUDCORE_TRY(split_flag("--slow", s, step, factor));
    if (!factor.empty() && factor.back() == 'x') factor.pop_back();
    double x = 0;
    try {
      x = std::stod(factor);
    } catch (...) {
      x = -1;
    }
    if (!(x > 0)) return core::Error::invalid("--slow", s, "expects STEP=FACTORx, e.g. step-4=2x");
    options.faults[step].slow_factor = x;
  }
  for (const auto& step : args.timeout) options.faults[step].hang = true;
  return options;
}

int run_file(const RunArgs& args) {
  core::Result<std::string> text = read_file_arg(args.file, "FILE");
  if (!text) return report_error(text.error());
  auto doc = parse_document(*text);
  if (!doc) return report_error(doc.error());
  core::Value params;
  if (!args.params.empty()) {
    std::string ptext = args.params;
    if (ptext.front() != '{') {
      core::Result<std::string> read = read_file_arg(args.params, "--params");
      if (!read) return report_error(read.error());
      ptext = std::move(*read);
    }
    auto p = parse_document(ptext);
    if (!p || !p->is_map()) return report_error(core::Error::invalid("--params", args.params, "must be a JSON or YAML map"));
    params = *p;
  }
  auto options = flag_options(args);
  if (!options) return report_error(options.error());
  options->params = params;
  PrintSink sink(core::VirtualClock().now());  // rehearsals start at the virtual clock's epoch
  auto result = pipeline::rehearse(*doc, *options, nullptr, &sink);
  if (!result) return report_error(result.error());
  std::string line = core::to_json(result->summary()) + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("pipeline", "Pipeline DAGs (the Pipeline/Step schema of docs/pipelines.md)");
  group->require_subcommand(1);
  auto* plan = group->add_subcommand(
      "plan", "Validate a pipeline document and print its topological order, levels, critical path and JOB steps");
  auto file = std::make_shared<std::string>();
  plan->add_option("FILE", *file, "Pipeline document (JSON or YAML); '-' reads standard input")->required();
  plan->callback([file] { exit_code() = plan_file(*file); });

  auto* run = group->add_subcommand(
      "run", "Rehearse a run on a virtual clock with simulated executors; prints each transition as a JSON line");
  auto args = std::make_shared<RunArgs>();
  run->add_option("FILE", args->file, "Pipeline document (JSON or YAML); '-' reads standard input")->required();
  run->add_option("--params", args->params, "Parameters: a JSON/YAML file, or inline JSON starting with '{'");
  run->add_option("--fail", args->fail, "Make STEP fail (STEP=N: only its first N attempts)");
  run->add_option("--slow", args->slow, "Slow a JOB step down: STEP=2x");
  run->add_option("--timeout", args->timeout, "Make STEP hang until its timeout (or the pipeline's) ends it");
  run->add_option("--reject", args->reject, "Reject STEP's approval gate (others are approved)");
  run->callback([args] { exit_code() = run_file(*args); });
  add_pipeline_schedule_command(*group);
});

}  // namespace
}  // namespace budcore::cli
