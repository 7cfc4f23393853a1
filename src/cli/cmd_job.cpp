// `budcore job validate FILE`: reads a job document (JSON or YAML, "-" = stdin), validates it
// against the job model and prints the normalized job JSON.
#include <iostream>
#include <memory>
#include <string>

#include "budcore/core/yaml.hpp"
#include "budcore/job/job.hpp"
#include "cli/command.hpp"

namespace budcore::cli {
namespace {

int validate_job_file(const std::string& file) {
  auto doc = core::load_document_file(file);
  if (!doc) {
    core::Error e = doc.error();
    if (e.field.empty()) e.field = file;
    // A FILE that cannot be read is the caller's input being wrong, not budcore failing.
    report_error(e);
    return kExitInvalid;
  }
  auto job = job::Job::from_value(*doc);
  if (!job) return report_error(job.error());
  if (auto st = job->validate(); !st) return report_error(st.error());
  std::cout << job->to_json() << "\n";
  return kExitOk;
}

const bool registered = register_commands([](CLI::App& root) {
  auto* group = root.add_subcommand("job", "Job specs (the source design's Job schema)");
  group->require_subcommand(1);

  auto* validate = group->add_subcommand(
      "validate", "Validate a job document (JSON or YAML) and print it normalized as JSON");
  auto file = std::make_shared<std::string>();
  validate->add_option("FILE", *file, "Job document; '-' reads standard input")->required();
  validate->callback([file] { exit_code() = validate_job_file(*file); });
});

}  // namespace
}  // namespace budcore::cli
